-- A team's store: every table lives in the team's own schema, which the
-- store's connections have as their search_path.

-- Search stems English words as SQLite's porter tokenizer does, and keeps
-- stop words: lore drops them from a question itself (internal/terms),
-- and a question of stop words only must still find what holds them.
CREATE TEXT SEARCH DICTIONARY lore_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION lore_english (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION lore_english ALTER MAPPING FOR
	asciiword, word, numword, asciihword, hword, numhword, hword_part, hword_asciipart, hword_numpart WITH lore_stem;

-- Knowledge items. rowid orders them (Best's "most recently added");
-- id is the stable id users and exports see, compared byte by byte so
-- that an id prefix is a range of the index.
CREATE TABLE items (
	rowid             bigserial PRIMARY KEY,
	id                text COLLATE "C" NOT NULL UNIQUE,
	text              text NOT NULL,
	category          text NOT NULL,
	repo              text NOT NULL DEFAULT '',
	-- lore.RepoKey of repo, and of its name after the owner: repositories
	-- compare with ASCII letters folded only (lore.SameRepo).
	repo_key          text COLLATE "C" NOT NULL DEFAULT '',
	repo_name_key     text COLLATE "C" NOT NULL DEFAULT '',
	agent             text NOT NULL DEFAULT '',
	confidence        double precision NOT NULL,
	manual_confidence double precision NOT NULL DEFAULT 0,
	status            text NOT NULL,
	source_count      integer NOT NULL DEFAULT 0,
	first_seen        timestamptz NOT NULL,
	last_confirmed    timestamptz NOT NULL,
	expires           timestamptz, -- NULL: never
	signature         text NOT NULL DEFAULT '',
	tags              text[] NOT NULL DEFAULT '{}',
	related           text[] NOT NULL DEFAULT '{}',
	-- Evidence, in the order it arrived: the session, its position and
	-- the confidence the session brought (lore.Merge's shares).
	ev_sessions       text[] NOT NULL DEFAULT '{}',
	ev_positions      integer[] NOT NULL DEFAULT '{}',
	ev_confidences    double precision[] NOT NULL DEFAULT '{}',
	reviews           jsonb NOT NULL DEFAULT '[]',
	-- The words of the text and of the tags, split as internal/terms
	-- splits a question, and the search vector made of them (the text's
	-- weighing A, the tags' B), generated so that new items can be copied
	-- in (COPY) rather than inserted one by one.
	words             text NOT NULL DEFAULT '',
	tag_words         text NOT NULL DEFAULT '',
	search            tsvector GENERATED ALWAYS AS
		(setweight(to_tsvector('lore_english', words), 'A') || setweight(to_tsvector('lore_english', tag_words), 'B')) STORED
);
CREATE INDEX items_search ON items USING gin (search);
CREATE INDEX items_scope ON items (repo_key, agent, status, confidence);
CREATE INDEX items_best ON items (confidence DESC, rowid DESC);
CREATE INDEX items_signature ON items (signature) WHERE signature <> '';
-- Recall reads the pitfalls and quirks of a command by the text they
-- open with: a range of this index.
CREATE INDEX items_command ON items (text COLLATE "C") WHERE category IN ('pitfall', 'tool-quirk');
CREATE INDEX items_sessions ON items USING gin (ev_sessions);

-- MinHash band keys (internal/dedup): an item whose key is here is a
-- near-duplicate candidate of every item that shares it. No foreign key:
-- checking one for every key made adding a third slower; the item's
-- keys go with it (deleteItem).
CREATE TABLE bands (
	key  bigint NOT NULL,
	item bigint NOT NULL,
	PRIMARY KEY (key, item)
);
CREATE INDEX bands_item ON bands (item);

CREATE TABLE harvests (
	session   text NOT NULL,
	extractor text NOT NULL,
	path      text NOT NULL,
	size      bigint NOT NULL,
	mtime     bigint NOT NULL DEFAULT 0, -- Unix nanoseconds; 0: unknown
	hash      text NOT NULL,
	sessions  integer NOT NULL DEFAULT 0,
	at        timestamptz NOT NULL,
	items     integer NOT NULL,
	PRIMARY KEY (session, extractor)
);

CREATE TABLE boots (
	id       bigserial PRIMARY KEY,
	at       timestamptz NOT NULL,
	session  text NOT NULL DEFAULT '',
	repo     text NOT NULL DEFAULT '',
	agent    text NOT NULL DEFAULT '',
	task     text NOT NULL DEFAULT '',
	items    text[] NOT NULL DEFAULT '{}',
	tokens   integer NOT NULL DEFAULT 0,
	withheld boolean NOT NULL DEFAULT false,
	kind     text NOT NULL DEFAULT ''
);
CREATE INDEX boots_at ON boots (at);

-- Episodes (lore.Episode): replaced whole when a session is harvested
-- again, deleted when it is forgotten.
CREATE TABLE episodes (
	rowid     bigserial PRIMARY KEY,
	session   text NOT NULL,
	agent     text NOT NULL DEFAULT '',
	repo      text NOT NULL DEFAULT '',
	at        timestamptz, -- NULL: unknown
	position  integer NOT NULL,
	tool      text NOT NULL DEFAULT '',
	input     text NOT NULL DEFAULT '',
	error     text NOT NULL DEFAULT '',
	signature text NOT NULL,
	fix       text NOT NULL DEFAULT '',
	changes   text NOT NULL DEFAULT '',
	steps     integer NOT NULL DEFAULT 0,
	search    tsvector NOT NULL
);
CREATE INDEX episodes_signature ON episodes (signature, at);
CREATE INDEX episodes_session ON episodes (session);
CREATE INDEX episodes_search ON episodes USING gin (search);

-- The journal (lore.Attempt). key is lore.AttemptKey, which an attempt
-- logged again shares with the row it replaces.
CREATE TABLE attempts (
	rowid         bigserial PRIMARY KEY,
	id            text COLLATE "C" NOT NULL UNIQUE,
	key           text NOT NULL UNIQUE,
	at            timestamptz NOT NULL,
	repo          text NOT NULL DEFAULT '',
	repo_key      text COLLATE "C" NOT NULL DEFAULT '',
	agent         text NOT NULL DEFAULT '',
	session       text NOT NULL DEFAULT '',
	task          text NOT NULL,
	approach      text NOT NULL DEFAULT '',
	area          text NOT NULL DEFAULT '',
	files         text[] NOT NULL DEFAULT '{}',
	diff          bytea NOT NULL DEFAULT '', -- bytes: a diff may hold a NUL, which text refuses
	diff_cut      integer NOT NULL DEFAULT 0,
	tests         text NOT NULL DEFAULT '',
	outcome       text NOT NULL CHECK (outcome IN ('success', 'failure', 'rollback', 'pending')),
	analysis      text NOT NULL DEFAULT '',
	reflection    text NOT NULL DEFAULT '',
	retries       integer NOT NULL DEFAULT 0,
	points_before double precision,
	points_after  double precision,
	parent        text NOT NULL DEFAULT '',
	tags          text[] NOT NULL DEFAULT '{}',
	-- task (A), analysis and reflection (B), approach (C)
	search        tsvector NOT NULL
);
CREATE INDEX attempts_at ON attempts (at);
CREATE INDEX attempts_repo ON attempts (repo_key, at);
CREATE INDEX attempts_files ON attempts USING gin (files);
CREATE INDEX attempts_search ON attempts USING gin (search);

-- Regression guards (lore.FixGuard), one row per fix commit of a
-- repository; the guard itself as JSON, without its proof.
CREATE TABLE guards (
	repo_key  text COLLATE "C" NOT NULL,
	commit_id text COLLATE "C" NOT NULL,
	at        timestamptz NOT NULL,
	body      jsonb NOT NULL,
	proof     text NOT NULL DEFAULT '',
	proof_cmd text NOT NULL DEFAULT '',
	proof_at  timestamptz,
	PRIMARY KEY (repo_key, commit_id)
);
