package dedup

import (
	"strings"
	"testing"
)

// norm is enough of lore.NormalizeText for these texts (the root package
// cannot be imported from here without a cycle in tests of lore itself).
func norm(s string) string {
	s = strings.ToLower(strings.NewReplacer("`", "", "\"", "").Replace(s))
	return strings.TrimRight(strings.Join(strings.Fields(s), " "), ".!")
}

func TestNearDuplicates(t *testing.T) {
	tests := []struct {
		a, b string
		near bool
	}{
		// The same sentence with quoting, case, stop words or inflection changed.
		{"Run the tests before pushing.", "run tests before you push", true},
		{"Pushing to `main` fails with HTTP 405 because of branch protection",
			"pushing to main failed with HTTP 405 because of the branch protection", true},
		{"The integration tests need a running PostgreSQL server on port 5432",
			"Integration tests need a running PostgreSQL server on port 5432", true},
		// One word changed in a sentence of ten content words.
		{"go test ./... in the api module needs the generated mocks from make generate first",
			"go test ./... in the api module requires the generated mocks from make generate first", true},
		// One word added.
		{"The deploy script reads the token from ~/.config/deploy/token",
			"The deploy script always reads the token from ~/.config/deploy/token", true},

		// A different number, path, flag or identifier is a different fact.
		{"The build needs Go 1.25 or newer", "The build needs Go 1.26 or newer", false},
		{"The token is in ~/.config/gh/hosts.yml", "The token is in ~/.config/glab/config.yml", false},
		{"Use git push --force-with-lease after a rebase", "Use git push --force after a rebase", false},
		{"Call parse_config before load_plugins", "Call parse_config before init_plugins", false},
		// Negation is not a stop word.
		{"The cache is not shared between jobs", "The cache is shared between jobs", false},
		// Sharing a topic is not saying the same thing.
		{"Pushing to main fails with HTTP 405 because of branch protection",
			"Direct pushes to main are rejected with HTTP 405 by branch protection rules", false},
		{"The linter rejects exported functions without comments",
			"The linter rejects functions longer than eighty lines", false},
	}
	for _, tt := range tests {
		fa, fb := Of(norm(tt.a)), Of(norm(tt.b))
		sim := Similarity(fa, fb)
		if Near(fa, fb) != tt.near {
			t.Errorf("Near(%q, %q) = %v (similarity %.2f), want %v", tt.a, tt.b, !tt.near, sim, tt.near)
		}
		if Similarity(fb, fa) != sim {
			t.Errorf("similarity of %q and %q is not symmetric", tt.a, tt.b)
		}
	}
}

func TestIdenticalAndEmpty(t *testing.T) {
	f := Of("the flaky test is TestRetryBackoff in retry_test.go")
	if s := Similarity(f, f); s != 1 {
		t.Errorf("self-similarity %v, want 1", s)
	}
	if s := Similarity(Of(""), Of("")); s != 1 {
		t.Errorf("two empty texts: %v, want 1", s)
	}
	if s := Similarity(Of(""), f); s != 0 {
		t.Errorf("empty and non-empty: %v, want 0", s)
	}
}

// TestBandKeys checks the properties the stores rely on: equal texts share
// every band key, a different scope shares none, and near-duplicates share
// at least one band far more often than not.
func TestBandKeys(t *testing.T) {
	a := Of(norm("pushing to main fails with http 405 because of branch protection"))
	b := Of(norm("pushing to main failed with http 405 because of the branch protection"))
	if a.BandKeys("pitfall\x00o/r\x00") != b.BandKeys("pitfall\x00o/r\x00") {
		t.Error("texts with the same shingles have different band keys")
	}
	ka, kc := a.BandKeys("pitfall\x00o/r\x00"), a.BandKeys("fact\x00o/r\x00")
	for i := range ka {
		if ka[i] == kc[i] {
			t.Errorf("band %d: same key in two scopes", i)
		}
		if ka[i] < 0 {
			t.Errorf("band %d: negative key", i)
		}
	}
	// Over many one-word edits of a twelve-word sentence (similarity about
	// 0.7), nearly every pair must share a band.
	words := strings.Fields("the nightly job restarts the queue worker when redis drops the connection after idle timeouts")
	base := Of(strings.Join(words, " "))
	shared, n := 0, 0
	for i := range words {
		edited := append([]string{}, words...)
		edited[i] = "zz" + words[i]
		f := Of(strings.Join(edited, " "))
		if !Near(base, f) {
			continue
		}
		n++
		kb, kf := base.BandKeys(""), f.BandKeys("")
		for j := range kb {
			if kb[j] == kf[j] {
				shared++
				break
			}
		}
	}
	if n == 0 || shared < n*9/10 {
		t.Errorf("%d of %d near-duplicate pairs share a band, want at least 90%%", shared, n)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"fails": "fail", "failed": "fail", "failing": "fail", "pushes": "push", "pushed": "push",
		"running": "run", "stopped": "stop", "dependencies": "dependency", "tests": "test",
		"class": "class", "status": "status", "go": "go", "builds": "build",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}
