-- MinHash band keys (see internal/dedup), several items per key: an item
-- whose key is here is a near-duplicate candidate of every item that
-- shares it. Until now each key named one item, the first to have it;
-- in a scope of thousands of items whose words overlap, unrelated items
-- share keys often enough that later items lost all theirs and could no
-- longer be found. A row is the key with its low 28 bits replaced by the
-- item's rowid (see bandItem in add.go), so that a key's items are one
-- range of the table. Every item's keys are computed again after this
-- migration (rebuildBands).
DROP TABLE bands;
CREATE TABLE bands (band INTEGER PRIMARY KEY);
