package prune

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"
)

// node is one session as a prune plans it.
type node struct {
	id, parent string
	started    time.Time
	// ended is set for a session with ended_at (or one the plan closes as
	// leaked); endedAt is zero when its value cannot be read as a time.
	ended   bool
	endedAt time.Time
	// last is the newest message's time, lastRaw the value as stored, so
	// that a leaked session is closed with exactly that value.
	last       time.Time
	lastRaw    any
	startedRaw any
	messages   int
	bytes      int64 // bytes of messages.content

	children []*node
	leaked   bool
	// closed: it and every session below it are ended; key is the latest
	// activity below and at it; depth counts its ancestors.
	closed bool
	key    time.Time
	depth  int
}

// activity is the latest of its start, last message and end.
func (n *node) activity() time.Time {
	t := n.started
	if n.last.After(t) {
		t = n.last
	}
	if n.endedAt.After(t) {
		t = n.endedAt
	}
	return t
}

// closeValue is what ended_at becomes when the session is closed as
// leaked: its last message's time, or its start when it has none.
func (n *node) closeValue() any {
	if n.lastRaw != nil {
		return n.lastRaw
	}
	return n.startedRaw
}

// loadNodes reads every session with its messages' count, size and last
// time: one pass over sessions, one over messages grouped by session.
func loadNodes(ctx context.Context, q Querier, s Schema) ([]*node, error) {
	parent := "NULL"
	if s.ParentColumn != "" {
		parent = quote(s.ParentColumn)
	}
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT id, %s, started_at, ended_at FROM %s`, parent, quote(s.Sessions.Name)))
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	byID := map[string]*node{}
	var nodes []*node
	for rows.Next() {
		var id, par sql.NullString
		var started, ended any
		if err := rows.Scan(&id, &par, &started, &ended); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		if !id.Valid {
			continue // a session no message or child can name
		}
		n := &node{id: id.String, parent: par.String, started: epoch(started), startedRaw: started, ended: ended != nil, endedAt: epoch(ended)}
		byID[n.id] = n
		nodes = append(nodes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	rows, err = q.QueryContext(ctx, fmt.Sprintf(`SELECT %[1]s, count(*), max(timestamp), sum(octet_length(content)) FROM %[2]s GROUP BY %[1]s`,
		quote(s.SessionColumn), quote(s.Messages.Name)))
	if err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	for rows.Next() {
		var sid sql.NullString
		var count int
		var last any
		var bytes sql.NullInt64
		if err := rows.Scan(&sid, &count, &last, &bytes); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read messages: %w", err)
		}
		if n := byID[sid.String]; sid.Valid && n != nil {
			n.messages, n.bytes, n.last, n.lastRaw = count, bytes.Int64, epoch(last), last
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	return nodes, nil
}

// plan is what a prune does to the sessions: which it closes as leaked
// and which it moves to the archive, in the order it moves them.
type plan struct {
	leaked  []*node
	archive []*node
	byAge   int
	byCap   int
	// keptForChildren ended before the cutoff but stay because a session
	// continuing them (a child) is open or recent.
	keptForChildren int
	// undated have no time prune can read; they are never archived.
	undated int
	// capShort is how far above the cap the database stays, because the
	// sessions left are open or continued by open ones.
	capShort int
}

// choose plans a prune as of now. A session moves only with every
// session below it (its children, their children, …), so that no session
// left behind names a parent that is gone: sessions are taken in order of
// the latest activity below and at them, deepest first, so every prefix
// of the order is closed under children. The age rule takes the prefix
// older than the cutoff; the cap takes more of the order until the
// database keeps maxSessions.
func choose(nodes []*node, now time.Time, leakAfter, archiveAfter time.Duration, maxSessions int) plan {
	var p plan
	byID := make(map[string]*node, len(nodes))
	for _, n := range nodes {
		byID[n.id] = n
	}
	for _, n := range nodes {
		if par := byID[n.parent]; n.parent != "" && par != nil && par != n {
			par.children = append(par.children, n)
		}
	}
	for _, n := range nodes {
		if a := n.activity(); !n.ended && !a.IsZero() && now.Sub(a) > leakAfter {
			n.leaked, n.ended = true, true
			n.endedAt = n.last
			if n.endedAt.IsZero() {
				n.endedAt = n.started
			}
			p.leaked = append(p.leaked, n)
		}
	}
	// Settle each subtree once; a session met again while its own
	// subtree is being settled is in a cycle of parent links, and a cycle
	// is never closed.
	const (
		unseen = iota
		settling
		settled
	)
	state := make(map[*node]int, len(nodes))
	var settle func(n *node) (closed bool, key time.Time)
	settle = func(n *node) (bool, time.Time) {
		switch state[n] {
		case settling:
			return false, time.Time{}
		case settled:
			return n.closed, n.key
		}
		state[n] = settling
		closed, key := n.ended && !n.activity().IsZero(), n.activity()
		for _, c := range n.children {
			cc, ck := settle(c)
			closed = closed && cc
			if ck.After(key) {
				key = ck
			}
		}
		n.closed, n.key = closed, key
		state[n] = settled
		return closed, key
	}
	for _, n := range nodes {
		settle(n)
		// Depth counts distinct ancestors, so that below a cycle of
		// links a child is still deeper than its parent.
		seen := map[*node]bool{n: true}
		for a := byID[n.parent]; a != nil && !seen[a]; a = byID[a.parent] {
			seen[a] = true
			n.depth++
		}
		if n.activity().IsZero() {
			p.undated++
		}
	}
	var order []*node
	for _, n := range nodes {
		if n.closed {
			order = append(order, n)
		}
	}
	slices.SortFunc(order, func(a, b *node) int {
		return cmp.Or(a.key.Compare(b.key), cmp.Compare(b.depth, a.depth), cmp.Compare(a.id, b.id))
	})
	cutoff := now.Add(-archiveAfter)
	for _, n := range order {
		if !n.key.Before(cutoff) {
			break
		}
		p.archive = append(p.archive, n)
	}
	p.byAge = len(p.archive)
	if maxSessions > 0 {
		left := len(nodes) - len(p.archive)
		for _, n := range order[len(p.archive):] {
			if left <= maxSessions {
				break
			}
			p.archive = append(p.archive, n)
			left--
		}
		p.byCap = len(p.archive) - p.byAge
		p.capShort = max(0, left-maxSessions)
	}
	moving := make(map[*node]bool, len(p.archive))
	for _, n := range p.archive {
		moving[n] = true
	}
	for _, n := range nodes {
		if n.ended && !moving[n] && !n.endedAt.IsZero() && n.endedAt.Before(cutoff) {
			p.keptForChildren++
		}
	}
	return p
}
