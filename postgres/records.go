package postgres

// Harvest records, boots and episodes.

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// Harvested returns the record of the last harvest of a session by an
// extractor, and whether there is one.
func (s *Store) Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+harvestColumns+` FROM harvests WHERE session = $1 AND extractor = $2`, session, extractor)
	if err != nil {
		return lore.Harvest{}, false, err
	}
	hs, err := pgx.CollectRows(rows, scanHarvest)
	if err != nil || len(hs) == 0 {
		return lore.Harvest{}, false, err
	}
	return hs[0], true, nil
}

const harvestColumns = `session, extractor, path, size, mtime, hash, sessions, at, items`

func scanHarvest(r pgx.CollectableRow) (lore.Harvest, error) {
	var h lore.Harvest
	var mtime int64
	err := r.Scan(&h.Session, &h.Extractor, &h.Path, &h.Size, &mtime, &h.Hash, &h.Sessions, &h.At, &h.Items)
	h.At = h.At.UTC()
	if mtime != 0 {
		h.ModTime = time.Unix(0, mtime).UTC()
	}
	return h, err
}

// RecordHarvest stores records in one transaction, each replacing the
// record of the same session and extractor.
func (s *Store) RecordHarvest(ctx context.Context, hs ...lore.Harvest) error {
	if err := lore.CheckHarvests(hs); err != nil {
		return err
	}
	if len(hs) == 0 {
		return nil
	}
	now := s.now()
	return s.write(ctx, func(tx pgx.Tx) error {
		var b pgx.Batch
		for _, h := range hs {
			at := h.At
			if at.IsZero() {
				at = now
			}
			var mtime int64 // nanoseconds: the transcript's time as the file system gives it
			if !h.ModTime.IsZero() {
				mtime = h.ModTime.UnixNano()
			}
			b.Queue(`INSERT INTO harvests (`+harvestColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
				ON CONFLICT (session, extractor) DO UPDATE SET path = excluded.path, size = excluded.size, mtime = excluded.mtime,
				hash = excluded.hash, sessions = excluded.sessions, at = excluded.at, items = excluded.items`,
				h.Session, h.Extractor, lore.RecordPath(h.Path), h.Size, mtime, h.Hash, h.Sessions, lore.StoreTime(at), h.Items)
		}
		return tx.SendBatch(ctx, &b).Close()
	})
}

// Harvests calls fn for every harvest record, by session, then
// extractor.
func (s *Store) Harvests(ctx context.Context, fn func(lore.Harvest) error) error {
	rows, err := s.pool.Query(ctx, `SELECT `+harvestColumns+` FROM harvests ORDER BY session, extractor`)
	if err != nil {
		return err
	}
	hs, err := pgx.CollectRows(rows, scanHarvest)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if err := fn(h); err != nil {
			return err
		}
	}
	return nil
}

// RecordBoot stores what boot handed a session, its task redacted
// (lore.PrepareBoot).
func (s *Store) RecordBoot(ctx context.Context, b lore.Boot) error {
	b = lore.PrepareBoot(b)
	if b.At.IsZero() {
		b.At = s.now()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO boots (at, session, repo, agent, task, items, tokens, withheld, kind)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		lore.StoreTime(b.At), b.Session, b.Repo, b.Agent, b.Task, nonNil(b.Items), b.Tokens, b.Withheld, b.Kind)
	return err
}

// Boots calls fn for every boot recorded at or after since, oldest
// first.
func (s *Store) Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error {
	rows, err := s.pool.Query(ctx, `SELECT at, session, repo, agent, task, items, tokens, withheld, kind FROM boots
		WHERE at >= $1 ORDER BY at, id`, since)
	if err != nil {
		return err
	}
	bs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Boot, error) {
		var b lore.Boot
		err := r.Scan(&b.At, &b.Session, &b.Repo, &b.Agent, &b.Task, &b.Items, &b.Tokens, &b.Withheld, &b.Kind)
		b.At, b.Items = b.At.UTC(), nilIfEmpty(b.Items)
		return b, err
	})
	if err != nil {
		return err
	}
	for _, b := range bs {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// RecordEpisodes replaces each given session's episodes by its own, each
// prepared (lore.PrepareSessions), all in one transaction.
func (s *Store) RecordEpisodes(ctx context.Context, batch ...lore.SessionEpisodes) error {
	prepared, err := lore.PrepareSessions(batch)
	if err != nil {
		return err
	}
	if len(prepared) == 0 {
		return nil
	}
	return s.write(ctx, func(tx pgx.Tx) error {
		var q pgx.Batch
		for _, b := range prepared {
			q.Queue(`DELETE FROM episodes WHERE session = $1`, b.Session)
			for _, e := range b.Episodes {
				var at *time.Time
				if !e.At.IsZero() {
					at = &e.At
				}
				q.Queue(`INSERT INTO episodes (session, agent, repo, at, position, tool, input, error, signature, fix, changes, steps, search)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, to_tsvector('lore_english', $13::text))`,
					e.Session, e.Agent, e.Repo, at, e.Position, e.Tool, e.Input, e.Error, e.Signature, e.Fix, e.Changes, e.Steps, words(e.Error))
			}
		}
		return tx.SendBatch(ctx, &q).Close()
	})
}

// Episode search: how many episodes of a signature are ranked (the
// newest), how many text matches are read, and how many of those are
// checked with lore.MatchesText.
const (
	episodesOfSignature = 500
	textCandidates      = 50
)

const episodeColumns = `e.session, e.agent, e.repo, e.at, e.position, e.tool, e.input, e.error, e.signature, e.fix, e.changes, e.steps`

// Episodes returns the episodes that best match q: those of its
// signature as lore.SortEpisodes ranks them, then those of other
// signatures whose error line matches q's text, best match first.
func (s *Store) Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	before := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if !q.Before.IsZero() {
		before = q.Before
	}
	var out []lore.Episode
	if q.Signature != "" {
		eps, err := s.episodes(ctx, `SELECT `+episodeColumns+` FROM episodes e WHERE e.signature = $1 AND coalesce(e.at, '-infinity') < $2
			ORDER BY e.at DESC NULLS LAST LIMIT `+strconv.Itoa(episodesOfSignature), q.Signature, before)
		if err != nil {
			return nil, err
		}
		lore.SortEpisodes(q, eps)
		out = eps[:min(len(eps), limit)]
	}
	ts := terms.Of(q.Text)
	if len(out) >= limit || len(ts) == 0 {
		return out, nil
	}
	var a args
	var anyOf []string
	for _, t := range ts {
		anyOf = append(anyOf, `plainto_tsquery('lore_english', `+a.add(t)+`)`)
	}
	tq := `(` + strings.Join(anyOf, " || ") + `)`
	more, err := s.episodes(ctx, `SELECT `+episodeColumns+` FROM episodes e
		WHERE e.search @@ `+tq+` AND coalesce(e.at, '-infinity') < `+a.add(before)+` AND e.signature <> `+a.add(q.Signature)+`
		ORDER BY ts_rank_cd(e.search, `+tq+`) DESC, e.at DESC NULLS LAST LIMIT `+strconv.Itoa(textCandidates), a...)
	if err != nil {
		return nil, err
	}
	return lore.AppendMatches(out, more, ts, limit), nil
}

func (s *Store) episodes(ctx context.Context, query string, args ...any) ([]lore.Episode, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.Episode, error) {
		var e lore.Episode
		var at *time.Time
		err := r.Scan(&e.Session, &e.Agent, &e.Repo, &at, &e.Position, &e.Tool, &e.Input, &e.Error, &e.Signature,
			&e.Fix, &e.Changes, &e.Steps)
		if at != nil {
			e.At = at.UTC()
		}
		return e, err
	})
}
