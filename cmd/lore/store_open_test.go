package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lorehq/lore/internal/iostreams"
)

// runWithin runs the command line in-process as runIn does, but gives up
// after limit, so that a command that waits on a lock fails the test
// rather than hanging it.
func runWithin(t *testing.T, limit time.Duration, stdin string, args ...string) (result, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	start := time.Now()
	code := run(ctx, newFactory(ios, testEnv(t.TempDir(), nil)), args)
	return result{code, out.String(), errOut.String()}, time.Since(start)
}

// lockStore holds the store's write lock from another connection, as a
// long harvest or a sqlite3 shell's BEGIN EXCLUSIVE does, until the test
// ends.
func lockStore(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO boots (at, session, repo, agent, task, items, tokens) VALUES (0, '', '', '', 'held', '[]', 0)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("ROLLBACK")
		db.Close()
	})
}

// TestLockedStore: while another process holds the store's write lock,
// boot (plain and as a hook) prints its context at once, saying on
// standard error that the boot is not recorded, and the commands that
// only read work. Before, boot waited for the lock (up to two minutes).
func TestLockedStore(t *testing.T) {
	store := bootStore(t)
	lockStore(t, store)
	hook := `{"session_id": "s1", "cwd": "/nowhere"}`
	tests := []struct {
		name, stdin string
		args        []string
		want        string // in standard output
		noted       bool   // standard error says the boot is not recorded
	}{
		{"boot", "", []string{"boot", "--repo", "acme/api"}, "HTTP 405", true},
		{"boot json", "", []string{"boot", "--repo", "acme/api", "--json"}, "HTTP 405", true},
		{"boot hook", hook, []string{"boot", "--format", "claude-hook", "--repo", "acme/api"}, "HTTP 405", false},
		{"search", "", []string{"search", "pull request"}, "HTTP 405", false},
		{"search agent", "", []string{"search", "context lines", "--agent", "codex"}, "apply_patch", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, took := runWithin(t, 20*time.Second, tt.stdin, append(tt.args, "--store", store)...)
			if took > 5*time.Second {
				t.Errorf("took %s on a locked store", took)
			}
			if r.code != 0 || !strings.Contains(r.stdout, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.err, tt.want)
			}
			if tt.noted && !strings.Contains(r.err, "not recorded") {
				t.Errorf("stderr %q does not say the boot is not recorded", r.err)
			}
		})
	}
}

// TestMCPBootLockedStore: boot_context answers at once on a locked store,
// without recording the boot.
func TestMCPBootLockedStore(t *testing.T) {
	store := bootStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, _, errOut := mcpInProcess(ctx, t, "mcp", "--store", store, "--agent", "codex")
	defer cs.Close()
	lockStore(t, store)
	start := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boot_context", Arguments: map[string]any{"repo": "acme/api"}})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("boot_context took %s on a locked store", took)
	}
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("boot_context: %v, %+v (stderr %q)", err, res, errOut.String())
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "HTTP 405") {
		t.Errorf("boot_context on a locked store: %q", text)
	}
}

// TestForeignDatabaseRefused: a store path naming another application's
// SQLite database is refused by every command, in one line, exit 1, and
// the database is left as it was, nothing made beside it.
func TestForeignDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA journal_mode=WAL; CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT); INSERT INTO sessions VALUES ('s1', 'hello')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(t.TempDir(), "out.jsonl")
	imp := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(imp, []byte(`{"text":"The api reads its config from /etc/api.toml","category":"fact"}`+"\n"), 0o600)
	want := "lore: " + path + " is a SQLite database of another application, not a lore store; give another --store\n"
	for _, args := range [][]string{
		{"search", "hello"},
		{"show", "abcdef123456"},
		{"boot", "--repo", "acme/api"},
		{"boot", "--json"},
		{"add", "The api reads its config from /etc/api.toml", "-c", "fact"},
		{"import", imp},
		{"export", export},
		{"forget", "abcdef123456"},
		{"measure"},
		{"context", "write", filepath.Join(t.TempDir(), "AGENTS.md")},
		{"harvest", t.TempDir()},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r, _ := runWithin(t, 20*time.Second, "", append(args, "--store", path)...)
			// measure lists where it looked for sessions first.
			if r.code != 1 || !strings.HasSuffix(r.err, want) || strings.Count(r.err, "lore:") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 1, %q", r.code, r.err, want)
			}
		})
	}
	// Through LORE_STORE too, as the issue found it.
	ios, _, _, errOut := iostreams.Test()
	env := testEnv(t.TempDir(), map[string]string{"LORE_STORE": path})
	if code := run(context.Background(), newFactory(ios, env), []string{"search", "hello"}); code != 1 || errOut.String() != want {
		t.Errorf("LORE_STORE: exit %d, stderr %q", code, errOut.String())
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the database changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the database's folder, want 1", len(entries))
	}
}

// TestReadOnlyStore: a store in a read-only file, or in a read-only
// folder, still boots (without recording the boot) and searches. Run as
// root, which every file lets write, the commands run in a copy of the
// test binary as the user nobody.
func TestReadOnlyStore(t *testing.T) {
	for _, folder := range []bool{false, true} {
		name := map[bool]string{false: "read-only file", true: "read-only folder"}[folder]
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			os.Chmod(filepath.Dir(base), 0o755) // for nobody to reach the copy of the test binary
			os.Chmod(base, 0o755)
			dir := filepath.Join(base, "store")
			os.Mkdir(dir, 0o700)
			store := filepath.Join(dir, "lore.db")
			src := bootStore(t)
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(store, b, 0o600); err != nil {
				t.Fatal(err)
			}
			runs := [][]string{
				{"boot", "--repo", "acme/api", "--store", store},
				{"search", "pull request", "--store", store},
			}
			asNobody := os.Geteuid() == 0
			if asNobody {
				if err := os.Chown(dir, 65534, 65534); err != nil {
					t.Skipf("cannot give the store to nobody: %v", err)
				}
				os.Chown(store, 65534, 65534)
			}
			if folder {
				os.Chmod(dir, 0o500)
			} else {
				os.Chmod(store, 0o400)
			}
			t.Cleanup(func() { os.Chmod(dir, 0o700) })
			if !asNobody {
				for _, args := range runs {
					r, _ := runWithin(t, 20*time.Second, "", args...)
					if r.code != 0 || !strings.Contains(r.stdout, "HTTP 405") {
						t.Errorf("%s: exit %d, stdout %q, stderr %q", args[0], r.code, r.stdout, r.err)
					}
				}
				return
			}
			exe := filepath.Join(base, "lore.test")
			self, err := os.ReadFile(os.Args[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(exe, self, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, args := range runs {
				js, _ := json.Marshal([][]string{args})
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				cmd := exec.CommandContext(ctx, exe)
				cmd.Env = []string{mainArgsEnv + "=" + string(js), "HOME=" + base, "PATH=/usr/bin:/bin"}
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				cancel()
				if err != nil || !strings.Contains(stdout.String(), "HTTP 405") {
					t.Errorf("%s as nobody: %v, stdout %q, stderr %q", args[0], err, stdout.String(), stderr.String())
				}
			}
		})
	}
}
