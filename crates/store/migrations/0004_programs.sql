-- Player programs, content-addressed: each player folder once, as an archive named by its hash
-- (crate arbiter-programs), so that workers on any machine fetch what a tournament plays.
-- Written to run unchanged on SQLite and PostgreSQL: BYTEA is PostgreSQL's bytes; on SQLite it
-- has NUMERIC affinity, which stores a blob as it is. Times are Unix milliseconds.

CREATE TABLE programs (
    hash TEXT PRIMARY KEY,
    -- The bytes of its files, unpacked.
    size BIGINT NOT NULL,
    -- Its files, folders and links.
    entries BIGINT NOT NULL,
    archive BYTEA NOT NULL,
    created BIGINT NOT NULL
);

-- The program a player runs; NULL for robots, and for players stored before programs were.
ALTER TABLE players ADD COLUMN program TEXT;
