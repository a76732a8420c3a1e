package boot

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lorehq/lore"
)

// checkout is a temporary git checkout holding files (path → content).
func checkout(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
		os.MkdirAll(filepath.Join(dir, ".git"), 0o755) // no git here: what boot looks for
	}
	for p, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLocationFactsCheckedAgainstTree: in a checkout of the item's
// repository, a location fact whose file is gone, or no longer defines
// the symbol, is not handed out; one the tree still shows is, and so is
// every fact of a boot with no checkout, or of another repository.
func TestLocationFactsCheckedAgainstTree(t *testing.T) {
	dir := checkout(t, map[string]string{
		"pkg/store/load.go": "package store\n\n// Load reads it.\nfunc (s *Store) Load() error { return nil }\n",
		"web/app.ts":        "import x from 'y'\nexport default class AppShell {}\n",
		"pkg/calls.go":      "package pkg\n\nfunc run() { Save() }\n",
		"docs/setup.md":     "# Setup\n",
	})
	fact := func(text string) lore.Item {
		return lore.Item{Text: text, Category: lore.CategoryFact, Repo: "acme/api", Signature: lore.DefinitionSignature("x")}
	}
	kept := []string{
		"`Load` is defined in `pkg/store/load.go`.",            // still there
		"`AppShell` is defined in `web/app.ts`.",               // after modifiers
		"`setup.md` is in `docs/setup.md`, not in `setup.md`.", // the file is there
		"`Outside` is defined in `../other/x.go`.",             // outside the checkout: not checked
	}
	dropped := []string{
		"`Save` is defined in `pkg/store/save.go`.",                 // the file is gone
		"`Save` is defined in `pkg/calls.go`.",                      // only called there
		"`Parse` is defined in `pkg/store/load.go`.",                // no longer defined there
		"`install.md` is in `docs/install.md`, not in `README.md`.", // moved away again
	}
	var items []lore.Item
	for _, s := range append(slices.Clone(kept), dropped...) {
		items = append(items, fact(s))
	}
	items = append(items, lore.Item{Text: "`Save` is defined in `pkg/store/save.go`.", Category: lore.CategoryFact, Repo: "acme/web"})
	st := newMemStore(t, items...)
	c, err := Build(context.Background(), st, Options{Repo: "acme/api", Dir: dir, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got := texts(c)
	for _, s := range kept {
		if !slices.Contains(got, s) {
			t.Errorf("left out although the tree shows it: %s", s)
		}
	}
	for _, s := range dropped {
		if slices.Contains(got, s) {
			t.Errorf("handed out although the tree no longer shows it: %s", s)
		}
	}
	// Without a checkout, nothing is checked: every fact is handed out.
	c, err = Build(context.Background(), st, Options{Repo: "acme/api", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Items); n != len(kept)+len(dropped) {
		t.Errorf("without a checkout: %d notes, want %d: %q", n, len(kept)+len(dropped), texts(c))
	}
	// Another repository's fact is not checked against this tree (and is
	// not handed out here anyway): gone says nothing of it.
	if gone(items[len(items)-1], Options{Repo: "acme/api", Dir: dir}) {
		t.Error("another repository's fact checked against this checkout")
	}
}

// TestLocationCheckReadsCappedFile: a definition past the cap of a big
// file is not looked for, and the fact stands; one in a small file that
// lacks it goes.
func TestLocationCheckReadsCappedFile(t *testing.T) {
	big := make([]byte, maxCheckedFile+100)
	for i := range big {
		big[i] = '\n'
	}
	dir := checkout(t, map[string]string{"big.go": string(big) + "func Late() {}\n", "small.go": "package x\n"})
	late := lore.Item{Text: "`Late` is defined in `big.go`.", Category: lore.CategoryFact, Repo: "acme/api"}
	if gone(late, Options{Repo: "acme/api", Dir: dir}) {
		t.Error("a definition past the cap counted as gone")
	}
	missing := lore.Item{Text: "`Late` is defined in `small.go`.", Category: lore.CategoryFact, Repo: "acme/api"}
	if !gone(missing, Options{Repo: "acme/api", Dir: dir}) {
		t.Error("a small file without the definition counted as defining it")
	}
}
