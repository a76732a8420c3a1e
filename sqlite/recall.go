package sqlite

import (
	"context"
	"strings"

	"github.com/lorehq/lore"
)

// Recall returns the pitfalls and tool quirks f selects whose signature is
// one of q.Signatures or whose text opens with q.Command, most confident
// first, without their evidence. Each part reads an index:
// items_signature by signature, items_command by scope and the range of
// texts that start with "`command"; an agent runs it before every shell
// command, on a store of any size.
func (s *Store) Recall(ctx context.Context, q lore.RecallQuery) ([]lore.Item, error) {
	query, args := s.recallSQL(q)
	if query == "" {
		return nil, nil
	}
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return scanItems(rows, max(q.Limit, 10))
}

// recallSQL is Recall's query and its arguments; "" when q asks for
// nothing.
func (s *Store) recallSQL(q lore.RecallQuery) (string, []any) {
	n := q.Limit
	if n <= 0 {
		n = 10
	}
	f := q.Filter
	f.Category = ""
	cond, args := s.where(f)
	var parts []string
	var partArgs []any
	if sigs := nonEmpty(q.Signatures); len(sigs) > 0 {
		// signature <> '' as written lets the partial index serve. Without
		// statistics (lore never runs ANALYZE) SQLite would rather read
		// every active item of the scope by items_scope: thousands, for the
		// global scope of a large store, against a few of one signature.
		parts = append(parts, `SELECT `+bestColumns+` FROM items i INDEXED BY items_signature WHERE i.signature <> '' AND i.signature IN (`+placeholders(len(sigs))+
			`) AND i.category IN ('pitfall', 'tool-quirk') AND `+cond)
		for _, sig := range sigs {
			partArgs = append(partArgs, sig)
		}
		partArgs = append(partArgs, args...)
	}
	if q.Command != "" && !strings.ContainsAny(q.Command, "`\t\n") {
		// The texts from "`command" up to, not including, "`command" with
		// its last byte raised: every text that starts with it. The byte
		// after it (a blank or a backtick) is checked as well.
		from := "`" + q.Command
		to := from[:len(from)-1] + string(rune(from[len(from)-1]+1))
		if from[len(from)-1] < 0x7f {
			parts = append(parts, `SELECT `+bestColumns+` FROM items i INDEXED BY items_command WHERE i.category IN ('pitfall', 'tool-quirk') AND i.text >= ? AND i.text < ?
				AND substr(i.text, ?, 1) IN (' ', '`+"`"+`') AND `+cond)
			partArgs = append(partArgs, from, to, len(from)+1)
			partArgs = append(partArgs, args...)
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	return `SELECT * FROM (` + strings.Join(parts, " UNION ") + `) ORDER BY confidence DESC, id ` + limit(n), partArgs
}

// nonEmpty is ss without its empty strings: no item is found by an empty
// signature.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
