//! The arena's command line as scripts use it, whole processes on a real SQLite file:
//! `arbiter arena user add` / `token` / `invite`, `arbiter arena serve` on a free port (which
//! builds and checks the versions itself), and `arbiter submit` of bots that pass, that do not
//! compile, and without a token.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Output, Stdio};

use common::{arbiter, root, temp_dir};
use serde_json::Value;

/// An `arbiter arena serve` process, stopped with SIGTERM when dropped.
struct Arena {
    child: Child,
    url: String,
}

impl Arena {
    fn start(db: &Path) -> Arena {
        Arena::with_flags(db, &[])
    }

    /// `arbiter arena serve` on a free port, offering quoridor, with `flags`.
    fn with_flags(db: &Path, flags: &[&str]) -> Arena {
        let mut child = arbiter()
            .args(["arena", "serve", "--listen", "127.0.0.1:0"])
            .args(["--game", "quoridor"])
            .args(flags)
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
            .filter(|url| url.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("arbiter arena serve printed {line:?}"))
            .to_owned();
        Arena { child, url }
    }

    /// Stops the server as an operator's service manager does; whether it exited cleanly.
    fn stop(mut self) -> bool {
        // SAFETY: kill(2) on the id of a child not yet waited for.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let status = self.child.wait().unwrap();
        std::mem::forget(self);
        status.success()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `arbiter arena ARGS --db DB` with `stdin` as its standard input.
fn arena_command(db: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = arbiter()
        .arg("arena")
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

/// `arbiter submit` of `path` as bot `bot` to `url`, with `token` in ARBITER_TOKEN if given.
fn submit(url: &str, token: Option<&str>, bot: &str, path: &Path) -> Output {
    let mut command = arbiter();
    command
        .args([
            "submit", "--arena", url, "--game", "quoridor", "--json", "--bot", bot,
        ])
        .arg(path)
        .env_remove("ARBITER_TOKEN");
    if let Some(token) = token {
        command.env("ARBITER_TOKEN", token);
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The one JSON object `submit --json` printed.
fn outcome(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "submit --json printed something else ({e}): {}\n{}",
            text(&output.stdout),
            text(&output.stderr)
        )
    })
}

/// Makes user `ann` (an admin) and returns an API token of hers.
fn ann_with_token(db: &Path) -> String {
    let refused = arena_command(db, &["user", "add", "bob"], "\n");
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("the password is empty"));
    let short = arena_command(db, &["user", "add", "bob"], "abc\n");
    assert!(
        text(&short.stderr).contains("too short"),
        "{}",
        text(&short.stderr)
    );
    let added = arena_command(db, &["user", "add", "ann", "--admin"], "correct horse\n");
    assert!(added.status.success(), "{}", text(&added.stderr));
    let again = arena_command(db, &["user", "add", "ANN"], "correct horse\n");
    assert!(
        text(&again.stderr).contains("there is a user named \"ANN\" already"),
        "{}",
        text(&again.stderr)
    );
    let token = arena_command(db, &["token", "ann", "--label", "ci"], "");
    assert!(token.status.success(), "{}", text(&token.stderr));
    let token = text(&token.stdout).trim().to_owned();
    assert_eq!(token.len(), 64, "{token}");
    let nobody = arena_command(db, &["token", "nobody"], "");
    assert!(text(&nobody.stderr).contains("has no user \"nobody\""));
    let invites = arena_command(db, &["invite", "--count", "3"], "");
    let codes: Vec<String> = text(&invites.stdout).lines().map(str::to_owned).collect();
    assert_eq!(codes.len(), 3, "{codes:?}");
    token
}

#[test]
fn scripts_make_users_and_tokens_and_submit_bots_that_pass_or_fail() {
    let dir = temp_dir("arena-cli");
    let db = dir.join("arena.db");
    let token = ann_with_token(&db);
    let arena = Arena::start(&db);

    let python = root().join("examples/quoridor/starter.py");
    let passed = submit(&arena.url, Some(&token), "walker", &python);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stderr));
    let json = outcome(&passed);
    assert_eq!(
        (&json["bot"], &json["version"], &json["state"]),
        (&"walker".into(), &1.into(), &"active".into()),
        "{json}"
    );

    // A player folder, packed by submit (its .git left out), with a command of its own.
    let folder = dir.join("folderbot");
    std::fs::create_dir_all(folder.join(".git")).unwrap();
    std::fs::write(folder.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::copy(&python, folder.join("starter.py")).unwrap();
    std::fs::write(
        folder.join("info.txt"),
        "folderbot\nA folder\npython3 starter.py\n",
    )
    .unwrap();
    let packed = submit(&arena.url, Some(&token), "folderbot", &folder);
    assert_eq!(packed.status.code(), Some(0), "{}", text(&packed.stderr));
    assert_eq!(outcome(&packed)["state"], "active");

    let broken = dir.join("broken.cpp");
    std::fs::write(&broken, "int main( { return 0; }\n").unwrap();
    let failed = submit(&arena.url, Some(&token), "crasher", &broken);
    let stderr = text(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("broken.cpp:1:") && stderr.contains("error:"),
        "the compiler's words, line by line: {stderr}"
    );
    assert_eq!(outcome(&failed)["state"], "build_failed");

    let no_token = submit(&arena.url, None, "walker", &python);
    assert_eq!(no_token.status.code(), Some(2));
    assert!(text(&no_token.stderr).contains("ARBITER_TOKEN"));
    let wrong = submit(&arena.url, Some(&"0".repeat(64)), "walker", &python);
    assert_eq!(wrong.status.code(), Some(2), "{}", text(&wrong.stderr));
    let missing = submit(&arena.url, Some(&token), "walker", &dir.join("none.py"));
    assert_eq!(missing.status.code(), Some(2));

    assert!(arena.stop(), "SIGTERM ends the arena cleanly");
    let gone = submit("http://127.0.0.1:9", Some(&token), "walker", &python);
    assert_eq!(gone.status.code(), Some(2), "{}", text(&gone.stderr));
}

/// A worker process killed when dropped, as `kill -9` does; its empty folder of builds, which
/// the next worker would sweep, is removed.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        common::remove_temporary_files_of(self.0.id());
    }
}

#[test]
fn a_worker_of_another_process_builds_for_an_arena_that_does_not_work() {
    let dir = temp_dir("arena-cli-worker");
    let db = dir.join("arena.db");
    let token = ann_with_token(&db);
    let arena = Arena::with_flags(&db, &["--no-work"]);
    let _worker = Killed(
        arbiter()
            .args(["worker", "--name", "builder", "--db"])
            .arg(&db)
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let python = root().join("examples/quoridor/starter.py");
    let passed = submit(&arena.url, Some(&token), "walker", &python);
    assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stderr));
    assert_eq!(outcome(&passed)["state"], "active");
    assert!(arena.stop());
}

#[test]
fn submit_without_its_flags_is_a_usage_error() {
    let output = arbiter().args(["submit", "--bot", "x"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// The arena's store, read by the test beside the server that writes it.
struct Store {
    runtime: tokio::runtime::Runtime,
    store: arbiter_store::ArenaStore,
}

/// How long a test waits for something before it says what it waited for: a guard against a
/// hang, never a measure of speed.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(180);

impl Store {
    fn open(db: &Path) -> Store {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let target = db.display().to_string();
        let store = runtime
            .block_on(arbiter_store::ArenaStore::open(
                &target,
                arbiter_store::Presence::MustExist,
            ))
            .unwrap();
        Store { runtime, store }
    }

    fn matches(&self) -> Vec<arbiter_store::MatchSummary> {
        self.runtime
            .block_on(self.store.matches_of_game("quoridor", None, 100_000))
            .unwrap()
    }

    /// Waits until `holds` of the matches of Quoridor; returns them then.
    fn wait_for(
        &self,
        what: &str,
        holds: impl Fn(&[arbiter_store::MatchSummary]) -> bool,
    ) -> Vec<arbiter_store::MatchSummary> {
        let deadline = std::time::Instant::now() + PATIENCE;
        loop {
            let matches = self.matches();
            if holds(&matches) {
                return matches;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "waited {PATIENCE:?} for {what}: {matches:#?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    fn bot(&self, name: &str) -> arbiter_store::Bot {
        self.runtime
            .block_on(self.store.bot("quoridor", name))
            .unwrap()
            .unwrap_or_else(|| panic!("no bot {name}"))
    }

    /// The bots of the versions the scheduler may pick now.
    fn ladder_bots(&self) -> Vec<i64> {
        let candidates = self
            .runtime
            .block_on(self.store.ladder_candidates("quoridor"))
            .unwrap();
        candidates.iter().map(|c| c.bot).collect()
    }
}

/// The last match id of `kind`, 0 before any.
fn last_of(matches: &[arbiter_store::MatchSummary], kind: arbiter_store::MatchKind) -> i64 {
    matches
        .iter()
        .filter(|m| m.kind == kind)
        .map(|m| m.id)
        .max()
        .unwrap_or(0)
}

fn done_of(matches: &[arbiter_store::MatchSummary], kind: arbiter_store::MatchKind) -> usize {
    matches
        .iter()
        .filter(|m| m.kind == kind && m.state == arbiter_store::ArenaMatchState::Finished)
        .count()
}

#[test]
fn operators_enroll_robots_with_clear_refusals() {
    let dir = temp_dir("arena-cli-robots");
    let db = dir.join("arena.db");
    for robot in ["random", "blocker", "strong/nodes=200"] {
        let added = arena_command(&db, &["robot", "add", "quoridor", robot], "");
        assert!(added.status.success(), "{}", text(&added.stderr));
        assert_eq!(
            text(&added.stdout).trim(),
            format!("robot {robot} enrolled in the quoridor ladder")
        );
    }
    let refusals = [
        (
            &["robot", "add", "quoridor", "strongest"][..],
            "quoridor has no robot \"strongest\": its robots are random, runner",
        ),
        (
            &["robot", "add", "quoridor", "strong/nodes=0"],
            "has no robot \"strong/nodes=0\"",
        ),
        (
            &["robot", "add", "chess", "random"],
            "does not know the game \"chess\"",
        ),
        (&["robot", "add", "quoridor", "random"], "random"),
        (
            &["bot", "disable", "quoridor", "nobody"],
            "has no bot \"nobody\"",
        ),
    ];
    for (args, said) in refusals {
        let refused = arena_command(&db, args, "");
        assert_eq!(
            refused.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&refused.stderr)
        );
        assert!(
            text(&refused.stderr).contains(said),
            "{args:?}: {}",
            text(&refused.stderr)
        );
    }
    let listed = arena_command(&db, &["robot", "list"], "");
    assert_eq!(
        text(&listed.stdout),
        "quoridor\tblocker\nquoridor\trandom\nquoridor\tstrong/nodes=200\n"
    );
    let missing = arena_command(&dir.join("none.db"), &["ladder", "pause"], "");
    assert_eq!(
        missing.status.code(),
        Some(1),
        "a store that is not there is a typo"
    );
    let bad_seats = arbiter()
        .args([
            "arena",
            "serve",
            "--game",
            "quoridor",
            "--ladder-seats",
            "quoridor=2:1,3:1",
        ])
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(bad_seats.status.code(), Some(1));
    assert!(
        text(&bad_seats.stderr).contains("quoridor cannot seat 3 players"),
        "{}",
        text(&bad_seats.stderr)
    );
    let bad_pace = arbiter()
        .args(["arena", "serve", "--ladder-pace", "fast", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        bad_pace.status.code(),
        Some(2),
        "{}",
        text(&bad_pace.stderr)
    );
}

#[test]
fn the_ladder_pauses_uploads_freeze_and_bots_are_disabled_by_the_operator() {
    use arbiter_store::MatchKind;
    let dir = temp_dir("arena-cli-ops");
    let db = dir.join("arena.db");
    let token = ann_with_token(&db);
    for robot in ["random", "runner", "blocker"] {
        let added = arena_command(&db, &["robot", "add", "quoridor", robot], "");
        assert!(added.status.success(), "{}", text(&added.stderr));
    }
    let arena = Arena::with_flags(&db, &["--ladder-pace", "unlimited", "--match-jobs", "2"]);
    let store = Store::open(&db);
    store.wait_for("three ladder games", |ms| {
        done_of(ms, MatchKind::Ladder) >= 3
    });

    // Paused, the ladder schedules nothing more, while an SPRT series, scheduled by the very
    // same loop, still is: the proof that the scheduler ran while paused.
    let paused = arena_command(&db, &["ladder", "pause"], "");
    assert_eq!(text(&paused.stdout).trim(), "ladder paused");
    let last_ladder = last_of(&store.matches(), MatchKind::Ladder);
    let python = root().join("examples/quoridor/starter.py");
    for version in [1, 2] {
        let passed = submit(&arena.url, Some(&token), "walker", &python);
        assert_eq!(passed.status.code(), Some(0), "{}", text(&passed.stderr));
        assert_eq!(outcome(&passed)["version"], version);
    }
    let matches = store.wait_for("an SPRT game while the ladder is paused", |ms| {
        done_of(ms, MatchKind::Sprt) >= 1
    });
    assert_eq!(
        last_of(&matches, MatchKind::Ladder),
        last_ladder,
        "no ladder game after the pause"
    );
    let resumed = arena_command(&db, &["ladder", "resume"], "");
    assert_eq!(text(&resumed.stdout).trim(), "ladder resumed");
    store.wait_for("a ladder game after the resume", |ms| {
        last_of(ms, MatchKind::Ladder) > last_ladder
    });

    let frozen = arena_command(&db, &["uploads", "freeze"], "");
    assert_eq!(text(&frozen.stdout).trim(), "uploads frozen");
    let refused = submit(&arena.url, Some(&token), "walker", &python);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(
        text(&refused.stderr).contains("423"),
        "{}",
        text(&refused.stderr)
    );
    arena_command(&db, &["uploads", "open"], "");
    let again = submit(&arena.url, Some(&token), "walker", &python);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));

    let blocker = store.bot("blocker");
    assert!(store.ladder_bots().contains(&blocker.id));
    let disabled = arena_command(&db, &["bot", "disable", "quoridor", "blocker"], "");
    assert_eq!(
        text(&disabled.stdout).trim(),
        "quoridor bot blocker disabled"
    );
    assert!(store.bot("blocker").disabled);
    assert!(!store.ladder_bots().contains(&blocker.id), "off the ladder");
    arena_command(&db, &["bot", "enable", "quoridor", "blocker"], "");
    assert!(!store.bot("blocker").disabled);
    assert!(
        store.ladder_bots().contains(&blocker.id),
        "back on the ladder"
    );
    assert!(arena.stop());
}
