package improve

import (
	"regexp"
	"strings"
)

// Glob matches repository-relative paths with slashes: * and ? within a
// folder name, ** across folders; a pattern without a slash matches a
// path's last element too (as in .gitignore), and a pattern ending in /
// matches everything under that folder.
type Glob struct {
	pattern string
	re      *regexp.Regexp
}

// CompileGlob compiles a pattern.
func CompileGlob(p string) (Glob, error) {
	p = strings.TrimPrefix(strings.TrimSpace(p), "./")
	if strings.HasSuffix(p, "/") {
		p += "**"
	}
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(strings.TrimSuffix(p, "/**"), "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			i++
			if i+1 < len(p) && p[i+1] == '/' {
				i++
				b.WriteString("(?:.*/)?")
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return Glob{}, err
	}
	return Glob{pattern: p, re: re}, nil
}

// Match says whether path matches.
func (g Glob) Match(path string) bool { return g.re.MatchString(path) }

func (g Glob) String() string { return g.pattern }

// Globs is a list of patterns; a path matches when any matches.
type Globs []Glob

// CompileGlobs compiles every pattern.
func CompileGlobs(ps []string) (Globs, error) {
	var gs Globs
	for _, p := range ps {
		g, err := CompileGlob(p)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// Match says whether any pattern matches path.
func (gs Globs) Match(path string) bool {
	for _, g := range gs {
		if g.Match(path) {
			return true
		}
	}
	return false
}

// DefaultApprove are the paths a change may touch without a person's
// approval when --approve is not given: tests and data.
var DefaultApprove = []string{
	"test/", "tests/", "testdata/", "data/", "__tests__/", "spec/",
	"*_test.go", "*_test.py", "test_*.py", "*.test.js", "*.test.ts", "*.spec.js", "*.spec.ts", "*_spec.rb",
}
