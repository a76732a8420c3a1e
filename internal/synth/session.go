package synth

import (
	"encoding/json"
	"fmt"
	"strings"
)

// PushError is what git printed when it refused to push to a protected
// main, as Claude Code reports a failed command.
const PushError = "Exit code 1\nremote: error: GH006: Protected branch update failed for refs/heads/main.\n" +
	"remote: error: Changes must be made through a pull request.\nTo github.com:acme/api.git\n" +
	" ! [remote rejected] main -> main (protected branch hook declined)\nerror: failed to push some refs to 'github.com:acme/api.git'"

// ClaudePushSession is a Claude Code transcript of session id, run in
// the folder cwd, that asks user, fails to push to main (PushError) and
// pushes a branch right after: harvest makes a pitfall and an episode of
// it. It is the session of the end-to-end tests of recall, uploads and
// lore push.
func ClaudePushSession(id, cwd, user string) string {
	line := func(i int, typ string, msg any) string {
		b, _ := json.Marshal(map[string]any{"type": typ, "uuid": fmt.Sprint("u", i), "sessionId": id,
			"cwd": cwd, "version": "2.0.1", "timestamp": fmt.Sprintf("2026-09-03T10:00:%02d.000Z", i), "message": msg})
		return string(b)
	}
	call := func(tid, cmd string) map[string]any {
		return map[string]any{"id": "msg_" + tid, "role": "assistant", "model": "claude-sonnet-4", "content": []any{
			map[string]any{"type": "tool_use", "id": tid, "name": "Bash", "input": map[string]any{"command": cmd, "description": "push"}}}}
	}
	result := func(tid, out string, failed bool) map[string]any {
		return map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tid, "content": out, "is_error": failed}}}
	}
	return strings.Join([]string{
		line(1, "user", map[string]any{"role": "user", "content": user}),
		line(2, "assistant", call("toolu_1", "git push origin main")),
		line(3, "user", result("toolu_1", PushError, true)),
		line(4, "assistant", call("toolu_2", "git push -u origin fix-retry")),
		line(5, "user", result("toolu_2", "branch 'fix-retry' set up to track 'origin/fix-retry'.", false)),
	}, "\n") + "\n"
}
