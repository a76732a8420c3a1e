package lore

import "strings"

// The purposes of a repository's own commands, as harvest words the facts
// it keeps of them ("`npm run build` in `web` builds the project.") and
// boot reads them back to head a session's notes with them.
const (
	PurposeBuild = "builds the project"
	PurposeTest  = "runs the tests"
	PurposeCheck = "checks the code"
)

// Purposes lists them.
var Purposes = []string{PurposeBuild, PurposeTest, PurposeCheck}

// PartPurpose is a purpose for a part of the project: "runs part of the
// tests" for PurposeTest.
func PartPurpose(purpose string) string { return strings.Replace(purpose, " the ", " part of the ", 1) }
