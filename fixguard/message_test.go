package fixguard

import (
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

func TestFixWhy(t *testing.T) {
	tests := []struct{ message, want string }{
		{"fix: crash on empty key", WhyConventional},
		{"fix(parser)!: reject empty keys", WhyConventional},
		{"hotfix: nil map in loader", WhyHotfix},
		{"Handle empty keys\n\nFixes #12", WhyIssue},
		{"Handle empty keys (fixes acme/api#12)", WhyIssue},
		{"Handle empty keys\n\nFixes: 1234abcd (\"add parser\")", WhyTrailer},
		{"Avoid a regression in decoding arrays", WhyRegression},
		{"Bug in key parsing when the line is blank", WhyBug},
		{"Fix panic on nil pointer", WhyFixVerb},
		{"parser: fix panic on nil pointer", WhyFixVerb},
		{"[toml] Fixed decoding of dates", WhyFixVerb},
		{"fix typo in README", ""},
		{"docs: fix the example", ""},
		{"Fix broken links", ""},
		{"add a bug report template", ""},
		{"Add the parser", ""},
		{"prefix keys with the section", ""},
		{"Merge pull request #3 from a/fix-crash", ""},
		{`Revert "fix: crash on empty key"`, ""},
		{"chore: bump version to 1.2.3", ""},
	}
	for _, tt := range tests {
		if got := fixWhy(tt.message); got != tt.want {
			t.Errorf("fixWhy(%q) = %q, want %q", tt.message, got, tt.want)
		}
	}
}

func TestOverrides(t *testing.T) {
	msg := "refactor\n\nReverts 1234567abc\nSupersedes: abcdef0\nGuard-Override: DEADBEEF01 the caller checks\nThis reverts commit 7777777777."
	got := overrides(msg)
	want := []string{"1234567abc", "abcdef0", "deadbeef01"}
	if len(got) != len(want) {
		t.Fatalf("overrides = %v, want %v (git's own revert line lets nothing go)", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("overrides[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestRevertsAsFixes(t *testing.T) {
	r := gittest.New(t)
	r.Write("a.go", "package a\n\nfunc A() int { return computeTheAnswer() }\n")
	r.Commit("add A")
	r.Write("a.go", "package a\n\nfunc A() int { return computeTheAnswerFaster() }\n")
	broke := r.Commit("speed up A")
	r.Git("revert", "--no-edit", broke)
	r.Git("commit", "-q", "--amend", "-m", "Revert \"speed up A\"\n\nThis reverts commit "+broke+".\n\nIt broke the build on arm64.")
	plain := gittest.New(t)
	plain.Write("a.go", "package a\n\nfunc A() int { return computeTheAnswer() }\n")
	plain.Commit("add A")
	plain.Write("a.go", "package a\n\nfunc A() int { return computeTheAnswerFaster() }\n")
	c := plain.Commit("speed up A")
	plain.Git("revert", "--no-edit", c)

	if gs := scanned(t, open(t, r)); len(gs) != 1 || gs[0].Why != WhyRevert || len(gs[0].Lines) != 1 {
		t.Errorf("a revert saying what broke: %+v, want one guard of the restored line", gs)
	}
	if gs := scanned(t, open(t, plain)); len(gs) != 0 {
		t.Errorf("a revert giving no reason: %+v, want no guard", gs)
	}
}

func TestFixWhyNotCode(t *testing.T) {
	for _, m := range []string{"fix go vet warnings", "Fix golint warnings", "Fix tests in GitHub actions", "Fix test on 32 bit arch",
		"fix flaky test", "test: fix the decoder test", "Fix CI", "cmd: Fix tests"} {
		if got := fixWhy(m); got != "" {
			t.Errorf("fixWhy(%q) = %q, want no fix of code", m, got)
		}
	}
	if got := fixWhy("Fix testing of nil maps in Decode"); got != WhyFixVerb {
		t.Errorf("fixWhy(a fix of code that names testing) = %q", got)
	}
}
