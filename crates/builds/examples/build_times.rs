//! How long builds take, and the sandbox's share of them: the Quoridor starters of
//! examples/quoridor built as an arena builds them (C++ with g++, Python with no build), and
//! the same C++ build and an empty build command with the sandbox and without it.
//!
//! `cargo run --release -p arbiter-builds --example build_times [-- ROUNDS]` (as root, for the
//! sandbox's own users; default 5 rounds). Prints the median of each.

use std::path::Path;
use std::time::{Duration, Instant};

use arbiter_builds::{BuildLimits, Built, Languages, Source, build, remove_built};
use arbiter_sandbox::{SandboxConfig, SandboxPolicy};

const CPP: &[u8] = include_bytes!("../../../examples/quoridor/starter.cpp");
const PYTHON: &[u8] = include_bytes!("../../../examples/quoridor/starter.py");

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let work = std::env::temp_dir().join(format!("arbiter-build-times-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("a work folder");
    let file = work.join("languages.toml");
    let toml = "[language.empty]\nextensions = [\"empty\"]\nbuild = \"true\"\nrun = \"./bot\"\n";
    std::fs::write(&file, toml).expect("a languages file");
    let languages = Languages::with_file(&file).expect("the languages file");
    let sandboxed = SandboxPolicy::Required(SandboxConfig::default());
    let cases: [(&str, &str, &[u8], &SandboxPolicy); 5] = [
        ("C++ starter, sandbox", "starter.cpp", CPP, &sandboxed),
        (
            "C++ starter, no sandbox",
            "starter.cpp",
            CPP,
            &SandboxPolicy::Off,
        ),
        ("Python starter, sandbox", "starter.py", PYTHON, &sandboxed),
        ("empty build command, sandbox", "bot.empty", b"", &sandboxed),
        (
            "empty build command, no sandbox",
            "bot.empty",
            b"",
            &SandboxPolicy::Off,
        ),
    ];
    println!("median of {rounds} rounds: the whole build() / the build command alone");
    for (label, name, bytes, sandbox) in cases {
        let mut whole = Vec::new();
        let mut command = Vec::new();
        for _ in 0..rounds {
            let (total, took) = time_build(name, bytes, &languages, sandbox, &work);
            whole.push(total);
            command.extend(took);
        }
        let command = match command.is_empty() {
            true => "-".to_owned(),
            false => ms(median(command)),
        };
        println!("{label:<34} {:>10} {:>10}", ms(median(whole)), command);
    }
    let _ = std::fs::remove_dir_all(&work);
}

fn time_build(
    name: &str,
    bytes: &[u8],
    languages: &Languages,
    sandbox: &SandboxPolicy,
    work: &Path,
) -> (Duration, Option<Duration>) {
    let started = Instant::now();
    let source = Source::File { name, bytes };
    let built = build(source, languages, &BuildLimits::default(), sandbox, work)
        .unwrap_or_else(|e| panic!("building {name}: {e}"));
    let total = started.elapsed();
    match built {
        Built::Ok { folder, took, .. } => {
            remove_built(&folder);
            (total, took)
        }
        Built::Failed { reason, log } => panic!("{name} did not build: {reason}\n{log}"),
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(time: Duration) -> String {
    format!("{:.1} ms", time.as_secs_f64() * 1000.0)
}
