-- The archive of sessions pruned from an agent's session database. Rows
-- are the archive package's row encoding, zstd-compressed with the
-- dictionary they name (NULL: no dictionary). Times are Unix microseconds.
-- Small columns come before the row so that listing never reads a row's
-- overflow pages.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE dictionaries (
	id         INTEGER PRIMARY KEY,
	trained_at INTEGER NOT NULL,
	bytes      BLOB NOT NULL
);

CREATE TABLE sessions (
	id            TEXT PRIMARY KEY,
	archived_at   INTEGER NOT NULL,
	parent_id     TEXT,
	dictionary_id INTEGER REFERENCES dictionaries(id),
	raw_size      INTEGER NOT NULL,
	size          INTEGER NOT NULL,
	checksum      INTEGER NOT NULL, -- CRC-32C of the raw encoding
	messages      INTEGER NOT NULL, -- how many rows the session has in messages
	row           BLOB NOT NULL
);
CREATE INDEX sessions_parent ON sessions(parent_id);

CREATE TABLE messages (
	session_id    TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL, -- position in the session, from 0
	message_id    INTEGER,          -- the message's id in the source, when an integer
	dictionary_id INTEGER REFERENCES dictionaries(id),
	raw_size      INTEGER NOT NULL,
	size          INTEGER NOT NULL,
	checksum      INTEGER NOT NULL,
	row           BLOB NOT NULL,
	PRIMARY KEY (session_id, seq)
);

INSERT INTO meta(key, value) VALUES ('format', '1');
