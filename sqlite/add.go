package sqlite

// Add and Import: a batch decides what becomes of each incoming item by
// lore's merge rules (lore.Merge, lore.Item.Supersedes), then writes it
// all in a few statements. What an item may merge with is found in
// lookup.go; the writing is in statements.go.

import (
	"context"
	"database/sql"
	"slices"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/neardup"
)

// Add merges items into the store, all in one transaction: when one item
// is invalid, none is written.
func (s *Store) Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.put(ctx, items, lore.Adding)
}

// Import writes items as they are, merging only items with an id already
// stored, in one transaction.
func (s *Store) Import(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.put(ctx, items, lore.Importing)
}

func (s *Store) put(ctx context.Context, items []lore.Item, mode lore.MergeMode) ([]lore.AddResult, error) {
	p := startPreparing(items, s.now())
	defer p.stop()
	// The first chunk is checked before the store is locked: a single
	// invalid item never takes the lock.
	if err := p.wait(ctx, 0); err != nil {
		return nil, err
	}
	var results []lore.AddResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		b := &batch{store: s, tx: tx, mode: mode}
		results, err = b.run(ctx, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// batch is one Add or Import call. It reads what it needs of the stored
// items in a few queries, decides every merge in memory, and writes new
// items in one statement per table: per-statement costs, not SQLite's
// work, dominate small writes.
type batch struct {
	store *Store
	tx    *sql.Tx
	mode  lore.MergeMode

	byID    map[string]*row // stored rows read, and new rows, by id
	byRowid map[int64]*row
	index   neardup.Index[*row] // near-duplicate candidates (stored and new)
	news    []*row
	touched []*row // stored rows merged into, in order
}

// run decides and writes the batch. It reads and decides a chunk as soon
// as it is prepared; the outcome is the same as deciding all at once, as
// each chunk reads what its items may merge with before deciding them.
func (b *batch) run(ctx context.Context, p *preparation) ([]lore.AddResult, error) {
	b.byID, b.byRowid = map[string]*row{}, map[int64]*row{}
	results := make([]lore.AddResult, len(p.items))
	for c := range p.chunks() {
		if err := p.wait(ctx, c); err != nil {
			return nil, err
		}
		lo, hi := p.bounds(c)
		items, fps := p.items[lo:hi], p.fps[lo:hi]
		if err := b.loadByID(ctx, items); err != nil {
			return nil, err
		}
		if b.mode == lore.Adding {
			if err := b.loadCandidates(ctx, items, fps); err != nil {
				return nil, err
			}
		}
		for i, it := range items {
			r, err := b.one(ctx, it, fps[i])
			if err != nil {
				return nil, &lore.ItemError{Index: lo + i, Err: err}
			}
			results[lo+i] = r
		}
	}
	if err := b.write(ctx); err != nil {
		return nil, err
	}
	return results, nil
}

// one decides what becomes of one item.
func (b *batch) one(ctx context.Context, it lore.Item, fp *neardup.Fingerprint) (lore.AddResult, error) {
	r, err := b.find(ctx, &it, fp.Norm)
	if err != nil {
		return lore.AddResult{}, err
	}
	if r != nil {
		return b.mergeInto(r, it, false), nil
	}
	if b.mode == lore.Importing {
		return b.create(ctx, it, fp)
	}
	if best, ok := b.index.Nearest(it, fp); ok {
		return b.mergeInto(best, it, true), nil
	}
	return b.create(ctx, it, fp)
}

// mergeInto merges it into r, which is written with the batch if that
// changed it.
func (b *batch) mergeInto(r *row, it lore.Item, nearDup bool) lore.AddResult {
	res := lore.AddResult{ID: r.item.ID, Action: lore.Unchanged, NearDuplicate: nearDup}
	var changed bool
	if r.conf, changed = lore.Merge(&r.item, r.conf, it, b.mode); changed {
		r.changed = true
		res.Action = lore.Merged
		if r.rowid != 0 && !slices.Contains(b.touched, r) {
			b.touched = append(b.touched, r)
		}
	}
	return res
}

// create makes a new row, and supersedes what it replaces.
func (b *batch) create(ctx context.Context, it lore.Item, fp *neardup.Fingerprint) (lore.AddResult, error) {
	r := &row{texts: neardup.Known(fp)}
	r.item, r.conf = lore.Create(it, b.mode)
	b.news = append(b.news, r)
	b.byID[it.ID] = r
	b.candidate(r)
	res := lore.AddResult{ID: it.ID, Action: lore.Created}
	if b.mode == lore.Adding {
		var err error
		res.Superseded, err = b.supersede(ctx, r)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// supersede marks superseded the stored and new items that r, just
// created, supersedes (see lore.Item.Supersedes), and returns their ids.
func (b *batch) supersede(ctx context.Context, r *row) ([]string, error) {
	it := &r.item
	if !it.Superseding() {
		return nil, nil
	}
	stored, err := loadRows(ctx, b.tx, `items i WHERE signature = ? AND category = ? AND repo = ? AND agent = ?
		AND status IN ('active', 'candidate')`, it.Signature, string(it.Category), it.Repo, it.Agent)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, o := range stored {
		if known := b.byRowid[o.rowid]; known != nil {
			o = known
		} else {
			b.remember(o)
		}
		if it.Supersedes(&o.item) {
			ids = append(ids, b.supersedeBy(r, o))
		}
	}
	for _, o := range b.news {
		if it.Supersedes(&o.item) {
			ids = append(ids, b.supersedeBy(r, o))
		}
	}
	return ids, nil
}

// supersedeBy marks o superseded by r and returns o's id.
func (b *batch) supersedeBy(r, o *row) string {
	r.item.Supersede(&o.item)
	o.changed = true
	if o.rowid != 0 && !slices.Contains(b.touched, o) {
		b.touched = append(b.touched, o)
	}
	return o.item.ID
}
