//! The ratio, bounds and estimates of `arbiter-sprt` against `reference.py`, an independent
//! computation from the published formulas (Python's standard library only), run live.

use std::io::Write;
use std::process::{Command, Stdio};

use arbiter_sprt::{Estimate, Model, Pentanomial, Sprt};
use serde_json::{Value, json};

/// Pentanomial counts from the first pairs to long runs, lopsided and balanced, with empty
/// cells, one cell only, and none.
const TABLE: &[[u64; 5]] = &[
    [0, 0, 0, 0, 0],
    [0, 0, 1, 0, 0],
    [0, 0, 0, 0, 4],
    [3, 0, 0, 0, 0],
    [0, 0, 50, 0, 0],
    [1, 2, 3, 2, 1],
    [10, 30, 60, 35, 12],
    [120, 800, 2200, 850, 130],
    [0, 1, 5, 20, 30],
    [30, 20, 5, 1, 0],
    [500, 0, 0, 0, 510],
    [2, 0, 40, 0, 3],
    [1450, 9022, 16800, 9133, 1503],
    [0, 7, 0, 9, 0],
];

/// (elo0, elo1, alpha, beta) of the tests compared.
const TESTS: &[(f64, f64, f64, f64)] = &[
    (0.0, 10.0, 0.05, 0.05),
    (0.0, 2.0, 0.05, 0.05),
    (-3.0, 1.0, 0.1, 0.02),
    (0.5, 2.5, 0.05, 0.05),
];

fn reference(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Vec<Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let query = json!({"alpha": alpha, "beta": beta, "elo0": elo0, "elo1": elo1, "counts": TABLE});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(query.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "reference.py failed");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn close(what: &str, counts: &[u64; 5], ours: f64, theirs: &Value) {
    let theirs = theirs
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: {theirs}"));
    assert!(
        (ours - theirs).abs() <= 1e-6,
        "{what} of {counts:?}: {ours} here, {theirs} by reference.py"
    );
}

#[test]
fn ratio_bounds_and_estimate_equal_the_reference_computation() {
    for &(elo0, elo1, alpha, beta) in TESTS {
        let expected = reference(elo0, elo1, alpha, beta);
        assert_eq!(expected.len(), TABLE.len());
        let normalized = Sprt::new(elo0, elo1, alpha, beta, Model::Normalized).unwrap();
        let logistic = Sprt {
            model: Model::Logistic,
            ..normalized
        };
        for (counts, want) in TABLE.iter().zip(&expected) {
            let p = Pentanomial(*counts);
            close(
                "normalized LLR",
                counts,
                normalized.llr(&p),
                &want["llr_normalized"],
            );
            close(
                "logistic LLR",
                counts,
                logistic.llr(&p),
                &want["llr_logistic"],
            );
            let (lower, upper) = normalized.bounds();
            close("lower bound", counts, lower, &want["lower_bound"]);
            close("upper bound", counts, upper, &want["upper_bound"]);
            let e = Estimate::of(&p);
            close("Elo", counts, e.elo, &want["elo"]);
            close("Elo error", counts, e.elo_error95, &want["elo_error95"]);
            close("LOS", counts, e.los, &want["los"]);
        }
    }
}

/// A few values pinned as well, so that a change made to both implementations at once is seen.
#[test]
fn pinned_values_stay() {
    let sprt = Sprt::new(0.0, 10.0, 0.05, 0.05, Model::Normalized).unwrap();
    let counts = Pentanomial([10, 30, 60, 35, 12]);
    assert!((sprt.llr(&counts) - 0.237_276_965_694_883_77).abs() < 1e-9);
    let logistic = Sprt {
        model: Model::Logistic,
        ..sprt
    };
    assert!((logistic.llr(&counts) - 0.263_925_053_440_244_6).abs() < 1e-9);
    let e = Estimate::of(&counts);
    assert!((e.elo - 10.639_107_397_517_892).abs() < 1e-9);
    assert!((e.elo_error95 - 28.690_152_001_000_73).abs() < 1e-9);
    assert!((e.los - 0.766_974_896_140_226_3).abs() < 1e-9);
}
