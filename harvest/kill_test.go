package harvest

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/internal/testenv"
	"github.com/lorehq/lore/sqlite"
)

// buildLore builds the lore command into a temporary folder.
func buildLore(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "lore")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/lore").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// storedState is what a store holds, for comparing two.
func storedState(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of %s: %q, %v", path, check, err)
	}
	if _, err := db.Exec(`INSERT INTO items_fts (items_fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		t.Fatalf("the full-text index of %s: %v", path, err)
	}
	db.Close()
	st, err := sqlite.Open(context.Background(), path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	state := map[string]string{}
	st.Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		state[it.ID] = fmt.Sprintf("%s|%s|%.4f|%d|%s", it.Text, it.Status, it.Confidence, it.SourceCount, it.Repo)
		return nil
	})
	return state
}

// TestHarvestKilled kills lore harvest at random moments, runs it again
// to the end, and expects the store a run never killed leaves.
func TestHarvestKilled(t *testing.T) {
	testenv.SkipUnlessSlow(t, "builds lore and kills it sixty times")
	bin := buildLore(t)
	corpus := t.TempDir()
	if _, err := synth.Write(corpus, synth.Options{Format: "claude-code", Bytes: 6 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		turns := sessionOne()
		if i%2 == 1 {
			turns = append(sessionTwo(), turns[1:8]...)
		}
		writeClaude(t, corpus, fmt.Sprintf("rich-%02d", i), fmt.Sprintf("/home/dev/repo%d", i%7), turns)
	}
	run := func(store string) *exec.Cmd {
		cmd := exec.Command(bin, "harvest", corpus, "--store", store, "--json")
		cmd.Env = append(os.Environ(), "LORE_HOME="+t.TempDir())
		return cmd
	}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.db")
	start := time.Now()
	out, err := run(ref).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("harvest: %v\n%s", err, stderr)
	}
	full := time.Since(start)
	t.Logf("a whole harvest: %s", full)
	var sum Summary
	if err := json.Unmarshal(out, &sum); err != nil || sum.ItemsNew == 0 {
		t.Fatalf("harvest --json: %v %s", err, out)
	}
	want := storedState(t, ref)

	killed := filepath.Join(dir, "killed.db")
	r := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		cmd := run(killed)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int64N(int64(full))))
		cmd.Process.Kill()
		cmd.Wait()
	}
	if out, err := run(killed).Output(); err != nil {
		t.Fatalf("harvest after kills: %v\n%s", err, out)
	}
	got := storedState(t, killed)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after kills, %d items; a run never killed stored %d; they differ", len(got), len(want))
		for id, v := range want {
			if got[id] != v {
				t.Logf("%s: want %s, got %s", id, v, got[id])
			}
		}
	}
	// A last run finds nothing to do.
	out, err = run(killed).Output()
	if err != nil {
		t.Fatal(err)
	}
	var again Summary
	json.Unmarshal(out, &again)
	if again.SessionsHarvested != 0 || again.ItemsNew+again.ItemsMerged != 0 {
		t.Errorf("a run after the job was done: %+v", again)
	}
}
