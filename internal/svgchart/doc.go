// Package svgchart draws small charts as inline SVG for a self-contained
// page: no script and no style of its own, so the page's CSS colours the
// charts by class and one page can follow the light and dark schemes.
//
// It knows nothing of what it draws. A Frame places lines, bars, labels,
// axes and series of samples in a viewBox; Chart.SVG writes the markup,
// escaped as html/template escapes it, ready to put inside an HTML page.
// The classes it writes itself, for the page to style: axis, grid, tick,
// label, legend, line, dot and nodata; every other class is the caller's.
package svgchart
