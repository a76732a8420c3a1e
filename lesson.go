package lore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Lesson confidences: one attempt's lesson stays a candidate; the same
// lesson from a second session's attempt reaches PromoteConfidence
// (1 − (1 − 0.5)² = 0.75), and the store makes it active. A held lesson
// is not handed out until a person looks at it.
const (
	lessonConfidence = 0.5
	heldLesson       = 0.3
)

// maxLesson caps a lesson's text, in runes, at what harvest keeps of an
// item: a sentence or two.
const maxLesson = 300

// TagJournal marks the items a journal's attempts taught.
const TagJournal = "journal"

// LessonOf is the candidate pitfall a failed or rolled-back attempt
// teaches: its reflection (else its analysis) as the text, scoped to its
// repository, its files and area as tags, with the attempt's session as
// evidence (or the attempt itself, "journal:ID", when it has none), for
// the store's Add to merge with the same lesson of other attempts and
// promote by its rules. The text is screened as harvest screens what a
// session's tool output taught, for whoever wrote it (an agent, a
// transcript) may have been handed it by a stranger: an instruction to an
// agent teaches nothing (false), and an order or a dangerous setting is
// kept held (TagHeld). No lesson (false) for an attempt that
// succeeded or is pending, or that says nothing of why.
//
// The commands that write attempts (lore journal log, reflect and import)
// add the lesson of each attempt as they store it.
func LessonOf(a Attempt) (Item, bool) {
	if a.Outcome != AttemptFailure && a.Outcome != AttemptRollback {
		return Item{}, false
	}
	text := lessonText(a.Lesson())
	if text == "" {
		return Item{}, false
	}
	it := Item{Text: text, Category: CategoryPitfall, Repo: a.Repo, Confidence: lessonConfidence,
		Status: StatusCandidate, FirstSeen: a.At, Tags: append([]string{TagJournal}, a.Files...)}
	it.Redact() // screened as it will be stored
	instruction, hold, order := Screen(it.Text)
	if instruction {
		return Item{}, false
	}
	if hold || order {
		it.Confidence = heldLesson
		it.MarkHeld() // never made active by sessions, only by a person
	}
	if a.Area != "" {
		it.Tags = append(it.Tags, a.Area)
	}
	src := a.Session
	if src == "" && a.ID != "" {
		src = "journal:" + a.ID
	}
	if src != "" {
		it.Evidence = []Evidence{{Session: src}}
	}
	it.Tags = slices.Compact(it.Tags)
	return it, true
}

// lessonText is s on one line, cut to maxLesson runes at a sentence's or
// a word's end.
func lessonText(s string) string {
	t := strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(t) <= maxLesson {
		return t
	}
	cut := string([]rune(t)[:maxLesson])
	if i := strings.LastIndex(cut, ". "); i > maxLesson/2 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > maxLesson/2 {
		cut = cut[:i]
	}
	return cut + " …"
}

// adder is what AddLessons needs of a store.
type adder interface {
	Add(ctx context.Context, items []Item) ([]AddResult, error)
}

// AddLessons adds to st the lessons of attempts as they were stored
// (LessonOf), where the store merges them with the same lesson of other
// attempts and promotes them by its rules; lore journal log and reflect
// call it with the attempts the journal returned. It returns what became
// of each lesson, in order.
func AddLessons(ctx context.Context, st adder, as ...Attempt) ([]AddResult, error) {
	return addTaught(ctx, st, "lessons", as, LessonOf)
}

// addTaught adds to st what each of xs teaches, in order.
func addTaught[T any](ctx context.Context, st adder, what string, xs []T, teach func(T) (Item, bool)) ([]AddResult, error) {
	var items []Item
	for _, x := range xs {
		if it, ok := teach(x); ok {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	rs, err := st.Add(ctx, items)
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", what, err)
	}
	return rs, nil
}
