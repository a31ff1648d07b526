//! Opening the database, the one way every store does it: the target read as a URL or a
//! SQLite file, SQLite's pragmas, the migrations under a lock.
//!
//! The first connection is made directly, not through the pool, so that what goes wrong —
//! a file that is not a store, a damaged one, one that cannot be written — is said at once:
//! a pool retries a failing connection silently until its acquire timeout.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sqlx::any::AnyPoolOptions;
use sqlx::migrate::{Migrate, MigrateError};
use sqlx::{AnyConnection, AnyPool, Connection, Executor, Row};

use crate::StoreError;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// How long a connection waits for another process's lock (SQLite).
const BUSY_TIMEOUT_MS: u64 = 10_000;

/// How long a command that reads waits for a store being created to get its tables.
const CREATION_WAIT: Duration = Duration::from_secs(5);

/// An open, migrated database.
pub(crate) struct Database {
    pub(crate) pool: AnyPool,
    /// The database file, for SQLite; replays go next to it.
    pub(crate) file: Option<PathBuf>,
}

/// Whether opening a store may create it, and whether it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// A SQLite file that does not exist is created, with its folder (a run, a server).
    MayCreate,
    /// The store must be there already and is written (commands that continue a tournament):
    /// nothing is created where there is none, and a store that cannot be written is said so
    /// ([`StoreError::ReadOnly`]).
    MustExist,
    /// The store must be there already and is only read (standings, matches, the web
    /// server): it works on a file, folder or disk that cannot be written. A store whose
    /// tables are older than this Arbiter is brought up to date if it can be written, else
    /// refused ([`StoreError::Outdated`]).
    ReadOnly,
}

/// Connects to the store at `target` (a PostgreSQL URL, a `sqlite:` URL, or the path of a
/// SQLite file, created with its folder if missing and `presence` allows it) and migrates it.
/// Tournaments and the game server share the database and this setup.
pub(crate) async fn connect(target: &str, presence: Presence) -> Result<Database, StoreError> {
    // One connection is enough — a single coordinator writes, one result at a time.
    connect_with(target, presence, 1).await
}

/// [`connect`] with up to `connections` connections to PostgreSQL, for a store that serves
/// many callers at once (the arena's web server). SQLite always gets one: its writers take
/// turns on one lock anyway, and a second connection's transaction that reads before it
/// writes would be refused rather than wait ("database is locked").
pub(crate) async fn connect_with(
    target: &str,
    presence: Presence,
    connections: u32,
) -> Result<Database, StoreError> {
    sqlx::any::install_default_drivers();
    let file = locate(target, presence)?;
    let writable = presence != Presence::ReadOnly;
    let url = if writable {
        let url = url_of(target, file.as_deref(), presence, false);
        let mut conn = first_connection(target, &url, true).await?;
        migrate(&mut conn, target, file.as_deref()).await?;
        let _ = conn.close().await;
        url
    } else {
        match open_read_only(target, file.as_deref()).await? {
            Some(url) => url,
            None => return Box::pin(upgrade(target, connections)).await,
        }
    };
    let connections = if file.is_some() || target.starts_with("sqlite:") {
        1
    } else {
        connections.max(1)
    };
    let pool = AnyPoolOptions::new()
        .max_connections(connections)
        .after_connect(move |conn, _| Box::pin(async move { prepare(conn, writable).await }))
        .connect(&url)
        .await
        .map_err(|source| classify(target, source))?;
    Ok(Database { pool, file })
}

/// The SQLite file `target` names, if it names one: checked to be there (unless it may be
/// created, then with its folder) and to be a SQLite database.
fn locate(target: &str, presence: Presence) -> Result<Option<PathBuf>, StoreError> {
    if ["postgres://", "postgresql://", "sqlite:"]
        .iter()
        .any(|scheme| target.starts_with(scheme))
    {
        return Ok(None);
    }
    let path = std::path::absolute(target).unwrap_or_else(|_| PathBuf::from(target));
    if path.exists() {
        // Only the first time: see `LOOKED_AT`.
        let writable = presence != Presence::ReadOnly;
        if !looked_at(&path, writable) {
            check_header(&path)?;
            if writable {
                check_writable(&path)?;
            }
            remember_look(&path, writable);
        }
    } else if presence == Presence::MayCreate {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(StoreError::io(format!("creating {}", dir.display())))?;
        }
    } else {
        return Err(StoreError::NoStore { path });
    }
    Ok(Some(path))
}

/// Refuses a file that is not a SQLite database; an empty one is a store being created.
fn check_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let not_a_store = |what| StoreError::NotAStore {
        path: path.to_owned(),
        what,
    };
    if path.is_dir() {
        return Err(not_a_store("a folder"));
    }
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    std::fs::File::open(path)
        .and_then(|f| f.take(SQLITE_HEADER.len() as u64).read_to_end(&mut head))
        .map_err(StoreError::io(format!("reading {}", path.display())))?;
    if head.is_empty() || head == SQLITE_HEADER {
        Ok(())
    } else {
        Err(not_a_store("not a SQLite database"))
    }
}

/// Refuses a file this process cannot write, for a command that writes the store: SQLite
/// would open it read-only without a word and refuse the first result.
fn check_writable(path: &Path) -> Result<(), StoreError> {
    // Opening for writing changes nothing; it is refused as SQLite's own open would be.
    match std::fs::OpenOptions::new().write(true).open(path) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Err(StoreError::ReadOnly {
                target: path.display().to_string(),
            })
        }
        _ => Ok(()),
    }
}

/// The store files (device and inode) this process has looked at before connecting to them.
/// Each is looked at (opened and closed by this module) only the first time: closing any
/// descriptor of a file drops every POSIX lock the process holds on it (`fcntl` locks belong to
/// the process and the file, not the descriptor). A look at the file of a store a connection of
/// this process has open — a worker opening the arena's store beside its tournaments' — took
/// that connection's locks away, and another process closing its own connection then
/// checkpointed and deleted the write-ahead log under it: this process's later commits were
/// lost. SQLite's own connections share their descriptors and keep them while locks are held.
static LOOKED_AT: std::sync::Mutex<Vec<(u64, u64, bool)>> = std::sync::Mutex::new(Vec::new());

/// The file's device and inode: the same file under any name.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether this process has looked at the file `path` already (as one to write, if `writable`).
fn looked_at(path: &Path, writable: bool) -> bool {
    let looked = LOOKED_AT.lock().unwrap_or_else(|e| e.into_inner());
    file_id(path).is_some_and(|(dev, ino)| {
        looked
            .iter()
            .any(|&(d, i, w)| (d, i) == (dev, ino) && (w || !writable))
    })
}

/// Counts `path` as looked at and found a store (one to write, if `writable`).
fn remember_look(path: &Path, writable: bool) {
    if let Some((dev, ino)) = file_id(path) {
        let mut looked = LOOKED_AT.lock().unwrap_or_else(|e| e.into_inner());
        looked.push((dev, ino, writable));
    }
}

/// The URL to connect with: `target` itself, or a `sqlite:` URL of `file` — created if
/// `presence` allows, read-only for [`Presence::ReadOnly`], and `immutable` when SQLite may
/// not even keep its shared-memory file next to it (a read-only folder or disk).
fn url_of(target: &str, file: Option<&Path>, presence: Presence, immutable: bool) -> String {
    let Some(path) = file else {
        return target.to_owned();
    };
    let mut url = String::from("sqlite://");
    // `%`, `?` and `#` are escaped, as the URL parser decodes them.
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => url.push_str("%25"),
            '?' => url.push_str("%3F"),
            '#' => url.push_str("%23"),
            c => url.push(c),
        }
    }
    url.push_str(match presence {
        Presence::MayCreate => "?mode=rwc",
        Presence::MustExist => "?mode=rw",
        Presence::ReadOnly => "?mode=ro",
    });
    if immutable {
        url.push_str("&immutable=true");
    }
    url
}

/// Connects once, directly, and prepares the connection: its errors come out as they are.
async fn first_connection(
    target: &str,
    url: &str,
    writable: bool,
) -> Result<AnyConnection, StoreError> {
    let mut conn = AnyConnection::connect(url)
        .await
        .map_err(|source| classify(target, source))?;
    prepare(&mut conn, writable)
        .await
        .map_err(|source| classify(target, source))?;
    Ok(conn)
}

/// SQLite's settings of every connection; a read-only one changes nothing in the file.
async fn prepare(conn: &mut AnyConnection, writable: bool) -> Result<(), sqlx::Error> {
    if conn.backend_name() != "SQLite" {
        return Ok(());
    }
    conn.execute(&*format!("PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}"))
        .await?;
    if writable {
        // WAL: readers (`standings` during a run) do not block the writer.
        write_ahead_log(conn).await?;
        // FULL: a committed result, or a score the teams were told, survives a power cut.
        conn.execute("PRAGMA synchronous = FULL").await?;
    }
    Ok(())
}

/// Switches the file to WAL. The switch of a new file needs a lock SQLite does not wait
/// for (no busy handler), so when processes open one new store together all but one are
/// told "database is locked": they try again until the first has switched it.
async fn write_ahead_log(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    let deadline = Instant::now() + Duration::from_millis(BUSY_TIMEOUT_MS);
    loop {
        match conn.execute("PRAGMA journal_mode = WAL").await {
            Err(e) if sqlite_code(&e) == Some(SQLITE_BUSY) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            result => return result.map(drop),
        }
    }
}

/// Brings the tables up to date, one process at a time.
///
/// PostgreSQL: sqlx's migrator holds `pg_advisory_lock` (keyed by the database's name) from
/// before it reads which migrations are applied until after the last one; the `Any` driver
/// hands it PostgreSQL's own `Migrate`, lock included (sqlx 0.8, `sqlx-postgres/src/
/// migrate.rs`).
///
/// SQLite: sqlx's migrator takes no lock there, and two processes opening one new file both
/// found the tables missing and both created them ("table tournaments already exists"). The
/// whole migration runs in one `BEGIN IMMEDIATE` transaction instead: it holds SQLite's write
/// lock from its first statement, so the second process waits (busy timeout) and then reads
/// the migrations the first applied. It is the database's own lock — no lock file beside the
/// store, nothing left behind by a killed process, and it works wherever SQLite works; an
/// `flock` on the file would also need a second file descriptor that SQLite's own POSIX locks
/// know nothing about. (In WAL mode `IMMEDIATE` and `EXCLUSIVE` are the same lock; readers
/// go on reading the tables as they were.)
async fn migrate(
    conn: &mut AnyConnection,
    target: &str,
    file: Option<&Path>,
) -> Result<(), StoreError> {
    let failed = |source| migrate_error(target, source);
    if conn.backend_name() != "SQLite" {
        return MIGRATOR.run(&mut *conn).await.map_err(failed);
    }
    // Most opens find the tables up to date and take no lock: another process's transaction
    // that read before it writes is refused at once (not waited for) while one is held.
    if tables(conn, target).await? == Tables::Current {
        return Ok(());
    }
    let mut tx = conn
        .begin_with("BEGIN IMMEDIATE")
        .await
        .map_err(|source| classify(target, source))?;
    if let Some(path) = file {
        refuse_foreign(&mut tx, path).await?;
    }
    MIGRATOR.run(&mut *tx).await.map_err(failed)?;
    tx.commit().await.map_err(|source| classify(target, source))
}

/// Refuses a SQLite database of something else: tables, but none of the migrator's.
async fn refuse_foreign(conn: &mut AnyConnection, path: &Path) -> Result<(), StoreError> {
    let row = sqlx::query(
        "SELECT COUNT(*), COALESCE(SUM(name = '_sqlx_migrations'), 0) FROM sqlite_master \
         WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    )
    .fetch_one(&mut *conn)
    .await
    .map_err(|source| classify(&path.to_string_lossy(), source))?;
    let (tables, ours): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
    if tables > 0 && ours == 0 {
        return Err(StoreError::NotAStore {
            path: path.to_owned(),
            what: "a SQLite database of something else",
        });
    }
    Ok(())
}

/// How a store's tables stand against this Arbiter's migrations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tables {
    /// Every migration applied.
    Current,
    /// Some applied, not all: an older Arbiter wrote the store.
    Behind,
    /// No migrations at all: a store being created, or not a store.
    Missing,
}

/// Where the store's tables stand; a migration the store has that this Arbiter does not know
/// (a newer Arbiter wrote it), or one changed since, is an error, as the migrator says it.
async fn tables(conn: &mut AnyConnection, target: &str) -> Result<Tables, StoreError> {
    let applied = match conn.list_applied_migrations().await {
        Ok(applied) => applied,
        Err(MigrateError::Execute(source)) => {
            return match classify(target, source) {
                // No migrations table.
                StoreError::Open { .. } => Ok(Tables::Missing),
                named => Err(named),
            };
        }
        Err(source) => return Err(migrate_error(target, source)),
    };
    for a in &applied {
        match MIGRATOR.iter().find(|m| m.version == a.version) {
            None => {
                return Err(migrate_error(
                    target,
                    MigrateError::VersionMissing(a.version),
                ));
            }
            Some(m) if m.checksum != a.checksum => {
                return Err(migrate_error(
                    target,
                    MigrateError::VersionMismatch(a.version),
                ));
            }
            Some(_) => {}
        }
    }
    let missing = MIGRATOR.iter().any(|m| {
        !m.migration_type.is_down_migration() && !applied.iter().any(|a| a.version == m.version)
    });
    Ok(match (missing, applied.is_empty()) {
        (false, _) => Tables::Current,
        (true, false) => Tables::Behind,
        (true, true) => Tables::Missing,
    })
}

/// Opens a store for reading and checks its tables are this Arbiter's: the URL that worked,
/// or `None` when the store must be brought up to date first.
async fn open_read_only(target: &str, file: Option<&Path>) -> Result<Option<String>, StoreError> {
    // Plain read-only first, which sees a writer's latest commits; `immutable` when SQLite
    // cannot open the file so (its folder cannot hold the shared-memory file).
    match read_only_attempt(target, file, false).await {
        Err(StoreError::ReadOnly { .. }) if file.is_some() => {
            read_only_attempt(target, file, true).await
        }
        other => other,
    }
}

/// One way of [`open_read_only`]. A store without tables is waited for a moment: it is most
/// likely being created, its creator holding the write lock, and a reader taking that lock to
/// make the tables itself would make the creator's next transactions fail.
async fn read_only_attempt(
    target: &str,
    file: Option<&Path>,
    immutable: bool,
) -> Result<Option<String>, StoreError> {
    let url = url_of(target, file, Presence::ReadOnly, immutable);
    let mut conn = first_connection(target, &url, false).await?;
    let deadline = Instant::now() + CREATION_WAIT;
    let mut state = tables(&mut conn, target).await;
    while matches!(state, Ok(Tables::Missing)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        state = tables(&mut conn, target).await;
    }
    let _ = conn.close().await;
    Ok((state? == Tables::Current).then_some(url))
}

/// Opens an older store for writing, which brings it up to date; one that cannot be written
/// is [`StoreError::Outdated`].
async fn upgrade(target: &str, connections: u32) -> Result<Database, StoreError> {
    match connect_with(target, Presence::MustExist, connections).await {
        Err(StoreError::ReadOnly { target }) => Err(StoreError::Outdated { target }),
        other => other,
    }
}

const SQLITE_BUSY: i64 = 5;
const SQLITE_READONLY: i64 = 8;
const SQLITE_CORRUPT: i64 = 11;
const SQLITE_CANTOPEN: i64 = 14;
const SQLITE_NOTADB: i64 = 26;

/// SQLite's primary result code of a database error.
fn sqlite_code(error: &sqlx::Error) -> Option<i64> {
    match error {
        sqlx::Error::Database(e) => e.code()?.parse::<i64>().ok().map(|code| code & 0xff),
        _ => None,
    }
}

/// Names what a driver error means for the store: damaged, not writable, or not reached.
fn classify(target: &str, source: sqlx::Error) -> StoreError {
    match sqlite_code(&source) {
        Some(SQLITE_CORRUPT | SQLITE_NOTADB) => StoreError::Damaged {
            target: target.to_owned(),
            detail: match &source {
                sqlx::Error::Database(e) => e.message().to_owned(),
                other => other.to_string(),
            },
        },
        // Read-only: a write was refused. Can't open: the file is there (it was checked), so
        // what could not be opened is its journal, in a folder that cannot be written.
        Some(SQLITE_READONLY) => StoreError::ReadOnly {
            target: target.to_owned(),
        },
        Some(SQLITE_CANTOPEN) if Path::new(target).is_file() => StoreError::ReadOnly {
            target: target.to_owned(),
        },
        _ => StoreError::Open {
            target: target.to_owned(),
            source,
        },
    }
}

/// A migrator's error; a driver error in it is named as [`classify`] does.
fn migrate_error(target: &str, source: MigrateError) -> StoreError {
    match source {
        MigrateError::Execute(e) | MigrateError::ExecuteMigration(e, _) => {
            match classify(target, e) {
                StoreError::Open { target, source } => StoreError::Migrate {
                    target,
                    source: MigrateError::Execute(source),
                },
                named => named,
            }
        }
        source => StoreError::Migrate {
            target: target.to_owned(),
            source,
        },
    }
}
