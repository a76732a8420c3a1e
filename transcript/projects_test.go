package transcript

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// projectAgents are the agents lore reads each format of
// ../shared/corpus-projects as. Entire's "copilot-cli-jsonl" holds the
// Copilot CLI's event stream and VS Code Copilot Chat's, which writes the
// same events.
var projectAgents = map[string][]string{
	"claude-code-jsonl": {"claude-code"},
	"codex-rollout":     {"codex"},
	"gemini-jsonl":      {"gemini-cli"},
	"opencode-json":     {"opencode"},
	"copilot-cli-jsonl": {"copilot-cli", "copilot-chat"},
}

// TestCorpusProjects reads ../shared/corpus-projects as lore sessions
// does (issue 17): every file is read with no problem and no damaged
// line, as the agent its format is, holding the session SOURCES.tsv names.
func TestCorpusProjects(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "corpus-projects")
	f, err := os.Open(filepath.Join(root, "SOURCES.tsv"))
	if err != nil {
		t.Skipf("no shared corpus-projects at %s (only the project's own machines have it)", root)
	}
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes = '\t', true
	rows, err := r.ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Scan(context.Background(), []string{root}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p)
	}
	byPath := map[string][]string{} // path → native ids found
	agentAt := map[string]string{}
	found := map[string]bool{}
	for _, s := range res.Sessions {
		found[s.NativeID] = true
		byPath[s.Path] = append(byPath[s.Path], s.NativeID)
		agentAt[s.Path+"\x00"+s.NativeID] = s.Agent
		if s.Warnings != 0 {
			t.Errorf("%s (%s): %d damaged lines: %v", s.ID, s.Path, s.Warnings, s.WarningSamples)
		}
		if s.UserMessages == 0 || s.AssistantMessages == 0 {
			t.Errorf("%s (%s): %d user and %d assistant messages", s.ID, s.Path, s.UserMessages, s.AssistantMessages)
		}
	}
	files := 0
	for _, row := range rows[1:] {
		local, format, id := row[0], row[5], row[6]
		path := filepath.Join(root, local)
		files++
		ids := byPath[path]
		if !slices.Contains(ids, id) {
			if p := parentOf(t, path); p != "" && found[p] {
				continue // a sub-agent's export, folded into its parent's session
			}
			t.Errorf("%s (%s): session %s not found; found %v", local, format, id, ids)
			continue
		}
		if a := agentAt[path+"\x00"+id]; !slices.Contains(projectAgents[format], a) {
			t.Errorf("%s: read as %s, want one of %v", local, a, projectAgents[format])
		}
	}
	t.Logf("%d files, %d sessions", files, len(res.Sessions))
}

// parentOf is the parent session an OpenCode export names (info.parentID),
// "" for any other file.
func parentOf(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Info struct {
			ParentID string `json:"parentID"`
		} `json:"info"`
	}
	if json.Unmarshal(b, &doc) != nil {
		return ""
	}
	return doc.Info.ParentID
}
