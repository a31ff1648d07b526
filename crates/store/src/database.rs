//! Opening the database, the one way every store does it: the target read as a URL or a
//! SQLite file, SQLite's pragmas, the migrations.

use std::path::{Path, PathBuf};

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Executor};

use crate::StoreError;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// An open, migrated database.
pub(crate) struct Database {
    pub(crate) pool: AnyPool,
    /// The database file, for SQLite; replays go next to it.
    pub(crate) file: Option<PathBuf>,
}

/// Whether opening a store may create it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// A SQLite file that does not exist is created, with its folder (a run, a server).
    MayCreate,
    /// The store must be there already (commands that only read or continue): nothing is
    /// created where there is none.
    MustExist,
}

/// Connects to the store at `target` (a PostgreSQL URL, a `sqlite:` URL, or the path of a
/// SQLite file, created with its folder if missing and `presence` allows it) and migrates it.
/// Tournaments and the game server share the database and this setup.
pub(crate) async fn connect(target: &str, presence: Presence) -> Result<Database, StoreError> {
    let (url, file) = if target.starts_with("postgres://")
        || target.starts_with("postgresql://")
        || target.starts_with("sqlite:")
    {
        (target.to_owned(), None)
    } else {
        let path = std::path::absolute(target).unwrap_or_else(|_| PathBuf::from(target));
        if presence == Presence::MustExist && !path.exists() {
            return Err(StoreError::NoStore { path });
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(StoreError::io(format!("creating {}", dir.display())))?;
        }
        (sqlite_url(&path), Some(path))
    };
    sqlx::any::install_default_drivers();
    // One connection is enough — a single coordinator writes, one result at a time.
    let pool = AnyPoolOptions::new()
        .max_connections(1)
        .after_connect(|conn, _| {
            Box::pin(async move {
                if conn.backend_name() == "SQLite" {
                    // WAL: readers (`standings` during a run) do not block the writer.
                    // FULL: a committed result, or a score the teams were told, survives a
                    // power cut.
                    conn.execute("PRAGMA journal_mode = WAL").await?;
                    conn.execute("PRAGMA synchronous = FULL").await?;
                    conn.execute("PRAGMA busy_timeout = 10000").await?;
                }
                Ok(())
            })
        })
        .connect(&url)
        .await
        .map_err(|source| StoreError::Open {
            target: target.to_owned(),
            source,
        })?;
    MIGRATOR
        .run(&pool)
        .await
        .map_err(|source| StoreError::Migrate {
            target: target.to_owned(),
            source,
        })?;
    Ok(Database { pool, file })
}

/// A `sqlite:` URL for a file path; `%`, `?` and `#` are escaped, as the URL parser decodes them.
fn sqlite_url(path: &Path) -> String {
    let mut url = String::from("sqlite://");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => url.push_str("%25"),
            '?' => url.push_str("%3F"),
            '#' => url.push_str("%23"),
            c => url.push(c),
        }
    }
    url.push_str("?mode=rwc");
    url
}
