//! Start handshakes with acknowledgements, per-reply time limits and stray lines, through real
//! processes, with Domino: the example exchange of docs/games/domino.md#example-exchange byte for byte, and each
//! way a bot can get the handshake wrong.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_games::domino::{Cell, Domino, Settings};
use arbiter_games::{Game, Robot, TimeControl};
use arbiter_referee::{BuiltinSeat, MatchConfig, MatchReport, ProcessSeat, Seat, run_match};
use arbiter_replay::{Replay, ReplayWriter, read_replay};
use common::{assert_group_gone, bots_dir, temp_dir};

/// The board of the example: n = 3, one obstacle in the middle.
fn example() -> Domino {
    Domino::new(Settings::custom(3, &[Cell::new(1, 1)]).unwrap()).unwrap()
}

fn per_reply(limit_ms: u64, first_extra_ms: u64) -> TimeControl {
    TimeControl::PerReply {
        limit: Duration::from_millis(limit_ms),
        first_extra: Duration::from_millis(first_extra_ms),
    }
}

/// Limits a Python bot meets on a busy machine; the tests of time limits set their own.
fn config(time: TimeControl) -> MatchConfig {
    MatchConfig {
        seed: 1,
        time: Some(time),
        grace: Duration::from_millis(100),
    }
}

fn relaxed() -> MatchConfig {
    config(per_reply(2000, 3000))
}

/// A scripted bot whose input is copied to `transcript`.
fn scripted(name: &str, transcript: &Path, answers: &[&str]) -> ProcessSeat {
    let mut argv = vec![
        "python3".to_owned(),
        bots_dir().join("scripted.py").display().to_string(),
        transcript.display().to_string(),
    ];
    argv.extend(answers.iter().map(|a| a.to_string()));
    ProcessSeat::spawn(name, &argv, None).unwrap()
}

struct Match {
    report: MatchReport,
    replay: Replay,
    /// What each bot read, byte for byte.
    transcripts: [String; 2],
}

fn play(name: &str, game: Domino, answers: [&[&str]; 2], config: &MatchConfig) -> Match {
    let dir = temp_dir(&format!("domino-{name}"));
    let paths: Vec<PathBuf> = ["a", "b"].iter().map(|p| dir.join(p)).collect();
    let a = scripted("A", &paths[0], answers[0]);
    let b = scripted("B", &paths[1], answers[1]);
    let groups = [a.pgid(), b.pgid()];
    let seats: Vec<Box<dyn Seat<Domino>>> = vec![Box::new(a), Box::new(b)];
    let path = dir.join("replay.jsonl");
    let mut writer = ReplayWriter::create(&path).unwrap();
    let report = run_match(game, seats, config, Some(&mut writer)).unwrap();
    writer.finish().unwrap();
    groups.into_iter().for_each(assert_group_gone);
    let replay = read_replay(&path).unwrap();
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let transcripts = [read(&paths[0]), read(&paths[1])];
    let _ = std::fs::remove_dir_all(&dir);
    Match {
        report,
        replay,
        transcripts,
    }
}

fn assert_forfeit(m: &Match, loser: usize, reason: &str) {
    assert_eq!(m.report.outcome.reason, reason, "{:?}", m.report);
    assert_eq!(m.report.forfeit, Some(loser));
    assert_eq!(m.report.outcome.scores[loser], 0.0);
    assert_eq!(m.report.outcome.scores[1 - loser], 1.0);
    assert_eq!(m.report.outcome.placement[1 - loser], 1);
}

const A_EXAMPLE: &[&str] = &["ok", "ok", "{0;0},{0;1}", "{1;2},{0;2}"];
const B_EXAMPLE: &[&str] = &["ok", "ok", "{2;0},{2;2}"];

#[test]
fn the_example_exchange_of_the_spec_byte_for_byte() {
    let m = play("example", example(), [A_EXAMPLE, B_EXAMPLE], &relaxed());
    assert_eq!(m.transcripts[0], "3\n{1;1}\nSTART\n{2;0},{2;2}\n");
    assert_eq!(m.transcripts[1], "3\n{1;1}\n{0;0},{0;1}\n");
    assert_eq!(m.report.outcome.reason, "no_moves");
    assert_eq!(
        m.report.outcome.scores,
        vec![1.0, 0.0],
        "B cannot move: A wins"
    );
    assert_eq!(m.report.forfeit, None);
    assert_eq!(m.report.ticks, 4, "three placements and B's stuck turn");
    for bot in &m.report.bots {
        assert_eq!((bot.errors, bot.timeouts, bot.crashed), (0, 0, false));
        assert_eq!(bot.exit.code, Some(0), "both exit when their input ends");
    }
    // The start messages go A, B, A, B, each answered before the next goes out.
    let start = &m.replay.ticks[0];
    let mut order: Vec<(f64, usize, &str)> = (0..2)
        .flat_map(|p| {
            start.bots[p]
                .received
                .iter()
                .map(move |msg| (msg.at_ms, p, msg.text.as_str()))
        })
        .collect();
    order.sort_by(|x, y| x.0.total_cmp(&y.0));
    let order: Vec<(usize, &str)> = order.into_iter().map(|(_, p, t)| (p, t)).collect();
    assert_eq!(
        order,
        [(0, "3\n"), (1, "3\n"), (0, "{1;1}\n"), (1, "{1;1}\n")]
    );
    for p in 0..2 {
        let sent: Vec<&str> = start.bots[p].sent.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(sent, ["ok", "ok"]);
    }
    let last = m.replay.ticks.last().unwrap();
    assert_eq!(last.action["kind"], "stuck");
    assert_eq!(last.player, Some(1));
    assert!(
        last.bots[1].received.is_empty(),
        "nothing is sent at the end"
    );
}

#[test]
fn acknowledgements_are_read_without_case_and_surrounding_blanks() {
    let a: &[&str] = &["OK", "  Ok\t", "{0;0},{0;1}", "{1;2},{0;2}"];
    let b: &[&str] = &["@raw:oK\r|", "ok", "{2;0},{2;2}"];
    let m = play("ack-case", example(), [a, b], &relaxed());
    assert_eq!(m.report.outcome.reason, "no_moves");
    assert_eq!(m.report.forfeit, None);
}

#[test]
fn a_wrong_acknowledgement_loses_as_malformed() {
    let b: &[&str] = &["ok", "okay"];
    let m = play("wrong-ack", example(), [A_EXAMPLE, b], &relaxed());
    assert_forfeit(&m, 1, "malformed");
    assert_eq!(m.report.bots[1].errors, 1);
    assert_eq!(m.transcripts[0], "3\n{1;1}\n", "A never gets START");
    let error = m.replay.ticks[0].bots[1].error.as_deref().unwrap();
    assert!(error.contains("`ok`") && error.contains("okay"), "{error}");
    assert_eq!(m.report.ticks, 0);
}

#[test]
fn a_missing_acknowledgement_is_a_timeout() {
    let a: &[&str] = &["@hang"];
    let m = play(
        "no-ack",
        example(),
        [a, B_EXAMPLE],
        &config(per_reply(300, 1500)),
    );
    assert_forfeit(&m, 0, "timeout");
    assert_eq!(m.report.bots[0].timeouts, 1);
    assert_eq!(m.transcripts[1], "", "B is sent nothing once A has lost");
    assert!(m.report.bots[0].exit.killed, "a hanging bot is killed");
}

#[test]
fn the_first_reply_gets_the_start_up_allowance_and_later_ones_do_not() {
    let slow_start: &[&str] = &["@sleep:700:ok", "ok", "{0;0},{0;1}", "{1;2},{0;2}"];
    let m = play(
        "allowance",
        example(),
        [slow_start, B_EXAMPLE],
        &config(per_reply(500, 2000)),
    );
    assert_eq!(m.report.outcome.reason, "no_moves", "{:?}", m.report);

    let m = play(
        "no-allowance",
        example(),
        [slow_start, B_EXAMPLE],
        &config(per_reply(500, 0)),
    );
    assert_forfeit(&m, 0, "timeout");

    let slow_second: &[&str] = &["ok", "@sleep:700:ok"];
    let m = play(
        "slow-second",
        example(),
        [slow_second, B_EXAMPLE],
        &config(per_reply(500, 2000)),
    );
    assert_forfeit(&m, 0, "timeout");
}

#[test]
fn stray_lines_answer_the_next_requests() {
    // Both acknowledgements in one write, then a move with the next move after it.
    let a: &[&str] = &[
        "@raw:ok|ok|",
        "@silent",
        "@raw:{0;0},{0;1}|{1;2},{0;2}|",
        "@silent",
    ];
    let m = play("stray", example(), [a, B_EXAMPLE], &relaxed());
    assert_eq!(m.report.outcome.reason, "no_moves", "{:?}", m.report);
    assert_eq!(m.report.outcome.scores, vec![1.0, 0.0]);
    assert_eq!(m.report.bots[0].errors, 0);
    assert_eq!(m.transcripts[0], "3\n{1;1}\nSTART\n{2;0},{2;2}\n");
    let third = &m.replay.ticks[3];
    assert_eq!(third.player, Some(0));
    assert_eq!(third.bots[0].sent[0].text, "{1;2},{0;2}");
    assert!(third.bots[0].notes.is_empty(), "nothing discarded");
}

#[test]
fn a_player_without_a_placement_loses_before_start() {
    // Free cells (1,0) and (2,1) only: no domino fits.
    let blocked: Vec<Cell> = (0..3)
        .flat_map(|y| (0..3).map(move |x| Cell::new(x, y)))
        .filter(|&c| c != Cell::new(1, 0) && c != Cell::new(2, 1))
        .collect();
    let game = Domino::new(Settings::custom(3, &blocked).unwrap()).unwrap();
    let m = play(
        "stuck-at-start",
        game,
        [&["ok", "ok"], &["ok", "ok"]],
        &relaxed(),
    );
    assert_eq!(m.report.outcome.reason, "no_moves");
    assert_eq!(m.report.outcome.scores, vec![0.0, 1.0]);
    assert_eq!(
        m.transcripts[0],
        "3\n{0;0},{2;0},{0;1},{1;1},{0;2},{1;2},{2;2}\n"
    );
}

/// Plays the first legal placement.
struct First;
impl Robot<Domino> for First {
    fn choose(&mut self, game: &Domino) -> arbiter_games::domino::Placement {
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        actions[0]
    }
}

#[test]
fn a_robot_in_process_acknowledges_by_itself() {
    let dir = temp_dir("domino-robot");
    let transcript = dir.join("b");
    // The robot plays {0;0},{1;0}, so B's answer covers a covered cell.
    let b = scripted("B", &transcript, &["ok", "ok", "{0;0},{0;1}"]);
    let group = b.pgid();
    let seats: Vec<Box<dyn Seat<Domino>>> = vec![
        Box::new(BuiltinSeat::new("first", Box::new(First))),
        Box::new(b),
    ];
    let report = run_match(example(), seats, &relaxed(), None).unwrap();
    assert_group_gone(group);
    assert_eq!(report.bots[0].errors + report.bots[0].timeouts, 0);
    assert!(!report.bots[0].crashed);
    assert_eq!(report.outcome.reason, "illegal");
    assert_eq!(report.outcome.scores, vec![1.0, 0.0]);
    let read = std::fs::read_to_string(&transcript).unwrap();
    assert_eq!(read, "3\n{1;1}\n{0;0},{1;0}\n");
    let _ = std::fs::remove_dir_all(&dir);
}
