package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHarvestUsageErrors(t *testing.T) {
	dir := fixtures(t)
	store := filepath.Join(t.TempDir(), "lore.db")
	for _, args := range [][]string{
		{"harvest", dir, "--store", store, "--llm", "ollama"},
		{"harvest", dir, "--store", store, "--llm", "openai:http://localhost:11434/v1"}, // no --model
		{"harvest", dir, "--store", store, "--llm", "exec:"},
		{"harvest", dir, "--store", store, "--llm", "exec:no-such-agent-cli-here -p"},
		{"harvest", dir, "--store", store, "--model", "llama3.1"}, // --model without --llm
		{"harvest", dir, "--store", store, "--top", "-1"},
		{"harvest", dir, "--store", store, "--workers", "-2"},
		{"harvest", dir, "--store", store, "--context-tokens", "100"},
		{"harvest", dir, "--store", store, "--since", "yesterday"},
		{"harvest", dir, "--store", store, "--agent", "cursor"},
	} {
		r := runLore(t, "", args...)
		if r.code != 2 {
			t.Errorf("lore %s: exit %d, want 2 (stderr %q)", strings.Join(args, " "), r.code, r.err)
		}
		if !strings.HasPrefix(r.err, "lore: ") || strings.Count(r.err, "\n") > 2 {
			t.Errorf("lore %s: stderr %q, want a short error", strings.Join(args, " "), r.err)
		}
	}
}

func TestHarvestJSONAndAgain(t *testing.T) {
	dir := fixtures(t)
	store := filepath.Join(t.TempDir(), "lore.db")
	r := runLore(t, "", "harvest", dir, "--store", store, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil || strings.Count(strings.TrimSpace(r.stdout), "\n") != 0 {
		t.Fatalf("--json printed %q: %v; want one object", r.stdout, err)
	}
	for _, k := range []string{"sessions_seen", "sessions_harvested", "sessions_skipped", "items_new", "items_merged",
		"items_superseded", "redactions", "llm_calls", "llm_tokens_in", "llm_tokens_out", "errors", "seconds"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("--json lacks %q: %s", k, r.stdout)
		}
	}
	if sum["sessions_seen"].(float64) == 0 || sum["sessions_harvested"] != sum["sessions_seen"] {
		t.Errorf("first harvest: %s", r.stdout)
	}
	r = runLore(t, "", "harvest", dir, "--store", store, "--json")
	json.Unmarshal([]byte(r.stdout), &sum)
	if sum["sessions_harvested"].(float64) != 0 || sum["sessions_skipped"] != sum["sessions_seen"] {
		t.Errorf("second harvest of the same transcripts: %s; want every session skipped", r.stdout)
	}
	// The human summary goes to stderr, nothing to stdout.
	r = runLore(t, "", "harvest", dir, "--store", store)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.err, "sessions:") {
		t.Errorf("summary: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
}

func TestHarvestDryRunStoresNothing(t *testing.T) {
	dir := fixtures(t)
	store := filepath.Join(t.TempDir(), "lore.db")
	r := runLore(t, "", "harvest", dir, "--store", store, "--dry-run")
	if r.code != 0 || !strings.Contains(r.err, "dry run") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	if _, err := os.Stat(store); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dry run created the store %s: %v", store, err)
	}
}
