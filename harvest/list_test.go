package harvest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/lorehq/lore"
	"github.com/lorehq/lore/transcript"
)

// harvestListed harvests dir as lore harvest does: List, then Run with
// the listing.
func harvestListed(t *testing.T, st lore.Store, dir string) (Summary, *Listing) {
	t.Helper()
	ctx := context.Background()
	l, err := List(ctx, []string{dir}, ListOptions{Store: st, Extractor: Rules{}.Name()})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, l.Sessions, Options{Store: st, Extractor: Rules{}, Listing: l})
	if err != nil {
		t.Fatal(err)
	}
	return sum, l
}

// scramble overwrites a file with as many bytes of something else and
// puts its time back: a transcript read after that is a problem, so one
// listed without a problem was not read.
func scramble(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte{0}, int(fi.Size())), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestListUnchanged: a transcript as its records say, by size and time,
// is not read, whatever it now holds; one whose time moved is hashed,
// found the same, not harvested, and its records take the new time; one
// whose content changed at the same size is read and harvested again.
func TestListUnchanged(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		change  func(t *testing.T, path string)
		read    bool // the listing reads the transcript
		harvest bool // and Run harvests its session again
	}{
		{"untouched", scramble, false, false},
		{"touched", func(t *testing.T, path string) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
		}, false, false},
		{"rewritten at the same size", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b = bytes.Replace(b, []byte("go test ./..."), []byte("go vet ./...."), 1)
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			later := time.Now().Add(time.Hour)
			os.Chtimes(path, later, later)
		}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeClaude(t, dir, "s-one", cwd, sessionOne())
			st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
			if first, _ := harvestListed(t, st, dir); first.SessionsHarvested != 1 {
				t.Fatalf("first harvest: %+v", first)
			}
			tc.change(t, path)
			sum, l := harvestListed(t, st, dir)
			f := l.files[path]
			if f == nil || f.done == tc.read || len(l.Sessions) != 1 || len(l.Problems) != 0 {
				t.Fatalf("listing: file %+v, %d sessions, problems %v; want it read: %v", f, len(l.Sessions), l.Problems, tc.read)
			}
			if got := sum.SessionsHarvested == 1; got != tc.harvest || sum.SessionsSkipped+sum.SessionsHarvested != 1 {
				t.Errorf("harvest after the change: %+v; want it harvested: %v", sum, tc.harvest)
			}
			fi, _ := os.Stat(path)
			rec, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules")
			if !rec.ModTime.Equal(fi.ModTime()) || rec.Size != fi.Size() || rec.Sessions != 1 {
				t.Errorf("record %+v; want the transcript's time %v and size %d, one session", rec, fi.ModTime(), fi.Size())
			}
			if tc.read {
				return
			}
			// The record now says how the transcript is: the next
			// listing reads nothing.
			scramble(t, path)
			if _, l := harvestListed(t, st, dir); !l.files[path].done || len(l.Problems) != 0 {
				t.Errorf("listing once more: %+v, problems %v; want the transcript left unread", l.files[path], l.Problems)
			}
		})
	}
}

// TestListSessionsWithoutRecords: a transcript one of whose sessions has
// no record there is read, even unchanged: the session it lacks is
// harvested, the other skipped.
func TestListSessionsWithoutRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "hermes", "trajectory_samples.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "trajectory_samples.jsonl")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	first, l := harvestListed(t, st, dir)
	if first.SessionsHarvested != 2 || len(l.Sessions) != 2 {
		t.Fatalf("first harvest of a transcript of two sessions: %+v", first)
	}
	// As if one session had failed: its record is of another file.
	rec, _, _ := st.Harvested(ctx, l.Sessions[0].ID, "rules")
	rec.Path = filepath.Join(dir, "elsewhere.jsonl")
	if err := st.RecordHarvest(ctx, rec); err != nil {
		t.Fatal(err)
	}
	sum, l := harvestListed(t, st, dir)
	if l.files[path].done || sum.SessionsHarvested != 1 || sum.SessionsSkipped != 1 {
		t.Errorf("with one session's record elsewhere: %+v, file %+v; want it read, that session harvested", sum, l.files[path])
	}
	if again, l := harvestListed(t, st, dir); !l.files[path].done || again.SessionsSkipped != 2 {
		t.Errorf("and then: %+v, file %+v; want it left unread", again, l.files[path])
	}
}

// TestListCopies: a session found in a new transcript and in one left
// unread is listed once, from the copy holding more, as lore sessions
// lists it: harvested from the new copy when it holds more, else skipped.
func TestListCopies(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name          string
		first, second []turn
		harvested     int
		from          string
	}{
		{"a longer copy", sessionOne()[:3], sessionOne(), 1, "b"},
		{"a shorter copy", sessionOne(), sessionOne()[:3], 0, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeClaude(t, mkdir(t, dir, "a"), "s-one", cwd, tc.first)
			st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
			harvestListed(t, st, dir)
			writeClaude(t, mkdir(t, dir, "b"), "s-one", cwd, tc.second)
			want := filepath.Join(dir, tc.from, "s-one.jsonl")
			sum, l := harvestListed(t, st, dir)
			if len(l.Sessions) != 1 || l.Sessions[0].Path != want || sum.SessionsHarvested != tc.harvested || sum.SessionsSeen != 1 {
				t.Fatalf("%d sessions, the first from %s; %+v; want the one session from %s, %d harvested",
					len(l.Sessions), l.Sessions[0].Path, sum, want, tc.harvested)
			}
			if rec, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules"); rec.Path != want {
				t.Errorf("recorded from %s, want %s", rec.Path, want)
			}
		})
	}
}

func mkdir(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestListAtOnce: transcripts more than readAtOnce are listed without
// their messages and read again by Run; the store ends the same.
func TestListAtOnce(t *testing.T) {
	dir := t.TempDir()
	writeClaude(t, dir, "s-one", cwd, sessionOne())
	writeClaude(t, dir, "s-two", "/home/dev/web", sessionTwo())
	writeClaude(t, dir, "s-secret", cwd, secretSession())
	stored := func() []lore.Item {
		st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
		sum, l := harvestListed(t, st, dir)
		if sum.SessionsHarvested != 3 || sum.Bytes == 0 {
			t.Fatalf("%+v", sum)
		}
		carried := 0
		for _, s := range l.Sessions {
			if len(s.Messages) > 0 {
				carried++
			}
		}
		if want := map[bool]int{true: 3, false: 0}[readAtOnce > 0]; carried != want {
			t.Errorf("readAtOnce %d: %d sessions listed with their messages, want %d", readAtOnce, carried, want)
		}
		var items []lore.Item
		st.Items(context.Background(), lore.Filter{AnyStatus: true, Expired: true}, func(it lore.Item) error {
			items = append(items, it)
			return nil
		})
		return items
	}
	at := stored()
	defer func(n int64) { readAtOnce = n }(readAtOnce)
	readAtOnce = 0
	if again := stored(); len(at) == 0 || !reflect.DeepEqual(again, at) {
		t.Errorf("read again by Run: %d items, read once: %d, or they differ", len(again), len(at))
	}
}

// TestListDryRun: a dry run updates no record's time.
func TestListDryRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := writeClaude(t, dir, "s-one", cwd, sessionOne())
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	harvestListed(t, st, dir)
	before, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules")
	later := time.Now().Add(time.Hour)
	os.Chtimes(path, later, later)
	l, err := List(ctx, []string{dir}, ListOptions{Store: st, Extractor: "rules", DryRun: true})
	if err != nil || !l.files[path].done {
		t.Fatalf("%v, %+v; want the touched transcript found unchanged", err, l.files[path])
	}
	if after, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules"); !reflect.DeepEqual(after, before) {
		t.Errorf("a dry run changed the record: %+v, was %+v", after, before)
	}
}

// TestRunOldRecords: a record from before records kept times is matched
// by content, and brought up to date, after which Run trusts size and
// time alone and reads nothing.
func TestRunOldRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := writeClaude(t, dir, "s-one", cwd, sessionOne())
	st := openStore(t, filepath.Join(t.TempDir(), "lore.db"))
	listed := list(t, dir)
	if sum := harvestDir(t, st, dir); sum.SessionsHarvested != 1 {
		t.Fatalf("%+v", sum)
	}
	now, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules")
	old := now
	old.ModTime, old.Sessions = time.Time{}, 0
	if err := st.RecordHarvest(ctx, old); err != nil {
		t.Fatal(err)
	}
	if sum := harvestDir(t, st, dir); sum.SessionsSkipped != 1 || sum.Bytes != 0 {
		t.Errorf("with the old record: %+v; want the session skipped, nothing read", sum)
	}
	if rec, _, _ := st.Harvested(ctx, "claude-code:s-one", "rules"); !rec.ModTime.Equal(now.ModTime) || !rec.At.Equal(now.At) || rec.Sessions != 0 {
		t.Errorf("old record after a run: %+v; want the transcript's time, its harvest's time, sessions still unknown", rec)
	}
	scramble(t, path)
	sum, err := Run(ctx, listed, Options{Store: st, Extractor: Rules{}})
	if err != nil || sum.SessionsSkipped != 1 || sum.Errors != 0 {
		t.Errorf("overwritten at the same size and time: %+v, %v; want it skipped unread", sum, err)
	}
}

// TestRunCarriedMessages: sessions that carry their messages (measure
// --replay reads them itself) are harvested as they are, their
// transcript not read again: scrambled after the read, it still gives
// the session's items.
func TestRunCarriedMessages(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := writeClaude(t, dir, "s-one", cwd, sessionOne())
	read, err := transcript.Read(ctx, path, transcript.Options{Messages: true, NoGit: true})
	if err != nil || len(read) != 1 || len(read[0].Messages) == 0 {
		t.Fatalf("%v, %d sessions", err, len(read))
	}
	want := harvestDir(t, openStore(t, filepath.Join(t.TempDir(), "lore.db")), dir)
	scramble(t, path)
	sum, err := Run(ctx, read, Options{Store: openStore(t, filepath.Join(t.TempDir(), "lore.db")), Extractor: Rules{}})
	if err != nil || sum.Errors != 0 || sum.SessionsHarvested != 1 || sum.ItemsNew != want.ItemsNew || want.ItemsNew == 0 {
		t.Errorf("%+v, %v; want the session harvested as read, %d items", sum, err, want.ItemsNew)
	}
}
