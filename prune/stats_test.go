package prune_test

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/testenv"
	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/hermesdb"
)

// want is what a report should say of a generated database, worked out
// from the generator's own account of what it wrote.
func want(sum hermesdb.Summary, now time.Time, leakAfter time.Duration) prune.Report {
	r := prune.Report{Sessions: sum.Sessions, Ended: sum.Ended, Open: sum.Open, Children: sum.Children,
		Messages: sum.Messages, ByRole: sum.ByRole, ContentBytes: sum.ContentBytes}
	limits := []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour, 90 * 24 * time.Hour, 365 * 24 * time.Hour}
	r.Ages = make([]prune.AgeBucket, 6)
	for _, s := range sum.SessionList {
		idle := s.Started
		if s.LastMessage.After(idle) {
			idle = s.LastMessage
		}
		leaked := s.Ended.IsZero() && now.Sub(idle) > leakAfter
		if leaked {
			r.Leaked++
		}
		age := now.Sub(s.LastActivity())
		i := slices.IndexFunc(limits, func(l time.Duration) bool { return age < l })
		if i < 0 {
			i = 5
		}
		b := &r.Ages[i]
		b.Sessions++
		b.Messages += s.Messages
		b.ContentBytes += s.ContentBytes
		if s.Ended.IsZero() {
			b.Open++
		}
		if leaked {
			b.Leaked++
		}
	}
	list := slices.Clone(sum.SessionList)
	slices.SortStableFunc(list, func(a, b hermesdb.Session) int {
		return cmp.Or(cmp.Compare(b.ContentBytes, a.ContentBytes), cmp.Compare(b.Messages, a.Messages), cmp.Compare(a.ID, b.ID))
	})
	for _, s := range list[:min(10, len(list))] {
		r.Largest = append(r.Largest, prune.SessionSize{ID: s.ID, Messages: s.Messages, ContentBytes: s.ContentBytes})
	}
	return r
}

func TestStats(t *testing.T) {
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	span := 500 * 24 * time.Hour
	now := start.Add(span).Add(12 * time.Hour)
	leakAfter := 7 * 24 * time.Hour
	for _, v := range hermesdb.Versions {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			if v != hermesdb.Versions[len(hermesdb.Versions)-1] {
				testenv.SkipUnlessSlow(t, "an older schema") // the newest always runs
			}
			o := hermesdb.Options{Version: v, Sessions: 300, MessagesPerSession: 9, Leaked: 0.83, Parents: 0.1, Seed: 11, Start: start, Span: span}
			if v >= 11 {
				o.ContentScale = 0.3 // the trigram index is slow to build
			}
			path, sum := generate(t, o)
			r, err := prune.Stats(context.Background(), open(t, path), now, leakAfter)
			if err != nil {
				t.Fatal(err)
			}
			w := want(sum, now, leakAfter)
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"sessions", r.Sessions, w.Sessions}, {"ended", r.Ended, w.Ended}, {"open", r.Open, w.Open},
				{"leaked", r.Leaked, w.Leaked}, {"children", r.Children, w.Children}, {"broken links", r.BrokenLinks, 0},
				{"messages", r.Messages, w.Messages}, {"content bytes", r.ContentBytes, w.ContentBytes},
				{"orphans", r.OrphanMessages, 0}, {"version", r.Schema.Version, v},
				{"file bytes", r.FileBytes, sum.FileBytes}, {"pages × page size", r.Pages * r.PageSize, sum.FileBytes},
				{"leak after", r.LeakAfterSeconds, int64(leakAfter / time.Second)},
			} {
				if c.got != c.want {
					t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
				}
			}
			if !maps(r.ByRole, w.ByRole) {
				t.Errorf("by role %v, want %v", r.ByRole, w.ByRole)
			}
			var byRole int64
			for _, b := range r.ContentBytesByRole {
				byRole += b
			}
			if byRole != r.ContentBytes {
				t.Errorf("content by role sums to %d of %d", byRole, r.ContentBytes)
			}
			if r.Leaked == 0 || r.Leaked == r.Open {
				t.Errorf("%d leaked of %d open: want some recent open sessions that are not leaked", r.Leaked, r.Open)
			}
			if len(r.Ages) != 6 || r.Ages[0].Label != "<1d" || r.Ages[5].Label != "older" {
				t.Fatalf("age buckets %+v", r.Ages)
			}
			for i := range r.Ages {
				g, x := r.Ages[i], w.Ages[i]
				if g.Sessions != x.Sessions || g.Open != x.Open || g.Leaked != x.Leaked || g.Messages != x.Messages || g.ContentBytes != x.ContentBytes {
					t.Errorf("bucket %s: %+v, want %+v", g.Label, g, x)
				}
			}
			if r.Ages[5].Sessions == 0 || r.Ages[2].Sessions == 0 {
				t.Errorf("age buckets %+v: want sessions older than a year and under a month", r.Ages)
			}
			if len(r.Largest) != 10 {
				t.Fatalf("%d largest sessions", len(r.Largest))
			}
			for i, s := range r.Largest {
				x := w.Largest[i]
				if s.ID != x.ID || s.Messages != x.Messages || s.ContentBytes != x.ContentBytes || s.Source == "" {
					t.Errorf("largest %d: %+v, want %+v", i, s, x)
				}
			}
			if r.SystemPromptBytes < int64(sum.Sessions)*8_000 {
				t.Errorf("system prompts %d bytes for %d sessions", r.SystemPromptBytes, sum.Sessions)
			}
			fts := map[int]int{2: 1, 6: 1, 11: 2}[v]
			if len(r.Schema.FTS) != fts || r.Schema.StateMeta != (v == 11) {
				t.Errorf("schema shape %+v", r.Schema)
			}
			names := map[string]bool{}
			var total int64
			for _, s := range r.Space {
				names[s.Name] = true
				total += s.Bytes
			}
			if !names["messages"] || !names["sessions"] || !names["messages_fts"] || names["messages_fts_data"] {
				t.Errorf("space %+v: want messages, sessions and messages_fts (with its shadow tables)", r.Space)
			}
			if total > r.FileBytes || total < r.FileBytes-r.FreeBytes-4*r.PageSize {
				t.Errorf("space sums to %d of a %d-byte file (%d free)", total, r.FileBytes, r.FreeBytes)
			}
		})
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestStatsBrokenLinksAndOrphans(t *testing.T) {
	path, sum := generate(t, hermesdb.Options{Version: 2, Sessions: 20, Seed: 5})
	exec(t, path,
		`INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES ('lost_child', 'cli', 1.7e9, 'gone')`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('nobody', 'user', 'héllo', 1.7e9), ('nobody', 'assistant', NULL, 1.7e9)`,
	)
	r, err := prune.Stats(context.Background(), open(t, path), time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sessions != sum.Sessions+1 || r.BrokenLinks != 1 || r.OrphanMessages != 2 || r.Messages != sum.Messages+2 ||
		r.ContentBytes != sum.ContentBytes+6 {
		t.Errorf("sessions %d, broken %d, orphans %d, messages %d, bytes %d (generated %d sessions, %d messages, %d bytes)",
			r.Sessions, r.BrokenLinks, r.OrphanMessages, r.Messages, r.ContentBytes, sum.Sessions, sum.Messages, sum.ContentBytes)
	}
}

func TestStatsRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	exec(t, path, `CREATE TABLE notes (id INTEGER)`)
	db := open(t, path)
	if _, err := prune.Stats(context.Background(), db, time.Now(), time.Hour); !errors.Is(err, prune.ErrNotStateDB) {
		t.Errorf("stats of a database with no sessions: %v", err)
	}
	good, _ := generate(t, hermesdb.Options{Version: 2, Sessions: 2})
	if _, err := prune.Stats(context.Background(), open(t, good), time.Now(), 0); err == nil {
		t.Error("no error for a leak threshold of 0")
	}
}

func TestOpenReadOnly(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := prune.OpenReadOnly(ctx, filepath.Join(dir, "none.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := prune.OpenReadOnly(ctx, dir); err == nil || !strings.Contains(err.Error(), "folder") {
		t.Errorf("folder: %v", err)
	}
	for name, data := range map[string]string{"empty.db": "", "text.db": strings.Repeat("not sqlite\n", 20)} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o600)
		if _, err := prune.OpenReadOnly(ctx, p); !errors.Is(err, prune.ErrNotStateDB) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A database an agent has open (WAL with -wal and -shm beside it) is read
// through its WAL: rows not yet checkpointed are counted, and the main
// file is left as it was.
func TestStatsWhileAgentWrites(t *testing.T) {
	path, sum := generate(t, hermesdb.Options{Version: 11, Sessions: 10, Seed: 2})
	agent, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)&_pragma=foreign_keys(1)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	agent.SetMaxOpenConns(1)
	if _, err := agent.Exec(`INSERT INTO sessions (id, source, started_at) VALUES ('20260101_000000_abcdef', 'cli', 1767225600.5)`); err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260101_000000_abcdef', 'user', 'hi', 1767225601.25)`); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err != nil {
			t.Fatalf("the writer left no %s: %v", side, err)
		}
	}
	before, _ := os.ReadFile(path)
	r, err := prune.Stats(context.Background(), open(t, path), time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sessions != sum.Sessions+1 || r.Messages != sum.Messages+1 || r.WALBytes == 0 {
		t.Errorf("%d sessions, %d messages, WAL %d bytes: want the writer's rows counted", r.Sessions, r.Messages, r.WALBytes)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("stats changed the database file")
	}
	// The agent goes on writing after stats.
	if _, err := agent.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('20260101_000000_abcdef', 'assistant', 'hello', 1767225602)`); err != nil {
		t.Errorf("the agent cannot write after stats: %v", err)
	}
}

func BenchmarkStats(b *testing.B) {
	path, _ := generate(b, hermesdb.Options{Version: 6, Sessions: 500, Leaked: 0.83, Parents: 0.1, Seed: 1})
	db := open(b, path)
	now := time.Now()
	for b.Loop() {
		if _, err := prune.Stats(context.Background(), db, now, 7*24*time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}
