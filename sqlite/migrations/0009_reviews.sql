-- The decisions people made about an item (lore review, promote, edit,
-- forget), oldest first, as a JSON array of lore.Review objects in the
-- item's row, as its evidence is: an item is read with its history in
-- one lookup, and an item nobody reviewed keeps '[]'.
ALTER TABLE items ADD COLUMN reviews TEXT NOT NULL DEFAULT '[]';
