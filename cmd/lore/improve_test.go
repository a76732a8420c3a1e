package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// improveRepo is a git repository with a bench scoring src/AREA.txt by
// its "ok" lines, alpha at 1/5 and beta at 3/5.
func improveRepo(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("lore improve's tests run shell scripts")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	files := map[string]string{
		"bench/score.sh": "#!/bin/sh\nfor a in alpha beta; do\n  p=$(grep -c '^ok$' \"src/$a.txt\" || true)\n  echo \"$a: $p/5\"\ndone\n",
		"src/alpha.txt":  "ok\n",
		"src/beta.txt":   "ok\nok\nok\n",
	}
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func TestImproveCommands(t *testing.T) {
	repo := improveRepo(t)
	home := t.TempDir()
	agent := filepath.Join(home, "agent.sh")
	os.WriteFile(agent, []byte("#!/bin/sh\necho ok >> \"src/$LORE_IMPROVE_AREA.txt\"\necho 'approach: one more ok'\n"), 0o755)
	lore := func(args ...string) result {
		env := testEnv(home, nil)
		env.Cwd = repo
		return runIn(t, env, "", nil, args...)
	}
	// Two rounds: alpha is src/, which is protected (not tests or data),
	// so the first is held; then --approve '**' keeps the second.
	r := lore("improve", "run", "--bench", "sh bench/score.sh", "--agent", "sh "+agent)
	if r.code != 0 || !strings.Contains(r.stdout, "1 change(s) wait for approval") {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.err)
	}
	r = lore("improve", "pending", "--json")
	var p struct {
		N         int      `json:"n"`
		Protected []string `json:"protected"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil || p.N != 1 || p.Protected[0] != "src/alpha.txt" {
		t.Fatalf("pending: %v %s", err, r.stdout)
	}
	if r = lore("improve", "approve", "1"); r.code != 0 || !strings.Contains(r.stdout, "Approved 1") {
		t.Fatalf("approve: %d %s %s", r.code, r.stdout, r.err)
	}
	if r = lore("improve", "run", "--bench", "sh bench/score.sh", "--agent", "sh "+agent, "--approve", "**", "--rounds", "1"); r.code != 0 {
		t.Fatalf("run 2: %d %s %s", r.code, r.stdout, r.err)
	}
	r = lore("improve", "status", "--json")
	var s struct {
		Running  bool                      `json:"running"`
		Round    int                       `json:"round"`
		Total    float64                   `json:"total"`
		OverTime []struct{ Total float64 } `json:"points_over_time"`
		Last     struct{ Outcome string }  `json:"last"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("status: %v %s", err, r.stdout)
	}
	if s.Running || s.Round != 2 || s.Total != 6 || len(s.OverTime) != 2 || s.OverTime[1].Total != 6 || s.Last.Outcome != "kept" {
		t.Errorf("status %+v", s)
	}
	r = lore("improve", "report")
	for _, w := range []string{"| 1 |", "held", "| 2 |", "kept", "5→6"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("report lacks %q:\n%s", w, r.stdout)
		}
	}
	// The journal got both rounds.
	r = lore("journal", "similar", "improve alpha", "--json", "--all-repos")
	if n := strings.Count(r.stdout, "\n"); n != 2 {
		t.Errorf("journal: %d attempts\n%s%s", n, r.stdout, r.err)
	}
	if r = lore("improve", "stop"); r.code != 0 || !strings.Contains(r.stdout, "was not running") {
		t.Errorf("stop: %d %s %s", r.code, r.stdout, r.err)
	}
	for _, bad := range [][]string{
		{"improve", "run", "--bench", "x"},
		{"improve", "run", "--bench", "x", "--agent", "y", "--forever", "--rounds", "2"},
		{"improve", "run", "--bench", "x", "--agent", "y", "--on-stuck", "later"},
		{"improve", "approve", "first"},
	} {
		if r := lore(bad...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, r.code, r.err)
		}
	}
}
