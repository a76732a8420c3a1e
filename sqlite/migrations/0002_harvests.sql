-- The sessions harvest has read, by extractor: a session whose transcript
-- is unchanged is not read again.
CREATE TABLE harvests (
	session   TEXT    NOT NULL,
	extractor TEXT    NOT NULL,
	path      TEXT    NOT NULL,
	size      INTEGER NOT NULL,
	hash      TEXT    NOT NULL,
	at        INTEGER NOT NULL, -- Unix microseconds
	items     INTEGER NOT NULL,
	PRIMARY KEY (session, extractor)
) WITHOUT ROWID;
