//! Playing one match of built versions and robots, as the arena plays its ladder games,
//! challenges, playground matches and SPRT series, and as the check ([`crate::check`]) plays
//! its matches: through the catalog's [`play_to_replay`], in the sandbox, to a replay.
//!
//! In an arena match a seat's fault is its result: a program that cannot be started, a crash,
//! a late, malformed or illegal answer loses the match (it is placed after every seat that made
//! none, whatever the game made of the rest of the match) and the fault is kept in words. A
//! failure of Arbiter or the machine is an error, so that the match is played again.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use arbiter_catalog::{
    Catalog, CatalogGame, Games, MatchPlan, PlayError, RobotSeeds, SeatPlan, Start, TableSetup,
    Visit, play_to_replay,
};
use arbiter_games::TimeControl;
use arbiter_referee::{Commands, Fault, MatchConfig, MatchReport, SeatSpec, read_player_folder};
use arbiter_replay::{Record, ReplayReader};
use arbiter_sandbox::{Sandbox, SandboxPolicy};

use crate::BuildError;

/// The largest replay of a match kept (a match of a few hundred turns is some kilobytes).
pub(crate) const MAX_REPLAY_BYTES: u64 = 16 << 20;

/// A seat of an arena match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchSeat {
    /// A built version: its player folder (the program installed from the store).
    Folder {
        /// The seat's name, as the other players and the replay know it.
        name: String,
        /// The player folder.
        folder: PathBuf,
    },
    /// One of the game's built-in robots.
    Robot {
        /// The seat's name.
        name: String,
        /// The robot's name among the game's robots (`strong/nodes=2000`).
        robot: String,
    },
}

/// What an arena match came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMatch {
    /// Each seat's place, 1 the best, equal places tied; a seat that made a fault is placed
    /// after every seat that made none.
    pub places: Vec<u32>,
    /// Each seat's fault in words, if it made one.
    pub faults: Vec<Option<String>>,
    /// Why the match ended: the game's reason (`goal`), or `fault` when a seat's fault decided
    /// it.
    pub reason: String,
    /// The replay, gzip-compressed JSON Lines (empty when a program could not be started).
    pub replay: Vec<u8>,
}

/// Plays one match of `game` with `settings` (its JSON; the seat count among them) between
/// `seats`, seeded `seed`, the programs in `sandbox`, under the game's own time limits.
pub fn play_match(
    game: &str,
    settings: &serde_json::Value,
    seats: &[MatchSeat],
    seed: u64,
    sandbox: &SandboxPolicy,
) -> Result<PlayedMatch, BuildError> {
    play_match_in::<Games>(game, settings, seats, seed, sandbox)
}

/// [`play_match`] with the games of `C` (a test's catalog).
pub fn play_match_in<C: Catalog>(
    game: &str,
    settings: &serde_json::Value,
    seats: &[MatchSeat],
    seed: u64,
    sandbox: &SandboxPolicy,
) -> Result<PlayedMatch, BuildError> {
    let visit = ArenaMatch {
        settings,
        seats,
        seed,
        sandbox,
    };
    C::visit(game, visit).unwrap_or_else(|_| Err(unknown_game::<C>(game)))
}

/// The error of a game `C` does not have.
pub(crate) fn unknown_game<C: Catalog>(game: &str) -> BuildError {
    let names: Vec<&str> = C::games().iter().map(|g| g.name).collect();
    BuildError::UnknownGame {
        game: game.to_owned(),
        games: names.join(", "),
    }
}

/// The settings of `G` from their JSON, checked to make a game; a game that draws its board
/// (Domino) draws it from `board_seed` unless the settings give one.
pub(crate) fn game_settings<G: CatalogGame>(
    settings: &serde_json::Value,
    board_seed: u64,
) -> Result<G::Settings, BuildError> {
    let settings_error = |why: String| BuildError::Settings {
        game: G::NAME.to_owned(),
        why,
    };
    let mut settings: G::Settings =
        serde_json::from_value(settings.clone()).map_err(|e| settings_error(e.to_string()))?;
    if let Some(seed) = G::board_seed(&mut settings) {
        seed.get_or_insert(board_seed);
    }
    let players = G::seats(&settings, 0);
    G::build(&settings, &TableSetup::numbered(players)).map_err(|e| settings_error(e.0))?;
    Ok(settings)
}

struct ArenaMatch<'a> {
    settings: &'a serde_json::Value,
    seats: &'a [MatchSeat],
    seed: u64,
    sandbox: &'a SandboxPolicy,
}

impl Visit for ArenaMatch<'_> {
    type Output = Result<PlayedMatch, BuildError>;

    fn visit<G: CatalogGame>(self) -> Self::Output {
        let settings = game_settings::<G>(self.settings, self.seed)?;
        let mut plans = Vec::with_capacity(self.seats.len());
        for (index, seat) in self.seats.iter().enumerate() {
            match seat_plan::<G>(seat) {
                Ok(plan) => plans.push(plan),
                Err(why) => return Ok(could_not_start(self.seats.len(), index, why)),
            }
        }
        let sandbox = self.sandbox.open()?;
        let file = ReplayFile::new();
        let played = play_seats::<G>(&settings, plans, self.seed, None, sandbox.as_ref(), &file.0);
        match played {
            Ok(report) => {
                let replay = arbiter_text::read_capped(&file.0, MAX_REPLAY_BYTES)
                    .map_err(BuildError::io("reading the match's replay", &file.0))?;
                Ok(result_of(&report, &file.0, replay))
            }
            Err(error) => start_failure(self.seats.len(), error),
        }
    }
}

/// The seat plan of `seat`: a robot, or the player folder read as tournaments read it.
fn seat_plan<G: CatalogGame>(seat: &MatchSeat) -> Result<SeatPlan<G>, String> {
    match seat {
        MatchSeat::Robot { name, robot } => Ok(SeatPlan::Robot {
            name: name.clone(),
            robot: robot.clone(),
        }),
        MatchSeat::Folder { name, folder } => {
            let mut spec = read_player_folder(folder, Commands::AsWritten)
                .map_err(|e| format!("its player folder cannot be read: {e}"))?;
            if let SeatSpec::Folder { alias, .. } = &mut spec {
                alias.clone_from(name);
            }
            Ok(SeatPlan::Spec(spec))
        }
    }
}

/// A match in which seat `index` could not be started: it loses, the others tie first.
fn could_not_start(seats: usize, index: usize, why: String) -> PlayedMatch {
    let mut faults = vec![None; seats];
    faults[index] = Some(format!("could not be started: {why}"));
    let faulty: Vec<bool> = faults.iter().map(Option::is_some).collect();
    PlayedMatch {
        places: places_with_faults(&vec![1; seats], &faulty),
        faults,
        reason: "fault".into(),
        replay: Vec::new(),
    }
}

/// What a match that was not played comes to: a program that could not be started is its
/// seat's fault; anything else is Arbiter's or the machine's, an error.
fn start_failure(seats: usize, error: PlayError) -> Result<PlayedMatch, BuildError> {
    if error.machine_at_fault() {
        return Err(BuildError::Match(error.chain()));
    }
    match error {
        PlayError::CannotStart { index, .. } => Ok(could_not_start(seats, index, error.chain())),
        other => Err(BuildError::Match(other.chain())),
    }
}

/// The places, faults and reason of a match played.
fn result_of(report: &MatchReport, replay_path: &Path, replay: Vec<u8>) -> PlayedMatch {
    let faults: Vec<Option<String>> = (0..report.bots.len())
        .map(|seat| seat_fault(report, seat, replay_path, false).map(|f| f.to_string()))
        .collect();
    let faulty: Vec<bool> = faults.iter().map(Option::is_some).collect();
    let decided_by_fault = faulty.iter().any(|&f| f);
    PlayedMatch {
        places: places_with_faults(&report.outcome.placement, &faulty),
        faults,
        reason: if decided_by_fault {
            "fault".into()
        } else {
            report.outcome.reason.to_owned()
        },
        replay,
    }
}

/// The places of a match in which the seats marked `faulty` lose: every seat without a fault
/// keeps its rank among those (ties kept), and the faulty ones tie behind them all.
pub fn places_with_faults(placement: &[u32], faulty: &[bool]) -> Vec<u32> {
    let clean: Vec<u32> = placement
        .iter()
        .zip(faulty)
        .filter(|(_, f)| !**f)
        .map(|(p, _)| *p)
        .collect();
    let last = clean.len() as u32 + 1;
    placement
        .iter()
        .zip(faulty)
        .map(|(&p, &f)| match f {
            true => last,
            false => 1 + clean.iter().filter(|&&q| q < p).count() as u32,
        })
        .collect()
}

/// Plays `seats` of `G` with `settings`, seeded `seed`, under `time` (`None`: the game's own),
/// to the replay at `replay`: the one way the arena and its check play a match.
pub(crate) fn play_seats<G: CatalogGame>(
    settings: &G::Settings,
    seats: Vec<SeatPlan<G>>,
    seed: u64,
    time: Option<TimeControl>,
    sandbox: Option<&Sandbox>,
    replay: &Path,
) -> Result<MatchReport, PlayError> {
    play_to_replay::<G>(MatchPlan {
        start: Start::Settings(settings),
        seats,
        session: None,
        config: MatchConfig {
            seed,
            time,
            ..MatchConfig::default()
        },
        // As `arbiter play` seeds them: an arena match replays with `arbiter play`.
        robot_seeds: RobotSeeds::Spread,
        replay: Some(replay),
        sandbox,
    })
}

/// What a fault is, in words.
pub(crate) fn fault_words(fault: Fault) -> &'static str {
    match fault {
        Fault::Crash => "crashed",
        Fault::Timeout => "did not answer in time",
        Fault::Malformed => "answered something that is not a move of the protocol",
        Fault::Illegal(()) => "played a move against the rules",
    }
}

/// A seat's first fault in a match, in words.
pub(crate) struct SeatFault {
    /// What it did: "crashed", "did not answer in time".
    pub(crate) what: &'static str,
    /// When and the referee's words (", at turn 12: ..."), with (if asked) the end of its
    /// stderr up to then; or why the replay could not tell.
    pub(crate) detail: String,
}

impl std::fmt::Display for SeatFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.what, self.detail)
    }
}

/// Seat `seat`'s first fault in the match, if it made one, read from the replay at `replay`;
/// with `stderr`, the end of what the bot wrote to stderr up to then (the check shows it to
/// the version's own team; an arena match's fault is public, its stderr is not).
pub(crate) fn seat_fault(
    report: &MatchReport,
    seat: usize,
    replay: &Path,
    stderr: bool,
) -> Option<SeatFault> {
    let fault = report.bots.get(seat)?.first_fault?;
    let mut detail = String::new();
    match first_error(replay, seat) {
        Ok(Some((tick, error, log))) => {
            detail.push_str(&format!(", at turn {tick}: {error}"));
            let log = log.trim();
            if stderr && !log.is_empty() {
                let chars: Vec<char> = log.chars().collect();
                let tail: String = chars[chars.len().saturating_sub(STDERR_TAIL_CHARS)..]
                    .iter()
                    .collect();
                detail.push_str(&format!(
                    " (its stderr ends: {})",
                    tail.replace('\n', " | ")
                ));
            }
        }
        Ok(None) => {}
        Err(why) => detail.push_str(&format!(" ({why})")),
    }
    Some(SeatFault {
        what: fault_words(fault),
        detail,
    })
}

/// The end of a bot's stderr a fault quotes.
const STDERR_TAIL_CHARS: usize = 300;

/// The first error of seat `seat` in the replay: its tick, the referee's words, and what the
/// bot wrote to stderr up to then.
fn first_error(replay: &Path, seat: usize) -> Result<Option<(u32, String, String)>, String> {
    let what = |e: &dyn std::fmt::Display| format!("its replay could not be read: {e}");
    let mut reader = ReplayReader::open(replay).map_err(|e| what(&e))?;
    let mut log = String::new();
    while let Some(record) = reader.next_record().map_err(|e| what(&e))? {
        let Record::Tick(tick) = record else { continue };
        let Some(bot) = tick.bots.get(seat) else {
            continue;
        };
        log.push_str(&bot.log);
        if let Some(error) = &bot.error {
            return Ok(Some((tick.tick, error.clone(), log)));
        }
    }
    Ok(None)
}

/// The start of the name of a match's replay in the system's temporary folder, followed by
/// the process id, `-` and a number: a worker sweeps those of processes that are gone.
pub const MATCH_REPLAY_PREFIX: &str = "arbiter-match-";

/// A temporary file for one match's replay, removed when dropped.
pub(crate) struct ReplayFile(pub(crate) PathBuf);

impl ReplayFile {
    pub(crate) fn new() -> ReplayFile {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let name = format!("{MATCH_REPLAY_PREFIX}{}-{n}.jsonl.gz", std::process::id());
        ReplayFile(std::env::temp_dir().join(name))
    }
}

impl Drop for ReplayFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seat_with_a_fault_loses_behind_every_seat_without_one() {
        assert_eq!(places_with_faults(&[1, 2], &[true, false]), [2, 1]);
        assert_eq!(places_with_faults(&[2, 1], &[false, false]), [2, 1]);
        assert_eq!(places_with_faults(&[1, 1], &[false, true]), [1, 2]);
        assert_eq!(
            places_with_faults(&[3, 1, 2, 4], &[false, true, false, false]),
            [2, 4, 1, 3]
        );
        assert_eq!(
            places_with_faults(&[1, 2, 2], &[true, false, false]),
            [3, 1, 1]
        );
        assert_eq!(places_with_faults(&[1, 2], &[true, true]), [1, 1]);
    }
}
