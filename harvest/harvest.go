// Package harvest turns sessions into knowledge items: an Extractor finds
// them in one session (by rules, offline, or by an LLM), and Run harvests
// many sessions into a store, incrementally: a session whose transcript
// has not changed since its last harvest is not read again. List finds
// the sessions to harvest under some paths, checking the harvest records
// before it opens a transcript, and reads each changed one once.
//
// Everything an extractor returns is redacted before it is stored, and an
// item that reads as an instruction to an agent ("ignore previous
// instructions", text addressed to the model) is refused: transcripts
// carry text from web pages and tool output, and lore hands items to the
// next session. An order to the reader that names nothing of a project,
// asks for something harmful, or comes from tool output, a dangerous
// setting (lore.Unsafe), and a text handing on a command, a setting or an
// address first read in tool output that the agent did not then run with
// success, are kept as candidates, which no session is handed.
package harvest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/llm"
	"github.com/lorehq/lore/transcript"
)

// Extractor finds knowledge in one session. Items must cite the session
// (Evidence with its id and a message index) and may be unredacted: Run
// redacts them.
type Extractor interface {
	// Name identifies the extractor in harvest records: "rules", or the
	// LLM's spec and model.
	Name() string
	Extract(ctx context.Context, s *lore.Session) (Found, error)
}

// Found is what an extractor found in one session, and what it cost.
type Found struct {
	Items []lore.Item
	// Redactions counts the secrets removed from what was sent to a model.
	Redactions int
	LLMCalls   int
	TokensIn   int64
	TokensOut  int64
	// Failures counts model answers that could not be used, even after
	// repair and one retry.
	Failures int
	// Chunks counts the parts of the session a model was asked about.
	Chunks int
	// Dropped counts items of usable answers that lacked what an item
	// needs (a text, a known category, a position the part holds).
	Dropped int
	// Episodes are the session's failures and what came next, the raw
	// history lore falls back on when no item covers an error. Non-nil
	// (if empty) from an extractor that looks for them, the rules: they
	// replace the session's stored episodes; nil leaves those as they are.
	Episodes []lore.Episode
	// overcome are the errors the session got past, which confirm the
	// causes stated for them before (causes.go).
	overcome []overcome
	// documented is the code of the repository's instructions file the
	// session saw, which marks known the items it gives (documented.go).
	documented string
	// origins is where the extractor traced the session's words from, if
	// it did: clean judges the items by the same reading, not a second.
	origins *origins
}

// Marker starts every prompt lore sends to a model. An agent CLI run as
// an extractor (exec:claude -p) writes a transcript of that call; a
// session whose first user message holds Marker is lore's own, and is
// never harvested.
const Marker = "[lore harvest prompt]"

// store is what Run needs of a store: whether a session was harvested
// already, and where to put what it teaches: items, and the episodes of
// its failures.
type store interface {
	Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error)
	Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error)
	RecordHarvest(ctx context.Context, hs ...lore.Harvest) error
	RecordEpisodes(ctx context.Context, batch ...lore.SessionEpisodes) error
}

// Options configure Run.
type Options struct {
	Store     store
	Extractor Extractor
	// Workers is how many transcripts are read and extracted at once; 0
	// means one per CPU.
	Workers int
	// DryRun extracts but stores nothing, not even harvest records.
	DryRun bool
	// Progress, if set, is called after each session with the summary so
	// far; calls come from several goroutines, one at a time.
	Progress func(Summary)
	// Found, if set, is called with each session's items after they are
	// redacted and checked, one session at a time.
	Found func(s *lore.Session, items []lore.Item)
	Now   func() time.Time
	// Listing, if set, is where the sessions were found (List): what it
	// learned of their transcripts is not learned again, and those it
	// left unread are skipped unread.
	Listing *Listing
}

// Summary counts what a harvest did. The JSON names are lore harvest
// --json's.
type Summary struct {
	SessionsSeen      int `json:"sessions_seen"`
	SessionsHarvested int `json:"sessions_harvested"`
	SessionsSkipped   int `json:"sessions_skipped"`
	ItemsNew          int `json:"items_new"`
	ItemsMerged       int `json:"items_merged"`
	ItemsSuperseded   int `json:"items_superseded"`
	ItemsRefused      int `json:"items_refused"`
	// ItemsHeld counts items kept as candidates because they read as
	// orders to an agent (see hold).
	ItemsHeld int `json:"items_held"`
	// ItemsDropped counts items an extractor found that could not be
	// kept: a model's item without a text, a known category or a position
	// it was shown, or a text longer than 300 characters once redacted.
	ItemsDropped int   `json:"items_dropped"`
	Redactions   int   `json:"redactions"`
	LLMCalls     int   `json:"llm_calls"`
	LLMTokensIn  int64 `json:"llm_tokens_in"`
	LLMTokensOut int64 `json:"llm_tokens_out"`
	LLMFailures  int   `json:"llm_failures"`
	// LLMUnanswered names the sessions none of whose model answers could
	// be used: they are problems too, not recorded, and asked again by
	// the next run.
	LLMUnanswered []string `json:"llm_unanswered,omitempty"`
	// LLMTokensPerItem is the model's tokens, in and out, per item kept
	// (stored, whether new or merged); 0 without a model.
	LLMTokensPerItem float64 `json:"llm_tokens_per_item"`
	Errors           int     `json:"errors"`
	Seconds          float64 `json:"seconds"`
	// Bytes counts the transcript bytes read.
	Bytes int64 `json:"bytes"`
	// Problems says what went wrong with each session counted in Errors.
	Problems []Problem `json:"problems,omitempty"`
	// FixesLinked counts the pitfalls found fixed by a commit lore guard
	// keeps a guard of (lore.LinkFixes).
	FixesLinked int `json:"fixes_linked"`
	// Rebuild says what a rebuild took back before the run (lore harvest
	// --rebuild; see Listing.Rebuild), when there was one.
	Rebuild *Rebuilt `json:"rebuild,omitempty"`
}

// Problem is a session that could not be harvested.
type Problem struct {
	// Session is "" for a transcript that could not be read at all.
	Session string `json:"session,omitempty"`
	Path    string `json:"path"`
	Error   string `json:"error"`
}

// Run harvests sessions (as listed, without their messages) into the
// store. One session's failure is counted and reported in the summary;
// the error is for a cancelled context or a store that cannot be written.
//
// Workers read and extract; one writer stores what they found, many
// sessions per transaction, and records each session's harvest after its
// items: a run killed in between harvests those sessions again, which
// adds nothing twice.
func Run(ctx context.Context, sessions []*lore.Session, opts Options) (Summary, error) {
	start := time.Now()
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	// Sessions are read a transcript at a time: a file can hold several.
	byPath := map[string][]*lore.Session{}
	var paths []string
	for _, s := range sessions {
		if byPath[s.Path] == nil {
			paths = append(paths, s.Path)
		}
		byPath[s.Path] = append(byPath[s.Path], s)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	h := &harvester{opts: opts, now: now, out: make(chan done, 64)}
	h.sum.SessionsSeen = len(sessions)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(len(paths), 1)) {
		wg.Go(func() {
			for n := range jobs {
				h.out <- done{n: n, found: h.file(ctx, paths[n], byPath[paths[n]])}
			}
		})
	}
	written := make(chan struct{})
	go func() {
		h.write(ctx)
		close(written)
	}()
feed:
	for n := range paths {
		if h.failed() != nil {
			break
		}
		select {
		case jobs <- n:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(h.out)
	<-written
	if h.failed() == nil && ctx.Err() == nil && !opts.DryRun {
		if err := h.linkFixes(ctx); err != nil {
			h.halt(err)
		}
	}
	h.sum.Seconds = time.Since(start).Seconds()
	if h.kept > 0 {
		h.sum.LLMTokensPerItem = float64(h.sum.LLMTokensIn+h.sum.LLMTokensOut) / float64(h.kept)
	}
	sort.Slice(h.sum.Problems, func(i, j int) bool { return h.sum.Problems[i].Session < h.sum.Problems[j].Session })
	sort.Strings(h.sum.LLMUnanswered)
	if err := ctx.Err(); err != nil {
		return h.sum, err
	}
	return h.sum, h.failed()
}

// done is what a worker found in the n-th transcript of a run.
type done struct {
	n     int
	found []harvested
}

// harvested is what a worker found in one session, for the writer.
type harvested struct {
	s     *lore.Session
	rec   lore.Harvest
	items []lore.Item
	own   bool // lore's own model call: recorded, not harvested
	// refresh: a skipped session's record, brought up to date
	refresh    bool
	overcome   []overcome // errors it got past (causes.go)
	documented string     // code of the instructions file it saw (documented.go)
	episodes   []lore.Episode
}

type harvester struct {
	opts Options
	now  func() time.Time
	out  chan done

	mu   sync.Mutex
	sum  Summary
	kept int   // items handed to the store
	fail error // a store that cannot be written ends the run
	docs docs  // what instructions files document, by repository (documented.go)
	// committed are the repositories of sessions whose pitfalls carry the
	// commit the session made next (lore.TagCommits).
	committed []string
}

func (h *harvester) failed() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fail
}

// file harvests the sessions of one transcript. A session whose record
// says its transcript is as it is now (by size and time, else by content)
// is skipped; the others are harvested as they came, when they carry
// their messages, else as the transcript is read now.
func (h *harvester) file(ctx context.Context, path string, want []*lore.Session) (found []harvested) {
	if ctx.Err() != nil || h.failed() != nil {
		return nil
	}
	var listed *file
	if h.opts.Listing != nil {
		listed = h.opts.Listing.files[path]
	}
	if listed != nil && listed.done {
		h.count(func(sum *Summary) { sum.SessionsSkipped += len(want) })
		return
	}
	carried := !slices.ContainsFunc(want, func(s *lore.Session) bool { return len(s.Messages) == 0 })
	var (
		fp  fingerprint
		err error
	)
	if listed != nil && listed.read && carried {
		fp = listed.fp // as it was when the listing read it
	} else if fp, err = stat(path); err != nil {
		h.problems(want, err)
		return
	}
	// hash is asked for when the time does not tell, and for records. A
	// transcript written to since fp was taken hashes to what no
	// record of fp's size holds: it is read again next run.
	hash := func() (string, error) {
		if fp.hash == "" {
			p, err := hashed(path)
			if err != nil {
				return "", err
			}
			fp.hash = p.hash
		}
		return fp.hash, nil
	}
	var todo, skipped []*lore.Session
	recs := map[string]lore.Harvest{}
	for _, s := range want {
		if l := h.opts.Listing; l != nil && l.forgotten[s.ID] {
			h.count(func(sum *Summary) { sum.SessionsSkipped++ }) // a person took it back: never learned again
			continue
		}
		rec, ok, err := h.record(ctx, s.ID)
		if err != nil {
			h.stop(err)
			return
		}
		if !ok || rec.Path != lore.RecordPath(path) || rec.Size != fp.size {
			todo = append(todo, s)
			continue
		}
		if !rec.ModTime.Equal(fp.mtime) {
			sum, err := hash()
			if err != nil {
				h.problems(want, err)
				return
			}
			if rec.Hash != sum {
				todo = append(todo, s)
				continue
			}
		}
		recs[s.ID] = rec
		skipped = append(skipped, s)
	}
	h.count(func(sum *Summary) { sum.SessionsSkipped += len(skipped) })
	held := -1 // unknown
	if listed != nil {
		held = listed.held
	}
	if len(todo) > 0 {
		read := todo
		if !carried {
			// Hashed before it is read: a transcript that grows meanwhile
			// is read again next run.
			if _, err := hash(); err != nil {
				h.problems(todo, err)
				return
			}
			all, err := transcript.Read(ctx, path, transcript.Options{Messages: true, Workers: 1})
			if err != nil {
				h.problems(todo, err)
				return
			}
			read = all
			if listed == nil {
				held = distinctIDs(all)
			}
		} else if _, err := hash(); err != nil {
			h.problems(todo, err)
			return
		}
		h.count(func(sum *Summary) { sum.Bytes += fp.size })
		for _, s := range todo {
			i := slices.IndexFunc(read, func(r *lore.Session) bool { return r != nil && r.ID == s.ID })
			if i < 0 {
				h.problems([]*lore.Session{s}, errors.New("the session is no longer in its transcript"))
				continue
			}
			if s.Repo != "" {
				// The listing settled the repo with every session it
				// saw; a transcript read alone knows less.
				read[i].Repo = s.Repo
			}
			if x, ok := h.session(ctx, read[i], lore.Harvest{Session: s.ID, Extractor: h.opts.Extractor.Name(), Path: path,
				Size: fp.size, ModTime: fp.mtime, Hash: fp.hash, Sessions: max(held, 0)}); ok {
				found = append(found, x)
			}
			read[i] = nil // its messages can go
		}
	}
	// A record that no longer says how the transcript is (its time moved,
	// or it predates times) is brought up to date, so that the next run
	// need not hash or read it.
	for _, s := range skipped {
		rec := recs[s.ID]
		if rec.ModTime.Equal(fp.mtime) && (held < 0 || rec.Sessions == held) {
			continue
		}
		rec.ModTime = fp.mtime
		if held >= 0 {
			rec.Sessions = held
		}
		found = append(found, harvested{s: s, rec: rec, refresh: true})
	}
	return found
}

// record returns a session's record of this extractor: the listing's, or
// the store's.
func (h *harvester) record(ctx context.Context, session string) (lore.Harvest, bool, error) {
	if l := h.opts.Listing; l != nil {
		rec, ok := l.records[session]
		return rec, ok, nil
	}
	return h.opts.Store.Harvested(ctx, session, h.opts.Extractor.Name())
}

// session extracts one session read with its messages, and returns what
// it found for the writer, if anything is to be stored or recorded.
func (h *harvester) session(ctx context.Context, s *lore.Session, rec lore.Harvest) (harvested, bool) {
	if own(s) {
		return harvested{s: s, rec: rec, own: true}, true
	}
	found, err := h.opts.Extractor.Extract(ctx, s)
	h.count(func(sum *Summary) {
		sum.LLMCalls += found.LLMCalls
		sum.LLMTokensIn += found.TokensIn
		sum.LLMTokensOut += found.TokensOut
		sum.LLMFailures += found.Failures
		sum.Redactions += found.Redactions
		sum.ItemsDropped += found.Dropped
	})
	switch {
	case err != nil && (errors.Is(err, llm.ErrAuth) || errors.Is(err, llm.ErrUnreachable)):
		h.halt(err) // every session would meet the same refusal, or no server
		return harvested{}, false
	case err != nil:
		if ctx.Err() == nil {
			h.problems([]*lore.Session{s}, err)
		}
		return harvested{}, false
	case found.Chunks > 0 && found.Failures == found.Chunks:
		// Not recorded, so that the next run asks again.
		h.count(func(sum *Summary) { sum.LLMUnanswered = append(sum.LLMUnanswered, s.ID) })
		h.problems([]*lore.Session{s}, fmt.Errorf("no usable answer from the model for any of its %d parts; it is asked again next run", found.Chunks))
		return harvested{}, false
	}
	c := h.clean(s, found.Items, found.origins)
	items := c.kept
	if commits := lore.SessionCommits(s); len(commits) > 0 {
		lore.TagCommits(items, s.ID, commits)
		if s.Repo != "" && slices.ContainsFunc(items, func(it lore.Item) bool { return slices.ContainsFunc(it.Tags, isCommitTag) }) {
			h.mu.Lock()
			h.committed = append(h.committed, s.Repo)
			h.mu.Unlock()
		}
	}
	h.count(func(sum *Summary) {
		sum.Redactions += c.redactions
		sum.ItemsRefused += c.refused
		sum.ItemsHeld += c.held
		sum.ItemsDropped += c.dropped
	})
	if h.opts.Found != nil {
		h.mu.Lock()
		h.opts.Found(s, items)
		h.mu.Unlock()
	}
	rec.Items = len(items)
	var episodes []lore.Episode
	if found.Episodes != nil {
		// Redacted and screened here, in the workers, not by the writer.
		episodes = lore.PrepareEpisodes(s.ID, found.Episodes)
	}
	return harvested{s: s, rec: rec, items: items, overcome: found.overcome, documented: found.documented,
		episodes: episodes}, true
}

// The writer stores up to batchSessions sessions or batchItems items in
// one transaction, and what has come within flushEvery.
const (
	batchSessions = 64
	batchItems    = 2000
	flushEvery    = 250 * time.Millisecond
)

// write stores what the workers found, in batches, in the order of the
// transcripts, whichever worker finished first: the store merges items
// and supersedes one by another in the order they come, and the same
// sessions harvested twice give the same store.
func (h *harvester) write(ctx context.Context) {
	var (
		batch   []harvested
		items   int
		due     <-chan time.Time
		next    int
		waiting = map[int][]harvested{}
	)
	flush := func() {
		h.flush(ctx, batch)
		batch, items, due = batch[:0], 0, nil
	}
	add := func(found []harvested) {
		for _, x := range found {
			batch = append(batch, x)
			items += len(x.items)
			if due == nil {
				due = time.After(flushEvery)
			}
			if len(batch) >= batchSessions || items >= batchItems {
				flush()
			}
		}
	}
	for {
		select {
		case d, ok := <-h.out:
			if !ok {
				// What came after a transcript that never did (the run
				// stopped) is stored all the same.
				for _, n := range slices.Sorted(maps.Keys(waiting)) {
					add(waiting[n])
				}
				flush()
				return
			}
			waiting[d.n] = d.found
			for found, ok := waiting[next]; ok; found, ok = waiting[next] {
				delete(waiting, next)
				next++
				add(found)
			}
		case <-due:
			flush()
		}
	}
}

// flush stores a batch's items, then records its sessions' harvests.
func (h *harvester) flush(ctx context.Context, batch []harvested) {
	if len(batch) == 0 || h.failed() != nil || ctx.Err() != nil {
		return
	}
	if h.opts.DryRun {
		h.count(func(sum *Summary) {
			for _, x := range batch {
				h.kept += len(x.items)
				tally(sum, x, nil)
			}
		})
		return
	}
	if err := h.confirmCauses(ctx, batch); err != nil { // causes.go
		h.stop(err)
		return
	}
	if err := h.markDocumented(ctx, batch); err != nil { // documented.go
		h.stop(err)
		return
	}
	var items []lore.Item
	for _, x := range batch {
		items = append(items, x.items...)
	}
	wide, err := widen(ctx, h.opts.Store, items) // a portable item met in two repositories is global (scope.go)
	var results []lore.AddResult
	if err == nil {
		results, err = h.opts.Store.Add(ctx, items)
	}
	if err == nil {
		err = supersede(ctx, h.opts.Store, wide)
	}
	if err != nil {
		switch {
		case lore.ErrorCode(err) != lore.EINVALID:
			h.stop(err)
		case len(batch) > 1:
			for _, x := range batch { // find the session at fault
				h.flush(ctx, []harvested{x})
			}
		default:
			h.problems([]*lore.Session{batch[0].s}, err)
		}
		return
	}
	var episodes []lore.SessionEpisodes
	for _, x := range batch {
		if x.episodes != nil {
			episodes = append(episodes, lore.SessionEpisodes{Session: x.s.ID, Episodes: x.episodes})
		}
	}
	if err := h.opts.Store.RecordEpisodes(ctx, episodes...); err != nil {
		h.stop(err)
		return
	}
	recs := make([]lore.Harvest, len(batch))
	at := h.now()
	for i, x := range batch {
		recs[i] = x.rec
		if !x.refresh {
			recs[i].At = at
		}
	}
	if err := h.opts.Store.RecordHarvest(ctx, recs...); err != nil {
		h.stop(err)
		return
	}
	h.count(func(sum *Summary) {
		h.kept += len(items)
		for _, x := range batch {
			tally(sum, x, results[:len(x.items)])
			results = results[len(x.items):]
		}
	})
}

// tally counts one stored session; results are nil in a dry run.
func tally(sum *Summary, x harvested, results []lore.AddResult) {
	if x.refresh {
		return // counted as skipped already
	}
	if x.own {
		sum.SessionsSkipped++
		return
	}
	sum.SessionsHarvested++
	if results == nil {
		sum.ItemsNew += len(x.items)
		return
	}
	for _, r := range results {
		switch r.Action {
		case lore.Created:
			sum.ItemsNew++
		case lore.Merged:
			sum.ItemsMerged++
		}
		sum.ItemsSuperseded += len(r.Superseded)
	}
}

// cleaned is what clean kept of a session's items, and what it did.
type cleaned struct {
	kept                               []lore.Item
	redactions, refused, held, dropped int
}

// heldConfidence is the most a held item is stored with: a guess. Held
// items are tagged lore.TagHeld, which keeps sessions from ever making
// them active.
const heldConfidence = 0.3

// clean redacts items, drops those too long once redacted, refuses
// instructions, holds back as candidates orders, dangerous settings and
// texts that hand on a command, a setting or an address read in tool
// output (origins.strangers), and fills what an extractor may leave out.
func (h *harvester) clean(s *lore.Session, items []lore.Item, from *origins) (c cleaned) {
	if from == nil {
		from = newOrigins(s)
	}
	for _, it := range items {
		c.redactions += it.Redact() // once: the store's Prepare takes it as it is
		if utf8.RuneCountInString(it.Text) > maxItemText {
			c.dropped++
			continue
		}
		// An order is judged by where its words came from, not only by
		// the message it cites: a model may cite the agent's message
		// that repeated a web page.
		var refuse, held bool
		if userQuote(s, it) && !fromTool(s, it) && !(lore.Order(it.Text) && from.echoes(it.Text)) {
			refuse, held = screenUser(it.Text) // the user's own standing preference
		} else {
			refuse, held = screen(it.Text, func() bool { return fromTool(s, it) || from.echoes(it.Text) })
		}
		if refuse {
			c.refused++
			continue
		}
		held = held || from.strangers(it.Text)
		if held {
			c.held++
			it.Status = lore.StatusCandidate
			it.Confidence = min(it.Confidence, heldConfidence)
			if !slices.Contains(it.Tags, lore.TagHeld) {
				it.Tags = append(slices.Clip(it.Tags), lore.TagHeld)
			}
		}
		if !lore.Earned(it) {
			// One session's finding waits for a second session, unless
			// the session showed it true (lore.Earned).
			it.Status = lore.StatusCandidate
		}
		if it.Agent == "" && it.Category == lore.CategoryToolQuirk {
			it.Agent = s.Agent
		}
		if it.FirstSeen.IsZero() {
			it.FirstSeen = s.LastActive() // harvesting an old session late does not make its items new
			if it.FirstSeen.IsZero() {
				it.FirstSeen = h.now()
			}
		}
		if it.LastConfirmed.IsZero() {
			it.LastConfirmed = it.FirstSeen
		}
		c.kept = append(c.kept, it)
	}
	return c
}

// fromTool reports whether an item's evidence is tool output (a command's
// output, a file, a web page) rather than what the user or the agent
// wrote. The evidence is often the agent's own call: what its text
// carries is traced by origins.
func fromTool(s *lore.Session, it lore.Item) bool {
	if len(it.Evidence) == 0 {
		return false
	}
	m, ok := messageAt(s, it.Evidence[0].Position)
	if !ok {
		return false
	}
	// A refusal's reason is the user's words (userWords), unless other
	// output shares its message.
	return m.Role == lore.RoleTool && len(m.ToolResults) == 0 ||
		slices.ContainsFunc(m.ToolResults, func(tr lore.ToolResult) bool { return !userWords(tr) })
}

// messageAt is the session's message at index pos.
func messageAt(s *lore.Session, pos int) (lore.Message, bool) {
	i := pos
	if i < 0 || i >= len(s.Messages) || s.Messages[i].Index != pos {
		i = slices.IndexFunc(s.Messages, func(m lore.Message) bool { return m.Index == pos })
		if i < 0 {
			return lore.Message{}, false
		}
	}
	return s.Messages[i], true
}

func (h *harvester) count(f func(*Summary)) {
	h.mu.Lock()
	f(&h.sum)
	sum := h.sum
	h.mu.Unlock()
	if h.opts.Progress != nil {
		h.mu.Lock()
		h.opts.Progress(sum)
		h.mu.Unlock()
	}
}

func (h *harvester) problems(ss []*lore.Session, err error) {
	h.count(func(sum *Summary) {
		for _, s := range ss {
			sum.Errors++
			sum.Problems = append(sum.Problems, Problem{Session: s.ID, Path: s.Path, Error: oneLine(err.Error())})
		}
	})
}

// stop ends the run on a store that cannot be read or written.
func (h *harvester) stop(err error) { h.halt(fmt.Errorf("store: %w", err)) }

// halt ends the run: the sessions not yet read are left for the next.
func (h *harvester) halt(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail == nil {
		h.fail = err
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		n := 300
		for n > 0 && !utf8.RuneStart(s[n]) {
			n-- // not inside a character
		}
		s = s[:n] + "…"
	}
	return s
}

// own reports whether a session is one of lore's own model calls.
func own(s *lore.Session) bool {
	for _, m := range s.Messages {
		if m.Role == lore.RoleUser {
			return strings.Contains(m.Text, Marker)
		}
	}
	return false
}
