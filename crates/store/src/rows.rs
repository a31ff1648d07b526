//! What a tournament store holds, as Rust values: the tournament, its contestants, its matches
//! and their results, its ratings.

use std::path::PathBuf;

use arbiter_sandbox::Limit;
use serde::{Deserialize, Serialize};

use crate::StoreError;

/// How a tournament pairs its contestants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every ordered pair once per round (every seat rotation of every group of k for k-player
    /// games).
    RoundRobin,
    /// One challenger against every other player, in both seat orders.
    Gauntlet,
    /// Rounds paired by score, never repeating a pairing while another is possible.
    Swiss,
    /// Random groups of k each round, every group playing every seat rotation.
    Groups,
    /// Two players in pairs of games (one seed, seats swapped), a round of pairs at a time,
    /// until a sequential probability ratio test decides (`arbiter sprt`).
    Sprt,
}

impl Format {
    /// The name on the command line and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::RoundRobin => "round-robin",
            Format::Gauntlet => "gauntlet",
            Format::Swiss => "swiss",
            Format::Groups => "groups",
            Format::Sprt => "sprt",
        }
    }

    /// The format named `text`, as [`Format::as_str`] writes it.
    pub fn parse(text: &str) -> Option<Format> {
        [
            Format::RoundRobin,
            Format::Gauntlet,
            Format::Swiss,
            Format::Groups,
            Format::Sprt,
        ]
        .into_iter()
        .find(|f| f.as_str() == text)
    }
}

/// A tournament's settings as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// Its number in the store, from 1.
    pub id: i64,
    /// The game's name.
    pub game: String,
    /// How contestants are paired.
    pub format: Format,
    /// The seed every schedule and match seed comes from.
    pub seed: u64,
    /// Rounds to play.
    pub rounds: u32,
    /// Seats in each match.
    pub players_per_match: usize,
    /// What the command line needs to start the games and seats again (flags, time banks).
    pub settings: serde_json::Value,
    /// When it was created (Unix milliseconds).
    pub created: i64,
    /// When its last match ended (Unix milliseconds).
    pub finished: Option<i64>,
    /// Tries of a match failed by Arbiter, the machine or a worker that stopped renewing its
    /// lease.
    pub max_attempts: u32,
    /// The name its organiser gave it, if any.
    pub name: Option<String>,
}

/// One contestant of a tournament: a player folder, or a built-in robot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contestant {
    /// The folder's name (the Polish judge's student number), or `builtin:NAME`.
    pub id: String,
    /// The short name shown in tables.
    pub alias: String,
    /// The author's full name.
    pub full_name: String,
    /// The command line of a program, run inside `folder`; `None` for a robot.
    pub command: Option<String>,
    /// The player folder; `None` for a robot.
    pub folder: Option<PathBuf>,
    /// Whether it plays.
    pub status: Status,
    /// Why the contestant is not `ok`.
    pub reason: Option<String>,
    /// The hash of its program in the store (a process player of a store written since
    /// programs are stored); `None` for a robot, or a player run from its folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

impl Contestant {
    /// The built-in robot `name`.
    pub fn builtin(name: &str) -> Contestant {
        Contestant {
            id: format!("builtin:{name}"),
            alias: name.to_owned(),
            full_name: format!("built-in robot {name}"),
            command: None,
            folder: None,
            status: Status::Ok,
            reason: None,
            program: None,
        }
    }

    /// Whether it is a program Arbiter starts (not a built-in robot).
    pub fn is_process(&self) -> bool {
        self.command.is_some()
    }
}

/// Whether a contestant plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Passed the compliance check (or is a robot): plays.
    Ok,
    /// Failed the compliance check but plays, as `--keep-failing` asked.
    Kept,
    /// Failed the compliance check: does not play.
    Failing,
    /// A folder that is not a valid player folder: does not play.
    Invalid,
}

impl Status {
    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Kept => "kept",
            Status::Failing => "failing",
            Status::Invalid => "invalid",
        }
    }

    /// The status named `text`, as [`Status::as_str`] writes it.
    pub fn parse(text: &str) -> Option<Status> {
        [Status::Ok, Status::Kept, Status::Failing, Status::Invalid]
            .into_iter()
            .find(|s| s.as_str() == text)
    }

    /// Whether a contestant with this status is scheduled.
    pub fn plays(self) -> bool {
        matches!(self, Status::Ok | Status::Kept)
    }
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchState {
    /// Waiting for a worker.
    Queued,
    /// Being played.
    Running,
    /// Played; its result is stored.
    Done,
    /// Arbiter or the machine failed it too many times.
    Failed,
}

impl MatchState {
    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchState::Queued => "queued",
            MatchState::Running => "running",
            MatchState::Done => "done",
            MatchState::Failed => "failed",
        }
    }

    pub(crate) fn parse(text: &str) -> Result<MatchState, StoreError> {
        Ok(match text {
            "queued" => MatchState::Queued,
            "running" => MatchState::Running,
            "done" => MatchState::Done,
            "failed" => MatchState::Failed,
            other => return Err(StoreError::Corrupt(format!("match state {other:?}"))),
        })
    }
}

/// A match to be played.
#[derive(Clone, Debug, PartialEq)]
pub struct NewMatch {
    /// Its number in the tournament.
    pub id: i64,
    /// Its round, from 1.
    pub round: u32,
    /// Contestant ids in seat order.
    pub seats: Vec<String>,
    /// The match's own seed.
    pub seed: u64,
}

/// One seat's faults in a match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFaults {
    /// The seat, from 0.
    pub seat: usize,
    /// The contestant's id.
    pub player: String,
    /// Malformed and illegal answers.
    pub errors: u32,
    /// Answers too late.
    pub timeouts: u32,
    /// Whether the program died or closed its output.
    pub crashed: bool,
    /// The sandbox limit that ended the program, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed_for: Option<Limit>,
    /// What went wrong beyond the counts (a program that could not be started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What a played match left, as the store keeps it (the replay's own result record is
/// `arbiter_replay::MatchResult`).
#[derive(Clone, Debug, PartialEq)]
pub struct StoredResult {
    /// Per seat.
    pub scores: Vec<f64>,
    /// Per seat: 1 for the first place.
    pub placement: Vec<u32>,
    /// Why the match ended.
    pub reason: String,
    /// Only the seats that had a fault.
    pub faults: Vec<SeatFaults>,
    /// The replay file.
    pub replay: Option<String>,
    /// Ticks played.
    pub ticks: u32,
    /// Per seat: time spent thinking.
    pub time_ms: Vec<f64>,
    /// Per seat: turns asked.
    pub turns: Vec<u32>,
}

/// A match as stored: what [`NewMatch`] said, and where it is now.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchRow {
    /// Its number in the tournament.
    pub id: i64,
    /// Its round, from 1.
    pub round: u32,
    /// Contestant ids in seat order.
    pub seats: Vec<String>,
    /// Where it is in its life.
    pub state: MatchState,
    /// The match's own seed.
    pub seed: u64,
    /// Failures of Arbiter or the machine so far.
    pub attempts: u32,
    /// Once played.
    pub result: Option<StoredResult>,
    /// The last failure of Arbiter or the machine, for a match retried or failed.
    pub error: Option<String>,
    /// How many times it was claimed: the number a result must come with to be taken.
    pub claim: i64,
    /// The worker that holds it (running) or played it (done).
    pub worker: Option<String>,
    /// When it was claimed (Unix milliseconds).
    pub started: Option<i64>,
    /// When it was committed or failed for good (Unix milliseconds).
    pub finished: Option<i64>,
}

/// A player's rating once a round is complete.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingRow {
    /// The contestant's id.
    pub player: String,
    /// The rating.
    pub rating: f64,
    /// Its uncertainty, for systems that have one (Weng-Lin).
    pub deviation: Option<f64>,
    /// Games rated so far.
    pub games: u32,
}
