//! The hostile-bot suite: bots that attack the machine, the organiser and each other, each
//! played as a player folder through `arbiter play --sandbox`, with real namespaces and
//! cgroups. Every case ends with a precise verdict, the match finished, no process of the bot
//! left, and Arbiter's own memory small. The bot is tests/sandbox/hostile.py.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
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
    /// What Arbiter wrote to stderr.
    stderr: String,
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
    let hostile = dir.join("players/hostile");
    play_match(
        arbiter(),
        dir,
        &hostile,
        [game, opponent],
        &sandboxed(extra),
    )
}

/// Plays as [`play`] does, with `arbiter` (which may be a command that ends by starting it)
/// and the hostile player's folder named `bot`.
fn play_with(arbiter: Command, dir: &Path, bot: &Path, extra: &[&str]) -> Played {
    play_match(
        arbiter,
        dir,
        bot,
        ["quoridor", "builtin:blocker"],
        &sandboxed(extra),
    )
}

/// Plays the hostile bot of `dir` against a robot, with `extra` flags and no sandbox flag
/// (the default policy), by `arbiter` (the `arbiter` program, or a command starting it).
fn play_by(arbiter: Command, dir: &Path, extra: &[&str]) -> Played {
    let hostile = dir.join("players/hostile");
    play_match(
        arbiter,
        dir,
        &hostile,
        ["quoridor", "builtin:blocker"],
        extra,
    )
}

/// `--sandbox`, then `extra`.
fn sandboxed<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    ["--sandbox"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect()
}

/// Plays the player folder `bot` against `opponent` at `game`, by `arbiter`, with `extra`
/// flags; the replay is written in `dir`.
fn play_match(
    mut arbiter: Command,
    dir: &Path,
    bot: &Path,
    [game, opponent]: [&str; 2],
    extra: &[&str],
) -> Played {
    let replay = dir.join("match.jsonl");
    let mut child = arbiter
        .args(["play", game, "--json", "--seed", "1", "--bot"])
        .arg(bot)
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
        stderr,
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

/// The hostile bot of `mode` with `args` and `extra` flags, played one way or another.
type Attack = fn(&str, &[&str], &[&str]) -> Played;

#[test]
fn no_connection_leaves_the_sandbox() {
    assert_no_connection_leaves(attack);
}

/// A bot played by `attack` reaches neither this machine nor the outside.
fn assert_no_connection_leaves(attack: Attack) {
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
    let played = assert_sees_no_file_of_others(attack);
    assert_logged(&played, "probe: write outside blocked");
}

/// A bot played by `attack` reads no file of the organiser's or of the other player's, and
/// writes only in its scratch folder and its `/tmp`, never into the contest; what it did.
fn assert_sees_no_file_of_others(attack: Attack) -> Played {
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
    assert_logged(&played, "probe: write outside");
    assert_logged(&played, "probe: write scratch allowed");
    assert_logged(&played, "probe: write tmp allowed");
    assert!(!played.dir.join("planted.txt").exists());
    // It wrote into a private copy of its folder, not into the folder.
    assert!(!played.dir.join("players/hostile/note.txt").exists());
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
    played
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

/// A command that runs the program after it (`arbiter`, with its arguments) in a mount
/// namespace of its own where `/opt` holds nothing but `/opt/contest`, the folder `dir`: a
/// contest installed under a system folder, without touching the machine's `/opt`.
fn in_opt_contest(dir: &Path, cwd: &str) -> Command {
    let mut command = Command::new("unshare");
    command
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg(
            "mount -t tmpfs none /opt && mkdir /opt/contest && \
             mount --bind \"$1\" /opt/contest && cd \"$2\" && shift 2 && exec \"$@\"",
        )
        .arg("sh")
        .arg(dir)
        .arg(cwd)
        .arg(env!("CARGO_BIN_EXE_arbiter"));
    command
}

/// What the hostile bot of [`CONTEST_VIEW`] tried to see.
const CONTEST_VIEW: &[&str] = &[
    "/opt/contest",
    "/opt/contest/players",
    "/opt/contest/players/other/strategy.txt",
    "/opt/contest/contest.db",
    "/opt/contest/organiser.txt",
];

/// The hostile bot saw of the contest at `/opt/contest` no other player, no store and no file
/// of the organiser's: in no listing, and not by their paths.
fn assert_sees_nothing_of_the_contest(log: &str) {
    assert!(log.contains("probe: list /opt/contest allowed"), "{log}");
    for line in log.lines().filter(|l| l.contains("probe: list ")) {
        for name in ["'other'", "'contest.db'", "'organiser.txt'"] {
            assert!(!line.contains(name), "{name} listed: {line}");
        }
    }
    for file in &CONTEST_VIEW[2..] {
        let line = format!("probe: see {file} blocked");
        assert!(log.contains(&line), "{line:?} not in: {log}");
    }
    for secret in [
        "the other player's secret",
        "the scores",
        "the organiser's secret",
    ] {
        assert!(!log.contains(secret), "{secret:?} seen: {log}");
    }
}

#[test]
fn a_contest_installed_under_opt_shows_no_other_player_no_store_and_no_organiser_file() {
    // The organiser plays from the contest's folder, /opt/contest, which holds the store.
    let marker = format!("arbiter-hostile-{}-opt", std::process::id());
    let mut view = CONTEST_VIEW.to_vec();
    view.push(&marker);
    let dir = contest("opt", "view", &view);
    let command = in_opt_contest(&dir, "/opt/contest");
    let played = Played {
        marker,
        ..play_with(command, &dir, Path::new("players/hostile"), &[])
    };
    assert_sees_nothing_of_the_contest(&played.log);
    // Its own scratch folder is there, at its folder's path, in an otherwise empty contest.
    assert_logged(&played, "probe: list /opt/contest allowed ['players']");
    assert_logged(
        &played,
        "probe: list /opt/contest/players allowed ['hostile']",
    );
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
}

#[test]
fn a_tournament_with_its_store_and_players_under_opt_shows_neither_to_a_bot() {
    // The organiser works elsewhere: the store's and the players' folders are hidden because
    // the tournament names them, in its compliance check and in its matches.
    let mut view = CONTEST_VIEW.to_vec();
    view.push("arbiter-hostile-tournament");
    let dir = contest("opt-tournament", "view", &view);
    // The store is the tournament's own.
    std::fs::remove_file(dir.join("contest.db")).unwrap();
    let cache = temp_dir("opt-tournament-cache");
    let replays = cache.join("replays");
    let output = common::run(
        in_opt_contest(&dir, "/")
            .args(["tournament", "run", "quoridor", "/opt/contest/players"])
            .args([
                "--db",
                "/opt/contest/contest.db",
                "--sandbox",
                "--seed",
                "1",
            ])
            .args(["--add", "builtin:blocker", "--replays"])
            .arg(&replays)
            .env("XDG_CACHE_HOME", &cache),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("excluded"), "{stderr}");
    // The compliance check's replay and the two matches' (gzip files) each hold the bot's
    // probes.
    let mut logs = Vec::new();
    for entry in walk(&replays) {
        let mut text = String::new();
        let file = std::fs::File::open(&entry).unwrap();
        flate2::read::MultiGzDecoder::new(file)
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
        if text.contains("probe: ") {
            logs.push(text);
        }
    }
    assert!(
        logs.len() >= 3,
        "{} replays with probes in {}",
        logs.len(),
        replays.display()
    );
    for log in &logs {
        // A replay's JSON keeps the quotes of the probe lines as they were.
        assert_sees_nothing_of_the_contest(log);
    }
    std::fs::remove_dir_all(&cache).unwrap();
    // The store is root's; the folder is the test's.
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A rustup proxy as the organiser has one on `PATH`: the toolchain is `RUSTUP_TOOLCHAIN`,
/// else a `rust-toolchain` file in the working folder, else the default of the rustup home,
/// `RUSTUP_HOME` or `~/.rustup`.
const CARGO_PROXY: &str = r#"#!/bin/sh
home="${RUSTUP_HOME:-$HOME/.rustup}"
toolchain="$RUSTUP_TOOLCHAIN"
if [ -z "$toolchain" ] && [ -f rust-toolchain ]; then toolchain=$(cat rust-toolchain); fi
if [ -z "$toolchain" ]; then
    toolchain=$(sed -n 's/^default_toolchain = "\(.*\)"$/\1/p' "$home/settings.toml")
fi
exec "$home/toolchains/$toolchain/bin/cargo" "$@"
"#;

/// The organiser's cargo token, in their `~/.cargo/credentials.toml`.
const CARGO_TOKEN: &str = "organiser-cargo-token";

/// An organiser's home in `dir`: `.cargo` with the proxy and a credentials file, `.rustup`
/// with two toolchains, `stable` (the default) and `nightly`, whose `cargo` says which it is
/// and runs the player's hostile bot with its arguments.
fn organisers_rust(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let home = dir.join("home");
    let script = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    script(home.join(".cargo/bin/cargo"), CARGO_PROXY);
    let token = format!("[registry]\ntoken = \"{CARGO_TOKEN}\"\n");
    std::fs::write(home.join(".cargo/credentials.toml"), token).unwrap();
    for toolchain in ["stable", "nightly"] {
        let cargo = format!(
            "#!/bin/sh\necho 'probe: toolchain {toolchain}' >&2\nexec python3 -u hostile.py \"$@\"\n"
        );
        script(
            home.join(format!(".rustup/toolchains/{toolchain}/bin/cargo")),
            &cargo,
        );
    }
    std::fs::write(
        home.join(".rustup/settings.toml"),
        "version = \"12\"\ndefault_toolchain = \"stable\"\n",
    )
    .unwrap();
    home
}

/// The hostile player's folder of `dir`, whose command is `cargo view CREDENTIALS`, and which
/// asks for the organiser's `nightly` (its `rust-toolchain` file, and a `.rustup` of its own
/// whose `nightly` leads to the organiser's).
fn cargo_player(dir: &Path, home: &Path) -> PathBuf {
    let hostile = dir.join("players/hostile");
    let credentials = home.join(".cargo/credentials.toml");
    let command = shell_words(["cargo", "view", &credentials.display().to_string()].into_iter());
    std::fs::write(
        hostile.join("info.txt"),
        format!("hostile\nHostile\n{command}\n"),
    )
    .unwrap();
    std::fs::write(hostile.join("rust-toolchain"), "nightly\n").unwrap();
    std::fs::create_dir_all(hostile.join(".rustup/toolchains")).unwrap();
    std::os::unix::fs::symlink(
        home.join(".rustup/toolchains/nightly"),
        hostile.join(".rustup/toolchains/nightly"),
    )
    .unwrap();
    hostile
}

/// `arbiter play` of the cargo player of `dir` as an organiser whose home is `home`, with
/// rustup's proxy first on `PATH` and no toolchain chosen in the environment.
fn play_cargo(dir: &Path, home: &Path, extra: &[String]) -> std::process::Output {
    let path = format!(
        "{}:/usr/local/bin:/usr/bin:/bin",
        home.join(".cargo/bin").display()
    );
    arbiter()
        .args([
            "play",
            "quoridor",
            "--json",
            "--sandbox",
            "--seed",
            "1",
            "--bot",
        ])
        .arg(dir.join("players/hostile"))
        .args(["--bot", "builtin:blocker", "--replay"])
        .arg(dir.join("match.jsonl"))
        .args(extra)
        .env("PATH", path)
        .env("HOME", home)
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTUP_HOME")
        .output()
        .unwrap()
}

#[test]
fn a_player_whose_command_is_cargo_is_not_shown_the_organisers_cargo_folder() {
    let dir = contest("cargo", "view", &[]);
    let home = organisers_rust(&dir);
    cargo_player(&dir, &home);
    let output = play_cargo(&dir, &home, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The player's command names a toolchain the organiser did not name: refused, with the
    // flag that would show it.
    assert!(!output.status.success(), "{stderr}");
    let flag = format!("--sandbox-ro {}", home.join(".cargo").display());
    assert!(stderr.contains(&flag), "{stderr}");
    let replay = std::fs::read_to_string(dir.join("match.jsonl")).unwrap_or_default();
    assert!(!replay.contains(CARGO_TOKEN), "{replay}");
    assert!(!replay.contains("probe: toolchain"), "{replay}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_players_rust_toolchain_file_does_not_choose_the_organisers_toolchain_or_show_credentials() {
    let dir = contest("cargo-named", "view", &[]);
    let home = organisers_rust(&dir);
    cargo_player(&dir, &home);
    let extra = [".cargo", ".rustup"]
        .map(|f| {
            [
                "--sandbox-ro".to_owned(),
                home.join(f).display().to_string(),
            ]
        })
        .concat();
    let output = play_cargo(&dir, &home, &extra);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let log = bot_log(&dir.join("match.jsonl"));
    assert!(log.contains("probe: toolchain stable"), "{log}");
    assert!(!log.contains("probe: toolchain nightly"), "{log}");
    assert!(!log.contains(CARGO_TOKEN), "{log}");
    // Said once, at the start: what the bots of player folders see, and what they do not.
    assert_eq!(
        stderr
            .matches("sandbox: the bots of player folders see")
            .count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("RUSTUP_TOOLCHAIN=stable"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An `arbiter play` under way, killed if the test fails before it ends (its bots die with it).
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An `arbiter play` under way whose hostile bots (on `seats` seats) wait in their scratch
/// folders, made under the temporary folder `tmp`, until the test lets them play.
fn start_waiting(dir: &Path, tmp: &Path, seats: usize) -> Running {
    let hostile = dir.join("players/hostile");
    let mut command = arbiter();
    command.args([
        "play",
        "quoridor",
        "--sandbox",
        "--seed",
        "1",
        "--time-bank-ms",
        "60000",
        // Bots that run between turns: a bot frozen until its first turn would not say it
        // started while the bot before it waits for the test, and every bot of the match must
        // be alive at once.
        "--no-freeze",
    ]);
    for seat in 0..2 {
        match seat < seats {
            true => command.arg("--bot").arg(&hostile),
            false => command.args(["--bot", "builtin:blocker"]),
        };
    }
    let child = command
        .env("TMPDIR", tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    Running(child)
}

/// Every `started` file under `tmp` (where bots in "wait" mode say they are under way).
fn started_files(tmp: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![(tmp.to_path_buf(), 0)];
    while let Some((folder, depth)) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_name() == "started" {
                found.push(path);
            } else if depth < 4 && entry.file_type().is_ok_and(|t| t.is_dir()) {
                folders.push((path, depth + 1));
            }
        }
    }
    found.sort();
    found
}

/// Waits until `count` bots under `tmp` say they are under way; their `started` files.
fn wait_for_bots(tmp: &Path, count: usize) -> Vec<PathBuf> {
    wait_for_new_bots(tmp, count, &[])
}

/// Waits until `count` bots under `tmp` besides those of `known` say they are under way; their
/// `started` files.
fn wait_for_new_bots(tmp: &Path, count: usize, known: &[PathBuf]) -> Vec<PathBuf> {
    let give_up = Instant::now() + MATCH_LIMIT;
    loop {
        let mut found = started_files(tmp);
        found.retain(|s| !known.contains(s));
        if found.len() >= count {
            return found;
        }
        assert!(
            Instant::now() < give_up,
            "waited {MATCH_LIMIT:?} for {count} more bots to write `started` in their scratch \
             folders under {}; found {found:?}",
            tmp.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Lets the waiting bot of `started` play, and reads its uid.
fn release(started: &Path) -> u32 {
    let uid = std::fs::read_to_string(started).unwrap().parse().unwrap();
    std::fs::write(started.with_file_name("go"), "").unwrap();
    uid
}

/// The match of `running` ends well.
fn assert_finishes(mut running: Running) {
    let child = &mut running.0;
    let give_up = Instant::now() + MATCH_LIMIT;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > give_up {
            let _ = child.kill();
            panic!("the match did not end within {MATCH_LIMIT:?} after its bots were released");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "arbiter failed: {status}\n{stderr}");
}

/// `setpriv` as `nobody`, running `argv`: whether it succeeded, and what it said.
fn as_nobody(argv: &[&std::ffi::OsStr]) -> (bool, String) {
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .args(argv)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stdout) + String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said.into_owned())
}

/// Nothing of the bots is left under `tmp`; then `tmp` and the contest `dir` are removed.
fn assert_left_nothing_and_remove(tmp: &Path, dir: &Path) {
    assert_left_nothing(tmp);
    std::fs::remove_dir_all(tmp).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

/// The temporary folder holds nothing (Arbiter's shared folder went with its last process).
fn assert_left_nothing(tmp: &Path) {
    let left: Vec<_> = std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
}

#[test]
fn a_bots_program_in_its_scratch_copy_cannot_be_read_by_another_local_user() {
    let dir = contest("private", "wait", &[]);
    let tmp = temp_dir("private-tmp");
    let child = start_waiting(&dir, &tmp, 1);
    let started = wait_for_bots(&tmp, 1);
    let scratch = started[0].parent().unwrap();
    let program = scratch.join("hostile.py");
    assert!(
        program.is_file(),
        "{} is not the bot's copy",
        scratch.display()
    );
    // A student with a shell account on the server, during the match.
    let (read, said) = as_nobody(&["cat".as_ref(), program.as_os_str()]);
    assert!(!read, "nobody read {}: {said}", program.display());
    let (listed, said) = as_nobody(&["ls".as_ref(), scratch.parent().unwrap().as_os_str()]);
    assert!(!listed, "nobody listed the scratch folders: {said}");
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(scratch).unwrap();
    assert_eq!(meta.mode() & 0o777, 0o700, "{}", scratch.display());
    let uid = release(&started[0]);
    assert_eq!(
        meta.uid(),
        uid,
        "the scratch folder is not the bot's user's"
    );
    assert_finishes(child);
    assert_left_nothing_and_remove(&tmp, &dir);
}

#[test]
fn a_scratch_folder_left_by_a_killed_arbiter_is_removed_at_the_next_start() {
    let dir = contest("sweep", "wait", &[]);
    let tmp = temp_dir("sweep-tmp");
    let live = start_waiting(&dir, &tmp, 1);
    let live_started = wait_for_bots(&tmp, 1).remove(0);
    let mut killed = start_waiting(&dir, &tmp, 1);
    let killed_started = wait_for_new_bots(&tmp, 1, std::slice::from_ref(&live_started)).remove(0);
    killed.0.kill().unwrap(); // SIGKILL: no clean-up of its own
    killed.0.wait().unwrap();
    let killed_scratch = killed_started.parent().unwrap();
    assert!(killed_scratch.exists(), "nothing was left to sweep");
    // The next start of Arbiter, with a sandbox.
    let hostile = dir.join("players/hostile");
    let next = start_waiting(&dir, &tmp, 1);
    let known = [live_started.clone(), killed_started.clone()];
    let next_started = wait_for_new_bots(&tmp, 1, &known).remove(0);
    assert!(
        !killed_scratch.exists(),
        "{} outlived the Arbiter that made it",
        killed_scratch.display()
    );
    assert!(
        live_started.exists(),
        "a live Arbiter's scratch folder was removed"
    );
    assert!(live_started.with_file_name("hostile.py").exists());
    assert!(hostile.join("hostile.py").exists());
    release(&next_started);
    assert_finishes(next);
    release(&live_started);
    assert_finishes(live);
    assert_left_nothing_and_remove(&tmp, &dir);
}

#[test]
fn two_arbiters_never_give_two_live_bots_the_same_uid() {
    let dir = contest("uids", "wait", &[]);
    let tmp = temp_dir("uids-tmp");
    // Two workers on one machine, each with two bots alive at once.
    let arbiters = [start_waiting(&dir, &tmp, 2), start_waiting(&dir, &tmp, 2)];
    let started = wait_for_bots(&tmp, 4);
    let uids: Vec<u32> = started.iter().map(|s| release(s)).collect();
    for child in arbiters {
        assert_finishes(child);
    }
    let mut distinct = uids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 4, "live bots shared a uid: {uids:?}");
    // Far from the users systemd makes for services (61184-65519) and from /etc/subuid's.
    for uid in uids {
        assert!((0x7000_0000..=0x7000_FFFF).contains(&uid), "uid {uid}");
    }
    assert_left_nothing_and_remove(&tmp, &dir);
}

#[test]
fn a_bot_cannot_read_the_keys_of_the_session_arbiter_was_started_in() {
    const KEY: &std::ffi::CStr = c"organiser-session-key";
    let dir = contest("keyring", "keyring", &[KEY.to_str().unwrap()]);
    let mut command = arbiter();
    command.args([
        "play",
        "quoridor",
        "--sandbox",
        "--seed",
        "1",
        "--json",
        "--bot",
    ]);
    command.arg(dir.join("players/hostile"));
    command.args(["--bot", "builtin:blocker", "--replay"]);
    command.arg(dir.join("match.jsonl"));
    // As a login does (pam_keyinit): Arbiter runs in a session keyring holding a key.
    // SAFETY: the hook makes system calls only.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(|| {
            let join = libc::syscall(libc::SYS_keyctl, 1, c"arbiter-test-session".as_ptr());
            let add = libc::syscall(
                libc::SYS_add_key,
                c"user".as_ptr(),
                KEY.as_ptr(),
                c"secret".as_ptr(),
                6usize,
                -3 as libc::c_int,
            );
            match join > 0 && add > 0 {
                true => Ok(()),
                false => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let log = bot_log(&dir.join("match.jsonl"));
    assert!(log.contains("probe: read session key blocked"), "{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bot_that_computes_for_ever_is_killed_for_its_cpu_seconds() {
    let played = attack(
        "spin",
        &[],
        &["--cpu-seconds", "1", "--time-bank-ms", "50000"],
    );
    assert_killed_for(&played, "cpu", "its limit on CPU seconds");
    assert_clean(&played);
}

// An ordinary user: Arbiter run as `nobody`, who may not write the machine's cgroups, with the
// default policy. It used to run the bots with all the user's rights, after a warning; the
// sandbox is now built from namespaces and rlimits (docs/sandbox.md, "Without cgroups").

/// The ordinary user these tests run Arbiter as (`nobody` on Debian and Fedora alike).
const NOBODY: u32 = 65534;

/// `arbiter` run as `nobody` in `dir`, with an ordinary user's environment. The program is
/// linked (or copied) into `dir`, so that `nobody` can run it wherever the build is.
fn arbiter_as_nobody(dir: &Path) -> Command {
    let program = dir.join("arbiter");
    let built = Path::new(env!("CARGO_BIN_EXE_arbiter"));
    if std::fs::hard_link(built, &program).is_err() {
        std::fs::copy(built, &program).unwrap();
    }
    let mut command = Command::new("setpriv");
    command
        .arg(format!("--reuid={NOBODY}"))
        .arg(format!("--regid={NOBODY}"))
        .args(["--clear-groups", "--"])
        .arg(&program)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir)
        .env("LANG", "C.UTF-8")
        .current_dir(dir);
    command
}

/// [`attack`] by Arbiter run as `nobody`. The contest folder is `nobody`'s (so the replay can
/// be written, and so could the bot, were it not in a sandbox); everything in it is readable.
fn attack_as_nobody(mode: &str, args: &[&str], extra: &[&str]) -> Played {
    let marker = format!("arbiter-hostile-{}-nobody-{mode}", std::process::id());
    let args: Vec<&str> = args.iter().copied().chain([marker.as_str()]).collect();
    let dir = contest(&format!("nobody-{mode}"), mode, &args);
    std::os::unix::fs::chown(&dir, Some(NOBODY), Some(NOBODY)).unwrap();
    let played = play_by(arbiter_as_nobody(&dir), &dir, extra);
    assert_eq!(
        played.stderr.matches("warning:").count(),
        1,
        "{}",
        played.stderr
    );
    for words in [
        "sandbox without a cgroup",
        "systemd-run --user --scope -p Delegate=yes",
    ] {
        assert!(
            played.stderr.contains(words),
            "{words:?}: {}",
            played.stderr
        );
    }
    assert!(
        !played.stderr.contains("WITHOUT a sandbox"),
        "{}",
        played.stderr
    );
    Played { marker, ..played }
}

#[test]
fn an_ordinary_users_bot_without_cgroups_sees_no_file_of_the_organiser_or_of_other_players() {
    // The contest folder is the user's own: only the sandbox keeps the bot from writing there.
    // (Under /tmp, as here, the folders on the way to the bot's scratch folder are made in its
    // private /tmp, and are its user's: what it writes there stays in that /tmp, so the probe
    // may say it wrote "outside"; the contest folder itself is checked to hold nothing new.)
    assert_sees_no_file_of_others(attack_as_nobody);
}

#[test]
fn an_ordinary_users_bot_without_cgroups_has_no_network() {
    assert_no_connection_leaves(attack_as_nobody);
}

#[test]
fn an_ordinary_users_fork_bomb_without_cgroups_is_stopped_by_the_process_limit() {
    let played = attack_as_nobody("forkcount", &[], &["--max-processes", "16"]);
    let children: u32 = played
        .log
        .split("probe: fork blocked after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no refused fork: {}", played.log));
    // The bot itself and bubblewrap's init in its namespace count too; the user's other
    // processes (this test's, other tests') do not.
    assert!((8..16).contains(&children), "{children} children");
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
    // A real one: it never answers, is stopped at its limit, and leaves nothing behind.
    let played = attack_as_nobody(
        "forkbomb",
        &[],
        &["--max-processes", "16", "--time-bank-ms", "300"],
    );
    assert!(
        bot(&played)["timeouts"].as_u64().unwrap() >= 1,
        "{}",
        played.json
    );
    assert_clean(&played);
}

#[test]
fn an_ordinary_users_memory_hog_without_cgroups_is_stopped_by_the_memory_limit() {
    let played = attack_as_nobody("memory", &[], &["--memory-mb", "128"]);
    // Its allocation failed and it ended as Python does; without a cgroup nothing says that
    // the limit was the reason, so none is given.
    assert_logged(&played, "MemoryError");
    assert_eq!(bot(&played)["crashed"], true, "{}", played.json);
    assert_eq!(bot(&played)["killed_for"], Value::Null, "{}", played.json);
    assert_clean(&played);
}

#[test]
fn an_ordinary_users_bot_without_cgroups_is_killed_for_its_cpu_seconds() {
    let played = attack_as_nobody(
        "spin",
        &[],
        &["--cpu-seconds", "1", "--time-bank-ms", "50000"],
    );
    assert_killed_for(&played, "cpu", "its limit on CPU seconds");
    assert_clean(&played);
}

#[test]
fn an_ordinary_users_grandchild_in_a_session_of_its_own_dies_with_the_match() {
    let played = attack_as_nobody("setsid", &[], &[]);
    assert_eq!(bot(&played)["crashed"], false, "{}", played.json);
    assert_clean(&played);
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
