//! The store's scenarios on both of its backends: a SQLite file and a throw-away PostgreSQL
//! cluster (`arbiter-pgtest`). Each scenario takes a fresh target and uses the public API only.

use std::path::PathBuf;

use arbiter_pgtest::Cluster;
use arbiter_store::{
    Contestant, Format, GameRecord, GameServerStore, MatchState, NewMatch, Presence, RatingRow,
    ServerMode, StoreError, StoredResult, Totals, Tournament, TournamentStore,
};

/// Where a scenario's store lives.
trait Backend {
    /// A new store's target, named `name`, not created yet (SQLite) or empty (PostgreSQL).
    fn fresh(&self, name: &str) -> String;
}

struct Sqlite(PathBuf);

impl Backend for Sqlite {
    fn fresh(&self, name: &str) -> String {
        let dir = self.0.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("t.db").to_str().unwrap().to_owned()
    }
}

impl Backend for Cluster {
    fn fresh(&self, name: &str) -> String {
        self.database(name)
    }
}

/// Every scenario, in turn, each on a store of its own.
fn scenarios(backend: &dyn Backend) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        a_tournament_is_written_played_and_read_back(backend.fresh("round_trip")).await;
        failures_requeue_a_match_until_its_last_attempt(backend.fresh("failures")).await;
        a_missing_tournament_is_named(backend.fresh("missing")).await;
        game_server_totals_survive_reopening(backend.fresh("game_server")).await;
        a_read_only_open_reads_what_was_written(backend.fresh("read_only")).await;
    });
}

#[test]
fn scenarios_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("arbiter-store-backends-{}", std::process::id()));
    scenarios(&Sqlite(dir.clone()));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn scenarios_on_postgresql() {
    scenarios(&Cluster::start().unwrap());
}

#[tokio::test]
async fn a_store_whose_connection_was_cut_reconnects() {
    let cluster = Cluster::start().unwrap();
    let target = cluster.database("cut");
    let (store, id) = with_tournament(&target).await;
    cluster.terminate_connections("cut");
    assert_eq!(store.latest().await.unwrap(), Some(id));
    assert_eq!(store.matches(id).await.unwrap().len(), 2);
}

#[tokio::test]
async fn an_unreachable_postgresql_is_named() {
    let cluster = Cluster::start().unwrap();
    let target = cluster.database("gone");
    drop(cluster);
    let error = TournamentStore::open(&target, Presence::MayCreate)
        .await
        .err()
        .unwrap();
    assert!(
        error
            .to_string()
            .starts_with(&format!("cannot open the store {target}: ")),
        "{error}"
    );
}

/// A new store at `target` with a tournament of two matches and no players.
async fn with_tournament(target: &str) -> (TournamentStore, i64) {
    let store = TournamentStore::open(target, Presence::MayCreate)
        .await
        .unwrap();
    let id = store
        .create(&tournament(), &[], &new_matches(), None)
        .await
        .unwrap();
    (store, id)
}

fn tournament() -> Tournament {
    Tournament {
        id: 0,
        game: "quoridor".into(),
        format: Format::Swiss,
        seed: 7,
        rounds: 2,
        players_per_match: 2,
        settings: serde_json::json!({"flags": {"level": 1}}),
        created: 1_700_000_000_000,
        finished: None,
    }
}

fn new_matches() -> Vec<NewMatch> {
    (1..=2)
        .map(|id| NewMatch {
            id,
            round: 1,
            seats: vec!["builtin:a".into(), "builtin:b".into()],
            seed: id as u64 * 10,
        })
        .collect()
}

fn result() -> StoredResult {
    StoredResult {
        scores: vec![1.0, 0.0],
        placement: vec![1, 2],
        reason: "goal".into(),
        faults: Vec::new(),
        replay: Some("m00001.jsonl.gz".into()),
        ticks: 12,
        time_ms: vec![1.5, 2.5],
        turns: vec![6, 6],
    }
}

async fn a_tournament_is_written_played_and_read_back(target: String) {
    let store = TournamentStore::open(&target, Presence::MayCreate)
        .await
        .unwrap();
    assert_eq!(store.latest().await.unwrap(), None);
    let players = [Contestant::builtin("a"), Contestant::builtin("b")];
    let id = store
        .create(
            &tournament(),
            &players,
            &new_matches(),
            Some((1, "builtin:c")),
        )
        .await
        .unwrap();
    assert_eq!(id, 1);
    let first = store.claim_next(id).await.unwrap().unwrap();
    assert_eq!((first.id, first.state), (1, MatchState::Running));
    let rating = RatingRow {
        player: "builtin:a".into(),
        rating: 1016.0,
        deviation: None,
        games: 1,
    };
    let rated = RatingRow {
        deviation: Some(40.5),
        ..rating.clone()
    };
    store
        .finish(id, first.id, &result(), &[(1, vec![rating.clone()])])
        .await
        .unwrap();
    store
        .save_ratings(id, 2, std::slice::from_ref(&rated))
        .await
        .unwrap();
    store.claim_next(id).await.unwrap().unwrap();
    store.close().await;

    let store = TournamentStore::open(&target, Presence::MustExist)
        .await
        .unwrap();
    let t = store.tournament(id).await.unwrap();
    let wanted = tournament();
    assert_eq!(
        (t.format, t.seed, t.rounds, t.settings),
        (wanted.format, wanted.seed, wanted.rounds, wanted.settings)
    );
    assert_eq!(store.players(id).await.unwrap(), players);
    assert_eq!(store.byes(id).await.unwrap(), vec![(1, "builtin:c".into())]);
    assert_eq!(
        store.ratings(id).await.unwrap(),
        vec![(1, rating), (2, rated)]
    );
    assert_eq!(store.requeue_running(id).await.unwrap(), 1);
    let rows = store.matches(id).await.unwrap();
    assert_eq!(rows[0].state, MatchState::Done);
    assert_eq!(rows[0].result, Some(result()));
    assert_eq!((rows[1].state, rows[1].started), (MatchState::Queued, None));
    store.mark_finished(id).await.unwrap();
    assert!(store.tournament(id).await.unwrap().finished.is_some());
    let second = store
        .create(&tournament(), &[], &new_matches(), None)
        .await
        .unwrap();
    assert_eq!(second, 2, "numbers go on");
}

async fn failures_requeue_a_match_until_its_last_attempt(target: String) {
    let (store, id) = with_tournament(&target).await;
    store.claim_next(id).await.unwrap().unwrap();
    assert!(!store.record_failure(id, 1, "disk full", 2).await.unwrap());
    let again = store.claim_next(id).await.unwrap().unwrap();
    assert_eq!((again.id, again.attempts), (1, 1));
    assert!(store.record_failure(id, 1, "disk full", 2).await.unwrap());
    let rows = store.matches(id).await.unwrap();
    assert_eq!(rows[0].state, MatchState::Failed);
    assert_eq!(rows[0].error.as_deref(), Some("disk full"));
    assert!(rows[0].finished.is_some());
    let next = store.claim_next(id).await.unwrap().unwrap();
    assert_eq!(next.id, 2, "a failed match is not claimed again");
}

async fn a_missing_tournament_is_named(target: String) {
    let store = TournamentStore::open(&target, Presence::MayCreate)
        .await
        .unwrap();
    let error = store.tournament(3).await.unwrap_err();
    assert!(matches!(error, StoreError::NoTournament(3)), "{error}");
    assert_eq!(error.to_string(), "there is no tournament 3 in the store");
}

async fn game_server_totals_survive_reopening(target: String) {
    let store = GameServerStore::open(&target, "labyrinth").await.unwrap();
    assert_eq!(store.next_game_id().await.unwrap(), 1);
    for (id, mode, points) in [(1, ServerMode::Test, 2.0), (2, ServerMode::Live, 3.0)] {
        store
            .record_game(&GameRecord {
                id,
                round: id,
                mode,
                level: 1,
                seats: vec!["alice".into(), "robot_1".into()],
                teams: vec![true, false],
                points: vec![points, 1.0],
                reason: "tick_limit".into(),
                replay: None,
            })
            .await
            .unwrap();
    }
    drop(store);
    let store = GameServerStore::open(&target, "labyrinth").await.unwrap();
    assert_eq!(store.next_game_id().await.unwrap(), 3);
    assert_eq!(store.rounds_played(ServerMode::Live).await.unwrap(), 1);
    assert_eq!(store.next_round().await.unwrap(), 3);
    let totals = store.totals().await.unwrap();
    assert_eq!(totals.len(), 1, "robots have no totals: {totals:?}");
    assert_eq!(
        totals["alice"],
        Totals {
            test: 2.0,
            live: 3.0
        }
    );
    assert_eq!(store.games().await.unwrap()[1].points, vec![3.0, 1.0]);
    // Another game's server in the same database starts afresh.
    let other = GameServerStore::open(&target, "quoridor").await.unwrap();
    assert_eq!(other.next_game_id().await.unwrap(), 1);
}

async fn a_read_only_open_reads_what_was_written(target: String) {
    let (store, id) = with_tournament(&target).await;
    let reader = TournamentStore::open(&target, Presence::ReadOnly)
        .await
        .unwrap();
    assert_eq!(reader.latest().await.unwrap(), Some(id));
    let claimed = store.claim_next(id).await.unwrap().unwrap();
    assert_eq!(
        reader.matches(id).await.unwrap()[0].state,
        MatchState::Running,
        "a reader sees the writer's commits"
    );
    assert_eq!(claimed.id, 1);
}
