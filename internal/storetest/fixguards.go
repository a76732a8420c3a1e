package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// GuardsOpener returns a new, empty keeper of guards.
type GuardsOpener func(t *testing.T) lore.FixGuards

// RunGuards is the conformance suite of lore.FixGuards: guards are kept
// per repository, replaced by commit, read oldest first, and a scan run
// again keeps the proof lore guard test recorded.
func RunGuards(t *testing.T, open GuardsOpener) {
	ctx := context.Background()
	fix1 := strings.Repeat("a", 40)
	fix2 := strings.Repeat("b", 39) + "c"
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	g1 := lore.FixGuard{Repo: "acme/api", Commit: fix1, At: at.Add(time.Hour), Subject: "fix: crash on empty key",
		Files: []string{"config.go"}, Lines: []lore.GuardLine{{File: "config.go", Text: `if key == "" {`}},
		Tests: []lore.GuardTest{{File: "config_test.go", Name: "TestEmptyKey", Added: true}}}
	g2 := lore.FixGuard{Repo: "acme/api", Commit: fix2, At: at, Subject: "hotfix: nil map"}
	other := lore.FixGuard{Repo: "acme/web", Commit: fix1, At: at, Subject: "fix: other"}

	t.Run("SaveAndRead", func(t *testing.T) {
		s := open(t)
		if err := s.SaveGuards(ctx, []lore.FixGuard{g1, g2, other}); err != nil {
			t.Fatal(err)
		}
		gs, err := s.Guards(ctx, "ACME/api")
		if err != nil {
			t.Fatal(err)
		}
		if len(gs) != 2 || gs[0].Commit != fix2 || gs[1].Commit != fix1 {
			t.Fatalf("Guards(acme/api) = %+v, want fix2 then fix1", gs)
		}
		if gs[1].Lines[0].Text != `if key == "" {` || !gs[1].Tests[0].Added || gs[1].Subject != g1.Subject {
			t.Errorf("guard read back as %+v", gs[1])
		}
	})
	t.Run("Invalid", func(t *testing.T) {
		s := open(t)
		bad := g1
		bad.Commit = "abc"
		var le *lore.Error
		if err := s.SaveGuards(ctx, []lore.FixGuard{bad}); !errors.As(err, &le) || le.Code != lore.EINVALID {
			t.Errorf("SaveGuards(short commit) = %v, want EINVALID", err)
		}
	})
	t.Run("ProofSurvivesRescan", func(t *testing.T) {
		s := open(t)
		if err := s.SaveGuards(ctx, []lore.FixGuard{g1, g2}); err != nil {
			t.Fatal(err)
		}
		g, err := s.SetProof(ctx, "acme/api", fix1[:8], lore.ProofProven, "go test ./...", at)
		if err != nil {
			t.Fatal(err)
		}
		if g.Proof != lore.ProofProven || g.Commit != fix1 {
			t.Errorf("SetProof = %+v", g)
		}
		changed := g1
		changed.Subject = "fix: crash on an empty key"
		if err := s.SaveGuards(ctx, []lore.FixGuard{changed}); err != nil {
			t.Fatal(err)
		}
		gs, _ := s.Guards(ctx, "acme/api")
		if len(gs) != 2 || gs[1].Subject != changed.Subject || gs[1].Proof != lore.ProofProven || gs[1].ProofCmd != "go test ./..." {
			t.Errorf("after a rescan: %+v", gs)
		}
		var le *lore.Error
		if _, err := s.SetProof(ctx, "acme/api", "dddd", lore.ProofProven, "", at); !errors.As(err, &le) || le.Code != lore.ENOTFOUND {
			t.Errorf("SetProof(unknown) = %v, want ENOTFOUND", err)
		}
	})
}
