//! What the referee does for games shaped like Labyrinth, on a tiny game of that shape: every
//! player not on turn is told the state each turn, answers are blocks of lines ended by `.`, a
//! faulty answer is played as the rules say from what was wrong with it, the players are told
//! each other's names (the game is built with them), and a match that every connected player
//! has left ends at once.

mod common;

use std::time::Duration;

use arbiter_games::{
    Deserted, Fault, FaultAction, Framing, Game, Illegal, Outcome, PlayerId, Protocol, Recorded,
    Robot, TimeControl, Watchers, Wire,
};
use arbiter_referee::{BuiltinSeat, MatchConfig, MatchReport, ProcessSeat, Seat, run_match};
use arbiter_replay::{ReplayWriter, read_replay};
use common::{assert_group_gone, temp_dir};

/// Three players add 1 or 2 to a running total in turn, six turns in all. An answer is a block:
/// `ADD n` then `.`. Adding 3 is illegal (and costs 10); a missing answer adds nothing.
#[derive(Clone, Debug, Default)]
struct Relay {
    total: i64,
    tick: u32,
    names: Vec<String>,
    abandoned: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Add(i64),
    /// What the rules play for an illegal `ADD n`.
    Penalty(i64),
    /// What the rules play for a malformed, missing or offline answer.
    Nothing(&'static str),
}

impl Game for Relay {
    type Action = Step;
    const NAME: &'static str = "relay";

    fn num_players(&self) -> usize {
        3
    }
    fn to_move(&self) -> Option<PlayerId> {
        (self.tick < 6 && !self.abandoned).then_some(self.tick as usize % 3)
    }
    fn tick(&self) -> u32 {
        self.tick
    }
    fn legal_actions(&self, out: &mut Vec<Step>) {
        out.clear();
        out.extend([Step::Add(1), Step::Add(2)]);
    }
    fn check(&self, action: Step) -> Result<(), Illegal> {
        match action {
            Step::Add(1 | 2) => Ok(()),
            other => Err(Illegal::new(format!("{other:?} is not 1 or 2"))),
        }
    }
    fn apply_unchecked(&mut self, action: Step) {
        self.total += match action {
            Step::Add(n) => n,
            Step::Penalty(_) => -10,
            Step::Nothing(_) => 0,
        };
        self.tick += 1;
    }
    fn abandon(&mut self) {
        self.abandoned = true;
    }
    fn outcome(&self) -> Option<Outcome> {
        (self.to_move().is_none()).then(|| Outcome {
            scores: vec![self.total as f64; 3],
            placement: vec![1; 3],
            reason: if self.abandoned { "abandoned" } else { "done" },
        })
    }
}

impl Relay {
    fn named(names: &[&str]) -> Relay {
        Relay {
            names: names.iter().map(|&n| n.to_owned()).collect(),
            ..Relay::default()
        }
    }
}

impl Wire for Relay {
    const PROTOCOL: Protocol = Protocol {
        framing: Framing::Block { terminator: "." },
        watchers: Watchers::ToldEveryTurn,
        deserted: Deserted::End,
        ..Protocol::lines(TimeControl::PerReply {
            limit: Duration::from_millis(1500),
            first_extra: Duration::ZERO,
        })
    };
    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        out.push_str(&format!("NAMES {}\nYOU {player}\n", self.names.join(" ")));
    }
    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str(&format!("TURN {}\n", self.total));
    }
    fn watch_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str(&format!("WATCH {} {}\n", self.tick, self.total));
    }
    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("END\n");
    }
    fn parse_action(&self, block: &str) -> Result<Step, String> {
        let first = block.lines().next().unwrap_or("");
        match first.strip_prefix("ADD ").map(str::parse) {
            Some(Ok(n)) => Ok(Step::Add(n)),
            _ => Err(format!("expected ADD n, got {block:?}")),
        }
    }
    fn format_action(&self, action: Step, out: &mut String) {
        if let Step::Add(n) = action {
            out.push_str(&format!("ADD {n}"));
        }
    }
    fn on_fault(&self, fault: Fault<Step>, _rng: &mut dyn rand::RngCore) -> FaultAction<Step> {
        FaultAction::Play(match fault {
            Fault::Illegal(Step::Add(n)) => Step::Penalty(n),
            Fault::Illegal(other) => panic!("{other:?} never comes from a bot"),
            Fault::Malformed => Step::Nothing("malformed"),
            Fault::Timeout => Step::Nothing("timeout"),
            Fault::Crash => Step::Nothing("offline"),
        })
    }
}

/// What the replay records: the total, the step played (by its `Debug` text), no settings.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Total {
    total: i64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct StepRecord {
    kind: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct NoSettings {}

impl Recorded for Relay {
    type Snapshot = Total;
    type ActionRecord = StepRecord;
    type SettingsRecord = NoSettings;
    fn snapshot(&self) -> Total {
        Total { total: self.total }
    }
    fn action_record(&self, action: Step) -> StepRecord {
        StepRecord {
            kind: format!("{action:?}"),
        }
    }
    fn settings_record(&self) -> NoSettings {
        NoSettings {}
    }
}

/// A shell bot that logs every line it receives to `log` and answers each `TURN` with the next
/// of `answers` (each written as given, so it may span lines); exits on `END`.
fn logging_bot(name: &str, log: &std::path::Path, answers: &[&str]) -> ProcessSeat {
    let mut script = format!("set -- {}\n", shell_words(answers));
    script.push_str(&format!(
        "while IFS= read -r line; do\n  printf '%s\\n' \"$line\" >> '{}'\n  \
         case \"$line\" in\n    END) exit 0;;\n    TURN*) printf \"$1\"; shift;;\n  esac\ndone\n",
        log.display()
    ));
    let argv = ["sh".to_owned(), "-c".to_owned(), script];
    ProcessSeat::spawn(name, &argv, None).unwrap()
}

fn shell_words(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ")
}

struct AddOne;
impl Robot<Relay> for AddOne {
    fn choose(&mut self, _game: &Relay) -> Step {
        Step::Add(1)
    }
}

/// Plays a match of ann, bob and robot_2 recorded to `path`.
fn play_recorded(seats: Vec<Box<dyn Seat<Relay>>>, path: &std::path::Path) -> MatchReport {
    let mut writer = ReplayWriter::create(path).unwrap();
    let game = Relay::named(&["ann", "bob", "robot_2"]);
    let report = run_match(game, seats, &config(), Some(&mut writer)).unwrap();
    writer.finish().unwrap();
    report
}

/// What the replay says `seat` received and sent over the match: the received texts in order,
/// and the sent texts each followed by a line end, as the bot's stdin and stdout were.
fn streams(replay: &arbiter_replay::Replay, seat: usize) -> (String, String) {
    let (mut received, mut sent) = (String::new(), String::new());
    for bot in replay.ticks.iter().map(|t| &t.bots[seat]) {
        bot.received.iter().for_each(|m| received.push_str(&m.text));
        bot.sent
            .iter()
            .for_each(|m| sent.extend([m.text.as_str(), "\n"]));
    }
    (received, sent)
}

fn config() -> MatchConfig {
    MatchConfig {
        seed: 1,
        time: None,
        grace: Duration::from_millis(200),
    }
}

#[test]
fn players_not_on_turn_are_told_every_turn_and_blocks_are_one_answer() {
    let dir = temp_dir("relay-watch");
    let (log_a, log_b) = (dir.join("a.log"), dir.join("b.log"));
    let a = logging_bot("ann", &log_a, &["ADD 2\\n.\\n", "ADD 1\\nignored\\n.\\n"]);
    let b = logging_bot("bob", &log_b, &["ADD 1\\n.\\n", "ADD 2\\n.\\n"]);
    let groups = [a.pgid(), b.pgid()];
    let seats: Vec<Box<dyn Seat<Relay>>> = vec![
        Box::new(a),
        Box::new(b),
        Box::new(BuiltinSeat::new("robot_2", Box::new(AddOne))),
    ];
    let path = dir.join("replay.jsonl");
    let report = play_recorded(seats, &path);
    groups.into_iter().for_each(assert_group_gone);

    assert_eq!(report.outcome.reason, "done");
    assert_eq!(report.outcome.scores[0], 8.0, "2 + 1 + 1 + 1 + 2 + 1");
    for bot in &report.bots {
        assert_eq!((bot.errors, bot.timeouts, bot.crashed), (0, 0, false));
    }
    let log_of_a = std::fs::read_to_string(&log_a).unwrap();
    assert_eq!(
        log_of_a,
        "NAMES ann bob robot_2\nYOU 0\nTURN 0\nWATCH 1 2\nWATCH 2 3\nTURN 4\n\
         WATCH 4 5\nWATCH 5 7\nEND\n"
    );
    let log = std::fs::read_to_string(&log_b).unwrap();
    assert!(log.starts_with("NAMES ann bob robot_2\nYOU 1\nWATCH 0 0\nTURN 2\n"));

    let replay = read_replay(&path).unwrap();
    let answer = &replay.ticks[4].bots[0].sent;
    assert_eq!(answer.len(), 1);
    assert_eq!(
        answer[0].text, "ADD 1\nignored\n.",
        "one block, its lines joined, closed by its terminator"
    );
    let told = &replay.ticks[1].bots[1].received;
    assert_eq!(
        told.len(),
        1,
        "a player not on turn is told in the tick played"
    );
    assert_eq!(told[0].text, "WATCH 0 0\n");
    let (received, sent) = streams(&replay, 0);
    assert_eq!(received, log_of_a, "the replay holds every byte ann read");
    assert_eq!(
        sent, "ADD 2\n.\nADD 1\nignored\n.\n",
        "and every byte she wrote"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_faulty_answer_is_played_as_the_rules_say_from_what_was_wrong() {
    let dir = temp_dir("relay-faults");
    let a = logging_bot("ann", &dir.join("a.log"), &["ADD 3\\n.\\n", "hello\\n.\\n"]);
    let b = logging_bot("bob", &dir.join("b.log"), &["ADD 1\\n", "ADD 1\\n.\\n"]);
    let seats: Vec<Box<dyn Seat<Relay>>> = vec![
        Box::new(a),
        Box::new(b),
        Box::new(BuiltinSeat::new("robot_2", Box::new(AddOne))),
    ];
    let path = dir.join("replay.jsonl");
    let report = play_recorded(seats, &path);

    let actions: Vec<String> = read_replay(&path).unwrap().ticks[1..]
        .iter()
        .map(|t| t.action["kind"].as_str().unwrap().to_owned())
        .collect();
    // Bob's first block never ends; what he sent before his next turn is discarded, and the
    // block he sends after it answers that turn.
    assert_eq!(
        actions,
        [
            "Penalty(3)",
            "Nothing(\"timeout\")",
            "Add(1)",
            "Nothing(\"malformed\")",
            "Add(1)",
            "Add(1)"
        ]
    );
    assert_eq!(report.bots[0].errors, 2);
    assert_eq!(report.bots[1].timeouts, 1);
    // The block never ended is kept as written, without a terminator it never got.
    let (_, sent) = streams(&read_replay(&path).unwrap(), 1);
    assert_eq!(sent, "ADD 1\nADD 1\n.\n");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_match_every_connected_player_left_ends_at_once() {
    let dir = temp_dir("relay-abandon");
    let quitter = |name: &str| {
        let argv = ["sh".to_owned(), "-c".to_owned(), "exit 0".to_owned()];
        ProcessSeat::spawn(name, &argv, None).unwrap()
    };
    let seats: Vec<Box<dyn Seat<Relay>>> = vec![
        Box::new(quitter("ann")),
        Box::new(quitter("bob")),
        Box::new(BuiltinSeat::new("robot_2", Box::new(AddOne))),
    ];
    let game = Relay::named(&["ann", "bob", "robot_2"]);
    let report = run_match(game, seats, &config(), None).unwrap();
    assert_eq!(report.outcome.reason, "abandoned");
    assert!(report.ticks < 6, "ended after {} turns", report.ticks);
    assert!(report.bots[0].crashed && report.bots[1].crashed);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn robots_alone_play_to_the_end() {
    let seats: Vec<Box<dyn Seat<Relay>>> = (0..3)
        .map(|i| {
            Box::new(BuiltinSeat::new(format!("robot_{i}"), Box::new(AddOne)))
                as Box<dyn Seat<Relay>>
        })
        .collect();
    let game = Relay::named(&["robot_0", "robot_1", "robot_2"]);
    let report = run_match(game, seats, &config(), None).unwrap();
    assert_eq!(report.outcome.reason, "done");
    assert_eq!(report.outcome.scores[0], 6.0);
}
