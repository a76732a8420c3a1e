package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/lorehq/lore"
)

// ItemPage is a page of GET /v1/items: items in id order, and the id to
// ask for the next page after ("" on the last).
type ItemPage struct {
	Items []lore.Item `json:"items"`
	Next  string      `json:"next,omitempty"`
}

var errPageFull = errors.New("page full")

func (s *Server) listItems(ctx context.Context, c *call) (any, error) {
	q, err := query(c.r, "repo", "agent", "category", "status", "limit", "after")
	if err != nil {
		return nil, err
	}
	f, err := filterParams(q)
	if err != nil {
		return nil, err
	}
	f.Expired = f.AnyStatus
	limit, err := intParam(q, "limit", DefaultPage, MaxPage)
	if err != nil {
		return nil, err
	}
	return itemPage(ctx, c.store, f, strings.ToLower(q.Get("after")), limit)
}

func (s *Server) getItem(ctx context.Context, c *call) (any, error) {
	if _, err := query(c.r); err != nil {
		return nil, err
	}
	id := strings.ToLower(c.r.PathValue("id"))
	if !lore.ValidIDPrefix(id) {
		return nil, invalidf("%q is not an item id (4 to 24 hex digits)", id)
	}
	return c.store.Item(ctx, id)
}

// NewItem is an item to add, as lore add takes it.
type NewItem struct {
	Text     string `json:"text"`
	Category string `json:"category"`
	Repo     string `json:"repo,omitempty"`
	Agent    string `json:"agent,omitempty"`
	// Confidence is how sure the sender is, 0 to 1; absent is
	// lore.DefaultConfidence.
	Confidence *float64 `json:"confidence,omitempty"`
	// Status is active (the default) or candidate.
	Status    string   `json:"status,omitempty"`
	Signature string   `json:"signature,omitempty"`
	Tags      []string `json:"tags,omitempty"`
	// Session and Position say which session taught it, when one did.
	Session  string `json:"session,omitempty"`
	Position int    `json:"position,omitempty"`
	// Expires is when the item stops being handed out; absent: never.
	Expires time.Time `json:"expires,omitzero"`
}

// AddRequest is POST /v1/items's body.
type AddRequest struct {
	Items []NewItem `json:"items"`
}

// AddResult is what became of one added item.
type AddResult struct {
	ID            string   `json:"id"`
	Action        string   `json:"action"`
	NearDuplicate bool     `json:"near_duplicate,omitempty"`
	Superseded    []string `json:"superseded,omitempty"`
	// Held says the item was kept as a candidate: it reads as an order
	// that names nothing of a project, or asks for harm.
	Held     bool `json:"held,omitempty"`
	Redacted int  `json:"redacted,omitempty"`
}

// maxAdd caps the items of one POST /v1/items.
const maxAdd = 1000

func (s *Server) addItems(ctx context.Context, c *call) (any, error) {
	if _, err := query(c.r); err != nil {
		return nil, err
	}
	var in AddRequest
	if err := decodeJSON(c.r.Body, &in); err != nil {
		return nil, err
	}
	if len(in.Items) == 0 || len(in.Items) > maxAdd {
		return nil, invalidf("items: want 1 to %d, got %d", maxAdd, len(in.Items))
	}
	items := make([]lore.Item, len(in.Items))
	out := make([]AddResult, len(in.Items))
	for i, n := range in.Items {
		it, err := newItem(n)
		if err != nil {
			return nil, invalidf("item %d: %s", i+1, err)
		}
		// The screen lore add applies: what is added is handed to agents.
		if lore.Instruction(it.Text) {
			return nil, invalidf("item %d: refused: the text reads as an instruction aimed at an agent", i+1)
		}
		if lore.Hold(it.Text) {
			it.MarkHeld()
			out[i].Held = true
		}
		out[i].Redacted = it.Redact()
		items[i] = it
	}
	res, err := c.store.Add(ctx, items)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		out[i].ID, out[i].Action, out[i].NearDuplicate, out[i].Superseded = r.ID, string(r.Action), r.NearDuplicate, r.Superseded
	}
	return struct {
		Results []AddResult `json:"results"`
	}{out}, nil
}

// newItem checks an item to add as lore add checks its flags.
func newItem(n NewItem) (lore.Item, error) {
	it := lore.Item{Text: n.Text, Repo: strings.TrimSpace(n.Repo), Signature: n.Signature, Tags: n.Tags, Confidence: lore.DefaultConfidence,
		Expires: n.Expires}
	c, err := lore.ParseCategory(n.Category)
	if err != nil {
		return it, err
	}
	it.Category = c
	switch n.Status {
	case "", string(lore.StatusActive):
		it.Status = lore.StatusActive
	case string(lore.StatusCandidate):
		it.Status = lore.StatusCandidate
	default:
		return it, fmt.Errorf("status %q: a new item is active or candidate", n.Status)
	}
	if n.Confidence != nil {
		it.Confidence = *n.Confidence
	}
	if math.IsNaN(it.Confidence) || it.Confidence < 0 || it.Confidence > 1 {
		return it, fmt.Errorf("confidence %v: want a number from 0 to 1", it.Confidence)
	}
	if it.Agent, err = agentParam(n.Agent); err != nil {
		return it, err
	}
	if strings.ContainsAny(it.Repo, " \t\r\n") {
		return it, fmt.Errorf("repo %q: want owner/name", it.Repo)
	}
	if n.Session != "" {
		if n.Position < 0 {
			return it, fmt.Errorf("position %d: want 0 or more", n.Position)
		}
		it.Evidence = []lore.Evidence{{Session: n.Session, Position: n.Position}}
	} else if n.Position != 0 {
		return it, errors.New("position needs a session")
	}
	return it, nil
}

// ReviewRequest is the body of POST /v1/items/{id}/promote, retire and
// edit: all optional but an edit's text.
type ReviewRequest struct {
	// Text is an edit's new text.
	Text string `json:"text,omitempty"`
	// Reactivate promotes a retired or superseded item too, as lore
	// promote --reactivate.
	Reactivate bool `json:"reactivate,omitempty"`
}

// review applies a person's decision, recorded on the item with the
// token that made it as who.
func (s *Server) review(action lore.ReviewAction) handler {
	return func(ctx context.Context, c *call) (any, error) {
		if _, err := query(c.r); err != nil {
			return nil, err
		}
		var in ReviewRequest
		body, err := io.ReadAll(c.r.Body)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(body)) > 0 {
			if err := decodeJSON(bytes.NewReader(body), &in); err != nil {
				return nil, err
			}
		}
		id := strings.ToLower(c.r.PathValue("id"))
		if !lore.ValidIDPrefix(id) {
			return nil, invalidf("%q is not an item id (4 to 24 hex digits)", id)
		}
		if (in.Text != "") != (action == lore.ReviewEdit) {
			return nil, invalidf("text is for an edit, and an edit needs one")
		}
		if in.Reactivate && action != lore.ReviewPromote {
			return nil, invalidf("reactivate is for promote")
		}
		it, err := c.store.Item(ctx, id)
		if err != nil {
			return nil, err
		}
		d := lore.Decision{Action: action, By: reviewer(c.token)}
		switch action {
		case lore.ReviewPromote:
			if !in.Reactivate && (it.Status == lore.StatusRetired || it.Status == lore.StatusSuperseded) {
				return nil, lore.Errorf(lore.ECONFLICT, "%s is %s; send {\"reactivate\": true} to make it active again", it.ID, it.Status)
			}
		case lore.ReviewEdit:
			instruction, hold, _ := lore.Screen(in.Text)
			if instruction {
				return nil, invalidf("refused: the text reads as an instruction aimed at an agent")
			}
			d.Text, d.Hold = in.Text, hold
		}
		return c.store.Review(ctx, it.ID, d)
	}
}

// reviewer names the token that made a decision, in the item's history.
func reviewer(t lore.Token) string {
	name := t.Name
	if name == "" {
		name = "token " + t.ID
	}
	return name + " via lore serve"
}

// SupersedeRequest is POST /v1/items/{id}/supersede's body: the item
// that replaces it.
type SupersedeRequest struct {
	By string `json:"by"`
}

// supersede marks an item superseded by another, as lore add
// --supersedes does.
func (s *Server) supersede(ctx context.Context, c *call) (any, error) {
	var in SupersedeRequest
	if err := s.body(c, &in); err != nil {
		return nil, err
	}
	id, byID := strings.ToLower(c.r.PathValue("id")), strings.ToLower(in.By)
	if !lore.ValidIDPrefix(id) || !lore.ValidIDPrefix(byID) {
		return nil, invalidf("%q superseded by %q: want item ids (4 to 24 hex digits)", id, byID)
	}
	old, err := c.store.Item(ctx, id)
	if err != nil {
		return nil, err
	}
	by, err := c.store.Item(ctx, byID)
	if err != nil {
		return nil, err
	}
	if err := c.store.Supersede(ctx, old.ID, by.ID); err != nil {
		return nil, err
	}
	return c.store.Item(ctx, old.ID)
}
