package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lorehq/lore/internal/claudehook"
)

// TestBootHoldout: a held-out session gets no notes, by the flag or by
// LORE_HOLDOUT, and its boot is recorded as withheld with the notes it
// would have had; a session not held out gets them; a share outside 0–1
// is a usage error, and a hook fails open on it.
func TestBootHoldout(t *testing.T) {
	store := bootStore(t)
	r := runLore(t, "", "boot", "--repo", "acme/api", "--store", store, "--holdout", "1", "--session", "claude-code:s1")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.err, "held out") {
		t.Fatalf("--holdout 1: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.err)
	}
	r = runLore(t, "", "boot", "--repo", "acme/api", "--store", store, "--holdout", "0", "--session", "claude-code:s2", "--json")
	var c struct {
		Context  string `json:"context"`
		Withheld bool   `json:"withheld"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &c) != nil || c.Withheld || !strings.Contains(c.Context, "HTTP 405") {
		t.Fatalf("--holdout 0: exit %d, %q", r.code, r.stdout)
	}
	bs := boots(t, store)
	if len(bs) != 2 || !bs[0].Withheld || len(bs[0].Items) == 0 || bs[1].Withheld {
		t.Errorf("boot records: %+v; want the first withheld with its notes, the second not", bs)
	}

	// The setting for hooks: LORE_HOLDOUT.
	in := `{"session_id":"5c0375b4","cwd":"/nowhere/api","hook_event_name":"SessionStart"}`
	r = runLoreStdin(t, map[string]string{"LORE_HOLDOUT": "1"}, in, "boot", "--format", "claude-hook", "--repo", "acme/api", "--store", store)
	var out claudehook.SessionStartOutput
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.HookSpecificOutput.AdditionalContext != "" {
		t.Errorf("LORE_HOLDOUT=1 hook: exit %d, %q", r.code, r.stdout)
	}
	if bs := boots(t, store); len(bs) != 3 || !bs[2].Withheld || bs[2].Session != "claude-code:5c0375b4" {
		t.Errorf("the hook's record: %+v", bs[len(bs)-1])
	}

	for _, tc := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"--holdout", "1.5"}},
		{nil, []string{"--holdout", "-0.1"}},
		{map[string]string{"LORE_HOLDOUT": "a tenth"}, nil},
	} {
		r := runLoreStdin(t, tc.env, "", append([]string{"boot", "--store", store}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.err, "between 0 and 1") {
			t.Errorf("%v %v: exit %d, %q", tc.env, tc.args, r.code, r.err)
		}
		r = runLoreStdin(t, tc.env, in, append([]string{"boot", "--format", "claude-hook", "--store", store}, tc.args...)...)
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil {
			t.Errorf("hook, %v %v: exit %d, %q: a hook must fail open", tc.env, tc.args, r.code, r.stdout)
		}
	}
}
