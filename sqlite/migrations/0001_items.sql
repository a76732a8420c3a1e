-- Knowledge items. rowid is the key the full-text index and the other
-- tables join on; id is the stable id users and exports see.
CREATE TABLE items (
	rowid             INTEGER PRIMARY KEY,
	id                TEXT    NOT NULL UNIQUE,
	text              TEXT    NOT NULL,
	norm              TEXT    NOT NULL,
	category          TEXT    NOT NULL,
	repo              TEXT    NOT NULL DEFAULT '',
	agent             TEXT    NOT NULL DEFAULT '',
	confidence        REAL    NOT NULL,
	-- The highest confidence given by hand (without a session); it counts
	-- as one more independent source.
	manual_confidence REAL    NOT NULL DEFAULT 0,
	status            TEXT    NOT NULL,
	source_count      INTEGER NOT NULL DEFAULT 0,
	first_seen        INTEGER NOT NULL, -- Unix microseconds
	last_confirmed    INTEGER NOT NULL,
	expires           INTEGER,          -- NULL: never
	signature         TEXT    NOT NULL DEFAULT '',
	tags              TEXT    NOT NULL DEFAULT '[]', -- JSON array
	related           TEXT    NOT NULL DEFAULT '[]'  -- JSON array of ids
);
CREATE INDEX items_scope ON items (repo, agent, category);
CREATE INDEX items_signature ON items (signature, category, repo, agent) WHERE signature <> '';

-- One row per distinct session that taught an item.
CREATE TABLE evidence (
	item       INTEGER NOT NULL REFERENCES items (rowid) ON DELETE CASCADE,
	session    TEXT    NOT NULL,
	position   INTEGER NOT NULL,
	confidence REAL    NOT NULL,
	ord        INTEGER NOT NULL, -- the order evidence arrived in
	PRIMARY KEY (item, session)
) WITHOUT ROWID;
CREATE INDEX evidence_session ON evidence (session);

-- MinHash band keys: items sharing a key are near-duplicate candidates.
CREATE TABLE bands (
	key  INTEGER NOT NULL,
	item INTEGER NOT NULL,
	PRIMARY KEY (key, item)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE items_fts USING fts5 (
	text, tags,
	content = 'items', content_rowid = 'rowid',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
	INSERT INTO items_fts (rowid, text, tags) VALUES (new.rowid, new.text, new.tags);
END;
CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
	INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags);
END;
CREATE TRIGGER items_fts_update AFTER UPDATE OF text, tags ON items BEGIN
	INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags);
	INSERT INTO items_fts (rowid, text, tags) VALUES (new.rowid, new.text, new.tags);
END;
