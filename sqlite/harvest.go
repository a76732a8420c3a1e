package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lorehq/lore"
)

// Harvested returns the record of a session's last harvest by extractor.
func (s *Store) Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error) {
	h := lore.Harvest{Session: session, Extractor: extractor}
	var at, mtime int64
	// Prepared once (queryRow): a harvest asks this of every session, and
	// preparing it again cost as much as the look-up.
	err := s.queryRow(ctx, `SELECT path, size, mtime, hash, sessions, at, items FROM harvests WHERE session = ? AND extractor = ?`,
		[]any{session, extractor}, &h.Path, &h.Size, &mtime, &h.Hash, &h.Sessions, &at, &h.Items)
	if errors.Is(err, sql.ErrNoRows) {
		return lore.Harvest{}, false, nil
	}
	if err != nil {
		return lore.Harvest{}, false, err
	}
	h.At, h.ModTime = fromMicros(at), fromNanos(mtime)
	return h, true, nil
}

// RecordHarvest stores records, each replacing the record of its session
// and extractor, in one transaction.
func (s *Store) RecordHarvest(ctx context.Context, hs ...lore.Harvest) error {
	if err := lore.CheckHarvests(hs); err != nil {
		return err
	}
	if len(hs) == 0 {
		return nil
	}
	now := s.now()
	return s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO harvests (session, extractor, path, size, mtime, hash, sessions, at, items)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer st.Close()
		for _, h := range hs {
			at := h.At
			if at.IsZero() {
				at = now
			}
			if _, err := st.ExecContext(ctx, h.Session, h.Extractor, lore.RecordPath(h.Path), h.Size, nanos(h.ModTime), h.Hash, h.Sessions, micros(at), h.Items); err != nil {
				return err
			}
		}
		return nil
	})
}

// Harvests calls fn for every harvest record, by session and extractor.
func (s *Store) Harvests(ctx context.Context, fn func(lore.Harvest) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT session, extractor, path, size, mtime, hash, sessions, at, items FROM harvests ORDER BY session, extractor`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h lore.Harvest
		var at, mtime int64
		if err := rows.Scan(&h.Session, &h.Extractor, &h.Path, &h.Size, &mtime, &h.Hash, &h.Sessions, &at, &h.Items); err != nil {
			return err
		}
		h.At, h.ModTime = fromMicros(at), fromNanos(mtime)
		if err := fn(h); err != nil {
			return err
		}
	}
	return rows.Err()
}

// nanos keeps a modification time whole: a file rewritten within the same
// microsecond at the same size is what the hash is for. Zero is 0.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// RecordBoot stores what boot handed a session, its task redacted
// (lore.PrepareBoot).
func (s *Store) RecordBoot(ctx context.Context, b lore.Boot) error {
	b = lore.PrepareBoot(b)
	at := b.At
	if at.IsZero() {
		at = s.now()
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO boots (at, session, repo, agent, task, items, tokens, withheld, kind)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			micros(at), b.Session, b.Repo, b.Agent, b.Task, jsonArray(b.Items), b.Tokens, b.Withheld, b.Kind)
		return err
	})
}

// Boots calls fn for every boot recorded at or after since, oldest first.
func (s *Store) Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT at, session, repo, agent, task, items, tokens, withheld, kind FROM boots
		WHERE at >= ? ORDER BY at, id`, micros(since))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var b lore.Boot
		var at int64
		var items string
		if err := rows.Scan(&at, &b.Session, &b.Repo, &b.Agent, &b.Task, &items, &b.Tokens, &b.Withheld, &b.Kind); err != nil {
			return err
		}
		b.At = fromMicros(at)
		if err := json.Unmarshal([]byte(items), &b.Items); err != nil {
			return fmt.Errorf("boot at %s: items: %w", b.At.Format(time.RFC3339), err)
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return rows.Err()
}
