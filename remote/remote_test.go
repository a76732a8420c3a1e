package remote_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/servetest"
	"github.com/lorehq/lore/internal/storetest"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/remote"
	"github.com/lorehq/lore/serve"
)

// client is a remote store of the server with a new token of team and
// scope.
func client(t *testing.T, s *servetest.Server, team string, scope lore.TokenScope) *remote.Store {
	t.Helper()
	st, err := remote.Open(s.URL, remote.Options{Token: s.Token(team, scope)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
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
		return client(t, servetest.Start(t, now), "acme", lore.ScopeWrite)
	}, applies...)
}

// Two teams' tokens see their own team's items and no other's.
func TestTeamIsolation(t *testing.T) {
	s := servetest.Start(t, nil)
	acme, other := client(t, s, "acme", lore.ScopeWrite), client(t, s, "other", lore.ScopeWrite)
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
	s := servetest.Start(t, nil)
	ctx := context.Background()
	read := client(t, s, "acme", lore.ScopeRead)
	_, err := read.Add(ctx, []lore.Item{{Text: "The walrus queue keeps messages for 7 days", Category: lore.CategoryFact}})
	if err == nil || !strings.Contains(err.Error(), "LORE_TOKEN is refused") || !strings.Contains(err.Error(), "write") {
		t.Errorf("add with a read token: %v", err)
	}
	if _, err := read.Item(ctx, "abcdef12"); lore.ErrorCode(err) != lore.ENOTFOUND {
		t.Errorf("missing item: %v, want not found", err)
	}
	secret, _ := lore.NewToken()
	unknown, err := remote.Open(s.URL, remote.Options{Token: secret})
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

// An uploaded transcript is queued, then harvested; its records, episodes and items
// are read back through the store's methods.
func TestUploadHarvests(t *testing.T) {
	s := servetest.Start(t, nil)
	ctx := context.Background()
	st := client(t, s, "acme", lore.ScopeWrite)
	up, err := st.Upload(ctx, "5d1e0c55.jsonl", "acme/api", []byte(synth.ClaudePushSession("5d1e0c55-2b7e-4f0e-9d7a-000000000001", "/home/dev/api", "Push the fix to main")))
	if err != nil || up.State != serve.UploadQueued {
		t.Fatalf("upload: %+v, %v", up, err)
	}
	s.Drain()
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

// Over HTTPS, the server's certificate is checked against the roots the
// client trusts: the system's by default, which do not hold a test's.
func TestHTTPS(t *testing.T) {
	s := servetest.Start(t, nil)
	ts := httptest.NewUnstartedServer(s.Handler)
	ts.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the test makes fail
	ts.StartTLS()
	t.Cleanup(ts.Close)
	token := s.Token("acme", lore.ScopeRead)
	st, err := remote.Open(ts.URL, remote.Options{Token: token, Client: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Count(context.Background(), lore.Filter{}); err != nil {
		t.Errorf("count over HTTPS: %v", err)
	}
	untrusting, err := remote.Open(ts.URL, remote.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	var u *remote.Unreachable
	if _, err := untrusting.Count(context.Background(), lore.Filter{}); !errors.As(err, &u) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a certificate the system does not trust: %v", err)
	}
}
