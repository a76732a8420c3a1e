package shellcmd

import (
	"strings"
	"testing"
)

// FuzzSplit checks that the splitter survives any command line, and that
// what it returns comes from the line: no word longer than the line, no
// empty command, and Program naming no more than the line holds.
func FuzzSplit(f *testing.F) {
	f.Add("cd x && go test ./... 2>&1 | tail; cat <<'EOF'\nx\nEOF\n")
	f.Add(`a "b\" c' | (d`)
	f.Add("{ make; } > log 2>&1 & echo ${HOME}/x | tee -a out")
	f.Add("sudo -E timeout 5m npx -p pkg tsc <<- 'A' && uv run --frozen pytest\nbody\n\tA\n")
	f.Fuzz(func(t *testing.T, line string) {
		for _, c := range Split(line) {
			if len(c.Words) == 0 {
				t.Fatalf("Split(%q): an empty command", line)
			}
			for _, w := range c.Words {
				if len(w) > len(line) {
					t.Fatalf("Split(%q): word %q", line, w)
				}
			}
			Unwrap(c.Words)
			Launched(c.Words)
		}
		if p := Program(line); len(p) > len(line)+8 {
			t.Fatalf("Program(%q) = %q", line, p)
		}
		if strings.Trim(line, " \t\n") == "" && Program(line) != "" {
			t.Fatalf("Program(%q) = %q", line, Program(line))
		}
	})
}
