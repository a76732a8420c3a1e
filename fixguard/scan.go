package fixguard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// Limits of what one fix's guard keeps.
const (
	// MaxLines is the most lines a guard keeps; a fix with more lines of
	// code is Broad, guarded by its tests only.
	MaxLines = 60
	// maxRemoved is the most removed lines a guard keeps.
	maxRemoved = 400
	// maxLineBytes is the longest diff line read; a longer one (minified
	// code, data) is skipped.
	maxLineBytes = 4096
	// maxCommitLines is the most diff lines of one commit kept for
	// building its guard; the rest is read and dropped.
	maxCommitLines = 20000
	// maxBody is the most lines of a test's body a guard keeps.
	maxBody = 10
)

// ScanOptions say which history Scan reads.
type ScanOptions struct {
	Repo string // the identity the guards are stored under
	// Since limits the fixes to those after a day or time (a Go time,
	// already parsed) or after a revision (SinceRev, REV..HEAD).
	Since    time.Time
	SinceRev string
	// Rev is the commit whose history is read; "" is HEAD.
	Rev string
}

// ScanResult is what Scan found.
type ScanResult struct {
	Guards  []lore.FixGuard // oldest fix first
	Commits int             // commits read
	// Notes say what could not be seen or was cut: a shallow clone, a
	// diff too big to guard line by line.
	Notes []string
}

type commitInfo struct {
	sha, parent string
	merge       bool
	at          time.Time
	message     string
}

// Scan reads the history of r and returns a guard for every fix commit in
// it, writing nothing to the repository.
func Scan(ctx context.Context, r *Repo, opts ScanOptions) (*ScanResult, error) {
	if !r.HasCommits(ctx) && opts.Rev == "" {
		return nil, errors.New("the repository has no commits yet")
	}
	rev := opts.Rev
	if rev == "" {
		rev = "HEAD"
	}
	res := &ScanResult{}
	if note := r.ShallowNote(ctx); note != "" {
		res.Notes = append(res.Notes, note)
	}
	args := []string{"log", "--format=%H %P%x00%aI%x00%B%x1e", "--no-color"}
	if !opts.Since.IsZero() {
		args = append(args, "--since="+opts.Since.Format(time.RFC3339))
	}
	if opts.SinceRev != "" {
		from, err := r.Resolve(ctx, opts.SinceRev)
		if err != nil {
			return nil, fmt.Errorf("--since: %w", err)
		}
		args = append(args, from+".."+rev)
	} else {
		args = append(args, rev)
	}
	args = append(args, "--")
	var commits []commitInfo
	err := gitStream(ctx, r.Dir, nil, func(br *bufio.Reader) error {
		for {
			rec, err := br.ReadBytes(0x1e)
			if len(bytes.TrimSpace(rec)) > 0 {
				if c, ok := parseCommit(rec); ok {
					commits = append(commits, c)
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, args...)
	if err != nil {
		return nil, err
	}
	slices.Reverse(commits) // oldest first
	res.Commits = len(commits)
	byID := make(map[string]*commitInfo, len(commits))
	for i := range commits {
		byID[commits[i].sha] = &commits[i]
	}
	why := map[string]string{}
	var fixes []string
	for _, c := range commits {
		if c.merge {
			continue
		}
		w := fixWhy(c.message)
		if x := reverted(c.message); x != "" {
			w = ""
			if rc := lookup(byID, x); rc != nil {
				if y := reverted(rc.message); y != "" {
					if yc := lookup(byID, y); yc != nil && (why[yc.sha] != "" || fixWhy(yc.message) != "") {
						w = WhyReapply
					}
				}
			}
			if w == "" && revertGivesReason(c.message) {
				w = WhyRevert
			}
		}
		if w != "" {
			why[c.sha] = w
			fixes = append(fixes, c.sha)
		}
	}
	if len(fixes) == 0 {
		return res, nil
	}
	diffs, notes, err := readDiffs(ctx, r, fixes)
	if err != nil {
		return nil, err
	}
	res.Notes = append(res.Notes, notes...)
	for _, sha := range fixes {
		c := byID[sha]
		g := lore.FixGuard{Repo: opts.Repo, Commit: c.sha, Parent: c.parent, At: c.at, Subject: subjectOf(c.message),
			Message: strings.TrimSpace(c.message), Why: why[sha]}
		if d := diffs[sha]; d != nil {
			d.fill(&g)
		}
		if len(g.Lines) == 0 && len(g.Tests) == 0 && !g.Broad {
			continue // a fix of no code: prose, lockfiles, generated files
		}
		res.Guards = append(res.Guards, g)
	}
	return res, nil
}

func lookup(byID map[string]*commitInfo, sha string) *commitInfo {
	if c := byID[sha]; c != nil {
		return c
	}
	if len(sha) < 40 {
		for id, c := range byID {
			if strings.HasPrefix(id, sha) {
				return c
			}
		}
	}
	return nil
}

// parseCommit reads one record of "%H %P\0%aI\0%B".
func parseCommit(rec []byte) (commitInfo, bool) {
	rec = bytes.TrimSuffix(rec, []byte{0x1e})
	rec = bytes.TrimLeft(rec, "\n")
	parts := bytes.SplitN(rec, []byte{0}, 3)
	if len(parts) != 3 {
		return commitInfo{}, false
	}
	ids := strings.Fields(string(parts[0]))
	if len(ids) == 0 {
		return commitInfo{}, false
	}
	c := commitInfo{sha: ids[0], merge: len(ids) > 2, message: strings.ToValidUTF8(string(parts[2]), "\uFFFD")}
	if len(ids) > 1 {
		c.parent = ids[1]
	}
	c.at, _ = time.Parse(time.RFC3339, strings.TrimSpace(string(parts[1])))
	return c, true
}

// fileDiff is what a commit changed in one file.
type fileDiff struct {
	path    string
	created bool
	binary  bool
	added   []string
	removed []string
}

// commitDiff is what one commit changed.
type commitDiff struct {
	files []*fileDiff
	cut   bool // more lines than maxCommitLines
}

// readDiffs reads the diffs of commits in one git log, streaming.
func readDiffs(ctx context.Context, r *Repo, shas []string) (map[string]*commitDiff, []string, error) {
	out := map[string]*commitDiff{}
	var notes []string
	in := strings.NewReader(strings.Join(shas, "\n") + "\n")
	err := gitStream(ctx, r.Dir, in, func(br *bufio.Reader) error {
		var cur *commitDiff
		var curSHA string
		var f *fileDiff
		var header bool
		lines := 0
		for {
			line, long, err := readLine(br)
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			if long {
				continue
			}
			switch {
			case strings.HasPrefix(line, "\x01"):
				curSHA = strings.TrimSpace(line[1:])
				cur = &commitDiff{}
				out[curSHA] = cur
				f, lines = nil, 0
				continue
			case cur == nil:
				continue
			case strings.HasPrefix(line, "diff --git "):
				f = &fileDiff{path: diffPath(line)}
				cur.files = append(cur.files, f)
				header = true
				continue
			}
			if f == nil {
				continue
			}
			if header {
				switch {
				case strings.HasPrefix(line, "@@"):
					header = false
				case strings.HasPrefix(line, "+++ "):
					if p := strings.TrimPrefix(line[4:], "b/"); p != "/dev/null" {
						f.path = p
					}
				case strings.HasPrefix(line, "new file mode"):
					f.created = true
				case strings.HasPrefix(line, "rename to "):
					f.path = line[len("rename to "):]
				case strings.HasPrefix(line, "Binary files ") || strings.HasPrefix(line, "GIT binary patch"):
					f.binary = true
				}
				continue
			}
			if strings.HasPrefix(line, "@@") {
				continue
			}
			if lines >= maxCommitLines {
				if !cur.cut {
					cur.cut = true
					notes = append(notes, fmt.Sprintf("commit %s: a diff of more than %d lines, guarded by its tests only", lore.ShortCommit(curSHA), maxCommitLines))
				}
				continue
			}
			switch {
			case strings.HasPrefix(line, "+"):
				f.added = append(f.added, line[1:])
				lines++
			case strings.HasPrefix(line, "-"):
				f.removed = append(f.removed, line[1:])
				lines++
			}
		}
	}, "log", "--no-walk=unsorted", "--stdin", "-p", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--format=%x01%H")
	return out, notes, err
}

// readLine reads one line without its newline; a line longer than
// maxLineBytes is read to its end and reported long.
func readLine(br *bufio.Reader) (string, bool, error) {
	b, err := br.ReadSlice('\n')
	if err == nil || (err == io.EOF && len(b) > 0) {
		if len(b) > maxLineBytes {
			return "", true, nil
		}
		return string(bytes.TrimRight(b, "\r\n")), false, nil
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return "", false, err
		}
		return "", true, nil
	}
	return "", false, err
}

// diffPath is the new path in a "diff --git a/X b/Y" line.
func diffPath(line string) string {
	rest := strings.TrimPrefix(line, "diff --git ")
	if i := strings.LastIndex(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// fill sets a guard's files, lines, tests and removed lines from what its
// commit changed.
func (d *commitDiff) fill(g *lore.FixGuard) {
	removed := map[string]bool{}
	bumped := map[string]bool{}
	var joined strings.Builder // the removed lines, to find a line split off one
	for _, f := range d.files {
		for _, l := range f.removed {
			n := norm(l)
			removed[n] = true
			bumped[digits.ReplaceAllString(n, "0")] = true
			joined.WriteString(n)
			joined.WriteByte('\n')
		}
	}
	was := joined.String()
	seen := map[string]bool{}
	var lines []lore.GuardLine
	for _, f := range d.files {
		g.Files = append(g.Files, f.path)
		if f.created {
			g.Created = append(g.Created, f.path)
		}
		if f.binary || !guardable(f.path) || generatedFile(f.added) {
			continue
		}
		if isTest(f.path) {
			g.Tests = append(g.Tests, testsOf(f, removed)...)
			continue
		}
		for _, l := range f.removed {
			if codeLine(f.path, l) && len(g.Removed) < maxRemoved {
				g.Removed = append(g.Removed, lore.GuardLine{File: f.path, Text: strings.TrimSpace(l)})
			}
		}
		for _, l := range f.added {
			n := norm(l)
			if !codeLine(f.path, l) || removed[n] || seen[n] || versionNumber.MatchString(n) && bumped[digits.ReplaceAllString(n, "0")] ||
				strings.Contains(was, n) {
				continue
			}
			seen[n] = true
			lines = append(lines, lore.GuardLine{File: f.path, Text: strings.TrimSpace(l)})
		}
	}
	g.Files = lore.CleanFiles(g.Files)
	if len(lines) > MaxLines || d.cut {
		g.Broad = true
		lines = nil
	}
	g.Lines = lines
}

// generatedFile reports whether a file's first added lines say a tool
// wrote it.
func generatedFile(added []string) bool {
	for _, l := range added[:min(len(added), 5)] {
		if generatedMark.MatchString(l) {
			return true
		}
	}
	return false
}

// testsOf are the tests a commit added to a test file (a definition not
// moved from elsewhere in the commit), or the file as a changed test when
// it added none.
func testsOf(f *fileDiff, removed map[string]bool) []lore.GuardTest {
	skips := false
	for _, l := range f.added {
		if skipMark.MatchString(l) {
			skips = true
		}
	}
	var out []lore.GuardTest
	sites := testsIn(f.added)
	for k, s := range sites {
		if removed[norm(f.added[s.line])] {
			continue
		}
		end := len(f.added)
		if k+1 < len(sites) {
			end = sites[k+1].line
		}
		var body []string
		for _, l := range f.added[s.line+1 : end] {
			if len(body) < maxBody && codeLine(f.path, l) && !slices.Contains(body, strings.TrimSpace(l)) {
				body = append(body, strings.TrimSpace(l))
			}
		}
		out = append(out, lore.GuardTest{File: f.path, Name: s.name, Added: true, Skips: skips, Body: body})
	}
	if len(out) == 0 && len(f.added)+len(f.removed) > 0 {
		out = append(out, lore.GuardTest{File: f.path})
	}
	return out
}
