package transcript

import (
	"slices"
	"testing"

	"github.com/lorehq/lore"
)

// kind names the one way of reading a format sets, or "" when it sets
// none or several.
func (f format) kind() string {
	kinds := map[string]bool{"line": f.line != nil, "doc": f.doc != nil, "dir": f.dir != nil, "raw": f.raw != nil, "db": f.db != nil}
	found := ""
	for k, set := range kinds {
		if set {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// The table is well formed: each format is read one way, under a name of
// its own and a known agent; each agent says once where it writes; and
// the plain OpenAI formats, which other agents' logs could pass for, are
// tried last of their kind.
func TestFormats(t *testing.T) {
	seen := map[string]bool{}
	rooted := map[string]bool{}
	openaiSeen := map[string]bool{}
	for i, f := range formats {
		k := f.kind()
		if k == "" {
			t.Errorf("format %d (%q) is read in none or several ways", i, f.name)
			continue
		}
		if f.name == "" || seen[k+" "+f.name] {
			t.Errorf("format %d: %s name %q is empty or listed twice", i, k, f.name)
		}
		seen[k+" "+f.name] = true
		switch {
		case f.agent == "" && k != "raw":
			t.Errorf("%s %s: no agent; only a raw format may leave it to the content", k, f.name)
		case f.agent != "" && !slices.Contains(lore.Agents, f.agent):
			t.Errorf("%s %s: agent %q is not in lore.Agents", k, f.name, f.agent)
		}
		if f.roots != nil {
			if rooted[f.agent] {
				t.Errorf("%s %s: a second roots function for %s", k, f.name, f.agent)
			}
			rooted[f.agent] = true
		}
		if f.agent == lore.AgentOpenAI {
			openaiSeen[k] = true
		} else if openaiSeen[k] {
			t.Errorf("%s %s comes after the plain OpenAI %s format, which would claim its files first", k, f.name, k)
		}
	}
	// The kinds' lists, filled from the table, hold every format once.
	n := len(lineFormats) + len(docFormats) + len(dirFormats) + len(rawFormats) + len(sqlitedbReaders)
	if n != len(formats) {
		t.Errorf("%d formats in the kinds' lists, %d in the table", n, len(formats))
	}
}

// Every agent whose format lists roots has a place in DefaultRoots.
func TestDefaultRootsCoverTable(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		e := Env{Home: "/home/u", GOOS: goos, Cwd: "/home/u/proj"}
		got := map[string]bool{}
		for _, r := range DefaultRoots(e) {
			got[r.Agent] = true
		}
		for _, f := range formats {
			if f.roots != nil && !got[f.agent] {
				t.Errorf("%s: no default root for %s", goos, f.agent)
			}
		}
	}
}
