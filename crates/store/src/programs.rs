//! Player programs in the store: archives named by their hash, written once whoever stores
//! them again.

use sqlx::{AnyPool, Row};

use crate::{StoreError, TournamentStore, now_ms};

/// A player folder's archive as stored (packed and unpacked by crate `arbiter-programs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredProgram {
    /// Its name: the SHA-256 of its canonical stream.
    pub hash: String,
    /// The bytes of its files, unpacked.
    pub size: u64,
    /// Its files, folders and links.
    pub entries: u64,
    /// The compressed archive.
    pub archive: Vec<u8>,
}

impl TournamentStore {
    /// Stores a program unless one of its hash is there already: the same hash is the same
    /// program, so storing it twice (two tournaments, two coordinators) is harmless.
    pub async fn save_program(&self, program: &StoredProgram) -> Result<(), StoreError> {
        save_program(&self.pool, program).await
    }

    /// The program named `hash`, if the store has it.
    pub async fn program(&self, hash: &str) -> Result<Option<StoredProgram>, StoreError> {
        program(&self.pool, hash).await
    }
}

/// [`TournamentStore::save_program`] on any store's pool (the arena's builds store theirs).
pub(crate) async fn save_program(
    pool: &AnyPool,
    program: &StoredProgram,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO programs (hash, size, entries, archive, created) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (hash) DO NOTHING",
    )
    .bind(&program.hash)
    .bind(program.size as i64)
    .bind(program.entries as i64)
    .bind(program.archive.clone())
    .bind(now_ms())
    .execute(pool)
    .await?;
    Ok(())
}

/// [`TournamentStore::program`] on any store's pool.
pub(crate) async fn program(
    pool: &AnyPool,
    hash: &str,
) -> Result<Option<StoredProgram>, StoreError> {
    let row = sqlx::query("SELECT hash, size, entries, archive FROM programs WHERE hash = $1")
        .bind(hash)
        .fetch_optional(pool)
        .await?;
    row.map(|row| {
        Ok(StoredProgram {
            hash: row.try_get("hash")?,
            size: row.try_get::<i64, _>("size")? as u64,
            entries: row.try_get::<i64, _>("entries")? as u64,
            archive: row.try_get("archive")?,
        })
    })
    .transpose()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Presence;
    use crate::rows::Contestant;
    use crate::tournaments::tests::{new_matches, scratch, settings, tournament};

    /// The store to test on: `ARBITER_TEST_STORE` (a PostgreSQL URL) when set, else a fresh
    /// SQLite file.
    fn target(name: &str) -> String {
        std::env::var("ARBITER_TEST_STORE").unwrap_or_else(|_| scratch(name))
    }

    fn program(archive: Vec<u8>) -> StoredProgram {
        // A distinct name per archive, so that runs on a shared PostgreSQL do not meet.
        let hash: String = format!(
            "{:064x}",
            crate::now_ms() as u128 * 1000 + archive.len() as u128
        );
        StoredProgram {
            hash,
            size: 12,
            entries: 3,
            archive,
        }
    }

    /// Every byte value, NUL and invalid UTF-8 included, comes back as it went in.
    #[tokio::test]
    async fn a_program_is_stored_once_and_read_back_byte_for_byte() {
        let store = TournamentStore::open(&target("programs"), Presence::MayCreate)
            .await
            .unwrap();
        let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let p = program(bytes);
        assert_eq!(store.program(&p.hash).await.unwrap(), None);
        store.save_program(&p).await.unwrap();
        let again = StoredProgram {
            archive: vec![1, 2, 3],
            ..p.clone()
        };
        store.save_program(&again).await.unwrap();
        assert_eq!(
            store.program(&p.hash).await.unwrap(),
            Some(p.clone()),
            "the first is kept"
        );
        if store.file().is_some() {
            // BYTEA has NUMERIC affinity in SQLite, which leaves a blob a blob.
            let kind: String = sqlx::query("SELECT typeof(archive) FROM programs WHERE hash = $1")
                .bind(&p.hash)
                .fetch_one(&store.pool)
                .await
                .unwrap()
                .try_get(0)
                .unwrap();
            assert_eq!(kind, "blob");
        }
    }

    #[tokio::test]
    async fn a_players_program_is_stored_with_it() {
        let store = TournamentStore::open(&target("program-column"), Presence::MayCreate)
            .await
            .unwrap();
        let mut bot = Contestant::builtin("a");
        bot.id = "123456".into();
        bot.command = Some("./bot".into());
        bot.folder = Some("/players/123456".into());
        bot.program = Some("ab".repeat(32));
        let players = [bot, Contestant::builtin("b")];
        let id = store
            .create(&tournament(), &settings, &players, &new_matches(), None)
            .await
            .unwrap();
        assert_eq!(store.players(id).await.unwrap(), players);
    }
}
