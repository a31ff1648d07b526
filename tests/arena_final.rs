//! `arbiter arena final` as an operator runs it, whole processes on a real SQLite file: an
//! arena with robots enrolled (through the store) and a bot handed in and built, then the final of its ladder's
//! best, which `arbiter tournament resume` plays to the end as any tournament; and the flags
//! it refuses.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use arbiter_store::{ArenaStore, Presence};
use common::{arbiter, root, temp_dir};
use serde_json::Value;

/// An `arbiter arena serve` process offering quoridor, stopped when dropped.
struct Arena {
    child: Child,
    url: String,
}

impl Arena {
    fn start(db: &Path) -> Arena {
        let mut child = arbiter_by(db)
            .args([
                "arena",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--game",
                "quoridor",
            ])
            .arg("--db")
            .arg(db)
            .stdout(Stdio::piped())
            .spawn()
            .expect("arbiter arena serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("arena on ")
            .unwrap_or_else(|| panic!("arbiter arena serve printed {line:?}"))
            .to_owned();
        Arena { child, url }
    }
}

impl Drop for Arena {
    /// Kills the server; its empty folder of builds, which the next worker would sweep, is
    /// removed.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        common::remove_temporary_files_of(self.child.id());
    }
}

/// `arbiter` with the machine's cache (fetched programs) in the test's folder, beside `db`.
fn arbiter_by(db: &Path) -> Command {
    let mut command = arbiter();
    command.env("XDG_CACHE_HOME", db.with_file_name("cache"));
    command
}

/// `arbiter ARGS --db DB` with `stdin` as its standard input.
fn arbiter_with(args: &[&str], db: &Path, stdin: &str) -> Output {
    let mut child = arbiter_by(db)
        .args(args)
        .arg("--db")
        .arg(db)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `arbiter ARGS --db DB`, which must succeed; its standard output.
fn ok(args: &[&str], db: &Path) -> String {
    let output = arbiter_with(args, db, "");
    assert!(
        output.status.success(),
        "arbiter {args:?}: {}\n{}",
        output.status,
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// A new arena, its admin `ann`, with robots `robots` of quoridor enrolled on its ladder.
fn arena_with_robots(db: &Path, robots: &[&str]) {
    let added = arbiter_with(
        &["arena", "user", "add", "ann", "--admin"],
        db,
        "correct horse\n",
    );
    assert!(added.status.success(), "{}", text(&added.stderr));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = ArenaStore::open(db.to_str().unwrap(), Presence::MustExist)
            .await
            .unwrap();
        for robot in robots {
            store.add_robot("quoridor", robot).await.unwrap();
        }
    });
}

/// Hands in the Python starter as bot `bot` of user `ann` through a served arena, which
/// builds and checks it.
fn hand_in_starter(db: &Path, bot: &str) {
    let token = ok(&["arena", "token", "ann"], db).trim().to_owned();
    let arena = Arena::start(db);
    let python = root().join("examples/quoridor/starter.py");
    let submitted = arbiter_by(db)
        .args([
            "submit", "--arena", &arena.url, "--game", "quoridor", "--json",
        ])
        .args(["--bot", bot])
        .arg(&python)
        .env("ARBITER_TOKEN", &token)
        .output()
        .unwrap();
    assert!(submitted.status.success(), "{}", text(&submitted.stderr));
    let json: Value = serde_json::from_slice(&submitted.stdout).unwrap();
    assert_eq!(json["state"], "active", "{json}");
}

/// The players of the ladder's first `n`, best first, as the final names them.
fn ladder_top(db: &Path, n: usize) -> Vec<String> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let store = ArenaStore::open(db.to_str().unwrap(), Presence::MustExist)
            .await
            .unwrap();
        let board = store.leaderboard("quoridor").await.unwrap();
        let mut top = Vec::new();
        for entry in board.into_iter().take(n) {
            let version = store
                .version_by_id(entry.version_id)
                .await
                .unwrap()
                .unwrap();
            top.push(match entry.robot {
                true => format!("builtin:{}", version.file_name),
                false => format!("{} v{}", entry.bot, entry.version),
            });
        }
        top
    })
}

#[test]
fn the_final_of_the_ladders_best_is_a_tournament_played_to_the_end() {
    let dir = temp_dir("arena-final");
    let db = dir.join("arena.db");
    arena_with_robots(&db, &["random", "runner", "blocker"]);
    hand_in_starter(&db, "walker");
    let top = ladder_top(&db, 3);
    assert_eq!(top.len(), 3);

    let made = ok(
        &[
            "arena",
            "final",
            "--game",
            "quoridor",
            "--top",
            "3",
            "--format",
            "round-robin",
            "--seed",
            "7",
        ],
        &db,
    );
    let id = made
        .trim()
        .strip_prefix("tournament ")
        .unwrap_or_else(|| panic!("arena final printed {made:?}"))
        .to_owned();
    ok(
        &["tournament", "resume", "--tournament", &id, "--jobs", "2"],
        &db,
    );
    let standings = ok(
        &["tournament", "standings", "--tournament", &id, "--json"],
        &db,
    );
    let standings: Value = serde_json::from_str(&standings).unwrap();
    let mut played: Vec<String> = standings
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["player"].as_str().unwrap().to_owned())
        .collect();
    played.sort();
    let mut expected = top.clone();
    expected.sort();
    assert_eq!(played, expected, "{standings}");
    // A round-robin of three, both seat orders: six matches, all played.
    let games: f64 = standings
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["games"].as_f64().unwrap())
        .sum();
    assert_eq!(games, 12.0, "{standings}");
}

#[test]
fn flags_the_final_cannot_take_are_refused_with_the_reason() {
    let dir = temp_dir("arena-final-flags");
    let db = dir.join("arena.db");
    arena_with_robots(&db, &["random"]);
    let final_of = |flags: &[&str]| {
        let mut args = vec!["arena", "final"];
        args.extend_from_slice(flags);
        arbiter_with(&args, &db, "")
    };

    let zero = final_of(&["--game", "quoridor", "--top", "0"]);
    assert_eq!(zero.status.code(), Some(2), "{}", text(&zero.stderr));
    assert!(
        text(&zero.stderr).contains("--top"),
        "{}",
        text(&zero.stderr)
    );

    let unknown = final_of(&["--game", "chess", "--top", "3"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        text(&unknown.stderr).contains("does not know the game \"chess\""),
        "{}",
        text(&unknown.stderr)
    );

    let alone = final_of(&["--game", "quoridor", "--top", "3"]);
    assert_eq!(alone.status.code(), Some(1));
    assert!(
        text(&alone.stderr)
            .contains("the ladder of quoridor has 1 active version(s): a final needs at least 2"),
        "{}",
        text(&alone.stderr)
    );

    let groups = final_of(&["--game", "quoridor", "--top", "3", "--format", "groups"]);
    assert_eq!(groups.status.code(), Some(2), "{}", text(&groups.stderr));
}
