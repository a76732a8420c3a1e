-- Knowledge items. rowid is the key the full-text index and the other
-- tables join on; id is the stable id users and exports see.
CREATE TABLE items (
	rowid             INTEGER PRIMARY KEY,
	id                TEXT    NOT NULL UNIQUE,
	text              TEXT    NOT NULL,
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
-- No index on session: only forget --session looks sessions up, and
-- scanning the table then is cheaper than indexing every row added.

-- MinHash band keys (see internal/dedup): an item whose key is here is a
-- near-duplicate candidate of the item named. One item per key: items
-- sharing a key are usually merged, and when they are not, the first one
-- keeps the key and the later ones are still found by their other keys.
CREATE TABLE bands (
	key  INTEGER PRIMARY KEY,
	item INTEGER NOT NULL
);

-- The full-text index of text and tags (as stored, a JSON list). The text
-- lives in items only; a row leaves the index by a 'delete' command that
-- repeats what was indexed (contentless_delete would make every search
-- check each row for deletion, for deletes that are rare). No column sizes
-- are kept: items are one sentence each, so bm25's length normalisation
-- changes little, and reading a size for every scored row cost a third of
-- a search.
CREATE VIRTUAL TABLE items_fts USING fts5 (
	text, tags,
	content = '', columnsize = 0,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Rows are indexed by the writer, many in one statement, not by a
-- trigger: a trigger runs in a statement savepoint, at which FTS5 flushes
-- its pending terms, and flushing once per row makes adding several times
-- slower. Deletes are rare and use a trigger.
CREATE TRIGGER items_delete AFTER DELETE ON items BEGIN
	INSERT INTO items_fts (items_fts, rowid, text, tags) VALUES ('delete', old.rowid, old.text, old.tags);
END;
-- Merge index segments sooner than FTS5's default (4): a search walks every
-- segment of every term, and fewer segments make common words cheaper.
INSERT INTO items_fts (items_fts, rank) VALUES ('automerge', 2);
