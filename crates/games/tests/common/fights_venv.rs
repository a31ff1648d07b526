//! A Python with the original Puoribor environment (`fights`, NumPy 1.x) and `msgpack`, in a
//! virtual environment made once under the target directory and shared by every test that
//! needs it; and [`venv_python`], which makes such environments with other packages.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The packages, pinned as the spec says: the compiled part of `fights` needs NumPy 1.x.
const PACKAGES: [&str; 3] = ["fights==0.9.0", "numpy<2", "msgpack"];

/// The venv's `python`, or `None` after printing why there is none (no `python3`, or no way
/// to reach PyPI): the tests using it then skip rather than fail on an offline machine.
pub fn fights_python() -> Option<PathBuf> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            venv_python(
                "fights-venv",
                &PACKAGES,
                "import fights.envs.puoribor, msgpack, numpy",
            )
        })
        .clone()
}

/// The `python` of the virtual environment `name` under the target directory, made with
/// `packages` from PyPI unless `probe` (Python code importing them) already runs in it; or
/// `None` after printing why there is none (no `python3`, or no way to reach PyPI). Made once
/// per caller: keep the result.
pub fn venv_python(name: &str, packages: &[&str], probe: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    match make_venv(&dir, packages, probe) {
        Ok(python) => Some(python),
        // The project's test command sets ARBITER_REQUIRE_PYPI: there, a comparison that
        // cannot run is a failure, not a notice nobody reads.
        Err(why) if std::env::var_os("ARBITER_REQUIRE_PYPI").is_some() => {
            panic!("the Python of {name} cannot be made: {why}")
        }
        Err(why) => {
            eprintln!("NOTICE: skipping the tests that need the Python of {name}: {why}");
            None
        }
    }
}

fn works(python: &Path, probe: &str) -> bool {
    Command::new(python)
        .args(["-c", probe])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn make_venv(dir: &Path, packages: &[&str], probe: &str) -> Result<PathBuf, String> {
    let python = dir.join("bin/python");
    if works(&python, probe) {
        return Ok(python);
    }
    // Built beside the final place and renamed into it, so that test binaries running at the
    // same time never see a half-made environment.
    let partial = dir.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    let run = |command: &mut Command, what: &str| -> Result<(), String> {
        let output = command
            .output()
            .map_err(|e| format!("cannot run {what}: {e}"))?;
        if output.status.success() {
            Ok(())
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last: Vec<&str> = stderr.lines().rev().take(3).collect();
            Err(format!("{what} failed: {}", last.join(" / ")))
        }
    };
    run(
        Command::new("python3").args(["-m", "venv"]).arg(&partial),
        "python3 -m venv",
    )?;
    let installed = run(
        Command::new(partial.join("bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--retries",
                "1",
                "--timeout",
                "20",
            ])
            .args(packages),
        "pip install (is PyPI reachable?)",
    );
    if let Err(why) = installed {
        let _ = std::fs::remove_dir_all(&partial);
        return Err(why);
    }
    if dir.exists() && !works(&python, probe) {
        // Left by an interrupted run.
        let _ = std::fs::remove_dir_all(dir);
    }
    if std::fs::rename(&partial, dir).is_err() {
        // Another test binary finished first.
        let _ = std::fs::remove_dir_all(&partial);
    }
    if works(&python, probe) {
        Ok(python)
    } else {
        Err(format!("{} cannot run {probe:?}", python.display()))
    }
}
