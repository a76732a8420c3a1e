package svgchart

import (
	"strings"
	"testing"
)

func TestSVG(t *testing.T) {
	tests := []struct {
		name  string
		chart Chart
		want  string
	}{
		{
			name:  "nothing drawn",
			chart: Chart{ID: "c", Title: "A title", W: 640, H: 300},
			want: `<svg viewBox="0 0 640.0 300.0" role="img" aria-labelledby="chart-c-title">
<title id="chart-c-title">A title</title>
</svg>`,
		},
		{
			name: "every shape, in drawing order",
			chart: Chart{
				ID: "all", Title: "t", W: 100, H: 50.25,
				Texts: []Text{{X: 1, Y: 2, Class: "tick", Text: "plain"}, {X: 14, Y: 25, Anchor: "middle", Class: "label", Transform: "rotate(-90 14.0 25.0)", Text: "turned"}},
				Dots:  []Dot{{X: 3.33, Y: 4.44, Class: "dot s1", Title: "a dot"}},
				Polys: []Polyline{{Points: []Point{{1, 2}, {3.05, 4.95}, {-0.5, 6}}, Class: "line s1"}},
				Rects: []Rect{{X: 5, Y: 6, W: 7, H: 8, Class: "bar", Title: "a bar"}, {X: 0, Y: 0, W: 1, H: 1, Class: "swatch"}},
				Lines: []Line{{X1: 0, Y1: 1, X2: 2, Y2: 3, Class: "axis"}},
				Empty: true, EmptyX: 50, EmptyY: 25,
			},
			want: `<svg viewBox="0 0 100.0 50.2" role="img" aria-labelledby="chart-all-title">
<title id="chart-all-title">t</title>
<line class="axis" x1="0.0" y1="1.0" x2="2.0" y2="3.0"/>
<rect class="bar" x="5.0" y="6.0" width="7.0" height="8.0"><title>a bar</title></rect>
<rect class="swatch" x="0.0" y="0.0" width="1.0" height="1.0"></rect>
<polyline class="line s1" points="1.0,2.0 3.0,5.0 -0.5,6.0"/>
<circle class="dot s1" cx="3.3" cy="4.4" r="3.5"><title>a dot</title></circle>
<text class="tick" x="1.0" y="2.0">plain</text>
<text class="label" x="14.0" y="25.0" text-anchor="middle" transform="rotate(-90 14.0 25.0)">turned</text>
<text class="nodata" x="50.0" y="25.0" text-anchor="middle">no data yet</text>
</svg>`,
		},
		{
			name: "hostile strings are escaped as html/template escapes them",
			chart: Chart{
				ID: `x" onload="alert(1)`, Title: `<script>alert(1)</script>`, W: 10, H: 10,
				Rects: []Rect{{Class: `a"b`, Title: `</title><script>&'+`}},
				Texts: []Text{{Class: "c", Anchor: `end"`, Text: `a < b && c > "d" + 'e'`}},
			},
			want: `<svg viewBox="0 0 10.0 10.0" role="img" aria-labelledby="chart-x&#34; onload=&#34;alert(1)-title">
<title id="chart-x&#34; onload=&#34;alert(1)-title">&lt;script&gt;alert(1)&lt;/script&gt;</title>
<rect class="a&#34;b" x="0.0" y="0.0" width="0.0" height="0.0"><title>&lt;/title&gt;&lt;script&gt;&amp;&#39;&#43;</title></rect>
<text class="c" x="0.0" y="0.0" text-anchor="end&#34;">a &lt; b &amp;&amp; c &gt; &#34;d&#34; &#43; &#39;e&#39;</text>
</svg>`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.chart.SVG()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("SVG() =\n%s\nwant\n%s", got, tt.want)
			}
			if strings.Contains(string(got), "<script") {
				t.Error("SVG() holds an unescaped <script")
			}
		})
	}
}
