package archive

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Session is one archived session: its row from the sessions table and
// its rows from the messages table, in order.
type Session struct {
	ID       string
	ParentID string // "" when the session has no parent
	Row      Row
	Messages []Row
}

// Entry describes an archived session without reading its rows.
type Entry struct {
	ID         string
	ParentID   string
	ArchivedAt time.Time
	Messages   int
	// RawSize is the size of the session's encoded rows, Size the same
	// compressed, as stored.
	RawSize, Size int64
}

// Errors callers branch on.
var (
	ErrNotFound = errors.New("session not in the archive")
	ErrCorrupt  = errors.New("archived row is damaged")
	ErrMismatch = errors.New("archived copy differs from the original")
)

const (
	// trainRows is how many rows a batch needs before Put trains a
	// dictionary from it; fewer make a dictionary worse than none.
	trainRows = 64
	// trainBytes bounds the samples training reads.
	trainBytes = 8 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// item is one row on its way into the archive.
type item struct {
	session int // index in the batch
	seq     int // position among the session's messages; -1 for the session row
	raw     []byte
	sum     uint32
	z       []byte
}

// Put archives sessions in one transaction, replacing any already there
// under the same id. When the archive has no dictionary yet and the batch
// is big enough, it first trains one from the batch. Put holds the batch
// in memory: pass a few hundred sessions at a time.
func (a *Archive) Put(ctx context.Context, sessions []Session) error {
	if err := a.put(ctx, sessions); err != nil {
		return fmt.Errorf("archive sessions: %w", err)
	}
	return nil
}

func (a *Archive) put(ctx context.Context, sessions []Session) error {
	if len(sessions) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(sessions))
	n := 0
	for _, s := range sessions {
		if s.ID == "" {
			return errors.New("a session without an id")
		}
		if seen[s.ID] {
			return fmt.Errorf("session %s given twice", s.ID)
		}
		seen[s.ID] = true
		n += 1 + len(s.Messages)
	}
	items := make([]item, 0, n)
	for i, s := range sessions {
		items = append(items, item{session: i, seq: -1})
		for j := range s.Messages {
			items = append(items, item{session: i, seq: j})
		}
	}
	errs := make([]error, len(items))
	parallel(len(items), func(i int) {
		it := &items[i]
		r := rowOf(sessions, it)
		raw, err := r.AppendBinary(make([]byte, 0, r.size()))
		if err != nil {
			errs[i] = fmt.Errorf("session %s: %s: %w", sessions[it.session].ID, it.name(), err)
			return
		}
		it.raw = raw
		it.sum = crc32.Checksum(raw, castagnoli)
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	c, err := a.writeCodec(ctx, items)
	if err != nil {
		return err
	}
	// Compress while the transaction inserts what is ready, in order.
	ready := make([]chan struct{}, len(items))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var (
		stop       atomic.Bool
		compressed sync.WaitGroup
	)
	compressed.Go(func() {
		parallel(len(items), func(i int) {
			if !stop.Load() {
				items[i].z = c.compress(items[i].raw)
			}
			close(ready[i])
		})
	})
	defer func() {
		stop.Store(true)
		compressed.Wait()
	}()
	var dictID any
	if c.id != 0 {
		dictID = c.id
	}
	now := a.now().UnixMicro()
	return a.write(ctx, func(tx *sql.Tx) error {
		delMessages, err := tx.PrepareContext(ctx, "DELETE FROM messages WHERE session_id = ?")
		if err != nil {
			return err
		}
		defer delMessages.Close()
		delSession, err := tx.PrepareContext(ctx, "DELETE FROM sessions WHERE id = ?")
		if err != nil {
			return err
		}
		defer delSession.Close()
		insSession, err := tx.PrepareContext(ctx, `INSERT INTO sessions(id, archived_at, parent_id, dictionary_id, raw_size, size, checksum, messages, row)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insSession.Close()
		insMessage, err := tx.PrepareContext(ctx, `INSERT INTO messages(session_id, seq, message_id, dictionary_id, raw_size, size, checksum, row)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insMessage.Close()
		for i := range items {
			select {
			case <-ready[i]:
			case <-ctx.Done():
				return ctx.Err()
			}
			it := &items[i]
			s := sessions[it.session]
			if it.seq < 0 {
				if _, err := delMessages.ExecContext(ctx, s.ID); err != nil {
					return err
				}
				if _, err := delSession.ExecContext(ctx, s.ID); err != nil {
					return err
				}
				var parent any
				if s.ParentID != "" {
					parent = s.ParentID
				}
				if _, err := insSession.ExecContext(ctx, s.ID, now, parent, dictID, len(it.raw), len(it.z), int64(it.sum), len(s.Messages), it.z); err != nil {
					return fmt.Errorf("session %s: %w", s.ID, err)
				}
				continue
			}
			var id any
			if v, ok := s.Messages[it.seq].Get("id"); ok && v.Kind == Integer {
				id = v.Int
			}
			if _, err := insMessage.ExecContext(ctx, s.ID, it.seq, id, dictID, len(it.raw), len(it.z), int64(it.sum), it.z); err != nil {
				return fmt.Errorf("session %s: %s: %w", s.ID, it.name(), err)
			}
		}
		return nil
	})
}

func rowOf(sessions []Session, it *item) Row {
	if it.seq < 0 {
		return sessions[it.session].Row
	}
	return sessions[it.session].Messages[it.seq]
}

func (it *item) name() string {
	if it.seq < 0 {
		return "session row"
	}
	return fmt.Sprintf("message %d", it.seq)
}

// writeCodec returns the codec new rows are compressed with, training a
// dictionary from items when the archive has none and they are enough.
func (a *Archive) writeCodec(ctx context.Context, items []item) (*codec, error) {
	if c := a.currentCodec(); c != nil {
		return c, nil
	}
	// One batch trains while the others wait for its dictionary.
	a.training.Lock()
	defer a.training.Unlock()
	// Another process may have stored one since the archive was opened.
	if err := a.loadCurrent(ctx); err != nil {
		return nil, err
	}
	if c := a.currentCodec(); c != nil {
		return c, nil
	}
	if len(items) >= trainRows {
		// Rows that share nothing make no dictionary; they are
		// compressed without one.
		if d, err := TrainDictionary(sampleItems(items)); err == nil {
			return a.addDictionary(ctx, d)
		}
	}
	return a.codec(ctx, 0)
}

func (a *Archive) currentCodec() *codec {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.current
}

// Train trains a dictionary from a sample of sessions and stores it, so
// that every later Put uses it. Call it with sessions drawn from across
// everything about to be archived, before the first Put.
func (a *Archive) Train(ctx context.Context, sessions []Session) error {
	var items []item
	for i, s := range sessions {
		items = append(items, item{session: i, seq: -1})
		for j := range s.Messages {
			items = append(items, item{session: i, seq: j})
		}
	}
	var samples [][]byte
	for _, i := range pick(items, func(i int) int { return rowOf(sessions, &items[i]).size() }) {
		raw, err := rowOf(sessions, &items[i]).MarshalBinary()
		if err != nil {
			return fmt.Errorf("train dictionary: session %s: %w", sessions[items[i].session].ID, err)
		}
		samples = append(samples, raw)
	}
	d, err := TrainDictionary(samples)
	if err != nil {
		return err
	}
	_, err = a.AddDictionary(ctx, d)
	return err
}

func sampleItems(items []item) [][]byte {
	var samples [][]byte
	for _, i := range pick(items, func(i int) int { return len(items[i].raw) }) {
		samples = append(samples, items[i].raw)
	}
	return samples
}

// pick chooses the rows to train from, given their encoded sizes: every
// session row, where the system prompts are, up to half of trainBytes,
// then messages spread evenly over the rest.
func pick(items []item, size func(i int) int) []int {
	var (
		picked   []int
		messages []int
		budget   = trainBytes / 2
		total    int
	)
	for i, it := range items {
		if it.seq >= 0 {
			messages = append(messages, i)
			total += min(size(i), sampleSize)
		} else if budget > 0 {
			picked = append(picked, i)
			budget -= min(size(i), sampleSize)
		}
	}
	budget += trainBytes / 2
	step := max(float64(total)/float64(budget), 1)
	for f := 0.0; int(f) < len(messages); f += step {
		picked = append(picked, messages[int(f)])
	}
	return picked
}

// Verify reads every row of the given sessions back from the archive and
// compares it with the original. An error names the first session that
// differs or cannot be read, and wraps ErrMismatch, ErrCorrupt or
// ErrNotFound; only after a nil error may the originals be deleted.
func (a *Archive) Verify(ctx context.Context, originals []Session) error {
	errs := make([]error, len(originals))
	var failed atomic.Bool
	parallel(len(originals), func(i int) {
		if failed.Load() {
			return
		}
		if err := a.verify(ctx, originals[i]); err != nil {
			errs[i] = fmt.Errorf("verify session %s: %w", originals[i].ID, err)
			failed.Store(true)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (a *Archive) verify(ctx context.Context, want Session) error {
	got, err := a.load(ctx, want.ID)
	if err != nil {
		return err
	}
	if got.parent != want.ParentID {
		return fmt.Errorf("%w: parent %q, want %q", ErrMismatch, got.parent, want.ParentID)
	}
	if err := same(want.Row, got.row); err != nil {
		return fmt.Errorf("session row: %w", err)
	}
	if len(got.messages) != len(want.Messages) {
		return fmt.Errorf("%w: %d messages, want %d", ErrMismatch, len(got.messages), len(want.Messages))
	}
	var buf []byte
	for i, m := range want.Messages {
		if buf, err = m.AppendBinary(buf[:0]); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if bytes.Equal(buf, got.messages[i]) {
			continue
		}
		if err := same(m, got.messages[i]); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

// same compares a row with a stored encoding. The encoding is canonical,
// so equal rows have equal bytes; only when they differ is the stored
// row decoded, to say how.
func same(want Row, raw []byte) error {
	b, err := want.MarshalBinary()
	if err != nil {
		return err
	}
	if bytes.Equal(b, raw) {
		return nil
	}
	var got Row
	if err := got.UnmarshalBinary(raw); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if d := want.diff(got); d != "" {
		return fmt.Errorf("%w: %s", ErrMismatch, d)
	}
	return fmt.Errorf("%w: encodings differ", ErrMismatch)
}

// Get returns an archived session, every row checked against its
// checksum.
func (a *Archive) Get(ctx context.Context, id string) (Session, error) {
	s, err := a.get(ctx, id)
	if err != nil {
		return Session{}, fmt.Errorf("archived session %s: %w", id, err)
	}
	return s, nil
}

func (a *Archive) get(ctx context.Context, id string) (Session, error) {
	st, err := a.load(ctx, id)
	if err != nil {
		return Session{}, err
	}
	s := Session{ID: id, ParentID: st.parent, Messages: make([]Row, len(st.messages))}
	if err := s.Row.UnmarshalBinary(st.row); err != nil {
		return Session{}, fmt.Errorf("session row: %w: %v", ErrCorrupt, err)
	}
	for i, raw := range st.messages {
		if err := s.Messages[i].UnmarshalBinary(raw); err != nil {
			return Session{}, fmt.Errorf("message %d: %w: %v", i, ErrCorrupt, err)
		}
	}
	return s, nil
}

// stored is an archived session's rows, decompressed and checked against
// their checksums but not decoded.
type stored struct {
	parent   string
	row      []byte
	messages [][]byte
}

func (a *Archive) load(ctx context.Context, id string) (stored, error) {
	var (
		s      stored
		parent sql.NullString
		dictID sql.NullInt64
		size   int64
		sum    int64
		count  int
		z      []byte
	)
	err := a.db.QueryRowContext(ctx, "SELECT parent_id, dictionary_id, raw_size, checksum, messages, row FROM sessions WHERE id = ?", id).
		Scan(&parent, &dictID, &size, &sum, &count, &z)
	if errors.Is(err, sql.ErrNoRows) {
		return stored{}, ErrNotFound
	}
	if err != nil {
		return stored{}, err
	}
	s.parent = parent.String
	if s.row, err = a.unpack(ctx, dictID.Int64, size, sum, z); err != nil {
		return stored{}, fmt.Errorf("session row: %w", err)
	}
	rows, err := a.db.QueryContext(ctx, "SELECT seq, dictionary_id, raw_size, checksum, row FROM messages WHERE session_id = ? ORDER BY seq", id)
	if err != nil {
		return stored{}, err
	}
	defer rows.Close()
	s.messages = make([][]byte, 0, count)
	for rows.Next() {
		var seq int
		if err := rows.Scan(&seq, &dictID, &size, &sum, &z); err != nil {
			return stored{}, err
		}
		if seq != len(s.messages) {
			return stored{}, fmt.Errorf("%w: message %d is missing", ErrCorrupt, len(s.messages))
		}
		raw, err := a.unpack(ctx, dictID.Int64, size, sum, z)
		if err != nil {
			return stored{}, fmt.Errorf("message %d: %w", seq, err)
		}
		s.messages = append(s.messages, raw)
	}
	if err := rows.Err(); err != nil {
		return stored{}, err
	}
	if len(s.messages) != count {
		return stored{}, fmt.Errorf("%w: %d messages, archived with %d", ErrCorrupt, len(s.messages), count)
	}
	return s, nil
}

// unpack decompresses one stored row and checks it against its checksum.
func (a *Archive) unpack(ctx context.Context, dictID, size, sum int64, z []byte) ([]byte, error) {
	c, err := a.codec(ctx, dictID)
	if err != nil {
		return nil, err
	}
	raw, err := c.decompress(z, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if got := crc32.Checksum(raw, castagnoli); int64(got) != sum {
		return nil, fmt.Errorf("%w: checksum %08x, want %08x", ErrCorrupt, got, sum)
	}
	return raw, nil
}

// List returns every archived session, oldest archived first.
func (a *Archive) List(ctx context.Context) ([]Entry, error) {
	rows, err := a.db.QueryContext(ctx, `SELECT s.id, s.parent_id, s.archived_at, s.messages,
			s.raw_size + coalesce(sum(m.raw_size), 0), s.size + coalesce(sum(m.size), 0)
		FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
		GROUP BY s.id ORDER BY s.archived_at, s.id`)
	if err != nil {
		return nil, fmt.Errorf("list archive: %w", err)
	}
	defer rows.Close()
	var entries []Entry
	for rows.Next() {
		var (
			e      Entry
			parent sql.NullString
			at     int64
		)
		if err := rows.Scan(&e.ID, &parent, &at, &e.Messages, &e.RawSize, &e.Size); err != nil {
			return nil, fmt.Errorf("list archive: %w", err)
		}
		e.ParentID = parent.String
		e.ArchivedAt = time.UnixMicro(at).UTC()
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list archive: %w", err)
	}
	return entries, nil
}

// Delete removes sessions from the archive, once they are restored. Ids
// not in the archive are ignored.
func (a *Archive) Delete(ctx context.Context, ids []string) error {
	err := a.write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, "DELETE FROM messages WHERE session_id = ?", id); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE id = ?", id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete archived sessions: %w", err)
	}
	return nil
}

// parallel calls fn(0) … fn(n-1) on as many goroutines as there are
// processors.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}
