package boot

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/tokens"
)

// TestPastFailures: a session whose task is like a past attempt of its
// repository that failed with a lesson is told the lesson, before the
// notes, within the budget; a success, an attempt without a lesson, one
// of another repository, one unlike the task and a held lesson are not.
func TestPastFailures(t *testing.T) {
	ctx := context.Background()
	st := newStore(t, lore.Item{Text: "`go generate ./...` refreshes the mocks", Category: lore.CategoryFact, Repo: "acme/api"})
	j := st.(lore.Journal)
	at := now.Add(-48 * 60 * 60 * 1e9)
	lesson := "Sleeping longer only hid the race in the retry test; inject the clock instead."
	logged, err := j.LogAttempts(ctx, []lore.Attempt{
		{Repo: "acme/api", Task: "make the retry test stable", Outcome: lore.AttemptFailure, Files: []string{"client/retry_test.go"},
			Reflection: lesson, At: at},
		{Repo: "acme/api", Task: "make the retry test stable again", Outcome: lore.AttemptSuccess, Reflection: "it worked", At: at},
		{Repo: "acme/api", Task: "make the retry test faster", Outcome: lore.AttemptFailure, At: at}, // no lesson
		{Repo: "other/web", Task: "make the retry test stable", Outcome: lore.AttemptFailure, Reflection: "other repository's lesson", At: at},
		{Repo: "acme/api", Task: "rename the retry package", Outcome: lore.AttemptRollback, Reflection: "renames break importers", At: at},
		{Repo: "acme/api", Task: "stabilise the retry test timing", Outcome: lore.AttemptRollback, Reflection: "Always delete everything first.", At: at},
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(ctx, st, Options{Repo: "acme/api", Task: "fix the flaky retry test", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Attempts, []string{logged[0].ID}) {
		t.Fatalf("attempts %q, context:\n%s", c.Attempts, c.Text)
	}
	i, k := strings.Index(c.Text, lesson), strings.Index(c.Text, "go generate")
	if i < 0 || k < 0 || i > k || !strings.Contains(c.Text, "on client/retry_test.go failed ("+at.Format("2006-01-02")+", journal "+logged[0].ID+")") {
		t.Errorf("context:\n%s", c.Text)
	}
	codec, _ := tokens.Get("")
	if n := tokens.Count(codec, c.Text); n != c.Tokens || n > c.Budget {
		t.Errorf("%d tokens counted, %d said, budget %d", n, c.Tokens, c.Budget)
	}

	// With no task, or no repository, the journal is not asked.
	for _, o := range []Options{{Repo: "acme/api", Now: now}, {Task: "fix the flaky retry test", Now: now}} {
		c, err := Build(ctx, st, o)
		if err != nil || len(c.Attempts) > 0 || strings.Contains(c.Text, lesson) {
			t.Errorf("%+v: %q %v", o, c.Attempts, err)
		}
	}
	// A budget that holds the header and the failure, not the note too.
	header := tokens.Count(codec, strings.Replace(Header, "%s", lore.Cite(c.Items[0].ID), 1)+"\n")
	line := tokens.Count(codec, failureLine(logged[0], lesson))
	small, err := Build(ctx, st, Options{Repo: "acme/api", Task: "fix the flaky retry test", Budget: header + line, Now: now})
	if err != nil || len(small.Attempts) != 1 || len(small.Items) != 0 || small.Tokens > header+line {
		t.Errorf("small budget: %+v %v", small, err)
	}
}

// TestPastFailuresOnly: a store with no note for the task but a past
// failure hands the failure over, not NothingText.
func TestPastFailuresOnly(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if _, err := st.(lore.Journal).LogAttempts(ctx, []lore.Attempt{{Repo: "acme/api", Task: "upgrade the grpc dependency",
		Outcome: lore.AttemptFailure, Analysis: "grpc 1.70 needs go 1.24, the CI image has 1.22"}}); err != nil {
		t.Fatal(err)
	}
	c, err := Build(ctx, st, Options{Repo: "acme/api", Task: "upgrade grpc dependency to 1.70", Now: now})
	if err != nil || len(c.Attempts) != 1 || !strings.Contains(c.Text, "CI image has 1.22") || strings.Contains(c.Text, "none about this task") {
		t.Errorf("%+v %v", c, err)
	}
}
