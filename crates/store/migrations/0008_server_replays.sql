-- Replays of the game server's games kept in the database, as tournament matches' are (0005),
-- so that a viewer on another machine shows them: the bytes of each game's `.jsonl.gz` file,
-- appended as chunks while the game is played. A game keeps its id for good (`lobby_games`),
-- so its replay has no claim; the game's row in `lobby_games` is written only once it is over,
-- while its replay is followed from its start, hence no foreign key to it.

CREATE TABLE server_replays (
    game TEXT NOT NULL,
    game_id BIGINT NOT NULL,
    -- Chunks appended so far (the next one's seq), and their bytes in all.
    chunks BIGINT NOT NULL,
    size BIGINT NOT NULL,
    started BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    -- Set once the last chunk is in: nothing more will come.
    finished BIGINT,
    PRIMARY KEY (game, game_id)
);

CREATE TABLE server_replay_chunks (
    game TEXT NOT NULL,
    game_id BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    bytes BYTEA NOT NULL,
    PRIMARY KEY (game, game_id, seq),
    FOREIGN KEY (game, game_id) REFERENCES server_replays (game, game_id)
);
