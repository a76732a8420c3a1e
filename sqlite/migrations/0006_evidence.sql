-- Each item's evidence moves into its row, as a JSON array of
-- [session, position, confidence] in the order it arrived. As a table of
-- its own, every item added wrote a second row, every merge a row into a
-- random page, and every item read a second lookup: about a sixth of
-- adding. Only forget --session looks sessions up, by scanning.
ALTER TABLE items ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]';
UPDATE items SET evidence = (
	SELECT json_group_array(json_array(e.session, e.position, e.confidence) ORDER BY e.ord, e.session)
	FROM evidence AS e WHERE e.item = items.rowid
) WHERE rowid IN (SELECT item FROM evidence);
DROP TABLE evidence;
