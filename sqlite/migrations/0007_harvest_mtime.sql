-- A harvest record also keeps the transcript's modification time (Unix
-- nanoseconds, 0 when unknown) and how many sessions it held. Harvest
-- then knows an unchanged transcript by its size and time, without
-- hashing it, and leaves a transcript all of whose sessions are recorded
-- unread: an unchanged transcript used to be read in full at every run.
ALTER TABLE harvests ADD COLUMN mtime INTEGER NOT NULL DEFAULT 0;
ALTER TABLE harvests ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0;
