package measure

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const xssSignature = `<script>alert(1)</script> in "render"`

var dashboardCharts = []string{"velocity", "recurrence", "hit-rate", "first-try", "would-have-known", "cost", "journal-attempts", "journal-success"}

// sampleMetrics is six weeks of a busy repository, with a hostile
// signature among the known errors.
func sampleMetrics() Metrics {
	day := func(d int) string { return time.Date(2026, 2, 2+d, 0, 0, 0, 0, time.UTC).Format(time.DateOnly) }
	week := func(w int) string { return day(7 * w) }
	m := Metrics{
		GeneratedAt: time.Date(2026, 3, 16, 9, 30, 0, 0, time.UTC),
		Since:       "2026-02-01",
		Repo:        "acme/widgets",
		Sessions:    240,
		Velocity: Velocity{
			ItemsPerDay: 3.4, ItemsPerMillionTokens: 4.25, Items: 143, HarvestedTokens: 33_600_000,
		},
		Coverage: Coverage{Sessions: 240, SessionsHarvested: 180, Repos: 5, ReposHarvested: 4, Share: 0.75},
		HitRate:  HitRate{Boots: 60, Injected: 300, Cited: 45, ActedOn: 81, Rate: 0.42},
		Recurrence: Recurrence{
			SessionsWithErrors: 120, SessionsHitKnown: 21, Rate: 0.175,
		},
		FirstTry: FirstTry{Sessions: 200, Succeeded: 124, Rate: 0.62},
		Outcomes: map[string]int{"success": 150, "failure": 40, "aborted": 10, "unknown": 40},
		Knowledge: Knowledge{
			Active: 120, Candidates: 23, MedianAgeDays: 18.5, StaleShare: 0.05,
			ByCategory: map[string]int{"pitfall": 50, "command": 40, "convention": 30},
		},
		WouldHaveKnown: WouldHaveKnown{
			Sessions: 240, Errors: 310, Known: 105, Delivered: 62, KnownRate: 105.0 / 310, DeliveredRate: 62.0 / 310,
		},
	}
	m.Verdict = verdict(m)
	for d := range 42 {
		if d%6 == 5 {
			continue // days without new items
		}
		m.Velocity.Days = append(m.Velocity.Days, Day{Date: day(d), Items: 1 + (d*7)%9})
	}
	for w := range 6 {
		m.FirstTry.Weeks = append(m.FirstTry.Weeks, Rate{Week: week(w), N: 30 + w, Rate: 0.5 + 0.04*float64(w)})
		m.WouldHaveKnown.Weeks = append(m.WouldHaveKnown.Weeks, Known{
			Week: week(w), Errors: 40 + 5*w, KnownRate: 0.1 + 0.07*float64(w), DeliveredRate: 0.05 + 0.05*float64(w),
		})
		m.PerSession = append(m.PerSession, Period{
			Week: week(w), Sessions: 38 + w, MedianTokens: int64(92_000 - 6_000*w), MedianMinutes: 21.5 - 1.5*float64(w),
			SessionsWithTokens: 36 + w, SessionsWithMinutes: 38 + w,
		})
	}
	m.Journal = Journal{Attempts: 64, Succeeded: 40, Failed: 15, RolledBack: 5, Pending: 4, SuccessRate: 40.0 / 60,
		Areas: []Failing{{Name: "parser", Failures: 9, Attempts: 20}},
		Files: []Failing{{Name: "internal/parse/lexer.go", Failures: 7, Attempts: 12}, {Name: xssSignature, Failures: 1, Attempts: 1}}}
	for w := range 6 {
		m.Journal.Weeks = append(m.Journal.Weeks, JournalWeek{Week: week(w), Attempts: 8 + w, Ended: 8 + w, SuccessRate: 0.5 + 0.05*float64(w)})
	}
	m.Journal.Weeks[2].Ended, m.Journal.Weeks[2].SuccessRate = 0, 0 // only pending attempts that week
	// A week with no sessions: its point is left out of the lines.
	m.FirstTry.Weeks[3].N, m.FirstTry.Weeks[3].Rate = 0, 0
	// Sessions with no time: in the tables, not on a time axis.
	m.FirstTry.Weeks = append(m.FirstTry.Weeks, Rate{Week: "unknown", N: 3, Rate: 1})
	m.PerSession = append(m.PerSession, Period{Week: "unknown", Sessions: 3})
	// Sessions that met errors, one a week: the error was taught in the
	// first, known from the second on but for the fourth, and delivered
	// from the third.
	for w := range 6 {
		started := time.Date(2026, 2, 3+7*w, 10, 0, 0, 0, time.UTC)
		known := w > 0 && w != 3
		e := ReplayedError{Signature: "go: cannot find main module", Known: known, Delivered: known && w > 1}
		if known {
			e.ItemID = "a338f3117b2c"
		}
		m.WouldHaveKnown.BySession = append(m.WouldHaveKnown.BySession, ReplayedSession{
			Session: fmt.Sprintf("claude-code:s%d", w), StartedAt: &started, Repo: "acme/widgets", Agent: "claude-code",
			Errors: []ReplayedError{e, {Signature: xssSignature}},
		})
	}
	// Sessions with no time are replayed first; this one met what an
	// earlier one without a time had taught.
	m.WouldHaveKnown.BySession = append([]ReplayedSession{{
		Session: "aider:undated", Repo: "widgets", Agent: "aider",
		Errors: []ReplayedError{{Signature: "make: *** no rule", Known: true, ItemID: "b1", Delivered: false}},
	}}, m.WouldHaveKnown.BySession...)
	for i := range 12 {
		sig := fmt.Sprintf("exit status %d: go test ./pkg%d/...", i+1, i)
		if i == 2 {
			sig = xssSignature
		}
		if i == 4 {
			sig = "HTTP 405 Method Not Allowed | push to protected branch main " + strings.Repeat("refused ", 12)
		}
		m.Recurrence.Signatures = append(m.Recurrence.Signatures, SignatureRecurrence{
			Signature:  sig,
			KnownSince: time.Date(2026, 2, 10+i, 14, 0, 0, 0, time.UTC),
			Before:     12 - i, After: (12 - i) / 4,
			BeforePerWeek: float64(12-i) / 1.5, AfterPerWeek: float64((12-i)/4) / 4.5,
		})
	}
	return m
}

func TestWriteDashboard(t *testing.T) {
	tests := []struct {
		name    string
		metrics Metrics
		md      []string // must appear in dashboard.md
		empty   bool
	}{
		{
			name:    "data",
			metrics: sampleMetrics(),
			md: []string{
				"| Knowledge velocity | 3.4 items/day |", "| Coverage | 75% |", "| Hit rate | 42% |",
				"| Error recurrence | 18% |", "| First-try success | 62% |", "| Outcomes | 62% success |",
				"| Would have known | 34% |", "| Would have delivered | 20% |",
				`\<script\>alert(1)\</script\>`, "repo acme/widgets · since 2026-02-01",
				"| unknown | 3 | 100% |", "| unknown | 3 | no data | no data |",
				"| 2026-03-10 | claude-code:s5 | acme/widgets | claude-code | 2 | 1 | 1 |",
				"| — | aider:undated | widgets | aider | 1 | 1 | 0 |",
				"62,000 tokens, 14.0 minutes (43 sessions)",
				"| 2026-02-02 | 8 | 8 | 50% |", "| file | internal/parse/lexer.go | 7 | 12 |", "| area | parser | 9 | 20 |",
			},
		},
		{
			name:    "empty",
			metrics: Metrics{GeneratedAt: time.Date(2026, 3, 16, 9, 30, 0, 0, time.UTC)},
			md: []string{
				"| Knowledge velocity | no data |", "| Coverage | no data |", "| Hit rate | no data |",
				"| Error recurrence | no data |", "| First-try success | no data |", "| Outcomes | no data |",
				"| Would have known | no data |", "| Would have delivered | no data |", "all repositories · all time",
			},
			empty: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "metrics")
			if err := WriteDashboard(dir, tt.metrics); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{DashboardMarkdown, DashboardHTML, DashboardJSON}; !slices.Equal(names, want) {
				t.Errorf("files = %q, want %q (no temporary files left)", names, want)
			}

			js, err := os.ReadFile(filepath.Join(dir, DashboardJSON))
			if err != nil {
				t.Fatal(err)
			}
			var back Metrics
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tt.metrics) {
				t.Errorf("metrics.json does not round-trip:\n got %+v\nwant %+v", back, tt.metrics)
			}

			md := readFile(t, filepath.Join(dir, DashboardMarkdown))
			checkGolden(t, filepath.Join("testdata", "dashboard", tt.name+".md"), md)
			for _, s := range tt.md {
				if !strings.Contains(md, s) {
					t.Errorf("dashboard.md lacks %q", s)
				}
			}
			if strings.Contains(md, "<script>") {
				t.Error("dashboard.md holds an unescaped <script>")
			}
			if tt.empty && strings.Contains(md, "%") {
				t.Error("dashboard.md gives a percentage with no data behind it")
			}

			page := readFile(t, filepath.Join(dir, DashboardHTML))
			checkGolden(t, filepath.Join("testdata", "dashboard", tt.name+".html"), page)
			checkPage(t, page, tt.empty)
			if !tt.empty {
				if strings.Contains(page, "<script>alert") {
					t.Error("index.html holds the signature's <script> unescaped")
				}
				if n := strings.Count(page, "3 sessions without a date not drawn"); n != 2 {
					t.Errorf("index.html says %d times that undated sessions are not drawn, want 2 (first-try, cost)", n)
				}
				if n := strings.Count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 2 {
					t.Errorf("escaped signature appears %d times in index.html, want it in the chart and the table", n)
				}
			}
		})
	}
}

// checkPage checks what every index.html must be: six charts, each an
// svg with a title, and nothing fetched from anywhere.
func checkPage(t *testing.T, page string, empty bool) {
	t.Helper()
	charts := chartsOf(page)
	var ids []string
	for id := range charts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	want := slices.Sorted(slices.Values(dashboardCharts))
	if !slices.Equal(ids, want) {
		t.Errorf("data-chart elements = %q, want %q", ids, want)
	}
	for id, body := range charts {
		if !strings.Contains(body, "<svg") || !strings.Contains(body, "<title") || !strings.Contains(body, "</svg>") {
			t.Errorf("chart %s has no svg with a title", id)
		}
		if got := strings.Contains(body, "no data yet"); got != empty {
			t.Errorf("chart %s: \"no data yet\" shown = %v, want %v", id, got, empty)
		}
	}
	lower := strings.ToLower(page)
	for _, s := range []string{"http://", "https://", "src=", "href=", "url(", "@import", "<script", "<link", "<img", "<iframe"} {
		if strings.Contains(lower, s) {
			t.Errorf("index.html contains %q: the page must not load anything", s)
		}
	}
}

// chartsOf maps each data-chart name of a page to the markup inside its
// element.
func chartsOf(page string) map[string]string {
	charts := map[string]string{}
	const attr = `data-chart="`
	for rest := page; ; {
		i := strings.Index(rest, attr)
		if i < 0 {
			return charts
		}
		rest = rest[i+len(attr):]
		id, body, _ := strings.Cut(rest, `"`)
		body, _, _ = strings.Cut(body, "</figure>")
		charts[id] = body
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Dashboard -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file %s (go test -run Dashboard -update rewrites it):\n%s", filepath.Base(path), path, got)
	}
}

func TestWriteDashboardReplaces(t *testing.T) {
	dir := t.TempDir()
	if err := WriteDashboard(dir, sampleMetrics()); err != nil {
		t.Fatal(err)
	}
	if err := WriteDashboard(dir, Metrics{}); err != nil {
		t.Fatal(err)
	}
	if md := readFile(t, filepath.Join(dir, DashboardMarkdown)); !strings.Contains(md, "| Hit rate | no data |") {
		t.Errorf("second write did not replace dashboard.md:\n%s", md)
	}
	if err := WriteDashboard(filepath.Join(dir, DashboardJSON, "x"), Metrics{}); err == nil {
		t.Error("writing under a file succeeded")
	}
}

func TestDashboardFormats(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Percent(0), "0%"},
		{Percent(0.004), "<1%"},
		{Percent(0.995), ">99%"},
		{Percent(1), "100%"},
		{Percent(0.175), "18%"},
		{dashInt(0), "0"},
		{dashInt(999), "999"},
		{dashInt(1234567), "1,234,567"},
		{dashInt(-1234), "-1,234"},
		{ShortTokens(950), "950"},
		{ShortTokens(12_000), "12k"},
		{ShortTokens(12_345), "12.3k"},
		{ShortTokens(4_500_000), "4.5M"},
		{Decimal(3.44), "3.4"},
		{Decimal(1234.5), "1,235"},
		{Decimal(0), "0.0"},
		{Decimal(0.006), "0.006"},
		{Decimal(0.0095), "0.0095"},
		{dashWeekOf("2026-03-16"), "2026-03-16"}, // a Monday
		{dashWeekOf("2026-03-22"), "2026-03-16"}, // the Sunday after it
		{dashWeekOf("not a date"), "not a date"},
		{dashMD("a | b\n<c>"), `a \| b \<c\>`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestDashboardBrowser opens index.html in a headless Chromium: it must
// load without a console message, show every chart, and paint more than a
// blank page. It needs chromium, chromium-browser or google-chrome on
// PATH, or LORE_TEST_BROWSER naming the binary (then a missing browser
// fails the test instead of skipping it).
func TestDashboardBrowser(t *testing.T) {
	browser := testenv.Browser(t)

	dir := t.TempDir()
	if err := WriteDashboard(dir, sampleMetrics()); err != nil {
		t.Fatal(err)
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, DashboardHTML))}).String()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()

	shot := filepath.Join(dir, "screenshot.png")
	_, stderr := runBrowser(ctx, t, browser, dir,
		"--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir="+filepath.Join(dir, "profile-shot"),
		"--screenshot="+shot, "--window-size=1280,2000", page)
	checkConsole(t, stderr)
	checkScreenshot(t, shot)

	dom, stderr := runBrowser(ctx, t, browser, dir,
		"--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir="+filepath.Join(dir, "profile-dom"),
		"--enable-logging=stderr", "--v=0", "--dump-dom", page)
	checkConsole(t, stderr)
	charts := chartsOf(dom)
	for _, id := range dashboardCharts {
		if !strings.Contains(charts[id], "<svg") {
			t.Errorf("the DOM Chromium loaded has no svg in data-chart=%q", id)
		}
	}
	if len(charts) != len(dashboardCharts) {
		t.Errorf("the DOM Chromium loaded has %d charts, want %d", len(charts), len(dashboardCharts))
	}
}

func runBrowser(ctx context.Context, t *testing.T, browser, dir string, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, browser, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t.Logf("%s %s", browser, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v (context: %v)\n%s", filepath.Base(browser), err, ctx.Err(), errOut.String())
	}
	return out.String(), errOut.String()
}

// checkConsole fails on anything the page said on the console, and on
// script errors: the page has no script, so any of them is a fault. The
// rest of Chromium's log (D-Bus, GPU) is about the machine, not the page.
func checkConsole(t *testing.T, stderr string) {
	t.Helper()
	for line := range strings.Lines(stderr) {
		for _, bad := range []string{"CONSOLE", "Uncaught", "SyntaxError", "TypeError", "ReferenceError", "Content Security Policy"} {
			if strings.Contains(line, bad) {
				t.Errorf("browser log: %s", strings.TrimSpace(line))
				break
			}
		}
	}
}

// checkScreenshot wants a 1280×2000 PNG with many colours, and with the
// chart colour (light or dark scheme) filling bars.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Errorf("screenshot is %dx%d, want 1280x2000", b.Dx(), b.Dy())
	}
	colours := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	chart := colours[[3]uint32{0x25, 0x63, 0xeb}] + colours[[3]uint32{0x74, 0xa7, 0xff}]
	t.Logf("screenshot %dx%d, %d distinct colours, %d pixels of the chart colour", b.Dx(), b.Dy(), len(colours), chart)
	if len(colours) < 50 {
		t.Errorf("screenshot has %d distinct colours: the page looks blank", len(colours))
	}
	if chart < 1000 {
		t.Errorf("screenshot has %d pixels of the chart colour: the charts did not paint", chart)
	}
}

// TestDashboardImprove: the rounds of lore improve are a chart, a table
// and metrics.json's improve; without them the page has no such chart.
func TestDashboardImprove(t *testing.T) {
	dir := t.TempDir()
	m := sampleMetrics()
	at := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	m.Improve = []ImprovePoints{{1, at, 6, 10, "rolled-back"}, {2, at.Add(time.Hour), 8, 10, "kept"}, {3, at.Add(2 * time.Hour), 10, 10, "kept"}}
	if err := WriteDashboard(dir, m); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(dir, DashboardHTML))
	for _, w := range []string{`data-chart="improve"`, "10 of 10 points after 3 rounds (2 kept), from 6.", "round 2 (kept): 8 of 10 points"} {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if md := readFile(t, filepath.Join(dir, DashboardMarkdown)); !strings.Contains(md, "| 2 | 2026-11-28 03:00 | kept | 8/10 |") {
		t.Errorf("dashboard.md:\n%s", md)
	}
	if js := readFile(t, filepath.Join(dir, DashboardJSON)); !strings.Contains(js, `"improve":[{"round":1`) && !strings.Contains(js, `"improve": [`) {
		t.Errorf("metrics.json has no improve")
	}
	if err := WriteDashboard(dir, sampleMetrics()); err != nil {
		t.Fatal(err)
	}
	if page := readFile(t, filepath.Join(dir, DashboardHTML)); strings.Contains(page, `data-chart="improve"`) {
		t.Error("a dashboard without rounds has the improve chart")
	}
}

// TestDashboardSplitsAndHoldout: the page splits the main figures by agent
// and repository where the sessions mix several, and shows the holdout's
// two arms with their intervals when sessions were held out.
func TestDashboardSplitsAndHoldout(t *testing.T) {
	m := sampleMetrics()
	m.ByAgent = []Split{
		{Name: "claude-code", Sessions: 30, ToolSessions: 20, FirstTryRate: 0.65, SessionsWithErrors: 10, RecurrenceRate: 0.2, Injected: 40, Used: 12, HitRate: 0.3},
		{Name: "<script>x</script>", Sessions: 3},
	}
	m.ByRepo = []Split{{Name: "acme/widgets", Sessions: 33}}
	m.Holdout = Holdout{
		Treated:  Arm{Sessions: 27, MetKnown: 3, KnownRate: Interval{0.11, 0.04, 0.28}, ToolSessions: 20, FirstTry: 13, FirstTryRate: Interval{0.65, 0.43, 0.82}, MedianTokens: 52000},
		Withheld: Arm{Sessions: 3, MetKnown: 1, KnownRate: Interval{0.33, 0.06, 0.79}},
	}
	dir := filepath.Join(t.TempDir(), "metrics")
	if err := WriteDashboard(dir, m); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, DashboardHTML))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<h2>By agent</h2>", "claude-code", "65% of 20", "20% of 10", "30% of 40",
		"&lt;script&gt;x&lt;/script&gt;", "Holdout: sessions with notes against sessions held out",
		"3 of 27 (11%, 4%–28%)", "1 of 3 (33%, 6%–79%)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<h2>By repository</h2>") {
		t.Errorf("a split of one repository is shown")
	}
	if strings.Contains(page, "<script>x") {
		t.Errorf("an agent's name is not escaped")
	}
}
