// Package neardup is how a store finds the stored item an incoming one is
// a near-duplicate of, by lore's rules: the fingerprints of items' texts
// and of the texts a person edited them from, their band keys, and the
// choice among the candidates that share a key with the incoming item.
package neardup

import (
	"github.com/lorehq/lore"
	"github.com/lorehq/lore/internal/dedup"
)

// ItemBits are the low bits of every band key, which are zero: a store
// may keep an item's number there (the SQLite store's bands table keeps
// a key and its item in one integer).
const ItemBits = 28

// Fingerprint is what merging compares of an item's text.
type Fingerprint struct {
	Norm string // lore.NormalizeText of the text
	dedup.Fingerprint
	Keys [dedup.Bands]int64 // band keys, salted with the item's scope
}

// Of returns the fingerprint of an item's text.
func Of(it lore.Item) *Fingerprint {
	f := &Fingerprint{Norm: lore.NormalizeText(it.Text)}
	f.Fingerprint = dedup.Of(f.Norm)
	f.Keys = f.BandKeys(string(it.Category) + "\x00" + it.Repo + "\x00" + it.Agent)
	for i := range f.Keys {
		f.Keys[i] &^= 1<<ItemBits - 1
	}
	return f
}

// Texts are the fingerprints of a stored item's text and of the texts a
// person edited it from (lore.Item.OldTexts): a near-duplicate of the
// text a session taught is still one once a person reworded it. Each is
// computed when first needed; the zero Texts has none yet.
type Texts struct {
	text   *Fingerprint
	edited []*Fingerprint
	done   bool
}

// Known returns the Texts of an item whose text's fingerprint is fp.
func Known(fp *Fingerprint) Texts { return Texts{text: fp} }

// Text returns the fingerprint of it's text; it is the item of t.
func (t *Texts) Text(it *lore.Item) *Fingerprint {
	if t.text == nil {
		t.text = Of(*it)
	}
	return t.text
}

// Edited returns the fingerprints of the texts a person edited it from.
func (t *Texts) Edited(it *lore.Item) []*Fingerprint {
	if !t.done {
		t.done = true
		for _, text := range it.OldTexts() {
			old := *it
			old.Text = text
			t.edited = append(t.edited, Of(old))
		}
	}
	return t.edited
}

// Keys calls fn with each band key of it's text and of the texts it was
// edited from.
func (t *Texts) Keys(it *lore.Item, fn func(int64)) {
	for _, k := range t.Text(it).Keys {
		fn(k)
	}
	for _, f := range t.Edited(it) {
		for _, k := range f.Keys {
			fn(k)
		}
	}
}

// Similarity is how similar a text of fingerprint fp is to it's text, or
// to a text it was edited from, whichever is closer.
func (t *Texts) Similarity(it *lore.Item, fp *Fingerprint) float64 {
	sim := dedup.Similarity(fp.Fingerprint, t.Text(it).Fingerprint)
	for _, f := range t.Edited(it) {
		sim = max(sim, dedup.Similarity(fp.Fingerprint, f.Fingerprint))
	}
	return sim
}

// Holds reports whether the stored item (of Texts t) holds in, whose
// normalised text is norm: the id they share is a collision when their
// texts or scopes differ. An item a person edited is still the item
// sessions teach by its old text, which its id derives from.
func (t *Texts) Holds(stored *lore.Item, in lore.Item, norm string) bool {
	if !lore.SameScope(*stored, in) {
		return false
	}
	if stored.Text == in.Text {
		return true
	}
	var own string
	if t.text != nil {
		own = t.text.Norm
	} else {
		own = lore.NormalizeText(stored.Text) // cheaper than a fingerprint
	}
	return own == norm || stored.EditedFrom(norm) || in.EditedFrom(own)
}

// Index keeps the near-duplicate candidates of one write by band key: the
// stored items that share a key with an incoming one, and the items the
// write makes. R is the store's handle on an item (its row).
type Index[R comparable] struct {
	bands map[int64][]candidate[R]
	in    map[R]bool
}

type candidate[R comparable] struct {
	r     R
	item  *lore.Item
	texts *Texts
	order int64
}

// Add makes r, whose item and Texts these are, a candidate of the items
// that share a band key with it, once. Of equally similar candidates, the
// one of lower order is chosen: stored before new, older before younger.
func (x *Index[R]) Add(r R, item *lore.Item, texts *Texts, order int64) {
	if x.in[r] {
		return
	}
	if x.in == nil {
		x.in, x.bands = map[R]bool{}, map[int64][]candidate[R]{}
	}
	x.in[r] = true
	c := candidate[R]{r, item, texts, order}
	texts.Keys(item, func(k int64) { x.bands[k] = append(x.bands[k], c) })
}

// Has reports whether r is a candidate.
func (x *Index[R]) Has(r R) bool { return x.in[r] }

// Nearest returns the candidate in, of fingerprint fp, merges into as a
// near-duplicate: of those sharing a band key with it in its scope (the
// keys are salted with it, but may meet by chance), similar at
// dedup.Threshold or more, the most similar, then the first in order.
func (x *Index[R]) Nearest(in lore.Item, fp *Fingerprint) (R, bool) {
	var best *candidate[R]
	bestSim := 0.0
	for _, k := range fp.Keys {
		for i := range x.bands[k] {
			c := &x.bands[k][i]
			if !lore.SameScope(*c.item, in) {
				continue
			}
			if sim := c.texts.Similarity(c.item, fp); sim >= dedup.Threshold && (sim > bestSim || sim == bestSim && c.order < best.order) {
				best, bestSim = c, sim
			}
		}
	}
	if best == nil {
		var none R
		return none, false
	}
	return best.r, true
}
