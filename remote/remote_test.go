package remote_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/serve"
	"github.com/lorehq/lore/sqlite"
)

// server is lore serve over a real SQLite store in a temporary folder.
type server struct {
	t     *testing.T
	teams *sqlite.Teams
	url   string
	dir   string
}

func newServer(t *testing.T, now func() time.Time) *server {
	t.Helper()
	dir := t.TempDir()
	teams, err := sqlite.OpenTeams(context.Background(), filepath.Join(dir, "lore.db"), sqlite.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { teams.Close() })
	srv, err := serve.New(teams, serve.Options{UploadDir: filepath.Join(dir, "uploads"), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &server{t: t, teams: teams, url: hs.URL, dir: dir}
}

// client is a remote store with a new token of team and scope.
func (s *server) client(team string, scope lore.TokenScope) *remote.Store {
	s.t.Helper()
	secret, hash := lore.NewToken()
	if _, err := s.teams.AddToken(context.Background(), lore.Token{Team: team, Scope: scope, Name: team}, hash); err != nil {
		s.t.Fatal(err)
	}
	st, err := remote.Open(s.url, remote.Options{Token: secret})
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { st.Close() })
	return st
}

// The conformance tests of what a machine asks of the server. Left out,
// with why: ForgetSession, ForgetSessionKeepsDecisions, ForgetEpisodes,
// RetireAndDelete, ReviewEdit (Delete), ImportRoundTrip,
// ImportMergesByID, HarvestRecords, Episodes (the server takes no
// forget, delete, import, harvest records or episodes from a machine:
// it harvests what lore push sends); HarvestKeepsDecisions (an item
// added over the API has one session's evidence); LargeBatch (over 1000
// items go in several requests, each its own transaction);
// ReviewRecords (the server records its token's name as who decided).
var applies = []string{
	"AddAndGet", "IDPrefix", "Validation", "BatchIsOneTransaction", "ExactDuplicateMerges",
	"SameSessionConfirmsOnce", "ConfidenceCombinesAndCaps", "HandConfidence", "NearDuplicatesMerge",
	"NearDuplicatesAtScale", "ScopesStayApart", "CandidatePromotion", "Supersede", "SignatureSupersedes",
	"Expires", "SearchPeoplesWords", "SearchHostileText", "SearchFilters", "SearchCommonWords",
	"SearchOnlyCommonWords", "Redaction", "ItemsAndCount", "ConcurrentAdds", "BootRecords",
	"BootTaskRedacted", "NoRepoFilter", "NoAgentFilter", "RepoCase", "RepoFilter", "Best", "Recall",
	"RecallScopes",
}

func TestConformance(t *testing.T) {
	storetest.RunOnly(t, func(t *testing.T, now func() time.Time) lore.Store {
		return newServer(t, now).client("acme", lore.ScopeWrite)
	}, applies...)
}

// Two teams' tokens see their own team's items and no other's.
func TestTeamIsolation(t *testing.T) {
	s := newServer(t, time.Now)
	acme, other := s.client("acme", lore.ScopeWrite), s.client("other", lore.ScopeWrite)
	ctx := context.Background()
	res, err := acme.Add(ctx, []lore.Item{{Text: "The walrus queue keeps messages for 7 days", Category: lore.CategoryFact, Confidence: 0.8, Status: lore.StatusActive}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Item(ctx, res[0].ID); lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("other team's Item: %v, want not found", err)
	}
	hits, err := other.Search(ctx, lore.Query{Text: "walrus queue"})
	if err != nil || len(hits) != 0 {
		t.Errorf("other team's search: %v, %v; want nothing", hits, err)
	}
	if n, err := other.Count(ctx, lore.Filter{AnyStatus: true, Expired: true}); err != nil || n != 0 {
		t.Errorf("other team counts %d (%v), want 0", n, err)
	}
	if hits, err := acme.Search(ctx, lore.Query{Text: "walrus queue"}); err != nil || len(hits) != 1 {
		t.Errorf("own team's search: %v, %v; want the item", hits, err)
	}
}

func TestErrors(t *testing.T) {
	s := newServer(t, time.Now)
	ctx := context.Background()
	read := s.client("acme", lore.ScopeRead)
	_, err := read.Add(ctx, []lore.Item{{Text: "The walrus queue keeps messages for 7 days", Category: lore.CategoryFact}})
	if err == nil || !strings.Contains(err.Error(), "LORE_TOKEN is refused") || !strings.Contains(err.Error(), "write") {
		t.Errorf("add with a read token: %v", err)
	}
	if _, err := read.Item(ctx, "abcdef12"); lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("missing item: %v, want not found", err)
	}
	secret, _ := lore.NewToken()
	unknown, err := remote.Open(s.url, remote.Options{Token: secret})
	if err != nil {
		t.Fatal(err)
	}
	_, err = unknown.Count(ctx, lore.Filter{})
	if err == nil || !strings.Contains(err.Error(), "lore serve token create") || strings.Contains(err.Error(), secret) {
		t.Errorf("unknown token: %v", err)
	}
	if _, err := read.ForgetSession(ctx, "s"); err == nil || !strings.Contains(err.Error(), "on the server") {
		t.Errorf("forget: %v", err)
	}

	for _, tt := range []struct {
		url   string
		o     remote.Options
		wrong string // in the error; "" for none
	}{
		{"https://lore.example.com:7077", remote.Options{Token: "lore_x"}, ""},
		{"http://127.0.0.1:7077", remote.Options{Token: "lore_x"}, ""},
		{"http://[::1]:7077/", remote.Options{Token: "lore_x"}, ""},
		{"http://localhost:7077", remote.Options{Token: "lore_x"}, ""},
		{"http://lore.example.com:7077", remote.Options{Token: "lore_x"}, "in the clear"},
		{"http://lore.example.com:7077", remote.Options{Token: "lore_x", Insecure: true}, ""},
		{"https://lore.example.com", remote.Options{}, "LORE_TOKEN is missing"},
		{"https://user:pw@lore.example.com", remote.Options{Token: "lore_x"}, "no user"},
		{"ftp://lore.example.com", remote.Options{Token: "lore_x"}, "want https"},
	} {
		_, err := remote.Open(tt.url, tt.o)
		if (err == nil) != (tt.wrong == "") || (err != nil && !strings.Contains(err.Error(), tt.wrong)) {
			t.Errorf("Open(%s): %v, want %q", tt.url, err, tt.wrong)
		}
	}

	// A server that is gone: Unreachable, quickly, with no token in it.
	down, err := remote.Open("http://127.0.0.1:1", remote.Options{Token: secret, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var u *remote.Unreachable
	if _, err := down.Search(ctx, lore.Query{Text: "x"}); !errors.As(err, &u) || strings.Contains(err.Error(), secret) {
		t.Errorf("server down: %v, want Unreachable", err)
	}
}

// An uploaded transcript is harvested; its records, episodes and items
// are read back through the store's methods.
func TestUploadHarvests(t *testing.T) {
	s := newServer(t, time.Now)
	ctx := context.Background()
	st := s.client("acme", lore.ScopeWrite)
	up, err := st.Upload(ctx, "5d1e0c55.jsonl", "acme/api", []byte(claudeSession("5d1e0c55-2b7e-4f0e-9d7a-000000000001")))
	if err != nil || up.State != serve.UploadHarvested {
		t.Fatalf("upload: %+v, %v", up, err)
	}
	var hs []lore.Harvest
	if err := st.Harvests(ctx, func(h lore.Harvest) error { hs = append(hs, h); return nil }); err != nil || len(hs) == 0 {
		t.Fatalf("harvests: %v, %v", hs, err)
	}
	h, ok, err := st.Harvested(ctx, hs[0].Session, hs[0].Extractor)
	if err != nil || !ok || h.Session != hs[0].Session || h.Hash != hs[0].Hash {
		t.Errorf("Harvested: %+v %v %v, want %+v", h, ok, err, hs[0])
	}
	if _, ok, err := st.Harvested(ctx, "nobody", "rules"); ok || err != nil {
		t.Errorf("Harvested of no session: %v, %v", ok, err)
	}
	eps, err := st.Episodes(ctx, lore.EpisodeQuery{Text: "protected branch update failed", Repo: "acme/api"})
	if err != nil || len(eps) == 0 || eps[0].Repo != "acme/api" || !strings.Contains(eps[0].Fix, "git push") {
		t.Errorf("episodes: %+v, %v", eps, err)
	}
	n, err := st.Count(ctx, lore.Filter{Repo: "acme/api", AnyStatus: true})
	if err != nil || n == 0 {
		t.Errorf("the upload's items: %d, %v", n, err)
	}
}

// claudeSession is a Claude Code transcript in which git push fails on a
// protected branch and pushing a branch works.
func claudeSession(id string) string {
	head := fmt.Sprintf(`"sessionId":%q,"cwd":"/home/dev/api","gitBranch":"main","version":"2.1.30","isSidechain":false`, id)
	line := func(n int, typ, msg string) string {
		return fmt.Sprintf(`{%s,"type":%q,"uuid":"u%d","timestamp":"2026-03-01T10:00:%02d.000Z","message":%s}`, head, typ, n, n, msg)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	assistant := func(content string) string {
		return `{"model":"claude-opus-4-6","id":"msg","type":"message","role":"assistant","content":[` + content + `],"usage":{"input_tokens":4,"output_tokens":16}}`
	}
	const pushOutput = "remote: error: GH006: Protected branch update failed for refs/heads/main.\nTo github.com:acme/api.git\n ! [remote rejected] main -> main (protected branch hook declined)"
	lines := []string{
		line(1, "user", `{"role":"user","content":"Push the fix to main"}`),
		line(2, "assistant", assistant(`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"git push origin main"}}`)),
		line(3, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":`+q(pushOutput)+`,"is_error":true}]}`),
		line(4, "assistant", assistant(`{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"git push -u origin fix-retry"}}`)),
		line(5, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"branch 'fix-retry' set up to track 'origin/fix-retry'.","is_error":false}]}`),
		line(6, "assistant", assistant(`{"type":"text","text":"main is protected: pushed the branch fix-retry instead; open a pull request from it."}`)),
	}
	return strings.Join(lines, "\n") + "\n"
}
