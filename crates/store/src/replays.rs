//! Replays kept in the database: the bytes of each replay file (`.jsonl.gz`), appended as
//! chunks while the match is played, so that a viewer on any machine can show it, live or
//! finished.
//!
//! A replay is one of a tournament match's claims ([`MatchReplay`]) or one game of a game
//! server ([`ServerReplay`]): [`ReplayKey`] names either. A match played again after its worker
//! died has a replay of its own, and [`ReplayStore::begin`] drops those of older claims; only
//! the newest claim's replay is shown ([`ReplayStore::newest`]). A game server's game has one
//! id for good, so its replay has one key.

use std::fmt;

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, AnyPool, Row};

use crate::database::{Presence, connect};
use crate::{StoreError, now_ms};

/// The most bytes one chunk row holds: an append of more is split, so that a reader fetching a
/// few chunks at a time holds a bounded amount.
pub const MAX_CHUNK: usize = 256 << 10;

/// One claim of one tournament match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatchReplay {
    /// The tournament's id.
    pub tournament: i64,
    /// The match's id in its tournament.
    pub match_id: i64,
    /// The claim of the match that played it (each claim by a worker counts one more).
    pub claim: i64,
}

/// One game of a game server (`arbiter server`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ServerReplay {
    /// The game the server hosts (`labyrinth`, …).
    pub game: String,
    /// The game's id on that server: the one its clients are told.
    pub id: i64,
}

/// Which replay.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ReplayKey {
    /// A tournament match's.
    Match(MatchReplay),
    /// A game server's game's.
    ServerGame(ServerReplay),
}

impl From<MatchReplay> for ReplayKey {
    fn from(key: MatchReplay) -> ReplayKey {
        ReplayKey::Match(key)
    }
}

impl From<ServerReplay> for ReplayKey {
    fn from(key: ServerReplay) -> ReplayKey {
        ReplayKey::ServerGame(key)
    }
}

impl fmt::Display for ReplayKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayKey::Match(m) => write!(
                f,
                "match {} of tournament {} (claim {})",
                m.match_id, m.tournament, m.claim
            ),
            ReplayKey::ServerGame(g) => write!(f, "game {} of the {} server", g.id, g.game),
        }
    }
}

type Query<'q> = sqlx::query::Query<'q, Any, AnyArguments<'q>>;

/// Where a kind of replay is kept: its tables and the columns naming one replay, which every
/// statement binds first ($1, $2, …), before its own values.
struct Tables {
    replays: &'static str,
    chunks: &'static str,
    key: &'static [&'static str],
}

const MATCH_TABLES: Tables = Tables {
    replays: "replays",
    chunks: "replay_chunks",
    key: &["tournament_id", "match_id", "claim"],
};

const SERVER_TABLES: Tables = Tables {
    replays: "server_replays",
    chunks: "server_replay_chunks",
    key: &["game", "game_id"],
};

impl Tables {
    /// `a = $1 AND b = $2 …`: the rows of one replay.
    fn matching(&self) -> String {
        let terms: Vec<String> = (self.key.iter().enumerate())
            .map(|(i, column)| format!("{column} = ${}", i + 1))
            .collect();
        terms.join(" AND ")
    }

    /// The key's columns, and `$1, $2, …` for them.
    fn columns_and_params(&self) -> (String, String) {
        let params: Vec<String> = (1..=self.key.len()).map(|i| format!("${i}")).collect();
        (self.key.join(", "), params.join(", "))
    }

    /// The number of the parameter `n` places after the key's.
    fn param(&self, n: usize) -> String {
        format!("${}", self.key.len() + n)
    }
}

impl ReplayKey {
    fn tables(&self) -> &'static Tables {
        match self {
            ReplayKey::Match(_) => &MATCH_TABLES,
            ReplayKey::ServerGame(_) => &SERVER_TABLES,
        }
    }

    /// Binds the key's values, in the order of [`Tables::key`].
    fn bind<'q>(&self, query: Query<'q>) -> Query<'q> {
        match self {
            ReplayKey::Match(m) => query.bind(m.tournament).bind(m.match_id).bind(m.claim),
            ReplayKey::ServerGame(g) => query.bind(g.game.clone()).bind(g.id),
        }
    }

    /// What a missing replay may mean, for [`StoreError::NoReplay`].
    pub(crate) fn replaced_hint(&self) -> &'static str {
        match self {
            ReplayKey::Match(_) => " (was the match claimed again?)",
            ReplayKey::ServerGame(_) => "",
        }
    }

    /// The rows a new start of this replay replaces: its own, and for a match, those of its
    /// older claims (only the newest claim's replay is ever shown).
    fn replaced(&self) -> String {
        match self {
            ReplayKey::Match(_) => "tournament_id = $1 AND match_id = $2 AND claim <= $3".into(),
            ReplayKey::ServerGame(_) => SERVER_TABLES.matching(),
        }
    }
}

/// How far a stored replay has come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredReplay {
    /// Which replay.
    pub key: ReplayKey,
    /// Chunks stored so far; they are numbered from 0, so this is the next one's number.
    pub chunks: i64,
    /// Their bytes in all.
    pub size: u64,
    /// When it was begun (Unix milliseconds).
    pub started: i64,
    /// When its last chunk was stored (Unix milliseconds).
    pub updated: i64,
    /// Whether the last chunk is in: nothing more will come.
    pub complete: bool,
}

/// One chunk of a stored replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Its number, from 0: the replay is its chunks' bytes in this order.
    pub seq: i64,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// The replays of a store, async. Cloning it shares its connection. Synchronous callers (the
/// uploader of a worker) use [`crate::blocking::ReplayStore`].
#[derive(Clone)]
pub struct ReplayStore {
    pool: AnyPool,
}

impl ReplayStore {
    /// Opens the store at `target` as [`crate::TournamentStore::open`] does, with a connection
    /// of its own.
    pub async fn open(target: &str, presence: Presence) -> Result<ReplayStore, StoreError> {
        let db = connect(target, presence).await?;
        Ok(ReplayStore { pool: db.pool })
    }

    /// Starts (or starts again, empty) the replay of `key`; for a match, drops the replays of
    /// its older claims too: only the newest claim's is ever shown.
    pub async fn begin(&self, key: &ReplayKey) -> Result<(), StoreError> {
        let t = key.tables();
        let mut tx = self.pool.begin().await?;
        for table in [t.chunks, t.replays] {
            let sql = format!("DELETE FROM {table} WHERE {}", key.replaced());
            key.bind(sqlx::query(&sql)).execute(&mut *tx).await?;
        }
        let now = now_ms();
        let (columns, params) = t.columns_and_params();
        let sql = format!(
            "INSERT INTO {} ({columns}, chunks, size, started, updated) \
             VALUES ({params}, 0, 0, {}, {})",
            t.replays,
            t.param(1),
            t.param(2)
        );
        (key.bind(sqlx::query(&sql)).bind(now).bind(now))
            .execute(&mut *tx)
            .await?;
        Ok(tx.commit().await?)
    }

    /// Appends `bytes` to the replay of `key` (as chunks of at most [`MAX_CHUNK`]), all or
    /// nothing. A replay that was never begun, or was dropped for a newer claim, is refused.
    pub async fn append(&self, key: &ReplayKey, bytes: &[u8]) -> Result<(), StoreError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let t = key.tables();
        let mut tx = self.pool.begin().await?;
        let sql = select_replay(t);
        let row = key.bind(sqlx::query(&sql)).fetch_optional(&mut *tx).await?;
        let replay = row
            .as_ref()
            .map(|row| stored(key.clone(), row))
            .transpose()?
            .ok_or_else(|| StoreError::NoReplay { key: key.clone() })?;
        if replay.complete {
            return Err(StoreError::ReplayComplete { key: key.clone() });
        }
        let (columns, params) = t.columns_and_params();
        let insert = format!(
            "INSERT INTO {} ({columns}, seq, bytes) VALUES ({params}, {}, {})",
            t.chunks,
            t.param(1),
            t.param(2)
        );
        let mut seq = replay.chunks;
        for piece in bytes.chunks(MAX_CHUNK) {
            (key.bind(sqlx::query(&insert))
                .bind(seq)
                .bind(piece.to_vec()))
            .execute(&mut *tx)
            .await?;
            seq += 1;
        }
        let update = format!(
            "UPDATE {} SET chunks = {}, size = size + {}, updated = {} WHERE {}",
            t.replays,
            t.param(1),
            t.param(2),
            t.param(3),
            t.matching()
        );
        (key.bind(sqlx::query(&update)))
            .bind(seq)
            .bind(bytes.len() as i64)
            .bind(now_ms())
            .execute(&mut *tx)
            .await?;
        Ok(tx.commit().await?)
    }

    /// Marks the replay of `key` complete: its last chunk is in.
    pub async fn complete(&self, key: &ReplayKey) -> Result<(), StoreError> {
        let t = key.tables();
        let now = now_ms();
        let sql = format!(
            "UPDATE {} SET finished = {}, updated = {} WHERE {}",
            t.replays,
            t.param(1),
            t.param(2),
            t.matching()
        );
        let done = (key.bind(sqlx::query(&sql)).bind(now).bind(now))
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NoReplay { key: key.clone() });
        }
        Ok(())
    }

    /// How far the replay of `key` has come, if it is stored.
    pub async fn replay(&self, key: &ReplayKey) -> Result<Option<StoredReplay>, StoreError> {
        let sql = select_replay(key.tables());
        let row = key
            .bind(sqlx::query(&sql))
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(|row| stored(key.clone(), row)).transpose()
    }

    /// The replay of a match's newest claim, if one is stored.
    pub async fn newest(
        &self,
        tournament: i64,
        match_id: i64,
    ) -> Result<Option<StoredReplay>, StoreError> {
        let sql = format!(
            "SELECT claim, {REPLAY_COLUMNS} FROM replays \
             WHERE tournament_id = $1 AND match_id = $2 ORDER BY claim DESC LIMIT 1"
        );
        let row = (sqlx::query(&sql).bind(tournament).bind(match_id))
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref()
            .map(|row| {
                let key = MatchReplay {
                    tournament,
                    match_id,
                    claim: row.try_get("claim")?,
                };
                stored(key.into(), row)
            })
            .transpose()
    }

    /// The chunks of the replay of `key` from number `from` on, at most `limit` of them (each
    /// at most [`MAX_CHUNK`] bytes), in order.
    pub async fn chunks(
        &self,
        key: &ReplayKey,
        from: i64,
        limit: u32,
    ) -> Result<Vec<Chunk>, StoreError> {
        let t = key.tables();
        let sql = format!(
            "SELECT seq, bytes FROM {} WHERE {} AND seq >= {} ORDER BY seq LIMIT {}",
            t.chunks,
            t.matching(),
            t.param(1),
            t.param(2)
        );
        let rows = (key
            .bind(sqlx::query(&sql))
            .bind(from)
            .bind(i64::from(limit)))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(Chunk {
                    seq: row.try_get("seq")?,
                    bytes: row.try_get("bytes")?,
                })
            })
            .collect()
    }

    /// Closes the connection, waiting for it to finish.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

/// The columns of a replay's row that say how far it has come.
const REPLAY_COLUMNS: &str = "chunks, size, started, updated, finished";

fn select_replay(t: &Tables) -> String {
    format!(
        "SELECT {REPLAY_COLUMNS} FROM {} WHERE {}",
        t.replays,
        t.matching()
    )
}

fn stored(key: ReplayKey, row: &AnyRow) -> Result<StoredReplay, StoreError> {
    Ok(StoredReplay {
        key,
        chunks: row.try_get("chunks")?,
        size: row.try_get::<i64, _>("size")? as u64,
        started: row.try_get("started")?,
        updated: row.try_get("updated")?,
        complete: row.try_get::<Option<i64>, _>("finished")?.is_some(),
    })
}

/// The tests take the store's target, so that they run on PostgreSQL as well as on SQLite.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::TournamentStore;
    use crate::tournaments::tests::{new_matches, scratch, settings, tournament};

    /// A tournament with matches 1 and 2 in the store at `target`, and its replays.
    async fn replays_of_a_tournament(target: &str) -> (i64, ReplayStore) {
        let store = TournamentStore::open(target, Presence::MayCreate)
            .await
            .unwrap();
        let id = store
            .create(&tournament(), &settings, &[], &new_matches(), None)
            .await
            .unwrap();
        store.close().await;
        (
            id,
            ReplayStore::open(target, Presence::MustExist)
                .await
                .unwrap(),
        )
    }

    async fn all_bytes(store: &ReplayStore, key: &ReplayKey) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut next = 0;
        loop {
            let chunks = store.chunks(key, next, 2).await.unwrap();
            if chunks.is_empty() {
                return bytes;
            }
            for chunk in chunks {
                assert_eq!(chunk.seq, next, "chunks come in order, none missing");
                bytes.extend_from_slice(&chunk.bytes);
                next += 1;
            }
        }
    }

    pub(crate) async fn chunks_come_back_in_order_until_complete(target: &str) {
        let (t, store) = replays_of_a_tournament(target).await;
        let key = ReplayKey::from(MatchReplay {
            tournament: t,
            match_id: 1,
            claim: 1,
        });
        assert_eq!(store.replay(&key).await.unwrap(), None);
        store.begin(&key).await.unwrap();
        let large: Vec<u8> = (0..MAX_CHUNK * 2 + 5).map(|i| (i % 251) as u8).collect();
        let pieces: [&[u8]; 4] = [&[0x1f, 0x8b, 0], b"", &large, &[0, 1, 2, 255]];
        let mut written = Vec::new();
        for piece in pieces {
            store.append(&key, piece).await.unwrap();
            written.extend_from_slice(piece);
        }
        let replay = store.replay(&key).await.unwrap().unwrap();
        assert_eq!((replay.chunks, replay.size), (5, written.len() as u64));
        assert!(!replay.complete);
        assert_eq!(all_bytes(&store, &key).await, written);
        store.complete(&key).await.unwrap();
        assert!(store.replay(&key).await.unwrap().unwrap().complete);
        let late = store.append(&key, b"late").await.unwrap_err();
        assert!(matches!(late, StoreError::ReplayComplete { .. }), "{late}");
        assert_eq!(store.newest(t, 1).await.unwrap().unwrap().key, key);
        assert_eq!(store.newest(t, 2).await.unwrap(), None);
        store.close().await;
    }

    pub(crate) async fn a_newer_claim_replaces_the_replay_of_an_older_one(target: &str) {
        let (t, store) = replays_of_a_tournament(target).await;
        let claim = |claim| {
            ReplayKey::from(MatchReplay {
                tournament: t,
                match_id: 2,
                claim,
            })
        };
        store.begin(&claim(1)).await.unwrap();
        store.append(&claim(1), b"dead worker's").await.unwrap();
        store.begin(&claim(2)).await.unwrap();
        store.append(&claim(2), b"new").await.unwrap();
        assert_eq!(store.replay(&claim(1)).await.unwrap(), None, "dropped");
        let stale = store.append(&claim(1), b" more").await.unwrap_err();
        assert!(
            matches!(&stale, StoreError::NoReplay { key } if *key == claim(1)),
            "{stale}"
        );
        assert!(stale.to_string().contains("claimed again"), "{stale}");
        // An old worker beginning late does not hide the newest claim's replay.
        store.begin(&claim(1)).await.unwrap();
        let newest = store.newest(t, 2).await.unwrap().unwrap();
        assert_eq!((newest.key, newest.size), (claim(2), 3));
        assert_eq!(all_bytes(&store, &claim(2)).await, b"new");
        // Beginning again starts empty.
        store.begin(&claim(2)).await.unwrap();
        assert_eq!(store.replay(&claim(2)).await.unwrap().unwrap().size, 0);
        assert!(store.chunks(&claim(2), 0, 10).await.unwrap().is_empty());
        store.close().await;
    }

    #[tokio::test]
    async fn chunks_round_trip_on_sqlite() {
        chunks_come_back_in_order_until_complete(&scratch("replay-chunks")).await;
    }

    #[tokio::test]
    async fn claims_on_sqlite() {
        a_newer_claim_replaces_the_replay_of_an_older_one(&scratch("replay-claims")).await;
    }
}
