package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// Item returns the item with this id, or the one item whose id starts
// with it.
func (s *Store) Item(ctx context.Context, id string) (lore.Item, error) {
	r, err := itemRow(ctx, s.db, id)
	if err != nil {
		return lore.Item{}, err
	}
	return r.item, nil
}

// itemRow returns the stored row of the item with this id or unique id
// prefix; ENOTFOUND when there is none.
func itemRow(ctx context.Context, q querier, id string) (*row, error) {
	rowid, _, err := resolve(ctx, q, id)
	if err != nil {
		return nil, err
	}
	rows, err := loadRows(ctx, q, `items i WHERE rowid = ?`, rowid)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, lore.Errorf(lore.ENOTFOUND, "no item %s", id)
	}
	return rows[0], nil
}

// where turns a filter into SQL conditions on the items table (aliased i)
// and their arguments.
func (s *Store) where(f lore.Filter) (string, []any) {
	var conds []string
	var args []any
	if !f.AnyStatus {
		statuses := f.Statuses
		if len(statuses) == 0 {
			statuses = []lore.Status{lore.StatusActive}
		}
		conds = append(conds, "i.status IN ("+placeholders(len(statuses))+")")
		for _, st := range statuses {
			args = append(args, string(st))
		}
	}
	if f.Repo != "" {
		cond, repoArgs := repoCond(f)
		conds = append(conds, cond)
		args = append(args, repoArgs...)
	}
	for _, c := range []struct{ col, val string }{{"agent", f.Agent}, {"category", string(f.Category)}} {
		if c.val != "" {
			conds = append(conds, "i."+c.col+" = ?")
			args = append(args, c.val)
		}
	}
	if f.NoRepo {
		conds = append(conds, "i.repo = '' COLLATE NOCASE")
	}
	if f.NoAgent {
		conds = append(conds, "i.agent = ''")
	}
	if !f.Expired {
		conds = append(conds, "(i.expires IS NULL OR i.expires > ?)")
		args = append(args, micros(s.now()))
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// repoCond is the condition on i.repo of a filter with a Repo, as
// lore.Filter.SelectsRepo decides: the name whatever the case of its ASCII
// letters (NOCASE, as the scope index items_scope compares, so the index
// serves it), and with AnyOwner a bare name also after the first "/" of
// an owner/name.
func repoCond(f lore.Filter) (string, []any) {
	if !f.AnyOwner || strings.Contains(f.Repo, "/") {
		return "i.repo = ? COLLATE NOCASE", []any{f.Repo}
	}
	return "(i.repo = ? COLLATE NOCASE OR (instr(i.repo, '/') > 0 AND substr(i.repo, instr(i.repo, '/') + 1) = ? COLLATE NOCASE))",
		[]any{f.Repo, f.Repo}
}

// rowColumnsOf is rowColumns with every column qualified by the alias i.
var rowColumnsOf = func() string {
	cols := strings.Split(rowColumns, ",")
	for i, c := range cols {
		cols[i] = "i." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}()

// bestColumns are rowColumnsOf without the evidence and the reviews,
// which Best leaves out.
var bestColumns = strings.Replace(strings.Replace(rowColumnsOf, "i.evidence", "'[]'", 1), "i.reviews", "'[]'", 1)

// Search tuning: a term found in commonAt items or more is common. When a
// query mixes common and rare terms, bm25 ranks the newest window items
// matching any term, and every item holding one of its rare terms; when
// all of several terms are common, see searchCommon. Both are written
// into the SQL text rather than bound: a bound LIMIT on a full-text query
// made SQLite prepare the statement again at every run.
const (
	commonAt = 500
	window   = 250
)

// commonTerm is a common search term, quoted for MATCH, with its inverse
// document frequency estimated from its first commonAt matches.
type commonTerm struct {
	match string
	idf   float64
}

// Search finds the items that answer q: any of its terms (stemmed, stop
// words dropped), ranked by bm25 with matches in the text weighing twice
// those in tags; ties go to the more confident item.
//
// Scoring every item that holds a common word would take tens of
// milliseconds on a large store, for items that rank low anyway. So when
// a term is common, Search scores the newest matches (see window) and the
// items holding a rare term, which carry the meaning of a question; the
// items it skips are older ones that match only common words. A question
// of several words that are all common is ranked by an estimate of bm25
// instead, over the items that hold all or most of them (searchCommon).
// Should that leave fewer hits than asked for, every match is scored,
// unless the query is Bounded.
func (s *Store) Search(ctx context.Context, q lore.Query) ([]lore.Hit, error) {
	hits, err := s.Searches(ctx, []lore.Query{q})
	if err != nil {
		return nil, err
	}
	return hits[0], nil
}

// Searches runs queries for the same text together, as Search would run
// each: the index is read once for all of them, since reading it, not
// filtering what it found, is what a search costs. Queries for different
// texts are run one by one.
func (s *Store) Searches(ctx context.Context, qs []lore.Query) ([][]lore.Hit, error) {
	hits := make([][]lore.Hit, len(qs))
	for _, q := range qs {
		if q.Text != qs[0].Text {
			for i, q := range qs {
				var err error
				if hits[i], err = s.Search(ctx, q); err != nil {
					return nil, err
				}
			}
			return hits, nil
		}
	}
	if len(qs) == 0 {
		return hits, nil
	}
	ts := terms.Of(qs[0].Text)
	if len(ts) == 0 {
		return hits, nil
	}
	fs := make([]lore.Filter, len(qs))
	limits := make([]int, len(qs))
	for i, q := range qs {
		fs[i], limits[i] = q.Filter, q.Limit
		if limits[i] <= 0 {
			limits[i] = 10
		}
	}
	// How many items hold each term, up to commonAt, and the rowid the
	// last of those has (for idf), in one query of one-row tables.
	var all, rare, counts []string
	var args []any
	for _, t := range ts {
		all = append(all, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
		counts = append(counts, `(SELECT count(*), coalesce(max(rowid), 0) FROM
			(SELECT rowid FROM items_fts WHERE items_fts MATCH ? LIMIT `+strconv.Itoa(commonAt)+`))`)
		args = append(args, all[len(all)-1])
	}
	ns := make([]int, len(all))
	ends := make([]int64, len(all))
	dest := make([]any, 0, 2*len(all))
	for i := range ns {
		dest = append(dest, &ns[i], &ends[i])
	}
	if err := s.queryRow(ctx, `SELECT * FROM `+strings.Join(counts, " CROSS JOIN "), args, dest...); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var common []commonTerm
	rareMatches := 0 // at most
	for i, n := range ns {
		if n < commonAt {
			rare = append(rare, all[i])
			rareMatches += n
		} else {
			common = append(common, commonTerm{match: all[i], idf: idf(commonAt, ends[i])})
		}
	}
	full := strings.Join(all, " OR ")
	switch {
	case len(rare) == len(all):
		return s.search(ctx, fs, full, 0, limits, rareMatches)
	case len(common) == len(all) && len(all) > 1:
		return s.searchCommon(ctx, qs, fs, common, full, limits)
	}
	var from int64
	err := s.queryRow(ctx, `SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET `+
		strconv.Itoa(window-1), []any{full}, &from)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("search: %w", err)
	}
	// From from on (or in all, when from is 0) there are window matches
	// at most.
	hits, err = s.search(ctx, fs, full, from, limits, window)
	if err != nil || from == 0 {
		return hits, err
	}
	if len(rare) > 0 {
		more, err := s.search(ctx, fs, strings.Join(rare, " OR "), 0, limits, rareMatches)
		if err != nil {
			return nil, err
		}
		for i := range hits {
			for _, h := range more[i] {
				if !slices.ContainsFunc(hits[i], func(x lore.Hit) bool { return x.ID == h.ID }) {
					hits[i] = append(hits[i], h)
				}
			}
			slices.SortStableFunc(hits[i], func(a, b lore.Hit) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.ID, b.ID))
			})
			hits[i] = hits[i][:min(len(hits[i]), limits[i])]
		}
	}
	var short []int
	for i, q := range qs {
		if len(hits[i]) < limits[i] && !q.Bounded {
			short = append(short, i)
		}
	}
	if len(short) > 0 {
		again, err := s.search(ctx, pick(fs, short), full, 0, pick(limits, short), -1)
		if err != nil {
			return nil, err
		}
		for j, i := range short {
			hits[i] = again[j]
		}
	}
	return hits, nil
}

// idf is bm25's inverse document frequency, with its floor, of a term
// held by n of the items up to rowid end: about end items, as rowids are
// dense but for deletions.
func idf(n int, end int64) float64 {
	return max(1e-6, math.Log((float64(end)-float64(n)+0.5)/(float64(n)+0.5)))
}

// searchCommon answers a question of several terms that are all common.
// bm25 counts the items holding each term before it scores one, reading
// every entry of the term's document list: most of the time of a search,
// and all the time again for a second query. So an item scores what bm25
// gives an item holding each of its terms once: the sum of their inverse
// document frequencies, estimated from where each term's first commonAt
// matches end. The items scored are the newest window holding every term
// (found by intersecting the document lists, so an old item that holds
// them all is not missed), when fewer than limit hold them all also those
// holding all but the commonest term (unless every query is Bounded), and
// the newest window matches of each term.
func (s *Store) searchCommon(ctx context.Context, qs []lore.Query, fs []lore.Filter, ts []commonTerm, full string, limits []int) ([][]lore.Hit, error) {
	scores := map[int64]float64{}
	total, commonest := 0.0, 0
	for i, t := range ts {
		total += t.idf
		if t.idf < ts[commonest].idf {
			commonest = i
		}
	}
	every, err := s.newest(ctx, andOf(ts, -1))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	for _, r := range every {
		scores[r] = total
	}
	// Intersecting all but one common term walks their long document lists
	// again: a bounded search (a session start, which has the scope's most
	// confident items besides) goes without, to its single-term matches.
	bounded := allBounded(qs)
	if len(every) < slices.Max(limits) && len(ts) > 2 && !bounded {
		most, err := s.newest(ctx, andOf(ts, commonest))
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		for _, r := range most {
			if _, ok := scores[r]; !ok {
				scores[r] = total - ts[commonest].idf
			}
		}
	}
	// The newest matches of single terms rank below every item holding all
	// or most of them; a bounded search leaves them out when there are as
	// many of those as the largest limit.
	if !bounded || len(scores) < slices.Max(limits) {
		if err := s.scoreNewest(ctx, ts, scores); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
	}
	// The scores are the same whatever the filter; each filter takes its
	// best of them, and one left short scores every match, unless Bounded.
	hits, err := s.rankScored(ctx, fs, scores, limits)
	if err != nil {
		return nil, err
	}
	for i := range fs {
		if len(hits[i]) < limits[i] && !qs[i].Bounded {
			again, err := s.search(ctx, fs[i:i+1], full, 0, limits[i:i+1], -1)
			if err != nil {
				return nil, err
			}
			hits[i] = again[0]
		}
	}
	return hits, nil
}

// allBounded reports whether every query is Bounded.
func allBounded(qs []lore.Query) bool {
	for _, q := range qs {
		if !q.Bounded {
			return false
		}
	}
	return true
}

// andOf is the query for the items holding every term but ts[skip].
func andOf(ts []commonTerm, skip int) string {
	var ms []string
	for i, t := range ts {
		if i != skip {
			ms = append(ms, t.match)
		}
	}
	return strings.Join(ms, " AND ")
}

// newest returns the rowids of the newest window items that match, or of
// all when there are no more. FTS5 reads an AND query forwards faster
// than backwards (forwards it skips through the longer document lists),
// and a query that matches more than window stops early either way: so
// the matches are read forwards first, and backwards only when there are
// more.
func (s *Store) newest(ctx context.Context, match string) ([]int64, error) {
	rs, err := s.rowids(ctx, `SELECT rowid FROM items_fts WHERE items_fts MATCH ? LIMIT `+strconv.Itoa(window+1), match)
	if err != nil || len(rs) <= window {
		return rs, err
	}
	return s.rowids(ctx, `SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid DESC LIMIT `+strconv.Itoa(window), match)
}

// scoreNewest scores the newest matches of the terms: the newest window of
// each term, from the oldest rowid where every term's list is complete.
func (s *Store) scoreNewest(ctx context.Context, ts []commonTerm, scores map[int64]float64) error {
	parts := make([]string, len(ts))
	args := make([]any, 0, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf(`SELECT %d, rowid FROM (SELECT rowid FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid DESC LIMIT %d)`, i, window)
		args = append(args, t.match)
	}
	rows, err := s.query(ctx, strings.Join(parts, " UNION ALL "), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	held := map[int64]float64{}
	oldest := make([]int64, len(ts))
	for rows.Next() {
		var i int
		var r int64
		if err := rows.Scan(&i, &r); err != nil {
			return err
		}
		held[r] += ts[i].idf
		if oldest[i] == 0 || r < oldest[i] {
			oldest[i] = r
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	from := slices.Max(oldest)
	for r, sc := range held {
		if r >= from && sc > scores[r] {
			scores[r] = sc
		}
	}
	return nil
}

// rowids runs a query of rowids.
func (s *Store) rowids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var rs []int64
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, rows.Err()
}

// rankScored returns, for each filter, the best limits[i] of the scored
// items that fs[i] selects: by score, then confidence, then id. It looks
// up the best limit*4 first (of equal scores, the newest), and the others
// only for filters that leave too few.
func (s *Store) rankScored(ctx context.Context, fs []lore.Filter, scores map[int64]float64, limits []int) ([][]lore.Hit, error) {
	type scored struct {
		rowid int64
		score float64
	}
	all := make([]scored, 0, len(scores))
	for r, sc := range scores {
		all = append(all, scored{r, sc})
	}
	slices.SortFunc(all, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.rowid, a.rowid)) })
	parts := [][]scored{all}
	if first := slices.Max(limits) * 4; first < len(all) {
		parts = [][]scored{all[:first], all}
	}
	return eachShort(limits, len(parts), func(pass int, todo []int) ([][]lore.Hit, error) {
		pairs := make([][2]any, len(parts[pass]))
		for i, p := range parts[pass] {
			pairs[i] = [2]any{p.rowid, -p.score}
		}
		// Scores are negated: the query ranks lowest first, as bm25 does.
		return s.topHits(ctx, pick(fs, todo), `SELECT c.value ->> 0 AS rowid, c.value ->> 1 AS score FROM json_each(?) AS c`,
			[]any{jsonArray(pairs)}, pick(limits, todo))
	})
}

// eachShort runs query for every filter (by index), then pass by pass
// again for those it gave fewer hits than their limits, until none is
// short or the passes run out; each filter keeps its last pass's hits.
func eachShort(limits []int, passes int, query func(pass int, todo []int) ([][]lore.Hit, error)) ([][]lore.Hit, error) {
	out := make([][]lore.Hit, len(limits))
	todo := make([]int, len(limits))
	for i := range todo {
		todo[i] = i
	}
	for pass := 0; pass < passes && len(todo) > 0; pass++ {
		hits, err := query(pass, todo)
		if err != nil {
			return nil, err
		}
		var next []int
		for j, i := range todo {
			out[i] = hits[j]
			if len(hits[j]) < limits[i] {
				next = append(next, i)
			}
		}
		todo = next
	}
	return out, nil
}

// pick returns the elements of xs at these indexes.
func pick[T any](xs []T, at []int) []T {
	out := make([]T, len(at))
	for j, i := range at {
		out[j] = xs[i]
	}
	return out
}

// search runs one full-text query over the items with rowid from on, for
// each filter: the limits[i] best that fs[i] selects, best first. most is
// how many items match at most, or -1 when that is not known.
func (s *Store) search(ctx context.Context, fs []lore.Filter, match string, from int64, limits []int, most int) ([][]lore.Hit, error) {
	// The best matches are taken from the full-text index alone, then
	// joined to items for the filters: joining every match costs more than
	// ranking it. For filters that leave too few, every match is joined.
	// When the first cap would hold every match anyway, they are joined
	// at once: each query computes bm25's weights anew, walking every
	// match of every term.
	caps := []int{slices.Max(limits) * 4, -1}
	if most >= 0 && most <= caps[0] {
		caps = caps[1:]
	}
	return eachShort(limits, len(caps), func(pass int, todo []int) ([][]lore.Hit, error) {
		return s.searchTop(ctx, pick(fs, todo), match, from, pick(limits, todo), caps[pass])
	})
}

// searchTop is search over the cap best matches (all when cap < 0).
func (s *Store) searchTop(ctx context.Context, fs []lore.Filter, match string, from int64, limits []int, cap int) ([][]lore.Hit, error) {
	return s.topHits(ctx, fs, matchSource(cap), []any{match, from}, limits)
}

// matchSource is the best matches of a full-text query from a rowid on,
// at most cap of them (all when it is negative), as searchSQL's source.
// bm25 is NULL (its arithmetic went NaN) for a query of several terms,
// one of them in no item, when no item has tags: every store's first
// items. Such a match scores 0, below every scored one.
func matchSource(cap int) string {
	return `SELECT rowid, coalesce(bm25(items_fts, 2.0, 1.0), 0) AS score FROM items_fts
	WHERE items_fts MATCH ? AND rowid >= ? ORDER BY score ` + limit(cap)
}

// limit is a LIMIT clause of n rows. The number is written out, not
// bound: SQLite plans a LIMIT by the value bound to it, so a statement
// whose bound LIMIT changes is prepared again at its next run, and a
// prepared statement would save nothing (a fifth of Best was this).
func limit(n int) string { return "LIMIT " + strconv.Itoa(n) }

// topHits returns, for each filter, the best limits[i] items it selects of
// those source gives, best (lowest score) first, with their evidence.
func (s *Store) topHits(ctx context.Context, fs []lore.Filter, source string, sourceArgs []any, limits []int) ([][]lore.Hit, error) {
	query, args := s.searchSQL(fs, source, sourceArgs, limits)
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var (
		loaded   []lore.Hit
		picked   = make([][]int, len(fs)) // of each filter, the hits in loaded
		inFilter = make([]bool, len(fs))
	)
	for full := 0; full < len(fs) && rows.Next(); {
		var st stored
		var score float64
		var err error
		st, err = scanRow(scanFunc(func(dest ...any) error {
			dest = append(dest, &score)
			for i := range inFilter {
				dest = append(dest, &inFilter[i])
			}
			return rows.Scan(dest...)
		}))
		if err != nil {
			rows.Close()
			return nil, err
		}
		loaded = append(loaded, lore.Hit{Item: st.item, Score: -score})
		for i, in := range inFilter {
			if in && len(picked[i]) < limits[i] {
				if picked[i] = append(picked[i], len(loaded)-1); len(picked[i]) == limits[i] {
					full++
				}
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := make([][]lore.Hit, len(fs))
	for i, ks := range picked {
		for _, k := range ks {
			hits[i] = append(hits[i], loaded[k])
		}
	}
	return hits, nil
}

// searchSQL is topHits' query and its arguments: the rows source gives
// (rowid and score, lowest best), the columns of their items, and for
// each filter whether it selects the item, of the items some filter
// selects, best first. The source's rows lead the
// join (CROSS JOIN fixes the order): led by the scope index instead,
// SQLite would read every item of a large scope, such as the global ones,
// to find the few that match.
func (s *Store) searchSQL(fs []lore.Filter, source string, sourceArgs []any, limits []int) (string, []any) {
	// Each filter's condition appears twice, as its flag and in WHERE,
	// and so do its arguments.
	var conds []string
	var condArgs []any
	for _, f := range fs {
		cond, args := s.where(f)
		conds = append(conds, "("+cond+")")
		condArgs = append(condArgs, args...)
	}
	args := append(slices.Clone(sourceArgs), condArgs...)
	args = append(args, condArgs...)
	query := `WITH f AS MATERIALIZED (` + source + `)
		SELECT ` + rowColumnsOf + `, f.score, ` + strings.Join(conds, ", ") + `
		FROM f CROSS JOIN items i ON i.rowid = f.rowid
		WHERE ` + strings.Join(conds, " OR ") + `
		ORDER BY f.score, i.confidence DESC, i.id`
	if len(fs) == 1 {
		// One filter: SQLite keeps only the best while it sorts. With
		// several, the rows of one may all come before another's.
		query += ` ` + limit(limits[0])
	}
	return query, args
}

// scanFunc adapts a function to the scanner interface.
type scanFunc func(...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// pageSize is how many items Items reads at a time; no cursor stays open
// while fn runs, so fn may use the store.
const pageSize = 500

// Items calls fn for every item f selects, in id order.
func (s *Store) Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error {
	cond, args := s.where(f)
	after := ""
	for {
		rows, err := loadRows(ctx, s.db, `items i WHERE i.id > ? AND `+cond+` ORDER BY i.id LIMIT ?`,
			append(append([]any{after}, args...), pageSize)...)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := fn(r.item); err != nil {
				return err
			}
		}
		if len(rows) < pageSize {
			return nil
		}
		after = rows[len(rows)-1].item.ID
	}
}

// Best returns the limit items f selects that are most confident, then
// most recently added, without their evidence. Both orders are the scope
// index's (items_scope, read backwards), so a read stops at its limit.
func (s *Store) Best(ctx context.Context, f lore.Filter, n int) ([]lore.Item, error) {
	if n <= 0 {
		return nil, nil
	}
	cond, args := s.where(f)
	rows, err := s.query(ctx, `SELECT `+bestColumns+` FROM items i WHERE `+cond+
		` ORDER BY i.confidence DESC, i.rowid DESC `+limit(n), args...)
	if err != nil {
		return nil, err
	}
	return scanItems(rows, n)
}

// scanItems reads the items of rows, at most n, and closes rows.
func scanItems(rows *sql.Rows, n int) ([]lore.Item, error) {
	defer rows.Close()
	items := make([]lore.Item, 0, min(n, 256)) // an item is large: growing the slice costs
	for rows.Next() {
		st, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		items = append(items, st.item)
	}
	return items, rows.Err()
}

// Count returns how many items f selects.
func (s *Store) Count(ctx context.Context, f lore.Filter) (int, error) {
	cond, args := s.where(f)
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM items i WHERE `+cond, args, &n)
	return n, err
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// resolve returns the rowid and id of the item id names: an id, or the
// start of exactly one id.
func resolve(ctx context.Context, q querier, id string) (int64, string, error) {
	return resolveIn(ctx, q, "items", "item", id)
}

// resolveIn returns the rowid and id of the row of table (items,
// attempts: a thing of this name) id names: an id, or the start of
// exactly one id.
func resolveIn(ctx context.Context, q querier, table, thing, id string) (int64, string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !lore.ValidIDPrefix(id) {
		return 0, "", lore.Errorf(lore.EINVALID, "%q is not an %s id (4 to 24 hex digits)", id, thing)
	}
	rows, err := q.QueryContext(ctx, `SELECT rowid, id FROM `+table+` WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, id, id+"~")
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	var rowids []int64
	var ids []string
	for rows.Next() {
		var r int64
		var full string
		if err := rows.Scan(&r, &full); err != nil {
			return 0, "", err
		}
		rowids, ids = append(rowids, r), append(ids, full)
	}
	if err := rows.Err(); err != nil {
		return 0, "", err
	}
	switch {
	case len(ids) == 0:
		return 0, "", lore.Errorf(lore.ENOTFOUND, "no %s %s", thing, id)
	case len(ids) > 1 && ids[0] != id:
		return 0, "", lore.Errorf(lore.EINVALID, "%s is the start of several ids (%s, %s, …): give more of it", id, ids[0], ids[1])
	}
	return rowids[0], ids[0], nil
}

// Shares returns the item's evidence and each session's share of its
// confidence, in the order they arrived.
func (s *Store) Shares(ctx context.Context, id string) ([]lore.Evidence, []float64, error) {
	r, err := itemRow(ctx, s.db, id)
	if err != nil {
		return nil, nil, err
	}
	return r.item.Evidence, r.conf, nil
}
