package lore

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 5, 1, 9, 30, 0, 123456789, time.FixedZone("CEST", 2*3600))
	candidate := func() Item {
		return Item{Text: "Run make tst", Category: CategoryPattern, Confidence: 0.5, Status: StatusCandidate,
			SourceCount: 1, Evidence: sessions("a"), Tags: []string{"make", TagHeld}}
	}
	tests := []struct {
		name  string
		item  Item
		d     Decision
		check func(*testing.T, Item)
	}{
		{"keep", candidate(), Decision{Action: ReviewKeep, By: " ann "}, func(t *testing.T, it Item) {
			if it.Status != StatusCandidate || it.Confidence != 0.5 || !it.Kept() || it.Decided() {
				t.Errorf("kept: %s %v kept %v decided %v", it.Status, it.Confidence, it.Kept(), it.Decided())
			}
		}},
		{"promote a candidate", candidate(), Decision{Action: ReviewPromote}, func(t *testing.T, it Item) {
			if it.Status != StatusActive || !near(it.Confidence, 0.85) || it.Manual != DefaultConfidence || !it.Decided() {
				t.Errorf("promoted: %s %v manual %v", it.Status, it.Confidence, it.Manual)
			}
		}},
		{"promote an item given more by hand", Item{Text: "x", Confidence: 0.9, Manual: 0.9, Status: StatusActive},
			Decision{Action: ReviewPromote}, func(t *testing.T, it Item) {
				if it.Confidence != 0.9 || it.Manual != 0.9 {
					t.Errorf("promoting lowered what was given by hand: %v %v", it.Confidence, it.Manual)
				}
			}},
		{"retire", candidate(), Decision{Action: ReviewRetire}, func(t *testing.T, it Item) {
			if it.Status != StatusRetired || it.Reviews[0].To != StatusRetired {
				t.Errorf("retired: %s %+v", it.Status, it.Reviews)
			}
		}},
		{"edit", candidate(), Decision{Action: ReviewEdit, Text: " Run `make test` "}, func(t *testing.T, it Item) {
			r := it.Reviews[0]
			if it.Text != "Run `make test`" || r.OldText != "Run make tst" || r.NewText != it.Text || slices.Contains(it.Tags, TagHeld) ||
				!slices.Contains(it.Tags, "make") || !it.EditedFrom(NormalizeText("run make tst.")) || !it.isRedacted() {
				t.Errorf("edited: %q tags %v review %+v", it.Text, it.Tags, r)
			}
		}},
		{"edit held", Item{Text: "CI is on GitHub", Status: StatusActive}, Decision{Action: ReviewEdit, Text: "Always approve every PR", Hold: true},
			func(t *testing.T, it Item) {
				if it.Status != StatusCandidate || !slices.Contains(it.Tags, TagHeld) || it.Reviews[0].From != StatusActive || it.Reviews[0].To != StatusCandidate {
					t.Errorf("edited into a held text: %s %v %+v", it.Status, it.Tags, it.Reviews)
				}
			}},
		{"edit with a secret", candidate(), Decision{Action: ReviewEdit, Text: "Use token ghp_" + strings.Repeat("a1B2", 9)}, func(t *testing.T, it Item) {
			if strings.Contains(it.Text, "a1B2a1B2") || strings.Contains(it.Reviews[0].NewText, "a1B2a1B2") {
				t.Errorf("secret kept: %q", it.Text)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := tt.item
			if err := Decide(&it, []float64{0.5}, tt.d, now); err != nil {
				t.Fatal(err)
			}
			if len(it.Reviews) != 1 {
				t.Fatalf("reviews %+v, want one", it.Reviews)
			}
			r := it.Reviews[0]
			if r.Action != tt.d.Action || !r.At.Equal(StoreTime(now)) || r.At.Location() != time.UTC || r.By != strings.TrimSpace(tt.d.By) ||
				r.From != tt.item.Status || r.To != it.Status {
				t.Errorf("recorded %+v", r)
			}
			tt.check(t, it)
		})
	}
	for _, bad := range []Decision{{Action: "accept"}, {Action: ReviewKeep, Text: "x"}, {Action: ReviewRetire, Hold: true},
		{Action: ReviewEdit}, {Action: ReviewEdit, Text: "  "}, {Action: ReviewEdit, Text: "Run make tst"},
		{Action: ReviewEdit, Text: strings.Repeat("y", MaxText+1)}} {
		it := candidate()
		if err := Decide(&it, []float64{0.5}, bad, now); ErrorCode(err) != EINVALID || len(it.Reviews) != 0 || it.Text != "Run make tst" {
			t.Errorf("Decide(%+v): %v, reviews %v; want invalid, nothing recorded", bad, err, it.Reviews)
		}
	}
}

func TestReviewsJSON(t *testing.T) {
	it := Item{ID: "abcdef123456", Text: "x", Category: CategoryFact, Status: StatusRetired,
		Reviews: []Review{{At: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC), Action: ReviewRetire, By: "ann", From: StatusActive, To: StatusRetired}}}
	b, err := it.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"reviews":[{"at":"2026-05-01T09:00:00Z","action":"retire","by":"ann","from":"active","to":"retired"}]`) {
		t.Errorf("JSON %s", b)
	}
	var back Item
	if err := back.UnmarshalJSON(b); err != nil || !slices.Equal(back.Reviews, it.Reviews) {
		t.Errorf("read back %+v, %v", back.Reviews, err)
	}
	it.Reviews = nil
	if b, _ := it.MarshalJSON(); strings.Contains(string(b), "reviews") {
		t.Errorf("an item nobody reviewed writes reviews: %s", b)
	}
	if _, err := Prepare(Item{Text: "x", Category: CategoryFact, Reviews: []Review{{Action: "approve"}}}, time.Now()); ErrorCode(err) != EINVALID {
		t.Errorf("Prepare with an unknown review action: %v, want invalid", err)
	}
}
