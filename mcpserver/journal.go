package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorehq/lore"
)

// Limits of journal_similar.
const (
	DefaultAttempts = 5
	MaxAttempts     = 20
)

// SimilarInput is journal_similar's arguments.
type SimilarInput struct {
	Text    string   `json:"text" jsonschema:"the change you are about to make, in your own words: the task, the approach, an error"`
	Files   []string `json:"files,omitempty" jsonschema:"repository-relative paths you will touch: attempts that touched them rank higher"`
	Outcome string   `json:"outcome,omitempty" jsonschema:"only attempts that ended so: success, failure, rollback or pending"`
	Repo    string   `json:"repo,omitempty" jsonschema:"the repository (owner/name); defaults to the one lore mcp was started in"`
	Limit   int      `json:"limit,omitempty" jsonschema:"at most this many attempts: default 5, at most 20"`
}

// AttemptHit is one journal_similar result.
type AttemptHit struct {
	ID          string   `json:"id"`
	At          string   `json:"at" jsonschema:"when it was made, RFC 3339"`
	Task        string   `json:"task"`
	Approach    string   `json:"approach,omitempty"`
	Outcome     string   `json:"outcome"`
	Lesson      string   `json:"lesson,omitempty" jsonschema:"what it taught: its reflection, else its analysis of why it failed"`
	Files       []string `json:"files"`
	SharedFiles []string `json:"shared_files,omitempty" jsonschema:"the files you named that it touched"`
	Retries     int      `json:"retries,omitempty"`
	Score       float64  `json:"score" jsonschema:"higher is a better match; compares attempts of one call only"`
}

// SimilarOutput is journal_similar's result.
type SimilarOutput struct {
	Attempts []AttemptHit `json:"attempts" jsonschema:"earlier attempts most like yours, best first"`
}

// LogInput is journal_log's arguments.
type LogInput struct {
	Task       string   `json:"task" jsonschema:"what the attempt set out to do, in a sentence"`
	Approach   string   `json:"approach,omitempty" jsonschema:"how it went about it"`
	Outcome    string   `json:"outcome" jsonschema:"success, failure, rollback or pending"`
	Files      []string `json:"files,omitempty" jsonschema:"repository-relative paths it changed"`
	Diff       string   `json:"diff,omitempty" jsonschema:"the change, as a unified diff (cut at 1 MiB)"`
	Tests      string   `json:"tests,omitempty" jsonschema:"the end of the test or build output that tells how it went"`
	Analysis   string   `json:"analysis,omitempty" jsonschema:"why it failed or was rolled back"`
	Reflection string   `json:"reflection,omitempty" jsonschema:"the lesson: what the next attempt should know"`
	Area       string   `json:"area,omitempty" jsonschema:"a free label to group attempts: a component, a benchmark's area"`
	Retries    int      `json:"retries,omitempty" jsonschema:"how many tries came before this one"`
	Parent     string   `json:"parent,omitempty" jsonschema:"the id of the attempt this one retries"`
	Repo       string   `json:"repo,omitempty" jsonschema:"the repository (owner/name); defaults to the one lore mcp was started in"`
}

// LogOutput is journal_log's result.
type LogOutput struct {
	ID      string `json:"id" jsonschema:"the stored attempt's id"`
	Outcome string `json:"outcome"`
	// Lesson is the knowledge item the attempt's lesson became, if any.
	Lesson string `json:"lesson_item,omitempty" jsonschema:"the id of the pitfall its lesson became, a candidate until another session's attempt teaches it too"`
}

// addJournalTools adds journal_similar and journal_log.
func addJournalTools(s *mcp.Server, h *handlers) {
	no := false
	mcp.AddTool(s, &mcp.Tool{
		Name:  "journal_similar",
		Title: "Earlier attempts like this one",
		Description: `Before you change code, find the earlier attempts most like yours in this
repository: what was tried, whether it worked, failed or was rolled back, and
the lesson. Name the files you will touch to raise attempts that touched them.
A failed attempt's lesson is what not to repeat.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
	}, h.similar)
	mcp.AddTool(s, &mcp.Tool{
		Name:  "journal_log",
		Title: "Log an attempt",
		Description: `Log an attempt to change code once you know how it went: the task, the
approach, the files, the outcome (success, failure, rollback or pending), and for
a failure why (analysis) and what to do next time (reflection). Secrets are
redacted. A failure's lesson becomes a candidate pitfall of the repository, made
active when another session's attempt teaches the same.`,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no},
	}, h.logAttempt)
}

func (h *handlers) similar(ctx context.Context, _ *mcp.CallToolRequest, in SimilarInput) (*mcp.CallToolResult, SimilarOutput, error) {
	out := SimilarOutput{Attempts: []AttemptHit{}}
	if strings.TrimSpace(in.Text) == "" && len(in.Files) == 0 {
		return nil, out, errors.New("text is empty: describe the change you are about to make")
	}
	limit, err := limitOf(in.Limit, DefaultAttempts, MaxAttempts)
	if err != nil {
		return nil, out, err
	}
	outcome, err := attemptOutcome(in.Outcome)
	if err != nil {
		return nil, out, err
	}
	repo, err := h.journalRepo(in.Repo)
	if err != nil {
		return nil, out, err
	}
	hits, err := h.j.SimilarAttempts(ctx, lore.AttemptQuery{Text: in.Text, Files: lore.CleanFiles(in.Files), Repo: repo,
		Outcome: outcome, Limit: limit})
	if err != nil {
		return nil, out, fmt.Errorf("similar: %w", err)
	}
	for _, x := range hits {
		hit := AttemptHit{ID: x.ID, At: x.At.UTC().Format(time.RFC3339), Task: x.Task, Approach: x.Approach, Outcome: x.Outcome,
			Files: x.Files, SharedFiles: x.SharedFiles, Retries: x.Retries, Score: math.Round(x.Score*1000) / 1000}
		// A lesson is handed to an agent as knowledge is: screened, and
		// not when it reads as an order held for a person.
		if it, ok := lore.LessonOf(x.Attempt); ok && !slices.Contains(it.Tags, lore.TagHeld) {
			hit.Lesson = it.Text
		}
		if hit.Files == nil {
			hit.Files = []string{}
		}
		out.Attempts = append(out.Attempts, hit)
	}
	return nil, out, nil
}

func (h *handlers) logAttempt(ctx context.Context, _ *mcp.CallToolRequest, in LogInput) (*mcp.CallToolResult, LogOutput, error) {
	var out LogOutput
	if strings.TrimSpace(in.Task) == "" {
		return nil, out, errors.New("task is empty: say what the attempt set out to do")
	}
	outcome, err := attemptOutcome(in.Outcome)
	if err != nil {
		return nil, out, err
	}
	if outcome == "" {
		return nil, out, fmt.Errorf("outcome is empty: want one of %s", strings.Join(lore.AttemptOutcomes, ", "))
	}
	repo, err := h.journalRepo(in.Repo)
	if err != nil {
		return nil, out, err
	}
	a := lore.Attempt{Task: in.Task, Approach: in.Approach, Outcome: outcome, Files: in.Files, Diff: in.Diff, Tests: in.Tests,
		Analysis: in.Analysis, Reflection: in.Reflection, Area: in.Area, Retries: in.Retries, Parent: in.Parent,
		Repo: repo, Agent: h.opts.Agent}
	stored, err := h.j.LogAttempts(ctx, []lore.Attempt{a})
	if err != nil {
		return nil, out, fmt.Errorf("log: %w", err)
	}
	out.ID, out.Outcome = stored[0].ID, stored[0].Outcome
	rs, err := lore.AddLessons(ctx, h.st, stored...)
	if err != nil {
		return nil, out, err
	}
	if len(rs) > 0 {
		out.Lesson = rs[0].ID
	}
	return nil, out, nil
}

// journalRepo is the repository a journal call names, else the server's.
func (h *handlers) journalRepo(repo string) (string, error) {
	if strings.TrimSpace(repo) == "" {
		repo = h.opts.Repo
	}
	r, _, err := scope(repo, "")
	return r, err
}

// attemptOutcome checks an outcome a call names: "" or one of lore's.
func attemptOutcome(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	for _, o := range lore.AttemptOutcomes {
		if s == o {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown outcome %q: want one of %s", s, strings.Join(lore.AttemptOutcomes, ", "))
}
