//! The arena's ladder in the store on both of its backends (a SQLite file and a throw-away
//! PostgreSQL cluster): robots and switches, the match queue's claims, leases and fencing,
//! ratings applied once each under concurrent finishers and equal to a recomputation, a new
//! version's inherited rating and its SPRT series, challenges and the playground.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use arbiter_ladder::{Rating, SeriesResult};
use arbiter_pgtest::Cluster;
use arbiter_store::{
    ArenaMatchState, ArenaStore, ClaimedMatch, Handed, JobKind, MatchKind, MatchOutcome,
    NewArenaMatch, PlaygroundOpponent, Presence, SeatPlayer, SeriesKind, StoreError, StoredProgram,
};
use serde_json::json;

trait Backend {
    fn fresh(&self, name: &str) -> String;
}

struct Sqlite(PathBuf);

impl Backend for Sqlite {
    fn fresh(&self, name: &str) -> String {
        let dir = self.0.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("arena.db").to_str().unwrap().to_owned()
    }
}

impl Backend for Cluster {
    fn fresh(&self, name: &str) -> String {
        self.database(name)
    }
}

const MINUTE: i64 = 60_000;
const GAME: &str = "quoridor";

fn scenarios(backend: &dyn Backend) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        robots_are_permanent_members_of_a_reserved_team(backend.fresh("robots")).await;
        switches_are_kept(backend.fresh("switches")).await;
        two_claims_never_take_the_same_match(backend.fresh("claims")).await;
        the_playground_is_claimed_first(backend.fresh("priority")).await;
        a_finish_with_an_old_claim_is_refused_and_changes_no_rating(backend.fresh("fence")).await;
        a_lapsed_lease_is_requeued_and_fails_after_its_last_attempt(backend.fresh("lapse")).await;
        concurrent_finishers_lose_and_double_no_update(backend.fresh("finishers")).await;
        a_new_version_inherits_mu_and_an_old_result_counts_for_the_old(backend.fresh("inherit"))
            .await;
        the_ladder_schedules_alone_and_counts_queued_games(backend.fresh("schedule")).await;
        sprt_pairs_count_when_both_games_are_in(backend.fresh("sprt")).await;
        challenges_keep_a_daily_quota(backend.fresh("challenge")).await;
        the_playground_seats_a_robot_or_an_own_version(backend.fresh("playground")).await;
        pages_read_matches_and_rating_history(backend.fresh("pages")).await;
    });
}

#[test]
fn ladder_on_sqlite() {
    let dir = arbiter_testdir::fresh("ladder-sqlite");
    scenarios(&Sqlite(dir.clone()));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn ladder_on_postgresql() {
    scenarios(&Cluster::start().unwrap());
}

async fn open(target: &str) -> ArenaStore {
    ArenaStore::open(target, Presence::MayCreate).await.unwrap()
}

async fn reopen(target: &str) -> ArenaStore {
    ArenaStore::open(target, Presence::MustExist).await.unwrap()
}

/// Builds and passes the check of the one version queued, through the job queue.
async fn pass(store: &ArenaStore, version: i64) {
    let hash = format!("{version:064x}");
    let program = StoredProgram {
        hash: hash.clone(),
        size: 1,
        entries: 1,
        archive: vec![1],
    };
    store.save_program(&program).await.unwrap();
    let build = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    assert_eq!((build.kind, build.version), (JobKind::Build, version));
    let built = Ok((hash.as_str(), "python3", ""));
    assert_eq!(
        store.finish_build(&build, built).await.unwrap(),
        Handed::Taken
    );
    let check = store.claim_job("w", MINUTE).await.unwrap().unwrap();
    assert_eq!(check.kind, JobKind::Check);
    let handed = store.finish_check(&check, true, None, &[]).await.unwrap();
    assert_eq!(handed, Handed::Taken);
}

/// A user `name` with a bot `name` whose first version passed: (user, team, bot, version).
async fn player(store: &ArenaStore, name: &str) -> (i64, i64, i64, i64) {
    let user = store.add_user(name, "$argon2id$x", false).await.unwrap();
    let team = store.teams_of(user.id).await.unwrap()[0].id;
    let bot = store.add_bot(team, GAME, name).await.unwrap();
    let version = store
        .add_version(bot.id, user.id, "bot.py", b"1")
        .await
        .unwrap();
    pass(store, version.id).await;
    (user.id, team, bot.id, version.id)
}

/// The active version's id of robot `name`, enrolled.
async fn robot(store: &ArenaStore, name: &str) -> i64 {
    let bot = store.add_robot(GAME, name).await.unwrap();
    store.version(bot.id, 1).await.unwrap().unwrap().id
}

fn ladder_match(seats: Vec<i64>, seed: u64) -> NewArenaMatch {
    NewArenaMatch {
        kind: MatchKind::Ladder,
        game: GAME.into(),
        settings: json!({}),
        seed,
        seats,
    }
}

/// The first seat wins, the others follow in seat order.
fn seat_order(m: &ClaimedMatch) -> MatchOutcome {
    outcome((1..=m.seats.len() as u32).collect())
}

fn outcome(places: Vec<u32>) -> MatchOutcome {
    MatchOutcome {
        faults: vec![None; places.len()],
        places,
        reason: "goal".into(),
        replay: vec![0x1f, 0x8b],
    }
}

/// Every live rating of the game, by version.
async fn live(store: &ArenaStore) -> BTreeMap<i64, Rating> {
    store.ratings(GAME).await.unwrap()
}

async fn robots_are_permanent_members_of_a_reserved_team(target: String) {
    let store = open(&target).await;
    let random = store.add_robot(GAME, "random").await.unwrap();
    assert!(random.robot && !random.disabled && !random.retired);
    assert_eq!(random.team.name, "robots");
    assert_eq!(random.active, Some(1));
    let version = store.version(random.id, 1).await.unwrap().unwrap();
    assert_eq!(version.language.as_deref(), Some("robot"));
    assert_eq!(version.file_name, "random");
    let strong = store.add_robot(GAME, "strong/nodes=2000").await.unwrap();
    assert_eq!(strong.name, "strong/nodes=2000");
    let again = store.add_robot(GAME, "random").await.unwrap_err();
    assert!(matches!(again, StoreError::NameTaken { .. }), "{again}");
    let blank = store.add_robot(GAME, "a b").await.unwrap_err();
    assert!(matches!(blank, StoreError::BadName { .. }), "{blank}");
    for taken in [
        store.add_user("Robots", "$x", false).await.unwrap_err(),
        store.add_team("robots", 1).await.unwrap_err(),
    ] {
        assert!(matches!(taken, StoreError::BadName { .. }), "{taken}");
    }
    let retire = store.retire(random.id).await.unwrap_err();
    assert!(matches!(retire, StoreError::NotAllowed(_)), "{retire}");
    let board = store.leaderboard(GAME).await.unwrap();
    assert_eq!(board.len(), 2);
    assert!(board.iter().all(|e| e.robot && e.games == 0 && e.rank >= 1));
    assert_eq!(board[0].score, Rating::INITIAL.score());
    store.set_disabled(random.id, true).await.unwrap();
    let board = store.leaderboard(GAME).await.unwrap();
    assert_eq!(board.len(), 1, "a disabled bot is off the ladder");
    assert_eq!(board[0].bot, "strong/nodes=2000");
    assert_eq!(store.robots(Some(GAME)).await.unwrap().len(), 2);
    assert_eq!(store.robots(Some("domino")).await.unwrap().len(), 0);
    assert_eq!(store.robots(None).await.unwrap().len(), 2);
    let missing = store.set_disabled(999, true).await.unwrap_err();
    assert!(matches!(missing, StoreError::NotFound(_)), "{missing}");
}

async fn switches_are_kept(target: String) {
    let store = open(&target).await;
    assert!(!store.ladder_paused().await.unwrap());
    assert!(!store.uploads_frozen().await.unwrap());
    store.set_ladder_paused(true).await.unwrap();
    store.set_uploads_frozen(true).await.unwrap();
    let again = reopen(&target).await;
    assert!(again.ladder_paused().await.unwrap());
    assert!(again.uploads_frozen().await.unwrap());
    again.set_ladder_paused(false).await.unwrap();
    assert!(!store.ladder_paused().await.unwrap());
    assert_eq!(store.setting("ladder_pace").await.unwrap(), None);
    store.set_setting("ladder_pace", "unlimited").await.unwrap();
    store.set_setting("ladder_pace", "12").await.unwrap();
    assert_eq!(
        store.setting("ladder_pace").await.unwrap().as_deref(),
        Some("12")
    );
}

async fn two_claims_never_take_the_same_match(target: String) {
    let store = open(&target).await;
    let (a, b) = (robot(&store, "random").await, robot(&store, "greedy").await);
    let queued: Vec<NewArenaMatch> = (0..40).map(|s| ladder_match(vec![a, b], s)).collect();
    store.queue_matches(&queued).await.unwrap();
    let mut workers = Vec::new();
    for w in 0..4 {
        let store = reopen(&target).await;
        workers.push(tokio::spawn(async move {
            let name = format!("w{w}");
            let mut mine = Vec::new();
            while let Some(m) = store.claim_match(&name, MINUTE).await.unwrap() {
                let seats: Vec<SeatPlayer> = m.seats.iter().map(|s| s.player.clone()).collect();
                assert!(matches!(&seats[0], SeatPlayer::Robot { name } if name == "random"));
                let handed = store.finish_match(&m, &seat_order(&m)).await.unwrap();
                assert_eq!(handed, Handed::Taken);
                mine.push(m.id);
            }
            mine
        }));
    }
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.unwrap());
    }
    let distinct: BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!((all.len(), distinct.len()), (40, 40));
    let board = store.leaderboard(GAME).await.unwrap();
    assert_eq!(board[0].bot, "random");
    assert_eq!((board[0].games, board[0].wins), (40, 40));
    assert!(store.live_matches(GAME).await.unwrap().is_empty());
}

async fn the_playground_is_claimed_first(target: String) {
    let store = open(&target).await;
    let (a, b) = (robot(&store, "random").await, robot(&store, "greedy").await);
    store
        .queue_matches(&[ladder_match(vec![a, b], 1)])
        .await
        .unwrap();
    let played = NewArenaMatch {
        kind: MatchKind::Playground,
        ..ladder_match(vec![b, a], 2)
    };
    let ids = store.queue_matches(&[played]).await.unwrap();
    let first = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    assert_eq!((first.id, first.kind), (ids[0], MatchKind::Playground));
    // A rated match seats versions of different bots, rated ones, that passed.
    for bad in [vec![a, a], vec![], vec![a, 999]] {
        let refused = store.queue_matches(&[ladder_match(bad, 3)]).await;
        assert!(refused.is_err(), "{refused:?}");
    }
    let wrong_game = NewArenaMatch {
        game: "domino".into(),
        ..ladder_match(vec![a, b], 4)
    };
    let refused = store.queue_matches(&[wrong_game]).await.unwrap_err();
    assert!(matches!(refused, StoreError::NotAllowed(_)), "{refused}");
    // A result must fit the match.
    let short = store.finish_match(&first, &outcome(vec![1])).await;
    assert!(matches!(short, Err(StoreError::NotAllowed(_))), "{short:?}");
    let zero = store.finish_match(&first, &outcome(vec![0, 1])).await;
    assert!(matches!(zero, Err(StoreError::NotAllowed(_))), "{zero:?}");
}

async fn a_finish_with_an_old_claim_is_refused_and_changes_no_rating(target: String) {
    let store = open(&target).await;
    let (a, b) = (robot(&store, "random").await, robot(&store, "greedy").await);
    store
        .queue_matches(&[ladder_match(vec![a, b], 7)])
        .await
        .unwrap();
    let old = store.claim_match("slow", -1).await.unwrap().unwrap();
    assert_eq!(old.seed, 7);
    assert_eq!(store.expire_match_leases().await.unwrap().len(), 1);
    let new = store.claim_match("fast", MINUTE).await.unwrap().unwrap();
    assert_eq!((new.id, new.claim), (old.id, old.claim + 1));
    let before = live(&store).await;
    assert_eq!(
        store.finish_match(&old, &seat_order(&old)).await.unwrap(),
        Handed::Refused
    );
    assert_eq!(
        store.fail_match(&old, "oops").await.unwrap(),
        Handed::Refused
    );
    assert_eq!(live(&store).await, before, "a refused result rates nothing");
    assert_eq!(
        store.finish_match(&new, &seat_order(&new)).await.unwrap(),
        Handed::Taken
    );
    let after = live(&store).await;
    assert_ne!(after, before);
    // The answer to a first try was lost: the same hand-in again is taken, and rates nothing.
    assert_eq!(
        store.finish_match(&new, &seat_order(&new)).await.unwrap(),
        Handed::Taken
    );
    assert_eq!(live(&store).await, after);
    let games: Vec<i64> = store
        .leaderboard(GAME)
        .await
        .unwrap()
        .iter()
        .map(|e| e.games)
        .collect();
    assert_eq!(games, [1, 1]);
    let summary = store.arena_match(new.id).await.unwrap().unwrap();
    assert_eq!(
        (summary.state, summary.seq, summary.claim),
        (ArenaMatchState::Finished, Some(1), 2)
    );
}

async fn a_lapsed_lease_is_requeued_and_fails_after_its_last_attempt(target: String) {
    let store = open(&target).await;
    let (a, b) = (robot(&store, "random").await, robot(&store, "greedy").await);
    let id = store
        .queue_matches(&[ladder_match(vec![a, b], 1)])
        .await
        .unwrap()[0];
    store.claim_match("w", -1).await.unwrap().unwrap();
    assert_eq!(store.renew_matches("w", MINUTE).await.unwrap(), 1);
    assert!(store.expire_match_leases().await.unwrap().is_empty());
    assert_eq!(store.release_matches("w").await.unwrap(), 1);
    let state = |store: &ArenaStore| {
        let store = store.clone();
        async move { store.arena_match(id).await.unwrap().unwrap() }
    };
    assert_eq!(state(&store).await.state, ArenaMatchState::Queued);
    assert_eq!(state(&store).await.attempts, 0, "stopping is no attempt");
    for attempt in 1..=arbiter_store::arena::MAX_MATCH_ATTEMPTS {
        store.claim_match("dying", -1).await.unwrap().unwrap();
        let expired = store.expire_match_leases().await.unwrap();
        let last = attempt == arbiter_store::arena::MAX_MATCH_ATTEMPTS;
        assert_eq!(expired.len(), 1);
        assert_eq!(expired[0].failed, last);
    }
    let failed = state(&store).await;
    assert_eq!(failed.state, ArenaMatchState::Failed);
    assert_eq!(
        failed.error.as_deref(),
        Some("its worker stopped renewing its lease")
    );
    assert_eq!(store.claim_match("w", MINUTE).await.unwrap(), None);
}

async fn concurrent_finishers_lose_and_double_no_update(target: String) {
    let store = open(&target).await;
    let mut robots = Vec::new();
    for name in ["random", "greedy", "wall", "runner", "mcts", "strong"] {
        robots.push(robot(&store, name).await);
    }
    let games = 96_usize;
    let queued: Vec<NewArenaMatch> = (0..games)
        .map(|g| {
            let (i, j) = (g % robots.len(), (g * 7 + 1) % robots.len());
            let j = if i == j { (j + 1) % robots.len() } else { j };
            ladder_match(vec![robots[i], robots[j]], g as u64)
        })
        .collect();
    store.queue_matches(&queued).await.unwrap();
    let mut finishers = Vec::new();
    for w in 0..8 {
        let store = reopen(&target).await;
        finishers.push(tokio::spawn(async move {
            let name = format!("f{w}");
            let mut n = 0;
            while let Some(m) = store.claim_match(&name, MINUTE).await.unwrap() {
                // Seat 1 wins odd seeds, and a seed divisible by 5 is a draw.
                let places = match (m.seed % 5, m.seed % 2) {
                    (0, _) => vec![1, 1],
                    (_, 1) => vec![2, 1],
                    _ => vec![1, 2],
                };
                let handed = store.finish_match(&m, &outcome(places)).await.unwrap();
                assert_eq!(handed, Handed::Taken);
                n += 1;
            }
            n
        }));
    }
    let mut played = 0;
    for f in finishers {
        played += f.await.unwrap();
    }
    assert_eq!(played, games);
    let all = store.matches_of_game(GAME, None, 1000).await.unwrap();
    let mut seqs: Vec<i64> = all.iter().filter_map(|m| m.seq).collect();
    seqs.sort();
    assert_eq!(seqs, (1..=games as i64).collect::<Vec<_>>(), "contiguous");
    let mut seats_of: BTreeMap<i64, i64> = BTreeMap::new();
    for m in &all {
        for s in &m.seats {
            *seats_of.entry(s.version_id).or_default() += 1;
        }
    }
    let board = store.leaderboard(GAME).await.unwrap();
    for entry in &board {
        assert_eq!(entry.games, seats_of[&entry.version_id], "{entry:?}");
        assert_eq!(entry.wins + entry.draws + entry.losses, entry.games);
    }
    let scores: Vec<f64> = board.iter().map(|e| e.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert_eq!(
        store.recompute_ratings(GAME).await.unwrap(),
        live(&store).await
    );
}

async fn a_new_version_inherits_mu_and_an_old_result_counts_for_the_old(target: String) {
    let store = open(&target).await;
    let r = robot(&store, "random").await;
    let (user, _, bot, v1) = player(&store, "ann").await;
    assert_eq!(live(&store).await[&v1], Rating::INITIAL);
    assert!(store.series_of_version(v1).await.unwrap().is_none());
    store
        .queue_matches(&[ladder_match(vec![v1, r], 1), ladder_match(vec![r, v1], 2)])
        .await
        .unwrap();
    let first = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    store
        .finish_match(&first, &outcome(vec![1, 2]))
        .await
        .unwrap();
    // The second game is under way when version 2 becomes active.
    let second = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    let at_switch = live(&store).await[&v1];
    assert!(at_switch.mu > Rating::INITIAL.mu);
    let v2 = store
        .add_version(bot, user, "bot.py", b"2")
        .await
        .unwrap()
        .id;
    pass(&store, v2).await;
    assert_eq!(
        live(&store).await[&v2],
        at_switch.inherited(),
        "mu inherited, sigma reset"
    );
    let series = store.series_of_version(v2).await.unwrap().unwrap();
    assert_eq!(
        (
            series.kind,
            series.version_a,
            series.version_b,
            series.running
        ),
        (SeriesKind::Sprt, v2, v1, true)
    );
    assert_eq!(series.result, Some(SeriesResult::Running));
    store
        .finish_match(&second, &outcome(vec![2, 1]))
        .await
        .unwrap();
    let after = live(&store).await;
    assert!(
        after[&v1].mu > at_switch.mu,
        "the old version's result is its own"
    );
    assert_eq!(after[&v2], at_switch.inherited(), "and not the new one's");
    let board = store.leaderboard(GAME).await.unwrap();
    let ann = board.iter().find(|e| e.bot == "ann").unwrap();
    assert_eq!((ann.version, ann.games), (2, 0));
    assert_eq!(store.recompute_ratings(GAME).await.unwrap(), after);
    // Going back to version 1 starts nothing new: it keeps its rating.
    store.set_active(bot, 1).await.unwrap();
    assert_eq!(live(&store).await[&v1], after[&v1]);
    store.unpin(bot).await.unwrap();
    assert_eq!(
        store.recompute_ratings(GAME).await.unwrap(),
        live(&store).await
    );
}

async fn the_ladder_schedules_alone_and_counts_queued_games(target: String) {
    let store = open(&target).await;
    let (a, b) = (robot(&store, "random").await, robot(&store, "greedy").await);
    let mut seen = None;
    let id = store
        .schedule_ladder(GAME, |view| {
            seen = Some(view.clone());
            Some(ladder_match(vec![view.candidates[0].version, b], 5))
        })
        .await
        .unwrap();
    let view = seen.unwrap();
    assert_eq!(
        (view.queued, view.last_queued, view.candidates.len()),
        (0, None, 2)
    );
    assert!(id.is_some());
    let second = store
        .schedule_ladder(GAME, |view| {
            assert_eq!(view.queued, 1);
            assert!(view.last_queued.is_some());
            assert!(
                view.candidates.iter().all(|c| c.games == 1),
                "queued counts"
            );
            None
        })
        .await
        .unwrap();
    assert_eq!(second, None);
    let wrong = store
        .schedule_ladder(GAME, |_| {
            Some(NewArenaMatch {
                kind: MatchKind::Challenge,
                ..ladder_match(vec![a, b], 1)
            })
        })
        .await
        .unwrap_err();
    assert!(matches!(wrong, StoreError::NotAllowed(_)), "{wrong}");
    assert_eq!(store.live_matches(GAME).await.unwrap().len(), 1);
    // Two schedulers at once, each with its own connections, each topping the queue up to 4:
    // together they queue 3 more, not 6.
    let mut schedulers = Vec::new();
    for _ in 0..2 {
        let store = reopen(&target).await;
        schedulers.push(tokio::spawn(async move {
            let mut queued = 0;
            while let Some(_id) = store
                .schedule_ladder(GAME, |view| {
                    (view.queued < 4).then(|| ladder_match(vec![a, b], 9))
                })
                .await
                .unwrap()
            {
                queued += 1;
            }
            queued
        }));
    }
    let mut total = 0;
    for s in schedulers {
        total += s.await.unwrap();
    }
    assert_eq!(total, 3);
    assert_eq!(store.live_matches(GAME).await.unwrap().len(), 4);
}

async fn sprt_pairs_count_when_both_games_are_in(target: String) {
    let store = open(&target).await;
    let (user, _, bot, v1) = player(&store, "ann").await;
    let v2 = store
        .add_version(bot, user, "bot.py", b"2")
        .await
        .unwrap()
        .id;
    pass(&store, v2).await;
    let series = store.series_of_version(v2).await.unwrap().unwrap();
    let mut seeds = [11_u64, 12, 13].into_iter();
    let mut seed = move || seeds.next().unwrap();
    let ids = store
        .schedule_series(GAME, &json!({"players": 2}), &mut seed)
        .await
        .unwrap();
    assert_eq!(ids.len(), 2, "one pair");
    let again = store
        .schedule_series(GAME, &json!({}), &mut seed)
        .await
        .unwrap();
    assert!(again.is_empty(), "one pair at a time per series");
    let first = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    let second = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    assert_eq!(
        (first.kind, first.seed, second.seed),
        (MatchKind::Sprt, 11, 11)
    );
    let order = |m: &ClaimedMatch| m.seats.iter().map(|s| s.version).collect::<Vec<_>>();
    assert_eq!(
        (order(&first), order(&second)),
        (vec![v2, v1], vec![v1, v2])
    );
    assert_eq!(first.settings, json!({"players": 2}));
    let before = live(&store).await;
    // Version 2 wins its first game and draws the second.
    store
        .finish_match(&first, &outcome(vec![1, 2]))
        .await
        .unwrap();
    let half = store.series(series.id).await.unwrap().unwrap();
    assert_eq!((half.games_played, half.counts.pairs()), (1, 0));
    store
        .finish_match(&second, &outcome(vec![1, 1]))
        .await
        .unwrap();
    let done = store.series(series.id).await.unwrap().unwrap();
    assert_eq!(done.games_played, 2);
    assert_eq!(done.counts.0, [0, 0, 0, 1, 0], "1.5 points in the pair");
    assert_eq!((done.wins, done.draws, done.losses), (1, 1, 0));
    assert_eq!(done.summary().unwrap().games, 2);
    assert_eq!(live(&store).await, before, "SPRT games are unrated");
    let next = store
        .schedule_series(GAME, &json!({}), &mut seed)
        .await
        .unwrap();
    assert_eq!(next.len(), 2, "the next pair");
    let m = store.arena_match(next[0]).await.unwrap().unwrap();
    assert_eq!((m.pair, m.series), (Some(1), Some(series.id)));
}

async fn challenges_keep_a_daily_quota(target: String) {
    let store = open(&target).await;
    let (_, team, _, mine) = player(&store, "ann").await;
    let (_, _, _, theirs) = player(&store, "bob").await;
    let series = store
        .start_challenge(team, mine, theirs, 3, 4)
        .await
        .unwrap();
    assert_eq!(
        (series.kind, series.games_wanted, series.running),
        (SeriesKind::Challenge, 3, true)
    );
    let over = store
        .start_challenge(team, mine, theirs, 2, 4)
        .await
        .unwrap_err();
    assert!(
        matches!(
            over,
            StoreError::OverQuota {
                limit: 4,
                used: 3,
                ..
            }
        ),
        "{over}"
    );
    let own = store
        .start_challenge(team, mine, mine, 1, 10)
        .await
        .unwrap_err();
    assert!(matches!(own, StoreError::NotAllowed(_)), "{own}");
    let not_ours = store
        .start_challenge(team, theirs, mine, 1, 10)
        .await
        .unwrap_err();
    assert!(matches!(not_ours, StoreError::NotFound(_)), "{not_ours}");
    let mut seed = || 3_u64;
    for game in 0..3 {
        let ids = store
            .schedule_series(GAME, &json!({}), &mut seed)
            .await
            .unwrap();
        assert_eq!(ids.len(), 1, "one game at a time");
        let m = store.claim_match("w", MINUTE).await.unwrap().unwrap();
        assert_eq!(m.kind, MatchKind::Challenge);
        let first = if game % 2 == 0 { mine } else { theirs };
        assert_eq!(m.seats[0].version, first, "seats alternate");
        store.finish_match(&m, &seat_order(&m)).await.unwrap();
    }
    let done = store.series(series.id).await.unwrap().unwrap();
    assert!(!done.running && done.finished.is_some());
    assert_eq!((done.games_played, done.wins, done.losses), (3, 2, 1));
    assert!(
        store
            .schedule_series(GAME, &json!({}), &mut seed)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.challenges_of_team(team).await.unwrap().len(), 1);
    assert!(
        live(&store).await.values().all(|r| *r == Rating::INITIAL),
        "unrated"
    );
}

async fn the_playground_seats_a_robot_or_an_own_version(target: String) {
    let store = open(&target).await;
    let (user, _, bot, v1) = player(&store, "ann").await;
    let (_, _, _, stranger) = player(&store, "bob").await;
    let id = store
        .start_playground(
            v1,
            &PlaygroundOpponent::Robot("greedy".into()),
            &json!({}),
            4,
        )
        .await
        .unwrap();
    let m = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    assert_eq!(
        (m.id, m.kind, m.seats.len()),
        (id, MatchKind::Playground, 2)
    );
    assert!(matches!(&m.seats[1].player, SeatPlayer::Robot { name } if name == "greedy"));
    assert!(
        matches!(&m.seats[0].player, SeatPlayer::Program { language, .. } if language == "python3")
    );
    let greedy = store.bot(GAME, "greedy").await.unwrap().unwrap();
    assert!(
        greedy.robot && greedy.disabled,
        "a playground robot is off the ladder"
    );
    assert_eq!(store.leaderboard(GAME).await.unwrap().len(), 2);
    // Enrolling it later puts it on the ladder.
    let enrolled = store.add_robot(GAME, "greedy").await.unwrap();
    assert!(!enrolled.disabled);
    let v2 = store
        .add_version(bot, user, "bot.py", b"2")
        .await
        .unwrap()
        .id;
    pass(&store, v2).await;
    store
        .start_playground(v2, &PlaygroundOpponent::Version(v1), &json!({}), 5)
        .await
        .unwrap();
    for refused in [
        store
            .start_playground(v2, &PlaygroundOpponent::Version(stranger), &json!({}), 5)
            .await,
        store
            .start_playground(v2, &PlaygroundOpponent::Version(v2), &json!({}), 5)
            .await,
    ] {
        assert!(
            matches!(refused, Err(StoreError::NotFound(_))),
            "{refused:?}"
        );
    }
}

async fn pages_read_matches_and_rating_history(target: String) {
    let store = open(&target).await;
    let r = robot(&store, "random").await;
    let (_, _, bot, v1) = player(&store, "ann").await;
    let ids = store
        .queue_matches(&[ladder_match(vec![v1, r], 1), ladder_match(vec![r, v1], 2)])
        .await
        .unwrap();
    let m = store.claim_match("w", MINUTE).await.unwrap().unwrap();
    let mut faulty = outcome(vec![2, 1]);
    faulty.faults[0] = Some("crashed at turn 3".into());
    faulty.replay = vec![1, 2, 3];
    store.finish_match(&m, &faulty).await.unwrap();
    let live_now = store.live_matches(GAME).await.unwrap();
    assert_eq!(live_now.iter().map(|m| m.id).collect::<Vec<_>>(), [ids[1]]);
    let recent = store.recent_matches(GAME, 10).await.unwrap();
    assert_eq!(recent.len(), 1);
    let seat = &recent[0].seats[0];
    assert_eq!(
        (seat.bot.as_str(), seat.number, seat.place),
        ("ann", 1, Some(2))
    );
    assert_eq!(seat.fault.as_deref(), Some("crashed at turn 3"));
    assert!(seat.mu_after.unwrap() < seat.mu_before.unwrap());
    assert_eq!(recent[0].seats[1].team, "robots");
    assert_eq!(
        store.match_replay(ids[0]).await.unwrap(),
        Some(vec![1, 2, 3])
    );
    assert_eq!(store.match_replay(ids[1]).await.unwrap(), None);
    let of_bot = store.matches_of_bot(bot, None, 10).await.unwrap();
    assert_eq!(
        of_bot.iter().map(|m| m.id).collect::<Vec<_>>(),
        [ids[1], ids[0]]
    );
    let older = store.matches_of_bot(bot, Some(ids[1]), 10).await.unwrap();
    assert_eq!(older.len(), 1);
    let history = store.rating_history(bot).await.unwrap();
    assert_eq!(history.len(), 2, "{history:?}");
    assert_eq!(
        (history[0].match_id, history[0].mu),
        (None, Rating::INITIAL.mu)
    );
    assert_eq!(history[1].match_id, Some(ids[0]));
    assert!(history[1].mu < Rating::INITIAL.mu);
    assert_eq!(store.arena_match(999).await.unwrap(), None);
}
