package harvest

import (
	"context"

	"github.com/lorehq/lore"
)

// Rebuilding: harvest sessions again with the rules as they are now,
// in place of what earlier rules took from them. A store harvested before
// a change to the rules keeps what they made: items the rules now leave
// out stay, active ones keep being handed out. Rebuild takes each
// listed session's evidence back (lore.Store.ForgetSession: an item left
// with no evidence, no confidence given by hand and no decision of a
// person is deleted, the others are recomputed, so that what a person
// promoted, retired or edited stays so when its sessions teach it again) and drops its record from the listing, so that Run
// harvests it anew. It leaves alone:
//   - a session another extractor harvested too (--llm): forgetting it
//     would take back what the model found, which costs a model's calls
//     to find again;
//   - a session a person forgot (lore forget --session, which marks it
//     lore.Forgotten), for instance because it read a poisoned page; or,
//     in a store older than the mark, whose record says it taught
//     something while no item cites it any longer;
//   - a session whose transcript is gone, which List does not list.
//
// Before it forgets, each session's record in the store is marked stale
// (a size no transcript has), so that a run stopped after Rebuild harvests
// the session next time rather than skipping it as unchanged.

// rebuildStore is what Rebuild needs of a store.
type rebuildStore interface {
	Items(ctx context.Context, f lore.Filter, fn func(lore.Item) error) error
	ForgetSession(ctx context.Context, session string) (lore.ForgetResult, error)
	RecordHarvest(ctx context.Context, hs ...lore.Harvest) error
}

// Rebuilt counts what Rebuild did.
type Rebuilt struct {
	Sessions int `json:"sessions"` // sessions whose evidence was taken back, to be harvested again
	// Other counts sessions left alone because another extractor
	// harvested them too; Forgotten, those a person forgot.
	Other     int `json:"other_extractor"`
	Forgotten int `json:"forgotten"`
	Evidence  int `json:"evidence_removed"`
	Deleted   int `json:"items_deleted"`
	Updated   int `json:"items_updated"`
}

// Rebuild takes back what sessions taught, sessions of the listing that
// its extractor (ListOptions.Extractor) harvested, and makes Run harvest
// them again (see Rebuilding). The listing must have read every
// transcript (ListOptions.Every); sessions are those Run is to harvest.
func (l *Listing) Rebuild(ctx context.Context, st rebuildStore, sessions []*lore.Session) (Rebuilt, error) {
	var r Rebuilt
	cited := map[string]bool{}
	if err := st.Items(ctx, lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		for _, e := range it.Evidence {
			cited[e.Session] = true
		}
		return nil
	}); err != nil {
		return r, err
	}
	var again []lore.Harvest
	for _, s := range sessions {
		rec, ok := l.records[s.ID]
		switch {
		case !ok:
			continue // never harvested: Run takes it as any new session
		case l.forgotten[s.ID] || rec.Items > 0 && !cited[s.ID]:
			r.Forgotten++ // marked, or forgotten before lore marked it
			continue
		case l.others[s.ID]:
			r.Other++
			continue
		}
		stale := rec
		stale.Size, stale.Hash = -1, ""
		again = append(again, stale)
	}
	if len(again) > 0 {
		if err := st.RecordHarvest(ctx, again...); err != nil {
			return r, err
		}
	}
	for _, rec := range again {
		res, err := st.ForgetSession(ctx, rec.Session)
		if err != nil {
			return r, err
		}
		delete(l.records, rec.Session)
		r.Sessions++
		r.Evidence += res.Evidence
		r.Deleted += res.Deleted
		r.Updated += res.Updated
	}
	return r, nil
}
