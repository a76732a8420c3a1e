package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	// State is queued, harvested or failed.
	State    string           `json:"state"`
	Sessions int              `json:"sessions"`
	Harvest  *harvest.Summary `json:"harvest,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// The states of an upload.
const (
	UploadQueued    = "queued"
	UploadHarvested = "harvested"
	UploadFailed    = "failed"
)

// Uploads keeps the transcripts teams upload, redacted, and harvests
// them into the team's store. It is the seam a queue with workers
// replaces SyncUploads at.
type Uploads interface {
	// Submit takes a team's transcript, redacted already, and returns
	// up as it now stands. up.Name is its file name, by which its format
	// is told.
	Submit(ctx context.Context, team string, up Upload, body []byte) (Upload, error)
	// Recent lists a team's latest uploads, newest first.
	Recent(ctx context.Context, team string) ([]Upload, error)
	// Sessions lists the sessions of a team's uploads, without their
	// messages, as measure takes them.
	Sessions(ctx context.Context, team string) ([]*lore.Session, error)
	// Queued is how many uploads of every team wait for harvest.
	Queued() int
}

// SyncUploads keeps each team's uploads as files in a folder of its
// own, and harvests each with the rules as it arrives, before the
// upload is answered: nothing waits, so Queued is 0. What it remembers
// of recent uploads is lost when the server stops; the harvest records
// stay in the store.
type SyncUploads struct {
	teams lore.Teams
	dir   string

	mu     sync.Mutex
	recent map[string][]Upload
}

// recentKept is how many uploads of a team SyncUploads remembers.
const recentKept = 100

// NewSyncUploads keeps uploads under dir, a folder per team.
func NewSyncUploads(teams lore.Teams, dir string) *SyncUploads {
	return &SyncUploads{teams: teams, dir: dir, recent: map[string][]Upload{}}
}

var _ Uploads = (*SyncUploads)(nil)

// Submit stores the transcript as <dir>/<team>/<hash>-<name> and
// harvests it into the team's store.
func (u *SyncUploads) Submit(ctx context.Context, team string, up Upload, body []byte) (Upload, error) {
	sum := sha256.Sum256(body)
	up.ID, up.Bytes, up.Received, up.State = hex.EncodeToString(sum[:8]), len(body), time.Now().UTC(), UploadQueued
	name := up.Name
	dir := filepath.Join(u.dir, team)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return up, fmt.Errorf("keep upload: %w", err)
	}
	path := filepath.Join(dir, up.ID+"-"+name)
	if err := writeNew(path, body); err != nil {
		return up, fmt.Errorf("keep upload: %w", err)
	}
	st, err := u.teams.Team(ctx, team)
	if err != nil {
		return up, err
	}
	// A client that goes away does not cut a harvest in half; the
	// server's shutdown waits for it.
	ctx = context.WithoutCancel(ctx)
	sessions, err := transcript.Read(ctx, path, transcript.Options{Messages: true, NoGit: true})
	if err == nil && len(sessions) == 0 {
		err = errors.New("no session in it")
	}
	if err != nil {
		os.Remove(path)
		return up, invalidf("%s is not a transcript lore reads: %s", name, oneLine(err.Error()))
	}
	up.Sessions = len(sessions)
	if up.Repo != "" {
		for _, s := range sessions {
			s.Repo = up.Repo
		}
	}
	s, err := harvest.Run(ctx, sessions, harvest.Options{Store: st, Extractor: harvest.Rules{}, Workers: 1})
	up.Harvest = &s
	if err != nil {
		up.State, up.Error = UploadFailed, oneLine(err.Error())
	} else {
		up.State = UploadHarvested
	}
	u.mu.Lock()
	u.recent[team] = append([]Upload{up}, u.recent[team][:min(len(u.recent[team]), recentKept-1)]...)
	u.mu.Unlock()
	return up, err
}

// writeNew writes a file readable by its owner only; one there already
// holds the same bytes (it is named by their hash).
func writeNew(path string, body []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// Recent lists the team's uploads since the server started, newest first.
func (u *SyncUploads) Recent(_ context.Context, team string) ([]Upload, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.recent[team]), nil
}

// Sessions reads the sessions of the team's uploads.
func (u *SyncUploads) Sessions(ctx context.Context, team string) ([]*lore.Session, error) {
	entries, err := os.ReadDir(filepath.Join(u.dir, team))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*lore.Session
	for _, e := range entries {
		ss, err := transcript.Read(ctx, filepath.Join(u.dir, team, e.Name()), transcript.Options{NoGit: true})
		if err != nil {
			continue // kept only when it was read once; one that no longer reads is left out
		}
		out = append(out, ss...)
	}
	return transcript.Dedupe(out), nil
}

// Queued is 0: SyncUploads harvests as uploads arrive.
func (u *SyncUploads) Queued() int { return 0 }

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
	up, err := s.opts.Uploads.Submit(ctx, c.token.Team, Upload{Name: name, Repo: repo, Redactions: redactions}, []byte(red))
	if err != nil {
		return nil, err
	}
	return up, nil
}

// HarvestStatus is GET /v1/harvest's answer.
type HarvestStatus struct {
	// Queued is how many uploads of every team wait for harvest.
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
	out := HarvestStatus{Queued: s.opts.Uploads.Queued()}
	seen := map[string]bool{}
	err := c.store.Harvests(ctx, func(h lore.Harvest) error {
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
	if out.Uploads, err = s.opts.Uploads.Recent(ctx, c.token.Team); err != nil {
		return nil, err
	}
	if out.Uploads == nil {
		out.Uploads = []Upload{}
	}
	return out, nil
}
