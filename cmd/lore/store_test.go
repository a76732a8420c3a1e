package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/postgres"
	"github.com/lorehq/lore/sqlite"
	"github.com/lorehq/lore/transcript"
)

// mainArgsEnv makes the test binary run lore instead of the tests: it holds
// a JSON list of command lines, run one after another once standard input
// closes, so that a test can start several processes and release them at
// once.
const mainArgsEnv = "LORE_TEST_MAIN_ARGS"

// mainStdinEnv, set beside mainArgsEnv, leaves standard input to the lore
// it runs: a hook reads its JSON there.
const mainStdinEnv = "LORE_TEST_MAIN_STDIN"

func TestMain(m *testing.M) {
	if v := os.Getenv(mainArgsEnv); v != "" {
		var runs [][]string
		if err := json.Unmarshal([]byte(v), &runs); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", mainArgsEnv, err)
			os.Exit(3)
		}
		if os.Getenv(mainStdinEnv) == "" {
			io.Copy(io.Discard, os.Stdin)
		}
		for _, args := range runs {
			if code := run(context.Background(), newFactory(iostreams.System(), transcript.HostEnv()), args); code != 0 {
				os.Exit(code)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runLoreEnv is runLore with environment variables for lore to read.
func runLoreEnv(t *testing.T, home string, env map[string]string, args ...string) result {
	t.Helper()
	return runIn(t, testEnv(home, env), "", nil, args...)
}

// testStore is a store file of one test's own.
type testStore struct {
	t    *testing.T
	path string
}

func newTestStore(t *testing.T) testStore {
	return testStore{t, filepath.Join(t.TempDir(), "lore.db")}
}

// lore runs a lore command on the store.
func (s testStore) lore(args ...string) result {
	s.t.Helper()
	return runLore(s.t, "", slices.Concat(args, []string{"--store", s.path})...)
}

// must runs a lore command that has to succeed and returns its output.
func (s testStore) must(args ...string) string {
	s.t.Helper()
	r := s.lore(args...)
	if r.code != 0 {
		s.t.Fatalf("lore %s: exit %d: %s", strings.Join(args, " "), r.code, r.err)
	}
	return r.stdout
}

// add adds an item and returns its id.
func (s testStore) add(text string, flags ...string) string {
	s.t.Helper()
	return strings.TrimSpace(s.must(slices.Concat([]string{"add", text}, flags)...))
}

// search runs lore search --json and returns the ids found, in order.
func (s testStore) search(args ...string) []string {
	s.t.Helper()
	var ids []string
	for _, it := range jsonItems(s.t, s.must(slices.Concat([]string{"search", "--json"}, args)...)) {
		ids = append(ids, it.ID)
	}
	return ids
}

// show returns the item lore show --json prints.
func (s testStore) show(id string) lore.Item {
	s.t.Helper()
	var it lore.Item
	out := s.must("show", id, "--json")
	if err := json.Unmarshal([]byte(out), &it); err != nil {
		s.t.Fatalf("show --json: %v\n%s", err, out)
	}
	return it
}

// count counts every item in the store, whatever its status or expiry.
func (s testStore) count() int {
	s.t.Helper()
	st, err := sqlite.Open(context.Background(), s.path, sqlite.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	defer st.Close()
	n, err := st.Count(context.Background(), lore.Filter{AnyStatus: true, Expired: true})
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

// jsonItems decodes JSON lines of items.
func jsonItems(t *testing.T, out string) []lore.Item {
	t.Helper()
	var items []lore.Item
	for l := range strings.Lines(out) {
		var it lore.Item
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatalf("not an item: %q (%v)", l, err)
		}
		items = append(items, it)
	}
	return items
}

var idLine = regexp.MustCompile(`^[0-9a-f]{12}\n$`)

func TestAddPrintsIDAndItem(t *testing.T) {
	s := newTestStore(t)
	text := "Pushing to main returns HTTP 405: open a pull request"
	r := s.lore("add", text, "--category", "pitfall", "--repo", "acme/api")
	if r.code != 0 || !idLine.MatchString(r.stdout) {
		t.Fatalf("add: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	id := strings.TrimSpace(r.stdout)
	if want := lore.ItemID(text, lore.CategoryPitfall, "acme/api", ""); id != want {
		t.Errorf("id %s, want %s (from text, category and scope)", id, want)
	}

	out := s.must("add", "apply_patch needs exact context lines", "-c", "tool-quirk", "--agent", "codex", "--json")
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("add --json printed %d lines, want 1:\n%s", strings.Count(out, "\n"), out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("add --json: %v\n%s", err, out)
	}
	// manual_confidence too: the confidence of lore add is given by hand.
	want := strings.Fields(`id text category repo agent confidence status source_count evidence
		first_seen last_confirmed expires signature tags related`)
	if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("keys %v, want exactly %v", got, want)
	}
	if m["confidence"] != 0.7 || m["status"] != "active" || m["source_count"] != 0.0 || m["agent"] != "codex" ||
		m["category"] != "tool-quirk" || m["expires"] != nil || !idLine.MatchString(fmt.Sprint(m["id"], "\n")) {
		t.Errorf("add --json: %s", out)
	}

	// The same text (up to case, spacing and a full stop) from a session is
	// merged into the item, once per session.
	respaced := "  pushing to MAIN returns http 405:   open a pull request."
	for _, tt := range []struct {
		text, session string
		sourceCount   int
		note          string
	}{
		{text, "other", 1, "already known; now confidence 0.91 from 1 session(s)"},
		{respaced, "other", 1, "already known; nothing new"},
		{respaced, "third", 2, "from 2 session(s)"},
	} {
		r := s.lore("add", tt.text, "-c", "pitfall", "--repo", "acme/api", "--session", tt.session, "--json")
		it := jsonItems(t, r.stdout)
		if r.code != 0 || len(it) != 1 || it[0].ID != id || it[0].SourceCount != tt.sourceCount || it[0].Text != text {
			t.Fatalf("add again from %s: exit %d, %s", tt.session, r.code, r.stdout)
		}
		if !strings.Contains(r.err, tt.note) {
			t.Errorf("add again from %s: stderr %q, want %q", tt.session, r.err, tt.note)
		}
	}
}

// Secrets in what is added reach neither the output nor the store file.
func TestAddRedactsSecrets(t *testing.T) {
	s := newTestStore(t)
	body := strings.Repeat("Zq7x", 9)
	secret := "ghp_" + body
	id := s.add("deploy with token "+secret+" from the vault", "-c", "fact", "--signature", "auth "+secret, "--tag", secret)
	outs := []result{
		s.lore("add", "deploy with token "+secret+" from the vault", "-c", "fact", "--json"),
		s.lore("show", id),
		s.lore("show", id, "--json"),
		s.lore("search", "deploy token vault"),
		s.lore("search", "deploy token vault", "--json"),
	}
	for i, r := range outs {
		if r.code != 0 || strings.Contains(r.stdout+r.err, body) {
			t.Errorf("command %d: exit %d, output holds the secret or fails:\n%s%s", i, r.code, r.stdout, r.err)
		}
	}
	if !strings.Contains(outs[2].stdout, "[REDACTED:") {
		t.Errorf("no redaction marker in\n%s", outs[2].stdout)
	}
	dir := t.TempDir()
	s.must("export", dir)
	files := []string{s.path, s.path + "-wal"}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(body)) {
			t.Errorf("%s holds the secret", f)
		}
	}
}

func TestStoreUsageErrors(t *testing.T) {
	s := newTestStore(t)
	id := s.add("Flaky tests need a retry", "-c", "pitfall")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"add", "x", "--category", "bogus"}, `unknown category "bogus"`},
		{[]string{"add", "x", "-c", "fact", "--confidence", "1.5"}, "--confidence 1.5"},
		{[]string{"add", "x", "-c", "fact", "--confidence", "-0.1"}, "--confidence -0.1"},
		{[]string{"add", "x", "-c", "fact", "--confidence", "NaN"}, "--confidence NaN"},
		{[]string{"add", "", "-c", "fact"}, "text is empty"},
		{[]string{"add", " \t\n", "-c", "fact"}, "text is empty"},
		{[]string{"add", "x"}, "--category is required"},
		{[]string{"add", "x", "-c", "fact", "--agent", "windsurf"}, `unknown agent "windsurf"`},
		{[]string{"add", "x", "-c", "fact", "--status", "retired"}, "active or candidate"},
		{[]string{"add", "x", "-c", "fact", "--position", "3"}, "--position needs --session"},
		{[]string{"add", "x", "-c", "fact", "--expires", "soon"}, `--expires "soon"`},
		{[]string{"add", "x", "-c", "fact", "--repo", "acme api"}, "want owner/name"},
		{[]string{"search"}, "needs a QUERY"},
		{[]string{"search", "x", "--status", "bogus"}, `unknown status "bogus"`},
		{[]string{"search", "x", "--category", "bogus"}, `unknown category "bogus"`},
		{[]string{"search", "x", "--agent", "windsurf"}, `unknown agent "windsurf"`},
		{[]string{"search", "x", "--limit", "0"}, "--limit 0"},
		{[]string{"forget", id, "--session", "s1"}, "not both"},
		{[]string{"forget"}, "one item ID, or --session"},
		{[]string{"forget", "--session", "s1", "--purge"}, "--purge applies to an item ID"},
		{[]string{"add"}, `lore add needs the item's text: lore add "…" --category fact`},
		{[]string{"show"}, "takes 1 argument(s), got 0: lore show ID"},
		{[]string{"show", "xyz!"}, "not an item id"},
		{[]string{"export"}, "takes 1 argument(s), got 0"},
		{[]string{"import", "a", "b"}, "takes 1 argument(s), got 2"},
	}
	for _, tt := range tests {
		r := s.lore(tt.args...)
		lines := strings.Split(strings.TrimSuffix(r.err, "\n"), "\n")
		if r.code != 2 || !strings.HasPrefix(lines[0], "lore: ") || !strings.Contains(lines[0], tt.want) ||
			len(lines) != 2 || lines[1] != "Run 'lore "+tt.args[0]+" --help' for usage." {
			t.Errorf("lore %q: exit %d, stderr %q; want exit 2 and %q", tt.args, r.code, r.err, tt.want)
		}
	}
	// The failed adds added nothing.
	if n := s.count(); n != 1 {
		t.Errorf("%d items after usage errors, want 1", n)
	}
}

// An item that is not there is a failure (exit 1) that names it.
func TestShowForgetMissingItem(t *testing.T) {
	s := newTestStore(t)
	s.add("Flaky tests need a retry", "-c", "pitfall")
	for _, args := range [][]string{{"show", "abcdef123456"}, {"show", "abcdef", "--json"}, {"forget", "abcdef123456"}, {"forget", "abcdef", "--purge"}} {
		r := s.lore(args...)
		if r.code != 1 || !strings.HasPrefix(r.err, "lore: ") || !strings.Contains(r.err, args[1]) || strings.Count(r.err, "\n") != 1 {
			t.Errorf("lore %q: exit %d, stderr %q; want exit 1 naming %s", args, r.code, r.err, args[1])
		}
	}
}

// Commands that read do not create a store that is not there.
func TestStoreMissingNotCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "lore.db")
	for _, args := range [][]string{{"show", "abcdef"}, {"search", "anything"}, {"search", "x", "--json"},
		{"forget", "abcdef"}, {"forget", "--session", "s1"}, {"export", t.TempDir()}} {
		r := runLore(t, "", slices.Concat(args, []string{"--store", path})...)
		if r.code != 1 || !strings.Contains(r.err, "no knowledge store at "+path) || !strings.Contains(r.err, "lore add or lore import creates it") {
			t.Errorf("lore %q: exit %d, stderr %q", args, r.code, r.err)
		}
		if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
			t.Fatalf("lore %q created %s", args, filepath.Dir(path))
		}
	}
}

func TestStoreLocation(t *testing.T) {
	tests := []struct {
		name  string
		store string            // --store; "" for none
		env   map[string]string // values with {dir} and {home} replaced
		want  string            // the store made, relative to dir or home
	}{
		{"flag", "{dir}/flag/x.db", nil, "{dir}/flag/x.db"},
		{"flag sqlite url", "sqlite://{dir}/url/x.db", nil, "{dir}/url/x.db"},
		{"flag tilde", "~/tilde/x.db", nil, "{home}/tilde/x.db"},
		{"LORE_STORE", "", map[string]string{"LORE_STORE": "{dir}/env/y.db"}, "{dir}/env/y.db"},
		{"LORE_HOME", "", map[string]string{"LORE_HOME": "{dir}/lorehome"}, "{dir}/lorehome/lore.db"},
		{"default", "", nil, "{home}/.lore/lore.db"},
		{"flag over LORE_STORE", "{dir}/flag/x.db", map[string]string{"LORE_STORE": "{dir}/env/y.db"}, "{dir}/flag/x.db"},
		{"LORE_STORE over LORE_HOME", "", map[string]string{"LORE_STORE": "{dir}/env/y.db", "LORE_HOME": "{dir}/lorehome"}, "{dir}/env/y.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			expand := strings.NewReplacer("{dir}", dir, "{home}", home).Replace
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = expand(v)
			}
			args := []string{"add", "Flaky tests need a retry", "-c", "pitfall"}
			if tt.store != "" {
				args = append(args, "--store", expand(tt.store))
			}
			if r := runLoreEnv(t, home, env, args...); r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			want := expand(tt.want)
			var made []string
			for _, root := range []string{dir, home} {
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						made = append(made, p)
					}
					return nil
				})
			}
			if !slices.Equal(made, []string{want}) {
				t.Fatalf("files made %v, want only %s", made, want)
			}
			checkMode(t, want, 0o600)
			checkMode(t, filepath.Dir(want), fs.ModeDir|0o700)
			// Reading finds the same store.
			r := runLoreEnv(t, home, env, slices.Concat([]string{"search", "flaky", "--json"}, args[4:])...)
			if r.code != 0 || strings.Count(r.stdout, "\n") != 1 {
				t.Errorf("search: exit %d, %q %q", r.code, r.stdout, r.err)
			}
		})
	}
}

func checkMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode() & (fs.ModeDir | fs.ModePerm); got != want {
		t.Errorf("%s has mode %v, want %v", path, got, want)
	}
}

// SQLite's journal files, made while a store is open, are as private as
// the store.
func TestStoreJournalFilesPrivate(t *testing.T) {
	s := newTestStore(t)
	s.add("Flaky tests need a retry", "-c", "pitfall")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, s.path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Add(ctx, []lore.Item{{Text: "CI runners are arm64 now", Category: lore.CategoryFact}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.path, s.path + "-wal", s.path + "-shm"} {
		checkMode(t, p, 0o600)
	}
}

// TestStorePostgresUnreachable: a database that cannot be reached is an
// error that names it without its password.
func TestStorePostgresUnreachable(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  map[string]string
	}{
		{[]string{"add", "x", "-c", "fact", "--store", "postgres://u:sekrit-pw@127.0.0.1:1/lore?connect_timeout=5"}, nil},
		{[]string{"search", "x", "--store", "postgresql://u:sekrit-pw@127.0.0.1:1/lore?connect_timeout=5"}, nil},
		{[]string{"show", "abcdef"}, map[string]string{"LORE_STORE": "postgres://u:sekrit-pw@127.0.0.1:1/lore?connect_timeout=5"}},
		{[]string{"add", "x", "-c", "fact", "--store", "postgres://u:sekrit-pw@127.0.0.1:1/lore?sslmode=nonsense"}, nil},
	} {
		r := runLoreEnv(t, t.TempDir(), tt.env, tt.args...)
		if r.code == 0 || !strings.Contains(r.err, "127.0.0.1") || strings.Contains(r.stdout+r.err, "sekrit") {
			t.Errorf("lore %q (env %v): exit %d, stderr %q; want an error naming the database without its password", tt.args, tt.env, r.code, r.err)
		}
	}
}

// TestStorePostgres adds and searches through the command line on a
// PostgreSQL store, in a team of the test's own, and doctor and status
// name the store without its password.
func TestStorePostgres(t *testing.T) {
	url := os.Getenv("LORE_TEST_PG_URL")
	if url == "" {
		t.Skip("set LORE_TEST_PG_URL=postgres://… to run the PostgreSQL tests (.ci/run does)")
	}
	team := fmt.Sprintf("cmd-test-%x", rand.Uint64())
	t.Cleanup(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{postgres.Schema(team)}.Sanitize()+` CASCADE`); err != nil {
			t.Error(err)
		}
	})
	env := map[string]string{"LORE_TEAM": team}
	home := t.TempDir()
	r := runLoreEnv(t, home, env, "add", "Pushing to main returns HTTP 405: open a pull request instead", "-c", "pitfall", "--store", url)
	if r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.err)
	}
	env["LORE_STORE"] = url
	r = runLoreEnv(t, home, env, "search", "why does pushing to main fail?")
	if r.code != 0 || !strings.Contains(r.stdout, "HTTP 405") {
		t.Errorf("search: exit %d, out %q, err %q", r.code, r.stdout, r.err)
	}
	// Another team's store does not hold it.
	r = runLoreEnv(t, home, map[string]string{"LORE_TEAM": team + "-other", "LORE_STORE": url}, "search", "pushing main")
	t.Cleanup(func() {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, url); err == nil {
			conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{postgres.Schema(team + "-other")}.Sanitize()+` CASCADE`)
			conn.Close(ctx)
		}
	})
	if r.code != 0 || strings.Contains(r.stdout, "HTTP 405") {
		t.Errorf("search in another team: exit %d, out %q, err %q", r.code, r.stdout, r.err)
	}
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := u.User.Password()
	for _, args := range [][]string{{"doctor"}, {"status"}, {"status", "--json"}} {
		r := runLoreEnv(t, home, env, args...)
		if !strings.Contains(r.stdout, u.Host) {
			t.Errorf("lore %s names no store: %q", args, r.stdout)
		}
		if pw != "" && strings.Contains(r.stdout+r.err, ":"+pw+"@") {
			t.Errorf("lore %s shows the database's password: %q", args, r.stdout)
		}
	}
}

// seedSearch adds items to search among and returns their ids by name.
func seedSearch(s testStore) map[string]string {
	return map[string]string{
		"push":    s.add("Pushing to main returns HTTP 405: open a pull request instead", "-c", "pitfall", "--repo", "acme/api", "--tag", "seed"),
		"race":    s.add("Run go test with -race before tagging a release", "-c", "pattern", "--repo", "acme/web", "--agent", "codex", "--tag", "seed"),
		"patch":   s.add("apply_patch needs exact context lines", "-c", "tool-quirk", "--agent", "codex", "--tag", "seed"),
		"staging": s.add("The staging database resets every night at 02:00 UTC", "-c", "fact", "--tag", "seed"),
		"flaky":   s.add("Flaky integration tests in the api package need one retry", "-c", "pitfall", "--repo", "acme/api", "--agent", "claude-code", "--tag", "seed"),
	}
}

func TestSearch(t *testing.T) {
	s := newTestStore(t)
	ids := seedSearch(s)
	if got := s.search("why", "does", "push", "to", "main", "fail"); len(got) == 0 || got[0] != ids["push"] {
		t.Errorf("natural-language search found %v, want %s first", got, ids["push"])
	}
	if got := s.search("staging database reset at night"); len(got) == 0 || got[0] != ids["staging"] {
		t.Errorf("stemmed search found %v, want %s first", got, ids["staging"])
	}
	sorted := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, ids[n])
		}
		return slices.Sorted(slices.Values(out))
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"seed"}, sorted("push", "race", "patch", "staging", "flaky")},
		{[]string{"seed", "--repo", "acme/api"}, sorted("push", "flaky")},
		{[]string{"seed", "--agent", "codex"}, sorted("race", "patch")},
		{[]string{"seed", "--category", "pitfall"}, sorted("push", "flaky")},
		{[]string{"seed", "--category", "pitfalls", "--repo", "acme/api", "--agent", "claude-code"}, sorted("flaky")},
		{[]string{"seed", "--repo", "acme/nothing"}, nil},
		{[]string{"seed", "--status", "candidate"}, nil},
	} {
		if got := slices.Sorted(slices.Values(s.search(tt.args...))); !slices.Equal(got, tt.want) {
			t.Errorf("search %q: %v, want %v", tt.args, got, tt.want)
		}
	}
	if got := s.search("seed", "--limit", "1"); len(got) != 1 {
		t.Errorf("--limit 1: %d items", len(got))
	}
	if got := s.search("seed", "-n", "3"); len(got) != 3 {
		t.Errorf("-n 3: %d items", len(got))
	}

	// No character is an operator: each of these runs, and a word in it
	// still finds what it names.
	for _, q := range []string{`"`, `NEAR(`, `a:b`, `*`, `(`, `)`, `"main`, `text:main`, `main*`, `NEAR(main push, 2)`,
		`push OR`, `AND main`, `NOT`, `^main`, `{main}`, `'`, `main' --`, `items_fts`} {
		r := s.lore("search", q, "--json")
		if r.code != 0 || r.err != "" {
			t.Errorf("search %q: exit %d, stderr %q", q, r.code, r.err)
			continue
		}
		found := slices.ContainsFunc(jsonItems(t, r.stdout), func(it lore.Item) bool { return it.ID == ids["push"] })
		if names := strings.Contains(q, "main") || strings.Contains(q, "push"); names != found {
			t.Errorf("search %q: found the push item %v", q, found)
		}
	}

	// The table for people.
	r := s.lore("search", "main", "push")
	rows := strings.Split(r.stdout, "\n")
	if r.code != 0 || len(rows) != 3 || strings.Join(strings.Fields(rows[0]), " ") != "ID CATEGORY CONF SCOPE TEXT" ||
		!strings.HasPrefix(strings.Join(strings.Fields(rows[1]), " "), ids["push"]+" pitfall 0.70 acme/api Pushing to main") {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
	r = s.lore("search", "nothing", "matches", "this")
	if r.code != 0 || r.stdout != "" || r.err != "No items match.\n" {
		t.Errorf("no match: exit %d, %q %q", r.code, r.stdout, r.err)
	}
}

func TestSearchHidesRetired(t *testing.T) {
	s := newTestStore(t)
	ids := seedSearch(s)
	s.must("forget", ids["staging"])
	for _, tt := range []struct {
		status string
		found  bool
	}{
		{"", false},
		{"active", false},
		{"candidate", false},
		{"retired", true},
		{"active,retired", true},
		{"any", true},
	} {
		args := []string{"staging", "database"}
		if tt.status != "" {
			args = append(args, "--status", tt.status)
		}
		if got := slices.Contains(s.search(args...), ids["staging"]); got != tt.found {
			t.Errorf("--status %q: found the retired item %v, want %v", tt.status, got, tt.found)
		}
	}
}

func TestForgetItem(t *testing.T) {
	s := newTestStore(t)
	ids := seedSearch(s)

	out := s.must("forget", ids["staging"], "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep["id"] != ids["staging"] || rep["action"] != "retired" || len(rep) != 2 {
		t.Errorf("forget --json: %s (%v)", out, err)
	}
	if it := s.show(ids["staging"]); it.Status != lore.StatusRetired {
		t.Errorf("status %s after forget, want retired", it.Status)
	}
	if out := s.must("show", ids["staging"]); !strings.Contains(out, "· retired ·") {
		t.Errorf("show does not say retired:\n%s", out)
	}
	if got := s.search("staging", "database"); slices.Contains(got, ids["staging"]) {
		t.Errorf("search finds the retired item")
	}

	// By id prefix, deleted.
	if out := s.must("forget", ids["push"][:6], "--purge"); out != "deleted "+ids["push"]+"\n" {
		t.Errorf("forget --purge: %q", out)
	}
	if r := s.lore("show", ids["push"]); r.code != 1 {
		t.Errorf("show after --purge: exit %d", r.code)
	}
	if got := s.search("seed", "--status", "any"); len(got) != 4 || slices.Contains(got, ids["push"]) {
		t.Errorf("after --purge the store holds %v", got)
	}
}

func TestForgetSession(t *testing.T) {
	s := newTestStore(t)
	both := s.add("Flaky integration tests need one retry", "-c", "pitfall", "--session", "s1", "--position", "3")
	s.add("Flaky integration tests need one retry", "-c", "pitfall", "--session", "s2")
	only := s.add("The staging database resets every night", "-c", "fact", "--session", "s1")
	byHand := s.add("apply_patch needs exact context lines", "-c", "tool-quirk")
	s.add("apply_patch needs exact context lines", "-c", "tool-quirk", "--session", "s1")
	other := s.add("CI runners are arm64 now", "-c", "fact", "--session", "s2")

	out := s.must("forget", "--session", "s1", "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("forget --session --json: %v\n%s", err, out)
	}
	want := map[string]any{"session": "s1", "evidence_removed": 3.0, "items_updated": 2.0, "items_deleted": 1.0}
	if !maps.Equal(rep, want) {
		t.Errorf("forget --session --json: %v, want %v", rep, want)
	}
	if r := s.lore("show", only); r.code != 1 {
		t.Errorf("the item only s1 taught is still there (exit %d)", r.code)
	}
	if it := s.show(both); it.SourceCount != 1 || len(it.Evidence) != 1 || it.Evidence[0].Session != "s2" || it.Confidence != 0.7 {
		t.Errorf("item s1 and s2 taught: %+v", it)
	}
	if it := s.show(byHand); it.SourceCount != 0 || len(it.Evidence) != 0 || it.Confidence != 0.7 {
		t.Errorf("item added by hand and confirmed by s1: %+v", it)
	}
	if it := s.show(other); it.SourceCount != 1 || it.Confidence != 0.7 {
		t.Errorf("item s2 taught: %+v", it)
	}
	if out := s.must("forget", "--session", "s1"); out != "No item has evidence from s1.\n" {
		t.Errorf("forget --session again: %q", out)
	}
	// The session is marked, so that no harvest learns from it again.
	st, err := sqlite.Open(context.Background(), s.path, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, ok, err := st.Harvested(context.Background(), "s1", lore.Forgotten); !ok || err != nil {
		t.Errorf("forget --session left no mark: %v %v", ok, err)
	}
}

// seedExport adds items in every state an export must keep.
func seedExport(s testStore) {
	s.add("Pushing to main returns HTTP 405: open a pull request", "-c", "pitfall", "--repo", "acme/api", "--tag", "seed", "--signature", "HTTP 405 on push")
	s.add("Pushing to main returns HTTP 405: open a pull request", "-c", "pitfall", "--repo", "acme/api", "--session", "claude-code:s1", "--position", "4")
	s.add("apply_patch needs exact context lines", "-c", "tool-quirk", "--agent", "codex", "--confidence", "0.9", "--tag", "seed", "--tag", "patch")
	s.add("CI runners are being migrated to arm64", "-c", "fact", "--expires", "2099-12-31", "--tag", "seed", "--tag", "ci")
	s.add("The old build cache lives in /var/cache/old", "-c", "fact", "--expires", "2020-01-01", "--tag", "seed")
	s.add("Maybe the staging database resets nightly", "-c", "question", "--status", "candidate", "--tag", "seed", "--session", "codex:s2")
	old := s.add("Run make lint before every commit", "-c", "pattern", "--tag", "seed")
	s.add("Run golangci-lint before every commit, make lint is gone", "-c", "pattern", "--tag", "seed", "--supersedes", old)
	s.must("forget", s.add("Deploys freeze on Fridays", "-c", "fact", "--tag", "seed"))
}

func TestExportImportRoundTrip(t *testing.T) {
	a, b := newTestStore(t), newTestStore(t)
	seedExport(a)
	dir := filepath.Join(t.TempDir(), "knowledge")
	a.must("export", dir)
	out := b.must("import", dir, "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep["items"] != 8.0 || rep["created"] != 8.0 || rep["path"] != dir {
		t.Fatalf("import --json: %s (%v)", out, err)
	}
	all := []string{"seed", "--status", "any", "--expired", "--limit", "100"}
	ra, rb := a.must(slices.Concat([]string{"search", "--json"}, all)...), b.must(slices.Concat([]string{"search", "--json"}, all)...)
	if strings.Count(ra, "\n") != 8 {
		t.Fatalf("the first store holds %d items, want 8:\n%s", strings.Count(ra, "\n"), ra)
	}
	if ra != rb {
		t.Errorf("search differs after export and import:\n%s\nwant\n%s", rb, ra)
	}
	for _, it := range jsonItems(t, ra) {
		if sa, sb := a.must("show", it.ID, "--json"), b.must("show", it.ID, "--json"); sa != sb {
			t.Errorf("show %s differs:\n%s\nwant\n%s", it.ID, sb, sa)
		}
	}
	// Importing the same export again changes nothing.
	out = b.must("import", dir, "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep["unchanged"] != 8.0 {
		t.Errorf("second import --json: %s (%v)", out, err)
	}
	if got := b.must(slices.Concat([]string{"search", "--json"}, all)...); got != ra {
		t.Errorf("search differs after a second import:\n%s", got)
	}
}

func TestImportRejectsBadFile(t *testing.T) {
	good := func(text string) string {
		return fmt.Sprintf(`{"text":%q,"category":"fact"}`, text)
	}
	tests := []struct {
		name, content, want string // want: after the file's name
	}{
		{"bad.jsonl", good("a") + "\n" + good("b") + "\n" + `{"text":"c","category":` + "\n", ":3: "},
		{"category.jsonl", good("a") + "\n" + `{"text":"b","category":"bogus"}` + "\n", `:2: unknown category "bogus"`},
		{"type.jsonl", good("a") + "\n\n" + `{"text":"b","category":"fact","confidence":"high"}` + "\n", ":3: confidence: got string, want a number"},
		{"list.jsonl", good("a") + "\n" + `[1, 2]` + "\n", ":2: not a JSON object"},
		{"range.jsonl", good("a") + "\n" + good("b") + "\n" + `{"text":"c","category":"fact","confidence":1.5}` + "\n", ":3: confidence 1.5 is outside 0..1"},
		{"index.json", "{\n\"version\": 1,\n\"facts\": [\n" + good("a") + ",\n" + `{"text": "b", "category":` + "\n", ":5:"},
		{"empty.jsonl", "\n \n", ": the file is empty"},
		{"notes.md", "# Notes\n\n- 1 thing to remember\n", ":1: not JSON; lore import reads a folder written by lore export"},
		// A mistake only the store sees, on the third line.
		{"taken.jsonl", `{"id":"abcd1234abcd","text":"a","category":"fact"}` + "\n\n" +
			`{"id":"abcd1234abcd","text":"b","category":"fact"}` + "\n", ":3: id abcd1234abcd is taken by a different item"},
	}
	s := newTestStore(t)
	s.add("Flaky tests need a retry", "-c", "pitfall")
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), tt.name)
		if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		r := s.lore("import", path)
		if r.code != 1 || !strings.HasPrefix(r.err, "lore: import: "+path+tt.want) || strings.Count(r.err, "\n") != 1 {
			t.Errorf("import %s: exit %d, stderr %q; want exit 1 and %q", tt.name, r.code, r.err, path+tt.want)
		}
		if n := s.count(); n != 1 {
			t.Errorf("import %s: the store holds %d items, want 1", tt.name, n)
		}
	}
}

// Several lore processes writing one store at once all succeed, and
// every item and every session's evidence is kept.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const (
		procs  = 6
		shared = 100 // items every process imports, each with its own session
		own    = 200 // items only one process imports
		added  = 10  // items every process adds with lore add, each with its own session
	)
	dir := t.TempDir()
	db := filepath.Join(dir, "lore.db")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.Closer
		stderr bytes.Buffer
	}
	ps := make([]*proc, procs)
	for p := range procs {
		session := fmt.Sprintf("test:p%d", p)
		var lines bytes.Buffer
		item := func(text string, position int) {
			b, err := json.Marshal(lore.Item{Text: text, Category: lore.CategoryFact, Confidence: 0.6,
				Status: lore.StatusActive, Evidence: []lore.Evidence{{Session: session, Position: position}}})
			if err != nil {
				t.Fatal(err)
			}
			lines.Write(append(b, '\n'))
		}
		for k := range shared {
			item(fmt.Sprintf("Shared lesson %d: the build cache of service %d lives in /srv/cache/%d", k, k, k), k)
		}
		for k := range own {
			item(fmt.Sprintf("Process %d learned lesson %d about queue q%d-%d", p, k, p, k), k)
		}
		file := filepath.Join(dir, fmt.Sprintf("p%d.jsonl", p))
		if err := os.WriteFile(file, lines.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		runs := [][]string{{"import", file, "--store", db}}
		for k := range added {
			runs = append(runs, []string{"add", fmt.Sprintf("Port %d is taken by the dev proxy %d", 8000+k, k),
				"-c", "pitfall", "--session", session, "--position", fmt.Sprint(k), "--store", db})
		}
		args, _ := json.Marshal(runs)
		pr := &proc{cmd: exec.CommandContext(ctx, os.Args[0])}
		pr.cmd.Env = append(os.Environ(), mainArgsEnv+"="+string(args))
		pr.cmd.Stderr = &pr.stderr
		var err error
		if pr.stdin, err = pr.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := pr.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ps[p] = pr
	}
	// Every process is waiting on its standard input: release them together.
	for _, pr := range ps {
		pr.stdin.Close()
	}
	for p, pr := range ps {
		err := pr.cmd.Wait()
		stderr := pr.stderr.String()
		if err != nil {
			t.Errorf("process %d: %v\n%s", p, err, stderr)
		}
		if l := strings.ToLower(stderr); strings.Contains(l, "locked") || strings.Contains(l, "busy") {
			t.Errorf("process %d: %s", p, stderr)
		}
	}
	if t.Failed() {
		return
	}

	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.Count(ctx, lore.Filter{AnyStatus: true, Expired: true}); err != nil || n != shared+procs*own+added {
		t.Errorf("the store holds %d items (%v), want %d", n, err, shared+procs*own+added)
	}
	sessions := map[string]int{}
	err = st.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		if !strings.HasPrefix(it.Text, "Shared") && !strings.HasPrefix(it.Text, "Port") {
			if it.SourceCount != 1 {
				t.Errorf("%s: source_count %d, want 1", it.Text, it.SourceCount)
			}
			return nil
		}
		seen := map[string]bool{}
		for _, e := range it.Evidence {
			seen[e.Session] = true
			sessions[e.Session]++
		}
		if it.SourceCount != procs || len(seen) != procs || it.Confidence != lore.MaxConfidence {
			t.Errorf("%s: source_count %d from %d sessions, confidence %v; want %d sessions and %v",
				it.Text, it.SourceCount, len(seen), it.Confidence, procs, lore.MaxConfidence)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range procs {
		if n := sessions[fmt.Sprintf("test:p%d", p)]; n != shared+added {
			t.Errorf("session test:p%d confirms %d shared items, want %d", p, n, shared+added)
		}
	}
}
