package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/harvest"
	"github.com/lorehq/lore/internal/redact"
)

// Paging of the knowledge list.
const (
	pageSize = 50
	// scanLimit caps the items a list reads when it filters or sorts by
	// what the store cannot (confidence, sources, age): the most
	// confident ones, so that a page of a large store stays quick.
	scanLimit = 2000
	// searchLimit caps a search's hits.
	searchLimit = 500
	// maxPage is the last page the list goes to: a page further on would
	// read that many items to show fifty.
	maxPage = 200
)

// listQuery is the knowledge list's query string, parsed.
type listQuery struct {
	Q, Repo, Agent, Category, Status, Sort string
	MinConf                                float64
	MinSources, MaxAge, Page               int
}

func parseList(r *http.Request) (listQuery, error) {
	v := r.URL.Query()
	q := listQuery{
		Q: strings.TrimSpace(v.Get("q")), Repo: strings.TrimSpace(v.Get("repo")), Agent: strings.TrimSpace(v.Get("agent")),
		Category: v.Get("category"), Status: v.Get("status"), Sort: v.Get("sort"), Page: 1,
	}
	if q.Category != "" && !slices.Contains(lore.Categories, lore.Category(q.Category)) {
		return q, lore.Errorf(lore.EINVALID, "no category %q", q.Category)
	}
	if q.Status != "" && q.Status != "any" && !slices.Contains(lore.Statuses, lore.Status(q.Status)) {
		return q, lore.Errorf(lore.EINVALID, "no status %q", q.Status)
	}
	if q.Sort != "" && q.Sort != "confidence" && q.Sort != "sources" && q.Sort != "confirmed" {
		return q, lore.Errorf(lore.EINVALID, "no sort %q (confidence, sources or confirmed)", q.Sort)
	}
	var err error
	num := func(name string, p *int) {
		if s := v.Get(name); s != "" && err == nil {
			if *p, err = strconv.Atoi(s); err != nil || *p < 0 {
				err = lore.Errorf(lore.EINVALID, "%s=%q: want a whole number", name, s)
			}
		}
	}
	num("sources", &q.MinSources)
	num("age", &q.MaxAge)
	num("page", &q.Page)
	if s := v.Get("conf"); s != "" && err == nil {
		if q.MinConf, err = strconv.ParseFloat(s, 64); err != nil || q.MinConf < 0 || q.MinConf > 1 {
			err = lore.Errorf(lore.EINVALID, "conf=%q: want a confidence from 0 to 1", s)
		}
	}
	q.Page = max(q.Page, 1)
	if err == nil && q.Page > maxPage {
		err = lore.Errorf(lore.EINVALID, "page %d: the list goes to page %d (the first %d items); a filter or a search narrows it", q.Page, maxPage, maxPage*pageSize)
	}
	return q, err
}

func (q listQuery) filter() lore.Filter {
	f := lore.Filter{Repo: q.Repo, AnyOwner: true, Agent: q.Agent, Category: lore.Category(q.Category)}
	switch q.Status {
	case "":
	case "any":
		f.AnyStatus = true
	default:
		f.Statuses = []lore.Status{lore.Status(q.Status)}
	}
	return f
}

// narrows reports whether the query filters by what the store does not.
func (q listQuery) narrows() bool { return q.MinConf > 0 || q.MinSources > 0 || q.MaxAge > 0 }

func (q listQuery) keeps(it lore.Item, now time.Time) bool {
	return it.Confidence >= q.MinConf && it.SourceCount >= q.MinSources &&
		(q.MaxAge == 0 || now.Sub(it.LastConfirmed) <= time.Duration(q.MaxAge)*24*time.Hour)
}

// with is the list's address with one parameter changed (and paging
// back to the first page unless that parameter is the page).
func (q listQuery) with(name, value string) string {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" && s != "0" {
			v.Set(k, s)
		}
	}
	set("q", q.Q)
	set("repo", q.Repo)
	set("agent", q.Agent)
	set("category", q.Category)
	set("status", q.Status)
	set("sort", q.Sort)
	if q.MinConf > 0 {
		set("conf", strconv.FormatFloat(q.MinConf, 'f', -1, 64))
	}
	set("sources", strconv.Itoa(q.MinSources))
	set("age", strconv.Itoa(q.MaxAge))
	if name != "page" {
		v.Del("page")
	} else if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	v.Del(name)
	set(name, value)
	if len(v) == 0 {
		return "/"
	}
	return "/?" + v.Encode()
}

// listBody is the knowledge page.
type listBody struct {
	Query      listQuery
	Items      []lore.Item
	Capped     bool
	Prev, Next string
	Categories []lore.Category
	Statuses   []lore.Status
	SortLinks  []sortLink
	Candidates string // the link to the candidates tab
}

type sortLink struct {
	Name, Label, Href string
	Current           bool
}

func (v *view) knowledge(w http.ResponseWriter, r *http.Request) {
	q, err := parseList(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	ctx := r.Context()
	now := v.opts.Now()
	f := q.filter()
	want := q.Page*pageSize + 1 // one more than shown tells there is a next page
	b := listBody{Query: q, Categories: lore.Categories, Statuses: lore.Statuses}
	var items []lore.Item
	switch {
	case q.Q != "":
		hits, err := v.store.Search(ctx, lore.Query{Text: q.Q, Filter: f, Limit: searchLimit, Bounded: true})
		if err != nil {
			v.fail(w, r, fmt.Errorf("search: %w", err))
			return
		}
		for _, h := range hits {
			items = append(items, h.Item)
		}
	case !q.narrows() && (q.Sort == "" || q.Sort == "confidence"):
		items, err = v.store.Best(ctx, f, want)
	default:
		items, err = v.store.Best(ctx, f, scanLimit)
		b.Capped = len(items) == scanLimit
	}
	if err != nil {
		v.fail(w, r, fmt.Errorf("read items: %w", err))
		return
	}
	items = slices.DeleteFunc(items, func(it lore.Item) bool { return !q.keeps(it, now) })
	sortItems(items, q.Sort)
	from := min((q.Page-1)*pageSize, len(items))
	to := min(from+pageSize, len(items))
	b.Items = items[from:to]
	if q.Page > 1 {
		b.Prev = q.with("page", strconv.Itoa(q.Page-1))
	}
	if len(items) > to && q.Page < maxPage {
		b.Next = q.with("page", strconv.Itoa(q.Page+1))
	}
	for _, s := range []struct{ name, label string }{{"confidence", "Confidence"}, {"sources", "Sources"}, {"confirmed", "Last confirmed"}} {
		cur := q.Sort == s.name || (q.Sort == "" && s.name == "confidence" && q.Q == "")
		b.SortLinks = append(b.SortLinks, sortLink{s.name, s.label, q.with("sort", s.name), cur})
	}
	b.Candidates = listQuery{Status: string(lore.StatusCandidate)}.with("", "")
	title := "Knowledge"
	if q.Status == string(lore.StatusCandidate) {
		title = "Candidates"
	}
	v.render(w, r, http.StatusOK, "knowledge", title, b)
}

// sortItems orders items as the list's sort says; by default they stay
// in the store's order (relevance for a search, else confidence).
func sortItems(items []lore.Item, by string) {
	switch by {
	case "confidence":
		slices.SortStableFunc(items, func(a, b lore.Item) int { return cmp.Compare(b.Confidence, a.Confidence) })
	case "sources":
		slices.SortStableFunc(items, func(a, b lore.Item) int { return cmp.Compare(b.SourceCount, a.SourceCount) })
	case "confirmed":
		slices.SortStableFunc(items, func(a, b lore.Item) int { return b.LastConfirmed.Compare(a.LastConfirmed) })
	}
}

// itemBody is an item's page.
type itemBody struct {
	Item    lore.Item
	FixedIn []string // commits of the item's fixed-in: tags
	Tags    []string // its other tags
	Related []lore.Item
	// SupersededBy are the items that name this superseded one in their
	// Related: what replaced it.
	SupersededBy []lore.Item
	Missing      []string // related ids no longer stored
	// History is the item's confidence as its sessions came, when the
	// store says what each added (lore.EvidenceShares); Manual is the
	// confidence given by hand, counted from the start.
	History  []confidenceStep
	Manual   float64
	Excerpts []string // parallel to the evidence: what the first maxExcerpts sessions said
	Error    string   // what went wrong with the action just asked
	Held     bool     // the edit just made was held
	Text     string   // the edit form's text
}

func (v *view) item(w http.ResponseWriter, r *http.Request) {
	v.showItem(w, r, http.StatusOK, "", "")
}

// showItem renders the item's page, with the error of an action that
// failed and the text the edit form had.
func (v *view) showItem(w http.ResponseWriter, r *http.Request, status int, errText, text string) {
	ctx := r.Context()
	it, err := v.lookup(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	b := itemBody{Item: it, Error: errText, Text: text, Held: r.URL.Query().Get("held") == "1"}
	if text == "" {
		b.Text = it.Text
	}
	for _, t := range it.Tags {
		if c, ok := strings.CutPrefix(t, lore.TagFixedIn); ok {
			b.FixedIn = append(b.FixedIn, c)
		} else {
			b.Tags = append(b.Tags, t)
		}
	}
	b.Excerpts = make([]string, len(it.Evidence))
	for i, e := range it.Evidence[:min(len(it.Evidence), maxExcerpts)] {
		b.Excerpts[i] = cut(harvest.Excerpt(ctx, v.store, e), 400)
	}
	for _, id := range it.Related[:min(len(it.Related), 50)] {
		rel, err := v.store.Item(ctx, id)
		switch {
		case lore.ErrorCode(err) == lore.ENOTFOUND:
			b.Missing = append(b.Missing, id)
		case err != nil:
			v.fail(w, r, fmt.Errorf("related item %s: %w", id, err))
			return
		default:
			b.Related = append(b.Related, rel)
		}
	}
	if st, ok := v.store.(lore.EvidenceShares); ok && len(it.Evidence) > 0 {
		evs, shares, err := st.Shares(ctx, it.ID)
		if err != nil {
			v.fail(w, r, fmt.Errorf("the item's confidence over its sessions: %w", err))
			return
		}
		b.History, b.Manual = history(evs, shares, it.Manual), it.Manual
	}
	if it.Status == lore.StatusSuperseded {
		if b.SupersededBy, err = v.supersededBy(ctx, it); err != nil {
			v.fail(w, r, err)
			return
		}
	}
	v.render(w, r, status, "item", "Item "+it.ID[:min(12, len(it.ID))], b)
}

// confidenceStep is one session of an item's confidence history.
type confidenceStep struct {
	N       int
	Session lore.Evidence
	Share   float64 // what the session brought
	After   float64 // the item's confidence once it had
}

// maxHistory caps the sessions an item's history lists.
const maxHistory = 50

// history is an item's confidence as each session's share joined those
// before it and the confidence given by hand (lore.CombineConfidence): the
// last step is the item's confidence.
func history(evs []lore.Evidence, shares []float64, manual float64) []confidenceStep {
	var out []confidenceStep
	so := []float64{manual}
	for i, e := range evs[:min(len(evs), len(shares))] {
		so = append(so, shares[i])
		out = append(out, confidenceStep{N: i + 1, Session: e, Share: shares[i], After: lore.CombineConfidence(so...)})
	}
	if len(out) > maxHistory {
		out = append(out[:maxHistory/2], out[len(out)-maxHistory/2:]...)
	}
	return out
}

// supersededBy finds the items that superseded it: those of its scope and
// category whose Related names it (a store supersedes within a scope),
// at most a few.
func (v *view) supersededBy(ctx context.Context, it lore.Item) ([]lore.Item, error) {
	f := lore.Filter{Repo: it.Repo, NoRepo: it.Repo == "", Agent: it.Agent, NoAgent: it.Agent == "", Category: it.Category, AnyStatus: true}
	var out []lore.Item
	err := v.store.Items(ctx, f, func(x lore.Item) error {
		if x.ID != it.ID && slices.Contains(x.Related, it.ID) {
			out = append(out, x)
			if len(out) == 5 {
				return errEnough
			}
		}
		return nil
	})
	if err != nil && err != errEnough {
		return nil, fmt.Errorf("what superseded %s: %w", it.ID, err)
	}
	return out, nil
}

// maxExcerpts is how many of an item's sessions its page quotes: each is
// read from its transcript, as lore show reads them.
const maxExcerpts = 3

// cut is s on one line, cut to about n bytes, never inside a secret's
// marker.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:redact.Cut(s, n)] + "…"
}

// lookup reads the item the path names; an id that is not one is not
// found.
func (v *view) lookup(r *http.Request) (lore.Item, error) {
	id := strings.ToLower(r.PathValue("id"))
	if !lore.ValidIDPrefix(id) {
		return lore.Item{}, lore.Errorf(lore.ENOTFOUND, "%q is not an item id (4 to 24 hex digits)", id)
	}
	return v.store.Item(r.Context(), id)
}

// act applies a person's decision from an item page's forms, as lore
// promote, retire and edit do, and shows the item as it now is.
func (v *view) act(w http.ResponseWriter, r *http.Request) {
	it, err := v.lookup(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	var d lore.Decision
	text := r.PostFormValue("text")
	switch r.PathValue("action") {
	case "promote":
		if it.Status == lore.StatusRetired || it.Status == lore.StatusSuperseded {
			v.showItem(w, r, http.StatusConflict, fmt.Sprintf("The item is %s: restore it to make it active again.", it.Status), "")
			return
		}
		d = lore.Decision{Action: lore.ReviewPromote}
	case "restore":
		// Restoring is promoting a retired or superseded item, as lore
		// promote --reactivate does.
		d = lore.Decision{Action: lore.ReviewPromote}
	case "retire":
		d = lore.Decision{Action: lore.ReviewRetire}
	case "edit":
		if d, err = lore.EditDecision(text, false, ""); err != nil {
			v.showItem(w, r, http.StatusBadRequest, err.Error(), text)
			return
		}
	default:
		v.fail(w, r, lore.Errorf(lore.ENOTFOUND, "no action %q", r.PathValue("action")))
		return
	}
	d.By = v.opts.By
	if _, err := v.store.Review(r.Context(), it.ID, d); err != nil {
		if st := status(err); st != http.StatusInternalServerError {
			v.showItem(w, r, st, err.Error(), text)
			return
		}
		v.fail(w, r, err)
		return
	}
	to := "/items/" + it.ID
	if d.Hold {
		to += "?held=1"
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}
