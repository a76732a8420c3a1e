package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// Item returns the item with this id, or the one item whose id starts
// with it.
func (s *Store) Item(ctx context.Context, id string) (lore.Item, error) {
	r, err := itemRow(ctx, s.pool, id)
	if err != nil {
		return lore.Item{}, err
	}
	return r.item, nil
}

// itemRow returns the stored row of the item with this id or unique id
// prefix; ENOTFOUND when there is none.
func itemRow(ctx context.Context, q querier, id string) (*row, error) {
	rowid, _, err := resolve(ctx, q, "items", "item", id)
	if err != nil {
		return nil, err
	}
	rows, err := loadRows(ctx, q, `SELECT `+itemColumns+` FROM items i WHERE i.rowid = $1`, rowid)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, lore.Errorf(lore.ENOTFOUND, "no item %s", id)
	}
	return rows[0], nil
}

// resolve returns the rowid and id of the row of table (items, attempts:
// a thing of this name) that id names: an id, or the start of exactly
// one id.
func resolve(ctx context.Context, q querier, table, thing, id string) (int64, string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !lore.ValidIDPrefix(id) {
		return 0, "", lore.Errorf(lore.EINVALID, "%q is not an %s id (4 to 24 hex digits)", id, thing)
	}
	rows, err := q.Query(ctx, `SELECT rowid, id FROM `+table+` WHERE id >= $1 AND id < $2 ORDER BY id LIMIT 2`, id, id+"~")
	if err != nil {
		return 0, "", err
	}
	type found struct {
		rowid int64
		id    string
	}
	fs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (found, error) {
		var f found
		return f, r.Scan(&f.rowid, &f.id)
	})
	if err != nil {
		return 0, "", err
	}
	switch {
	case len(fs) == 0:
		return 0, "", lore.Errorf(lore.ENOTFOUND, "no %s %s", thing, id)
	case len(fs) > 1 && fs[0].id != id:
		return 0, "", lore.Errorf(lore.EINVALID, "%s is the start of several ids (%s, %s, …): give more of it", id, fs[0].id, fs[1].id)
	}
	return fs[0].rowid, fs[0].id, nil
}

// where turns a filter into SQL conditions on items i, adding their
// arguments to a.
func (s *Store) where(f lore.Filter, a *args) string {
	conds := []string{"true"}
	if !f.AnyStatus {
		statuses := []string{string(lore.StatusActive)}
		if len(f.Statuses) > 0 {
			statuses = statuses[:0]
			for _, st := range f.Statuses {
				statuses = append(statuses, string(st))
			}
		}
		conds = append(conds, "i.status = ANY("+a.add(statuses)+")")
	}
	if f.Repo != "" {
		k := a.add(lore.RepoKey(f.Repo))
		if f.AnyOwner && !strings.Contains(f.Repo, "/") {
			conds = append(conds, "(i.repo_key = "+k+" OR i.repo_name_key = "+k+")")
		} else {
			conds = append(conds, "i.repo_key = "+k)
		}
	}
	if f.Agent != "" {
		conds = append(conds, "i.agent = "+a.add(f.Agent))
	}
	if f.Category != "" {
		conds = append(conds, "i.category = "+a.add(string(f.Category)))
	}
	if f.NoRepo {
		conds = append(conds, "i.repo = ''")
	}
	if f.NoAgent {
		conds = append(conds, "i.agent = ''")
	}
	if !f.Expired {
		conds = append(conds, "(i.expires IS NULL OR i.expires > "+a.add(s.now())+")")
	}
	return strings.Join(conds, " AND ")
}

// pageSize is how many items Items reads at a time: no cursor stays open
// while fn runs, so fn may use the store.
const pageSize = 500

// Items calls fn for every item f selects, in id order.
func (s *Store) Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error {
	after := ""
	for {
		var a args
		cond := s.where(f, &a)
		its, err := items(ctx, s.pool, `SELECT `+itemColumns+` FROM items i WHERE i.id > `+a.add(after)+` AND `+cond+
			` ORDER BY i.id LIMIT `+strconv.Itoa(pageSize), a...)
		if err != nil {
			return err
		}
		for _, it := range its {
			if err := fn(it); err != nil {
				return err
			}
		}
		if len(its) < pageSize {
			return nil
		}
		after = its[len(its)-1].ID
	}
}

// Best returns the limit items f selects that are most confident, then
// most recently added, without their evidence.
func (s *Store) Best(ctx context.Context, f lore.Filter, n int) ([]lore.Item, error) {
	if n <= 0 {
		return nil, nil
	}
	var a args
	cond := s.where(f, &a)
	return items(ctx, s.pool, `SELECT `+bestColumns+` FROM items i WHERE `+cond+
		` ORDER BY i.confidence DESC, i.rowid DESC LIMIT `+strconv.Itoa(n), a...)
}

// Count returns how many items f selects.
func (s *Store) Count(ctx context.Context, f lore.Filter) (int, error) {
	var a args
	cond := s.where(f, &a)
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM items i WHERE `+cond, a...).Scan(&n)
	return n, err
}

// Recall returns the pitfalls and tool quirks of q's signatures and of
// its command, most confident first, without their evidence: read from
// the signature index and a range of the command index.
func (s *Store) Recall(ctx context.Context, q lore.RecallQuery) ([]lore.Item, error) {
	n := q.Limit
	if n <= 0 {
		n = 10
	}
	f := q.Filter
	f.Category = ""
	var a args
	var parts []string
	var sigs []string
	for _, sig := range q.Signatures {
		if sig != "" {
			sigs = append(sigs, sig)
		}
	}
	if len(sigs) > 0 {
		parts = append(parts, `SELECT `+bestColumns+` FROM items i WHERE i.signature <> '' AND i.signature = ANY(`+a.add(sigs)+`)
			AND i.category IN ('pitfall', 'tool-quirk') AND `+s.where(f, &a))
	}
	if q.Command != "" && !strings.ContainsAny(q.Command, "`\t\n") {
		// The command index's range of texts that open with "`command";
		// then a space or a backtick must follow.
		from := a.add("`" + q.Command)
		parts = append(parts, `SELECT `+bestColumns+` FROM items i WHERE i.category IN ('pitfall', 'tool-quirk')
			AND i.text COLLATE "C" >= `+from+` AND i.text COLLATE "C" < `+from+` || chr(1114111)
			AND substr(i.text, char_length(`+from+`) + 1, 1) IN (' ', '`+"`"+`') AND `+s.where(f, &a))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	return items(ctx, s.pool, `SELECT * FROM (`+strings.Join(parts, " UNION ")+`) AS i ORDER BY i.confidence DESC, i.id LIMIT `+
		strconv.Itoa(n), a...)
}

// Search tuning: a term held by commonAt items or more is common. Scoring
// every item that holds a common word costs a read of each (a tenth of a
// second at 100,000 items), for items that rank low anyway; so when a
// question has common terms, Search scores the items holding its rare
// terms and the newest window items holding any term (when all terms are
// common, also the newest window holding all of them, or all but the
// commonest), as the SQLite store does. Should that leave fewer hits than
// asked for, every match is scored, unless the query is Bounded.
const (
	commonAt = 500
	window   = 250
)

// textWeights are ts_rank_cd's weights of {D, C, B, A}: a match in the
// text (A) counts twice one in the tags (B), as in the SQLite store.
const textWeights = `'{0, 0, 0.5, 1}'`

// Search finds the items that answer q: any of its terms (stemmed, stop
// words dropped). An item scores, for each term it holds, ts_rank_cd of
// the term (how often it holds it, in the text weighing twice the tags)
// times the term's inverse document frequency, so that an item holding a
// question's rare word ranks above the many holding its common ones, as
// bm25 ranks them in the SQLite store. Ties go to the more confident
// item. Which items are scored is bounded as commonAt says.
func (s *Store) Search(ctx context.Context, q lore.Query) ([]lore.Hit, error) {
	ts := terms.Of(q.Text)
	limit := cmp.Or(q.Limit, 10)
	if len(ts) == 0 || limit < 0 {
		return nil, nil
	}
	tq, err := s.textQuery(ctx, "items", "i", textWeights, ts)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	query := func(matches string) ([]lore.Hit, error) {
		a := slices.Clone(tq.args)
		return s.hits(ctx, `SELECT `+itemColumns+`, `+tq.score+` AS score FROM items i
			WHERE `+matches+` AND `+s.where(q.Filter, &a)+` ORDER BY score DESC, i.confidence DESC, i.id LIMIT `+strconv.Itoa(limit), a...)
	}
	if tq.bounded == "" {
		return query(tq.every)
	}
	hits, err := query(tq.bounded)
	if err != nil || len(hits) >= limit || q.Bounded {
		return hits, err
	}
	return query(tq.every)
}

// textQuery is a question's terms as SQL over the search vectors of a
// table: a row's score, and the conditions on the rows to score.
type textQuery struct {
	args  args
	score string // Σ idf × ts_rank_cd over the terms
	every string // the rows holding any term
	// bounded is the rows worth scoring when some terms are common (see
	// commonAt), "" when every match is.
	bounded string
}

// textQuery returns the query of terms ts over the rows of table (alias
// as) whose search vectors ts_rank_cd weighs with weights.
func (s *Store) textQuery(ctx context.Context, table, as, weights string, ts []string) (textQuery, error) {
	ws, err := s.weigh(ctx, table, ts)
	if err != nil {
		return textQuery{}, err
	}
	var q textQuery
	tqs := make([]string, len(ts))
	var score, rare, common []string
	commonest := -1
	for i, t := range ts {
		tqs[i] = `plainto_tsquery('lore_english', ` + q.args.add(t) + `)`
		score = append(score, q.args.add(ws[i].idf)+`::float8 * ts_rank_cd(`+weights+`, `+as+`.search, `+tqs[i]+`)`)
		if !ws[i].common {
			rare = append(rare, tqs[i])
			continue
		}
		common = append(common, tqs[i])
		if commonest < 0 || ws[i].idf < ws[commonest].idf {
			commonest = i
		}
	}
	all := `(` + strings.Join(tqs, " || ") + `)`
	q.score, q.every = strings.Join(score, " + "), as+`.search @@ `+all
	if len(common) == 0 {
		return q, nil
	}
	newest := func(tq string) string {
		return `(SELECT rowid FROM ` + table + ` WHERE search @@ ` + tq + ` ORDER BY rowid DESC LIMIT ` + strconv.Itoa(window) + `)`
	}
	cands := []string{newest(all)}
	if len(rare) > 0 {
		cands = append(cands, `(SELECT rowid FROM `+table+` WHERE search @@ (`+strings.Join(rare, " || ")+`))`)
	} else if len(common) > 1 {
		cands = append(cands, newest(`(`+strings.Join(common, " && ")+`)`))
		if len(common) > 2 {
			most := slices.Delete(slices.Clone(tqs), commonest, commonest+1)
			cands = append(cands, newest(`(`+strings.Join(most, " && ")+`)`))
		}
	}
	q.bounded = as + `.rowid IN (` + strings.Join(cands, " UNION ") + `)`
	return q, nil
}

// hits reads the items of a query that selects itemColumns and a score.
func (s *Store) hits(ctx context.Context, query string, args ...any) ([]lore.Hit, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var hits []lore.Hit
	for rows.Next() {
		var sc float64
		r, err := scanRow(rows, &sc)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		hits = append(hits, lore.Hit{Item: r.item, Score: sc})
	}
	return hits, rows.Err()
}

// termWeight is how much a term says of which rows are alike.
type termWeight struct {
	idf    float64 // bm25's inverse document frequency, with its floor
	common bool    // held by commonAt rows or more
}

// weigh returns the weight of each term in table's search vectors: from
// how many rows hold it, counted up to commonAt, of about how many rows
// there are. A common term's count is estimated from where its first
// commonAt matches end, as rows are mostly kept in the order they were
// added.
func (s *Store) weigh(ctx context.Context, table string, ts []string) ([]termWeight, error) {
	var a args
	cols := []string{`(SELECT coalesce(max(rowid), 0) FROM ` + table + `)`}
	for _, t := range ts {
		cols = append(cols, `(SELECT count(*) || ' ' || coalesce(max(rowid), 0) FROM (SELECT rowid FROM `+table+
			` WHERE search @@ plainto_tsquery('lore_english', `+a.add(t)+`) LIMIT `+strconv.Itoa(commonAt)+`) AS m)`)
	}
	var total int64
	counts := make([]string, len(ts))
	dest := []any{&total}
	for i := range counts {
		dest = append(dest, &counts[i])
	}
	if err := s.pool.QueryRow(ctx, `SELECT `+strings.Join(cols, ", "), a...).Scan(dest...); err != nil {
		return nil, err
	}
	ws := make([]termWeight, len(ts))
	for i, c := range counts {
		var n, end int64
		fmt.Sscan(c, &n, &end)
		of := total
		if ws[i].common = n >= commonAt; ws[i].common {
			of = end // n of the first end rows
		}
		ws[i].idf = max(1e-6, math.Log((float64(of)-float64(n)+0.5)/(float64(n)+0.5)))
	}
	return ws, nil
}

// Searches returns what Search returns for each query.
func (s *Store) Searches(ctx context.Context, qs []lore.Query) ([][]lore.Hit, error) {
	out := make([][]lore.Hit, len(qs))
	for i, q := range qs {
		var err error
		if out[i], err = s.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// errNoRows tells a query that found nothing.
func errNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// Shares returns the item's evidence and each session's share of its
// confidence, in the order they arrived.
func (s *Store) Shares(ctx context.Context, id string) ([]lore.Evidence, []float64, error) {
	r, err := itemRow(ctx, s.pool, id)
	if err != nil {
		return nil, nil, err
	}
	return r.item.Evidence, r.conf, nil
}
