-- Written to run unchanged on SQLite and PostgreSQL. Times are Unix milliseconds; lists and
-- records per seat are JSON text.

CREATE TABLE tournaments (
    id BIGINT PRIMARY KEY,
    game TEXT NOT NULL,
    format TEXT NOT NULL,
    seed BIGINT NOT NULL,
    rounds BIGINT NOT NULL,
    players_per_match BIGINT NOT NULL,
    settings TEXT NOT NULL,
    created BIGINT NOT NULL,
    finished BIGINT
);

CREATE TABLE players (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    id TEXT NOT NULL,
    alias TEXT NOT NULL,
    full_name TEXT NOT NULL,
    command TEXT,
    folder TEXT,
    status TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (tournament_id, id)
);

CREATE TABLE matches (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    id BIGINT NOT NULL,
    round BIGINT NOT NULL,
    seats TEXT NOT NULL,
    state TEXT NOT NULL,
    seed BIGINT NOT NULL,
    attempts BIGINT NOT NULL,
    scores TEXT,
    placement TEXT,
    reason TEXT,
    faults TEXT,
    replay TEXT,
    ticks BIGINT,
    time_ms TEXT,
    turns TEXT,
    error TEXT,
    started BIGINT,
    finished BIGINT,
    PRIMARY KEY (tournament_id, id)
);

CREATE INDEX matches_by_state ON matches (tournament_id, state, id);

CREATE TABLE byes (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    round BIGINT NOT NULL,
    player TEXT NOT NULL,
    PRIMARY KEY (tournament_id, round)
);

CREATE TABLE ratings (
    tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
    round BIGINT NOT NULL,
    player TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION,
    games BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, round, player)
);
