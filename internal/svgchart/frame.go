package svgchart

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"
)

// Frame is the plot area of a chart, where values go: the chart less its
// margins, which hold the axes' ticks and labels. Two frames may share a
// chart, one above the other.
type Frame struct {
	Chart          *Chart
	X0, Y0, X1, Y1 float64
}

// Margins are the room around a plot area, in viewBox units.
type Margins struct {
	Left, Top, Right, Bottom float64
}

// New starts a chart of w×h whose plot area is inside the margins m.
func New(id, title string, w, h float64, m Margins) *Frame {
	c := &Chart{ID: id, Title: title, W: w, H: h}
	return &Frame{Chart: c, X0: m.Left, Y0: m.Top, X1: w - m.Right, Y1: h - m.Bottom}
}

// Line draws a line.
func (f *Frame) Line(x1, y1, x2, y2 float64, class string) {
	f.Chart.Lines = append(f.Chart.Lines, Line{x1, y1, x2, y2, class})
}

// Rect draws a rectangle; title, when not empty, shows on hover.
func (f *Frame) Rect(x, y, w, h float64, class, title string) {
	f.Chart.Rects = append(f.Chart.Rects, Rect{X: x, Y: y, W: w, H: h, Class: class, Title: title})
}

// Text writes s at x, y.
func (f *Frame) Text(x, y float64, anchor, class, s string) {
	f.Chart.Texts = append(f.Chart.Texts, Text{X: x, Y: y, Anchor: anchor, Class: class, Text: s})
}

// Empty marks the chart as having no data: the axes and their labels, so
// the reader still sees what would be drawn, and "no data yet" in the
// middle of the plot area. With no yLabel there is no y axis either.
func (f *Frame) Empty(xLabel, yLabel string) {
	f.Chart.Empty = true
	f.Chart.EmptyX, f.Chart.EmptyY = (f.X0+f.X1)/2, (f.Y0+f.Y1)/2
	f.Line(f.X0, f.Y1, f.X1, f.Y1, "axis")
	if yLabel != "" {
		f.Line(f.X0, f.Y0, f.X0, f.Y1, "axis")
		f.YLabel(yLabel)
	}
	f.XLabel(xLabel)
}

// XLabel names the x axis, centred under the plot area at the chart's
// bottom edge.
func (f *Frame) XLabel(s string) {
	f.Text((f.X0+f.X1)/2, f.Chart.H-8, "middle", "label", s)
}

// YLabel names the y axis, turned to read upwards along the left edge.
func (f *Frame) YLabel(s string) {
	x, y := 14.0, (f.Y0+f.Y1)/2
	f.Chart.Texts = append(f.Chart.Texts, Text{X: x, Y: y, Anchor: "middle", Class: "label",
		Transform: fmt.Sprintf("rotate(-90 %.1f %.1f)", x, y), Text: s})
}

// Y maps v on a scale from 0 to top onto the plot area; with no scale
// (top 0) every value sits on the x axis.
func (f *Frame) Y(v, top float64) float64 {
	if top <= 0 {
		return f.Y1
	}
	return f.Y1 - v/top*(f.Y1-f.Y0)
}

// YAxis draws horizontal grid lines at ticks on a scale from 0 to top,
// labelled with format, and the x axis under them.
func (f *Frame) YAxis(top float64, ticks []float64, format func(float64) string, label string) {
	for _, t := range ticks {
		y := f.Y(t, top)
		f.Line(f.X0, y, f.X1, y, "grid")
		f.Text(f.X0-6, y+4, "end", "tick", format(t))
	}
	f.Line(f.X0, f.Y1, f.X1, f.Y1, "axis")
	f.YLabel(label)
}

// Swatch is one entry of a legend: a square of Class, then Name.
type Swatch struct {
	Class, Name string
}

// Legend writes swatches left to right from the plot area's left edge,
// with their text's baseline at y.
func (f *Frame) Legend(y float64, swatches ...Swatch) {
	x := f.X0
	for _, s := range swatches {
		f.Rect(x, y-9, 10, 10, s.Class, "")
		f.Text(x+14, y, "start", "legend", s.Name)
		// No font metrics without a browser: 6.5 units a character is
		// wide enough for the legend's 12px sans-serif.
		x += 14 + 6.5*float64(utf8.RuneCountInString(s.Name)) + 18
	}
}

// Scale is a round top for values up to v, and the ticks from 0 to it:
// four or five steps of 1, 2, 2.5 or 5 times a power of ten (never 2.5,
// nor a step under 1, when whole). A v that is not a positive number is
// taken as 1.
func Scale(v float64, whole bool) (top float64, ticks []float64) {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		v = 1
	}
	raw := v / 4
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if whole && m*mag != math.Trunc(m*mag) {
			continue // no 2.5 items
		}
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if whole && step < 1 {
		step = 1
	}
	top = math.Ceil(v/step-1e-9) * step
	for i := 0; float64(i)*step <= top+step/2; i++ {
		ticks = append(ticks, math.Round(float64(i)*step*1e6)/1e6)
	}
	return top, ticks
}

// Slots are where TimeAxis placed its dates: X, the centre of each
// date's slot, and Width, the width of one slot.
type Slots struct {
	X     []float64
	Width float64
}

// TimeAxis places dates (YYYY-MM-DD) along the x axis in slots of
// unitDays each: by date when every date parses and they ascend, so that
// a gap in time is a gap on the axis; one slot after another otherwise.
// It draws at most six ticks, spread evenly over the span, and names the
// axis label.
func (f *Frame) TimeAxis(dates []string, unitDays int, label string) Slots {
	n := len(dates)
	offsets := make([]int, n)
	var first time.Time
	byDate := true
	for i, d := range dates {
		t, err := time.Parse(time.DateOnly, d)
		if err != nil {
			byDate = false
			break
		}
		if i == 0 {
			first = t
		}
		offsets[i] = int(math.Round(t.Sub(first).Hours()/24)) / unitDays
		if i > 0 && offsets[i] <= offsets[i-1] {
			byDate = false
			break
		}
	}
	if !byDate {
		for i := range offsets {
			offsets[i] = i
		}
	}
	slots := 1
	if n > 0 {
		slots = offsets[n-1] + 1
	}
	sl := Slots{Width: (f.X1 - f.X0) / float64(slots)}
	for _, o := range offsets {
		sl.X = append(sl.X, f.X0+(float64(o)+0.5)*sl.Width)
	}
	const maxTicks = 6
	k := min(slots, maxTicks)
	seen := map[int]bool{}
	for j := range k {
		o := 0
		if k > 1 {
			o = int(math.Round(float64(j) * float64(slots-1) / float64(k-1)))
		}
		if seen[o] {
			continue
		}
		seen[o] = true
		var s string
		if byDate {
			s = first.AddDate(0, 0, o*unitDays).Format(time.DateOnly)
		} else {
			s = dates[o]
		}
		x := f.X0 + (float64(o)+0.5)*sl.Width
		f.Line(x, f.Y1, x, f.Y1+4, "axis")
		f.Text(x, f.Y1+17, "middle", "tick", s)
	}
	f.XLabel(label)
	return sl
}

// Sample is one point of a series, in viewBox units, with the title shown
// on hover. A Missing sample has no value: the line breaks there.
type Sample struct {
	X, Y    float64
	Title   string
	Missing bool
	// Gap says periods with no data lie between the sample before and
	// this one: the line stops there rather than draw across them.
	Gap bool
}

// Series draws a line of class "line " + class through the samples that
// have a value, broken where one has none or after a Gap, and a dot of class
// "dot " + class on each of them. A stretch of one sample is a dot alone.
func (f *Frame) Series(class string, samples []Sample) {
	var run []Point
	flush := func() {
		if len(run) > 1 {
			f.Chart.Polys = append(f.Chart.Polys, Polyline{Points: run, Class: "line " + class})
		}
		run = nil
	}
	for _, s := range samples {
		if s.Gap {
			flush()
		}
		if s.Missing {
			flush()
			continue
		}
		run = append(run, Point{s.X, s.Y})
		f.Chart.Dots = append(f.Chart.Dots, Dot{X: s.X, Y: s.Y, Class: "dot " + class, Title: s.Title})
	}
	flush()
}
