-- Replays kept in the database, so that they reach every viewer whatever machine played them.
-- A replay is the bytes of its `.jsonl.gz` file, in order, as chunks appended while the match
-- is played. Each claim of a match (each time a worker takes it) has a replay of its own, so a
-- match played again after a worker died never mixes its bytes with the dead one's.
-- Written to run unchanged on SQLite and PostgreSQL: BYTEA has NUMERIC affinity on SQLite,
-- which keeps blobs as they are. Times are Unix milliseconds.

CREATE TABLE replays (
    tournament_id BIGINT NOT NULL,
    match_id BIGINT NOT NULL,
    claim BIGINT NOT NULL,
    -- Chunks appended so far (the next one's seq), and their bytes in all.
    chunks BIGINT NOT NULL,
    size BIGINT NOT NULL,
    started BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    -- Set once the last chunk is in: nothing more will come.
    finished BIGINT,
    PRIMARY KEY (tournament_id, match_id, claim),
    FOREIGN KEY (tournament_id, match_id) REFERENCES matches (tournament_id, id)
);

CREATE TABLE replay_chunks (
    tournament_id BIGINT NOT NULL,
    match_id BIGINT NOT NULL,
    claim BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (tournament_id, match_id, claim, seq),
    FOREIGN KEY (tournament_id, match_id, claim)
        REFERENCES replays (tournament_id, match_id, claim)
);
