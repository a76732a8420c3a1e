package fixguard

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/gittest"
)

// syntheticHistory builds a repository of n commits with git
// fast-import: 200 Go files, each commit adding a line to one of them
// (and, every 8th, taking an old one out), a quarter of them fixes, a
// tenth of those with a test.
func syntheticHistory(b *testing.B, n int) *gittest.Repo {
	b.Helper()
	r := gittest.New(b)
	const files = 200
	content := make([][]string, files)
	var s bytes.Buffer
	for i := 1; i <= n; i++ {
		f := (i * 7919) % files
		msg := fmt.Sprintf("add value %d to file %d", i, f)
		if i%4 == 0 {
			msg = fmt.Sprintf("fix: value %d of file %d was computed wrong", i, f)
		}
		content[f] = append(content[f], fmt.Sprintf("\tvalue%d := compute(%d, \"file %d\")", i, i*31, f))
		if i%8 == 0 && len(content[f]) > 3 {
			content[f] = content[f][1:]
		}
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", i, 1700000000+i*60, len(msg), msg)
		if i > 1 {
			fmt.Fprintf(&s, "from :%d\n", i-1)
		}
		body := fmt.Sprintf("package p%d\n\nfunc f() {\n%s\n}\n", f, strings.Join(content[f], "\n"))
		fmt.Fprintf(&s, "M 100644 inline pkg%d/file.go\ndata %d\n%s\n", f, len(body), body)
		if i%40 == 0 {
			test := fmt.Sprintf("package p%d\n\nimport \"testing\"\n\nfunc TestValue%d(t *testing.T) {\n\tcheckValue(t, %d)\n}\n", f, i, i)
			fmt.Fprintf(&s, "M 100644 inline pkg%d/value%d_test.go\ndata %d\n%s\n", f, i, len(test), test)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = r.Dir
	cmd.Stdin = &s
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.Git("reset", "-q", "--hard", "main")
	return r
}

// BenchmarkScan scans a history of 10,000 commits (2,500 fixes).
func BenchmarkScan(b *testing.B) {
	r := syntheticHistory(b, 10000)
	repo := open(b, r)
	b.ResetTimer()
	for b.Loop() {
		res, err := Scan(context.Background(), repo, ScanOptions{Repo: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Commits != 10000 || len(res.Guards) != 2500 {
			b.Fatalf("%d commits, %d guards", res.Commits, len(res.Guards))
		}
	}
}

// BenchmarkCheck checks the last commit of that history against its
// 2,500 guards.
func BenchmarkCheck(b *testing.B) {
	r := syntheticHistory(b, 10000)
	repo := open(b, r)
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	var gs []lore.FixGuard = res.Guards
	b.ResetTimer()
	for b.Loop() {
		if _, err := Check(context.Background(), repo, gs, Target{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckHistory checks HEAD of the first repository LORE_HISTORY
// names against the guards of its whole history.
func BenchmarkCheckHistory(b *testing.B) {
	dir, _, _ := strings.Cut(os.Getenv("LORE_HISTORY"), ",")
	if dir == "" {
		b.Skip("set LORE_HISTORY to a repository")
	}
	repo, err := Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Scan(context.Background(), repo, ScanOptions{Repo: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Check(context.Background(), repo, res.Guards, Target{}); err != nil {
			b.Fatal(err)
		}
	}
}
