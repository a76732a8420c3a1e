package fixguard

import (
	"context"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

func open(t testing.TB, r *gittest.Repo) *Repo {
	t.Helper()
	repo, err := Open(context.Background(), r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}
