package sqlite

// Preparation: incoming items checked and fingerprinted on spare cores
// while the batch writes, and the row each becomes.

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/neardup"
)

// prepareChunk is how many items are checked and fingerprinted at a time.
const prepareChunk = 512

// preparation checks items and computes their fingerprints, a chunk at a
// time, while the write transaction goes through the chunks already
// prepared: SQLite writes on one core, and the others prepare what it
// writes next.
type preparation struct {
	items []lore.Item
	fps   []*neardup.Fingerprint
	errs  []error
	ready []chan struct{} // closed when that chunk is prepared
	quit  chan struct{}
	once  sync.Once
}

// startPreparing prepares the first chunk on the calling goroutine and
// the others on other cores.
func startPreparing(items []lore.Item, now time.Time) *preparation {
	n := (len(items) + prepareChunk - 1) / prepareChunk
	p := &preparation{
		items: make([]lore.Item, len(items)),
		fps:   make([]*neardup.Fingerprint, len(items)),
		errs:  make([]error, len(items)),
		ready: make([]chan struct{}, max(n, 1)),
		quit:  make(chan struct{}),
	}
	for c := range p.ready {
		p.ready[c] = make(chan struct{})
	}
	do := func(c int) {
		lo, hi := p.bounds(c)
		for i := lo; i < hi; i++ {
			p.items[i], p.errs[i] = lore.Prepare(items[i], now)
			if p.errs[i] == nil {
				p.fps[i] = neardup.Of(p.items[i])
			}
		}
		close(p.ready[c])
	}
	if n > 1 {
		var next atomic.Int64
		next.Store(1)
		for range max(1, runtime.GOMAXPROCS(0)-1) {
			go func() {
				for {
					c := int(next.Add(1) - 1)
					if c >= n {
						return
					}
					select {
					case <-p.quit:
						return
					default:
					}
					do(c)
				}
			}()
		}
	}
	do(0)
	return p
}

// stop ends preparing chunks nobody will wait for.
func (p *preparation) stop() { p.once.Do(func() { close(p.quit) }) }

func (p *preparation) chunks() int { return len(p.ready) }

func (p *preparation) bounds(c int) (lo, hi int) {
	return c * prepareChunk, min((c+1)*prepareChunk, len(p.items))
}

// wait returns when chunk c is prepared, with the error of its first
// invalid item.
func (p *preparation) wait(ctx context.Context, c int) error {
	select {
	case <-p.ready[c]:
	case <-ctx.Done():
		return ctx.Err()
	}
	lo, hi := p.bounds(c)
	for i := lo; i < hi; i++ {
		if err := p.errs[i]; err != nil {
			if len(p.items) > 1 {
				return &lore.ItemError{Index: i, Err: err}
			}
			return err
		}
	}
	return nil
}

// row is an item with what merging needs beyond lore.Item: the confidence
// each session brought (conf, parallel to Evidence: lore.Merge's shares),
// and the fingerprints of its texts.
type row struct {
	rowid      int64 // 0 for an item not written yet
	item       lore.Item
	conf       []float64
	texts      neardup.Texts
	storedTags []string
	changed    bool
}

// bandKeys calls fn with each band key of the row's text and of the
// texts it was edited from.
func (r *row) bandKeys(fn func(int64)) { r.texts.Keys(&r.item, fn) }
