-- The journal (lore.Attempt): every attempt to change code, its outcome
-- and its lesson. key is lore.AttemptKey, which an attempt logged again
-- (an import run twice) shares with the row it replaces. The diff and
-- the test output are kept apart, in attempt_texts, the diff compressed
-- (DEFLATE): searches read many attempts and none of their diffs. Files
-- and tags are kept one a line, and the files also in attempt_files, by
-- which lore journal file and similar's shared files find attempts.
CREATE TABLE attempts (
	rowid         INTEGER PRIMARY KEY,
	id            TEXT    NOT NULL UNIQUE,
	key           TEXT    NOT NULL UNIQUE,
	at            INTEGER NOT NULL, -- Unix microseconds
	repo          TEXT    NOT NULL DEFAULT '',
	agent         TEXT    NOT NULL DEFAULT '',
	session       TEXT    NOT NULL DEFAULT '',
	task          TEXT    NOT NULL,
	approach      TEXT    NOT NULL DEFAULT '',
	area          TEXT    NOT NULL DEFAULT '',
	files         TEXT    NOT NULL DEFAULT '',
	diff_cut      INTEGER NOT NULL DEFAULT 0,
	outcome       TEXT    NOT NULL CHECK (outcome IN ('success', 'failure', 'rollback', 'pending')),
	analysis      TEXT    NOT NULL DEFAULT '',
	reflection    TEXT    NOT NULL DEFAULT '',
	retries       INTEGER NOT NULL DEFAULT 0,
	points_before REAL,
	points_after  REAL,
	parent        TEXT    NOT NULL DEFAULT '',
	tags          TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX attempts_at ON attempts (at);
CREATE INDEX attempts_repo ON attempts (repo COLLATE NOCASE, at);

CREATE TABLE attempt_texts (
	attempt INTEGER PRIMARY KEY REFERENCES attempts (rowid) ON DELETE CASCADE,
	diff    BLOB,
	tests   TEXT NOT NULL DEFAULT ''
);

CREATE TABLE attempt_files (
	path    TEXT    NOT NULL,
	attempt INTEGER NOT NULL REFERENCES attempts (rowid) ON DELETE CASCADE,
	PRIMARY KEY (path, attempt)
) WITHOUT ROWID;
CREATE INDEX attempt_files_attempt ON attempt_files (attempt);

-- The full-text index of what an attempt set out to do and what it
-- taught, kept by triggers.
CREATE VIRTUAL TABLE attempts_fts USING fts5 (
	task, approach, analysis, reflection,
	content = 'attempts', content_rowid = 'rowid',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER attempts_insert AFTER INSERT ON attempts BEGIN
	INSERT INTO attempts_fts (rowid, task, approach, analysis, reflection)
		VALUES (new.rowid, new.task, new.approach, new.analysis, new.reflection);
END;
CREATE TRIGGER attempts_delete AFTER DELETE ON attempts BEGIN
	INSERT INTO attempts_fts (attempts_fts, rowid, task, approach, analysis, reflection)
		VALUES ('delete', old.rowid, old.task, old.approach, old.analysis, old.reflection);
END;
CREATE TRIGGER attempts_update AFTER UPDATE OF task, approach, analysis, reflection ON attempts BEGIN
	INSERT INTO attempts_fts (attempts_fts, rowid, task, approach, analysis, reflection)
		VALUES ('delete', old.rowid, old.task, old.approach, old.analysis, old.reflection);
	INSERT INTO attempts_fts (rowid, task, approach, analysis, reflection)
		VALUES (new.rowid, new.task, new.approach, new.analysis, new.reflection);
END;
