package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// claudeSession is a Claude Code transcript: the user hands over
// secret, git push fails on a protected branch, pushing a branch works.
func claudeSession(id, secret string) string {
	head := fmt.Sprintf(`"sessionId":%q,"cwd":"/home/dev/api","gitBranch":"main","version":"2.1.30","isSidechain":false`, id)
	line := func(n int, typ, msg string) string {
		return fmt.Sprintf(`{%s,"type":%q,"uuid":"u%d","timestamp":"2026-03-01T10:00:%02d.000Z","message":%s}`, head, typ, n, n, msg)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	assistant := func(content string) string {
		return `{"model":"claude-opus-4-6","id":"msg","type":"message","role":"assistant","content":[` + content + `],"usage":{"input_tokens":4,"output_tokens":16}}`
	}
	lines := []string{
		line(1, "user", `{"role":"user","content":`+q("Push the fix to main; the server token is "+secret)+`}`),
		line(2, "assistant", assistant(`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"git push origin main"}}`)),
		line(3, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":`+q(pushOutput)+`,"is_error":true}]}`),
		line(4, "assistant", assistant(`{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"git push -u origin fix-retry"}}`)),
		line(5, "user", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"branch 'fix-retry' set up to track 'origin/fix-retry'.","is_error":false}]}`),
		line(6, "assistant", assistant(`{"type":"text","text":"main is protected: pushed the branch fix-retry instead; open a pull request from it."}`)),
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestUpload(t *testing.T) {
	e := newEnv(t, Options{})
	w := e.token("acme", lore.ScopeWrite)
	secret, _ := lore.NewToken()
	const gh = "ghp_u8jzPde0IgxLd6GncfBAepfJBd0Kh8oOOL8d"
	body := claudeSession("5d1e0c55-2b7e-4f0e-9d7a-000000000001", secret+" and "+gh)

	var up Upload
	e.call("POST", "/v1/sessions?name=5d1e0c55.jsonl", w, nil, nil, http.StatusBadRequest) // no body
	status, b := e.do("POST", "/v1/sessions?name=5d1e0c55.jsonl&repo=acme/api", w, strings.NewReader(body))
	if status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", status, b)
	}
	if err := json.Unmarshal(b, &up); err != nil {
		t.Fatal(err)
	}
	if up.State != UploadQueued || up.Sessions != 1 || up.Redactions < 2 || up.Harvest != nil {
		t.Errorf("upload: %+v, want it queued", up)
	}
	e.drain(w)
	// What the server keeps holds no secret.
	var kept []string
	err := e.teams.UploadBodies(context.Background(), "acme", func(q lore.QueuedUpload) error {
		kept = append(kept, string(q.Body))
		return nil
	})
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept %d uploads (%v), want one", len(kept), err)
	}
	if strings.Contains(kept[0], secret[5:]) || strings.Contains(kept[0], gh) {
		t.Error("the kept transcript holds a secret")
	}
	// Sent again, it is the same upload, harvested once.
	var again Upload
	status, b = e.do("POST", "/v1/sessions?name=5d1e0c55.jsonl&repo=acme/api", w, strings.NewReader(body))
	if err := json.Unmarshal(b, &again); err != nil || status != http.StatusAccepted {
		t.Fatalf("sent again: %d %s", status, b)
	}
	if again.ID != up.ID || again.State != UploadHarvested || again.Harvest == nil || again.Harvest.SessionsHarvested != 1 {
		t.Errorf("sent again: %+v, want the first upload, harvested", again)
	}
	var page ItemPage
	e.call("GET", "/v1/items?status=any", w, nil, &page, http.StatusOK)
	if len(page.Items) == 0 || page.Items[0].Repo != "acme/api" {
		t.Errorf("the upload taught %+v, want items of acme/api", page.Items)
	}
	for _, it := range page.Items {
		if strings.Contains(it.Text, secret[5:]) || strings.Contains(it.Text, gh) {
			t.Errorf("an item holds a secret: %q", it.Text)
		}
	}

	var hs HarvestStatus
	e.call("GET", "/v1/harvest", w, nil, &hs, http.StatusOK)
	if hs.Sessions != 1 || hs.LastHarvest == nil || len(hs.Uploads) != 1 || hs.Uploads[0].ID != up.ID || hs.Uploads[0].State != UploadHarvested || hs.Queued != 0 {
		t.Errorf("harvest status: %+v", hs)
	}
	other := e.token("other", lore.ScopeRead)
	e.call("GET", "/v1/harvest", other, nil, &hs, http.StatusOK)
	if hs.Sessions != 0 || len(hs.Uploads) != 0 {
		t.Errorf("another team's harvest status: %+v", hs)
	}

	var m struct {
		Sessions int `json:"sessions"`
	}
	e.call("GET", "/v1/measure", w, nil, &m, http.StatusOK)
	if m.Sessions != 1 {
		t.Errorf("measure: %d sessions, want the one uploaded", m.Sessions)
	}
	e.wantError("GET", "/v1/measure?since=yesterday", w, nil, http.StatusBadRequest, codeInvalid)

	// Not a transcript, not text, or named as a database: refused.
	e.wantError("POST", "/v1/sessions", w, strings.NewReader("hello\n"), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/sessions", w, strings.NewReader("\xff\xfe\x00"), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/sessions", w, strings.NewReader("SQLite format 3\x00\x10\x00"), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/sessions?name=state.vscdb", w, strings.NewReader(body), http.StatusBadRequest, codeInvalid)
	e.wantError("POST", "/v1/sessions?name=../../etc/passwd", w, strings.NewReader(body), http.StatusBadRequest, codeInvalid)
}

// TestUploadOfDeadWorker: an upload a worker claimed and never finished
// (it died) is harvested by another once its lease passes, once.
func TestUploadOfDeadWorker(t *testing.T) {
	e := newIdleEnv(t, Options{})
	w := e.token("acme", lore.ScopeWrite)
	var up Upload
	status, b := e.do("POST", "/v1/sessions?name=5d1e0c55.jsonl", w, strings.NewReader(claudeSession("5d1e0c55-2b7e-4f0e-9d7a-000000000009", "")))
	if err := json.Unmarshal(b, &up); err != nil || status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", status, b)
	}
	ctx := context.Background()
	dead, ok, err := e.teams.Claim(ctx, "dead", time.Now().Add(-time.Hour), time.Minute)
	if err != nil || !ok || dead.ID != up.ID {
		t.Fatalf("claim: %+v %v %v", dead, ok, err)
	}
	e.work()
	e.drain(w)
	var hs HarvestStatus
	e.call("GET", "/v1/harvest", w, nil, &hs, http.StatusOK)
	if len(hs.Uploads) != 1 || hs.Uploads[0].State != UploadHarvested || hs.Sessions != 1 {
		t.Fatalf("harvest status: %+v", hs)
	}
	list, err := e.teams.Uploads(ctx, "acme", 1)
	if err != nil || list[0].Attempts != 2 || list[0].Worker == "dead" {
		t.Errorf("the upload: %+v %v, want a second attempt by a live worker", list, err)
	}
	dead.State = UploadHarvested
	if err := e.teams.Finish(ctx, dead); lore.ErrorCode(err) != lore.ECONFLICT {
		t.Errorf("the dead worker's finish: %v, want ECONFLICT", err)
	}
}
