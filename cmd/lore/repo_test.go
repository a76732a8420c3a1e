package main

import (
	"slices"
	"strings"
	"testing"
)

// --repo means one thing in every command that filters (lore.RepoMatches)
// and another in boot (lore.SameRepo): a person's --repo cli lists every
// cli, boot in cli hands out cli's notes alone.
func TestRepoFlags(t *testing.T) {
	st := newTestStore(t)
	ids := map[string]string{}
	for repo, text := range map[string]string{
		"entireio/cli": "The entire CLI's integration tests need a git fixture.",
		"cli":          "This cli builds with make dist before its tests.",
		"Other/CLI":    "The other cli vendors its dependencies for its tests.",
		"acme/client":  "The client's tests mock the HTTP server.",
	} {
		ids[repo] = st.add(text, "-c", "fact", "--repo", repo)
	}
	tests := []struct {
		cmd   string // search or boot
		repo  string
		repos []string // whose items are given
	}{
		{"search", "cli", []string{"entireio/cli", "cli", "Other/CLI"}},
		{"search", "CLI", []string{"entireio/cli", "cli", "Other/CLI"}},
		{"search", "entireio/cli", []string{"entireio/cli"}},
		{"search", "other/cli", []string{"Other/CLI"}},
		{"search", "acme/cli", nil},
		{"boot", "cli", []string{"cli"}},
		{"boot", "entireio/cli", []string{"entireio/cli"}},
		{"boot", "OTHER/cli", []string{"Other/CLI"}},
		{"boot", "acme/cli", nil},
	}
	for _, tt := range tests {
		var want []string
		for _, r := range tt.repos {
			want = append(want, ids[r])
		}
		slices.Sort(want)
		var got []string
		switch tt.cmd {
		case "search":
			got = st.search("tests", "--repo", tt.repo)
		case "boot":
			out := st.must("boot", "--repo", tt.repo, "--task", "tests", "--json")
			for _, id := range ids {
				if strings.Contains(out, `"id":"`+id) {
					got = append(got, id)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("lore %s --repo %s: %q, want %q", tt.cmd, tt.repo, got, want)
		}
	}
}
