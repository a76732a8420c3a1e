package lore

import (
	"testing"

	"github.com/lorehq/lore/internal/guard"
)

// TestRulesCompile compiles every rule of the screens, which a rule's
// needs that a match may lack would make panic (guard.NewRuleNeeding):
// most are compiled only when a text first holds their triggers.
func TestRulesCompile(t *testing.T) {
	for _, rules := range [][]guard.Rule{instructionRules, unsafeRules, riskyOrders} {
		for _, r := range rules {
			r.Regexp()
		}
	}
}
