package lore_test

import (
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/screentest"
)

func TestScreenBypasses(t *testing.T) {
	for _, s := range screentest.Bypasses {
		if !lore.Instruction(s) && !lore.Hold(s) {
			t.Errorf("%q passes both screens", s)
		}
	}
}

func TestScreenOrdinary(t *testing.T) {
	for _, s := range screentest.Ordinary {
		if lore.Instruction(s) {
			t.Errorf("Instruction(%q) = true, want false", s)
		} else if lore.Hold(s) {
			t.Errorf("Hold(%q) = true, want false", s)
		}
	}
}

func TestMarkHeld(t *testing.T) {
	it := lore.Item{Status: lore.StatusActive, Tags: []string{"ci"}}
	it.MarkHeld()
	it.MarkHeld()
	if it.Status != lore.StatusCandidate || len(it.Tags) != 2 || it.Tags[1] != lore.TagHeld {
		t.Errorf("MarkHeld twice: %+v; want a candidate tagged ci and held once", it)
	}
}
