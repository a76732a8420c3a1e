package svgchart

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// Chart is one drawing: shapes in a W×H viewBox from 0,0. The shapes are
// drawn in order: lines, then rectangles, polylines, dots and texts, so
// that labels stay readable over bars and grid lines under them.
type Chart struct {
	// ID names the chart in the page: its title element gets the id
	// chart-ID-title, which the svg is labelled by.
	ID string
	// Title is what the svg is, for screen readers.
	Title string
	W, H  float64

	Lines []Line
	Rects []Rect
	Polys []Polyline
	Dots  []Dot
	Texts []Text

	// Empty says "no data yet" at EmptyX, EmptyY, over whatever else is
	// drawn.
	Empty          bool
	EmptyX, EmptyY float64
}

// Line is a straight line.
type Line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

// Rect is a rectangle, with a title shown on hover when it has one.
type Rect struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// Point is a place in the viewBox.
type Point struct{ X, Y float64 }

// Polyline is a line through points.
type Polyline struct {
	Points []Point
	Class  string
}

// Dot is a small circle with a title shown on hover.
type Dot struct {
	X, Y  float64
	Class string
	Title string
}

// Text is a label. Anchor is the SVG text-anchor (start, middle, end),
// and Transform an SVG transform; either may be empty.
type Text struct {
	X, Y      float64
	Anchor    string
	Class     string
	Transform string
	Text      string
}

// SVG writes the chart as an svg element. Every text and attribute value
// is escaped by html/template, so any string in a chart is safe in the
// page.
func (c *Chart) SVG() (template.HTML, error) {
	var b bytes.Buffer
	if err := svgTemplate.Execute(&b, c); err != nil {
		return "", fmt.Errorf("render chart %s: %w", c.ID, err)
	}
	// html/template escaped every value written into the markup.
	return template.HTML(b.String()), nil
}

var svgTemplate = template.Must(template.New("svg").Funcs(template.FuncMap{
	"f":      number,
	"points": points,
}).Parse(svgText))

// number writes a coordinate with one decimal: a tenth of a unit is
// finer than a screen shows.
func number(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// points writes the points attribute of a polyline.
func points(ps []Point) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = number(p.X) + "," + number(p.Y)
	}
	return strings.Join(s, " ")
}

const svgText = `<svg viewBox="0 0 {{f .W}} {{f .H}}" role="img" aria-labelledby="chart-{{.ID}}-title">
<title id="chart-{{.ID}}-title">{{.Title}}</title>
{{- range .Lines}}
<line class="{{.Class}}" x1="{{f .X1}}" y1="{{f .Y1}}" x2="{{f .X2}}" y2="{{f .Y2}}"/>
{{- end}}
{{- range .Rects}}
<rect class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}" width="{{f .W}}" height="{{f .H}}">{{with .Title}}<title>{{.}}</title>{{end}}</rect>
{{- end}}
{{- range .Polys}}
<polyline class="{{.Class}}" points="{{points .Points}}"/>
{{- end}}
{{- range .Dots}}
<circle class="{{.Class}}" cx="{{f .X}}" cy="{{f .Y}}" r="3.5"><title>{{.Title}}</title></circle>
{{- end}}
{{- range .Texts}}
<text class="{{.Class}}" x="{{f .X}}" y="{{f .Y}}"{{with .Anchor}} text-anchor="{{.}}"{{end}}{{with .Transform}} transform="{{.}}"{{end}}>{{.Text}}</text>
{{- end}}
{{- if .Empty}}
<text class="nodata" x="{{f .EmptyX}}" y="{{f .EmptyY}}" text-anchor="middle">no data yet</text>
{{- end}}
</svg>`
