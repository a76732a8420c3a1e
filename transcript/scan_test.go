package transcript

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestReadInputsHeld: Held counts each input's sessions before
// de-duplication, and leaves out inputs that could not be read whole, so
// that harvest never takes a transcript with a problem for one it is
// done with.
func TestReadInputsHeld(t *testing.T) {
	damaged := filepath.Join(t.TempDir(), "damaged.jsonl")
	if err := os.WriteFile(damaged, []byte("{not json\n\x00\x01"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		held int
		ok   bool
	}{
		{"testdata/aider/proj/.aider.chat.history.md", 4, true},
		{"testdata/hermes/trajectory_samples.jsonl", 2, true},
		{"testdata/claude/v21/-home-u-proj/5d1e0c55-2b7e-4f0e-9d7a-2f6c3b1e8a10.jsonl", 1, true},
		{"testdata/cline/saoudrizwan.claude-dev/tasks/1770482470358", 1, true}, // a folder
		{damaged, 0, false},
	} {
		ins, probs := Inputs([]string{tc.path})
		if len(ins) != 1 || len(probs) != 0 || ins[0].Path != tc.path {
			t.Fatalf("Inputs(%s) = %+v, %v; want the one input", tc.path, ins, probs)
		}
		res, err := ReadInputs(context.Background(), ins, Options{NoGit: true})
		if err != nil {
			t.Fatal(err)
		}
		held, ok := res.Held[tc.path]
		if held != tc.held || ok != tc.ok || (len(res.Problems) > 0) == tc.ok {
			t.Errorf("%s: held %d (%v), problems %v; want %d (%v)", tc.path, held, ok, res.Problems, tc.held, tc.ok)
		}
	}
}

// TestScanIsInputsThenRead: reading what Inputs lists finds what Scan
// finds, so harvest, which reads only some inputs, reads them as lore
// sessions lists them.
func TestScanIsInputsThenRead(t *testing.T) {
	ctx := context.Background()
	scan, err := Scan(ctx, []string{"testdata"}, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	ins, probs := Inputs([]string{"testdata"})
	read, err := ReadInputs(ctx, ins, Options{NoGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs)+len(read.Problems) != len(scan.Problems) || read.Inputs != scan.Inputs || read.Bytes != scan.Bytes {
		t.Errorf("Inputs and ReadInputs: %d problems, %d inputs, %d bytes; Scan: %d, %d, %d",
			len(probs)+len(read.Problems), read.Inputs, read.Bytes, len(scan.Problems), scan.Inputs, scan.Bytes)
	}
	if len(read.Sessions) != len(scan.Sessions) || len(scan.Sessions) < 20 {
		t.Fatalf("%d sessions read, %d scanned", len(read.Sessions), len(scan.Sessions))
	}
	for i, s := range scan.Sessions {
		if r := read.Sessions[i]; r.ID != s.ID || r.Path != s.Path || r.MessageCount() != s.MessageCount() {
			t.Errorf("session %d: %s from %s, scanned %s from %s", i, r.ID, r.Path, s.ID, s.Path)
		}
	}
}
