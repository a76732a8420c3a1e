package measure

import (
	"testing"
	"time"

	"github.com/lorehq/lore"
)

func TestWeek(t *testing.T) {
	for in, want := range map[string]string{
		"2026-05-04T09:00:00Z": "2026-05-04", // a Monday
		"2026-05-10T23:59:00Z": "2026-05-04", // the Sunday after
		"2026-05-11T00:00:00Z": "2026-05-11",
	} {
		tm, _ := time.Parse(time.RFC3339, in)
		if got := week(tm); got != want {
			t.Errorf("week(%s) = %s, want %s", in, got, want)
		}
	}
	if week(time.Time{}) != "unknown" {
		t.Error("a zero time has a week")
	}
}

func TestShareOfNothing(t *testing.T) {
	if share(3, 0) != 0 || share(1, 3) != 0.333 || share(2, 2) != 1 {
		t.Errorf("share: %v %v %v", share(3, 0), share(1, 3), share(2, 2))
	}
}

func TestCitesAndActedOn(t *testing.T) {
	cited := map[string]bool{"a338f311": true, "ab12": true}
	if !cites(cited, "a338f3117b2c") {
		t.Error("an 8-digit prefix citation is not counted")
	}
	if cites(cited, "ab12cd34ef56") {
		t.Error("a 4-digit prefix counts as a citation: too easily a coincidence")
	}
	it := lore.Item{Text: "Run `go generate ./...` before `go test ./...`; `gofmt` too."}
	if !actedOn(it, []string{"cd /x && go generate ./... 2>&1"}) {
		t.Error("running the quoted command is not acting on the note")
	}
	if actedOn(it, []string{"gofmt -l ."}) {
		t.Error("a one-word quote counts as a command")
	}
}

func TestRecurrenceBeforeAndAfter(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 5, d, 9, 0, 0, 0, time.UTC) }
	sess := func(d int, sigs ...string) facts {
		return facts{s: &lore.Session{StartedAt: day(d)}, signatures: sigs}
	}
	all := []facts{sess(1, "x"), sess(2, "x"), sess(9, "x", "y"), sess(10), sess(16, "x")}
	r := recurrence(all, map[string]time.Time{"x": day(2)}) // taught by the session of the 2nd
	if r.SessionsWithErrors != 4 || r.SessionsHitKnown != 2 || r.Rate != 0.5 {
		t.Errorf("recurrence %+v; want 2 of 4 sessions meeting x after it was known", r)
	}
	if len(r.Signatures) != 1 || r.Signatures[0].Before != 2 || r.Signatures[0].After != 2 {
		t.Errorf("per signature: %+v", r.Signatures)
	}
}
