-- Episodes: a session's failures and what it did next (lore.Episode), the
-- raw history lore falls back on when no item covers an error. Replaced
-- whole when the session is harvested again, deleted when it is
-- forgotten.
CREATE TABLE episodes (
	rowid     INTEGER PRIMARY KEY,
	session   TEXT    NOT NULL,
	agent     TEXT    NOT NULL DEFAULT '',
	repo      TEXT    NOT NULL DEFAULT '',
	at        INTEGER NOT NULL, -- Unix microseconds; 0: unknown
	position  INTEGER NOT NULL,
	tool      TEXT    NOT NULL DEFAULT '',
	input     TEXT    NOT NULL DEFAULT '',
	error     TEXT    NOT NULL DEFAULT '',
	signature TEXT    NOT NULL,
	fix       TEXT    NOT NULL DEFAULT '',
	changes   TEXT    NOT NULL DEFAULT '',
	steps     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX episodes_signature ON episodes (signature, at);
CREATE INDEX episodes_session ON episodes (session);

-- The full-text index of error lines, kept by triggers: episodes are
-- written a session at a time, a few dozen rows.
CREATE VIRTUAL TABLE episodes_fts USING fts5 (
	error,
	content = 'episodes', content_rowid = 'rowid',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER episodes_insert AFTER INSERT ON episodes BEGIN
	INSERT INTO episodes_fts (rowid, error) VALUES (new.rowid, new.error);
END;
CREATE TRIGGER episodes_delete AFTER DELETE ON episodes BEGIN
	INSERT INTO episodes_fts (episodes_fts, rowid, error) VALUES ('delete', old.rowid, old.error);
END;
