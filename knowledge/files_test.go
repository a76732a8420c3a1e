package knowledge

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

// TestExportIsPrivate: what lore export writes holds the user's items,
// so its files are 0600 and the folders it creates 0700.
func TestExportIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	src := openStore(t)
	fill(t, src)
	dir := filepath.Join(t.TempDir(), "knowledge")
	export(t, src, dir, exportAt)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestExportLongScopes: repository and agent names longer than a file
// name may be (255 bytes) are exported to files of a bounded name, two
// that share their first bytes to two files, and come back whole through
// index.json.
func TestExportLongScopes(t *testing.T) {
	long := strings.Repeat("a", 300)
	src := openStore(t)
	_, err := src.Add(context.Background(), []lore.Item{
		{Text: "Run the long build with make long", Category: lore.CategoryPattern, Repo: "acme/" + long + "1", Confidence: 0.8},
		{Text: "Run the other long build with make other", Category: lore.CategoryPattern, Repo: "acme/" + long + "2", Confidence: 0.8},
		{Text: "The long agent writes its own logs", Category: lore.CategoryToolQuirk, Agent: strings.Repeat("é", 200), Confidence: 0.8},
		{Text: "The short repo is fine", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.8},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := all(t, src)
	dir := filepath.Join(t.TempDir(), "knowledge")
	st := export(t, src, dir, exportAt)
	var md int
	for _, name := range st.Files {
		if base := filepath.Base(name); len(base) > 128 {
			t.Errorf("%s: a %d-byte file name", name, len(base))
		}
		if strings.HasSuffix(name, ".md") {
			md++
		}
	}
	if md != 4 {
		t.Errorf("files %v: want 4 markdown files, one per scope", st.Files)
	}
	dst := openStore(t)
	if _, err := Import(context.Background(), dst, dir); err != nil {
		t.Fatal(err)
	}
	got := all(t, dst)
	if len(got) != len(want) {
		t.Fatalf("imported %d items, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Repo != want[i].Repo || got[i].Agent != want[i].Agent || got[i].Text != want[i].Text {
			t.Errorf("item %d came back as %q/%q %q, want %q/%q %q", i, got[i].Repo, got[i].Agent, got[i].Text, want[i].Repo, want[i].Agent, want[i].Text)
		}
	}
}
