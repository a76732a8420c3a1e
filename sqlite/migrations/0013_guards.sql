-- Regression guards (lore.FixGuard): one row per fix commit of a
-- repository, mined by lore guard scan. What varies in size (the files,
-- the guarded lines, the tests) is kept as one JSON document: guards are
-- read whole, a repository's at a time, by lore guard check.
CREATE TABLE guards (
	repo      TEXT    NOT NULL COLLATE NOCASE,
	commit_id TEXT    NOT NULL,
	at        INTEGER NOT NULL, -- Unix microseconds
	subject   TEXT    NOT NULL DEFAULT '',
	body      TEXT    NOT NULL, -- the guard as JSON, without its proof
	proof     TEXT    NOT NULL DEFAULT '',
	proof_cmd TEXT    NOT NULL DEFAULT '',
	proof_at  INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (repo, commit_id)
) WITHOUT ROWID;
CREATE INDEX guards_at ON guards (repo, at);
