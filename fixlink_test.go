package lore_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/sqlite"
)

func TestSessionCommits(t *testing.T) {
	call := func(id, input string) lore.Message {
		return lore.Message{Role: lore.RoleAssistant, ToolCalls: []lore.ToolCall{{ID: id, Name: "Bash", Input: input}}}
	}
	result := func(id, out string, failed bool) lore.Message {
		return lore.Message{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: id, Output: out, IsError: failed}}}
	}
	ms := []lore.Message{
		call("a", `{"command":"git commit -m 'fix: empty key'"}`),
		result("a", "[main 1a2b3c4] fix: empty key\n 1 file changed, 2 insertions(+)", false),
		call("b", `{"command":"cat NOTES.md"}`), // quoted output of no commit
		result("b", "[main 9999999] fix: not this one", false),
		call("c", `{"command":"git commit --amend"}`),
		result("c", "[main 5d6e7f8] nothing\nerror: hook failed", true),
		call("d", `{"command":"git commit -qm init"}`),
		result("d", "[feature/x (root-commit) abcdef0123] init\n[detached HEAD 0011223] second", false),
	}
	for i := range ms {
		ms[i].Index = i
	}
	got := lore.SessionCommits(&lore.Session{Messages: ms})
	want := []lore.SessionCommit{{1, "1a2b3c4", "fix: empty key"}, {7, "abcdef0123", "init"}, {7, "0011223", "second"}}
	if !slices.Equal(got, want) {
		t.Errorf("SessionCommits = %+v, want %+v", got, want)
	}
}

func TestTagCommits(t *testing.T) {
	ev := func(pos int) []lore.Evidence { return []lore.Evidence{{Session: "s", Position: pos}} }
	items := []lore.Item{
		{Text: "a", Category: lore.CategoryPitfall, Evidence: ev(2)},
		{Text: "b", Category: lore.CategoryPitfall, Evidence: ev(8)},
		{Text: "c", Category: lore.CategoryPitfall, Evidence: ev(20)},
		{Text: "d", Category: lore.CategoryFact, Evidence: ev(2)},
		{Text: "e", Category: lore.CategoryPitfall, Evidence: []lore.Evidence{{Session: "other", Position: 1}}},
	}
	lore.TagCommits(items, "s", []lore.SessionCommit{{Position: 5, Hash: "1111111"}, {Position: 10, Hash: "2222222"}})
	want := [][]string{{"commit:1111111"}, {"commit:2222222"}, nil, nil, nil}
	for i, it := range items {
		if !slices.Equal(it.Tags, want[i]) {
			t.Errorf("%s: tags %v, want %v", it.Text, it.Tags, want[i])
		}
	}
}

func TestFixedBy(t *testing.T) {
	fix := "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"
	g := lore.FixGuard{Repo: "acme/api", Commit: fix, Lines: []lore.GuardLine{
		{File: "internal/config/loader.go", Text: `if err := validateKeys(cfg.Entries); err != nil {`}},
		Tests: []lore.GuardTest{{File: "internal/config/loader_test.go", Name: "TestEmptyKey"}}}
	pit := func(text string, tags ...string) lore.Item {
		return lore.Item{Text: text, Category: lore.CategoryPitfall, Repo: "acme/api", Tags: tags}
	}
	tag := "commit:" + fix[:7]
	for _, tt := range []struct {
		name string
		it   lore.Item
		want bool
	}{
		{"names the file", pit("`make run` fails: `loader.go` keeps empty keys", tag), true},
		{"names the path", pit("internal/config/loader.go keeps empty keys", tag), true},
		{"names the end of the path", pit("config/loader.go keeps empty keys", tag), true},
		{"a folder of that name", pit("loader.go/ holds fixtures", tag), false},
		{"names the test file", pit("see loader_test.go", tag), true},
		{"names a function of the fix", pit("validateKeys skipped empty keys", tag), true},
		{"a longer hash tag", pit("validateKeys skipped empty keys", "commit:"+fix[:10]), true},
		{"no commit tag", pit("validateKeys skipped empty keys"), false},
		{"another commit", pit("validateKeys skipped empty keys", "commit:0000000"), false},
		{"another repo", lore.Item{Text: "validateKeys", Category: lore.CategoryPitfall, Repo: "acme/web", Tags: []string{tag}}, false},
		{"a fact", lore.Item{Text: "validateKeys", Category: lore.CategoryFact, Repo: "acme/api", Tags: []string{tag}}, false},
		{"only plain words of the fix", pit("the entries of the config had an error", tag), false},
		{"the name inside a longer one", pit("myloader.go, my-loader.go and validateKeysFast are other code", tag), false},
	} {
		if got := lore.FixedBy(tt.it, g); got != tt.want {
			t.Errorf("%s: FixedBy = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLinkFixes checks that linking tags the fixed pitfall in a real
// store and changes nothing else of it, a person's decision included,
// and that linking again tags nothing.
func TestLinkFixes(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lore.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fix := strings.Repeat("ab", 20)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	item := func(text, session string) lore.Item {
		return lore.Item{Text: text, Category: lore.CategoryPitfall, Repo: "acme/api", Confidence: 0.5, FirstSeen: at,
			Evidence: []lore.Evidence{{Session: session, Position: 3}}, Tags: []string{"commit:" + fix[:7]}}
	}
	res, err := st.Add(ctx, []lore.Item{
		item("`make run` fails with `empty key`: `loader.go` keeps lines without a key", "s1"),
		item("`make lint` fails with `no config`: the linter reads ~/.lintrc", "s2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	before, err := st.Review(ctx, res[0].ID, lore.Decision{Action: lore.ReviewPromote, By: "alice", At: at})
	if err != nil {
		t.Fatal(err)
	}
	g := lore.FixGuard{Repo: "acme/api", Commit: fix, Lines: []lore.GuardLine{{File: "cmd/loader.go", Text: "if key == \"\" {"}}}
	n, err := lore.LinkFixes(ctx, st, []lore.FixGuard{g})
	if err != nil || n != 1 {
		t.Fatalf("LinkFixes = %d, %v; want 1 linked", n, err)
	}
	after, err := st.Item(ctx, res[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := lore.FixedIn(after); !ok || h != fix[:12] {
		t.Errorf("FixedIn = %q, %v; want %s", h, ok, fix[:12])
	}
	if after.Status != before.Status || after.Confidence != before.Confidence || after.SourceCount != before.SourceCount ||
		len(after.Reviews) != len(before.Reviews) || !after.LastConfirmed.Equal(before.LastConfirmed) || after.Text != before.Text {
		t.Errorf("linking changed more than the tags:\nbefore %+v\nafter  %+v", before, after)
	}
	other, err := st.Item(ctx, res[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lore.FixedIn(other); ok {
		t.Errorf("a pitfall about other code was linked: %+v", other)
	}
	if n, err := lore.LinkFixes(ctx, st, []lore.FixGuard{g}); err != nil || n != 0 {
		t.Errorf("linking again = %d, %v; want nothing", n, err)
	}
}
