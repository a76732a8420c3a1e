package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/episode"
	"github.com/lorehq/lore/errsig"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/redact"
	"github.com/lorehq/lore/internal/shellcmd"
	"github.com/lorehq/lore/recall"
	"github.com/lorehq/lore/transcript"
)

// Options shape a measurement.
type Options struct {
	// Since leaves out the sessions last active before it (active: their
	// end, else their start, the rule of lore sessions --since, so that a
	// session running across the day counts), and from velocity the items
	// first seen before it. Knowledge stays the whole store: it is the
	// store's state, not what a period added. Zero: all.
	Since time.Time
	// Repo keeps only this repository's sessions and items; a bare name
	// matches it under any owner (lore.RepoMatches).
	Repo string
	Now  time.Time // zero: the current time
	// Replay runs would-have-known; without it that part is left empty.
	Replay bool
	// ReplayStore returns a new, empty store for Replay to learn in. The
	// replay closes it when done; throwing it away then is the store's
	// (a temporary file's store removes its folder on Close). Replay
	// needs it: measure knows no store of its own.
	ReplayStore func(ctx context.Context) (lore.Store, error)
	// Progress, if set, is told each session measured.
	Progress func(done, total int)
	// Recalled, if set, is told each episode answer the replay asked
	// for: the session, the error line it met and the answer, for a
	// person judging the answers against the transcripts.
	Recalled func(s *lore.Session, line string, a episode.Answer)
}

// staleAfter is how long an item may go unconfirmed before it counts as
// stale.
const staleAfter = 90 * 24 * time.Hour

// facts is what measure keeps of a session read with its messages.
type facts struct {
	s          *lore.Session
	signatures []string // distinct error signatures met
	// lines are the first error line met of each signature, as the tool
	// printed it: what tells two errors of one signature apart (values).
	// Read in memory only; never reported.
	lines map[string]string
	// texts are the first error line of each signature, of an agent
	// tool's own error too: what the episode lookup is asked with.
	texts    map[string]string
	cited    map[string]bool // id prefixes cited as lore:ID
	commands []string        // shell commands run
	task     string          // the first user message
	// calls are the session's tool calls in order, as the point of
	// action saw them: what lore recall would have been asked.
	calls []replayedCall
}

// replayedCall is a tool call as its hooks would have seen it: before it
// ran, its name and input; after it failed, what the agent was told and
// the signature measure counts it under ("" when it counts none).
type replayedCall struct {
	name, input string
	failed      bool
	output, sig string
}

// maxReplayed caps what a replayed call keeps of its input and output:
// what a hook would be given, in memory for the replay only.
const maxReplayed = 16 << 10

// store is what Compute reads of the user's store: its items, which
// sessions were harvested, and the boots handed out.
type store interface {
	Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error
	Harvests(ctx context.Context, fn func(lore.Harvest) error) error
	Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error
}

// Compute measures sessions (as listed, without their messages) against
// the store. Each session is read once more with its messages, in time
// order; with Replay, each is also harvested, as read, into a temporary
// store after the sessions before it. A nil store is no store: what comes from it
// (velocity, harvests, hit rate, knowledge) is empty, which is all that
// would-have-known alone needs.
func Compute(ctx context.Context, sessions []*lore.Session, st store, opts Options) (Metrics, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	m := Metrics{GeneratedAt: now.UTC(), Repo: opts.Repo, Outcomes: map[string]int{}}
	if !opts.Since.IsZero() {
		m.Since = opts.Since.Format("2006-01-02")
	}
	var kept []*lore.Session
	for _, s := range sessions {
		if opts.Repo != "" && !lore.RepoMatches(s.Repo, opts.Repo) {
			continue
		}
		if !opts.Since.IsZero() && s.LastActive().Before(opts.Since) {
			continue
		}
		kept = append(kept, s)
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].FirstActive().Before(kept[j].FirstActive()) })
	m.Sessions = len(kept)

	items, err := storeItems(ctx, st, opts.Repo)
	if err != nil {
		return m, err
	}
	knownSince := map[string]time.Time{}
	for _, it := range items {
		if it.Signature == "" {
			continue
		}
		if t, ok := knownSince[it.Signature]; !ok || it.FirstSeen.Before(t) {
			knownSince[it.Signature] = it.FirstSeen
		}
	}

	var replay *replayer
	if opts.Replay {
		if opts.ReplayStore == nil {
			return m, errors.New("replay: no store to learn in (Options.ReplayStore)")
		}
		if replay, err = newReplayer(ctx, opts.ReplayStore); err != nil {
			return m, err
		}
		replay.recalled = opts.Recalled
		defer replay.close()
	}
	var all []facts
	for i, s := range kept {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		f, full, err := read(ctx, s)
		if err != nil {
			f = facts{s: s} // counters still count; the messages are lost
		}
		if replay != nil && full != nil {
			if err := replay.step(ctx, full, f); err != nil {
				return m, err
			}
		}
		all = append(all, f)
		if opts.Progress != nil {
			opts.Progress(i+1, len(kept))
		}
	}

	harvested, err := harvestedSessions(ctx, st)
	if err != nil {
		return m, err
	}
	m.Velocity = velocity(items, kept, harvested, opts.Since, now)
	m.Coverage = coverage(kept, harvested)
	if m.HitRate, m.Recall, err = hitRate(ctx, st, all, items, opts.Since); err != nil {
		return m, err
	}
	m.Recurrence = recurrence(all, knownSince)
	m.FirstTry = firstTry(kept)
	for _, s := range kept {
		m.Outcomes[string(orUnknown(s.Outcome))]++
	}
	m.PerSession = perSession(kept)
	m.Knowledge = knowledge(items, now)
	m.WouldHaveKnown = WouldHaveKnown{Weeks: []Known{}, BySession: []ReplayedSession{}, Boots: BootSizes{BySession: []ReplayedBoot{}}}
	if replay != nil {
		m.WouldHaveKnown = replay.result()
	}
	if m.Holdout, err = holdout(ctx, st, all, knownSince, opts.Since); err != nil {
		return m, err
	}
	if m.ByAgent, err = splits(ctx, st, all, items, knownSince, opts.Since, func(s *lore.Session) string { return s.Agent }); err != nil {
		return m, err
	}
	if m.ByRepo, err = splits(ctx, st, all, items, knownSince, opts.Since, func(s *lore.Session) string { return s.Repo }); err != nil {
		return m, err
	}
	if m.Journal, err = journal(ctx, st, opts.Repo, opts.Since); err != nil {
		return m, err
	}
	m.Verdict = verdict(m)
	return m, nil
}

func orUnknown(o lore.Outcome) lore.Outcome {
	if o == "" {
		return lore.OutcomeUnknown
	}
	return o
}

// storeItems reads every item of repo (all when empty), selected as the
// sessions are (lore.RepoMatches): a bare name under any owner too.
func storeItems(ctx context.Context, st store, repo string) ([]lore.Item, error) {
	if st == nil {
		return nil, nil
	}
	var items []lore.Item
	err := st.Items(ctx, lore.Filter{Repo: repo, AnyOwner: true, AnyStatus: true, Expired: true}, func(it lore.Item) error {
		items = append(items, it)
		return nil
	})
	return items, err
}

func harvestedSessions(ctx context.Context, st store) (map[string]bool, error) {
	h := map[string]bool{}
	if st == nil {
		return h, nil
	}
	err := st.Harvests(ctx, func(r lore.Harvest) error {
		if r.Extractor == lore.JournalImported {
			return nil // attempts, not knowledge
		}
		h[r.Session] = true
		return nil
	})
	return h, err
}

// read reads a session with its messages and keeps what measure needs.
// redactor takes the secrets out of the error signatures measure reports.
var redactor = redact.New()

func read(ctx context.Context, listed *lore.Session) (facts, *lore.Session, error) {
	f := facts{s: listed, cited: map[string]bool{}, lines: map[string]string{}, texts: map[string]string{}}
	ss, err := transcript.Read(ctx, listed.Path, transcript.Options{Messages: true, Workers: 1})
	if err != nil {
		return f, nil, err
	}
	i := slices.IndexFunc(ss, func(s *lore.Session) bool { return s.ID == listed.ID })
	if i < 0 {
		return f, nil, errors.New("the session is no longer in its transcript")
	}
	s := ss[i]
	if listed.Repo != "" {
		s.Repo = listed.Repo // settled with every session listed, as harvest takes it
	}
	calls := map[string]lore.ToolCall{}
	byCall := map[string]int{} // a call's index in f.calls
	seen := map[string]bool{}
	for _, msg := range s.Messages {
		if msg.Role == lore.RoleUser && f.task == "" && strings.TrimSpace(msg.Text) != "" {
			f.task = strings.TrimSpace(msg.Text)
		}
		if msg.Role == lore.RoleAssistant {
			for _, id := range lore.Citations(msg.Text + " " + msg.Thinking) {
				f.cited[id] = true
			}
		}
		for _, c := range msg.ToolCalls {
			calls[c.ID] = c
			f.calls = append(f.calls, replayedCall{name: c.Name, input: clipBytes(c.Input, maxReplayed)})
			byCall[c.ID] = len(f.calls) - 1
			if cmd := shellcmd.FromCall(c.Name, c.Input); cmd != "" {
				f.commands = append(f.commands, cmd)
			}
			for _, id := range lore.Citations(c.Input) {
				f.cited[id] = true
			}
		}
		for _, r := range msg.ToolResults {
			if !r.Failed() {
				continue
			}
			c := calls[r.CallID]
			e := errsig.Parse(c.Name, c.Input, r.Output, r.ExitCode)
			// Reported and compared with items' signatures, which are kept
			// redacted: redacted alike.
			e.Signature = redactor.String(e.Signature)
			if i, ok := byCall[r.CallID]; ok {
				rc := &f.calls[i]
				rc.failed, rc.output = true, clipBytes(r.Output, maxReplayed)
				if (e.Kind == errsig.Environment || e.Kind == errsig.Protocol) && !errsig.Cascade(e.Line) {
					rc.sig = e.Signature
				}
			}
			// A call cancelled because another failed is no error of its
			// own.
			if (e.Kind == errsig.Environment || e.Kind == errsig.Protocol) && e.Signature != "" && !seen[e.Signature] &&
				!errsig.Cascade(e.Line) {
				seen[e.Signature] = true
				f.signatures = append(f.signatures, e.Signature)
				f.texts[e.Signature] = e.Line
				if e.Kind != errsig.Protocol {
					// An agent tool's own error is the same error
					// whatever it names: its signature is its phrase.
					f.lines[e.Signature] = e.Line
				}
			}
		}
	}
	return f, s, nil
}

// velocity counts the items first seen on or after since: the tokens are
// those of the sessions measured, which since has narrowed already, and
// items learned before them would inflate what they yielded.
func velocity(all []lore.Item, sessions []*lore.Session, harvested map[string]bool, since, now time.Time) Velocity {
	var items []lore.Item
	for _, it := range all {
		if !it.FirstSeen.Before(since) {
			items = append(items, it)
		}
	}
	v := Velocity{Items: len(items), Days: []Day{}}
	for _, s := range sessions {
		if harvested[s.ID] {
			v.HarvestedTokens += tokensOf(s)
		}
	}
	if len(items) == 0 {
		return v
	}
	perDay := map[string]int{}
	first := items[0].FirstSeen
	for _, it := range items {
		perDay[it.FirstSeen.UTC().Format("2006-01-02")]++
		if it.FirstSeen.Before(first) {
			first = it.FirstSeen
		}
	}
	for d, n := range perDay {
		v.Days = append(v.Days, Day{Date: d, Items: n})
	}
	sort.Slice(v.Days, func(i, j int) bool { return v.Days[i].Date < v.Days[j].Date })
	days := math.Max(1, now.Sub(first).Hours()/24)
	v.ItemsPerDay = round(float64(len(items)) / days)
	if v.HarvestedTokens > 0 {
		v.ItemsPerMillionTokens = round(float64(len(items)) / (float64(v.HarvestedTokens) / 1e6))
	}
	return v
}

// tokensOf is everything a session's model calls processed.
func tokensOf(s *lore.Session) int64 {
	u := s.Usage
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheWriteTokens
}

func coverage(sessions []*lore.Session, harvested map[string]bool) Coverage {
	c := Coverage{Sessions: len(sessions)}
	repos, reposHarvested := map[string]bool{}, map[string]bool{}
	for _, s := range sessions {
		if s.Repo != "" {
			repos[lore.RepoKey(s.Repo)] = true
		}
		if harvested[s.ID] {
			c.SessionsHarvested++
			if s.Repo != "" {
				reposHarvested[lore.RepoKey(s.Repo)] = true
			}
		}
	}
	c.Repos, c.ReposHarvested = len(repos), len(reposHarvested)
	c.Share = share(c.SessionsHarvested, c.Sessions)
	return c
}

var backticked = regexp.MustCompile("`([^`]{3,})`")

// hitRate looks at the boots of measured sessions: an injected item is
// cited when the session wrote lore:ID (a prefix of at least six digits),
// acted on when the session ran a command the item quotes. The notes
// handed over at the point of action are counted apart (Recall).
func hitRate(ctx context.Context, st store, all []facts, items []lore.Item, since time.Time) (HitRate, Recall, error) {
	var h HitRate
	var rc Recall
	if st == nil {
		return h, rc, nil
	}
	bySession := map[string]*facts{}
	for i := range all {
		bySession[all[i].s.ID] = &all[i]
	}
	byID := map[string]lore.Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	err := st.Boots(ctx, since, func(b lore.Boot) error {
		f := bySession[b.Session]
		if f == nil || b.Withheld {
			return nil // held out: nothing was handed over
		}
		if b.Kind == lore.BootEpisode {
			rc.Episodes++
			return nil
		}
		if b.Kind != lore.BootStart {
			for _, id := range b.Items {
				if b.Kind == lore.BootBeforeTool {
					rc.BeforeTool++
				} else {
					rc.AfterFailure++
				}
				if cites(f.cited, id) {
					rc.Cited++
				}
			}
			return nil
		}
		h.Boots++
		for _, id := range b.Items {
			h.Injected++
			switch {
			case cites(f.cited, id):
				h.Cited++
			case actedOn(byID[id], f.commands):
				h.ActedOn++
			}
		}
		return nil
	})
	h.Rate = share(h.Cited+h.ActedOn, h.Injected)
	rc.Rate = share(rc.Cited, rc.BeforeTool+rc.AfterFailure)
	return h, rc, err
}

func cites(cited map[string]bool, id string) bool {
	for p := range cited {
		if lore.Cites(p, id) {
			return true
		}
	}
	return false
}

// actedOn reports whether the session ran a command the item quotes.
func actedOn(it lore.Item, commands []string) bool {
	for _, m := range backticked.FindAllStringSubmatch(it.Text, -1) {
		quoted := strings.Join(strings.Fields(m[1]), " ")
		if !strings.Contains(quoted, " ") {
			continue // a name, not a command
		}
		for _, c := range commands {
			if strings.Contains(strings.Join(strings.Fields(c), " "), quoted) {
				return true
			}
		}
	}
	return false
}

func recurrence(all []facts, knownSince map[string]time.Time) Recurrence {
	var r Recurrence
	type count struct{ before, after int }
	counts := map[string]*count{}
	var first, last time.Time
	for _, f := range all {
		t := f.s.FirstActive()
		if !t.IsZero() {
			if first.IsZero() || t.Before(first) {
				first = t
			}
			if t.After(last) {
				last = t
			}
		}
		if len(f.signatures) == 0 {
			continue
		}
		r.SessionsWithErrors++
		hit := false
		for _, sig := range f.signatures {
			known, ok := knownSince[sig]
			if !ok {
				continue
			}
			c := counts[sig]
			if c == nil {
				c = &count{}
				counts[sig] = c
			}
			// Known only when taught before the session started: a
			// session's own items are dated no earlier than its start.
			if !known.Before(t) {
				c.before++
			} else {
				c.after++
				hit = true
			}
		}
		if hit {
			r.SessionsHitKnown++
		}
	}
	r.Rate = share(r.SessionsHitKnown, r.SessionsWithErrors)
	r.Signatures = []SignatureRecurrence{}
	for sig, c := range counts {
		known := knownSince[sig]
		r.Signatures = append(r.Signatures, SignatureRecurrence{Signature: sig, KnownSince: known.UTC(), Before: c.before, After: c.after,
			BeforePerWeek: perWeek(c.before, first, known), AfterPerWeek: perWeek(c.after, known, last)})
	}
	sort.Slice(r.Signatures, func(i, j int) bool {
		a, b := r.Signatures[i], r.Signatures[j]
		if a.Before+a.After != b.Before+b.After {
			return a.Before+a.After > b.Before+b.After
		}
		return a.Signature < b.Signature
	})
	r.Signatures = r.Signatures[:min(len(r.Signatures), 20)]
	return r
}

// perWeek is n sessions over the span from a to b, per week; a span
// shorter than a day counts as a day.
func perWeek(n int, a, b time.Time) float64 {
	if n == 0 {
		return 0
	}
	weeks := math.Max(b.Sub(a).Hours()/(24*7), 1.0/7)
	return round(float64(n) / weeks)
}

func firstTry(sessions []*lore.Session) FirstTry {
	var f FirstTry
	type acc struct{ n, ok int }
	weeks := map[string]*acc{}
	for _, s := range sessions {
		if s.ToolCalls == 0 {
			continue
		}
		f.Sessions++
		w := week(s.FirstActive())
		a := weeks[w]
		if a == nil {
			a = &acc{}
			weeks[w] = a
		}
		a.n++
		if s.ToolErrors == 0 {
			f.Succeeded++
			a.ok++
		}
	}
	f.Rate = share(f.Succeeded, f.Sessions)
	f.Weeks = []Rate{}
	for w, a := range weeks {
		f.Weeks = append(f.Weeks, Rate{Week: w, N: a.n, Rate: share(a.ok, a.n)})
	}
	sort.Slice(f.Weeks, func(i, j int) bool { return f.Weeks[i].Week < f.Weeks[j].Week })
	return f
}

// perSession is the median session of each week. A session whose
// transcript records no token usage (Aider, some OpenHands) counts in the
// week's sessions but not in its median tokens, which it would drag
// towards 0; one without a start and a later end, likewise for minutes.
func perSession(sessions []*lore.Session) []Period {
	type acc struct {
		sessions int
		tokens   []int64
		minutes  []float64
	}
	weeks := map[string]*acc{}
	for _, s := range sessions {
		w := week(s.FirstActive())
		a := weeks[w]
		if a == nil {
			a = &acc{}
			weeks[w] = a
		}
		a.sessions++
		if n := tokensOf(s); n > 0 {
			a.tokens = append(a.tokens, n)
		}
		if !s.StartedAt.IsZero() && s.EndedAt.After(s.StartedAt) {
			a.minutes = append(a.minutes, s.EndedAt.Sub(s.StartedAt).Minutes())
		}
	}
	out := []Period{}
	for w, a := range weeks {
		slices.Sort(a.tokens)
		slices.Sort(a.minutes)
		p := Period{Week: w, Sessions: a.sessions, SessionsWithTokens: len(a.tokens), SessionsWithMinutes: len(a.minutes)}
		if len(a.tokens) > 0 {
			p.MedianTokens = a.tokens[len(a.tokens)/2]
		}
		if len(a.minutes) > 0 {
			p.MedianMinutes = round(a.minutes[len(a.minutes)/2])
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Week < out[j].Week })
	return out
}

func knowledge(items []lore.Item, now time.Time) Knowledge {
	k := Knowledge{ByCategory: map[string]int{}}
	var ages []float64
	stale := 0
	for _, it := range items {
		switch it.Status {
		case lore.StatusCandidate:
			k.Candidates++
		case lore.StatusActive:
			k.Active++
			k.ByCategory[string(it.Category)]++
			ages = append(ages, now.Sub(it.FirstSeen).Hours()/24)
			if now.Sub(it.LastConfirmed) > staleAfter {
				stale++
			}
		}
	}
	if len(ages) > 0 {
		slices.Sort(ages)
		k.MedianAgeDays = round(ages[len(ages)/2])
	}
	k.StaleShare = share(stale, k.Active)
	return k
}

// week is the Monday of t's week, UTC, as YYYY-MM-DD; "unknown" for no
// time.
func week(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	t = t.UTC()
	d := (int(t.Weekday()) + 6) % 7
	return t.AddDate(0, 0, -d).Format("2006-01-02")
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return round(float64(n) / float64(of))
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// replayer is would-have-known: a fresh store, fed one session at a time.
type replayer struct {
	st lore.Store
	// known are the items learned so far with each error signature, the
	// earliest first.
	known map[string][]learnedItem
	out   WouldHaveKnown
	weeks map[string]*tally
	// boots are the tokens and notes of each session's boot.
	bootTokens, bootNotes []int
	boots                 []ReplayedBoot
	// met are the error lines of each signature the sessions so far met
	// (see facts.lines), and recall what the episode lookup answered.
	met      map[string][]string
	recall   EpisodeRecall
	millis   []float64
	tokens   []int
	recalled func(*lore.Session, string, episode.Answer)
}

// learnedItem is an item the replay learned: its id in the store, and
// its text, which tells whether it is about the same error as one met
// later (sameError).
type learnedItem struct{ id, text string }

// sameError reports whether an item with an error's signature is about
// that error: the values the error names (the script, the symbol, the
// quoted name: errsig.Values) are in the item's text. "npm error Missing
// script: "lint"" and "go: undefined: parseConfig" share a signature with
// other scripts' and symbols' errors, which an item about them does not
// cover; an error with no such values ("File has not been read yet") is
// the same wherever it is met.
func sameError(line, text string) bool { return errsig.Names(text, errsig.Values(line)) }

// tally counts errors, and those known and delivered.
type tally struct{ errors, known, delivered int }

func newReplayer(ctx context.Context, open func(context.Context) (lore.Store, error)) (*replayer, error) {
	st, err := open(ctx)
	if err != nil {
		return nil, err
	}
	return &replayer{st: st, known: map[string][]learnedItem{}, weeks: map[string]*tally{}, boots: []ReplayedBoot{},
		met: map[string][]string{},
		out: WouldHaveKnown{BySession: []ReplayedSession{}}}, nil
}

func (r *replayer) close() { r.st.Close() }

// step checks one session against what the sessions before it taught,
// then learns from it.
func (r *replayer) step(ctx context.Context, full *lore.Session, f facts) error {
	r.out.Sessions++
	delivered, err := r.delivered(ctx, full, f)
	if err != nil {
		return err
	}
	var hooked points
	hooked.before, hooked.after = recall.Points(full.Agent)
	got, err := r.pointOfAction(ctx, full, f, hooked)
	if err != nil {
		return err
	}
	all := got
	if hooked != (points{true, true}) {
		if all, err = r.pointOfAction(ctx, full, f, points{true, true}); err != nil {
			return err
		}
	}
	if len(f.signatures) > 0 {
		wk := week(full.FirstActive())
		w := r.weeks[wk]
		if w == nil {
			w = &tally{}
			r.weeks[wk] = w
		}
		met := ReplayedSession{Session: full.ID, Repo: full.Repo, Agent: full.Agent, Errors: []ReplayedError{}}
		if t := full.FirstActive(); !t.IsZero() {
			t = t.UTC()
			met.StartedAt = &t
		}
		for _, sig := range f.signatures {
			id, known := "", false
			for _, it := range r.known[sig] {
				if sameError(f.lines[sig], it.text) {
					id, known = it.id, true
					break
				}
			}
			about := func(text string) bool { return sameError(f.lines[sig], text) }
			e := ReplayedError{Signature: sig, Known: known, ItemID: id, Delivered: slices.ContainsFunc(delivered[sig], about),
				DeliveredBefore: slices.ContainsFunc(got.before[sig], about), DeliveredAfter: slices.ContainsFunc(got.after[sig], about),
			}
			if i := slices.IndexFunc(got.episodes[sig], func(ep lore.Episode) bool { return about(ep.Error) }); i >= 0 {
				e.DeliveredEpisode, e.EpisodeFrom = true, got.episodes[sig][i].Session
			}
			met.Errors = append(met.Errors, e)
			r.out.Errors++
			w.errors++
			if known {
				r.out.Known++
				w.known++
			}
			if e.Delivered {
				r.out.Delivered++
				w.delivered++
			}
			if e.DeliveredBefore {
				r.out.DeliveredBefore++
			}
			if e.DeliveredAfter {
				r.out.DeliveredAfter++
			}
			if e.Delivered || e.DeliveredBefore || e.DeliveredAfter {
				r.out.DeliveredAny++
			}
			if err := r.recallEpisode(ctx, full, f, sig, &met.Errors[len(met.Errors)-1]); err != nil {
				return err
			}
			r.countPointOfAction(&met.Errors[len(met.Errors)-1], all, f.lines[sig])
		}
		r.out.BySession = append(r.out.BySession, met)
	}
	for _, sig := range f.signatures {
		r.met[sig] = append(r.met[sig], f.lines[sig])
	}
	// The items found are not stored yet when Found sees them: their ids
	// are looked up once the harvest is done. The session is harvested
	// as read, with its messages, not read once more.
	var learned []lore.Item
	_, err = harvest.Run(ctx, []*lore.Session{full}, harvest.Options{Store: r.st, Extractor: harvest.Rules{}, Workers: 1,
		Found: func(_ *lore.Session, items []lore.Item) {
			for _, it := range items {
				if it.Signature != "" {
					learned = append(learned, it)
				}
			}
		}})
	if err != nil {
		return err
	}
	for _, it := range learned {
		if slices.ContainsFunc(r.known[it.Signature], func(k learnedItem) bool { return k.text == it.Text }) {
			continue // learned before
		}
		id, err := r.storedID(ctx, it)
		if err != nil {
			return err
		}
		if id == "" {
			continue // the store did not keep it: nothing is known by it
		}
		r.known[it.Signature] = append(r.known[it.Signature], learnedItem{id, it.Text})
	}
	return nil
}

// countPointOfAction counts an error met, its SeenBefore set, among those
// known or met before and delivered either way; and in AllHooked, as
// delivered had every agent had the hooks (all: what they would have
// handed over).
func (r *replayer) countPointOfAction(e *ReplayedError, all handed, line string) {
	if !e.Known && !e.SeenBefore {
		return
	}
	r.out.KnownOrMet++
	if e.DeliveredEpisode {
		r.out.DeliveredEpisode++
	}
	if e.Delivered || e.DeliveredBefore || e.DeliveredAfter || e.DeliveredEpisode {
		r.out.DeliveredOrEpisode++
	}
	about := func(text string) bool { return sameError(line, text) }
	before, after := slices.ContainsFunc(all.before[e.Signature], about), slices.ContainsFunc(all.after[e.Signature], about)
	ep := slices.ContainsFunc(all.episodes[e.Signature], func(ep lore.Episode) bool { return about(ep.Error) })
	a := &r.out.AllHooked
	if before {
		a.DeliveredBefore++
	}
	if after {
		a.DeliveredAfter++
	}
	if ep {
		a.DeliveredEpisode++
	}
	if e.Delivered || before || after || ep {
		a.DeliveredOrEpisode++
	}
}

// recallEpisode asks the episode lookup about an error the session met,
// when an earlier session met it too, as the session would have asked
// after the failure: found is an episode of an earlier session with the
// error's signature and the values its line names (sameError) among the
// answer's top 5.
func (r *replayer) recallEpisode(ctx context.Context, s *lore.Session, f facts, sig string, e *ReplayedError) error {
	line := f.lines[sig]
	same := func(l string) bool { return sameError(line, l) }
	if !slices.ContainsFunc(r.met[sig], same) {
		return nil
	}
	e.SeenBefore = true
	r.recall.SeenBefore++
	if _, ok := f.lines[sig]; !ok {
		r.recall.AgentTool++ // read keeps no line of an agent tool's own error
	}
	start := time.Now()
	a, err := episode.Recall(ctx, r.st, episode.Failure{Signature: sig, Line: f.texts[sig], Repo: s.Repo, Agent: s.Agent},
		episode.Options{})
	if err != nil {
		return fmt.Errorf("replay episodes: %w", err)
	}
	r.millis = append(r.millis, float64(time.Since(start).Microseconds())/1000)
	r.tokens = append(r.tokens, a.Tokens)
	if r.recalled != nil {
		r.recalled(s, f.texts[sig], a)
	}
	if i := slices.IndexFunc(a.Episodes, func(m episode.Match) bool {
		return m.Signature == sig && m.Session != s.ID && same(m.Error)
	}); i >= 0 {
		e.Recalled, e.RecalledFix = true, a.Episodes[i].Fix != ""
		r.recall.Found++
		if i == 0 {
			r.recall.FoundFirst++
		}
		if e.RecalledFix {
			r.recall.WithFix++
		}
	}
	all, err := r.st.Episodes(ctx, lore.EpisodeQuery{Signature: sig, Limit: 1000})
	if err != nil {
		return fmt.Errorf("replay episodes: %w", err)
	}
	if slices.ContainsFunc(all, func(ep lore.Episode) bool { return ep.Signature == sig && ep.Fix != "" && same(ep.Error) }) {
		r.recall.FixExisted++
	}
	return nil
}

// storedID is the id under which the store keeps an item just harvested:
// its own, or, when the store merged it into a near-duplicate, the
// earliest stored item with its signature.
func (r *replayer) storedID(ctx context.Context, it lore.Item) (string, error) {
	if p, err := lore.Prepare(it, time.Time{}); err == nil {
		if stored, err := r.st.Item(ctx, p.ID); err == nil && stored.Signature == it.Signature {
			return stored.ID, nil
		}
	}
	var id string
	var first time.Time
	err := r.st.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(stored lore.Item) error {
		if stored.Signature == it.Signature && (id == "" || stored.FirstSeen.Before(first)) {
			id, first = stored.ID, stored.FirstSeen
		}
		return nil
	})
	return id, err
}

// pointOfAction replays lore recall's hooks through the session, asked
// of the store the sessions before it were harvested into: before each
// shell command, the note recall.BeforeTool would have handed over; after
// each failed call, recall.AfterFailure's, or when no note covers the
// failure, recall.Episode's. hooks says at which points the session's
// agent has them (recall.Points). It returns what each handed over by the
// signature the session then met: before, the texts of the items with an
// error signature of the command's note whose call then failed with it;
// after, those of each failure's note; episodes, the error line of the
// earlier episode each answer named. A note is handed to a session once,
// as the hooks do.
func (r *replayer) pointOfAction(ctx context.Context, s *lore.Session, f facts, hooks points) (handed, error) {
	h := handed{before: map[string][]string{}, after: map[string][]string{}, episodes: map[string][]lore.Episode{}}
	if !hooks.before && !hooks.after {
		return h, nil
	}
	opts := recall.Options{Repo: s.Repo, Agent: s.Agent, Told: map[string]bool{}}
	texts := func(n recall.Note) ([]lore.Item, error) {
		var items []lore.Item
		for _, id := range n.Items {
			it, err := r.st.Item(ctx, id)
			if err != nil {
				return nil, err
			}
			opts.Told[id] = true
			items = append(items, it)
		}
		return items, nil
	}
	for _, c := range f.calls {
		if hooks.before {
			n, err := recall.BeforeTool(ctx, r.st, opts, c.name, c.input)
			if err != nil {
				return h, err
			}
			told, err := texts(n)
			if err != nil {
				return h, err
			}
			if c.failed && c.sig != "" {
				for _, it := range told {
					if it.Signature == c.sig {
						h.before[c.sig] = append(h.before[c.sig], it.Text)
					}
				}
			}
		}
		if !hooks.after || !c.failed || c.sig == "" {
			continue
		}
		n, err := recall.AfterFailure(ctx, r.st, opts, c.name, c.input, c.output)
		if err != nil {
			return h, err
		}
		told, err := texts(n)
		if err != nil {
			return h, err
		}
		for _, it := range told {
			if it.Signature == c.sig || it.Signature == harvest.CausePrefix+c.sig {
				h.after[c.sig] = append(h.after[c.sig], it.Text)
			}
		}
		if n.Text != "" {
			continue
		}
		// The hook falls back on an episode only when no note covers the
		// failure, not when the notes that do were handed over already.
		if n, err = recall.AfterFailure(ctx, r.st, recall.Options{Repo: s.Repo, Agent: s.Agent}, c.name, c.input, c.output); err != nil || n.Text != "" {
			if err != nil {
				return h, err
			}
			continue
		}
		a, err := recall.Episode(ctx, r.st, opts, c.name, c.input, c.output)
		if err != nil {
			return h, err
		}
		if a.Note != "" {
			h.episodes[c.sig] = append(h.episodes[c.sig], lore.Episode{Session: a.Episodes[0].Session, Error: a.Episodes[0].Error})
		}
	}
	return h, nil
}

// points are the points of action where a session's agent has lore's
// hooks.
type points struct{ before, after bool }

// handed is what lore recall handed a replayed session at the point of
// action (pointOfAction).
type handed struct {
	before, after map[string][]string
	episodes      map[string][]lore.Episode // the error line and session of each episode named
}

// clipBytes is s cut to at most n bytes, at a rune's start.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// delivered returns the items boot would have handed the session (its
// repository and agent, its first user message as the task, at the time
// it started) that have an error signature: their texts, by signature.
func (r *replayer) delivered(ctx context.Context, s *lore.Session, f facts) (map[string][]string, error) {
	c, err := boot.Build(ctx, r.st, boot.Options{Repo: s.Repo, Agent: s.Agent, Task: f.task, Now: s.FirstActive()})
	if err != nil {
		return nil, fmt.Errorf("replay boot: %w", err)
	}
	r.bootTokens = append(r.bootTokens, c.Tokens)
	r.bootNotes = append(r.bootNotes, len(c.Items))
	rb := ReplayedBoot{Session: s.ID, Repo: s.Repo, Agent: s.Agent, Tokens: c.Tokens, Notes: []BootedNote{}}
	for _, p := range c.Items {
		rb.Notes = append(rb.Notes, BootedNote{Text: p.Text, Why: p.Why})
	}
	r.boots = append(r.boots, rb)
	sigs := map[string][]string{}
	for _, p := range c.Items {
		it, err := r.st.Item(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		if it.Signature != "" {
			sigs[it.Signature] = append(sigs[it.Signature], it.Text)
		}
	}
	return sigs, nil
}

func (r *replayer) result() WouldHaveKnown {
	out := r.out
	out.Boots = bootSizes(r.bootTokens, r.bootNotes)
	out.Boots.BySession = r.boots
	out.Episodes = r.recall
	out.Episodes.FoundRate = share(r.recall.Found, r.recall.SeenBefore)
	out.Episodes.MedianMillis = math.Round(quantile(r.millis, 0.5)*100) / 100
	out.Episodes.P95Millis = math.Round(quantile(r.millis, 0.95)*100) / 100
	out.Episodes.MedianTokens = quantile(r.tokens, 0.5)
	if len(r.tokens) > 0 {
		out.Episodes.MaxTokens = slices.Max(r.tokens)
	}
	out.KnownRate = share(out.Known, out.Errors)
	out.DeliveredRate = share(out.Delivered, out.Errors)
	out.DeliveredOfKnown = share(out.DeliveredAny, out.Known)
	out.DeliveredOfKnownOrMet = share(out.DeliveredOrEpisode, out.KnownOrMet)
	out.AllHooked.DeliveredOfKnownOrMet = share(out.AllHooked.DeliveredOrEpisode, out.KnownOrMet)
	out.Weeks = []Known{}
	for wk, w := range r.weeks {
		out.Weeks = append(out.Weeks, Known{Week: wk, Errors: w.errors,
			KnownRate: share(w.known, w.errors), DeliveredRate: share(w.delivered, w.errors)})
	}
	sort.Slice(out.Weeks, func(i, j int) bool { return out.Weeks[i].Week < out.Weeks[j].Week })
	return out
}

// bootSizes sums up the boots of a replay, tokens[i] and notes[i] being
// the i-th boot's.
func bootSizes(tokens, notes []int) BootSizes {
	b := BootSizes{Sessions: len(tokens), BySession: []ReplayedBoot{}}
	var with []int
	for i, n := range notes {
		if n > 0 {
			b.WithNotes++
			with = append(with, tokens[i])
		}
		b.MaxNotes = max(b.MaxNotes, n)
	}
	b.MedianTokens = quantile(tokens, 0.5)
	b.P90Tokens = quantile(tokens, 0.9)
	b.MedianNotes = quantile(notes, 0.5)
	b.MedianTokensWithNotes = quantile(with, 0.5)
	return b
}

// quantile is the q-quantile of xs by nearest rank; 0 for none.
func quantile[T int | float64](xs []T, q float64) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(len(s)-1, i))]
}
