//! The web viewer: `arbiter export` and the commands' messages here, and the pages in a real
//! browser through the tests of `tests/browser/` (headless Chromium driven by playwright-core)
//! against this build of `arbiter`.
//!
//! The browser tests need Chromium and Node, which `tests/browser/run` installs when missing,
//! so they run when `ARBITER_BROWSER_TESTS=1` is set, as `scripts/test` does; otherwise
//! `browser_tests` says how to run them and passes.

use std::path::Path;
use std::process::Command;

#[test]
fn browser_tests() {
    if std::env::var_os("ARBITER_BROWSER_TESTS").is_none_or(|v| v != "1") {
        eprintln!(
            "browser tests not run: set ARBITER_BROWSER_TESTS=1 (scripts/test does) to run them"
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/run");
    let status = Command::new(&script)
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", script.display()));
    assert!(
        status.success(),
        "the browser tests failed ({status}); their output is above, screenshots in \
         test-output/browser/"
    );
}

fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .output()
        .expect("arbiter starts")
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    arbiter_testdir::fresh(name)
}

#[test]
fn export_writes_one_page_holding_the_replay_and_the_viewer() {
    let dir = temp_dir("export");
    let replay = dir.join("m.jsonl.gz");
    let played = arbiter(&[
        "play",
        "quoridor",
        "--seed",
        "3",
        "--bot",
        "builtin:runner",
        "--bot",
        "builtin:blocker",
        "--replay",
        replay.to_str().unwrap(),
    ]);
    assert!(played.status.success(), "{played:?}");
    let page = dir.join("m.html");
    let exported = arbiter(&[
        "export",
        replay.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(exported.status.success(), "{exported:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(r#"id="arbiter-replay""#));
    assert!(html.contains(r#""game":"quoridor""#));
    assert!(
        html.contains("js/replay-page.js"),
        "the modules are inlined"
    );
    assert!(!html.contains(r#"src="/js/"#) && !html.contains(r#"href="/css/"#));
}

#[test]
fn the_viewer_commands_say_what_is_wrong() {
    let dir = temp_dir("errors");
    let newer = dir.join("newer.jsonl");
    std::fs::write(
        &newer,
        r#"{"type":"header","format":{"major":3,"minor":0},"game":"quoridor","settings":{},"seed":1,"players":[]}"#
            .to_owned()
            + "\n",
    )
    .unwrap();
    let out = dir.join("x.html");
    for (args, expected) in [
        (vec!["serve"], "--db STORE, --replays DIR"),
        (vec!["serve", "--replays", "/no/such/dir"], "not a folder"),
        (vec!["view", "/no/such/replay.jsonl"], "no such replay"),
        (
            vec![
                "export",
                newer.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
            ],
            "newer than this arbiter reads",
        ),
    ] {
        let output = arbiter(&args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    assert!(
        !out.exists(),
        "nothing is written for a replay that cannot be read"
    );
}
