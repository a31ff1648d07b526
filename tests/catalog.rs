//! The catalog from a game's side: a game that exists only in this test is registered through
//! the catalog and played by the command line's own code (`arbiter::run`, what the binary
//! runs); every game refuses another game's flags, naming the game it belongs to.

mod common;

use std::process::ExitCode;

use arbiter_catalog::{CatalogGame, Games, InvalidSettings, TableSetup, With};
use arbiter_games::{
    ClientEvent, Fault, FaultAction, Game, Illegal, Outcome, PlayerId, Protocol, Recorded, Robot,
    TimeControl, Wire, WireClient,
};
use arbiter_robots::{RandomRobot, Robots};
use common::{arbiter, failure, temp_dir};

/// Nim: players take 1 to 3 stones in turn from one pile; who takes the last one wins.
#[derive(Clone, Debug)]
struct Nim {
    pile: u32,
    turns: u32,
}

#[derive(clap::Args, Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct NimSettings {
    /// Stones in the pile at the start (default 10).
    #[arg(long)]
    pile: Option<u32>,
}

impl Game for Nim {
    type Action = u32;
    const NAME: &'static str = "nim";

    fn num_players(&self) -> usize {
        2
    }

    fn to_move(&self) -> Option<PlayerId> {
        (self.pile > 0).then_some(self.turns as usize % 2)
    }

    fn tick(&self) -> u32 {
        self.turns
    }

    fn legal_actions(&self, out: &mut Vec<u32>) {
        out.clear();
        out.extend((1..=3).filter(|&take| take <= self.pile));
    }

    fn check(&self, take: u32) -> Result<(), Illegal> {
        if (1..=3.min(self.pile)).contains(&take) {
            Ok(())
        } else {
            Err(Illegal::new(format!("cannot take {take}")))
        }
    }

    fn apply_unchecked(&mut self, take: u32) {
        self.pile -= take;
        self.turns += 1;
    }

    fn apply_stuck(&mut self) {}

    fn outcome(&self) -> Option<Outcome> {
        if self.pile > 0 {
            return None;
        }
        let winner = (self.turns as usize + 1) % 2;
        Some(Outcome {
            scores: (0..2).map(|p| f64::from(u8::from(p == winner))).collect(),
            placement: (0..2).map(|p| if p == winner { 1 } else { 2 }).collect(),
            reason: "last_stone",
        })
    }
}

impl Wire for Nim {
    const PROTOCOL: Protocol = Protocol::lines(TimeControl::PerReply {
        limit: std::time::Duration::from_secs(1),
        first_extra: std::time::Duration::ZERO,
    });

    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        out.push_str(&format!("START {player}"));
    }

    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str(&self.pile.to_string());
    }

    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("END");
    }

    fn parse_action(&self, line: &str) -> Result<u32, String> {
        line.trim().parse().map_err(|e| format!("{e}"))
    }

    fn format_action(&self, take: u32, out: &mut String) {
        out.push_str(&take.to_string());
    }

    fn on_fault(&self, _fault: Fault<u32>, _rng: &mut dyn rand::RngCore) -> FaultAction<u32> {
        FaultAction::Forfeit
    }
}

/// The pile left: what the viewer would draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct NimPile {
    pile: u32,
}

/// Stones taken in one turn.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct NimTake {
    take: u32,
}

/// Nim has no settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct NimRecordedSettings {}

impl Recorded for Nim {
    type Snapshot = NimPile;
    type ActionRecord = NimTake;
    type SettingsRecord = NimRecordedSettings;

    fn snapshot(&self) -> NimPile {
        NimPile { pile: self.pile }
    }

    fn action_record(&self, take: u32) -> NimTake {
        NimTake { take }
    }

    fn settings_record(&self) -> NimRecordedSettings {
        NimRecordedSettings {}
    }
}

impl WireClient for Nim {
    type Client = ();

    fn client_feed(_: &mut (), line: &str) -> Result<ClientEvent<Nim>, String> {
        Ok(match line.parse::<u32>() {
            Ok(pile) => ClientEvent::YourTurn(Nim { pile, turns: 0 }),
            Err(_) if line == "END" => ClientEvent::End,
            Err(_) => ClientEvent::Pending,
        })
    }
}

impl Robots for Nim {
    const ROBOTS: &'static [&'static str] = &["random"];

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Nim>>> {
        (name == "random").then(|| Box::new(RandomRobot::new(seed)) as Box<dyn Robot<Nim>>)
    }
}

impl CatalogGame for Nim {
    type Settings = NimSettings;
    const ABOUT: &'static str = "Nim: who takes the last stone wins";
    const RENDERER: &'static str = "text";

    fn seats(_: &NimSettings, _offered: usize) -> usize {
        2
    }

    fn build(settings: &NimSettings, _setup: &TableSetup) -> Result<Nim, InvalidSettings> {
        match settings.pile.unwrap_or(10) {
            0 => Err(InvalidSettings("--pile must be at least 1".into())),
            pile => Ok(Nim { pile, turns: 0 }),
        }
    }
}

/// The command line over the standard games and Nim.
fn run_with_nim(args: &[&str]) -> ExitCode {
    arbiter::run::<With<Nim, Games>>(std::iter::once("arbiter").chain(args.iter().copied()))
}

#[test]
fn a_game_registered_in_the_catalog_plays_through_the_command_line() {
    let dir = temp_dir("catalog-nim");
    let replay = dir.join("nim.jsonl");
    let replay_arg = replay.to_str().unwrap();
    let code = run_with_nim(&[
        "play",
        "nim",
        "--pile",
        "9",
        "--bot",
        "builtin:random",
        "--bot",
        "builtin:random",
        "--seed",
        "4",
        "--json",
        "--replay",
        replay_arg,
    ]);
    assert_eq!(code, ExitCode::SUCCESS);
    let replay = arbiter_replay::read_replay(&replay).unwrap();
    assert_eq!(replay.header.game, "nim");
    let result = replay.result.expect("the match ended");
    assert_eq!(result.reason, "last_stone");
    // Its settings are its own: a flag of Quoridor is refused, and nothing is played.
    let refused = dir.join("refused.jsonl");
    let code = run_with_nim(&[
        "play",
        "nim",
        "--board",
        "9",
        "--bot",
        "builtin:random",
        "--bot",
        "builtin:random",
        "--replay",
        refused.to_str().unwrap(),
    ]);
    assert_ne!(code, ExitCode::SUCCESS);
    assert!(!refused.exists());
    // The standard games stay playable next to it.
    assert_eq!(run_with_nim(&["perft", "quoridor", "1"]), ExitCode::SUCCESS);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_flag_of_another_game_names_its_game_and_lists_this_games_settings() {
    let robots = ["--bot", "builtin:random", "--bot", "builtin:random"];
    for (game, flag, owner, listed) in [
        (
            "quoridor",
            ["--level", "3"],
            "labyrinth",
            "--players, --board, --walls",
        ),
        (
            "puoribor",
            ["--start-token", "start"],
            "domino",
            "--max-ticks",
        ),
        (
            "domino",
            ["--level", "2"],
            "labyrinth",
            "--board, --board-seed, --obstacles",
        ),
        (
            "labyrinth",
            ["--walls", "4"],
            "quoridor",
            "--players, --level, --level-seed",
        ),
    ] {
        let dir = temp_dir(&format!("foreign-{game}"));
        let replay = dir.join("r.jsonl");
        let message = failure(
            arbiter()
                .args(["play", game])
                .args(robots)
                .args(flag)
                .arg("--replay")
                .arg(&replay),
        );
        let expected = format!("{} is a setting of {owner}, not {game}", flag[0]);
        assert!(message.contains(&expected), "{game}: {message}");
        assert!(message.contains(listed), "{game}: {message}");
        assert!(!replay.exists(), "{game}: a match was played");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn help_of_a_game_lists_its_settings_only() {
    let output = common::run(arbiter().args(["play", "quoridor", "--help"]));
    let help = String::from_utf8_lossy(&output.stdout);
    assert!(help.contains("--walls"), "{help}");
    for other in ["--level", "--obstacles", "--start-token", "--board-seed"] {
        assert!(!help.contains(other), "{other} in {help}");
    }
}
