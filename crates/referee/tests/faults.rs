//! Real bot processes, well-behaved and not: each fault gets the treatment docs/games/quoridor.md
//! gives it, the match always finishes, and no process of any bot is left afterwards.

mod common;

use std::time::{Duration, Instant};

use arbiter_games::Wire;
use arbiter_games::quoridor::Quoridor;
use arbiter_referee::{
    Ask, BuiltinSeat, LOG_TRIMMED, ProcessSeat, Reply, Seat, SeatSpec, TIMEOUT_ERROR, run_match,
};
use arbiter_replay::{Replay, strip_timing};
use common::*;

fn errors_of(replay: &Replay, p: usize) -> Vec<String> {
    replay
        .ticks
        .iter()
        .filter_map(|t| t.bots[p].error.clone())
        .collect()
}

#[test]
fn two_walkers_play_a_clean_match() {
    let (report, replay) = play(vec![walker(&[]), walker(&[])], &config(), "clean");
    assert_eq!(report.outcome.reason, "goal");
    // Player 0 steps aside once, so player 1 gets there first.
    assert_eq!(report.outcome.placement, vec![2, 1]);
    assert_eq!(report.ticks, 16);
    for bot in &report.bots {
        assert_eq!((bot.errors, bot.timeouts, bot.crashed), (0, 0, false));
        assert_eq!(bot.exit.code, Some(0), "{:?}", bot.exit);
        assert!(!bot.exit.killed);
    }
    assert_eq!(
        replay.ticks[0].bots[1].received[0].text,
        "2\n1\n9\n4 0 10\n4 8 10\n"
    );
    assert_eq!(replay.header.players[0].name, "walker");
    assert_eq!(replay.header.game, "quoridor");
    assert_eq!(replay.header.seed, 7);
    let first = &replay.ticks[1];
    assert_eq!(first.player, Some(0));
    assert_eq!(first.action["kind"], "move");
    assert_eq!(first.bots[0].sent.len(), 1);
    assert_eq!(first.bots[0].sent[0].text, "3 0");
    assert!(
        first.bots[0].received[0]
            .text
            .starts_with("1\n4 0 10\n4 8 10\n0\n")
    );
    assert!(first.bots[0].time_ms.unwrap() > 0.0);
    assert!(first.bots[1].time_ms.is_none());
    assert!(first.bots[1].received.is_empty());
    // The end message goes to both, in the last tick.
    let last = replay.ticks.last().unwrap();
    for bot in &last.bots {
        assert_eq!(bot.received.last().unwrap().text.trim(), "-1");
    }
    // Times run forward.
    let mut at = 0.0;
    for tick in &replay.ticks {
        for bot in &tick.bots {
            for m in bot.received.iter().chain(&bot.sent) {
                assert!(m.at_ms >= 0.0);
            }
        }
        let p = tick.player.unwrap_or(0);
        if let Some(m) = tick.bots[p].received.first() {
            assert!(m.at_ms >= at);
            at = m.at_ms;
        }
    }
}

#[test]
fn a_bot_that_dies_at_once_is_offline_and_played_for() {
    let (report, replay) = play(
        vec![shell_bot("crash_at_once.sh"), walker(&[])],
        &config(),
        "crash-at-once",
    );
    let bot = &report.bots[0];
    assert!(bot.crashed);
    assert_eq!(bot.exit.code, Some(3));
    let errors = errors_of(&replay, 0);
    assert_eq!(errors.len(), 1, "the crash is reported once: {errors:?}");
    assert_eq!(errors[0], "bot exited with code 3");
    // From its first turn on, it is offline and its turns are played for it.
    let turns = turns_of(&replay, 0);
    assert!(turns.iter().all(|t| t.bots[0].offline));
    assert!(turns[1..].iter().all(|t| t.bots[0].received.is_empty()));
    assert!(turns.iter().all(|t| t.action["kind"] == "move"));
    assert_eq!(report.outcome.placement[1], 1);
}

#[test]
fn a_crash_mid_match_keeps_the_traceback_in_that_tick() {
    let (report, replay) = play(
        vec![walker(&[]), walker(&["--crash-turn", "3"])],
        &config(),
        "crash-mid",
    );
    assert!(report.bots[1].crashed);
    assert!(!report.bots[0].crashed);
    let turns = turns_of(&replay, 1);
    let crash = turns[2];
    assert_eq!(
        crash.bots[1].error.as_deref(),
        Some("bot exited with code 1")
    );
    assert!(
        crash.bots[1]
            .log
            .contains("RuntimeError: crashing on purpose on turn 3"),
        "{:?}",
        crash.bots[1].log
    );
    assert!(crash.bots[1].offline);
    assert!(!turns[1].bots[1].offline);
    assert!(
        turns[3..]
            .iter()
            .all(|t| t.bots[1].offline && t.bots[1].error.is_none())
    );
    assert!(turns[3..].iter().all(|t| t.bots[1].received.is_empty()));
}

#[test]
fn a_bot_that_exits_early_is_offline() {
    let (report, replay) = play(
        vec![walker(&["--exit-turn", "2"]), walker(&[])],
        &config(),
        "exit-early",
    );
    assert!(report.bots[0].crashed);
    assert_eq!(report.bots[0].exit.code, Some(0));
    assert_eq!(errors_of(&replay, 0), vec!["bot exited with code 0"]);
}

#[test]
fn a_hanging_bot_times_out_every_turn_and_is_killed_at_the_end() {
    let started = Instant::now();
    let mut config = config();
    config.time = Some(bank(200, 30));
    let (report, replay) = play(
        vec![walker(&[]), walker(&["--hang-turn", "1"])],
        &config,
        "hang",
    );
    let bot = &report.bots[1];
    assert!(!bot.crashed);
    assert_eq!(bot.errors, 0);
    let turns = turns_of(&replay, 1);
    assert_eq!(bot.timeouts as usize, turns.len());
    assert!(
        turns
            .iter()
            .all(|t| t.bots[1].error.as_deref() == Some(TIMEOUT_ERROR))
    );
    // Its bank is spent on its first timeout; after that it has the 30 ms of each turn.
    assert_eq!(turns[0].bots[1].bank_ms, 0.0);
    let waited = turns[1].bots[1].time_ms.unwrap();
    assert!((30.0..60.0).contains(&waited), "{waited}");
    assert!(
        bot.exit.killed,
        "it never read the end message: {:?}",
        bot.exit
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn garbage_answers_are_errors_and_the_bot_plays_on() {
    let (report, replay) = play(
        vec![walker(&["--garbage"]), walker(&[])],
        &config(),
        "garbage",
    );
    let turns = turns_of(&replay, 0);
    assert_eq!(report.bots[0].errors as usize, turns.len());
    assert_eq!(report.bots[0].timeouts, 0);
    assert!(!report.bots[0].crashed);
    let error = turns[0].bots[0].error.as_deref().unwrap();
    assert!(error.contains("hello"), "{error}");
    assert_eq!(turns[0].bots[0].sent[0].text, "hello world");
    assert!(turns.iter().all(|t| t.action["kind"] == "move"));
}

#[test]
fn an_overlong_line_is_malformed_and_kept_short_in_the_replay() {
    let (report, replay) = play(
        vec![walker(&["--long-line"]), walker(&[])],
        &config(),
        "long-line",
    );
    let turns = turns_of(&replay, 0);
    assert_eq!(report.bots[0].errors as usize, turns.len());
    let bot = &turns[0].bots[0];
    assert_eq!(
        bot.error.as_deref(),
        Some("answer line longer than 65536 bytes")
    );
    assert_eq!(bot.sent.len(), 1);
    assert!(bot.sent[0].text.len() < 2100, "{}", bot.sent[0].text.len());
    assert!(bot.sent[0].text.starts_with("1111"));
    assert!(
        bot.sent[0]
            .text
            .ends_with("... [line longer than 65536 bytes]")
    );
}

#[test]
fn a_bot_flooding_its_stdout_cannot_stall_the_match() {
    let argv = ["yes".to_owned(), "hello".to_owned()];
    let flood = ProcessSeat::spawn("yes", &argv, None).unwrap();
    let started = Instant::now();
    let (report, replay) = play(vec![walker(&[]), flood], &config(), "flood-stdout");
    assert!(started.elapsed() < Duration::from_secs(10));
    let turns = turns_of(&replay, 1);
    assert_eq!(report.bots[1].errors as usize, turns.len());
    for tick in &turns {
        assert!(tick.bots[1].sent.len() <= 21, "{}", tick.bots[1].sent.len());
    }
    assert!(
        turns[1].bots[1]
            .notes
            .iter()
            .any(|n| n.contains("not kept"))
    );
}

#[test]
fn extra_lines_are_discarded_and_noted() {
    let (report, replay) = play(vec![walker(&[]), walker(&["--extra"])], &config(), "extra");
    assert_eq!(
        (report.bots[1].errors, report.bots[1].timeouts),
        (0, 0),
        "the first line counts"
    );
    assert_eq!(report.outcome.placement, vec![2, 1], "it still walks home");
    let noted: usize = replay
        .ticks
        .iter()
        .filter(|t| t.bots[1].notes.iter().any(|n| n.contains("extra line")))
        .count();
    assert!(noted >= turns_of(&replay, 1).len() - 1, "{noted}");
    let extra = replay
        .ticks
        .iter()
        .flat_map(|t| &t.bots[1].sent)
        .filter(|m| m.text == "and another thing")
        .count();
    assert!(extra >= turns_of(&replay, 1).len() - 1);
}

#[test]
fn a_late_answer_is_discarded_not_taken_for_the_next_one() {
    // A bank that only the turn's time fills, so that after the timeout the next turn has time
    // enough for the late line to come in, and the next answer too.
    let mut config = config();
    config.time = Some(bank(0, 1500));
    let (report, replay) = play(
        vec![
            walker(&[]),
            walker(&["--late-turn", "1", "--late-seconds", "2"]),
        ],
        &config,
        "late",
    );
    let bot = &report.bots[1];
    assert!(!bot.crashed);
    let turns = turns_of(&replay, 1);
    assert_eq!(turns[0].bots[1].error.as_deref(), Some(TIMEOUT_ERROR));
    // The late line is kept in the replay, noted, and never played: every answer that counted is
    // the last line of its own tick, sent after that tick's request.
    let late = turns
        .iter()
        .position(|t| t.bots[1].notes.iter().any(|n| n.contains("late answer")))
        .expect("the late answer is noted");
    assert!(late >= 1);
    let mut answered = 0;
    for tick in &turns[late..] {
        let bot = &tick.bots[1];
        if bot.error.is_some() {
            continue;
        }
        answered += 1;
        let answer = bot.sent.last().unwrap();
        assert!(answer.at_ms >= bot.received[0].at_ms, "{bot:?}");
        let played = format!("{} {}", tick.action["x"], tick.action["y"]);
        assert_eq!(played, answer.text, "{bot:?}");
    }
    assert!(
        answered > 0,
        "the bot plays on after its late answer: {turns:#?}"
    );
}

#[test]
fn a_bot_that_never_reads_times_out_and_is_killed() {
    let (report, _) = play(
        vec![walker(&[]), shell_bot("no_read.sh")],
        &config(),
        "no-read",
    );
    assert!(report.bots[1].timeouts > 0);
    assert!(report.bots[1].exit.killed);
}

#[test]
fn a_request_to_a_full_pipe_times_out_instead_of_blocking() {
    let mut seat = shell_bot("no_read.sh");
    let game = quoridor();
    let huge = "x".repeat(1 << 20);
    let start = Instant::now();
    let reply = Seat::<Quoridor>::request(
        &mut seat,
        Ask::Turn(&game, Quoridor::PROTOCOL.time),
        &huge,
        start + Duration::from_millis(200),
        &mut Vec::new(),
    );
    assert_eq!(reply, Reply::Timeout);
    assert!(start.elapsed() < Duration::from_millis(400));
    // Sending more does not block either.
    assert!(Seat::<Quoridor>::send(&mut seat, &huge).is_ok());
    assert!(start.elapsed() < Duration::from_millis(400));
    let pgid = seat.pgid();
    let exit = Seat::<Quoridor>::close(&mut seat, Instant::now());
    assert!(exit.killed);
    assert_group_gone(pgid);
}

#[test]
fn a_bot_that_closes_stdout_but_runs_on_is_offline_and_killed() {
    let (report, replay) = play(
        vec![walker(&["--close-stdout-turn", "2"]), walker(&[])],
        &config(),
        "close-stdout",
    );
    assert!(report.bots[0].crashed);
    assert_eq!(
        errors_of(&replay, 0),
        vec!["bot closed its standard output"]
    );
    assert!(report.bots[0].exit.killed);
}

#[test]
fn a_child_holding_the_pipes_does_not_hold_up_the_match() {
    let started = Instant::now();
    let (report, replay) = play(
        vec![shell_bot("child_then_exit.sh"), walker(&[])],
        &config(),
        "child-exit",
    );
    assert!(report.bots[0].crashed);
    assert_eq!(errors_of(&replay, 0), vec!["bot exited with code 0"]);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_playing_bot_with_a_child_leaves_nothing_behind() {
    let (report, _) = play(
        vec![walker(&["--child"]), walker(&[])],
        &config(),
        "child-play",
    );
    assert_eq!(report.bots[0].errors, 0);
    assert!(!report.bots[0].crashed);
}

#[test]
fn a_bot_ignoring_the_end_and_sigterm_is_killed_after_the_grace_period() {
    let mut config = config();
    config.grace = Duration::from_millis(300);
    let started = Instant::now();
    let (report, _) = play(
        vec![walker(&["--ignore-end"]), walker(&[])],
        &config,
        "ignore-end",
    );
    assert!(report.bots[0].exit.killed);
    assert!(!report.bots[1].exit.killed);
    assert!(started.elapsed() >= Duration::from_millis(300));
}

#[test]
fn the_bot_log_is_kept_per_tick_and_cut_at_2000_characters() {
    let long: String = (0..2500)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let (_, replay) = play(
        vec![
            walker(&["--log", &long, "--log-wait", "0.05"]),
            walker(&["--log", "thinking\n", "--log-wait", "0.05"]),
        ],
        &config(),
        "log",
    );
    let expected = format!("{}{}", &long[..2000], LOG_TRIMMED);
    assert!(expected.ends_with("...\n[[bot log trimmed to 2KB]]"));
    for tick in turns_of(&replay, 0) {
        assert_eq!(tick.bots[0].log, expected);
    }
    for tick in turns_of(&replay, 1) {
        assert_eq!(tick.bots[1].log, "thinking\n");
    }
}

/// A bot that logs and answers at once: its stderr line is in the pipe before its answer is
/// read, so it belongs to that turn, however late the log reader runs.
#[test]
fn a_log_written_just_before_the_answer_lands_in_the_answers_tick() {
    let (_, replay) = play(
        vec![walker(&["--log", "mine\n"]), walker(&["--log", "yours\n"])],
        &config(),
        "log-at-once",
    );
    for (p, text) in [(0, "mine\n"), (1, "yours\n")] {
        let turns = turns_of(&replay, p);
        assert!(turns.len() >= 5, "{} turns", turns.len());
        for tick in turns {
            assert_eq!(tick.bots[p].log, text, "tick {}", tick.tick);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_replay() {
    let run = |seed: u64| {
        let mut config = config();
        config.seed = seed;
        let (_, mut replay) = play(
            vec![walker(&["--garbage"]), walker(&[])],
            &config,
            &format!("seed-{seed}"),
        );
        strip_timing(&mut replay);
        replay
    };
    let a = run(5);
    assert_eq!(a, run(5));
    let other = run(6);
    assert_ne!(a.ticks, other.ticks, "the fault actions come from the seed");
}

#[test]
fn a_player_folder_runs_its_command_inside_the_folder() {
    let dir = temp_dir("player").join("walky");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(bots_dir().join("walker.py"), dir.join("my_bot.py")).unwrap();
    // A relative script path: it only starts if run in the folder.
    std::fs::write(dir.join("info.txt"), "Walky\nWal Ker\npython3 my_bot.py\n").unwrap();
    let spec = SeatSpec::parse(dir.to_str().unwrap()).unwrap();
    assert_eq!(spec.name(), "Walky");
    let (report, replay) = play(
        vec![spec.spawn(None).unwrap(), walker(&[])],
        &config(),
        "folder",
    );
    assert_eq!(report.bots[0].name, "Walky");
    assert_eq!(report.bots[0].errors, 0);
    assert!(!report.bots[0].crashed);
    assert_eq!(replay.header.players[0].name, "Walky");
    assert_eq!(
        replay.header.players[0].command.as_deref(),
        Some("python3 my_bot.py")
    );
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn a_robot_in_process_plays_a_bot_program() {
    use arbiter_robots::Robots;
    let robot = <Quoridor as Robots>::robot("runner", 1).unwrap();
    let process = walker(&[]);
    let pgid = process.pgid();
    let seats: Vec<Box<dyn Seat<Quoridor>>> = vec![
        Box::new(BuiltinSeat::new("runner", robot)),
        Box::new(process),
    ];
    let report = run_match(quoridor(), seats, &config(), None).unwrap();
    assert_group_gone(pgid);
    for bot in &report.bots {
        assert_eq!(
            (bot.errors, bot.timeouts, bot.crashed),
            (0, 0, false),
            "{report:?}"
        );
    }
    assert_eq!(report.outcome.reason, "goal");
    // The JSON report is what the command line prints.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["bots"][0]["name"], "runner");
    assert!(json["outcome"]["scores"].is_array());
}

#[test]
fn the_seat_count_must_match_the_game() {
    let process = walker(&[]);
    let pgid = process.pgid();
    let seats: Vec<Box<dyn Seat<Quoridor>>> = vec![Box::new(process)];
    let err = run_match(quoridor(), seats, &config(), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the game has 2 players but 1 seats were given"
    );
    assert_group_gone(pgid);
}

#[test]
fn dropping_a_seat_kills_its_bot() {
    let seat = walker(&["--child"]);
    let pgid = seat.pgid();
    std::thread::sleep(Duration::from_millis(100));
    drop(seat);
    assert_group_gone(pgid);
}

#[test]
fn start_messages_match_the_game() {
    let game = quoridor();
    let mut text = String::new();
    game.start_message(0, 0, &mut text);
    assert_eq!(text, "2\n0\n9\n4 0 10\n4 8 10\n");
    let _: &ProcessSeat = &walker(&[]);
}
