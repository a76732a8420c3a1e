package sqlite

// Merge lookup: finding the stored items an incoming item may merge with,
// by id and by the band keys of the near-duplicate index (the bands
// table), which the batch keeps in memory as it decides.

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
	"github.com/lorehq/lore/internal/neardup"
)

// remember indexes a stored row read in this batch.
func (b *batch) remember(r *row) {
	if _, ok := b.byRowid[r.rowid]; ok {
		return
	}
	b.byRowid[r.rowid] = r
	if _, ok := b.byID[r.item.ID]; !ok {
		b.byID[r.item.ID] = r
	}
}

// find returns the row with the item's id, if the text is the same. When
// a different text holds the short id (a rare collision), the item takes
// its long id.
func (b *batch) find(ctx context.Context, it *lore.Item, norm string) (*row, error) {
	r := b.byID[it.ID]
	if r == nil || r.texts.Holds(&r.item, *it, norm) {
		return r, nil
	}
	if b.mode == lore.Importing {
		return nil, fmt.Errorf("id %s is taken by a different item", it.ID)
	}
	long := lore.LongItemID(it.Text, it.Category, it.Repo, it.Agent)
	it.ID = long
	if r := b.byID[long]; r != nil {
		return r, nil
	}
	st, err := loadRows(ctx, b.tx, `items i WHERE id = ?`, long)
	if err != nil || len(st) == 0 {
		return nil, err
	}
	b.remember(st[0])
	return st[0], nil
}

// loadByID reads the stored items with the batch's ids.
func (b *batch) loadByID(ctx context.Context, items []lore.Item) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	slices.Sort(ids)
	rows, err := b.rowsByKey(ctx, `i.id = k.value`, anys(slices.Compact(ids)))
	if err != nil {
		return err
	}
	for _, r := range rows {
		b.remember(r)
	}
	return nil
}

// bandItem masks the low bits of a row of the bands table, which hold the
// item's rowid; the other bits are the band key's. One integer per row
// makes the table a plain rowid table, where looking keys up and inserting
// them compares integers: adding items took about 8% less time than with
// a (key, item) primary key. The 35 bits left of a key make keys of
// unrelated items equal now and then (a few hundred pairs at a million
// items): that only adds a candidate, which the scope check and
// Similarity turn down.
const bandItem = 1<<neardup.ItemBits - 1

// bucketCap is how many items of one band key, the newest, are
// near-duplicate candidates. In a scope of many items with overlapping
// words, a band key whose minimum hash is a common word is shared by
// hundreds of unrelated items; reading them all would cost every item
// added, and a near-duplicate shares a key with a recent item in its other
// bands. A key read with more than twice as many rows loses its older
// rows (see loadCandidates), so that reading a key stays cheap.
const bucketCap = 32

// loadCandidates reads the stored items that share a band key with any of
// the batch's items and are not theirs by id: the near-duplicate
// candidates.
func (b *batch) loadCandidates(ctx context.Context, items []lore.Item, fps []*neardup.Fingerprint) error {
	keys := make([]int64, 0, len(items)*dedup.Bands)
	for i, it := range items {
		if _, ok := b.byID[it.ID]; !ok {
			keys = append(keys, fps[i].Keys[:]...)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	// Sorted keys are looked up in the order of the table, one seek each
	// (an IN list would first be copied into a temporary index). Most
	// keys of a new item are in no row.
	slices.Sort(keys)
	var rowids, bucket, trim []int64
	key := int64(-1)
	take := func() {
		// A key's rows come oldest first: the newest are candidates.
		if len(bucket) > 2*bucketCap {
			trim = append(trim, key, key|bucket[len(bucket)-bucketCap-1])
		}
		for _, r := range bucket[max(0, len(bucket)-bucketCap):] {
			// A row read already (by id, or by signature) may not
			// be among the candidates yet.
			if known := b.byRowid[r]; known != nil {
				b.candidate(known)
			} else {
				rowids = append(rowids, r)
			}
		}
		bucket = bucket[:0]
	}
	err := b.byKey(ctx, `SELECT b.band FROM k CROSS JOIN bands AS b ON b.band BETWEEN k.value AND k.value + `+strconv.Itoa(bandItem),
		anys(slices.Compact(keys)), func(q *sql.Rows) error {
			var band int64
			if err := q.Scan(&band); err != nil {
				return err
			}
			k, r := band&^bandItem, band&bandItem
			if k != key {
				take()
				key = k
			}
			bucket = append(bucket, r)
			return nil
		})
	if err != nil {
		return err
	}
	take()
	// Rows beyond a key's newest are never read again: they go.
	for i := 0; i < len(trim); i += 2 {
		if _, err := b.tx.ExecContext(ctx, `DELETE FROM bands WHERE band BETWEEN ? AND ?`, trim[i], trim[i+1]); err != nil {
			return err
		}
	}
	slices.Sort(rowids)
	if rowids = slices.Compact(rowids); len(rowids) == 0 {
		return nil
	}
	rows, err := b.rowsByKey(ctx, `i.rowid = k.value`, anys(rowids))
	if err != nil {
		return err
	}
	for _, r := range rows {
		b.remember(r)
		b.candidate(r)
	}
	return nil
}

// candidate makes r a near-duplicate candidate of the items that share a
// band key with it.
func (b *batch) candidate(r *row) { b.index.Add(r, &r.item, &r.texts, r.order()) }

// order ranks candidates of equal similarity: stored before new, older
// before younger.
func (r *row) order() int64 {
	if r.rowid == 0 {
		return math.MaxInt64
	}
	return r.rowid
}

// rowsByKey reads the stored items that match keys (see byKey) by on, a
// condition joining items i to k.
func (b *batch) rowsByKey(ctx context.Context, on string, keys []any) ([]*row, error) {
	var out []*row
	err := b.byKey(ctx, `SELECT `+rowColumnsOf+` FROM k CROSS JOIN items i ON `+on, keys, func(rows *sql.Rows) error {
		st, err := scanRow(rows)
		if err != nil {
			return err
		}
		out = append(out, st.row())
		return nil
	})
	return out, err
}

// rebuildBands computes every item's band keys again, in pages of rowids
// (migration 0005: an item gets back the keys it lost when each key named
// one item).
func rebuildBands(ctx context.Context, tx *sql.Tx) error {
	const page = 4096
	for after := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `SELECT rowid, text, category, repo, agent FROM items
			WHERE rowid > ? ORDER BY rowid LIMIT ?`, after, page)
		if err != nil {
			return err
		}
		var bands []int64
		n := 0
		for rows.Next() {
			var it lore.Item
			var category string
			if err := rows.Scan(&after, &it.Text, &category, &it.Repo, &it.Agent); err != nil {
				rows.Close()
				return err
			}
			it.Category = lore.Category(category)
			if after > bandItem {
				return fmt.Errorf("the store holds more than %d items, more than its near-duplicate index can", bandItem)
			}
			for _, k := range neardup.Of(it).Keys {
				bands = append(bands, k|after)
			}
			n++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		slices.Sort(bands)
		for len(bands) > 0 {
			chunk := bands[:min(len(bands), chunkRows)]
			args := anys(chunk)
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO bands (band) VALUES `+
				strings.TrimSuffix(strings.Repeat("(?), ", len(chunk)), ", "), args...); err != nil {
				return err
			}
			bands = bands[len(chunk):]
		}
		if n < page {
			return nil
		}
	}
}
