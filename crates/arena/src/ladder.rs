//! The ladder's scheduler, which `arbiter arena serve` runs (remote workers do not): every
//! quarter of a second, or when woken, it queues for each offered game, unless the ladder is
//! paused, the ladder matches the pace allows while fewer than the queue's depth wait, then the
//! next games of the running series (an SPRT pair with one seed and the seats swapped, a
//! challenge's next game).
//!
//! It only picks: matchmaking, the pace and the seat mix are `arbiter_ladder`'s, read from the
//! store's settings at every round (so `arbiter arena ladder pause`, or a serve restarted with
//! another pace, takes effect at once), and each decision is taken in one store transaction
//! ([`ArenaStore::schedule_ladder`], [`ArenaStore::schedule_series`]) so that two serves on one
//! store never queue one need twice.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use arbiter_catalog::{Catalog, CatalogGame, Games, TableSetup, Visit};
use arbiter_ladder::{Pace, SeatMix, pick_match};
use arbiter_store::arena::{LADDER_PACE, ladder_seats_setting};
use arbiter_store::{ArenaStore, LadderView, MatchKind, NewArenaMatch, StoreError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;
use tokio::sync::Notify;

use crate::OfferedGame;

/// How the scheduler runs.
#[derive(Clone, Debug)]
pub struct LadderOptions {
    /// The games it schedules, with their settings.
    pub games: Vec<OfferedGame>,
    /// The most ladder matches of a game waiting for a worker (an unlimited pace keeps the
    /// queue this full).
    pub queue_depth: usize,
    /// The longest wait between two rounds.
    pub tick: Duration,
    /// Wakes it for a round at once (a challenge started, a version active).
    pub wake: Arc<Notify>,
    /// Told when it queued matches: the workers of this process look at the queue at once.
    pub work: Option<Arc<Notify>>,
    /// The seed of its choices (matchmaking's window, seats, match seeds); `None` draws one.
    pub seed: Option<u64>,
}

impl LadderOptions {
    /// The options of a scheduler of `games`: 4 ladder matches queued per game at most, a
    /// round every 250 ms.
    pub fn new(games: Vec<OfferedGame>) -> LadderOptions {
        LadderOptions {
            games,
            queue_depth: 4,
            tick: Duration::from_millis(250),
            wake: Arc::new(Notify::new()),
            work: None,
            seed: None,
        }
    }
}

/// What one round queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Ladder matches.
    pub ladder: usize,
    /// Games of series (SPRT and challenges).
    pub series: usize,
}

/// Runs the scheduler until `stop` completes. Store errors are said on stderr and waited
/// out, as the worker does.
pub async fn run_scheduler(
    store: ArenaStore,
    options: LadderOptions,
    stop: impl Future<Output = ()>,
) {
    let mut scheduler = Scheduler::new(options);
    let mut stop = std::pin::pin!(stop);
    let mut tick = tokio::time::interval(scheduler.options.tick.max(Duration::from_millis(10)));
    let wake = Arc::clone(&scheduler.options.wake);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => {}
            () = wake.notified() => {}
        }
        if let Err(error) = scheduler.round(&store).await {
            warn(&format!("scheduling: {error}"));
        }
    }
}

/// The scheduler's state between rounds: its options, its random choices, and the settings
/// of each game for each seat count.
pub struct Scheduler {
    options: LadderOptions,
    rng: StdRng,
    /// Settings by game and seat count, made once each.
    seated: BTreeMap<(String, usize), Result<Value, String>>,
    /// The last setting found wrong, by name: said once, not at every round.
    warned: BTreeMap<String, String>,
}

impl Scheduler {
    /// A scheduler with `options`.
    pub fn new(options: LadderOptions) -> Scheduler {
        let seed = options.seed.unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            now ^ u64::from(std::process::id()).rotate_left(32)
        });
        let rng = StdRng::seed_from_u64(seed);
        Scheduler {
            options,
            rng,
            seated: BTreeMap::new(),
            warned: BTreeMap::new(),
        }
    }

    /// One round over every game. A paused ladder queues no ladder game, but the series
    /// (SPRT, challenges) go on: a team waiting for its answer is not the ladder's business.
    pub async fn round(&mut self, store: &ArenaStore) -> Result<Round, StoreError> {
        let mut round = Round::default();
        let paused = store.ladder_paused().await?;
        let pace = self.pace(store).await?;
        for game in self.options.games.clone() {
            if !paused {
                let mix = self.mix(store, &game).await?;
                round.ladder += self.ladder(store, &game, pace, &mix).await?;
            }
            round.series += self.series(store, &game).await?;
        }
        if round != Round::default()
            && let Some(work) = &self.options.work
        {
            work.notify_one();
        }
        Ok(round)
    }

    /// Queues `game`'s ladder matches while the pace allows and the queue has room.
    async fn ladder(
        &mut self,
        store: &ArenaStore,
        game: &OfferedGame,
        pace: Pace,
        mix: &SeatMix,
    ) -> Result<usize, StoreError> {
        let mut queued = 0;
        for _ in 0..self.options.queue_depth {
            let seats = mix.choose(&mut self.rng);
            let Ok(settings) = self.settings_for(game, seats) else {
                break;
            };
            let (depth, rng) = (self.options.queue_depth, &mut self.rng);
            let pick = |view: &LadderView| {
                decide(
                    view,
                    &game.name,
                    &settings,
                    (pace, mix.mean()),
                    seats,
                    depth,
                    rng,
                )
            };
            match store.schedule_ladder(&game.name, pick).await? {
                Some(_) => queued += 1,
                None => break,
            }
        }
        Ok(queued)
    }

    /// Queues the next games of `game`'s running series, two seats each.
    async fn series(
        &mut self,
        store: &ArenaStore,
        game: &OfferedGame,
    ) -> Result<usize, StoreError> {
        let Ok(settings) = self.settings_for(game, 2) else {
            return Ok(0);
        };
        let rng = &mut self.rng;
        let mut seed = || rng.random::<u64>();
        Ok(store
            .schedule_series(&game.name, &settings, &mut seed)
            .await?
            .len())
    }

    /// The pace the store's setting says, or the default (said once if it is wrong).
    async fn pace(&mut self, store: &ArenaStore) -> Result<Pace, StoreError> {
        let Some(text) = store.setting(LADDER_PACE).await? else {
            return Ok(Pace::DEFAULT);
        };
        Ok(match text.parse::<Pace>() {
            Ok(pace) => pace,
            Err(error) => {
                self.warn_once(LADDER_PACE, &format!("{error}; the default is used"));
                Pace::DEFAULT
            }
        })
    }

    /// `game`'s seat mix from the store's setting, or the game's default seat count (said
    /// once if the setting is wrong or seats counts the game cannot have).
    async fn mix(&mut self, store: &ArenaStore, game: &OfferedGame) -> Result<SeatMix, StoreError> {
        let name = ladder_seats_setting(&game.name);
        let default = default_seats(&game.name, &game.settings).unwrap_or(2);
        let Some(text) = store.setting(&name).await? else {
            return Ok(SeatMix::single(default));
        };
        let mix = match text.parse::<SeatMix>() {
            Ok(mix) => mix,
            Err(error) => {
                self.warn_once(&name, &format!("{error}; {default} seats are used"));
                return Ok(SeatMix::single(default));
            }
        };
        for &(seats, _) in mix.counts() {
            if let Err(why) = self.settings_for(game, seats) {
                self.warn_once(&name, &format!("{why}; {default} seats are used"));
                return Ok(SeatMix::single(default));
            }
        }
        Ok(mix)
    }

    /// `game`'s settings for a match of `seats` seats, made once.
    fn settings_for(&mut self, game: &OfferedGame, seats: usize) -> Result<Value, String> {
        self.seated
            .entry((game.name.clone(), seats))
            .or_insert_with(|| settings_for_seats(&game.name, &game.settings, seats))
            .clone()
    }

    fn warn_once(&mut self, setting: &str, message: &str) {
        if self.warned.get(setting).map(String::as_str) != Some(message) {
            warn(&format!("the setting {setting}: {message}"));
            self.warned.insert(setting.to_owned(), message.to_owned());
        }
    }
}

/// The ladder's one decision, under the store's schedule lock: a match of `seats` seats if
/// the queue has room, the pace allows and matchmaking finds one.
fn decide(
    view: &LadderView,
    game: &str,
    settings: &Value,
    (pace, mean_seats): (Pace, f64),
    seats: usize,
    depth: usize,
    rng: &mut StdRng,
) -> Option<NewArenaMatch> {
    if view.queued >= depth {
        return None;
    }
    let members = view.candidates.len();
    if !pace.allows(view.now, view.last_queued, members, mean_seats) {
        return None;
    }
    let picked = pick_match(&view.candidates, seats, rng)?;
    Some(NewArenaMatch {
        kind: MatchKind::Ladder,
        game: game.to_owned(),
        settings: settings.clone(),
        seed: rng.random(),
        seats: picked,
    })
}

/// The seats of a match of `game` with `settings` (its JSON) when nothing else says.
pub fn default_seats(game: &str, settings: &Value) -> Result<usize, String> {
    let visit = Seats {
        settings,
        wanted: None,
    };
    Games::visit(game, visit)
        .unwrap_or_else(|_| Err(format!("there is no game {game:?}")))
        .map(|(seats, _)| seats)
}

/// `game`'s `settings` (its JSON) made into those of a match of `seats` seats: as they are if
/// they seat as many, else with `players` set to `seats`; an error says why the game cannot
/// seat that many. `arbiter arena serve --ladder-seats` checks its counts with it.
pub fn settings_for_seats(game: &str, settings: &Value, seats: usize) -> Result<Value, String> {
    let visit = Seats {
        settings,
        wanted: Some(seats),
    };
    Games::visit(game, visit)
        .unwrap_or_else(|_| Err(format!("there is no game {game:?}")))
        .map(|(_, settings)| settings)
}

/// Reads the seat count of a game's settings, or makes settings of a wanted count.
struct Seats<'a> {
    settings: &'a Value,
    wanted: Option<usize>,
}

impl Visit for Seats<'_> {
    type Output = Result<(usize, Value), String>;

    fn visit<G: CatalogGame>(self) -> Self::Output {
        let parse = |value: &Value| {
            serde_json::from_value::<G::Settings>(value.clone())
                .map_err(|e| format!("the settings of {}: {e}", G::NAME))
        };
        let own = parse(self.settings)?;
        let Some(wanted) = self.wanted else {
            return Ok((G::seats(&own, 0), self.settings.clone()));
        };
        let mut value = self.settings.clone();
        if G::seats(&own, wanted) != wanted {
            let Value::Object(fields) = &mut value else {
                return Err(format!("the settings of {} are not an object", G::NAME));
            };
            fields.insert("players".into(), Value::from(wanted));
        }
        let settings =
            parse(&value).map_err(|_| format!("{} cannot seat {wanted} players", G::NAME))?;
        if G::seats(&settings, wanted) != wanted {
            return Err(format!("{} cannot seat {wanted} players", G::NAME));
        }
        G::build(&settings, &TableSetup::numbered(wanted))
            .map_err(|e| format!("{} cannot seat {wanted} players: {}", G::NAME, e.0))?;
        Ok((wanted, value))
    }
}

fn warn(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "arena ladder: {message}");
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::work::{WorkOptions, work};
    use arbiter_store::{
        ArenaMatchState, Handed, MatchSummary, PlaygroundOpponent, Presence, StoredProgram,
    };

    const PYTHON_STARTER: &[u8] = include_bytes!("../../../examples/quoridor/starter.py");
    const QUORIDOR: &str = "quoridor";

    /// A guard against a hang: every wait below ends on an event long before.
    const HANG: Duration = Duration::from_secs(600);

    async fn store_in(dir: &Path) -> ArenaStore {
        let db = dir.join("arena.db");
        ArenaStore::open(&db.to_string_lossy(), Presence::MayCreate)
            .await
            .unwrap()
    }

    fn quoridor() -> Vec<OfferedGame> {
        vec![OfferedGame {
            name: QUORIDOR.into(),
            settings: serde_json::json!({}),
        }]
    }

    fn worker_options(dir: &Path) -> WorkOptions {
        WorkOptions {
            idle: Duration::from_millis(100),
            match_jobs: 2,
            // The sandbox where the machine has one (bubblewrap), else the bots' own rights:
            // these tests are about the ladder, not the jail.
            work: dir.join("builds"),
            programs: dir.join("programs"),
            ..WorkOptions::new("ladder-test-worker")
        }
    }

    /// The scheduler and a worker, running until the stop is sent.
    struct Running {
        stop: tokio::sync::watch::Sender<bool>,
        tasks: Vec<tokio::task::JoinHandle<()>>,
    }

    impl Running {
        fn start(store: &ArenaStore, dir: &Path, schedule: bool) -> Running {
            let (stop, stopped) = tokio::sync::watch::channel(false);
            let until = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
                let _ = rx.wait_for(|s| *s).await;
            };
            let options = worker_options(dir);
            let ladder = LadderOptions {
                seed: Some(29),
                work: Some(Arc::clone(&options.wake)),
                ..LadderOptions::new(quoridor())
            };
            let mut tasks = vec![tokio::spawn(work(
                store.clone(),
                options,
                until(stopped.clone()),
            ))];
            if schedule {
                tasks.push(tokio::spawn(run_scheduler(
                    store.clone(),
                    ladder,
                    until(stopped),
                )));
            }
            Running { stop, tasks }
        }

        async fn stop(self) {
            let _ = self.stop.send(true);
            for task in self.tasks {
                task.await.unwrap();
            }
        }
    }

    /// Waits (looking every 50 ms) until `done` holds of the game's matches; gives them.
    async fn until_matches(
        store: &ArenaStore,
        done: impl Fn(&[MatchSummary]) -> bool,
    ) -> Vec<MatchSummary> {
        let wait = async {
            loop {
                let all = store.matches_of_game(QUORIDOR, None, 10_000).await.unwrap();
                if done(&all) {
                    return all;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(HANG, wait).await.expect("no hang")
    }

    fn finished(all: &[MatchSummary], kind: MatchKind) -> usize {
        all.iter()
            .filter(|m| m.kind == kind && m.state == ArenaMatchState::Finished)
            .count()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_ladder_of_robots_fills_up_each_rated_game_applied_once() {
        let dir = arbiter_testdir::fresh("ladder-robots");
        let store = store_in(&dir).await;
        for robot in ["random", "runner", "blocker"] {
            store.add_robot(QUORIDOR, robot).await.unwrap();
        }
        store.set_setting(LADDER_PACE, "unlimited").await.unwrap();
        let running = Running::start(&store, &dir, true);
        until_matches(&store, |all| finished(all, MatchKind::Ladder) >= 12).await;
        running.stop().await;

        let all = store.matches_of_game(QUORIDOR, None, 10_000).await.unwrap();
        assert!(
            all.iter().all(|m| m.state != ArenaMatchState::Failed),
            "{all:?}"
        );
        let rated: Vec<&MatchSummary> = all
            .iter()
            .filter(|m| m.state == ArenaMatchState::Finished)
            .collect();
        let mut seqs: Vec<i64> = rated.iter().map(|m| m.seq.unwrap()).collect();
        seqs.sort();
        assert_eq!(seqs, (1..=rated.len() as i64).collect::<Vec<_>>());
        for m in &rated {
            let bots: std::collections::BTreeSet<i64> = m.seats.iter().map(|s| s.bot_id).collect();
            assert_eq!(bots.len(), 2, "two different bots: {m:?}");
            assert!(m.seats.iter().all(|s| s.fault.is_none()), "{m:?}");
        }
        let board = store.leaderboard(QUORIDOR).await.unwrap();
        let games: i64 = board.iter().map(|e| e.games).sum();
        assert_eq!(games as usize, 2 * rated.len());
        let scores: Vec<f64> = board.iter().map(|e| e.score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{board:?}");
        assert_eq!(
            store.recompute_ratings(QUORIDOR).await.unwrap(),
            store.ratings(QUORIDOR).await.unwrap()
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A version that passed (handed in and its jobs done by hand) whose program is the player
    /// folder `files` (name, contents) with `info.txt` running `command`.
    async fn hand_made_version(store: &ArenaStore, dir: &Path, command: &str) -> i64 {
        let user = store.add_user("eve", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap()[0].id;
        let bot = store.add_bot(team, QUORIDOR, "crasher").await.unwrap();
        let version = store
            .add_version(bot.id, user.id, "crash.py", b"")
            .await
            .unwrap();
        let folder: PathBuf = dir.join("crasher");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("info.txt"),
            format!("crasher\ncrasher\n{command}\n"),
        )
        .unwrap();
        let packed = arbiter_programs::pack(&folder, 1 << 20).unwrap();
        let program = StoredProgram {
            hash: packed.hash.clone(),
            size: packed.size,
            entries: packed.entries,
            archive: packed.archive,
        };
        store.save_program(&program).await.unwrap();
        let build = store.claim_job("hand", 60_000).await.unwrap().unwrap();
        let built = Ok((program.hash.as_str(), "python3", ""));
        assert_eq!(
            store.finish_build(&build, built).await.unwrap(),
            Handed::Taken
        );
        let check = store.claim_job("hand", 60_000).await.unwrap().unwrap();
        let handed = store.finish_check(&check, true, None, &[]).await.unwrap();
        assert_eq!(handed, Handed::Taken);
        version.id
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_version_that_crashes_loses_with_its_fault_recorded() {
        let dir = arbiter_testdir::fresh("ladder-crash");
        let store = store_in(&dir).await;
        let version = hand_made_version(&store, &dir, "sh -c 'exit 3'").await;
        let robot = PlaygroundOpponent::Robot("random".into());
        let id = store
            .start_playground(version, &robot, &serde_json::json!({}), 5)
            .await
            .unwrap();
        let running = Running::start(&store, &dir, false);
        let all = until_matches(&store, |all| {
            all.iter().any(|m| {
                m.id == id
                    && m.state != ArenaMatchState::Queued
                    && m.state != ArenaMatchState::Running
            })
        })
        .await;
        running.stop().await;
        let m = all.iter().find(|m| m.id == id).unwrap();
        assert_eq!(m.state, ArenaMatchState::Finished, "{m:?}");
        let (crasher, random) = (&m.seats[0], &m.seats[1]);
        assert_eq!((crasher.place, random.place), (Some(2), Some(1)), "{m:?}");
        let fault = crasher.fault.as_deref().unwrap();
        assert!(fault.starts_with("crashed"), "{fault}");
        assert_eq!(random.fault, None);
        assert_eq!(m.reason.as_deref(), Some("fault"));
        assert!(!store.match_replay(id).await.unwrap().unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_sprt_series_plays_pairs_with_one_seed_and_the_seats_swapped() {
        let dir = arbiter_testdir::fresh("ladder-sprt");
        let store = store_in(&dir).await;
        let user = store.add_user("ada", "$argon2id$x", false).await.unwrap();
        let team = store.teams_of(user.id).await.unwrap()[0].id;
        let bot = store.add_bot(team, QUORIDOR, "walker").await.unwrap();
        for _ in 0..2 {
            store
                .add_version(bot.id, user.id, "walker.py", PYTHON_STARTER)
                .await
                .unwrap();
        }
        let running = Running::start(&store, &dir, true);
        let all = until_matches(&store, |all| {
            let series = all.iter().filter(|m| m.kind == MatchKind::Sprt);
            series
                .filter(|m| m.state == ArenaMatchState::Finished)
                .count()
                >= 4
        })
        .await;
        running.stop().await;
        let v2 = store.version(bot.id, 2).await.unwrap().unwrap();
        let v1 = store.version(bot.id, 1).await.unwrap().unwrap();
        let series = store.series_of_version(v2.id).await.unwrap().unwrap();
        assert_eq!((series.version_a, series.version_b), (v2.id, v1.id));
        let mut pairs: BTreeMap<i64, Vec<&MatchSummary>> = BTreeMap::new();
        for m in all.iter().filter(|m| m.kind == MatchKind::Sprt) {
            assert_eq!(m.series, Some(series.id));
            pairs.entry(m.pair.unwrap()).or_default().push(m);
        }
        for (pair, games) in &pairs {
            let [a, b] = games[..] else {
                panic!("pair {pair}: {games:?}")
            };
            assert_eq!(a.seed, b.seed, "one seed a pair");
            let order = |m: &MatchSummary| m.seats.iter().map(|s| s.version_id).collect::<Vec<_>>();
            assert_eq!(order(a), order(b).into_iter().rev().collect::<Vec<_>>());
        }
        let series = store.series(series.id).await.unwrap().unwrap();
        assert!(series.counts.pairs() >= 2 || !series.running, "{series:?}");
        assert_eq!(series.games_played as u64 / 2, series.counts.pairs());
        assert!(
            store
                .ratings(QUORIDOR)
                .await
                .unwrap()
                .values()
                .all(|r| *r == arbiter_ladder::Rating::INITIAL),
            "SPRT games are unrated"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_paused_ladder_schedules_nothing() {
        let dir = arbiter_testdir::fresh("ladder-pause");
        let store = store_in(&dir).await;
        for robot in ["random", "runner"] {
            store.add_robot(QUORIDOR, robot).await.unwrap();
        }
        store.set_setting(LADDER_PACE, "unlimited").await.unwrap();
        store.set_ladder_paused(true).await.unwrap();
        let mut scheduler = Scheduler::new(LadderOptions {
            seed: Some(1),
            ..LadderOptions::new(quoridor())
        });
        assert_eq!(scheduler.round(&store).await.unwrap(), Round::default());
        assert!(store.live_matches(QUORIDOR).await.unwrap().is_empty());
        store.set_ladder_paused(false).await.unwrap();
        let round = scheduler.round(&store).await.unwrap();
        assert_eq!(round.ladder, 4, "the queue topped up to its depth");
        assert_eq!(scheduler.round(&store).await.unwrap(), Round::default());
        // At 20 games per version per hour, two members: one game now, the next in 45 s.
        store.set_setting(LADDER_PACE, "20").await.unwrap();
        for m in store.live_matches(QUORIDOR).await.unwrap() {
            let claimed = store.claim_match("w", 60_000).await.unwrap().unwrap();
            assert_eq!(claimed.id, m.id);
            let outcome = arbiter_store::MatchOutcome {
                places: vec![1, 2],
                faults: vec![None, None],
                reason: "goal".into(),
                replay: vec![],
            };
            store.finish_match(&claimed, &outcome).await.unwrap();
        }
        assert_eq!(scheduler.round(&store).await.unwrap().ladder, 0, "paced");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn settings_seat_the_counts_the_game_allows() {
        let empty = serde_json::json!({});
        assert_eq!(default_seats(QUORIDOR, &empty), Ok(2));
        assert_eq!(settings_for_seats(QUORIDOR, &empty, 2), Ok(empty.clone()));
        assert_eq!(
            settings_for_seats(QUORIDOR, &empty, 4),
            Ok(serde_json::json!({"players": 4}))
        );
        assert!(settings_for_seats(QUORIDOR, &empty, 3).is_err());
        assert!(settings_for_seats("domino", &empty, 4).is_err());
        assert!(settings_for_seats("chess", &empty, 2).is_err());
    }
}
