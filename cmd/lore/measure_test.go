package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/measure"
)

// tourSessions copies the tour's example sessions into a fresh folder, the
// Codex one with the git remote acme/widgets (as Codex records it) so that
// one repository is named owner/name, and returns the folder.
func tourSessions(t *testing.T) string {
	t.Helper()
	src, dst := filepath.Join("..", "..", "tour", "sessions"), t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == "02-widgets-build.jsonl" {
			b = []byte(strings.Replace(string(b), `"branch":"main"}`, `"branch":"main","repository_url":"git@github.com:acme/widgets.git"}`, 1))
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestMeasure(t *testing.T) {
	dir := tourSessions(t)
	st := newTestStore(t)
	st.must("harvest", dir)

	tests := []struct {
		name string
		args []string
		want []string // in stdout
		// check looks at --json output.
		check func(t *testing.T, m measure.Metrics)
	}{
		{
			name: "text",
			args: []string{"measure", dir},
			want: []string{
				"6 sessions measured\n",
				"coverage          6 of 6 sessions harvested (100%), 4 of 4 repositories\n",
				"hit rate          no data",
				"first-try success 1 of 6 sessions with tool calls had none fail (17%)",
				"cost              median session ",
				"knowledge         ",
				"would-have-known  6 sessions replayed in time order, 7 errors met\n",
				"  sessions that met an error lore knew, latest first:\n",
				"delivered lore:",
			},
		},
		{
			name: "json",
			args: []string{"measure", dir, "--json"},
			check: func(t *testing.T, m measure.Metrics) {
				if m.Sessions != 6 || m.Coverage.SessionsHarvested != 6 || m.Velocity.Items == 0 {
					t.Errorf("sessions %d, coverage %+v, velocity %+v", m.Sessions, m.Coverage, m.Velocity)
				}
				if len(m.WouldHaveKnown.BySession) == 0 || m.WouldHaveKnown.Known == 0 {
					t.Errorf("would-have-known %+v; want the sessions that met errors", m.WouldHaveKnown)
				}
			},
		},
		{
			// A bare name matches the remote's owner/name, in the sessions
			// and in the items.
			name: "repo by name",
			args: []string{"measure", dir, "--repo", "widgets", "--json"},
			check: func(t *testing.T, m measure.Metrics) {
				if m.Sessions != 1 || m.Velocity.Items == 0 || m.Coverage.SessionsHarvested != 1 {
					t.Errorf("--repo widgets: %d sessions, %d items, coverage %+v; want acme/widgets's session and items",
						m.Sessions, m.Velocity.Items, m.Coverage)
				}
			},
		},
		{
			name: "since",
			args: []string{"measure", dir, "--since", "2026-05-08", "--json"},
			check: func(t *testing.T, m measure.Metrics) {
				if m.Sessions != 1 || m.Since != "2026-05-08" {
					t.Errorf("--since 2026-05-08: %d sessions, since %q; want the session after boot alone", m.Sessions, m.Since)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := st.lore(tt.args...)
			if r.code != 0 {
				t.Fatalf("lore %s: exit %d: %s", strings.Join(tt.args, " "), r.code, r.err)
			}
			for _, s := range tt.want {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, r.stdout)
				}
			}
			if tt.check == nil {
				return
			}
			var m measure.Metrics
			if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
				t.Fatalf("--json: %v\n%s", err, r.stdout)
			}
			var fields map[string]json.RawMessage
			json.Unmarshal([]byte(r.stdout), &fields)
			for _, k := range []string{"velocity", "coverage", "hit_rate", "recurrence", "first_try_success", "outcomes", "per_session", "knowledge", "would_have_known"} {
				if len(fields[k]) == 0 || string(fields[k]) == "null" {
					t.Errorf("--json lacks %q", k)
				}
			}
			tt.check(t, m)
		})
	}
}

// TestMeasureReplayNeedsNoStore: would-have-known replays into a store of
// its own, so a damaged store stops lore measure but not --replay.
func TestMeasureReplayNeedsNoStore(t *testing.T) {
	dir := tourSessions(t)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".lore"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".lore", "lore.db"), []byte("junk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runLore(t, home, "measure", dir); r.code != 1 || !strings.Contains(r.err, "not a lore store") {
		t.Errorf("lore measure on a damaged store: exit %d, stderr %q; want exit 1 saying so", r.code, r.err)
	}
	r := runLore(t, home, "measure", "--replay", dir, "--json")
	if r.code != 0 {
		t.Fatalf("lore measure --replay on a damaged store: exit %d: %s", r.code, r.err)
	}
	var k measure.WouldHaveKnown
	if err := json.Unmarshal([]byte(r.stdout), &k); err != nil {
		t.Fatalf("--replay --json: %v\n%s", err, r.stdout)
	}
	if k.Sessions != 6 || k.Known == 0 || len(k.BySession) == 0 {
		t.Errorf("--replay --json: %+v", k)
	}
	r = runLore(t, home, "measure", "--replay", dir)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "would-have-known  6 sessions replayed") || strings.Contains(r.stdout, "velocity") {
		t.Errorf("lore measure --replay: exit %d, stdout %q, stderr %q; want would-have-known alone", r.code, r.stdout, r.err)
	}
}

// TestWriteMetricsNoData: with nothing measured, every share says "no
// data" and no line gives a percentage.
func TestWriteMetricsNoData(t *testing.T) {
	var b strings.Builder
	writeMetrics(&b, measure.Metrics{Sessions: 1, Outcomes: map[string]int{}})
	out := b.String()
	for _, s := range []string{"1 session measured\n", "no data per million tokens harvested", "hit rate          no data"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	for _, line := range []string{"velocity ", "coverage ", "hit rate ", "recurrence ", "first-try success ", "cost ", "  known ", "  delivered "} {
		for l := range strings.Lines(out) {
			if strings.HasPrefix(l, line) && !strings.Contains(l, "no data") {
				t.Errorf("%q gives a figure for nothing: %q", strings.TrimSpace(line), l)
			}
		}
	}
	if strings.Contains(out, "%") {
		t.Errorf("a percentage with no data behind it:\n%s", out)
	}
}

// TestWriteReplayCaps: the sessions where an error was known, latest
// first, at most replayShown of them.
func TestWriteReplayCaps(t *testing.T) {
	k := measure.WouldHaveKnown{Sessions: 20, Errors: 20, Known: 18, Delivered: 1,
		Episodes: measure.EpisodeRecall{SeenBefore: 8, AgentTool: 3, Found: 6, FoundFirst: 5, WithFix: 3, MedianMillis: 1.25, P95Millis: 4,
			MedianTokens: 120}}
	for i := range 20 {
		e := measure.ReplayedError{Signature: "git push: gh006", Known: i >= 2, Delivered: i == 19}
		if e.Known {
			e.ItemID = "a338f3117b2c"
		}
		k.BySession = append(k.BySession, measure.ReplayedSession{Session: "codex:" + strings.Repeat("x", i+1), Agent: "codex", Errors: []measure.ReplayedError{e}})
	}
	var b strings.Builder
	writeReplay(&b, k)
	out := b.String()
	for _, s := range []string{
		"would-have-known  20 sessions replayed in time order, 20 errors met\n",
		"  known           18 of 20 errors taught by an earlier session (90%)\n",
		"  delivered       1 of 20 errors in the boot context of the session (5%)\n",
		"codex:" + strings.Repeat("x", 20) + ": 1 of 1 known, 1 delivered\n      delivered lore:a338f311  git push: gh006\n",
		"    … 3 more (--json lists all)\n",
		"  episodes        6 of 8 errors met before named an earlier occurrence in the top 5 (75%) (5 first; 3 of them errors of the agent's own tools)\n" +
			"                  3 of 6 found with the call that got past it (50%); median 1.2 ms (95th percentile 4.0), median 120 tokens\n",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, ": 1 of 1 known"); n != replayShown {
		t.Errorf("%d sessions listed, want %d", n, replayShown)
	}
}
