package prune

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Report is the shape of a state.db: its size, its sessions by state and
// by age, its messages and where the space goes.
type Report struct {
	Path      string `json:"path"`
	FileBytes int64  `json:"file_bytes"`
	// WALBytes is the size of the -wal file beside it (0 when none).
	WALBytes  int64 `json:"wal_bytes"`
	PageSize  int64 `json:"page_size"`
	Pages     int64 `json:"pages"`
	FreePages int64 `json:"free_pages"`
	FreeBytes int64 `json:"free_bytes"`

	Now              time.Time `json:"now"`
	LeakAfterSeconds int64     `json:"leak_after_seconds"`

	Sessions int `json:"sessions"`
	Ended    int `json:"ended"`
	Open     int `json:"open"`
	// Leaked sessions are open and idle (no message, nor start) for
	// longer than the leak threshold: the agent crashed or was killed.
	Leaked int `json:"leaked"`
	// Children have a parent session; BrokenLinks name a parent that is
	// not there.
	Children    int `json:"children"`
	BrokenLinks int `json:"broken_parent_links"`
	// OldestActivity and NewestActivity bound the sessions' last activity.
	OldestActivity time.Time `json:"oldest_activity"`
	NewestActivity time.Time `json:"newest_activity"`

	Messages int            `json:"messages"`
	ByRole   map[string]int `json:"messages_by_role"`
	// ContentBytes is the bytes (not characters) of messages.content.
	ContentBytes       int64            `json:"content_bytes"`
	ContentBytesByRole map[string]int64 `json:"content_bytes_by_role"`
	// OrphanMessages belong to no session in the sessions table.
	OrphanMessages int `json:"orphan_messages"`
	// SystemPromptBytes is the bytes of sessions.system_prompt, which
	// repeats from session to session.
	SystemPromptBytes int64 `json:"system_prompt_bytes"`

	// Ages sorts sessions by last activity: the latest of their start,
	// last message and end.
	Ages []AgeBucket `json:"ages"`
	// Largest are the sessions with the most message content.
	Largest []SessionSize `json:"largest_sessions"`
	// Space is the bytes each table takes with its indexes (FTS tables
	// with their shadow tables), largest first; empty when SQLite lacks
	// the dbstat table.
	Space []Space `json:"space,omitempty"`

	Schema Shape `json:"schema"`
}

// AgeBucket is the sessions whose last activity is younger than
// MaxAgeSeconds (0 for the last bucket, which has the rest).
type AgeBucket struct {
	Label         string `json:"label"`
	MaxAgeSeconds int64  `json:"max_age_seconds"`
	Sessions      int    `json:"sessions"`
	Open          int    `json:"open"`
	Leaked        int    `json:"leaked"`
	Messages      int    `json:"messages"`
	ContentBytes  int64  `json:"content_bytes"`
}

// SessionSize is one session's size.
type SessionSize struct {
	ID           string    `json:"id"`
	Source       string    `json:"source,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	Messages     int       `json:"messages"`
	ContentBytes int64     `json:"content_bytes"`
	Started      time.Time `json:"started_at"`
	LastActivity time.Time `json:"last_activity"`
	Open         bool      `json:"open"`
}

// Space is what one table takes on disk.
type Space struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// Shape sums up the schema.
type Shape struct {
	Version         int        `json:"version"`
	HasVersion      bool       `json:"has_version"`
	Summary         string     `json:"summary"`
	SessionsColumns []string   `json:"sessions_columns"`
	MessagesColumns []string   `json:"messages_columns"`
	FTS             []FTSShape `json:"fts"`
	StateMeta       bool       `json:"state_meta"`
	ParentColumn    string     `json:"parent_column,omitempty"`
	ExtraTables     []string   `json:"extra_tables,omitempty"`
}

// FTSShape is one FTS table in brief.
type FTSShape struct {
	Name      string  `json:"name"`
	Kind      FTSKind `json:"kind"`
	Tokenizer string  `json:"tokenizer"`
	Triggers  int     `json:"triggers"`
}

// ageLimits are the upper bounds of the age buckets; the last bucket has
// no bound.
var ageLimits = []struct {
	label string
	max   time.Duration
}{
	{"<1d", 24 * time.Hour},
	{"<7d", 7 * 24 * time.Hour},
	{"<30d", 30 * 24 * time.Hour},
	{"<90d", 90 * 24 * time.Hour},
	{"<365d", 365 * 24 * time.Hour},
	{"older", 0},
}

// largestCount is how many of the largest sessions a report lists.
const largestCount = 10

// Stats reports the shape of the state.db db reads, as of now: sessions
// open longer than leakAfter without activity count as leaked. It reads
// in one read transaction and changes nothing.
func Stats(ctx context.Context, db *sql.DB, now time.Time, leakAfter time.Duration) (Report, error) {
	if leakAfter <= 0 {
		return Report{}, errors.New("stats: the leak threshold must be positive")
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Report{}, fmt.Errorf("stats: %w", err)
	}
	defer tx.Rollback()
	s, err := Inspect(ctx, tx)
	if err != nil {
		return Report{}, err
	}
	if err := s.Check(); err != nil {
		return Report{}, err
	}
	r := Report{Now: now, LeakAfterSeconds: int64(leakAfter / time.Second), ByRole: map[string]int{}, ContentBytesByRole: map[string]int64{}}
	r.Schema = shape(s)
	if err := r.file(ctx, tx); err != nil {
		return Report{}, fmt.Errorf("stats: %w", err)
	}
	if err := r.rows(ctx, tx, s, leakAfter); err != nil {
		return Report{}, fmt.Errorf("stats: %w", err)
	}
	if r.Space, err = space(ctx, tx, s); err != nil {
		return Report{}, fmt.Errorf("stats: %w", err)
	}
	return r, nil
}

func shape(s Schema) Shape {
	sh := Shape{
		Version: s.Version, HasVersion: s.HasVersion, Summary: s.Summary(),
		SessionsColumns: s.Sessions.ColumnNames(), MessagesColumns: s.Messages.ColumnNames(),
		StateMeta: s.StateMeta, ParentColumn: s.ParentColumn, FTS: []FTSShape{},
	}
	for _, f := range s.FTS {
		sh.FTS = append(sh.FTS, FTSShape{Name: f.Name, Kind: f.Kind, Tokenizer: f.Tokenizer, Triggers: len(f.Triggers)})
	}
	for _, t := range s.Extra {
		sh.ExtraTables = append(sh.ExtraTables, t.Name)
	}
	return sh
}

// file reads the file's size and pages.
func (r *Report) file(ctx context.Context, q Querier) error {
	rows, err := q.QueryContext(ctx, `SELECT name, file FROM pragma_database_list`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name, file string
		if err := rows.Scan(&name, &file); err != nil {
			rows.Close()
			return err
		}
		if name == "main" {
			r.Path = file
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if r.Path != "" {
		if fi, err := os.Stat(r.Path); err == nil {
			r.FileBytes = fi.Size()
		}
		if fi, err := os.Stat(r.Path + "-wal"); err == nil {
			r.WALBytes = fi.Size()
		}
	}
	for _, p := range []struct {
		pragma string
		dst    *int64
	}{{"page_size", &r.PageSize}, {"page_count", &r.Pages}, {"freelist_count", &r.FreePages}} {
		if err := q.QueryRowContext(ctx, "SELECT * FROM pragma_"+p.pragma).Scan(p.dst); err != nil {
			return fmt.Errorf("%s: %w", p.pragma, err)
		}
	}
	r.FreeBytes = r.FreePages * r.PageSize
	return nil
}

// quote quotes an identifier for SQL.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// sessionRow is what rows gathers about one session.
type sessionRow struct {
	SessionSize
	ended   bool
	endedAt time.Time
	last    time.Time // last message
}

// rows counts sessions and messages: one pass over the sessions, one over
// the messages grouped by session and role (the index on session_id
// serves it; octet_length reads no text).
func (r *Report) rows(ctx context.Context, q Querier, s Schema, leakAfter time.Duration) error {
	src, parent, prompt := "NULL", "NULL", "NULL"
	if s.Sessions.Has("source") {
		src = "source"
	}
	if s.ParentColumn != "" {
		parent = quote(s.ParentColumn)
	}
	if s.Sessions.Has("system_prompt") {
		prompt = "octet_length(system_prompt)"
	}
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT id, %s, %s, started_at, ended_at, %s FROM %s`,
		src, parent, prompt, quote(s.Sessions.Name)))
	if err != nil {
		return fmt.Errorf("read sessions: %w", err)
	}
	byID := map[string]*sessionRow{}
	var list []*sessionRow
	for rows.Next() {
		var id, source, par sql.NullString
		var started, ended any
		var promptBytes sql.NullInt64
		if err := rows.Scan(&id, &source, &par, &started, &ended, &promptBytes); err != nil {
			rows.Close()
			return fmt.Errorf("read sessions: %w", err)
		}
		sr := &sessionRow{SessionSize: SessionSize{ID: id.String, Source: source.String, Parent: par.String, Started: epoch(started)}}
		sr.ended = ended != nil
		sr.endedAt = epoch(ended)
		r.SystemPromptBytes += promptBytes.Int64
		byID[sr.ID] = sr
		list = append(list, sr)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read sessions: %w", err)
	}

	rows, err = q.QueryContext(ctx, fmt.Sprintf(`SELECT %[1]s, role, count(*), max(timestamp), sum(octet_length(content)) FROM %[2]s GROUP BY %[1]s, role`,
		quote(s.SessionColumn), quote(s.Messages.Name)))
	if err != nil {
		return fmt.Errorf("read messages: %w", err)
	}
	for rows.Next() {
		var sid, role sql.NullString
		var n int
		var last any
		var bytes sql.NullInt64
		if err := rows.Scan(&sid, &role, &n, &last, &bytes); err != nil {
			rows.Close()
			return fmt.Errorf("read messages: %w", err)
		}
		r.Messages += n
		r.ByRole[role.String] += n
		r.ContentBytes += bytes.Int64
		r.ContentBytesByRole[role.String] += bytes.Int64
		sr := byID[sid.String]
		if !sid.Valid || sr == nil {
			r.OrphanMessages += n
			continue
		}
		sr.Messages += n
		sr.ContentBytes += bytes.Int64
		if t := epoch(last); t.After(sr.last) {
			sr.last = t
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read messages: %w", err)
	}

	for _, l := range ageLimits {
		r.Ages = append(r.Ages, AgeBucket{Label: l.label, MaxAgeSeconds: int64(l.max / time.Second)})
	}
	for _, sr := range list {
		r.Sessions++
		idle := sr.Started
		if sr.last.After(idle) {
			idle = sr.last
		}
		sr.LastActivity = idle
		if sr.endedAt.After(sr.LastActivity) {
			sr.LastActivity = sr.endedAt
		}
		leaked := false
		if sr.ended {
			r.Ended++
		} else {
			r.Open++
			sr.Open = true
			if r.Now.Sub(idle) > leakAfter {
				leaked = true
				r.Leaked++
			}
		}
		if sr.Parent != "" {
			r.Children++
			if byID[sr.Parent] == nil {
				r.BrokenLinks++
			}
		}
		if r.OldestActivity.IsZero() || sr.LastActivity.Before(r.OldestActivity) {
			r.OldestActivity = sr.LastActivity
		}
		if sr.LastActivity.After(r.NewestActivity) {
			r.NewestActivity = sr.LastActivity
		}
		b := &r.Ages[ageBucket(r.Now.Sub(sr.LastActivity))]
		b.Sessions++
		b.Messages += sr.Messages
		b.ContentBytes += sr.ContentBytes
		if sr.Open {
			b.Open++
		}
		if leaked {
			b.Leaked++
		}
	}
	slices.SortStableFunc(list, func(a, b *sessionRow) int {
		return cmp.Or(cmp.Compare(b.ContentBytes, a.ContentBytes), cmp.Compare(b.Messages, a.Messages), cmp.Compare(a.ID, b.ID))
	})
	r.Largest = []SessionSize{}
	for _, sr := range list[:min(largestCount, len(list))] {
		r.Largest = append(r.Largest, sr.SessionSize)
	}
	return nil
}

// ageBucket returns the index of the bucket for an age; ages below zero
// (a clock set back) count as the youngest.
func ageBucket(age time.Duration) int {
	for i, l := range ageLimits {
		if l.max == 0 || age < l.max {
			return i
		}
	}
	return len(ageLimits) - 1
}

// epoch reads a timestamp column: REAL epoch seconds as Hermes writes
// them, integers, or numbers stored as text. Anything else is zero.
func epoch(v any) time.Time {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case string:
		f, _ = strconv.ParseFloat(strings.TrimSpace(x), 64)
	case []byte:
		f, _ = strconv.ParseFloat(strings.TrimSpace(string(x)), 64)
	case time.Time:
		return x.UTC()
	default:
		return time.Time{}
	}
	if f <= 0 || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e11 {
		return time.Time{}
	}
	return time.UnixMicro(int64(math.Round(f * 1e6))).UTC()
}

// space sums dbstat's pages by table: indexes count with their table,
// shadow tables with their FTS table. A build of SQLite without dbstat
// gives no space report rather than an error.
func space(ctx context.Context, q Querier, s Schema) ([]Space, error) {
	rows, err := q.QueryContext(ctx, `SELECT d.name, coalesce(m.tbl_name, d.name), d.pgsize FROM dbstat('main', 1) AS d LEFT JOIN sqlite_master AS m ON m.name = d.name`)
	if err != nil {
		if strings.Contains(err.Error(), "no such table") {
			return nil, nil
		}
		return nil, err
	}
	defer rows.Close()
	owners := map[string]string{}
	for _, f := range s.FTS {
		for _, suffix := range []string{"_data", "_idx", "_content", "_docsize", "_config"} {
			owners[strings.ToLower(f.Name+suffix)] = f.Name
		}
	}
	sums := map[string]int64{}
	for rows.Next() {
		var name, table string
		var size int64
		if err := rows.Scan(&name, &table, &size); err != nil {
			return nil, err
		}
		if o, ok := owners[strings.ToLower(table)]; ok {
			table = o
		}
		sums[table] += size
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Space, 0, len(sums))
	for n, b := range sums {
		out = append(out, Space{Name: n, Bytes: b})
	}
	slices.SortFunc(out, func(a, b Space) int { return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(a.Name, b.Name)) })
	return out, nil
}
