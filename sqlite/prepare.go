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
	"github.com/lorehq/lore/internal/dedup"
)

// prepareChunk is how many items are checked and fingerprinted at a time.
const prepareChunk = 512

// preparation checks items and computes their fingerprints, a chunk at a
// time, while the write transaction goes through the chunks already
// prepared: SQLite writes on one core, and the others prepare what it
// writes next.
type preparation struct {
	items []lore.Item
	fps   []*fingerprint
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
		fps:   make([]*fingerprint, len(items)),
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
				p.fps[i] = newFingerprint(p.items[i])
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
// each session brought (conf, parallel to Evidence: lore.Merge's shares).
type row struct {
	rowid      int64 // 0 for an item not written yet
	item       lore.Item
	conf       []float64
	fp         *fingerprint
	storedTags []string
	edited     []*fingerprint // of the texts a person edited the item from, once computed
	changed    bool
	candidate  bool // in batch.bands
}

// fingerprint is what merging compares of an item's text, computed once.
type fingerprint struct {
	norm string
	dedup.Fingerprint
	keys [dedup.Bands]int64
}

func newFingerprint(it lore.Item) *fingerprint {
	f := &fingerprint{norm: lore.NormalizeText(it.Text)}
	f.Fingerprint = dedup.Of(f.norm)
	f.keys = f.BandKeys(scope(it))
	for i := range f.keys {
		f.keys[i] &^= bandItem
	}
	return f
}

func scope(it lore.Item) string {
	return string(it.Category) + "\x00" + it.Repo + "\x00" + it.Agent
}

// fingerprint returns the row's fingerprint, computing it once.
func (r *row) fingerprint() *fingerprint {
	if r.fp == nil {
		r.fp = newFingerprint(r.item)
	}
	return r.fp
}

// editedFrom returns the fingerprints of the texts a person edited the
// row's item from (lore.Item.OldTexts): a near-duplicate of the text a
// session taught is still one once a person reworded it.
func (r *row) editedFrom() []*fingerprint {
	if len(r.item.Reviews) == 0 {
		return nil
	}
	if r.edited == nil {
		for _, t := range r.item.OldTexts() {
			old := r.item
			old.Text = t
			r.edited = append(r.edited, newFingerprint(old))
		}
	}
	return r.edited
}

// bandKeys calls fn with each band key of the row's text and of the
// texts it was edited from.
func (r *row) bandKeys(fn func(int64)) {
	for _, k := range r.fingerprint().keys {
		fn(k)
	}
	for _, f := range r.editedFrom() {
		for _, k := range f.keys {
			fn(k)
		}
	}
}

// similarity is how similar an item of fingerprint fp is to r's item: to
// its text, or to a text a person edited it from, whichever is closer.
func (r *row) similarity(fp *fingerprint) float64 {
	sim := dedup.Similarity(fp.Fingerprint, r.fingerprint().Fingerprint)
	for _, f := range r.editedFrom() {
		sim = max(sim, dedup.Similarity(fp.Fingerprint, f.Fingerprint))
	}
	return sim
}
