package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// LogAttempts validates and prepares attempts (lore.PrepareAttempt) and
// stores them in one transaction, each replacing the stored attempt of
// the same key, whose id, analysis, reflection and parent it keeps where
// it has none.
func (s *Store) LogAttempts(ctx context.Context, as []lore.Attempt) ([]lore.Attempt, error) {
	out, err := lore.PrepareAttempts(as, s.now())
	if err != nil || len(out) == 0 {
		return out, err
	}
	err = s.write(ctx, func(tx pgx.Tx) error {
		for i := range out {
			if err := logAttempt(ctx, tx, &out[i]); err != nil {
				if len(out) > 1 {
					return fmt.Errorf("attempt %d: %w", i+1, err)
				}
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func logAttempt(ctx context.Context, tx pgx.Tx, a *lore.Attempt) error {
	key := lore.AttemptKey(*a)
	var id, analysis, reflection, parent string
	err := tx.QueryRow(ctx, `DELETE FROM attempts WHERE key = $1 RETURNING id, analysis, reflection, parent`, key).
		Scan(&id, &analysis, &reflection, &parent)
	switch {
	case err == nil:
		a.ID = id
		a.Analysis, a.Reflection, a.Parent = cmp.Or(a.Analysis, analysis), cmp.Or(a.Reflection, reflection), cmp.Or(a.Parent, parent)
	case errNoRows(err):
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM attempts WHERE id = $1)`, a.ID).Scan(&taken); err != nil {
			return err
		}
		if taken {
			a.ID = lore.LongAttemptID(*a) // the short id is another attempt's
		}
	default:
		return err
	}
	if a.Parent != "" {
		_, parent, err := resolve(ctx, tx, "attempts", "attempt", a.Parent)
		if err != nil {
			return fmt.Errorf("parent: %w", err)
		}
		a.Parent = parent
	}
	_, err = tx.Exec(ctx, `INSERT INTO attempts (id, key, at, repo, repo_key, agent, session, task, approach, area, files, diff,
		diff_cut, tests, outcome, analysis, reflection, retries, points_before, points_after, parent, tags, search)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
		`+attemptVector(23)+`)`,
		a.ID, key, a.At, a.Repo, lore.RepoKey(a.Repo), a.Agent, a.Session, a.Task, a.Approach, a.Area, nonNil(a.Files), []byte(a.Diff),
		a.DiffCut, a.Tests, a.Outcome, a.Analysis, a.Reflection, a.Retries, a.PointsBefore, a.PointsAfter, a.Parent, nonNil(a.Tags),
		words(a.Task), words(a.Approach), words(a.Analysis), words(a.Reflection))
	return err
}

// attemptVector is the SQL of an attempt's search vector from the words
// of its task, approach, analysis and reflection, the arguments from
// $first on: what it set out to do says most of what it is about (A),
// what it taught next (B), how it went about it least (C).
func attemptVector(first int) string {
	arg := func(i int) string { return "to_tsvector('lore_english', $" + strconv.Itoa(first+i) + "::text)" }
	return `setweight(` + arg(0) + `, 'A') || setweight(` + arg(1) + `, 'C') || setweight(` + arg(2) + `, 'B') || setweight(` + arg(3) + `, 'B')`
}

const attemptColumns = `a.rowid, a.id, a.at, a.repo, a.agent, a.session, a.task, a.approach, a.area, a.files, a.diff_cut, a.outcome,
	a.analysis, a.reflection, a.retries, a.points_before, a.points_after, a.parent, a.tags`

// attempts reads the attempts of a query that selects attemptColumns,
// and the diff and the tests after them when withDiff.
func (s *Store) attempts(ctx context.Context, withDiff bool, query string, args ...any) ([]lore.Attempt, []int64, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var as []lore.Attempt
	var rowids []int64
	for rows.Next() {
		var a lore.Attempt
		var rowid int64
		var diff []byte
		dest := []any{&rowid, &a.ID, &a.At, &a.Repo, &a.Agent, &a.Session, &a.Task, &a.Approach, &a.Area, &a.Files, &a.DiffCut,
			&a.Outcome, &a.Analysis, &a.Reflection, &a.Retries, &a.PointsBefore, &a.PointsAfter, &a.Parent, &a.Tags}
		if withDiff {
			dest = append(dest, &diff, &a.Tests)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, err
		}
		a.At, a.Diff = a.At.UTC(), string(diff)
		a.Files, a.Tags = nilIfEmpty(a.Files), nilIfEmpty(a.Tags)
		as, rowids = append(as, a), append(rowids, rowid)
	}
	return as, rowids, rows.Err()
}

// attempt returns the attempt of this rowid, with its diff.
func (s *Store) attempt(ctx context.Context, rowid int64, id string) (lore.Attempt, error) {
	as, _, err := s.attempts(ctx, true, `SELECT `+attemptColumns+`, a.diff, a.tests FROM attempts a WHERE a.rowid = $1`, rowid)
	if err != nil {
		return lore.Attempt{}, err
	}
	if len(as) == 0 {
		return lore.Attempt{}, lore.Errorf(lore.ENOTFOUND, "no attempt %s", id)
	}
	return as[0], nil
}

// Attempt returns the attempt with this id or unique id prefix, with its
// diff and test output.
func (s *Store) Attempt(ctx context.Context, id string) (lore.Attempt, error) {
	rowid, _, err := resolve(ctx, s.pool, "attempts", "attempt", id)
	if err != nil {
		return lore.Attempt{}, err
	}
	return s.attempt(ctx, rowid, id)
}

// Reflect sets an attempt's reflection, redacted.
func (s *Store) Reflect(ctx context.Context, id, text string) (lore.Attempt, error) {
	text = lore.RedactText(text)
	var rowid int64
	err := s.write(ctx, func(tx pgx.Tx) error {
		var err error
		if rowid, _, err = resolve(ctx, tx, "attempts", "attempt", id); err != nil {
			return err
		}
		var task, approach, analysis string
		if err := tx.QueryRow(ctx, `SELECT task, approach, analysis FROM attempts WHERE rowid = $1`, rowid).
			Scan(&task, &approach, &analysis); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE attempts SET reflection = $2, search = `+attemptVector(3)+` WHERE rowid = $1`,
			rowid, text, words(task), words(approach), words(analysis), words(text))
		return err
	})
	if err != nil {
		return lore.Attempt{}, err
	}
	return s.attempt(ctx, rowid, id)
}

// Attempts calls fn for every attempt f selects, newest first.
func (s *Store) Attempts(ctx context.Context, f lore.AttemptFilter, fn func(lore.Attempt) error) error {
	var a args
	cond := attemptWhere(f.Repo, f.Outcome, f.Since, &a)
	if f.File != "" {
		cond += ` AND a.files @> ARRAY[` + a.add(f.File) + `]`
	}
	cols := attemptColumns
	if f.WithDiff {
		cols += `, a.diff, a.tests`
	}
	as, _, err := s.attempts(ctx, f.WithDiff, `SELECT `+cols+` FROM attempts a WHERE `+cond+` ORDER BY a.at DESC, a.rowid DESC`, a...)
	if err != nil {
		return err
	}
	for _, at := range as {
		if err := fn(at); err != nil {
			return err
		}
	}
	return nil
}

// attemptWhere is the condition on attempts a of a repository, an
// outcome and a time, each when given.
func attemptWhere(repo, outcome string, since time.Time, a *args) string {
	conds := []string{"true"}
	if repo != "" {
		conds = append(conds, "a.repo_key = "+a.add(lore.RepoKey(repo)))
	}
	if outcome != "" {
		conds = append(conds, "a.outcome = "+a.add(strings.ToLower(outcome)))
	}
	if !since.IsZero() {
		conds = append(conds, "a.at >= "+a.add(since))
	}
	return strings.Join(conds, " AND ")
}

// attemptWeights are ts_rank_cd's weights of {D, C, B, A}: as the
// SQLite store's bm25 weighs task 4, analysis and reflection 2, approach
// 1.
const attemptWeights = `'{0, 0.25, 0.5, 1}'`

// SimilarAttempts returns the attempts most like q, best first, without
// their diffs: the best text matches (scored as Search scores items) and
// the newest attempts that touched each of q's files, ranked by
// lore.RankAttempts.
func (s *Store) SimilarAttempts(ctx context.Context, q lore.AttemptQuery) ([]lore.AttemptHit, error) {
	text := map[int64]float64{}
	var order []int64
	candidate := func(rowid int64, score float64) {
		if _, ok := text[rowid]; !ok {
			order = append(order, rowid)
		}
		text[rowid] = max(text[rowid], score)
	}
	if ts := terms.Of(q.Text); len(ts) > 0 {
		tq, err := s.textQuery(ctx, "attempts", "a", attemptWeights, ts)
		if err != nil {
			return nil, err
		}
		// The best text matches, of those worth scoring; of every match
		// when those are fewer than asked for (an old repository's).
		for _, matches := range []string{tq.bounded, tq.every} {
			if matches == "" {
				continue
			}
			a := slices.Clone(tq.args)
			rows, err := s.pool.Query(ctx, `SELECT a.rowid, `+tq.score+` AS score FROM attempts a
				WHERE `+matches+` AND `+attemptWhere(q.Repo, q.Outcome, q.Since, &a)+`
				ORDER BY score DESC, a.rowid DESC LIMIT `+strconv.Itoa(lore.SimilarCandidates), a...)
			if err != nil {
				return nil, err
			}
			var rowid int64
			var sc float64
			var scores []float64
			var rowids []int64
			if _, err := pgx.ForEachRow(rows, []any{&rowid, &sc}, func() error {
				rowids, scores = append(rowids, rowid), append(scores, sc)
				return nil
			}); err != nil {
				return nil, err
			}
			if len(rowids) < cmp.Or(q.Limit, 5) && matches != tq.every {
				continue
			}
			for i, r := range rowids {
				candidate(r, scores[i]/max(scores[0], 1e-9)) // best first: a share of the best's
			}
			break
		}
	}
	files := lore.CleanFiles(q.Files)
	weight := map[string]float64{}
	if len(files) > 0 {
		var total int
		if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(rowid), 0) FROM attempts`).Scan(&total); err != nil {
			return nil, err
		}
		for _, f := range files {
			var n int
			if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM attempts WHERE files @> ARRAY[$1]`, f).Scan(&n); err != nil {
				return nil, err
			}
			weight[f] = lore.FileWeight(total, n)
			var a args
			file := a.add(f)
			rows, err := s.pool.Query(ctx, `SELECT a.rowid FROM attempts a WHERE a.files @> ARRAY[`+file+`] AND `+
				attemptWhere(q.Repo, q.Outcome, q.Since, &a)+` ORDER BY a.rowid DESC LIMIT `+strconv.Itoa(lore.SimilarCandidates), a...)
			if err != nil {
				return nil, err
			}
			var rowid int64
			if _, err := pgx.ForEachRow(rows, []any{&rowid}, func() error { candidate(rowid, 0); return nil }); err != nil {
				return nil, err
			}
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	as, rowids, err := s.attempts(ctx, false, `SELECT `+attemptColumns+` FROM attempts a WHERE a.rowid = ANY($1)`, order)
	if err != nil {
		return nil, err
	}
	hits := make([]lore.AttemptHit, len(as))
	for i, a := range as {
		hits[i] = lore.AttemptHit{Attempt: a, Score: text[rowids[i]]}
	}
	return lore.RankAttempts(q, hits, weight), nil
}
