//! The store's scenarios on both of its backends: a SQLite file and a throw-away PostgreSQL
//! cluster (`arbiter-pgtest`). Each scenario takes a fresh target and uses the public API only.

use std::collections::BTreeSet;
use std::path::PathBuf;

use arbiter_pgtest::Cluster;
use arbiter_store::blocking::Store;
use arbiter_store::{
    Advance, Contestant, Expired, Format, GameRecord, GameServerStore, Handed, MatchState,
    NewMatch, Presence, RatingRow, ReplayKey, ReplayStore, Round, Scope, ServerMode, ServerReplay,
    Standing, StoreError, StoredResult, Totals, Tournament, TournamentStore,
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
        a_result_from_a_worker_whose_lease_was_taken_over_is_refused(backend.fresh("fencing"))
            .await;
        a_match_whose_workers_keep_dying_fails_after_its_last_attempt(backend.fresh("dying")).await;
        a_renewed_lease_is_not_expired(backend.fresh("renew")).await;
        a_due_tournament_is_advanced_once_and_a_finished_one_never(backend.fresh("advance")).await;
        a_missing_tournament_is_named(backend.fresh("missing")).await;
        game_server_totals_survive_reopening(backend.fresh("game_server")).await;
        a_game_servers_replays_are_kept_by_game_and_id(backend.fresh("server_replays")).await;
        a_read_only_open_reads_what_was_written(backend.fresh("read_only")).await;
    });
    workers_claiming_at_once_take_each_match_exactly_once(&backend.fresh("many"));
}

#[test]
fn scenarios_on_sqlite() {
    scenarios(&Sqlite(arbiter_testdir::fresh("sqlite")));
}

#[test]
fn scenarios_on_postgresql() {
    scenarios(&Cluster::start().unwrap());
}

#[tokio::test]
async fn a_store_whose_connection_was_cut_reconnects() {
    let cluster = Cluster::start().unwrap();
    let target = cluster.database("cut");
    let (store, id) = with_tournament(&target, 3).await;
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

/// A lease of a minute, in milliseconds.
const MINUTE: i64 = 60_000;

/// A new store at `target` with a tournament of two matches and no players, each match tried
/// `max_attempts` times.
async fn with_tournament(target: &str, max_attempts: u32) -> (TournamentStore, i64) {
    let store = TournamentStore::open(target, Presence::MayCreate)
        .await
        .unwrap();
    let t = Tournament {
        max_attempts,
        name: None,
        ..tournament()
    };
    let id = store
        .create(&t, &settings, &[], &new_matches(), None)
        .await
        .unwrap();
    (store, id)
}

/// The settings tournament `id` is stored with: they name it, as a run's name its replays.
fn settings(id: i64) -> serde_json::Value {
    serde_json::json!({ "replays": format!("t{id}") })
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
        max_attempts: 3,
        name: Some("Spring final".into()),
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
            &settings,
            &players,
            &new_matches(),
            Some((1, "builtin:c")),
        )
        .await
        .unwrap();
    assert_eq!(id, 1);
    let first = store.claim("w", MINUTE, Scope::Tournament(id)).await;
    let first = first.unwrap().unwrap().row;
    assert_eq!(
        (first.id, first.state, first.claim),
        (1, MatchState::Running, 1)
    );
    assert_eq!(first.worker.as_deref(), Some("w"));
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
    let handed = store.finish(id, &[(first.id, first.claim, result())]).await;
    assert_eq!(handed.unwrap(), [Handed::Taken]);
    store
        .save_ratings(id, 1, std::slice::from_ref(&rating))
        .await
        .unwrap();
    store
        .save_ratings(id, 2, std::slice::from_ref(&rated))
        .await
        .unwrap();
    store
        .claim("w", MINUTE, Scope::Tournament(id))
        .await
        .unwrap()
        .unwrap();
    store.close().await;

    let store = TournamentStore::open(&target, Presence::MustExist)
        .await
        .unwrap();
    let t = store.tournament(id).await.unwrap();
    let wanted = tournament();
    assert_eq!(
        (
            t.format,
            t.seed,
            t.rounds,
            t.settings,
            t.max_attempts,
            t.name
        ),
        (
            wanted.format,
            wanted.seed,
            wanted.rounds,
            settings(1),
            3,
            wanted.name
        )
    );
    store.rename(id, Some("Finals")).await.unwrap();
    assert_eq!(
        store.tournament(id).await.unwrap().name.as_deref(),
        Some("Finals")
    );
    store.rename(id, None).await.unwrap();
    assert_eq!(store.tournament(id).await.unwrap().name, None);
    let missing = store.rename(id + 100, Some("x")).await.unwrap_err();
    assert!(matches!(missing, StoreError::NoTournament(_)), "{missing}");
    assert_eq!(store.players(id).await.unwrap(), players);
    assert_eq!(store.byes(id).await.unwrap(), vec![(1, "builtin:c".into())]);
    assert_eq!(
        store.ratings(id).await.unwrap(),
        vec![(1, rating), (2, rated)]
    );
    assert_eq!(store.release("w").await.unwrap().len(), 1);
    let rows = store.matches(id).await.unwrap();
    assert_eq!(rows[0].state, MatchState::Done);
    assert_eq!(rows[0].result, Some(result()));
    assert_eq!((rows[1].state, rows[1].started), (MatchState::Queued, None));
    assert_eq!(rows[1].attempts, 0, "a released match is not a failure");
    store.mark_finished(id).await.unwrap();
    assert!(store.tournament(id).await.unwrap().finished.is_some());
    let second = store
        .create(&tournament(), &settings, &[], &new_matches(), None)
        .await
        .unwrap();
    assert_eq!(second, 2, "numbers go on");
    assert_eq!(store.tournament(2).await.unwrap().settings, settings(2));
}

async fn failures_requeue_a_match_until_its_last_attempt(target: String) {
    let (store, id) = with_tournament(&target, 2).await;
    let first = store.claim("w", MINUTE, Scope::Tournament(id)).await;
    let first = first.unwrap().unwrap().row;
    let failed = store.record_failure(id, 1, first.claim, "disk full").await;
    assert_eq!(failed.unwrap(), (Handed::Taken, false));
    let again = store.claim("w", MINUTE, Scope::Tournament(id)).await;
    let again = again.unwrap().unwrap().row;
    assert_eq!((again.id, again.attempts, again.claim), (1, 1, 2));
    let stale = store.record_failure(id, 1, first.claim, "disk full").await;
    assert_eq!(
        stale.unwrap(),
        (Handed::Refused, false),
        "an old claim is refused"
    );
    let failed = store.record_failure(id, 1, again.claim, "disk full").await;
    assert_eq!(failed.unwrap(), (Handed::Taken, true));
    let rows = store.matches(id).await.unwrap();
    assert_eq!(rows[0].state, MatchState::Failed);
    assert_eq!(rows[0].error.as_deref(), Some("disk full"));
    assert!(rows[0].finished.is_some());
    let next = store
        .claim("w", MINUTE, Scope::Open)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.row.id, 2, "a failed match is not claimed again");
}

async fn a_result_from_a_worker_whose_lease_was_taken_over_is_refused(target: String) {
    let (store, id) = with_tournament(&target, 3).await;
    let scope = Scope::Tournament(id);
    let slow = store.claim("slow", -1, scope).await.unwrap().unwrap();
    // Another worker's match, its lease running: not lapsed.
    store.claim("held", MINUTE, scope).await.unwrap().unwrap();
    assert_eq!(
        store.lapsed_leases(id).await.unwrap(),
        [slow.row.id],
        "only the match whose lease ran out has no worker left"
    );
    let expired = store.expire_leases().await.unwrap();
    let back = Expired {
        tournament: id,
        id: 1,
        failed: false,
    };
    assert_eq!(expired, [back]);
    let fast = store.claim("fast", MINUTE, scope).await.unwrap().unwrap();
    assert_eq!((fast.row.id, fast.row.claim, fast.row.attempts), (1, 2, 1));
    let late = store.finish(id, &[(1, slow.row.claim, result())]).await;
    assert_eq!(late.unwrap(), [Handed::Refused]);
    let on_time = store.finish(id, &[(1, fast.row.claim, result())]).await;
    assert_eq!(on_time.unwrap(), [Handed::Taken]);
    // The answer to a hand-in was lost and it is tried again: taken, not doubled.
    let again = store.finish(id, &[(1, fast.row.claim, result())]).await;
    assert_eq!(again.unwrap(), [Handed::Taken]);
    let row = &store.matches(id).await.unwrap()[0];
    assert_eq!(
        (row.state, row.worker.as_deref()),
        (MatchState::Done, Some("fast"))
    );
    assert_eq!(
        row.error.as_deref(),
        Some("its worker slow stopped renewing its lease")
    );
}

async fn a_match_whose_workers_keep_dying_fails_after_its_last_attempt(target: String) {
    let (store, id) = with_tournament(&target, 2).await;
    for expected_failed in [false, true] {
        store
            .claim("w", -1, Scope::Tournament(id))
            .await
            .unwrap()
            .unwrap();
        let expired = store.expire_leases().await.unwrap();
        assert_eq!(expired[0].failed, expected_failed);
    }
    let row = &store.matches(id).await.unwrap()[0];
    assert_eq!((row.state, row.attempts), (MatchState::Failed, 2));
    assert!(row.finished.is_some());
    let next = store
        .claim("w", MINUTE, Scope::Open)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(next.row.id, 2);
}

async fn a_renewed_lease_is_not_expired(target: String) {
    let (store, id) = with_tournament(&target, 3).await;
    store
        .claim("w", -1, Scope::Tournament(id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(store.renew("w", MINUTE).await.unwrap(), 1);
    assert_eq!(store.expire_leases().await.unwrap(), []);
    assert_eq!(store.running_workers().await.unwrap(), ["w"]);
    let counts = store.counts(id).await.unwrap();
    assert_eq!((counts.queued, counts.running, counts.total()), (1, 1, 2));
}

async fn a_due_tournament_is_advanced_once_and_a_finished_one_never(target: String) {
    let (store, id) = with_tournament(&target, 3).await;
    let nothing = |_: &Standing| -> Advance { panic!("nothing is due yet") };
    assert_eq!(store.advance(id, nothing).await.unwrap(), None);
    for _ in 0..2 {
        let c = store
            .claim("w", MINUTE, Scope::Open)
            .await
            .unwrap()
            .unwrap();
        store
            .finish(id, &[(c.row.id, c.row.claim, result())])
            .await
            .unwrap();
    }
    let rating = RatingRow {
        player: "builtin:a".into(),
        rating: 1016.0,
        deviation: None,
        games: 2,
    };
    let round = Round {
        matches: vec![
            NewMatch {
                id: 3,
                round: 2,
                seats: vec!["builtin:b".into(), "builtin:a".into()],
                seed: 30,
            },
            NewMatch {
                id: 4,
                round: 3,
                seats: vec!["builtin:a".into(), "builtin:b".into()],
                seed: 31,
            },
        ],
        bye: None,
    };
    let decided = store
        .advance(id, |standing| {
            assert_eq!((standing.matches.len(), standing.rated), (2, 0));
            Advance {
                ratings: vec![(1, vec![rating.clone()])],
                round: Some(round.clone()),
                finished: false,
                drop_queued: false,
            }
        })
        .await
        .unwrap();
    assert_eq!(decided.unwrap().round, Some(round));
    assert_eq!(store.ratings(id).await.unwrap(), [(1, rating)]);
    assert_eq!(
        store.advance(id, nothing).await.unwrap(),
        None,
        "round 2 is queued"
    );
    let c = store
        .claim("w", MINUTE, Scope::Open)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((c.row.id, c.row.round), (3, 2));
    store
        .finish(id, &[(3, c.row.claim, result())])
        .await
        .unwrap();
    // Round 2 is complete; round 3 is not needed (an SPRT decided): its match is dropped.
    let over = |_: &Standing| Advance {
        finished: true,
        drop_queued: true,
        ..Advance::default()
    };
    assert!(store.advance(id, over).await.unwrap().unwrap().finished);
    assert!(store.tournament(id).await.unwrap().finished.is_some());
    let ids: Vec<i64> = store
        .matches(id)
        .await
        .unwrap()
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids, [1, 2, 3]);
    assert_eq!(store.advance(id, nothing).await.unwrap(), None);
    assert_eq!(store.claim("w", MINUTE, Scope::Open).await.unwrap(), None);
}

/// Four workers, each its own process's connection, claim from one store at once: each match
/// is taken by exactly one.
fn workers_claiming_at_once_take_each_match_exactly_once(target: &str) {
    let store = Store::open(target, Presence::MayCreate).unwrap();
    let matches: Vec<NewMatch> = (1..=60)
        .map(|id| NewMatch {
            id,
            round: 1,
            seats: vec!["builtin:a".into(), "builtin:b".into()],
            seed: id as u64,
        })
        .collect();
    let id = store
        .create(&tournament(), &settings, &[], &matches, None)
        .unwrap();
    let claimed: Vec<Vec<i64>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|w| {
                scope.spawn(move || {
                    let store = Store::open(target, Presence::MustExist).unwrap();
                    let name = format!("w{w}");
                    let mut mine = Vec::new();
                    while let Some(c) = store.claim(&name, MINUTE, Scope::Open).unwrap() {
                        let handed = store.finish(id, &[(c.row.id, c.row.claim, result())]);
                        assert_eq!(handed.unwrap(), [Handed::Taken]);
                        mine.push(c.row.id);
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let all: Vec<i64> = claimed.iter().flatten().copied().collect();
    let distinct: BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!((all.len(), distinct.len()), (60, 60), "{claimed:?}");
    assert_eq!(store.counts(id).unwrap().done, 60);
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

async fn a_game_servers_replays_are_kept_by_game_and_id(target: String) {
    // The game server's store creates the tables; its replays need no tournament.
    drop(GameServerStore::open(&target, "labyrinth").await.unwrap());
    let replays = ReplayStore::open(&target, Presence::MustExist)
        .await
        .unwrap();
    let game = |game: &str, id| {
        ReplayKey::from(ServerReplay {
            game: game.into(),
            id,
        })
    };
    let (first, second, other) = (
        game("labyrinth", 1),
        game("labyrinth", 2),
        game("quoridor", 1),
    );
    for (key, bytes) in [(&first, b"first"), (&second, b"other"), (&other, b"third")] {
        replays.begin(key).await.unwrap();
        replays.append(key, bytes).await.unwrap();
    }
    replays.append(&first, b" game").await.unwrap();
    replays.complete(&first).await.unwrap();
    let stored = replays.replay(&first).await.unwrap().unwrap();
    assert_eq!((stored.chunks, stored.size, stored.complete), (2, 10, true));
    let chunks = replays.chunks(&first, 0, 10).await.unwrap();
    assert_eq!(chunks.concat_bytes(), b"first game");
    assert_eq!(
        replays.chunks(&other, 0, 10).await.unwrap().concat_bytes(),
        b"third"
    );
    let late = replays.append(&first, b"late").await.unwrap_err();
    assert_eq!(
        late.to_string(),
        "the replay of game 1 of the labyrinth server is complete"
    );
    // A server restarted on the same store plays game 2 again from its start.
    replays.begin(&second).await.unwrap();
    assert_eq!(replays.replay(&second).await.unwrap().unwrap().size, 0);
    let missing = replays
        .append(&game("labyrinth", 9), b"x")
        .await
        .unwrap_err();
    assert_eq!(
        missing.to_string(),
        "the store holds no replay of game 9 of the labyrinth server"
    );
    replays.close().await;
}

trait ConcatBytes {
    fn concat_bytes(&self) -> Vec<u8>;
}

impl ConcatBytes for Vec<arbiter_store::Chunk> {
    fn concat_bytes(&self) -> Vec<u8> {
        self.iter().flat_map(|c| c.bytes.clone()).collect()
    }
}

async fn a_read_only_open_reads_what_was_written(target: String) {
    let (store, id) = with_tournament(&target, 3).await;
    let reader = TournamentStore::open(&target, Presence::ReadOnly)
        .await
        .unwrap();
    assert_eq!(reader.latest().await.unwrap(), Some(id));
    let claimed = store
        .claim("w", MINUTE, Scope::Open)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        reader.matches(id).await.unwrap()[0].state,
        MatchState::Running,
        "a reader sees the writer's commits"
    );
    assert_eq!(claimed.row.id, 1);
}
