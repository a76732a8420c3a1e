package hermesdb

import "fmt"

// The statements below are Hermes' own (hermes_state.py SCHEMA_SQL and
// FTS_SQL of each version, FORMATS.md section 10b), with their IF NOT
// EXISTS, so that sqlite_master holds what a real state.db holds.

const schemaVersionSQL = `CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
)`

// Sessions columns in the order a fresh database of each version has them.
const (
	sessionsV2 = `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)`
	sessionsV6 = `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)`
	sessionsV11 = `CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
)`
)

const (
	messagesV2 = `CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT
)`
	messagesV6 = `CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT
)`
	messagesV11 = `CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT
)`
)

const stateMetaSQL = `CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
)`

var indexSQL = []string{
	`CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source)`,
	`CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)`,
	`CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC)`,
	`CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp)`,
}

// titleIndexSQL is version 4's.
const titleIndexSQL = `CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL`

// ftsExternalSQL: versions 2 to 6 index messages.content in an
// external-content FTS5 table kept in step by three triggers.
var ftsExternalSQL = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content,
    content=messages,
    content_rowid=id
)`,
	`CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END`,
	`CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
END`,
	`CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END`,
}

// ftsOwnSQL returns version 11's FTS5 table of that name: it keeps its own
// copy of what it indexes (no content= option), fed by triggers with the
// text, tool name and tool calls of each message.
func ftsOwnSQL(name, tokenize string) []string {
	const expr = `COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')`
	opt := ""
	if tokenize != "" {
		opt = ",\n    tokenize='" + tokenize + "'"
	}
	return []string{
		fmt.Sprintf("CREATE VIRTUAL TABLE IF NOT EXISTS %s USING fts5(\n    content%s\n)", name, opt),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_insert AFTER INSERT ON messages BEGIN
    INSERT INTO %[1]s(rowid, content) VALUES (
        new.id,
        %[2]s
    );
END`, name, expr),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_delete AFTER DELETE ON messages BEGIN
    DELETE FROM %[1]s WHERE rowid = old.id;
END`, name),
		fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS %[1]s_update AFTER UPDATE ON messages BEGIN
    DELETE FROM %[1]s WHERE rowid = old.id;
    INSERT INTO %[1]s(rowid, content) VALUES (
        new.id,
        %[2]s
    );
END`, name, expr),
	}
}

// migrations are the ALTER statements that take a version 2 database to
// each later version, as hermes_state.py runs them on an existing file:
// the columns land at the end of the table, after the ones of version 2.
var migrations = map[int][]string{
	3: {`ALTER TABLE sessions ADD COLUMN title TEXT`},
	4: {titleIndexSQL},
	5: {
		`ALTER TABLE sessions ADD COLUMN "cache_read_tokens" INTEGER DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN "cache_write_tokens" INTEGER DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN "reasoning_tokens" INTEGER DEFAULT 0`,
		`ALTER TABLE sessions ADD COLUMN "billing_provider" TEXT`,
		`ALTER TABLE sessions ADD COLUMN "billing_base_url" TEXT`,
		`ALTER TABLE sessions ADD COLUMN "billing_mode" TEXT`,
		`ALTER TABLE sessions ADD COLUMN "estimated_cost_usd" REAL`,
		`ALTER TABLE sessions ADD COLUMN "actual_cost_usd" REAL`,
		`ALTER TABLE sessions ADD COLUMN "cost_status" TEXT`,
		`ALTER TABLE sessions ADD COLUMN "cost_source" TEXT`,
		`ALTER TABLE sessions ADD COLUMN "pricing_version" TEXT`,
	},
	6: {
		`ALTER TABLE messages ADD COLUMN reasoning TEXT`,
		`ALTER TABLE messages ADD COLUMN reasoning_details TEXT`,
		`ALTER TABLE messages ADD COLUMN codex_reasoning_items TEXT`,
	},
	11: {
		`ALTER TABLE sessions ADD COLUMN api_call_count INTEGER DEFAULT 0`,
		`ALTER TABLE messages ADD COLUMN reasoning_content TEXT`,
		`ALTER TABLE messages ADD COLUMN codex_message_items TEXT`,
		stateMetaSQL,
		`DROP TRIGGER IF EXISTS messages_fts_insert`,
		`DROP TRIGGER IF EXISTS messages_fts_delete`,
		`DROP TRIGGER IF EXISTS messages_fts_update`,
		`DROP TABLE IF EXISTS messages_fts`,
	},
}

// ddl returns the statements that create an empty database of version v,
// fresh or migrated from version 2.
func ddl(v int, migrated bool) []string {
	out := []string{schemaVersionSQL}
	if migrated && v > 2 {
		out = append(out, sessionsV2, messagesV2)
		out = append(out, indexSQL...)
		out = append(out, ftsExternalSQL...)
		for step := 3; step <= v; step++ {
			out = append(out, migrations[step]...)
		}
	} else {
		switch v {
		case 2:
			out = append(out, sessionsV2, messagesV2)
		case 6:
			out = append(out, sessionsV6, messagesV6)
		case 11:
			out = append(out, sessionsV11, messagesV11, stateMetaSQL)
		}
		out = append(out, indexSQL...)
		if v >= 4 {
			out = append(out, titleIndexSQL)
		}
	}
	switch {
	case v >= 11:
		out = append(out, ftsOwnSQL("messages_fts", "")...)
		out = append(out, ftsOwnSQL("messages_fts_trigram", "trigram")...)
	case !migrated || v == 2:
		out = append(out, ftsExternalSQL...)
	}
	return out
}

// ftsTables names the FTS5 tables of version v.
func ftsTables(v int) []string {
	if v >= 11 {
		return []string{"messages_fts", "messages_fts_trigram"}
	}
	return []string{"messages_fts"}
}
