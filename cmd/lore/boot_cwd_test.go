package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

// TestBootInACheckout: lore boot run in a checkout, with no --repo or
// --cwd, is for the checkout's repository; run elsewhere, for none.
func TestBootInACheckout(t *testing.T) {
	r := gittest.New(t)
	r.Git("remote", "add", "origin", "https://github.com/acme/api.git")
	store := filepath.Join(t.TempDir(), "lore.db")
	env := testEnv(t.TempDir(), nil)
	if res := runIn(t, env, "", nil, "add", "Pushing to main returns HTTP 405: open a pull request", "--category", "pitfall",
		"--repo", "acme/api", "--store", store); res.code != 0 {
		t.Fatalf("add: %+v", res)
	}
	env.Cwd = filepath.Join(r.Dir)
	if res := runIn(t, env, "", nil, "boot", "--store", store); res.code != 0 || !strings.Contains(res.stdout, "HTTP 405") {
		t.Errorf("boot in a checkout of acme/api: exit %d, no note of the repository:\n%s%s", res.code, res.stdout, res.err)
	}
	env.Cwd = t.TempDir()
	if res := runIn(t, env, "", nil, "boot", "--store", store); res.code != 0 || strings.Contains(res.stdout, "HTTP 405") {
		t.Errorf("boot outside a checkout: exit %d, handed acme/api's note:\n%s", res.code, res.stdout)
	}
}
