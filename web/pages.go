package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/improve"
	"github.com/lorehq/lore/internal/redact"
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

// listedCache keeps the sessions Options.Sessions listed last, for the
// dashboard and the sessions page, and lets one request at a time list
// them.
type listedCache struct {
	mu       sync.Mutex
	at       time.Time
	sessions []*lore.Session
	byID     map[string]*lore.Session
}

// listedSessions are the sessions Options.Sessions lists (their counts,
// not their messages), listed again at most once a minute: listing reads
// every transcript.
func (v *view) listedSessions(ctx context.Context) ([]*lore.Session, error) {
	ss, _, err := v.listed.get(ctx, v.opts)
	return ss, err
}

func (c *listedCache) get(ctx context.Context, opts Options) ([]*lore.Session, map[string]*lore.Session, error) {
	if opts.Sessions == nil {
		return nil, nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := opts.Now()
	if c.byID == nil || now.Sub(c.at) >= dashboardFresh || now.Before(c.at) {
		ss, err := opts.Sessions(ctx)
		if err != nil {
			return nil, nil, err
		}
		c.sessions, c.byID, c.at = ss, make(map[string]*lore.Session, len(ss)), now
		for _, s := range ss {
			c.byID[s.ID] = s
		}
	}
	return c.sessions, c.byID, nil
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
		sessions, err := v.listedSessions(ctx)
		if err != nil {
			v.fail(w, r, fmt.Errorf("read sessions: %w", err))
			return
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

// improveBody is the improve page: lore improve status's report, the
// changes waiting for a person with their diffs, and the escalation
// reports.
type improveBody struct {
	Dir         string
	Report      string
	Error       string
	Message     string
	Pending     []pendingChange
	Escalations []escalation
	At          time.Time
}

// pendingChange is a held change as the page shows it.
type pendingChange struct {
	improve.Pending
	BeforeTotal, AfterTotal float64
	Diff                    string // redacted, cut at maxText
}

type escalation struct {
	improve.Escalation
	Text string // the report, redacted, cut at maxText
}

func (v *view) improve(w http.ResponseWriter, r *http.Request) {
	msg := ""
	q := r.URL.Query()
	if n, err := strconv.Atoi(q.Get("approved")); err == nil {
		msg = fmt.Sprintf("Approved change %d: it is on the loop's branch.", n)
	} else if n, err := strconv.Atoi(q.Get("rejected")); err == nil {
		msg = fmt.Sprintf("Rejected change %d.", n)
	}
	v.showImprove(w, r, http.StatusOK, msg)
}

func (v *view) showImprove(w http.ResponseWriter, r *http.Request, code int, msg string) {
	b := improveBody{Dir: v.opts.ImproveDir, At: v.opts.Now(), Message: msg}
	if b.Dir != "" {
		s, st, err := improve.ReadStatus(r.Context(), b.Dir)
		if err != nil {
			b.Error = err.Error()
		} else {
			b.Report = improve.Report(s, st)
			for _, p := range s.Pending {
				bt, _ := p.Before.Total()
				at, _ := p.After.Total()
				b.Pending = append(b.Pending, pendingChange{Pending: p, BeforeTotal: bt, AfterTotal: at, Diff: readText(p.Patch)})
			}
			for _, e := range s.Escalations {
				b.Escalations = append(b.Escalations, escalation{Escalation: e, Text: readText(e.Report)})
			}
		}
	}
	v.render(w, r, code, "improve", "Improve", b)
}

// readText is a file lore improve wrote (a patch, a report), redacted
// and cut for a page; "" when it is gone.
func readText(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4*maxText))
	t := pageRedactor.String(strings.ToValidUTF8(string(b), "\uFFFD"))
	if len(t) > maxText {
		t = t[:redact.Cut(t, maxText)] + "\n… (cut here: " + path + " holds it whole)"
	}
	return t
}

var pageRedactor = redact.New()

// decideChange approves or rejects a held change, as lore improve
// approve and reject do: an approval puts it on the loop's branch, after
// running the bench again when the branch has moved (the page answers
// when that is done).
func (v *view) decideChange(w http.ResponseWriter, r *http.Request) {
	if v.opts.ImproveDir == "" {
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "this view has no repository for lore improve"))
		return
	}
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "%q is not a pending change's number", r.PathValue("n")))
		return
	}
	switch r.PathValue("action") {
	case "approve":
		if _, err := improve.Approve(r.Context(), v.opts.ImproveDir, n, improve.DefaultBenchTimeout); err != nil {
			v.showImprove(w, r, http.StatusConflict, fmt.Sprintf("Change %d was not approved: %v", n, err))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/improve?approved=%d", n), http.StatusSeeOther)
	case "reject":
		if err := improve.Reject(r.Context(), v.opts.ImproveDir, n); err != nil {
			v.showImprove(w, r, http.StatusConflict, fmt.Sprintf("Change %d was not rejected: %v", n, err))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/improve?rejected=%d", n), http.StatusSeeOther)
	default:
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "no action %q", r.PathValue("action")))
	}
}
