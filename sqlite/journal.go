package sqlite

import (
	"bytes"
	"cmp"
	"compress/flate"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

var _ lore.Journal = (*Store)(nil)

// LogAttempts stores attempts, each prepared by lore.PrepareAttempt, in
// one transaction; an attempt with the key of a stored one replaces it
// and keeps its id, and the analysis, reflection and parent a person gave
// the stored one when the new one has none (lore journal import reading a
// grown transcript again does not undo lore journal reflect).
func (s *Store) LogAttempts(ctx context.Context, as []lore.Attempt) ([]lore.Attempt, error) {
	out, err := lore.PrepareAttempts(as, s.now())
	if err != nil {
		return nil, err
	}
	diffs := make([][]byte, len(out))
	for i, p := range out {
		// Compressed before the write, not under its lock.
		if diffs[i], err = deflate(p.Diff); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		for i := range out {
			if err := logAttempt(ctx, tx, &out[i], diffs[i]); err != nil {
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

func logAttempt(ctx context.Context, tx *sql.Tx, a *lore.Attempt, diff []byte) error {
	key := lore.AttemptKey(*a)
	var rowid int64
	var id string
	var analysis, reflection, parent string
	err := tx.QueryRowContext(ctx, `SELECT rowid, id, analysis, reflection, parent FROM attempts WHERE key = ?`, key).
		Scan(&rowid, &id, &analysis, &reflection, &parent)
	switch {
	case err == nil:
		if _, err := tx.ExecContext(ctx, `DELETE FROM attempts WHERE rowid = ?`, rowid); err != nil {
			return err
		}
		a.ID = id
		a.Analysis, a.Reflection, a.Parent = cmp.Or(a.Analysis, analysis), cmp.Or(a.Reflection, reflection), cmp.Or(a.Parent, parent)
	case errors.Is(err, sql.ErrNoRows):
		var other string
		err := tx.QueryRowContext(ctx, `SELECT key FROM attempts WHERE id = ?`, a.ID).Scan(&other)
		if err == nil {
			a.ID = lore.LongAttemptID(*a) // the short id is another attempt's
		} else if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	default:
		return err
	}
	if a.Parent != "" {
		_, parent, err := resolveAttempt(ctx, tx, a.Parent)
		if err != nil {
			return fmt.Errorf("parent: %w", err)
		}
		a.Parent = parent
	}
	var res sql.Result
	res, err = tx.ExecContext(ctx, `INSERT INTO attempts (id, key, at, repo, agent, session, task, approach, area, files, diff_cut,
		outcome, analysis, reflection, retries, points_before, points_after, parent, tags)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, key, micros(a.At), a.Repo, a.Agent, a.Session, a.Task, a.Approach, a.Area, strings.Join(a.Files, "\n"), a.DiffCut,
		a.Outcome, a.Analysis, a.Reflection, a.Retries, a.PointsBefore, a.PointsAfter, a.Parent, strings.Join(a.Tags, "\n"))
	if err != nil {
		return err
	}
	if rowid, err = res.LastInsertId(); err != nil {
		return err
	}
	if diff != nil || a.Tests != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO attempt_texts (attempt, diff, tests) VALUES (?, ?, ?)`, rowid, diff, a.Tests); err != nil {
			return err
		}
	}
	for _, f := range a.Files {
		if _, err := tx.ExecContext(ctx, `INSERT INTO attempt_files (path, attempt) VALUES (?, ?)`, f, rowid); err != nil {
			return err
		}
	}
	return nil
}

// resolveAttempt returns the rowid and id of the attempt id names: an id,
// or the start of exactly one id.
func resolveAttempt(ctx context.Context, q querier, id string) (int64, string, error) {
	return resolveIn(ctx, q, "attempts", "attempt", id)
}

// Attempt returns the attempt with this id or unique id prefix, with its
// diff.
func (s *Store) Attempt(ctx context.Context, id string) (lore.Attempt, error) {
	rowid, _, err := resolveAttempt(ctx, s.db, id)
	if err != nil {
		return lore.Attempt{}, err
	}
	as, err := s.attempts(ctx, true, `SELECT `+attemptColumns+`, `+textColumns+` FROM `+withTexts+` WHERE a.rowid = ?`, rowid)
	if err != nil {
		return lore.Attempt{}, err
	}
	if len(as) == 0 {
		return lore.Attempt{}, lore.Errorf(lore.ENOTFOUND, "no attempt %s", id)
	}
	return as[0].Attempt, nil
}

// Reflect sets the reflection of the attempt id names, redacted.
func (s *Store) Reflect(ctx context.Context, id, text string) (lore.Attempt, error) {
	text = lore.RedactText(text)
	var rowid int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if rowid, _, err = resolveAttempt(ctx, tx, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE attempts SET reflection = ? WHERE rowid = ?`, text, rowid)
		return err
	})
	if err != nil {
		return lore.Attempt{}, err
	}
	as, err := s.attempts(ctx, true, `SELECT `+attemptColumns+`, `+textColumns+` FROM `+withTexts+` WHERE a.rowid = ?`, rowid)
	if err != nil || len(as) == 0 {
		return lore.Attempt{}, errors.Join(err, lore.Errorf(lore.ENOTFOUND, "no attempt %s", id))
	}
	return as[0].Attempt, nil
}

// Attempts calls fn for every attempt f selects, newest first; with their
// diffs only when f.WithDiff.
func (s *Store) Attempts(ctx context.Context, f lore.AttemptFilter, fn func(lore.Attempt) error) error {
	conds, args := attemptWhere(f.Repo, f.Outcome, f.Since)
	from := `attempts a`
	if f.WithDiff {
		from = withTexts
	}
	if f.File != "" {
		from = `attempt_files af JOIN ` + from + ` ON a.rowid = af.attempt`
		conds = append(conds, `af.path = ?`)
		args = append(args, f.File)
	}
	cols := attemptColumns
	if f.WithDiff {
		cols += ", " + textColumns
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM `+from+` WHERE `+strings.Join(conds, " AND ")+` ORDER BY a.at DESC, a.rowid DESC`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAttempt(rows, f.WithDiff)
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// attemptWhere turns the selections of a filter or query into conditions
// on attempts (aliased a) and their arguments.
func attemptWhere(repo, outcome string, since time.Time) ([]string, []any) {
	conds, args := []string{"1"}, []any{}
	if repo != "" {
		conds, args = append(conds, "a.repo = ? COLLATE NOCASE"), append(args, repo)
	}
	if outcome != "" {
		conds, args = append(conds, "a.outcome = ?"), append(args, strings.ToLower(outcome))
	}
	if !since.IsZero() {
		conds, args = append(conds, "a.at >= ?"), append(args, micros(since))
	}
	return conds, args
}

// similarWordBudget bounds the text search: bm25 reads every attempt
// that holds a word of the query to weigh it, so the words are taken
// rarest first while the attempts that hold them add up to no more than
// this. A word in more attempts says little of which are alike (bm25
// gives it little weight) and costs most. A store of fewer attempts
// searches every word.
const similarWordBudget = 2500

// similarAllCommon is the text score of an attempt that holds every word
// of a query whose words are all over the budget.
const similarAllCommon = 0.5

// bm25 weights of task, approach, analysis and reflection: what an
// attempt set out to do says most of what it is about.
const attemptsBM25 = `bm25(attempts_fts, 4.0, 1.0, 2.0, 2.0)`

// SimilarAttempts returns the attempts most like q, best first, without
// their diffs.
func (s *Store) SimilarAttempts(ctx context.Context, q lore.AttemptQuery) ([]lore.AttemptHit, error) {
	files := lore.CleanFiles(q.Files)
	conds, args := attemptWhere(q.Repo, q.Outcome, q.Since)
	where := strings.Join(conds, " AND ")
	type cand struct{ text float64 }
	cands := map[int64]*cand{}
	var order []int64
	add := func(rowid int64, text float64) {
		if c, ok := cands[rowid]; ok {
			c.text = max(c.text, text)
			return
		}
		cands[rowid] = &cand{text: text}
		order = append(order, rowid)
	}
	if ts := terms.Of(q.Text); len(ts) > 0 {
		ranked, err := s.rankedWords(ctx, ts)
		if err != nil {
			return nil, err
		}
		var rows *sql.Rows
		if len(ranked) > 0 {
			rows, err = s.query(ctx, `SELECT m.rowid, m.score FROM
				(SELECT rowid, `+attemptsBM25+` AS score FROM attempts_fts WHERE attempts_fts MATCH ?) m
				JOIN attempts a ON a.rowid = m.rowid WHERE `+where+`
				ORDER BY m.score LIMIT `+strconv.Itoa(lore.SimilarCandidates), append([]any{strings.Join(ranked, " OR ")}, args...)...)
		} else {
			// Every word is in many attempts: the newest that hold them
			// all, alike in words.
			rows, err = s.query(ctx, `SELECT a.rowid, -1 FROM attempts_fts JOIN attempts a ON a.rowid = attempts_fts.rowid
				WHERE attempts_fts MATCH ? AND `+where+` ORDER BY attempts_fts.rowid DESC LIMIT `+strconv.Itoa(lore.SimilarCandidates),
				append([]any{strings.Join(quoteWords(ts), " AND ")}, args...)...)
		}
		if err != nil {
			return nil, err
		}
		best := 0.0
		for rows.Next() {
			var rowid int64
			var score float64
			if err := rows.Scan(&rowid, &score); err != nil {
				rows.Close()
				return nil, err
			}
			if len(ranked) == 0 {
				add(rowid, similarAllCommon)
				continue
			}
			// Rows come best first: each is scored as a share of the first.
			if -score > best {
				best = -score
			}
			add(rowid, -score/math.Max(best, 1e-9))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	weight := map[string]float64{}
	if len(files) > 0 {
		var total int
		if err := s.queryRow(ctx, `SELECT coalesce(max(rowid), 0) FROM attempts`, nil, &total); err != nil { // about their number, at once
			return nil, err
		}
		for _, f := range files {
			var n int
			if err := s.queryRow(ctx, `SELECT count(*) FROM attempt_files WHERE path = ?`, []any{f}, &n); err != nil {
				return nil, err
			}
			weight[f] = lore.FileWeight(total, n)
		}
		// The newest attempts of each file (all of a rare file's): an
		// attempt that shares several rare files is among them.
		for _, f := range files {
			rows, err := s.query(ctx, `SELECT a.rowid FROM attempt_files af JOIN attempts a ON a.rowid = af.attempt
				WHERE af.path = ? AND `+where+` ORDER BY af.attempt DESC LIMIT `+strconv.Itoa(lore.SimilarCandidates), append([]any{f}, args...)...)
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var rowid int64
				if err := rows.Scan(&rowid); err != nil {
					rows.Close()
					return nil, err
				}
				add(rowid, 0)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	as, err := s.attempts(ctx, false, `SELECT `+attemptColumns+` FROM attempts a WHERE a.rowid IN (`+placeholders(len(order))+`)`, anys(order)...)
	if err != nil {
		return nil, err
	}
	hits := make([]lore.AttemptHit, len(as))
	for i, a := range as {
		hits[i] = lore.AttemptHit{Attempt: a.Attempt, Score: cands[a.rowid].text}
	}
	return lore.RankAttempts(q, hits, weight), nil
}

const attemptColumns = `a.rowid, a.id, a.at, a.repo, a.agent, a.session, a.task, a.approach, a.area, a.files, a.diff_cut, a.outcome,
	a.analysis, a.reflection, a.retries, a.points_before, a.points_after, a.parent, a.tags`

// textColumns are an attempt's diff and test output, from withTexts.
const (
	textColumns = `t.diff, coalesce(t.tests, '')`
	withTexts   = `attempts a LEFT JOIN attempt_texts t ON t.attempt = a.rowid`
)

// storedAttempt is an attempt and its rowid.
type storedAttempt struct {
	lore.Attempt
	rowid int64
}

func scanAttempt(r scanner, withDiff bool) (lore.Attempt, error) {
	a, err := scanStored(r, withDiff)
	return a.Attempt, err
}

func scanStored(r scanner, withDiff bool) (storedAttempt, error) {
	var a storedAttempt
	var at int64
	var files, tags string
	var before, after sql.NullFloat64
	var diff []byte
	dest := []any{&a.rowid, &a.ID, &at, &a.Repo, &a.Agent, &a.Session, &a.Task, &a.Approach, &a.Area, &files, &a.DiffCut,
		&a.Outcome, &a.Analysis, &a.Reflection, &a.Retries, &before, &after, &a.Parent, &tags}
	if withDiff {
		dest = append(dest, &diff, &a.Tests)
	}
	if err := r.Scan(dest...); err != nil {
		return a, err
	}
	a.At = fromMicros(at)
	a.Files, a.Tags = lines(files), lines(tags)
	if before.Valid {
		a.PointsBefore = &before.Float64
	}
	if after.Valid {
		a.PointsAfter = &after.Float64
	}
	if withDiff {
		d, err := inflate(diff)
		if err != nil {
			return a, fmt.Errorf("attempt %s: read its diff: %w", a.ID, err)
		}
		a.Diff = d
	}
	return a, nil
}

func (s *Store) attempts(ctx context.Context, withDiff bool, query string, args ...any) ([]storedAttempt, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var as []storedAttempt
	for rows.Next() {
		a, err := scanStored(rows, withDiff)
		if err != nil {
			return nil, err
		}
		as = append(as, a)
	}
	return as, rows.Err()
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// deflate compresses a diff as attempt_texts keeps it; nil for none.
func deflate(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(w, s); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func inflate(b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	// A diff is at most lore.MaxAttemptDiff; a damaged or hostile row
	// must not inflate without end.
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(b)), lore.MaxAttemptDiff+1))
	return string(out), err
}

// rankedWords returns the words of a query to rank attempts by (quoted
// for MATCH), rarest first, while the attempts that hold them add up to
// at most similarWordBudget; none when even the rarest is in more.
func (s *Store) rankedWords(ctx context.Context, words []string) ([]string, error) {
	quoted := quoteWords(words)
	n := make([]int, len(quoted))
	for i, w := range quoted {
		if err := s.queryRow(ctx, `SELECT count(*) FROM (SELECT rowid FROM attempts_fts WHERE attempts_fts MATCH ? LIMIT `+
			strconv.Itoa(similarWordBudget+1)+`)`, []any{w}, &n[i]); err != nil {
			return nil, err
		}
	}
	order := make([]int, len(quoted))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return n[a] - n[b] })
	var out []string
	sum := 0
	for _, i := range order {
		if n[i] == 0 {
			continue
		}
		if sum+n[i] > similarWordBudget {
			break
		}
		sum += n[i]
		out = append(out, quoted[i])
	}
	return out, nil
}

func quoteWords(words []string) []string {
	quoted := make([]string, len(words))
	for i, t := range words {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return quoted
}
