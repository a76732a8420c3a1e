package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// FuzzServe sends arbitrary bodies and queries to the routes that decode
// what a client sends: each must answer JSON with a status that fits,
// and never panic (the recover would answer 500).
func FuzzServe(f *testing.F) {
	for _, s := range []string{
		`{"items":[{"text":"The walrus queue keeps messages for 7 days","category":"fact"}]}`,
		`{"items":[{"text":"x","category":"fact","confidence":1e400}]}`,
		`{"command":"git push origin main","repo":"acme/api"}`,
		`{"tool":"Bash","input":{"command":"go test"},"output":"FAIL\nexit status 1"}`,
		`{"text":"reworded","reactivate":true}`,
		`{"queries":[{"text":"walrus","filter":{"repo":"acme/api","statuses":["active"]},"limit":5}]}`,
		`{"filter":{"category":"gossip","statuses":["maybe"],"no_repo":true},"limit":3,"after":"zz"}`,
		`{"filter":{},"signatures":["x"],"command":"git push","limit":2}`,
		`{"signature":"s","text":"protected branch","before":"2026-01-01T00:00:00Z"}`,
		`{"at":"2026-03-01T10:00:00Z","session":"s","items":["abc"],"kind":"before-tool"}`,
		`{"by":"abcd"}`,
		`{"items":null}`, `[]`, `"`, `{`, "", "\x00\xff", `{"type":"user","message":{"role":"user","content":"hi"}}`,
	} {
		f.Add(s, "q=walrus&limit=3")
		f.Add(s, "") // the query routes take a body alone
	}
	e := newEnv(f, Options{UploadLimit: 1 << 16})
	w := e.token("acme", lore.ScopeWrite)
	res := e.add(w, NewItem{Text: "The walrus queue keeps messages for 7 days", Category: "fact"})
	routes := []struct{ method, path string }{
		{"POST", "/v1/items"},
		{"POST", "/v1/sessions"},
		{"POST", "/v1/recall/before-tool"},
		{"POST", "/v1/recall/after-tool"},
		{"POST", "/v1/items/" + res[0].ID + "/edit"},
		{"GET", "/v1/search"},
		{"GET", "/v1/items"},
		{"GET", "/v1/boot"},
		{"POST", "/v1/query/searches"},
		{"POST", "/v1/query/items"},
		{"POST", "/v1/query/best"},
		{"POST", "/v1/query/count"},
		{"POST", "/v1/query/recall"},
		{"POST", "/v1/query/episodes"},
		{"POST", "/v1/boots"},
		{"GET", "/v1/boots"},
		{"GET", "/v1/harvested"},
		{"POST", "/v1/items/" + res[0].ID + "/supersede"},
	}
	f.Fuzz(func(t *testing.T, body, query string) {
		for _, rt := range routes {
			req := httptest.NewRequest(rt.method, "/", strings.NewReader(body))
			req.URL.Path, req.URL.RawQuery = rt.path, query
			req.Header.Set("Authorization", "Bearer "+w)
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			switch rec.Code {
			case http.StatusOK:
				if rec.Header().Get("Content-Type") == "application/json" && !json.Valid(rec.Body.Bytes()) {
					t.Fatalf("%s %s: invalid JSON %q", rt.method, rt.path, rec.Body.String())
				}
				continue
			case http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge:
			default:
				t.Fatalf("%s %s?%s with %q: status %d: %s", rt.method, rt.path, query, body, rec.Code, rec.Body.String())
			}
			var eb errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error == "" || eb.Code == "" {
				t.Fatalf("%s %s: not a JSON error: %q", rt.method, rt.path, rec.Body.String())
			}
		}
	})
}
