package fixguard

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/lorehq/lore"
)

// maxFileBytes is the largest file Check reads; a bigger one is data.
const maxFileBytes = 4 << 20

// Target is the tree Check reads: a commit (Rev, "" for HEAD), what is
// staged, or the work tree (tracked and untracked files not ignored).
type Target struct {
	Rev      string
	Staged   bool
	Worktree bool
	// Base is the tree the change is measured from: a fix already undone
	// there is not this change's doing. "" is the commit's first parent
	// (HEAD for the staged or work tree); a root commit has none.
	Base string
	// All reports every guarded fix the tree has undone, whenever that
	// happened (an audit), not only those the change undid.
	All bool
}

// Alarm is a fix a tree has undone.
type Alarm struct {
	Guard lore.FixGuard `json:"guard"`
	// Missing are the fix's lines found nowhere in the tree, or taken
	// out of their files by the change and put nowhere else; Kept counts
	// the others.
	Missing []lore.GuardLine `json:"missing"`
	Kept    int              `json:"kept"`
	// DeletedTests and SkippedTests are tests the fix added that the tree
	// no longer defines, or skips.
	DeletedTests []lore.GuardTest `json:"deleted_tests"`
	SkippedTests []lore.GuardTest `json:"skipped_tests"`
	// Changes are the commits since the base that changed the fix's
	// files ("abc123456789 subject"), newest first.
	Changes []string `json:"changes,omitempty"`
}

// CheckResult is what Check found.
type CheckResult struct {
	Commit string `json:"commit"` // the commit checked, or HEAD under the staged or work tree
	Tree   string `json:"tree"`   // "commit", "staged" or "worktree"
	// Guards counts the guards of fixes in the commit's history; Overridden
	// those a later commit let go (Reverts, Supersedes, Guard-Override).
	Guards     int      `json:"guards"`
	Overridden []string `json:"overridden"`
	// Base is the commit the change was measured from; Stale counts the
	// fixes already undone there, which raise no alarm (Target.All
	// raises them).
	Base   string  `json:"base,omitempty"`
	Stale  int     `json:"stale"`
	Alarms []Alarm `json:"alarms"`
}

// Check finds the guarded fixes the target tree has undone: a fix in the
// commit's history whose lines are, for the most part, gone from every
// file of the tree (a line found in any file, however indented, is kept:
// code moved or renamed is not undone) or taken out of their file by the
// change from the base and put nowhere else (treeState.left; not under
// Target.All, which has no change), or a test the fix added that no
// test file defines or that is now skipped. A fix a later commit lets go
// (a line "Reverts SHA" or "Supersedes SHA", a trailer "Guard-Override:
// SHA reason"), and a line a later fix took out, raise nothing.
func Check(ctx context.Context, r *Repo, guards []lore.FixGuard, t Target) (*CheckResult, error) {
	rev := t.Rev
	if rev == "" {
		rev = "HEAD"
	}
	commit, err := r.Resolve(ctx, rev)
	if err != nil {
		if t.Rev == "" {
			return nil, fmt.Errorf("the repository has no commits yet")
		}
		return nil, err
	}
	res := &CheckResult{Commit: commit, Tree: "commit"}
	switch {
	case t.Staged:
		res.Tree = "staged"
	case t.Worktree:
		res.Tree = "worktree"
		if r.Root == "" {
			return nil, fmt.Errorf("a bare repository has no work tree to check")
		}
	}
	history, lets, err := historyOf(ctx, r, commit)
	if err != nil {
		return nil, err
	}
	var live []lore.FixGuard
	for _, g := range guards {
		if !history[g.Commit] {
			continue
		}
		if letGo(lets, g.Commit) {
			res.Overridden = append(res.Overridden, g.Commit)
			continue
		}
		live = append(live, g)
	}
	res.Guards = len(live) + len(res.Overridden)
	if len(live) == 0 {
		return res, nil
	}
	now, err := readState(ctx, r, live, t, commit)
	if err != nil {
		return nil, err
	}
	if t.All {
		res.Alarms = evaluate(live, now, nil)
		return res, nil
	}
	base := t.Base
	if base == "" && (t.Staged || t.Worktree) {
		base = commit
	} else if base == "" {
		if out, err := gitOut(ctx, r.Dir, "rev-parse", "--verify", "--quiet", commit+"^1"); err == nil {
			base = strings.TrimSpace(string(out))
		}
	}
	if base == "" {
		res.Alarms = evaluate(live, now, nil) // a root commit: every fix is its doing
		return res, nil
	}
	if base, err = r.Resolve(ctx, base); err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	res.Base = base
	// The base's tree, read for every guard's lines, so that a line the
	// change took out of its file is told from one moved elsewhere.
	var then *treeState
	switch {
	case (t.Staged || t.Worktree) && base == commit:
		// The tree is HEAD's but for what is staged or changed.
		then, err = now.rebaseTree(ctx, r, base, t.Staged)
	case t.Staged || t.Worktree || !history[base]:
		then, err = readState(ctx, r, live, Target{Rev: base}, base)
	default:
		// The base is in the commit's history: its tree is the commit's,
		// but for the files the change changed.
		then, err = now.rebase(ctx, r, base, commit)
	}
	if err != nil {
		return nil, err
	}
	alarms := evaluate(live, now, then)
	if len(alarms) == 0 {
		return res, nil
	}
	baseHistory, _, err := historyOf(ctx, r, base)
	if err != nil {
		return nil, err
	}
	var before []lore.FixGuard
	for _, g := range live {
		if baseHistory[g.Commit] {
			before = append(before, g)
		}
	}
	// A fix already undone in the base is not the change's doing.
	stale := map[string]bool{}
	for _, a := range evaluate(before, then, nil) {
		stale[a.Guard.Commit] = true
	}
	for _, a := range alarms {
		if stale[a.Guard.Commit] {
			res.Stale++
			continue
		}
		if base != commit {
			a.Changes, err = changes(ctx, r, base, commit, a.Guard.Files)
			if err != nil {
				return nil, err
			}
		}
		res.Alarms = append(res.Alarms, a)
	}
	return res, nil
}

// changes are the commits after base up to commit that changed files,
// newest first, at most 10.
func changes(ctx context.Context, r *Repo, base, commit string, files []string) ([]string, error) {
	out, err := gitOut(ctx, r.Dir, append([]string{"log", "-10", "--format=%H %s", base + ".." + commit, "--"}, files...)...)
	if err != nil {
		return nil, err
	}
	var cs []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, subject, ok := strings.Cut(l, " "); ok {
			cs = append(cs, lore.ShortCommit(sha)+" "+subject)
		}
	}
	return cs, nil
}

// treeState is what a tree holds of the guards' lines and tests.
type treeState struct {
	wanted map[string]bool // the guarded lines, normalised: what the files are read for
	// where is, for each guarded line found, how many times each file
	// holds it (found says whether any does).
	where map[string]map[string]int
	tests map[string]*testState
	files map[string]bool // every file of the tree
	// versions are the guarded lines that hold a dotted version, by their
	// form with every number 0: the line with a newer version is the same.
	versions map[string]string
	exts     map[string]bool      // the extensions of the guarded files
	perFile  map[string]*fileHits // what each file holds, for rebase
}

// fileHits is what one file holds of the guards' lines and tests.
type fileHits struct {
	lines []string // normalised
	tests []testSite
}

// readState reads the tree of t (commit's, the staged one or the work
// tree) for the lines and tests of guards.
func readState(ctx context.Context, r *Repo, guards []lore.FixGuard, t Target, commit string) (*treeState, error) {
	st := &treeState{wanted: map[string]bool{}, tests: map[string]*testState{}, files: map[string]bool{},
		versions: map[string]string{}, exts: map[string]bool{}, perFile: map[string]*fileHits{}}
	for _, g := range guards {
		if !g.Broad {
			for _, l := range g.Lines {
				n := norm(l.Text)
				st.wanted[n] = true
				st.exts[extOf(l.File)] = true
				if versionNumber.MatchString(n) {
					st.versions[digits.ReplaceAllString(n, "0")] = n
				}
			}
		}
		for _, tt := range g.Tests {
			if tt.Added {
				st.tests[tt.Name] = &testState{}
				st.exts[extOf(tt.File)] = true
				for _, l := range tt.Body {
					st.wanted[norm(l)] = true
				}
			}
		}
	}
	want := func(p string) bool {
		st.files[p] = true
		return st.exts[extOf(p)]
	}
	var err error
	switch {
	case t.Worktree:
		err = readWorktree(ctx, r, want, st.read)
	case t.Staged:
		err = readIndex(ctx, r, want, st.read)
	default:
		err = readCommit(ctx, r, commit, want, st.read)
	}
	st.sum()
	return st, err
}

// read notes what the file p holds of the guards' lines and tests.
func (st *treeState) read(p string, content []byte) {
	if bytes.IndexByte(content[:min(len(content), 8000)], 0) >= 0 {
		return // binary
	}
	h := &fileHits{}
	var buf []byte
	for rest := content; len(rest) > 0; {
		var l []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			l, rest = rest, nil
		}
		buf = normBytes(buf[:0], l)
		if st.wanted[string(buf)] {
			h.lines = append(h.lines, string(buf))
		} else if len(st.versions) > 0 && bytes.IndexByte(buf, '.') >= 0 {
			if n, ok := st.versions[digits.ReplaceAllString(string(buf), "0")]; ok {
				h.lines = append(h.lines, n) // the same line, another version: a bump keeps the fix
			}
		}
	}
	if isTest(p) && len(st.tests) > 0 {
		for _, s := range testsIn(strings.Split(string(content), "\n")) {
			if st.tests[s.name] != nil {
				h.tests = append(h.tests, s)
			}
		}
	}
	if len(h.lines) > 0 || len(h.tests) > 0 {
		st.perFile[p] = h
	}
}

// found reports whether a file of the tree holds the guarded line n.
func (st *treeState) found(n string) bool { return len(st.where[n]) > 0 }

// sum sets which lines and tests the tree holds from what its files do.
func (st *treeState) sum() {
	st.where = map[string]map[string]int{}
	for name := range st.tests {
		st.tests[name] = &testState{}
	}
	for p, h := range st.perFile {
		for _, n := range h.lines {
			if st.where[n] == nil {
				st.where[n] = map[string]int{}
			}
			st.where[n][p]++
		}
		for _, s := range h.tests {
			ts := st.tests[s.name]
			ts.defined = true
			ts.unskipped = ts.unskipped || !s.skipped
		}
	}
}

// left reports whether a change from the tree before to this one took
// the guarded line l out of its file and put it nowhere else: its file
// holds fewer copies of it than before, and no file more. Copies that
// stood elsewhere all along, in its file or another, do not keep it; a
// line moved, or gathered from several files into one, is kept.
func (st *treeState) left(before *treeState, l lore.GuardLine) bool {
	if before == nil {
		return false
	}
	n := norm(l.Text)
	if st.where[n][l.File] >= before.where[n][l.File] {
		return false
	}
	for p, k := range st.where[n] {
		if k > before.where[n][p] {
			return false
		}
	}
	return true
}

// rebase returns the state of base's tree from the state of commit's:
// the same but for the files git diff says differ, read from base.
func (st *treeState) rebase(ctx context.Context, r *Repo, base, commit string) (*treeState, error) {
	out, err := gitOut(ctx, r.Dir, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, commit)
	if err != nil {
		return nil, err
	}
	return st.rebased(ctx, r, out, nil)
}

// rebaseTree returns the state of base's tree from the state of the
// staged tree (staged) or the work tree: the same but for the files that
// differ from base, read from base, and without the untracked files.
func (st *treeState) rebaseTree(ctx context.Context, r *Repo, base string, staged bool) (*treeState, error) {
	if staged {
		out, err := gitOut(ctx, r.Dir, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", base)
		if err != nil {
			return nil, err
		}
		return st.rebased(ctx, r, out, nil)
	}
	out, err := gitOut(ctx, r.Root, "diff", "--raw", "-z", "--no-renames", "--no-abbrev", base)
	if err != nil {
		return nil, err
	}
	untracked, err := gitOut(ctx, r.Root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	return st.rebased(ctx, r, out, strings.Split(string(untracked), "\x00"))
}

// rebased is the state with the files of a git diff --raw -z from base
// (out) read from base, and the files absent from base (absent) gone.
func (st *treeState) rebased(ctx context.Context, r *Repo, out []byte, absent []string) (*treeState, error) {
	nb := &treeState{wanted: st.wanted, tests: map[string]*testState{}, files: maps.Clone(st.files),
		versions: st.versions, exts: st.exts, perFile: maps.Clone(st.perFile)}
	for name := range st.tests {
		nb.tests[name] = &testState{}
	}
	for _, p := range absent {
		delete(nb.perFile, p)
		delete(nb.files, p)
	}
	var objs, paths []string
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		// ":oldmode newmode oldobject newobject status", then the path
		f := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		p := fields[i+1]
		if len(f) < 5 {
			break
		}
		delete(nb.perFile, p)
		switch f[4] {
		case "A":
			delete(nb.files, p)
			continue
		case "D":
			nb.files[p] = true
		}
		if strings.HasPrefix(f[0], "10") && nb.exts[extOf(p)] {
			objs, paths = append(objs, f[2]), append(paths, p)
		}
	}
	if err := catFiles(ctx, r, objs, paths, nb.read); err != nil {
		return nil, err
	}
	nb.sum()
	return nb, nil
}

// evaluate returns the alarms of the guards a tree has undone; with the
// tree before a change, also those whose lines the change took out of
// their files while copies stand elsewhere (treeState.left).
func evaluate(guards []lore.FixGuard, st, before *treeState) []Alarm {
	// A line a later fix took out is that fix's to guard: norm → the
	// index of the last fix that took it out.
	takenOut := map[string]int{}
	for i, g := range guards {
		for _, l := range g.Removed {
			takenOut[norm(l.Text)] = i
		}
	}
	var out []Alarm
	for i, g := range guards {
		a := Alarm{Guard: g}
		// retired: in a file the fix did not create, deleted since.
		retired := func(file string) bool { return !st.files[file] && !slices.Contains(g.Created, file) }
		guarded := 0
		if !g.Broad {
			for _, l := range g.Lines {
				n := norm(l.Text)
				switch j, ok := takenOut[n]; {
				case st.found(n) && !st.left(before, l):
					a.Kept++
				case ok && j > i, retired(l.File):
				default:
					a.Missing = append(a.Missing, l)
				}
				if !retired(l.File) {
					guarded++
				}
			}
		}
		undone := len(a.Missing) > 0 && len(a.Missing)*2 > guarded
		for _, tt := range g.Tests {
			if !tt.Added {
				continue
			}
			ts := st.tests[tt.Name]
			switch {
			case !ts.defined && (retired(tt.File) || renamed(tt, st)):
			case !ts.defined:
				a.DeletedTests = append(a.DeletedTests, tt)
			case !ts.unskipped && !tt.Skips:
				a.SkippedTests = append(a.SkippedTests, tt)
			}
		}
		if undone || len(a.DeletedTests) > 0 || len(a.SkippedTests) > 0 {
			if !undone {
				a.Missing = nil
			}
			out = append(out, a)
		}
	}
	return out
}

type testState struct{ defined, unskipped bool }

func extOf(p string) string {
	if e := path.Ext(p); e != "" {
		return strings.ToLower(e)
	}
	return path.Base(p)
}

// historyOf returns the commits of commit's history and the commits (or
// their starts) that its messages let go, each with the commit that did.
func historyOf(ctx context.Context, r *Repo, commit string) (map[string]bool, map[string]string, error) {
	history := map[string]bool{}
	lets := map[string]string{}
	err := gitStream(ctx, r.Dir, nil, func(br *bufio.Reader) error {
		for {
			rec, err := br.ReadBytes(0x1e)
			if sha, msg, ok := bytes.Cut(bytes.TrimLeft(bytes.TrimSuffix(rec, []byte{0x1e}), "\n"), []byte{0}); ok {
				history[string(sha)] = true
				if bytes.Contains(msg, []byte("Reverts")) || bytes.Contains(msg, []byte("Supersedes")) || bytes.Contains(msg, []byte("Guard-Override")) {
					for _, o := range overrides(string(msg)) {
						lets[o] = string(sha)
					}
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}, "log", "--format=%H%x00%B%x1e", commit, "--")
	return history, lets, err
}

// letGo reports whether a later commit let the fix go.
func letGo(lets map[string]string, commit string) bool {
	for o := range lets {
		if strings.HasPrefix(commit, o) {
			return true
		}
	}
	return false
}

// readCommit hands read every file of the commit's tree that want takes.
func readCommit(ctx context.Context, r *Repo, commit string, want func(string) bool, read func(string, []byte)) error {
	return readListed(ctx, r, want, read, func(f []string) (string, bool) {
		// mode, type, object, size
		n, err := strconv.Atoi(f[len(f)-1])
		return f[2], len(f) == 4 && f[1] == "blob" && err == nil && n <= maxFileBytes
	}, "ls-tree", "-r", "-z", "-l", commit)
}

// readIndex hands read every staged file that want takes.
func readIndex(ctx context.Context, r *Repo, want func(string) bool, read func(string, []byte)) error {
	return readListed(ctx, r, want, read, func(f []string) (string, bool) {
		// mode, object, stage; not a submodule
		return f[1], len(f) == 3 && f[2] == "0" && !strings.HasPrefix(f[0], "16")
	}, "ls-files", "-s", "-z")
}

// readListed hands read the blobs a git listing (args, NUL-separated
// "meta\tpath" entries) names: those whose fields blob takes, with the
// object it says, and whose path want takes.
func readListed(ctx context.Context, r *Repo, want func(string) bool, read func(string, []byte),
	blob func(meta []string) (string, bool), args ...string) error {
	out, err := gitOut(ctx, r.Dir, args...)
	if err != nil {
		return err
	}
	var objs, paths []string
	for _, e := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if !ok || !want(p) {
			continue
		}
		if obj, ok := blob(strings.Fields(meta)); ok {
			objs, paths = append(objs, obj), append(paths, p)
		}
	}
	return catFiles(ctx, r, objs, paths, read)
}

// catFiles reads blobs through one git cat-file --batch.
func catFiles(ctx context.Context, r *Repo, objs, paths []string, read func(string, []byte)) error {
	if len(objs) == 0 {
		return nil
	}
	in := strings.NewReader(strings.Join(objs, "\n") + "\n")
	return gitStream(ctx, r.Dir, in, func(br *bufio.Reader) error {
		for i := range objs {
			header, err := br.ReadString('\n')
			if err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			f := strings.Fields(header)
			if len(f) < 3 {
				continue // missing
			}
			n, err := strconv.Atoi(f[2])
			if err != nil {
				return fmt.Errorf("git cat-file: %q", header)
			}
			if n > maxFileBytes {
				if _, err := br.Discard(n + 1); err != nil {
					return err
				}
				continue
			}
			buf := make([]byte, n+1)
			if _, err := io.ReadFull(br, buf); err != nil {
				return fmt.Errorf("git cat-file: %w", err)
			}
			read(paths[i], buf[:n])
		}
		return nil
	}, "cat-file", "--batch")
}

// readWorktree hands read every file of the work tree that want takes:
// tracked ones and untracked ones git does not ignore.
func readWorktree(ctx context.Context, r *Repo, want func(string) bool, read func(string, []byte)) error {
	out, err := gitOut(ctx, r.Root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" || !want(p) {
			continue
		}
		full := filepath.Join(r.Root, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxFileBytes {
			continue // deleted in the work tree, a link, or data
		}
		b, err := os.ReadFile(full)
		if err != nil {
			continue
		}
		read(p, b)
	}
	return nil
}

// renamed reports whether a test no longer defined under its name has
// most of its body still in the tree: renamed or moved, not deleted.
func renamed(tt lore.GuardTest, st *treeState) bool {
	found := 0
	for _, l := range tt.Body {
		if st.found(norm(l)) {
			found++
		}
	}
	return len(tt.Body) > 0 && found*2 >= len(tt.Body)
}
