//! The arena's store: users and their teams, invite codes, API tokens, bots and their
//! numbered, immutable versions (the source as handed in, the program built from it), and the
//! queue of builds and checks that workers on any machine claim ([`ArenaStore::claim_job`]).
//!
//! Secrets are kept only as their SHA-256 (invite codes, tokens) or argon2id hash
//! (passwords): the caller hashes, the store compares. Names of users, teams and bots are
//! checked here, so that no caller can store one a page or a file name would trip over.

mod jobs;
mod ladder;
mod matches;

use std::path::{Path, PathBuf};

use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

use crate::database::{Presence, connect_with};
use crate::tournaments::Backend;
use crate::{StoreError, StoredProgram, now_ms};

pub use jobs::{ARENA_WORK_CHANNEL, ArenaJob, ExpiredJob, JobKind, MAX_JOB_ATTEMPTS, QueuedJob};
pub use ladder::{
    LADDER_PACE, LADDER_PAUSED, LadderEntry, LadderView, ROBOTS_TEAM, RatingPoint, SPRT_MAX_GAMES,
    UPLOADS_FROZEN, ladder_seats_setting,
};
pub use matches::{
    ArenaMatchState, ClaimedMatch, ClaimedSeat, ExpiredMatch, MAX_MATCH_ATTEMPTS, MatchKind,
    MatchOutcome, MatchSummary, NewArenaMatch, PlaygroundOpponent, SeatPlayer, SeatSummary, Series,
    SeriesKind,
};

/// Connections to PostgreSQL an arena keeps: its pages are served many at once.
const POSTGRES_CONNECTIONS: u32 = 8;

/// The longest name of a user, team or bot.
pub const MAX_NAME: usize = 32;

/// A person who signs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// Its number in the store.
    pub id: i64,
    /// The name it signs in with, as written when it signed up.
    pub name: String,
    /// Whether it sees and manages everything.
    pub admin: bool,
    /// The argon2id hash of its password, as a PHC string.
    pub password: String,
    /// When it was made (Unix milliseconds).
    pub created: i64,
}

/// Users who share their bots. Every user has a team of its own name, made with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    /// Its number in the store.
    pub id: i64,
    /// Its name.
    pub name: String,
}

/// Where a version is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VersionState {
    /// Handed in, waiting for a worker to build it.
    Queued,
    /// Being built.
    Building,
    /// Its build failed: the log says why.
    BuildFailed,
    /// Built, its check waiting or being played.
    Checking,
    /// Its check failed: the reason and the check's replays say why.
    CheckFailed,
    /// Passed its check: it may play.
    Passed,
}

impl VersionState {
    /// Every state, in the order of a version's life.
    pub const ALL: [VersionState; 6] = [
        VersionState::Queued,
        VersionState::Building,
        VersionState::BuildFailed,
        VersionState::Checking,
        VersionState::CheckFailed,
        VersionState::Passed,
    ];

    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionState::Queued => "queued",
            VersionState::Building => "building",
            VersionState::BuildFailed => "build_failed",
            VersionState::Checking => "checking",
            VersionState::CheckFailed => "check_failed",
            VersionState::Passed => "passed",
        }
    }

    /// The state named `text`, as [`VersionState::as_str`] writes it.
    pub fn parse(text: &str) -> Option<VersionState> {
        VersionState::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether nothing more happens to a version in this state.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            VersionState::BuildFailed | VersionState::CheckFailed | VersionState::Passed
        )
    }
}

/// A bot: a name in a game, owned by a team, with numbered versions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bot {
    /// Its number in the store.
    pub id: i64,
    /// Its name, its own in its game.
    pub name: String,
    /// The game it plays.
    pub game: String,
    /// The team that owns it.
    pub team: Team,
    /// The number of the version that plays: always one that passed its check.
    pub active: Option<i64>,
    /// Whether the team chose `active`; else it is the newest version that passed.
    pub pinned: bool,
    /// Whether it was retired: it plays no more.
    pub retired: bool,
    /// The number of its last version (0 before any).
    pub versions: i64,
    /// When it was made (Unix milliseconds).
    pub created: i64,
    /// Whether it is one of the game's built-in robots (of the team [`ROBOTS_TEAM`]).
    pub robot: bool,
    /// Whether the operator took it off the ladder.
    pub disabled: bool,
}

/// One version of a bot, as handed in and as far as it got. Its source is read apart
/// ([`ArenaStore::source`]), being large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// Its number in the store (jobs and replays name it by this).
    pub id: i64,
    /// Its bot's id.
    pub bot: i64,
    /// Its number among its bot's versions, from 1.
    pub number: i64,
    /// Where it is.
    pub state: VersionState,
    /// The language it was built as, once built.
    pub language: Option<String>,
    /// The file name it was handed in under.
    pub file_name: String,
    /// The hash of the program built from it, once built.
    pub program: Option<String>,
    /// The build's log, once built or failed.
    pub build_log: Option<String>,
    /// Why its build or check failed.
    pub reason: Option<String>,
    /// The user who handed it in.
    pub uploader: i64,
    /// When it was handed in (Unix milliseconds).
    pub created: i64,
    /// When its state last changed (Unix milliseconds).
    pub updated: i64,
}

/// An API token as its owner sees it listed (the token itself is not kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    /// The SHA-256 (hex) of the token: what revoking names it by.
    pub hash: String,
    /// What its owner called it.
    pub label: String,
    /// When it was made (Unix milliseconds).
    pub created: i64,
}

/// The arena's users, teams, bots, versions and jobs, async. Cloning it shares its
/// connections.
#[derive(Clone)]
pub struct ArenaStore {
    pub(crate) pool: AnyPool,
    pub(crate) backend: Backend,
    file: Option<PathBuf>,
}

/// Whether `name` may name a user, team or bot: 1 to [`MAX_NAME`] letters, digits, `_`, `-`
/// and `.`, beginning with a letter or digit. The error says why not, for the person who
/// chose it.
pub fn check_name(kind: &'static str, name: &str) -> Result<(), StoreError> {
    let bad = |why: &str| {
        Err(StoreError::BadName {
            kind,
            name: name.to_owned(),
            why: why.to_owned(),
        })
    };
    let Some(first) = name.chars().next() else {
        return bad("it is empty");
    };
    if name.chars().count() > MAX_NAME {
        return bad(&format!("it is longer than {MAX_NAME} characters"));
    }
    if !first.is_ascii_alphanumeric() {
        return bad("it must begin with a letter or a digit");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        return bad(&format!(
            "{c:?} is not allowed: only letters, digits, '_', '-' and '.'"
        ));
    }
    // A user's team has the user's name: neither may pass for the team of the robots.
    if kind != "bot" && name.eq_ignore_ascii_case(ROBOTS_TEAM) {
        return bad("it is reserved for the arena's built-in robots");
    }
    Ok(())
}

const USER_COLUMNS: &str = "u.id, u.name, u.admin, u.password, u.created";
const BOT_SELECT: &str = "SELECT b.id, b.name, b.game, t.id AS team_id, t.name AS team_name, \
     b.active, b.pinned, b.retired, b.versions, b.created, b.robot, b.disabled FROM arena_bots b \
     JOIN arena_teams t ON t.id = b.team_id";
pub(crate) const VERSION_COLUMNS: &str = "v.id, v.bot_id, v.number, v.state, v.language, \
     v.file_name, v.program, v.build_log, v.reason, v.uploader, v.created, v.updated";

impl ArenaStore {
    /// Opens (creating it if `presence` allows, and migrating it if needed) the store at
    /// `target`: a PostgreSQL URL, a `sqlite:` URL, or the path of a SQLite file. The arena
    /// shares the database with tournaments and the program store.
    pub async fn open(target: &str, presence: Presence) -> Result<ArenaStore, StoreError> {
        let db = connect_with(target, presence, POSTGRES_CONNECTIONS).await?;
        Ok(ArenaStore {
            pool: db.pool,
            backend: Backend::of(target),
            file: db.file,
        })
    }

    /// The SQLite file behind the store, if it is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Which database speaks.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Makes a user and its own team of the same name, in one transaction.
    pub async fn add_user(&self, name: &str, phc: &str, admin: bool) -> Result<User, StoreError> {
        check_name("user", name)?;
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let id = next_id(&mut tx, "users").await?;
        sqlx::query(
            "INSERT INTO arena_users (id, name, admin, password, created) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(id)
        .bind(name)
        .bind(i64::from(admin))
        .bind(phc)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(taken("user", name))?;
        insert_team(&mut tx, name, id).await?;
        tx.commit().await?;
        Ok(User {
            id,
            name: name.to_owned(),
            admin,
            password: phc.to_owned(),
            created: now,
        })
    }

    /// The user named `name` (whatever its case).
    pub async fn user_by_name(&self, name: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {USER_COLUMNS} FROM arena_users u WHERE lower(u.name) = lower($1)"
        ))
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(user_row).transpose()
    }

    /// User `id`.
    pub async fn user(&self, id: i64) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {USER_COLUMNS} FROM arena_users u WHERE u.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(user_row).transpose()
    }

    /// Every user, by id.
    pub async fn users(&self) -> Result<Vec<User>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {USER_COLUMNS} FROM arena_users u ORDER BY u.id"
        ))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(user_row).collect()
    }

    /// Replaces user `user`'s password hash.
    pub async fn set_password(&self, user: i64, phc: &str) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE arena_users SET password = $1 WHERE id = $2")
            .bind(phc)
            .bind(user)
            .execute(&self.pool)
            .await?;
        found(done.rows_affected(), || format!("user {user}"))
    }

    /// Makes user `user` an admin, or no longer one.
    pub async fn set_admin(&self, user: i64, admin: bool) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE arena_users SET admin = $1 WHERE id = $2")
            .bind(i64::from(admin))
            .bind(user)
            .execute(&self.pool)
            .await?;
        found(done.rows_affected(), || format!("user {user}"))
    }

    /// Makes a team with its first member.
    pub async fn add_team(&self, name: &str, first_member: i64) -> Result<Team, StoreError> {
        check_name("team", name)?;
        let mut tx = self.pool.begin().await?;
        let team = insert_team(&mut tx, name, first_member).await?;
        tx.commit().await?;
        Ok(team)
    }

    /// Team `id`.
    pub async fn team(&self, id: i64) -> Result<Option<Team>, StoreError> {
        let row = sqlx::query("SELECT id, name FROM arena_teams WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(team_row).transpose()
    }

    /// The team named `name` (whatever its case).
    pub async fn team_by_name(&self, name: &str) -> Result<Option<Team>, StoreError> {
        let row = sqlx::query("SELECT id, name FROM arena_teams WHERE lower(name) = lower($1)")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(team_row).transpose()
    }

    /// Adds user `user` to team `team`; a member already is left as is.
    pub async fn add_member(&self, team: i64, user: i64) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO arena_members (team_id, user_id, joined) VALUES ($1, $2, $3) \
             ON CONFLICT (team_id, user_id) DO NOTHING",
        )
        .bind(team)
        .bind(user)
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(|e| missing_reference(e, || format!("team {team} or user {user}")))?;
        Ok(())
    }

    /// Takes user `user` out of team `team`; returns whether it was a member.
    pub async fn remove_member(&self, team: i64, user: i64) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM arena_members WHERE team_id = $1 AND user_id = $2")
            .bind(team)
            .bind(user)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// The teams user `user` is a member of, its own first.
    pub async fn teams_of(&self, user: i64) -> Result<Vec<Team>, StoreError> {
        let rows = sqlx::query(
            "SELECT t.id, t.name FROM arena_teams t JOIN arena_members m ON m.team_id = t.id \
             JOIN arena_users u ON u.id = m.user_id WHERE m.user_id = $1 \
             ORDER BY CASE WHEN lower(t.name) = lower(u.name) THEN 0 ELSE 1 END, t.id",
        )
        .bind(user)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(team_row).collect()
    }

    /// Whether user `user` is a member of team `team`.
    pub async fn is_member(&self, team: i64, user: i64) -> Result<bool, StoreError> {
        let row =
            sqlx::query("SELECT COUNT(*) FROM arena_members WHERE team_id = $1 AND user_id = $2")
                .bind(team)
                .bind(user)
                .fetch_one(&self.pool)
                .await?;
        Ok(row.try_get::<i64, _>(0)? > 0)
    }

    /// The members of team `team`, by id.
    pub async fn team_members(&self, team: i64) -> Result<Vec<User>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {USER_COLUMNS} FROM arena_users u JOIN arena_members m ON m.user_id = u.id \
             WHERE m.team_id = $1 ORDER BY u.id"
        ))
        .bind(team)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(user_row).collect()
    }

    /// Keeps an invite code, by its SHA-256 (hex).
    pub async fn add_invite(&self, code_sha256: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO arena_invites (code, created) VALUES ($1, $2)")
            .bind(code_sha256)
            .bind(now_ms())
            .execute(&self.pool)
            .await
            .map_err(taken("invite code", code_sha256))?;
        Ok(())
    }

    /// Takes the invite code of this SHA-256: true once, for the first taker; false for an
    /// unknown or used code. One statement, so two sign-ups at once never both take it.
    pub async fn take_invite(&self, code_sha256: &str) -> Result<bool, StoreError> {
        let done =
            sqlx::query("UPDATE arena_invites SET used = $1 WHERE code = $2 AND used IS NULL")
                .bind(now_ms())
                .bind(code_sha256)
                .execute(&self.pool)
                .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Invite codes made and not taken yet.
    pub async fn open_invites(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) FROM arena_invites WHERE used IS NULL")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get(0)?)
    }

    /// Keeps an API token of user `user`, by its SHA-256 (hex).
    pub async fn add_token(
        &self,
        user: i64,
        token_sha256: &str,
        label: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO arena_tokens (hash, user_id, label, created) VALUES ($1, $2, $3, $4)",
        )
        .bind(token_sha256)
        .bind(user)
        .bind(label)
        .bind(now_ms())
        .execute(&self.pool)
        .await
        .map_err(|e| missing_reference(e, || format!("user {user}")))?;
        Ok(())
    }

    /// The user whose API token has this SHA-256 (hex).
    pub async fn user_by_token(&self, token_sha256: &str) -> Result<Option<User>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {USER_COLUMNS} FROM arena_users u JOIN arena_tokens k ON k.user_id = u.id \
             WHERE k.hash = $1"
        ))
        .bind(token_sha256)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(user_row).transpose()
    }

    /// User `user`'s API tokens, oldest first.
    pub async fn tokens_of(&self, user: i64) -> Result<Vec<TokenInfo>, StoreError> {
        let rows = sqlx::query(
            "SELECT hash, label, created FROM arena_tokens WHERE user_id = $1 \
             ORDER BY created, hash",
        )
        .bind(user)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(TokenInfo {
                    hash: r.try_get(0)?,
                    label: r.try_get(1)?,
                    created: r.try_get(2)?,
                })
            })
            .collect()
    }

    /// Revokes user `user`'s token of this SHA-256; returns whether it had one.
    pub async fn revoke_token(&self, user: i64, token_sha256: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("DELETE FROM arena_tokens WHERE user_id = $1 AND hash = $2")
            .bind(user)
            .bind(token_sha256)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Makes bot `name` of team `team` in `game`, with no version yet.
    pub async fn add_bot(&self, team: i64, game: &str, name: &str) -> Result<Bot, StoreError> {
        check_name("bot", name)?;
        let mut tx = self.pool.begin().await?;
        let id = next_id(&mut tx, "bots").await?;
        sqlx::query(
            "INSERT INTO arena_bots (id, team_id, game, name, versions, active, pinned, \
             retired, created) VALUES ($1, $2, $3, $4, 0, NULL, 0, 0, $5)",
        )
        .bind(id)
        .bind(team)
        .bind(game)
        .bind(name)
        .bind(now_ms())
        .execute(&mut *tx)
        .await
        .map_err(|e| match missing_reference(e, || format!("team {team}")) {
            StoreError::Query(e) => taken("bot", name)(e),
            other => other,
        })?;
        tx.commit().await?;
        self.bot_by_id(id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("bot {id}")))
    }

    /// The bot named `name` (whatever its case) in `game`.
    pub async fn bot(&self, game: &str, name: &str) -> Result<Option<Bot>, StoreError> {
        let row = sqlx::query(&format!(
            "{BOT_SELECT} WHERE b.game = $1 AND lower(b.name) = lower($2)"
        ))
        .bind(game)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(bot_row).transpose()
    }

    /// Bot `id`.
    pub async fn bot_by_id(&self, id: i64) -> Result<Option<Bot>, StoreError> {
        let row = sqlx::query(&format!("{BOT_SELECT} WHERE b.id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(bot_row).transpose()
    }

    /// Team `team`'s bots, by game and name.
    pub async fn bots_of_team(&self, team: i64) -> Result<Vec<Bot>, StoreError> {
        let sql = format!("{BOT_SELECT} WHERE b.team_id = $1 ORDER BY b.game, lower(b.name)");
        let rows = sqlx::query(&sql).bind(team).fetch_all(&self.pool).await?;
        rows.iter().map(bot_row).collect()
    }

    /// The bots of `game`, by name.
    pub async fn bots(&self, game: &str) -> Result<Vec<Bot>, StoreError> {
        let sql = format!("{BOT_SELECT} WHERE b.game = $1 ORDER BY lower(b.name)");
        let rows = sqlx::query(&sql).bind(game).fetch_all(&self.pool).await?;
        rows.iter().map(bot_row).collect()
    }

    /// Every bot, by game and name (the admin page).
    pub async fn all_bots(&self) -> Result<Vec<Bot>, StoreError> {
        let sql = format!("{BOT_SELECT} ORDER BY b.game, lower(b.name)");
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        rows.iter().map(bot_row).collect()
    }

    /// Hands in a new version of bot `bot`: it gets the next number, and a build job is
    /// queued, in one transaction.
    pub async fn add_version(
        &self,
        bot: i64,
        uploader: i64,
        file_name: &str,
        source: &[u8],
    ) -> Result<Version, StoreError> {
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        // The bot's row is the lock: two uploads at once get numbers one after the other.
        let number: i64 = sqlx::query(
            "UPDATE arena_bots SET versions = versions + 1 WHERE id = $1 RETURNING versions",
        )
        .bind(bot)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("bot {bot}")))?
        .try_get(0)?;
        let id = next_id(&mut tx, "versions").await?;
        sqlx::query(
            "INSERT INTO arena_versions (id, bot_id, number, state, file_name, source, \
             uploader, created, updated) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
        )
        .bind(id)
        .bind(bot)
        .bind(number)
        .bind(VersionState::Queued.as_str())
        .bind(file_name)
        .bind(source.to_vec())
        .bind(uploader)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(|e| missing_reference(e, || format!("user {uploader}")))?;
        jobs::queue_job(&mut tx, self.backend, JobKind::Build, id).await?;
        tx.commit().await?;
        Ok(Version {
            id,
            bot,
            number,
            state: VersionState::Queued,
            language: None,
            file_name: file_name.to_owned(),
            program: None,
            build_log: None,
            reason: None,
            uploader,
            created: now,
            updated: now,
        })
    }

    /// Version `number` of bot `bot`.
    pub async fn version(&self, bot: i64, number: i64) -> Result<Option<Version>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM arena_versions v WHERE v.bot_id = $1 AND v.number = $2"
        ))
        .bind(bot)
        .bind(number)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(version_row).transpose()
    }

    /// The version of id `id` (as jobs name it).
    pub async fn version_by_id(&self, id: i64) -> Result<Option<Version>, StoreError> {
        let row = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM arena_versions v WHERE v.id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(version_row).transpose()
    }

    /// Bot `bot`'s versions, newest first.
    pub async fn versions(&self, bot: i64) -> Result<Vec<Version>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM arena_versions v WHERE v.bot_id = $1 \
             ORDER BY v.number DESC"
        ))
        .bind(bot)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(version_row).collect()
    }

    /// The versions whose state changed at or after `since` (Unix milliseconds), oldest
    /// change first: what a page following states has to show anew.
    pub async fn versions_changed_since(&self, since: i64) -> Result<Vec<Version>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT {VERSION_COLUMNS} FROM arena_versions v WHERE v.updated >= $1 \
             ORDER BY v.updated, v.id"
        ))
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(version_row).collect()
    }

    /// The bytes version `version` was handed in as.
    pub async fn source(&self, version: i64) -> Result<Vec<u8>, StoreError> {
        let row = sqlx::query("SELECT source FROM arena_versions WHERE id = $1")
            .bind(version)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("version {version}")))?;
        Ok(row.try_get(0)?)
    }

    /// How many versions user `user` handed in at or after `since` (Unix milliseconds).
    pub async fn uploads_since(&self, user: i64, since: i64) -> Result<i64, StoreError> {
        let row = sqlx::query(
            "SELECT COUNT(*) FROM arena_versions WHERE uploader = $1 AND created >= $2",
        )
        .bind(user)
        .bind(since)
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get(0)?)
    }

    /// Makes version `number` of bot `bot` the one that plays, whatever passes later
    /// (pinned). Only a version that passed its check may play. A version that plays for
    /// the first time gets its rating (and an SPRT series against the one it replaces).
    pub async fn set_active(&self, bot: i64, number: i64) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let before = lock_bot(&mut tx, bot).await?;
        let done = sqlx::query(
            "UPDATE arena_bots SET active = $1, pinned = 1 WHERE id = $2 AND EXISTS \
             (SELECT 1 FROM arena_versions v WHERE v.bot_id = $2 AND v.number = $1 \
             AND v.state = 'passed')",
        )
        .bind(number)
        .bind(bot)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() == 1 {
            ladder::activated(&mut tx, bot, before).await?;
            tx.commit().await?;
            return Ok(());
        }
        tx.rollback().await?;
        match self.version(bot, number).await? {
            None => Err(StoreError::NotFound(format!(
                "version {number} of bot {bot}"
            ))),
            Some(v) => Err(StoreError::NotPlayable {
                number,
                state: v.state,
            }),
        }
    }

    /// Lets bot `bot`'s newest passed version play again, as it does unless pinned.
    pub async fn unpin(&self, bot: i64) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let before = lock_bot(&mut tx, bot).await?;
        sqlx::query(&format!(
            "UPDATE arena_bots SET pinned = 0, active = {NEWEST_PASSED} WHERE id = $1"
        ))
        .bind(bot)
        .execute(&mut *tx)
        .await?;
        ladder::activated(&mut tx, bot, before).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Retires bot `bot` (it plays no more), or brings it back.
    pub async fn set_retired(&self, bot: i64, retired: bool) -> Result<(), StoreError> {
        // A robot is a permanent member of its ladder: the operator disables it instead.
        let done = sqlx::query("UPDATE arena_bots SET retired = $1 WHERE id = $2 AND robot = 0")
            .bind(i64::from(retired))
            .bind(bot)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 && self.bot_by_id(bot).await?.is_some_and(|b| b.robot) {
            return Err(StoreError::NotAllowed(format!(
                "bot {bot} is a robot: robots never retire (disable it instead)"
            )));
        }
        found(done.rows_affected(), || format!("bot {bot}"))
    }

    /// Retires bot `bot`: it plays no more.
    pub async fn retire(&self, bot: i64) -> Result<(), StoreError> {
        self.set_retired(bot, true).await
    }

    /// Stores a built program unless one of its hash is there already.
    pub async fn save_program(&self, program: &StoredProgram) -> Result<(), StoreError> {
        crate::programs::save_program(&self.pool, program).await
    }

    /// The program named `hash`, if the store has it.
    pub async fn program(&self, hash: &str) -> Result<Option<StoredProgram>, StoreError> {
        crate::programs::program(&self.pool, hash).await
    }
}

/// The number of bot `$1`'s newest version that passed, or NULL.
pub(crate) const NEWEST_PASSED: &str = "(SELECT MAX(v.number) FROM arena_versions v \
     WHERE v.bot_id = $1 AND v.state = 'passed')";

/// Locks bot `bot`'s row for the caller's transaction (its first statement, so that SQLite
/// takes its write lock at once) and gives the number of its active version.
pub(crate) async fn lock_bot(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    bot: i64,
) -> Result<Option<i64>, StoreError> {
    let row = sqlx::query("UPDATE arena_bots SET active = active WHERE id = $1 RETURNING active")
        .bind(bot)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("bot {bot}")))?;
    Ok(row.try_get(0)?)
}

/// Takes the next id of `table` (a row of `arena_ids`), in the caller's transaction.
pub(crate) async fn next_id(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    table: &str,
) -> Result<i64, StoreError> {
    let row = sqlx::query("UPDATE arena_ids SET last = last + 1 WHERE name = $1 RETURNING last")
        .bind(table)
        .fetch_one(&mut **tx)
        .await?;
    Ok(row.try_get(0)?)
}

/// Makes team `name` with `member`, in the caller's transaction.
async fn insert_team(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    name: &str,
    member: i64,
) -> Result<Team, StoreError> {
    let id = next_id(tx, "teams").await?;
    sqlx::query("INSERT INTO arena_teams (id, name, created) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(name)
        .bind(now_ms())
        .execute(&mut **tx)
        .await
        .map_err(taken("team", name))?;
    sqlx::query("INSERT INTO arena_members (team_id, user_id, joined) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(member)
        .bind(now_ms())
        .execute(&mut **tx)
        .await
        .map_err(|e| missing_reference(e, || format!("user {member}")))?;
    Ok(Team {
        id,
        name: name.to_owned(),
    })
}

/// A unique name's violation as [`StoreError::NameTaken`]; other errors as they are.
fn taken(kind: &'static str, name: &str) -> impl FnOnce(sqlx::Error) -> StoreError {
    let name = name.to_owned();
    move |e| match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::NameTaken { kind, name }
        }
        _ => StoreError::Query(e),
    }
}

/// A foreign key's violation as [`StoreError::NotFound`] of what `what` names.
fn missing_reference(e: sqlx::Error, what: impl FnOnce() -> String) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_foreign_key_violation() => StoreError::NotFound(what()),
        _ => StoreError::Query(e),
    }
}

/// An update that must have found its row.
fn found(rows: u64, what: impl FnOnce() -> String) -> Result<(), StoreError> {
    if rows == 0 {
        Err(StoreError::NotFound(what()))
    } else {
        Ok(())
    }
}

fn user_row(row: &AnyRow) -> Result<User, StoreError> {
    Ok(User {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        admin: row.try_get::<i64, _>(2)? != 0,
        password: row.try_get(3)?,
        created: row.try_get(4)?,
    })
}

fn team_row(row: &AnyRow) -> Result<Team, StoreError> {
    Ok(Team {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
    })
}

fn bot_row(row: &AnyRow) -> Result<Bot, StoreError> {
    Ok(Bot {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        game: row.try_get(2)?,
        team: Team {
            id: row.try_get(3)?,
            name: row.try_get(4)?,
        },
        active: row.try_get(5)?,
        pinned: row.try_get::<i64, _>(6)? != 0,
        retired: row.try_get::<i64, _>(7)? != 0,
        versions: row.try_get(8)?,
        created: row.try_get(9)?,
        robot: row.try_get::<i64, _>(10)? != 0,
        disabled: row.try_get::<i64, _>(11)? != 0,
    })
}

pub(crate) fn version_row(row: &AnyRow) -> Result<Version, StoreError> {
    let state: String = row.try_get(3)?;
    Ok(Version {
        id: row.try_get(0)?,
        bot: row.try_get(1)?,
        number: row.try_get(2)?,
        state: VersionState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("version state {state:?}")))?,
        language: row.try_get(4)?,
        file_name: row.try_get(5)?,
        program: row.try_get(6)?,
        build_log: row.try_get(7)?,
        reason: row.try_get(8)?,
        uploader: row.try_get(9)?,
        created: row.try_get(10)?,
        updated: row.try_get(11)?,
    })
}
