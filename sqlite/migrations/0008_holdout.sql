-- A boot whose context was built and not handed over: the session is held
-- out (lore boot --holdout), to compare with those that got their notes.
ALTER TABLE boots ADD COLUMN withheld INTEGER NOT NULL DEFAULT 0;
