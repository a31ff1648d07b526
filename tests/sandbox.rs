//! The hostile-bot suite: bots that attack the machine, the organiser and each other, each
//! played as a player folder through `arbiter play --sandbox`, with real namespaces and
//! cgroups. Every case ends with a precise verdict, the match finished, no process of the bot
//! left, and Arbiter's own memory small. The bot is tests/sandbox/hostile.py.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{arbiter, root, temp_dir};
use serde_json::Value;

/// Arbiter itself stays under this, whatever its bots do (peak resident memory).
const ARBITER_MEMORY_KB: u64 = 100 * 1024;
/// No case takes longer: a bot that could hang the match fails here instead.
const MATCH_LIMIT: Duration = Duration::from_secs(60);

struct Played {
    json: Value,
    /// Every line the hostile bot wrote to stderr, and the faults of its ticks.
    log: String,
    /// Arbiter's peak resident memory, in KiB.
    peak_kb: u64,
    dir: PathBuf,
    /// A word in the command line of every process of the bot.
    marker: String,
}

/// A contest folder: the hostile player's folder, another player's folder with its strategy,
/// a store and a file of the organiser's beside them. `{dir}` in `args` is the folder.
fn contest(name: &str, mode: &str, args: &[&str]) -> PathBuf {
    let dir = temp_dir(name);
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{dir}", &dir.display().to_string()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let hostile = dir.join("players/hostile");
    std::fs::create_dir_all(&hostile).unwrap();
    std::fs::copy(
        root().join("tests/sandbox/hostile.py"),
        hostile.join("hostile.py"),
    )
    .unwrap();
    std::fs::copy(
        root().join("examples/quoridor/starter.py"),
        hostile.join("starter.py"),
    )
    .unwrap();
    let command = shell_words(
        ["python3", "-u", "hostile.py", mode]
            .into_iter()
            .chain(args),
    );
    std::fs::write(
        hostile.join("info.txt"),
        format!("hostile\nHostile Bot\n{command}\n"),
    )
    .unwrap();
    let other = dir.join("players/other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("strategy.txt"), "the other player's secret\n").unwrap();
    std::fs::write(dir.join("contest.db"), "the scores\n").unwrap();
    std::fs::write(dir.join("organiser.txt"), "the organiser's secret\n").unwrap();
    dir
}

/// Words quoted for a shell, as info.txt's command line is read.
fn shell_words<'a>(words: impl Iterator<Item = &'a str>) -> String {
    words
        .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Plays the hostile bot of `dir` against a robot, in a sandbox (required), with `extra` flags.
fn play(dir: &Path, extra: &[&str]) -> Played {
    play_against(dir, "quoridor", "builtin:blocker", extra)
}

/// Plays the hostile bot of `dir` against `opponent` at `game`, in a sandbox (required), with
/// `extra` flags.
fn play_against(dir: &Path, game: &str, opponent: &str, extra: &[&str]) -> Played {
    let replay = dir.join("match.jsonl");
    let mut child = arbiter()
        .args(["play", game, "--json", "--sandbox", "--seed", "1", "--bot"])
        .arg(dir.join("players/hostile"))
        .args(["--bot", opponent, "--replay"])
        .arg(&replay)
        .args(extra)
        .env("SECRET_TOKEN", "organiser-secret-token")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let give_up = Instant::now() + MATCH_LIMIT;
    let mut peak_kb = 0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        peak_kb = peak_kb.max(peak_memory_kb(pid).unwrap_or(0));
        if Instant::now() > give_up {
            let _ = child.kill();
            panic!("the match did not end within {MATCH_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "arbiter failed: {status}\n{stderr}");
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    Played {
        json,
        log: bot_log(&replay),
        peak_kb,
        dir: dir.to_path_buf(),
        marker: String::new(),
    }
}

fn peak_memory_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Seat 0's stderr and faults over the whole replay.
fn bot_log(replay: &Path) -> String {
    let text = std::fs::read_to_string(replay).unwrap();
    let mut log = String::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        if let Some(bot) = record["bots"].get(0) {
            log.push_str(bot["log"].as_str().unwrap_or(""));
            if let Some(error) = bot["error"].as_str() {
                log.push_str(&format!("error: {error}\n"));
            }
        }
    }
    log
}

/// Processes whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(marker) {
            found.push(format!(
                "{}: {cmdline}",
                entry.file_name().to_string_lossy()
            ));
        }
    }
    found
}

/// What every case ends with: the match finished, nothing of the bot left, Arbiter small.
fn assert_clean(played: &Played) {
    assert!(played.json["ticks"].as_u64().is_some(), "{}", played.json);
    let left = processes_with(&played.marker);
    assert!(left.is_empty(), "processes left behind: {left:?}");
    assert!(
        played.peak_kb < ARBITER_MEMORY_KB,
        "arbiter peaked at {} KiB",
        played.peak_kb
    );
    let _ = std::fs::remove_dir_all(&played.dir);
}

/// The hostile bot's stderr or faults hold `text`.
fn assert_logged(played: &Played, text: &str) {
    assert!(played.log.contains(text), "{text:?} not in: {}", played.log);
}

/// Plays the hostile bot in `mode` with `args` (and a marker naming its processes after them),
/// with `extra` flags.
fn attack(mode: &str, args: &[&str], extra: &[&str]) -> Played {
    let marker = format!("arbiter-hostile-{}-{mode}", std::process::id());
    let args: Vec<&str> = args.iter().copied().chain([marker.as_str()]).collect();
    let dir = contest(mode, mode, &args);
    Played {
        marker,
        ..play(&dir, extra)
    }
}

fn bot(played: &Played) -> &Value {
    &played.json["bots"][0]
}

/// The bot was ended for `limit`, and the replay says so in words.
fn assert_killed_for(played: &Played, limit: &str, words: &str) {
    assert_eq!(bot(played)["killed_for"], limit, "{}", played.json);
    assert_eq!(bot(played)["crashed"], true, "{}", played.json);
    assert_logged(played, &format!("killed for going over {words}"));
}

#[test]
fn a_fork_bomb_is_killed_for_its_processes() {
    let played = attack("forkbomb", &[], &["--max-processes", "32"]);
    assert_killed_for(&played, "processes", "its limit on processes");
    assert_clean(&played);
}

#[test]
fn ten_gibibytes_of_memory_are_killed_for_memory() {
    let played = attack("memory", &[], &["--memory-mb", "128"]);
    assert_killed_for(&played, "memory", "its memory limit");
    assert_clean(&played);
}

#[test]
fn a_grandchild_in_a_session_of_its_own_dies_with_the_match() {
    for how in ["setsid", "setpgid"] {
        let played = attack(how, &[], &[]);
        assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
        assert_eq!(bot(&played)["killed_for"], Value::Null, "{}", played.json);
        assert_clean(&played);
    }
}

#[test]
fn a_child_holding_the_pipes_does_not_hold_the_match() {
    let played = attack("pipes", &[], &[]);
    assert_eq!(bot(&played)["crashed"], true, "{}", played.json);
    assert_logged(&played, "exited with code 3");
    assert_clean(&played);
}

#[test]
fn no_connection_leaves_the_sandbox() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let played = attack("network", &[&port], &[]);
    assert_logged(&played, "probe: connect local blocked");
    assert_logged(&played, "probe: connect outside blocked");
    let reached = listener.accept().is_ok();
    assert!(!reached, "the bot reached 127.0.0.1:{port}");
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
}

#[test]
fn the_bot_sees_no_file_of_the_organiser_or_of_other_players() {
    let targets = [
        "{dir}/organiser.txt",
        "{dir}/contest.db",
        "{dir}/players/other/strategy.txt",
    ];
    let played = attack("files", &targets, &[]);
    for target in targets {
        let target = target.replace("{dir}", &played.dir.display().to_string());
        assert_logged(&played, &format!("probe: read {target} blocked"));
    }
    assert_logged(&played, "probe: write outside blocked");
    assert_logged(&played, "probe: write scratch allowed");
    assert_logged(&played, "probe: write tmp allowed");
    assert!(!played.dir.join("planted.txt").exists());
    // It wrote into a private copy of its folder, not into the folder.
    assert!(!played.dir.join("players/hostile/note.txt").exists());
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
}

#[test]
fn the_bot_sees_neither_the_referee_nor_the_organisers_environment() {
    let played = attack("snoop", &[], &[]);
    assert_logged(&played, "probe: environ");
    for secret in [
        "SECRET_TOKEN",
        "organiser-secret-token",
        "contest.db",
        "match.jsonl",
    ] {
        assert!(
            !played.log.contains(secret),
            "{secret} seen: {}",
            played.log
        );
    }
    assert!(!played.log.contains("uid 0\n"), "{}", played.log);
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
}

#[test]
fn invalid_utf8_and_nul_in_an_answer_are_a_fault_of_the_bot() {
    let played = attack("garbage", &[], &[]);
    assert!(
        bot(&played)["errors"].as_u64().unwrap() >= 1,
        "{}",
        played.json
    );
    assert_clean(&played);
}

#[test]
fn a_bot_that_stops_itself_or_ignores_sigterm_times_out_and_is_killed() {
    for mode in ["sigstop", "sigterm"] {
        let played = attack(mode, &[], &["--time-bank-ms", "300"]);
        // Each of its turns times out (Quoridor then plays a random move for it), until the
        // match ends.
        assert!(
            bot(&played)["timeouts"].as_u64().unwrap() >= 1,
            "{}",
            played.json
        );
        assert_logged(&played, "error: response time limit exceeded");
        assert_clean(&played);
    }
}

/// The CPU time the hostile bot used outside its turns, as `arbiter play --json` reports it.
fn cpu_between_turns_ms(played: &Played) -> f64 {
    bot(played)["cpu_between_turns_ms"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cpu_between_turns_ms: {}", played.json))
}

#[test]
fn a_bot_burning_cpu_while_its_opponent_thinks_gets_no_cpu_between_its_turns() {
    // Four busy loops, then the starter, against a robot that searches a fixed number of nodes
    // a move: a second or so of its thinking, which four unfrozen loops shared the cores with.
    let opponent = "builtin:strong/nodes=200000";
    let burn = |extra: &[&str]| {
        let marker = format!("arbiter-hostile-{}-burner", std::process::id());
        let dir = contest("burner", "burner", &["4", &marker]);
        Played {
            marker,
            ..play_against(&dir, "quoridor", opponent, extra)
        }
    };
    let frozen = burn(&[]);
    assert_logged(&frozen, "probe: burn 4 loops allowed");
    // Frozen between turns, it gets only the moments its processes take to stop: tens of
    // microseconds a turn, read from its cgroup's CPU counter.
    let frozen_ms = cpu_between_turns_ms(&frozen);
    assert!(
        frozen_ms < 20.0,
        "{frozen_ms} ms between turns: {}",
        frozen.json
    );
    assert_clean(&frozen);

    // The same bot let run between turns takes CPU there, and the report says so.
    let running = burn(&["--no-freeze"]);
    let running_ms = cpu_between_turns_ms(&running);
    assert!(
        running_ms > frozen_ms,
        "{running_ms} ms running, {frozen_ms} ms frozen: {}",
        running.json
    );
    assert_clean(&running);
}

#[test]
fn a_frozen_labyrinth_seat_sent_more_than_a_pipe_holds_does_not_stall_the_match() {
    // A Labyrinth bot that never reads: every block the referee sends it, to watch the other
    // seat's turns and for its own, piles up in its pipe (64 KiB) and then in the referee,
    // while the bot is frozen between its turns. Its turns time out; the match goes on to its
    // end.
    let marker = format!("arbiter-hostile-{}-deaf", std::process::id());
    let dir = contest("deaf", "deaf", &[&marker]);
    let played = Played {
        marker,
        ..play_against(
            &dir,
            "labyrinth",
            "builtin:greedy",
            &["--time-per-reply-ms", "20"],
        )
    };
    assert_eq!(played.json["reason"], "tick_limit", "{}", played.json);
    assert_eq!(bot(&played)["errors"], 0, "{}", played.json);
    assert!(
        bot(&played)["timeouts"].as_u64().unwrap() > 0,
        "{}",
        played.json
    );
    assert_eq!(played.json["bots"][1]["timeouts"], 0, "{}", played.json);
    let received = bytes_received(&played.dir.join("match.jsonl"), 0);
    assert!(
        received > 128 << 10,
        "only {received} bytes sent to the bot"
    );
    assert_clean(&played);
}

/// The bytes the referee sent seat `seat` over a whole replay.
fn bytes_received(replay: &Path, seat: usize) -> usize {
    let text = std::fs::read_to_string(replay).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|record| record["bots"][seat]["received"].as_array().cloned())
        .flatten()
        .map(|message| message["text"].as_str().unwrap_or("").len())
        .sum()
}
