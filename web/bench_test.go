package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/benchstore"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/sqlite"
)

// BenchmarkPages renders each page of the web view over a store of
// 100,000 synthetic items with a harvest record for each of their 25,000
// sessions; LORE_BENCH_DIR keeps the store between runs (building it
// takes minutes). The goal is under 100 ms a page.
func BenchmarkPages(b *testing.B) {
	ctx := context.Background()
	items := synth.Items(100_000, synth.ItemOptions{Seed: 1})
	st, err := sqlite.Open(ctx, benchstore.Path(b, "web-100k.db", items), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var hs []lore.Harvest
	seen := map[string]bool{}
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, it := range items {
		for _, e := range it.Evidence {
			if !seen[e.Session] {
				seen[e.Session] = true
				hs = append(hs, lore.Harvest{Session: e.Session, Extractor: "rules", Path: "/gone/" + e.Session + ".jsonl", At: at.Add(time.Duration(len(hs)) * time.Minute), Items: 4})
			}
		}
	}
	if err := st.RecordHarvest(ctx, hs...); err != nil { // the same records each run: a no-op after the first
		b.Fatal(err)
	}
	// The item of the most sessions: the longest list of evidence.
	var taught lore.Item
	st.Items(ctx, lore.Filter{AnyStatus: true}, func(it lore.Item) error {
		if len(it.Evidence) > len(taught.Evidence) {
			taught = it
		}
		return nil
	})
	h := New(st, Options{Token: testToken, Writes: true})
	for _, page := range []struct{ name, path string }{
		{"knowledge", "/"},
		{"knowledge_page5", "/?page=5"},
		{"candidates", "/?status=candidate"},
		{"search", "/?q=flaky+test+timeout&status=any"},
		{"filtered_sorted", "/?status=any&sort=sources&conf=0.5"},
		{"item", "/items/" + taught.ID},
		{"sessions", "/sessions"},
		{"session", "/sessions/" + hs[len(hs)/2].Session},
	} {
		b.Run(page.name, func(b *testing.B) {
			for b.Loop() {
				r := httptest.NewRequest("GET", page.path, nil)
				r.AddCookie(&http.Cookie{Name: CookieName(r), Value: testToken})
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("%s: %d\n%s", page.path, w.Code, w.Body)
				}
			}
		})
	}
}
