package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lorehq/lore"
)

// corpusDir returns ../shared/corpus/<sub> when the shared corpus is
// present (it is not in a user's clone), else skips the test.
func corpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no shared corpus at %s (only the project's own machines have it)", dir)
	}
	return dir
}

// readPath reads every session in a file or transcript folder, with
// message bodies, and fails the test on error.
func readPath(t testing.TB, path string) []*lore.Session {
	t.Helper()
	ss, err := Read(context.Background(), path, Options{Messages: true, NoGit: true})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return ss
}

// readOne reads a path that must hold exactly one session.
func readOne(t testing.TB, path string) *lore.Session {
	t.Helper()
	ss := readPath(t, path)
	if len(ss) != 1 {
		t.Fatalf("%s: got %d sessions, want 1", path, len(ss))
	}
	return ss[0]
}

// writeFile writes data to name in a new temporary folder and returns
// its path.
func writeFile(t testing.TB, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fuzzFile is the body of every file reader's fuzz target: whatever the
// bytes, reading them must not panic, and must either yield sessions or
// an error. It calls the reader without the panic guard Scan has.
func fuzzFile(t *testing.T, name string, data []byte) {
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		in := &input{path: path, size: int64(len(data)), opts: Options{Messages: keep, NoGit: true}}
		// Errors are fine (the input is random); panics and broken
		// sessions are not.
		_ = readFile(context.Background(), in, func(s *lore.Session) { checkInvariants(t, s) })
	}
}

// checkInvariants asserts what must hold for any session read from any
// input.
func checkInvariants(t testing.TB, s *lore.Session) {
	t.Helper()
	if s.ID == "" || s.Agent == "" || s.NativeID == "" {
		t.Fatalf("session without identity: id=%q agent=%q native=%q", s.ID, s.Agent, s.NativeID)
	}
	if s.ID != s.Agent+":"+s.NativeID {
		t.Fatalf("id %q is not agent:native (%q, %q)", s.ID, s.Agent, s.NativeID)
	}
	if s.UserMessages < 0 || s.AssistantMessages < 0 || s.ToolCalls < 0 || s.ToolErrors < 0 {
		t.Fatalf("negative counts: %+v", s)
	}
	if !s.EndedAt.IsZero() && s.EndedAt.Before(s.StartedAt) {
		t.Fatalf("ended %v before started %v", s.EndedAt, s.StartedAt)
	}
	switch s.Outcome {
	case lore.OutcomeSuccess, lore.OutcomeFailure, lore.OutcomeAborted, lore.OutcomeUnknown:
	default:
		t.Fatalf("bad outcome %q", s.Outcome)
	}
}

// seedFiles adds the files matching pattern as fuzz seeds: under the
// shared corpus folder sub when sub is set (and present), else relative
// to the package. Seeds are cut to their first 32 KiB: the fuzzer
// mutates small inputs far faster, and a cut file is damage worth trying.
func seedFiles(f *testing.F, sub, pattern string) {
	dir := "."
	if sub != "" {
		dir = filepath.Join("..", "..", "shared", "corpus", sub)
		if _, err := os.Stat(dir); err != nil {
			return
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			if len(data) > 32<<10 {
				data = data[:32<<10]
			}
			f.Add(data)
		}
	}
}

// localTime reads a naive timestamp ("2006-01-02 15:04:05", with a T or
// fractional seconds or both) in the local time zone, as the readers must.
func localTime(t testing.TB, s string) time.Time {
	t.Helper()
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if tm, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return tm
		}
	}
	t.Fatalf("bad local time %q", s)
	return time.Time{}
}

// seedHostile adds the inputs that once cost a whole run or a whole file
// as fuzz seeds: JSON nested past maxDepth, in the first line and after
// it, and a line of NULs.
func seedHostile(f *testing.F) {
	for _, open := range []string{"[", `{"a":`} {
		deep := strings.Repeat(open, 20000)
		f.Add([]byte(deep))
		f.Add([]byte(deep + "\n{}\n"))
		f.Add([]byte("{}\n" + deep + "\n{}\n"))
		f.Add([]byte(strings.Repeat(open, maxDepth+1) + "1"))
	}
	f.Add([]byte("{}\n" + strings.Repeat("\x00", 64) + "\n{}\n"))
}
