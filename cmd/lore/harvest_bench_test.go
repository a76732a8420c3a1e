package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/lorehq/lore/internal/iostreams"
	"github.com/lorehq/lore/internal/synth"
	"github.com/lorehq/lore/transcript"
)

// BenchmarkHarvestAgain times lore harvest --json over a corpus it has
// harvested already and that has not changed since: 8 MiB of synthetic
// sessions of each format synth writes, and the transcript package's
// fixtures of every format. Every session is skipped; what is left is
// finding out that nothing changed.
func BenchmarkHarvestAgain(b *testing.B) {
	dir := b.TempDir()
	for _, f := range synth.Formats {
		if _, err := synth.Write(filepath.Join(dir, f), synth.Options{Format: f, Bytes: 8 << 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.CopyFS(filepath.Join(dir, "fixtures"), os.DirFS(filepath.Join("..", "..", "transcript", "testdata"))); err != nil {
		b.Fatal(err)
	}
	args := []string{"harvest", dir, "--store", filepath.Join(b.TempDir(), "lore.db"), "--json"}
	harvest := func() (sum struct {
		Seen      int `json:"sessions_seen"`
		Harvested int `json:"sessions_harvested"`
		Skipped   int `json:"sessions_skipped"`
	}) {
		ios, _, out, errOut := iostreams.Test()
		if code := run(context.Background(), newFactory(ios, transcript.HostEnv()), args); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
		if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
			b.Fatal(err)
		}
		return sum
	}
	first := harvest()
	if first.Harvested == 0 {
		b.Fatalf("the first harvest harvested nothing: %+v", first)
	}
	for b.Loop() {
		if again := harvest(); again.Harvested != 0 || again.Skipped != first.Seen {
			b.Fatalf("harvesting again: %+v; want all %d sessions skipped", again, first.Seen)
		}
	}
	b.ReportMetric(float64(first.Seen), "sessions")
}
