package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/atomicfile"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/serve"
	"github.com/lorehq/lore/transcript"
)

type pushOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	Paths  []string
	JSON   bool
	DryRun bool
	// LogSession stamps every line with the session the SessionEnd hook
	// pushes, for hook-push.log (hidden).
	LogSession string
}

func newPushCmd(fac *factory, runF func(context.Context, *pushOptions) error) *cobra.Command {
	opts := &pushOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "push [PATH...]",
		Short: "Send new transcripts to the team's lore serve, to harvest",
		Long: `Send the transcripts under PATH (default: the agents' locations, as lore harvest
finds them) to the team's lore serve, which harvests them into the team's
store. The store must be a server: --store https://host:7077 or LORE_STORE,
with the token in LORE_TOKEN.

Nothing is sent twice: a transcript goes when it is new or has changed since
it was last sent ($LORE_HOME/push-state.json remembers each by size, time and
hash). Each is redacted on this machine before it leaves; the server redacts
it again, queues it and answers, and its workers harvest it moments later. Transcripts the server cannot take (a folder, a database, a
compressed file) are passed over, as are the sessions lore's settings leave
alone (sessions.exclude_agents, sessions.exclude_paths).

When the server cannot be reached, what was not sent is queued in the state
file, and the next push sends the queue first. lore's SessionEnd hook pushes
the session that ended this way when the store is a server.

Exit codes: 0 when everything new was sent (or there was nothing to send);
1 when something stays queued or the server refused a transcript; 2 for a
usage error.`,
		Example: `  export LORE_STORE=https://lore.acme.dev:7077 LORE_TOKEN=lore_…
  lore push                       # every new or changed transcript
  lore push ~/.claude/projects/-home-ann-api --dry-run
  lore push --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return pushRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print a summary as JSON")
	f.BoolVar(&opts.DryRun, "dry-run", false, "list what would be sent; send nothing")
	f.StringVar(&opts.LogSession, "log-session", "", "stamp each line with this session (the SessionEnd hook's log)")
	f.MarkHidden("log-session")
	opts.addFlag(cmd)
	return cmd
}

// pushState is push-state.json: for each server, what was sent and what
// waits to be.
type pushState struct {
	Servers map[string]*serverState `json:"servers"`
}

type serverState struct {
	// Sent is each transcript as it was last sent, or refused, by path.
	Sent map[string]pushedFile `json:"sent"`
	// Queue lists the transcripts found new or changed and not sent yet,
	// oldest first: the next push sends them first.
	Queue []string `json:"queue,omitempty"`
}

type pushedFile struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	Hash    string    `json:"hash"`
	At      time.Time `json:"at"`
	// Refused is why the server would not take it, as it was; it is not
	// sent again until it changes.
	Refused string `json:"refused,omitempty"`
}

const pushStateFile = "push-state.json"

func loadPushState(path string) (*pushState, error) {
	st := &pushState{Servers: map[string]*serverState{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, fmt.Errorf("read %s: %w (remove it, and push sends everything again)", path, err)
	}
	if st.Servers == nil {
		st.Servers = map[string]*serverState{}
	}
	return st, nil
}

func (s *pushState) server(url string) *serverState {
	ss := s.Servers[url]
	if ss == nil {
		ss = &serverState{Sent: map[string]pushedFile{}}
		s.Servers[url] = ss
	}
	if ss.Sent == nil {
		ss.Sent = map[string]pushedFile{}
	}
	return ss
}

// save writes the state, merged into what is on disk: another push (a
// hook's, for another session) may have written it since it was read,
// and what that one sent or queued stays.
func (s *pushState) save(path string) error {
	if disk, err := loadPushState(path); err == nil {
		for url, theirs := range disk.Servers {
			ours := s.server(url)
			for p, f := range theirs.Sent {
				if mine, ok := ours.Sent[p]; !ok || f.At.After(mine.At) {
					ours.Sent[p] = f
				}
			}
			for _, p := range theirs.Queue {
				// Queued there, and not sent since by this push.
				if !ours.Sent[p].At.After(theirs.Sent[p].At) {
					ours.queue(p)
				}
			}
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o600)
}

// queue adds paths to the queue, each once.
func (ss *serverState) queue(paths ...string) {
	for _, p := range paths {
		if !slices.Contains(ss.Queue, p) {
			ss.Queue = append(ss.Queue, p)
		}
	}
}

func (ss *serverState) dequeue(p string) {
	ss.Queue = slices.DeleteFunc(ss.Queue, func(q string) bool { return q == p })
}

// pushSummary is what a push did; --json prints it.
type pushSummary struct {
	Sent    int `json:"sent"`
	Queued  int `json:"queued"`
	Refused int `json:"refused"`
	Skipped int `json:"skipped"` // not text the server can take, or left alone by the settings
	// Sessions counts the sessions sent, which the server queued for
	// its workers to harvest (lore status --store URL shows how far).
	Sessions int `json:"sessions"`
	// Redactions counts the secrets redacted on this machine.
	Redactions int      `json:"redactions"`
	Files      []string `json:"files,omitempty"` // sent, or with --dry-run to send
	Error      string   `json:"error,omitempty"` // why what is queued was not sent
}

// pushTimeout bounds the sending of one transcript: it can be tens of
// megabytes, which the server reads before it answers.
const pushTimeout = 5 * time.Minute

// pending is a transcript to send: new, changed, or queued.
type pending struct {
	path string
	fp   pushedFile
}

func pushRun(ctx context.Context, opts *pushOptions) error {
	url, err := opts.storePath(opts.Env)
	if err != nil {
		return err
	}
	if !remote.IsURL(url) {
		return usagef("lore push sends transcripts to a team's lore serve: pass --store https://host:7077 or set LORE_STORE, with LORE_TOKEN (on one machine, lore harvest)")
	}
	o, err := remoteOptions(opts.Env)
	if err != nil {
		return err
	}
	o.Timeout = pushTimeout
	st, err := remote.Open(url, o)
	if err != nil {
		return storeError(err)
	}
	defer st.Close()
	home := loreHome(opts.Env)
	if home == "" {
		return errors.New("no home folder to keep push-state.json in: set LORE_HOME")
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	statePath := filepath.Join(home, pushStateFile)
	state, err := loadPushState(statePath)
	if err != nil {
		return err
	}
	ss := state.server(st.URL())
	cfg, err := loadConfig(opts.Env)
	if err != nil {
		return err
	}
	errOut, out := io.Writer(redactingWriter{opts.IO.ErrOut}), io.Writer(redactingWriter{opts.IO.Out})
	if opts.LogSession != "" {
		errOut = &stampWriter{w: errOut, session: secrets.String(opts.LogSession)}
		out = &stampWriter{w: out, session: secrets.String(opts.LogSession)}
	}

	var sum pushSummary
	todo := changed(ss, append(slices.Clone(ss.Queue), listTranscripts(opts, errOut)...), &sum)
	if opts.DryRun {
		for _, p := range todo {
			sum.Files = append(sum.Files, p.path)
		}
		if opts.JSON {
			return writeJSON(opts.IO.Out, sum)
		}
		for _, f := range sum.Files {
			fmt.Fprintln(out, f)
		}
		fmt.Fprintf(out, "%d to send to %s (dry run: nothing sent)\n", len(todo), st.URL())
		return nil
	}

	bar := newCountProgress(opts.IO, "pushing transcripts")
	for i := range todo {
		p := &todo[i]
		err := pushOne(ctx, st, cfg, p, &sum, errOut)
		switch {
		case errors.Is(err, errLeftAlone):
			ss.dequeue(p.path)
			sum.Skipped++
		case err == nil:
			ss.Sent[p.path] = p.fp
			ss.dequeue(p.path)
			sum.Sent++
			sum.Files = append(sum.Files, p.path)
		case lore.ErrorCode(err) == lore.EINVALID:
			// The server will not take it as it is: not again until it changes.
			p.fp.Refused = err.Error()
			ss.Sent[p.path] = p.fp
			ss.dequeue(p.path)
			sum.Refused++
			fmt.Fprintf(errOut, "%s: not sent: %s\n", p.path, err)
		default:
			// Offline, or the server failed or refused the token: this and
			// the rest wait for the next push.
			for _, q := range todo[i:] {
				ss.queue(q.path)
			}
			sum.Error = err.Error()
		}
		if err := state.save(statePath); err != nil {
			return fmt.Errorf("save %s: %w", statePath, err)
		}
		bar.update(int64(i+1), int64(len(todo)))
		if sum.Error != "" {
			break
		}
	}
	bar.stop()
	sum.Queued = len(ss.Queue)

	if opts.JSON {
		if err := writeJSON(opts.IO.Out, sum); err != nil {
			return err
		}
	} else {
		line := fmt.Sprintf("%d sent to %s (%d sessions, queued there for harvest)", sum.Sent, st.URL(), sum.Sessions)
		if sum.Sent == 0 && sum.Queued == 0 && sum.Refused == 0 {
			line = "nothing new to send to " + st.URL()
		}
		if sum.Queued > 0 {
			line += fmt.Sprintf(", %d queued", sum.Queued)
			if sum.Error != "" {
				line += " (" + sum.Error + ")"
			}
		}
		if sum.Refused > 0 {
			line += fmt.Sprintf(", %d refused", sum.Refused)
		}
		if sum.Skipped > 0 {
			line += fmt.Sprintf(", %d passed over (not a text transcript, or left alone by the settings)", sum.Skipped)
		}
		fmt.Fprintln(out, line)
	}
	if sum.Queued > 0 || sum.Refused > 0 {
		return errSilent // said in the summary
	}
	return nil
}

// listTranscripts lists the transcript files under the paths given,
// else the agents' locations, as harvest finds them.
func listTranscripts(opts *pushOptions, errOut io.Writer) []string {
	paths, _ := searchPaths(opts.Env, opts.Paths)
	var ins []transcript.Input
	var probs []transcript.Problem
	if len(opts.Paths) == 0 {
		ins, probs = transcript.DefaultInputs(paths)
	} else {
		ins, probs = transcript.Inputs(paths)
	}
	for _, p := range probs {
		fmt.Fprintln(errOut, p.String())
	}
	out := make([]string, 0, len(ins))
	for _, in := range ins {
		out = append(out, in.Path)
	}
	return out
}

// changed keeps, of paths, each transcript that is new or changed since
// it was last sent, once; one that is unchanged, gone, or not text the
// server can take is passed over (counted in sum.Skipped when it is not
// text).
func changed(ss *serverState, paths []string, sum *pushSummary) []pending {
	var out []pending
	seen := map[string]bool{}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		fi, err := os.Stat(p)
		if err != nil {
			ss.dequeue(p) // gone: nothing to send
			continue
		}
		if !fi.Mode().IsRegular() || !uploadable(p) {
			sum.Skipped++
			continue
		}
		last, ok := ss.Sent[p]
		if ok && last.Size == fi.Size() && last.ModTime.Equal(fi.ModTime()) && !slices.Contains(ss.Queue, p) {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		sum256 := sha256.Sum256(b)
		fp := pushedFile{Size: fi.Size(), ModTime: fi.ModTime(), Hash: hex.EncodeToString(sum256[:])}
		if ok && last.Hash == fp.Hash {
			last.ModTime = fi.ModTime() // touched, not changed
			ss.Sent[p] = last
			ss.dequeue(p)
			continue
		}
		if !utf8.Valid(b) {
			sum.Skipped++
			continue
		}
		out = append(out, pending{path: p, fp: fp})
	}
	return out
}

// uploadable reports whether a file's name is one the server takes:
// text, not a database or a compressed file.
func uploadable(p string) bool {
	name := strings.ToLower(p)
	for _, ext := range []string{".db", ".vscdb", ".sqlite", ".zst", ".gz", ".zip", "-wal", "-shm"} {
		if strings.HasSuffix(name, ext) {
			return false
		}
	}
	return true
}

var uploadNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// uploadName is the name a transcript goes by: its file name, in the
// characters the server takes.
func uploadName(p string) string {
	name := strings.Trim(uploadNameChars.ReplaceAllString(filepath.Base(p), "_"), "._-")
	if len(name) > 100 {
		name = name[len(name)-100:]
	}
	if name == "" {
		name = "session.jsonl"
	}
	return name
}

// errLeftAlone is pushOne's error for a transcript the settings leave
// alone (sessions.exclude_agents, sessions.exclude_paths).
var errLeftAlone = errors.New("left alone by the settings")

// pushOne sends a transcript, redacted on this machine first, with its
// sessions' repository when they share one (worked out here, where git
// can be asked). One that lore cannot read, or of a session the settings
// leave alone, is not sent.
func pushOne(ctx context.Context, st *remote.Store, cfg config, p *pending, sum *pushSummary, errOut io.Writer) error {
	sessions, err := transcript.Read(ctx, p.path, transcript.Options{})
	if err != nil {
		return lore.Errorf(lore.EINVALID, "lore reads no session in it: %v", err)
	}
	repo := ""
	for i, s := range sessions {
		if cfg.excluded(s) {
			return errLeftAlone
		}
		if i == 0 {
			repo = s.Repo
		} else if s.Repo != repo {
			repo = ""
		}
	}
	b, err := os.ReadFile(p.path)
	if err != nil {
		return err
	}
	if h := sha256.Sum256(b); hex.EncodeToString(h[:]) != p.fp.Hash {
		// Changed since it was listed (the agent is still writing): send it
		// as it now is, and remember that.
		p.fp.Hash, p.fp.Size = hex.EncodeToString(h[:]), int64(len(b))
	}
	red, n := secrets.Count(string(b))
	for _, k := range n {
		sum.Redactions += k
	}
	up, err := st.Upload(ctx, uploadName(p.path), repo, []byte(red))
	if err != nil {
		return err
	}
	if up.State == serve.UploadFailed {
		// Sent before, kept on the server, which failed to harvest it:
		// sending it again as it is would not help.
		fmt.Fprintf(errOut, "%s: sent; the server could not harvest it: %s\n", p.path, up.Error)
	}
	sum.Sessions += up.Sessions
	p.fp.At = time.Now().UTC()
	return nil
}
