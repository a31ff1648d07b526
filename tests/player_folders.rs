//! Player folders a hostile player hands in, through `arbiter play` and `arbiter tournament run`
//! as whole processes: an `info.txt` that is a link out of its folder or a named pipe, and
//! folders too deep or too crowded for the sandbox to copy for every match.

mod common;

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{arbiter, run, show_arbiter, temp_dir};

/// No command here takes longer unless it hangs, which is what the guard is for.
const HANG: Duration = Duration::from_secs(120);

/// The lines of a file the player must never see, as info.txt's three lines would read them.
const SECRET: &str = "secret-alias\nSecret Name\nsecret-command\n";

/// A player folder `id` in `players` whose program is a built-in robot run as a process.
fn robot_folder(players: &Path, id: &str) -> PathBuf {
    let dir = players.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    let command = format!("'{}' bot quoridor random", env!("CARGO_BIN_EXE_arbiter"));
    std::fs::write(
        dir.join("info.txt"),
        format!("{id}\nPlayer {id}\n{command}\n"),
    )
    .unwrap();
    dir
}

/// Runs `command` to its end, or fails the test saying what hung.
fn output_within(command: &mut Command, what: &str) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter starts");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let give_up = Instant::now() + HANG;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > give_up {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {HANG:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// `arbiter play quoridor` of the folder `bot` against a robot, in a sandbox.
fn play(bot: &Path, extra: &[&str]) -> Command {
    let mut command = arbiter();
    command
        .args(["play", "quoridor", "--json", "--sandbox", "--seed", "1"])
        .args(["--time-bank-ms", "20000", "--bot"])
        .arg(bot)
        .args(["--bot", "builtin:random"])
        .args(show_arbiter())
        .args(extra);
    command
}

/// `arbiter tournament run quoridor` of `players` and a robot, in a sandbox.
fn tournament(players: &Path, db: &Path, extra: &[&str]) -> Command {
    let mut command = arbiter();
    command
        .args(["tournament", "run", "quoridor", "--sandbox", "--seed", "1"])
        .args(["--time-bank-ms", "20000", "--add", "builtin:random", "--db"])
        .arg(db)
        .args(show_arbiter())
        .args(extra)
        .arg(players);
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The seats of every match of the tournament in `db`.
fn seats_played(db: &Path) -> String {
    text(
        &run(arbiter()
            .args(["tournament", "matches", "--json", "--db"])
            .arg(db))
        .stdout,
    )
}

/// The scratch folders a process `pid` left in the temporary folder.
fn scratch_left(pid: u32) -> Vec<String> {
    let prefix = format!("arbiter-jail-{pid}-");
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with(&prefix))
        .collect()
}

/// Neither `arbiter play` of the folder `id` of `players` nor a tournament of `players` shows,
/// stores or prints a line of the file `info.txt` leads to; both say what `info.txt` is.
fn assert_refused_unread(players: &Path, id: &str, why: &str) {
    let secrets = ["secret-alias", "Secret Name", "secret-command"];
    let played = output_within(&mut play(&players.join(id), &[]), "arbiter play");
    let stderr = text(&played.stderr);
    assert!(!played.status.success(), "{stderr}");
    assert!(stderr.contains(why), "{stderr}");
    let db = players.with_file_name(format!("{id}.db"));
    let ran = output_within(&mut tournament(players, &db, &[]), "arbiter tournament run");
    let printed = format!("{}{}", text(&ran.stdout), text(&ran.stderr));
    assert!(ran.status.success(), "{printed}");
    assert!(printed.contains(id) && printed.contains(why), "{printed}");
    let standings = run(arbiter().args(["tournament", "standings", "--db"]).arg(&db));
    let stored = std::fs::read(&db).unwrap();
    for secret in secrets {
        for shown in [&stderr, &printed, &text(&standings.stdout), &text(&stored)] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown:.2000}");
        }
    }
}

#[test]
fn a_symlinked_info_txt_does_not_leak_another_players_file() {
    let dir = temp_dir("sibling");
    let players = dir.join("players");
    let victim = robot_folder(&players, "victim");
    std::fs::write(victim.join("bot.sh"), SECRET).unwrap();
    std::fs::create_dir_all(players.join("thief")).unwrap();
    std::os::unix::fs::symlink("../victim/bot.sh", players.join("thief/info.txt")).unwrap();
    assert_refused_unread(
        &players,
        "thief",
        "info.txt is a link to outside its folder, which is not followed",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlinked_info_txt_does_not_leak_a_root_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("root-only");
    let players = dir.join("players");
    robot_folder(&players, "honest");
    let private = dir.join("root-only.txt");
    std::fs::write(&private, SECRET).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir_all(players.join("thief")).unwrap();
    std::os::unix::fs::symlink(&private, players.join("thief/info.txt")).unwrap();
    // The same, one link further inside the folder.
    std::fs::create_dir_all(players.join("climber/conf")).unwrap();
    std::os::unix::fs::symlink("../../../root-only.txt", players.join("climber/conf/me")).unwrap();
    std::os::unix::fs::symlink("conf/me", players.join("climber/info.txt")).unwrap();
    assert_refused_unread(
        &players,
        "thief",
        "info.txt is a link to outside its folder",
    );
    assert_refused_unread(
        &players,
        "climber",
        "info.txt leads outside its folder through the link conf/me",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_info_txt_is_refused_without_hanging_discovery() {
    let dir = temp_dir("fifo");
    let players = dir.join("players");
    robot_folder(&players, "honest");
    std::fs::create_dir_all(players.join("pipe")).unwrap();
    let fifo = std::ffi::CString::new(players.join("pipe/info.txt").to_str().unwrap()).unwrap();
    // SAFETY: `fifo` is a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    assert_refused_unread(
        &players,
        "pipe",
        "info.txt is a named pipe, not a regular file",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_info_txt_linked_inside_its_folder_plays() {
    let dir = temp_dir("inside");
    let players = dir.join("players");
    let me = robot_folder(&players, "linked");
    std::fs::create_dir(me.join("conf")).unwrap();
    std::fs::rename(me.join("info.txt"), me.join("conf/player.txt")).unwrap();
    std::os::unix::fs::symlink("conf/player.txt", me.join("info.txt")).unwrap();
    let played = output_within(&mut play(&me, &[]), "arbiter play");
    assert!(played.status.success(), "{}", text(&played.stderr));
    let json: serde_json::Value = serde_json::from_slice(&played.stdout).unwrap();
    assert_eq!(json["bots"][0]["name"], "linked", "{json}");
    let db = dir.join("t.db");
    let ran = output_within(
        &mut tournament(&players, &db, &[]),
        "arbiter tournament run",
    );
    assert!(ran.status.success(), "{}", text(&ran.stderr));
    assert!(seats_played(&db).contains("linked"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A chain of `depth` folders `d/d/d…` in `dir`, made one inside the other as an unpacked
/// archive makes it (a path that long could not be named from `/`).
fn chain(dir: &Path, depth: usize) {
    let open = |at: libc::c_int, name: &std::ffi::CStr| {
        // SAFETY: `name` is a valid C string; the descriptor returned is owned here.
        let fd = unsafe { libc::openat(at, name.as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY) };
        assert!(fd >= 0, "{}", std::io::Error::last_os_error());
        // SAFETY: just opened, owned by no one else.
        unsafe { OwnedFd::from_raw_fd(fd) }
    };
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    let mut current = open(libc::AT_FDCWD, &path);
    for _ in 0..depth {
        // SAFETY: `current` is open and the name a valid C string.
        let made = unsafe { libc::mkdirat(current.as_raw_fd(), c"d".as_ptr(), 0o755) };
        assert_eq!(made, 0, "{}", std::io::Error::last_os_error());
        current = open(current.as_raw_fd(), c"d");
    }
}

/// `arbiter play` of `bot` refused before any match, naming `flag` in a short message; the
/// same folder among `players` kept out of a tournament; nothing left in the temporary folder.
fn assert_refused_before_any_match(players: &Path, id: &str, flag: &str) {
    let child = play(&players.join(id), &[]);
    let played = output_within(&mut { child }, "arbiter play");
    let stderr = text(&played.stderr);
    assert!(!played.status.success(), "{stderr}");
    assert!(stderr.contains(flag), "{stderr:.2000}");
    assert!(stderr.len() < 600, "{} bytes: {stderr:.2000}", stderr.len());
    assert!(!stderr.contains("Too many open files"), "{stderr:.2000}");
    let db = players.with_file_name("t.db");
    let mut command = tournament(players, &db, &[]);
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let ran = child.wait_with_output().unwrap();
    let printed = text(&ran.stderr);
    assert!(ran.status.success(), "{printed:.2000}");
    assert!(
        printed.contains(id) && printed.contains(flag),
        "{printed:.2000}"
    );
    let played = seats_played(&db);
    assert!(
        !played.contains(&format!("\"{id}\"")),
        "{id} played: {played}"
    );
    assert!(played.contains("honest"), "the others play: {played}");
    assert_eq!(scratch_left(pid), Vec::<String>::new());
}

#[test]
fn a_folder_1500_levels_deep_is_refused_before_any_match_with_a_short_message() {
    let dir = temp_dir("deep");
    let players = dir.join("players");
    robot_folder(&players, "honest");
    chain(&robot_folder(&players, "deep"), 1500);
    assert_refused_before_any_match(&players, "deep", "(--max-folder-depth)");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_of_more_files_than_the_limit_is_refused_before_any_match() {
    let dir = temp_dir("crowded");
    let players = dir.join("players");
    robot_folder(&players, "honest");
    let crowded = robot_folder(&players, "crowded");
    // info.txt and 10,000 more: one over the default limit.
    for i in 0..10_000 {
        std::fs::File::create(crowded.join(format!("f{i}"))).unwrap();
    }
    assert_refused_before_any_match(&players, "crowded", "(--max-folder-entries)");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_deeper_than_the_open_files_limit_copies_within_the_depth_limit() {
    let dir = temp_dir("deep-allowed");
    let players = dir.join("players");
    let deep = robot_folder(&players, "deep");
    chain(&deep, 100);
    // The bot's own open-files limit fits under Arbiter's (raising it needs a capability).
    let mut command = play(&deep, &["--max-folder-depth", "200", "--open-files", "32"]);
    // SAFETY: the hook only calls setrlimit, on a value made before the fork.
    unsafe {
        command.pre_exec(|| {
            // Soft and hard: Arbiter cannot raise it past 64, fewer than the folder's levels.
            let limit = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            match libc::setrlimit(libc::RLIMIT_NOFILE, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let played = child.wait_with_output().unwrap();
    assert!(played.status.success(), "{}", text(&played.stderr));
    let json: serde_json::Value = serde_json::from_slice(&played.stdout).unwrap();
    assert_eq!(json["bots"][0]["name"], "deep", "{json}");
    assert_eq!(scratch_left(pid), Vec::<String>::new());
    std::fs::remove_dir_all(&dir).unwrap();
}
