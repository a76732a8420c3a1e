// Package measure tells whether lore's loop compounds: from sessions, the
// store and the boot records it computes knowledge velocity, coverage,
// hit rate, error recurrence, first-try success, outcomes, cost per
// session over time, knowledge age, and would-have-known: the share of
// errors that earlier sessions had already taught, found by replaying the
// sessions in time order.
package measure

import "time"

// Metrics is what lore measure reports; its JSON is lore measure --json
// and metrics.json.
type Metrics struct {
	GeneratedAt time.Time `json:"generated_at"`
	Since       string    `json:"since,omitempty"` // YYYY-MM-DD, when asked
	Repo        string    `json:"repo,omitempty"`
	Sessions    int       `json:"sessions"` // sessions measured
	// Verdict is the one line that says whether lore pays, as far as the
	// figures can tell.
	Verdict string `json:"verdict"`

	Velocity       Velocity       `json:"velocity"`
	Coverage       Coverage       `json:"coverage"`
	HitRate        HitRate        `json:"hit_rate"`
	Recall         Recall         `json:"recall"`
	Recurrence     Recurrence     `json:"recurrence"`
	FirstTry       FirstTry       `json:"first_try_success"`
	Outcomes       map[string]int `json:"outcomes"` // success, failure, aborted, unknown → sessions
	PerSession     []Period       `json:"per_session"`
	Knowledge      Knowledge      `json:"knowledge"`
	WouldHaveKnown WouldHaveKnown `json:"would_have_known"`
	Holdout        Holdout        `json:"holdout"`
	// ByAgent and ByRepo split the main figures where the sessions mix
	// agents or repositories; empty where they do not.
	ByAgent []Split `json:"by_agent"`
	ByRepo  []Split `json:"by_repo"`
	// Journal is what the journal's attempts tell, for a store that
	// keeps one.
	Journal Journal `json:"journal"`
	// Improve is the benchmark's total after each round of lore improve
	// on the repository the dashboard was made in; none when it never ran.
	Improve []ImprovePoints `json:"improve,omitempty"`
}

// ImprovePoints is the best benchmark total after one round of lore
// improve, and how the round ended.
type ImprovePoints struct {
	Round   int       `json:"round"`
	At      time.Time `json:"at"`
	Total   float64   `json:"total"`
	Max     float64   `json:"max"`
	Outcome string    `json:"outcome"`
}

// Velocity is how fast knowledge is learned.
type Velocity struct {
	ItemsPerDay           float64 `json:"items_per_day"`            // over the days from the first item to now
	ItemsPerMillionTokens float64 `json:"items_per_million_tokens"` // items ÷ tokens of the harvested sessions; 0 when none had tokens
	Items                 int     `json:"items"`                    // items in the store (any status) first seen on or after since
	HarvestedTokens       int64   `json:"harvested_tokens"`         // tokens of the measured sessions harvested
	Days                  []Day   `json:"days"`                     // new items per day, oldest first
}

// Day counts the items first seen on one day.
type Day struct {
	Date  string `json:"date"` // YYYY-MM-DD, UTC
	Items int    `json:"items"`
}

// Coverage is how much of what was found has been harvested.
type Coverage struct {
	Sessions          int     `json:"sessions"`           // sessions found
	SessionsHarvested int     `json:"sessions_harvested"` // of those, with a harvest record
	Repos             int     `json:"repos"`
	ReposHarvested    int     `json:"repos_harvested"`
	Share             float64 `json:"share"` // sessions_harvested ÷ sessions (0 when none)
}

// HitRate is how often the notes boot handed a session were used: cited
// by id in what the agent wrote, or acted on (a command from the note
// run by the session).
type HitRate struct {
	Boots    int     `json:"boots"`    // boot records with a session found among the measured ones
	Injected int     `json:"injected"` // items handed to those sessions
	Cited    int     `json:"cited"`
	ActedOn  int     `json:"acted_on"` // used but not cited
	Rate     float64 `json:"rate"`     // (cited + acted_on) ÷ injected
}

// Recall counts the notes handed to the measured sessions at the point of
// action (lore recall, boots of kind before-tool and after-failure), which
// the hit rate leaves out: a note before a command quotes that command,
// which the session then runs, whatever the note said.
type Recall struct {
	BeforeTool   int     `json:"before_tool"`   // notes handed over before a shell command
	AfterFailure int     `json:"after_failure"` // notes handed over after a tool call failed
	Episodes     int     `json:"episodes"`      // earlier failures handed over after one, when no note covered it
	Cited        int     `json:"cited"`         // of the notes, cited by id in the session
	Rate         float64 `json:"rate"`          // cited ÷ (before_tool + after_failure)
}

// Recurrence is how often sessions met an error lore already knew.
type Recurrence struct {
	SessionsWithErrors int     `json:"sessions_with_errors"`
	SessionsHitKnown   int     `json:"sessions_hit_known"` // met a signature an item already had when they started
	Rate               float64 `json:"rate"`               // sessions_hit_known ÷ sessions_with_errors
	// Signatures are the known signatures met most often, with how many
	// sessions met each before and after it became known, also per week
	// of each span, so that long and short spans compare.
	Signatures []SignatureRecurrence `json:"signatures"`
}

// SignatureRecurrence is one error signature before and after lore knew
// it.
type SignatureRecurrence struct {
	Signature     string    `json:"signature"`
	KnownSince    time.Time `json:"known_since"`
	Before        int       `json:"before"`          // sessions that met it before
	After         int       `json:"after"`           // and after
	BeforePerWeek float64   `json:"before_per_week"` // sessions per week in each span
	AfterPerWeek  float64   `json:"after_per_week"`
}

// FirstTry is the share of sessions that made tool calls and had none
// fail.
type FirstTry struct {
	Sessions  int     `json:"sessions"` // with at least one tool call
	Succeeded int     `json:"succeeded"`
	Rate      float64 `json:"rate"`
	Weeks     []Rate  `json:"weeks"` // the same, week by week
}

// Rate is a share over one period.
type Rate struct {
	Week string  `json:"week"` // YYYY-MM-DD of the week's Monday; "unknown" for sessions with no time
	N    int     `json:"n"`
	Rate float64 `json:"rate"`
}

// Period is the cost of a median session in one week. The medians leave
// out the sessions that cannot say: a transcript with no token usage
// (Aider, some OpenHands) or without a start and a later end.
type Period struct {
	Week                string  `json:"week"` // YYYY-MM-DD of the week's Monday; "unknown" for sessions with no time
	Sessions            int     `json:"sessions"`
	MedianTokens        int64   `json:"median_tokens"`         // over sessions_with_tokens; 0 when none
	MedianMinutes       float64 `json:"median_minutes"`        // over sessions_with_minutes; 0 when none
	SessionsWithTokens  int     `json:"sessions_with_tokens"`  // sessions whose transcript records token usage
	SessionsWithMinutes int     `json:"sessions_with_minutes"` // sessions with a start and a later end
}

// Knowledge is the age of what the store holds.
type Knowledge struct {
	Active        int            `json:"active"`
	Candidates    int            `json:"candidates"`
	MedianAgeDays float64        `json:"median_age_days"` // since first seen, active items
	StaleShare    float64        `json:"stale_share"`     // active items not confirmed in 90 days
	ByCategory    map[string]int `json:"by_category"`     // active items
}

// WouldHaveKnown is the replay: sessions in time order, each harvested
// into a fresh store only after the sessions before it, and for each the
// errors it met that earlier sessions had already taught, and whether
// boot (its repo, its first user message as the task) would have handed
// it those items.
type WouldHaveKnown struct {
	Sessions      int     `json:"sessions"`
	Errors        int     `json:"errors"`         // distinct error signatures met, summed over sessions
	Known         int     `json:"known"`          // of those, covered by an item from an earlier session
	Delivered     int     `json:"delivered"`      // of those, in the session's boot context
	KnownRate     float64 `json:"known_rate"`     // known ÷ errors
	DeliveredRate float64 `json:"delivered_rate"` // delivered ÷ errors
	// At the point of action (lore recall, as its hooks would have
	// answered): errors whose note came before the command that met them,
	// and after the failure; DeliveredAny at any point, start included,
	// and its share of the known errors.
	DeliveredBefore  int     `json:"delivered_before_tool"`
	DeliveredAfter   int     `json:"delivered_after_failure"`
	DeliveredAny     int     `json:"delivered_any"`
	DeliveredOfKnown float64 `json:"delivered_of_known"` // delivered_any ÷ known
	// The raw history counts too: KnownOrMet are the errors known, or met
	// by an earlier session (Episodes.SeenBefore); DeliveredEpisode those
	// after whose failure, no note covering it, the hook would have
	// handed over an earlier episode of the same error (recall.Episode);
	// DeliveredOrEpisode those delivered either way, at any point.
	KnownOrMet            int     `json:"known_or_met"`
	DeliveredEpisode      int     `json:"delivered_episode"`
	DeliveredOrEpisode    int     `json:"delivered_or_episode"`
	DeliveredOfKnownOrMet float64 `json:"delivered_of_known_or_met"` // delivered_or_episode ÷ known_or_met
	// A note is credited before a command or after a failure only where
	// the session's agent has lore's hook at that point (recall.Points:
	// Claude Code both, Codex CLI before, Gemini CLI after; the others
	// start only). AllHooked is the same replay as if every agent had
	// both: what the hooks would deliver, were they everywhere.
	AllHooked PointOfAction `json:"if_every_agent_hooked"`
	Weeks     []Known       `json:"weeks"` // the same, week by week
	// BySession is every replayed session that met an error, in time
	// order, with what was known of each error it met.
	BySession []ReplayedSession `json:"by_session"`
	// Boots is the size of the boot context each replayed session would
	// have started with.
	Boots BootSizes `json:"boots"`
	// Episodes is the fallback to the raw history: what the episode
	// lookup would have answered after each failure an earlier session
	// had met.
	Episodes EpisodeRecall `json:"episodes"`
}

// PointOfAction is what lore recall's hooks deliver over a replay.
type PointOfAction struct {
	DeliveredBefore       int     `json:"delivered_before_tool"`
	DeliveredAfter        int     `json:"delivered_after_failure"`
	DeliveredEpisode      int     `json:"delivered_episode"`
	DeliveredOrEpisode    int     `json:"delivered_or_episode"`
	DeliveredOfKnownOrMet float64 `json:"delivered_of_known_or_met"`
}

// EpisodeRecall says how well the episode lookup (episode.Recall) names
// an earlier occurrence of an error a session meets. Asked, as the
// session would have asked it, of the store the sessions before it were
// harvested into, once per error (distinct signature) of a session that
// an earlier session met too: the same signature, and the values the
// error names (sameError) in the earlier error line.
type EpisodeRecall struct {
	SeenBefore int `json:"seen_before"` // errors an earlier session met too
	// AgentTool counts those that are errors of the agent's own tool
	// protocol ("String to replace not found in file"), which say what
	// to do themselves: an earlier occurrence teaches little.
	AgentTool int     `json:"agent_tool"`
	Found     int     `json:"found"`      // of those, an earlier occurrence in the answer's top 5
	FoundRate float64 `json:"found_rate"` // found ÷ seen_before
	// FoundFirst counts those whose first episode, the one the note
	// names, is such an earlier occurrence.
	FoundFirst int `json:"found_first"`
	// WithFix counts the found answers whose best earlier occurrence
	// names the call that got past it; FixExisted those where an earlier
	// session got past it in the store's episodes at all.
	WithFix      int     `json:"with_fix"`
	FixExisted   int     `json:"fix_existed"`
	MedianMillis float64 `json:"median_ms"` // per answer, lookup and note
	P95Millis    float64 `json:"p95_ms"`
	MedianTokens int     `json:"median_tokens"` // of the notes of the answers (o200k)
	MaxTokens    int     `json:"max_tokens"`
}

// BootSizes says how big the boots of replayed sessions were: each built
// for its session's repository and agent, its first user message as the
// task, from what the sessions before it taught.
type BootSizes struct {
	Sessions              int `json:"sessions"`                 // boots built: one per replayed session
	WithNotes             int `json:"with_notes"`               // of those, boots that held a note
	MedianTokens          int `json:"median_tokens"`            // of every boot, the header's or empty text's included
	P90Tokens             int `json:"p90_tokens"`               // the 90th percentile
	MedianNotes           int `json:"median_notes"`             // notes in a median boot
	MaxNotes              int `json:"max_notes"`                // in the biggest
	MedianTokensWithNotes int `json:"median_tokens_with_notes"` // tokens of a median boot that held a note
	// BySession is each replayed session's boot, in time order: what a
	// person reads to judge whether the boots were on point.
	BySession []ReplayedBoot `json:"by_session"`
}

// ReplayedBoot is the boot one replayed session would have started with.
type ReplayedBoot struct {
	Session string       `json:"session"`
	Repo    string       `json:"repo"`
	Agent   string       `json:"agent"`
	Tokens  int          `json:"tokens"`
	Notes   []BootedNote `json:"notes"`
}

// BootedNote is a note of a replayed boot: its text, and why it was in
// (boot.Picked's why).
type BootedNote struct {
	Text string `json:"text"`
	Why  string `json:"why"`
}

// ReplayedSession is one replayed session that met errors.
type ReplayedSession struct {
	Session   string          `json:"session"`    // the session's id
	StartedAt *time.Time      `json:"started_at"` // null when the transcript has no time
	Repo      string          `json:"repo"`
	Agent     string          `json:"agent"`
	Errors    []ReplayedError `json:"errors"` // the distinct error signatures it met, in order
}

// ReplayedError is one error signature a replayed session met.
type ReplayedError struct {
	Signature string `json:"signature"`
	Known     bool   `json:"known"`     // an item from an earlier session had the signature
	ItemID    string `json:"item_id"`   // that item: the earliest learned with the signature; "" when not known
	Delivered bool   `json:"delivered"` // boot would have handed the session an item with the signature
	// DeliveredBefore: lore recall's note before the command that then
	// met the error held an item about it; DeliveredAfter: its note after
	// the failure did.
	DeliveredBefore bool `json:"delivered_before_tool"`
	DeliveredAfter  bool `json:"delivered_after_failure"`
	// DeliveredEpisode: no note covering the failure, the hook's answer
	// named an earlier episode of the same error. The three are credited
	// only where the agent has the hook (recall.Points).
	DeliveredEpisode bool `json:"delivered_episode"`
	// EpisodeFrom is the session of the episode handed over; "" for none.
	EpisodeFrom string `json:"episode_from"`
	// SeenBefore: an earlier session met the same error; Recalled: the
	// episode lookup named an earlier occurrence in its top 5, RecalledFix
	// with the call that got past it.
	SeenBefore  bool `json:"seen_before"`
	Recalled    bool `json:"recalled"`
	RecalledFix bool `json:"recalled_fix"`
}

// Known is would-have-known over one week.
type Known struct {
	Week          string  `json:"week"`
	Errors        int     `json:"errors"`
	KnownRate     float64 `json:"known_rate"`
	DeliveredRate float64 `json:"delivered_rate"`
}
