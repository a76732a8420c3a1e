package hermesdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore/internal/sqlitex"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// Versions are the schema versions Write can build.
var Versions = []int{2, 6, 11}

// Options say what database to write. Zero fields take the defaults
// noted.
type Options struct {
	// Version is the schema version: 2, 6 or 11 (default 11).
	Version int
	// Migrated builds the database as a long-lived install has it: the
	// version 2 tables, then the ALTER TABLE of each later version, so
	// that the added columns come after the original ones.
	Migrated bool
	// Sessions is the number of sessions (default 100).
	Sessions int
	// MessagesPerSession is the mean number of messages (default 15).
	// The total is exactly Sessions × MessagesPerSession, rounded;
	// sessions vary from none to hundreds around that mean.
	MessagesPerSession float64
	// Leaked is the share of sessions with no ended_at (rounded to a
	// number of sessions). A session a compression split continues is
	// always ended, so the share is capped by those.
	Leaked float64
	// Parents is the share of sessions that continue another after a
	// compression split: their parent_session_id names the session
	// before them, which ended with end_reason "compression".
	Parents float64
	// Seed chooses the rows; the same options write the same rows.
	Seed uint64
	// Start is when the first session starts (default 2025-01-01 UTC);
	// sessions start between Start and Start+Span (default 400 days).
	Start time.Time
	Span  time.Duration
	// ContentScale multiplies the size of what messages hold (default 1:
	// a few hundred bytes for a user turn, kilobytes for file reads and
	// tens of kilobytes for web pages); IssueSize uses it to reach the
	// issue's file size in every version.
	ContentScale float64
	// SystemPrompt is the prompt most sessions share (default
	// DefaultSystemPrompt, about 10 KB). Some sessions add a memory block
	// to it and a few have none, as in a real database.
	SystemPrompt string
}

// Summary is what Write wrote, computed as it wrote it, for tests to
// check readers against.
type Summary struct {
	Path          string
	Version       int
	Sessions      int
	Ended         int // sessions with ended_at
	Open          int // sessions without ended_at
	Children      int // sessions with a parent_session_id
	Messages      int
	ByRole        map[string]int
	ContentBytes  int64 // bytes of messages.content, NULLs counting 0
	ToolCallCount int   // sum of sessions.tool_call_count
	// SessionList has one entry a session, in the order they were inserted.
	SessionList []Session
	FileBytes   int64
	Elapsed     time.Duration
}

// Session is one written session.
type Session struct {
	ID           string
	Parent       string
	Started      time.Time
	Ended        time.Time // zero when open
	EndReason    string
	LastMessage  time.Time // zero when it has no messages
	Messages     int
	ContentBytes int64
}

// LastActivity is the latest of its start, its last message and its end.
func (s Session) LastActivity() time.Time {
	t := s.Started
	if s.LastMessage.After(t) {
		t = s.LastMessage
	}
	if s.Ended.After(t) {
		t = s.Ended
	}
	return t
}

// IssueSize returns the options of a database the size of the one issue
// 7 describes: 5,508 sessions, 82,244 messages, 83% never ended, one in
// ten continuing a compressed parent, about 420 MB. The same messages
// take different room in each version (version 11 indexes them twice,
// once by trigrams, which takes three times the text), so the content is
// scaled to land near 420 MB in each.
func IssueSize(version int) Options {
	scale := map[int]float64{2: 1.17, 6: 1.05, 11: 0.19}[version]
	return Options{Version: version, Sessions: 5508, MessagesPerSession: 82244.0 / 5508, Leaked: 0.83, Parents: 0.1, Seed: 7, ContentScale: scale}
}

func (o *Options) defaults() error {
	if o.Version == 0 {
		o.Version = 11
	}
	if !slices.Contains(Versions, o.Version) {
		return fmt.Errorf("schema version %d: want one of %v", o.Version, Versions)
	}
	if o.Sessions == 0 {
		o.Sessions = 100
	}
	if o.MessagesPerSession == 0 {
		o.MessagesPerSession = 15
	}
	if o.Sessions < 0 || o.MessagesPerSession < 0 || o.Leaked < 0 || o.Leaked > 1 || o.Parents < 0 || o.Parents > 1 {
		return errors.New("sessions and messages must not be negative, shares between 0 and 1")
	}
	if o.ContentScale < 0 {
		return errors.New("content scale must not be negative")
	}
	if o.ContentScale == 0 {
		o.ContentScale = 1
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.Span == 0 {
		o.Span = 400 * 24 * time.Hour
	}
	if o.SystemPrompt == "" {
		o.SystemPrompt = DefaultSystemPrompt()
	}
	return nil
}

// Write creates a state.db at path (which must not exist) and fills it:
// one transaction, prepared statements, the FTS tables fed by Hermes' own
// triggers as the rows go in. The file is left in WAL mode, checkpointed
// and closed, with no -wal or -shm beside it. On an error nothing is left
// at path.
func Write(ctx context.Context, path string, o Options) (Summary, error) {
	began := time.Now()
	if err := o.defaults(); err != nil {
		return Summary{}, err
	}
	if _, err := os.Lstat(path); err == nil {
		return Summary{}, fmt.Errorf("write %s: file exists", path)
	}
	sum, err := create(ctx, path, o)
	if err != nil {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(path + suffix)
		}
		return Summary{}, err
	}
	sum.Elapsed = time.Since(began)
	return sum, nil
}

func create(ctx context.Context, path string, o Options) (Summary, error) {
	p := plan(o)
	db, err := sql.Open("sqlite", "file:"+sqlitex.EscapePath(path)+
		"?_pragma=foreign_keys(1)&_pragma=synchronous(OFF)&_pragma=journal_mode(OFF)&_pragma=cache_size(-131072)&_pragma=temp_store(MEMORY)")
	if err != nil {
		return Summary{}, err
	}
	defer db.Close()
	// One connection, so that the pragmas and the transaction share it.
	db.SetMaxOpenConns(1)
	sum, err := p.write(ctx, db)
	if err != nil {
		return Summary{}, fmt.Errorf("write %s: %w", path, err)
	}
	// Hermes opens its database in WAL mode; the mode is kept in the
	// file's header. Set last, so the rows went in without a journal.
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return Summary{}, fmt.Errorf("write %s: %w", path, err)
	}
	if err := db.Close(); err != nil {
		return Summary{}, fmt.Errorf("write %s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return Summary{}, err
	}
	sum.Path = path
	sum.FileBytes = fi.Size()
	return sum, nil
}

// toolSpec is one of Hermes' tools: how often it is called, what its
// output looks like and how big it is (a log-normal size, median bytes).
type toolSpec struct {
	name   string
	weight int
	kind   byte // what its output looks like; see (*writer).toolResult
	median float64
	max    int
}

var tools = []toolSpec{
	{"terminal", 30, 'l', 1_000, 60_000},
	{"read_file", 18, 'c', 5_800, 120_000},
	{"search_files", 10, 's', 1_700, 30_000},
	{"write_file", 6, 'w', 80, 200},
	{"patch", 8, 'w', 120, 400},
	{"web_search", 5, 'm', 3_000, 20_000},
	{"web_extract", 5, 'm', 16_000, 250_000},
	{"browser_snapshot", 4, 'b', 11_000, 150_000},
	{"skill_view", 4, 'm', 3_500, 20_000},
	{"memory", 4, 'w', 150, 400},
	{"todo", 4, 'w', 250, 800},
	{"delegate_task", 2, 'm', 1_200, 10_000},
}

var toolWeights = func() int {
	n := 0
	for _, t := range tools {
		n += t.weight
	}
	return n
}()

type model struct {
	name, provider, baseURL, mode string
	reasoning, codex, cached      bool
	pricePerMTok                  float64
}

var models = []model{
	{"anthropic/claude-sonnet-4", "openrouter", "https://openrouter.ai/api/v1", "api_key", true, false, true, 3},
	{"gpt-5.3-codex", "openai-codex", "https://chatgpt.com/backend-api/codex", "subscription", true, true, true, 0},
	{"nousresearch/hermes-4-405b", "nous", "https://inference-api.nousresearch.com/v1", "api_key", true, false, false, 1},
	{"openai/gpt-4.1", "openrouter", "https://openrouter.ai/api/v1", "api_key", false, false, true, 2},
	{"qwen3-coder:30b", "custom", "http://localhost:11434/v1", "local", false, false, false, 0},
}

var sources = []struct {
	name   string
	weight int
}{{"cli", 45}, {"telegram", 20}, {"discord", 15}, {"cron", 10}, {"slack", 5}, {"whatsapp", 5}}

var endReasons = []string{"user_exit", "user_exit", "session_reset", "session_reset", "resumed_other"}

// msg is one planned message. Its text is made when it is inserted, from
// its seed, so the plan stays small.
type msg struct {
	sess   int32
	role   string
	kind   byte // 'u' user, 'a' assistant answer, 'c' assistant with calls, 'k' compaction, 't' tool result
	size   int32
	seed   uint64
	ts     float64
	calls  []call // kind 'c'
	call   call   // kind 't': the call answered
	finish string
}

type call struct {
	id   uint64
	tool int8
}

type session struct {
	Session
	source, userID string
	model          *model
	prompt         int // 0 shared, 1 shared + memory, 2 none
	title          string
	toolCalls      int
	apiCalls       int
	inTok, outTok  int64
	reasoningTok   int64
	tokenCounts    bool
}

type planned struct {
	o        Options
	sessions []*session
	msgs     []*msg
	memory   []string
}

// plan lays out every session and message (roles, times, sizes, links)
// from the seed.
func plan(o Options) *planned {
	r := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	p := &planned{o: o}
	n := o.Sessions
	starts := make([]float64, n)
	for i := range starts {
		starts[i] = r.Float64() * o.Span.Seconds()
	}
	sort.Float64s(starts)
	counts := messageCounts(r, n, o.MessagesPerSession)

	// Children continue the session before them; the parents end with
	// "compression". Open sessions are chosen among the rest.
	child := make([]bool, n)
	for _, i := range pick(r, n-1, int(math.Round(o.Parents*float64(n)))) {
		child[i+1] = true
	}
	var eligible []int
	for i := 0; i < n; i++ {
		if i+1 >= n || !child[i+1] {
			eligible = append(eligible, i)
		}
	}
	open := make([]bool, n)
	for _, k := range pick(r, len(eligible), int(math.Round(o.Leaked*float64(n)))) {
		open[eligible[k]] = true
	}

	for k := 0; k < 4; k++ {
		t := newText(r.Uint64())
		t.str("<memory>\n")
		t.prose(500 + r.IntN(1500))
		t.str("\n</memory>")
		p.memory = append(p.memory, string(t.b))
	}

	ids := map[string]bool{}
	titles := map[string]int{}
	for i := 0; i < n; i++ {
		s := &session{}
		start := o.Start.Add(time.Duration(starts[i] * float64(time.Second)))
		if child[i] {
			prev := p.sessions[i-1]
			start = prev.lastTime().Add(time.Duration(1+r.IntN(5)) * time.Second)
			prev.Ended = start
			prev.EndReason = "compression"
			s.Parent = prev.ID
		}
		s.Started = start.Round(time.Microsecond)
		s.source = weighted(r, sources)
		s.model = &models[r.IntN(len(models))]
		if s.source == "cron" {
			s.model = &models[len(models)-2]
		}
		s.ID = sessionID(r, s.source, s.Started, ids)
		switch s.source {
		case "telegram":
			s.userID = strconv.Itoa(100000000 + r.IntN(900000000))
		case "discord":
			s.userID = strconv.FormatUint(1000000000000000000+r.Uint64N(8000000000000000000), 10)
		case "slack":
			s.userID = "U0" + strings.ToUpper(strconv.FormatUint(r.Uint64N(1<<40), 36))
		case "whatsapp":
			s.userID = "+1555" + strconv.Itoa(1000000+r.IntN(8999999))
		}
		switch x := r.IntN(100); {
		case x < 72:
			s.prompt = 0
		case x < 94:
			s.prompt = 1
		default:
			s.prompt = 2
		}
		if s.source != "cron" && r.IntN(2) == 0 {
			s.title = uniqueTitle(r, titles)
		}
		s.tokenCounts = r.IntN(10) < 3
		p.sessions = append(p.sessions, s)
		p.planMessages(r, s, int32(i), counts[i], child[i])
		if !open[i] && s.EndReason == "" {
			s.Ended = s.lastTime().Add(time.Duration(1+r.IntN(600)) * time.Second).Round(time.Microsecond)
			s.EndReason = endReasons[r.IntN(len(endReasons))]
			if s.source == "cron" {
				s.EndReason = "cron_complete"
			}
		}
	}
	// Message ids follow time across sessions, as Hermes writes them.
	sort.SliceStable(p.msgs, func(i, j int) bool { return p.msgs[i].ts < p.msgs[j].ts })
	return p
}

func (s *session) lastTime() time.Time {
	if !s.LastMessage.IsZero() {
		return s.LastMessage
	}
	return s.Started
}

// messageCounts spreads round(n × mean) messages over n sessions: a
// log-normal spread (most sessions short, some long), 3% empty.
func messageCounts(r *rand.Rand, n int, mean float64) []int {
	total := int(math.Round(float64(n) * mean))
	raw := make([]float64, n)
	var sum float64
	for i := range raw {
		if r.IntN(100) < 3 {
			continue
		}
		raw[i] = math.Exp(r.NormFloat64() * 1.2)
		sum += raw[i]
	}
	counts := make([]int, n)
	if sum == 0 {
		if n > 0 {
			counts[0] = total
		}
		return counts
	}
	type frac struct {
		i int
		f float64
	}
	fr := make([]frac, 0, n)
	got := 0
	for i, x := range raw {
		v := x / sum * float64(total)
		counts[i] = int(v)
		got += counts[i]
		if x > 0 {
			fr = append(fr, frac{i, v - float64(counts[i])})
		}
	}
	sort.Slice(fr, func(a, b int) bool { return fr[a].f > fr[b].f })
	for k := 0; got < total; k = (k + 1) % len(fr) {
		counts[fr[k].i]++
		got++
	}
	return counts
}

// pick returns k distinct numbers below n (all of them when k ≥ n).
func pick(r *rand.Rand, n, k int) []int {
	if n <= 0 || k <= 0 {
		return nil
	}
	perm := r.Perm(n)
	if k > n {
		k = n
	}
	return perm[:k]
}

func weighted(r *rand.Rand, list []struct {
	name   string
	weight int
}) string {
	total := 0
	for _, x := range list {
		total += x.weight
	}
	k := r.IntN(total)
	for _, x := range list {
		if k < x.weight {
			return x.name
		}
		k -= x.weight
	}
	return list[0].name
}

// sessionID is Hermes' YYYYMMDD_HHMMSS_<hex>, or cron_<job>_<time> for
// cron jobs.
func sessionID(r *rand.Rand, source string, t time.Time, seen map[string]bool) string {
	for {
		var id string
		if source == "cron" {
			id = fmt.Sprintf("cron_%08x_%s", []uint32{0x1a2b3c4d, 0x5e6f7a8b, 0x9c0d1e2f}[r.IntN(3)], t.Format("20060102_150405"))
		} else {
			id = fmt.Sprintf("%s_%06x", t.Format("20060102_150405"), r.Uint32N(1<<24))
		}
		if !seen[id] {
			seen[id] = true
			return id
		}
		t = t.Add(time.Second)
	}
}

var titleWords = strings.Fields(`Fix Debug Add Refactor Explain Review Set up Deploy Migrate Plan Write Test Speed up Clean up
flaky test parser config loader Docker build CI pipeline database schema login flow API client cache layer cron job README
release notes memory leak websocket retry logic rate limiter Telegram bot Discord gateway search index`)

// uniqueTitle makes a title unique the way Hermes does, with " #2",
// " #3"… (version 4's unique index forbids duplicates).
func uniqueTitle(r *rand.Rand, seen map[string]int) string {
	n := 2 + r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = titleWords[r.IntN(len(titleWords))]
	}
	t := strings.Join(parts, " ")
	seen[t]++
	if k := seen[t]; k > 1 {
		t += " #" + strconv.Itoa(k)
	}
	return t
}

func max1(f float64) int { return max(1, int(f)) }

// logNormal draws a size around median, at least 1 and at most max.
func logNormal(r *rand.Rand, median float64, sigma float64, max int) int32 {
	v := int(median * math.Exp(r.NormFloat64()*sigma))
	if v < 1 {
		v = 1
	}
	if v > max {
		v = max
	}
	return int32(v)
}

// planMessages lays out n messages of a session: a user turn, then the
// model calling tools and reading their results until it answers, then
// the next user turn. A session may stop anywhere in that loop.
func (p *planned) planMessages(r *rand.Rand, s *session, idx int32, n int, isChild bool) {
	size := func(median, sigma float64, max int) int32 {
		return logNormal(r, median*p.o.ContentScale, sigma, max1(float64(max)*p.o.ContentScale))
	}
	ts := float64(s.Started.UnixMicro())/1e6 + 0.5 + r.Float64()*3
	// Tokens follow the planned sizes (about 4 bytes a token): each model
	// call reads the prompt and the context so far, up to a 200k window.
	var context int64
	add := func(m *msg) {
		m.sess, m.seed, m.ts = idx, r.Uint64(), math.Round(ts*1e6)/1e6
		p.msgs = append(p.msgs, m)
		s.Messages++
		if m.kind == 'c' || m.kind == 't' {
			s.toolCalls++
		}
		context += int64(m.size)
		if m.role == "assistant" {
			s.apiCalls++
			s.inTok += min(2500+context/4, 200_000)
			s.outTok += int64(m.size)/4 + 40*int64(len(m.calls))
			if s.model.reasoning {
				s.reasoningTok += int64(m.size) / 8
			}
		}
	}
	var pending []call
	next := byte('u')
	if isChild {
		next = 'k'
	}
	nextCall := r.Uint64()
	for s.Messages < n {
		switch {
		case next == 'k':
			add(&msg{role: "assistant", kind: 'k', size: size(3000, 0.5, 12_000)})
			next = 'a'
			ts += 2 + r.Float64()*10
		case len(pending) > 0:
			c := pending[0]
			pending = pending[1:]
			spec := tools[c.tool]
			add(&msg{role: "tool", kind: 't', call: c, size: size(spec.median, 1.0, spec.max)})
			ts += 0.05 + r.ExpFloat64()*4
			if len(pending) == 0 {
				next = 'a'
			}
		case next == 'u':
			sz := size(160, 1.0, 6_000)
			if r.IntN(20) == 0 { // a pasted log or file
				sz = size(6_000, 0.8, 60_000)
			}
			add(&msg{role: "user", kind: 'u', size: sz})
			next = 'a'
			ts += 2 + r.ExpFloat64()*15
		default: // the model's turn
			if r.IntN(100) < 70 {
				k := 1
				if r.IntN(5) == 0 {
					k = 2 + r.IntN(3)
				}
				m := &msg{role: "assistant", kind: 'c', finish: "tool_calls", size: size(120, 1.0, 2_000)}
				for j := 0; j < k; j++ {
					m.calls = append(m.calls, call{id: nextCall, tool: toolIndex(r)})
					nextCall++
				}
				pending = append(pending, m.calls...)
				add(m)
				ts += 0.05 + r.Float64()
			} else {
				finish := "stop"
				if r.IntN(40) == 0 {
					finish = "length"
				}
				add(&msg{role: "assistant", kind: 'a', finish: finish, size: size(700, 0.9, 12_000)})
				next = 'u'
				ts += 20 + r.ExpFloat64()*240
				if r.IntN(30) == 0 { // back the next day
					ts += 3600 * (6 + r.Float64()*30)
				}
			}
		}
	}
	if s.Messages > 0 {
		last := p.msgs[len(p.msgs)-1].ts
		s.LastMessage = time.UnixMicro(int64(math.Round(last * 1e6))).In(s.Started.Location())
	}
}

func toolIndex(r *rand.Rand) int8 {
	k := r.IntN(toolWeights)
	for i, t := range tools {
		if k < t.weight {
			return int8(i)
		}
		k -= t.weight
	}
	return 0
}

// DefaultSystemPrompt is a Hermes-like system prompt of about 10 KB: an
// identity line, tool guidance and skills, the same for every call.
func DefaultSystemPrompt() string {
	t := newText(0x4e0)
	t.str("You are Hermes Agent, an intelligent AI assistant created by Nous Research. You are helpful, knowledgeable, and direct.\n\n")
	for _, h := range []string{"Tool use", "Memory", "Skills", "Platform", "Safety", "Formatting"} {
		t.str("## ")
		t.str(h)
		t.str("\n\n")
		t.prose(1200 + t.r.IntN(600))
		t.str("\n\n")
	}
	return string(t.b)
}

// columns lists a table's columns as PRAGMA table_info reports them, so
// that the inserts fit a fresh and a migrated database alike.
func columns(ctx context.Context, db *sql.Tx, table string) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		cols = append(cols, c)
	}
	return cols, rows.Err()
}

func insertSQL(table string, cols []string) string {
	return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table, strings.Join(cols, ", "),
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", "))
}

func (p *planned) write(ctx context.Context, db *sql.DB) (Summary, error) {
	for _, q := range ddl(p.o.Version, p.o.Migrated) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return Summary{}, fmt.Errorf("create schema: %w", err)
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return Summary{}, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, p.o.Version); err != nil {
		return Summary{}, err
	}
	sum := Summary{Version: p.o.Version, ByRole: map[string]int{}}
	if err := p.insertSessions(ctx, tx, &sum); err != nil {
		return Summary{}, fmt.Errorf("insert sessions: %w", err)
	}
	if err := p.insertMessages(ctx, tx, &sum); err != nil {
		return Summary{}, fmt.Errorf("insert messages: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Summary{}, err
	}
	for _, s := range p.sessions {
		sum.SessionList = append(sum.SessionList, s.Session)
	}
	return sum, nil
}

func (p *planned) insertSessions(ctx context.Context, tx *sql.Tx, sum *Summary) error {
	cols, err := columns(ctx, tx, "sessions")
	if err != nil {
		return err
	}
	st, err := tx.PrepareContext(ctx, insertSQL("sessions", cols))
	if err != nil {
		return err
	}
	defer st.Close()
	shared := p.o.SystemPrompt
	args := make([]any, len(cols))
	for _, s := range p.sessions {
		for i, c := range cols {
			args[i] = p.sessionValue(s, c, shared)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		sum.Sessions++
		if s.Ended.IsZero() {
			sum.Open++
		} else {
			sum.Ended++
		}
		if s.Parent != "" {
			sum.Children++
		}
		sum.ToolCallCount += s.toolCalls
	}
	return nil
}

func epoch(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return float64(t.UnixMicro()) / 1e6
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sessionValue is the value Hermes would have left in column c.
func (p *planned) sessionValue(s *session, c, shared string) any {
	m := s.model
	switch c {
	case "id":
		return s.ID
	case "source":
		return s.source
	case "user_id":
		return nullString(s.userID)
	case "model":
		return m.name
	case "model_config":
		if s.source == "cli" {
			return nil
		}
		return fmt.Sprintf(`{"max_iterations": 90, "reasoning_config": {"enabled": %t, "effort": "medium"}, "base_url": %q}`, m.reasoning, m.baseURL)
	case "system_prompt":
		switch s.prompt {
		case 0:
			return shared
		case 1:
			return shared + "\n\n" + p.memory[int(s.Started.Unix())%len(p.memory)]
		}
		return nil
	case "parent_session_id":
		return nullString(s.Parent)
	case "started_at":
		return epoch(s.Started)
	case "ended_at":
		return epoch(s.Ended)
	case "end_reason":
		return nullString(s.EndReason)
	case "message_count":
		return s.Messages
	case "tool_call_count":
		return s.toolCalls
	case "api_call_count":
		return s.apiCalls
	case "input_tokens":
		return s.inTok
	case "output_tokens":
		return s.outTok
	case "cache_read_tokens":
		if m.cached {
			return s.inTok * 6 / 10
		}
		return 0
	case "cache_write_tokens":
		if m.cached {
			return s.inTok / 20
		}
		return 0
	case "reasoning_tokens":
		return s.reasoningTok
	case "billing_provider":
		return m.provider
	case "billing_base_url":
		return m.baseURL
	case "billing_mode":
		return m.mode
	case "estimated_cost_usd":
		if m.pricePerMTok == 0 {
			return nil
		}
		return math.Round(float64(s.inTok+4*s.outTok)*m.pricePerMTok/1e6*1e6) / 1e6
	case "actual_cost_usd":
		return nil
	case "cost_status":
		if m.pricePerMTok == 0 {
			return "unknown"
		}
		return "estimated"
	case "cost_source":
		if m.pricePerMTok == 0 {
			return "none"
		}
		return "pricing_table"
	case "pricing_version":
		if m.pricePerMTok == 0 {
			return nil
		}
		return "2026-03-01"
	case "title":
		return nullString(s.title)
	}
	return nil
}

func (p *planned) insertMessages(ctx context.Context, tx *sql.Tx, sum *Summary) error {
	all, err := columns(ctx, tx, "messages")
	if err != nil {
		return err
	}
	var cols []string
	for _, c := range all {
		if c != "id" { // AUTOINCREMENT numbers them in time order
			cols = append(cols, c)
		}
	}
	st, err := tx.PrepareContext(ctx, insertSQL("messages", cols))
	if err != nil {
		return err
	}
	defer st.Close()
	w := &writer{t: newText(0), aux: newText(0), scale: p.o.ContentScale}
	args := make([]any, len(cols))
	for k, m := range p.msgs {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s := p.sessions[m.sess]
		w.message(s, m)
		for i, c := range cols {
			args[i] = w.value(s, m, c)
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
		sum.Messages++
		sum.ByRole[m.role]++
		if w.content != nil {
			n := int64(len(*w.content))
			sum.ContentBytes += n
			s.ContentBytes += n
		}
	}
	return nil
}
