package prune

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/lorehq/lore/prune/archive"
)

// Restored is one session put back.
type Restored struct {
	ID       string `json:"id"`
	Messages int    `json:"messages"`
	// ParentOf names the session asked for that needed this one back
	// first, since it continues it; empty when it was asked for.
	ParentOf string `json:"parent_of,omitempty"`
}

// RestoreResult is what Restore did.
type RestoreResult struct {
	DB       string     `json:"db"`
	Archive  string     `json:"archive"`
	Restored []Restored `json:"restored"`
	Notes    []string   `json:"notes,omitempty"`
}

// Restore puts archived sessions back into the database at path exactly
// as they were, every column of every row, and takes them out of the
// archive. A session whose parent is archived too brings its parent
// back first, so that its link holds. Nothing is changed when a session
// is in neither place or a row no longer fits the table.
func Restore(ctx context.Context, path, archivePath string, ids []string) (RestoreResult, error) {
	if archivePath == "" {
		archivePath = DefaultArchivePath(path)
	}
	res := RestoreResult{DB: path, Archive: archivePath}
	if len(ids) == 0 {
		return res, errors.New("restore: name the sessions to restore (lore prune list shows the archived ones)")
	}
	if _, err := os.Stat(archivePath); errors.Is(err, fs.ErrNotExist) {
		return res, fmt.Errorf("no archive at %s: nothing was archived from %s there (--archive names another)", archivePath, path)
	}
	lock, err := lockArchive(archivePath)
	if err != nil {
		return res, fmt.Errorf("restore: %w", err)
	}
	defer lock.unlock()
	db, w, err := openWrite(ctx, path)
	if err != nil {
		return res, err
	}
	defer db.Close()
	s, err := Inspect(ctx, db)
	if err != nil {
		return res, err
	}
	if err := s.Check(); err != nil {
		return res, err
	}
	fts, err := ftsUpkeep(s)
	if err != nil {
		return res, err
	}
	res.Notes = append(res.Notes, fts.notes...)
	arc, err := archive.Open(ctx, archivePath)
	if err != nil {
		return res, err
	}
	defer arc.Close()

	inDB := func(id string) (bool, error) {
		var n int
		err := db.QueryRowContext(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE id = ?", quote(s.Sessions.Name)), id).Scan(&n)
		return n > 0, err
	}
	// Gather the sessions and the archived parents they need, before
	// anything changes.
	type want struct {
		s        archive.Session
		parentOf string
		depth    int
	}
	var (
		todo    []*want
		byID    = map[string]*want{}
		missing []string
	)
	for _, id := range ids {
		if byID[id] != nil {
			continue
		}
		there, err := inDB(id)
		if err != nil {
			return res, fmt.Errorf("restore %s: %w", id, err)
		}
		if there {
			res.Notes = append(res.Notes, fmt.Sprintf("session %s is in the database already; left as it is", id))
			continue
		}
		got, err := arc.Get(ctx, id)
		if errors.Is(err, archive.ErrNotFound) {
			missing = append(missing, id)
			continue
		}
		if err != nil {
			return res, err
		}
		wt := &want{s: got}
		byID[id] = wt
		todo = append(todo, wt)
		for p, child := got.ParentID, id; p != "" && byID[p] == nil; {
			there, err := inDB(p)
			if err != nil || there {
				if err != nil {
					return res, fmt.Errorf("restore %s: %w", p, err)
				}
				break
			}
			ps, err := arc.Get(ctx, p)
			if errors.Is(err, archive.ErrNotFound) {
				break // a link broken before it was archived stays as it was
			}
			if err != nil {
				return res, err
			}
			pw := &want{s: ps, parentOf: child}
			byID[p] = pw
			todo = append(todo, pw)
			p, child = ps.ParentID, p
		}
	}
	if len(missing) > 0 {
		return res, fmt.Errorf("not in the archive %s: %s (lore prune list shows what is); nothing was restored", archivePath, strings.Join(missing, ", "))
	}
	for _, wt := range todo {
		for p := byID[wt.s.ParentID]; p != nil && p != wt && wt.depth <= len(todo); p = byID[p.s.ParentID] {
			wt.depth++
		}
	}
	slices.SortStableFunc(todo, func(a, b *want) int { return cmp.Compare(a.depth, b.depth) })

	sessCols, msgCols := archiveColumns(s.Sessions), archiveColumns(s.Messages)
	var done []string
	for _, wt := range todo {
		err := w.Write(ctx, func(tx *sql.Tx) error {
			if err := insertRow(ctx, tx, s.Sessions.Name, sessCols, wt.s.Row); err != nil {
				return fmt.Errorf("session row: %w", err)
			}
			for i, m := range wt.s.Messages {
				if err := insertRow(ctx, tx, s.Messages.Name, msgCols, m); err != nil {
					return fmt.Errorf("message %d: %w", i, err)
				}
			}
			for _, q := range fts.add {
				list, _ := json.Marshal([]string{wt.s.ID})
				if _, err := tx.ExecContext(ctx, q, string(list)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			if len(done) > 0 {
				// Those already back leave the archive, as they would have.
				if derr := arc.Delete(ctx, done); derr != nil {
					err = errors.Join(err, derr)
				}
			}
			return res, fmt.Errorf("restore session %s: %w (%d restored before it)", wt.s.ID, err, len(done))
		}
		done = append(done, wt.s.ID)
		res.Restored = append(res.Restored, Restored{ID: wt.s.ID, Messages: len(wt.s.Messages), ParentOf: wt.parentOf})
	}
	if err := arc.Delete(ctx, done); err != nil {
		return res, fmt.Errorf("the sessions are back in the database, but removing them from the archive failed (the next lore prune does it): %w", err)
	}
	return res, nil
}

func archiveColumns(t Table) []archive.Column {
	cols := make([]archive.Column, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = archive.Column(c)
	}
	return cols
}

// insertRow inserts an archived row into table, its values bound to the
// table's columns by name.
func insertRow(ctx context.Context, tx *sql.Tx, table string, cols []archive.Column, r archive.Row) error {
	names, args, err := r.Bind(cols)
	if err != nil {
		return err
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	_, err = tx.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s(%s) VALUES (%s)", quote(table), strings.Join(quoted, ", "),
		strings.TrimSuffix(strings.Repeat("?,", len(names)), ",")), args...)
	return err
}
