-- The arena (`arbiter arena serve`): users, teams, invites, API tokens, bots with their
-- numbered versions (the source as handed in, the program built from it), and the queue of
-- builds and checks that workers on any machine claim, with leases and fencing as matches
-- have (0003). Written to run unchanged on SQLite and PostgreSQL: ids come from arena_ids
-- (neither AUTOINCREMENT nor SERIAL is both), flags are 0/1 integers, times are Unix
-- milliseconds, BYTEA is PostgreSQL's bytes and a blob on SQLite.

-- The last id given out per table. Taking one updates its row, which serializes the writers
-- of that table on both databases (PostgreSQL locks the row, SQLite holds its write lock).
CREATE TABLE arena_ids (
    name TEXT PRIMARY KEY,
    last BIGINT NOT NULL
);
INSERT INTO arena_ids (name, last) VALUES ('users', 0);
INSERT INTO arena_ids (name, last) VALUES ('teams', 0);
INSERT INTO arena_ids (name, last) VALUES ('bots', 0);
INSERT INTO arena_ids (name, last) VALUES ('versions', 0);
INSERT INTO arena_ids (name, last) VALUES ('jobs', 0);

CREATE TABLE arena_users (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    admin BIGINT NOT NULL,
    -- The argon2id hash of the password, as a PHC string.
    password TEXT NOT NULL,
    created BIGINT NOT NULL
);
-- Names differing only in case are one name: "Alice" cannot pass for "alice".
CREATE UNIQUE INDEX arena_users_name ON arena_users (lower(name));

CREATE TABLE arena_teams (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE UNIQUE INDEX arena_teams_name ON arena_teams (lower(name));

CREATE TABLE arena_members (
    team_id BIGINT NOT NULL REFERENCES arena_teams (id),
    user_id BIGINT NOT NULL REFERENCES arena_users (id),
    joined BIGINT NOT NULL,
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX arena_members_user ON arena_members (user_id);

-- Invite codes, by the SHA-256 of the code: a copy of the database gives no usable code.
CREATE TABLE arena_invites (
    code TEXT PRIMARY KEY,
    created BIGINT NOT NULL,
    -- When it was taken; each code is taken once.
    used BIGINT
);

-- API tokens, by the SHA-256 of the token.
CREATE TABLE arena_tokens (
    hash TEXT PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES arena_users (id),
    label TEXT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX arena_tokens_user ON arena_tokens (user_id);

CREATE TABLE arena_bots (
    id BIGINT PRIMARY KEY,
    team_id BIGINT NOT NULL REFERENCES arena_teams (id),
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    -- The number of its last version (0 before any): the next one is this plus 1.
    versions BIGINT NOT NULL,
    -- The number of the version that plays, always a passed one.
    active BIGINT,
    -- Whether the team chose `active`, rather than the newest passed version.
    pinned BIGINT NOT NULL,
    retired BIGINT NOT NULL,
    created BIGINT NOT NULL
);
-- A bot's name is its own in its game, whatever its team.
CREATE UNIQUE INDEX arena_bots_name ON arena_bots (game, lower(name));
CREATE INDEX arena_bots_team ON arena_bots (team_id);

CREATE TABLE arena_versions (
    id BIGINT PRIMARY KEY,
    bot_id BIGINT NOT NULL REFERENCES arena_bots (id),
    number BIGINT NOT NULL,
    state TEXT NOT NULL,
    language TEXT,
    -- The name it was handed in under (its extension says the language or the archive).
    file_name TEXT NOT NULL,
    -- The bytes handed in, kept as they came: a version never changes.
    source BYTEA NOT NULL,
    -- The program built from it (programs.hash), once built.
    program TEXT,
    build_log TEXT,
    -- Why its build or check failed.
    reason TEXT,
    uploader BIGINT NOT NULL REFERENCES arena_users (id),
    created BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    UNIQUE (bot_id, number)
);
-- Uploads per user per day.
CREATE INDEX arena_versions_uploader ON arena_versions (uploader, created);
-- Pages that follow states as they change.
CREATE INDEX arena_versions_updated ON arena_versions (updated);

-- Builds and checks. A job is claimed with a lease its worker renews; what it hands in is
-- taken only with its latest claim (fencing).
CREATE TABLE arena_jobs (
    id BIGINT PRIMARY KEY,
    kind TEXT NOT NULL,
    version_id BIGINT NOT NULL REFERENCES arena_versions (id),
    -- queued, running, done or failed (its workers kept dying).
    state TEXT NOT NULL,
    claim BIGINT NOT NULL,
    worker TEXT,
    lease_until BIGINT,
    attempts BIGINT NOT NULL,
    error TEXT,
    created BIGINT NOT NULL,
    started BIGINT,
    finished BIGINT
);
CREATE INDEX arena_jobs_queue ON arena_jobs (state, id);
CREATE INDEX arena_jobs_version ON arena_jobs (version_id);

-- The replays of a version's check games (`.jsonl.gz` bytes), shown to its team.
CREATE TABLE arena_check_replays (
    version_id BIGINT NOT NULL REFERENCES arena_versions (id),
    seq BIGINT NOT NULL,
    label TEXT NOT NULL,
    replay BYTEA NOT NULL,
    PRIMARY KEY (version_id, seq)
);
