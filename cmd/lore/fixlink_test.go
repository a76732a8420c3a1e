package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/gittest"
)

// fixedSession writes a Claude Code session in the repository r that
// meets a failure, states its cause in the code the fix then changed,
// gets past it, and commits the fix as commit, the way git commit
// prints it.
func fixedSession(t *testing.T, dir, cwd, commit string) {
	id := "7a1e0c55-2b7e-4f0e-9d7a-000000000001"
	head := fmt.Sprintf(`"sessionId":%q,"cwd":%q,"gitBranch":"main","version":"2.1.30","isSidechain":false`, id, cwd)
	n := 0
	line := func(typ, msg string) string {
		n++
		return fmt.Sprintf(`{%s,"type":%q,"uuid":"u%d","timestamp":"2026-03-01T10:00:%02d.000Z","message":%s}`, head, typ, n, n, msg)
	}
	say := func(content string) string {
		return line("assistant", `{"model":"claude-opus-4-6","id":"msg`+fmt.Sprint(n)+`","type":"message","role":"assistant","content":[`+content+`],"usage":{"input_tokens":4,"output_tokens":16}}`)
	}
	call := func(id, cmd string) string {
		return say(`{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":` + jsonText(cmd) + `}}`)
	}
	result := func(id, out string, failed bool) string {
		return line("user", fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":%s,"is_error":%v}]}`, id, jsonText(out), failed))
	}
	lines := []string{
		line("user", `{"role":"user","content":"loading settings.conf fails, please fix it"}`),
		call("t1", "go run ./cmd/load settings.conf"),
		result("t1", "Exit code 1\nerror: a line without a key in settings.conf", true),
		say(`{"type":"text","text":"Found it. The root cause is that ` + "`Parse`" + ` in ` + "`config/config.go`" + ` keeps lines without a key. Fixing it now."}`),
		call("t4", "sed -i 's/keep/skip/' config/config.go"),
		result("t4", "", false),
		call("t2", "go run ./cmd/load settings.conf"),
		result("t2", "loaded 3 keys", false),
		call("t3", `git commit -am "fix: skip lines without a key"`),
		result("t3", "[main "+commit[:7]+"] fix: skip lines without a key\n 2 files changed, 9 insertions(+)", false),
	}
	writeTranscript(t, filepath.Join(dir, id+".jsonl"), strings.Join(lines, "\n")+"\n")
}

// TestPitfallLinkedToItsFix checks issue 23's item 5 through the commands:
// a pitfall a session met and then committed the fix of is marked fixed
// by the fix's guard, whether the session is harvested before or after
// lore guard scan, and boot says "fixed in abc1234; keep it".
func TestPitfallLinkedToItsFix(t *testing.T) {
	for _, order := range []string{"harvest, then scan", "scan, then harvest"} {
		t.Run(order, func(t *testing.T) {
			r := gittest.New(t)
			r.Git("remote", "add", "origin", "https://github.com/acme/config.git")
			r.Write("config/config.go", guardedBefore)
			r.Write("config/config_test.go", guardedTest)
			r.Commit("add the parser")
			r.Write("config/config.go", guardedFixed)
			r.Write("config/config_test.go", guardedTestFixed)
			fix := r.Commit("fix: skip lines without a key")
			sessions := t.TempDir()
			fixedSession(t, sessions, r.Dir, fix)

			store := filepath.Join(t.TempDir(), "lore.db")
			env := testEnv(t.TempDir(), nil)
			env.Cwd = r.Dir
			lore := func(args ...string) result {
				t.Helper()
				res := runIn(t, env, "", nil, append(args, "--store", store)...)
				if res.code != 0 {
					t.Fatalf("lore %s: exit %d\n%s%s", strings.Join(args, " "), res.code, res.stdout, res.err)
				}
				return res
			}
			scan := func() { lore("guard", "scan", "--name", "acme/config") }
			if order == "scan, then harvest" {
				scan()
			}
			lore("harvest", sessions)
			if order == "harvest, then scan" {
				scan()
			}

			type item struct {
				ID       string   `json:"id"`
				Text     string   `json:"text"`
				Tags     []string `json:"tags"`
				Category string   `json:"category"`
			}
			var items []item
			for _, l := range strings.Split(strings.TrimSpace(lore("list", "--status", "candidate", "--repo", "acme/config", "--json").stdout), "\n") {
				var it item
				if err := json.Unmarshal([]byte(l), &it); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				items = append(items, it)
			}
			var id string
			for _, it := range items {
				if it.Category == "pitfall" && strings.Contains(it.Text, "keeps lines without a key") {
					id = it.ID
					want := []string{"commit:" + fix[:7], "fixed-in:" + fix[:12]}
					for _, w := range want {
						if !strings.Contains(strings.Join(it.Tags, " "), w) {
							t.Errorf("the pitfall's tags %v lack %q", it.Tags, w)
						}
					}
				}
			}
			if id == "" {
				t.Fatalf("no harvested pitfall states the cause: %+v", items)
			}
			lore("promote", id)
			boot := lore("boot", "--repo", "acme/config")
			if want := "(fixed in " + fix[:12] + "; keep it"; !strings.Contains(boot.stdout, want) {
				t.Errorf("boot does not say %q:\n%s", want, boot.stdout)
			}
		})
	}
}
