package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
)

var _ lore.UploadQueue = (*Teams)(nil)

// The uploads of every team are kept in AdminSchema, so that a worker
// of any server on the database claims the next one whatever its team.

const uploadColumns = `team, id, name, repo, bytes, received, redactions, sessions, state, worker, lease, attempts, result, error`

// Enqueue keeps an upload as queued, or returns the one stored already
// with its team and ID.
func (ts *Teams) Enqueue(ctx context.Context, u lore.QueuedUpload) (lore.QueuedUpload, error) {
	u, err := u.Queueable(time.Now())
	if err != nil {
		return lore.QueuedUpload{}, err
	}
	if _, err := ts.admin.Exec(ctx, `INSERT INTO uploads (team, id, name, repo, bytes, received, redactions, sessions, state, body)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9) ON CONFLICT (team, id) DO NOTHING`,
		u.Team, u.ID, u.Name, u.Repo, u.Bytes, u.Received, u.Redactions, u.Sessions, u.Body); err != nil {
		return lore.QueuedUpload{}, fmt.Errorf("enqueue upload: %w", err)
	}
	rows, err := ts.admin.Query(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE team = $1 AND id = $2`, u.Team, u.ID)
	if err != nil {
		return lore.QueuedUpload{}, err
	}
	return pgx.CollectExactlyOneRow(rows, scanUpload)
}

// Claim hands worker the oldest upload waiting, or running past its
// lease. SKIP LOCKED passes over the rows other workers are claiming
// at this moment, so that many claim at once without waiting on each
// other, and none is handed a row another holds.
func (ts *Teams) Claim(ctx context.Context, worker string, now time.Time, lease time.Duration) (lore.QueuedUpload, bool, error) {
	if _, err := ts.admin.Exec(ctx, `UPDATE uploads SET state = 'failed', error = $1, lease = NULL
		WHERE state = 'running' AND lease < $2 AND attempts >= $3`, abandoned, now, lore.MaxAttempts); err != nil {
		return lore.QueuedUpload{}, false, fmt.Errorf("claim upload: %w", err)
	}
	rows, err := ts.admin.Query(ctx, `UPDATE uploads SET state = 'running', worker = $1, lease = $2, attempts = attempts + 1
		WHERE (team, id) = (SELECT team, id FROM uploads
			WHERE state = 'queued' OR (state = 'running' AND lease < $3)
			ORDER BY received, team, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+uploadColumns+`, body`, worker, lore.StoreTime(now.Add(lease)), now)
	if err != nil {
		return lore.QueuedUpload{}, false, fmt.Errorf("claim upload: %w", err)
	}
	u, err := pgx.CollectExactlyOneRow(rows, scanUploadBody)
	if errNoRows(err) {
		return lore.QueuedUpload{}, false, nil
	}
	if err != nil {
		return lore.QueuedUpload{}, false, fmt.Errorf("claim upload: %w", err)
	}
	return u, true, nil
}

// abandoned is the error of an upload whose workers all died.
var abandoned = fmt.Sprintf("given up: %d workers claimed it and none finished", lore.MaxAttempts)

// Finish records the end of a harvest by the worker that holds it.
func (ts *Teams) Finish(ctx context.Context, u lore.QueuedUpload) error {
	if err := u.CheckFinished(); err != nil {
		return err
	}
	tag, err := ts.admin.Exec(ctx, `UPDATE uploads SET state = $1, sessions = $2, result = $3, error = $4, lease = NULL
		WHERE team = $5 AND id = $6 AND state = 'running' AND worker = $7`,
		u.State, u.Sessions, u.Result, u.Error, u.Team, u.ID, u.Worker)
	if err != nil {
		return fmt.Errorf("finish upload: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return lore.Errorf(lore.ECONFLICT, "upload %s of %s is not held by %s", u.ID, u.Team, u.Worker)
	}
	return nil
}

// Uploads lists a team's latest uploads, newest first.
func (ts *Teams) Uploads(ctx context.Context, team string, limit int) ([]lore.QueuedUpload, error) {
	rows, err := ts.admin.Query(ctx, `SELECT `+uploadColumns+` FROM uploads WHERE team = $1 ORDER BY received DESC, id LIMIT $2`, team, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanUpload)
}

// UploadBodies calls fn with each of a team's uploads and its body,
// oldest first.
func (ts *Teams) UploadBodies(ctx context.Context, team string, fn func(lore.QueuedUpload) error) error {
	rows, err := ts.admin.Query(ctx, `SELECT `+uploadColumns+`, body FROM uploads WHERE team = $1 ORDER BY received, id`, team)
	if err != nil {
		return err
	}
	found, err := pgx.CollectRows(rows, scanUploadBody)
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
func (ts *Teams) Queued(ctx context.Context) (int, error) {
	var n int
	err := ts.admin.QueryRow(ctx, `SELECT count(*) FROM uploads WHERE state IN ('queued', 'running')`).Scan(&n)
	return n, err
}

func scanUpload(r pgx.CollectableRow) (lore.QueuedUpload, error) { return scanUploadRow(r, false) }

func scanUploadBody(r pgx.CollectableRow) (lore.QueuedUpload, error) { return scanUploadRow(r, true) }

func scanUploadRow(r pgx.CollectableRow, body bool) (lore.QueuedUpload, error) {
	var u lore.QueuedUpload
	var lease *time.Time
	dest := []any{&u.Team, &u.ID, &u.Name, &u.Repo, &u.Bytes, &u.Received, &u.Redactions, &u.Sessions, &u.State, &u.Worker, &lease, &u.Attempts, &u.Result, &u.Error}
	if body {
		dest = append(dest, &u.Body)
	}
	err := r.Scan(dest...)
	u.Received = u.Received.UTC()
	if lease != nil {
		u.Lease = lease.UTC()
	}
	return u, err
}
