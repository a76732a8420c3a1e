package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/memstore"
	"github.com/lorehq/lore/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/export")

// start is the stores' clock; exports run a day later, when the item
// that expired an hour before start has expired and the one expiring in
// 30 days has not.
var (
	start    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	exportAt = start.Add(24 * time.Hour)
)

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "lore.db"),
		sqlite.Options{Now: func() time.Time { return start }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fill stores items of every scope and status: a superseded one, a
// retired one, a candidate, an expired one and one that expires later.
func fill(t *testing.T, s lore.Store) {
	t.Helper()
	ctx := context.Background()
	res, err := s.Add(ctx, []lore.Item{
		{Text: "Pushing to main returns HTTP 405: the branch is protected; open a pull request instead.",
			Category: lore.CategoryPitfall, Repo: "acme/api", Agent: lore.AgentClaudeCode, Confidence: 0.8,
			Evidence:  []lore.Evidence{{Session: "claude-code:s1", Position: 14}, {Session: "claude-code:s2", Position: 3}},
			Signature: "http 405 method not allowed", Tags: []string{"git", "push"}},
		{Text: "The API listens on port 8080 in development", Category: lore.CategoryFact, Repo: "acme/api", Confidence: 0.9},
		{Text: "The codex sandbox blocks network access unless --full-auto is given", Category: lore.CategoryToolQuirk,
			Agent: lore.AgentCodex, Confidence: 0.75, Evidence: []lore.Evidence{{Session: "codex:s3", Position: 7}}},
		{Text: `Wrap errors with what was being done: fmt.Errorf("open store: %w", err)`, Category: lore.CategoryPattern,
			Tags: []string{"go"}, Confidence: lore.DefaultConfidence},
		{Text: "Integration tests may need LORE_TEST_PG_URL", Category: lore.CategoryFact,
			Status: lore.StatusCandidate, Confidence: 0.4},
		{Text: "Staging is frozen until the release", Category: lore.CategoryFact, Expires: start.Add(30 * 24 * time.Hour), Confidence: lore.DefaultConfidence},
		{Text: "The old CI runner is still in use", Category: lore.CategoryFact, Expires: start.Add(-time.Hour), Confidence: lore.DefaultConfidence},
		{Text: "Run make gen\nbefore committing generated code", Category: lore.CategoryPattern, Repo: "acme/ops+infra", Confidence: lore.DefaultConfidence},
		{Text: "Which team owns the billing service?", Category: lore.CategoryQuestion, Repo: "acme/web", Confidence: lore.DefaultConfidence},
		{Text: "Deploy with the deploy.sh script", Category: lore.CategoryPattern, Confidence: lore.DefaultConfidence},
		{Text: "Deploy with make deploy, which runs the checks first", Category: lore.CategoryPattern,
			Confidence: 0.85, Related: []string{"abcdef123456"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Supersede(ctx, res[9].ID, res[10].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, res[8].ID, lore.Decision{Action: lore.ReviewRetire, By: "ann"}); err != nil {
		t.Fatal(err)
	}
}

func all(t testing.TB, s lore.Store) []lore.Item {
	t.Helper()
	var items []lore.Item
	if err := s.Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		items = append(items, it)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return items
}

func export(t *testing.T, s itemLister, dir string, now time.Time) ExportStats {
	t.Helper()
	st, err := Export(context.Background(), s, dir, now)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// files returns every file under dir, relative, with its content.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	src := openStore(t)
	fill(t, src)
	want := all(t, src)
	dir := filepath.Join(t.TempDir(), "knowledge")
	if st := export(t, src, dir, exportAt); st.Items != len(want) {
		t.Fatalf("exported %d items, want %d", st.Items, len(want))
	}
	tests := []struct {
		name string
		path func(t *testing.T) string
	}{
		{"folder", func(*testing.T) string { return dir }},
		{"index.json", func(*testing.T) string { return filepath.Join(dir, "index.json") }},
		{"json lines", func(t *testing.T) string {
			var b bytes.Buffer
			for i, it := range want {
				line, err := json.Marshal(it)
				if err != nil {
					t.Fatal(err)
				}
				b.Write(line)
				b.WriteString("\n")
				if i%3 == 0 {
					b.WriteString("\n   \r\n")
				}
			}
			path := filepath.Join(t.TempDir(), "items.jsonl")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := openStore(t)
			res, err := Import(context.Background(), dst, tt.path(t))
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range res {
				if r.Action != lore.Created || r.ID != want[i].ID {
					t.Errorf("result %d: %+v, want created %s", i, r, want[i].ID)
				}
			}
			if got := all(t, dst); !reflect.DeepEqual(got, want) {
				gb, _ := json.MarshalIndent(got, "", "  ")
				wb, _ := json.MarshalIndent(want, "", "  ")
				t.Errorf("imported items differ:\n got %s\nwant %s", gb, wb)
			}
		})
	}
}

func TestReadFrom(t *testing.T) {
	s := openStore(t)
	fill(t, s)
	dir := t.TempDir()
	export(t, s, dir, exportAt)
	f, err := os.Open(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadFrom(f, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Items, want.Items) || len(got.Items) != len(all(t, s)) {
		t.Errorf("ReadFrom gave %d items, Read %d", len(got.Items), len(want.Items))
	}
}

func TestLayout(t *testing.T) {
	s := openStore(t)
	fill(t, s)
	dir := t.TempDir()
	st := export(t, s, dir, exportAt)
	got := files(t, dir)

	wantFiles := []string{"agents/codex.md", "global/fact.md", "global/pattern.md", "index.json",
		"repos/acme__api.md", "repos/acme__ops_infra.md"}
	if !slices.Equal(st.Files, wantFiles) || len(st.Removed) != 0 {
		t.Errorf("stats: files %v removed %v, want %v and none", st.Files, st.Removed, wantFiles)
	}
	if names := slices.Sorted(maps.Keys(got)); !slices.Equal(names, wantFiles) {
		t.Errorf("files on disk: %v, want %v", names, wantFiles)
	}
	for _, name := range st.Files {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, fi.Mode(), err)
		}
	}

	golden := filepath.Join("testdata", "export")
	if *update {
		os.RemoveAll(golden)
		for name, b := range got {
			path := filepath.Join(golden, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if want := files(t, golden); !reflect.DeepEqual(got, want) {
		for name := range got {
			if !bytes.Equal(got[name], want[name]) {
				t.Errorf("%s differs from testdata/export (go test -update rewrites it):\n%s", name, got[name])
			}
		}
	}

	index, md := string(got["index.json"]), ""
	for name, b := range got {
		if strings.HasSuffix(name, ".md") {
			md += string(b)
		}
	}
	for _, c := range []struct {
		text           string
		inIndex, inMD  bool
		file, contains string
	}{
		{text: "Pushing to main returns HTTP 405", inIndex: true, inMD: true, file: "repos/acme__api.md",
			contains: "· 0.96 · 2 sessions · 2026-03-01 · claude-code)*"},
		{text: "Which team owns the billing service?", inIndex: true},            // retired
		{text: "Deploy with the deploy.sh script", inIndex: true},                // superseded
		{text: "The old CI runner is still in use", inIndex: true},               // expired
		{text: "Staging is frozen until the release", inIndex: true, inMD: true}, // expires later
		{text: "Integration tests may need LORE_TEST_PG_URL", inIndex: true, inMD: true, file: "global/fact.md",
			contains: "- (candidate) Integration tests"},
		{text: "Run make gen before committing generated code", inMD: true, file: "repos/acme__ops_infra.md"},
		{text: `Run make gen\nbefore committing`, inIndex: true},
	} {
		if strings.Contains(index, c.text) != c.inIndex {
			t.Errorf("%q in index.json: %v, want %v", c.text, !c.inIndex, c.inIndex)
		}
		if strings.Contains(md, c.text) != c.inMD {
			t.Errorf("%q in markdown: %v, want %v", c.text, !c.inMD, c.inMD)
		}
		if c.file != "" && !strings.Contains(string(got[c.file]), c.contains) {
			t.Errorf("%s does not hold %q:\n%s", c.file, c.contains, got[c.file])
		}
	}
}

func TestExportAgain(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	fill(t, s)
	dir := t.TempDir()
	export(t, s, dir, exportAt)
	first := files(t, dir)
	// Files that are not the export's own stay as they are, markdown in
	// its folders too, even one that quotes its note further down.
	mine := map[string]string{"notes.md": "mine", "repos/README.txt": "mine", "repos/old/x.md": "mine",
		"repos/handwritten.md":    "# Our conventions\n\nSquash merges only.\n",
		"global/pitfall-notes.md": "# Notes\n\nExports say:\n" + generated + "\n",
		"agents/empty.md":         ""}
	for name, text := range mine {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	later := exportAt.Add(time.Hour)
	if st := export(t, s, dir, later); len(st.Removed) != 0 {
		t.Errorf("an export of the same store removed %v", st.Removed)
	}
	second := files(t, dir)
	for name, b := range first {
		if name == "index.json" {
			b = bytes.Replace(b, []byte(exportAt.Format(time.RFC3339)), []byte(later.Format(time.RFC3339)), 1)
		}
		if !bytes.Equal(second[name], b) {
			t.Errorf("%s differs between two exports:\n%s\n---\n%s", name, b, second[name])
		}
	}

	// Deleting the only item of repo acme/ops+infra makes its file stale.
	var id string
	for _, it := range all(t, s) {
		if it.Repo == "acme/ops+infra" {
			id = it.ID
		}
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	st := export(t, s, dir, later)
	if !slices.Equal(st.Removed, []string{"repos/acme__ops_infra.md"}) {
		t.Errorf("removed %v, want [repos/acme__ops_infra.md]", st.Removed)
	}
	third := files(t, dir)
	if _, ok := third["repos/acme__ops_infra.md"]; ok {
		t.Errorf("the stale repos/acme__ops_infra.md is still there")
	}
	for name, text := range mine {
		if string(third[name]) != text {
			t.Errorf("%s was touched: %q", name, third[name])
		}
	}
}

func TestExportEmpty(t *testing.T) {
	s := memstore.New()
	dir := t.TempDir()
	st := export(t, s, dir, exportAt)
	if st.Items != 0 || !slices.Equal(st.Files, []string{"index.json"}) {
		t.Errorf("empty store: %+v, want index.json only", st)
	}
	want := "{\n  \"version\": 1,\n  \"last_updated\": \"2026-03-02T12:00:00Z\",\n  \"total_facts\": 0,\n  \"facts\": []\n}\n"
	if got := files(t, dir)["index.json"]; string(got) != want {
		t.Errorf("index.json of an empty store:\n%s\nwant\n%s", got, want)
	}
	if res, err := Import(context.Background(), memstore.New(), dir); err != nil || len(res) != 0 {
		t.Errorf("import of an empty index: %v, %v", res, err)
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{
		"acme/api":               "acme__api",
		"gitlab.com/acme/ops":    "gitlab.com__acme__ops",
		"acme/ops+infra":         "acme__ops_infra",
		"Ünïcode/x y":            "_n_code__x_y",
		"claude-code":            "claude-code",
		"../../etc/passwd":       "..__..__etc__passwd",
		"owner/name_with.dots-1": "owner__name_with.dots-1",
	} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// goodIndex has its facts on lines 6 and 7.
const goodIndex = `{
  "version": 1,
  "last_updated": "2026-03-02T12:00:00Z",
  "total_facts": 5,
  "facts": [
    {"text": "The API listens on port 8080", "category": "fact"},
    {"text": "Use make gen", "category": "pattern", "repo": "acme/api"}
  ]
}
`

const goodLines = `{"text": "The API listens on port 8080", "category": "fact"}
{"text": "Use make gen", "category": "pattern", "repo": "acme/api", "confidence": 0.5}

{"text": "Pushing to main returns HTTP 405", "category": "pitfall", "evidence": [{"session": "s1", "position": 3}]}
{"text": "Ask before force-pushing", "category": "pattern", "agent": "codex", "tags": ["git"]}
`

func TestReadGood(t *testing.T) {
	for _, tt := range []struct{ name, content string }{
		{"index.json", goodIndex},
		{"items.jsonl", goodLines},
		{"empty index", `{"facts": [], "version": 1}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			want := strings.Count(tt.content, `"text"`)
			if f, err := Read(path); err != nil || len(f.Items) != want {
				t.Errorf("Read = %+v, %v; want %d items", f, err, want)
			}
		})
	}
}

// TestReadConfidence checks that an item written by hand without a
// confidence has the one lore add gives, and one of 0 keeps it.
func TestReadConfidence(t *testing.T) {
	path := filepath.Join(t.TempDir(), "items.jsonl")
	content := `{"text": "no confidence", "category": "fact"}` + "\n" +
		`{"text": "confidence 0", "category": "fact", "confidence": 0}` + "\n" +
		`{"text": "confidence null", "category": "fact", "confidence": null}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, it := range f.Items {
		got = append(got, it.Confidence)
	}
	if want := []float64{lore.DefaultConfidence, 0, lore.DefaultConfidence}; !slices.Equal(got, want) {
		t.Errorf("confidences %v, want %v", got, want)
	}
}

func TestReadErrors(t *testing.T) {
	lines := strings.Split(goodLines, "\n")
	tests := []struct {
		name, file, content string
		want                string
		invalid             bool // the error carries lore.EINVALID
	}{
		{name: "truncated index", file: "index.json", content: goodIndex[:strings.Index(goodIndex, "Use make")],
			want: "index.json:7:14: unexpected end of JSON input"},
		{name: "syntax error in an index", file: "index.json",
			content: strings.Replace(goodIndex, `"repo": "acme/api"`, `"repo": acme/api`, 1),
			want:    "index.json:7:61: invalid character 'a' looking for beginning of value"},
		{name: "garbage line", file: "items.jsonl", content: strings.Join(slices.Insert(slices.Clone(lines), 4, "xyz"), "\n"),
			want: "items.jsonl:5: invalid character 'x' looking for beginning of value"},
		{name: "unknown category", file: "index.json", content: strings.Replace(goodIndex, `"pattern"`, `"gossip"`, 1),
			want: `index.json: facts[1] (line 7): unknown category "gossip"`, invalid: true},
		{name: "confidence 1.5", file: "items.jsonl", content: strings.Replace(goodLines, "0.5", "1.5", 1),
			want: "items.jsonl:2: confidence 1.5 is outside 0..1", invalid: true},
		{name: "empty text", file: "index.json", content: strings.Replace(goodIndex, "The API listens on port 8080", " ", 1),
			want: "index.json: facts[0] (line 6): empty text", invalid: true},
		{name: "version 2", file: "index.json", content: strings.Replace(goodIndex, `"version": 1`, `"version": 2`, 1),
			want: "index.json:2:14: version 2 is not supported (want 1)"},
		{name: "version a string", file: "index.json", content: strings.Replace(goodIndex, `"version": 1`, `"version": "1"`, 1),
			want: "index.json:2:14: version is not a number"},
		{name: "no version", file: "index.json", content: `{"facts": []}`, want: "index.json: no version (want 1)"},
		{name: "facts not a list", file: "index.json", content: `{"version": 1, "facts": {"text": "x"}}`,
			want: "index.json:1:25: facts is not a list"},
		{name: "a fact not an object", file: "index.json", content: "{\"version\": 1,\n\"facts\": [\n\"x\"]}",
			want: "index.json: facts[0] (line 3): not a JSON object"},
		{name: "wrong type in an index", file: "index.json",
			content: strings.Replace(goodIndex, `"category": "fact"}`, `"category": "fact",`+"\n"+`"tags": "go"}`, 1),
			want:    "index.json: facts[0] (line 7): tags: got string, want a list"},
		{name: "wrong type in a line", file: "items.jsonl", content: strings.Replace(goodLines, "0.5", `"high"`, 1),
			want: "items.jsonl:2: confidence: got string, want a number"},
		{name: "empty file", file: "empty.json", content: "", want: "empty.json: the file is empty"},
		{name: "blank file", file: "blank.jsonl", content: "\n  \n\t\n", want: "blank.jsonl: the file is empty"},
		{name: "array line", file: "items.jsonl", content: strings.Join(slices.Insert(slices.Clone(lines), 2, "[1, 2]"), "\n"),
			want: "items.jsonl:3: not a JSON object"},
		{name: "null line", file: "items.jsonl", content: "null\n", want: "items.jsonl:1: not a JSON object"},
		{name: "bad id", file: "items.jsonl", content: `{"id": "XYZ", "text": "t", "category": "fact"}`,
			want: `items.jsonl:1: id "XYZ" is not 4 to 24 lower-case hex digits`, invalid: true},
		{name: "markdown", file: "notes.md", content: "# Notes\n\n- 1 thing to remember\n",
			want: "notes.md:1: not JSON; lore import reads a folder written by lore export, its index.json, or a file of items as JSON lines"},
		{name: "a list in markdown", file: "list.md", content: "\n- 1 thing to remember\n", want: "list.md:2: not JSON; lore import reads"},
		// Mistakes the store finds are placed in the file as well.
		{name: "an id taken, in lines", file: "items.jsonl",
			content: `{"id": "abcd1234abcd", "text": "one", "category": "fact"}` + "\n\n" + `{"id": "abcd1234abcd", "text": "two", "category": "fact"}`,
			want:    "items.jsonl:3: id abcd1234abcd is taken by a different item"},
		{name: "an id taken, in an index", file: "index.json",
			content: strings.ReplaceAll(goodIndex, `{"text"`, `{"id": "abcd1234abcd", "text"`),
			want:    "index.json: facts[1] (line 7): id abcd1234abcd is taken by a different item"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			s := openStore(t)
			_, err := Import(context.Background(), s, path)
			if err == nil {
				t.Fatalf("no error for\n%s", tt.content)
			}
			msg := strings.TrimPrefix(err.Error(), filepath.Dir(path)+string(filepath.Separator))
			if !strings.HasPrefix(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q\n    want %q…", msg, tt.want)
			}
			if got := lore.ErrorCode(err) == lore.EINVALID; got != tt.invalid {
				t.Errorf("error code %q, want invalid: %v", lore.ErrorCode(err), tt.invalid)
			}
			if n, err := s.Count(context.Background(), lore.Filter{AnyStatus: true, Expired: true}); err != nil || n != 0 {
				t.Errorf("the store holds %d items (%v) after a failed import", n, err)
			}
		})
	}
}

// FuzzRead checks that Read never panics, that every error names the file
// and fits on one line, and that every item it returns is one a store
// takes:
//
//	go test -run '^$' -fuzz FuzzRead -fuzztime 60s ./knowledge
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		goodIndex, goodLines, goodIndex[:100], `{"version": 1, "facts": [{}]}`, "{\"facts\": [\n{\"text\": \"x\", \"category\": \"fact\", \"confidence\": 2}]}",
		`{"text": "t", "category": "fact", "first_seen": "yesterday"}`, "[]", "{}", "\n\n{\"facts\"", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Read(path)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, path+":") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q does not name the file on one line", msg)
			}
			return
		}
		for i, it := range f.Items {
			if _, err := lore.Prepare(it, time.Now()); err != nil {
				t.Fatalf("item %d read without error fails Prepare: %v", i, err)
			}
		}
	})
}
