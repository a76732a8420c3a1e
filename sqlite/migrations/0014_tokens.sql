-- Bearer tokens of lore serve (lore.Token): kept in the store file a
-- server is started on, by the SHA-256 of their secret, never the
-- secret. id is the hash's first 12 hex digits, which lists and
-- revocation name a token by.
CREATE TABLE tokens (
	id      TEXT    NOT NULL PRIMARY KEY,
	hash    BLOB    NOT NULL UNIQUE,
	team    TEXT    NOT NULL,
	scope   TEXT    NOT NULL CHECK (scope IN ('read', 'write')),
	name    TEXT    NOT NULL DEFAULT '',
	created INTEGER NOT NULL, -- Unix microseconds
	revoked INTEGER NOT NULL DEFAULT 0 -- Unix microseconds; 0 while valid
) WITHOUT ROWID;
CREATE INDEX tokens_team ON tokens (team, created);
