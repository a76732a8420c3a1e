package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/lorehq/lore/internal/sqlitex"
)

// Verify checks the store at path without changing it: that it is a lore
// store this lore can read (an older one is brought up to date by the next
// command that opens it) and that SQLite's PRAGMA integrity_check finds it
// sound. The error says what is wrong in one line.
func Verify(ctx context.Context, path string) error {
	if err := check(ctx, path, DefaultBusyTimeout); err != nil && !errors.Is(err, errMigrate) {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() == 0 {
		return nil // a store yet to be made, as Open makes it
	}
	db, err := sharedReadOnlyDB(ctx, path, DefaultBusyTimeout)
	if err != nil {
		if db, err = readOnlyDB(path, DefaultBusyTimeout); err != nil {
			return err
		}
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("check store %s: %w", path, sqlitex.Explain(err, "store", "restore it from a backup or an export"))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("check store %s: %w", path, err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check store %s: %w", path, sqlitex.Explain(err, "store", "restore it from a backup or an export"))
	}
	if len(problems) > 0 {
		more := ""
		if len(problems) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
		return fmt.Errorf("check store %s: the store file is damaged: %s%s; restore it from a backup or an export", path, problems[0], more)
	}
	return nil
}
