-- The arena's ladder (`arbiter arena serve`): the operator's settings, built-in robots as
-- bots, a rating per version, the queue of arena matches (ladder games, challenges, the
-- playground, SPRT series of a new version against the previous one) with their seats and
-- results, and the series. Runs unchanged on SQLite and PostgreSQL, as 0009 does: ids come
-- from arena_ids, flags are 0/1 integers, times are Unix milliseconds.

INSERT INTO arena_ids (name, last) VALUES ('matches', 0);
INSERT INTO arena_ids (name, last) VALUES ('series', 0);
-- The number of the last rated result. Taking the next one locks the row, so that ratings
-- are applied one result after the other on PostgreSQL as on SQLite; its order is the order
-- a recomputation replays.
INSERT INTO arena_ids (name, last) VALUES ('ratings', 0);
-- Never given out: a scheduler takes this row to decide alone (two serves on one store do
-- not both queue the match the ladder needs).
INSERT INTO arena_ids (name, last) VALUES ('schedule', 0);

-- The operator's switches, by name: `ladder_pace`, `ladder_seats.GAME`, `ladder_paused`,
-- `uploads_frozen`.
CREATE TABLE arena_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- A robot is a bot of the reserved team `robots` (made with the first robot; no user or team
-- may take that name), with one passed version whose file name is the robot's name
-- (`strong/nodes=2000`).
ALTER TABLE arena_bots ADD COLUMN robot BIGINT NOT NULL DEFAULT 0;
-- A bot the operator took off the ladder: it plays no ladder game while disabled.
ALTER TABLE arena_bots ADD COLUMN disabled BIGINT NOT NULL DEFAULT 0;

-- The rating of each version that was ever active: its Weng-Lin mu and sigma after every
-- rated result it played, and its counts.
CREATE TABLE arena_ratings (
    version_id BIGINT PRIMARY KEY REFERENCES arena_versions (id),
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    -- The mu it started with (its sigma was the initial one).
    start_mu DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    -- Rated games it played in the first seat (the ladder rotates seats fairly).
    first_seats BIGINT NOT NULL,
    last_played BIGINT,
    -- The version whose mu it started from (its bot's active one before it), if any.
    inherits BIGINT REFERENCES arena_versions (id),
    -- The number of the last rated result before it started: a recomputation starts it
    -- there, from what its predecessor had then.
    start_seq BIGINT NOT NULL,
    created BIGINT NOT NULL
);

-- Series of games between two versions: the SPRT of a new version against its bot's previous
-- active one, or a team's challenge of another bot.
CREATE TABLE arena_series (
    id BIGINT PRIMARY KEY,
    kind TEXT NOT NULL,
    game TEXT NOT NULL,
    -- The team that started a challenge (its daily quota counts these games).
    team_id BIGINT REFERENCES arena_teams (id),
    -- The new version (SPRT) or the challenger's.
    version_a BIGINT NOT NULL REFERENCES arena_versions (id),
    -- The previous version (SPRT) or the one challenged.
    version_b BIGINT NOT NULL REFERENCES arena_versions (id),
    -- The games a challenge plays; the most an SPRT plays before it gives up.
    games_wanted BIGINT NOT NULL,
    games_queued BIGINT NOT NULL,
    games_played BIGINT NOT NULL,
    -- Results of version a against version b.
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    -- The SPRT's pentanomial counts: pairs in which version a scored 0, 0.5, 1, 1.5 and 2.
    penta0 BIGINT NOT NULL,
    penta1 BIGINT NOT NULL,
    penta2 BIGINT NOT NULL,
    penta3 BIGINT NOT NULL,
    penta4 BIGINT NOT NULL,
    -- running, stronger, not_stronger, inconclusive (SPRT) or finished (challenge).
    result TEXT NOT NULL,
    created BIGINT NOT NULL,
    finished BIGINT
);
CREATE INDEX arena_series_running ON arena_series (game, result, id);
CREATE INDEX arena_series_version ON arena_series (version_a, kind);
CREATE INDEX arena_series_team ON arena_series (team_id, created);

-- The arena's matches, a queue as builds are: claimed with a lease its worker renews, handed
-- in with the number of its claim (fencing).
CREATE TABLE arena_matches (
    id BIGINT PRIMARY KEY,
    -- ladder, challenge, playground or sprt.
    kind TEXT NOT NULL,
    game TEXT NOT NULL,
    -- The game's settings, as JSON.
    settings TEXT NOT NULL,
    -- The match seed (a u64's bits).
    seed BIGINT NOT NULL,
    series_id BIGINT REFERENCES arena_series (id),
    -- An SPRT's pair: its two games share the number and the seed, seats swapped.
    pair BIGINT,
    -- Higher first: the playground's one match is watched as it is played.
    priority BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    -- queued, running, finished or failed (its workers kept dying).
    state TEXT NOT NULL,
    claim BIGINT NOT NULL,
    worker TEXT,
    lease_until BIGINT,
    attempts BIGINT NOT NULL,
    error TEXT,
    created BIGINT NOT NULL,
    started BIGINT,
    finished BIGINT,
    -- Why the match ended (the game's reason, or the fault's).
    reason TEXT,
    -- The replay, `.jsonl.gz` bytes.
    replay BYTEA,
    -- The number of its rated result (arena_ids 'ratings'), in the order ratings took it.
    seq BIGINT
);
CREATE INDEX arena_matches_queue ON arena_matches (state, priority, id);
CREATE INDEX arena_matches_game ON arena_matches (game, state, id);
CREATE INDEX arena_matches_series ON arena_matches (series_id, pair);
CREATE UNIQUE INDEX arena_matches_seq ON arena_matches (seq);

CREATE TABLE arena_match_seats (
    match_id BIGINT NOT NULL REFERENCES arena_matches (id),
    seat BIGINT NOT NULL,
    version_id BIGINT NOT NULL REFERENCES arena_versions (id),
    -- 1 is best; equal places are ties. Set when the match is finished.
    place BIGINT,
    -- The seat's fault in words (a crash, a late or wrong answer, a program that could not
    -- start), if it made one.
    fault TEXT,
    -- Its rating before and after a rated result.
    mu_before DOUBLE PRECISION,
    sigma_before DOUBLE PRECISION,
    mu_after DOUBLE PRECISION,
    sigma_after DOUBLE PRECISION,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX arena_match_seats_version ON arena_match_seats (version_id, match_id);

-- The versions active before the ladder existed join it with the initial rating (sigma is
-- computed as the arena computes it, a double divided by 3).
INSERT INTO arena_ratings (version_id, mu, sigma, start_mu, games, wins, draws, losses,
    first_seats, last_played, inherits, start_seq, created)
    SELECT v.id, 25.0, CAST(25 AS DOUBLE PRECISION) / 3, 25.0, 0, 0, 0, 0, 0, NULL, NULL, 0, 0
    FROM arena_bots b JOIN arena_versions v ON v.bot_id = b.id AND v.number = b.active;
