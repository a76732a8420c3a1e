package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/transcript"
)

// Upload is a transcript a team sent, and what became of it.
type Upload struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Repo is the repository the sender says the sessions are of
	// (owner/name): the server runs no git on what it is sent, so
	// without it a session's repository is its folder's name.
	Repo     string    `json:"repo,omitempty"`
	Bytes    int       `json:"bytes"`
	Received time.Time `json:"received"`
	// Redactions counts the secrets the server removed on arrival (the
	// sender removes what it finds first).
	Redactions int `json:"redactions"`
	// State is queued, running, harvested or failed.
	State    string           `json:"state"`
	Sessions int              `json:"sessions"`
	Harvest  *harvest.Summary `json:"harvest,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// The states of an upload: lore's.
const (
	UploadQueued    = lore.UploadQueued
	UploadRunning   = lore.UploadRunning
	UploadHarvested = lore.UploadHarvested
	UploadFailed    = lore.UploadFailed
)

// Defaults of QueueOptions.
const (
	DefaultWorkers = 2
	// DefaultLease is how long a worker holds an upload: a worker that
	// dies leaves it to another this long after it claimed it. A harvest
	// that runs longer is cut short and fails, so that no upload is
	// harvested by two workers at once.
	DefaultLease = 5 * time.Minute
	// pollMin and pollMax bound the wait of a worker that found nothing
	// to claim: it doubles while the queue stays empty.
	pollMin = 20 * time.Millisecond
	pollMax = time.Second
	// recentKept is how many uploads of a team GET /v1/harvest lists.
	recentKept = 100
)

// QueueOptions say how uploads are harvested.
type QueueOptions struct {
	// Workers is how many uploads this server harvests at once; 0 is
	// DefaultWorkers.
	Workers int
	// Lease is how long a worker holds an upload; 0 is DefaultLease.
	Lease time.Duration
	// Now is the clock the leases are read on; nil is time.Now.
	Now func() time.Time
	// Log takes a line per harvest; nil discards them.
	Log *slog.Logger
}

// Uploads keeps the transcripts teams upload in a lore.UploadQueue, and
// its workers harvest them into the teams' stores: any server on the
// same queue takes any upload, so several share the work, and none is
// harvested twice.
type Uploads struct {
	teams lore.Teams
	queue lore.UploadQueue
	opts  QueueOptions
	log   *slog.Logger
	name  string // names this server's workers in the queue
}

// NewUploads harvests the uploads of queue into the stores of teams.
func NewUploads(teams lore.Teams, queue lore.UploadQueue, opts QueueOptions) *Uploads {
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	host, _ := os.Hostname()
	var b [4]byte
	rand.Read(b[:])
	name := fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	return &Uploads{teams: teams, queue: queue, opts: opts, log: log, name: name}
}

// Submit checks that body, a team's transcript redacted already, reads
// as sessions, and queues it for harvest; the same transcript sent again
// is answered with the upload it made first.
func (u *Uploads) Submit(ctx context.Context, team string, up Upload, body []byte) (Upload, error) {
	sum := sha256.Sum256(body)
	var n int
	err := readUpload(ctx, up.Name, body, transcript.Options{}, func(ss []*lore.Session) error {
		n = len(ss)
		if n == 0 {
			return errors.New("no session in it")
		}
		return nil
	})
	if err != nil {
		return up, invalidf("%s is not a transcript lore reads: %s", up.Name, oneLine(err.Error()))
	}
	q, err := u.queue.Enqueue(ctx, lore.QueuedUpload{
		Team: team, ID: hex.EncodeToString(sum[:8]), Name: up.Name, Repo: up.Repo,
		Received: u.opts.Now(), Redactions: up.Redactions, Sessions: n, Body: body,
	})
	if err != nil {
		return up, fmt.Errorf("queue upload: %w", err)
	}
	return uploadOf(q), nil
}

// readUpload reads the sessions of an upload's body from a file of its
// name in a folder of its own, and calls fn with them before it removes
// the file (harvest reads it again).
func readUpload(ctx context.Context, name string, body []byte, o transcript.Options, fn func([]*lore.Session) error) error {
	dir, err := os.MkdirTemp("", "lore-upload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, body, 0o600); err != nil {
		return err
	}
	o.NoGit = true
	sessions, err := transcript.Read(ctx, path, o)
	if err != nil {
		return err
	}
	return fn(sessions)
}

// uploadOf is the API's view of an upload in the queue.
func uploadOf(q lore.QueuedUpload) Upload {
	up := Upload{ID: q.ID, Name: q.Name, Repo: q.Repo, Bytes: q.Bytes, Received: q.Received,
		Redactions: q.Redactions, State: q.State, Sessions: q.Sessions, Error: q.Error}
	if len(q.Result) > 0 {
		var s harvest.Summary
		if json.Unmarshal(q.Result, &s) == nil {
			up.Harvest = &s
		}
	}
	return up
}

// Work runs the workers until ctx is done, then lets each finish the
// upload it holds (for up to the lease) and returns.
func (u *Uploads) Work(ctx context.Context) {
	var wg sync.WaitGroup
	for i := range u.opts.Workers {
		wg.Go(func() { u.work(ctx, fmt.Sprintf("%s-%d", u.name, i)) })
	}
	wg.Wait()
}

func (u *Uploads) work(ctx context.Context, worker string) {
	wait := pollMin
	for ctx.Err() == nil {
		q, ok, err := u.queue.Claim(ctx, worker, u.opts.Now(), u.opts.Lease)
		if err != nil && ctx.Err() == nil {
			u.log.Warn("claim upload", "worker", worker, "err", err)
		}
		if err != nil || !ok {
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, pollMax)
			continue
		}
		wait = pollMin
		u.harvest(ctx, worker, q)
	}
}

// harvest harvests an upload a worker holds and records the outcome.
// The server's shutdown does not cut it in half; the lease does.
func (u *Uploads) harvest(ctx context.Context, worker string, q lore.QueuedUpload) {
	ctx = context.WithoutCancel(ctx)
	hctx, cancel := context.WithTimeout(ctx, u.opts.Lease)
	defer cancel()
	start := time.Now()
	sum, err := u.run(hctx, &q)
	q.State, q.Error, q.Result = UploadHarvested, "", nil
	if err != nil {
		q.State, q.Error = UploadFailed, oneLine(err.Error())
	}
	if sum != nil {
		q.Result, _ = json.Marshal(sum)
	}
	// Recorded even when the harvest used up the lease.
	fctx, cancelFinish := context.WithTimeout(ctx, 30*time.Second)
	defer cancelFinish()
	if err := u.queue.Finish(fctx, q); err != nil {
		u.log.Warn("finish upload", "team", q.Team, "upload", q.ID, "worker", worker, "err", err)
		return
	}
	u.log.Info("harvest", "team", q.Team, "upload", q.ID, "state", q.State, "sessions", q.Sessions,
		"ms", time.Since(start).Milliseconds(), "error", q.Error)
}

// run reads an upload's sessions and harvests them into its team's
// store with the rules; a panic is its error.
func (u *Uploads) run(ctx context.Context, q *lore.QueuedUpload) (sum *harvest.Summary, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("harvest panicked: %v", p)
		}
	}()
	st, err := u.teams.Team(ctx, q.Team)
	if err != nil {
		return nil, err
	}
	err = readUpload(ctx, q.Name, q.Body, transcript.Options{Messages: true}, func(sessions []*lore.Session) error {
		q.Sessions = len(sessions)
		if q.Repo != "" {
			for _, s := range sessions {
				s.Repo = q.Repo
			}
		}
		s, err := harvest.Run(ctx, sessions, harvest.Options{Store: st, Extractor: harvest.Rules{}, Workers: 1})
		sum = &s
		if err == nil && len(s.Problems) > 0 {
			err = fmt.Errorf("session %s: %s", s.Problems[0].Session, s.Problems[0].Error)
		}
		return err
	})
	return sum, err
}

// Recent lists a team's latest uploads, newest first.
func (u *Uploads) Recent(ctx context.Context, team string) ([]Upload, error) {
	qs, err := u.queue.Uploads(ctx, team, recentKept)
	if err != nil {
		return nil, err
	}
	out := make([]Upload, 0, len(qs))
	for _, q := range qs {
		out = append(out, uploadOf(q))
	}
	return out, nil
}

// Sessions reads the sessions of a team's uploads, without their
// messages, as measure takes them.
func (u *Uploads) Sessions(ctx context.Context, team string) ([]*lore.Session, error) {
	var out []*lore.Session
	err := u.queue.UploadBodies(ctx, team, func(q lore.QueuedUpload) error {
		// Queued only when it read once; one that no longer reads is left out.
		readUpload(ctx, q.Name, q.Body, transcript.Options{}, func(ss []*lore.Session) error {
			out = append(out, ss...)
			return nil
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return transcript.Dedupe(out), nil
}

// Queued is how many uploads of every team wait for harvest or are
// being harvested.
func (u *Uploads) Queued(ctx context.Context) (int, error) { return u.queue.Queued(ctx) }

// uploadName is what an upload's file may be called: its extension
// tells its format.
var uploadName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// binaryNames are files whose text the redactor cannot read through:
// databases (Cursor's) and compressed transcripts. The server takes
// none: what it keeps must have been redacted.
var binaryNames = []string{".db", ".vscdb", ".sqlite", ".zst", ".gz", ".zip"}

var redactor = redact.New()

func (s *Server) upload(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "name", "repo")
	if err != nil {
		return nil, err
	}
	repo := strings.TrimSpace(q.Get("repo"))
	if strings.ContainsAny(repo, " \t\r\n") {
		return nil, invalidf("repo %q: want owner/name", repo)
	}
	name := q.Get("name")
	if name == "" {
		name = "session.jsonl"
	}
	if !uploadName.MatchString(name) || strings.Contains(name, "..") {
		return nil, invalidf("name %q: want a file name (letters, digits, '.', '-', '_'), such as session.jsonl", name)
	}
	for _, ext := range binaryNames {
		if strings.HasSuffix(strings.ToLower(name), ext) {
			return nil, invalidf("name %q: upload a transcript as text; the server redacts text only", name)
		}
	}
	body, err := io.ReadAll(c.r.Body)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		return nil, invalidf("the body is empty: send the transcript")
	}
	if !utf8.Valid(body) || bytes.HasPrefix(body, []byte("SQLite format 3\x00")) {
		return nil, invalidf("the body is not UTF-8 text: upload a transcript as text; the server redacts text only")
	}
	// Redacted again on arrival, whatever the sender did.
	red, n := redactor.Count(string(body))
	redactions := 0
	for _, k := range n {
		redactions += k
	}
	up, err := s.uploads.Submit(ctx, c.token.Team, Upload{Name: name, Repo: repo, Redactions: redactions}, []byte(red))
	if err != nil {
		return nil, err
	}
	return accepted{up}, nil
}

// accepted answers 202 Accepted with v as JSON: an upload is harvested
// after the answer.
type accepted struct{ v any }

func (a accepted) write(w http.ResponseWriter) { writeJSON(w, http.StatusAccepted, a.v) }

// HarvestStatus is GET /v1/harvest's answer.
type HarvestStatus struct {
	// Queued is how many uploads of every team wait for harvest or are
	// being harvested.
	Queued int `json:"queued"`
	// Sessions counts the sessions the team's store holds a harvest
	// record of; LastHarvest is the latest record's time.
	Sessions    int        `json:"sessions_harvested"`
	LastHarvest *time.Time `json:"last_harvest"`
	Uploads     []Upload   `json:"uploads"`
}

func (s *Server) harvestStatus(ctx context.Context, c *call) (any, error) {
	if _, err := query(c.r); err != nil {
		return nil, err
	}
	queued, err := s.uploads.Queued(ctx)
	if err != nil {
		return nil, fmt.Errorf("harvest queue: %w", err)
	}
	out := HarvestStatus{Queued: queued}
	seen := map[string]bool{}
	err = c.store.Harvests(ctx, func(h lore.Harvest) error {
		if h.Extractor == lore.Forgotten || h.Extractor == lore.JournalImported {
			return nil
		}
		if !seen[h.Session] {
			seen[h.Session] = true
			out.Sessions++
		}
		if out.LastHarvest == nil || h.At.After(*out.LastHarvest) {
			at := h.At
			out.LastHarvest = &at
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("harvest records: %w", err)
	}
	if out.Uploads, err = s.uploads.Recent(ctx, c.token.Team); err != nil {
		return nil, err
	}
	if out.Uploads == nil {
		out.Uploads = []Upload{}
	}
	return out, nil
}
