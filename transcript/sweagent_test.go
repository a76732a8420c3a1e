package transcript

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

func TestSWEAgentCorpus(t *testing.T) {
	dir := corpusDir(t, "swe-agent")
	// Counted independently: history without demonstrations, the task as
	// the one user turn, one call per action; no harness error marker
	// occurs in these runs. The demonstrations were replayed, so their
	// model stats are zero.
	tests := []struct {
		file string
		want ohsweWant
	}{
		{"sweagent__gpt4__pydicom__pydicom-1458.traj", ohsweWant{id: "swe-agent:sweagent__gpt4__pydicom__pydicom-1458",
			user: 1, asst: 12, calls: 12, usage: lore.Usage{InputTokens: 122612, OutputTokens: 1369},
			repo: "pydicom__pydicom", cwd: "/pydicom__pydicom", outcome: lore.OutcomeSuccess}},
		{"sweagent__demo_default__marshmallow-1867.traj", ohsweWant{id: "swe-agent:sweagent__demo_default__marshmallow-1867",
			user: 1, asst: 14, calls: 14, repo: "marshmallow-code__marshmallow", cwd: "/marshmallow-code__marshmallow", outcome: lore.OutcomeSuccess}},
		{"sweagent__demo_ctf_web_i_got_id_demo.traj", ohsweWant{id: "swe-agent:sweagent__demo_ctf_web_i_got_id_demo",
			user: 1, asst: 21, calls: 21, repo: "__Users__talora__LLM_CTF_Dataset_Dev__2016__CSAW-Quals__web__I-Got-Id",
			cwd: "/__Users__talora__LLM_CTF_Dataset_Dev__2016__CSAW-Quals__web__I-Got-Id", outcome: lore.OutcomeSuccess}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			s := readOne(t, path)
			ohsweCheck(t, s, tt.want)
			ohsweSameCounts(t, path, []*lore.Session{s})
		})
	}
}

func TestSWEAgentFixtures(t *testing.T) {
	tests := []struct {
		name string
		path string
		want ohsweWant
	}{
		// 0.x: the demonstration (is_demo "True") and the system prompt are
		// no turns; "Please continue" after a reply without an action is a
		// user turn; EXECUTION TIMED OUT marks the one tool error; the model
		// comes from the run folder's name; exit_context is failure.
		{"0.x", "trajectories/alice/gpt4__dev-easy__default__t-0.00__p-0.95__c-3.00__install-1/acme__widgets-7.traj",
			ohsweWant{id: "swe-agent:acme__widgets-7", user: 2, asst: 4, calls: 3, errors: 1,
				usage: lore.Usage{InputTokens: 40000, OutputTokens: 900}, model: "gpt4",
				repo: "acme__widgets", cwd: "/acme__widgets", outcome: lore.OutcomeFailure}},
		// 1.x RetryAgent: both attempts are read (not the top-level copy of
		// the chosen one again), demonstrations skipped, the cancelled
		// command is the error, tokens are the top-level total, model and
		// repository come from replay_config, and the autosubmission after
		// the cost limit is failure.
		{"1.x retry", "retry/acme__widgets-9.traj",
			ohsweWant{id: "swe-agent:acme__widgets-9", user: 2, asst: 3, calls: 3, errors: 1,
				usage: lore.Usage{InputTokens: 1500, OutputTokens: 150}, model: "claude-sonnet-4-20250514",
				repo: "acme/widgets", cwd: "/widgets", outcome: lore.OutcomeFailure}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", "sweagent", tt.path)
			s := readOne(t, path)
			ohsweCheck(t, s, tt.want)
			ohsweSameCounts(t, path, []*lore.Session{s})
		})
	}
}

func TestSWEAgentMessages(t *testing.T) {
	s := readOne(t, filepath.Join("testdata", "sweagent", "retry", "acme__widgets-9.traj"))
	var got []string
	for _, m := range s.Messages {
		switch {
		case len(m.ToolCalls) > 0:
			got = append(got, string(m.Role)+":"+m.ToolCalls[0].ID)
		case len(m.ToolResults) > 0:
			r := m.ToolResults[0]
			tag := r.CallID
			if r.IsError {
				tag += "!"
			}
			got = append(got, "result:"+tag)
		default:
			got = append(got, string(m.Role))
		}
	}
	want := "system user assistant:call_a1 result:call_a1 assistant:call_a2 result:call_a2! system user assistant:call_b1 result:call_b1"
	if strings.Join(got, " ") != want {
		t.Errorf("messages:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSWEAgentOutcome(t *testing.T) {
	for status, want := range map[string]lore.Outcome{
		"submitted":              lore.OutcomeSuccess,
		"submitted (exit_cost)":  lore.OutcomeFailure,
		"exit_cost":              lore.OutcomeFailure,
		"exit_context":           lore.OutcomeFailure,
		"exit_format":            lore.OutcomeFailure,
		"early_exit":             lore.OutcomeFailure,
		"exit_forfeit":           lore.OutcomeFailure,
		"KeyboardInterrupt":      lore.OutcomeAborted,
		"":                       lore.OutcomeUnknown,
		"exit_environment_error": lore.OutcomeFailure,
	} {
		if got := sweOutcome(status); got != want {
			t.Errorf("sweOutcome(%q) = %s, want %s", status, got, want)
		}
	}
}

func TestMiniFixtures(t *testing.T) {
	tests := []struct {
		name string
		path string
		want ohsweWant
	}{
		// 1.1 with tool calls: two parallel calls, one failing with
		// returncode 1 and one with an exception; the format error's usage
		// counts, its message is no turn; cwd of a container is not kept.
		{"1.1 tool calls", "mini/acme__widgets-3/acme__widgets-3.traj.json",
			ohsweWant{id: "mini-swe-agent:acme__widgets-3", user: 1, asst: 3, calls: 4, errors: 2,
				usage: lore.Usage{InputTokens: 3377, OutputTokens: 80, CacheReadTokens: 5124}, model: "openai/gpt-5-mini",
				outcome: lore.OutcomeSuccess, start: time.Unix(1767600000, 0), end: time.Unix(1767600036, 0)}},
		// 1.1 text-based, local: observations are user messages with
		// extra.returncode; the user's interruption is a turn; a reply
		// with no action makes no call.
		{"1.1 text-based", "mini/local-text.traj.json",
			ohsweWant{id: "mini-swe-agent:local-text", user: 2, asst: 3, calls: 2, errors: 1,
				usage: lore.Usage{InputTokens: 2700, OutputTokens: 55, CacheReadTokens: 500, CacheWriteTokens: 300},
				model: "anthropic/claude-sonnet-4-5", repo: "widgets", cwd: "/home/dev/widgets", outcome: lore.OutcomeFailure,
				start: time.Unix(1767700000, 0), end: time.Unix(1767700008, 0)}},
		// Role/content only: one bash block is one call, two blocks are a
		// format error answered by feedback (no turn), <returncode>2 is the
		// error.
		{"1 (role/content)", "mini-old/last_mini_run.traj.json",
			ohsweWant{id: "mini-swe-agent:last_mini_run", user: 1, asst: 4, calls: 3, errors: 1,
				model: "claude-sonnet-4-20250514", outcome: lore.OutcomeSuccess}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("testdata", "sweagent", tt.path)
			s := readOne(t, path)
			ohsweCheck(t, s, tt.want)
			ohsweSameCounts(t, path, []*lore.Session{s})
		})
	}
}

func TestMiniBashBlock(t *testing.T) {
	tests := []struct {
		content string
		cmd     string
		ok      bool
	}{
		{"THOUGHT\n\n```bash\nls -la\n```", "ls -la", true},
		{"```bash\nls\n```\n```bash\npwd\n```", "", false},
		{"no block", "", false},
		{"```bash ls```", "", false},
		{"```mswea_bash_command\ncat a \\\n  b\n```\n", "cat a \\\n  b", true},
		{"```bash\nunterminated", "", false},
	}
	for _, tt := range tests {
		cmd, ok := miniBashBlock([]byte(tt.content))
		if cmd != tt.cmd || ok != tt.ok {
			t.Errorf("miniBashBlock(%q) = %q, %v; want %q, %v", tt.content, cmd, ok, tt.cmd, tt.ok)
		}
	}
}

func TestSWERoots(t *testing.T) {
	tests := []struct {
		goos string
		vars map[string]string
		want string
	}{
		{"linux", nil, "/work/proj/trajectories /home/u/.config/mini-swe-agent"},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/work/proj/trajectories /xdg/mini-swe-agent"},
		{"darwin", nil, "/work/proj/trajectories /home/u/Library/Application Support/mini-swe-agent"},
		{"darwin", map[string]string{"MSWEA_GLOBAL_CONFIG_DIR": "/m"}, "/work/proj/trajectories /m"},
	}
	for _, tt := range tests {
		e := Env{Home: "/home/u", GOOS: tt.goos, Cwd: "/work/proj", Getenv: func(k string) string { return tt.vars[k] }}
		var got []string
		for _, r := range sweRoots(e) {
			got = append(got, r.Path)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%s %v: %s, want %s", tt.goos, tt.vars, strings.Join(got, " "), tt.want)
		}
	}
}

func FuzzSWEAgent(f *testing.F) {
	ohsweSeeds(f, "../../shared/corpus/swe-agent/*.traj", "testdata/sweagent/*/*.traj",
		"testdata/sweagent/trajectories/*/*/*.traj")
	f.Add([]byte(`{"attempts":[{"trajectory":[],"info":{},"history":[{"role":"tool","tool_call_ids":[1]}]}]}`))
	f.Add([]byte(`{"trajectory":[{"action":"ls","state":"{"}],"info":{"exit_status":7},"replay_config":"[1]","history":[]}`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "acme__widgets-1.traj", data)
	})
}

func FuzzMini(f *testing.F) {
	ohsweSeeds(f, "testdata/sweagent/mini/*/*.traj.json", "testdata/sweagent/mini/*.traj.json",
		"testdata/sweagent/mini-old/*.traj.json")
	f.Add([]byte(`{"info":{"mini_version":"1"},"messages":[{"role":"assistant","content":"` + "```bash\\nls\\n```" + `"},{"role":"user","content":"<returncode>x</returncode>"}]}`))
	seedHostile(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzFile(t, "acme__widgets-1.traj.json", data)
	})
}
