package postgres

// The stored form of an item row: reading it back, and what merging keeps
// of it.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// itemColumns are the columns scanRow reads, in its order, of items i.
const itemColumns = `i.rowid, i.id, i.text, i.category, i.repo, i.agent, i.confidence, i.manual_confidence, i.status,
	i.source_count, i.first_seen, i.last_confirmed, i.expires, i.signature, i.tags, i.related,
	i.ev_sessions, i.ev_positions, i.ev_confidences, i.reviews`

// bestColumns are itemColumns without the evidence and the reviews,
// which Best and Recall leave out.
var bestColumns = strings.NewReplacer("i.ev_sessions, i.ev_positions, i.ev_confidences, i.reviews",
	"'{}'::text[], '{}'::integer[], '{}'::float8[], '[]'::jsonb").Replace(itemColumns)

// row is a stored item, with the confidence each session of its
// Evidence brought (lore.Merge's shares).
type row struct {
	rowid int64 // 0 for an item not written yet
	item  lore.Item
	conf  []float64
}

// scanRow reads the columns of itemColumns, and more into extra.
func scanRow(r pgx.Row, extra ...any) (*row, error) {
	var (
		st               row
		expires          *time.Time
		category, status string
		sessions         []string
		positions        []int
		reviews          []byte
	)
	it := &st.item
	dest := append([]any{&st.rowid, &it.ID, &it.Text, &category, &it.Repo, &it.Agent, &it.Confidence, &it.Manual,
		&status, &it.SourceCount, &it.FirstSeen, &it.LastConfirmed, &expires, &it.Signature, &it.Tags, &it.Related,
		&sessions, &positions, &st.conf, &reviews}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	it.Category, it.Status = lore.Category(category), lore.Status(status)
	it.FirstSeen, it.LastConfirmed = it.FirstSeen.UTC(), it.LastConfirmed.UTC()
	if expires != nil {
		it.Expires = expires.UTC()
	}
	it.Tags, it.Related = nilIfEmpty(it.Tags), nilIfEmpty(it.Related)
	for i, s := range sessions {
		it.Evidence = append(it.Evidence, lore.Evidence{Session: s, Position: positions[i]})
	}
	if len(st.conf) == 0 {
		st.conf = nil
	}
	if string(reviews) != "[]" {
		if err := json.Unmarshal(reviews, &it.Reviews); err != nil {
			return nil, fmt.Errorf("item %s: reviews: %w", it.ID, err)
		}
	}
	return &st, nil
}

func nilIfEmpty(xs []string) []string {
	if len(xs) == 0 {
		return nil
	}
	return xs
}

// loadRows reads the items of a query that selects itemColumns.
func loadRows(ctx context.Context, q querier, sql string, args ...any) ([]*row, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// items reads the items of a query that selects itemColumns.
func items(ctx context.Context, q querier, sql string, args ...any) ([]lore.Item, error) {
	rows, err := loadRows(ctx, q, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make([]lore.Item, len(rows))
	for i, r := range rows {
		out[i] = r.item
	}
	return out, nil
}

// words is text's words as a search vector indexes them.
func words(text string) string { return strings.Join(terms.Words(text), " ") }

// evidenceColumns are the stored form of evidence: sessions, positions
// and the confidence each brought.
func evidenceColumns(ev []lore.Evidence, conf []float64) ([]string, []int, []float64) {
	sessions, positions := make([]string, len(ev)), make([]int, len(ev))
	for i, e := range ev {
		sessions[i], positions[i] = e.Session, e.Position
	}
	if conf == nil {
		conf = []float64{}
	}
	return sessions, positions, conf
}

// reviewsJSON is the stored form of an item's reviews.
func reviewsJSON(rs []lore.Review) string {
	if len(rs) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(rs)
	return string(b)
}

// expiresValue is the stored form of an item's expiry: NULL for never.
func expiresValue(it lore.Item) *time.Time {
	if it.Expires.IsZero() {
		return nil
	}
	return &it.Expires
}

// nonNil makes a nil list an empty one, which PostgreSQL stores as '{}'
// where a NULL would break NOT NULL.
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// repoKeys are the stored keys of a repository name: lore.RepoKey of it,
// and of its name after the owner.
func repoKeys(repo string) (string, string) {
	_, name, _ := strings.Cut(repo, "/")
	return lore.RepoKey(repo), lore.RepoKey(name)
}
