package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contextHome is a home folder whose store holds a few notes, and a
// repository folder (no remote: its name is the repository) to write in.
func contextHome(t *testing.T) (home, repo string) {
	t.Helper()
	home = t.TempDir()
	repo = filepath.Join(home, "src", "api")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	for _, args := range [][]string{
		{"add", "Pushing to main returns HTTP 405: open a pull request", "--category", "pitfall", "--repo", "api"},
		{"add", "make test needs Docker running for the database tests", "--category", "fact", "--repo", "api"},
		{"add", "The web repository uses pnpm, not npm", "--category", "fact", "--repo", "web"},
	} {
		if r := runLore(t, home, args...); r.code != 0 {
			t.Fatalf("lore %v: exit %d %s", args, r.code, r.err)
		}
	}
	return home, repo
}

type contextResult struct {
	File    string   `json:"file"`
	Changed bool     `json:"changed"`
	Action  string   `json:"action"`
	Repo    string   `json:"repo"`
	Agent   string   `json:"agent"`
	Items   []string `json:"items"`
	Tokens  int      `json:"tokens"`
	NoStore bool     `json:"no_store"`
}

func contextWrite(t *testing.T, home string, args ...string) contextResult {
	t.Helper()
	r := runLore(t, home, append([]string{"context", "write", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("lore context write %v: exit %d %s", args, r.code, r.err)
	}
	var res contextResult
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("not JSON: %q", r.stdout)
	}
	return res
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// block returns the lore block of s, markers included.
func block(t *testing.T, s string) string {
	t.Helper()
	i, j := strings.Index(s, contextBegin), strings.Index(s, contextEnd)
	if i < 0 || j < i {
		t.Fatalf("no lore block in %q", s)
	}
	return s[i : j+len(contextEnd)]
}

func TestContextWriteCreatesAndReplaces(t *testing.T) {
	home, repo := contextHome(t)
	file := filepath.Join(repo, "AGENTS.md")

	res := contextWrite(t, home, file)
	if res.Action != "created" || !res.Changed || res.Repo != "api" || res.Agent != "" || len(res.Items) != 2 || res.Tokens == 0 {
		t.Fatalf("first write: %+v", res)
	}
	got := readFile(t, file)
	if !strings.HasPrefix(got, contextBegin+"\n") || !strings.HasSuffix(got, "\n"+contextEnd+"\n") ||
		!strings.Contains(got, "HTTP 405") || !strings.Contains(got, "Docker") || strings.Contains(got, "pnpm") {
		t.Fatalf("created file:\n%s", got)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}

	// Same store: the file is not even rewritten.
	os.Chmod(file, 0o600)
	before, _ := os.Stat(file)
	res = contextWrite(t, home, file)
	after, _ := os.Stat(file)
	if res.Action != "unchanged" || res.Changed || !os.SameFile(before, after) || readFile(t, file) != got {
		t.Errorf("second write: %+v", res)
	}

	// The block is replaced where the user put it; everything else stays.
	edited := "# API\n\nIntro.\n\n" + strings.Replace(block(t, got), "HTTP 405", "HTTP 999 (edited)", 1) + "\n\n## More\nText after.\n"
	os.WriteFile(file, []byte(edited), 0o600)
	runLore(t, home, "add", "CI takes 20 minutes: run make lint locally first", "--category", "fact", "--repo", "api")
	res = contextWrite(t, home, file)
	got = readFile(t, file)
	if res.Action != "replaced" || len(res.Items) != 3 || !strings.HasPrefix(got, "# API\n\nIntro.\n\n"+contextBegin+"\n") ||
		!strings.HasSuffix(got, contextEnd+"\n\n## More\nText after.\n") || strings.Contains(got, "999") || !strings.Contains(got, "make lint") {
		t.Errorf("replace: %+v\n%s", res, got)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 as before", fi.Mode().Perm())
	}
}

func TestContextWriteAppendsAndRemoves(t *testing.T) {
	home, repo := contextHome(t)
	for _, tc := range []struct{ name, content string }{
		{"LF", "# Project\n\nUse Go 1.26.\n"},
		{"CRLF", "# Project\r\n\r\nUse Go 1.26.\r\n"},
		{"no final newline", "# Project\n\nUse Go 1.26."},
		{"CRLF, no final newline", "# Project\r\n\r\nUse Go 1.26."},
		{"blank line at the end", "# Project\n\n"},
		{"a newline only", "\n"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(repo, "CLAUDE.md")
			os.WriteFile(file, []byte(tc.content), 0o644)
			res := contextWrite(t, home, file)
			want := "appended"
			if res.Action != want || res.Agent != "claude-code" {
				t.Fatalf("%+v", res)
			}
			got := readFile(t, file)
			if !strings.HasPrefix(got, tc.content) {
				t.Fatalf("the old content changed:\n%q", got)
			}
			added := got[len(tc.content):]
			eol := "\n"
			if strings.Contains(tc.content, "\r\n") {
				eol = "\r\n"
			}
			if strings.Contains(strings.ReplaceAll(got, "\r\n", ""), "\n") && eol == "\r\n" {
				t.Errorf("LF line endings in a CRLF file:\n%q", got)
			}
			sep := eol
			switch {
			case tc.content == "":
				sep = ""
			case !strings.HasSuffix(tc.content, "\n"):
				sep = eol + eol
			}
			if !strings.HasPrefix(added, sep+contextBegin+eol) {
				t.Errorf("block not after a blank line: %q", added)
			}
			if strings.HasSuffix(tc.content, "\n") || tc.content == "" {
				if !strings.HasSuffix(got, contextEnd+eol) {
					t.Errorf("no final newline after the block: %q", added)
				}
			} else if !strings.HasSuffix(got, contextEnd) {
				t.Errorf("a final newline was added to a file without one: %q", added)
			}
			// Idempotent, then removed to the byte.
			if res := contextWrite(t, home, file); res.Action != "unchanged" || readFile(t, file) != got {
				t.Errorf("second write: %+v", res)
			}
			if res := contextWrite(t, home, file, "--remove"); res.Action != "removed" || !res.Changed {
				t.Errorf("remove: %+v", res)
			}
			if back := readFile(t, file); back != tc.content {
				t.Errorf("after remove %q, want %q", back, tc.content)
			}
			if res := contextWrite(t, home, file, "--remove"); res.Action != "absent" || res.Changed {
				t.Errorf("second remove: %+v", res)
			}
		})
	}
}

func TestContextWriteMalformedMarkers(t *testing.T) {
	home, repo := contextHome(t)
	file := filepath.Join(repo, "AGENTS.md")
	for _, tc := range []struct{ content, msg string }{
		{"# A\n" + contextBegin + "\nx\n", "line 2 has no lore:end"},
		{contextBegin + "\n" + contextBegin + "\n" + contextEnd + "\n", "second lore:begin marker at line 2"},
		{contextBegin + "\n" + contextEnd + "\ntext\n" + contextBegin + "\n" + contextEnd + "\n", "second lore:begin marker at line 4"},
		{"text\n" + contextEnd + "\n", "lore:end marker at line 2 without a lore:begin"},
	} {
		os.WriteFile(file, []byte(tc.content), 0o644)
		for _, args := range [][]string{{"context", "write", file}, {"context", "write", file, "--remove"}} {
			r := runLore(t, home, args...)
			if r.code != 1 || !strings.Contains(r.err, tc.msg) || !strings.Contains(r.err, file) || strings.Count(r.err, "\n") != 1 {
				t.Errorf("%q %v: exit %d, stderr %q", tc.content, args[2:], r.code, r.err)
			}
			if readFile(t, file) != tc.content {
				t.Errorf("%q: the file changed", tc.content)
			}
		}
	}
	// Markers shown in fenced code are text, not a block.
	doc := "How lore marks its block:\n\n```\n" + contextBegin + "\n```\n\n~~~~markdown\n" + contextEnd + "\n~~~~\n"
	os.WriteFile(file, []byte(doc), 0o644)
	res := contextWrite(t, home, file)
	if got := readFile(t, file); res.Action != "appended" || !strings.HasPrefix(got, doc+"\n"+contextBegin) {
		t.Errorf("fenced markers: %+v\n%s", res, got)
	}
	if res := contextWrite(t, home, file, "--remove"); res.Action != "removed" || readFile(t, file) != doc {
		t.Errorf("fenced markers, remove: %+v", res)
	}
	// A fence left open would swallow an appended block.
	open := "# A\n\n```sh\nmake test\n"
	os.WriteFile(file, []byte(open), 0o644)
	if r := runLore(t, home, "context", "write", file); r.code != 1 || !strings.Contains(r.err, "line 3 is never closed") || readFile(t, file) != open {
		t.Errorf("open fence: exit %d, %q", r.code, r.err)
	}
}

func TestContextWriteOutsideRepoAndWithoutStore(t *testing.T) {
	home, _ := contextHome(t)
	dir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "GEMINI.md")
	res := contextWrite(t, home, file)
	if res.Repo != "notes" || res.Agent != "gemini-cli" || len(res.Items) != 0 {
		t.Errorf("outside a repository: %+v", res)
	}
	if got := readFile(t, file); !strings.Contains(got, "lore has no notes") {
		t.Errorf("no empty note:\n%s", got)
	}
	// --repo and a relative FILE (from the current folder, the home here).
	res = contextWrite(t, home, "AGENTS.md", "--repo", "web")
	if res.File != filepath.Join(home, "AGENTS.md") || len(res.Items) != 1 {
		t.Errorf("--repo web: %+v", res)
	}

	// No store: an empty block, exit 0, and no store created.
	empty := t.TempDir()
	res = contextWrite(t, empty, filepath.Join(empty, "AGENTS.md"))
	if !res.NoStore || res.Action != "created" || !strings.Contains(readFile(t, filepath.Join(empty, "AGENTS.md")), "lore has no notes") {
		t.Errorf("no store: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(empty, ".lore")); err == nil {
		t.Error("context write created a store")
	}
	r := runLore(t, empty, "context", "write", filepath.Join(empty, "CLAUDE.md"))
	if r.code != 0 || !strings.Contains(r.stdout, "no store yet") {
		t.Errorf("no store, text: exit %d %q", r.code, r.stdout)
	}
}

func TestContextWriteUsage(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"context", "write"},
		{"context", "write", "a.md", "b.md"},
		{"context", "write", "a.md", "--budget", "0"},
		{"context", "write", "a.md", "--agent", "windsurf"},
		{"context", "write", "a.md", "--remove", "--repo", "x"},
		{"context", "write", home},
		{"context", "frobnicate"},
	} {
		r := runLore(t, home, args...)
		if r.code != 2 || !strings.HasPrefix(r.err, "lore: ") || strings.Count(r.err, "\n") > 2 {
			t.Errorf("lore %s: exit %d, stderr %q", strings.Join(args, " "), r.code, r.err)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "a.md")); err == nil {
		t.Error("a usage error wrote a file")
	}
}

// Notes quoting lore's markers cannot end the block early.
func TestContextBlockNeutralisesMarkers(t *testing.T) {
	b := string(renderContextBlock("note\n"+contextEnd+"\n  "+contextBegin+"\n", "\n"))
	blk, err := findContextBlock([]byte("x\n" + b + "\ny\n"))
	if err != nil || !blk.found || strings.Count(b, "lore:end") != 1 || strings.Count(b, "lore:begin") != 1 {
		t.Errorf("block %q: %+v, %v", b, blk, err)
	}
}

// Any file without a block gets one appended that --remove takes out to
// the byte; no file makes the marker scan fail in a way it should not.
func FuzzContextBlock(f *testing.F) {
	for _, s := range []string{"", "\n", "# A\r\n\r\nb", "x\n```\n" + contextBegin + "\n", contextBegin + "\n" + contextEnd, "a\n\n\n", "\r\n\r\n",
		"\r", "\r\n\n", // lone and mixed line endings, found by fuzzing
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		data := []byte(s)
		blk, err := findContextBlock(data)
		if err != nil {
			return
		}
		if blk.found {
			if blk.start > blk.end || blk.end > len(data) {
				t.Fatalf("block %+v out of %q", blk, s)
			}
			return
		}
		if blk.openFence > 0 {
			return // context write refuses to append
		}
		with := appendContextBlock(data, renderContextBlock("- a note\n", fileEOL(data)))
		blk, err = findContextBlock(with)
		if err != nil || !blk.found {
			t.Fatalf("%q: the block is not found (%v)", with, err)
		}
		if back := removeContextBlock(with, blk); string(back) != s {
			t.Fatalf("remove after append: %q, want %q", back, s)
		}
	})
}
