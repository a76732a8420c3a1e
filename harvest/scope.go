package harvest

import (
	"context"
	"slices"

	"github.com/lorehq/lore"
)

// scope gives an item of a session with a repository that repository,
// unless it is about the agent itself (a quirk of its tool protocol, met
// in every repository the agent works in) and names nothing of the
// repository. A portable item (its text
// names nothing of the repository, and it is a lesson that may hold
// elsewhere) is tagged lore.TagPortable: met in a second repository, it
// becomes global (widen).
func scope(it *lore.Item, s *lore.Session, specific, portable bool) {
	if it.Repo != "" || s.Repo == "" || it.Agent != "" && !specific {
		return // the agent's quirk: unless it names something of the repository
	}
	it.Repo = s.Repo
	if portable && !slices.Contains(it.Tags, lore.TagPortable) {
		it.Tags = append(slices.Clip(it.Tags), lore.TagPortable)
	}
}

// portable reports whether a rule's item may hold beyond its repository:
// a pitfall or tool quirk (a tool's behaviour) whose text names nothing
// of the repository. The rules' facts and patterns say how this project
// is built, tested and laid out ("`go test ./...` runs the tests"): they
// stay the repository's, whatever their text.
func (r *ruleRun) portable(it lore.Item) bool {
	return (it.Category == lore.CategoryPitfall || it.Category == lore.CategoryToolQuirk) && !r.specific(it.Text)
}

// wideningStore is what widen needs of a store beyond Add, to find a
// portable item met in other repositories in earlier runs. A store
// without it widens only what one batch holds.
type wideningStore interface {
	Item(ctx context.Context, id string) (lore.Item, error)
	Search(ctx context.Context, q lore.Query) ([]lore.Hit, error)
	Supersede(ctx context.Context, oldID, newID string) error
}

// widened is a portable item made global: the id of the global item and
// of the repositories' copies it supersedes once stored.
type widened struct {
	global string
	copies []string
}

// widen makes global each portable item (lore.TagPortable) met in two or
// more repositories: in this batch, or in the store (the same text,
// category and agent under another repository, itself portable); or
// whose global item exists already. The global item carries the
// sessions of every repository's copy, so it may be active at once
// (lore.Earned); the copies are superseded by it after the batch is
// stored (supersede). Items are changed in place.
func widen(ctx context.Context, st store, items []lore.Item) ([]widened, error) {
	ws, _ := st.(wideningStore)
	type group struct {
		at    []int // indexes of the batch's items
		repos []string
	}
	groups := map[string]*group{}
	var order []string
	for i, it := range items {
		if it.Repo == "" || !slices.Contains(it.Tags, lore.TagPortable) {
			continue
		}
		key := lore.ItemID(it.Text, it.Category, "", it.Agent)
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			order = append(order, key)
		}
		g.at = append(g.at, i)
		if !slices.ContainsFunc(g.repos, func(r string) bool { return lore.SameRepo(r, it.Repo) }) {
			g.repos = append(g.repos, it.Repo)
		}
	}
	var out []widened
	for _, key := range order {
		g := groups[key]
		first := items[g.at[0]]
		var others []lore.Item // stored copies of other repositories
		global := false
		if ws != nil {
			if old, err := ws.Item(ctx, key); err == nil && old.ID == key {
				global = true
			} else if err != nil && lore.ErrorCode(err) != lore.ENOTFOUND {
				return nil, err
			}
			hits, err := ws.Search(ctx, lore.Query{Text: first.Text, Limit: 50,
				Filter: lore.Filter{Category: first.Category, Statuses: []lore.Status{lore.StatusActive, lore.StatusCandidate}}})
			if err != nil {
				return nil, err
			}
			for _, h := range hits {
				if h.Repo == "" || h.Agent != first.Agent || !slices.Contains(h.Tags, lore.TagPortable) ||
					h.ID != lore.ItemID(first.Text, first.Category, h.Repo, first.Agent) {
					continue
				}
				full, err := ws.Item(ctx, h.ID) // with its evidence, which a search may leave out
				if err != nil {
					return nil, err
				}
				others = append(others, full)
				if !slices.ContainsFunc(g.repos, func(r string) bool { return lore.SameRepo(r, h.Repo) }) {
					g.repos = append(g.repos, h.Repo)
				}
			}
		}
		if !global && len(g.repos) < 2 {
			continue
		}
		w := widened{global: key}
		for _, o := range others {
			w.copies = append(w.copies, o.ID)
			// The copies' sessions confirm the global item.
			items[g.at[0]].Evidence = append(items[g.at[0]].Evidence, o.Evidence...)
		}
		for _, i := range g.at {
			it := &items[i]
			if id := lore.ItemID(it.Text, it.Category, it.Repo, it.Agent); !slices.Contains(w.copies, id) {
				w.copies = append(w.copies, id) // superseded if it was stored before
			}
			it.Repo = ""
			it.Tags = slices.DeleteFunc(slices.Clone(it.Tags), func(t string) bool { return t == lore.TagPortable })
		}
		// Two repositories' sessions: earned as two sessions are.
		if lead := &items[g.at[0]]; lead.Status == lore.StatusCandidate && lore.Earned(*lead) {
			lead.Status = lore.StatusActive
		}
		out = append(out, w)
	}
	return out, nil
}

// supersede marks the repositories' stored copies of widened items
// superseded by their global item, but for a copy whose status a person
// decided (lore.Item.Decided). A copy that was never stored is no error.
func supersede(ctx context.Context, st store, ws []widened) error {
	s, ok := st.(wideningStore)
	if !ok {
		return nil
	}
	for _, w := range ws {
		for _, c := range w.copies {
			old, err := s.Item(ctx, c)
			if err != nil && lore.ErrorCode(err) == lore.ENOTFOUND || err == nil && old.ID != c {
				continue
			}
			if err != nil {
				return err
			}
			if old.Status == lore.StatusSuperseded || old.Status == lore.StatusRetired || old.Decided() {
				continue // a person's decision stands
			}
			if err := s.Supersede(ctx, c, w.global); err != nil {
				return err
			}
		}
	}
	return nil
}
