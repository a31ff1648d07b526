-- The TCP game server (`arbiter server`): each team's running totals and every game it played.
-- Written to run unchanged on SQLite and PostgreSQL. Times are Unix milliseconds; lists per
-- seat are JSON text. Robots have no row in lobby_teams: they have no totals.

CREATE TABLE lobby_teams (
    game TEXT NOT NULL,
    team TEXT NOT NULL,
    test_score DOUBLE PRECISION NOT NULL,
    live_score DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game, team)
);

CREATE TABLE lobby_games (
    game TEXT NOT NULL,
    id BIGINT NOT NULL,
    -- Games scheduled at the same moment (parallel tables) share a round.
    round BIGINT NOT NULL,
    mode TEXT NOT NULL,
    level BIGINT NOT NULL,
    seats TEXT NOT NULL,
    points TEXT NOT NULL,
    reason TEXT NOT NULL,
    replay TEXT,
    finished BIGINT NOT NULL,
    PRIMARY KEY (game, id)
);
