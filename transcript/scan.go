package transcript

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
)

// Problem is an input lore could not read, and why.
type Problem struct {
	Path string
	Err  error
}

func (p Problem) String() string { return p.Path + ": " + p.Err.Error() }

// Result is what a scan found.
type Result struct {
	// Sessions are de-duplicated (a session found in several files is
	// listed once, from the file holding most of it), newest first.
	Sessions []*lore.Session
	Problems []Problem
	// Inputs counts the files and folders that were read.
	Inputs int
	// Bytes counts the bytes of the inputs.
	Bytes int64
	// Held counts the sessions of each input read without a problem,
	// by path, before de-duplication: a harvest that knows every one of
	// them is done with the input can leave it unread next time.
	Held map[string]int
}

// job is one file or folder to read.
type job struct {
	path     string
	size     int64
	dir      *dirFormat // set for a folder that is one transcript
	explicit bool       // named by the user, not found by walking
}

// Input is one transcript to read: a file, or a folder that is one
// transcript (a Cline task, an OpenHands conversation).
type Input struct {
	Path string
	Size int64
	job  job
}

// Inputs lists the transcripts under paths without reading them: files
// are taken as they are, folders are walked. Scan is Inputs, then
// ReadInputs; a caller that knows some inputs need no reading (harvest,
// by its records) reads the others alone.
func Inputs(paths []string) ([]Input, []Problem) {
	return inputs(paths, false)
}

// DefaultInputs is Inputs for the agents' default locations (DefaultRoots)
// rather than paths the user named: a location, and each file and folder
// in it, is passed over unread when another user owns it or could write
// it.
func DefaultInputs(paths []string) ([]Input, []Problem) {
	return inputs(paths, true)
}

func inputs(paths []string, defaults bool) ([]Input, []Problem) {
	var (
		ins   []Input
		probs []Problem
	)
	for _, p := range paths {
		js, ps := collect(p, defaults)
		for _, j := range js {
			ins = append(ins, Input{Path: j.path, Size: j.size, job: j})
		}
		probs = append(probs, ps...)
	}
	return ins, probs
}

// Scan reads every transcript under paths: files are read, folders are
// walked. Problems with single inputs are collected, not returned as
// errors; the error is only for a cancelled context.
func Scan(ctx context.Context, paths []string, opts Options) (*Result, error) {
	ins, probs := inputs(paths, opts.Defaults)
	res, err := ReadInputs(ctx, ins, opts)
	if err != nil {
		return nil, err
	}
	res.Problems = append(probs, res.Problems...)
	sort.Slice(res.Problems, func(i, j int) bool { return res.Problems[i].Path < res.Problems[j].Path })
	return res, nil
}

// ReadInputs reads inputs as Scan reads what it finds.
func ReadInputs(ctx context.Context, inputs []Input, opts Options) (*Result, error) {
	res := Result{Held: map[string]int{}}
	jobs := make([]job, len(inputs))
	for i, in := range inputs {
		jobs[i] = in.job
	}
	// Largest first, so that one big file does not finish alone at the end.
	sort.SliceStable(jobs, func(i, j int) bool { return jobs[i].size > jobs[j].size })
	var total int64
	for _, j := range jobs {
		total += j.size
	}
	res.Inputs, res.Bytes = len(jobs), total

	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu       sync.Mutex
		sessions []*lore.Session
		done     atomic.Int64
		next     atomic.Int64
		wg       sync.WaitGroup
	)
	batch := make(map[string]bool, len(jobs))
	for _, j := range jobs {
		batch[filepath.Clean(j.path)] = true
	}
	repos := newRepoCache()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := newInput(opts, batch)
			defer in.release()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				j := jobs[i]
				var found []*lore.Session
				err := readJob(ctx, in, j, func(s *lore.Session) { found = append(found, s) })
				repos.resolveJob(ctx, j, in.zstd, found, opts)
				mu.Lock()
				sessions = append(sessions, found...)
				if err == nil {
					res.Held[j.path] = distinctIDs(found)
				} else if report(j, err) {
					res.Problems = append(res.Problems, Problem{Path: j.path, Err: err})
				}
				mu.Unlock()
				if opts.Progress != nil {
					opts.Progress(done.Add(j.size), total)
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	settleRepos(sessions)
	res.Sessions = Dedupe(sessions)
	sort.Slice(res.Problems, func(i, j int) bool { return res.Problems[i].Path < res.Problems[j].Path })
	return &res, nil
}

// distinctIDs counts the sessions of ss, each id once.
func distinctIDs(ss []*lore.Session) int {
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		seen[s.ID] = true
	}
	return len(seen)
}

// report says whether a failed job is worth telling the user about. Files
// found by walking whose names say nothing of transcripts (any .json, a
// .db) are skipped quietly when they are not transcripts: a walked project
// folder is full of them. So are walked transcripts with no turn in them.
func report(j job, err error) bool {
	if errors.Is(err, errFoldedInto) {
		return false // read as part of another input of this run
	}
	if j.explicit {
		return true
	}
	if errors.Is(err, ErrEmpty) {
		return false
	}
	if !errors.Is(err, ErrNotTranscript) {
		return true
	}
	name := strings.ToLower(filepath.Base(j.path))
	switch {
	case strings.HasSuffix(name, ".traj.json"):
		return true
	case strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".db"), strings.HasSuffix(name, ".vscdb"):
		return false
	}
	return true
}

// readJob reads one job, passing each session found to emit.
func readJob(ctx context.Context, in *input, j job, emit emitFunc) (err error) {
	defer func() {
		// A reader bug must cost one file, not the run.
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error reading this file (please report it): %v", r)
		}
	}()
	in.path, in.size, in.related, in.head, in.zstd = j.path, j.size, nil, nil, false
	in.explicit = j.explicit
	if j.dir != nil {
		return j.dir.read(ctx, in, emit)
	}
	return readFile(ctx, in, emit)
}

// Read reads the sessions in one file, or in one folder that is a single
// transcript (a Cline task, an OpenHands conversation).
func Read(ctx context.Context, path string, opts Options) ([]*lore.Session, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	j := job{path: path, size: fi.Size(), explicit: true}
	if !fi.IsDir() {
		if err := regularfile.Check(fi); err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
	} else {
		names, err := dirNames(path)
		if err != nil {
			return nil, err
		}
		if j.dir = matchDir(path, names); j.dir == nil {
			return nil, notTranscript("a folder of several transcripts or none; list them with lore sessions %s", path)
		}
		j.size = dirSize(path)
	}
	var found []*lore.Session
	in := newInput(opts, map[string]bool{filepath.Clean(path): true})
	err = readJob(ctx, in, j, func(s *lore.Session) { found = append(found, s) })
	in.release()
	newRepoCache().resolveJob(ctx, j, in.zstd, found, opts)
	settleRepos(found)
	if err != nil && len(found) == 0 {
		return nil, err
	}
	return found, nil
}

// Dedupe lists each session id once, keeping the copy read from the most
// transcript: most messages, then most bytes, then the later end. The
// result is sorted newest first.
func Dedupe(sessions []*lore.Session) []*lore.Session {
	best := make(map[string]*lore.Session, len(sessions))
	for _, s := range sessions {
		if b, ok := best[s.ID]; !ok || holdsMore(s, b) {
			best[s.ID] = s
		}
	}
	out := make([]*lore.Session, 0, len(best))
	for _, s := range best {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.StartedAt.Equal(b.StartedAt) {
			return a.StartedAt.After(b.StartedAt)
		}
		return a.ID < b.ID
	})
	return out
}

func holdsMore(a, b *lore.Session) bool {
	if a.MessageCount() != b.MessageCount() {
		return a.MessageCount() > b.MessageCount()
	}
	if a.ToolCalls != b.ToolCalls {
		return a.ToolCalls > b.ToolCalls
	}
	// A copy that kept token usage (Hermes' state.db beside its .jsonl)
	// holds more of the session.
	if ta, tb := totalTokens(a), totalTokens(b); ta != tb {
		return ta > tb
	}
	if a.Size != b.Size {
		return a.Size > b.Size
	}
	if !a.EndedAt.Equal(b.EndedAt) {
		return a.EndedAt.After(b.EndedAt)
	}
	return a.Path < b.Path
}

func totalTokens(s *lore.Session) int64 {
	u := s.Usage
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

// collect turns one path into jobs: one the user gave or, with defaults,
// an agent's default location.
func collect(root string, defaults bool) ([]job, []Problem) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, []Problem{{Path: root, Err: cleanPathErr(err)}}
	}
	if defaults && distrustPath(root, fi) != "" {
		return nil, nil
	}
	if !fi.IsDir() {
		if err := regularfile.Check(fi); err != nil {
			return nil, []Problem{{Path: root, Err: err}}
		}
		return []job{{path: root, size: fi.Size(), explicit: true}}, nil
	}
	w := walker{defaults: defaults}
	w.walk(root)
	return w.jobs, w.problems
}

// cleanPathErr drops the path an *fs.PathError repeats, since problems
// are printed after their path.
func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

type walker struct {
	jobs     []job
	problems []Problem
	// defaults is set in an agent's default location: what another user
	// owns or could write is passed over.
	defaults bool
}

// skipDirs are folders that never hold transcripts worth walking into.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "__pycache__": true, ".venv": true,
	"venv": true, ".tox": true, ".mypy_cache": true, "file-history": true,
	"todos": true, "shell-snapshots": true, "tool-results": true, "tool-outputs": true,
	// Gemini CLI's /restore snapshots repeat the sessions beside them.
	"checkpoints": true,
}

func (w *walker) walk(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.problems = append(w.problems, Problem{Path: dir, Err: cleanPathErr(err)})
		return
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	if f := matchDir(dir, names); f != nil {
		if w.defaults && !w.allOwn(dir, entries) {
			return
		}
		w.jobs = append(w.jobs, job{path: dir, size: dirSize(dir), dir: f})
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 || w.defaults {
			fi, err := os.Stat(path)
			if err != nil {
				continue // a dangling link is nothing to read
			}
			if w.defaults && distrust(fi) != "" {
				continue
			}
			typ = fi.Mode().Type()
		}
		switch {
		case typ.IsDir():
			// A folder named like a transcript beside it holds that
			// transcript's parts (Claude Code's <session>/subagents), as
			// does the subagents folder beside a transcript named after
			// its own folder (Cursor's <id>/<id>.jsonl).
			if skipDirs[name] || names[name+".jsonl"] || name == "subagents" && names[filepath.Base(dir)+".jsonl"] {
				continue
			}
			w.walk(path)
		case typ.IsRegular():
			if !candidate(name) || foldedAgentFile(dir, name, names) {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				continue
			}
			w.jobs = append(w.jobs, job{path: path, size: fi.Size()})
		}
	}
}

// allOwn reports whether every entry of a transcript folder met in a
// default location is the user's own, and no other user can write it.
func (w *walker) allOwn(dir string, entries []fs.DirEntry) bool {
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err == nil && distrust(fi) != "" {
			return false
		}
	}
	return true
}

// notTranscriptNames are files that sit beside transcripts and are known
// not to be any.
var notTranscriptNames = map[string]bool{
	"sessions-index.json": true, "settings.json": true, "settings.local.json": true,
	"task_metadata.json": true, "context_history.json": true, "taskHistory.json": true,
	"package.json": true, "package-lock.json": true, "tsconfig.json": true,
	"history.jsonl": true, "logs.json": true, "sessions.json": true,
	"metadata.json": true, "base_state.json": true, "config.json": true,
	"all_preds.jsonl": true, "preds.json": true,
}

// candidate reports whether a file met while walking may be a transcript.
func candidate(name string) bool {
	if notTranscriptNames[name] || strings.HasSuffix(name, ".meta.json") {
		return false
	}
	lower := strings.ToLower(name)
	for _, ext := range []string{".jsonl", ".jsonl.zst", ".json", ".traj", ".db"} {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return strings.HasSuffix(lower, "aider.chat.history.md") || lower == "state.vscdb"
}

// dirNames lists a folder's entry names.
func dirNames(dir string) (map[string]bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names, nil
}

// dirSize sums the sizes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
