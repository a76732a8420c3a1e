package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
)

// Add merges items into the store, all in one transaction: when one item
// is invalid, none is written.
func (s *Store) Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.put(ctx, items, true)
}

// Import writes items as they are, merging only items with an id already
// stored, in one transaction.
func (s *Store) Import(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.put(ctx, items, false)
}

func (s *Store) put(ctx context.Context, items []lore.Item, add bool) ([]lore.AddResult, error) {
	now := s.now()
	prepared := make([]lore.Item, len(items))
	for i, it := range items {
		p, err := lore.Prepare(it, now)
		if err != nil {
			if len(items) > 1 {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
			}
			return nil, err
		}
		prepared[i] = p
	}
	var results []lore.AddResult
	err := s.write(ctx, func(tx *sql.Tx) error {
		w, err := newWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		results = make([]lore.AddResult, len(prepared))
		for i, it := range prepared {
			if add {
				results[i], err = w.add(ctx, it)
			} else {
				results[i], err = w.importItem(ctx, it)
			}
			if err != nil {
				return fmt.Errorf("item %d: %w", i+1, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// writer holds the statements of one write transaction.
type writer struct {
	tx                                       *sql.Tx
	byID, norm, bands, insert, band, addEv   *sql.Stmt
	evConf, update, signature, setSuperseded *sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&w.byID, `SELECT ` + rowColumns + ` FROM items WHERE id = ?`},
		{&w.norm, `SELECT norm FROM items WHERE rowid = ?`},
		{&w.bands, `SELECT DISTINCT item FROM bands WHERE key IN (` + placeholders(dedup.Bands) + `)`},
		{&w.insert, `INSERT INTO items (id, text, norm, category, repo, agent, confidence, manual_confidence,
			status, source_count, first_seen, last_confirmed, expires, signature, tags, related)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.band, `INSERT OR IGNORE INTO bands (key, item) VALUES (?, ?)`},
		{&w.addEv, `INSERT OR IGNORE INTO evidence (item, session, position, confidence, ord)
			VALUES (?, ?, ?, ?, (SELECT count(*) FROM evidence WHERE item = ?))`},
		{&w.evConf, `SELECT confidence FROM evidence WHERE item = ?`},
		{&w.update, `UPDATE items SET confidence = ?, manual_confidence = ?, status = ?, source_count = ?,
			first_seen = ?, last_confirmed = ?, expires = ?, tags = ?, related = ? WHERE rowid = ?`},
		{&w.signature, `SELECT rowid, id FROM items WHERE signature = ? AND category = ? AND repo = ?
			AND agent = ? AND status IN ('active', 'candidate') AND rowid <> ?`},
		{&w.setSuperseded, `UPDATE items SET status = 'superseded' WHERE rowid = ?`},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.st = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.byID, w.norm, w.bands, w.insert, w.band, w.addEv, w.evConf, w.update, w.signature, w.setSuperseded} {
		if st != nil {
			st.Close()
		}
	}
}

// stored is an item row as merging needs it.
type stored struct {
	rowid  int64
	item   lore.Item
	norm   string
	manual float64
}

// rowColumns are the columns scanRow reads, in its order.
const rowColumns = `rowid, id, text, norm, category, repo, agent, confidence, manual_confidence, status,
	source_count, first_seen, last_confirmed, expires, signature, tags, related`

type scanner interface{ Scan(...any) error }

func scanRow(r scanner) (stored, error) {
	var (
		st                 stored
		first, last        int64
		expires            sql.NullInt64
		tags, related      string
		category, status   string
		confidence, manual float64
	)
	it := &st.item
	err := r.Scan(&st.rowid, &it.ID, &it.Text, &st.norm, &category, &it.Repo, &it.Agent, &confidence, &manual,
		&status, &it.SourceCount, &first, &last, &expires, &it.Signature, &tags, &related)
	if err != nil {
		return st, err
	}
	it.Category, it.Status = lore.Category(category), lore.Status(status)
	it.Confidence, st.manual = confidence, manual
	it.FirstSeen, it.LastConfirmed = fromMicros(first), fromMicros(last)
	if expires.Valid {
		it.Expires = fromMicros(expires.Int64)
	}
	if err := json.Unmarshal([]byte(tags), &it.Tags); err != nil {
		return st, fmt.Errorf("item %s: tags: %w", it.ID, err)
	}
	if err := json.Unmarshal([]byte(related), &it.Related); err != nil {
		return st, fmt.Errorf("item %s: related: %w", it.ID, err)
	}
	return st, nil
}

func jsonList(xs []string) string {
	if len(xs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(xs)
	return string(b)
}

func nullMicros(it lore.Item) any {
	if it.Expires.IsZero() {
		return nil
	}
	return micros(it.Expires)
}

// lookup finds the stored item an incoming one is the same as by id. On
// the rare short-id collision between different texts, the incoming item
// takes its long id.
func (w *writer) lookup(ctx context.Context, it *lore.Item) (stored, bool, error) {
	norm := lore.NormalizeText(it.Text)
	for range 2 {
		st, err := scanRow(w.byID.QueryRowContext(ctx, it.ID))
		if errors.Is(err, sql.ErrNoRows) {
			return st, false, nil
		}
		if err != nil {
			return st, false, err
		}
		if st.norm == norm && st.item.Category == it.Category && st.item.Repo == it.Repo && st.item.Agent == it.Agent {
			return st, true, nil
		}
		long := lore.LongItemID(it.Text, it.Category, it.Repo, it.Agent)
		if it.ID == long {
			return st, false, fmt.Errorf("id %s is taken by a different item", it.ID)
		}
		it.ID = long
	}
	return stored{}, false, nil
}

func scope(it lore.Item) string {
	return string(it.Category) + "\x00" + it.Repo + "\x00" + it.Agent
}

func (w *writer) add(ctx context.Context, it lore.Item) (lore.AddResult, error) {
	st, found, err := w.lookup(ctx, &it)
	if err != nil {
		return lore.AddResult{}, err
	}
	if found {
		return w.merge(ctx, st, it, false)
	}
	fp := dedup.Of(lore.NormalizeText(it.Text))
	keys := fp.BandKeys(scope(it))
	near, err := w.nearest(ctx, fp, keys)
	if err != nil {
		return lore.AddResult{}, err
	}
	if near > 0 {
		st, err := scanRow(w.tx.QueryRowContext(ctx, `SELECT `+rowColumns+` FROM items WHERE rowid = ?`, near))
		if err != nil {
			return lore.AddResult{}, err
		}
		r, err := w.merge(ctx, st, it, false)
		r.NearDuplicate = true
		return r, err
	}
	// A new item: with evidence, each session brings the item's
	// confidence; without, the confidence counts as given by hand.
	per, manual := it.Confidence, it.Confidence
	if len(it.Evidence) > 0 {
		manual = 0
		cs := make([]float64, len(it.Evidence))
		for i := range cs {
			cs[i] = per
		}
		it.Confidence = lore.CombineConfidence(cs...)
	}
	rowid, err := w.insertItem(ctx, it, manual, keys, per)
	if err != nil {
		return lore.AddResult{}, err
	}
	r := lore.AddResult{ID: it.ID, Action: lore.Created}
	r.Superseded, err = w.supersedeBySignature(ctx, rowid, it)
	return r, err
}

// perSession is the confidence each of an item's sessions must bring for
// the item to have its confidence: the inverse of CombineConfidence over
// equal shares, for items imported without per-session figures.
func perSession(it lore.Item) float64 {
	n := float64(len(it.Evidence))
	return 1 - math.Pow(1-min(it.Confidence, lore.MaxConfidence), 1/n)
}

// nearest returns the rowid of the stored item most similar to fp among
// those sharing a band key, if it is a near-duplicate, else 0.
func (w *writer) nearest(ctx context.Context, fp dedup.Fingerprint, keys [dedup.Bands]int64) (int64, error) {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	rows, err := w.bands.QueryContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	var candidates []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, err
		}
		candidates = append(candidates, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	slices.Sort(candidates)
	best, bestSim := int64(0), 0.0
	for _, c := range candidates {
		var norm string
		if err := w.norm.QueryRowContext(ctx, c).Scan(&norm); err != nil {
			return 0, err
		}
		if sim := dedup.Similarity(fp, dedup.Of(norm)); sim >= dedup.Threshold && sim > bestSim {
			best, bestSim = c, sim
		}
	}
	return best, nil
}

// insertItem writes a new row with its band keys and evidence, each
// session bringing confidence per.
func (w *writer) insertItem(ctx context.Context, it lore.Item, manual float64, keys [dedup.Bands]int64, per float64) (int64, error) {
	res, err := w.insert.ExecContext(ctx, it.ID, it.Text, lore.NormalizeText(it.Text), string(it.Category),
		it.Repo, it.Agent, it.Confidence, manual, string(it.Status), len(it.Evidence),
		micros(it.FirstSeen), micros(it.LastConfirmed), nullMicros(it), it.Signature,
		jsonList(it.Tags), jsonList(it.Related))
	if err != nil {
		return 0, err
	}
	rowid, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if _, err := w.band.ExecContext(ctx, k, rowid); err != nil {
			return 0, err
		}
	}
	for _, e := range it.Evidence {
		if _, err := w.addEv.ExecContext(ctx, rowid, e.Session, e.Position, per, rowid); err != nil {
			return 0, err
		}
	}
	return rowid, nil
}

// supersedeBySignature marks superseded the active items with the new
// item's error signature and scope: the same error with a different
// resolution.
func (w *writer) supersedeBySignature(ctx context.Context, rowid int64, it lore.Item) ([]string, error) {
	if it.Signature == "" || (it.Category != lore.CategoryPitfall && it.Category != lore.CategoryToolQuirk) ||
		it.Status != lore.StatusActive && it.Status != lore.StatusCandidate {
		return nil, nil
	}
	rows, err := w.signature.QueryContext(ctx, it.Signature, string(it.Category), it.Repo, it.Agent, rowid)
	if err != nil {
		return nil, err
	}
	var old []int64
	var ids []string
	for rows.Next() {
		var r int64
		var id string
		if err := rows.Scan(&r, &id); err != nil {
			rows.Close()
			return nil, err
		}
		old, ids = append(old, r), append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(old) == 0 {
		return nil, err
	}
	for _, r := range old {
		if _, err := w.setSuperseded.ExecContext(ctx, r); err != nil {
			return nil, err
		}
	}
	related := jsonList(appendNew(it.Related, ids...))
	_, err = w.tx.ExecContext(ctx, `UPDATE items SET related = ? WHERE rowid = ?`, related, rowid)
	return ids, err
}

func appendNew(xs []string, ys ...string) []string {
	for _, y := range ys {
		if !slices.Contains(xs, y) {
			xs = append(xs, y)
		}
	}
	return xs
}

// merge folds an incoming item into a stored one: new sessions' evidence,
// a higher hand-given confidence, new tags and links, wider times. With
// asIs, the incoming evidence brings the per-session confidence that
// reproduces the incoming item's confidence (import); otherwise each new
// session brings the incoming confidence (add).
func (w *writer) merge(ctx context.Context, st stored, in lore.Item, asIs bool) (lore.AddResult, error) {
	old := st.item
	r := lore.AddResult{ID: old.ID, Action: lore.Unchanged}
	per := in.Confidence
	if asIs && len(in.Evidence) > 0 {
		per = perSession(in)
	}
	added := 0
	for _, e := range in.Evidence {
		res, err := w.addEv.ExecContext(ctx, st.rowid, e.Session, e.Position, per, st.rowid)
		if err != nil {
			return r, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			added++
		}
	}
	manual := st.manual
	if len(in.Evidence) == 0 && in.Confidence > manual {
		manual = in.Confidence
	}
	it := old
	it.Tags = appendNew(slices.Clone(old.Tags), in.Tags...)
	it.Related = appendNew(slices.Clone(old.Related), in.Related...)
	if in.FirstSeen.Before(it.FirstSeen) {
		it.FirstSeen = in.FirstSeen
	}
	if added > 0 || manual != st.manual {
		if in.LastConfirmed.After(it.LastConfirmed) {
			it.LastConfirmed = in.LastConfirmed
		}
	}
	if !old.Expires.IsZero() && in.Expires.After(old.Expires) {
		it.Expires = in.Expires
	}
	it.SourceCount = old.SourceCount + added
	if added > 0 || manual != st.manual {
		cs, err := w.evidenceConfidences(ctx, st.rowid)
		if err != nil {
			return r, err
		}
		it.Confidence = lore.CombineConfidence(append(cs, manual)...)
	}
	if it.Status == lore.StatusCandidate && (in.Status == lore.StatusActive && !asIs ||
		it.SourceCount >= 2 && it.Confidence >= lore.PromoteConfidence) {
		it.Status = lore.StatusActive
	}
	if it.Confidence == old.Confidence && manual == st.manual && it.Status == old.Status &&
		it.SourceCount == old.SourceCount && it.FirstSeen.Equal(old.FirstSeen) &&
		it.LastConfirmed.Equal(old.LastConfirmed) && it.Expires.Equal(old.Expires) &&
		slices.Equal(it.Tags, old.Tags) && slices.Equal(it.Related, old.Related) {
		return r, nil
	}
	r.Action = lore.Merged
	_, err := w.update.ExecContext(ctx, it.Confidence, manual, string(it.Status), it.SourceCount,
		micros(it.FirstSeen), micros(it.LastConfirmed), nullMicros(it), jsonList(it.Tags), jsonList(it.Related), st.rowid)
	return r, err
}

func (w *writer) evidenceConfidences(ctx context.Context, rowid int64) ([]float64, error) {
	rows, err := w.evConf.QueryContext(ctx, rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cs []float64
	for rows.Next() {
		var c float64
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// importItem writes an item as it is, or merges it into the stored item
// with its id.
func (w *writer) importItem(ctx context.Context, it lore.Item) (lore.AddResult, error) {
	st, err := scanRow(w.byID.QueryRowContext(ctx, it.ID))
	switch {
	case err == nil:
		return w.merge(ctx, st, it, true)
	case !errors.Is(err, sql.ErrNoRows):
		return lore.AddResult{}, err
	}
	manual, per := it.Confidence, 0.0
	if len(it.Evidence) > 0 {
		manual, per = 0, perSession(it)
	}
	keys := dedup.Of(lore.NormalizeText(it.Text)).BandKeys(scope(it))
	if _, err := w.insertItem(ctx, it, manual, keys, per); err != nil {
		return lore.AddResult{}, err
	}
	return lore.AddResult{ID: it.ID, Action: lore.Created}, nil
}
