package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
	"github.com/lorehq/lore/internal/neardup"
	"github.com/lorehq/lore/internal/storetest"
)

func open(t testing.TB, now func() time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) lore.Store { return open(t, now) })
}

// TestIndexStaysConsistent changes tags, deletes and forgets, then asks
// FTS5 to check its index and searches for what is gone.
func TestIndexStaysConsistent(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	ev := func(sess string) []lore.Evidence { return []lore.Evidence{{Session: sess, Position: 1}} }
	res, err := s.Add(ctx, []lore.Item{
		{Text: "The zebra service restarts nightly", Category: lore.CategoryFact, Tags: []string{"ops"}, Evidence: ev("s1")},
		{Text: "The yak cache is flushed on deploy", Category: lore.CategoryFact, Evidence: ev("s2")},
		{Text: "The walrus queue drops messages over 1 MB", Category: lore.CategoryPitfall, Evidence: ev("s3")},
	})
	if err != nil {
		t.Fatal(err)
	}
	// New tags on a stored item re-index it.
	if _, err := s.Add(ctx, []lore.Item{{Text: "The zebra service restarts nightly", Category: lore.CategoryFact, Tags: []string{"kangaroo"}, Evidence: ev("s4")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, res[1].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ForgetSession(ctx, "s3"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("full-text index inconsistent: %v", err)
	}
	var bands, orphans int
	if err := s.db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE band & ? NOT IN (SELECT rowid FROM items)) FROM bands`,
		bandItem).Scan(&bands, &orphans); err != nil || bands != 4 || orphans != 0 {
		t.Errorf("%d band keys, %d of deleted items (%v); want the 4 of the item left", bands, orphans, err)
	}
	for q, want := range map[string]int{"kangaroo": 1, "ops": 1, "zebra": 1, "yak": 0, "walrus": 0} {
		hits, err := s.Search(ctx, lore.Query{Text: q, Filter: lore.Filter{AnyStatus: true}})
		if err != nil || len(hits) != want {
			t.Errorf("Search(%q) = %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
}

// TestEditKeepsIndex: an edit re-indexes the item's text and tags, adds
// the band keys of its new text beside those of its old one, and deleting
// the item takes both away.
func TestEditKeepsIndex(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	res, err := s.Add(ctx, []lore.Item{
		{Text: "The zebra service restarts nightly", Category: lore.CategoryFact, Tags: []string{"ops"}},
		{Text: "The yak cache is flushed on deploy", Category: lore.CategoryFact},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, res[0].ID, lore.Decision{Action: lore.ReviewEdit, Text: "The okapi service restarts at noon", Hold: true}); err != nil {
		t.Fatal(err)
	}
	check := func(wantBands int) {
		t.Helper()
		if _, err := s.db.Exec(`INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
			t.Fatalf("full-text index inconsistent: %v", err)
		}
		var bands, orphans int
		if err := s.db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE band & ? NOT IN (SELECT rowid FROM items)) FROM bands`,
			bandItem).Scan(&bands, &orphans); err != nil || bands != wantBands || orphans != 0 {
			t.Errorf("%d band keys, %d of deleted items (%v); want %d", bands, orphans, err, wantBands)
		}
	}
	// The keys of the old and the new text (some may be the same), and
	// the other item's.
	keys := map[int64]bool{}
	for _, text := range []string{"The zebra service restarts nightly", "The okapi service restarts at noon"} {
		for _, k := range neardup.Of(lore.Item{Text: text, Category: lore.CategoryFact}).Keys {
			keys[k] = true
		}
	}
	if len(keys) <= dedup.Bands {
		t.Fatalf("the old and the new text share every band key")
	}
	check(len(keys) + dedup.Bands)
	for q, want := range map[string]int{"okapi noon": 1, lore.TagHeld: 1, "ops": 1, "zebra": 0, "yak": 1} {
		hits, err := s.Search(ctx, lore.Query{Text: q, Filter: lore.Filter{AnyStatus: true}})
		if err != nil || len(hits) != want {
			t.Errorf("Search(%q) = %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
	if err := s.Delete(ctx, res[0].ID); err != nil {
		t.Fatal(err)
	}
	check(dedup.Bands)
}

// TestBoundedSearch: a bounded search does not score every match of a
// common word when its filter leaves too few hits in the newest matches,
// and it uses the scope index rather than scanning every item for Best.
func TestBoundedSearch(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	items := []lore.Item{{Text: "The deploy script starts the vault", Category: lore.CategoryFact, Repo: "acme/old"}}
	for i := range commonAt + window {
		items = append(items, lore.Item{Text: fmt.Sprintf("The deploy script of service %d starts after the database", i), Category: lore.CategoryFact})
	}
	if _, err := s.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	q := lore.Query{Text: "deploy script starts", Filter: lore.Filter{Repo: "acme/old"}}
	if hits, err := s.Search(ctx, q); err != nil || len(hits) != 1 {
		t.Fatalf("unbounded: %d hits, %v; want the old item", len(hits), err)
	}
	q.Bounded = true
	if hits, err := s.Search(ctx, q); err != nil || len(hits) != 0 {
		t.Errorf("bounded: %d hits, %v; want none (the old item matches only common words, outside the window)", len(hits), err)
	}
	plan := func(query string, args ...any) string { return queryPlan(t, s, query, args...) }
	for _, f := range []lore.Filter{{Repo: "acme/api"}, {NoRepo: true, Agent: "codex"}, {NoRepo: true, NoAgent: true}} {
		cond, args := s.where(f)
		if p := plan(`SELECT rowid FROM items i WHERE `+cond+` ORDER BY i.confidence DESC, i.rowid DESC LIMIT 10`, args...); !strings.Contains(p, "USING INDEX items_scope") ||
			f.Repo == "" && strings.Contains(p, "TEMP B-TREE") {
			// A repository's items of every agent are sorted; a scope with
			// its agent fixed is read in the index's order.
			t.Errorf("Best %+v: %s; want the scope index (in its order, the agent fixed)", f, p)
		}
		// A search reads the matches first and looks their items up, rather
		// than reading every item of the scope (all the global ones).
		query, args := s.searchSQL([]lore.Filter{f}, matchSource(-1), []any{`"deploy"`, 0}, []int{10})
		if p := plan(query, args...); !strings.Contains(p, "SCAN f; SEARCH i USING INTEGER PRIMARY KEY") {
			t.Errorf("search %+v: %s; want the matches to lead", f, p)
		}
	}
}

// TestBandsMigrate opens a store as lore wrote it before migration 0005,
// where each band key named one item and an item could lose all its keys
// to items added before it: the item whose keys were taken must be found
// as a near-duplicate after the migration.
func TestBandsMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pitfall := func(text, session string) lore.Item {
		return lore.Item{Text: text, Category: lore.CategoryPitfall, Repo: "acme/api", Confidence: 0.7, Evidence: []lore.Evidence{{Session: session}}}
	}
	res, err := s.Add(ctx, []lore.Item{
		pitfall("docker cache hangs with timeout on ci during deploys; clear the runner", "s1"),
		pitfall("go cache breaks with timeout on ci during deploys; rebuild the worker", "s2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var target int64
	if err := s.db.QueryRow(`SELECT rowid FROM items WHERE id = ?`, res[0].ID).Scan(&target); err != nil {
		t.Fatal(err)
	}
	// The schema of version 3, with the target's keys held by the other
	// item.
	evidenceAsTable(t, s)
	for _, q := range []string{
		`DROP INDEX items_scope`,
		`DROP TABLE bands`,
		`CREATE TABLE bands (key INTEGER PRIMARY KEY, item INTEGER NOT NULL)`,
		`INSERT INTO bands SELECT key, ` + strconv.FormatInt(target+1, 10) + ` FROM (SELECT DISTINCT key FROM json_each(?))`,
		`PRAGMA user_version = 3`,
	} {
		var args []any
		if strings.Contains(q, "?") {
			args = []any{jsonArray(neardup.Of(pitfall("docker cache hangs with timeout on ci during deploys; clear the runner", "")).Keys[:])}
		}
		if _, err := s.db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Add(ctx, []lore.Item{pitfall("docker also cache hangs with timeout on ci during deploys; clear the runner", "s3")})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != res[0].ID || !got[0].NearDuplicate {
		t.Errorf("near-duplicate after migrating: %+v, want merged into %s", got[0], res[0].ID)
	}
	var version int
	files, _ := fs.Glob(migrations, "migrations/*.sql")
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != len(files) || version < 8 {
		t.Errorf("schema version %d (%v), want %d: every migration", version, err, len(files))
	}
}

// TestBandsTrim: a band key read with more than twice bucketCap rows
// keeps only its newest bucketCap, and one read with fewer keeps them all.
func TestBandsTrim(t *testing.T) {
	ctx := context.Background()
	for _, stored := range []int{2 * bucketCap, 100} {
		s := open(t, nil)
		var items []lore.Item
		for i := range stored {
			items = append(items, lore.Item{Text: fmt.Sprintf("Service %d listens on port %d", i, 9000+i), Category: lore.CategoryFact})
		}
		if _, err := s.Add(ctx, items); err != nil {
			t.Fatal(err)
		}
		probe, err := lore.Prepare(lore.Item{Text: "The zebra gateway rotates its keys on Sundays", Category: lore.CategoryFact}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		key := neardup.Of(probe).Keys[0]
		// Every stored item shares the probe's first key.
		if _, err := s.db.Exec(`INSERT INTO bands SELECT ? | rowid FROM items`, key); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(ctx, []lore.Item{probe}); err != nil {
			t.Fatal(err)
		}
		var n, oldest int64
		if err := s.db.QueryRow(`SELECT count(*), min(band & ?) FROM bands WHERE band BETWEEN ? AND ?`,
			bandItem, key, key|bandItem).Scan(&n, &oldest); err != nil {
			t.Fatal(err)
		}
		// The probe adds its own row, rowid stored+1.
		want, wantOldest := int64(stored+1), int64(1)
		if stored > 2*bucketCap {
			want, wantOldest = bucketCap+1, int64(stored-bucketCap+1)
		}
		if n != want || oldest != wantOldest {
			t.Errorf("%d items under a key, then one added: %d rows from rowid %d, want %d from %d", stored, n, oldest, want, wantOldest)
		}
	}
}

// evidenceAsTable puts the store's evidence back in a table of its own, as
// before migration 0006 (and so before 0007).
func evidenceAsTable(t *testing.T, s *Store) {
	t.Helper()
	harvestsWithoutTimes(t, s)
	execAll(t, s,
		`CREATE TABLE evidence (
			item       INTEGER NOT NULL REFERENCES items (rowid) ON DELETE CASCADE,
			session    TEXT    NOT NULL,
			position   INTEGER NOT NULL,
			confidence REAL    NOT NULL,
			ord        INTEGER NOT NULL,
			PRIMARY KEY (item, session)
		) WITHOUT ROWID`,
		`INSERT INTO evidence SELECT i.rowid, e.value ->> 0, e.value ->> 1, e.value ->> 2, e.key
			FROM items AS i, json_each(i.evidence) AS e`,
		`ALTER TABLE items DROP COLUMN evidence`,
		`PRAGMA user_version = 5`,
	)
}

// itemsWithoutReviews takes the items back to before migration 0009: no
// history of people's decisions (and so before 0010).
func itemsWithoutReviews(t *testing.T, s *Store) {
	t.Helper()
	bootsWithoutKind(t, s)
	execAll(t, s, `ALTER TABLE items DROP COLUMN reviews`, `PRAGMA user_version = 8`)
}

// withoutEpisodes takes the store back to before the episodes'
// migration: no episodes.
func withoutEpisodes(t *testing.T, s *Store) {
	t.Helper()
	withoutAttempts(t, s)
	execAll(t, s, `DROP TABLE episodes_fts`, `DROP TABLE episodes`, `PRAGMA user_version = 10`)
}

// withoutAttempts takes the store back to before the journal's
// migration: no attempts.
func withoutAttempts(t *testing.T, s *Store) {
	t.Helper()
	withoutGuards(t, s)
	execAll(t, s, `DROP TABLE attempts_fts`, `DROP TABLE attempt_files`, `DROP TABLE attempt_texts`, `DROP TABLE attempts`, `PRAGMA user_version = 11`)
}

// withoutGuards takes the store back to before the guards' migration
// (0013): no guards.
func withoutGuards(t *testing.T, s *Store) {
	t.Helper()
	withoutTokens(t, s)
	execAll(t, s, `DROP TABLE guards`, `PRAGMA user_version = 12`)
}

// withoutTokens takes the store back to before the tokens' migration
// (0014): no tokens.
func withoutTokens(t *testing.T, s *Store) {
	t.Helper()
	withoutUploads(t, s)
	execAll(t, s, `DROP TABLE tokens`, `PRAGMA user_version = 13`)
}

// withoutUploads takes the store back to before the uploads' migration
// (0015): no upload queue.
func withoutUploads(t *testing.T, s *Store) {
	t.Helper()
	execAll(t, s, `DROP TABLE uploads`, `PRAGMA user_version = 14`)
}

// bootsWithoutHoldout takes the boot records back to before migration
// 0008: no boot is withheld.
func bootsWithoutHoldout(t *testing.T, s *Store) {
	t.Helper()
	itemsWithoutReviews(t, s)
	execAll(t, s, `ALTER TABLE boots DROP COLUMN withheld`, `PRAGMA user_version = 7`)
}

// TestReviewsMigrate opens a store older than the history of people's
// decisions: its items have none, and take one.
func TestReviewsMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Add(ctx, []lore.Item{{Text: "make check runs the linters", Category: lore.CategoryFact,
		Status: lore.StatusCandidate, Evidence: []lore.Evidence{{Session: "s1"}}}})
	if err != nil {
		t.Fatal(err)
	}
	itemsWithoutReviews(t, s)
	s.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	it, err := s.Item(ctx, res[0].ID)
	if err != nil || len(it.Reviews) != 0 || it.Status != lore.StatusCandidate {
		t.Fatalf("after migrating: %+v, %v; want the candidate with no reviews", it, err)
	}
	it, err = s.Review(ctx, it.ID, lore.Decision{Action: lore.ReviewPromote, By: "ann"})
	if err != nil || it.Status != lore.StatusActive || len(it.Reviews) != 1 {
		t.Errorf("promoted after migrating: %+v, %v", it, err)
	}
}

// harvestsWithoutTimes takes the harvest records back to before migration
// 0007: no modification time, no count of sessions (and so before every
// later migration).
func harvestsWithoutTimes(t *testing.T, s *Store) {
	t.Helper()
	bootsWithoutHoldout(t, s)
	execAll(t, s, `ALTER TABLE harvests DROP COLUMN mtime`, `ALTER TABLE harvests DROP COLUMN sessions`, `PRAGMA user_version = 6`)
}

// TestHarvestTimesMigrate opens a store whose harvest records predate
// modification times: each keeps what it had, with the time and the
// count of sessions unknown, which makes harvest hash the transcript (and
// read it) once more rather than trust them.
func TestHarvestTimesMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := lore.Harvest{Session: "codex:s1", Extractor: "rules", Path: "/t/rollout.jsonl", Size: 99,
		ModTime: time.Unix(1_777_000_000, 5).UTC(), Hash: "abc", Sessions: 1, At: time.UnixMicro(1_777_000_001_000_000).UTC(), Items: 4}
	if err := s.RecordHarvest(ctx, h); err != nil {
		t.Fatal(err)
	}
	harvestsWithoutTimes(t, s)
	s.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, ok, err := s.Harvested(ctx, h.Session, h.Extractor)
	want := h
	want.ModTime, want.Sessions = time.Time{}, 0
	if err != nil || !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("after migrating: %+v, %v, %v; want %+v", got, ok, err, want)
	}
}

// TestEvidenceMigrate opens a store whose evidence is a table of its own
// (before migration 0006): every item keeps its evidence, in order, with
// the confidence each session brought, and forgetting a session still
// works.
func TestEvidenceMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fact := func(text, session string, conf float64) lore.Item {
		return lore.Item{Text: text, Category: lore.CategoryFact, Confidence: conf, Evidence: []lore.Evidence{{Session: session, Position: len(session)}}}
	}
	odd := `codex:"quoted" <&> é`
	for _, batch := range [][]lore.Item{
		{fact("The API listens on port 8080", "s2", 0.4), fact("Staging deploys from the release branch", odd, 0.6)},
		{fact("The API listens on port 8080", "s1", 0.7), fact("The cache is flushed nightly", "s1", 0.5)},
		{fact("The API listens on port 8080", odd, 0.9), {Text: "Staging deploys from the release branch", Category: lore.CategoryFact, Confidence: 0.8}},
	} {
		if _, err := s.Add(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	var before []lore.Item
	all := func(s *Store) []lore.Item {
		var items []lore.Item
		if err := s.Items(ctx, lore.Filter{AnyStatus: true}, func(it lore.Item) error { items = append(items, it); return nil }); err != nil {
			t.Fatal(err)
		}
		return items
	}
	before = all(s)
	if len(before) != 3 || len(before[0].Evidence)+len(before[1].Evidence)+len(before[2].Evidence) != 5 {
		t.Fatalf("before migrating: %+v", before)
	}
	evidenceAsTable(t, s)
	s.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if after := all(s); !reflect.DeepEqual(after, before) {
		t.Errorf("after migrating:\n%+v\nwant\n%+v", after, before)
	}
	// Each session brought its own confidence: forgetting one leaves the
	// others' combination.
	for _, session := range []string{"s1", odd} {
		if _, err := s.ForgetSession(ctx, session); err != nil {
			t.Fatal(err)
		}
	}
	after := all(s)
	var api lore.Item
	for _, it := range after {
		if strings.Contains(it.Text, "8080") {
			api = it
		}
	}
	if len(after) != 2 || len(api.Evidence) != 1 || api.Evidence[0].Session != "s2" || math.Abs(api.Confidence-0.4) > 1e-9 {
		t.Errorf("after forgetting s1 and %q: %+v; want the port item with s2's evidence and 0.4, and the staging item given by hand", odd, after)
	}
}

// TestByKey looks up more keys than one statement binds, some stored and
// some not: every stored one is found once, in the order of the keys, and
// the NULLs that pad each list find nothing.
func TestByKey(t *testing.T) {
	ctx := context.Background()
	s := open(t, nil)
	const stored = maxKeys + 300
	var items []lore.Item
	for i := range stored {
		items = append(items, lore.Item{Text: fmt.Sprintf("Worker %d reads queue q%d", i, i), Category: lore.CategoryFact})
	}
	if _, err := s.Add(ctx, items); err != nil {
		t.Fatal(err)
	}
	// No item has a negative rowid: the keys span three lists, the
	// stored ones the last two.
	var keys []int64
	for r := int64(-stored); r <= stored; r++ {
		if r != 0 {
			keys = append(keys, r)
		}
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		b := &batch{store: s, tx: tx}
		rows, err := b.rowsByKey(ctx, `i.rowid = k.value`, anys(keys))
		if err != nil {
			return err
		}
		var want int64 = 1
		for _, r := range rows {
			if r.rowid != want || r.item.Text != fmt.Sprintf("Worker %d reads queue q%d", want-1, want-1) {
				t.Fatalf("row %d (%q), want %d", r.rowid, r.item.Text, want)
			}
			want++
		}
		if n := len(rows); n != stored {
			t.Errorf("%d rows for %d keys, want %d", n, len(keys), stored)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPreparedBound fills the store's prepared statements to their
// bound: queries of new texts still run, and are not kept.
func TestPreparedBound(t *testing.T) {
	ctx := context.Background()
	s := open(t, nil)
	if _, err := s.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact}}); err != nil {
		t.Fatal(err)
	}
	for i := len(s.stmts); i < maxPrepared; i++ {
		if _, err := s.prepared(ctx, fmt.Sprintf("SELECT %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.Count(ctx, lore.Filter{Category: lore.CategoryFact})
	if err != nil || n != 1 {
		t.Fatalf("Count with the statements full: %d, %v; want 1", n, err)
	}
	best, err := s.Best(ctx, lore.Filter{}, 5)
	if err != nil || len(best) != 1 {
		t.Fatalf("Best with the statements full: %d items, %v; want 1", len(best), err)
	}
	if len(s.stmts) != maxPrepared {
		t.Errorf("%d statements kept, want %d", len(s.stmts), maxPrepared)
	}
}

// TestOddPaths opens stores in folders whose names a URI would take
// apart: each store is the file at its path, and keeps what was added.
func TestOddPaths(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"a b", "100%", "q?x=1", "h#y", "é"} {
		path := filepath.Join(t.TempDir(), name, "lore.db")
		s, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if _, err := s.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact}}); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		s.Close()
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%q: the store is not at its path: %v", name, err)
		}
		s, err = Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("%q: reopen: %v", name, err)
		}
		n, err := s.Count(ctx, lore.Filter{})
		s.Close()
		if err != nil || n != 1 {
			t.Errorf("%q: %d items after reopening (%v), want 1", name, n, err)
		}
	}
}

// TestOpenForeignDatabase: an SQLite file of another application, even
// one with a schema version of its own, is refused, read-only or not, and
// left as it was: no table added, no journal mode changed, no file made
// beside it.
func TestOpenForeignDatabase(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		schema string
	}{
		{"rollback journal", "CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT); INSERT INTO sessions VALUES ('s1', 'hello');"},
		{"wal", "PRAGMA journal_mode=WAL; CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO messages (body) VALUES ('hi');"},
		{"schema version", "CREATE TABLE state (k TEXT, v TEXT); PRAGMA user_version = 3;"},
		{"a table named items", "CREATE TABLE items (id INTEGER PRIMARY KEY); PRAGMA user_version = 7;"},
		{"only an index", "CREATE TABLE t (x); CREATE INDEX t_x ON t (x); DROP TABLE t; CREATE VIEW v AS SELECT 1;"},
	}
	for _, tt := range tests {
		for _, ro := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/readonly=%v", tt.name, ro), func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "state.db")
				db, err := sql.Open("sqlite", path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(tt.schema); err != nil {
					t.Fatal(err)
				}
				db.Close()
				before, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				s, err := Open(ctx, path, Options{ReadOnly: ro})
				if err == nil {
					s.Close()
					t.Fatal("opened another application's database as a store")
				}
				want := path + " is a SQLite database of another application, not a lore store; give another --store"
				if err.Error() != want {
					t.Errorf("error %q, want %q", err, want)
				}
				after, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(before, after) {
					t.Error("the database changed")
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != 1 {
					t.Errorf("files beside the database: %d entries, want 1", len(entries))
				}
			})
		}
	}
}

// TestOpenEmptyDatabase: an empty SQLite database (a file sqlite3 made and
// nothing more) becomes a store, as an empty file does.
func TestOpenEmptyDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 0; VACUUM"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact}}); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnly: a store opened read-only reads what is there, creates
// nothing beside it and refuses writes without touching the file.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := r.Search(ctx, lore.Query{Text: "config", Limit: 5})
	if err != nil || len(hits) != 1 {
		t.Errorf("search: %d hits, %v; want 1", len(hits), err)
	}
	if err := r.RecordBoot(ctx, lore.Boot{Repo: "acme/api"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("RecordBoot on a read-only store: %v, want ErrReadOnly", err)
	}
	if _, err := r.Add(ctx, []lore.Item{{Text: "Another fact about the api", Category: lore.CategoryFact}}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Add on a read-only store: %v, want ErrReadOnly", err)
	}
	// A reader takes readers' locks through the WAL index, as lore's
	// writers keep it, so that it sees a harvest that writes meanwhile;
	// nothing else appears beside the store.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "lore.db" && n != "lore.db-wal" && n != "lore.db-shm" {
			t.Errorf("a read-only open made %s beside the store", n)
		}
	}
	r.Close()
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("the store changed")
	}
	if _, err := Open(ctx, filepath.Join(dir, "missing.db"), Options{ReadOnly: true}); err == nil {
		t.Error("opened a missing store read-only")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a read-only open created a store")
	}
}

// TestReadLockedStore: a store another process holds exclusively (one
// in rollback mode, where a writer locks readers out) fails a read within
// the busy timeout, rather than after a writer's wait.
func TestReadLockedStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.SetMaxOpenConns(1)
	if _, err := other.Exec("PRAGMA journal_mode=DELETE"); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := other.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer other.Exec("ROLLBACK")
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err = s.Search(ctx, lore.Query{Text: "config", Limit: 5})
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("a read of a locked store took %s", took)
	}
	if err == nil {
		t.Error("a read of an exclusively locked store succeeded")
	}
	// A store opened then says what is wrong.
	start = time.Now()
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err == nil {
		r.Close()
		t.Fatal("opened an exclusively locked store")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("opening a locked store took %s", took)
	}
	if !strings.Contains(err.Error(), "locked by another process") {
		t.Errorf("opening a locked store: %v", err)
	}
}

// TestReadOnlySeesWriters: a store opened read-only while no one has it
// open still sees what a writer commits afterwards, as a search during a
// harvest must: it is not read as a file no one changes.
func TestReadOnlySeesWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	w, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Add(ctx, []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := Open(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if hits, err := r.Search(ctx, lore.Query{Text: "config", Limit: 5}); err != nil || len(hits) != 1 {
		t.Fatalf("the reader found %d items (%v), want 1", len(hits), err)
	}
	w, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Add(ctx, []lore.Item{{Text: "The worker reads its queue from redis on port 6380", Category: lore.CategoryFact, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	if hits, err := r.Search(ctx, lore.Query{Text: "redis queue", Limit: 5}); err != nil || len(hits) != 1 {
		t.Errorf("the reader found %d items a writer added after it opened (%v), want 1", len(hits), err)
	}
}

// TestCheckWaitsForAStoreBeingMade: a database that looks like another
// application's for a moment, as a store another lore process is making
// can to a reader that takes no locks, is looked at again before it is
// refused; one that stays foreign is still refused.
func TestCheckWaitsForAStoreBeingMade(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	foreign := func(path string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("CREATE TABLE half_made (x)"); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "lore.db")
	foreign(path)
	made := filepath.Join(dir, "made.db")
	s, err := Open(ctx, made, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	done := make(chan error, 1)
	go func() {
		time.Sleep(5 * time.Millisecond)
		done <- os.Rename(made, path) // the other process's store, whole
	}()
	if err := check(ctx, path, time.Second); errors.Is(err, errForeign) {
		t.Errorf("a store made a moment later was refused: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	foreign(other)
	if err := check(ctx, other, time.Second); !errors.Is(err, errForeign) {
		t.Errorf("another application's database: %v, want refused", err)
	}
}

// TestOpenDecidesUnderLock: a file that looks like another application's
// database to check's look without locks, but is a whole lore store by
// the time Open holds the write lock (another process was making it), is
// opened; one still foreign then is refused, unchanged.
func TestOpenDecidesUnderLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "lore.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE half_made (x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	made := oneItemStore(t, filepath.Join(dir, "made.db"))
	defer func() { beforeClaim = func() {} }()
	beforeClaim = func() {
		if err := os.Rename(made, path); err != nil {
			t.Error(err)
		}
	}
	wantOneItem(t, path, "a store made while it was being opened")
	beforeClaim = func() {}
	other := filepath.Join(dir, "other.db")
	db, err = sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE sessions (id TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(other)
	if s, err := Open(ctx, other, Options{}); !errors.Is(err, errForeign) {
		if s != nil {
			s.Close()
		}
		t.Errorf("another application's database: %v, want refused", err)
	}
	if after, _ := os.ReadFile(other); !bytes.Equal(before, after) {
		t.Error("the refused database changed")
	}
}

// TestOpenDamagedUnderLock: a file that looks damaged to check's look
// without locks, as a store another process is writing can, is opened
// when it is a whole store under the write lock; one still damaged then
// is reported as damaged.
func TestOpenDamagedUnderLock(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	made := oneItemStore(t, filepath.Join(dir, "made.db"))
	good, err := os.ReadFile(made)
	if err != nil {
		t.Fatal(err)
	}
	// A store's file header, its schema page garbled: what a reader
	// without locks can catch while the pages are written.
	bad := append([]byte(nil), good...)
	for i := 100; i < 4096; i++ {
		bad[i] = byte(i * 7)
	}
	path := filepath.Join(dir, "lore.db")
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := checkOnce(ctx, path, time.Second); !errors.Is(err, errDamaged) {
		t.Fatalf("the garbled store looks %v, want damaged", err)
	}
	defer func() { beforeClaim = func() {} }()
	beforeClaim = func() {
		if err := os.WriteFile(path, good, 0o600); err != nil {
			t.Error(err)
		}
	}
	wantOneItem(t, path, "a store whole by the time the lock was held")
	beforeClaim = func() {}
	other := filepath.Join(dir, "other.db")
	if err := os.WriteFile(other, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Open(ctx, other, Options{}); err == nil || !strings.Contains(err.Error(), "damaged") {
		if s != nil {
			s.Close()
		}
		t.Errorf("a damaged store: %v, want it reported damaged", err)
	}
}

// oneItemStore makes a store at path holding one item, and returns path.
func oneItemStore(t *testing.T, path string) string {
	t.Helper()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Add(context.Background(), []lore.Item{{Text: "The api reads its config from /etc/api.toml", Category: lore.CategoryFact}}); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantOneItem opens the store at path, which must hold oneItemStore's
// item; what says what the store is.
func wantOneItem(t *testing.T, path, what string) {
	t.Helper()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	n, err := s.Count(context.Background(), lore.Filter{})
	s.Close()
	if err != nil || n != 1 {
		t.Errorf("%s: %d items (%v), want 1", what, n, err)
	}
}

// queryPlan is SQLite's plan for query, its steps joined by "; ".
func queryPlan(t *testing.T, s *Store, query string, args ...any) string {
	t.Helper()
	rows, err := s.db.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		rows.Scan(&id, &parent, &notUsed, &detail)
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}

// bootsWithoutKind takes the store back to before migration 0010: boots
// of one kind, no index of the pitfalls by the command they open with.
func bootsWithoutKind(t *testing.T, s *Store) {
	t.Helper()
	withoutEpisodes(t, s)
	execAll(t, s, `DROP INDEX items_command`, `ALTER TABLE boots DROP COLUMN kind`, `PRAGMA user_version = 9`)
}

// execAll runs each query on the store, in order.
func execAll(t *testing.T, s *Store, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if _, err := s.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestBootKindMigrate opens a store from before lore recall: its boots
// are the contexts sessions started with, and its pitfalls are found by
// the command they open with.
func TestBootKindMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pit := lore.Item{Text: "`make test` fails with `No rule to make target`; `make check` works.", Category: lore.CategoryPitfall, Confidence: 0.9}
	if _, err := s.Add(ctx, []lore.Item{pit}); err != nil {
		t.Fatal(err)
	}
	bootsWithoutKind(t, s)
	if _, err := s.db.Exec(`INSERT INTO boots (at, session, items) VALUES (1, 'claude-code:s1', '[]')`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var bs []lore.Boot
	if err := s.Boots(ctx, time.Time{}, func(b lore.Boot) error { bs = append(bs, b); return nil }); err != nil || len(bs) != 1 ||
		bs[0].Kind != lore.BootStart || bs[0].Session != "claude-code:s1" {
		t.Errorf("boots after migrating: %+v, %v; want the one boot, of kind start", bs, err)
	}
	if got, err := s.Recall(ctx, lore.RecallQuery{Command: "make"}); err != nil || len(got) != 1 {
		t.Errorf("Recall after migrating: %+v, %v; want the pitfall", got, err)
	}
}

func TestJournalConformance(t *testing.T) {
	storetest.RunJournal(t, func(t *testing.T, now func() time.Time) lore.Journal { return open(t, now) })
}

// TestAttemptsMigrate: a store from before the journal keeps its items
// and takes attempts once opened again.
func TestAttemptsMigrate(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, []lore.Item{{Text: "The api listens on 8080", Category: lore.CategoryFact}}); err != nil {
		t.Fatal(err)
	}
	withoutAttempts(t, s)
	s.Close()
	if s, err = Open(ctx, path, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Count(ctx, lore.Filter{}); err != nil || n != 1 {
		t.Errorf("items after migrating: %d, %v", n, err)
	}
	as, err := s.LogAttempts(ctx, []lore.Attempt{{Task: "serve on 8081", Files: []string{"main.go"}, Outcome: "success"}})
	if err != nil {
		t.Fatal(err)
	}
	if hits, err := s.SimilarAttempts(ctx, lore.AttemptQuery{Text: "serve", Files: []string{"main.go"}}); err != nil || len(hits) != 1 || hits[0].ID != as[0].ID {
		t.Errorf("similar after migrating: %+v, %v", hits, err)
	}
}

// TestAttemptsIndexConsistent: replacing an attempt and reflecting on it
// keep the full-text index as FTS5's own check wants it.
func TestAttemptsIndexConsistent(t *testing.T) {
	s := open(t, nil)
	ctx := context.Background()
	a := lore.Attempt{Session: "s1", Task: "fix the zebra cache", Files: []string{"cache.go"}}
	if _, err := s.LogAttempts(ctx, []lore.Attempt{a, a}); err != nil {
		t.Fatal(err)
	}
	a.Approach = "evict on write"
	as, err := s.LogAttempts(ctx, []lore.Attempt{a})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reflect(ctx, as[0].ID, "the zebra cache needs a lock"); err != nil {
		t.Fatal(err)
	}
	execAll(t, s, `INSERT INTO attempts_fts (attempts_fts) VALUES ('integrity-check')`)
	var n, files int
	if err := s.db.QueryRow(`SELECT count(*), (SELECT count(*) FROM attempt_files) FROM attempts`).Scan(&n, &files); err != nil || n != 1 || files != 1 {
		t.Errorf("%d attempts and %d file rows (%v), want one of each", n, files, err)
	}
}

func TestGuardsConformance(t *testing.T) {
	storetest.RunGuards(t, func(t *testing.T) lore.FixGuards { return open(t, time.Now) })
}

func TestTokensConformance(t *testing.T) {
	storetest.RunTokens(t, func(t *testing.T) lore.Tokens { return open(t, time.Now) })
}

func TestTeamsConformance(t *testing.T) {
	storetest.RunTeams(t, func(t *testing.T) lore.Teams { return openTeams(t) })
}

func TestUploadQueueConformance(t *testing.T) {
	storetest.RunUploadQueue(t, func(t *testing.T) lore.UploadQueue { return openTeams(t) })
}

func openTeams(t *testing.T) *Teams {
	t.Helper()
	teams, err := OpenTeams(context.Background(), filepath.Join(t.TempDir(), "lore.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { teams.Close() })
	return teams
}

// TestTeamFiles: a team's store is a file of its own beside the main
// one, readable by its owner only.
func TestTeamFiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "lore.db")
	teams, err := OpenTeams(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer teams.Close()
	if s, err := teams.Team(ctx, lore.DefaultTeam); err != nil || s.(*Store).path != path {
		t.Fatalf("the default team's store is not the main file: %v", err)
	}
	if _, err := teams.Team(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]fs.FileMode{path + ".teams": 0o700, filepath.Join(path+".teams", "acme.db"): 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
		}
	}
}
