package transcript

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
	"github.com/lorehq/lore/internal/shellcmd"
)

// repoCache finds the repository of a working directory, once per
// directory: thousands of sessions share a few dozen.
type repoCache struct {
	mu    sync.Mutex
	m     map[string]string // dir → repoOf(dir)
	upper map[string]string // a gone dir → above(dir)
	// home is the user's home folder. A home kept in git (dotfiles) holds
	// every project under it, each with a repository of its own: it is
	// never the repository of a folder that is gone.
	home string
}

func newRepoCache() *repoCache {
	home, _ := os.UserHomeDir()
	return &repoCache{m: make(map[string]string), upper: make(map[string]string), home: home}
}

// resolveJob sets the repository of the sessions read from job j, from
// what this machine and the transcript know, best first:
//
//  1. the git remote of the session's folder, where it still exists;
//  2. what the transcript recorded (Codex's git remote, OpenHands' selected
//     repository), which the reader has set;
//  3. the remote the session itself pushed to, fetched from or cloned in
//     its folder (sessionRemote). When the messages were not kept, j is
//     read again with them, if it holds any of git's words for a remote
//     (mayNameRemote): a session's repository must not depend on whether
//     its messages were read;
//  4. the repository of the nearest folder above the session's that is
//     still here, when git has a remote for it: a worktree or sub-folder
//     that is gone of a repository that is not.
//
// When none of these knows, the session's Repo is left empty for
// settleRepos, which looks at the sessions read with it, then falls back
// to the folder's name. compressed says whether j's file is zstd.
func (c *repoCache) resolveJob(ctx context.Context, j job, compressed bool, found []*lore.Session, opts Options) {
	var left []*lore.Session
	for _, s := range found {
		if s.Cwd == "" {
			continue
		}
		if !opts.NoGit {
			if r := c.lookup(s.Cwd); r != "" {
				s.Repo = r
				continue
			}
		}
		if s.Repo == "" {
			left = append(left, s)
		}
	}
	if len(left) == 0 {
		return
	}
	if opts.Messages {
		for _, s := range left {
			s.Repo = sessionRemote(s)
		}
	} else if j.dir != nil || mayNameRemote(j.path, compressed) {
		opts.Messages = true
		var full []*lore.Session
		in := newInput(opts, nil)
		readJob(ctx, in, j, func(s *lore.Session) { full = append(full, s) })
		in.release()
		for _, s := range left {
			if i := slices.IndexFunc(full, func(f *lore.Session) bool { return f.ID == s.ID }); i >= 0 {
				s.Repo = sessionRemote(full[i])
			}
		}
	}
	if opts.NoGit {
		return
	}
	for _, s := range left {
		if s.Repo == "" {
			s.Repo = c.above(s.Cwd)
		}
	}
}

// above is the owner/name of the repository holding the nearest existing
// folder above dir, "" when that folder is in no repository git has a
// remote for, or only in the home folder's or the file system root's.
func (c *repoCache) above(dir string) string {
	c.mu.Lock()
	r, ok := c.upper[dir]
	c.mu.Unlock()
	if ok {
		return r
	}
	r = c.findAbove(dir)
	c.mu.Lock()
	c.upper[dir] = r
	c.mu.Unlock()
	return r
}

func (c *repoCache) findAbove(dir string) string {
	if !filepath.IsAbs(dir) {
		return "" // a path of another system, or of nowhere
	}
	for d := filepath.Dir(filepath.Clean(dir)); ; d = filepath.Dir(d) {
		if c.lookup(d) != "" {
			root, url := gitRoot(d)
			r := RepoFromURL(url)
			if r == "" || root == c.home || root == filepath.Dir(root) {
				return ""
			}
			return r
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// settleRepos names the repository of each session resolveJob left
// without one: the owner/name the other sessions of its folder (or of the
// repository folder its worktree belongs to) were found in, when they
// agree and the folder bears that name (bearsName) or is a person's own
// (inHome), else the folder's name. Two projects that share only a name
// stay apart: a repository is taken only from the same folder's sessions.
func settleRepos(sessions []*lore.Session) {
	known := map[string]string{}
	for _, s := range sessions {
		key := repoFolder(s.Cwd)
		if s.Repo == "" || !bearsName(baseName(key), s.Repo) && !inHome(key) {
			// A folder named otherwise may be a sandbox's (/workspace)
			// that every repository passes through; one in a person's
			// home is where they keep a project, under a name of theirs
			// (~/projects/shop for acme/storefront).
			continue
		}
		switch r, seen := known[key]; {
		case !seen:
			known[key] = s.Repo
		case r != "" && !lore.SameRepo(r, s.Repo):
			known[key] = "" // the folder held two repositories: neither
		}
	}
	for _, s := range sessions {
		if s.Cwd == "" || s.Repo != "" {
			continue
		}
		if r := known[repoFolder(s.Cwd)]; r != "" {
			s.Repo = r
		} else {
			s.Repo = folderRepo(s.Cwd)
		}
	}
}

// RepoOfDir is the repository of a folder, as sessions in it get theirs:
// the git remote's owner/name, else the repository folder's name, else the
// folder's own name (for a worktree, the repository it belongs to). A
// relative dir is taken from the current folder: "." names the folder's
// repository, not a repository called ".".
func RepoOfDir(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if r := repoOf(dir); r != "" {
		return r
	}
	return folderRepo(dir)
}

// folderRepo names the repository of a folder that is not here to ask
// git: the base name of its repoFolder; "" for a folder that names none
// ("." of a relative path).
func folderRepo(dir string) string {
	name := baseName(repoFolder(dir))
	if name == "." || name == ".." {
		return ""
	}
	// A folder named after a token (a clone named for its URL) does not
	// hand the token on to every item learned in it.
	return lore.RecordName(name)
}

// inHome reports whether dir is a folder inside a person's home
// (/home/ann/x, /Users/ann/src/x, C:\Users\ann\x), not the home itself
// nor one of the tools' hidden folders there.
func inHome(dir string) bool {
	parts := strings.FieldsFunc(dir, isPathSep)
	for i := 0; i+2 < len(parts); i++ {
		switch parts[i] {
		case "home", "Users", "users":
			if i == 0 || i == 1 && strings.HasSuffix(parts[0], ":") {
				return !hiddenName(parts[i+2])
			}
		}
	}
	return false
}

// bearsName reports whether a folder is named for the repository
// owner/name: name, or owner-name (or with _ or .), as a clone kept beside
// another of the same name is.
func bearsName(folder, repo string) bool {
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || name == "" {
		return false
	}
	if lore.SameRepo(folder, name) {
		return true
	}
	n := len(owner)
	return len(folder) == n+1+len(name) && lore.SameRepo(folder[:n], owner) &&
		strings.IndexByte("-_.", folder[n]) >= 0 && lore.SameRepo(folder[n+1:], name)
}

// repoFolder is the folder of the repository dir is: dir itself; for a
// folder inside a project's hidden folder (REPO/.claude/worktrees/NAME,
// REPO/.worktrees/NAME, REPO/.pr/artifacts/…), REPO; for a worktree a
// tool keeps in its own hidden folder (~/.herdr/worktrees/REPO/NAME,
// ~/.codex/worktrees/ID/REPO), REPO; for a worktree under
// REPO/worktrees/NAME, REPO.
func repoFolder(dir string) string {
	dir = strings.TrimRight(dir, `/\`)
	parts := strings.FieldsFunc(dir, isPathSep)
	// The last folder is the project itself, hidden or not: a repository
	// may be named .github or .dotfiles.
	for h, p := range parts[:max(0, len(parts)-1)] {
		if !hiddenName(p) {
			continue
		}
		if !toolStore(parts[:h]) {
			return leadingParts(dir, h)
		}
		if r := storeWorktreeRepo(parts, h); r > 0 {
			return leadingParts(dir, r+1)
		}
	}
	for i := len(parts) - 2; i > 0; i-- {
		if parts[i] == "worktrees" {
			return leadingParts(dir, i)
		}
	}
	return dir
}

func isPathSep(r rune) bool { return r == '/' || r == '\\' }

// hiddenName reports whether a folder's name hides it: .claude, .herdr,
// but not . or ..
func hiddenName(name string) bool {
	return len(name) > 1 && name[0] == '.' && name != ".."
}

// toolStore reports whether a hidden folder below the folders above is a
// tool's store rather than a project's hidden folder: one in a home
// (~/.herdr, C:\Users\me\.codex, /mnt/c/Users/me/.cursor, /root/.x), at
// the top of the file system (/.x, /tmp/.x) or in a temporary folder
// (…/T/.tmpX).
func toolStore(above []string) bool {
	n := len(above)
	if n <= 1 {
		return true
	}
	switch above[n-2] {
	case "home", "Users", "users":
		return true
	}
	switch above[n-1] {
	case "root", "tmp", "temp", "Temp", "T":
		return true
	}
	return false
}

// storeWorktreeRepo is the index in parts of the repository folder of a
// worktree kept in the tool's store parts[h]: ~/.herdr/worktrees/REPO/…,
// ~/.cursor/worktrees/REPO/…, ~/.codex/worktrees/ID/REPO/…,
// ~/.worktrees/REPO/…; 0 when parts is no such worktree.
func storeWorktreeRepo(parts []string, h int) int {
	r := h + 1
	switch {
	case strings.HasSuffix(parts[h], "worktrees"):
	case r < len(parts) && parts[r] == "worktrees":
		r++
		if parts[h] == ".codex" {
			r++ // Codex names a task's folder first, the repository below it
		}
	default:
		return 0
	}
	if r >= len(parts) {
		return 0
	}
	return r
}

// leadingParts is dir up to the end of its first n path elements.
func leadingParts(dir string, n int) string {
	seen := 0
	for i := 0; i < len(dir); i++ {
		if dir[i] == '/' || dir[i] == '\\' {
			continue
		}
		j := i
		for j < len(dir) && dir[j] != '/' && dir[j] != '\\' {
			j++
		}
		if seen++; seen == n {
			return dir[:j]
		}
		i = j
	}
	return dir
}

func (c *repoCache) lookup(dir string) string {
	c.mu.Lock()
	r, ok := c.m[dir]
	c.mu.Unlock()
	if ok {
		return r
	}
	r = repoOf(dir)
	c.mu.Lock()
	c.m[dir] = r
	c.mu.Unlock()
	return r
}

// repoOf returns the owner/name of the git remote of the repository
// holding dir; the repository folder's name when it has no remote; the
// name of dir's repoFolder when it is in no repository; "" when it does
// not exist here, or is relative: a transcript's "." is a folder of the
// machine and moment it was written, not the one lore runs in.
func repoOf(dir string) string {
	if !filepath.IsAbs(dir) {
		return ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	root, url := gitRoot(dir)
	if root == "" {
		return baseName(repoFolder(dir))
	}
	if r := RepoFromURL(url); r != "" {
		return r
	}
	return filepath.Base(root)
}

// gitRoot is the folder holding the .git of the repository dir is in and
// the url of its remote; "" when it is in none, or has no remote.
func gitRoot(dir string) (root, url string) {
	for d := dir; ; {
		gitPath := filepath.Join(d, ".git")
		if fi, err := os.Stat(gitPath); err == nil {
			return d, remoteURL(gitConfigPath(gitPath, fi.IsDir()))
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// sessionRemote is the repository of the remote a session pushed to,
// fetched or pulled from, cloned into its folder, or listed as origin,
// found in its git commands' output; "" when it did none of these, its
// messages were not read, or it named two repositories. Only a git
// command run in the session's own folder counts (no cd, no -C): a URL
// merely mentioned, a branch such as owner/feature, or the repository a
// gh pull request went to (a fork's upstream) name someone else's.
func sessionRemote(s *lore.Session) string {
	var (
		found string
		calls = map[string][]string{} // call id → its git command's words
	)
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls {
			if args := ownGitCommand(shellcmd.FromCall(c.Name, c.Input)); args != nil {
				calls[c.ID] = args
			}
		}
		for _, r := range m.ToolResults {
			args, ok := calls[r.CallID]
			if !ok {
				continue
			}
			for _, repo := range gitOutputRemotes(args, r.Output, r.Failed()) {
				switch {
				case found == "":
					found = repo
				case !lore.SameRepo(found, repo):
					return ""
				}
			}
		}
	}
	return found
}

// mayNameRemote reports whether a transcript file holds a git command
// whose output sessionRemote reads: git push, fetch, pull, remote or
// clone, options before it allowed, as ownGitCommand and gitOutputRemotes
// take it. Without one, no session in it names its remote, and it need not
// be read again. One pass for one word: reading a folder-less corpus
// costs a second read of it at memory speed, not a parse.
func mayNameRemote(path string, compressed bool) bool {
	f, err := openFile(path, compressed)
	if err != nil {
		return false
	}
	defer f.Close()
	const overlap = 64 // longer than "git", its options and the command
	bp := scanBuffers.Get().(*[]byte)
	defer scanBuffers.Put(bp)
	buf := *bp
	n := 0
	for {
		m, err := io.ReadFull(f, buf[n:])
		n += m
		chunk := buf[:n]
		if namesRemoteCommand(chunk) {
			return true
		}
		if err != nil {
			return false
		}
		n = copy(buf, chunk[max(0, len(chunk)-overlap):])
	}
}

// scanBuffers hold mayNameRemote's buffers: a folder-less corpus is
// scanned a file at a time, and a new megabyte for each file cost more
// than the scan.
var scanBuffers = sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}

// remoteCommands are git's commands whose output gitOutputRemotes reads.
var remoteCommands = []string{"push", "fetch", "pull", "remote", "clone"}

// namesRemoteCommand reports whether b holds the word git followed by one
// of remoteCommands, after any options.
func namesRemoteCommand(b []byte) bool {
	for at := 0; ; {
		i := bytes.Index(b[at:], []byte("git "))
		if i < 0 {
			return false
		}
		i += at
		at = i + len("git ")
		if i > 0 && partOfWord(b[i-1]) {
			continue // legit, /usr/bin/git: not the command ownGitCommand takes
		}
		rest := b[at:]
		for {
			rest = bytes.TrimLeft(rest, " ")
			end := bytes.IndexAny(rest, " \t\r\n\"'\\;&|")
			if end < 0 {
				end = len(rest)
			}
			word := rest[:end]
			if len(word) > 0 && word[0] == '-' {
				rest = rest[end:]
				continue
			}
			if slices.Contains(remoteCommands, string(word)) {
				return true
			}
			break
		}
	}
}

// partOfWord reports whether c may stand in a word or path before "git".
func partOfWord(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c == '/' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// ownGitCommand is the words after "git" of a command that runs git alone
// in the session's folder, nil for any other command.
func ownGitCommand(cmd string) []string {
	if strings.ContainsAny(cmd, "`$") {
		return nil // substituted: maybe a cd
	}
	cmds := shellcmd.Split(cmd)
	if len(cmds) == 0 {
		return nil
	}
	for _, c := range cmds[1:] {
		if !c.Piped {
			return nil // chained: maybe after a cd
		}
	}
	words := cmds[0].Words // piped to tail, head, grep: its output is still git's
	if len(words) < 2 || words[0] != "git" {
		return nil
	}
	for _, w := range words[1:] {
		if w == "-C" || strings.HasPrefix(w, "--git-dir") || strings.HasPrefix(w, "--work-tree") {
			return nil
		}
	}
	return words[1:]
}

// gitOutputRemotes are the repositories git's output names as the remote
// of the command args: push's "To URL", fetch's and pull's "From URL",
// "remote -v"'s origin, "remote get-url origin"'s URL, and the URL of a
// clone into "." that worked.
func gitOutputRemotes(args []string, output string, failed bool) []string {
	var sub string
	var rest []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			sub, rest = a, args[i+1:]
			break
		}
	}
	var urls []string
	lines := strings.Split(output, "\n")
	switch sub {
	case "push", "fetch", "pull":
		prefix := "From "
		if sub == "push" {
			prefix = "To "
		}
		for _, l := range lines {
			if u, ok := strings.CutPrefix(strings.TrimSpace(l), prefix); ok {
				urls = append(urls, strings.TrimSpace(u))
			}
		}
	case "remote":
		switch {
		case len(rest) == 1 && rest[0] == "-v":
			for _, l := range lines {
				if f := strings.Fields(l); len(f) == 3 && f[0] == "origin" && (f[2] == "(fetch)" || f[2] == "(push)") {
					urls = append(urls, f[1])
				}
			}
		case len(rest) == 2 && rest[0] == "get-url" && rest[1] == "origin" && !failed:
			urls = append(urls, strings.TrimSpace(output))
		}
	case "clone":
		var operands []string
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				operands = append(operands, a)
			}
		}
		if len(operands) == 2 && (operands[1] == "." || operands[1] == "./") && !failed {
			urls = append(urls, operands[0])
		}
	}
	var repos []string
	for _, u := range urls {
		if r := networkRemote(u); r != "" {
			repos = append(repos, r)
		}
	}
	return repos
}

// networkRemote is RepoFromURL of a URL on another host
// (https://github.com/acme/api.git, git@github.com:acme/api.git,
// github.com:acme/api.git, ssh://…), owner/name only; "" for a local path
// or anything else, whose last two folders name no repository.
func networkRemote(u string) string {
	if strings.ContainsAny(u, " \t") {
		return ""
	}
	scheme, rest, ok := strings.Cut(u, "://")
	switch {
	case ok:
		if scheme == "file" || !strings.Contains(rest, "/") {
			return ""
		}
	default:
		host, _, ok := strings.Cut(u, ":")
		if !ok || strings.ContainsAny(host, "/\\") || !strings.ContainsAny(host, ".@") {
			return ""
		}
	}
	r := RepoFromURL(u)
	if !strings.Contains(r, "/") {
		return ""
	}
	return r
}

// gitConfigPath finds the config of the repository whose .git is at
// gitPath: a folder, or a file "gitdir: …" in worktrees and submodules,
// whose common dir holds the config.
func gitConfigPath(gitPath string, isDir bool) string {
	gitDir := gitPath
	if !isDir {
		b, err := regularfile.ReadFile(gitPath)
		if err != nil {
			return ""
		}
		line := strings.TrimSpace(string(b))
		if !strings.HasPrefix(line, "gitdir:") {
			return ""
		}
		gitDir = strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(gitPath), gitDir)
		}
		if b, err := regularfile.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
			common := strings.TrimSpace(string(b))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			gitDir = common
		}
	}
	return filepath.Join(gitDir, "config")
}

// remoteURL reads the url of remote "origin" from a git config file, or of
// the first remote when there is no origin.
func remoteURL(configPath string) string {
	f, err := regularfile.Open(configPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	var (
		section string
		first   string
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		if !strings.HasPrefix(section, "[remote ") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "url" {
			continue
		}
		v = strings.TrimSpace(v)
		if section == `[remote "origin"]` {
			return v
		}
		if first == "" {
			first = v
		}
	}
	return first
}

// RepoFromURL turns a git remote URL into "owner/name":
// git@github.com:owner/name.git, https://host/owner/name, ssh://…, and
// local paths all give their last two path elements.
func RepoFromURL(url string) string {
	u := strings.TrimSpace(url)
	u = strings.TrimSuffix(u, "/")
	u = strings.TrimSuffix(u, ".git")
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j+1:]
		} else {
			return ""
		}
	} else if i := strings.IndexByte(u, ':'); i >= 0 && !strings.ContainsAny(u[:i], "/\\") {
		u = u[i+1:] // scp-like git@host:owner/name
	}
	parts := strings.FieldsFunc(u, isPathSep)
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	for _, p := range parts {
		if p == "." || p == ".." {
			return "" // https://github.com/..git, as a redacted URL reads
		}
	}
	return strings.Join(parts, "/")
}

// baseName is the last element of a path written on any system.
func baseName(p string) string {
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return p
}
