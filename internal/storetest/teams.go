package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// RunTeams is the conformance suite of lore.Teams: what one team's store
// holds, no read of another team's store finds. open returns teams with
// nothing stored.
func RunTeams(t *testing.T, open func(t *testing.T) lore.Teams) {
	ctx := context.Background()
	t.Run("Isolated", func(t *testing.T) {
		teams := open(t)
		a, err := teams.Team(ctx, "team-a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := teams.Team(ctx, "team-b")
		if err != nil {
			t.Fatal(err)
		}
		def, err := teams.Team(ctx, lore.DefaultTeam)
		if err != nil {
			t.Fatal(err)
		}
		const text = "`go test ./...` fails with zorblax timeout on the ci runner; set ZORBLAX_WAIT=30"
		const sig = "go test: zorblax timeout"
		res, err := a.Add(ctx, []lore.Item{{Text: text, Category: lore.CategoryPitfall, Signature: sig, Repo: "acme/api",
			Confidence: 0.9, Status: lore.StatusActive, Evidence: []lore.Evidence{{Session: "sa", Position: 1}}}})
		if err != nil {
			t.Fatal(err)
		}
		id := res[0].ID
		if err := a.RecordBoot(ctx, lore.Boot{At: time.Now(), Repo: "acme/api", Items: []string{id}}); err != nil {
			t.Fatal(err)
		}
		if err := a.RecordEpisodes(ctx, lore.SessionEpisodes{Session: "sa", Episodes: []lore.Episode{{Session: "sa", Repo: "acme/api",
			Position: 2, Tool: "Bash", Input: "go test ./...", Error: "zorblax timeout after 10s", Signature: sig, Fix: "go test -p 1 ./...", Steps: 1}}}); err != nil {
			t.Fatal(err)
		}
		if got, err := a.Item(ctx, id); err != nil || got.Text != text {
			t.Fatalf("team a's own item: %+v, %v", got, err)
		}
		for name, s := range map[string]lore.Store{"team-b": b, lore.DefaultTeam: def} {
			if _, err := s.Item(ctx, id); lore.ErrorCode(err) != lore.ENOTFOUND {
				t.Errorf("%s: Item(team a's item) = %v, want ENOTFOUND", name, err)
			}
			if hits, err := s.Search(ctx, lore.Query{Text: "zorblax timeout", Filter: lore.Filter{AnyStatus: true}}); err != nil || len(hits) != 0 {
				t.Errorf("%s: Search found %d of team a's items (%v)", name, len(hits), err)
			}
			n := 0
			if err := s.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(lore.Item) error { n++; return nil }); err != nil || n != 0 {
				t.Errorf("%s: Items listed %d items (%v), want none", name, n, err)
			}
			if c, err := s.Count(ctx, lore.Filter{AnyStatus: true, Expired: true}); err != nil || c != 0 {
				t.Errorf("%s: Count = %d (%v), want 0", name, c, err)
			}
			if got, err := s.Recall(ctx, lore.RecallQuery{Signatures: []string{sig}, Command: "go test"}); err != nil || len(got) != 0 {
				t.Errorf("%s: Recall found %d items (%v), want none", name, len(got), err)
			}
			boots := 0
			if err := s.Boots(ctx, time.Time{}, func(lore.Boot) error { boots++; return nil }); err != nil || boots != 0 {
				t.Errorf("%s: Boots = %d (%v), want none", name, boots, err)
			}
			if eps, err := s.Episodes(ctx, lore.EpisodeQuery{Signature: sig, Text: "zorblax timeout"}); err != nil || len(eps) != 0 {
				t.Errorf("%s: Episodes = %d (%v), want none", name, len(eps), err)
			}
		}
		if eps, err := a.Episodes(ctx, lore.EpisodeQuery{Signature: sig, Text: "zorblax timeout"}); err != nil || len(eps) != 1 {
			t.Errorf("team a: Episodes = %d (%v), want its own", len(eps), err)
		}
	})
	t.Run("SameTeamTwice", func(t *testing.T) {
		teams := open(t)
		a, err := teams.Team(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Add(ctx, []lore.Item{{Text: "The acme queue drops messages over 1 MB", Category: lore.CategoryFact}}); err != nil {
			t.Fatal(err)
		}
		again, err := teams.Team(ctx, "acme")
		if err != nil {
			t.Fatal(err)
		}
		if n, err := again.Count(ctx, lore.Filter{AnyStatus: true}); err != nil || n != 1 {
			t.Errorf("the team's store asked for again holds %d items (%v), want 1", n, err)
		}
	})
	t.Run("InvalidName", func(t *testing.T) {
		teams := open(t)
		for _, name := range []string{"", "Acme", "../etc", "a/b", "a b"} {
			if _, err := teams.Team(ctx, name); lore.ErrorCode(err) != lore.EINVALID {
				t.Errorf("Team(%q) = %v, want EINVALID", name, err)
			}
		}
	})
}
