package lore

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"
)

// A pitfall a session met, and then committed the fix of, is linked to
// that fix's guard: harvest tags it with the commit the session made
// after meeting it (TagCommit), and once lore guard scan has found that
// commit to be a fix about the same code (FixedBy), the pitfall carries
// TagFixedIn, and boot says "fixed in abc1234; keep it".
const (
	// TagCommit + a short hash: the commit the session made after it
	// met the pitfall.
	TagCommit = "commit:"
	// TagFixedIn + the fix's ShortCommit: the fix guarded by lore guard.
	TagFixedIn = "fixed-in:"
)

// SessionCommit is a commit a session made, as git commit printed it.
type SessionCommit struct {
	Position int    // the message that holds git commit's output
	Hash     string // abbreviated, as printed (7 to 40 hex digits)
	Subject  string
}

// commitLine is the line git commit prints for the commit it made:
// "[main abc1234] subject", "[main (root-commit) abc1234] …",
// "[detached HEAD abc1234] …".
var commitLine = regexp.MustCompile(`(?m)^\[[^\]\n]{1,200}? ([0-9a-f]{7,40})\] (.{1,200})$`)

// SessionCommits returns the commits a session made: the lines git
// commit printed in the result of a call that ran it, in order.
func SessionCommits(s *Session) []SessionCommit {
	var committing map[string]bool // the calls whose input says commit: harvest asks of every session
	var out []SessionCommit
	for _, m := range s.Messages {
		for _, c := range m.ToolCalls {
			if strings.Contains(c.Input, "commit") {
				if committing == nil {
					committing = map[string]bool{}
				}
				committing[c.ID] = true
			}
		}
		for _, r := range m.ToolResults {
			if !committing[r.CallID] || r.Failed() {
				continue
			}
			for _, sm := range commitLine.FindAllStringSubmatch(r.Output, -1) {
				out = append(out, SessionCommit{Position: m.Index, Hash: sm[1], Subject: strings.TrimSpace(sm[2])})
			}
		}
	}
	return out
}

// TagCommits tags each pitfall of items that session taught with the
// first of its commits made after the message the pitfall cites.
func TagCommits(items []Item, session string, commits []SessionCommit) {
	if len(commits) == 0 {
		return
	}
	for i := range items {
		it := &items[i]
		if it.Category != CategoryPitfall {
			continue
		}
		at := -1
		for _, e := range it.Evidence {
			if e.Session == session && (at < 0 || e.Position < at) {
				at = e.Position
			}
		}
		if at < 0 {
			continue
		}
		for _, c := range commits {
			if c.Position > at {
				if tag := TagCommit + c.Hash; !slices.Contains(it.Tags, tag) {
					it.Tags = append(slices.Clip(it.Tags), tag)
				}
				break
			}
		}
	}
}

// FixedBy reports whether the fix g is the fix of the pitfall it: a
// pitfall of g's repository, tagged with g's commit by the session that
// met it, and about the code g guards — its text names one of the fix's
// guarded files or an identifier its guarded lines hold.
func FixedBy(it Item, g FixGuard) bool {
	if it.Category != CategoryPitfall || !SameRepo(it.Repo, g.Repo) || !committed(it, g.Commit) {
		return false
	}
	for _, f := range guardedFiles(g) {
		if names(it.Text, f) || len(path.Base(f)) >= 5 && names(it.Text, path.Base(f)) {
			return true
		}
	}
	for _, l := range g.Lines {
		for _, id := range identifier.FindAllString(l.Text, -1) {
			if distinctive(id) && names(it.Text, id) {
				return true
			}
		}
	}
	return false
}

// FixedIn returns the short hash of the fix guarded for the pitfall it,
// if one is linked (TagFixedIn).
func FixedIn(it Item) (string, bool) {
	for _, t := range it.Tags {
		if h, ok := strings.CutPrefix(t, TagFixedIn); ok && h != "" {
			return h, true
		}
	}
	return "", false
}

func committed(it Item, commit string) bool {
	for _, t := range it.Tags {
		if h, ok := strings.CutPrefix(t, TagCommit); ok && len(h) >= 7 && strings.HasPrefix(commit, h) {
			return true
		}
	}
	return false
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// distinctive reports whether an identifier names one thing of the code
// rather than being a word: six characters or more, with an inner capital,
// an underscore or a digit (parseConfig, max_retries, utf8Decode).
func distinctive(id string) bool {
	if len(id) < 6 {
		return false
	}
	return strings.ContainsAny(id, "_0123456789") || strings.ToLower(id[1:]) != id[1:]
}

// names reports whether text holds name as a whole word, not inside a
// longer name: a path may end in it (config/loader.go names loader.go).
func names(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameByte(text[start-1]) && !strings.ContainsRune(".-", rune(text[start-1]))) &&
			(end == len(text) || !nameByte(text[end]) && text[end] != '/') {
			return true
		}
		i = start + 1
	}
}

func nameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// Retagger is what LinkFixes needs of a store.
type Retagger interface {
	Items(ctx context.Context, f Filter, fn func(Item) error) error
	Import(ctx context.Context, items []Item) ([]AddResult, error)
}

// LinkFixes tags, with TagFixedIn, the pitfalls of the guards'
// repositories that one of them fixed (FixedBy), and returns how many
// it tagged. The store merges the tag into each item as it merges a
// session's (Import): nothing else of the item changes.
func LinkFixes(ctx context.Context, st Retagger, gs []FixGuard) (int, error) {
	byRepo := map[string][]FixGuard{}
	for _, g := range gs {
		byRepo[g.Repo] = append(byRepo[g.Repo], g)
	}
	var linked []Item
	for repo, guards := range byRepo {
		f := Filter{Repo: repo, Category: CategoryPitfall, Statuses: []Status{StatusActive, StatusCandidate}}
		err := st.Items(ctx, f, func(it Item) error {
			if _, done := FixedIn(it); done {
				return nil
			}
			for _, g := range guards {
				if FixedBy(it, g) {
					it.Tags = append(slices.Clip(it.Tags), TagFixedIn+ShortCommit(g.Commit))
					linked = append(linked, it)
					return nil
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if len(linked) == 0 {
		return 0, nil
	}
	if _, err := st.Import(ctx, linked); err != nil {
		return 0, err
	}
	return len(linked), nil
}
