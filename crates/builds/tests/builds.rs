//! Builds and checks of real bots, in the real sandbox, with the real compilers: one Quoridor
//! bot per default language, a file that does not compile, a build that never ends, a bot that
//! crashes at its first turn, and a Java player folder handed in as a zip.
//!
//! A compiler that is missing fails its test with the way to install it (scripts/setup): no
//! test is skipped silently.

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use arbiter_builds::{
    BuildLimits, Built, CheckOutcome, FOLDER_LANGUAGE, Languages, Source, build, check, showing,
};
use arbiter_sandbox::{SandboxConfig, SandboxPolicy};

const CPP_STARTER: &[u8] = include_bytes!("../../../examples/quoridor/starter.cpp");
const PYTHON_STARTER: &[u8] = include_bytes!("../../../examples/quoridor/starter.py");

/// The sandbox every build and check here runs in: required, so that a machine without one
/// fails the tests rather than running the bots unconfined.
fn sandbox() -> SandboxPolicy {
    SandboxPolicy::Required(SandboxConfig::default())
}

/// Fails the test, saying how to install it, when `program` is not on `PATH`.
fn need(program: &str) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).any(|folder| folder.join(program).is_file());
    assert!(
        found,
        "`{program}` is not installed: run scripts/setup, which installs every compiler the \
         arena's default languages need"
    );
}

/// Builds one source file in a fresh work folder.
fn build_file(test: &str, name: &str, bytes: &[u8], languages: &Languages) -> Built {
    let work = arbiter_testdir::fresh(test);
    let limits = BuildLimits::default();
    build(
        Source::File { name, bytes },
        languages,
        &limits,
        &sandbox(),
        &work,
    )
    .unwrap_or_else(|e| panic!("building {name}: {e}"))
}

/// The check of a built version, shown its language's toolchains.
fn check_built(folder: &Path, language: &str, languages: &Languages) -> CheckOutcome {
    let policy = showing(&sandbox(), &languages.toolchains_for(language));
    check("quoridor", &serde_json::json!({}), folder, &policy)
        .unwrap_or_else(|e| panic!("checking {}: {e}", folder.display()))
}

/// Builds `name`, which must build, and checks it, which it must pass; returns the build log.
fn builds_and_passes(test: &str, name: &str, bytes: &[u8], language: &str) -> String {
    let languages = Languages::defaults();
    let built = build_file(test, name, bytes, &languages);
    let Built::Ok {
        folder,
        program,
        log,
        language: built_as,
        took,
    } = built
    else {
        panic!("{name} did not build: {built:?}");
    };
    assert_eq!(built_as, language);
    assert_eq!(program.hash.len(), 64);
    let info = std::fs::read_to_string(folder.join("info.txt")).unwrap();
    let run = languages.get(language).unwrap().run_command(name);
    assert!(info.ends_with(&format!("\n{run}\n")), "{info}");
    if let Some(took) = took {
        eprintln!("{name}: built in {:.2} s", took.as_secs_f64());
    }
    let started = std::time::Instant::now();
    let outcome = check_built(&folder, language, &languages);
    eprintln!(
        "{name}: checked in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        outcome.passed,
        "{name} failed its check: {:?}",
        outcome.reason
    );
    assert_eq!(outcome.reason, None);
    let labels: Vec<&str> = outcome.replays.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "against random, as player 0",
            "against random, as player 1",
            "against itself"
        ]
    );
    for replay in &outcome.replays {
        let text = gunzip(&replay.jsonl_gz);
        assert!(text.lines().count() > 2, "{}: {text}", replay.label);
        assert!(
            !text.contains("\"error\":\""),
            "{}: a fault in {text}",
            replay.label
        );
    }
    log
}

fn gunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .expect("a gzip replay");
    text
}

fn bot(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_cpp_bot_is_built_with_gpp_and_passes_its_check() {
    need("g++");
    builds_and_passes("cpp", "starter.cpp", CPP_STARTER, "c++");
}

#[test]
fn a_python_bot_needs_no_build_and_passes_its_check() {
    need("python3");
    let log = builds_and_passes("python", "starter.py", PYTHON_STARTER, "python3");
    assert_eq!(log, "");
}

#[test]
fn a_java_bot_is_compiled_and_run_by_its_class_name() {
    need("javac");
    builds_and_passes("java", "Bot.java", &bot("Bot.java"), "java");
}

#[test]
fn a_rust_bot_is_built_with_the_machines_rustup_shown_to_the_sandbox() {
    need("rustc");
    builds_and_passes("rust", "bot.rs", &bot("bot.rs"), "rust");
}

#[test]
fn a_go_bot_is_built_with_its_caches_in_the_builds_own_tmp() {
    need("go");
    builds_and_passes("go", "bot.go", &bot("bot.go"), "go");
}

#[test]
fn a_javascript_bot_runs_with_node() {
    need("node");
    builds_and_passes("javascript", "bot.js", &bot("bot.js"), "javascript");
}

#[test]
fn a_cpp_file_that_does_not_compile_fails_with_the_compilers_error() {
    need("g++");
    let source = b"int main() { return undeclared_thing; }\n";
    let built = build_file("no-compile", "broken.cpp", source, &Languages::defaults());
    let Built::Failed { log, reason } = built else {
        panic!("a broken file built: {built:?}");
    };
    assert_eq!(reason, "g++ exited with status 1");
    assert!(log.contains("undeclared_thing"), "{log}");
    assert!(log.contains("error"), "{log}");
}

#[test]
fn a_file_of_no_language_fails_with_the_languages_offered() {
    let built = build_file(
        "no-language",
        "bot.kt",
        b"fun main() {}",
        &Languages::defaults(),
    );
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    assert!(
        reason.contains(".kt") && reason.contains("c++ (.cpp .cc .cxx)"),
        "{reason}"
    );
}

#[test]
fn a_build_that_never_ends_is_killed_at_its_time_limit() {
    let work = arbiter_testdir::fresh("for-ever");
    let file = work.join("languages.toml");
    // A language of the operator's whose build leaves a process behind and loops.
    let toml = "[language.forever]\nextensions = [\"loop\"]\n\
                build = \"sleep 1000 & while :; do :; done\"\nrun = \"./bot\"\n";
    std::fs::write(&file, toml).unwrap();
    let languages = Languages::with_file(&file).unwrap();
    let limits = BuildLimits {
        time: Duration::from_secs(2),
        ..BuildLimits::default()
    };
    let source = Source::File {
        name: "bot.loop",
        bytes: b"",
    };
    let built = build(source, &languages, &limits, &sandbox(), &work.join("work")).unwrap();
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    assert_eq!(reason, "the build took longer than 2 s");
    let left = std::fs::read_dir(work.join("work")).unwrap().count();
    assert_eq!(left, 0, "a failed build leaves no folder behind");
}

#[test]
fn a_bot_that_crashes_at_its_first_turn_fails_its_check_with_the_replay_kept() {
    need("python3");
    let languages = Languages::defaults();
    let built = build_file("crash", "crash.py", &bot("crash.py"), &languages);
    let Built::Ok { folder, .. } = built else {
        panic!("{built:?}");
    };
    let outcome = check_built(&folder, "python3", &languages);
    assert!(!outcome.passed);
    let reason = outcome.reason.unwrap();
    assert!(
        reason.starts_with("crashed against random, as player 0, at turn 1"),
        "{reason}"
    );
    assert!(reason.contains("no idea what to do at tick 1"), "{reason}");
    assert_eq!(
        outcome.replays.len(),
        1,
        "the check stops at the first failure"
    );
    let replay = gunzip(&outcome.replays[0].jsonl_gz);
    assert!(replay.contains("RuntimeError"), "{replay}");
}

/// A zip of a player folder, its files under one top folder as people zip them.
fn zip_folder(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, bytes) in files {
        zip.start_file(format!("mybot/{name}"), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn a_java_player_folder_handed_in_as_a_zip_is_built_by_its_build_sh_and_passes() {
    need("javac");
    let archive = zip_folder(&[
        ("Bot.java", &bot("Bot.java")),
        ("info.txt", b"mybot\nA Java bot\njava -cp classes Bot\n"),
        ("build.sh", b"mkdir -p classes\njavac -d classes Bot.java\n"),
    ]);
    let work = arbiter_testdir::fresh("java-zip");
    let languages = Languages::defaults();
    let source = Source::Archive {
        name: "mybot.zip",
        bytes: &archive,
    };
    let built = build(
        source,
        &languages,
        &BuildLimits::default(),
        &sandbox(),
        &work,
    )
    .unwrap();
    let Built::Ok {
        folder, language, ..
    } = built
    else {
        panic!("{built:?}");
    };
    assert_eq!(language, FOLDER_LANGUAGE);
    assert!(folder.join("classes/Bot.class").is_file());
    let outcome = check_built(&folder, &language, &languages);
    assert!(outcome.passed, "{:?}", outcome.reason);
}

#[test]
fn a_player_folder_without_info_txt_fails_with_the_reason() {
    let archive = zip_folder(&[("bot.py", b"print('hi')\n")]);
    let work = arbiter_testdir::fresh("no-info");
    let source = Source::Archive {
        name: "bot.zip",
        bytes: &archive,
    };
    let languages = Languages::defaults();
    let built = build(
        source,
        &languages,
        &BuildLimits::default(),
        &sandbox(),
        &work,
    )
    .unwrap();
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    assert!(reason.contains("no info.txt"), "{reason}");
    assert!(!reason.contains(&*work.to_string_lossy()), "{reason}");
}

/// A `.tar.gz` of a player folder, its files at the top.
fn tar_gz(files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (name, bytes, mode) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(*mode);
        header.set_cksum();
        tar.append_data(&mut header, name, *bytes).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap()
}

#[test]
fn a_cpp_player_folder_handed_in_as_a_tar_gz_is_built_and_passes() {
    need("g++");
    let archive = tar_gz(&[
        ("src/main.cpp", CPP_STARTER, 0o644),
        ("info.txt", b"cpp\nC++ from a folder\n./build/bot\n", 0o644),
        (
            "build.sh",
            b"set -e\nmkdir -p build\ng++ -O2 -std=c++17 -o build/bot src/main.cpp\n",
            0o755,
        ),
    ]);
    let work = arbiter_testdir::fresh("cpp-tgz");
    let languages = Languages::defaults();
    let source = Source::of_upload("bot.tgz", &archive);
    let built = build(
        source,
        &languages,
        &BuildLimits::default(),
        &sandbox(),
        &work,
    )
    .unwrap();
    let Built::Ok { folder, .. } = built else {
        panic!("{built:?}");
    };
    let outcome = check_built(&folder, FOLDER_LANGUAGE, &languages);
    assert!(outcome.passed, "{:?}", outcome.reason);
}

#[test]
fn a_hostile_archive_is_refused_with_the_reason_and_nothing_written_outside() {
    let work = arbiter_testdir::fresh("hostile");
    let archive = zip_folder(&[("../../escaped.txt", b"out\n"), ("info.txt", b"x\ny\nz\n")]);
    let source = Source::of_upload("evil.zip", &archive);
    let languages = Languages::defaults();
    let built = build(
        source,
        &languages,
        &BuildLimits::default(),
        &sandbox(),
        &work,
    )
    .unwrap();
    let Built::Failed { reason, .. } = built else {
        panic!("{built:?}");
    };
    assert!(
        reason.starts_with("the archive cannot be unpacked"),
        "{reason}"
    );
    assert!(reason.contains(".."), "{reason}");
    assert!(!work.join("escaped.txt").exists());
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

#[test]
fn a_build_sh_that_fails_names_itself_in_the_reason() {
    let archive = zip_folder(&[
        ("info.txt", b"x\ny\n./bot\n"),
        ("build.sh", b"echo compiling; exit 2\n"),
    ]);
    let work = arbiter_testdir::fresh("build-sh-fails");
    let source = Source::of_upload("bot.zip", &archive);
    let languages = Languages::defaults();
    let built = build(
        source,
        &languages,
        &BuildLimits::default(),
        &sandbox(),
        &work,
    )
    .unwrap();
    let Built::Failed { reason, log } = built else {
        panic!("{built:?}");
    };
    assert_eq!(reason, "build.sh exited with status 2");
    assert_eq!(log, "compiling\n");
}

#[test]
fn the_python_starter_of_every_game_passes_its_check() {
    need("python3");
    let languages = Languages::defaults();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for game in ["quoridor", "puoribor", "domino", "labyrinth"] {
        let source = std::fs::read(examples.join(game).join("starter.py")).unwrap();
        let built = build_file(
            &format!("starter-{game}"),
            "starter.py",
            &source,
            &languages,
        );
        let Built::Ok { folder, .. } = built else {
            panic!("{game}: {built:?}");
        };
        let started = std::time::Instant::now();
        let outcome = check(game, &serde_json::json!({}), &folder, &sandbox()).unwrap();
        assert!(outcome.passed, "{game}: {:?}", outcome.reason);
        let robot = arbiter_builds::check_robot(game).unwrap();
        assert!(outcome.replays[0].label.contains(robot), "{game}");
        eprintln!(
            "{game}: checked against {robot} in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
}

#[test]
fn a_check_of_a_game_that_does_not_exist_or_of_bad_settings_is_arbiters_error() {
    let folder = arbiter_testdir::fresh("no-game");
    let error = check("chess", &serde_json::json!({}), &folder, &sandbox()).unwrap_err();
    assert!(error.to_string().contains("quoridor"), "{error}");
    let settings = serde_json::json!({"board": 4});
    let error = check("quoridor", &settings, &folder, &sandbox()).unwrap_err();
    assert!(
        error.to_string().starts_with("the settings of quoridor"),
        "{error}"
    );
}
