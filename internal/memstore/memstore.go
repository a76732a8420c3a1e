// Package memstore is a knowledge store in memory, for the tests of
// packages that only need somewhere to keep items, harvests and boots:
// no files, no SQL, and results a test can work out by hand.
//
// It is not a lore.Store and does not say it is: it merges an item only
// into the stored item of the same id, and knows none of the contract's
// near-duplicate, supersede and promotion rules, nor Retire, Delete or
// ForgetSession. A test of those belongs with a real store.
package memstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/terms"
)

// Store keeps items by id, harvest records by session and extractor,
// boots in the order they were recorded, and episodes by session. It is safe for concurrent use.
type Store struct {
	// Now is the store's clock, for the times an item or a boot is given
	// none and for expiry; nil is time.Now.
	Now func() time.Time

	mu       sync.Mutex
	items    map[string]*stored
	added    int // how many items were ever stored, for each one's order
	harvests map[[2]string]lore.Harvest
	boots    []lore.Boot
	episodes map[string][]lore.Episode // by session
}

// stored is an item and when it was first stored, counted in items.
type stored struct {
	item lore.Item
	seq  int
}

// New returns an empty store.
func New() *Store {
	return &Store{items: map[string]*stored{}, harvests: map[[2]string]lore.Harvest{}}
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Add prepares items as every store does (lore.Prepare) and stores each
// by its id. An item whose id is stored adds the sessions of its evidence
// that are new, its confidence when higher, and its later confirmation;
// the stored item keeps its status. Nothing is stored when an item is
// invalid: the error is an *lore.ItemError.
func (s *Store) Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.write(items)
}

// Import stores items as they are, ids, statuses and times given; an item
// whose id is stored is merged into it as Add does.
func (s *Store) Import(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	return s.write(items)
}

func (s *Store) write(items []lore.Item) ([]lore.AddResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	prepared := make([]lore.Item, len(items))
	for i, it := range items {
		p, err := lore.Prepare(it, now)
		if err != nil {
			return nil, &lore.ItemError{Index: i, Err: err}
		}
		if len(p.Evidence) == 0 && p.Manual == 0 {
			p.Manual = p.Confidence // given by hand
		}
		prepared[i] = p
	}
	res := make([]lore.AddResult, len(prepared))
	for i, p := range prepared {
		res[i] = lore.AddResult{ID: p.ID, Action: s.merge(p)}
	}
	return res, nil
}

// merge stores p, or merges it into the stored item of its id.
func (s *Store) merge(p lore.Item) lore.AddAction {
	old := s.items[p.ID]
	if old == nil {
		s.added++
		s.items[p.ID] = &stored{item: clone(p), seq: s.added}
		return lore.Created
	}
	it := &old.item
	changed := false
	for _, e := range p.Evidence {
		if !slices.ContainsFunc(it.Evidence, func(o lore.Evidence) bool { return o.Session == e.Session }) {
			it.Evidence = append(it.Evidence, e)
			it.SourceCount++
			changed = true
		}
	}
	if p.Confidence > it.Confidence {
		it.Confidence, changed = p.Confidence, true
	}
	it.Manual = max(it.Manual, p.Manual)
	if p.LastConfirmed.After(it.LastConfirmed) {
		it.LastConfirmed = p.LastConfirmed
	}
	if changed {
		return lore.Merged
	}
	return lore.Unchanged
}

// Item returns the item with this id or unique id prefix.
func (s *Store) Item(ctx context.Context, id string) (lore.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !lore.ValidIDPrefix(id) {
		return lore.Item{}, lore.Errorf(lore.EINVALID, "%q is not an item id (4 to 24 hex digits)", id)
	}
	var found []*stored
	for full, st := range s.items {
		if strings.HasPrefix(full, id) {
			found = append(found, st)
		}
	}
	switch len(found) {
	case 0:
		return lore.Item{}, lore.Errorf(lore.ENOTFOUND, "no item %s", id)
	case 1:
		return clone(found[0].item), nil
	}
	return lore.Item{}, lore.Errorf(lore.EINVALID, "%s is the start of several ids: give more of it", id)
}

// Items calls fn for every item f selects, in id order.
func (s *Store) Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error {
	for _, st := range s.selected(f) {
		if err := fn(st.item); err != nil {
			return err
		}
	}
	return nil
}

// Count returns how many items f selects.
func (s *Store) Count(ctx context.Context, f lore.Filter) (int, error) {
	return len(s.selected(f)), nil
}

// Best returns the limit items f selects with the highest confidence,
// then the most recently stored.
func (s *Store) Best(ctx context.Context, f lore.Filter, limit int) ([]lore.Item, error) {
	sel := s.selected(f)
	slices.SortStableFunc(sel, func(a, b *stored) int {
		return cmp.Or(cmp.Compare(b.item.Confidence, a.item.Confidence), cmp.Compare(b.seq, a.seq))
	})
	out := []lore.Item{}
	for _, st := range sel[:min(max(limit, 0), len(sel))] {
		out = append(out, st.item)
	}
	return out, nil
}

// Recall returns the pitfalls and tool quirks q's filter selects whose
// signature is one of q.Signatures or whose text opens with q.Command,
// most confident first, then by id.
func (s *Store) Recall(ctx context.Context, q lore.RecallQuery) ([]lore.Item, error) {
	n := q.Limit
	if n <= 0 {
		n = 10
	}
	f := q.Filter
	f.Category = ""
	var out []lore.Item
	for _, st := range s.selected(f) {
		it := st.item
		if it.Category != lore.CategoryPitfall && it.Category != lore.CategoryToolQuirk {
			continue
		}
		if it.Signature != "" && slices.Contains(q.Signatures, it.Signature) || lore.OpensWithCommand(it.Text, q.Command) {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b lore.Item) int {
		return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), strings.Compare(a.ID, b.ID))
	})
	return out[:min(n, len(out))], nil
}

// Search returns the items f selects that hold a word of q's terms
// (internal/terms: lower case, stop words dropped; no stemming), scored by
// how many of the terms they hold, best first, then by confidence and id.
// q.Bounded changes nothing: every item is scored.
func (s *Store) Search(ctx context.Context, q lore.Query) ([]lore.Hit, error) {
	limit := q.Limit
	if limit == 0 {
		limit = 10
	}
	want := terms.Of(q.Text)
	var hits []lore.Hit
	for _, st := range s.selected(q.Filter) {
		words := wordsOf(st.item.Text)
		n := 0
		for _, t := range want {
			if words[t] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, lore.Hit{Item: st.item, Score: float64(n)})
		}
	}
	slices.SortStableFunc(hits, func(a, b lore.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Confidence, a.Confidence), strings.Compare(a.ID, b.ID))
	})
	return hits[:min(max(limit, 0), len(hits))], nil
}

// Searches returns what Search returns for each query.
func (s *Store) Searches(ctx context.Context, qs []lore.Query) ([][]lore.Hit, error) {
	out := make([][]lore.Hit, len(qs))
	for i, q := range qs {
		hits, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = hits
	}
	return out, nil
}

// Harvested returns the record of the last harvest of a session by an
// extractor, and whether there is one.
func (s *Store) Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.harvests[[2]string{session, extractor}]
	return h, ok, nil
}

// RecordHarvest stores records, each replacing the record of the same
// session and extractor; none when one lacks either.
func (s *Store) RecordHarvest(ctx context.Context, hs ...lore.Harvest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := lore.CheckHarvests(hs); err != nil {
		return err
	}
	for _, h := range hs {
		h.At = lore.StoreTime(h.At)
		s.harvests[[2]string{h.Session, h.Extractor}] = h
	}
	return nil
}

// Harvests calls fn for every harvest record, by session, then extractor.
func (s *Store) Harvests(ctx context.Context, fn func(lore.Harvest) error) error {
	s.mu.Lock()
	hs := make([]lore.Harvest, 0, len(s.harvests))
	for _, h := range s.harvests {
		hs = append(hs, h)
	}
	s.mu.Unlock()
	slices.SortFunc(hs, func(a, b lore.Harvest) int {
		return cmp.Or(strings.Compare(a.Session, b.Session), strings.Compare(a.Extractor, b.Extractor))
	})
	for _, h := range hs {
		if err := fn(h); err != nil {
			return err
		}
	}
	return nil
}

// RecordBoot stores a boot, its task redacted (lore.PrepareBoot); one
// given no time is recorded at Now.
func (s *Store) RecordBoot(ctx context.Context, b lore.Boot) error {
	b = lore.PrepareBoot(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.At.IsZero() {
		b.At = s.now()
	}
	b.At = lore.StoreTime(b.At)
	b.Items = slices.Clone(b.Items)
	s.boots = append(s.boots, b)
	return nil
}

// Boots calls fn for every boot recorded at or after since, oldest first.
func (s *Store) Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error {
	s.mu.Lock()
	var bs []lore.Boot
	for _, b := range s.boots {
		if !b.At.Before(since) {
			b.Items = slices.Clone(b.Items)
			bs = append(bs, b)
		}
	}
	s.mu.Unlock()
	slices.SortStableFunc(bs, func(a, b lore.Boot) int { return a.At.Compare(b.At) })
	for _, b := range bs {
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// selected returns copies of the items f selects, in id order.
func (s *Store) selected(f lore.Filter) []*stored {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var out []*stored
	for _, st := range s.items {
		if selects(f, st.item, now) {
			out = append(out, &stored{item: clone(st.item), seq: st.seq})
		}
	}
	slices.SortFunc(out, func(a, b *stored) int { return strings.Compare(a.item.ID, b.item.ID) })
	return out
}

// selects reports whether f selects it at now, by the rules of
// lore.Filter.
func selects(f lore.Filter, it lore.Item, now time.Time) bool {
	statuses := f.Statuses
	if len(statuses) == 0 {
		statuses = []lore.Status{lore.StatusActive}
	}
	switch {
	case !f.AnyStatus && !slices.Contains(statuses, it.Status),
		!f.SelectsRepo(it.Repo),
		f.Agent != "" && it.Agent != f.Agent,
		f.Category != "" && it.Category != f.Category,
		f.NoAgent && it.Agent != "",
		!f.Expired && it.Expired(now):
		return false
	}
	return true
}

// wordsOf returns the lower-case words and numbers of text, split as
// internal/terms splits a query.
func wordsOf(text string) map[string]bool {
	words := map[string]bool{}
	for _, w := range terms.Words(text) {
		words[w] = true
	}
	return words
}

// clone copies an item's lists, so that no caller shares them with the
// store.
func clone(it lore.Item) lore.Item {
	it.Evidence = slices.Clone(it.Evidence)
	it.Tags = slices.Clone(it.Tags)
	it.Related = slices.Clone(it.Related)
	return it
}

// RecordEpisodes replaces each given session's episodes by its own, each
// prepared by lore.PrepareSessions.
func (s *Store) RecordEpisodes(ctx context.Context, batch ...lore.SessionEpisodes) error {
	prepared, err := lore.PrepareSessions(batch)
	if err != nil {
		return err
	}
	byS := map[string][]lore.Episode{}
	var order []string
	for _, b := range prepared {
		session, kept := b.Session, b.Episodes
		for i, e := range kept {
			// Kept as a store reads them back: the fields alone.
			kept[i] = lore.Episode{Session: e.Session, Agent: e.Agent, Repo: e.Repo, At: e.At, Position: e.Position, Tool: e.Tool,
				Input: e.Input, Error: e.Error, Signature: e.Signature, Fix: e.Fix, Changes: e.Changes, Steps: e.Steps}
		}
		byS[session] = kept
		order = append(order, session)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.episodes == nil {
		s.episodes = map[string][]lore.Episode{}
	}
	for _, session := range order {
		delete(s.episodes, session)
		if len(byS[session]) > 0 {
			s.episodes[session] = byS[session]
		}
	}
	return nil
}

// Episodes returns the episodes that best match q: those of its
// signature as lore.SortEpisodes ranks them, then those of other
// signatures whose error line matches q's text (lore.MatchesText), most
// shared words first, then the newest.
func (s *Store) Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 5
	}
	words := terms.Of(q.Text)
	var same, other []lore.Episode
	s.mu.Lock()
	for _, eps := range s.episodes {
		for _, e := range eps {
			switch {
			case !q.Before.IsZero() && !e.At.Before(q.Before):
			case e.Signature == q.Signature:
				same = append(same, e)
			case lore.MatchesText(words, e.Error):
				other = append(other, e)
			}
		}
	}
	s.mu.Unlock()
	lore.SortEpisodes(q, same)
	slices.SortStableFunc(other, func(a, b lore.Episode) int {
		return cmp.Or(cmp.Compare(lore.SharedWords(words, b.Error), lore.SharedWords(words, a.Error)), b.At.Compare(a.At),
			strings.Compare(a.Session, b.Session), cmp.Compare(a.Position, b.Position))
	})
	out := append(same, other...)
	return out[:min(len(out), limit)], nil
}
