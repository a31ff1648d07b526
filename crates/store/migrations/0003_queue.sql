-- The store is the queue: workers on any machine claim matches, each claim with a lease the
-- worker renews while it plays. Written to run unchanged on SQLite and PostgreSQL.

-- How many claims a match has had. A result is taken only from the holder of the latest claim
-- (fencing): a worker whose lease ran out and was taken over cannot score the match too.
ALTER TABLE matches ADD COLUMN claim BIGINT NOT NULL DEFAULT 0;
-- Who holds (or last held) the match: host, process id and process start.
ALTER TABLE matches ADD COLUMN worker TEXT;
-- Until when (Unix milliseconds) the claim holds without being renewed.
ALTER TABLE matches ADD COLUMN lease_until BIGINT;
-- Tries of a match failed by Arbiter, the machine or a worker that stopped renewing its lease.
ALTER TABLE tournaments ADD COLUMN max_attempts BIGINT NOT NULL DEFAULT 3;
-- Claims look for the first queued match of any open tournament.
CREATE INDEX matches_queue ON matches (state, tournament_id, id);
