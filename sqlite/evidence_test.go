package sqlite

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/lorehq/lore"
)

// decodeEvidence is parseEvidence's slow path alone: encoding/json.
func decodeEvidence(s string) ([]lore.Evidence, []float64, error) {
	var raw [][3]any
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, nil, err
	}
	var ev []lore.Evidence
	var conf []float64
	for _, x := range raw {
		session, _ := x[0].(string)
		pos, _ := x[1].(float64)
		c, _ := x[2].(float64)
		ev, conf = append(ev, lore.Evidence{Session: session, Position: int(pos)}), append(conf, c)
	}
	return ev, conf, nil
}

func TestEvidenceRoundTrip(t *testing.T) {
	for _, ev := range [][]lore.Evidence{
		{{Session: "claude-code:s1", Position: 14}},
		{{Session: "s1"}, {Session: `codex:"quoted" \ <&> é`, Position: 3}, {Session: "tab\there", Position: 1 << 40}},
		{{Session: "gemini:2f9c", Position: 7}, {Session: "x,y]", Position: 2}},
	} {
		conf := make([]float64, len(ev))
		for i := range conf {
			conf[i] = []float64{0.7, 1e-05, 0.99, 1.0 / 3}[i%4]
		}
		s := evidenceJSON(ev, conf)
		gotEv, gotConf, err := parseEvidence(s)
		if err != nil || !reflect.DeepEqual(gotEv, ev) || !reflect.DeepEqual(gotConf, conf) {
			t.Errorf("parseEvidence(%s) = %+v %v %v; want %+v %v", s, gotEv, gotConf, err, ev, conf)
		}
	}
}

// FuzzParseEvidence: what the direct reader accepts, encoding/json reads
// the same way, and what evidenceJSON writes reads back unchanged.
func FuzzParseEvidence(f *testing.F) {
	f.Add(`[["claude-code:s1",14,0.7]]`, "s1", 3, 0.5)
	f.Add(`[["a",1,0.5],["b",2,1e-05]]`, `q"uote`, 0, 0.99)
	f.Add(`[["a",1,0.5],]`, "é", 1, 0.1)
	f.Add(`[["a\"b",1,0.5]]`, "", 7, 0.0)
	f.Fuzz(func(t *testing.T, s, session string, pos int, c float64) {
		if ev, conf, ok := parsePlainEvidence(s); ok {
			wantEv, wantConf, err := decodeEvidence(s)
			if err == nil && (!reflect.DeepEqual(ev, wantEv) || !reflect.DeepEqual(conf, wantConf)) {
				t.Errorf("%q: direct %+v %v, encoding/json %+v %v", s, ev, conf, wantEv, wantConf)
			}
		}
		if pos < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			return
		}
		ev := []lore.Evidence{{Session: session, Position: pos}, {Session: "s2", Position: 1}}
		ev[0].Session = string([]rune(session)) // valid UTF-8, as lore.Prepare keeps sessions
		conf := []float64{c, 0.5}
		gotEv, gotConf, err := parseEvidence(evidenceJSON(ev, conf))
		if err != nil || !reflect.DeepEqual(gotEv, ev) || !reflect.DeepEqual(gotConf, conf) {
			t.Errorf("round trip of %+v %v: %+v %v %v", ev, conf, gotEv, gotConf, err)
		}
	})
}
