package recall

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/internal/memstore"
)

const pushOutput = "Exit code 1\nremote: error: GH006: Protected branch update failed for refs/heads/main.\n" +
	"remote: error: Changes must be made through a pull request.\nerror: failed to push some refs to 'github.com:acme/api.git'"

func bashInput(cmd string) string { return `{"command":` + quote(cmd) + `,"description":"run it"}` }

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// testStore holds a repository's pitfall of git push, with the signature
// harvest gives its error, and items that must not come back.
func testStore(t *testing.T) (*memstore.Store, lore.Item) {
	t.Helper()
	sig := errsig.Parse("Bash", bashInput("git push origin main"), pushOutput, nil).Signature
	if sig == "" {
		t.Fatal("no signature for the push error")
	}
	push := lore.Item{Text: "`git push origin main` fails with `remote: error: GH006: Protected branch update failed for <path>`; " +
		"`git push -u origin fix-retry` works.", Category: lore.CategoryPitfall, Repo: "acme/api", Signature: sig, Confidence: 0.7}
	st := memstore.New()
	items := []lore.Item{
		push,
		// Another repository's, not confident enough, not of this command,
		// not a pitfall, and a dangerous one.
		{Text: "`git push origin main` fails with `x`; `git push origin dev` works.", Category: lore.CategoryPitfall, Repo: "acme/web", Signature: sig, Confidence: 0.9},
		{Text: "`git push origin main` can fail with `y`.", Category: lore.CategoryToolQuirk, Repo: "acme/api", Confidence: 0.5},
		{Text: "`git pull` fails with `z`; `git pull --rebase` works.", Category: lore.CategoryPitfall, Repo: "acme/api", Confidence: 0.9},
		{Text: "`git push origin main` is how the project deploys.", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.9},
		{Text: "`git push origin main` fails with `hook declined`; `git push --no-verify origin main` works.", Category: lore.CategoryPitfall,
			Repo: "acme/api", Confidence: 0.9},
	}
	if _, err := st.Add(context.Background(), items); err != nil {
		t.Fatal(err)
	}
	stored, err := st.Search(context.Background(), lore.Query{Text: "protected branch", Filter: lore.Filter{Repo: "acme/api"}})
	if err != nil || len(stored) != 1 {
		t.Fatalf("the push pitfall is not stored: %v, %v", stored, err)
	}
	return st, stored[0].Item
}

func TestBeforeTool(t *testing.T) {
	st, push := testStore(t)
	ctx := context.Background()
	opts := Options{Repo: "acme/api", Agent: lore.AgentClaudeCode}
	for _, tt := range []struct {
		name, tool, input string
		want              bool
	}{
		{"the command", "Bash", bashInput("git push origin main"), true},
		{"in a chain, after cd", "Bash", bashInput("cd /src/api && git push origin main"), true},
		{"with a flag more", "Bash", bashInput("git push origin main --tags"), true},
		{"Gemini CLI's shell", "run_shell_command", bashInput("git push origin main"), true},
		{"another branch", "Bash", bashInput("git push origin feature"), false},
		{"another subcommand", "Bash", bashInput("git fetch origin main"), false},
		{"no shell", "Read", `{"file_path":"/src/api/main.go"}`, false},
		{"no command", "Bash", `{}`, false},
		{"not JSON", "Bash", `{"command":`, false},
	} {
		n, err := BeforeTool(ctx, st, opts, tt.tool, tt.input)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := len(n.Items) == 1 && n.Items[0] == push.ID; got != tt.want || !tt.want && n.Text != "" {
			t.Errorf("%s: %+v, want the push pitfall: %v", tt.name, n, tt.want)
		}
		if tt.want && (!strings.Contains(n.Text, push.Text) || !strings.Contains(n.Text, lore.Cite(push.ID)) ||
			!strings.Contains(n.Text, "not instructions")) {
			t.Errorf("%s: the note %q does not quote the pitfall with its id under lore's header", tt.name, n.Text)
		}
	}
	// What the session was told already is not told again.
	if n, _ := BeforeTool(ctx, st, Options{Repo: "acme/api", Told: map[string]bool{push.ID: true}}, "Bash", bashInput("git push origin main")); n.Text != "" {
		t.Errorf("told already: %+v, want nothing", n)
	}
	// Another repository's session, and one with no repository, are told
	// nothing of acme/api.
	for _, o := range []Options{{Repo: "acme/cli"}, {Agent: lore.AgentClaudeCode}} {
		if n, _ := BeforeTool(ctx, st, o, "Bash", bashInput("git push origin main")); len(n.Items) != 0 {
			t.Errorf("%+v: %+v, want nothing", o, n)
		}
	}
}

func TestAfterFailure(t *testing.T) {
	st, push := testStore(t)
	ctx := context.Background()
	opts := Options{Repo: "Acme/API", Agent: lore.AgentClaudeCode}
	n, err := AfterFailure(ctx, st, opts, "Bash", bashInput("git push origin main"), pushOutput)
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Items) != 1 || n.Items[0] != push.ID || !strings.Contains(n.Text, push.Text) {
		t.Fatalf("%+v, want the push pitfall", n)
	}
	// The note is the item's text, never the output it answers.
	if strings.Contains(n.Text, "github.com:acme/api.git") || strings.Contains(n.Text, "refs/heads/main") {
		t.Errorf("the note %q echoes the tool's output", n.Text)
	}
	for _, tt := range []struct{ name, output string }{
		{"another error", "Exit code 1\nfatal: not a git repository (or any of the parent directories): .git"},
		{"a refusal", "The user doesn't want to proceed with this tool use. The tool use was rejected."},
		{"nothing", ""},
		{"only the exit code", "Exit code 1"},
	} {
		n, err := AfterFailure(ctx, st, opts, "Bash", bashInput("git push origin main"), tt.output)
		if err != nil || n.Text != "" || len(n.Items) != 0 {
			t.Errorf("%s: %+v, %v; want nothing", tt.name, n, err)
		}
	}
}

// TestCap: no more than MaxNotes notes, this repository's first.
func TestCap(t *testing.T) {
	st := memstore.New()
	var items []lore.Item
	for _, repo := range []string{"", "acme/api"} {
		for _, fix := range []string{"--fill", "--draft", "--web", "--title t", "--base dev"} {
			items = append(items, lore.Item{Text: "`gh pr create` fails with `must provide --title`; `gh pr create " + fix + "` works (" + repo + ").",
				Category: lore.CategoryPitfall, Repo: repo, Confidence: 0.9})
		}
	}
	st.Add(context.Background(), items)
	n, err := BeforeTool(context.Background(), st, Options{Repo: "acme/api"}, "Bash", bashInput("gh pr create"))
	if err != nil || len(n.Items) != MaxNotes || strings.Count(n.Text, "(pitfall, this repo)") != MaxNotes {
		t.Errorf("%+v, %v; want %d notes of this repository", n, err, MaxNotes)
	}
}

type failing struct{}

func (failing) Recall(context.Context, lore.RecallQuery) ([]lore.Item, error) {
	return nil, errors.New("disk I/O error")
}

func TestStoreError(t *testing.T) {
	if _, err := BeforeTool(context.Background(), failing{}, Options{}, "Bash", bashInput("go test ./...")); err == nil {
		t.Error("BeforeTool: no error from a failing store")
	}
	if _, err := AfterFailure(context.Background(), failing{}, Options{}, "Bash", bashInput("git push"), pushOutput); err == nil {
		t.Error("AfterFailure: no error from a failing store")
	}
}

// TestPoints says which agents lore's hooks reach at which point.
func TestPoints(t *testing.T) {
	for _, tt := range []struct {
		agent         string
		before, after bool
	}{
		{lore.AgentClaudeCode, true, true},
		{lore.AgentCodex, true, false},
		{lore.AgentGeminiCLI, false, true},
		{lore.AgentOpenCode, false, false},
		{"", false, false},
	} {
		if b, a := Points(tt.agent); b != tt.before || a != tt.after {
			t.Errorf("Points(%q) = %v, %v; want %v, %v", tt.agent, b, a, tt.before, tt.after)
		}
	}
}
