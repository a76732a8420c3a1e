package lore_test

import (
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/storetest"
)

// The cases are storetest's, which every store's filter is held to, so
// that the Go rule and the stores' agree.
func TestRepoRules(t *testing.T) {
	for _, c := range storetest.RepoCases {
		if got := lore.SameRepo(c.Item, c.Filter); got != c.Same {
			t.Errorf("SameRepo(%q, %q) = %v, want %v", c.Item, c.Filter, got, c.Same)
		}
		if got := lore.SameRepo(c.Filter, c.Item); got != c.Same {
			t.Errorf("SameRepo(%q, %q) = %v, want %v (it is symmetric)", c.Filter, c.Item, got, c.Same)
		}
		if got := c.Item != "" && lore.RepoKey(c.Item) == lore.RepoKey(c.Filter); got != c.Same {
			t.Errorf("RepoKey(%q) == RepoKey(%q) is %v, want %v", c.Item, c.Filter, got, c.Same)
		}
		if got := lore.RepoMatches(c.Item, c.Filter); got != c.Match {
			t.Errorf("RepoMatches(%q, %q) = %v, want %v", c.Item, c.Filter, got, c.Match)
		}
		if got := (lore.Filter{Repo: c.Filter}).SelectsRepo(c.Item); got != c.Same {
			t.Errorf("Filter{Repo: %q}.SelectsRepo(%q) = %v, want %v", c.Filter, c.Item, got, c.Same)
		}
		if got := (lore.Filter{Repo: c.Filter, AnyOwner: true}).SelectsRepo(c.Item); got != c.Match {
			t.Errorf("Filter{Repo: %q, AnyOwner}.SelectsRepo(%q) = %v, want %v", c.Filter, c.Item, got, c.Match)
		}
	}
}

func TestSelectsRepoWithoutRepo(t *testing.T) {
	tests := []struct {
		f    lore.Filter
		repo string
		want bool
	}{
		{lore.Filter{}, "acme/api", true},
		{lore.Filter{}, "", true},
		{lore.Filter{AnyOwner: true}, "api", true},
		{lore.Filter{NoRepo: true}, "", true},
		{lore.Filter{NoRepo: true}, "acme/api", false},
		{lore.Filter{NoRepo: true, Repo: "acme/api"}, "acme/api", false},
		{lore.Filter{NoRepo: true, Repo: "acme/api"}, "", false},
	}
	for _, tt := range tests {
		if got := tt.f.SelectsRepo(tt.repo); got != tt.want {
			t.Errorf("%+v.SelectsRepo(%q) = %v, want %v", tt.f, tt.repo, got, tt.want)
		}
	}
	if lore.SameRepo("", "") || lore.RepoMatches("", "") || lore.RepoMatches("acme/api", "") {
		t.Error("an empty name is a repository")
	}
}
