-- Items by scope, most confident first. Boot reads the best items of a
-- repository, of an agent and the global ones at every session start; on
-- a store of 100,000 items each read scanned and sorted the whole table
-- (25-40 ms); with the id last, the index gives Best's whole order, and a
-- read stops at its limit. Repositories are matched without regard to
-- case, as everywhere else in lore (acme/api is Acme/API).
CREATE INDEX items_scope ON items (repo COLLATE NOCASE, agent, status, confidence DESC, last_confirmed DESC, id);
