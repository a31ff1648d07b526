//! Opening the tournament store from whole processes: many at once on a new store (SQLite and
//! PostgreSQL), commands that only read working on a store they cannot write, files that are
//! not stores or are damaged named at once, and servers that do not create a store.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use common::{arbiter, failure, run, temp_dir};

/// The start of every tournament run here.
const RUN: [&str; 6] = [
    "tournament",
    "run",
    "--game",
    "quoridor",
    "--add",
    "builtin:runner",
];

/// A short tournament of two robots on `db`; the replays of a PostgreSQL store go to a
/// scratch folder.
fn tournament_run(db: &str) -> Command {
    let mut command = arbiter();
    command
        .args(RUN)
        .args([
            "--add",
            "builtin:random",
            "--rounds",
            "1",
            "--seed",
            "1",
            "--jobs",
            "1",
        ])
        .args(["--db", db]);
    if db.starts_with("postgres://") {
        let name = db.rsplit('/').next().unwrap_or("postgres");
        command
            .arg("--replays")
            .arg(temp_dir(&format!("replays-{name}")));
    }
    command
}

/// What a reader started with the run may find: the store, or none yet.
const NOT_YET: [&str; 2] = ["there is no store", "holds no tournament yet"];

/// Starts a run and seven readers on the new store `db` at once: the run succeeds and every
/// reader either reads the store or finds none yet — never half-made tables.
fn run_with_readers(db: &str) {
    let mut run = tournament_run(db).stderr(Stdio::piped()).spawn().unwrap();
    let readers: Vec<Child> = (0..7)
        .map(|i| {
            let command = ["matches", "standings"][i % 2];
            arbiter()
                .args(["tournament", command, "--db", db])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for reader in readers {
        let output = reader.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() || NOT_YET.iter().any(|s| stderr.contains(s)),
            "a reader of {db} failed: {stderr}"
        );
    }
    let mut stderr = String::new();
    run.stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(run.wait().unwrap().success(), "the run on {db}: {stderr}");
}

#[test]
fn a_run_and_readers_open_one_new_sqlite_store_at_once() {
    let dir = temp_dir("together");
    for round in 0..6 {
        let db = dir.join(format!("t{round}.db"));
        run_with_readers(db.to_str().unwrap());
        let matches = run(arbiter().args(["tournament", "matches", "--db"]).arg(&db));
        assert_eq!(String::from_utf8_lossy(&matches.stdout).lines().count(), 2);
    }
}

#[test]
fn a_run_and_readers_open_one_new_postgresql_store_at_once() {
    let cluster = arbiter_pgtest::Cluster::start().unwrap();
    for round in 0..3 {
        let db = cluster.database(&format!("together{round}"));
        run_with_readers(&db);
        let matches = run(arbiter().args(["tournament", "matches", "--db", &db]));
        assert_eq!(String::from_utf8_lossy(&matches.stdout).lines().count(), 2);
    }
}

/// Whether this process is root, who may write any file: read-only files are then tested
/// through a child running as `nobody`.
fn is_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// `arbiter ARGS` as a user who cannot write what root made read-only.
fn unprivileged(args: &[&str]) -> Command {
    if is_root() {
        let mut command = Command::new("setpriv");
        command
            .args([
                "--reuid",
                "65534",
                "--regid",
                "65534",
                "--clear-groups",
                "--",
            ])
            .arg(env!("CARGO_BIN_EXE_arbiter"))
            .args(args);
        command
    } else {
        let mut command = arbiter();
        command.args(args);
        command
    }
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn commands_that_read_work_on_a_store_they_cannot_write() {
    let dir = temp_dir("read-only");
    let folder = dir.join("archive");
    std::fs::create_dir(&folder).unwrap();
    let db = folder.join("t.db");
    let db = db.to_str().unwrap();
    run(&mut tournament_run(db));
    let written = run(arbiter().args(["tournament", "standings", "--db", db])).stdout;
    set_mode(Path::new(db), 0o444);
    set_mode(&folder, 0o555);
    let standings = run(&mut unprivileged(&["tournament", "standings", "--db", db]));
    assert_eq!(standings.stdout, written, "the same standings");
    let matches = run(&mut unprivileged(&["tournament", "matches", "--db", db]));
    assert_eq!(String::from_utf8_lossy(&matches.stdout).lines().count(), 2);
    let resume = failure(&mut unprivileged(&["tournament", "resume", "--db", db]));
    assert!(
        resume.contains(&format!(
            "{db} cannot be written (a read-only file, folder or disk), and this command \
             changes the store"
        )),
        "{resume}"
    );
    serve_and_list(unprivileged(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--db",
        db,
    ]));
    set_mode(&folder, 0o755);
}

/// Starts `arbiter serve` and asks it for its tournaments: tournament 1 is there.
fn serve_and_list(mut command: Command) {
    let mut server = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let answer = (|| {
        let mut stream = std::net::TcpStream::connect(address).ok()?;
        write!(
            stream,
            "GET /api/tournaments HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .ok()?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer).ok()?;
        Some(answer)
    })();
    let _ = server.kill();
    let output = server.wait_with_output().unwrap();
    let answer = answer.unwrap_or_else(|| {
        panic!(
            "the server at {line:?} did not answer: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"quoridor\""), "{answer}");
}

#[test]
fn a_server_shows_a_store_and_does_not_create_one() {
    let dir = temp_dir("serve");
    let db = dir.join("t.db");
    let db = db.to_str().unwrap();
    for server in [&["serve"][..], &["web"]] {
        let error = failure(arbiter().args(server).args(["--db", db]));
        assert!(
            error.contains(&format!("there is no store {db}")),
            "{error}"
        );
        assert!(!Path::new(db).exists(), "{server:?} created nothing");
    }
    run(&mut tournament_run(db));
    let mut serve = arbiter();
    serve.args(["serve", "--listen", "127.0.0.1:0", "--db", db]);
    serve_and_list(serve);
}

#[test]
fn files_that_are_not_stores_or_are_damaged_are_named() {
    let dir = temp_dir("damaged");
    let text = dir.join("players.txt");
    std::fs::write(&text, "alice\nbob\n").unwrap();
    let db = dir.join("t.db");
    run(&mut tournament_run(db.to_str().unwrap()));
    // Folded into the file, then cut to its first page.
    run(arbiter().args(["tournament", "resume", "--db"]).arg(&db));
    let _ = std::fs::remove_file(dir.join("t.db-wal"));
    let bytes = std::fs::read(&db).unwrap();
    std::fs::write(&db, &bytes[..4096.min(bytes.len() / 2)]).unwrap();
    for command in [
        &["tournament", "standings"][..],
        &["tournament", "matches"],
        &["tournament", "resume"],
        &RUN,
        &["serve"],
    ] {
        let error = failure(arbiter().args(command).arg("--db").arg(&text));
        assert!(
            error.contains(&format!(
                "{} is not an Arbiter store (not a SQLite database)",
                text.display()
            )),
            "{command:?}: {error}"
        );
        let error = failure(arbiter().args(command).arg("--db").arg(&db));
        assert!(
            error.contains(&format!("{} is damaged: ", db.display())),
            "{command:?}: {error}"
        );
    }
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "alice\nbob\n");
}
