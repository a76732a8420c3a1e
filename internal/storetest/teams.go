package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// RunTeams is the conformance suite of lore.Teams: what one team's store
// holds, no other team's store finds.
func RunTeams(t *testing.T, open func(t *testing.T) lore.Teams) {
	ctx := context.Background()
	t.Run("Apart", func(t *testing.T) {
		ts := open(t)
		a, err := ts.Team(ctx, "team-a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := ts.Team(ctx, "team-b")
		if err != nil {
			t.Fatal(err)
		}
		sig := "go test: undefined: <id>"
		res, err := a.Add(ctx, []lore.Item{{Text: "`go test` fails with undefined symbols until you run go generate",
			Category: lore.CategoryPitfall, Signature: sig, Repo: "acme/api", Status: lore.StatusActive, Confidence: 0.9}})
		if err != nil {
			t.Fatal(err)
		}
		id := res[0].ID
		at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		if err := a.RecordEpisodes(ctx, lore.SessionEpisodes{Session: "s1", Episodes: []lore.Episode{{Session: "s1", At: at,
			Position: 3, Tool: "Bash", Input: "go test ./...", Error: "undefined: Foo", Signature: sig, Fix: "go generate"}}}); err != nil {
			t.Fatal(err)
		}
		if err := a.RecordBoot(ctx, lore.Boot{At: at, Session: "s1", Items: []string{id}}); err != nil {
			t.Fatal(err)
		}
		// Team a finds all of it; team b none of it.
		for _, tt := range []struct {
			s    lore.Store
			want int
		}{{a, 1}, {b, 0}} {
			hits, err := tt.s.Search(ctx, lore.Query{Text: "go generate undefined"})
			check(t, "Search", len(hits), err, tt.want)
			_, err = tt.s.Item(ctx, id)
			if tt.want == 0 && lore.ErrorCode(err) != lore.ENOTFOUND || tt.want == 1 && err != nil {
				t.Errorf("Item in a team with %d items: %v", tt.want, err)
			}
			n := 0
			err = tt.s.Items(ctx, lore.Filter{AnyStatus: true}, func(lore.Item) error { n++; return nil })
			check(t, "Items", n, err, tt.want)
			n, err = tt.s.Count(ctx, lore.Filter{AnyStatus: true})
			check(t, "Count", n, err, tt.want)
			its, err := tt.s.Recall(ctx, lore.RecallQuery{Signatures: []string{sig}, Command: "go test"})
			check(t, "Recall", len(its), err, tt.want)
			eps, err := tt.s.Episodes(ctx, lore.EpisodeQuery{Signature: sig, Text: "undefined: Foo"})
			check(t, "Episodes", len(eps), err, tt.want)
			n = 0
			err = tt.s.Boots(ctx, time.Time{}, func(lore.Boot) error { n++; return nil })
			check(t, "Boots", n, err, tt.want)
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		ts := open(t)
		for _, name := range []string{"", "Team", "a b", "../x", "x;drop", "-a", "averyveryveryveryveryveryverylongteamname1"} {
			if _, err := ts.Team(ctx, name); lore.ErrorCode(err) != lore.EINVALID {
				t.Errorf("Team(%q): %v, want %s", name, err, lore.EINVALID)
			}
		}
	})
	t.Run("Again", func(t *testing.T) {
		ts := open(t)
		first, err := ts.Team(ctx, "team-a")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := first.Add(ctx, []lore.Item{{Text: "The api listens on 8080", Category: lore.CategoryFact}}); err != nil {
			t.Fatal(err)
		}
		again, err := ts.Team(ctx, "team-a")
		if err != nil {
			t.Fatal(err)
		}
		n, err := again.Count(ctx, lore.Filter{})
		check(t, "Count of the team asked for again", n, err, 1)
	})
}

func check(t *testing.T, what string, n int, err error, want int) {
	t.Helper()
	if err != nil || n != want {
		t.Errorf("%s: %d, %v; want %d", what, n, err, want)
	}
}
