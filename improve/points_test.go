package improve

import (
	"strings"
	"testing"
)

func TestParsePoints(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Points
		err      string
	}{
		{name: "lines", in: "Edit Success: 18/24\nFile Discovery: 12/12\nTOTAL: 30/36\n",
			want: Points{"Edit Success": {18, 24}, "File Discovery": {12, 12}}},
		{name: "no total", in: "# comment\n\na: 1.5/2\n", want: Points{"a": {1.5, 2}}},
		{name: "json", in: `{"areas":{"edit_success":{"points":18,"max":24},"x":{"points":0,"max":1}}}`,
			want: Points{"edit_success": {18, 24}, "x": {0, 1}}},
		{name: "total wrong", in: "a: 1/2\nb: 1/2\nTOTAL: 3/4\n", err: "line 3: TOTAL 3/4 is not the sum of the areas, 2/4"},
		{name: "junk line", in: "a: 1/2\nall good!\n", err: `line 2 "all good!": want NAME: P/MAX`},
		{name: "percent", in: "a: 50%\n", err: `line 1 "a: 50%"`},
		{name: "above max", in: "a: 3/2\n", err: "outside 0..2"},
		{name: "zero max", in: "a: 0/0\n", err: "max 0"},
		{name: "twice", in: "a: 1/2\na: 1/2\n", err: "given twice"},
		{name: "empty", in: "  \n", err: "printed nothing"},
		{name: "only total", in: "TOTAL: 1/2\n", err: "no area"},
		{name: "json no max", in: `{"areas":{"a":{"points":1}}}`, err: `area "a" needs points and max`},
		{name: "json bad", in: `{"areas":`, err: "bench JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePoints([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	before := Points{"a": {1, 5}, "b": {3, 5}}
	for _, tc := range []struct {
		name   string
		after  Points
		better bool
		reason string
	}{
		{"rose", Points{"a": {2, 5}, "b": {3, 5}}, true, "total rose 4→5"},
		{"same", Points{"a": {1, 5}, "b": {3, 5}}, false, "total did not rise"},
		{"one fell", Points{"a": {5, 5}, "b": {2, 5}}, false, "b fell 3→2"},
		{"gone", Points{"a": {5, 5}}, false, "b is gone"},
		{"new area ignored", Points{"a": {2, 5}, "b": {3, 5}, "c": {0, 9}}, true, "total rose"},
	} {
		v := Judge(before, tc.after)
		if v.Better != tc.better || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%s: %+v, want better=%v reason ~%q", tc.name, v, tc.better, tc.reason)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		want       bool
	}{
		{"**", "a/b/c.go", true},
		{"*_test.go", "pkg/x_test.go", true},
		{"*_test.go", "pkg/x.go", false},
		{"testdata/", "pkg/testdata/in.txt", true},
		{"bench/*.sh", "bench/score.sh", true},
		{"bench/*.sh", "bench/sub/score.sh", false},
		{"bench/**", "bench/sub/score.sh", true},
		{"src/**/x.go", "src/x.go", true},
		{"src/**/x.go", "src/a/b/x.go", true},
		{".lore/", ".lore/state", true},
		{"src/alpha.txt", "src/alpha.txt", true},
		{"src/alpha.txt", "x/src/alpha.txt", false},
	} {
		g, err := CompileGlob(tc.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(tc.path); got != tc.want {
			t.Errorf("%q matches %q: %v, want %v", tc.glob, tc.path, got, tc.want)
		}
	}
}

func FuzzParsePoints(f *testing.F) {
	f.Add([]byte("a: 1/2\nTOTAL: 1/2\n"))
	f.Add([]byte(`{"areas":{"a":{"points":1,"max":2}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePoints(b)
		if err != nil {
			return
		}
		for n, a := range p {
			if a.Max <= 0 || a.Points < 0 || a.Points > a.Max {
				t.Fatalf("area %q: %v accepted", n, a)
			}
		}
	})
}
