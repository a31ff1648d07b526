//! The web viewer in a real browser: runs the browser tests of `tests/browser/` (headless
//! Chromium driven by playwright-core) against this build of `arbiter`.
//!
//! They need Chromium and Node, which `tests/browser/run` installs when missing, so they run
//! when `ARBITER_BROWSER_TESTS=1` is set, as `scripts/test` does; otherwise this test says how
//! to run them and passes.

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
