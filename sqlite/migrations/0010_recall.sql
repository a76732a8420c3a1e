-- Notes handed over at the point of action (lore recall) are recorded as
-- boots of their own kind: '' is a session start, 'before-tool' a note
-- handed over before a shell command ran, 'after-failure' one handed
-- over after a tool call failed.
ALTER TABLE boots ADD COLUMN kind TEXT NOT NULL DEFAULT '';
-- The pitfalls and quirks of a command, by scope and by the text they
-- open with ("`go test ./...` fails with …"): lore recall looks for those
-- of a command before every shell command an agent runs, a range of this
-- index in each scope (a repository's; an agent's or the global ones,
-- with no repository). Only pitfalls and quirks are in it, so adding
-- other items costs nothing more.
CREATE INDEX items_command ON items (repo COLLATE NOCASE, agent, text) WHERE category IN ('pitfall', 'tool-quirk');
