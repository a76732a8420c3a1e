-- MinHash band keys (see internal/dedup), several items per key: an item
-- whose key is here is a near-duplicate candidate of every item that
-- shares it. Until now each key named one item, the first to have it;
-- in a scope of thousands of items whose words overlap, unrelated items
-- share keys often enough that later items lost all theirs and could no
-- longer be found. Every item's keys are computed again after this
-- migration (Store.rebuildBands).
DROP TABLE bands;
CREATE TABLE bands (
	key  INTEGER NOT NULL,
	item INTEGER NOT NULL,
	PRIMARY KEY (key, item)
) WITHOUT ROWID;
