package measure

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/memstore"
	"github.com/lorehq/lore/sqlite"
)

// pushSession writes a Claude Code transcript in which a push to main is
// refused as a protected branch and a push of the branch works; cite, when
// set, is an item id the agent cites first. It returns the transcript's
// path.
func pushSession(t *testing.T, dir, id string, at time.Time, cite string) string {
	t.Helper()
	var lines []string
	n := 0
	line := func(typ string, msg any) {
		n++
		b, err := json.Marshal(map[string]any{
			"type": typ, "sessionId": id, "cwd": "/home/dev/api", "gitBranch": "fix",
			"uuid": fmt.Sprintf("%s-%d", id, n), "parentUuid": nil, "isSidechain": false, "userType": "external",
			"timestamp": at.Add(time.Duration(n-1) * time.Minute).Format(time.RFC3339), "message": msg,
		})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	user := func(content any) { line("user", map[string]any{"role": "user", "content": content}) }
	assistant := func(block map[string]any) {
		line("assistant", map[string]any{"role": "assistant", "id": fmt.Sprintf("msg_%s_%d", id, n), "model": "claude-sonnet-4-5",
			"content": []any{block}, "usage": map[string]int{"input_tokens": 1000, "output_tokens": 50}})
	}
	bash := func(call, command, output string, failed bool) {
		assistant(map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]string{"command": command}})
		user([]any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": output, "is_error": failed}})
	}
	user("Push the fix.")
	if cite != "" {
		assistant(map[string]any{"type": "text", "text": "lore's note [lore:" + cite[:8] + "] says main is protected."})
	}
	bash(id+"-1", "git push origin main", "Exit code 1\nremote: error: GH006: Protected branch update failed for refs/heads/main.\n"+
		" ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs", true)
	bash(id+"-2", "git push -u origin fix", "branch 'fix' set up to track 'origin/fix'.\n * [new branch]      fix -> fix", false)
	assistant(map[string]any{"type": "text", "text": "Pushed the branch fix; main only takes pull requests."})
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompute measures hand-built sessions against a store: the counters
// of the sessions are set by hand; the two push sessions are also real
// transcripts, for the signatures, the citation and the replay.
func TestCompute(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	day := func(d, h int) time.Time { return time.Date(2026, 5, d, h, 0, 0, 0, time.UTC) }
	now := day(20, 12)

	sess := func(id, repo string, start, end time.Time, tokens int64, calls, errs int) *lore.Session {
		return &lore.Session{ID: "claude-code:" + id, Agent: lore.AgentClaudeCode, NativeID: id, Path: filepath.Join(dir, id+".jsonl"),
			Repo: repo, StartedAt: start, EndedAt: end, ToolCalls: calls, ToolErrors: errs, Outcome: lore.OutcomeSuccess,
			Usage: lore.Usage{InputTokens: tokens}}
	}
	// The week of May 4: the first push and a night session that ends on
	// the 10th. The week of May 11: the second push, which cites the note,
	// and two sessions whose transcripts record no tokens (as Aider's do).
	s1 := sess("s1", "acme/api", day(4, 9), day(4, 9).Add(10*time.Minute), 10_000, 2, 1)
	s7 := sess("s7", "acme/api", day(9, 22), day(10, 2), 5_000, 0, 0)
	s2 := sess("s2", "acme/api", day(11, 9), day(11, 9).Add(20*time.Minute), 30_000, 2, 1)
	s3 := sess("s3", "acme/api", day(12, 9), day(12, 9).Add(5*time.Minute), 0, 1, 0)
	s6 := sess("s6", "api", day(13, 9), day(13, 9).Add(7*time.Minute), 0, 0, 0)
	s4 := sess("s4", "other/web", day(12, 10), day(12, 11), 99_000, 3, 3) // another repository
	sessions := []*lore.Session{s4, s6, s3, s2, s7, s1}                   // in no order

	st := memstore.New()
	st.Now = func() time.Time { return now }
	// The push pitfall's id is known before s2's transcript, which cites
	// it, is written; its signature is what measure reads from s1's.
	pitfall := lore.Item{Text: "`git push origin main` fails: main is protected; push a branch.", Category: lore.CategoryPitfall,
		Repo: "acme/api", Confidence: 0.9, Manual: 0.9, Status: lore.StatusActive, FirstSeen: day(4, 9).Add(30 * time.Minute),
		LastConfirmed: day(11, 10)}
	pitfall.ID = lore.ItemID(pitfall.Text, pitfall.Category, pitfall.Repo, pitfall.Agent)
	pushSession(t, dir, "s1", s1.StartedAt, "")
	pushSession(t, dir, "s2", s2.StartedAt, pitfall.ID)
	f, _, err := read(ctx, s1)
	if err != nil || len(f.signatures) != 1 {
		t.Fatalf("s1 read: %v, signatures %q; want the push error", err, f.signatures)
	}
	pitfall.Signature = f.signatures[0]
	items := []lore.Item{
		pitfall,
		{Text: "`go test ./...` runs the tests.", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.9, Manual: 0.9,
			Status: lore.StatusActive, FirstSeen: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), LastConfirmed: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}, // stale
		{Text: "Which Go version does CI pin?", Category: lore.CategoryQuestion, Repo: "acme/api", Confidence: 0.5, Manual: 0.5,
			Status: lore.StatusCandidate, FirstSeen: day(12, 10), LastConfirmed: day(12, 10)},
		{Text: "`npm test` runs the tests.", Category: lore.CategoryFact, Repo: "other/web", Confidence: 0.9, Manual: 0.9,
			Status: lore.StatusActive, FirstSeen: day(12, 11), LastConfirmed: day(12, 11)},
	}
	if _, err := st.Import(ctx, items); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*lore.Session{s1, s2, s4} {
		if err := st.RecordHarvest(ctx, lore.Harvest{Session: s.ID, Extractor: "rules", Path: s.Path, At: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordBoot(ctx, lore.Boot{At: s2.StartedAt, Session: s2.ID, Repo: "acme/api", Agent: lore.AgentClaudeCode,
		Items: []string{pitfall.ID}}); err != nil {
		t.Fatal(err)
	}
	// Notes handed over at the point of action: counted apart from the
	// hit rate, the first cited by s2, the second not.
	for _, b := range []lore.Boot{
		{At: s2.StartedAt.Add(time.Minute), Session: s2.ID, Kind: lore.BootBeforeTool, Items: []string{pitfall.ID}},
		{At: s2.StartedAt.Add(2 * time.Minute), Session: s2.ID, Kind: lore.BootAfterFailure, Items: []string{"abcdefabcdef"}},
	} {
		if err := st.RecordBoot(ctx, b); err != nil {
			t.Fatal(err)
		}
	}

	type want struct {
		sessions                        int
		items                           int
		harvestedTokens                 int64
		perMillion                      float64
		coverage, coverageHarvested     int
		firstTry, firstTrySucceeded     int
		recurrenceErrors, recurrenceHit int
		weeks                           []Period
		active, candidates              int
		stale                           float64
	}
	weekOf4 := Period{Week: "2026-05-04", Sessions: 2, MedianTokens: 10_000, MedianMinutes: 240, SessionsWithTokens: 2, SessionsWithMinutes: 2}
	// Two of the three sessions of the week record no tokens: counted as
	// 0 they would make the median 0.
	weekOf11 := Period{Week: "2026-05-11", Sessions: 3, MedianTokens: 30_000, MedianMinutes: 7, SessionsWithTokens: 1, SessionsWithMinutes: 3}
	tests := []struct {
		name string
		opts Options
		want want
	}{
		{"all", Options{}, want{sessions: 6, items: 4, harvestedTokens: 139_000, perMillion: 28.777,
			coverage: 6, coverageHarvested: 3, firstTry: 4, firstTrySucceeded: 1, recurrenceErrors: 2, recurrenceHit: 1,
			weeks:  []Period{weekOf4, {Week: "2026-05-11", Sessions: 4, MedianTokens: 99_000, MedianMinutes: 20, SessionsWithTokens: 2, SessionsWithMinutes: 4}},
			active: 3, candidates: 1, stale: 0.333}},
		// A bare name matches acme/api and the session named by its
		// folder, not other/web; items likewise.
		{"repo by name", Options{Repo: "api"}, want{sessions: 5, items: 3, harvestedTokens: 40_000, perMillion: 75,
			coverage: 5, coverageHarvested: 2, firstTry: 3, firstTrySucceeded: 1, recurrenceErrors: 2, recurrenceHit: 1,
			weeks: []Period{weekOf4, weekOf11}, active: 2, candidates: 1, stale: 0.5}},
		// Since the 10th: s1 goes, s7 stays (it ended on the 10th);
		// velocity counts the one item first seen since, over the tokens
		// of s2 alone.
		{"since", Options{Repo: "acme/api", Since: day(10, 0)}, want{sessions: 3, items: 1, harvestedTokens: 30_000, perMillion: 33.333,
			coverage: 3, coverageHarvested: 1, firstTry: 2, firstTrySucceeded: 1, recurrenceErrors: 1, recurrenceHit: 1,
			weeks: []Period{{Week: "2026-05-04", Sessions: 1, MedianTokens: 5_000, MedianMinutes: 240, SessionsWithTokens: 1, SessionsWithMinutes: 1},
				{Week: "2026-05-11", Sessions: 2, MedianTokens: 30_000, MedianMinutes: 20, SessionsWithTokens: 1, SessionsWithMinutes: 2}},
			// Knowledge is the store's state, whatever since says.
			active: 2, candidates: 1, stale: 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Now = now
			m, err := Compute(ctx, sessions, st, opts)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want
			if m.Sessions != w.sessions {
				t.Errorf("sessions = %d, want %d", m.Sessions, w.sessions)
			}
			v := m.Velocity
			if v.Items != w.items || v.HarvestedTokens != w.harvestedTokens || v.ItemsPerMillionTokens != w.perMillion {
				t.Errorf("velocity: %d items, %d tokens, %v per million; want %d, %d, %v",
					v.Items, v.HarvestedTokens, v.ItemsPerMillionTokens, w.items, w.harvestedTokens, w.perMillion)
			}
			if c := m.Coverage; c.Sessions != w.coverage || c.SessionsHarvested != w.coverageHarvested {
				t.Errorf("coverage %+v; want %d of %d harvested", c, w.coverageHarvested, w.coverage)
			}
			if f := m.FirstTry; f.Sessions != w.firstTry || f.Succeeded != w.firstTrySucceeded {
				t.Errorf("first-try %+v; want %d of %d", f, w.firstTrySucceeded, w.firstTry)
			}
			if r := m.Recurrence; r.SessionsWithErrors != w.recurrenceErrors || r.SessionsHitKnown != w.recurrenceHit {
				t.Errorf("recurrence %+v; want %d of %d", r, w.recurrenceHit, w.recurrenceErrors)
			}
			if fmt.Sprint(m.PerSession) != fmt.Sprint(w.weeks) {
				t.Errorf("per session:\n got %+v\nwant %+v", m.PerSession, w.weeks)
			}
			if h := m.HitRate; h.Boots != 1 || h.Injected != 1 || h.Cited != 1 {
				t.Errorf("hit rate %+v; want s2's one boot with its note cited", h)
			}
			if rc := m.Recall; rc != (Recall{BeforeTool: 1, AfterFailure: 1, Cited: 1, Rate: 0.5}) {
				t.Errorf("recall %+v; want s2's two notes, one cited", rc)
			}
			if k := m.Knowledge; k.Active != w.active || k.Candidates != w.candidates || k.StaleShare != w.stale {
				t.Errorf("knowledge %+v; want %d active (%v stale), %d candidates", k, w.active, w.stale, w.candidates)
			}
		})
	}

	t.Run("replay", func(t *testing.T) {
		// Would-have-known learns as harvest does, merging near-duplicates
		// and all: in a real store.
		m, err := Compute(ctx, sessions, nil, Options{Repo: "api", Now: now, Replay: true,
			ReplayStore: func(ctx context.Context) (lore.Store, error) {
				return sqlite.Open(ctx, filepath.Join(t.TempDir(), "replay.db"), sqlite.Options{})
			}})
		if err != nil {
			t.Fatal(err)
		}
		k := m.WouldHaveKnown
		if k.Sessions != 2 || k.Errors != 2 || k.Known != 1 || k.Delivered != 1 {
			t.Errorf("would-have-known %+v; want the second push's error known and delivered", k)
		}
		if len(k.BySession) != 2 {
			t.Fatalf("by session: %+v; want s1 and s2", k.BySession)
		}
		first, second := k.BySession[0], k.BySession[1]
		// The repo is the listing's (settled with every session), not the folder name the transcript alone gives.
		if first.Session != s1.ID || first.StartedAt == nil || !first.StartedAt.Equal(s1.StartedAt) || first.Agent != lore.AgentClaudeCode || first.Repo != s1.Repo {
			t.Errorf("first session %+v", first)
		}
		if len(first.Errors) != 1 || first.Errors[0] != (ReplayedError{Signature: pitfall.Signature}) {
			t.Errorf("s1 errors %+v; want its push error, unknown", first.Errors)
		}
		if second.Session != s2.ID || len(second.Errors) != 1 {
			t.Fatalf("second session %+v", second)
		}
		e := second.Errors[0]
		if e.Signature != pitfall.Signature || !e.Known || !e.Delivered || !lore.ValidIDPrefix(e.ItemID) {
			t.Errorf("s2 error %+v; want known from s1's item, with its id, and delivered", e)
		}
		// lore recall's hooks, replayed: the note before s2's push to main
		// holds s1's pitfall; after the failure it is not handed over
		// again.
		if !e.DeliveredBefore || e.DeliveredAfter || k.DeliveredBefore != 1 || k.DeliveredAfter != 0 || k.DeliveredAny != 1 ||
			k.DeliveredOfKnown != 1 {
			t.Errorf("at the point of action: error %+v, replay %+v; want delivered before the push alone", e, k)
		}
		// The note covered the failure: no episode was handed over; the
		// error counts among those known or met before, delivered.
		if e.DeliveredEpisode || k.KnownOrMet != 1 || k.DeliveredOrEpisode != 1 || k.DeliveredOfKnownOrMet != 1 ||
			k.AllHooked != (PointOfAction{DeliveredBefore: 1, DeliveredOrEpisode: 1, DeliveredOfKnownOrMet: 1}) {
			t.Errorf("with episodes: error %+v, replay %+v; want the note before the push, no episode", e, k)
		}
		// The episode lookup, asked after s2's failure, names s1's with
		// the push that worked.
		if !e.SeenBefore || !e.Recalled || !e.RecalledFix {
			t.Errorf("s2 error %+v; want it met before, and s1's episode recalled with its fix", e)
		}
		if ep := k.Episodes; ep.SeenBefore != 1 || ep.AgentTool != 0 || ep.Found != 1 || ep.FoundFirst != 1 || ep.FoundRate != 1 || ep.WithFix != 1 ||
			ep.FixExisted != 1 || ep.MedianTokens == 0 || ep.MedianTokens > 300 || ep.MedianMillis <= 0 {
			t.Errorf("episodes %+v; want one error met before, found with its fix", ep)
		}
		// Both sessions got a boot: the first one empty, the second the
		// note that was then delivered.
		if b := k.Boots; b.Sessions != 2 || b.WithNotes != 1 || b.MaxNotes != 1 || b.MedianTokens == 0 ||
			b.P90Tokens <= b.MedianTokens || b.MedianTokensWithNotes != b.P90Tokens {
			t.Errorf("boots %+v; want two, the second with one note", b)
		}
		if bs := k.Boots.BySession; len(bs) != 2 || bs[0].Session != s1.ID || len(bs[0].Notes) != 0 || len(bs[1].Notes) != 1 ||
			bs[1].Notes[0].Why == "" || !strings.Contains(bs[1].Notes[0].Text, "push") {
			t.Errorf("boots by session %+v; want s1's empty, s2's with the push note", bs)
		}
		// No store: what would come from it is empty, not an error.
		if m.Velocity.Items != 0 || m.HitRate.Boots != 0 || m.Coverage.SessionsHarvested != 0 || m.Knowledge.Active != 0 {
			t.Errorf("with no store: velocity %+v, hit rate %+v, coverage %+v, knowledge %+v", m.Velocity, m.HitRate, m.Coverage, m.Knowledge)
		}
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{`"by_session":[`, `"item_id":"` + e.ItemID + `"`, `"started_at":"2026-05-04T09:00:00Z"`} {
			if !strings.Contains(string(b), field) {
				t.Errorf("would_have_known JSON lacks %s: %s", field, b)
			}
		}
	})

	t.Run("replay without a store", func(t *testing.T) {
		if _, err := Compute(ctx, sessions, nil, Options{Now: now, Replay: true}); err == nil {
			t.Error("replay with no store to learn in: no error")
		}
	})

	t.Run("no replay", func(t *testing.T) {
		m, err := Compute(ctx, nil, nil, Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(m)
		if strings.Contains(string(b), "null") {
			t.Errorf("a list is null: %s", b)
		}
	})
}

// TestCountPointOfAction counts an error at the point of action as the
// session's agent's hooks delivered it, and as every agent's would have.
func TestCountPointOfAction(t *testing.T) {
	const line = `npm error Missing script: "lint"`
	all := handed{before: map[string][]string{}, after: map[string][]string{},
		episodes: map[string][]lore.Episode{"npm run": {{Session: "claude-code:s0", Error: `npm error Missing script: "lint"`}}}}
	r := &replayer{}
	// An OpenCode session: its agent has no hook, so the episode every
	// agent's after-failure hook would have handed over was not.
	r.countPointOfAction(&ReplayedError{Signature: "npm run", SeenBefore: true}, all, line)
	// A Claude Code session got it.
	r.countPointOfAction(&ReplayedError{Signature: "npm run", SeenBefore: true, DeliveredEpisode: true}, all, line)
	// Another script's episode is not about this error; an error neither
	// known nor met before does not count.
	r.countPointOfAction(&ReplayedError{Signature: "npm run", SeenBefore: true}, all, `npm error Missing script: "check"`)
	r.countPointOfAction(&ReplayedError{Signature: "go build"}, all, "go: undefined: x")
	if o := r.out; o.KnownOrMet != 3 || o.DeliveredEpisode != 1 || o.DeliveredOrEpisode != 1 ||
		o.AllHooked.DeliveredEpisode != 2 || o.AllHooked.DeliveredOrEpisode != 2 || o.AllHooked.DeliveredBefore != 0 {
		t.Errorf("counted %+v; want 3 known or met, 1 delivered by its hook, 2 had every agent the hook", o)
	}
}
