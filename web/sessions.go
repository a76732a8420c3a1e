package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/transcript"
)

// sessionsPage caps the sessions listed on a page.
const sessionsPage = 100

// sessionRow is a session as the sessions list shows it: what its
// harvests and boots recorded.
type sessionRow struct {
	ID, Agent, Path string
	Repo            string // from its boots: harvest records name none
	Harvested       time.Time
	Items           int      // items its harvests gave
	Extractors      []string // who harvested it
	Forgotten       bool
	Boots           int // contexts handed to it
	Handed          int // items in them
	Withheld        bool
	Last            time.Time
	// Listed is the session as the agents' transcripts list it (tool
	// calls, errors, outcome), when the view lists them and finds it.
	Listed *lore.Session
}

// knownSessions gathers the store's harvest and boot records by session,
// newest first; with only, of that session alone, and its boots.
func (v *view) knownSessions(ctx context.Context, only string) ([]*sessionRow, []lore.Boot, error) {
	var boots []lore.Boot
	rows := map[string]*sessionRow{}
	row := func(id string) *sessionRow {
		if r, ok := rows[id]; ok {
			return r
		}
		agent, _, _ := strings.Cut(id, ":")
		r := &sessionRow{ID: id, Agent: agent}
		rows[id] = r
		return r
	}
	err := v.store.Harvests(ctx, func(h lore.Harvest) error {
		if only != "" && h.Session != only {
			return nil
		}
		r := row(h.Session)
		switch h.Extractor {
		case lore.Forgotten:
			r.Forgotten = true
		case lore.JournalImported:
		default:
			r.Items += h.Items
			r.Extractors = append(r.Extractors, h.Extractor)
		}
		if h.Path != "" {
			r.Path = h.Path
		}
		r.Harvested = later(r.Harvested, h.At)
		r.Last = later(r.Last, h.At)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("harvest records: %w", err)
	}
	err = v.store.Boots(ctx, time.Time{}, func(b lore.Boot) error {
		if b.Session == "" || only != "" && b.Session != only {
			return nil
		}
		if only != "" {
			boots = append(boots, b)
		}
		r := row(b.Session)
		r.Boots++
		if b.Repo != "" {
			r.Repo = b.Repo
		}
		r.Handed += len(b.Items)
		r.Withheld = r.Withheld || b.Withheld
		r.Last = later(r.Last, b.At)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("boot records: %w", err)
	}
	out := make([]*sessionRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *sessionRow) int {
		return cmp.Or(b.Last.Compare(a.Last), cmp.Compare(a.ID, b.ID))
	})
	return out, boots, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

type sessionsBody struct {
	Sessions   []*sessionRow
	Listing    bool // the view lists the agents' transcripts
	Total      int
	Page       int
	Prev, Next string
}

func (v *view) sessions(w http.ResponseWriter, r *http.Request) {
	page := 1
	if s := r.URL.Query().Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			v.fail(w, r, lore.Errorf(lore.EINVALID, "page=%q: want a page number", s))
			return
		}
		page = n
	}
	all, _, err := v.knownSessions(r.Context(), "")
	if err != nil {
		v.fail(w, r, err)
		return
	}
	from := min((page-1)*sessionsPage, len(all))
	to := min(from+sessionsPage, len(all))
	b := sessionsBody{Sessions: all[from:to], Total: len(all), Page: page, Listing: v.opts.Sessions != nil}
	if _, byID, err := v.listed.get(r.Context(), v.opts); err != nil {
		v.log.Warn("list sessions", "error", err.Error()) // the store's records still show
	} else {
		for _, row := range b.Sessions {
			row.Listed = byID[row.ID]
		}
	}
	if page > 1 {
		b.Prev = "/sessions?page=" + strconv.Itoa(page-1)
	}
	if to < len(all) {
		b.Next = "/sessions?page=" + strconv.Itoa(page+1)
	}
	v.render(w, r, http.StatusOK, "sessions", "Sessions", b)
}

// sessionBody is one session's page.
type sessionBody struct {
	Row     *sessionRow
	Session *lore.Session // nil when its transcript could not be read
	Gone    string        // why it could not
	Boots   []lore.Boot
	Calls   map[string]*lore.ToolResult // each tool call's result, by call id
	Cited   map[string]bool             // the handed items the agent cited (lore:ID)
}

func (v *view) session(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("id")
	rows, boots, err := v.knownSessions(ctx, id)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	if len(rows) == 0 {
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "lore knows no session %q: it harvested none and booted none of that id", id))
		return
	}
	b := sessionBody{Row: rows[0], Boots: boots}
	b.Session, b.Gone = readSession(ctx, b.Row.Path, id)
	if b.Session != nil {
		b.Session.Redact()
		b.Calls = map[string]*lore.ToolResult{}
		for i := range b.Session.Messages {
			m := &b.Session.Messages[i]
			m.Text, m.Thinking = clip(m.Text), clip(m.Thinking)
			for j := range m.ToolCalls {
				m.ToolCalls[j].Input = clip(m.ToolCalls[j].Input)
			}
			for j := range m.ToolResults {
				res := &m.ToolResults[j]
				res.Output = clip(res.Output)
				b.Calls[res.CallID] = res
			}
		}
		b.Cited = cited(b.Session, b.Boots)
	}
	v.render(w, r, http.StatusOK, "session", "Session "+id, b)
}

// cited is which of the items handed to the session its agent cited, as
// measure's hit rate counts them.
func cited(s *lore.Session, boots []lore.Boot) map[string]bool {
	var prefixes []string
	for _, m := range s.Messages {
		if m.Role == lore.RoleAssistant {
			prefixes = append(prefixes, lore.Citations(m.Text)...)
		}
	}
	out := map[string]bool{}
	for _, b := range boots {
		for _, id := range b.Items {
			for _, p := range prefixes {
				if lore.Cites(p, id) {
					out[id] = true
				}
			}
		}
	}
	return out
}

// maxText caps each text a session's page shows: a tool's output can be
// megabytes, which a page need not carry.
const maxText = 16 << 10

// clip cuts a redacted text to maxText, never inside a secret's marker.
func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	return s[:redact.Cut(s, maxText)] + "\n… (cut here: lore sessions show ID --full prints it whole)"
}

// readSession reads the session id from its transcript at path, with
// its messages, or says why it cannot.
func readSession(ctx context.Context, path, id string) (*lore.Session, string) {
	if path == "" {
		return nil, "No transcript is recorded for this session: lore only handed it a context."
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, "Its transcript is gone: " + path + " no longer exists."
	}
	ss, err := transcript.Read(ctx, path, transcript.Options{Messages: true})
	if err != nil {
		return nil, fmt.Sprintf("Its transcript could not be read: %v", err)
	}
	for _, s := range ss {
		if s.ID == id {
			return s, ""
		}
	}
	return nil, "Its transcript, " + path + ", no longer holds it."
}
