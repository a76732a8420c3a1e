package errsig

import (
	"fmt"
	"strings"
	"testing"
)

// benchOutputs are outputs of about 30 KB shaped like real failed tool
// results: a verbose go test run with one failure, a pnpm/vitest run, a
// Python traceback after a long log, and a tree listing.
func benchOutputs() map[string]string {
	var goTest strings.Builder
	goTest.WriteString("Exit code 1\n")
	for i := 0; goTest.Len() < 30<<10; i++ {
		fmt.Fprintf(&goTest, "=== RUN   TestStore_Add_%d\n    store_test.go:%d: added item %d with id 0x%08x in 0.%03ds\n--- PASS: TestStore_Add_%d (0.00s)\n", i, 40+i, i, i*7919, i%1000, i)
		if i == 150 {
			goTest.WriteString("    store_test.go:212: Add() returned error: unique constraint failed: items.id\n--- FAIL: TestStore_AddDuplicate (0.01s)\n")
		}
	}
	goTest.WriteString("FAIL\nFAIL\tgithub.com/lorehq/lore/sqlite\t0.441s\nFAIL\n")

	var vitest strings.Builder
	vitest.WriteString("failed in sandbox: \n")
	for i := 0; vitest.Len() < 28<<10; i++ {
		fmt.Fprintf(&vitest, "stdout | hooks/useThing%d.test.tsx > useThing > loads item %d\n[useThing] Loaded %d sessions from database\n\n ✓ hooks/useThing%d.test.tsx (3 tests) %dms\n", i, i, i, i, i%90)
	}
	vitest.WriteString("\n⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n FAIL  hooks/useSessionSync.test.tsx > useSessionSync > resetProgress surfaces errors\nAssertionError: expected null to be 'reset failed' // Object.is equality\n ❯ hooks/useSessionSync.test.tsx:173:36\n    171|       await result.current.resetProgress()\n\n Test Files  1 failed | 10 passed (11)\n      Tests  1 failed | 27 passed (29)\n")

	var py strings.Builder
	for i := 0; py.Len() < 29<<10; i++ {
		fmt.Fprintf(&py, "2026-01-31 07:20:%02d,%03d INFO worker.%d processed batch %d of 4096 (%d rows) in 0.%02ds\n", i%60, i%1000, i%8, i, i*31, i%100)
	}
	py.WriteString("Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 12, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'\n")

	var tree strings.Builder
	tree.WriteString("lsd: 3: No such file or directory (os error 2).\n\nDemo\n")
	for i := 0; tree.Len() < 30<<10; i++ {
		fmt.Fprintf(&tree, "│   │   │   ├── component%d.tsx\n│   │   │   └── component%d.test.tsx\n", i, i)
	}
	return map[string]string{"go-test": goTest.String(), "vitest": vitest.String(), "python": py.String(), "tree": tree.String()}
}

func BenchmarkParse(b *testing.B) {
	outs := benchOutputs()
	for _, name := range []string{"go-test", "vitest", "python", "tree"} {
		out := outs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				Parse("Bash", `{"command":"go test ./..."}`, out, nil)
			}
		})
	}
	b.Run("short", func(b *testing.B) {
		out := "Exit code 127\n(eval):1: command not found: pnpm"
		b.ReportAllocs()
		for b.Loop() {
			Parse("Bash", `{"command":"pnpm install"}`, out, nil)
		}
	})
	b.Run("protocol", func(b *testing.B) {
		out := "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
		b.ReportAllocs()
		for b.Loop() {
			Parse("Edit", `{"file_path":"/x/y.go","old_string":"a","new_string":"b"}`, out, nil)
		}
	})
}

// BenchmarkFloor reads the same outputs byte by byte and does nothing
// else: the machine's floor for a pass over memory, to read
// BenchmarkParse against on a shared or slow machine.
func BenchmarkFloor(b *testing.B) {
	out := benchOutputs()["python"]
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		sum := 0
		for i := 0; i < len(out); i++ {
			sum += int(out[i])
		}
		floorSink = sum
	}
}

var floorSink int
