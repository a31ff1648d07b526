//! The Python package `arbiter` through real processes: the wheel is built from this folder's
//! pyproject.toml with pip and maturin, installed in two virtual environments made under the
//! target directory (NumPy 1.x with the original `fights` 0.9.0, and NumPy 2), and its pytest
//! suite runs in both; then the differential test against `fights` plays 1,000 random games.
//!
//! Without network for PyPI the environments cannot be made: the tests print a notice and
//! pass, except under the project's test command (`ARBITER_REQUIRE_PYPI`), where they fail.
//! `ARBITER_FIGHTS_GAMES` sets the number of differential games (default 1,000).

#[allow(dead_code)] // fights_python serves the engine's own comparison tests
#[path = "../../games/tests/common/fights_venv.rs"]
mod fights_venv;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The first environment builds the wheel (maturin without build isolation, so that no run
/// after the first needs the network) and compares with `fights`, which needs NumPy 1.x.
/// Both have PettingZoo and Gymnasium for the environments of `arbiter.pettingzoo`.
const NUMPY1: [&str; 7] = [
    "maturin>=1.5,<2",
    "numpy<2",
    "pytest",
    "msgpack",
    "fights==0.9.0",
    "pettingzoo>=1.24",
    "gymnasium",
];
const NUMPY1_PROBE: &str =
    "import maturin, numpy, pytest, msgpack, fights.envs.puoribor, pettingzoo, gymnasium";
const NUMPY2: [&str; 4] = ["numpy>=2", "pytest", "pettingzoo>=1.24", "gymnasium"];
const NUMPY2_PROBE: &str = "import numpy, pytest, pettingzoo, gymnasium; \
                            assert int(numpy.__version__.split('.')[0]) >= 2";

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn target_tmp() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// Runs `command`; panics with its output unless it succeeds.
fn run(command: &mut Command, what: &str) -> Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The wheel built from this folder, once per test process.
fn wheel(python: &Path) -> &'static Path {
    static WHEEL: OnceLock<PathBuf> = OnceLock::new();
    WHEEL.get_or_init(|| {
        let out = target_tmp().join("python-wheels");
        let _ = std::fs::remove_dir_all(&out);
        // A target directory of its own: the build runs while `cargo test` holds the
        // workspace's, and maturin's build of the extension differs from the workspace's.
        let target = target_tmp()
            .parent()
            .expect("the target directory")
            .join("python-wheel");
        // maturin's build backend runs the `maturin` of the PATH: the environment's.
        let bin = python.parent().expect("the environment's bin folder");
        let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .expect("a PATH");
        run(
            Command::new(python)
                .args(["-m", "pip", "wheel", "--quiet", "--no-deps"])
                .args(["--no-build-isolation", "--disable-pip-version-check"])
                .arg("--wheel-dir")
                .arg(&out)
                .arg(crate_dir())
                .env("CARGO_TARGET_DIR", target)
                .env("PATH", path),
            "pip wheel crates/python",
        );
        let mut wheels: Vec<PathBuf> = std::fs::read_dir(&out)
            .expect("the wheel folder")
            .map(|e| e.expect("a wheel folder entry").path())
            .collect();
        assert_eq!(wheels.len(), 1, "one wheel expected: {wheels:?}");
        let wheel = wheels.remove(0);
        let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("arbiter-") && name.contains("-abi3-"),
            "{name}"
        );
        wheel
    })
}

fn install(python: &Path, wheel: &Path) {
    run(
        Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--no-index"])
            .args(["--force-reinstall", "--disable-pip-version-check"])
            .arg(wheel),
        "pip install the wheel",
    );
}

/// The NumPy 1.x environment with the package installed from a fresh wheel.
fn numpy1_python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let python = fights_venv::venv_python("python-venv", &NUMPY1, NUMPY1_PROBE)?;
            install(&python, wheel(&python));
            Some(python)
        })
        .as_deref()
}

fn numpy2_python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let builder = numpy1_python()?;
            let python = fights_venv::venv_python("python-numpy2-venv", &NUMPY2, NUMPY2_PROBE)?;
            install(&python, wheel(builder));
            Some(python)
        })
        .as_deref()
}

fn pytest(python: &Path) -> String {
    let output = run(
        Command::new(python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(crate_dir().join("tests/python"))
            // The installed package, not the source folder, is what is tested.
            .current_dir(target_tmp()),
        "pytest",
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_pytest_suite_passes_with_numpy_1_and_fights_beside() {
    let Some(python) = numpy1_python() else {
        return;
    };
    let summary = pytest(python);
    assert!(!summary.contains("skipped"), "{summary}");
}

#[test]
fn the_pytest_suite_passes_with_numpy_2() {
    let Some(python) = numpy2_python() else {
        return;
    };
    run(
        Command::new(python).args([
            "-c",
            "import numpy, arbiter\n\
             from arbiter.compat.fights.envs import puoribor\n\
             assert numpy.__version__.startswith('2.'), numpy.__version__\n\
             env = puoribor.PuoriborEnv()\n\
             assert env.legal_actions(env.initialize_state(), 0).sum() == 3 + 2 * 64 + 36",
        ]),
        "import arbiter with NumPy 2",
    );
    pytest(python);
}

#[test]
fn the_drop_in_agrees_with_fights_on_random_games() {
    let Some(python) = numpy1_python() else {
        return;
    };
    let games: usize = std::env::var("ARBITER_FIGHTS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let helper = crate_dir().join("tests/python/fights_differential.py");
    // The original takes about a millisecond and a half per legal-action mask: two processes
    // share the games.
    let workers: Vec<_> = (0..2)
        .map(|w| {
            let share = games / 2 + usize::from(w < games % 2);
            Command::new(python)
                .arg(&helper)
                .arg(share.to_string())
                .arg((2000 + w).to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("starting the differential helper")
        })
        .collect();
    let mut total = [0u64; 4];
    for (w, child) in workers.into_iter().enumerate() {
        let output = child.wait_with_output().expect("the differential helper");
        assert!(
            output.status.success(),
            "helper {w} found a difference:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let counts: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("helper {w} printed something else: {e}"));
        for (t, key) in total.iter_mut().zip(["games", "plies", "illegal", "logs"]) {
            *t += counts[key].as_u64().expect(key);
        }
    }
    let [played, plies, illegal, logs] = total;
    assert_eq!(played, games as u64, "every game was played");
    assert!(logs >= 2.min(games as u64), "the logs were compared");
    eprintln!(
        "compared {played} games, {plies} plies, {illegal} refused actions and {logs} msgpack logs with fights 0.9.0"
    );
}
