package serve

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// The query routes lore's remote store uses: a read token may use them
// (and record a boot), a write route refuses it; a body with a field
// the route does not know, or a parameter, is refused; the team comes
// from the token.
func TestQueryRoutes(t *testing.T) {
	e := newEnv(t, Options{})
	w, r, other := e.token("acme", lore.ScopeWrite), e.token("acme", lore.ScopeRead), e.token("other", lore.ScopeRead)
	p := pushPitfall(t)
	ids := e.add(w, p, NewItem{Text: "The zorblax cache is flushed on every deploy", Category: "fact", Repo: "acme/api"})

	var s SearchesAnswer
	e.call("POST", "/v1/query/searches", r, SearchesRequest{Queries: []Query{{Text: "zorblax cache"}, {Text: "zorblax", Filter: Filter{NoRepo: true}}}}, &s, http.StatusOK)
	if len(s.Hits) != 2 || len(s.Hits[0]) != 1 || s.Hits[0][0].Item.ID != ids[1].ID || len(s.Hits[1]) != 0 {
		t.Errorf("searches: %+v", s)
	}
	var c CountAnswer
	e.call("POST", "/v1/query/count", r, CountRequest{Filter: Filter{Repo: "acme/api"}}, &c, http.StatusOK)
	if c.Count != 2 {
		t.Errorf("count %d, want 2", c.Count)
	}
	e.call("POST", "/v1/query/count", other, CountRequest{Filter: Filter{AnyStatus: true, Expired: true}}, &c, http.StatusOK)
	if c.Count != 0 {
		t.Errorf("another team counts %d, want 0", c.Count)
	}
	var best ItemsAnswer
	e.call("POST", "/v1/query/best", r, BestRequest{Filter: Filter{Category: lore.CategoryFact}, Limit: 5}, &best, http.StatusOK)
	if len(best.Items) != 1 || best.Items[0].ID != ids[1].ID {
		t.Errorf("best: %+v", best)
	}
	var rec ItemsAnswer
	e.call("POST", "/v1/query/recall", r, RecallQuery{Filter: Filter{Repo: "acme/api"}, Command: "git push"}, &rec, http.StatusOK)
	if len(rec.Items) != 1 || rec.Items[0].ID != ids[0].ID {
		t.Errorf("recall: %+v", rec)
	}
	var page ItemPage
	e.call("POST", "/v1/query/items", r, ItemsRequest{Limit: 1}, &page, http.StatusOK)
	if len(page.Items) != 1 || page.Next == "" {
		t.Errorf("first page: %+v", page)
	}
	var last ItemPage
	e.call("POST", "/v1/query/items", r, ItemsRequest{Limit: 1, After: page.Next}, &last, http.StatusOK)
	page = last
	if len(page.Items) != 1 || page.Next != "" {
		t.Errorf("last page: %+v", page)
	}

	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	e.call("POST", "/v1/boots", r, Boot{At: at, Session: "claude-code:s1", Repo: "acme/api", Items: []string{ids[0].ID}, Kind: lore.BootBeforeTool}, nil, http.StatusOK)
	var boots BootsAnswer
	e.call("GET", "/v1/boots?since=2026-03-01T09:00:00Z", r, nil, &boots, http.StatusOK)
	if len(boots.Boots) != 1 || boots.Boots[0].Session != "claude-code:s1" || !boots.Boots[0].At.Equal(at) {
		t.Errorf("boots: %+v", boots)
	}
	e.call("GET", "/v1/boots?since=2026-03-01T11:00:00Z", r, nil, &boots, http.StatusOK)
	if len(boots.Boots) != 0 {
		t.Errorf("boots since after: %+v", boots)
	}
	e.call("GET", "/v1/boots", other, nil, &boots, http.StatusOK)
	if len(boots.Boots) != 0 {
		t.Errorf("another team's boots: %+v", boots)
	}
	var hv HarvestedAnswer
	e.call("GET", "/v1/harvested?session=s1&extractor=rules", r, nil, &hv, http.StatusOK)
	if hv.Found {
		t.Errorf("harvested: %+v", hv)
	}
	var sup lore.Item
	e.call("POST", "/v1/items/"+ids[1].ID+"/supersede", w, SupersedeRequest{By: ids[0].ID}, &sup, http.StatusOK)
	if sup.Status != lore.StatusSuperseded {
		t.Errorf("superseded: %+v", sup)
	}

	e.wantError("POST", "/v1/items/"+ids[0].ID+"/supersede", r, strings.NewReader(`{"by":"`+ids[1].ID+`"}`), http.StatusForbidden, codeForbidden)
	e.wantError("POST", "/v1/items/"+ids[0].ID+"/keep", r, nil, http.StatusForbidden, codeForbidden)
	e.wantError("POST", "/v1/query/count", r, strings.NewReader(`{"filter":{"team":"other"}}`), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/query/count?team=other", r, strings.NewReader(`{"filter":{}}`), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/query/best", r, strings.NewReader(`{"filter":{},"limit":-1}`), http.StatusBadRequest, codeInvalid)
	e.wantError("GET", "/v1/boots?since=yesterday", r, nil, http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/query/searches", r, strings.NewReader(`{"queries":[]}`), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/query/recall", "", strings.NewReader(`{}`), http.StatusUnauthorized, codeUnauthorized)
}
