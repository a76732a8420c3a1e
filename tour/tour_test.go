package tour

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestTour runs the tour and checks that the loop it shows really
// happens: boot hands the later session the push pitfall, the session
// cites it, and measure counts the citation, the recurrence and what
// replay would have delivered.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	if !strings.Contains(res.Boot.Text, "GH006") {
		t.Errorf("the boot context lacks the push pitfall:\n%s", res.Boot.Text)
	}
	m := res.Metrics
	if m.Sessions != 5 || m.HitRate.Boots != 1 || m.HitRate.Cited < 1 {
		t.Errorf("hit rate %+v over %d sessions; want the later session's citation counted", m.HitRate, m.Sessions)
	}
	if m.Recurrence.SessionsHitKnown < 1 {
		t.Errorf("recurrence %+v; want the second push session to meet a known error", m.Recurrence)
	}
	if k := m.WouldHaveKnown; k.Known < 1 || k.Delivered < 1 || k.Delivered > k.Known {
		t.Errorf("would-have-known %+v; want the repeated push error known and delivered", k)
	}
	if _, err := os.Stat(res.Dir); !os.IsNotExist(err) {
		t.Errorf("the tour left %s behind", res.Dir)
	}
	for _, step := range []string{"1. Read", "2. Rank", "3. Harvest", "4. A new", "5. The session", "6. Measure"} {
		if !strings.Contains(out.String(), step) {
			t.Errorf("the tour does not print step %q", step)
		}
	}
}
