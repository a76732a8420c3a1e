package tour

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestTour runs the tour and checks that the loop it shows really
// happens: boot hands the later session the push pitfall, the session
// cites it, and measure counts the citation, the recurrence and what
// replay would have delivered.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if !strings.Contains(res.Recall.Text, "GH006") || !strings.Contains(res.Recall.Text, "not instructions") || len(res.Recall.Items) != 1 {
		t.Errorf("the note before git push origin main: %+v", res.Recall)
	}
	if !strings.Contains(res.Boot.Text, "GH006") {
		t.Errorf("the boot context lacks the push pitfall:\n%s", res.Boot.Text)
	}
	m := res.Metrics
	if m.Sessions != 6 || m.HitRate.Boots != 1 || m.HitRate.Cited < 1 {
		t.Errorf("hit rate %+v over %d sessions; want the later session's citation counted", m.HitRate, m.Sessions)
	}
	if m.Recurrence.SessionsHitKnown < 1 {
		t.Errorf("recurrence %+v; want the second push session to meet a known error", m.Recurrence)
	}
	if k := m.WouldHaveKnown; k.Known < 1 || k.Delivered < 1 || k.Delivered > k.Known {
		t.Errorf("would-have-known %+v; want the repeated push error known and delivered", k)
	}
	pushKnown := false
	for _, s := range m.WouldHaveKnown.BySession {
		for _, e := range s.Errors {
			if s.Repo == "acme/api" && strings.Contains(e.Signature, "gh006") && e.Known && e.Delivered && e.ItemID != "" {
				pushKnown = true
			}
		}
	}
	if !pushKnown {
		t.Errorf("would-have-known by session %+v; want the second push session's error known, with its item, and delivered", m.WouldHaveKnown.BySession)
	}
	// Three agents, four repositories: acme/api, the remote two sessions
	// in acme-api pushed to, which the third there shares (a fifth,
	// acme-api, would split them), and the others named by their folders.
	agents, repos := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && strings.HasPrefix(f[0], "2026-") {
			agents[f[2]], repos[f[3]] = true, true
		}
	}
	if len(agents) != 3 || !agents["gemini-cli"] || !agents["codex"] || !agents["claude-code"] {
		t.Errorf("step 1 lists the agents %v; want claude-code, codex and gemini-cli", agents)
	}
	for _, r := range []string{"acme/api", "acme-web", "acme-widgets", "acme-docs"} {
		if !repos[r] {
			t.Errorf("step 1 lists the repositories %v; want %s among them", repos, r)
		}
	}
	if len(repos) != 4 {
		t.Errorf("step 1 lists the repositories %v; want four, named alike", repos)
	}
	if !strings.Contains(out.String(), "`getting-started.md` is in `content/guide/getting-started.md`") {
		t.Error("the Gemini CLI session's fact (where the page it failed to read really is) was not harvested")
	}
	if _, err := os.Stat(res.Dir); !os.IsNotExist(err) {
		t.Errorf("the tour left %s behind", res.Dir)
	}
	for _, step := range []string{"1. Read", "2. Rank", "3. Harvest", "4. A new", "5. Before a command", "6. The session", "7. Measure"} {
		if !strings.Contains(out.String(), step) {
			t.Errorf("the tour does not print step %q", step)
		}
	}
}
