-- The contexts boot handed out, for measure.
CREATE TABLE boots (
	id      INTEGER PRIMARY KEY,
	at      INTEGER NOT NULL, -- Unix microseconds
	session TEXT    NOT NULL DEFAULT '',
	repo    TEXT    NOT NULL DEFAULT '',
	agent   TEXT    NOT NULL DEFAULT '',
	task    TEXT    NOT NULL DEFAULT '',
	items   TEXT    NOT NULL DEFAULT '[]', -- JSON array of item ids
	tokens  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX boots_at ON boots (at);
CREATE INDEX boots_session ON boots (session) WHERE session <> '';
