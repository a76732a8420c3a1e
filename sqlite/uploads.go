package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lorehq/lore"
)

var _ lore.UploadQueue = (*Teams)(nil)

// The uploads of every team are kept in the main store file, the one
// the tokens are in: one writer at a time, so Claim needs no more than
// a write transaction to hand an upload to one worker only.

const uploadColumns = `team, id, name, repo, bytes, received, redactions, sessions, state, worker, lease, attempts, result, error`

// Enqueue keeps an upload as queued, or returns the one stored already
// with its team and ID.
func (t *Teams) Enqueue(ctx context.Context, u lore.QueuedUpload) (lore.QueuedUpload, error) {
	u, err := u.Queueable(t.main.now())
	if err != nil {
		return lore.QueuedUpload{}, err
	}
	s := t.main
	var out lore.QueuedUpload
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO uploads (team, id, name, repo, bytes, received, redactions, sessions, state, body)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?) ON CONFLICT (team, id) DO NOTHING`,
			u.Team, u.ID, u.Name, u.Repo, u.Bytes, micros(u.Received), u.Redactions, u.Sessions, u.Body)
		if err != nil {
			return err
		}
		found, err := scanUploads(ctx, tx, false, `WHERE team = ? AND id = ?`, u.Team, u.ID)
		if err != nil {
			return err
		}
		out = found[0]
		return nil
	})
	return out, err
}

// Claim hands worker the oldest upload waiting, or running past its
// lease.
func (t *Teams) Claim(ctx context.Context, worker string, now time.Time, lease time.Duration) (lore.QueuedUpload, bool, error) {
	var out lore.QueuedUpload
	var ok bool
	err := t.main.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE uploads SET state = 'failed', error = ?, lease = 0 WHERE state = 'running' AND lease < ? AND attempts >= ?`,
			abandoned, micros(now), lore.MaxAttempts); err != nil {
			return err
		}
		found, err := scanUploads(ctx, tx, true, `WHERE state = 'queued' OR (state = 'running' AND lease < ?) ORDER BY received, team, id LIMIT 1`, micros(now))
		if err != nil || len(found) == 0 {
			return err
		}
		out, ok = found[0], true
		out.State, out.Worker, out.Lease, out.Attempts = lore.UploadRunning, worker, lore.StoreTime(now.Add(lease)), out.Attempts+1
		_, err = tx.ExecContext(ctx, `UPDATE uploads SET state = 'running', worker = ?, lease = ?, attempts = ? WHERE team = ? AND id = ?`,
			worker, micros(out.Lease), out.Attempts, out.Team, out.ID)
		return err
	})
	return out, ok, err
}

// abandoned is the error of an upload whose workers all died.
var abandoned = fmt.Sprintf("given up: %d workers claimed it and none finished", lore.MaxAttempts)

// Finish records the end of a harvest by the worker that holds it.
func (t *Teams) Finish(ctx context.Context, u lore.QueuedUpload) error {
	if err := u.CheckFinished(); err != nil {
		return err
	}
	return t.main.write(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE uploads SET state = ?, sessions = ?, result = ?, error = ?, lease = 0
			WHERE team = ? AND id = ? AND state = 'running' AND worker = ?`,
			u.State, u.Sessions, u.Result, u.Error, u.Team, u.ID, u.Worker)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, lore.Errorf(lore.ECONFLICT, "upload %s of %s is not held by %s", u.ID, u.Team, u.Worker))
		}
		return nil
	})
}

// Uploads lists a team's latest uploads, newest first.
func (t *Teams) Uploads(ctx context.Context, team string, limit int) ([]lore.QueuedUpload, error) {
	return scanUploads(ctx, t.main.db, false, `WHERE team = ? ORDER BY received DESC, id LIMIT ?`, team, limit)
}

// UploadBodies calls fn with each of a team's uploads and its body,
// oldest first.
func (t *Teams) UploadBodies(ctx context.Context, team string, fn func(lore.QueuedUpload) error) error {
	found, err := scanUploads(ctx, t.main.db, true, `WHERE team = ? ORDER BY received, id`, team)
	if err != nil {
		return err
	}
	for _, u := range found {
		if err := fn(u); err != nil {
			return err
		}
	}
	return nil
}

// Queued counts the uploads waiting or running, of every team.
func (t *Teams) Queued(ctx context.Context) (int, error) {
	var n int
	err := t.main.db.QueryRowContext(ctx, `SELECT count(*) FROM uploads WHERE state IN ('queued', 'running')`).Scan(&n)
	return n, err
}

func scanUploads(ctx context.Context, q querier, body bool, where string, args ...any) ([]lore.QueuedUpload, error) {
	cols := uploadColumns
	if body {
		cols += `, body`
	}
	rows, err := q.QueryContext(ctx, `SELECT `+cols+` FROM uploads `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lore.QueuedUpload
	for rows.Next() {
		var u lore.QueuedUpload
		var received, lease int64
		dest := []any{&u.Team, &u.ID, &u.Name, &u.Repo, &u.Bytes, &received, &u.Redactions, &u.Sessions, &u.State, &u.Worker, &lease, &u.Attempts, &u.Result, &u.Error}
		if body {
			dest = append(dest, &u.Body)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		u.Received = fromMicros(received)
		if lease != 0 {
			u.Lease = fromMicros(lease)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
