//! The root goes with the process that made it, also when a test of it fails.

use std::path::PathBuf;
use std::process::Command;

/// Set in the copy of this test that the test runs: it makes a folder and fails.
const CHILD: &str = "ARBITER_TESTDIR_FAILING_CHILD";

#[test]
fn a_test_process_that_fails_leaves_no_scratch_folder() {
    if std::env::var_os(CHILD).is_some() {
        let dir = arbiter_testdir::fresh("kept-until-exit");
        std::fs::write(dir.join("file"), "x").unwrap();
        println!("ROOT {}", arbiter_testdir::root().display());
        panic!("this test fails on purpose, holding {}", dir.display());
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_test_process_that_fails_leaves_no_scratch_folder",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(101), "the child fails: {stdout}");
    let root = stdout
        .lines()
        // The test harness writes the test's name on the same line first.
        .find_map(|l| l.split_once("ROOT ").map(|(_, root)| root.trim()))
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("the child names its root: {stdout}"));
    assert!(
        !root.exists(),
        "{} is left after the failed test process exited",
        root.display()
    );
}
