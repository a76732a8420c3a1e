-- Items by scope and confidence. Boot reads the best items of a
-- repository, of an agent and the global ones at every session start; on
-- a store of 100,000 items each read scanned and sorted the whole table
-- (25-40 ms). Read backwards, the index gives Best's whole order (most
-- confident, then newest: the rowid ends every index entry), and a read
-- stops at its limit. It is kept narrow because every item added updates
-- it: with the confirmation time and the id as well, adding items was a
-- fifth slower. Repositories are matched without regard to case, as
-- everywhere else in lore (acme/api is Acme/API).
CREATE INDEX items_scope ON items (repo COLLATE NOCASE, agent, status, confidence);
