-- Transcripts uploaded to lore serve (lore.QueuedUpload), redacted,
-- kept until a worker harvests them: in the store file the server is
-- started on, whichever team they are of.
CREATE TABLE uploads (
	team       TEXT    NOT NULL,
	id         TEXT    NOT NULL, -- a hash of the body
	name       TEXT    NOT NULL,
	repo       TEXT    NOT NULL DEFAULT '',
	bytes      INTEGER NOT NULL,
	received   INTEGER NOT NULL, -- Unix microseconds
	redactions INTEGER NOT NULL DEFAULT 0,
	sessions   INTEGER NOT NULL DEFAULT 0,
	state      TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'harvested', 'failed')),
	worker     TEXT    NOT NULL DEFAULT '',
	lease      INTEGER NOT NULL DEFAULT 0, -- Unix microseconds
	attempts   INTEGER NOT NULL DEFAULT 0,
	result     BLOB,
	error      TEXT    NOT NULL DEFAULT '',
	body       BLOB    NOT NULL,
	UNIQUE (team, id)
); -- a rowid table: bodies are large
CREATE INDEX uploads_team ON uploads (team, received);
CREATE INDEX uploads_waiting ON uploads (received) WHERE state IN ('queued', 'running');
