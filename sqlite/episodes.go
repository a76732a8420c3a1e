package sqlite

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// RecordEpisodes replaces each given session's episodes by its own, each
// prepared by lore.PrepareEpisodes, in one transaction: harvest records a
// batch of sessions at once, and a commit each was a twentieth of its time.
func (s *Store) RecordEpisodes(ctx context.Context, batch ...lore.SessionEpisodes) error {
	// Prepared before the write, not under its lock.
	prepared, err := lore.PrepareSessions(batch)
	if err != nil {
		return err
	}
	if len(prepared) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		del, err := tx.PrepareContext(ctx, `DELETE FROM episodes WHERE session = ?`)
		if err != nil {
			return err
		}
		defer del.Close()
		ins, err := tx.PrepareContext(ctx, `INSERT INTO episodes (session, agent, repo, at, position, tool, input, error, signature, fix, changes, steps)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		for _, b := range prepared {
			if _, err := del.ExecContext(ctx, b.Session); err != nil {
				return err
			}
			for _, e := range b.Episodes {
				var at int64
				if !e.At.IsZero() {
					at = micros(e.At)
				}
				if _, err := ins.ExecContext(ctx, e.Session, e.Agent, e.Repo, at, e.Position, e.Tool, e.Input, e.Error, e.Signature,
					e.Fix, e.Changes, e.Steps); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Episode lookup tuning: how many episodes of one signature are ranked
// (the newest), and how many matches of the error line's words bm25
// scores (the newest) when the signature leaves room.
const (
	episodesOfSignature = 500
	episodesMatched     = 2000
	// textCandidates is how many of the best text matches are checked
	// against lore.MatchesText.
	textCandidates = 50
)

const episodeColumns = `e.session, e.agent, e.repo, e.at, e.position, e.tool, e.input, e.error, e.signature, e.fix, e.changes, e.steps`

// Episodes returns the episodes that best match q (see lore.Store): those
// of its signature (the newest episodesOfSignature of them) ranked by
// lore.SortEpisodes, then those whose error line matches q's text
// (lore.MatchesText) ranked by bm25 among the newest episodesMatched
// that hold any of its words.
func (s *Store) Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	before := int64(1<<63 - 1)
	if !q.Before.IsZero() {
		before = micros(q.Before)
	}
	var out []lore.Episode
	if q.Signature != "" {
		eps, err := s.episodes(ctx, `SELECT `+episodeColumns+` FROM episodes e WHERE e.signature = ? AND e.at < ?
			ORDER BY e.at DESC LIMIT `+strconv.Itoa(episodesOfSignature), q.Signature, before)
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
	quoted := make([]string, len(ts))
	for i, t := range ts {
		quoted[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	more, err := s.episodes(ctx, `SELECT `+episodeColumns+` FROM
		(SELECT rowid, bm25(episodes_fts) AS score FROM episodes_fts WHERE episodes_fts MATCH ?
			ORDER BY rowid DESC LIMIT `+strconv.Itoa(episodesMatched)+`) m
		JOIN episodes e ON e.rowid = m.rowid
		WHERE e.at < ? AND e.signature <> ?
		ORDER BY m.score, e.at DESC LIMIT `+strconv.Itoa(textCandidates), strings.Join(quoted, " OR "), before, q.Signature)
	if err != nil {
		return nil, err
	}
	return lore.AppendMatches(out, more, ts, limit), nil
}

func (s *Store) episodes(ctx context.Context, query string, args ...any) ([]lore.Episode, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var eps []lore.Episode
	for rows.Next() {
		var e lore.Episode
		var at int64
		if err := rows.Scan(&e.Session, &e.Agent, &e.Repo, &at, &e.Position, &e.Tool, &e.Input, &e.Error, &e.Signature,
			&e.Fix, &e.Changes, &e.Steps); err != nil {
			return nil, err
		}
		if at != 0 {
			e.At = fromMicros(at)
		}
		eps = append(eps, e)
	}
	return eps, rows.Err()
}
