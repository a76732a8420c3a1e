package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVerify(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "lore.db")
	oneItemStore(t, path)
	if err := Verify(ctx, path); err != nil {
		t.Fatalf("a sound store: %v", err)
	}

	// Pages after the header overwritten: SQLite finds the file damaged.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(data); i++ {
		data[i] = 0xA5
	}
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, data, 0o600); err != nil {
		t.Fatal(err)
	}
	err = Verify(ctx, damaged)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a damaged store: %v, want one line saying it is damaged", err)
	}

	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database\n", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Verify(ctx, notDB); err == nil || !strings.Contains(err.Error(), "not") {
		t.Errorf("a text file: %v, want it said to be no store", err)
	}
	if err := Verify(ctx, filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a missing store verified")
	}
}
