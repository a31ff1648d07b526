//! Sessions, kept in the store's database by `tower-sessions`' sqlx store (its own table, made
//! by its own migration), in a cookie that scripts cannot read (HttpOnly), that other sites'
//! requests do not carry (SameSite=Lax), and that travels only over TLS when the arena is
//! served behind it (`secure_cookies`).
//!
//! The store is SQLite or PostgreSQL, whichever the arena's store is: the database target is
//! opened a second time, as a typed pool, for the sessions.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use tower_sessions::cookie::SameSite;
use tower_sessions::cookie::time::Duration as CookieDuration;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, ExpiredDeletion, SessionStore};
use tower_sessions::{Expiry, SessionManagerLayer};
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore};

/// The session cookie's name.
pub const COOKIE: &str = "arena_session";

/// A session unused for this long is over (the user signs in again).
const IDLE_DAYS: i64 = 14;

/// Connections of the sessions' own pool: each request reads its session once.
const POOL_CONNECTIONS: u32 = 4;

/// How long a connection waits for another's lock (SQLite), as the store's own do.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The sessions' store, in the arena's database whichever it is.
#[derive(Clone, Debug)]
pub enum Sessions {
    /// In a SQLite file.
    Sqlite(SqliteStore),
    /// In a PostgreSQL database.
    Postgres(PostgresStore),
}

impl Sessions {
    /// Opens the sessions of the database at `target` (a `postgres://` or `sqlite:` URL, or a
    /// SQLite file's path, as the store takes it) and makes their table if it is missing.
    pub async fn open(target: &str) -> Result<Sessions, sqlx::Error> {
        let sessions = if target.starts_with("postgres://") || target.starts_with("postgresql://") {
            let pool = PgPoolOptions::new()
                .max_connections(POOL_CONNECTIONS)
                .connect(target)
                .await?;
            let store = PostgresStore::new(pool);
            store.migrate().await?;
            Sessions::Postgres(store)
        } else {
            let options = if target.starts_with("sqlite:") {
                SqliteConnectOptions::from_str(target)?
            } else {
                SqliteConnectOptions::new().filename(target)
            };
            let options = options.create_if_missing(true).busy_timeout(BUSY_TIMEOUT);
            let pool = SqlitePoolOptions::new()
                .max_connections(POOL_CONNECTIONS)
                .connect_with(options)
                .await?;
            let store = SqliteStore::new(pool);
            store.migrate().await?;
            Sessions::Sqlite(store)
        };
        Ok(sessions)
    }

    /// The layer that loads and saves each request's session, with the cookie's attributes.
    pub fn layer(&self, secure: bool) -> SessionManagerLayer<Sessions> {
        SessionManagerLayer::new(self.clone())
            .with_name(COOKIE)
            .with_http_only(true)
            .with_same_site(SameSite::Lax)
            .with_secure(secure)
            .with_path("/")
            .with_expiry(Expiry::OnInactivity(CookieDuration::days(IDLE_DAYS)))
    }

    /// Removes the sessions that are over.
    pub async fn delete_expired(&self) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(store) => store.delete_expired().await,
            Sessions::Postgres(store) => store.delete_expired().await,
        }
    }
}

#[async_trait]
impl SessionStore for Sessions {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(store) => store.create(record).await,
            Sessions::Postgres(store) => store.create(record).await,
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(store) => store.save(record).await,
            Sessions::Postgres(store) => store.save(record).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        match self {
            Sessions::Sqlite(store) => store.load(id).await,
            Sessions::Postgres(store) => store.load(id).await,
        }
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        match self {
            Sessions::Sqlite(store) => store.delete(id).await,
            Sessions::Postgres(store) => store.delete(id).await,
        }
    }
}
