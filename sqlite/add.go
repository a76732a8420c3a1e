package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
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
// each session brought (parallel to Evidence).
type row struct {
	rowid      int64 // 0 for an item not written yet
	item       lore.Item
	conf       []float64
	fp         *fingerprint
	storedTags []string
	changed    bool
	candidate  bool // in batch.bands
}

// appendNew appends to xs those of ys it does not hold yet.
func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		if !slices.Contains(xs, y) {
			xs = append(xs, y)
		}
	}
	return xs
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
	bands   map[int64][]*row // band key → rows (stored and new)
	news    []*row
	touched []*row // stored rows merged into, in order
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

// bandItem masks the low bits of a row of the bands table, which hold the
// item's rowid; the other bits are the band key's. One integer per row
// makes the table a plain rowid table, where looking keys up and inserting
// them compares integers: adding items took about 8% less time than with
// a (key, item) primary key. The 35 bits left of a key make keys of
// unrelated items equal now and then (a few hundred pairs at a million
// items): that only adds a candidate, which the scope check and
// Similarity turn down.
const bandItem = 1<<28 - 1

// run decides and writes the batch. It reads and decides a chunk as soon
// as it is prepared; the outcome is the same as deciding all at once, as
// each chunk reads what its items may merge with before deciding them.
func (b *batch) run(ctx context.Context, p *preparation) ([]lore.AddResult, error) {
	b.byID, b.byRowid, b.bands = map[string]*row{}, map[int64]*row{}, map[int64][]*row{}
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

func scope(it lore.Item) string {
	return string(it.Category) + "\x00" + it.Repo + "\x00" + it.Agent
}

func sameItem(r *row, it lore.Item, norm string) bool {
	if !lore.SameScope(r.item, it) {
		return false
	}
	if r.item.Text == it.Text {
		return true
	}
	if r.fp != nil {
		return r.fp.norm == norm
	}
	return lore.NormalizeText(r.item.Text) == norm
}

// one decides what becomes of one item.
func (b *batch) one(ctx context.Context, it lore.Item, fp *fingerprint) (lore.AddResult, error) {
	r, err := b.find(ctx, &it, fp.norm)
	if err != nil {
		return lore.AddResult{}, err
	}
	if r != nil {
		return b.mergeInto(r, it, false), nil
	}
	if b.mode == lore.Importing {
		return b.create(ctx, it, fp)
	}
	var best *row
	bestSim := 0.0
	for _, k := range fp.keys {
		for _, c := range b.bands[k] {
			if !lore.SameScope(c.item, it) {
				continue
			}
			if sim := dedup.Similarity(fp.Fingerprint, c.fingerprint().Fingerprint); sim >= dedup.Threshold && (sim > bestSim || sim == bestSim && c.order() < best.order()) {
				best, bestSim = c, sim
			}
		}
	}
	if best != nil {
		return b.mergeInto(best, it, true), nil
	}
	return b.create(ctx, it, fp)
}

// fingerprint returns the row's fingerprint, computing it once.
func (r *row) fingerprint() *fingerprint {
	if r.fp == nil {
		r.fp = newFingerprint(r.item)
	}
	return r.fp
}

// order ranks candidates of equal similarity: stored before new, older
// before younger.
func (r *row) order() int64 {
	if r.rowid == 0 {
		return math.MaxInt64
	}
	return r.rowid
}

// find returns the row with the item's id, if the text is the same. When
// a different text holds the short id (a rare collision), the item takes
// its long id.
func (b *batch) find(ctx context.Context, it *lore.Item, norm string) (*row, error) {
	r := b.byID[it.ID]
	if r == nil || sameItem(r, *it, norm) {
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
func (b *batch) create(ctx context.Context, it lore.Item, fp *fingerprint) (lore.AddResult, error) {
	r := &row{fp: fp}
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
func (b *batch) loadCandidates(ctx context.Context, items []lore.Item, fps []*fingerprint) error {
	keys := make([]int64, 0, len(items)*dedup.Bands)
	for i, it := range items {
		if _, ok := b.byID[it.ID]; !ok {
			keys = append(keys, fps[i].keys[:]...)
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

// maxKeys is the most values one byKey query binds.
const maxKeys = 2048

// byKey runs query over keys, calling each for every row it gives. The
// query reads the keys from k (value): a VALUES list of bound parameters,
// which SQLite reads faster than json_each reads a JSON array (looking up
// band keys took a sixth less time). Each list holds at most maxKeys
// keys, padded with NULLs, which match nothing, to a power of two, so
// that statement texts recur and are prepared once (see
// Store.statement).
func (b *batch) byKey(ctx context.Context, query string, keys []any, each func(*sql.Rows) error) error {
	for len(keys) > 0 {
		piece := keys[:min(len(keys), maxKeys)]
		keys = keys[len(piece):]
		n := 1
		for n < len(piece) {
			n *= 2
		}
		st, err := b.store.statement(ctx, `WITH k (value) AS (VALUES `, 1, n, `) `+query)
		if err != nil {
			return err
		}
		args := make([]any, n)
		copy(args, piece)
		rows, err := b.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := each(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
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

// columnRows makes rows of one value each, for insertRows.
func columnRows(vals []any) [][]any {
	rows := make([][]any, len(vals))
	for i := range vals {
		rows[i] = vals[i : i+1 : i+1]
	}
	return rows
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
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
			for _, k := range newFingerprint(it).keys {
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

// candidate makes r a near-duplicate candidate of the items that share a
// band key with it.
func (b *batch) candidate(r *row) {
	if r.candidate {
		return
	}
	r.candidate = true
	for _, k := range r.fingerprint().keys {
		b.bands[k] = append(b.bands[k], r)
	}
}

func jsonArray[T any](xs []T) string {
	if len(xs) == 0 {
		return "[]"
	}
	bs, _ := json.Marshal(xs)
	return string(bs)
}

// write stores the batch: updates of merged rows, then every new row, its
// band keys and its full-text entry, many rows per statement.
//
// A statement that may fail half-way (a constraint whose conflict aborts
// the statement) makes SQLite copy every page it changes to a statement
// journal first, so as to undo just that statement (5% of adding). The
// statements here are never undone alone: one that fails rolls the whole
// transaction back (OR ROLLBACK), and band keys already present are
// skipped.
func (b *batch) write(ctx context.Context) error {
	var updates [][]any
	var bands []int64
	for _, r := range b.touched {
		it := r.item
		updates = append(updates, []any{r.rowid, it.Confidence, it.Manual, string(it.Status), len(it.Evidence),
			micros(it.FirstSeen), micros(it.LastConfirmed), expiresValue(it), jsonArray(it.Related), evidenceJSON(it.Evidence, r.conf)})
		if !slices.Equal(it.Tags, r.storedTags) {
			if err := b.retag(ctx, r); err != nil {
				return err
			}
		}
	}
	err := b.insertRows(ctx, `UPDATE OR ROLLBACK items SET confidence = v.column2, manual_confidence = v.column3,
		status = v.column4, source_count = v.column5, first_seen = v.column6, last_confirmed = v.column7,
		expires = v.column8, related = v.column9, evidence = v.column10 FROM (VALUES `, updates, `) AS v WHERE items.rowid = v.column1`)
	if err != nil {
		return err
	}
	// New rows take the rowids after the largest, as SQLite would give
	// them, so that their bands and index entries need no lookup.
	var last int64
	if err := b.tx.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM items`).Scan(&last); err != nil {
		return err
	}
	if last+int64(len(b.news)) > bandItem {
		return fmt.Errorf("the store would hold more than %d items, more than its near-duplicate index can", bandItem)
	}
	rows := make([][]any, len(b.news))
	for i, r := range b.news {
		it := r.item
		r.rowid = last + 1 + int64(i)
		rows[i] = []any{r.rowid, it.ID, it.Text, string(it.Category), it.Repo, it.Agent, it.Confidence, it.Manual,
			string(it.Status), len(it.Evidence), micros(it.FirstSeen), micros(it.LastConfirmed), expiresValue(it),
			it.Signature, jsonArray(it.Tags), jsonArray(it.Related), evidenceJSON(it.Evidence, r.conf)}
		for _, k := range r.fingerprint().keys {
			bands = append(bands, k|r.rowid)
		}
	}
	err = b.insertRows(ctx, `INSERT OR ROLLBACK INTO items (rowid, id, text, category, repo, agent, confidence,
		manual_confidence, status, source_count, first_seen, last_confirmed, expires, signature, tags, related, evidence)
		VALUES `, rows, "")
	if err != nil {
		return err
	}
	// Keys in order touch each page of the table once.
	slices.Sort(bands)
	if err := b.insertRows(ctx, `INSERT OR IGNORE INTO bands (band) VALUES `, columnRows(anys(bands)), ""); err != nil {
		return err
	}
	// The new rows are indexed by one statement: FTS5 writes its pending
	// terms as a new index segment at every statement, and fewer, larger
	// segments cost less to write and to merge.
	_, err = b.tx.ExecContext(ctx, `INSERT INTO items_fts (rowid, text, tags)
		SELECT rowid, text, tags FROM items WHERE rowid > ?`, last)
	return err
}

// ftsRow is a row's entry in the full-text index.
func ftsRow(r *row) []any {
	return []any{r.rowid, r.item.Text, jsonArray(r.item.Tags)}
}

// chunkRows is the most rows one multi-row statement writes. Shorter runs
// are split into powers of two, so that every statement text recurs and
// its prepared form is reused: preparing a statement of a thousand values
// costs as much as running it.
const chunkRows = 256

// insertRows runs prefix + "(?, …), (?, …)" + suffix over rows, many at a
// time.
func (b *batch) insertRows(ctx context.Context, prefix string, rows [][]any, suffix string) error {
	if len(rows) == 0 {
		return nil
	}
	cols := len(rows[0])
	for len(rows) > 0 {
		n := chunkRows
		for n > len(rows) {
			n /= 2
		}
		st, err := b.store.statement(ctx, prefix, cols, n, suffix)
		if err != nil {
			return err
		}
		st = b.tx.StmtContext(ctx, st)
		args := make([]any, 0, n*cols)
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// statement returns the prepared multi-row statement for n rows of cols
// values, preparing it once per store.
func (s *Store) statement(ctx context.Context, prefix string, cols, n int, suffix string) (*sql.Stmt, error) {
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%s", prefix, cols, n, suffix)
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.stmts[key]; ok {
		return st, nil
	}
	tuple := "(" + placeholders(cols) + ")"
	st, err := s.db.PrepareContext(ctx, prefix+strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")+suffix)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[key] = st
	return st, nil
}

// expiresValue is the stored form of an item's expiry: NULL for never.
func expiresValue(it lore.Item) any {
	if it.Expires.IsZero() {
		return nil
	}
	return micros(it.Expires)
}

// retag writes a stored row's new tags, in the row and in the full-text
// index.
func (b *batch) retag(ctx context.Context, r *row) error {
	if _, err := b.tx.ExecContext(ctx, `UPDATE items SET tags = ? WHERE rowid = ?`, jsonArray(r.item.Tags), r.rowid); err != nil {
		return err
	}
	if _, err := b.tx.ExecContext(ctx, `INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', ?, ?, ?)`,
		r.rowid, r.item.Text, jsonArray(r.storedTags)); err != nil {
		return err
	}
	return b.insertRows(ctx, `INSERT INTO items_fts (rowid, text, tags) VALUES `, [][]any{ftsRow(r)}, "")
}

// loadRows reads stored items, with their evidence and its confidences,
// selected by a FROM clause that names items i (and a WHERE clause):
// "items i WHERE …", or a join that looks items up.
func loadRows(ctx context.Context, q querier, from string, args ...any) ([]*row, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+rowColumnsOf+` FROM `+from, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		st, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, st.row())
	}
	return out, rows.Err()
}

// row is the stored row as merging keeps it.
func (st stored) row() *row {
	return &row{rowid: st.rowid, item: st.item, conf: st.conf, storedTags: st.item.Tags}
}

// stored is an item row as scanRow reads it.
type stored struct {
	rowid int64
	item  lore.Item
	conf  []float64 // the confidence each session of item.Evidence brought
}

// rowColumns are the columns scanRow reads, in its order.
const rowColumns = `rowid, id, text, category, repo, agent, confidence, manual_confidence, status,
	source_count, first_seen, last_confirmed, expires, signature, tags, related, evidence`

type scanner interface{ Scan(...any) error }

func scanRow(r scanner) (stored, error) {
	var (
		st                      stored
		first, last             int64
		expires                 sql.NullInt64
		tags, related, evidence string
		category, status        string
	)
	it := &st.item
	err := r.Scan(&st.rowid, &it.ID, &it.Text, &category, &it.Repo, &it.Agent, &it.Confidence, &it.Manual,
		&status, &it.SourceCount, &first, &last, &expires, &it.Signature, &tags, &related, &evidence)
	if err != nil {
		return st, err
	}
	it.Category, it.Status = lore.Category(category), lore.Status(status)
	it.FirstSeen, it.LastConfirmed = fromMicros(first), fromMicros(last)
	if expires.Valid {
		it.Expires = fromMicros(expires.Int64)
	}
	// Most items have neither; decoding "[]" costs more than reading the row.
	if tags != "[]" {
		if err := json.Unmarshal([]byte(tags), &it.Tags); err != nil {
			return st, fmt.Errorf("item %s: tags: %w", it.ID, err)
		}
	}
	if related != "[]" {
		if err := json.Unmarshal([]byte(related), &it.Related); err != nil {
			return st, fmt.Errorf("item %s: related: %w", it.ID, err)
		}
	}
	if evidence != "[]" {
		if it.Evidence, st.conf, err = parseEvidence(evidence); err != nil {
			return st, fmt.Errorf("item %s: evidence: %w", it.ID, err)
		}
	}
	return st, nil
}

// evidenceJSON is the stored form of an item's evidence: a JSON array of
// [session, position, confidence], in the order it arrived.
func evidenceJSON(ev []lore.Evidence, conf []float64) string {
	if len(ev) == 0 {
		return "[]"
	}
	b := make([]byte, 0, 48*len(ev))
	b = append(b, '[')
	for i, e := range ev {
		if i > 0 {
			b = append(b, ',')
		}
		session, _ := json.Marshal(e.Session)
		b = append(append(append(b, '['), session...), ',')
		b = strconv.AppendInt(b, int64(e.Position), 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, conf[i], 'g', -1, 64)
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// parseEvidence reads what evidenceJSON wrote (or migration 0006). Boot
// and search read it for every item they load: the form those writers
// give is read directly, anything else by encoding/json.
func parseEvidence(s string) ([]lore.Evidence, []float64, error) {
	if ev, conf, ok := parsePlainEvidence(s); ok {
		return ev, conf, nil
	}
	var raw [][3]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, nil, err
	}
	ev, conf := make([]lore.Evidence, len(raw)), make([]float64, len(raw))
	for i, x := range raw {
		if err := json.Unmarshal(x[0], &ev[i].Session); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(x[1], &ev[i].Position); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(x[2], &conf[i]); err != nil {
			return nil, nil, err
		}
	}
	return ev, conf, nil
}

// parsePlainEvidence reads [["session",position,confidence],…] without
// spaces, escapes or invalid UTF-8 in the sessions; ok is false for
// anything else.
func parsePlainEvidence(s string) (ev []lore.Evidence, conf []float64, ok bool) {
	if len(s) < 2 || s[0] != '[' {
		return nil, nil, false
	}
	for i := 1; ; {
		if !strings.HasPrefix(s[i:], `["`) {
			return nil, nil, false
		}
		i += 2
		end := strings.IndexAny(s[i:], `"\`)
		if end <= 0 || s[i+end] != '"' || i+end+1 >= len(s) || s[i+end+1] != ',' {
			return nil, nil, false
		}
		session := s[i : i+end]
		if !utf8.ValidString(session) {
			return nil, nil, false // encoding/json makes it valid
		}
		i += end + 2
		comma := strings.IndexByte(s[i:], ',')
		if comma < 0 {
			return nil, nil, false
		}
		pos, err := strconv.Atoi(s[i : i+comma])
		if err != nil {
			return nil, nil, false
		}
		i += comma + 1
		close := strings.IndexByte(s[i:], ']')
		if close < 0 {
			return nil, nil, false
		}
		c, err := strconv.ParseFloat(s[i:i+close], 64)
		if err != nil {
			return nil, nil, false
		}
		i += close + 1
		ev, conf = append(ev, lore.Evidence{Session: session, Position: pos}), append(conf, c)
		switch {
		case i == len(s)-1 && s[i] == ']':
			return ev, conf, true
		case i < len(s) && s[i] == ',':
			i++
		default:
			return nil, nil, false
		}
	}
}
