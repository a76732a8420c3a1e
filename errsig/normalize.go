package errsig

import "strings"

// Placeholders put in a signature for the parts of an error line that
// change from one occurrence of the same error to the next.
const (
	phPath = "<path>" // a file path
	phNum  = "<n>"    // a number: line, column, count, size, duration, version
	phID   = "<id>"   // a hash, a UUID, a memory address, a random id
	phQuot = "<q>"    // a quoted value
	phURL  = "<url>"  // a URL, host included
	phVar  = "<v>"    // an identifier of the user's code
	phTime = "<time>" // a timestamp
)

const (
	maxLine      = 200 // bytes of Error.Line
	maxSignature = 200 // bytes of Error.Signature
	maxNormIn    = 400 // bytes of a line Normalize looks at
)

// Normalize returns the signature form of one error line: lower case, with
// the parts that vary between occurrences of the same error replaced by
// placeholders. Parse applies it to the line it picks (less the location
// and program prefix, which Parse handles itself).
//
// Replaced: URLs (host included, since a host can be private) by <url>;
// quoted values ('…', "…", `…`, ‘…’, “…”) by <q>; file paths by <path>,
// extension dropped, so one missing file reads like another; UUIDs,
// hashes and addresses by <id>; timestamps by <time>; numbers by <n>, so
// line:col becomes <n>:<n> and 0.42s becomes <n>s; identifiers that look
// like code (camelCase, a.b.c, f()) and the names in a few
// well-known compiler message shapes ("cannot use x", "undefined: x",
// "call to f") by <v>.
//
// Kept, because they say what the error is: the words of the message,
// error codes (E0308, TS2339, GH006, F401 — letters then digits), HTTP
// statuses after "HTTP" or "status", exception types (ModuleNotFoundError),
// constants in capitals (ERR_MODULE_NOT_FOUND, LLVM_DIR), builtin type
// names, and unquoted plain words such as a missing command's or
// package's name. The result is at most 200 bytes; Normalize(Normalize(s))
// == Normalize(s) unless s was cut to fit.
func Normalize(line string) string {
	n, _ := normalizeCut(line, false)
	return n
}

// normalize is Normalize; keepIdents leaves code identifiers as they are,
// for lines whose identifiers are the point (a failing test's name).
func normalize(line string, keepIdents bool) string {
	n, _ := normalizeCut(line, keepIdents)
	return n
}

// normalizeCut is normalize, and whether it had to cut the line or its
// normal form to fit.
func normalizeCut(line string, keepIdents bool) (string, bool) {
	cut := len(line) > maxNormIn
	line = clip(redactor.Head(line, maxNormIn), maxNormIn)
	pre := prepass(line, nil)
	var buf [48]token
	toks := tokenize(buf[:0], pre)
	var b strings.Builder
	b.Grow(len(pre) + 16)
	space := false
	for i, t := range toks {
		if t.sep {
			for j := 0; j < len(t.s); j++ {
				c := t.s[j]
				if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' {
					space = true
					continue
				}
				if space && b.Len() > 0 {
					b.WriteByte(' ')
				}
				space = false
				b.WriteByte(lowerByte(c))
			}
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		writeLower(&b, transform(toks, i, keepIdents))
	}
	out := b.String()
	return clipWords(out, maxSignature), cut || len(out) > maxSignature
}

// Values are what Normalize takes out of line to say what failed rather
// than where or when: its quoted values (<q>) but paths and numbers, and
// the identifiers of the user's code (<v>), in lower case, in order. Two errors of one signature
// are the same error when they have the same values: "npm error Missing
// script: "lint"" is not "npm error Missing script: "test"", but "failed
// to find expected lines in <path>" is the same wherever the file is.
// An error that says a file is missing is about that file: the last
// element of each path it names is a value too ("ls: crates/app/: No such
// file or directory" is not the same error as "ls: docs/plans/: …").
func Values(line string) []string {
	line = clip(redactor.Head(line, maxNormIn), maxNormIn)
	missing := saysMissing(line)
	var quoted, vals []string
	pre := prepass(line, &quoted)
	for _, q := range quoted {
		// A quoted path or number says where or how much, not what.
		switch {
		case q == "" || digits(q):
		case isPath(q):
			if missing {
				vals = appendBase(vals, q)
			}
		default:
			vals = append(vals, lowerASCII(q))
		}
	}
	var buf [48]token
	toks := tokenize(buf[:0], pre)
	for i, t := range toks {
		if t.sep {
			continue
		}
		core := strings.TrimRight(t.s, ".,:;!?")
		core = strings.TrimLeft(core, "*&")
		if core == "" {
			continue
		}
		switch transformCore(core, toks, i, false) {
		case phVar:
			vals = append(vals, lowerASCII(core))
		case phPath:
			if missing {
				vals = appendBase(vals, core)
			}
		}
	}
	return vals
}

// saysMissing reports whether line says a file or folder is not there.
func saysMissing(line string) bool {
	l := strings.ToLower(line)
	for _, m := range []string{"no such file", "not found", "does not exist", "cannot find", "could not find", "enoent"} {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// appendBase appends the last element of path, in lower case: the file
// a missing-file error is about, wherever it was looked for.
func appendBase(vals []string, path string) []string {
	path = strings.TrimRight(path, `/\`)
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	if path == "" || path == "." || path == ".." || path == "~" {
		return vals
	}
	return append(vals, lowerASCII(path))
}

// Names reports whether text names every one of values (Values of an
// error line), case aside: an item or an earlier error about the same
// error, not another of its signature.
func Names(text string, values []string) bool {
	text = strings.ToLower(text)
	for _, v := range values {
		if !strings.Contains(text, v) {
			return false
		}
	}
	return true
}

// clipWords cuts s to at most n bytes at a space, so that no word is cut
// into another (a cut "503" would read as a number the next time).
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = clip(s, n+1)
	if i := strings.LastIndexByte(s, ' '); i > n/2 {
		return s[:i]
	}
	return clip(s, n)
}

func lowerByte(c byte) byte {
	if isUpperASCII(c) {
		return c + 'a' - 'A'
	}
	return c
}

// writeLower writes s in lower case (ASCII letters; other letters are
// rare in error messages and kept).
func writeLower(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		b.WriteByte(lowerByte(s[i]))
	}
}

// token is a run of word bytes, or of separators (sep).
type token struct {
	s   string
	sep bool
}

// isSep reports whether c splits tokens. ':' and '.' do not: they belong
// to paths, locations and dotted names.
func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\v', '\f', '(', ')', '[', ']', '{', '}', ',', ';', '=', '|':
		return true
	}
	return false
}

func tokenize(toks []token, s string) []token {
	for i := 0; i < len(s); {
		j := i
		sep := isSep(s[i])
		for j < len(s) && isSep(s[j]) == sep {
			j++
		}
		toks = append(toks, token{s: s[i:j], sep: sep})
		i = j
	}
	return toks
}

// prepass replaces the parts that may hold separators: URLs, quoted
// values, UUIDs and timestamps. With quoted not nil, it appends to it the
// quoted values it replaces, without their quotes.
func prepass(s string, quoted *[]string) string {
	// ‘ and “ both start with the byte 0xe2; ContainsAny takes its
	// argument as runes, so the byte is looked for on its own.
	if !strings.ContainsAny(s, "'\"`:-@/\\") && strings.IndexByte(s, 0xe2) < 0 {
		return s // nothing it replaces can be there
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		boundary := i == 0 || !isWordish(s[i-1])
		if boundary && isAlpha(c) {
			if n := urlLen(s[i:]); n > 0 {
				b.WriteString(phURL)
				i += n
				continue
			}
		}
		if boundary && isHex(c) {
			if n := uuidLen(s[i:]); n > 0 {
				b.WriteString(phID)
				i += n
				continue
			}
			if n := timestampLen(s[i:]); n > 0 {
				b.WriteString(phTime)
				i += n
				continue
			}
		}
		if n := quoteLen(s, i); n > 0 {
			if quoted != nil {
				*quoted = append(*quoted, strings.Trim(s[i:i+n], "'\"`‘’“”"))
			}
			b.WriteString(phQuot)
			i += n
			continue
		}
		if n := spacedPathLen(s, i); n > 0 {
			b.WriteString(phPath)
			i += n
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// spacedPathLen is the length of the absolute path with spaces in it
// ("/Users/me/Auto Run Docs/plan.md") that starts at s[i], or 0. Split
// at its spaces, the rest of the path would stay in the signature, and
// differ from the next occurrence's. A space ends a path unless the
// message makes the path's end clear: the words after the first space
// go on to a further folder or to a file with a known extension, end
// at the line's end or at a ':' before a space, and hold no word of a
// sentence ("in", "to") nor the start of another path. A path without
// spaces is left to the tokenizer.
func spacedPathLen(s string, i int) int {
	if c := s[i]; c != '/' && c != '~' && !(i+2 < len(s) && s[i+1] == ':' && isAlpha(c)) {
		return 0
	}
	if i > 0 && strings.IndexByte(" \t([=", s[i-1]) < 0 {
		return 0
	}
	end := i
	for end < len(s) && !pathEnds(s, end) {
		end++
	}
	for end > i && s[end-1] == '.' {
		end-- // a sentence's full stop
	}
	words := strings.SplitN(s[i:end], " ", maxPathWords)
	if len(words) < 2 || !isPath(words[0]) || strings.HasSuffix(words[0], ".") {
		return 0
	}
	n, best, ext := len(words[0]), 0, false
	for _, w := range words[1:] {
		if !pathWord(w) {
			break
		}
		n += 1 + len(w)
		if strings.ContainsAny(w, "/\\") || hasFileExt(w) {
			best, ext = n, hasFileExt(w)
		}
	}
	clear := best == end-i && (end == len(s) || s[end] == '\n' || s[end] == ':')
	if best == 0 || !ext && !clear {
		return 0
	}
	return best
}

// maxPathWords bounds the words spacedPathLen looks at for one path.
const maxPathWords = 8

// pathEnds reports whether s[j] ends a path that may hold spaces: a line
// break, a tab, a quote, a bracket, a comma, or a ':' before a space, a
// digit (path:line) or the line's end.
func pathEnds(s string, j int) bool {
	switch s[j] {
	case '\n', '\r', '\t', '"', '\'', '`', ',', ';', ')', ']', '<', '>', '|':
		return true
	case ':':
		return j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\n' || isDigit(s[j+1])
	}
	return false
}

// pathWord reports whether w, a word after a space in what may be a path,
// can be part of a folder's or file's name: not empty, not the start of
// another path, and not a word that joins a sentence.
func pathWord(w string) bool {
	if w == "" || w[0] == '/' || w[0] == '~' || w[0] == '-' || w[len(w)-1] == '.' || sentenceWords[lowerASCII(w)] {
		return false
	}
	for j := 0; j < len(w); j++ {
		if c := w[j]; !isAlnum(c) && strings.IndexByte("._-@+/\\~$&#", c) < 0 {
			return false
		}
	}
	return true
}

// sentenceWords are the words that show a space ended the path and the
// message went on.
var sentenceWords = map[string]bool{
	"a": true, "an": true, "the": true, "in": true, "at": true, "on": true, "to": true, "into": true,
	"from": true, "for": true, "of": true, "with": true, "and": true, "or": true, "but": true,
	"is": true, "are": true, "was": true, "not": true, "no": true, "does": true, "did": true,
	"has": true, "have": true, "as": true, "by": true, "if": true, "when": true, "while": true,
	"because": true, "than": true, "then": true, "via": true, "line": true, "exists": true,
}

// urlLen is the length of the URL s starts with (scheme://…, or git@host:
// for ssh remotes), or 0.
func urlLen(s string) int {
	p := 0
	if hasPrefixFold(s, "git@") {
		p = len("git@")
	} else {
		for p < len(s) && p < 16 && (isAlnum(s[p]) || s[p] == '+' || s[p] == '.' || s[p] == '-') {
			p++
		}
		if !strings.HasPrefix(s[p:], "://") {
			return 0
		}
		p += len("://")
	}
	if len(s) > p {
		n := p
		for n < len(s) {
			c := s[n]
			if c <= ' ' || c == '"' || c == '\'' || c == '`' || c == ')' || c == ']' || c == '<' || c == '>' || c == ',' || c == '}' {
				break
			}
			n++
		}
		for n > p && (s[n-1] == '.' || s[n-1] == ':') {
			n--
		}
		if n > p || s[p-1] == '/' {
			return n
		}
	}
	return 0
}

// uuidLen is 36 when s starts with a UUID, else 0.
func uuidLen(s string) int {
	if len(s) < 36 {
		return 0
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return 0
			}
		default:
			if !isHex(s[i]) {
				return 0
			}
		}
	}
	if len(s) > 36 && isWordish(s[36]) {
		return 0
	}
	return 36
}

// timestampLen is the length of the ISO date or date-time s starts with
// (2026-01-31, 2026-01-31T07:20:10.164Z, 2026-01-31 07:20:10+02:00), or 0.
func timestampLen(s string) int {
	if len(s) < 10 || !digits(s[0:4]) || s[4] != '-' || !digits(s[5:7]) || s[7] != '-' || !digits(s[8:10]) {
		return 0
	}
	n := 10
	if len(s) >= n+6 && (s[n] == 'T' || s[n] == ' ') && digits(s[n+1:n+3]) && s[n+3] == ':' && digits(s[n+4:n+6]) {
		n += 6
		if len(s) >= n+3 && s[n] == ':' && digits(s[n+1:n+3]) {
			n += 3
			if n < len(s) && (s[n] == '.' || s[n] == ',') {
				m := n + 1
				for m < len(s) && isDigit(s[m]) {
					m++
				}
				if m > n+1 {
					n = m
				}
			}
		}
		switch {
		case n < len(s) && s[n] == 'Z':
			n++
		case len(s) >= n+6 && (s[n] == '+' || s[n] == '-') && digits(s[n+1:n+3]) && s[n+3] == ':' && digits(s[n+4:n+6]):
			n += 6
		}
	}
	if n < len(s) && isWordish(s[n]) {
		return 0
	}
	return n
}

// quoteLen is the length of the quoted value that opens at s[i], quotes
// included, or 0. A quote opens only at the start of a word, so the
// apostrophes of "can't" and "users'" open nothing; a closing quote must
// end a word. A double quote or backtick that is never closed quotes the
// rest of the line (a multi-line value cut at the line's end).
func quoteLen(s string, i int) int {
	if i > 0 {
		switch s[i-1] {
		case ' ', '\t', '\n', '\r', '\v', '\f', '(', '[', '{', '=', ':', ',':
		default:
			return 0
		}
	}
	open, close := s[i:], ""
	switch {
	case s[i] == '\'' || s[i] == '"' || s[i] == '`':
		open, close = s[i:i+1], s[i:i+1]
	case strings.HasPrefix(open, "‘"):
		open, close = "‘", "’"
	case strings.HasPrefix(open, "“"):
		open, close = "“", "”"
	default:
		return 0
	}
	rest := s[i+len(open):]
	for off := 0; off < len(rest); {
		j := strings.Index(rest[off:], close)
		if j < 0 {
			break
		}
		end := off + j + len(close)
		if end == len(rest) || !isWordish(rest[end]) {
			return len(open) + end
		}
		off = end
	}
	if (open == "\"" || open == "`") && len(rest) > 0 {
		return len(s) - i
	}
	return 0
}

// transform returns the signature form of toks[i], a word token.
func transform(toks []token, i int, keepIdents bool) string {
	t := toks[i].s
	// Trailing punctuation stays as it is.
	end := len(t)
	for end > 0 && strings.IndexByte(".,:;!?", t[end-1]) >= 0 {
		end--
	}
	core, tail := t[:end], t[end:]
	if core == "" {
		return t
	}
	if strings.HasPrefix(tail, "..") { // an ellipsis
		tail = "..."
	}
	lead := ""
	for len(core) > 1 && (core[0] == '*' || core[0] == '&') {
		lead += core[:1]
		core = core[1:]
	}
	return lead + transformCore(core, toks, i, keepIdents) + tail
}

func transformCore(core string, toks []token, i int, keepIdents bool) string {
	// pytest's node id: path::test
	if c := strings.Index(core, "::"); c > 0 && isPath(core[:c]) {
		return phPath + numbers(core[c:])
	}
	// path:line:col
	if c := strings.IndexByte(core, ':'); c > 0 && c+1 < len(core) && isDigit(core[c+1]) && isPath(core[:c]) {
		return phPath + numbers(core[c:])
	}
	switch {
	case isPath(core):
		return phPath
	case isHexID(core):
		return phID
	case isCode(core):
		return core
	case isHTTPStatus(core, toks, i):
		return core
	}
	if !keepIdents && (isIdentifier(core) || isTemplateName(core, toks, i)) {
		return phVar
	}
	return numbers(core)
}

// numbers replaces the numbers in s by <n>. One or two digits right
// after a letter are part of a word (int64, utf8, py3) and stay.
func numbers(s string) string {
	if !hasDigit(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if !isDigit(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		n := j - i
		decimal := false
		for j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
			decimal = true
			j++
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
		if !decimal && n <= 2 && i > 0 && isAlpha(s[i-1]) {
			b.WriteString(s[i:j])
		} else {
			b.WriteString(phNum)
		}
		i = j
	}
	return b.String()
}

// isPath reports whether s is a file path: absolute, relative with ./ ../
// ~/, a Windows path, several slashes, or a name with a known extension.
func isPath(s string) bool {
	if len(s) < 2 || strings.Contains(s, "://") {
		return false
	}
	switch {
	case s[0] == '/':
		return isAlnum(s[1]) || strings.IndexByte("._~-@$", s[1]) >= 0
	case strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), strings.HasPrefix(s, "~/"),
		strings.HasPrefix(s, ".\\"), strings.HasPrefix(s, "..\\"):
		return true
	case len(s) > 2 && isAlpha(s[0]) && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		return true
	case strings.Count(s, "/") >= 2 || strings.Count(s, "\\") >= 2:
		return !strings.Contains(s, "<") // a placeholder is not a path
	}
	return hasFileExt(s)
}

// fileExts are extensions that make a dotted word a file name.
var fileExts = map[string]bool{
	"go": true, "mod": true, "sum": true, "py": true, "pyc": true, "pyi": true, "ipynb": true,
	"js": true, "mjs": true, "cjs": true, "jsx": true, "ts": true, "tsx": true, "mts": true, "cts": true,
	"vue": true, "svelte": true, "rs": true, "c": true, "h": true, "cc": true, "cpp": true, "cxx": true,
	"hpp": true, "hh": true, "m": true, "mm": true, "java": true, "kt": true, "kts": true, "scala": true,
	"rb": true, "php": true, "cs": true, "fs": true, "swift": true, "dart": true, "ex": true, "exs": true,
	"erl": true, "hs": true, "ml": true, "clj": true, "lua": true, "pl": true, "pm": true, "r": true,
	"jl": true, "zig": true, "nim": true, "pony": true, "sol": true, "proto": true, "sql": true,
	"sh": true, "bash": true, "zsh": true, "fish": true, "ps1": true, "bat": true, "cmd": true,
	"json": true, "jsonl": true, "yaml": true, "yml": true, "toml": true, "ini": true, "cfg": true,
	"conf": true, "env": true, "xml": true, "html": true, "htm": true, "css": true, "scss": true,
	"less": true, "md": true, "mdx": true, "rst": true, "txt": true, "log": true, "csv": true,
	"tsv": true, "lock": true, "cmake": true, "mk": true, "gradle": true, "tf": true, "tfvars": true,
	"gz": true, "tgz": true, "zip": true, "tar": true, "jar": true, "whl": true, "so": true, "dylib": true,
	"dll": true, "exe": true, "o": true, "a": true, "png": true, "jpg": true, "jpeg": true, "gif": true,
	"svg": true, "pdf": true, "wasm": true, "map": true, "db": true, "sqlite": true, "pem": true,
	"key": true, "crt": true, "traj": true, "patch": true, "diff": true,
}

func hasFileExt(s string) bool {
	dot := strings.LastIndexByte(s, '.')
	if dot <= 0 || dot == len(s)-1 {
		return false
	}
	if ext := s[dot+1:]; !fileExts[ext] && !(hasUpper(ext) && fileExts[lowerASCII(ext)]) {
		return false
	}
	for i := 0; i < dot; i++ {
		c := s[i]
		if !isAlnum(c) && strings.IndexByte("._-@+/\\~$*?", c) < 0 {
			return false
		}
	}
	return true
}

// isHexID reports whether s is a hash, an address or a random id: 0x…,
// seven or more hex digits with a digit among them (a short git hash),
// or a long mix of letters and digits.
func isHexID(s string) bool {
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && allHex(s[2:]) {
		return true
	}
	if len(s) >= 7 && allHex(s) && hasDigit(s) && !digits(s) {
		return true
	}
	if len(s) >= 16 && hasDigit(s) && hasAlpha(s) {
		for i := 0; i < len(s); i++ {
			if !isAlnum(s[i]) && s[i] != '-' && s[i] != '_' {
				return false
			}
		}
		return true
	}
	return false
}

// isCode reports whether s is an error or rule code: one to five letters
// then one to five digits (E0308, TS2339, GH006, F401, SC2086).
func isCode(s string) bool {
	i := 0
	for i < len(s) && isAlpha(s[i]) {
		i++
	}
	if i == 0 || i > 5 || len(s)-i == 0 || len(s)-i > 5 {
		return false
	}
	return digits(s[i:])
}

// isHTTPStatus reports whether toks[i], a three-digit number, is an HTTP
// status: after "HTTP", "status", "code", "error", or before a reason
// phrase ("404 Not Found").
func isHTTPStatus(s string, toks []token, i int) bool {
	if len(s) != 3 || !digits(s) || s[0] < '1' || s[0] > '5' {
		return false
	}
	prev := strings.TrimRight(wordAt(toks, i, -1), ":")
	if isIdentifier(prev) {
		prev = "" // it reads as <v>, and will the next time
	}
	prev = lowerASCII(prev)
	switch {
	case strings.HasPrefix(prev, "http"), prev == "status", prev == "code", prev == "error", prev == "returned":
		return true
	}
	switch lowerASCII(wordAt(toks, i, 1)) {
	case "not", "forbidden", "unauthorized", "bad", "internal", "service", "too", "method",
		"unprocessable", "conflict", "gateway", "gone", "payment", "precondition", "request", "moved", "found":
		return true
	}
	return false
}

// wordAt is the word token d words away from toks[i] (d is -1 or 1),
// trailing punctuation included, or "".
func wordAt(toks []token, i, d int) string {
	for j := i + d; j >= 0 && j < len(toks); j += d {
		if !toks[j].sep {
			return toks[j].s
		}
	}
	return ""
}

// isIdentifier reports whether s looks like an identifier of code rather
// than a word: camelCase, a.b.c or f(). Constants in capitals, exception
// types and a few product names stay words. snake_case alone says
// nothing: lower cased, a constant (LLVM_DIR) reads the same, and a
// signature normalised again must not change.
func isIdentifier(s string) bool {
	if len(s) < 2 || !hasAlpha(s) {
		return false
	}
	if strings.HasSuffix(s, "()") {
		return true
	}
	upper, lower, dot, hump := false, false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
			if i+1 < len(s) && s[i+1] >= 'A' && s[i+1] <= 'Z' {
				hump = true
			}
		case c >= 'A' && c <= 'Z':
			upper = true
		case isDigit(c), c == '$':
		case c == '_':
		case c == '.':
			dot = true
		default:
			return false
		}
	}
	if dot {
		if s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") || hasFileExt(s) {
			return false
		}
		parts := strings.Split(s, ".")
		short := true
		for _, p := range parts {
			if p == "" || isDigit(p[0]) {
				return false // a version
			}
			short = short && len(p) == 1
		}
		if short {
			return false // "e.g"
		}
		return !isExceptionName(parts[len(parts)-1])
	}
	if !lower {
		return false // a constant, a code
	}
	if hump && upper {
		return !isExceptionName(s) && !productNames[lowerASCII(s)]
	}
	return false
}

// productNames are camel-case words that are names, not identifiers.
var productNames = map[string]bool{
	"javascript": true, "typescript": true, "github": true, "gitlab": true, "postgresql": true,
	"mysql": true, "sqlite": true, "mongodb": true, "openai": true, "websocket": true, "macos": true,
	"ios": true, "ipv4": true, "ipv6": true, "oauth": true, "graphql": true, "nodejs": true,
	"pypi": true, "powershell": true, "vscode": true, "devtools": true, "youtube": true, "iphone": true,
	"ipad": true, "npmjs": true, "codeql": true, "openssl": true, "libressl": true, "mariadb": true,
}

// isExceptionName reports whether s names an exception or error type. The
// case of the suffix does not matter: a signature is lower case, and
// normalising it again must keep it.
func isExceptionName(s string) bool {
	for _, suf := range []string{"error", "exception", "exit", "interrupt", "warning", "iteration", "failure", "fault"} {
		if len(s) > len(suf) && hasPrefixFold(s[len(s)-len(suf):], suf) {
			return true
		}
	}
	return false
}

// builtinTypes stay when a compiler message names a type.
var builtinTypes = map[string]bool{
	"bool": true, "string": true, "int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"byte": true, "rune": true, "float32": true, "float64": true, "complex64": true, "complex128": true,
	"error": true, "any": true, "nil": true, "interface": true, "struct": true, "map": true, "func": true,
	"chan": true, "untyped": true,
}

// isTemplateName reports whether toks[i], a plain word, stands where a
// well-known compiler message names an identifier of the user's code as
// a plain word: "cannot use x", "argument to f", "call to f",
// "undefined: x", "declared and not used: x", "x declared and not used",
// "field or method m", "of type T", "(type T", "as T value",
// "but f returns". Builtin type names stay.
func isTemplateName(s string, toks []token, i int) bool {
	if !isPlainName(s) || builtinTypes[s] {
		return false
	}
	var prev [2]string // nearest first
	p0 := prevWordIndex(toks, i)
	if p0 >= 0 {
		prev[0] = lowerASCII(toks[p0].s)
		if p1 := prevWordIndex(toks, p0); p1 >= 0 {
			prev[1] = lowerASCII(toks[p1].s)
		}
	}
	next := ""
	if n := nextWordIndex(toks, i); n >= 0 {
		next = lowerASCII(toks[n].s)
	}
	switch {
	case prev[1] == "cannot" && prev[0] == "use",
		prev[1] == "argument" && prev[0] == "to",
		prev[1] == "call" && prev[0] == "to",
		prev[0] == "undefined:",
		prev[1] == "not" && prev[0] == "used:",
		prev[1] == "or" && prev[0] == "method",
		prev[1] == "unknown" && prev[0] == "field",
		prev[1] == "of" && prev[0] == "type",
		prev[0] == "type" && p0 > 0 && strings.HasSuffix(toks[p0-1].s, "("),
		prev[0] == "as" && next == "value",
		prev[0] == "but" && next == "returns",
		next == "declared", next == "redeclared":
		return true
	}
	return false
}

// prevWordIndex is the index of the word token before toks[i], or -1.
func prevWordIndex(toks []token, i int) int {
	for j := i - 1; j >= 0; j-- {
		if !toks[j].sep {
			return j
		}
	}
	return -1
}

// nextWordIndex is the index of the word token after toks[i], or -1.
func nextWordIndex(toks []token, i int) int {
	for j := i + 1; j < len(toks); j++ {
		if !toks[j].sep {
			return j
		}
	}
	return -1
}

// isPlainName reports whether s could be a Go-style identifier.
func isPlainName(s string) bool {
	if s == "" || !(isAlpha(s[0]) || s[0] == '_') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}
