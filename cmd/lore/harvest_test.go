package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
		{"harvest", dir, "--store", store, "--agent", "windsurf"},
		{"harvest", dir, "--store", store, "--rebuild", "--dry-run"},
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
	// It ends with where the store is and the next step.
	if !strings.Contains(r.err, "the store: "+store+"\nnext: ") {
		t.Errorf("summary: %q; want the store's path and the next step at its end", r.err)
	}
	// --rebuild harvests every session again, saying what it took back.
	r = runLore(t, "", "harvest", dir, "--store", store, "--rebuild", "--json")
	var again map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &again); err != nil || r.code != 0 {
		t.Fatalf("--rebuild --json: exit %d, %q: %v", r.code, r.stdout, err)
	}
	rb, _ := again["rebuild"].(map[string]any)
	if rb == nil || rb["sessions"] != sum["sessions_seen"] || again["sessions_harvested"] != sum["sessions_seen"] {
		t.Errorf("--rebuild: %s; want every session taken back and harvested again", r.stdout)
	}
	r = runLore(t, "", "harvest", dir, "--store", store, "--rebuild")
	if r.code != 0 || !strings.Contains(r.err, "rebuild: took back what") {
		t.Errorf("--rebuild: exit %d, stderr %q", r.code, r.err)
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

// A PATH that is not there fails in one line each, and creates no store.
func TestHarvestMissingPath(t *testing.T) {
	store := filepath.Join(t.TempDir(), "lore.db")
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	r := runLore(t, "", "harvest", missing, "--store", store)
	if r.code != 1 || !strings.Contains(r.err, missing+": no such file or directory") || !strings.Contains(r.err, "no session could be read") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	if _, err := os.Stat(store); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("harvest of a missing path created the store: %v", err)
	}
	// Beside a path that is there, the missing one is a problem of the run.
	r = runLore(t, "", "harvest", fixtures(t), missing, "--store", store, "--json")
	if r.code != 0 || !strings.Contains(r.err, missing) {
		t.Errorf("exit %d, stderr %q", r.code, r.err)
	}
}

// An unreadable transcript is an error in the count and a line on
// stderr, and the others are harvested.
func TestHarvestUnreadableTranscripts(t *testing.T) {
	dir := fixtures(t)
	for name, b := range map[string]string{
		"garbage.jsonl":       "{not json\n\x00\x01\x02",
		"rollout-x.jsonl.zst": "\x28\xb5\x2f\xfd\x00\x00garbage",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(t.TempDir(), "lore.db")
	r := runLore(t, "", "harvest", dir, "--store", store, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	var sum struct {
		Harvested int `json:"sessions_harvested"`
		Errors    int
		Problems  []struct{ Path, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if sum.Errors != 2 || len(sum.Problems) != 2 || sum.Harvested == 0 {
		t.Errorf("two unreadable transcripts beside good ones: %s", r.stdout)
	}
	for _, name := range []string{"garbage.jsonl", "rollout-x.jsonl.zst"} {
		if strings.Count(r.err, name) != 1 {
			t.Errorf("stderr names %s %d times, want once:\n%s", name, strings.Count(r.err, name), r.err)
		}
	}
	r = runLore(t, "", "harvest", dir, "--store", store)
	if !strings.Contains(r.err, "2 errors") {
		t.Errorf("summary: %s", r.err)
	}
}

// A key the model's API refuses ends the run: exit 1, one line naming
// the variable, whatever the number of sessions.
func TestHarvestRefusedKey(t *testing.T) {
	dir := fixtures(t)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
	}))
	defer srv.Close()
	r := runLore(t, "", "harvest", dir, "--store", filepath.Join(t.TempDir(), "lore.db"),
		"--llm", "openai:"+srv.URL+"/v1", "--model", "m", "--json")
	if r.code != 1 || !strings.Contains(r.err, "OPENAI_API_KEY") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want 1 and one line naming OPENAI_API_KEY", r.code, r.err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests after the key was refused; want 1", calls.Load())
	}
}

// Sessions whose model answers were all unusable are named in the
// summary and not recorded: the next run asks again.
func TestHarvestUnusableAnswersNamed(t *testing.T) {
	dir := fixtures(t)
	store := filepath.Join(t.TempDir(), "lore.db")
	for run := range 2 {
		r := runLore(t, "", "harvest", dir, "--store", store, "--llm", `exec:sh -c "cat >/dev/null; echo Sorry, I cannot."`)
		if r.code != 0 || !strings.Contains(r.err, "no usable answer at all for claude-code:") || !strings.Contains(r.err, "asked again next run") {
			t.Errorf("run %d: exit %d, stderr:\n%s", run+1, r.code, r.err)
		}
		if strings.Contains(r.err, "unchanged or lore's own") && !strings.Contains(r.err, " 0 unchanged") {
			t.Errorf("run %d skipped sessions it never harvested:\n%s", run+1, r.err)
		}
	}
}

// TestHarvestLLMUnreachable: with no server where --llm points, harvest
// stops at the first request, exit 1, one line naming the URL, and
// records nothing (the next run asks again).
func TestHarvestLLMUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	store := filepath.Join(t.TempDir(), "lore.db")
	r := runLore(t, "", "harvest", fixtures(t), "--llm", "openai:http://"+addr+"/v1", "--model", "m", "--store", store, "--json")
	if r.code != 1 || !strings.Contains(r.err, "http://"+addr+"/v1") || strings.Count(r.err, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 1 and one line naming the URL", r.code, r.err)
	}
}

// TestHarvestDryRunCountsMerges: a dry run on a store counts what a real
// run would do, merges into the store's items included, and leaves the
// store as it was.
func TestHarvestDryRunCountsMerges(t *testing.T) {
	base := t.TempDir()
	session := func(name, id string) string {
		dir := filepath.Join(base, name)
		os.MkdirAll(dir, 0o755)
		line := func(i int, typ string, msg any) string {
			b, _ := json.Marshal(map[string]any{"type": typ, "uuid": fmt.Sprint(id, i), "sessionId": id, "cwd": "/home/dev/api",
				"timestamp": fmt.Sprintf("2026-09-03T10:00:%02d.000Z", i), "message": msg})
			return string(b)
		}
		call := func(cid, cmd string) map[string]any {
			return map[string]any{"id": "msg_" + cid, "role": "assistant", "model": "claude-sonnet-4", "content": []any{
				map[string]any{"type": "tool_use", "id": cid, "name": "Bash", "input": map[string]any{"command": cmd}}}}
		}
		result := func(cid, out string, failed bool) map[string]any {
			return map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": cid, "content": out, "is_error": failed}}}
		}
		lines := []string{
			line(1, "user", map[string]any{"role": "user", "content": "Push the fix."}),
			line(2, "assistant", call(id+"1", "git push origin main")),
			line(3, "user", result(id+"1", "Exit code 1\nremote: error: GH006: Protected branch update failed for refs/heads/main.", true)),
			line(4, "assistant", call(id+"2", "git push -u origin fix")),
			line(5, "user", result(id+"2", "branch 'fix' set up to track 'origin/fix'.", false)),
		}
		p := filepath.Join(dir, id+".jsonl")
		os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
		return p
	}
	first, second := session("a", "11111111-0000-4000-8000-000000000001"), session("b", "22222222-0000-4000-8000-000000000002")
	store := filepath.Join(t.TempDir(), "lore.db")
	if r := runLore(t, "", "harvest", first, "--store", store); r.code != 0 {
		t.Fatalf("harvest: %s", r.err)
	}
	before, _ := os.ReadFile(store)
	count := func(args ...string) map[string]any {
		r := runLore(t, "", append([]string{"harvest", second, "--store", store, "--json"}, args...)...)
		var sum map[string]any
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
			t.Fatalf("harvest %v: exit %d, %q %q", args, r.code, r.stdout, r.err)
		}
		return sum
	}
	dry := count("--dry-run")
	if after, _ := os.ReadFile(store); !bytes.Equal(before, after) {
		t.Error("the dry run changed the store")
	}
	real := count()
	if dry["items_merged"] != real["items_merged"] || dry["items_new"] != real["items_new"] || real["items_merged"] == 0.0 {
		t.Errorf("dry run %v new, %v merged; the real run %v new, %v merged (want the same, and a merge)",
			dry["items_new"], dry["items_merged"], real["items_new"], real["items_merged"])
	}
}

func TestStampWriter(t *testing.T) {
	var b bytes.Buffer
	w := &stampWriter{w: &b, session: "claude-code:s1"}
	for _, part := range []string{"one ", "line\ntwo\n", "", "three"} {
		w.Write([]byte(part))
	}
	lines := strings.Split(b.String(), "\n")
	want := []string{"one line", "two", "three"}
	if len(lines) != 3 {
		t.Fatalf("%q", b.String())
	}
	for i, l := range lines {
		at, rest, _ := strings.Cut(l, " ")
		if _, err := time.Parse(time.RFC3339, at); err != nil || rest != "claude-code:s1: "+want[i] {
			t.Errorf("line %d: %q", i, l)
		}
	}
}
