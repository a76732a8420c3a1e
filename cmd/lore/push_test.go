package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/synth"
)

// writePushSession writes synth.ClaudePushSession of session id, in a
// folder named api, to dir; user is what the user wrote (secrets planted).
func writePushSession(t *testing.T, dir, id, user string) string {
	t.Helper()
	cwd := filepath.Join(dir, "api")
	os.MkdirAll(cwd, 0o755)
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, []byte(synth.ClaudePushSession(id, cwd, "Push the retry fix. "+user)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// harvested reports whether the server's store has a harvest record of
// the Claude Code session id.
func (s *teamServer) harvested(t *testing.T, id string) bool {
	t.Helper()
	found := false
	s.store(t).Harvests(context.Background(), func(h lore.Harvest) error {
		found = found || strings.HasSuffix(h.Session, id)
		return nil
	})
	return found
}

func readPushState(t *testing.T, home string) pushState {
	t.Helper()
	var st pushState
	b, err := os.ReadFile(filepath.Join(home, pushStateFile))
	if err != nil || json.Unmarshal(b, &st) != nil {
		t.Fatalf("push-state.json: %v %s", err, b)
	}
	return st
}

// TestPush: a push sends what is new, once, redacted; with the server
// down it queues, and the next push sends the queue.
func TestPush(t *testing.T) {
	s := newTeamServer(t)
	home := t.TempDir()
	env := s.env()
	env["LORE_HOME"] = home
	dir := t.TempDir()
	secrets := knownSecrets(rand.New(rand.NewPCG(7, 24)))[:8]
	var planted []string
	for _, p := range secrets {
		planted = append(planted, p.line)
	}
	writePushSession(t, dir, "0b6c1a52-6f0e-4c7e-9b1a-000000000001", strings.Join(planted, "\n"))

	r := runLoreStdin(t, env, "", "push", dir, "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "1 to send") || s.harvested(t, "000000000001") {
		t.Fatalf("push --dry-run: exit %d %q %q", r.code, r.stdout, r.err)
	}
	r = runLoreStdin(t, env, "", "push", dir, "--json")
	var sum pushSummary
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Sent != 1 || sum.Queued != 0 || sum.Sessions != 1 || sum.Redactions == 0 {
		t.Fatalf("push: exit %d %q %q", r.code, r.stdout, r.err)
	}
	s.Drain()
	if !s.harvested(t, "000000000001") {
		t.Fatal("the server did not harvest the session pushed")
	}
	hits, err := s.store(t).Search(context.Background(), lore.Query{Text: "push main protected", Filter: lore.Filter{Repo: "api"}})
	if err != nil || len(hits) == 0 || hits[0].Category != lore.CategoryPitfall {
		t.Errorf("the server's store has %v (%v), want the session's pitfall in repo api", hits, err)
	}
	// Nothing twice.
	if r := runLoreStdin(t, env, "", "push", dir, "--json"); r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil || sum.Sent != 0 {
		t.Errorf("second push: exit %d %q %q; want nothing sent", r.code, r.stdout, r.err)
	}

	// The server down: the new session is queued, exit 1.
	s.Stop()
	writePushSession(t, dir, "0b6c1a52-6f0e-4c7e-9b1a-000000000002", "")
	r = runLoreStdin(t, env, "", "push", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "0 sent") || !strings.Contains(r.stdout, "1 queued") {
		t.Fatalf("push with the server down: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if st := readPushState(t, home); len(st.Servers[s.URL].Queue) != 1 || !strings.HasSuffix(st.Servers[s.URL].Queue[0], "000000000002.jsonl") {
		t.Errorf("the queue: %+v", st.Servers[s.URL])
	}
	// Up again: a push of nothing new sends the queue.
	s.Restart()
	r = runLoreStdin(t, env, "", "push", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "1 sent") {
		t.Fatalf("push after: exit %d %q %q", r.code, r.stdout, r.err)
	}
	s.Drain()
	if !s.harvested(t, "000000000002") {
		t.Error("the queued session was not harvested")
	}
	if st := readPushState(t, home); len(st.Servers[s.URL].Queue) != 0 {
		t.Errorf("the queue after: %+v", st.Servers[s.URL].Queue)
	}

	// No planted secret reached the server, on its disk (the uploads are
	// in lore.db) or in its store.
	filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, sec := range secrets {
			if strings.Contains(string(b), sec.value) {
				t.Errorf("%s (%s) reached the server's %s", sec.kind, sec.value, p)
			}
		}
		return nil
	})
	s.store(t).Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		for _, sec := range secrets {
			if strings.Contains(it.Text, sec.value) {
				t.Errorf("%s reached the server's item %s", sec.kind, it.ID)
			}
		}
		return nil
	})
	kept := 0
	s.Teams.UploadBodies(context.Background(), "acme", func(lore.QueuedUpload) error { kept++; return nil })
	if kept != 2 {
		t.Errorf("the server keeps %d uploads, want the two transcripts", kept)
	}

	// A file the server cannot read as a transcript is refused, and not
	// sent again until it changes.
	junk := filepath.Join(t.TempDir(), "notes.jsonl")
	os.WriteFile(junk, []byte("not a transcript\n"), 0o600)
	if r := runLoreStdin(t, env, "", "push", junk); r.code != 1 || !strings.Contains(r.stdout, "1 refused") || !strings.Contains(r.err, "not sent") {
		t.Errorf("push of a file that is no transcript: exit %d %q %q", r.code, r.stdout, r.err)
	}
	if r := runLoreStdin(t, env, "", "push", junk); r.code != 0 || !strings.Contains(r.stdout, "nothing new") {
		t.Errorf("push of it again: exit %d %q %q", r.code, r.stdout, r.err)
	}

	// A session the settings leave alone stays here.
	private := t.TempDir()
	writePushSession(t, private, "0b6c1a52-6f0e-4c7e-9b1a-000000000005", "")
	if r := runLoreStdin(t, env, "", "config", "set", "sessions.exclude_paths", private+"/*"); r.code != 0 {
		t.Fatalf("config set: %q", r.err)
	}
	if r := runLoreStdin(t, env, "", "push", private); r.code != 0 || !strings.Contains(r.stdout, "1 passed over") || s.harvested(t, "000000000005") {
		t.Errorf("push of an excluded session: exit %d %q %q", r.code, r.stdout, r.err)
	}

	// Not a server: push says what it needs.
	if r := runLoreStdin(t, map[string]string{"LORE_HOME": home}, "", "push", dir); r.code != 2 || !strings.Contains(r.err, "LORE_STORE") {
		t.Errorf("push to a file store: exit %d %q", r.code, r.err)
	}
}

// TestSessionEndPushes: with a server for a store, Claude Code's
// SessionEnd hook (lore harvest --from-hook) pushes the session in a
// detached process, and the server harvests it.
func TestSessionEndPushes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	s := newTeamServer(t)
	home := t.TempDir()
	env := s.env()
	env["LORE_HOME"] = home
	src := writePushSession(t, t.TempDir(), "0b6c1a52-6f0e-4c7e-9b1a-000000000003", "")
	var started []string
	// The push it starts is this test binary, running lore (TestMain), in
	// the environment the hook's process has.
	startTestBinary := func(f *factory) {
		f.SelfCommand = func(args ...string) (*exec.Cmd, error) {
			started = args
			b, _ := json.Marshal([][]string{args})
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(b), "LORE_TOKEN="+s.token, "LORE_HOME="+home)
			return cmd, nil
		}
	}
	in := `{"session_id":"0b6c1a52-6f0e-4c7e-9b1a-000000000003","transcript_path":"` + src + `","cwd":"/tmp","hook_event_name":"SessionEnd","reason":"exit"}`
	r := runIn(t, testEnv(t.TempDir(), env), in, startTestBinary, "harvest", "--from-hook")
	if r.code != 0 || r.stdout != "" || len(started) < 4 || started[0] != "push" || started[1] != src || started[3] != s.URL {
		t.Fatalf("exit %d, %q, %q, started %v", r.code, r.stdout, r.err, started)
	}
	for _, a := range started {
		if strings.Contains(a, s.token) {
			t.Fatal("the token is in the push's arguments")
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for !s.harvested(t, "000000000003") {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(home, "hook-push.log"))
			t.Fatalf("the server did not harvest the session within 30 s; the push's log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The server down: the hook still exits 0 at once, and the push it
	// starts queues the session.
	s.Stop()
	src2 := writePushSession(t, t.TempDir(), "0b6c1a52-6f0e-4c7e-9b1a-000000000004", "")
	in = strings.ReplaceAll(in, src, src2)
	if r := runIn(t, testEnv(t.TempDir(), env), in, startTestBinary, "harvest", "--from-hook"); r.code != 0 || r.stdout != "" {
		t.Fatalf("with the server down: exit %d, %q, %q", r.code, r.stdout, r.err)
	}
	for {
		b, _ := os.ReadFile(filepath.Join(home, pushStateFile))
		if strings.Contains(string(b), "000000000004.jsonl") {
			if st := readPushState(t, home); len(st.Servers[s.URL].Queue) == 1 {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(home, "hook-push.log"))
			t.Fatalf("the push did not queue the session; its log:\n%s", log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Two pushes at once (two sessions ending): what each sent or queued
// stays in the state file, whichever saves last.
func TestPushStateMerges(t *testing.T) {
	path := filepath.Join(t.TempDir(), pushStateFile)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const url = "https://lore.acme.dev:7077"
	theirs := &pushState{Servers: map[string]*serverState{url: {
		Sent:  map[string]pushedFile{"/a": {Hash: "a", At: t0}, "/b": {Hash: "b0", At: t0}, "/c": {Hash: "c0", At: t0}},
		Queue: []string{"/b", "/c", "/d"}, // b and c changed since they went, d is new
	}}}
	ours := &pushState{Servers: map[string]*serverState{}}
	ss := ours.server(url)
	ss.Sent["/c"] = pushedFile{Hash: "c1", At: t0.Add(time.Minute)} // this push sent c as it now is
	ss.Sent["/e"] = pushedFile{Hash: "e", At: t0.Add(time.Minute)}
	ss.Queue = []string{"/f"}
	if err := theirs.save(path); err != nil {
		t.Fatal(err)
	}
	if err := ours.save(path); err != nil {
		t.Fatal(err)
	}
	got, err := loadPushState(path)
	if err != nil {
		t.Fatal(err)
	}
	g := got.server(url)
	var sent []string
	for p, f := range g.Sent {
		sent = append(sent, p+"="+f.Hash)
	}
	slices.Sort(sent)
	slices.Sort(g.Queue)
	if strings.Join(sent, " ") != "/a=a /b=b0 /c=c1 /e=e" || strings.Join(g.Queue, " ") != "/b /d /f" {
		t.Errorf("merged: sent %v, queue %v", sent, g.Queue)
	}
}
