package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/boot"
	"github.com/lorehq/lore/internal/screentest"
	"github.com/lorehq/lore/sqlite"
)

// booted returns the ids boot hands a session in acme/api.
func (s testStore) booted() []string {
	s.t.Helper()
	var c boot.Context
	if err := json.Unmarshal([]byte(s.must("boot", "--repo", "acme/api", "--json")), &c); err != nil {
		s.t.Fatal(err)
	}
	var ids []string
	for _, p := range c.Items {
		ids = append(ids, p.ID)
	}
	return ids
}

// items returns every item of the store, by text.
func (s testStore) items() map[string]lore.Item {
	s.t.Helper()
	st, err := sqlite.Open(context.Background(), s.path, sqlite.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	defer st.Close()
	items := map[string]lore.Item{}
	err = st.Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
		items[it.Text] = it
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return items
}

// screenedItem checks that an item stored from an attempt is a held
// candidate, kept as written.
func screenedItem(t *testing.T, s testStore, id, text string) {
	t.Helper()
	it := s.show(id)
	if it.Status != lore.StatusCandidate || !slices.Contains(it.Tags, lore.TagHeld) {
		t.Errorf("%q stored %s with tags %v; want refused or a held candidate", text, it.Status, it.Tags)
	}
	if it.Text != text {
		t.Errorf("stored %q, want it as written, %q", it.Text, text)
	}
}

// An injection added by hand, however spelled, is refused or held, and
// never reaches a boot; --as-is adds it as written.
func TestAddScreen(t *testing.T) {
	s := newTestStore(t)
	refused, held := 0, 0
	for _, text := range screentest.Bypasses {
		r := s.lore("add", text, "-c", "pattern", "--repo", "acme/api", "--confidence", "0.99", "--json")
		switch {
		case r.code == 1 && strings.Contains(r.err, "refused") && strings.Contains(r.err, "--as-is"):
			refused++
		case r.code == 0 && strings.Contains(r.err, "held as a candidate"):
			held++
			screenedItem(t, s, jsonItems(t, r.stdout)[0].ID, text)
		default:
			t.Errorf("add %q: exit %d, stderr %q; want it refused or held", text, r.code, r.err)
		}
	}
	if n := s.count(); n != held {
		t.Errorf("the store holds %d items, want the %d held", n, held)
	}
	booted := s.booted()
	t.Logf("%d attempts: %d refused, %d held, %d in boot", len(screentest.Bypasses), refused, held, len(booted))
	if len(booted) != 0 {
		t.Errorf("boot hands out %d added injections", len(booted))
	}

	// A person's own text, as it is.
	text := screentest.Bypasses[0]
	r := s.lore("add", text, "-c", "pattern", "--repo", "acme/api", "--as-is", "--json")
	if r.code != 0 || len(jsonItems(t, r.stdout)) != 1 || jsonItems(t, r.stdout)[0].Status != lore.StatusActive {
		t.Errorf("add --as-is: exit %d, %s%s", r.code, r.stdout, r.err)
	}
}

// Knowledge is added as it is, in any script.
func TestAddOrdinary(t *testing.T) {
	s := newTestStore(t)
	for _, text := range screentest.Ordinary {
		r := s.lore("add", text, "-c", "fact", "--repo", "acme/api", "--json")
		if r.code != 0 || r.err != "" {
			t.Errorf("add %q: exit %d, stderr %q", text, r.code, r.err)
			continue
		}
		it := jsonItems(t, r.stdout)[0]
		if it.Text != text || it.Status != lore.StatusActive || slices.Contains(it.Tags, lore.TagHeld) {
			t.Errorf("add %q: stored %q, %s, tags %v", text, it.Text, it.Status, it.Tags)
		}
	}
}

// A file of injections, active and sure, imports none of them active:
// each is left out, named on stderr, or held; --as-is imports the file
// as written.
func TestImportScreen(t *testing.T) {
	var b strings.Builder
	for _, text := range slices.Concat(screentest.Bypasses, screentest.Ordinary) {
		line, err := json.Marshal(lore.Item{Text: text, Category: lore.CategoryPattern, Repo: "acme/api", Confidence: 0.99, Status: lore.StatusActive})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s\n", line)
	}
	path := filepath.Join(t.TempDir(), "items.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	s := newTestStore(t)
	r := s.lore("import", path, "--json")
	var rep struct{ Items, Refused, Held int }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
		t.Fatalf("import: exit %d, %s%s", r.code, r.stdout, r.err)
	}
	if strings.Count(r.err, "left out") != rep.Refused {
		t.Errorf("%d refused, but stderr names %d:\n%s", rep.Refused, strings.Count(r.err, "left out"), r.err)
	}
	if rep.Refused+rep.Held != len(screentest.Bypasses) || rep.Items != len(screentest.Ordinary)+rep.Held {
		t.Errorf("import of %d attempts and %d items of knowledge: %+v", len(screentest.Bypasses), len(screentest.Ordinary), rep)
	}
	stored := s.items()
	for _, text := range screentest.Bypasses {
		if it, ok := stored[text]; ok && (it.Status != lore.StatusCandidate || !slices.Contains(it.Tags, lore.TagHeld)) {
			t.Errorf("%q imported %s with tags %v; want left out or a held candidate", text, it.Status, it.Tags)
		}
	}
	for _, text := range screentest.Ordinary {
		if it, ok := stored[text]; !ok || it.Status != lore.StatusActive || slices.Contains(it.Tags, lore.TagHeld) {
			t.Errorf("%q imported as %+v, want it active", text, it)
		}
	}
	booted := 0
	for _, id := range s.booted() {
		if slices.ContainsFunc(screentest.Bypasses, func(text string) bool { return stored[text].ID == id }) {
			booted++
		}
	}
	t.Logf("%d attempts: %d left out, %d held, %d in boot", len(screentest.Bypasses), rep.Refused, rep.Held, booted)
	if booted != 0 {
		t.Errorf("boot hands out %d imported injections", booted)
	}

	own := newTestStore(t)
	r = own.lore("import", path, "--as-is", "--json")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rep) != nil || rep.Refused != 0 || rep.Held != 0 ||
		rep.Items != len(screentest.Bypasses)+len(screentest.Ordinary) {
		t.Errorf("import --as-is: exit %d, %s%s", r.code, r.stdout, r.err)
	}
}

// A 10 MB text given to lore add is refused with a short usage error
// and stores nothing.
func TestAddRefusesLongText(t *testing.T) {
	home := t.TempDir()
	r := runLore(t, home, "add", strings.Repeat("the build needs more memory ", 400_000), "--category", "fact")
	if r.code != 2 || len(r.err) > 200 || !strings.Contains(r.err, "an item holds at most") {
		t.Fatalf("exit %d, stderr %.200q", r.code, r.err)
	}
	r = runLore(t, home, "search", "memory", "--status", "any")
	if strings.Contains(r.stdout, "build needs") {
		t.Errorf("the long text was stored: %.200q", r.stdout)
	}
}
