package lore_test

import (
	"testing"

	"github.com/lorehq/lore"
)

func TestRepoMatches(t *testing.T) {
	tests := []struct {
		repo, want string
		match      bool
	}{
		{"acme/api", "acme/api", true},
		{"Acme/API", "acme/api", true},
		{"acme/api", "api", true}, // a bare name, any owner
		{"acme/api", "API", true},
		{"api", "api", true}, // a session named by its folder
		{"acme/api", "other/api", false},
		{"api", "acme/api", false}, // the owner asked for is not known
		{"acme/api-v2", "api", false},
		{"acme/api", "acme", false},
		{"", "api", false},
	}
	for _, tt := range tests {
		if got := lore.RepoMatches(tt.repo, tt.want); got != tt.match {
			t.Errorf("RepoMatches(%q, %q) = %v, want %v", tt.repo, tt.want, got, tt.match)
		}
	}
}
