//! A bot writing 100 MB to stderr costs the referee no more than the log cap. In a test binary
//! of its own, so that the peak memory measured is this match's alone.

mod common;

use arbiter_referee::LOG_TRIMMED;
use common::*;

/// Peak resident memory of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

#[test]
fn a_hundred_megabytes_of_stderr_cost_no_memory() {
    let before = peak_rss_kib();
    let (report, replay) = play(
        vec![walker(&[]), walker(&["--flood-mb", "100"])],
        &config(),
        "flood",
    );
    let after = peak_rss_kib();
    assert!(
        after < before + 30 * 1024,
        "peak RSS grew from {before} KiB to {after} KiB"
    );
    assert_eq!(report.bots[1].errors, 0);
    assert!(!report.bots[1].crashed);
    let logs: Vec<&str> = replay
        .ticks
        .iter()
        .map(|t| t.bots[1].log.as_str())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!logs.is_empty());
    for log in &logs {
        assert!(
            log.chars().count() <= 2000 + LOG_TRIMMED.len(),
            "{}",
            log.len()
        );
    }
    assert!(logs[0].ends_with(LOG_TRIMMED));
}
