package web

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/improve"
)

// heldRepo is a repository on which a real lore improve run held two
// changes for a person: its agent touches a protected file. A secret the
// agent wrote into the change is in its diff.
func heldRepo(t *testing.T) string {
	if runtime.GOOS == "windows" {
		t.Skip("lore improve's bench here is a shell script")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	for rel, text := range map[string]string{
		"bench/score.sh": "#!/bin/sh\np=$(grep -c '^ok$' src/alpha.txt || true)\necho \"alpha: ${p:-0}/5\"\n",
		"src/alpha.txt":  "ok\n",
	} {
		p := filepath.Join(repo, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	agent := filepath.Join(t.TempDir(), "agent.sh")
	os.WriteFile(agent, []byte("#!/bin/sh\necho ok >> src/alpha.txt\necho 'token=ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d' >> src/alpha.txt\necho 'approach: one more ok'\n"), 0o755)
	c := improve.Config{Repo: repo, Bench: "sh bench/score.sh", Agent: "sh " + agent, Rounds: 2, Protect: []string{"src/alpha.txt"},
		BenchTimeout: 20 * time.Second, AgentTimeout: 20 * time.Second}
	if err := improve.Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	s, _, err := improve.ReadStatus(context.Background(), repo)
	if err != nil || len(s.Pending) == 0 {
		t.Fatalf("the run held nothing: %+v, %v", s.Pending, err)
	}
	return repo
}

// TestImprovePage: the improve page lists the changes waiting for a
// person with their diffs, redacted, and approves and rejects them as
// lore improve approve and reject do; a read-only view offers neither.
func TestImprovePage(t *testing.T) {
	f := newFixture(t)
	repo := heldRepo(t)
	c := newClient(t, f.store, Options{Writes: true, ImproveDir: repo})
	code, page := c.get("/improve")
	page = html.UnescapeString(page)
	if code != http.StatusOK || !strings.Contains(page, "Change 1: alpha") || !strings.Contains(page, "+ok") ||
		!strings.Contains(page, `id="approve-1"`) {
		t.Fatalf("the improve page: %d\n%s", code, page)
	}
	if strings.Contains(page, "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d") {
		t.Errorf("the diff shows a secret")
	}
	csrf := c.csrf("/improve")
	if code, _ := c.post("/improve/1/approve", url.Values{}); code != http.StatusForbidden {
		t.Errorf("approve without the CSRF token: %d, want 403", code)
	}
	code, page = c.post("/improve/1/approve", url.Values{"csrf": {csrf}})
	if code != http.StatusOK || !strings.Contains(page, "Approved change 1") {
		t.Errorf("approve: %d\n%s", code, page)
	}
	s, _, err := improve.ReadStatus(context.Background(), repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Pending {
		if p.N == 1 {
			t.Errorf("change 1 still waits after its approval")
		}
	}
	if code, page := c.post("/improve/1/reject", url.Values{"csrf": {csrf}}); code != http.StatusConflict || !strings.Contains(page, "not rejected") {
		t.Errorf("rejecting an approved change: %d\n%s", code, page)
	}
	if code, _ := c.post("/improve/x/reject", url.Values{"csrf": {csrf}}); code != http.StatusNotFound {
		t.Errorf("a change that is no number: %d, want 404", code)
	}

	ro := newClient(t, f.store, Options{ImproveDir: repo})
	if _, page := ro.get("/improve"); strings.Contains(page, `id="approve-`) {
		t.Errorf("a read-only view offers to approve")
	}
}
