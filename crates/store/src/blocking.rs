//! The tournament store for synchronous callers: the tournament runner and its worker pool,
//! whose referee blocks. Each call runs [`TournamentStore`]'s on a small runtime of this
//! store's own, so it must not be called from inside another runtime. [`ReplayStore`] does the
//! same for [`crate::ReplayStore`], for the uploaders of replays.

use std::path::Path;

use crate::replays::{Chunk, ReplayKey, StoredReplay};
use crate::rows::{Contestant, MatchRow, NewMatch, RatingRow, StoredResult, Tournament};
use crate::{
    Advance, Backend, Claimed, Counts, Expired, Handed, Presence, Scope, Standing, StoreError,
    StoredProgram, TournamentStore,
};

/// [`TournamentStore`], blocking: the same methods, each waiting for its answer.
pub struct Store {
    /// PostgreSQL: the connection that hears of new matches, once [`Store::wait_for_work`]
    /// has opened it. Before the runtime, so that it is dropped first.
    listener: std::sync::Mutex<Listener>,
    runtime: tokio::runtime::Runtime,
    inner: TournamentStore,
    /// What it was opened with, to open a [`ReplayStore`] on the same database.
    target: String,
}

/// A PostgreSQL listener, and the runtime its connection lives on: dropping the listener
/// spawns its connection's closing, which needs the runtime entered.
struct Listener {
    runtime: tokio::runtime::Handle,
    inner: Option<sqlx::postgres::PgListener>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _entered = self.runtime.enter();
        self.inner.take();
    }
}

impl Store {
    /// Opens (creating and migrating if needed) the store at `target`: a PostgreSQL URL, a
    /// `sqlite:` URL, or the path of a SQLite file.
    pub fn open(target: &str, presence: Presence) -> Result<Store, StoreError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(StoreError::io("starting the store's runtime"))?;
        let inner = runtime.block_on(TournamentStore::open(target, presence))?;
        Ok(Store {
            listener: std::sync::Mutex::new(Listener {
                runtime: runtime.handle().clone(),
                inner: None,
            }),
            runtime,
            inner,
            target: target.to_owned(),
        })
    }

    /// Waits up to `timeout` for new matches: on PostgreSQL until one is announced (a new
    /// tournament or round notifies the workers), on SQLite the whole time (workers poll).
    /// Matches whose workers died are announced by nobody: the timeout is when to look again.
    pub fn wait_for_work(&self, timeout: std::time::Duration) {
        if !self.is_postgres() {
            std::thread::sleep(timeout);
            return;
        }
        let mut listener = self.listener.lock().unwrap_or_else(|e| e.into_inner());
        let listener = &mut listener.inner;
        self.runtime.block_on(async {
            if listener.is_none() {
                *listener = listen(&self.target).await;
            }
            match listener.as_mut() {
                Some(l) => {
                    if let Ok(Err(_)) = tokio::time::timeout(timeout, l.recv()).await {
                        // A broken connection: listened for again at the next wait.
                        *listener = None;
                    }
                }
                None => tokio::time::sleep(timeout).await,
            }
        });
    }

    /// Whether the store is a PostgreSQL database, which workers on other machines share:
    /// replays are then kept in it too (see [`ReplayStore`]), as files reach no other machine.
    pub fn is_postgres(&self) -> bool {
        self.backend() == Backend::Postgres
    }

    /// The replays of this store, on a connection of their own (see [`ReplayStore`]).
    pub fn open_replays(&self) -> Result<ReplayStore, StoreError> {
        ReplayStore::open(&self.target, Presence::MustExist)
    }

    /// The SQLite file behind the store, if it is one.
    pub fn file(&self) -> Option<&Path> {
        self.inner.file()
    }

    /// Which database speaks.
    pub fn backend(&self) -> Backend {
        self.inner.backend()
    }

    /// See [`TournamentStore::create`].
    pub fn create(
        &self,
        t: &Tournament,
        settings_of: &(dyn Fn(i64) -> serde_json::Value + Sync),
        players: &[Contestant],
        matches: &[NewMatch],
        bye: Option<(u32, &str)>,
    ) -> Result<i64, StoreError> {
        self.runtime
            .block_on(self.inner.create(t, settings_of, players, matches, bye))
    }

    /// See [`TournamentStore::latest`].
    pub fn latest(&self) -> Result<Option<i64>, StoreError> {
        self.runtime.block_on(self.inner.latest())
    }

    /// See [`TournamentStore::tournament`].
    pub fn tournament(&self, id: i64) -> Result<Tournament, StoreError> {
        self.runtime.block_on(self.inner.tournament(id))
    }

    /// See [`TournamentStore::rename`].
    pub fn rename(&self, id: i64, name: Option<&str>) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.rename(id, name))
    }

    /// See [`TournamentStore::players`].
    pub fn players(&self, tournament: i64) -> Result<Vec<Contestant>, StoreError> {
        self.runtime.block_on(self.inner.players(tournament))
    }

    /// See [`TournamentStore::claim`].
    pub fn claim(
        &self,
        worker: &str,
        lease_ms: i64,
        scope: Scope,
    ) -> Result<Option<Claimed>, StoreError> {
        self.runtime
            .block_on(self.inner.claim(worker, lease_ms, scope))
    }

    /// See [`TournamentStore::renew`].
    pub fn renew(&self, worker: &str, lease_ms: i64) -> Result<u64, StoreError> {
        self.runtime.block_on(self.inner.renew(worker, lease_ms))
    }

    /// See [`TournamentStore::expire_leases`].
    pub fn expire_leases(&self) -> Result<Vec<Expired>, StoreError> {
        self.runtime.block_on(self.inner.expire_leases())
    }

    /// See [`TournamentStore::release`].
    pub fn release(&self, worker: &str) -> Result<Vec<Expired>, StoreError> {
        self.runtime.block_on(self.inner.release(worker))
    }

    /// See [`TournamentStore::running_workers`].
    pub fn running_workers(&self) -> Result<Vec<String>, StoreError> {
        self.runtime.block_on(self.inner.running_workers())
    }

    /// See [`TournamentStore::finish`].
    pub fn finish(
        &self,
        tournament: i64,
        results: &[(i64, i64, StoredResult)],
    ) -> Result<Vec<Handed>, StoreError> {
        self.runtime
            .block_on(self.inner.finish(tournament, results))
    }

    /// See [`TournamentStore::record_failure`].
    pub fn record_failure(
        &self,
        tournament: i64,
        id: i64,
        claim: i64,
        error: &str,
    ) -> Result<(Handed, bool), StoreError> {
        self.runtime
            .block_on(self.inner.record_failure(tournament, id, claim, error))
    }

    /// See [`TournamentStore::counts`].
    pub fn counts(&self, tournament: i64) -> Result<Counts, StoreError> {
        self.runtime.block_on(self.inner.counts(tournament))
    }

    /// See [`TournamentStore::open_tournaments`].
    pub fn open_tournaments(&self) -> Result<Vec<i64>, StoreError> {
        self.runtime.block_on(self.inner.open_tournaments())
    }

    /// See [`TournamentStore::advance`].
    pub fn advance(
        &self,
        tournament: i64,
        decide: impl FnOnce(&Standing) -> Advance,
    ) -> Result<Option<Advance>, StoreError> {
        self.runtime
            .block_on(self.inner.advance(tournament, decide))
    }

    /// See [`TournamentStore::save_ratings`].
    pub fn save_ratings(
        &self,
        tournament: i64,
        round: u32,
        rows: &[RatingRow],
    ) -> Result<(), StoreError> {
        self.runtime
            .block_on(self.inner.save_ratings(tournament, round, rows))
    }

    /// See [`TournamentStore::matches`].
    pub fn matches(&self, tournament: i64) -> Result<Vec<MatchRow>, StoreError> {
        self.runtime.block_on(self.inner.matches(tournament))
    }

    /// See [`TournamentStore::byes`].
    pub fn byes(&self, tournament: i64) -> Result<Vec<(u32, String)>, StoreError> {
        self.runtime.block_on(self.inner.byes(tournament))
    }

    /// See [`TournamentStore::ratings`].
    pub fn ratings(&self, tournament: i64) -> Result<Vec<(u32, RatingRow)>, StoreError> {
        self.runtime.block_on(self.inner.ratings(tournament))
    }

    /// See [`TournamentStore::mark_finished`].
    pub fn mark_finished(&self, tournament: i64) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.mark_finished(tournament))
    }

    /// See [`TournamentStore::save_program`].
    pub fn save_program(&self, program: &StoredProgram) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.save_program(program))
    }

    /// See [`TournamentStore::program`].
    pub fn program(&self, hash: &str) -> Result<Option<StoredProgram>, StoreError> {
        self.runtime.block_on(self.inner.program(hash))
    }

    /// Closes the connection, waiting for it to finish.
    pub fn close(self) {
        let Store {
            listener,
            runtime,
            inner,
            ..
        } = self;
        drop(listener);
        runtime.block_on(inner.close());
    }
}

/// A connection listening for new matches at the PostgreSQL database `target`; none when it
/// cannot be had (the caller then waits its timeout).
async fn listen(target: &str) -> Option<sqlx::postgres::PgListener> {
    let mut listener = sqlx::postgres::PgListener::connect(target).await.ok()?;
    listener.listen(crate::WORK_CHANNEL).await.ok()?;
    Some(listener)
}

/// Whether a store's target names a PostgreSQL database.
pub fn is_postgres(target: &str) -> bool {
    Backend::of(target) == Backend::Postgres
}

/// [`crate::ReplayStore`], blocking: the same methods, each waiting for its answer. Unlike
/// [`Store`], it may be called from several threads at once (a worker's uploaders share one):
/// its runtime has a thread of its own that drives the connection.
pub struct ReplayStore {
    runtime: tokio::runtime::Runtime,
    inner: crate::ReplayStore,
}

impl ReplayStore {
    /// Opens the store at `target` as [`Store::open`] does, for its replays.
    pub fn open(target: &str, presence: Presence) -> Result<ReplayStore, StoreError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("arbiter-replays")
            .enable_all()
            .build()
            .map_err(StoreError::io("starting the replay store's runtime"))?;
        let inner = runtime.block_on(crate::ReplayStore::open(target, presence))?;
        Ok(ReplayStore { runtime, inner })
    }

    /// See [`crate::ReplayStore::begin`].
    pub fn begin(&self, key: &ReplayKey) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.begin(key))
    }

    /// See [`crate::ReplayStore::append`].
    pub fn append(&self, key: &ReplayKey, bytes: &[u8]) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.append(key, bytes))
    }

    /// See [`crate::ReplayStore::complete`].
    pub fn complete(&self, key: &ReplayKey) -> Result<(), StoreError> {
        self.runtime.block_on(self.inner.complete(key))
    }

    /// See [`crate::ReplayStore::replay`].
    pub fn replay(&self, key: &ReplayKey) -> Result<Option<StoredReplay>, StoreError> {
        self.runtime.block_on(self.inner.replay(key))
    }

    /// See [`crate::ReplayStore::newest`].
    pub fn newest(
        &self,
        tournament: i64,
        match_id: i64,
    ) -> Result<Option<StoredReplay>, StoreError> {
        self.runtime
            .block_on(self.inner.newest(tournament, match_id))
    }

    /// See [`crate::ReplayStore::chunks`].
    pub fn chunks(&self, key: &ReplayKey, from: i64, limit: u32) -> Result<Vec<Chunk>, StoreError> {
        self.runtime.block_on(self.inner.chunks(key, from, limit))
    }

    /// Closes the connection, waiting for it to finish.
    pub fn close(self) {
        let ReplayStore { runtime, inner } = self;
        runtime.block_on(inner.close());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournaments::tests::{new_matches, scratch, settings, tournament};

    /// The facade is the async store, called from a plain thread: what one writes the other
    /// reads.
    #[test]
    fn the_blocking_store_and_the_async_store_share_the_database() {
        let target = scratch("blocking");
        let store = Store::open(&target, Presence::MayCreate).unwrap();
        let id = store
            .create(&tournament(), &settings, &[], &new_matches(), None)
            .unwrap();
        let claimed = store
            .claim("w", 60_000, Scope::Tournament(id))
            .unwrap()
            .unwrap()
            .row;
        assert_eq!(store.latest().unwrap(), Some(id));
        store.close();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let rows = runtime.block_on(async {
            let store = TournamentStore::open(&target, Presence::MayCreate)
                .await
                .unwrap();
            store.matches(id).await.unwrap()
        });
        assert_eq!(rows[0].id, claimed.id);
        assert_eq!(rows[0].state, crate::MatchState::Running);
    }
}
