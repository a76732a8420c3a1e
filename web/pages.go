package web

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/improve"
	"github.com/lorehq/lore/measure"
)

func (v *view) dashboard(w http.ResponseWriter, r *http.Request) {
	v.render(w, r, http.StatusOK, "dashboard", "Dashboard", v.opts.Sessions != nil)
}

// dashboardFresh is how long a computed dashboard is shown again before
// it is computed anew: computing reads every session's transcript.
const dashboardFresh = time.Minute

// dashboardCache keeps the last dashboard computed, and lets one request
// at a time compute it.
type dashboardCache struct {
	mu   sync.Mutex
	at   time.Time
	page []byte
}

// dashboardFrame is measure's dashboard page, computed from the store and
// the sessions as lore dashboard computes it (with lore improve's rounds
// on the repository of ImproveDir), without the replay (which harvests
// every session again: too slow for a page); at most once a minute.
func (v *view) dashboardFrame(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	c := &v.dash
	c.mu.Lock()
	defer c.mu.Unlock()
	now := v.opts.Now()
	if c.page == nil || now.Sub(c.at) >= dashboardFresh || now.Before(c.at) {
		var sessions []*lore.Session
		if v.opts.Sessions != nil {
			var err error
			if sessions, err = v.opts.Sessions(ctx); err != nil {
				v.fail(w, r, fmt.Errorf("read sessions: %w", err))
				return
			}
		}
		m, err := measure.Compute(ctx, sessions, v.store, measure.Options{Now: now})
		if err != nil {
			v.fail(w, r, fmt.Errorf("measure: %w", err))
			return
		}
		m.Improve = measure.ImproveRounds(ctx, v.opts.ImproveDir)
		var b bytes.Buffer
		if err := measure.RenderDashboard(&b, m); err != nil {
			v.fail(w, r, err)
			return
		}
		c.page, c.at = b.Bytes(), now
	}
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(c.page)
}

// journalBody is the journal's page.
type journalBody struct {
	Has      bool // the store keeps a journal
	Query    lore.AttemptQuery
	Outcome  string
	Attempts []lore.Attempt
	Hits     []lore.AttemptHit
	More     bool
}

// errEnough stops a walk through the attempts once a page is full.
var errEnough = errors.New("enough")

// journalLimit caps the attempts listed.
const journalLimit = 100

func (v *view) journal(w http.ResponseWriter, r *http.Request) {
	j, ok := v.store.(lore.Journal)
	b := journalBody{Has: ok}
	q := r.URL.Query()
	b.Query = lore.AttemptQuery{Text: strings.TrimSpace(q.Get("q")), Repo: strings.TrimSpace(q.Get("repo")), Outcome: q.Get("outcome"), Limit: 20}
	if ok && b.Query.Text != "" {
		hits, err := j.SimilarAttempts(r.Context(), b.Query)
		if err != nil {
			v.fail(w, r, fmt.Errorf("similar attempts: %w", err))
			return
		}
		b.Hits = hits
	} else if ok {
		f := lore.AttemptFilter{Repo: b.Query.Repo, Outcome: b.Query.Outcome, File: strings.TrimSpace(q.Get("file"))}
		err := j.Attempts(r.Context(), f, func(a lore.Attempt) error {
			if len(b.Attempts) == journalLimit {
				b.More = true
				return errEnough
			}
			b.Attempts = append(b.Attempts, a)
			return nil
		})
		if err != nil && err != errEnough {
			v.fail(w, r, fmt.Errorf("attempts: %w", err))
			return
		}
	}
	v.render(w, r, http.StatusOK, "journal", "Journal", b)
}

// improveBody is the improve page: lore improve status's report.
type improveBody struct {
	Dir    string
	Report string
	Error  string
	At     time.Time
}

func (v *view) improve(w http.ResponseWriter, r *http.Request) {
	b := improveBody{Dir: v.opts.ImproveDir, At: v.opts.Now()}
	if b.Dir != "" {
		s, st, err := improve.ReadStatus(r.Context(), b.Dir)
		if err != nil {
			b.Error = err.Error()
		} else {
			b.Report = improve.Report(s, st)
		}
	}
	v.render(w, r, http.StatusOK, "improve", "Improve", b)
}
