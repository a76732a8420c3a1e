package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/serve"
)

// DefaultTimeout bounds a request whose context has no deadline of its
// own.
const DefaultTimeout = 30 * time.Second

// Options configure a client.
type Options struct {
	// Token is the bearer token (LORE_TOKEN); required.
	Token string
	// Insecure allows http:// to a host beyond loopback, where the token
	// would cross the network in the clear (LORE_INSECURE=1).
	Insecure bool
	// Timeout bounds each request; 0 is DefaultTimeout.
	Timeout time.Duration
	// Client sends the requests; nil is one with the system's roots.
	Client *http.Client
}

// Store is a lore.Store over lore serve. It keeps no state but the
// server's address and the token, and is safe for concurrent use.
type Store struct {
	base  *url.URL
	token string
	http  *http.Client
}

var _ lore.Store = (*Store)(nil)

// IsURL reports whether a store's name is a server's address.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// Open returns a client of the server at rawURL (https://host:port, or
// http:// to loopback). It sends nothing until asked.
func Open(rawURL string, o Options) (*Store, error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, lore.Errorf(lore.EINVALID, "store %q: want https://host:port", rawURL)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, lore.Errorf(lore.EINVALID, "store %s: want https://host:port, with no user, query or fragment (the token goes in LORE_TOKEN)", u.Redacted())
	}
	if u.Scheme == "http" && !o.Insecure && !loopback(u.Hostname()) {
		return nil, lore.Errorf(lore.EINVALID, "store %s: http:// would send LORE_TOKEN in the clear beyond this machine; use https://, or set LORE_INSECURE=1 on a network you trust", u)
	}
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New(tokenHelp("LORE_TOKEN is missing"))
	}
	c := o.Client
	if c == nil {
		c = &http.Client{}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	cc := *c
	cc.Timeout = o.Timeout
	return &Store{base: u, token: strings.TrimSpace(o.Token), http: &cc}, nil
}

func tokenHelp(what string) string {
	return what + ": lore serve token create on the server makes one"
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Close lets go of the connections kept for the next request.
func (s *Store) Close() error {
	s.http.CloseIdleConnections()
	return nil
}

// URL is the server's address.
func (s *Store) URL() string { return s.base.String() }

// do sends a request: in as its JSON body (none when nil), and decodes
// the answer into out (when not nil). An error answer becomes a
// *lore.Error of the same code where lore has one.
func (s *Store) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	return s.send(ctx, method, path, q, "application/json", body, out)
}

// send sends body as it is.
func (s *Store) send(ctx context.Context, method, path string, q url.Values, contentType string, body io.Reader, out any) error {
	u := *s.base
	u.Path += path
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said below, once
		}
		return &Unreachable{Server: s.base.Host, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return answerError(resp)
	}
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("read lore serve's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// Unreachable is the error of a request that got no answer: the server
// is down, out of reach, or slower than the request's time.
type Unreachable struct {
	Server string
	Err    error
}

func (e *Unreachable) Error() string {
	return fmt.Sprintf("no answer from lore serve at %s: %v", e.Server, e.Err)
}

func (e *Unreachable) Unwrap() error { return e.Err }

// answerError turns an error answer into an error: a *lore.Error of the
// same code for the codes lore has, a line that says what to do for a
// token the server refused.
func answerError(resp *http.Response) error {
	var e struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		e.Error = strings.TrimSpace(string(b))
		if len(e.Error) > 200 || e.Error == "" {
			e.Error = resp.Status
		}
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return errors.New(tokenHelp("LORE_TOKEN is refused (" + e.Error + ")"))
	case http.StatusForbidden:
		return errors.New("LORE_TOKEN is refused: " + e.Error)
	}
	switch e.Code {
	case lore.EINVALID, lore.ENOTFOUND, lore.ECONFLICT:
		return &lore.Error{Code: e.Code, Message: e.Error}
	case "too_large":
		// What was sent is wrong as it is, as for an invalid one.
		return &lore.Error{Code: lore.EINVALID, Message: e.Error}
	}
	return fmt.Errorf("lore serve: %s (%s)", e.Error, resp.Status)
}

// notHere is the error of a method a machine does not ask the server
// for: not a usage error (the command was right), a failure that says
// where to do it.
func notHere(what, instead string) error {
	return fmt.Errorf("lore serve does not take %s from a machine: %s", what, instead)
}

func filter(f lore.Filter) serve.Filter { return serve.Filter(f) }

// maxAdd is how many items one POST /v1/items takes.
const maxAdd = 1000

// Add adds items as lore add does, through POST /v1/items: the server
// screens and redacts them again. Items keep their text, scope,
// confidence, status (active or candidate), signature, tags, expiry and
// first evidence. More than maxAdd items go in several requests, each
// one transaction.
func (s *Store) Add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	var res []lore.AddResult
	for start := 0; start < len(items); start += maxAdd {
		part, err := s.add(ctx, items[start:min(len(items), start+maxAdd)])
		var ie *lore.ItemError
		if errors.As(err, &ie) {
			ie.Index += start
		}
		if err != nil {
			return nil, err
		}
		res = append(res, part...)
	}
	return res, nil
}

func (s *Store) add(ctx context.Context, items []lore.Item) ([]lore.AddResult, error) {
	in := serve.AddRequest{Items: make([]serve.NewItem, len(items))}
	for i, it := range items {
		c := it.Confidence
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, &lore.ItemError{Index: i, Err: lore.Errorf(lore.EINVALID, "confidence %v: want a number from 0 to 1", c)}
		}
		n := serve.NewItem{Text: it.Text, Category: string(it.Category), Repo: it.Repo, Agent: it.Agent, Confidence: &c,
			Status: string(it.Status), Signature: it.Signature, Tags: it.Tags, Expires: it.Expires}
		if len(it.Evidence) > 0 {
			n.Session, n.Position = it.Evidence[0].Session, it.Evidence[0].Position
		}
		in.Items[i] = n
	}
	var out struct {
		Results []serve.AddResult `json:"results"`
	}
	if err := s.do(ctx, http.MethodPost, "/v1/items", nil, in, &out); err != nil {
		return nil, err
	}
	res := make([]lore.AddResult, len(out.Results))
	for i, r := range out.Results {
		res[i] = lore.AddResult{ID: r.ID, Action: lore.AddAction(r.Action), NearDuplicate: r.NearDuplicate, Superseded: r.Superseded}
	}
	return res, nil
}

// Import is refused: an export is imported on the server.
func (s *Store) Import(context.Context, []lore.Item) ([]lore.AddResult, error) {
	return nil, notHere("imports", "run lore import on the server")
}

// Item returns the item with this id or unique id prefix.
func (s *Store) Item(ctx context.Context, id string) (lore.Item, error) {
	var it lore.Item
	if !lore.ValidIDPrefix(strings.ToLower(id)) {
		return it, lore.Errorf(lore.EINVALID, "%q is not an item id (4 to 24 hex digits)", id)
	}
	err := s.do(ctx, http.MethodGet, "/v1/items/"+url.PathEscape(strings.ToLower(id)), nil, nil, &it)
	return it, err
}

// Search returns the items that best answer q, best first.
func (s *Store) Search(ctx context.Context, q lore.Query) ([]lore.Hit, error) {
	hits, err := s.Searches(ctx, []lore.Query{q})
	if err != nil {
		return nil, err
	}
	return hits[0], nil
}

// Searches asks the server every query in one request.
func (s *Store) Searches(ctx context.Context, qs []lore.Query) ([][]lore.Hit, error) {
	out := make([][]lore.Hit, 0, len(qs))
	for len(qs) > 0 {
		n := min(len(qs), 100)
		in := serve.SearchesRequest{Queries: make([]serve.Query, n)}
		for i, q := range qs[:n] {
			in.Queries[i] = serve.Query{Text: q.Text, Filter: filter(q.Filter), Limit: q.Limit, Bounded: q.Bounded}
		}
		var ans serve.SearchesAnswer
		if err := s.do(ctx, http.MethodPost, "/v1/query/searches", nil, in, &ans); err != nil {
			return nil, err
		}
		if len(ans.Hits) != n {
			return nil, fmt.Errorf("lore serve answered %d searches of %d", len(ans.Hits), n)
		}
		for _, hs := range ans.Hits {
			hits := make([]lore.Hit, len(hs))
			for i, h := range hs {
				hits[i] = lore.Hit{Item: h.Item, Score: h.Score}
			}
			out = append(out, hits)
		}
		qs = qs[n:]
	}
	return out, nil
}

// pageSize is how many items a page of Items asks for.
const pageSize = 500

// Items calls fn for every item f selects, in id order, a page at a time.
func (s *Store) Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error {
	in := serve.ItemsRequest{Filter: filter(f), Limit: pageSize}
	for {
		var page serve.ItemPage
		if err := s.do(ctx, http.MethodPost, "/v1/query/items", nil, in, &page); err != nil {
			return err
		}
		for _, it := range page.Items {
			if err := fn(it); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		in.After = page.Next
	}
}

// Best returns the limit items f selects that are most confident.
func (s *Store) Best(ctx context.Context, f lore.Filter, limit int) ([]lore.Item, error) {
	var out serve.ItemsAnswer
	err := s.do(ctx, http.MethodPost, "/v1/query/best", nil, serve.BestRequest{Filter: filter(f), Limit: limit}, &out)
	return out.Items, err
}

// Count returns how many items f selects.
func (s *Store) Count(ctx context.Context, f lore.Filter) (int, error) {
	var out serve.CountAnswer
	err := s.do(ctx, http.MethodPost, "/v1/query/count", nil, serve.CountRequest{Filter: filter(f)}, &out)
	return out.Count, err
}

// Recall returns the pitfalls and quirks of a command or an error.
func (s *Store) Recall(ctx context.Context, q lore.RecallQuery) ([]lore.Item, error) {
	var out serve.ItemsAnswer
	in := serve.RecallQuery{Filter: filter(q.Filter), Signatures: q.Signatures, Command: q.Command, Limit: q.Limit}
	err := s.do(ctx, http.MethodPost, "/v1/query/recall", nil, in, &out)
	return out.Items, err
}

// Supersede marks old as superseded by new.
func (s *Store) Supersede(ctx context.Context, oldID, newID string) error {
	return s.do(ctx, http.MethodPost, "/v1/items/"+url.PathEscape(oldID)+"/supersede", nil, serve.SupersedeRequest{By: newID}, nil)
}

// Review applies a person's decision through the server's promote,
// keep, retire and edit routes. The server records the token's name as who
// decided, and screens an edit's text again (d.Hold is its to decide).
func (s *Store) Review(ctx context.Context, id string, d lore.Decision) (lore.Item, error) {
	var in serve.ReviewRequest
	if d.Text != "" && d.Action != lore.ReviewEdit {
		return lore.Item{}, lore.Errorf(lore.EINVALID, "a %s takes no text", d.Action)
	}
	switch d.Action {
	case lore.ReviewPromote:
		in.Reactivate = true // lore promote asked for --reactivate itself
	case lore.ReviewRetire, lore.ReviewKeep:
	case lore.ReviewEdit:
		in.Text = d.Text
	default:
		return lore.Item{}, lore.Errorf(lore.EINVALID, "lore serve takes no %q decision", d.Action)
	}
	var it lore.Item
	err := s.do(ctx, http.MethodPost, "/v1/items/"+url.PathEscape(id)+"/"+string(d.Action), nil, in, &it)
	return it, err
}

// Delete is refused.
func (s *Store) Delete(context.Context, string) error {
	return notHere("deletions", "retire the item (lore review), or delete it on the server")
}

// ForgetSession is refused.
func (s *Store) ForgetSession(context.Context, string) (lore.ForgetResult, error) {
	return lore.ForgetResult{}, notHere("lore forget", "run it on the server")
}

// Harvested returns the record of a session's last harvest by extractor.
func (s *Store) Harvested(ctx context.Context, session, extractor string) (lore.Harvest, bool, error) {
	var out serve.HarvestedAnswer
	err := s.do(ctx, http.MethodGet, "/v1/harvested", url.Values{"session": {session}, "extractor": {extractor}}, nil, &out)
	if err != nil || !out.Found || out.Harvest == nil {
		return lore.Harvest{}, false, err
	}
	return lore.Harvest(*out.Harvest), true, nil
}

// RecordHarvest is refused: the server harvests what lore push sends.
func (s *Store) RecordHarvest(context.Context, ...lore.Harvest) error {
	return notHere("harvest records", "use lore push; the server harvests what it is sent")
}

// Harvests calls fn for every harvest record, by session.
func (s *Store) Harvests(ctx context.Context, fn func(lore.Harvest) error) error {
	var out serve.HarvestsAnswer
	if err := s.do(ctx, http.MethodGet, "/v1/harvests", nil, nil, &out); err != nil {
		return err
	}
	for _, h := range out.Harvests {
		if err := fn(lore.Harvest(h)); err != nil {
			return err
		}
	}
	return nil
}

// RecordEpisodes is refused: the server harvests what lore push sends.
func (s *Store) RecordEpisodes(context.Context, ...lore.SessionEpisodes) error {
	return notHere("episodes", "use lore push; the server harvests what it is sent")
}

// Episodes returns the episodes that best match q, best first.
func (s *Store) Episodes(ctx context.Context, q lore.EpisodeQuery) ([]lore.Episode, error) {
	var out serve.EpisodesAnswer
	if err := s.do(ctx, http.MethodPost, "/v1/query/episodes", nil, serve.EpisodeQuery(q), &out); err != nil {
		return nil, err
	}
	eps := make([]lore.Episode, len(out.Episodes))
	for i, e := range out.Episodes {
		eps[i] = e.LoreEpisode()
	}
	return eps, nil
}

// RecordBoot records what boot or a hook handed a session.
func (s *Store) RecordBoot(ctx context.Context, b lore.Boot) error {
	return s.do(ctx, http.MethodPost, "/v1/boots", nil, serve.Boot(b), nil)
}

// Boots calls fn for every boot recorded at or after since, oldest first.
func (s *Store) Boots(ctx context.Context, since time.Time, fn func(lore.Boot) error) error {
	q := url.Values{}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	var out serve.BootsAnswer
	if err := s.do(ctx, http.MethodGet, "/v1/boots", q, nil, &out); err != nil {
		return err
	}
	for _, b := range out.Boots {
		if err := fn(lore.Boot(b)); err != nil {
			return err
		}
	}
	return nil
}

// Upload sends a transcript for the server to keep and harvest: name is
// its file name (which tells some formats apart), repo the repository
// its sessions are of. The caller redacts body first; the server
// redacts it again.
func (s *Store) Upload(ctx context.Context, name, repo string, body []byte) (serve.Upload, error) {
	q := url.Values{"name": {name}}
	if repo != "" {
		q.Set("repo", repo)
	}
	var up serve.Upload
	err := s.send(ctx, http.MethodPost, "/v1/sessions", q, "text/plain; charset=utf-8", bytes.NewReader(body), &up)
	return up, err
}
