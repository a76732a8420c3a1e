package measure

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/memstore"
	"github.com/lorehq/lore/sqlite"
)

func TestJournalSection(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lore.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mon := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC) // a Monday
	a := func(repo string, day int, outcome, area string, files ...string) lore.Attempt {
		return lore.Attempt{Repo: repo, Task: "task " + outcome + area, At: mon.AddDate(0, 0, day), Outcome: outcome, Area: area, Files: files}
	}
	if _, err := st.LogAttempts(ctx, []lore.Attempt{
		a("acme/api", 0, lore.AttemptFailure, "parser", "lex.go", "parse.go"),
		a("acme/api", 1, lore.AttemptFailure, "parser", "lex.go"),
		a("acme/api", 2, lore.AttemptSuccess, "parser", "lex.go"),
		a("acme/api", 3, lore.AttemptPending, "", "docs.md"),
		a("acme/api", 7, lore.AttemptRollback, "cli", "main.go"),
		a("acme/api", 8, lore.AttemptSuccess, "cli", "main.go"),
		a("acme/api", 9, lore.AttemptSuccess, "", "parse.go"),
		a("other/web", 9, lore.AttemptFailure, "web", "index.ts"),
	}); err != nil {
		t.Fatal(err)
	}
	m, err := Compute(ctx, nil, st, Options{Repo: "api", Now: mon.AddDate(0, 0, 20)})
	if err != nil {
		t.Fatal(err)
	}
	j := m.Journal
	if j.Attempts != 7 || j.Succeeded != 3 || j.Failed != 2 || j.RolledBack != 1 || j.Pending != 1 || j.SuccessRate != 0.5 {
		t.Errorf("counts %+v", j)
	}
	want := []JournalWeek{{Week: "2026-05-04", Attempts: 4, Ended: 3, SuccessRate: 0.333}, {Week: "2026-05-11", Attempts: 3, Ended: 3, SuccessRate: 0.667}}
	if len(j.Weeks) != 2 || j.Weeks[0] != want[0] || j.Weeks[1] != want[1] {
		t.Errorf("weeks %+v", j.Weeks)
	}
	if len(j.Areas) != 2 || j.Areas[0] != (Failing{Name: "parser", Failures: 2, Attempts: 3}) || j.Areas[1] != (Failing{Name: "cli", Failures: 1, Attempts: 2}) {
		t.Errorf("areas %+v", j.Areas)
	}
	if len(j.Files) != 3 || j.Files[0] != (Failing{Name: "lex.go", Failures: 2, Attempts: 3}) || j.Files[1].Name != "main.go" || j.Files[2] != (Failing{Name: "parse.go", Failures: 1, Attempts: 2}) {
		t.Errorf("files %+v", j.Files)
	}
	// Since leaves out the first week.
	m, err = Compute(ctx, nil, st, Options{Repo: "acme/api", Since: mon.AddDate(0, 0, 7), Now: mon.AddDate(0, 0, 20)})
	if err != nil || m.Journal.Attempts != 3 {
		t.Errorf("since: %+v %v", m.Journal, err)
	}
	// A store that keeps no journal: an empty section.
	m, err = Compute(ctx, nil, memstore.New(), Options{})
	if err != nil || m.Journal.Attempts != 0 || m.Journal.Weeks == nil {
		t.Errorf("no journal: %+v %v", m.Journal, err)
	}
}
