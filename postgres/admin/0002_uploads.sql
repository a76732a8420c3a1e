-- Transcripts uploaded to lore serve (lore.QueuedUpload), redacted,
-- kept until a worker of any server on the database harvests them.
-- Workers claim them with FOR UPDATE SKIP LOCKED (uploads.go).
CREATE TABLE uploads (
	team       text COLLATE "C" NOT NULL,
	id         text COLLATE "C" NOT NULL, -- a hash of the body
	name       text NOT NULL,
	repo       text NOT NULL DEFAULT '',
	bytes      integer NOT NULL,
	received   timestamptz NOT NULL,
	redactions integer NOT NULL DEFAULT 0,
	sessions   integer NOT NULL DEFAULT 0,
	state      text NOT NULL CHECK (state IN ('queued', 'running', 'harvested', 'failed')),
	worker     text NOT NULL DEFAULT '',
	lease      timestamptz,
	attempts   integer NOT NULL DEFAULT 0,
	result     bytea,
	error      text NOT NULL DEFAULT '',
	body       bytea NOT NULL,
	PRIMARY KEY (team, id)
);
CREATE INDEX uploads_team ON uploads (team, received);
CREATE INDEX uploads_waiting ON uploads (received) WHERE state IN ('queued', 'running');
