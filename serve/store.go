package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lorehq/lore"
)

// The routes under /v1/query, /v1/boots and /v1/harvests read a team's
// store as lore.Store reads one, so that lore on another machine
// (package remote) works on the server's store as on its own: a filter
// says more than a URL's parameters say well, so the queries are POSTed
// as JSON. The wire types below have the fields of the lore types they
// carry, in order, so that each converts to its lore type.

// Filter is lore.Filter on the wire.
type Filter struct {
	Repo      string        `json:"repo,omitempty"`
	AnyOwner  bool          `json:"any_owner,omitempty"`
	Agent     string        `json:"agent,omitempty"`
	NoRepo    bool          `json:"no_repo,omitempty"`
	NoAgent   bool          `json:"no_agent,omitempty"`
	Category  lore.Category `json:"category,omitempty"`
	Statuses  []lore.Status `json:"statuses,omitempty"`
	AnyStatus bool          `json:"any_status,omitempty"`
	Expired   bool          `json:"expired,omitempty"`
}

// Query is lore.Query on the wire.
type Query struct {
	Text    string `json:"text"`
	Filter  Filter `json:"filter"`
	Limit   int    `json:"limit,omitempty"`
	Bounded bool   `json:"bounded,omitempty"`
}

// Boot is lore.Boot on the wire.
type Boot struct {
	At       time.Time `json:"at"`
	Session  string    `json:"session,omitempty"`
	Repo     string    `json:"repo,omitempty"`
	Agent    string    `json:"agent,omitempty"`
	Task     string    `json:"task,omitempty"`
	Items    []string  `json:"items"`
	Tokens   int       `json:"tokens"`
	Withheld bool      `json:"withheld,omitempty"`
	Kind     string    `json:"kind,omitempty"`
}

// Harvest is lore.Harvest on the wire.
type Harvest struct {
	Session   string    `json:"session"`
	Extractor string    `json:"extractor"`
	Path      string    `json:"path"`
	Size      int64     `json:"size"`
	ModTime   time.Time `json:"mod_time"`
	Hash      string    `json:"hash"`
	Sessions  int       `json:"sessions"`
	At        time.Time `json:"at"`
	Items     int       `json:"items"`
}

// Episode is lore.Episode on the wire.
type Episode struct {
	Session   string    `json:"session"`
	Agent     string    `json:"agent"`
	Repo      string    `json:"repo"`
	At        time.Time `json:"at"`
	Position  int       `json:"position"`
	Tool      string    `json:"tool"`
	Input     string    `json:"input"`
	Error     string    `json:"error"`
	Signature string    `json:"signature"`
	Fix       string    `json:"fix"`
	Changes   string    `json:"changes"`
	Steps     int       `json:"steps"`
}

// EpisodeFrom and LoreEpisode convert an episode to and from the wire
// (lore.Episode has a field of its own the wire does not carry).
func EpisodeFrom(e lore.Episode) Episode {
	return Episode{e.Session, e.Agent, e.Repo, e.At, e.Position, e.Tool, e.Input, e.Error, e.Signature, e.Fix, e.Changes, e.Steps}
}

func (e Episode) LoreEpisode() lore.Episode {
	return lore.Episode{Session: e.Session, Agent: e.Agent, Repo: e.Repo, At: e.At, Position: e.Position, Tool: e.Tool,
		Input: e.Input, Error: e.Error, Signature: e.Signature, Fix: e.Fix, Changes: e.Changes, Steps: e.Steps}
}

// The bodies and answers of the query routes.
type (
	// SearchesRequest is POST /v1/query/searches's body.
	SearchesRequest struct {
		Queries []Query `json:"queries"`
	}
	// SearchesAnswer holds each query's hits, in the order asked.
	SearchesAnswer struct {
		Hits [][]Hit `json:"hits"`
	}
	// ItemsRequest is POST /v1/query/items's body: a page of the items
	// Filter selects, after the id After.
	ItemsRequest struct {
		Filter Filter `json:"filter"`
		After  string `json:"after,omitempty"`
		Limit  int    `json:"limit,omitempty"`
	}
	// BestRequest is POST /v1/query/best's body.
	BestRequest struct {
		Filter Filter `json:"filter"`
		Limit  int    `json:"limit"`
	}
	// CountRequest is POST /v1/query/count's body.
	CountRequest struct {
		Filter Filter `json:"filter"`
	}
	// CountAnswer is how many items the filter selects.
	CountAnswer struct {
		Count int `json:"count"`
	}
	// RecallQuery is lore.RecallQuery on the wire: POST
	// /v1/query/recall's body.
	RecallQuery struct {
		Filter     Filter   `json:"filter"`
		Signatures []string `json:"signatures,omitempty"`
		Command    string   `json:"command,omitempty"`
		Limit      int      `json:"limit,omitempty"`
	}
	// ItemsAnswer is a list of items.
	ItemsAnswer struct {
		Items []lore.Item `json:"items"`
	}
	// EpisodeQuery is lore.EpisodeQuery on the wire: POST
	// /v1/query/episodes's body.
	EpisodeQuery struct {
		Signature string    `json:"signature,omitempty"`
		Text      string    `json:"text,omitempty"`
		Repo      string    `json:"repo,omitempty"`
		Agent     string    `json:"agent,omitempty"`
		Before    time.Time `json:"before,omitzero"`
		Limit     int       `json:"limit,omitempty"`
	}
	// EpisodesAnswer lists episodes, best first.
	EpisodesAnswer struct {
		Episodes []Episode `json:"episodes"`
	}
	// BootsAnswer lists boots, oldest first.
	BootsAnswer struct {
		Boots []Boot `json:"boots"`
	}
	// HarvestsAnswer lists harvest records, by session.
	HarvestsAnswer struct {
		Harvests []Harvest `json:"harvests"`
	}
	// HarvestedAnswer is a session's harvest record by an extractor,
	// when Found.
	HarvestedAnswer struct {
		Found   bool     `json:"found"`
		Harvest *Harvest `json:"harvest,omitempty"`
	}
)

// Caps of the query routes.
const (
	maxQueries    = 100   // queries in one POST /v1/query/searches
	maxQueryLimit = 10000 // a limit of best, recall, episodes or a search
)

func limitOf(what string, n int) error {
	if n < 0 || n > maxQueryLimit {
		return invalidf("%s limit %d: want 0 to %d", what, n, maxQueryLimit)
	}
	return nil
}

func (s *Server) searches(ctx context.Context, c *call) (any, error) {
	var in SearchesRequest
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if len(in.Queries) == 0 || len(in.Queries) > maxQueries {
		return nil, invalidf("queries: want 1 to %d, got %d", maxQueries, len(in.Queries))
	}
	qs := make([]lore.Query, len(in.Queries))
	for i, q := range in.Queries {
		if err := limitOf("search", q.Limit); err != nil {
			return nil, err
		}
		qs[i] = lore.Query{Text: q.Text, Filter: lore.Filter(q.Filter), Limit: q.Limit, Bounded: q.Bounded}
	}
	hits, err := c.store.Searches(ctx, qs)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := SearchesAnswer{Hits: make([][]Hit, len(hits))}
	for i, hs := range hits {
		out.Hits[i] = []Hit{}
		for _, h := range hs {
			out.Hits[i] = append(out.Hits[i], Hit{h.Item, h.Score})
		}
	}
	return out, nil
}

func (s *Server) queryItems(ctx context.Context, c *call) (any, error) {
	var in ItemsRequest
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if in.Limit < 0 || in.Limit > MaxPage {
		return nil, invalidf("limit %d: want 0 to %d", in.Limit, MaxPage)
	}
	if in.Limit == 0 {
		in.Limit = DefaultPage
	}
	return itemPage(ctx, c.store, lore.Filter(in.Filter), in.After, in.Limit)
}

func (s *Server) best(ctx context.Context, c *call) (any, error) {
	var in BestRequest
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if err := limitOf("best", in.Limit); err != nil {
		return nil, err
	}
	items, err := c.store.Best(ctx, lore.Filter(in.Filter), in.Limit)
	if err != nil {
		return nil, fmt.Errorf("best: %w", err)
	}
	return ItemsAnswer{nonNil(items)}, nil
}

func (s *Server) count(ctx context.Context, c *call) (any, error) {
	var in CountRequest
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	n, err := c.store.Count(ctx, lore.Filter(in.Filter))
	if err != nil {
		return nil, fmt.Errorf("count: %w", err)
	}
	return CountAnswer{n}, nil
}

func (s *Server) recallItems(ctx context.Context, c *call) (any, error) {
	var in RecallQuery
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if err := limitOf("recall", in.Limit); err != nil {
		return nil, err
	}
	items, err := c.store.Recall(ctx, lore.RecallQuery{Filter: lore.Filter(in.Filter), Signatures: in.Signatures, Command: in.Command, Limit: in.Limit})
	if err != nil {
		return nil, fmt.Errorf("recall: %w", err)
	}
	return ItemsAnswer{nonNil(items)}, nil
}

func (s *Server) episodes(ctx context.Context, c *call) (any, error) {
	var in EpisodeQuery
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if err := limitOf("episodes", in.Limit); err != nil {
		return nil, err
	}
	eps, err := c.store.Episodes(ctx, lore.EpisodeQuery(in))
	if err != nil {
		return nil, fmt.Errorf("episodes: %w", err)
	}
	out := EpisodesAnswer{Episodes: make([]Episode, len(eps))}
	for i, e := range eps {
		out.Episodes[i] = EpisodeFrom(e)
	}
	return out, nil
}

// recordBootRoute records what a machine's boot or hook handed a
// session, as GET /v1/boot records its own: a read token may, since
// handing notes out is what reading is for, and measure needs the record.
func (s *Server) recordBootRoute(ctx context.Context, c *call) (any, error) {
	var in Boot
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	if in.At.IsZero() {
		in.At = s.opts.Now()
	}
	if in.Items == nil {
		in.Items = []string{}
	}
	if err := c.store.RecordBoot(ctx, lore.Boot(in)); err != nil {
		return nil, fmt.Errorf("record boot: %w", err)
	}
	return struct{}{}, nil
}

func (s *Server) boots(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "since")
	if err != nil {
		return nil, err
	}
	var since time.Time
	if v := q.Get("since"); v != "" {
		if since, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return nil, invalidf("since=%q: want a time, RFC 3339", v)
		}
	}
	out := BootsAnswer{Boots: []Boot{}}
	err = c.store.Boots(ctx, since, func(b lore.Boot) error {
		out.Boots = append(out.Boots, Boot(b))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("boots: %w", err)
	}
	return out, nil
}

func (s *Server) harvests(ctx context.Context, c *call) (any, error) {
	if _, err := query(c.r); err != nil {
		return nil, err
	}
	out := HarvestsAnswer{Harvests: []Harvest{}}
	err := c.store.Harvests(ctx, func(h lore.Harvest) error {
		out.Harvests = append(out.Harvests, Harvest(h))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("harvests: %w", err)
	}
	return out, nil
}

func (s *Server) harvested(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "session", "extractor")
	if err != nil {
		return nil, err
	}
	if q.Get("session") == "" || q.Get("extractor") == "" {
		return nil, invalidf("session and extractor are both needed")
	}
	h, ok, err := c.store.Harvested(ctx, q.Get("session"), q.Get("extractor"))
	if err != nil || !ok {
		return HarvestedAnswer{}, err
	}
	w := Harvest(h)
	return HarvestedAnswer{Found: true, Harvest: &w}, nil
}

// body reads a query route's JSON body; the route takes no parameters.
func (s *Server) body(c *call, v any) error {
	if _, err := query(c.r); err != nil {
		return err
	}
	return decodeJSON(c.r.Body, v)
}

func nonNil(items []lore.Item) []lore.Item {
	if items == nil {
		return []lore.Item{}
	}
	return items
}

// itemPage is a page of the items f selects, after the id after.
func itemPage(ctx context.Context, st lore.Store, f lore.Filter, after string, limit int) (ItemPage, error) {
	page := ItemPage{Items: []lore.Item{}}
	more := false
	err := st.Items(ctx, f, func(it lore.Item) error {
		if it.ID <= after {
			return nil
		}
		if len(page.Items) == limit {
			more = true
			return errPageFull
		}
		page.Items = append(page.Items, it)
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return page, fmt.Errorf("list items: %w", err)
	}
	if more {
		page.Next = page.Items[len(page.Items)-1].ID
	}
	return page, nil
}
