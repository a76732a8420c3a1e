package improve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Area is one area's score on the benchmark.
type Area struct {
	Points float64 `json:"points"`
	Max    float64 `json:"max"`
}

// Gap is how far the area is from its maximum.
func (a Area) Gap() float64 { return a.Max - a.Points }

// Points is a benchmark's score: points per area.
type Points map[string]Area

// Total is the sum of every area's points and of their maxima.
func (p Points) Total() (points, max float64) {
	for _, a := range p {
		points += a.Points
		max += a.Max
	}
	return points, max
}

// Names are the areas' names, sorted.
func (p Points) Names() []string {
	var ns []string
	for n := range p {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// String is the score as a bench prints it: "a 3/5, b 2/2 (total 5/7)".
func (p Points) String() string {
	var b strings.Builder
	for i, n := range p.Names() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s/%s", n, num(p[n].Points), num(p[n].Max))
	}
	t, m := p.Total()
	fmt.Fprintf(&b, " (total %s/%s)", num(t), num(m))
	return b.String()
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// ParsePoints reads what a bench printed: a JSON object
// {"areas":{NAME:{"points":P,"max":M}}}, or lines "NAME: P/MAX" with an
// optional "TOTAL: P/MAX" line that must equal the sum. Blank lines and
// lines starting with # are skipped; anything else is an error naming the
// line.
func ParsePoints(out []byte) (Points, error) {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the bench printed nothing: want lines NAME: P/MAX or JSON {\"areas\":{…}}")
	}
	if trimmed[0] == '{' {
		return parseJSONPoints(trimmed)
	}
	return parseLinePoints(out)
}

func parseJSONPoints(b []byte) (Points, error) {
	var doc struct {
		Areas map[string]*struct {
			Points *float64 `json:"points"`
			Max    *float64 `json:"max"`
		} `json:"areas"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("bench JSON: %w", err)
	}
	if len(doc.Areas) == 0 {
		return nil, fmt.Errorf(`bench JSON: no areas: want {"areas":{"NAME":{"points":P,"max":M}}}`)
	}
	p := Points{}
	for name, a := range doc.Areas {
		if a == nil || a.Points == nil || a.Max == nil {
			return nil, fmt.Errorf("bench JSON: area %q needs points and max", name)
		}
		if err := check(name, *a.Points, *a.Max); err != nil {
			return nil, fmt.Errorf("bench JSON: %w", err)
		}
		p[name] = Area{Points: *a.Points, Max: *a.Max}
	}
	return p, nil
}

var pointsLine = regexp.MustCompile(`^\s*(.+?)\s*:\s*(-?[0-9]+(?:\.[0-9]+)?)\s*/\s*([0-9]+(?:\.[0-9]+)?)\s*$`)

func parseLinePoints(out []byte) (Points, error) {
	p := Points{}
	var total *Area
	totalLine := 0
	for i, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := pointsLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("bench output line %d %q: want NAME: P/MAX", i+1, cutLine(line))
		}
		pts, _ := strconv.ParseFloat(m[2], 64)
		mx, _ := strconv.ParseFloat(m[3], 64)
		if err := check(m[1], pts, mx); err != nil {
			return nil, fmt.Errorf("bench output line %d: %w", i+1, err)
		}
		if strings.EqualFold(m[1], "total") {
			total, totalLine = &Area{Points: pts, Max: mx}, i+1
			continue
		}
		if _, dup := p[m[1]]; dup {
			return nil, fmt.Errorf("bench output line %d: area %q given twice", i+1, m[1])
		}
		p[m[1]] = Area{Points: pts, Max: mx}
	}
	if len(p) == 0 {
		return nil, fmt.Errorf("the bench printed no area: want lines NAME: P/MAX")
	}
	if total != nil {
		t, m := p.Total()
		if !near(t, total.Points) || !near(m, total.Max) {
			return nil, fmt.Errorf("bench output line %d: TOTAL %s/%s is not the sum of the areas, %s/%s", totalLine, num(total.Points), num(total.Max), num(t), num(m))
		}
	}
	return p, nil
}

func check(name string, pts, mx float64) error {
	switch {
	case math.IsNaN(pts) || math.IsInf(pts, 0) || math.IsNaN(mx) || math.IsInf(mx, 0):
		return fmt.Errorf("area %q: points are not numbers", name)
	case mx <= 0:
		return fmt.Errorf("area %q: max %s, want more than 0", name, num(mx))
	case pts < 0 || pts > mx:
		return fmt.Errorf("area %q: %s points is outside 0..%s", name, num(pts), num(mx))
	}
	return nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(a)) }

func cutLine(s string) string {
	if len(s) > 80 {
		return s[:77] + "…"
	}
	return s
}

// Verdict is how a change's score compares with the score before it.
type Verdict struct {
	Better bool
	// Reason says why not, or what rose.
	Reason string
}

// Judge keeps a change only when the total rose and no area fell; an area
// that vanished counts as fallen, a new area is ignored.
func Judge(before, after Points) Verdict {
	var fell []string
	for _, n := range before.Names() {
		a, ok := after[n]
		switch {
		case !ok:
			fell = append(fell, n+" is gone")
		case a.Points < before[n].Points && !near(a.Points, before[n].Points):
			fell = append(fell, fmt.Sprintf("%s fell %s→%s", n, num(before[n].Points), num(a.Points)))
		}
	}
	bt, _ := before.Total()
	var at float64
	for _, n := range before.Names() {
		at += after[n].Points
	}
	if len(fell) > 0 {
		return Verdict{Reason: strings.Join(fell, "; ")}
	}
	if at <= bt || near(at, bt) {
		return Verdict{Reason: fmt.Sprintf("total did not rise (%s→%s)", num(bt), num(at))}
	}
	return Verdict{Better: true, Reason: fmt.Sprintf("total rose %s→%s", num(bt), num(at))}
}
