-- A server's bearer tokens (lore.Token), kept by the hash of their
-- secret, never the secret.
CREATE TABLE tokens (
	id      text COLLATE "C" NOT NULL UNIQUE, -- the hash's first 12 hex digits, unless given
	hash    bytea NOT NULL UNIQUE,
	team    text NOT NULL,
	scope   text NOT NULL CHECK (scope IN ('read', 'write')),
	name    text NOT NULL DEFAULT '',
	created timestamptz NOT NULL,
	revoked timestamptz -- NULL while it is valid
);
CREATE INDEX tokens_team ON tokens (team, created);
