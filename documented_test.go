package lore

import (
	"slices"
	"strings"
	"testing"
)

// TestDocumented checks that an item the repository's instructions file
// already gives (TagDocumented) is never made active by sessions, and
// that a session that saw it documented takes back what others made
// active; a person's word stands.
func TestDocumented(t *testing.T) {
	known := []string{TagVerified, TagDocumented}
	if Earned(Item{Confidence: 0.7, Tags: known, Evidence: sessions("a")}) {
		t.Error("a documented item earned active")
	}
	it := Item{Status: StatusCandidate, SourceCount: 2, Confidence: 0.75, Tags: []string{TagDocumented}}
	if Promote(&it) {
		t.Error("a documented candidate promoted")
	}
	stored := Item{Status: StatusActive, Confidence: 0.75, SourceCount: 2, Evidence: sessions("a", "b")}
	Merge(&stored, []float64{0.5, 0.5}, Item{Confidence: 0.7, Status: StatusCandidate, Tags: []string{TagDocumented},
		Evidence: sessions("c")}, Adding)
	if stored.Status != StatusCandidate || !slices.Contains(stored.Tags, TagDocumented) {
		t.Errorf("active item seen documented: %+v, want a candidate tagged documented", stored)
	}
	byHand := Item{Status: StatusActive, Confidence: 0.9, Manual: 0.9}
	Merge(&byHand, nil, Item{Confidence: 0.7, Tags: []string{TagDocumented}, Evidence: sessions("c")}, Adding)
	if byHand.Status != StatusActive {
		t.Errorf("an item a person added: %+v, want it active still", byHand)
	}
}

// TestIsInstructionFile: every file of InstructionFiles is one, wherever
// it is and case aside; a file that only ends like one is not.
func TestIsInstructionFile(t *testing.T) {
	for _, f := range InstructionFiles {
		if !IsInstructionFile(f) || !IsInstructionFile("/src/app/sub/"+strings.ToUpper(f)) {
			t.Errorf("%s: not an instructions file", f)
		}
	}
	for _, p := range []string{"", "README.md", "docs/MYCLAUDE.md", "AGENTS.md.bak", ".github/"} {
		if IsInstructionFile(p) {
			t.Errorf("%q: an instructions file", p)
		}
	}
}
