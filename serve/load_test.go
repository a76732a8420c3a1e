package serve_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/servetest"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/postgres"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
)

// loadKnob reads a knob of TestLoad from the environment.
func loadKnob(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a number of 1 or more", name, v)
	}
	return n
}

// loadFile is a transcript a writer of TestLoad uploads.
type loadFile struct{ path, repo string }

// TestLoad runs lore serve under load: LORE_LOAD_SERVERS servers (each
// with its own connections to one PostgreSQL database and its own
// workers, in this process) take LORE_LOAD_SESSIONS transcripts from
// LORE_LOAD_WRITERS writers while LORE_LOAD_READERS readers boot and
// search (LORE_LOAD_WORKERS workers a server; every fourth transcript
// LORE_LOAD_FILLER_KIB of synthetic session). It reports requests/s and p50/p99 latency per route, and
// checks that the team's store ends up with the items and evidence a
// single harvest of the same transcripts makes: nothing lost, nothing
// harvested twice. BENCHMARKS.md has its figures.
func TestLoad(t *testing.T) {
	pgURL := os.Getenv("LORE_TEST_PG_URL")
	if pgURL == "" || os.Getenv("LORE_TEST_LOAD") != "1" {
		t.Skip("set LORE_TEST_PG_URL=postgres://… and LORE_TEST_LOAD=1 to run the load test (.ci/run does)")
	}
	nServers := loadKnob(t, "LORE_LOAD_SERVERS", 2)
	nWriters := loadKnob(t, "LORE_LOAD_WRITERS", 4)
	nReaders := loadKnob(t, "LORE_LOAD_READERS", 4)
	nSessions := loadKnob(t, "LORE_LOAD_SESSIONS", 200)
	nWorkers := loadKnob(t, "LORE_LOAD_WORKERS", 2)
	fillerKiB := loadKnob(t, "LORE_LOAD_FILLER_KIB", 24)
	ctx := context.Background()

	files := loadSessions(t, nSessions, int64(fillerKiB)<<10)
	team := fmt.Sprintf("load-%x", rand.Uint32())
	t.Cleanup(func() { dropLoadTeam(t, pgURL, team) })

	// The servers: lore serve processes, as a team runs them, on one
	// database; first is this test's own handle on it.
	first, err := postgres.OpenTeams(ctx, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close() })
	bin := filepath.Join(t.TempDir(), "lore")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/lorehq/lore/cmd/lore").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var urls []string
	for range nServers {
		addr, _ := servetest.Process(t, bin, append(os.Environ(), "LORE_HOME="+t.TempDir()),
			"--store", pgURL, "--addr", "127.0.0.1:0", "--workers", strconv.Itoa(nWorkers))
		urls = append(urls, addr)
	}
	secret, hash := lore.NewToken()
	if _, err := first.AddToken(ctx, lore.Token{Team: team, Scope: lore.ScopeWrite, Name: "load"}, hash); err != nil {
		t.Fatal(err)
	}

	rec := &latencies{by: map[string][]time.Duration{}, first: map[string]time.Time{}, last: map[string]time.Time{}}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	do := func(route, method, u string, body io.Reader, want int) error {
		req, _ := http.NewRequestWithContext(ctx, method, u, body)
		req.Header.Set("Authorization", "Bearer "+secret)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("%s: %w", route, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		rec.add(route, start)
		if resp.StatusCode != want {
			return fmt.Errorf("%s: %d %s", route, resp.StatusCode, b)
		}
		return nil
	}

	var sentBytes atomic.Int64
	errs := make(chan error, nWriters+nReaders)
	jobs := make(chan int)
	start := time.Now()
	var writers sync.WaitGroup
	for w := range nWriters {
		writers.Go(func() {
			for i := range jobs {
				f := files[i]
				body, err := os.ReadFile(f.path)
				if err != nil {
					errs <- err
					return
				}
				sentBytes.Add(int64(len(body)))
				q := url.Values{"name": {filepath.Base(f.path)}, "repo": {f.repo}}
				u := urls[(w+i)%len(urls)] + "/v1/sessions?" + q.Encode()
				if err := do("POST /v1/sessions", "POST", u, strings.NewReader(string(body)), http.StatusAccepted); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	drained := make(chan struct{})
	var readers sync.WaitGroup
	for r := range nReaders {
		readers.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-drained:
					return
				default:
				}
				u := urls[(r+n)%len(urls)]
				repo := fmt.Sprintf("acme/repo%d", n%8)
				if err := do("GET /v1/boot", "GET", u+"/v1/boot?"+url.Values{"repo": {repo}, "task": {"fix the retry"}}.Encode(), nil, http.StatusOK); err != nil {
					errs <- err
					return
				}
				if err := do("GET /v1/search", "GET", u+"/v1/search?"+url.Values{"q": {"push to a protected branch"}, "repo": {repo}}.Encode(), nil, http.StatusOK); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range files {
		jobs <- i
	}
	close(jobs)
	writers.Wait()
	sent := time.Since(start)

	// Drained when no upload of the team waits or runs.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		left, err := teamQueued(ctx, pgURL, team)
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d uploads still queued 5 minutes after the last was sent", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
	harvested := time.Since(start)
	close(drained)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	t.Logf("%d servers × %d workers on one PostgreSQL, %d writers, %d readers, %d transcripts of one session (%.1f MiB): all sent in %.1f s, all harvested in %.1f s (%.1f uploads/s)",
		nServers, nWorkers, nWriters, nReaders, len(files), float64(sentBytes.Load())/(1<<20), sent.Seconds(), harvested.Seconds(), float64(len(files))/harvested.Seconds())
	t.Log("\n" + rec.table())

	// Nothing lost, nothing twice.
	uploads, err := first.Uploads(ctx, team, len(files)+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(uploads) != len(files) {
		t.Errorf("%d uploads kept, want %d", len(uploads), len(files))
	}
	for _, u := range uploads {
		if u.State != lore.UploadHarvested || u.Attempts != 1 {
			t.Errorf("upload %s: %s after %d attempts %s", u.ID, u.State, u.Attempts, u.Error)
		}
	}
	st, err := first.Team(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	got := countStore(t, st)
	want := singleHarvest(t, files)
	t.Logf("the team's store: %+v; one process harvesting the same transcripts: %+v", got, want)
	if got != want {
		t.Errorf("the servers' harvest %+v, want a single harvest's %+v", got, want)
	}
	if got.maxRecords != 1 {
		t.Errorf("a session has %d harvest records, want 1", got.maxRecords)
	}
}

// loadSessions writes n Claude Code transcripts of one session each: a
// failed push to a protected branch in one of eight repositories, each
// asking something of its own, and every fourth, a synthetic session of
// about fillerBytes (synth; real Claude Code sessions' median is near
// 400 KiB).
func loadSessions(t *testing.T, n int, fillerBytes int64) []loadFile {
	t.Helper()
	dir := t.TempDir()
	filler := filepath.Join(dir, "filler")
	if _, err := synth.Write(filler, synth.Options{Format: "claude-code", Bytes: int64(n/4) * fillerBytes, SessionBytes: fillerBytes, Seed: 24}); err != nil {
		t.Fatal(err)
	}
	var extra []string
	filepath.WalkDir(filler, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			extra = append(extra, p)
		}
		return err
	})
	slices.Sort(extra)
	var out []loadFile
	for i := range n {
		repo := i % 8
		if i%4 == 3 && len(extra) > 0 {
			out = append(out, loadFile{extra[0], fmt.Sprintf("acme/repo%d", repo)})
			extra = extra[1:]
			continue
		}
		id := fmt.Sprintf("0b6c1a52-6f0e-4c7e-9b1a-%012d", i)
		p := filepath.Join(dir, id+".jsonl")
		body := synth.ClaudePushSession(id, fmt.Sprintf("/home/dev/repo%d", repo), fmt.Sprintf("Push the fix for ticket %d of repo%d.", i, repo))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, loadFile{p, fmt.Sprintf("acme/repo%d", repo)})
	}
	return out
}

// storeCounts is what a harvest left in a store.
type storeCounts struct {
	items, evidence, sessions, records int
	maxRecords                         int // the most harvest records of one session
}

func countStore(t *testing.T, st lore.Store) storeCounts {
	t.Helper()
	ctx := context.Background()
	var c storeCounts
	err := st.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		c.items++
		c.evidence += len(it.Evidence)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	err = st.Harvests(ctx, func(h lore.Harvest) error {
		per[h.Session]++
		c.records++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.sessions = len(per)
	for _, n := range per {
		c.maxRecords = max(c.maxRecords, n)
	}
	return c
}

// singleHarvest harvests the transcripts one by one, in one process, into
// a new SQLite store, as a server's worker does each upload.
func singleHarvest(t *testing.T, files []loadFile) storeCounts {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "single.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, f := range files {
		sessions, err := transcript.Read(ctx, f.path, transcript.Options{Messages: true, NoGit: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sessions {
			s.Repo = f.repo
		}
		if _, err := harvest.Run(ctx, sessions, harvest.Options{Store: st, Extractor: harvest.Rules{}, Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return countStore(t, st)
}

// latencies records how long each request of a route took, and when
// the route's first request started and its last ended.
type latencies struct {
	mu          sync.Mutex
	by          map[string][]time.Duration
	first, last map[string]time.Time
}

func (l *latencies) add(route string, start time.Time) {
	end := time.Now()
	l.mu.Lock()
	l.by[route] = append(l.by[route], end.Sub(start))
	if f, ok := l.first[route]; !ok || start.Before(f) {
		l.first[route] = start
	}
	if end.After(l.last[route]) {
		l.last[route] = end
	}
	l.mu.Unlock()
}

// table is a row per route: requests, requests/s while the route was
// asked, p50, p99.
func (l *latencies) table() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %8s %8s %9s %9s\n", "route", "requests", "req/s", "p50 ms", "p99 ms")
	for _, route := range slices.Sorted(func(yield func(string) bool) {
		for r := range l.by {
			if !yield(r) {
				return
			}
		}
	}) {
		ds := slices.Clone(l.by[route])
		slices.Sort(ds)
		at := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))]) / float64(time.Millisecond) }
		fmt.Fprintf(&b, "%-18s %8d %8.1f %9.1f %9.1f\n", route, len(ds), float64(len(ds))/l.last[route].Sub(l.first[route]).Seconds(), at(0.50), at(0.99))
	}
	return b.String()
}

// teamQueued counts the team's uploads that wait or run.
func teamQueued(ctx context.Context, pgURL, team string) (int, error) {
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM `+postgres.AdminSchema+`.uploads WHERE team = $1 AND state IN ('queued', 'running')`, team).Scan(&n)
	return n, err
}

// dropLoadTeam removes what the load test left in the database.
func dropLoadTeam(t *testing.T, pgURL, team string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgURL)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`DELETE FROM ` + postgres.AdminSchema + `.uploads WHERE team = $1`,
		`DELETE FROM ` + postgres.AdminSchema + `.tokens WHERE team = $1`,
	} {
		if _, err := conn.Exec(ctx, q, team); err != nil {
			t.Error(err)
		}
	}
	if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{postgres.Schema(team)}.Sanitize()+` CASCADE`); err != nil {
		t.Error(err)
	}
}
