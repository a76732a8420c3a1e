package transcript

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore"
)

func TestFolderRepo(t *testing.T) {
	for dir, want := range map[string]string{
		"/Users/alex/workspace/cli/.worktrees/3": "cli",
		"/home/dev/api/worktrees/fix-retry":      "api",
		`C:\Users\dev\web\.worktrees\1`:          "web",
		"/home/dev/api":                          "api",
		"/home/dev/api/":                         "api",
		"/.worktrees/x":                          "x",
		"/home/dev/worktrees":                    "worktrees",
		// A folder inside a project's hidden folder is the project's.
		"/x/proj/.claude/worktrees/fix":                                  "proj",
		"/workspace/project/sdk/.pr/artifacts/20260121-223755/workspace": "sdk",
		"/home/dev/api/.github/workflows":                                "api",
		"/home/dev/src/.github":                                          ".github",
		`C:\Users\dev\web\.claude\worktrees\1\src`:                       "web",
		"/tmp/.tmpAb12/widgets/.claude/worktrees/x":                      "widgets",
		// A tool's store in a home holds worktrees of other repositories.
		"/Users/alessandrojcm/.herdr/worktrees/dhc-dashboard/worktree-silver-forest-5b5f": "dhc-dashboard",
		"/home/dev/.cursor/worktrees/api/k3x9/internal":                                   "api",
		"/Users/dev/.codex/worktrees/3ff5/cxs":                                            "cxs",
		`C:\Users\dev\.codex\worktrees\fix-login\shop\web`:                                "shop",
		"/mnt/c/Users/dev/.herdr/worktrees/api/b":                                         "api",
		"/root/.worktrees/api/b":                                                          "api",
		// Other folders in a store or a temporary folder keep their name.
		"/home/dev/.config/nvim":     "nvim",
		"/home/dev/.herdr":           ".herdr",
		"/tmp/.tmpAb12/widgets":      "widgets",
		"/home/dev/.herdr/worktrees": "worktrees",
		// Windows folders give their last folder's name.
		`C:\Users\bishw\OneDrive\Desktop\eagerminds-bookmarks-task`: "eagerminds-bookmarks-task",
		`D:\Codes\Personal\DevBridge-AMD\`:                          "DevBridge-AMD",
		// A relative "." names no folder.
		".":  "",
		"./": "",
		"..": "",
	} {
		if got := folderRepo(dir); got != want {
			t.Errorf("folderRepo(%q) = %q, want %q", dir, got, want)
		}
	}
}

// A remote URL gives its last two folders; a URL whose owner or name is
// "." or ".." (https://github.com/..git, as one transcript's redacted
// remote reads) gives none.
func TestRepoFromURL(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/EntityProcess/agentv.git": "EntityProcess/agentv",
		"git@github.com:acme/api.git":                 "acme/api",
		"ssh://git@host:22/acme/api":                  "acme/api",
		"/srv/git/api.git":                            "git/api",
		"api":                                         "api",
		"https://github.com/..git":                    "",
		"https://github.com/acme/..":                  "",
		"git@github.com:./api.git":                    "",
		"https://github.com":                          "",
		"":                                            "",
	} {
		if got := RepoFromURL(url); got != want {
			t.Errorf("RepoFromURL(%q) = %q, want %q", url, got, want)
		}
	}
}

// A relative folder in a transcript is not looked up where lore runs:
// its session takes the repository of its folder's other sessions, or
// none.
func TestRelativeCwd(t *testing.T) {
	dir := t.TempDir()
	gitRepo(t, dir, "git@github.com:lorehq/lore.git")
	t.Chdir(dir)
	if got := repoOf("."); got != "" {
		t.Errorf(`repoOf(".") = %q, want ""`, got)
	}
	sessions := []*lore.Session{{ID: "dot", Cwd: "."}}
	settleRepos(sessions)
	if sessions[0].Repo != "" {
		t.Errorf(`settleRepos: cwd "." has repo %q, want ""`, sessions[0].Repo)
	}
}

// A folder here in no repository, inside a project's hidden folder, is
// named for the project, as folderRepo names it when it is gone.
func TestRepoOfHidden(t *testing.T) {
	wt := filepath.Join(t.TempDir(), "widgets", ".claude", "worktrees", "fix")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := repoOf(wt); got != "widgets" {
		t.Errorf("repoOf(%q) = %q, want widgets", wt, got)
	}
}

// RepoOfDir takes a relative folder from the current one: "." is the
// repository the command runs in, not a repository named ".".
func TestRepoOfDir(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "api")
	sub := filepath.Join(repo, "internal", "retry")
	plain := filepath.Join(root, "notes")
	for _, d := range []string{filepath.Join(repo, ".git"), sub, plain} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/api.git\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cwd, dir, want string }{
		{repo, ".", "acme/api"},
		{sub, ".", "acme/api"},
		{repo, "internal/retry", "acme/api"},
		{sub, "..", "acme/api"},
		{plain, ".", "notes"},
		{repo, sub, "acme/api"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Chdir(tc.cwd)
			if got := RepoOfDir(tc.dir); got != tc.want {
				t.Errorf("RepoOfDir(%q) in %s = %q, want %q", tc.dir, tc.cwd, got, tc.want)
			}
		})
	}
}

// gitRepo makes a git repository at dir with remote origin url (none when
// url is empty), with git itself.
func gitRepo(t *testing.T, dir, url string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmds := [][]string{{"init", "-q", dir}}
	if url != "" {
		cmds = append(cmds, []string{"-C", dir, "remote", "add", "origin", url})
	}
	for _, args := range cmds {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

func exitCode(n int) *int { return &n }

// A session whose folder is gone is given the repository this machine
// knows for it before the folder's name.
func TestResolveRepo(t *testing.T) {
	root := t.TempDir()
	cli := filepath.Join(root, "src", "cli")
	gitRepo(t, cli, "git@github.com:entireio/cli.git")
	if err := os.MkdirAll(filepath.Join(cli, ".worktrees"), 0o755); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(root, "src", "scratch")
	gitRepo(t, bare, "")
	home := filepath.Join(root, "home")
	gitRepo(t, home, "https://github.com/dev/dotfiles")
	plain := filepath.Join(root, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	pushed := []lore.Message{
		{Role: lore.RoleAssistant, ToolCalls: []lore.ToolCall{{ID: "1", Name: "Bash", Input: `{"command":"git push origin main 2>&1"}`}}},
		{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: "1", Output: "To https://github.com/Beep206/CyberVPN.git\n   a27c0c2..0f9e02b  main -> main"}}},
	}

	tests := []struct {
		name   string
		cwd    string
		stated string // the repository the transcript recorded
		msgs   []lore.Message
		noGit  bool
		want   string
	}{
		{name: "the folder's remote", cwd: cli, want: "entireio/cli"},
		{name: "a sub-folder that is here", cwd: filepath.Join(cli, ".worktrees"), want: "entireio/cli"},
		{name: "the folder's remote over what the transcript said", cwd: cli, stated: "other/thing", want: "entireio/cli"},
		{name: "a gone worktree of a repository that is here", cwd: filepath.Join(cli, ".worktrees", "3"), want: "entireio/cli"},
		{name: "a gone sub-folder of a repository that is here", cwd: filepath.Join(cli, "internal", "gone"), want: "entireio/cli"},
		{name: "a gone worktree, without git lookups", cwd: filepath.Join(cli, ".worktrees", "3"), noGit: true, want: "cli"},
		{name: "a repository with no remote", cwd: bare, want: "scratch"},
		{name: "gone, in a repository with no remote", cwd: filepath.Join(bare, "gone"), want: "gone"},
		{name: "gone, in the home folder kept in git", cwd: filepath.Join(home, "work", "api"), want: "api"},
		{name: "gone, in no repository", cwd: filepath.Join(plain, "api"), want: "api"},
		{name: "gone everywhere", cwd: filepath.Join(root, "nowhere", "api"), want: "api"},
		{name: "gone, the transcript's repository", cwd: filepath.Join(plain, "api"), stated: "acme/api", want: "acme/api"},
		{name: "gone, a remote it pushed to", cwd: filepath.Join(plain, "VPNBussiness"), msgs: pushed, want: "Beep206/CyberVPN"},
		{name: "gone, a remote it pushed to, without git lookups", cwd: filepath.Join(plain, "VPNBussiness"), msgs: pushed, noGit: true, want: "Beep206/CyberVPN"},
		{name: "the folder's remote over one it pushed to", cwd: cli, msgs: pushed, want: "entireio/cli"},
		{name: "another system's folder", cwd: `C:\Users\dev\web\.worktrees\1`, want: "web"},
		{name: "no folder", cwd: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newRepoCache()
			c.home = home
			s := &lore.Session{Cwd: tt.cwd, Repo: tt.stated, Messages: tt.msgs}
			c.resolveJob(context.Background(), job{}, false, []*lore.Session{s}, Options{Messages: true, NoGit: tt.noGit})
			settleRepos([]*lore.Session{s})
			if s.Repo != tt.want {
				t.Errorf("repo of %s = %q, want %q", tt.cwd, s.Repo, tt.want)
			}
		})
	}
}

// sessionRemote takes only a remote the session's own git commands talked
// to, in its folder.
func TestSessionRemote(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		output string
		exit   int
		want   string
	}{
		{"push over ssh", "git push", "To github.com:eitatech/gatomia-vscode.git\n   1a..2b  main -> main", 0, "eitatech/gatomia-vscode"},
		{"push over https", "git push -u origin HEAD 2>&1 | tail -3", "To https://github.com/EntityProcess/agentv.git\n * [new branch]      HEAD -> fix", 0, "EntityProcess/agentv"},
		{"rejected push", "git push", "To git@github.com:acme/api.git\n ! [rejected]        main -> main (fetch first)", 1, "acme/api"},
		{"fetch", "git fetch origin", "From https://gitlab.com/acme/api\n * branch            main       -> FETCH_HEAD", 0, "acme/api"},
		{"pull", "git pull --rebase", "From ssh://git@example.org:2222/acme/api.git\n   1a..2b  main -> origin/main", 0, "acme/api"},
		{"remote -v", "git remote -v", "origin\tgit@github.com:acme/api.git (fetch)\norigin\tgit@github.com:acme/api.git (push)\nupstream\thttps://github.com/big/api (fetch)", 0, "acme/api"},
		{"remote get-url origin", "git remote get-url origin", "https://github.com/acme/api.git\n", 0, "acme/api"},
		{"clone into the folder", "git clone https://github.com/acme/api.git .", "Cloning into '.'...", 0, "acme/api"},
		{"clone into a sub-folder", "git clone https://github.com/acme/api.git", "Cloning into 'api'...", 0, ""},
		{"failed clone", "git clone https://github.com/acme/api.git .", "fatal: destination path '.' already exists", 128, ""},
		{"after cd", "cd ../web && git push", "To github.com:acme/web.git\n   1a..2b  main -> main", 0, ""},
		{"after cd, in a subshell", "(cd ../web; git push)", "To github.com:acme/web.git\n   1a..2b  main -> main", 0, ""},
		{"after cd, on another line", "cd ../web\ngit push", "To github.com:acme/web.git\n   1a..2b  main -> main", 0, ""},
		{"a folder substituted", "git -C $(git rev-parse --show-toplevel)/../web push", "To github.com:acme/web.git\n   1a..2b  main -> main", 0, ""},
		{"quoted, redirected, piped twice", "git push 'origin' \"main\" >/tmp/out 2>&1 | grep -v hint | tail -2", "To github.com:acme/api.git\n   1a..2b  main -> main", 0, "acme/api"},
		{"in another folder", "git -C ../web push", "To github.com:acme/web.git\n   1a..2b  main -> main", 0, ""},
		{"a local remote", "git push", "To /srv/git/api.git\n   1a..2b  main -> main", 0, ""},
		{"log naming a branch", "git log --oneline -3", "2474647 Merge pull request #135 from entireio/alex/fix-worktree\nTo github.com:acme/web.git", 0, ""},
		{"a URL printed by another command", "cat README.md", "To https://github.com/acme/web.git", 0, ""},
		{"gh", "gh pr create --fill", "https://github.com/big/api/pull/7", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, _ := json.Marshal(map[string]string{"command": tt.cmd})
			s := &lore.Session{Messages: []lore.Message{
				{Role: lore.RoleAssistant, ToolCalls: []lore.ToolCall{{ID: "c", Name: "Bash", Input: string(input)}}},
				{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: "c", Output: tt.output, ExitCode: exitCode(tt.exit)}}},
			}}
			if got := sessionRemote(s); got != tt.want {
				t.Errorf("sessionRemote after %q = %q, want %q", tt.cmd, got, tt.want)
			}
		})
	}

	// Two repositories named: neither is the session's.
	s := &lore.Session{Messages: []lore.Message{
		{Role: lore.RoleAssistant, ToolCalls: []lore.ToolCall{{ID: "a", Name: "Bash", Input: `{"command":"git push"}`}, {ID: "b", Name: "Bash", Input: `{"command":"git push upstream"}`}}},
		{Role: lore.RoleTool, ToolResults: []lore.ToolResult{{CallID: "a", Output: "To github.com:me/api.git"}, {CallID: "b", Output: "To github.com:big/api.git"}}},
	}}
	if got := sessionRemote(s); got != "" {
		t.Errorf("sessionRemote after pushes to two repositories = %q, want none", got)
	}
	s.Messages[1].ToolResults[1].Output = "To https://github.com/ME/API"
	if got := sessionRemote(s); got != "me/api" {
		t.Errorf("sessionRemote after pushes to one repository, spelt twice = %q, want me/api", got)
	}
}

// A session whose folder is gone takes the repository the other sessions
// of its folder were found in.
func TestSettleRepos(t *testing.T) {
	sessions := []*lore.Session{
		{ID: "codex", Cwd: "/x/cli", Repo: "entireio/cli"},       // as Codex recorded it
		{ID: "claude", Cwd: "/x/cli"},                            // same folder
		{ID: "worktree", Cwd: "/x/cli/.worktrees/3"},             // its worktree
		{ID: "sub", Cwd: "/x/cli/pkg"},                           // a sub-folder: not the same folder
		{ID: "other-cli", Cwd: "/y/cli"},                         // another project called cli
		{ID: "sandbox-a", Cwd: "/workspace", Repo: "acme/api"},   // a sandbox every repository uses
		{ID: "sandbox-b", Cwd: "/workspace"},                     // is not acme/api's
		{ID: "web-1", Cwd: "/x/web", Repo: "acme/web"},           // a folder that held two
		{ID: "web-2", Cwd: "/x/web", Repo: "other/web"},          // repositories
		{ID: "web-3", Cwd: "/x/web"},                             // is neither's
		{ID: "api", Cwd: "/x/api", Repo: "acme/API"},             // case aside,
		{ID: "api-2", Cwd: "/x/api", Repo: "acme/api"},           // one repository
		{ID: "api-3", Cwd: "/x/api"},                             // is the folder's
		{ID: "owner-name", Cwd: "/x/acme-web", Repo: "acme/web"}, // a folder named owner-name
		{ID: "owner-name-2", Cwd: "/x/acme-web"},
		{ID: "none", Cwd: ""},                                                  // no folder: no repository
		{ID: "own-1", Cwd: "/home/ann/projects/shop", Repo: "acme/storefront"}, // a person's folder
		{ID: "own-2", Cwd: "/home/ann/projects/shop"},                          // named otherwise
		{ID: "mac-1", Cwd: "/Users/ann/shop", Repo: "acme/storefront"},
		{ID: "mac-2", Cwd: "/Users/ann/shop"},
		{ID: "win-1", Cwd: `C:\Users\ann\shop`, Repo: "acme/storefront"},
		{ID: "win-2", Cwd: `C:\Users\ann\shop`},
		{ID: "home-1", Cwd: "/home/ann", Repo: "ann/dotfiles"}, // the home itself is no project
		{ID: "home-2", Cwd: "/home/ann"},
		{ID: "ws-1", Cwd: "/srv/ws", Repo: "acme/api"}, // outside a home: a sandbox, maybe
		{ID: "ws-2", Cwd: "/srv/ws"},
	}
	settleRepos(sessions)
	want := map[string]string{
		"claude": "entireio/cli", "worktree": "entireio/cli", "sub": "pkg", "other-cli": "cli",
		"sandbox-b": "workspace", "web-3": "web", "api-3": "acme/API", "owner-name-2": "acme/web", "none": "",
		"own-2": "acme/storefront", "mac-2": "acme/storefront", "win-2": "acme/storefront", "home-2": "ann", "ws-2": "ws",
	}
	for _, s := range sessions {
		if w, ok := want[s.ID]; ok && s.Repo != w {
			t.Errorf("%s in %q: repo %q, want %q", s.ID, s.Cwd, s.Repo, w)
		}
	}
}

// A session's repository is the same whether its messages are read or
// not: listing sessions reads the transcript again for the remote it
// pushed to, when it holds one.
func TestRemoteWithoutMessages(t *testing.T) {
	dir := t.TempDir()
	line := func(v map[string]any) string {
		v["cwd"], v["sessionId"], v["timestamp"] = "/gone/VPNBussiness", "5f0c1d2e-0000-4000-8000-000000000001", "2026-02-15T15:00:00.000Z"
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	user := func(uuid string, content any) string {
		return line(map[string]any{"type": "user", "uuid": uuid, "message": map[string]any{"role": "user", "content": content}})
	}
	bash := func(uuid, id, cmd string) string {
		return line(map[string]any{"type": "assistant", "uuid": uuid, "message": map[string]any{"id": "msg_" + uuid, "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}})
	}
	result := func(uuid, id, out string) string {
		return user(uuid, []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out}})
	}
	tests := []struct {
		name, transcript, want string
	}{
		{"pushed", user("m1", "Push it.") + bash("m2", "t1", "git push") + result("m3", "t1", "To https://github.com/Beep206/CyberVPN.git\n   a27c0c2..0f9e02b  main -> main"), "Beep206/CyberVPN"},
		{"listed its remote", user("m1", "Where does this go?") + bash("m2", "t1", "git remote -v") + result("m3", "t1", "origin\tgit@github.com:beep206/cybervpn.git (fetch)\norigin\tgit@github.com:beep206/cybervpn.git (push)"), "beep206/cybervpn"},
		{"pushed after cd", user("m1", "Push it.") + bash("m2", "t1", "cd ../web && git push") + result("m3", "t1", "To https://github.com/acme/web.git\n   a27c0c2..0f9e02b  main -> main"), "VPNBussiness"},
		{"no git", user("m1", "Fix it. From https://github.com/acme/web we learn it.") + bash("m2", "t1", "ls") + result("m3", "t1", "To https://github.com/acme/web.git"), "VPNBussiness"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			if err := os.WriteFile(path, []byte(tt.transcript), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, opts := range []Options{{}, {Messages: true}, {NoGit: true}} {
				res, err := Scan(context.Background(), []string{path}, opts)
				if err != nil || len(res.Sessions) != 1 {
					t.Fatalf("Scan(%+v): %v, %d sessions, problems %v", opts, err, len(res.Sessions), res.Problems)
				}
				if got := res.Sessions[0].Repo; got != tt.want {
					t.Errorf("Scan with %+v: repo %q, want %q", opts, got, tt.want)
				}
				read, err := Read(context.Background(), path, opts)
				if err != nil || len(read) != 1 {
					t.Fatalf("Read(%+v): %v, %d sessions", opts, err, len(read))
				}
				if got := read[0].Repo; got != tt.want {
					t.Errorf("Read with %+v: repo %q, want %q", opts, got, tt.want)
				}
			}
		})
	}
}

func TestBearsName(t *testing.T) {
	for _, tt := range []struct {
		folder, repo string
		want         bool
	}{
		{"cli", "entireio/cli", true},
		{"CLI", "entireio/cli", true},
		{"entireio-cli", "entireio/cli", true},
		{"entireio_cli", "entireio/cli", true},
		{"entireio.cli", "entireio/cli", true},
		{"workspace", "acme/api", false},
		{"acme-api-2", "acme/api", false},
		{"other-cli", "entireio/cli", false},
		{"entireio-cli", "entireio/cl", false},
		{"cli", "cli", false}, // no owner: nothing to take
	} {
		if got := bearsName(tt.folder, tt.repo); got != tt.want {
			t.Errorf("bearsName(%q, %q) = %v, want %v", tt.folder, tt.repo, got, tt.want)
		}
	}
}

func TestMayNameRemote(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]bool{
		`{"command":"git push"}` + "\n" + `"content":"To https://github.com/acme/api.git\n   1a..2b"`: true,
		`{"cmd":["bash","-lc","git fetch origin"]}`:                                                   true,
		`{"command":"git --no-pager remote -v"}`:                                                      true,
		`{"command":"git remote get-url origin"}`:                                                     true,
		`{"command":"git clone https://github.com/acme/api ."}`:                                       true,
		`{"command":"git pull --rebase"}`:                                                             true,
		`{"command":"git status"}` + "\n" + `"content":"To https://github.com/acme/api.git"`:          false,
		`"From the docs: To do this, run make, then git commit."`:                                     false,
		`"a legit push, a digit fetch"`:                                                               false,
		`{"command":"/usr/bin/git push"}`:                                                             false,
		`{"command":"git -c color.ui=never push"}`:                                                    false, // ownGitCommand takes the setting for the command
		`"text":"see https://github.com/acme/api"`:                                                    false,
		strings.Repeat("x", 1<<20-6) + "\ngit push":                                                   true, // across a chunk's end
	} {
		path := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := mayNameRemote(path, false); got != want {
			t.Errorf("mayNameRemote(%.60q) = %v, want %v", text, got, want)
		}
	}
}
