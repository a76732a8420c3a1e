package harvest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/regularfile"
	"github.com/lorehq/lore/transcript"
)

// Listing is what List found: the sessions to harvest, and what it
// learned of the transcripts they are in, which Run then need not learn
// again (Options.Listing).
type Listing struct {
	// Sessions are de-duplicated and ordered as transcript.Scan lists
	// them. A session of a transcript List left unread is known by its
	// record alone: its id, agent, path and size.
	Sessions []*lore.Session
	// Problems are the inputs that could not be read, by path.
	Problems []transcript.Problem

	files   map[string]*file        // by transcript path
	records map[string]lore.Harvest // by session, the extractor's
	// forgotten are the sessions a person forgot (lore.Forgotten): Run
	// harvests none of them, whatever their transcript became. others
	// are the sessions another extractor harvested (see Rebuild).
	forgotten, others map[string]bool
}

// file is what List learned of one transcript.
type file struct {
	fp fingerprint
	// done: every session it holds has its record at this state, so
	// it was not read and its sessions are skipped.
	done bool
	// read: its sessions were read with their messages, when it was as
	// fp says.
	read bool
	// held counts the sessions it held when read; 0 when it was not
	// read, or read with a problem.
	held int
}

// records is what List needs of a store: the harvest records that tell
// an unchanged transcript, and a way to bring their times up to date.
type records interface {
	Harvests(ctx context.Context, fn func(lore.Harvest) error) error
	RecordHarvest(ctx context.Context, hs ...lore.Harvest) error
}

// ListOptions configure List.
type ListOptions struct {
	Store records
	// Extractor names the extractor whose records count (Extractor.Name).
	Extractor string
	// Every reads every transcript, unchanged ones too: a selection
	// among the sessions (by agent, repository, time or worth) needs
	// what each one holds, not only its record.
	Every bool
	// DryRun updates no record.
	DryRun bool
	// Defaults says the paths are the agents' default locations, which
	// are read as transcript.DefaultInputs reads them.
	Defaults bool
	// Progress, if set, is called as transcripts are read with the bytes
	// done and the bytes to read.
	Progress func(done, total int64)
}

// readAtOnce is how many bytes of transcript List reads with their
// messages, to be harvested without reading them again. More is listed
// without them, and each transcript read again by Run when its turn
// comes: holding every message of a first harvest of thousands of
// transcripts would take gigabytes.
var readAtOnce int64 = 128 << 20

// List finds the sessions under paths (transcript files or folders, which
// are walked) for Run to harvest. A transcript whose sessions each have a
// harvest record of the extractor at its present state (same path and
// size, then same modification time or, failing that, same content) is
// not read: its sessions come from their records. The others are read,
// with their messages unless they are many, once.
//
// Unless it is a dry run, a transcript found unchanged by its content
// after its modification time changed has its records' time updated, so
// that the next run need not hash it.
func List(ctx context.Context, paths []string, opts ListOptions) (*Listing, error) {
	l := &Listing{files: map[string]*file{}, records: map[string]lore.Harvest{}, forgotten: map[string]bool{},
		others: map[string]bool{}}
	var recs []lore.Harvest
	err := opts.Store.Harvests(ctx, func(r lore.Harvest) error {
		switch r.Extractor {
		case opts.Extractor:
			recs = append(recs, r)
		case lore.Forgotten:
			l.forgotten[r.Session] = true
		case lore.JournalImported: // attempts, not knowledge
		default:
			l.others[r.Session] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	inputs, problems := transcript.Inputs(paths)
	if opts.Defaults {
		inputs, problems = transcript.DefaultInputs(paths)
	}
	l.Problems = problems
	stored := map[string]string{} // RecordPath → path, where they differ
	for _, in := range inputs {
		l.files[in.Path] = &file{}
		if k := lore.RecordPath(in.Path); k != in.Path {
			stored[k] = in.Path
		}
	}
	atPath := map[string][]lore.Harvest{}
	for _, r := range recs {
		if p, ok := stored[r.Path]; ok {
			r.Path = p
		}
		l.records[r.Session] = r
		atPath[r.Path] = append(atPath[r.Path], r)
	}
	var refresh []lore.Harvest
	if !opts.Every {
		var mu sync.Mutex
		err := each(ctx, len(inputs), func(i int) error {
			f := l.files[inputs[i].Path]
			done, moved, err := unchanged(inputs[i].Path, atPath[inputs[i].Path], f)
			if err != nil {
				return nil // read it, to find out what is wrong
			}
			f.done = done
			if done && moved {
				mu.Lock()
				refresh = append(refresh, retimed(atPath[inputs[i].Path], f.fp.mtime)...)
				mu.Unlock()
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var (
		unread []*lore.Session
		toRead []transcript.Input
		bytes  int64
	)
	for _, in := range inputs {
		if l.files[in.Path].done {
			for _, r := range atPath[in.Path] {
				unread = append(unread, recorded(r))
			}
			continue
		}
		toRead = append(toRead, in)
		bytes += in.Size
	}
	messages := bytes <= readAtOnce
	read, err := l.read(ctx, toRead, messages, opts)
	if err != nil {
		return nil, err
	}
	// A session read here whose record is of a transcript left unread
	// has two copies: the one holding more is harvested, as lore
	// sessions would list it, so that one is read too.
	again := map[string]bool{}
	for _, s := range read {
		if r, ok := l.records[s.ID]; ok && l.files[r.Path] != nil && l.files[r.Path].done {
			l.files[r.Path].done = false
			again[r.Path] = true
		}
	}
	if len(again) > 0 {
		ins := slices.DeleteFunc(slices.Clone(inputs), func(in transcript.Input) bool { return !again[in.Path] })
		more, err := l.read(ctx, ins, messages, opts)
		if err != nil {
			return nil, err
		}
		read = append(read, more...)
		unread = slices.DeleteFunc(unread, func(s *lore.Session) bool { return !l.files[s.Path].done })
		refresh = slices.DeleteFunc(refresh, func(r lore.Harvest) bool { return !l.files[r.Path].done })
	}
	l.Sessions = transcript.Dedupe(append(read, unread...))
	slices.SortFunc(l.Problems, func(a, b transcript.Problem) int { return strings.Compare(a.Path, b.Path) })
	if len(refresh) > 0 && !opts.DryRun {
		if err := opts.Store.RecordHarvest(ctx, refresh...); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// read reads inputs, with their messages or not, noting each one's size
// and time before.
func (l *Listing) read(ctx context.Context, inputs []transcript.Input, messages bool, opts ListOptions) ([]*lore.Session, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	err := each(ctx, len(inputs), func(i int) error {
		f := l.files[inputs[i].Path]
		f.fp, _ = stat(inputs[i].Path) // one that cannot be read is a problem of the read
		return nil
	})
	if err != nil {
		return nil, err
	}
	res, err := transcript.ReadInputs(ctx, inputs, transcript.Options{Messages: messages, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	for _, in := range inputs {
		f := l.files[in.Path]
		f.read, f.held = messages, res.Held[in.Path]
	}
	l.Problems = append(l.Problems, res.Problems...)
	return res.Sessions, nil
}

// unchanged reports whether a transcript is done with: each session it
// held when last read has a record (recs, all at one state), and it is
// as they say, by size and time, or else by content (moved: its time is
// not theirs). It notes what it learned of the transcript in f.
func unchanged(path string, recs []lore.Harvest, f *file) (done, moved bool, err error) {
	if len(recs) == 0 || recs[0].Sessions != len(recs) {
		return false, false, nil
	}
	first := recs[0]
	for _, r := range recs[1:] {
		if r.Size != first.Size || !r.ModTime.Equal(first.ModTime) || r.Hash != first.Hash || r.Sessions != first.Sessions {
			return false, false, nil
		}
	}
	if f.fp, err = stat(path); err != nil || f.fp.size != first.Size {
		return false, false, err
	}
	if f.fp.mtime.Equal(first.ModTime) {
		return true, false, nil
	}
	if f.fp, err = hashed(path); err != nil {
		return false, false, err
	}
	return f.fp.size == first.Size && f.fp.hash == first.Hash, true, nil
}

// retimed returns records with their transcript's new time.
func retimed(recs []lore.Harvest, mtime time.Time) []lore.Harvest {
	out := slices.Clone(recs)
	for i := range out {
		out[i].ModTime = mtime
	}
	return out
}

// distinctIDs counts the sessions of ss, each id once.
func distinctIDs(ss []*lore.Session) int {
	seen := make(map[string]bool, len(ss))
	for _, s := range ss {
		seen[s.ID] = true
	}
	return len(seen)
}

// recorded is a session as its record knows it.
func recorded(r lore.Harvest) *lore.Session {
	agent, native, _ := strings.Cut(r.Session, ":")
	return &lore.Session{ID: r.Session, Agent: agent, NativeID: native, Path: r.Path, Size: r.Size}
}

// each calls fn for 0..n-1 on one goroutine per CPU, and stops at a
// cancelled context.
func each(ctx context.Context, n int, fn func(int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
		fail error
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := fail != nil
				mu.Unlock()
				if i >= n || stop || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					fail = err
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return fail
}

// fingerprint is a transcript's state: its size, modification time and,
// when known, content hash.
type fingerprint struct {
	size  int64
	mtime time.Time
	hash  string
}

// stat returns the size and modification time of a transcript: a file,
// or a folder (the sum of its files' sizes, the latest of their times).
func stat(path string) (fingerprint, error) {
	var p fingerprint
	err := walk(path, func(_ string, fi fs.FileInfo) error {
		p.size += fi.Size()
		if t := fi.ModTime(); t.After(p.mtime) {
			p.mtime = t
		}
		return nil
	})
	return p, err
}

// hashed returns a transcript's fingerprint with its content hash. The
// time is taken before the content is read: a transcript written to
// meanwhile looks changed next time.
func hashed(path string) (fingerprint, error) {
	p, err := stat(path)
	if err != nil {
		return p, err
	}
	h := sha256.New()
	p.size = 0
	buf := hashBuffers.Get().(*[]byte)
	defer hashBuffers.Put(buf)
	err = walk(path, func(name string, _ fs.FileInfo) error {
		if name != path {
			io.WriteString(h, name[len(path):]+"\x00")
		}
		f, err := regularfile.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		// Only a reader: a file's WriteTo copies through a buffer of its
		// own, new for every file.
		n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, *buf)
		p.size += n
		return err
	})
	if err != nil {
		return p, err
	}
	p.hash = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

// hashBuffers hold hashed's read buffers.
var hashBuffers = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// walk calls fn for a file, or for every file under a folder in name
// order.
func walk(path string, fn func(name string, fi fs.FileInfo) error) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fn(path, fi)
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return fn(p, fi)
	})
}
