-- What a running game server shows of itself (crate arbiter-store, `ServerStatus`): its teams,
-- scoreboard, games being played and next start, as one JSON document per game, replaced as it
-- changes, so that `arbiter serve` in another process or on another machine shows it. The
-- finished games are lobby_games. Times are Unix milliseconds.

CREATE TABLE lobby_status (
    game TEXT NOT NULL PRIMARY KEY,
    status TEXT NOT NULL,
    updated BIGINT NOT NULL
);
