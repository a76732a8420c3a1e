package fixguard

import (
	"regexp"
	"strings"
)

// Why a commit is a fix, as FixGuard.Why says it.
const (
	WhyConventional = "fix:"
	WhyFixVerb      = "fix"
	WhyIssue        = "fixes #N"
	WhyTrailer      = "Fixes: trailer"
	WhyBug          = "bug"
	WhyRegression   = "regression"
	WhyHotfix       = "hotfix"
	WhyRevert       = "revert of a breaking commit"
	WhyReapply      = "reapplied after a revert"
)

var (
	conventionalFix = regexp.MustCompile(`(?i)^(fix|bugfix|hotfix)(\([^)]*\))?!?:`)
	fixVerb         = regexp.MustCompile(`(?i)^(\[[^\]]*\]\s*)?(\w[\w./-]*:\s*)?(fix|fixes|fixed|fixing)\b`)
	issueFix        = regexp.MustCompile(`(?i)\bfix(es|ed)?\s*:?\s+([\w.-]+/[\w.-]+)?#\d+|\bfix(es|ed)?\s+https?://\S+/issues/\d+`)
	fixesTrailer    = regexp.MustCompile(`(?m)^Fixes:\s+\S+`)
	hotfixWord      = regexp.MustCompile(`(?i)\bhot-?fix\b`)
	regressionWord  = regexp.MustCompile(`(?i)\bregress(ion|ions|ed)?\b`)
	bugWord         = regexp.MustCompile(`(?i)\b(bugs?|bugfix|buggy)\b`)
	// Subjects that name a fix of no code's behaviour.
	notCodeFix    = regexp.MustCompile(`(?i)\b(typos?|spelling|grammar|docs?|readme|changelog|\w*lint(er|ing)?|vet|staticcheck|warnings?|ci|travis|github actions|formatting|gofmt|whitespace|wording|link|links|bug reports?|issue templates?)\b|^([\w/.-]+:\s*)?(fix(es|ed|ing)?\s+)?(the\s+|a\s+|some\s+)?(flaky\s+|broken\s+|failing\s+)?tests?\b|^(docs|chore|ci|style|build|test|tests)(\([^)]*\))?!?:|^(bump|update|upgrade)\b.*\b(version|dependenc|from|to)\b`)
	revertSubject = regexp.MustCompile(`^Revert "(.*)"\s*$`)
	revertsCommit = regexp.MustCompile(`(?i)this reverts commit ([0-9a-f]{7,40})`)
	breakingWords = regexp.MustCompile(`(?i)\b(break|breaks|broke|broken|breaking|regress\w*|crash\w*|fail\w*|bugs?|panic\w*|incorrect|wrong)\b`)
	// What a later commit says to let a fix go.
	overrideLine = regexp.MustCompile(`(?m)^\s*(Reverts|Supersedes)\s*:?\s+([0-9a-fA-F]{7,40})\b|^Guard-Override:\s*([0-9a-fA-F]{7,40})\b`)
)

// fixWhy says why a commit with this message is a fix, "" when it is not
// one by its message alone. A revert is judged apart (revertWhy).
func fixWhy(message string) string {
	subject, body, _ := strings.Cut(strings.TrimSpace(message), "\n")
	subject = strings.TrimSpace(subject)
	if revertSubject.MatchString(subject) || strings.HasPrefix(subject, "Merge ") {
		return ""
	}
	if notCodeFix.MatchString(subject) {
		return ""
	}
	switch {
	case conventionalFix.MatchString(subject):
		if hotfixWord.MatchString(subject) {
			return WhyHotfix
		}
		return WhyConventional
	case issueFix.MatchString(subject) || issueFix.MatchString(body):
		return WhyIssue
	case fixesTrailer.MatchString(body):
		return WhyTrailer
	case hotfixWord.MatchString(subject):
		return WhyHotfix
	case regressionWord.MatchString(subject):
		return WhyRegression
	case bugWord.MatchString(subject):
		return WhyBug
	case fixVerb.MatchString(subject):
		return WhyFixVerb
	}
	return ""
}

// reverted returns the commit a revert's message names, "" for a commit
// that is no revert.
func reverted(message string) string {
	m := revertsCommit.FindStringSubmatch(message)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1])
}

// revertGivesReason reports whether a revert's message says the commit
// it reverts broke something (beyond git's own lines).
func revertGivesReason(message string) bool {
	var rest []string
	for i, l := range strings.Split(message, "\n") {
		if i == 0 || revertsCommit.MatchString(l) {
			continue
		}
		rest = append(rest, l)
	}
	return breakingWords.MatchString(strings.Join(rest, "\n"))
}

// overrides returns the commits (or their starts) a message lets go of:
// Reverts SHA, Supersedes SHA, Guard-Override: SHA reason.
func overrides(message string) []string {
	var out []string
	for _, m := range overrideLine.FindAllStringSubmatch(message, -1) {
		if m[2] != "" {
			out = append(out, strings.ToLower(m[2]))
		} else if m[3] != "" {
			out = append(out, strings.ToLower(m[3]))
		}
	}
	return out
}

func subjectOf(message string) string {
	s, _, _ := strings.Cut(strings.TrimSpace(message), "\n")
	return strings.TrimSpace(s)
}
