package svgchart

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

func TestScale(t *testing.T) {
	tests := []struct {
		v     float64
		whole bool
		top   float64
		ticks []float64
	}{
		{0, true, 1, []float64{0, 1}},
		{-5, false, 1, []float64{0, 0.25, 0.5, 0.75, 1}},
		{math.NaN(), true, 1, []float64{0, 1}},
		{math.Inf(1), true, 1, []float64{0, 1}},
		{3, true, 3, []float64{0, 1, 2, 3}},
		{9, true, 10, []float64{0, 5, 10}},
		{9, false, 10, []float64{0, 2.5, 5, 7.5, 10}},
		{10, false, 10, []float64{0, 2.5, 5, 7.5, 10}},
		{0.7, false, 0.8, []float64{0, 0.2, 0.4, 0.6, 0.8}},
		{0.35, false, 0.4, []float64{0, 0.1, 0.2, 0.3, 0.4}},
		{92_000, true, 100_000, []float64{0, 25_000, 50_000, 75_000, 100_000}},
	}
	for _, tt := range tests {
		top, ticks := Scale(tt.v, tt.whole)
		if top != tt.top || !slices.Equal(ticks, tt.ticks) {
			t.Errorf("Scale(%v, %v) = %v, %v; want %v, %v", tt.v, tt.whole, top, ticks, tt.top, tt.ticks)
		}
	}
}

func TestY(t *testing.T) {
	f := New("y", "", 100, 120, Margins{Left: 10, Top: 20, Right: 10, Bottom: 20})
	tests := []struct {
		v, top, want float64
	}{
		{0, 10, 100},
		{10, 10, 20},
		{2.5, 10, 80},
		{5, 0, 100}, // no scale: on the axis
		{5, -1, 100},
	}
	for _, tt := range tests {
		if got := f.Y(tt.v, tt.top); got != tt.want {
			t.Errorf("Y(%v, %v) = %v, want %v", tt.v, tt.top, got, tt.want)
		}
	}
}

func TestTimeAxis(t *testing.T) {
	// A plot area 600 wide, from 20 to 620.
	tests := []struct {
		name     string
		dates    []string
		unitDays int
		xs       []float64
		width    float64
		ticks    []string
	}{
		{
			name:     "days with a gap keep the gap",
			dates:    []string{"2026-03-01", "2026-03-02", "2026-03-05"},
			unitDays: 1,
			xs:       []float64{20 + 60, 20 + 180, 20 + 540},
			width:    120,
			ticks:    []string{"2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05"},
		},
		{
			name:     "weeks",
			dates:    []string{"2026-03-02", "2026-03-16"},
			unitDays: 7,
			xs:       []float64{20 + 100, 20 + 500},
			width:    200,
			ticks:    []string{"2026-03-02", "2026-03-09", "2026-03-16"},
		},
		{
			name:     "one date",
			dates:    []string{"2026-03-02"},
			unitDays: 7,
			xs:       []float64{320},
			width:    600,
			ticks:    []string{"2026-03-02"},
		},
		{
			name:     "dates out of order go one after another",
			dates:    []string{"2026-03-05", "2026-03-01"},
			unitDays: 1,
			xs:       []float64{170, 470},
			width:    300,
			ticks:    []string{"2026-03-05", "2026-03-01"},
		},
		{
			name:     "labels that are not dates go one after another",
			dates:    []string{"2026-03-01", "unknown", "2026-03-09"},
			unitDays: 1,
			xs:       []float64{120, 320, 520},
			width:    200,
			ticks:    []string{"2026-03-01", "unknown", "2026-03-09"},
		},
		{
			name:     "at most six ticks over a long span",
			dates:    []string{"2026-01-01", "2026-01-11"},
			unitDays: 1,
			xs:       []float64{20 + 600.0/11/2, 620 - 600.0/11/2},
			width:    600.0 / 11,
			ticks:    []string{"2026-01-01", "2026-01-03", "2026-01-05", "2026-01-07", "2026-01-09", "2026-01-11"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New("t", "", 656, 300, Margins{Left: 20, Top: 20, Right: 36, Bottom: 44})
			slots := f.TimeAxis(tt.dates, tt.unitDays, "day")
			if !floatsNear(slots.X, tt.xs) || math.Abs(slots.Width-tt.width) > 1e-9 {
				t.Errorf("slots = %v, width %v; want %v, width %v", slots.X, slots.Width, tt.xs, tt.width)
			}
			var ticks []string
			for _, tx := range f.Chart.Texts {
				if tx.Class == "tick" {
					ticks = append(ticks, tx.Text)
				}
			}
			if !slices.Equal(ticks, tt.ticks) {
				t.Errorf("ticks = %q, want %q", ticks, tt.ticks)
			}
			if len(f.Chart.Lines) != len(tt.ticks) {
				t.Errorf("%d tick marks for %d ticks", len(f.Chart.Lines), len(tt.ticks))
			}
			last := f.Chart.Texts[len(f.Chart.Texts)-1]
			if last.Class != "label" || last.Text != "day" || last.Y != 292 {
				t.Errorf("axis label = %+v, want \"day\" at the chart's foot", last)
			}
		})
	}
}

func floatsNear(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Abs(x-y) < 1e-9 })
}

func TestSeries(t *testing.T) {
	tests := []struct {
		name    string
		missing []bool // one sample per entry, at x = its index
		lines   [][]float64
		dots    []float64
	}{
		{"whole", []bool{false, false, false}, [][]float64{{0, 1, 2}}, []float64{0, 1, 2}},
		{"broken in the middle", []bool{false, false, true, false, false}, [][]float64{{0, 1}, {3, 4}}, []float64{0, 1, 3, 4}},
		{"a lone point is a dot", []bool{false, true, false, false}, [][]float64{{2, 3}}, []float64{0, 2, 3}},
		{"nothing", []bool{true, true}, nil, nil},
		{"none", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New("s", "", 100, 100, Margins{})
			var samples []Sample
			for i, m := range tt.missing {
				samples = append(samples, Sample{X: float64(i), Y: 10 * float64(i), Missing: m, Title: string(rune('a' + i))})
			}
			f.Series("s2", samples)
			var lines [][]float64
			for _, p := range f.Chart.Polys {
				if p.Class != "line s2" {
					t.Errorf("line class = %q, want \"line s2\"", p.Class)
				}
				var xs []float64
				for _, pt := range p.Points {
					xs = append(xs, pt.X)
					if pt.Y != 10*pt.X {
						t.Errorf("point %v: y is not its sample's", pt)
					}
				}
				lines = append(lines, xs)
			}
			if !slices.EqualFunc(lines, tt.lines, slices.Equal) {
				t.Errorf("lines through x = %v, want %v", lines, tt.lines)
			}
			var dots []float64
			for _, d := range f.Chart.Dots {
				if d.Class != "dot s2" || d.Title != string(rune('a'+int(d.X))) {
					t.Errorf("dot %+v: want class \"dot s2\" and its sample's title", d)
				}
				dots = append(dots, d.X)
			}
			if !slices.Equal(dots, tt.dots) {
				t.Errorf("dots at x = %v, want %v", dots, tt.dots)
			}
		})
	}
}

func TestLegend(t *testing.T) {
	f := New("l", "", 640, 300, Margins{Left: 50})
	f.Legend(18, Swatch{"s1", "known"}, Swatch{"s2", "délivré"})
	wantRects := []Rect{{X: 50, Y: 9, W: 10, H: 10, Class: "s1"}, {X: 50 + 14 + 6.5*5 + 18, Y: 9, W: 10, H: 10, Class: "s2"}}
	if !slices.Equal(f.Chart.Rects, wantRects) {
		t.Errorf("swatches = %+v, want %+v", f.Chart.Rects, wantRects)
	}
	wantTexts := []Text{
		{X: 64, Y: 18, Anchor: "start", Class: "legend", Text: "known"},
		{X: 50 + 14 + 6.5*5 + 18 + 14, Y: 18, Anchor: "start", Class: "legend", Text: "délivré"},
	}
	if !slices.Equal(f.Chart.Texts, wantTexts) {
		t.Errorf("names = %+v, want %+v", f.Chart.Texts, wantTexts)
	}
}

func TestEmpty(t *testing.T) {
	tests := []struct {
		name   string
		yLabel string
		lines  int
		texts  []string
	}{
		{"with a y axis", "items", 2, []string{"items", "day"}},
		{"without", "", 1, []string{"day"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New("e", "", 640, 300, Margins{Left: 56, Top: 20, Right: 36, Bottom: 44})
			f.Empty("day", tt.yLabel)
			c := f.Chart
			if !c.Empty || c.EmptyX != 330 || c.EmptyY != 138 {
				t.Errorf("empty = %v at %v,%v; want true at the plot area's centre 330,138", c.Empty, c.EmptyX, c.EmptyY)
			}
			if len(c.Lines) != tt.lines {
				t.Errorf("%d axes, want %d", len(c.Lines), tt.lines)
			}
			var texts []string
			for _, tx := range c.Texts {
				texts = append(texts, tx.Text)
			}
			if !slices.Equal(texts, tt.texts) {
				t.Errorf("labels = %q, want %q", texts, tt.texts)
			}
		})
	}
}

func TestYAxis(t *testing.T) {
	f := New("a", "", 640, 300, Margins{Left: 56, Top: 20, Right: 36, Bottom: 44})
	top, ticks := Scale(9, true)
	f.YAxis(top, ticks, func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " items" }, "count")
	wantLines := []Line{
		{56, 256, 604, 256, "grid"}, {56, 138, 604, 138, "grid"}, {56, 20, 604, 20, "grid"},
		{56, 256, 604, 256, "axis"},
	}
	if !slices.Equal(f.Chart.Lines, wantLines) {
		t.Errorf("lines = %v, want %v", f.Chart.Lines, wantLines)
	}
	var texts []string
	for _, tx := range f.Chart.Texts {
		texts = append(texts, tx.Text)
	}
	if want := []string{"0 items", "5 items", "10 items", "count"}; !slices.Equal(texts, want) {
		t.Errorf("labels = %q, want %q", texts, want)
	}
}

// TestSeriesGap: the line stops before a sample after a gap (periods
// with no data between it and the one before), and goes on from it.
func TestSeriesGap(t *testing.T) {
	f := New("s", "", 100, 100, Margins{})
	f.Series("s1", []Sample{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 5, Y: 5, Gap: true}, {X: 6, Y: 6}})
	var lines [][]float64
	for _, p := range f.Chart.Polys {
		var xs []float64
		for _, pt := range p.Points {
			xs = append(xs, pt.X)
		}
		lines = append(lines, xs)
	}
	if want := [][]float64{{0, 1}, {5, 6}}; !slices.EqualFunc(lines, want, slices.Equal) {
		t.Errorf("lines through x = %v, want %v", lines, want)
	}
	if len(f.Chart.Dots) != 4 {
		t.Errorf("%d dots, want one for each sample", len(f.Chart.Dots))
	}
}
