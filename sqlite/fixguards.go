package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

var _ lore.FixGuards = (*Store)(nil)

// SaveGuards stores guards by repository and commit, in one transaction;
// a guard saved again replaces the stored one and keeps its proof when it
// brings none.
func (s *Store) SaveGuards(ctx context.Context, gs []lore.FixGuard) error {
	type row struct {
		g    lore.FixGuard
		body []byte
	}
	rows := make([]row, 0, len(gs))
	for _, g := range gs {
		g, err := lore.PrepareGuard(g)
		if err != nil {
			return err
		}
		body := g
		body.Proof, body.ProofCmd, body.ProofAt = "", "", time.Time{}
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("guard %s: %w", lore.ShortCommit(g.Commit), err)
		}
		rows = append(rows, row{g, b})
	}
	if len(rows) == 0 {
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for _, r := range rows {
			g := r.g
			var proofAt int64
			if !g.ProofAt.IsZero() {
				proofAt = micros(g.ProofAt)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO guards (repo, commit_id, at, subject, body, proof, proof_cmd, proof_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (repo, commit_id) DO UPDATE SET at = excluded.at, subject = excluded.subject, body = excluded.body,
					proof = CASE WHEN excluded.proof = '' THEN proof ELSE excluded.proof END,
					proof_cmd = CASE WHEN excluded.proof = '' THEN proof_cmd ELSE excluded.proof_cmd END,
					proof_at = CASE WHEN excluded.proof = '' THEN proof_at ELSE excluded.proof_at END`,
				g.Repo, strings.ToLower(g.Commit), micros(g.At), g.Subject, r.body, g.Proof, g.ProofCmd, proofAt)
			if err != nil {
				return fmt.Errorf("guard %s: %w", lore.ShortCommit(g.Commit), err)
			}
		}
		return nil
	})
}

// Guards returns the guards of repo, the oldest fix first.
func (s *Store) Guards(ctx context.Context, repo string) ([]lore.FixGuard, error) {
	return s.guards(ctx, s.db, `WHERE repo = ? ORDER BY at, commit_id`, repo)
}

func (s *Store) guards(ctx context.Context, q querier, where string, args ...any) ([]lore.FixGuard, error) {
	rows, err := q.QueryContext(ctx, `SELECT body, proof, proof_cmd, proof_at FROM guards `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lore.FixGuard
	for rows.Next() {
		var body []byte
		var g lore.FixGuard
		var proofAt int64
		if err := rows.Scan(&body, &g.Proof, &g.ProofCmd, &proofAt); err != nil {
			return nil, err
		}
		proof, cmd := g.Proof, g.ProofCmd
		if err := json.Unmarshal(body, &g); err != nil {
			return nil, fmt.Errorf("read guard: %w", err)
		}
		g.Proof, g.ProofCmd = proof, cmd
		if proofAt != 0 {
			g.ProofAt = fromMicros(proofAt)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// SetProof records what proving the guard of commit (or a unique start of
// it) found, and returns the guard as it now is.
func (s *Store) SetProof(ctx context.Context, repo, commit, proof, cmd string, at time.Time) (lore.FixGuard, error) {
	commit = strings.ToLower(strings.TrimSpace(commit))
	if !lore.ValidCommitPrefix(commit) {
		return lore.FixGuard{}, lore.Errorf(lore.EINVALID, "%q is not a commit (4 to 40 hex digits)", commit)
	}
	var out lore.FixGuard
	err := s.write(ctx, func(tx *sql.Tx) error {
		gs, err := s.guards(ctx, tx, `WHERE repo = ? AND commit_id >= ? AND commit_id < ? ORDER BY commit_id LIMIT 2`, repo, commit, commit+"~")
		if err != nil {
			return err
		}
		if out, err = lore.OneGuard(gs, repo, commit); err != nil {
			return err
		}
		out.Proof, out.ProofCmd, out.ProofAt = proof, cmd, lore.StoreTime(at)
		_, err = tx.ExecContext(ctx, `UPDATE guards SET proof = ?, proof_cmd = ?, proof_at = ? WHERE repo = ? AND commit_id = ?`,
			proof, cmd, micros(out.ProofAt), repo, out.Commit)
		return err
	})
	if err != nil {
		var le *lore.Error
		if errors.As(err, &le) {
			return lore.FixGuard{}, err
		}
		return lore.FixGuard{}, fmt.Errorf("set proof: %w", err)
	}
	return out, nil
}
