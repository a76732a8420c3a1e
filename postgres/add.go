package postgres

// Add and Import: a batch reads what its items may merge with (by id, and
// near-duplicates by the band keys of internal/dedup), decides every
// merge in memory by lore's rules (lore.Merge, lore.Item.Supersedes), and
// writes the outcome, all in one transaction that holds the team's write
// lock.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

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
	now := s.now()
	prepared := make([]lore.Item, len(items))
	fps := make([]*neardup.Fingerprint, len(items))
	for i, it := range items {
		p, err := lore.Prepare(it, now)
		if err != nil {
			if len(items) > 1 {
				return nil, &lore.ItemError{Index: i, Err: err}
			}
			return nil, err
		}
		prepared[i], fps[i] = p, neardup.Of(p)
	}
	var results []lore.AddResult
	err := s.write(ctx, func(tx pgx.Tx) error {
		b := &batch{tx: tx, mode: mode, byID: map[string]*mrow{}, byRowid: map[int64]*mrow{}}
		var err error
		results, err = b.run(ctx, prepared, fps)
		return err
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// batch is one Add or Import call.
type batch struct {
	tx   pgx.Tx
	mode lore.MergeMode

	byID    map[string]*mrow // stored rows read, and new rows, by id
	byRowid map[int64]*mrow
	index   neardup.Index[*mrow] // near-duplicate candidates
	news    []*mrow
	touched []*mrow // stored rows merged into, in order
}

// mrow is a row as merging keeps it, with the fingerprints of its texts.
type mrow struct {
	row
	texts neardup.Texts
}

// order ranks candidates of equal similarity: stored before new, older
// before younger.
func (m *mrow) order() int64 {
	if m.rowid == 0 {
		return 1<<63 - 1
	}
	return m.rowid
}

func (b *batch) run(ctx context.Context, items []lore.Item, fps []*neardup.Fingerprint) ([]lore.AddResult, error) {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	if err := b.load(ctx, `WHERE i.id = ANY($1)`, ids); err != nil {
		return nil, err
	}
	if b.mode == lore.Adding {
		if err := b.loadCandidates(ctx, items, fps); err != nil {
			return nil, err
		}
	}
	results := make([]lore.AddResult, len(items))
	for i, it := range items {
		r, err := b.one(ctx, it, fps[i])
		if err != nil {
			if len(items) > 1 {
				return nil, &lore.ItemError{Index: i, Err: err}
			}
			return nil, err
		}
		results[i] = r
	}
	return results, b.write(ctx)
}

// load reads stored rows selected by where, and remembers them.
func (b *batch) load(ctx context.Context, where string, args ...any) error {
	rows, err := loadRows(ctx, b.tx, `SELECT `+itemColumns+` FROM items i `+where, args...)
	if err != nil {
		return err
	}
	for _, r := range rows {
		b.remember(r)
	}
	return nil
}

// remember indexes a stored row read in this batch, once.
func (b *batch) remember(r *row) *mrow {
	if m, ok := b.byRowid[r.rowid]; ok {
		return m
	}
	m := &mrow{row: *r}
	b.byRowid[r.rowid] = m
	if _, ok := b.byID[r.item.ID]; !ok {
		b.byID[r.item.ID] = m
	}
	return m
}

// bucketCap is how many items of one band key, the newest, are
// near-duplicate candidates: a key whose minimum hash is a common word is
// shared by many unrelated items, and a near-duplicate shares a key with
// a recent item in its other bands.
const bucketCap = 32

// loadCandidates reads the stored items that share a band key with an
// item of the batch not stored by id: its near-duplicate candidates.
func (b *batch) loadCandidates(ctx context.Context, items []lore.Item, fps []*neardup.Fingerprint) error {
	var keys []int64
	for i, it := range items {
		if _, ok := b.byID[it.ID]; !ok {
			keys = append(keys, fps[i].Keys[:]...)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	rows, err := loadRows(ctx, b.tx, `SELECT `+itemColumns+` FROM items i WHERE i.rowid IN (
		SELECT c.item FROM unnest($1::bigint[]) AS k (key)
		CROSS JOIN LATERAL (SELECT item FROM bands WHERE bands.key = k.key ORDER BY item DESC LIMIT `+fmt.Sprint(bucketCap)+`) AS c)`,
		slices.Compact(keys))
	if err != nil {
		return err
	}
	for _, r := range rows {
		b.candidate(b.remember(r))
	}
	return nil
}

// candidate makes m a near-duplicate candidate of the items that share a
// band key with it.
func (b *batch) candidate(m *mrow) { b.index.Add(m, &m.item, &m.texts, m.order()) }

// one decides what becomes of one item.
func (b *batch) one(ctx context.Context, it lore.Item, fp *neardup.Fingerprint) (lore.AddResult, error) {
	m, err := b.find(ctx, &it, fp)
	if err != nil {
		return lore.AddResult{}, err
	}
	if m != nil {
		return b.mergeInto(m, it, false), nil
	}
	if b.mode == lore.Importing {
		return b.create(ctx, it, fp)
	}
	if best, ok := b.index.Nearest(it, fp); ok {
		return b.mergeInto(best, it, true), nil
	}
	return b.create(ctx, it, fp)
}

// find returns the row of the item's id, if it holds the same item. When
// another item holds the short id (a rare collision), the item takes its
// long id.
func (b *batch) find(ctx context.Context, it *lore.Item, fp *neardup.Fingerprint) (*mrow, error) {
	m := b.byID[it.ID]
	if m == nil || m.texts.Holds(&m.item, *it, fp.Norm) {
		return m, nil
	}
	if b.mode == lore.Importing {
		return nil, fmt.Errorf("id %s is taken by a different item", it.ID)
	}
	it.ID = lore.LongItemID(it.Text, it.Category, it.Repo, it.Agent)
	if m := b.byID[it.ID]; m != nil {
		return m, nil
	}
	if err := b.load(ctx, `WHERE i.id = $1`, it.ID); err != nil {
		return nil, err
	}
	return b.byID[it.ID], nil
}

// mergeInto merges it into m, which is written with the batch if that
// changed it.
func (b *batch) mergeInto(m *mrow, it lore.Item, nearDup bool) lore.AddResult {
	res := lore.AddResult{ID: m.item.ID, Action: lore.Unchanged, NearDuplicate: nearDup}
	var changed bool
	if m.conf, changed = lore.Merge(&m.item, m.conf, it, b.mode); changed {
		res.Action = lore.Merged
		b.touch(m)
	}
	return res
}

func (b *batch) touch(m *mrow) {
	if m.rowid != 0 && !slices.Contains(b.touched, m) {
		b.touched = append(b.touched, m)
	}
}

// create makes a new row, and supersedes what it replaces.
func (b *batch) create(ctx context.Context, it lore.Item, fp *neardup.Fingerprint) (lore.AddResult, error) {
	m := &mrow{texts: neardup.Known(fp)}
	m.item, m.conf = lore.Create(it, b.mode)
	b.news = append(b.news, m)
	b.byID[it.ID] = m
	b.candidate(m)
	res := lore.AddResult{ID: it.ID, Action: lore.Created}
	if b.mode == lore.Adding && m.item.Superseding() {
		var err error
		res.Superseded, err = b.supersede(ctx, m)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// supersede marks superseded the stored and new items that m, just
// created, supersedes, and returns their ids.
func (b *batch) supersede(ctx context.Context, m *mrow) ([]string, error) {
	it := &m.item
	stored, err := loadRows(ctx, b.tx, `SELECT `+itemColumns+` FROM items i WHERE i.signature = $1 AND i.category = $2
		AND i.repo = $3 AND i.agent = $4 AND i.status IN ('active', 'candidate')`, it.Signature, string(it.Category), it.Repo, it.Agent)
	if err != nil {
		return nil, err
	}
	var ids []string
	var others []*mrow
	for _, r := range stored {
		others = append(others, b.remember(r))
	}
	others = append(others, b.news...)
	for _, o := range others {
		if it.Supersedes(&o.item) {
			it.Supersede(&o.item)
			b.touch(o)
			ids = append(ids, o.item.ID)
		}
	}
	return ids, nil
}

// itemCopy are the columns new items are copied into.
var itemCopy = []string{"id", "text", "category", "repo", "repo_key", "repo_name_key", "agent", "confidence", "manual_confidence",
	"status", "source_count", "first_seen", "last_confirmed", "expires", "signature", "tags", "related", "ev_sessions",
	"ev_positions", "ev_confidences", "reviews", "words", "tag_words"}

// write stores the batch: the rows merged into, in one round trip; the
// new rows, copied in (COPY); and their band keys.
func (b *batch) write(ctx context.Context) error {
	var q pgx.Batch
	for _, m := range b.touched {
		it := m.item
		sessions, positions, conf := evidenceColumns(it.Evidence, m.conf)
		q.Queue(`UPDATE items SET confidence = $2, manual_confidence = $3, status = $4, source_count = $5, first_seen = $6,
			last_confirmed = $7, expires = $8, related = $9, tags = $10, ev_sessions = $11, ev_positions = $12, ev_confidences = $13,
			tag_words = $14 WHERE rowid = $1`,
			m.rowid, it.Confidence, it.Manual, string(it.Status), len(it.Evidence), it.FirstSeen, it.LastConfirmed, expiresValue(it),
			nonNil(it.Related), nonNil(it.Tags), sessions, positions, conf, words(strings.Join(it.Tags, " ")))
	}
	if q.Len() > 0 {
		if err := b.tx.SendBatch(ctx, &q).Close(); err != nil {
			return err
		}
	}
	if len(b.news) == 0 {
		return nil
	}
	rows := make([][]any, len(b.news))
	ids := make([]string, len(b.news))
	for i, m := range b.news {
		it := m.item
		sessions, positions, conf := evidenceColumns(it.Evidence, m.conf)
		repoKey, nameKey := repoKeys(it.Repo)
		rows[i] = []any{it.ID, it.Text, string(it.Category), it.Repo, repoKey, nameKey, it.Agent, it.Confidence, it.Manual,
			string(it.Status), len(it.Evidence), it.FirstSeen, it.LastConfirmed, expiresValue(it), it.Signature, nonNil(it.Tags),
			nonNil(it.Related), sessions, positions, conf, reviewsJSON(it.Reviews), words(it.Text), words(strings.Join(it.Tags, " "))}
		ids[i] = it.ID
	}
	if _, err := b.tx.CopyFrom(ctx, pgx.Identifier{"items"}, itemCopy, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	rowid := map[string]int64{}
	res, err := b.tx.Query(ctx, `SELECT id, rowid FROM items WHERE id = ANY($1)`, ids)
	if err != nil {
		return err
	}
	var id string
	var r int64
	if _, err := pgx.ForEachRow(res, []any{&id, &r}, func() error { rowid[id] = r; return nil }); err != nil {
		return err
	}
	var bands [][]any
	for _, m := range b.news {
		m.rowid = rowid[m.item.ID]
		var keys []int64
		m.texts.Keys(&m.item, func(k int64) { keys = append(keys, k) })
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			bands = append(bands, []any{k, m.rowid})
		}
	}
	_, err = b.tx.CopyFrom(ctx, pgx.Identifier{"bands"}, []string{"key", "item"}, pgx.CopyFromRows(bands))
	return err
}
