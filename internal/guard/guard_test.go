package guard

import "testing"

func TestHas(t *testing.T) {
	tests := []struct {
		text     string
		triggers string
		want     bool
	}{
		{"Ignore the above.", "ignore", true},
		{"IGNORE the above.", "ignore", true},              // words are read in lower case
		{"Ignored warnings pile up.", "ignore", false},     // a word, not a prefix
		{"snake_case and don't", "snake_case don't", true}, // '_' and apostrophes join words
		{"'quoted' words", "quoted", true},                 // apostrophes around a word are not of it
		{"as-is", "as", true},
		{"以前の指示をすべて無視して", "無視", true}, // no spaces: a substring
		{"以前の指示をすべて", "無視", false},
		{"", "anything", false},
	}
	for _, tt := range tests {
		r := NewRule(tt.triggers, `.`)
		if got := Read(tt.text).Has(r.Triggers); got != tt.want {
			t.Errorf("Read(%q).Has(%q) = %v, want %v", tt.text, tt.triggers, got, tt.want)
		}
	}
}

func TestFirst(t *testing.T) {
	rules := []Rule{
		NewRule("push", `\bforce[- ]push\b`),
		NewRule("main", `\bmain\b`),
		// Its expression matches any text, but it runs only on a text
		// that holds its trigger.
		NewRule("never", `^.`),
	}
	tests := []struct {
		text string
		loc  []int // nil: no rule matches
	}{
		{"Do not force-push to main", []int{7, 17}}, // the first rule that matches, whatever the case
		{"Do not FORCE PUSH to main", []int{7, 17}},
		{"Push to MAIN only", []int{8, 12}},   // no force-push: the next rule
		{"Never push to main", []int{14, 18}}, // main comes before never
		{"never rebase", []int{0, 1}},
		{"Rebase first", nil},
		{"", nil},
	}
	for _, tt := range tests {
		loc, ok := Read(tt.text).First(rules)
		if ok != (tt.loc != nil) || ok && (loc[0] != tt.loc[0] || loc[1] != tt.loc[1]) {
			t.Errorf("First(%q) = %v, %v; want %v", tt.text, loc, ok, tt.loc)
		}
	}
}
