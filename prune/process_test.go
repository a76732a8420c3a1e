package prune_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/testenv"
	"github.com/lorehq/lore/prune"
	"github.com/lorehq/lore/prune/archive"
	"github.com/lorehq/lore/prune/hermesdb"
)

// The test binary plays other processes: an agent writing to its
// database the way Hermes does, or a prune to be killed.
func TestMain(m *testing.M) {
	switch os.Getenv("LORE_PRUNE_TEST_ROLE") {
	case "agent":
		os.Exit(agent(os.Getenv("LORE_PRUNE_TEST_DB"), os.Getenv("LORE_PRUNE_TEST_STOP")))
	case "prune":
		_, err := prune.Run(context.Background(), os.Getenv("LORE_PRUNE_TEST_DB"), prune.Options{Now: time.Now()})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// agentReport is what the agent process wrote and what failed.
type agentReport struct {
	Sessions []string `json:"sessions"`
	Messages []int64  `json:"messages"`
	Failures []string `json:"failures"`
}

// agent writes sessions and messages as Hermes does — a 1 s busy
// timeout, BEGIN IMMEDIATE, fifteen retries 20–150 ms apart, one
// transaction per message — until the stop file appears, then prints
// what it wrote. A write that fails after every retry is a failure: the
// agent would have lost it.
func agent(path, stop string) int {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)&_pragma=foreign_keys(1)&_txlock=immediate")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	var rep agentReport
	write := func(fn func(tx *sql.Tx) error) error {
		var err error
		for range 15 {
			err = func() error {
				tx, err := db.Begin()
				if err != nil {
					return err
				}
				defer tx.Rollback()
				if err := fn(tx); err != nil {
					return err
				}
				return tx.Commit()
			}()
			if err == nil || !strings.Contains(err.Error(), "locked") && !strings.Contains(err.Error(), "busy") {
				return err
			}
			time.Sleep(time.Duration(20+rand.IntN(130)) * time.Millisecond)
		}
		return err
	}
	for i := 0; ; i++ {
		if _, err := os.Stat(stop); err == nil {
			break
		}
		id := fmt.Sprintf("agent_%d_%d", os.Getpid(), i)
		now := float64(time.Now().UnixMicro()) / 1e6
		err := write(func(tx *sql.Tx) error {
			_, err := tx.Exec("INSERT INTO sessions(id, source, started_at) VALUES (?, 'cli', ?)", id, now)
			return err
		})
		if err != nil {
			rep.Failures = append(rep.Failures, err.Error())
			continue
		}
		rep.Sessions = append(rep.Sessions, id)
		for j := range 5 {
			var mid int64
			err := write(func(tx *sql.Tx) error {
				r, err := tx.Exec("INSERT INTO messages(session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)",
					id, fmt.Sprintf("message %d of a session written during the prune", j), now)
				if err != nil {
					return err
				}
				mid, err = r.LastInsertId()
				if err != nil {
					return err
				}
				_, err = tx.Exec("UPDATE sessions SET message_count = message_count + 1 WHERE id = ?", id)
				return err
			})
			if err != nil {
				rep.Failures = append(rep.Failures, err.Error())
				continue
			}
			rep.Messages = append(rep.Messages, mid)
			time.Sleep(5 * time.Millisecond)
		}
	}
	json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// TestPruneWhileAgentWrites prunes a database while another process
// writes to it as Hermes does: the agent loses no write and sees no
// error, everything it wrote is there afterwards, and the database is
// sound. The VACUUM is skipped, since the agent wrote meanwhile.
func TestPruneWhileAgentWrites(t *testing.T) {
	testenv.SkipUnlessSlow(t, "prunes while another process writes")
	path, _ := generate(t, hermesdb.Options{Version: 11, Sessions: 400, MessagesPerSession: 12, Leaked: 0.7, Parents: 0.1, Seed: 5, ContentScale: 0.5})
	stop := filepath.Join(t.TempDir(), "stop")
	cmd := osexec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LORE_PRUNE_TEST_ROLE=agent", "LORE_PRUNE_TEST_DB="+path, "LORE_PRUNE_TEST_STOP="+stop)
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Wait for the agent's first session.
	db := rw(t, path)
	for deadline := time.Now().Add(10 * time.Second); ; {
		var n int
		db.QueryRow("SELECT count(*) FROM sessions WHERE id LIKE 'agent_%'").Scan(&n)
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent process wrote nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
	dir := filepath.Dir(path)
	res, err := prune.Run(context.Background(), path, pruneOptions(dir, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the agent goes on after the prune
	os.WriteFile(stop, nil, 0o600)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	var rep agentReport
	if err := json.Unmarshal([]byte(out.String()), &rep); err != nil {
		t.Fatalf("agent report %q: %v", out.String(), err)
	}
	t.Logf("prune: %d archived in %.1f s, %v; the agent wrote %d sessions, %d messages", res.Archived, res.Seconds, res.Phases, len(rep.Sessions), len(rep.Messages))
	if len(rep.Failures) > 0 {
		t.Errorf("the agent's writes failed %d times: %s", len(rep.Failures), rep.Failures[0])
	}
	if len(rep.Sessions) < 2 || res.Archived == 0 {
		t.Errorf("no overlap to test: the agent wrote %d sessions, the prune archived %d", len(rep.Sessions), res.Archived)
	}
	for _, id := range rep.Sessions {
		var n int
		db.QueryRow("SELECT count(*) FROM sessions WHERE id = ?", id).Scan(&n)
		if n != 1 {
			t.Errorf("the agent's session %s is gone", id)
		}
	}
	for _, id := range rep.Messages {
		var n int
		db.QueryRow("SELECT count(*) FROM messages WHERE id = ?", id).Scan(&n)
		if n != 1 {
			t.Errorf("the agent's message %d is gone", id)
		}
	}
	if !strings.HasPrefix(res.Vacuum, "skipped") {
		t.Errorf("vacuum %q while the agent wrote, want skipped", res.Vacuum)
	}
	db.Close()
	healthy(t, path, 0)
}

// TestPruneKilled kills prunes at random moments. After each kill the
// database passes integrity_check and every message is in it or in the
// archive; a last run finishes the job: every old session in the archive
// and none in both places.
func TestPruneKilled(t *testing.T) {
	testenv.SkipUnlessSlow(t, "kills prunes at random moments")
	path, _ := generate(t, hermesdb.Options{Version: 2, Sessions: 300, MessagesPerSession: 12, Leaked: 0.7, Parents: 0.15, Seed: 9, ContentScale: 1})
	before := take(t, path)
	run := func(kill time.Duration) (killed bool, err error) {
		cmd := osexec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "LORE_PRUNE_TEST_ROLE=prune", "LORE_PRUNE_TEST_DB="+path)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return false, err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if kill > 0 {
			select {
			case err := <-done:
				if err != nil {
					return false, fmt.Errorf("%v: %s", err, stderr.String())
				}
				return false, nil
			case <-time.After(kill):
				cmd.Process.Kill()
				<-done
				return true, nil
			}
		}
		err = <-done
		if err != nil {
			err = fmt.Errorf("%v: %s", err, stderr.String())
		}
		return false, err
	}
	// How long a whole prune takes, on a copy.
	copyPath := filepath.Join(t.TempDir(), "state.db")
	data, _ := os.ReadFile(path)
	os.WriteFile(copyPath, data, 0o600)
	start := time.Now()
	if _, err := prune.Run(context.Background(), copyPath, prune.Options{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	kills := 0
	for i := range 6 {
		// Process start-up is part of it; each run has less left to do.
		delay := 30*time.Millisecond + time.Duration(rng.Int64N(int64(whole)/2+1))
		killed, err := run(delay)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if killed {
			kills++
		}
		everyMessageSomewhere(t, path, before)
	}
	if kills == 0 {
		t.Error("no prune was killed: the kill delays are off")
	}
	if _, err := run(0); err != nil {
		t.Fatal(err)
	}
	everyMessageSomewhere(t, path, before)
	healthy(t, path, 0)
	// Finished: nothing old is left, nothing is in both places.
	after := take(t, path)
	if len(after.sessions) != 0 {
		t.Errorf("%d sessions left after the last run; all were old", len(after.sessions))
	}
	arc, err := archive.Open(context.Background(), prune.DefaultArchivePath(path))
	if err != nil {
		t.Fatal(err)
	}
	defer arc.Close()
	entries, _ := arc.List(context.Background())
	if len(entries) != len(before.sessions) {
		t.Errorf("the archive holds %d sessions, want %d", len(entries), len(before.sessions))
	}
	if _, err := os.Stat(prune.DefaultBackupPath(path) + ".partial"); err == nil {
		t.Error("a partial backup was left behind")
	}
	t.Logf("%d of 6 runs killed; a whole run takes %v", kills, whole.Round(time.Millisecond))
}

// everyMessageSomewhere checks that the database passes integrity_check
// and that each message and session of the original is in it or in the
// archive.
func everyMessageSomewhere(t *testing.T, path string, before snapshot) {
	t.Helper()
	db := rw(t, path)
	var ic string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ic); err != nil || ic != "ok" {
		t.Fatalf("integrity_check after a kill: %q %v", ic, err)
	}
	db.Close()
	now := take(t, path)
	archived := map[int64]bool{}
	archivedSessions := map[string]bool{}
	if _, err := os.Stat(prune.DefaultArchivePath(path)); err == nil {
		arc, err := archive.Open(context.Background(), prune.DefaultArchivePath(path))
		if err != nil {
			t.Fatal(err)
		}
		entries, err := arc.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			s, err := arc.Get(context.Background(), e.ID)
			if err != nil {
				t.Fatal(err)
			}
			archivedSessions[e.ID] = true
			for _, m := range s.Messages {
				id, _ := m.Get("id")
				archived[id.Int] = true
			}
		}
		arc.Close()
	}
	for id := range before.sessions {
		if _, ok := now.sessions[id]; !ok && !archivedSessions[id] {
			t.Fatalf("session %s is in neither the database nor the archive", id)
		}
	}
	for id, sid := range before.ids {
		if _, ok := now.ids[id]; !ok && !archived[id] {
			t.Fatalf("message %d of session %s is in neither the database nor the archive", id, sid)
		}
	}
}
