package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/atomicfile"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/transcript"
)

type contextOptions struct {
	IO  *iostreams.IOStreams
	Env transcript.Env
	storeOptions
	File   string
	Repo   string
	Agent  string
	Task   string
	Budget int
	Remove bool
	JSON   bool
	// dir is the file's folder when the repository is the one it is in:
	// its location facts are checked against that working tree.
	dir string
}

// The markers around the block lore manages in an instructions file.
const (
	contextBegin = "<!-- lore:begin (managed by lore context write; edits inside are replaced) -->"
	contextEnd   = "<!-- lore:end -->"
)

func newContextCmd(fac *factory, runF func(context.Context, *contextOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Keep lore's notes in an agent's instructions file",
		Long: `Keep lore's notes in the Markdown file an agent reads at every start (AGENTS.md,
CLAUDE.md, GEMINI.md, …), for agents without session hooks.`,
		Example: `  lore context write AGENTS.md
  lore context write CLAUDE.md --remove`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown context command %q: want write", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newContextWriteCmd(fac, runF))
	return cmd
}

func newContextWriteCmd(fac *factory, runF func(context.Context, *contextOptions) error) *cobra.Command {
	opts := &contextOptions{IO: fac.IO, Env: fac.Env, storeOptions: fac.storeOptions()}
	cmd := &cobra.Command{
		Use:   "write FILE",
		Short: "Write lore's notes into a block of a Markdown file",
		Long: `Write the context lore boot would print into a block of FILE, between the lines
  ` + contextBegin + `
  ` + contextEnd + `
The block is replaced where it is, or added at the end after a blank line; FILE is
created when missing. Nothing outside the block changes, down to line endings, and
FILE is not rewritten when the block is already up to date. --remove takes the
block out again.

--repo defaults to the repository of FILE's folder, found as for sessions (the git
remote's owner/name); --agent to the agent whose file it is (CLAUDE.md:
claude-code, GEMINI.md: gemini-cli; none for AGENTS.md, which many agents read).
With no store yet, the block says there are no notes. ` + repoScopeHelp + `

--json prints {"file", "changed", "action", "repo", "agent", "items", "tokens",
"budget"}; action is created, appended, replaced, unchanged, removed or absent.

` + storeHelp,
		Example: `  lore context write AGENTS.md
  lore context write CLAUDE.md --task "payments service" --budget 1500
  lore context write ~/src/api/GEMINI.md --repo acme/api
  lore context write AGENTS.md --remove`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if strings.TrimSpace(opts.File) == "" {
				return usagef("the file name is empty")
			}
			if opts.Remove {
				for _, f := range []string{"repo", "agent", "task", "budget", "store"} {
					if cmd.Flags().Changed(f) {
						return usagef("--remove takes the block out; --%s does not apply", f)
					}
				}
			}
			if opts.Budget <= 0 {
				return usagef("--budget must be positive")
			}
			if err := checkAgent(&opts.Agent); err != nil {
				return err
			}
			if strings.ContainsAny(opts.Repo, " \t\n") {
				return usagef("--repo %q: want owner/name", opts.Repo)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return contextWriteRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", "", "the repository (default: FILE's folder's): "+repoScopeFlag)
	f.StringVar(&opts.Agent, "agent", "", "the agent reading FILE ("+strings.Join(lore.Agents, ", ")+"; default from FILE's name)")
	f.StringVar(&opts.Task, "task", "", "what sessions in this repository work on, in your words")
	f.IntVar(&opts.Budget, "budget", boot.DefaultBudget, "most tokens the block may take")
	f.BoolVar(&opts.Remove, "remove", false, "take lore's block out of FILE")
	f.BoolVar(&opts.JSON, "json", false, "print what was done as one JSON object")
	opts.storeOptions.addFlag(cmd)
	return cmd
}

// contextReport is what context write did.
type contextReport struct {
	File    string   `json:"file"`
	Changed bool     `json:"changed"`
	Action  string   `json:"action"`
	Repo    string   `json:"repo,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Items   []string `json:"items,omitempty"`
	Tokens  int      `json:"tokens,omitempty"`
	Budget  int      `json:"budget,omitempty"`
	NoStore bool     `json:"no_store,omitempty"`
}

func contextWriteRun(ctx context.Context, opts *contextOptions) error {
	file := opts.File
	if !filepath.IsAbs(file) && opts.Env.Cwd != "" {
		file = filepath.Join(opts.Env.Cwd, file)
	}
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	target := atomicfile.ResolveLink(file)
	old, err := os.ReadFile(target)
	exists := err == nil
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
	case err != nil:
		if fi, serr := os.Stat(target); serr == nil && fi.IsDir() {
			return usagef("%s is a folder; name a Markdown file such as %s", opts.File, filepath.Join(opts.File, "AGENTS.md"))
		}
		return fmt.Errorf("read %s: %w", opts.File, err)
	}
	blk, err := findContextBlock(old)
	if err != nil {
		return fmt.Errorf("%s: %w; nothing changed", opts.File, err)
	}

	rep := contextReport{File: file}
	var data []byte
	if opts.Remove {
		if !blk.found {
			rep.Action = "absent"
			return printContextReport(opts, rep)
		}
		data = removeContextBlock(old, blk)
		rep.Action = "removed"
	} else {
		if opts.Repo == "" {
			opts.Repo = transcript.RepoOfDir(filepath.Dir(file))
			opts.dir = filepath.Dir(file)
		}
		if opts.Agent == "" {
			opts.Agent = agentOfFile(file)
		}
		rep.Repo, rep.Agent = opts.Repo, opts.Agent
		c, noStore, err := opts.build(ctx)
		if err != nil {
			return err
		}
		rep.Tokens, rep.Budget, rep.NoStore = c.Tokens, c.Budget, noStore
		for _, p := range c.Items {
			rep.Items = append(rep.Items, p.ID)
		}
		if !blk.found && blk.openFence > 0 {
			return fmt.Errorf("%s: the code fence at line %d is never closed, so a block added at the end would be code; close it first", opts.File, blk.openFence)
		}
		block := renderContextBlock(c.Text, fileEOL(old))
		switch {
		case blk.found:
			data = append(append(append([]byte{}, old[:blk.start]...), block...), old[blk.end:]...)
			rep.Action = "replaced"
		case !exists:
			data = appendContextBlock(old, block)
			rep.Action = "created"
		default:
			data = appendContextBlock(old, block)
			rep.Action = "appended"
		}
	}
	if exists && bytes.Equal(data, old) {
		rep.Action = "unchanged"
		return printContextReport(opts, rep)
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := atomicfile.WriteFile(target, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", opts.File, err)
	}
	rep.Changed = true
	return printContextReport(opts, rep)
}

// build makes the context as lore boot does, without recording a boot: a
// file is read by many sessions, none of which is known here. With no
// store yet the context says lore has no notes.
func (opts *contextOptions) build(ctx context.Context) (c boot.Context, noStore bool, err error) {
	p, err := opts.storePath(opts.Env)
	if err != nil {
		return c, false, err
	}
	bo := boot.Options{Repo: opts.Repo, Agent: opts.Agent, Task: opts.Task, Budget: opts.Budget}
	if opts.dir != "" {
		bo.Dir, bo.Cwd = transcript.CheckoutRoot(opts.dir), opts.dir
	}
	if missing(p) {
		c, err = boot.Empty(bo)
		return c, true, err
	}
	st, err := opts.open(ctx, opts.Env, true)
	if err != nil {
		return c, false, err
	}
	defer st.Close()
	c, err = boot.Build(ctx, st, bo)
	return c, false, err
}

func printContextReport(opts *contextOptions, rep contextReport) error {
	if opts.JSON {
		return writeJSON(opts.IO.Out, rep)
	}
	out := opts.IO.Out
	notes := fmt.Sprintf("%d notes, %d of %d tokens, for %s", len(rep.Items), rep.Tokens, rep.Budget, scopeText(rep.Repo, rep.Agent))
	if len(rep.Items) == 1 {
		notes = strings.Replace(notes, "1 notes", "1 note", 1)
	}
	if rep.NoStore {
		notes = "no store yet, so no notes"
	}
	switch rep.Action {
	case "absent":
		fmt.Fprintf(out, "%s has no lore block; nothing removed\n", rep.File)
	case "removed":
		fmt.Fprintf(out, "removed the lore block from %s\n", rep.File)
	case "unchanged":
		fmt.Fprintf(out, "%s: the lore block is up to date (%s)\n", rep.File, notes)
	default:
		fmt.Fprintf(out, "%s: %s the lore block (%s)\n", rep.File, rep.Action, notes)
	}
	return nil
}

func scopeText(repo, agent string) string {
	switch {
	case repo != "" && agent != "":
		return repo + " and " + agent
	case repo != "":
		return repo
	case agent != "":
		return agent
	}
	return "any repository"
}

// agentOfFile is the agent that reads an instructions file by its name.
func agentOfFile(file string) string {
	switch strings.ToLower(filepath.Base(file)) {
	case "claude.md", "claude.local.md":
		return lore.AgentClaudeCode
	case "gemini.md":
		return lore.AgentGeminiCLI
	}
	return ""
}

// contextBlock is where the block sits in a file: from the start of the
// begin marker's line to the end of the end marker's, before its line
// ending.
type contextBlock struct {
	start, end int
	found      bool
	// openFence is the line of a code fence left open at the end of the
	// file, which would swallow an appended block; 0 when none.
	openFence int
}

// findContextBlock finds the one block in data. Markers count only on a
// line of their own and outside fenced code, where a file may show them;
// two begin markers, or a begin without an end, are errors.
func findContextBlock(data []byte) (contextBlock, error) {
	var (
		blk                contextBlock
		beginLine, endLine int
		inBlock            bool
		fence              string // the fence of the code block we are in
		fenceLine          int
		lineNo, lineStart  int
	)
	for lineStart < len(data) || lineNo == 0 {
		lineNo++
		next := bytes.IndexByte(data[lineStart:], '\n')
		contentEnd, nextStart := len(data), len(data)
		if next >= 0 {
			contentEnd, nextStart = lineStart+next, lineStart+next+1
		}
		if contentEnd > lineStart && data[contentEnd-1] == '\r' {
			contentEnd--
		}
		line := strings.TrimSpace(string(data[lineStart:contentEnd]))
		isBegin := strings.HasPrefix(line, "<!-- lore:begin") && strings.HasSuffix(line, "-->")
		isEnd := strings.HasPrefix(line, "<!-- lore:end") && strings.HasSuffix(line, "-->")
		switch {
		case inBlock && isBegin:
			return blk, fmt.Errorf("a second lore:begin marker at line %d, inside the block begun at line %d", lineNo, beginLine)
		case inBlock && isEnd:
			inBlock, endLine = false, lineNo
			blk.end, blk.found = contentEnd, true
		case inBlock:
		case fence != "":
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~"):
			fence, fenceLine = line[:len(line)-len(strings.TrimLeft(line, line[:1]))], lineNo
		case isBegin && blk.found:
			return blk, fmt.Errorf("a second lore:begin marker at line %d; the block at lines %d-%d is lore's", lineNo, beginLine, endLine)
		case isBegin:
			inBlock, beginLine = true, lineNo
			blk.start = lineStart
		case isEnd:
			return blk, fmt.Errorf("a lore:end marker at line %d without a lore:begin before it", lineNo)
		}
		if next < 0 {
			break
		}
		lineStart = nextStart
	}
	if inBlock {
		return blk, fmt.Errorf("the lore:begin marker at line %d has no lore:end after it", beginLine)
	}
	if fence != "" {
		blk.openFence = fenceLine
	}
	return blk, nil
}

// renderContextBlock is the block for text, with the file's line endings.
func renderContextBlock(text, eol string) []byte {
	body := strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), " \t\n")
	// A note quoting lore's markers must not end the block early.
	body = strings.NewReplacer("<!-- lore:begin", "<!-- lore begin", "<!-- lore:end", "<!-- lore end").Replace(body)
	lines := []string{contextBegin}
	if body != "" { // empty only when the budget holds not even the header
		lines = append(lines, strings.Split(body, "\n")...)
	}
	lines = append(lines, contextEnd)
	return []byte(strings.Join(lines, eol))
}

// appendContextBlock adds block at the end of data after a blank line,
// keeping a missing final newline missing.
func appendContextBlock(data, block []byte) []byte {
	eol := []byte(fileEOL(data))
	out := append([]byte{}, data...)
	switch {
	case len(data) == 0:
		return append(append(out, block...), eol...)
	case bytes.HasSuffix(data, []byte("\n")):
		out = append(append(append(out, eol...), block...), eol...)
	default:
		out = append(append(append(out, eol...), eol...), block...)
	}
	return out
}

// removeContextBlock takes the block out of data with its line ending and
// the blank line before it, undoing appendContextBlock exactly.
func removeContextBlock(data []byte, blk contextBlock) []byte {
	eol := []byte(fileEOL(data))
	before, after := data[:blk.start], data[blk.end:]
	after, hadEOL := bytes.CutPrefix(after, eol)
	if rest, ok := bytes.CutSuffix(before, eol); ok && (len(rest) == 0 || bytes.HasSuffix(rest, []byte("\n"))) {
		before = rest // the blank line that separated the block
	}
	if !hadEOL && len(after) == 0 {
		before, _ = bytes.CutSuffix(before, eol) // the block ended a file with no final newline
	}
	return append(append([]byte{}, before...), after...)
}

// fileEOL is the line ending data uses: that of its first line. A file
// with no line break yet gets "\n", or "\r\n" when it ends in a "\r" that a
// "\n" would turn into one.
func fileEOL(data []byte) string {
	i := bytes.IndexByte(data, '\n')
	if i > 0 && data[i-1] == '\r' || i < 0 && bytes.HasSuffix(data, []byte("\r")) {
		return "\r\n"
	}
	return "\n"
}
