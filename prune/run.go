package prune

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/lorehq/lore/internal/sqlitex"
	"github.com/lorehq/lore/prune/archive"
)

// Options say what a prune does. Zero values take the defaults noted.
type Options struct {
	// LeakAfter: an open session idle longer is closed as leaked (7 days).
	LeakAfter time.Duration
	// ArchiveAfter: a session ended longer ago moves to the archive (30
	// days).
	ArchiveAfter time.Duration
	// MaxSessions caps the sessions the database keeps: the oldest beyond
	// it move to the archive too. 0 sets no cap.
	MaxSessions int
	// Archive is the archive file (DefaultArchivePath), Backup the
	// backup's (DefaultBackupPath).
	Archive string
	Backup  string
	// DryRun changes nothing and reports what a prune would do.
	DryRun   bool
	NoBackup bool
	NoVacuum bool
	// Now is the time ages count from (time.Now).
	Now time.Time
	// Progress, when set, hears how far the archiving is, in sessions.
	Progress func(done, total int)
}

// Result is what a prune did, or in a dry run would do.
type Result struct {
	DB      string `json:"db"`
	Archive string `json:"archive"`
	// Backup is the backup's path; empty with NoBackup or in a dry run.
	Backup string `json:"backup,omitempty"`
	DryRun bool   `json:"dry_run"`

	LeakAfterSeconds    int64 `json:"leak_after_seconds"`
	ArchiveAfterSeconds int64 `json:"archive_after_seconds"`
	MaxSessions         int   `json:"max_sessions,omitempty"`

	Before Report  `json:"before"`
	After  *Report `json:"after,omitempty"`

	// Leaked sessions were closed (ended_at their last message's time,
	// end_reason "leaked").
	Leaked int `json:"leaked_closed"`
	// Archived sessions moved to the archive with ArchivedMessages
	// messages of ArchivedContentBytes bytes of content: ArchivedByAge
	// because they ended before the cutoff, ArchivedByCap because of
	// MaxSessions.
	Archived             int   `json:"archived_sessions"`
	ArchivedMessages     int   `json:"archived_messages"`
	ArchivedContentBytes int64 `json:"archived_content_bytes"`
	ArchivedByAge        int   `json:"archived_by_age"`
	ArchivedByCap        int   `json:"archived_by_cap"`
	// ArchivedRawBytes is the size of the archived rows as encoded,
	// ArchivedBytes the same compressed in the archive.
	ArchivedRawBytes int64 `json:"archived_raw_bytes"`
	ArchivedBytes    int64 `json:"archived_bytes"`
	ArchiveFileBytes int64 `json:"archive_file_bytes"`

	// KeptForChildren ended before the cutoff but stay, because a session
	// continuing them is open or recent; Undated have no readable time;
	// CapShort is how far above MaxSessions the database stays.
	KeptForChildren int `json:"kept_for_children"`
	Undated         int `json:"undated"`
	CapShort        int `json:"cap_short,omitempty"`
	// Changed sessions were written to by the agent while they were being
	// archived: they stay in the database and their archive copy is
	// dropped. Unfinished sessions were found both in the database and in
	// the archive, as a prune cut off half way leaves them: the archive
	// copy is dropped and the session planned again like any other.
	Changed    int `json:"changed_during_prune"`
	Unfinished int `json:"unfinished_found"`

	// EstimatedSavedBytes is, in a dry run, about how much smaller the
	// file gets; SavedBytes, after a real run, how much it did (file and
	// WAL).
	EstimatedSavedBytes int64 `json:"estimated_saved_bytes,omitempty"`
	SavedBytes          int64 `json:"saved_bytes"`

	Vacuum string  `json:"vacuum"`
	Checks *Checks `json:"checks,omitempty"`

	Seconds float64  `json:"seconds"`
	Phases  []Phase  `json:"phases"`
	Notes   []string `json:"notes,omitempty"`
}

// Phase is how long one step of a prune took.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// Default thresholds.
const (
	DefaultLeakAfter    = 7 * 24 * time.Hour
	DefaultArchiveAfter = 30 * 24 * time.Hour
)

// Run prunes the state.db at path. Every step keeps the database sound
// and loses nothing when cut off: a session leaves the database only in
// the transaction after its copy in the archive was committed and read
// back equal, and a run cut off half way is finished by the next.
func Run(ctx context.Context, path string, o Options) (Result, error) {
	start := time.Now()
	if o.LeakAfter <= 0 {
		o.LeakAfter = DefaultLeakAfter
	}
	if o.ArchiveAfter <= 0 {
		o.ArchiveAfter = DefaultArchiveAfter
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.MaxSessions < 0 {
		return Result{}, errors.New("prune: the session cap must not be negative")
	}
	if o.Archive == "" {
		o.Archive = DefaultArchivePath(path)
	}
	if o.Backup == "" {
		o.Backup = DefaultBackupPath(path)
	}
	r := Result{DB: path, Archive: o.Archive, DryRun: o.DryRun, MaxSessions: o.MaxSessions,
		LeakAfterSeconds: int64(o.LeakAfter / time.Second), ArchiveAfterSeconds: int64(o.ArchiveAfter / time.Second)}
	phase := func(name string, t time.Time) {
		r.Phases = append(r.Phases, Phase{Name: name, Seconds: time.Since(t).Seconds()})
	}

	if !o.DryRun {
		lock, err := lockArchive(o.Archive)
		if err != nil {
			return r, fmt.Errorf("prune %s: %w", path, err)
		}
		defer lock.unlock()
	}
	var (
		db  *sql.DB
		w   *sqlitex.Writer
		err error
	)
	if o.DryRun {
		db, err = OpenReadOnly(ctx, path)
	} else {
		db, w, err = openWrite(ctx, path)
	}
	if err != nil {
		return r, err
	}
	defer db.Close()
	startVersion, err := dataVersion(ctx, db)
	if err != nil {
		return r, fmt.Errorf("prune %s: %w", path, err)
	}

	t := time.Now()
	if r.Before, err = Stats(ctx, db, o.Now, o.LeakAfter); err != nil {
		return r, err
	}
	s, err := Inspect(ctx, db)
	if err != nil {
		return r, err
	}
	fts, err := ftsUpkeep(s)
	if err != nil {
		return r, err
	}
	phase("stats", t)

	var arc *archive.Archive
	t = time.Now()
	if o.DryRun {
		if _, err := os.Stat(o.Archive); err == nil {
			if arc, err = archive.Open(ctx, o.Archive); err != nil {
				return r, err
			}
			defer arc.Close()
		}
	} else {
		if arc, err = archive.Create(ctx, o.Archive); err != nil {
			return r, err
		}
		defer arc.Close()
		abs, err := filepath.Abs(path)
		if err != nil {
			return r, err
		}
		if err := arc.SetSource(ctx, source(abs, s)); err != nil {
			return r, err
		}
	}
	nodes, err := loadNodes(ctx, db, s)
	if err != nil {
		return r, fmt.Errorf("prune %s: %w", path, err)
	}
	if arc != nil {
		unfinished, err := unfinishedMoves(ctx, arc, nodes)
		if err != nil {
			return r, err
		}
		r.Unfinished = len(unfinished)
		if !o.DryRun && len(unfinished) > 0 {
			if err := arc.Delete(ctx, unfinished); err != nil {
				return r, err
			}
		}
	}
	p := choose(nodes, o.Now, o.LeakAfter, o.ArchiveAfter, o.MaxSessions)
	r.Leaked = len(p.leaked)
	r.Archived, r.ArchivedByAge, r.ArchivedByCap = len(p.archive), p.byAge, p.byCap
	r.KeptForChildren, r.Undated, r.CapShort = p.keptForChildren, p.undated, p.capShort
	for _, n := range p.archive {
		r.ArchivedMessages += n.messages
		r.ArchivedContentBytes += n.bytes
	}
	if !s.Sessions.Has("end_reason") && len(p.leaked) > 0 {
		r.Notes = append(r.Notes, "sessions has no end_reason column: leaked sessions get ended_at only")
	}
	phase("plan", t)

	if o.DryRun {
		r.EstimatedSavedBytes = estimateSaved(r.Before, r.ArchivedContentBytes)
		r.Vacuum = "not run: dry run"
		r.Seconds = time.Since(start).Seconds()
		return r, nil
	}

	if !o.NoBackup {
		t = time.Now()
		if err := backup(ctx, db, o.Backup); err != nil {
			return r, fmt.Errorf("back up %s to %s: %w (nothing was changed; --no-backup skips the backup)", path, o.Backup, err)
		}
		r.Backup = o.Backup
		phase("backup", t)
	}

	t = time.Now()
	if err := closeLeaked(ctx, w, s, p.leaked); err != nil {
		return r, err
	}
	phase("close leaked", t)

	t = time.Now()
	m := mover{db: db, w: w, arc: arc, s: s, fts: fts, progress: o.Progress}
	if err := m.readAutomerge(ctx); err != nil {
		return r, err
	}
	if err := m.train(ctx, p.archive); err != nil {
		return r, err
	}
	if err := m.move(ctx, p.archive); err != nil {
		return r, err
	}
	r.Changed = len(m.changed)
	if r.Changed > 0 {
		r.Archived -= r.Changed
		for _, n := range m.changed {
			r.ArchivedMessages -= n.messages
			r.ArchivedContentBytes -= n.bytes
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d sessions changed while being archived (the agent wrote to them): they stay in the database", r.Changed))
	}
	r.ArchivedRawBytes, r.ArchivedBytes = m.rawBytes, m.bytes
	phase("archive", t)

	r.Vacuum = "not run: --no-vacuum"
	if !o.NoVacuum {
		t = time.Now()
		if r.Vacuum, err = compact(ctx, db, s, startVersion); err != nil {
			return r, fmt.Errorf("vacuum %s: %w", path, err)
		}
		phase("vacuum", t)
	}

	t = time.Now()
	checks, err := checkDB(ctx, db, s)
	if err != nil {
		return r, err
	}
	r.Checks = &checks
	phase("check", t)

	after, err := Stats(ctx, db, o.Now, o.LeakAfter)
	if err != nil {
		return r, err
	}
	r.After = &after
	r.SavedBytes = r.Before.FileBytes + r.Before.WALBytes - after.FileBytes - after.WALBytes
	if fi, err := os.Stat(o.Archive); err == nil {
		r.ArchiveFileBytes = fi.Size()
	}
	r.Seconds = time.Since(start).Seconds()
	if !checks.OK() {
		return r, fmt.Errorf("prune %s: the database fails its checks after the prune: integrity %q, FTS %v; the backup is %s", path, checks.Integrity, checks.FTS, r.Backup)
	}
	return r, nil
}

// estimateSaved guesses the bytes a prune gives back: the pages already
// free, and of the rest the share the archived content has of all
// content (the FTS indexes grow with the content they index).
func estimateSaved(before Report, archivedContent int64) int64 {
	if before.ContentBytes <= 0 {
		return before.FreeBytes
	}
	used := before.FileBytes - before.FreeBytes
	return before.FreeBytes + int64(float64(used)*float64(archivedContent)/float64(before.ContentBytes))
}

// source records what the archive's rows came from, for restore.
func source(path string, s Schema) archive.Source {
	src := archive.Source{Path: path, SchemaVersion: s.Version, Tables: map[string][]archive.Column{}}
	for _, t := range []Table{s.Sessions, s.Messages} {
		src.Tables[t.Name] = archiveColumns(t)
	}
	return src
}

// unfinishedMoves lists the sessions both in the archive and in the
// database: a move cut off between the archive's commit and the
// database's. The database's copy is the one that counts, since the
// agent may have written to it since.
func unfinishedMoves(ctx context.Context, arc *archive.Archive, nodes []*node) ([]string, error) {
	entries, err := arc.List(ctx)
	if err != nil {
		return nil, err
	}
	in := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		in[n.id] = true
	}
	var ids []string
	for _, e := range entries {
		if in[e.ID] {
			ids = append(ids, e.ID)
		}
	}
	return ids, nil
}

// closeLeaked closes leaked sessions in short transactions: ended_at
// becomes the time of their last message, as stored, and end_reason
// "leaked". A session that got a new message or an end since it was read
// is left alone.
func closeLeaked(ctx context.Context, w *sqlitex.Writer, s Schema, leaked []*node) error {
	set := "ended_at = ?"
	if s.Sessions.Has("end_reason") {
		set += ", end_reason = 'leaked'"
	}
	stmt := fmt.Sprintf(`UPDATE %s SET %s WHERE id = ? AND ended_at IS NULL
		AND NOT EXISTS (SELECT 1 FROM %s WHERE %s = ? AND timestamp > ?)`,
		quote(s.Sessions.Name), set, quote(s.Messages.Name), quote(s.SessionColumn))
	const batch = 500
	for i := 0; i < len(leaked); i += batch {
		part := leaked[i:min(i+batch, len(leaked))]
		err := w.Write(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, stmt)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, n := range part {
				v := n.closeValue()
				if _, err := st.ExecContext(ctx, v, n.id, n.id, v); err != nil {
					return fmt.Errorf("session %s: %w", n.id, err)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("close leaked sessions: %w", err)
		}
	}
	return nil
}
