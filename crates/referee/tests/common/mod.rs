//! Helpers shared by the referee's whole-process tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use arbiter_games::TimeControl;
use arbiter_games::quoridor::{Quoridor, Settings};
use arbiter_referee::{MatchConfig, MatchReport, ProcessSeat, Seat, run_match};
use arbiter_replay::{Replay, ReplayWriter, read_replay};

pub fn bots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bots")
}

/// A fresh folder, removed when the test process exits.
pub fn temp_dir(name: &str) -> PathBuf {
    arbiter_testdir::fresh(name)
}

/// The walker test bot with these flags.
pub fn walker(flags: &[&str]) -> ProcessSeat {
    let mut argv = vec![
        "python3".to_owned(),
        bots_dir().join("walker.py").display().to_string(),
    ];
    argv.extend(flags.iter().map(|f| f.to_string()));
    ProcessSeat::spawn("walker", &argv, None).unwrap()
}

/// One of the shell test bots.
pub fn shell_bot(script: &str) -> ProcessSeat {
    let argv = vec![
        "sh".to_owned(),
        bots_dir().join(script).display().to_string(),
    ];
    ProcessSeat::spawn(script, &argv, None).unwrap()
}

/// A bank large enough for a Python bot to start on a busy machine; tests of timeouts shorten it.
pub fn config() -> MatchConfig {
    MatchConfig {
        seed: 7,
        time: Some(bank(2000, 30)),
        grace: Duration::from_millis(100),
    }
}

pub fn quoridor() -> Quoridor {
    Quoridor::new(Settings::standard(2, 9).unwrap()).unwrap()
}

/// Plays a 2-player 9×9 match between process seats, checks that no process of any bot's group
/// is left afterwards, and returns the report and the replay read back from its file.
pub fn play(seats: Vec<ProcessSeat>, config: &MatchConfig, name: &str) -> (MatchReport, Replay) {
    play_game(quoridor(), seats, config, name)
}

pub fn play_game(
    game: Quoridor,
    seats: Vec<ProcessSeat>,
    config: &MatchConfig,
    name: &str,
) -> (MatchReport, Replay) {
    let groups: Vec<i32> = seats.iter().map(ProcessSeat::pgid).collect();
    let seats: Vec<Box<dyn Seat<Quoridor>>> = seats
        .into_iter()
        .map(|s| Box::new(s) as Box<dyn Seat<Quoridor>>)
        .collect();
    let path = temp_dir(name).join("replay.jsonl");
    let mut writer = ReplayWriter::create(&path).unwrap();
    let report = run_match(game, seats, config, Some(&mut writer)).unwrap();
    writer.finish().unwrap();
    for pgid in groups {
        assert_group_gone(pgid);
    }
    let replay = read_replay(&path).unwrap();
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
    check_replay_shape(&report, &replay);
    (report, replay)
}

/// No process is left in the group: not running, not a zombie.
pub fn assert_group_gone(pgid: i32) {
    // SAFETY: signal 0 only checks for existence.
    let r = unsafe { libc::kill(-pgid, 0) };
    let errno = std::io::Error::last_os_error().raw_os_error();
    assert!(
        r == -1 && errno == Some(libc::ESRCH),
        "process group {pgid} still has processes:\n{}",
        ps_group(pgid)
    );
}

fn ps_group(pgid: i32) -> String {
    std::process::Command::new("ps")
        .args(["-eo", "pid,ppid,pgid,stat,args"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .filter(|l| {
                    l.split_whitespace().nth(2) == Some(&pgid.to_string()) || l.contains("PGID")
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What every replay must look like, whatever the bots did.
pub fn check_replay_shape(report: &MatchReport, replay: &Replay) {
    let result = replay
        .result
        .as_ref()
        .expect("the replay ends with a result");
    assert_eq!(result.ticks, report.ticks);
    assert_eq!(result.reason, report.outcome.reason);
    assert_eq!(
        replay.ticks.len() as u32,
        report.ticks + 1,
        "one line per tick"
    );
    for (t, tick) in replay.ticks.iter().enumerate() {
        assert_eq!(tick.tick as usize, t);
        assert_eq!(tick.bots.len(), report.bots.len());
        assert!(tick.action["kind"].is_string(), "{:?}", tick.action);
    }
    assert_eq!(replay.ticks[0].action["kind"], "start");
    for bot in &replay.ticks[0].bots {
        assert!(!bot.received.is_empty(), "tick 0 carries the start message");
    }
    for (bot, summary) in report.bots.iter().zip(&result.bots) {
        assert_eq!(bot.name, summary.name);
        assert_eq!(bot.errors, summary.errors);
        assert_eq!(bot.timeouts, summary.timeouts);
        assert_eq!(bot.crashed, summary.crashed);
    }
}

/// The ticks in which player `p` was on turn.
pub fn turns_of(replay: &Replay, p: usize) -> Vec<&arbiter_replay::Tick> {
    replay
        .ticks
        .iter()
        .filter(|t| t.player == Some(p))
        .collect()
}

/// A time bank of `initial` ms that gains `increment` ms a turn.
pub fn bank(initial: u64, increment: u64) -> TimeControl {
    TimeControl::Bank {
        initial: Duration::from_millis(initial),
        increment: Duration::from_millis(increment),
    }
}
