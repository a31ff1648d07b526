//! The arena's pages in a real browser: `tests/browser/arena.mjs` (headless Chromium driven by
//! playwright-core) against an arena served here, on a SQLite store prepared with a user whose
//! versions failed their build and their check, and an admin. While the pages run, versions
//! they upload are built and checked by writing the store as a worker does (a real replay as
//! the check's), so that the pages follow them to `active`.
//!
//! `tests/browser/arena-builds.mjs` takes the whole path against an arena with its worker:
//! versions uploaded from the form are built in the sandbox and checked for real.
//!
//! `tests/browser/arena-ladder.mjs` takes the ladder's pages against a real ladder: the
//! game's robots enrolled, a Python bot handed in, built and checked by the arena's worker,
//! the scheduler queueing matches as fast as the worker plays them (`unlimited` pace), the
//! worker playing them in the sandbox.
//!
//! Like the viewer's browser tests, these run when `ARBITER_BROWSER_TESTS=1` is set (as
//! `scripts/test` does); otherwise the test says how to run them and passes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use arbiter_arena::ladder::{LadderOptions, run_scheduler};
use arbiter_arena::work::{WorkOptions, work};
use arbiter_arena::{ArenaConfig, ArenaState};
use arbiter_store::{ArenaStore, JobKind, Presence};

/// The password of every user made here.
const PASSWORD: &str = "correct horse";

/// A real replay of a Quoridor game, as a check's (gzip).
fn replay(dir: &Path) -> Vec<u8> {
    let path = dir.join("check.jsonl.gz");
    let played = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "play",
            "quoridor",
            "--seed",
            "3",
            "--bot",
            "builtin:random",
            "--bot",
            "builtin:runner",
            "--replay",
        ])
        .arg(&path)
        .output()
        .expect("arbiter starts");
    assert!(played.status.success(), "{played:?}");
    std::fs::read(&path).unwrap()
}

/// ada, whose bot b1 failed its check (v1) and its build (v2); root, an admin.
async fn prepare(store: &ArenaStore, replay: &[u8]) {
    let hasher = arbiter_logins::Hasher::start(1).unwrap();
    let phc = hasher.hash(PASSWORD.to_owned()).await.unwrap();
    let ada = store.add_user("ada", &phc, false).await.unwrap();
    store.add_user("root", &phc, true).await.unwrap();
    let team = store.team_by_name("ada").await.unwrap().unwrap();
    let bot = store.add_bot(team.id, "quoridor", "b1").await.unwrap();
    for _ in 0..2 {
        store
            .add_version(bot.id, ada.id, "b1.cpp", b"int main() {}")
            .await
            .unwrap();
    }
    let build = store.claim_job("prepare", 60_000).await.unwrap().unwrap();
    store
        .finish_build(&build, Ok(("0000", "c++", "g++ -O2 b1.cpp: ok")))
        .await
        .unwrap();
    let build = store.claim_job("prepare", 60_000).await.unwrap().unwrap();
    let log = "b1.cpp:1:13: error: expected ';' before '}' token";
    store
        .finish_build(&build, Err((log, "the build failed")))
        .await
        .unwrap();
    let check = store.claim_job("prepare", 60_000).await.unwrap().unwrap();
    let replays = [("b1 v1 vs random, seat 1".to_owned(), replay.to_vec())];
    let reason = "it crashed on its first turn";
    store
        .finish_check(&check, false, Some(reason), &replays)
        .await
        .unwrap();
}

/// Builds and checks (passing) every version the pages upload, as a worker would.
async fn stand_in_worker(store: ArenaStore, replay: Vec<u8>, done: Arc<AtomicBool>) {
    while !done.load(Ordering::Relaxed) {
        match store.claim_job("browser-test", 60_000).await {
            Ok(Some(job)) if job.kind == JobKind::Build => {
                let outcome = Ok(("1111", "c++", "g++ -O2 runner.cpp: ok"));
                store.finish_build(&job, outcome).await.unwrap();
            }
            Ok(Some(job)) => {
                let replays = [("runner v1 vs random, seat 1".to_owned(), replay.clone())];
                store
                    .finish_check(&job, true, None, &replays)
                    .await
                    .unwrap();
            }
            Ok(None) => tokio::time::sleep(Duration::from_millis(200)).await,
            Err(e) => panic!("claiming a job: {e}"),
        }
    }
}

/// Whether the browser tests run; if not, says how to run them.
fn browser_tests_wanted() -> bool {
    let wanted = std::env::var_os("ARBITER_BROWSER_TESTS").is_some_and(|v| v == "1");
    if !wanted {
        eprintln!(
            "arena browser tests not run: set ARBITER_BROWSER_TESTS=1 (scripts/test does) to run them"
        );
    }
    wanted
}

/// Runs `tests/browser/run SCRIPT` against the arena at `url`, with `env` added.
fn run_browser(script: &str, url: &str, env: &[(&str, &Path)]) {
    let run = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/run");
    let mut command = Command::new(&run);
    command
        .arg(script)
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .env("ARENA_URL", url);
    for (name, value) in env {
        command.env(name, value);
    }
    let status = command
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", run.display()));
    assert!(
        status.success(),
        "the arena's browser tests ({script}) failed ({status}); their output is above, \
         screenshots in test-output/browser/"
    );
}

#[test]
fn arena_pages_in_a_browser() {
    if !browser_tests_wanted() {
        return;
    }
    let dir: PathBuf = arbiter_testdir::fresh("arena-browser");
    let replay = replay(&dir);
    let db = dir.join("arena.db");
    let db = db.to_str().unwrap().to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let url = runtime.block_on(async {
        let store = ArenaStore::open(&db, Presence::MayCreate).await.unwrap();
        prepare(&store, &replay).await;
        let state = ArenaState::open(store.clone(), &db, ArenaConfig::default())
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(arbiter_arena::serve(
            listener,
            state,
            std::future::pending(),
        ));
        tokio::spawn(stand_in_worker(store, replay, done.clone()));
        url
    });
    run_browser("arena.mjs", &url, &[]);
    done.store(true, Ordering::Relaxed);
}

/// The files the whole path hands in: the Quoridor starters in C++ and Python, a Java player
/// folder with a build script as a zip, a C++ file that does not compile, a Python bot that
/// exits at once.
fn bot_files(dir: &Path) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = dir.join("files");
    std::fs::create_dir_all(&files).unwrap();
    let copy = |from: &str, to: &str| std::fs::copy(repo.join(from), files.join(to)).unwrap();
    copy("examples/quoridor/starter.cpp", "runner.cpp");
    copy("examples/quoridor/starter.py", "walker.py");
    std::fs::write(files.join("broken.cpp"), "int main() { return 0 }\n").unwrap();
    std::fs::write(files.join("crasher.py"), "import sys\nsys.exit(3)\n").unwrap();
    let java = std::fs::read(repo.join("crates/builds/tests/bots/Bot.java")).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(files.join("javabot.zip")).unwrap());
    for (name, bytes) in [
        ("javabot/Bot.java", &java[..]),
        (
            "javabot/info.txt",
            b"javabot\nA Java bot\njava -cp classes Bot\n",
        ),
        (
            "javabot/build.sh",
            b"mkdir -p classes\njavac -d classes Bot.java\n",
        ),
    ] {
        zip.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        std::io::Write::write_all(&mut zip, bytes).unwrap();
    }
    zip.finish().unwrap();
    files
}

#[test]
fn arena_builds_and_checks_uploads_in_a_browser() {
    if !browser_tests_wanted() {
        return;
    }
    let dir: PathBuf = arbiter_testdir::fresh("arena-builds");
    let files = bot_files(&dir);
    let db = dir.join("arena.db");
    let db = db.to_str().unwrap().to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let url = runtime.block_on(async {
        let store = ArenaStore::open(&db, Presence::MayCreate).await.unwrap();
        let mut options = WorkOptions::new("browser-test");
        options.jobs = 2;
        options.work = dir.join("builds");
        options.programs = dir.join("programs");
        let config = ArenaConfig {
            wake: Some(options.wake.clone()),
            ..ArenaConfig::default()
        };
        let state = ArenaState::open(store.clone(), &db, config).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(arbiter_arena::serve(
            listener,
            state,
            std::future::pending(),
        ));
        tokio::spawn(work(store, options, async move {
            let _ = stopped.await;
        }));
        url
    });
    run_browser("arena-builds.mjs", &url, &[("ARENA_FILES", &files)]);
    let _ = stop.send(());
    runtime.shutdown_timeout(Duration::from_secs(15));
}

/// ada, with her bot `walker` (the Python starter) handed in; three robots of Quoridor
/// enrolled in its ladder.
async fn prepare_ladder(store: &ArenaStore, files: &Path) {
    let hasher = arbiter_logins::Hasher::start(1).unwrap();
    let phc = hasher.hash(PASSWORD.to_owned()).await.unwrap();
    let ada = store.add_user("ada", &phc, false).await.unwrap();
    let team = store.team_by_name("ada").await.unwrap().unwrap();
    // As fast as the worker plays: the page sees games come without waiting for a pace.
    store
        .set_setting(arbiter_store::arena::LADDER_PACE, "unlimited")
        .await
        .unwrap();
    for robot in ["random", "runner", "blocker"] {
        store.add_robot("quoridor", robot).await.unwrap();
    }
    let bot = store.add_bot(team.id, "quoridor", "walker").await.unwrap();
    let source = std::fs::read(files.join("walker.py")).unwrap();
    store
        .add_version(bot.id, ada.id, "walker.py", &source)
        .await
        .unwrap();
}

#[test]
fn arena_ladder_in_a_browser() {
    if !browser_tests_wanted() {
        return;
    }
    let dir: PathBuf = arbiter_testdir::fresh("arena-ladder");
    let files = bot_files(&dir);
    let db = dir.join("arena.db");
    let db = db.to_str().unwrap().to_owned();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let url = runtime.block_on(async {
        let store = ArenaStore::open(&db, Presence::MayCreate).await.unwrap();
        prepare_ladder(&store, &files).await;
        let mut options = WorkOptions::new("browser-ladder");
        options.jobs = 2;
        options.work = dir.join("builds");
        options.programs = dir.join("programs");
        let config = ArenaConfig {
            wake: Some(options.wake.clone()),
            ..ArenaConfig::default()
        };
        let state = ArenaState::open(store.clone(), &db, config.clone())
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(arbiter_arena::serve(
            listener,
            state,
            std::future::pending(),
        ));
        let until = |mut stopped: tokio::sync::watch::Receiver<bool>| async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        };
        let mut ladder = LadderOptions::new(config.games.clone());
        ladder.work = Some(options.wake.clone());
        tokio::spawn(run_scheduler(store.clone(), ladder, until(stopped.clone())));
        tokio::spawn(work(store, options, until(stopped)));
        url
    });
    run_browser("arena-ladder.mjs", &url, &[]);
    let _ = stop.send(true);
    runtime.shutdown_timeout(Duration::from_secs(15));
}
