package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
)

// SaveGuards stores guards, each replacing the guard of its repository
// and commit, in one transaction. A guard saved without a proof keeps
// the proof recorded before: a scan run again knows nothing of proofs.
func (s *Store) SaveGuards(ctx context.Context, gs []lore.FixGuard) error {
	var b pgx.Batch
	for _, g := range gs {
		g, err := lore.PrepareGuard(g)
		if err != nil {
			return err
		}
		body := g
		body.Proof, body.ProofCmd, body.ProofAt = "", "", time.Time{}
		js, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("guard %s: %w", lore.ShortCommit(g.Commit), err)
		}
		b.Queue(`INSERT INTO guards (repo_key, commit_id, at, body, proof, proof_cmd, proof_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (repo_key, commit_id) DO UPDATE SET at = excluded.at, body = excluded.body,
				proof = CASE WHEN excluded.proof = '' THEN guards.proof ELSE excluded.proof END,
				proof_cmd = CASE WHEN excluded.proof = '' THEN guards.proof_cmd ELSE excluded.proof_cmd END,
				proof_at = CASE WHEN excluded.proof = '' THEN guards.proof_at ELSE excluded.proof_at END`,
			lore.RepoKey(g.Repo), g.Commit, g.At, js, g.Proof, g.ProofCmd, proofAt(g.ProofAt))
	}
	if b.Len() == 0 {
		return nil
	}
	return s.write(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, &b).Close() })
}

func proofAt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = lore.StoreTime(t)
	return &t
}

// Guards returns the guards of a repository, oldest first.
func (s *Store) Guards(ctx context.Context, repo string) ([]lore.FixGuard, error) {
	return guards(ctx, s.pool, `WHERE repo_key = $1 ORDER BY at, commit_id`, lore.RepoKey(repo))
}

func guards(ctx context.Context, q querier, where string, args ...any) ([]lore.FixGuard, error) {
	rows, err := q.Query(ctx, `SELECT body, proof, proof_cmd, proof_at FROM guards `+where, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (lore.FixGuard, error) {
		var body []byte
		var g lore.FixGuard
		var proof, cmd string
		var at *time.Time
		if err := r.Scan(&body, &proof, &cmd, &at); err != nil {
			return g, err
		}
		if err := json.Unmarshal(body, &g); err != nil {
			return g, fmt.Errorf("read guard: %w", err)
		}
		g.Proof, g.ProofCmd = proof, cmd
		if at != nil {
			g.ProofAt = at.UTC()
		}
		g.At = g.At.UTC()
		return g, nil
	})
}

// SetProof records what lore guard test found for the guard of repo
// whose commit starts with commit, and returns the guard as it now is.
func (s *Store) SetProof(ctx context.Context, repo, commit, proof, cmd string, at time.Time) (lore.FixGuard, error) {
	commit = strings.ToLower(strings.TrimSpace(commit))
	if !lore.ValidCommitPrefix(commit) {
		return lore.FixGuard{}, lore.Errorf(lore.EINVALID, "%q is not a commit (4 to 40 hex digits)", commit)
	}
	var out lore.FixGuard
	err := s.write(ctx, func(tx pgx.Tx) error {
		gs, err := guards(ctx, tx, `WHERE repo_key = $1 AND commit_id >= $2 AND commit_id < $3 ORDER BY commit_id LIMIT 2`,
			lore.RepoKey(repo), commit, commit+"~")
		if err != nil {
			return err
		}
		if out, err = lore.OneGuard(gs, repo, commit); err != nil {
			return err
		}
		out.Proof, out.ProofCmd, out.ProofAt = proof, cmd, lore.StoreTime(at)
		_, err = tx.Exec(ctx, `UPDATE guards SET proof = $1, proof_cmd = $2, proof_at = $3 WHERE repo_key = $4 AND commit_id = $5`,
			proof, cmd, out.ProofAt, lore.RepoKey(repo), out.Commit)
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
