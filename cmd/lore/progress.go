package main

import (
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/lorehq/lore/internal/iostreams"
)

// byteProgress draws a progress bar of bytes read on stderr when stderr
// is a terminal; elsewhere it does nothing.
type byteProgress struct {
	mu    sync.Mutex
	p     *mpb.Progress
	bar   *mpb.Bar
	last  int64
	io    *iostreams.IOStreams
	name  string
	count bool // counts things, not bytes
}

func newByteProgress(io *iostreams.IOStreams, name string) *byteProgress {
	return &byteProgress{io: io, name: name}
}

// newCountProgress is a bar of things done (sessions, items), not bytes.
func newCountProgress(io *iostreams.IOStreams, name string) *byteProgress {
	return &byteProgress{io: io, name: name, count: true}
}

// update is safe to call from several goroutines.
func (b *byteProgress) update(done, total int64) {
	if b == nil || !b.io.IsStderrTTY() || total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil {
		b.p = mpb.New(mpb.WithOutput(b.io.ErrOut), mpb.WithWidth(40))
		counter := decor.Counters(decor.SizeB1024(0), "% .1f / % .1f")
		if b.count {
			counter = decor.CountersNoUnit("%d / %d")
		}
		b.bar = b.p.AddBar(total,
			mpb.PrependDecorators(decor.Name(b.name+" "), counter),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace)),
			mpb.BarRemoveOnComplete(),
		)
	}
	if done > b.last {
		b.last = done
		b.bar.SetCurrent(done)
	}
}

// stop removes the bar.
func (b *byteProgress) stop() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		b.bar.Abort(true)
		b.p.Wait()
		b.bar = nil
	}
}
