package sqlite

// The stored form of an item row: reading it back (also for search and
// boot), and the evidence column's encoding.

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lorehq/lore"
)

// loadRows reads stored items, with their evidence and its confidences,
// selected by a FROM clause that names items i (and a WHERE clause):
// "items i WHERE …", or a join that looks items up.
func loadRows(ctx context.Context, q querier, from string, args ...any) ([]*row, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+rowColumnsOf+` FROM `+from, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		st, err := scanRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, st.row())
	}
	return out, rows.Err()
}

// stored is an item row as scanRow reads it.
type stored struct {
	rowid int64
	item  lore.Item
	conf  []float64 // the confidence each session of item.Evidence brought
}

// row is the stored row as merging keeps it.
func (st stored) row() *row {
	return &row{rowid: st.rowid, item: st.item, conf: st.conf, storedTags: st.item.Tags}
}

// rowColumns are the columns scanRow reads, in its order.
const rowColumns = `rowid, id, text, category, repo, agent, confidence, manual_confidence, status,
	source_count, first_seen, last_confirmed, expires, signature, tags, related, evidence, reviews`

type scanner interface{ Scan(...any) error }

func scanRow(r scanner) (stored, error) {
	var (
		st                      stored
		first, last             int64
		expires                 sql.NullInt64
		tags, related, evidence string
		reviews                 string
		category, status        string
	)
	it := &st.item
	err := r.Scan(&st.rowid, &it.ID, &it.Text, &category, &it.Repo, &it.Agent, &it.Confidence, &it.Manual,
		&status, &it.SourceCount, &first, &last, &expires, &it.Signature, &tags, &related, &evidence, &reviews)
	if err != nil {
		return st, err
	}
	it.Category, it.Status = lore.Category(category), lore.Status(status)
	it.FirstSeen, it.LastConfirmed = fromMicros(first), fromMicros(last)
	if expires.Valid {
		it.Expires = fromMicros(expires.Int64)
	}
	// Most items have neither; decoding "[]" costs more than reading the row.
	if tags != "[]" {
		if err := json.Unmarshal([]byte(tags), &it.Tags); err != nil {
			return st, fmt.Errorf("item %s: tags: %w", it.ID, err)
		}
	}
	if related != "[]" {
		if err := json.Unmarshal([]byte(related), &it.Related); err != nil {
			return st, fmt.Errorf("item %s: related: %w", it.ID, err)
		}
	}
	if reviews != "[]" {
		if err := json.Unmarshal([]byte(reviews), &it.Reviews); err != nil {
			return st, fmt.Errorf("item %s: reviews: %w", it.ID, err)
		}
	}
	if evidence != "[]" {
		if it.Evidence, st.conf, err = parseEvidence(evidence); err != nil {
			return st, fmt.Errorf("item %s: evidence: %w", it.ID, err)
		}
	}
	return st, nil
}

// evidenceJSON is the stored form of an item's evidence: a JSON array of
// [session, position, confidence], in the order it arrived.
func evidenceJSON(ev []lore.Evidence, conf []float64) string {
	if len(ev) == 0 {
		return "[]"
	}
	b := make([]byte, 0, 48*len(ev))
	b = append(b, '[')
	for i, e := range ev {
		if i > 0 {
			b = append(b, ',')
		}
		session, _ := json.Marshal(e.Session)
		b = append(append(append(b, '['), session...), ',')
		b = strconv.AppendInt(b, int64(e.Position), 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, conf[i], 'g', -1, 64)
		b = append(b, ']')
	}
	return string(append(b, ']'))
}

// parseEvidence reads what evidenceJSON wrote (or migration 0006). Boot
// and search read it for every item they load: the form those writers
// give is read directly, anything else by encoding/json.
func parseEvidence(s string) ([]lore.Evidence, []float64, error) {
	if ev, conf, ok := parsePlainEvidence(s); ok {
		return ev, conf, nil
	}
	var raw [][3]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, nil, err
	}
	ev, conf := make([]lore.Evidence, len(raw)), make([]float64, len(raw))
	for i, x := range raw {
		if err := json.Unmarshal(x[0], &ev[i].Session); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(x[1], &ev[i].Position); err != nil {
			return nil, nil, err
		}
		if err := json.Unmarshal(x[2], &conf[i]); err != nil {
			return nil, nil, err
		}
	}
	return ev, conf, nil
}

// parsePlainEvidence reads [["session",position,confidence],…] without
// spaces, escapes or invalid UTF-8 in the sessions; ok is false for
// anything else.
func parsePlainEvidence(s string) (ev []lore.Evidence, conf []float64, ok bool) {
	if len(s) < 2 || s[0] != '[' {
		return nil, nil, false
	}
	for i := 1; ; {
		if !strings.HasPrefix(s[i:], `["`) {
			return nil, nil, false
		}
		i += 2
		end := strings.IndexAny(s[i:], `"\`)
		if end <= 0 || s[i+end] != '"' || i+end+1 >= len(s) || s[i+end+1] != ',' {
			return nil, nil, false
		}
		session := s[i : i+end]
		if !utf8.ValidString(session) {
			return nil, nil, false // encoding/json makes it valid
		}
		i += end + 2
		comma := strings.IndexByte(s[i:], ',')
		if comma < 0 {
			return nil, nil, false
		}
		pos, err := strconv.Atoi(s[i : i+comma])
		if err != nil {
			return nil, nil, false
		}
		i += comma + 1
		close := strings.IndexByte(s[i:], ']')
		if close < 0 {
			return nil, nil, false
		}
		c, err := strconv.ParseFloat(s[i:i+close], 64)
		if err != nil {
			return nil, nil, false
		}
		i += close + 1
		ev, conf = append(ev, lore.Evidence{Session: session, Position: pos}), append(conf, c)
		switch {
		case i == len(s)-1 && s[i] == ']':
			return ev, conf, true
		case i < len(s) && s[i] == ',':
			i++
		default:
			return nil, nil, false
		}
	}
}
