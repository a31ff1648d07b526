//! The referee is generic over the game: a tiny game whose rules say a faulty bot loses at once
//! (`FaultAction::Forfeit`), and where a player can be left without a legal action, played by
//! shell bots and robots.

mod common;

use arbiter_games::{
    Fault, FaultAction, Game, Illegal, Outcome, PlayerId, Protocol, Recorded, Robot, TimeControl,
    Wire,
};
use arbiter_referee::{BuiltinSeat, ProcessSeat, Seat, run_match};
use arbiter_replay::{ReplayWriter, read_replay};
use common::{assert_group_gone, config, temp_dir};

/// Two players take 1 or 2 from a pile in turn; whoever takes the last one wins. For the test of
/// stuck players, the player on turn at tick `stuck_at` has no legal action and is eliminated.
#[derive(Clone, Debug)]
struct Pile {
    left: u32,
    tick: u32,
    stuck_at: Option<u32>,
    eliminated: Option<PlayerId>,
}

impl Game for Pile {
    type Action = u32;
    const NAME: &'static str = "pile";

    fn num_players(&self) -> usize {
        2
    }
    fn to_move(&self) -> Option<PlayerId> {
        (self.left > 0 && self.eliminated.is_none()).then_some(self.tick as usize % 2)
    }
    fn tick(&self) -> u32 {
        self.tick
    }
    fn legal_actions(&self, out: &mut Vec<u32>) {
        out.clear();
        if self.stuck_at != Some(self.tick) {
            out.extend((1..=2).filter(|&n| n <= self.left));
        }
    }
    fn check(&self, take: u32) -> Result<(), Illegal> {
        if take > self.left {
            return Err(Illegal::new(format!("only {} left", self.left)));
        }
        Ok(())
    }
    fn apply_unchecked(&mut self, take: u32) {
        self.left -= take;
        self.tick += 1;
    }
    fn apply_stuck(&mut self) {
        self.eliminated = Some(self.tick as usize % 2);
        self.tick += 1;
    }
    fn outcome(&self) -> Option<Outcome> {
        if let Some(loser) = self.eliminated {
            return Some(Outcome {
                scores: (0..2).map(|p| if p == loser { 0.0 } else { 1.0 }).collect(),
                placement: (0..2).map(|p| if p == loser { 2 } else { 1 }).collect(),
                reason: "last_player_left",
            });
        }
        if self.left > 0 {
            return None;
        }
        let winner = (self.tick as usize + 1) % 2;
        Some(Outcome {
            scores: (0..2)
                .map(|p| if p == winner { 1.0 } else { 0.0 })
                .collect(),
            placement: (0..2).map(|p| if p == winner { 1 } else { 2 }).collect(),
            reason: "last_taken",
        })
    }
}

impl Wire for Pile {
    const PROTOCOL: Protocol = Protocol::lines(TimeControl::PerReply {
        limit: std::time::Duration::from_millis(1000),
        first_extra: std::time::Duration::from_millis(2000),
    });
    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        out.push_str(&format!("{player}\n"));
    }
    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str(&format!("{}\n", self.left));
    }
    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("-1\n");
    }
    fn parse_action(&self, line: &str) -> Result<u32, String> {
        match line.trim().parse() {
            Ok(n @ 1..=2) => Ok(n),
            _ => Err(format!("expected 1 or 2, got {line:?}")),
        }
    }
    fn format_action(&self, take: u32, out: &mut String) {
        out.push_str(&take.to_string());
    }
    fn on_fault(&self, _fault: Fault<u32>, _rng: &mut dyn rand::RngCore) -> FaultAction<u32> {
        FaultAction::Forfeit
    }
}

/// What the replay records: stones left, stones taken, the pile at the start.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Stones {
    left: u32,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Take {
    kind: String,
    n: u32,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct PileSettings {
    pile: u32,
}

impl Recorded for Pile {
    type Snapshot = Stones;
    type ActionRecord = Take;
    type SettingsRecord = PileSettings;
    fn snapshot(&self) -> Stones {
        Stones { left: self.left }
    }
    fn action_record(&self, take: u32) -> Take {
        Take {
            kind: "take".into(),
            n: take,
        }
    }
    fn settings_record(&self) -> PileSettings {
        PileSettings { pile: 7 }
    }
}

fn pile() -> Pile {
    Pile {
        left: 7,
        tick: 0,
        stuck_at: None,
        eliminated: None,
    }
}

/// A shell bot that reads its id, then answers `answer` to every request until `-1`.
fn sh_bot(answer: &str) -> ProcessSeat {
    let script =
        format!("read id; while read n; do [ \"$n\" = -1 ] && exit 0; echo {answer}; done");
    let argv = ["sh".to_owned(), "-c".to_owned(), script];
    ProcessSeat::spawn(answer, &argv, None).unwrap()
}

struct Panicky;
impl Robot<Pile> for Panicky {
    fn choose(&mut self, _game: &Pile) -> u32 {
        panic!("out of ideas")
    }
}

struct TakeOne;
impl Robot<Pile> for TakeOne {
    fn choose(&mut self, _game: &Pile) -> u32 {
        1
    }
}

#[test]
fn a_clean_match_ends_by_the_rules() {
    let (a, b) = (sh_bot("1"), sh_bot("1"));
    let groups = [a.pgid(), b.pgid()];
    let seats: Vec<Box<dyn Seat<Pile>>> = vec![Box::new(a), Box::new(b)];
    let report = run_match(pile(), seats, &config(), None).unwrap();
    assert_eq!(report.outcome.reason, "last_taken");
    assert_eq!(report.ticks, 7);
    assert_eq!(
        report.outcome.placement,
        vec![1, 2],
        "player 0 takes the 7th"
    );
    assert_eq!(report.forfeit, None);
    groups.into_iter().for_each(assert_group_gone);
}

#[test]
fn a_malformed_answer_forfeits_the_match() {
    let (a, b) = (sh_bot("1"), sh_bot("three"));
    let groups = [a.pgid(), b.pgid()];
    let seats: Vec<Box<dyn Seat<Pile>>> = vec![Box::new(a), Box::new(b)];
    let path = temp_dir("forfeit").join("replay.jsonl");
    let mut writer = ReplayWriter::create(&path).unwrap();
    let report = run_match(pile(), seats, &config(), Some(&mut writer)).unwrap();
    writer.finish().unwrap();
    groups.into_iter().for_each(assert_group_gone);

    assert_eq!(report.forfeit, Some(1));
    assert_eq!(report.outcome.reason, "malformed");
    assert_eq!(report.outcome.placement, vec![1, 2]);
    assert_eq!(report.outcome.scores, vec![1.0, 0.0]);
    assert_eq!(report.bots[1].errors, 1);
    assert_eq!(report.ticks, 2, "the match stops at the faulty turn");

    let replay = read_replay(&path).unwrap();
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    let ticks: Vec<u32> = replay.ticks.iter().map(|t| t.tick).collect();
    assert_eq!(ticks, vec![0, 1, 2]);
    let last = replay.ticks.last().unwrap();
    assert_eq!(last.player, Some(1));
    assert_eq!(last.action["kind"], "forfeit");
    assert_eq!(
        last.bots[1].error.as_deref(),
        Some("expected 1 or 2, got \"three\"")
    );
    assert_eq!(replay.result.unwrap().reason, "malformed");
    assert_eq!(replay.header.game, "pile");
}

#[test]
fn a_panicking_robot_forfeits_and_the_referee_survives() {
    let seats: Vec<Box<dyn Seat<Pile>>> = vec![
        Box::new(BuiltinSeat::new("one", Box::new(TakeOne))),
        Box::new(BuiltinSeat::new("panicky", Box::new(Panicky))),
    ];
    let report = run_match(pile(), seats, &config(), None).unwrap();
    assert_eq!(report.forfeit, Some(1));
    assert!(report.bots[1].crashed);
    assert_eq!(report.outcome.placement, vec![1, 2]);
}

#[test]
fn a_stuck_player_is_told_the_match_is_over_and_closed() {
    let (a, b) = (sh_bot("1"), sh_bot("1"));
    let groups = [a.pgid(), b.pgid()];
    let seats: Vec<Box<dyn Seat<Pile>>> = vec![Box::new(a), Box::new(b)];
    let path = temp_dir("stuck").join("replay.jsonl");
    let mut writer = ReplayWriter::create(&path).unwrap();
    let game = Pile {
        stuck_at: Some(3),
        ..pile()
    };
    let report = run_match(game, seats, &config(), Some(&mut writer)).unwrap();
    writer.finish().unwrap();
    groups.into_iter().for_each(assert_group_gone);
    assert_eq!(report.outcome.reason, "last_player_left");
    assert_eq!(
        report.outcome.placement,
        vec![1, 2],
        "player 1 is on turn at tick 3"
    );
    assert_eq!(report.ticks, 4);
    for bot in &report.bots {
        assert_eq!((bot.errors, bot.timeouts, bot.crashed), (0, 0, false));
        assert_eq!(bot.exit.code, Some(0), "both exit on -1");
    }
    let replay = read_replay(&path).unwrap();
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
    let stuck = &replay.ticks[4];
    assert_eq!((stuck.tick, stuck.player), (4, Some(1)));
    assert_eq!(stuck.action["kind"], "stuck");
    assert_eq!(stuck.bots[1].received.len(), 1);
    assert_eq!(stuck.bots[1].received[0].text, "-1\n");
    assert!(stuck.bots[1].sent.is_empty());
}
