//! The check a built version plays before it may be active: a short match against the game's
//! weakest robot (the first of its robots, weakest first: Quoridor's `random`) from every seat,
//! and one against itself (two copies, any other seat a robot). Any fault of the version — a
//! crash, a late answer, a malformed answer, a move against the rules — fails it, with the
//! match's replay kept for its author and the fault in words they understand.
//!
//! The check asks whether the version plays by the protocol, not how fast: it is timed
//! [`CHECK_SLACK`] times as generously as the game, with [`CHECK_STARTUP`] more for a start-up (a JVM on a
//! busy build machine), so that a busy machine does not fail a version that is in time in real
//! matches. One that does not answer at all, or does not flush its answer, still times out.
//!
//! Unlike a tournament's compliance check (`arbiter_tournament::compliance`), which asks only
//! whether a program speaks the protocol up to its first turn, this one plays whole matches:
//! a version that passes has played every seat to the end.

use std::path::Path;
use std::time::Duration;

use arbiter_catalog::{Catalog, CatalogGame, Games, PlayError, SeatPlan, Visit};
use arbiter_games::TimeControl;
use arbiter_referee::{Commands, MatchReport, SeatSpec, read_player_folder};
use arbiter_sandbox::{Sandbox, SandboxPolicy};

use crate::BuildError;
use crate::build::in_folder;
use crate::play::{
    MAX_REPLAY_BYTES, ReplayFile, game_settings, play_seats, seat_fault, unknown_game,
};

/// Times a match of the check is played when Arbiter or the machine failed it, not the bot.
const CHECK_ATTEMPTS: u32 = 3;
/// How many times the game's time limits the check allows.
pub const CHECK_SLACK: u32 = 5;
/// The time a version's start-up is allowed in the check besides the game's.
pub const CHECK_STARTUP: Duration = Duration::from_secs(10);

/// What the check of a version found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckOutcome {
    /// Whether the version may play.
    pub passed: bool,
    /// Why it may not, for its author.
    pub reason: Option<String>,
    /// The replays of the matches played, in order: the failed one last.
    pub replays: Vec<CheckReplay>,
}

/// The replay of one match of a check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReplay {
    /// Which match: "against random, as player 1", "against itself".
    pub label: String,
    /// The replay, gzip-compressed JSON Lines.
    pub jsonl_gz: Vec<u8>,
}

/// The robot the check of `game` plays against: its weakest, if the game is known.
pub fn check_robot(game: &str) -> Option<&'static str> {
    Games::info(game).and_then(|g| g.robots.first().copied())
}

/// Plays the check of the player folder `folder` for `game` with `settings` (the game's
/// settings as JSON; `{}` for its defaults), its programs in `sandbox`: against the game's
/// weakest robot from every seat, and against itself.
pub fn check(
    game: &str,
    settings: &serde_json::Value,
    folder: &Path,
    sandbox: &SandboxPolicy,
) -> Result<CheckOutcome, BuildError> {
    check_in::<Games>(game, settings, folder, sandbox)
}

/// [`check`] with the games of `C` (a test's catalog).
pub fn check_in<C: Catalog>(
    game: &str,
    settings: &serde_json::Value,
    folder: &Path,
    sandbox: &SandboxPolicy,
) -> Result<CheckOutcome, BuildError> {
    let visit = CheckGame {
        settings,
        folder,
        sandbox,
    };
    C::visit(game, visit).unwrap_or_else(|_| Err(unknown_game::<C>(game)))
}

struct CheckGame<'a> {
    settings: &'a serde_json::Value,
    folder: &'a Path,
    sandbox: &'a SandboxPolicy,
}

impl Visit for CheckGame<'_> {
    type Output = Result<CheckOutcome, BuildError>;

    fn visit<G: CatalogGame>(self) -> Self::Output {
        // A game that draws its board (Domino) draws the same one at every check.
        let settings = game_settings::<G>(self.settings, 1)?;
        let players = G::seats(&settings, 0);
        let spec = match read_player_folder(self.folder, Commands::AsWritten) {
            Ok(spec) => spec,
            Err(error) => return Ok(failed(vec![], in_folder(&error.to_string(), self.folder))),
        };
        let sandbox = self.sandbox.open()?;
        let mut replays = Vec::new();
        for plan in matches::<G>(players) {
            let played = play_checked::<G>(&settings, &spec, &plan, sandbox.as_ref())?;
            replays.push(CheckReplay {
                label: plan.label.clone(),
                jsonl_gz: played.replay,
            });
            if let Some(reason) = played.fault {
                return Ok(failed(replays, in_folder(&reason, self.folder)));
            }
        }
        Ok(CheckOutcome {
            passed: true,
            reason: None,
            replays,
        })
    }
}

fn failed(replays: Vec<CheckReplay>, reason: String) -> CheckOutcome {
    CheckOutcome {
        passed: false,
        reason: Some(reason),
        replays,
    }
}

/// One match of the check: which seats the version takes, the others being the robot's.
#[derive(Debug, PartialEq, Eq)]
struct CheckMatch {
    label: String,
    /// Seats of the version, in order.
    version: Vec<usize>,
    players: usize,
    robot: &'static str,
    seed: u64,
}

/// The matches of the check of a game of `players` seats.
fn matches<G: CatalogGame>(players: usize) -> Vec<CheckMatch> {
    let robot = G::ROBOTS[0];
    let mut plans: Vec<CheckMatch> = (0..players)
        .map(|seat| CheckMatch {
            label: match players {
                1 => "alone".to_owned(),
                _ => format!("against {robot}, as player {seat}"),
            },
            version: vec![seat],
            players,
            robot,
            seed: seat as u64 + 1,
        })
        .collect();
    if players >= 2 {
        plans.push(CheckMatch {
            label: "against itself".into(),
            version: vec![0, 1],
            players,
            robot,
            seed: players as u64 + 1,
        });
    }
    plans
}

/// A match of the check played: its replay, and the version's first fault in words.
struct Played {
    replay: Vec<u8>,
    fault: Option<String>,
}

/// Plays `plan`, again when Arbiter or the machine failed it (up to [`CHECK_ATTEMPTS`]).
fn play_checked<G: CatalogGame>(
    settings: &G::Settings,
    spec: &SeatSpec,
    plan: &CheckMatch,
    sandbox: Option<&Sandbox>,
) -> Result<Played, BuildError> {
    let file = ReplayFile::new();
    let mut attempt = 1;
    loop {
        match play_once::<G>(settings, spec, plan, sandbox, &file.0) {
            Ok(report) => {
                let replay = arbiter_text::read_capped(&file.0, MAX_REPLAY_BYTES)
                    .map_err(BuildError::io("reading the check's replay", &file.0))?;
                let fault = fault_of(&report, plan, &file.0);
                return Ok(Played { replay, fault });
            }
            // A program that cannot be started is the version's fault, as in tournaments.
            Err(error) => match error.machine_at_fault() {
                false => {
                    return Ok(Played {
                        replay: Vec::new(),
                        fault: Some(format!(
                            "could not be started for its match {}: {}",
                            plan.label,
                            error.chain()
                        )),
                    });
                }
                true if attempt < CHECK_ATTEMPTS => attempt += 1,
                true => {
                    return Err(BuildError::Check(format!(
                        "{} ({attempt} tries): {}",
                        plan.label,
                        error.chain()
                    )));
                }
            },
        }
    }
}

fn play_once<G: CatalogGame>(
    settings: &G::Settings,
    spec: &SeatSpec,
    plan: &CheckMatch,
    sandbox: Option<&Sandbox>,
    replay: &Path,
) -> Result<MatchReport, PlayError> {
    let seats = (0..plan.players)
        .map(|seat| match plan.version.iter().position(|&s| s == seat) {
            Some(copy) => SeatPlan::Spec(copy_of(spec, copy)),
            None => SeatPlan::Robot {
                name: format!("{}_{seat}", plan.robot),
                robot: plan.robot.to_owned(),
            },
        })
        .collect();
    let time = Some(lenient(G::PROTOCOL.time));
    play_seats::<G>(settings, seats, plan.seed, time, sandbox, replay)
}

/// The game's time control `own`, as the check times it: [`CHECK_SLACK`] times as long, and
/// [`CHECK_STARTUP`] more for the first answer.
fn lenient(own: TimeControl) -> TimeControl {
    match own {
        TimeControl::Bank { initial, increment } => TimeControl::Bank {
            initial: initial * CHECK_SLACK + CHECK_STARTUP,
            increment: increment * CHECK_SLACK,
        },
        TimeControl::PerReply { limit, first_extra } => TimeControl::PerReply {
            limit: limit * CHECK_SLACK,
            first_extra: first_extra * CHECK_SLACK + CHECK_STARTUP,
        },
    }
}

/// The version's seat spec for its `copy`-th seat of a match: the second copy playing itself
/// gets a name of its own.
fn copy_of(spec: &SeatSpec, copy: usize) -> SeatSpec {
    let mut spec = spec.clone();
    if let SeatSpec::Folder { alias, .. } = &mut spec
        && copy > 0
    {
        alias.push_str(&format!("_{}", copy + 1));
    }
    spec
}

/// The version's first fault in the match, in words: what it did, in which match, the
/// referee's words for it and the end of its stderr up to then.
fn fault_of(report: &MatchReport, plan: &CheckMatch, replay: &Path) -> Option<String> {
    let (seat, fault) = plan
        .version
        .iter()
        .find_map(|&seat| Some((seat, seat_fault(report, seat, replay, true)?)))?;
    let mut reason = format!("{} in its match {}", fault.what, plan.label);
    if plan.version.len() > 1 {
        reason.push_str(&format!(" (as player {seat})"));
    }
    reason.push_str(&fault.detail);
    Some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_games::quoridor::Quoridor;

    #[test]
    fn quoridor_is_checked_from_both_seats_against_random_and_against_itself() {
        let plans = matches::<Quoridor>(2);
        let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "against random, as player 0",
                "against random, as player 1",
                "against itself"
            ]
        );
        assert_eq!(plans[2].version, [0, 1]);
        assert_eq!(matches::<Quoridor>(4).len(), 5);
        assert_eq!(check_robot("quoridor"), Some("random"));
        assert_eq!(check_robot("chess"), None);
    }
}
