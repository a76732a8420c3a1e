package prune

import "strings"

// A small reader of the SQL text sqlite_master keeps: enough to take apart
// CREATE VIRTUAL TABLE … USING fts5(…) and CREATE TRIGGER … BEGIN … END,
// which PRAGMAs do not describe. It never evaluates anything; text it
// does not understand yields nothing rather than an error.

type tokKind byte

const (
	tIdent  tokKind = iota // a word or a quoted identifier
	tString                // '…'
	tNumber
	tPunct
)

type token struct {
	kind       tokKind
	text       string // as written
	start, end int    // offsets in the source
}

// is reports whether t is the keyword or punctuation s (keywords compare
// case-insensitively; quoted identifiers are never keywords).
func (t token) is(s string) bool {
	if t.kind == tPunct {
		return t.text == s
	}
	return t.kind == tIdent && !quotedIdent(t.text) && strings.EqualFold(t.text, s)
}

func quotedIdent(s string) bool {
	return s != "" && (s[0] == '"' || s[0] == '`' || s[0] == '[')
}

// name is the identifier or string a token names, unquoted.
func (t token) name() string {
	s := t.text
	if len(s) < 2 {
		return s
	}
	switch s[0] {
	case '"':
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	case '`':
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	case '\'':
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	case '[':
		return s[1 : len(s)-1]
	}
	return s
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// lex splits SQL into tokens, dropping white space and comments. An
// unterminated quote or comment runs to the end.
func lex(src string) []token {
	var out []token
	for i := 0; i < len(src); {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if j := strings.Index(src[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(src)
			}
			continue
		case c == '\'' || c == '"' || c == '`':
			i = closeQuote(src, i, c)
			kind := tIdent
			if c == '\'' {
				kind = tString
			}
			out = append(out, token{kind, src[start:i], start, i})
		case c == '[':
			if j := strings.IndexByte(src[i:], ']'); j >= 0 {
				i += j + 1
			} else {
				i = len(src)
			}
			out = append(out, token{tIdent, src[start:i], start, i})
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			for i < len(src) && (isIdentByte(src[i]) || src[i] == '.') {
				i++
			}
			out = append(out, token{tNumber, src[start:i], start, i})
		case isIdentByte(c):
			for i < len(src) && isIdentByte(src[i]) {
				i++
			}
			out = append(out, token{tIdent, src[start:i], start, i})
		default:
			i++
			if i < len(src) {
				switch two := src[start : i+1]; two {
				case "||", "<=", ">=", "!=", "==", "<>", "<<", ">>", "->":
					i++
				}
			}
			out = append(out, token{tPunct, src[start:i], start, i})
		}
	}
	return out
}

// closeQuote returns the offset after the quote that closes the one at
// i; a doubled quote stands for itself.
func closeQuote(src string, i int, q byte) int {
	for j := i + 1; j < len(src); j++ {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(src)
}

// text rebuilds the source of tokens: as written, with each run of white
// space or comments between two tokens shown as one space.
func text(src string, toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && t.start > toks[i-1].end {
			b.WriteByte(' ')
		}
		b.WriteString(src[t.start:t.end])
	}
	return b.String()
}

// split cuts toks at the separator sep outside parentheses.
func split(toks []token, sep string) [][]token {
	var out [][]token
	depth, from := 0, 0
	for i, t := range toks {
		switch {
		case t.is("("):
			depth++
		case t.is(")"):
			depth--
		case depth == 0 && t.is(sep):
			out = append(out, toks[from:i])
			from = i + 1
		}
	}
	return append(out, toks[from:])
}

// group returns the tokens inside the parentheses opening at toks[i] and
// the index after the closing one; ok is false when toks[i] is not "(".
func group(toks []token, i int) (inner []token, next int, ok bool) {
	if i >= len(toks) || !toks[i].is("(") {
		return nil, i, false
	}
	depth := 0
	for j := i; j < len(toks); j++ {
		switch {
		case toks[j].is("("):
			depth++
		case toks[j].is(")"):
			depth--
			if depth == 0 {
				return toks[i+1 : j], j + 1, true
			}
		}
	}
	return toks[i+1:], len(toks), true
}

// skipWords advances i past the keywords words when they are all there.
func skipWords(toks []token, i int, words ...string) int {
	for k, w := range words {
		if i+k >= len(toks) || !toks[i+k].is(w) {
			return i
		}
	}
	return i + len(words)
}

// qualifiedName reads [schema.]name at i.
func qualifiedName(toks []token, i int) (string, int) {
	if i >= len(toks) {
		return "", i
	}
	name := toks[i].name()
	i++
	if i+1 < len(toks) && toks[i].is(".") {
		name = toks[i+1].name()
		i += 2
	}
	return name, i
}

// virtualTable is a CREATE VIRTUAL TABLE statement taken apart.
type virtualTable struct {
	name, module string
	args         []string // each argument as written, white space folded
}

func parseVirtualTable(src string) (virtualTable, bool) {
	toks := lex(src)
	i := skipWords(toks, 0, "CREATE", "VIRTUAL", "TABLE")
	if i == 0 {
		return virtualTable{}, false
	}
	i = skipWords(toks, i, "IF", "NOT", "EXISTS")
	var vt virtualTable
	vt.name, i = qualifiedName(toks, i)
	if i >= len(toks) || !toks[i].is("USING") || i+1 >= len(toks) {
		return virtualTable{}, false
	}
	vt.module = toks[i+1].name()
	if inner, _, ok := group(toks, i+2); ok && len(inner) > 0 {
		for _, a := range split(inner, ",") {
			vt.args = append(vt.args, text(src, a))
		}
	}
	return vt, true
}

// fts5Args sorts an fts5(…) argument list into columns and options
// (key=value, keys lower case, values unquoted).
func fts5Args(args []string) (cols []string, opts map[string]string) {
	opts = map[string]string{}
	for _, a := range args {
		toks := lex(a)
		if len(toks) == 0 {
			continue
		}
		if len(toks) >= 2 && toks[0].kind == tIdent && toks[1].is("=") {
			val := ""
			if len(toks) == 3 {
				val = toks[2].name()
			} else if len(toks) > 3 {
				val = text(a, toks[2:])
			}
			opts[strings.ToLower(toks[0].name())] = val
			continue
		}
		cols = append(cols, toks[0].name())
	}
	return cols, opts
}

// trigger is a CREATE TRIGGER statement taken apart.
type trigger struct {
	name, table string
	timing      string // BEFORE, AFTER or INSTEAD OF
	event       string // INSERT, UPDATE or DELETE
	when        string
	stmts       []triggerStmt
}

// triggerStmt is one statement of a trigger's body, as far as it writes
// a table.
type triggerStmt struct {
	verb   string // INSERT, DELETE, UPDATE or "" for others
	table  string
	cols   []string // INSERT: the column list, if any
	values []string // INSERT … VALUES: the first row's expressions
	where  string   // DELETE and UPDATE
	sql    string
}

func parseTrigger(src string) (trigger, bool) {
	toks := lex(src)
	if len(toks) == 0 || !toks[0].is("CREATE") {
		return trigger{}, false
	}
	i := 1
	if i < len(toks) && (toks[i].is("TEMP") || toks[i].is("TEMPORARY")) {
		i++
	}
	if i >= len(toks) || !toks[i].is("TRIGGER") {
		return trigger{}, false
	}
	i = skipWords(toks, i+1, "IF", "NOT", "EXISTS")
	var tr trigger
	tr.name, i = qualifiedName(toks, i)
	tr.timing = "BEFORE" // SQLite's default
	switch {
	case i < len(toks) && (toks[i].is("BEFORE") || toks[i].is("AFTER")):
		tr.timing = strings.ToUpper(toks[i].text)
		i++
	case skipWords(toks, i, "INSTEAD", "OF") > i:
		tr.timing = "INSTEAD OF"
		i += 2
	}
	if i >= len(toks) {
		return trigger{}, false
	}
	tr.event = strings.ToUpper(toks[i].text)
	for i < len(toks) && !toks[i].is("ON") {
		i++
	}
	tr.table, i = qualifiedName(toks, i+1)
	i = skipWords(toks, i, "FOR", "EACH", "ROW")
	begin := i
	for begin < len(toks) && !toks[begin].is("BEGIN") {
		begin++
	}
	if begin >= len(toks) {
		return trigger{}, false
	}
	if i < begin && toks[i].is("WHEN") {
		tr.when = text(src, toks[i+1:begin])
	}
	body := toks[begin+1:]
	if n := len(body); n > 0 && body[n-1].is("END") {
		body = body[:n-1]
	}
	for _, st := range split(body, ";") {
		if len(st) > 0 {
			tr.stmts = append(tr.stmts, parseTriggerStmt(src, st))
		}
	}
	return tr, true
}

func parseTriggerStmt(src string, st []token) triggerStmt {
	out := triggerStmt{sql: text(src, st)}
	i := 0
	switch {
	case st[0].is("INSERT") || st[0].is("REPLACE"):
		out.verb = "INSERT"
		i = 1
		if i+1 < len(st) && st[i].is("OR") {
			i += 2
		}
		i = skipWords(st, i, "INTO")
		out.table, i = qualifiedName(st, i)
		if inner, next, ok := group(st, i); ok {
			for _, c := range split(inner, ",") {
				if len(c) > 0 {
					out.cols = append(out.cols, c[0].name())
				}
			}
			i = next
		}
		if i < len(st) && st[i].is("VALUES") {
			if inner, _, ok := group(st, i+1); ok {
				for _, v := range split(inner, ",") {
					out.values = append(out.values, text(src, v))
				}
			}
		}
	case st[0].is("DELETE"):
		out.verb = "DELETE"
		out.table, i = qualifiedName(st, skipWords(st, 1, "FROM"))
		if i < len(st) && st[i].is("WHERE") {
			out.where = text(src, st[i+1:])
		}
	case st[0].is("UPDATE"):
		out.verb = "UPDATE"
		i = 1
		if i+1 < len(st) && st[i].is("OR") {
			i += 2
		}
		out.table, i = qualifiedName(st, i)
		for ; i < len(st); i++ {
			if st[i].is("WHERE") {
				out.where = text(src, st[i+1:])
				break
			}
		}
	}
	return out
}
