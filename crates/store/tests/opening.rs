//! Opening a store: from many threads at once on a new SQLite file or PostgreSQL database,
//! and files that are not stores, or damaged ones, named as such.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use arbiter_store::blocking::Store;
use arbiter_store::{Presence, StoreError};

/// A fresh folder for this test binary's files, removed when it exits.
fn scratch(name: &str) -> PathBuf {
    arbiter_testdir::fresh(name)
}

/// Opens `target` from `count` threads released at the same instant, with each presence in
/// turn; every open must succeed.
fn open_together(target: &str, count: usize) {
    let barrier = Arc::new(Barrier::new(count));
    let presences = [Presence::MayCreate, Presence::ReadOnly, Presence::MustExist];
    let threads: Vec<_> = (0..count)
        .map(|i| {
            let (barrier, target) = (Arc::clone(&barrier), target.to_owned());
            // The first opens may create; the others need the store there, but may come first.
            let presence = if i < 2 {
                Presence::MayCreate
            } else {
                presences[i % 3]
            };
            std::thread::spawn(move || {
                barrier.wait();
                match Store::open(&target, presence) {
                    Ok(store) => store.latest().map(|_| ()),
                    Err(StoreError::NoStore { .. }) if presence != Presence::MayCreate => Ok(()),
                    Err(e) => Err(e),
                }
            })
        })
        .collect();
    for (i, thread) in threads.into_iter().enumerate() {
        if let Err(e) = thread.join().unwrap() {
            panic!("open {i} of {target} failed: {e}");
        }
    }
}

#[test]
fn many_threads_open_one_new_sqlite_file_at_once() {
    let dir = scratch("together");
    for round in 0..10 {
        open_together(dir.join(format!("t{round}.db")).to_str().unwrap(), 8);
    }
}

#[test]
fn many_threads_open_one_new_postgresql_database_at_once() {
    let cluster = arbiter_pgtest::Cluster::start().unwrap();
    for round in 0..5 {
        open_together(&cluster.database(&format!("together{round}")), 8);
    }
}

/// The error of opening `path` with every presence: the same for each.
fn open_error(path: &Path) -> String {
    let target = path.to_str().unwrap();
    let errors: Vec<String> = [Presence::MayCreate, Presence::MustExist, Presence::ReadOnly]
        .into_iter()
        .map(|presence| match Store::open(target, presence) {
            Ok(_) => panic!("{target} opened with {presence:?}"),
            Err(e) => e.to_string(),
        })
        .collect();
    assert!(
        errors.iter().all(|e| *e == errors[0]),
        "one error whatever the presence: {errors:#?}"
    );
    errors[0].clone()
}

/// Every open of `path` says it is damaged.
fn assert_damaged(path: &Path) {
    let error = open_error(path);
    assert!(
        error.starts_with(&format!("{} is damaged: ", path.display())),
        "{error}"
    );
}

/// A store with a tournament in it, closed (its log folded into the file).
fn made_store(dir: &Path) -> PathBuf {
    let path = dir.join("t.db");
    let store = Store::open(path.to_str().unwrap(), Presence::MayCreate).unwrap();
    drop(store);
    path
}

#[test]
fn a_file_that_is_not_a_database_is_named() {
    let dir = scratch("text");
    let path = dir.join("notes.txt");
    std::fs::write(&path, "players: alice, bob\n").unwrap();
    let error = open_error(&path);
    assert_eq!(
        error,
        format!(
            "{} is not an Arbiter store (not a SQLite database)",
            path.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "players: alice, bob\n",
        "left as it was"
    );
    assert_eq!(
        open_error(&dir),
        format!("{} is not an Arbiter store (a folder)", dir.display())
    );
}

#[test]
fn a_sqlite_database_of_something_else_is_named() {
    let dir = scratch("foreign");
    let path = dir.join("other.db");
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        use sqlx::Connection;
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect(&url).await.unwrap();
        sqlx::query("CREATE TABLE recipes (name TEXT)")
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
    });
    let error = Store::open(path.to_str().unwrap(), Presence::MayCreate)
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "{} is not an Arbiter store (a SQLite database of something else)",
            path.display()
        )
    );
}

#[test]
fn a_truncated_store_is_damaged() {
    let dir = scratch("truncated");
    let path = made_store(&dir);
    let bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 8192, "a store of several pages");
    std::fs::write(&path, &bytes[..4096]).unwrap();
    assert_damaged(&path);
}

#[test]
fn random_bytes_after_a_valid_header_are_damaged() {
    let dir = scratch("random");
    let path = dir.join("t.db");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(b"SQLite format 3\0").unwrap();
    // A fixed pseudo-random stream: the same bytes on every run.
    let mut x: u32 = 0x9e37_79b9;
    let noise: Vec<u8> = (0..16_384)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect();
    file.write_all(&noise).unwrap();
    drop(file);
    assert_damaged(&path);
}

#[test]
fn a_damaged_page_is_named_when_the_store_is_read() {
    let dir = scratch("overwritten");
    let path = made_store(&dir);
    let mut bytes = std::fs::read(&path).unwrap();
    // Every page but the first (the schema) overwritten: the migrations table is unreadable.
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    assert_damaged(&path);
}

#[test]
fn a_read_only_open_writes_nothing() {
    let dir = scratch("read-only");
    let path = made_store(&dir);
    let before = std::fs::read(&path).unwrap();
    let store = Store::open(path.to_str().unwrap(), Presence::ReadOnly).unwrap();
    assert_eq!(store.latest().unwrap(), None);
    store.close();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );
    let error = Store::open(dir.join("none.db").to_str().unwrap(), Presence::ReadOnly)
        .err()
        .unwrap();
    assert!(matches!(error, StoreError::NoStore { .. }), "{error}");
    assert!(!dir.join("none.db").exists(), "nothing is created");
}

#[test]
fn an_empty_file_is_a_new_store() {
    let dir = scratch("empty");
    let path = dir.join("t.db");
    std::fs::write(&path, b"").unwrap();
    let store = Store::open(path.to_str().unwrap(), Presence::MustExist).unwrap();
    assert_eq!(store.latest().unwrap(), None);
}
