package lore

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// ReviewAction is what a person decided about an item.
type ReviewAction string

const (
	// ReviewKeep leaves the item as it is, to lore's rules (a second
	// session still makes a candidate active): it only says a person saw
	// it, so that lore review does not ask again.
	ReviewKeep ReviewAction = "keep"
	// ReviewPromote makes the item active: the person vouches for it, as
	// lore add does, with DefaultConfidence given by hand.
	ReviewPromote ReviewAction = "promote"
	// ReviewRetire takes the item back: it stays, but is no longer handed
	// out.
	ReviewRetire ReviewAction = "retire"
	// ReviewEdit rewords the item; its id stays.
	ReviewEdit ReviewAction = "edit"
)

// ReviewActions lists every action.
var ReviewActions = []ReviewAction{ReviewKeep, ReviewPromote, ReviewRetire, ReviewEdit}

// Review is one decision a person made about an item, as the item keeps
// it: its history of reviews is Item.Reviews, oldest first.
type Review struct {
	At     time.Time    `json:"at"`
	Action ReviewAction `json:"action"`
	// By says who decided, and through what: "ann via lore review".
	By string `json:"by"`
	// From and To are the item's status before and after.
	From Status `json:"from"`
	To   Status `json:"to"`
	// OldText and NewText are the item's text before and after an edit.
	OldText string `json:"old_text,omitempty"`
	NewText string `json:"new_text,omitempty"`
}

// Decision is what a person asks of Store.Review.
type Decision struct {
	Action ReviewAction
	By     string
	// Text is an edit's new text, which the caller has screened (see
	// Screen); secrets in it are redacted as Prepare redacts them.
	Text string
	// Hold asks that the edited text be held (see Hold and TagHeld): the
	// item becomes a held candidate. Without it, an edit takes the held
	// tag away, since the screen held the old text.
	Hold bool
	// At is when the person decided; zero means the store's clock.
	At time.Time
}

// Decide applies a person's decision to a stored item, whose sessions
// brought shares (parallel to it.Evidence, as for Merge), and records it
// as the last of it.Reviews. It is the one rule every store's Review
// applies. It returns an EINVALID error for an unknown action, text
// given to anything but an edit, or an edit whose text is empty, longer
// than MaxText, or the item's text already.
func Decide(it *Item, shares []float64, d Decision, now time.Time) error {
	if !slices.Contains(ReviewActions, d.Action) {
		return Errorf(EINVALID, "unknown review action %q (want one of %s)", d.Action, joinNames(ReviewActions))
	}
	if d.Action != ReviewEdit && (d.Text != "" || d.Hold) {
		return Errorf(EINVALID, "only an edit takes a text")
	}
	at := d.At
	if at.IsZero() {
		at = now
	}
	r := Review{At: StoreTime(at), Action: d.Action, By: strings.ToValidUTF8(strings.TrimSpace(d.By), "\uFFFD"), From: it.Status}
	switch d.Action {
	case ReviewPromote:
		it.Status = StatusActive
		if it.Manual < DefaultConfidence {
			it.Manual = DefaultConfidence
			it.Confidence = CombineConfidence(append(slices.Clone(shares), it.Manual)...)
		}
	case ReviewRetire:
		it.Status = StatusRetired
	case ReviewEdit:
		if n := len(strings.TrimSpace(d.Text)); n > MaxText {
			return Errorf(EINVALID, "text of %d bytes; an item holds at most %d", n, MaxText)
		}
		text, _ := scrub(d.Text)
		if text = strings.TrimSpace(text); text == "" {
			return Errorf(EINVALID, "empty text")
		}
		if text == it.Text {
			return Errorf(EINVALID, "the new text is the item's text already")
		}
		r.OldText, r.NewText = it.Text, text
		it.Text = text
		it.redacted = redaction{it.Text, it.Signature}
		it.Tags = slices.DeleteFunc(slices.Clone(it.Tags), func(t string) bool { return t == TagHeld })
		if d.Hold {
			it.MarkHeld()
		}
	}
	r.To = it.Status
	it.Reviews = append(slices.Clip(it.Reviews), r)
	return nil
}

// Decided reports whether a person decided the item's status or text:
// promoted, retired or edited it (keeping it leaves it to the rules).
// Sessions then leave its status as the person left it: they neither make
// it active nor take it back to a candidate, and a harvest does not
// supersede it; only a person changes it again.
func (it *Item) Decided() bool {
	for _, r := range it.Reviews {
		if r.Action != ReviewKeep {
			return true
		}
	}
	return false
}

// Kept reports whether a person kept the item as it is (ReviewKeep):
// lore review does not ask about it again.
func (it *Item) Kept() bool {
	return slices.ContainsFunc(it.Reviews, func(r Review) bool { return r.Action == ReviewKeep })
}

// EditedFrom reports whether a person edited the item from a text whose
// normalised form (NormalizeText) is norm: a session that teaches that
// text again teaches this item.
func (it *Item) EditedFrom(norm string) bool {
	for _, r := range it.Reviews {
		if r.Action == ReviewEdit && NormalizeText(r.OldText) == norm {
			return true
		}
	}
	return false
}

// OldTexts returns the texts a person edited the item from, oldest
// first.
func (it *Item) OldTexts() []string {
	var out []string
	for _, r := range it.Reviews {
		if r.Action == ReviewEdit && r.OldText != "" {
			out = append(out, r.OldText)
		}
	}
	return out
}

// prepareReviews brings reviews given to a store (an import) into the
// form stores keep: known actions and statuses, times in UTC to the
// microsecond, texts redacted.
func prepareReviews(rs []Review) ([]Review, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	out := make([]Review, len(rs))
	for i, r := range rs {
		if !slices.Contains(ReviewActions, r.Action) {
			return nil, Errorf(EINVALID, "review %d: unknown action %q (want one of %s)", i+1, r.Action, joinNames(ReviewActions))
		}
		for _, st := range []Status{r.From, r.To} {
			if st != "" && !st.Valid() {
				return nil, Errorf(EINVALID, "review %d: unknown status %q", i+1, st)
			}
		}
		r.At = StoreTime(r.At)
		r.By = strings.ToValidUTF8(strings.TrimSpace(redactor.String(r.By)), "\uFFFD")
		r.OldText = strings.TrimSpace(redactor.String(r.OldText))
		r.NewText = strings.TrimSpace(redactor.String(r.NewText))
		out[i] = r
	}
	return out, nil
}

// EditDecision is the decision to reword an item as text, screened as
// lore add screens what it adds: refused with ErrInstruction when it
// reads as an instruction aimed at an agent, held when it is an order
// that names nothing of a project or asks for harm; asIs takes it as it
// is. lore edit, lore review and the web view decide edits through it.
func EditDecision(text string, asIs bool, by string) (Decision, error) {
	d := Decision{Action: ReviewEdit, Text: text, By: by}
	if asIs {
		return d, nil
	}
	instruction, hold, _ := Screen(text)
	if instruction {
		return d, ErrInstruction
	}
	d.Hold = hold
	return d, nil
}

// ErrInstruction refuses an edit's text that reads as an instruction.
var ErrInstruction = errors.New("refused: the text reads as an instruction aimed at an agent (overriding its instructions, " +
	"changing its role, hiding things from its user or sending data away)")
