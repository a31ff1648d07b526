//! The arena's matches: one queue for ladder games, challenges, the playground and SPRT
//! series, claimed by workers with leases and fencing as builds are (`jobs.rs`), and the
//! series they belong to.
//!
//! A result is taken in one transaction with the latest claim only: the seats' places and
//! faults, the replay, and — for a rated (ladder) match — the rating update. The update takes
//! the next number of the `ratings` row before it reads the seats' ratings: on PostgreSQL the
//! row's lock makes concurrent finishers apply their updates one after the other (none lost,
//! none doubled), and the numbers are the order a recomputation replays. A result counts for
//! the versions that played it, whichever is active by then.

use std::collections::BTreeMap;

use arbiter_ladder::{Rating, SeriesResult, SeriesSummary};
use arbiter_sprt::Pentanomial;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::jobs::ARENA_WORK_CHANNEL;
use super::ladder::{RatingPoint, enroll_robot, rating_of};
use super::{ArenaStore, VersionState, next_id};
use crate::tournaments::Backend;
use crate::{Handed, StoreError, now_ms};

/// How many times a match is claimed before it fails: a match that kills its worker every
/// time must not hold the queue for ever.
pub const MAX_MATCH_ATTEMPTS: i64 = 3;

/// The sort of an arena match: who queued it and whether it moves ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    /// A game the ladder's matchmaking picked: the only kind that is rated.
    Ladder,
    /// A game of a team's challenge series.
    Challenge,
    /// A team's one match against a robot or its own other version, watched as it plays.
    Playground,
    /// A game of the SPRT series of a new version against its bot's previous one.
    Sprt,
}

impl MatchKind {
    /// Every kind.
    pub const ALL: [MatchKind; 4] = [
        MatchKind::Ladder,
        MatchKind::Challenge,
        MatchKind::Playground,
        MatchKind::Sprt,
    ];

    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Ladder => "ladder",
            MatchKind::Challenge => "challenge",
            MatchKind::Playground => "playground",
            MatchKind::Sprt => "sprt",
        }
    }

    /// The kind named `text`, as [`MatchKind::as_str`] writes it.
    pub fn parse(text: &str) -> Option<MatchKind> {
        MatchKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// Whether its result moves ratings.
    pub fn rated(self) -> bool {
        self == MatchKind::Ladder
    }

    /// Higher is claimed first: someone watches a playground match from its start, and a
    /// challenge is a team waiting; the ladder and the SPRT series run in the background.
    pub fn priority(self) -> i64 {
        match self {
            MatchKind::Playground => 2,
            MatchKind::Challenge => 1,
            MatchKind::Ladder | MatchKind::Sprt => 0,
        }
    }
}

/// Where an arena match is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaMatchState {
    /// Waiting for a worker.
    Queued,
    /// Being played.
    Running,
    /// Played: its places, faults and replay are in.
    Finished,
    /// Its workers kept failing (or dying): it was given up.
    Failed,
}

impl ArenaMatchState {
    /// Every state.
    pub const ALL: [ArenaMatchState; 4] = [
        ArenaMatchState::Queued,
        ArenaMatchState::Running,
        ArenaMatchState::Finished,
        ArenaMatchState::Failed,
    ];

    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            ArenaMatchState::Queued => "queued",
            ArenaMatchState::Running => "running",
            ArenaMatchState::Finished => "finished",
            ArenaMatchState::Failed => "failed",
        }
    }

    /// The state named `text`, as [`ArenaMatchState::as_str`] writes it.
    pub fn parse(text: &str) -> Option<ArenaMatchState> {
        ArenaMatchState::ALL
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// The sort of a series of games between two versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeriesKind {
    /// A new version against its bot's previous active one, in pairs, until the SPRT decides.
    Sprt,
    /// A team's version against a chosen bot's, a number of games.
    Challenge,
}

impl SeriesKind {
    /// The name in the store and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            SeriesKind::Sprt => "sprt",
            SeriesKind::Challenge => "challenge",
        }
    }

    /// The kind named `text`.
    pub fn parse(text: &str) -> Option<SeriesKind> {
        [SeriesKind::Sprt, SeriesKind::Challenge]
            .into_iter()
            .find(|k| k.as_str() == text)
    }

    fn match_kind(self) -> MatchKind {
        match self {
            SeriesKind::Sprt => MatchKind::Sprt,
            SeriesKind::Challenge => MatchKind::Challenge,
        }
    }
}

/// A match to queue.
#[derive(Clone, Debug, PartialEq)]
pub struct NewArenaMatch {
    /// Its kind (rated and priority follow from it).
    pub kind: MatchKind,
    /// The game.
    pub game: String,
    /// The game's settings, as its JSON (the seat count among them).
    pub settings: serde_json::Value,
    /// The match seed.
    pub seed: u64,
    /// The versions' ids, in seat order.
    pub seats: Vec<i64>,
}

/// Who plays a seat of a claimed match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeatPlayer {
    /// A built-in robot of the game, by its name (`strong/nodes=2000`).
    Robot {
        /// The robot's name.
        name: String,
    },
    /// A built program, by its hash in the program store.
    Program {
        /// The program's hash.
        hash: String,
        /// The language it was built as (its toolchain is shown to it in the sandbox).
        language: String,
    },
}

/// A seat of a claimed match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedSeat {
    /// The version's id.
    pub version: i64,
    /// Its bot's id.
    pub bot: i64,
    /// Its bot's name (the seat's name in the match).
    pub bot_name: String,
    /// The version's number.
    pub number: i64,
    /// What plays.
    pub player: SeatPlayer,
}

/// A match a worker holds.
#[derive(Clone, Debug, PartialEq)]
pub struct ClaimedMatch {
    /// Its id.
    pub id: i64,
    /// The number its result must come with to be taken.
    pub claim: i64,
    /// Its kind.
    pub kind: MatchKind,
    /// The game.
    pub game: String,
    /// The game's settings.
    pub settings: serde_json::Value,
    /// The match seed.
    pub seed: u64,
    /// The seats, in order.
    pub seats: Vec<ClaimedSeat>,
}

/// A match whose worker stopped renewing its lease, queued again or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpiredMatch {
    /// The match.
    pub id: i64,
    /// Whether it used up its attempts and failed.
    pub failed: bool,
}

/// What a played match hands in.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchOutcome {
    /// Each seat's place, 1 the best, equal places tied.
    pub places: Vec<u32>,
    /// Each seat's fault in words, if it made one (it lost by it).
    pub faults: Vec<Option<String>>,
    /// Why the match ended.
    pub reason: String,
    /// The replay, `.jsonl.gz` bytes.
    pub replay: Vec<u8>,
}

/// A seat of a match, as pages show it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SeatSummary {
    /// Its number, from 0.
    pub seat: usize,
    /// The version's id.
    pub version_id: i64,
    /// The version's number.
    pub number: i64,
    /// The bot's id.
    pub bot_id: i64,
    /// The bot's name.
    pub bot: String,
    /// The bot's team's id (whose members see its logs).
    pub team_id: i64,
    /// The team's name.
    pub team: String,
    /// Whether it is a built-in robot.
    pub robot: bool,
    /// Its place, once finished.
    pub place: Option<u32>,
    /// Its fault in words, if it made one.
    pub fault: Option<String>,
    /// Its μ before a rated result.
    pub mu_before: Option<f64>,
    /// Its σ before a rated result.
    pub sigma_before: Option<f64>,
    /// Its μ after a rated result.
    pub mu_after: Option<f64>,
    /// Its σ after a rated result.
    pub sigma_after: Option<f64>,
}

/// A match, as pages show it (its replay is read apart: [`ArenaStore::match_replay`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MatchSummary {
    /// Its id.
    pub id: i64,
    /// Its kind.
    pub kind: MatchKind,
    /// The game.
    pub game: String,
    /// Where it is.
    pub state: ArenaMatchState,
    /// Whether its result moves ratings.
    pub rated: bool,
    /// The match seed (an SPRT pair's two games share it).
    pub seed: u64,
    /// The series it is a game of.
    pub series: Option<i64>,
    /// Its pair in an SPRT series.
    pub pair: Option<i64>,
    /// When it was queued (Unix milliseconds).
    pub created: i64,
    /// When its worker took it.
    pub started: Option<i64>,
    /// When it ended.
    pub finished: Option<i64>,
    /// Why it ended.
    pub reason: Option<String>,
    /// Why its workers failed it, for a failed match (or why the last one handed it back).
    pub error: Option<String>,
    /// The worker that holds it, while running.
    pub worker: Option<String>,
    /// The number of its latest claim (0 before any).
    pub claim: i64,
    /// Its claims that ran out or were handed back.
    pub attempts: i64,
    /// The number of its rated result, in the order ratings were applied.
    pub seq: Option<i64>,
    /// Its seats, in order.
    pub seats: Vec<SeatSummary>,
}

/// A series of games between two versions.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Series {
    /// Its id.
    pub id: i64,
    /// SPRT or challenge.
    pub kind: SeriesKind,
    /// The game.
    pub game: String,
    /// The team that started a challenge.
    pub team: Option<i64>,
    /// The new version (SPRT) or the challenger's.
    pub version_a: i64,
    /// The previous version (SPRT) or the challenged one.
    pub version_b: i64,
    /// The games a challenge plays; the most an SPRT plays.
    pub games_wanted: i64,
    /// Games queued so far.
    pub games_queued: i64,
    /// Games played so far.
    pub games_played: i64,
    /// Games version a won against b.
    pub wins: i64,
    /// Drawn.
    pub draws: i64,
    /// Lost.
    pub losses: i64,
    /// Pairs by version a's points in them (SPRT).
    pub counts: Pentanomial,
    /// Whether it plays on.
    pub running: bool,
    /// The SPRT's verdict so far (`None` for a challenge).
    pub result: Option<SeriesResult>,
    /// When it was started (Unix milliseconds).
    pub created: i64,
    /// When it ended.
    pub finished: Option<i64>,
}

impl Series {
    /// The SPRT's running result: verdict, Elo and games (`None` for a challenge).
    pub fn summary(&self) -> Option<SeriesSummary> {
        (self.kind == SeriesKind::Sprt)
            .then(|| arbiter_ladder::summarize(&self.counts, self.games_wanted.max(0) as u64))
    }
}

/// A team's immediate opponent in the playground.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlaygroundOpponent {
    /// A built-in robot of the game, by name (enrolled or not).
    Robot(String),
    /// Another version of one of the team's bots, by id.
    Version(i64),
}

impl ArenaStore {
    /// Queues `matches`, in one transaction; returns their ids in order.
    pub async fn queue_matches(&self, matches: &[NewArenaMatch]) -> Result<Vec<i64>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Queued under the scheduler's lock: the seats are checked and the match inserted with
        // nothing scheduled in between (and SQLite takes its write lock at once).
        super::ladder::lock_schedule(&mut tx).await?;
        let mut ids = Vec::with_capacity(matches.len());
        for new in matches {
            ids.push(insert_match(&mut tx, self.backend, new).await?);
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Claims the queued match that comes first (highest priority, then oldest) for `worker`,
    /// leased for `lease_ms`.
    pub async fn claim_match(
        &self,
        worker: &str,
        lease_ms: i64,
    ) -> Result<Option<ClaimedMatch>, StoreError> {
        // As claim_job: PostgreSQL skips the rows other claims hold; SQLite's transaction holds
        // the one write lock from this first statement.
        let skip = match self.backend {
            Backend::Postgres => "FOR UPDATE SKIP LOCKED",
            Backend::Sqlite => "",
        };
        let now = now_ms();
        let mut tx = self.pool.begin().await?;
        let row = sqlx::query(&format!(
            "UPDATE arena_matches SET state = 'running', claim = claim + 1, worker = $1, \
             lease_until = $2, started = $3 \
             WHERE state = 'queued' AND id = (SELECT id FROM arena_matches \
             WHERE state = 'queued' ORDER BY priority DESC, id LIMIT 1 {skip}) \
             RETURNING id, claim, kind, game, settings, seed"
        ))
        .bind(worker)
        .bind(now + lease_ms)
        .bind(now)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            tx.commit().await?;
            return Ok(None);
        };
        let id: i64 = row.try_get(0)?;
        let settings: String = row.try_get(4)?;
        let claimed = ClaimedMatch {
            id,
            claim: row.try_get(1)?,
            kind: match_kind(&row.try_get::<String, _>(2)?)?,
            game: row.try_get(3)?,
            settings: serde_json::from_str(&settings)
                .map_err(|e| StoreError::Corrupt(format!("settings of match {id}: {e}")))?,
            seed: row.try_get::<i64, _>(5)? as u64,
            seats: claimed_seats(&mut tx, id).await?,
        };
        tx.commit().await?;
        Ok(Some(claimed))
    }

    /// Extends the leases of every match `worker` holds; returns how many it holds.
    pub async fn renew_matches(&self, worker: &str, lease_ms: i64) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE arena_matches SET lease_until = $1 WHERE worker = $2 AND state = 'running'",
        )
        .bind(now_ms() + lease_ms)
        .bind(worker)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Puts back in the queue every match whose lease ran out, or fails it after its last
    /// attempt.
    pub async fn expire_match_leases(&self) -> Result<Vec<ExpiredMatch>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // A first statement that writes, so that SQLite takes its write lock at once.
        sqlx::query("UPDATE arena_ids SET last = last WHERE name = 'matches'")
            .execute(&mut *tx)
            .await?;
        let rows = sqlx::query(
            "SELECT id, claim FROM arena_matches WHERE state = 'running' \
             AND (lease_until IS NULL OR lease_until < $1) ORDER BY id",
        )
        .bind(now_ms())
        .fetch_all(&mut *tx)
        .await?;
        let mut expired = Vec::with_capacity(rows.len());
        for row in &rows {
            let (id, claim): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
            let error = "its worker stopped renewing its lease";
            let failed = requeue(&mut tx, id, claim, error, true).await?;
            expired.push(ExpiredMatch {
                id,
                failed: failed == Some(true),
            });
        }
        tx.commit().await?;
        Ok(expired)
    }

    /// Hands back a match its worker could not play for a reason of its own (the machine, the
    /// store, Arbiter — not a bot): queued again, or failed after its last attempt. Fenced by
    /// its claim.
    pub async fn fail_match(&self, m: &ClaimedMatch, error: &str) -> Result<Handed, StoreError> {
        let mut tx = self.pool.begin().await?;
        let handed = match requeue(&mut tx, m.id, m.claim, error, true).await? {
            Some(_) => Handed::Taken,
            None => Handed::Refused,
        };
        tx.commit().await?;
        Ok(handed)
    }

    /// Puts back in the queue the matches of `worker`, which is stopping: no attempt counted.
    pub async fn release_matches(&self, worker: &str) -> Result<u64, StoreError> {
        let mut tx = self.pool.begin().await?;
        let rows = sqlx::query(
            "UPDATE arena_matches SET state = 'queued', worker = NULL, lease_until = NULL, \
             started = NULL, error = 'its worker stopped' \
             WHERE state = 'running' AND worker = $1 RETURNING id",
        )
        .bind(worker)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(rows.len() as u64)
    }

    /// Hands in the result of match `m`, taken only with its latest claim: the seats' places
    /// and faults, the replay, the rating update of a rated match (in result order, under the
    /// `ratings` lock), and the counts of its series.
    pub async fn finish_match(
        &self,
        m: &ClaimedMatch,
        outcome: &MatchOutcome,
    ) -> Result<Handed, StoreError> {
        check_outcome(m, outcome)?;
        let mut tx = self.pool.begin().await?;
        let Some((rated, series, pair)) = close_match(&mut tx, m, outcome).await? else {
            let handed = already_taken(&mut tx, m).await?;
            tx.commit().await?;
            return Ok(handed);
        };
        for (seat, (place, fault)) in outcome.places.iter().zip(&outcome.faults).enumerate() {
            sqlx::query(
                "UPDATE arena_match_seats SET place = $1, fault = $2 \
                 WHERE match_id = $3 AND seat = $4",
            )
            .bind(i64::from(*place))
            .bind(fault.as_deref())
            .bind(m.id)
            .bind(seat as i64)
            .execute(&mut *tx)
            .await?;
        }
        if rated {
            let versions: Vec<i64> = m.seats.iter().map(|s| s.version).collect();
            apply_ratings(&mut tx, m.id, &versions, &outcome.places).await?;
        }
        if let Some(series) = series {
            count_series_game(&mut tx, series, m, &outcome.places, pair).await?;
        }
        tx.commit().await?;
        Ok(Handed::Taken)
    }

    /// Match `id`.
    pub async fn arena_match(&self, id: i64) -> Result<Option<MatchSummary>, StoreError> {
        let found = self
            .summaries(&format!("{MATCH_SELECT} WHERE m.id = $1"), id, None)
            .await?;
        Ok(found.into_iter().next())
    }

    /// Match `id`'s replay (`.jsonl.gz` bytes), once it is finished.
    pub async fn match_replay(&self, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
        let row = sqlx::query("SELECT replay FROM arena_matches WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?.flatten())
    }

    /// The matches bot `bot` (any of its versions) played or will play, newest first: those
    /// of an id below `before`, if given, at most `limit`.
    pub async fn matches_of_bot(
        &self,
        bot: i64,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let sql = format!(
            "{MATCH_SELECT} WHERE m.id IN (SELECT s.match_id FROM arena_match_seats s \
             JOIN arena_versions v ON v.id = s.version_id WHERE v.bot_id = $1) \
             AND m.id < $2 ORDER BY m.id DESC LIMIT $3"
        );
        self.summaries(&sql, bot, Some((before.unwrap_or(i64::MAX), limit)))
            .await
    }

    /// `game`'s matches queued or running: running first, then by queue order.
    pub async fn live_matches(&self, game: &str) -> Result<Vec<MatchSummary>, StoreError> {
        let sql = format!(
            "{MATCH_SELECT} WHERE m.game = $1 AND m.state IN ('queued', 'running') \
             ORDER BY CASE WHEN m.state = 'running' THEN 0 ELSE 1 END, m.priority DESC, m.id"
        );
        self.summaries_of_game(&sql, game, None).await
    }

    /// Every match of `game` whatever its state, newest first: those of an id below `before`,
    /// if given, at most `limit`.
    pub async fn matches_of_game(
        &self,
        game: &str,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let sql =
            format!("{MATCH_SELECT} WHERE m.game = $1 AND m.id < $2 ORDER BY m.id DESC LIMIT $3");
        let rows = sqlx::query(&sql)
            .bind(game)
            .bind(before.unwrap_or(i64::MAX))
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        self.with_seats(&rows).await
    }

    /// `game`'s finished matches, newest first, at most `limit`.
    pub async fn recent_matches(
        &self,
        game: &str,
        limit: i64,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let sql = format!(
            "{MATCH_SELECT} WHERE m.game = $1 AND m.state = 'finished' \
             ORDER BY m.finished DESC, m.id DESC LIMIT $2"
        );
        self.summaries_of_game(&sql, game, Some(limit)).await
    }

    /// Series `id`.
    pub async fn series(&self, id: i64) -> Result<Option<Series>, StoreError> {
        let row = sqlx::query(&format!("{SERIES_SELECT} WHERE s.id = $1"))
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(series_row).transpose()
    }

    /// The SPRT series of version `version` against its bot's previous active version (the
    /// latest, should it have become active more than once).
    pub async fn series_of_version(&self, version: i64) -> Result<Option<Series>, StoreError> {
        let row = sqlx::query(&format!(
            "{SERIES_SELECT} WHERE s.version_a = $1 AND s.kind = 'sprt' ORDER BY s.id DESC \
             LIMIT 1"
        ))
        .bind(version)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(series_row).transpose()
    }

    /// Team `team`'s challenges, newest first.
    pub async fn challenges_of_team(&self, team: i64) -> Result<Vec<Series>, StoreError> {
        let rows = sqlx::query(&format!(
            "{SERIES_SELECT} WHERE s.team_id = $1 AND s.kind = 'challenge' ORDER BY s.id DESC"
        ))
        .bind(team)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(series_row).collect()
    }

    /// Starts team `team`'s unrated challenge: `games` games of its version `version` against
    /// version `opponent` (of another bot of the same game), within `per_day` challenge games
    /// per team in 24 hours ([`StoreError::OverQuota`] beyond). The scheduler queues its games.
    pub async fn start_challenge(
        &self,
        team: i64,
        version: i64,
        opponent: i64,
        games: u32,
        per_day: u32,
    ) -> Result<Series, StoreError> {
        if games == 0 {
            return Err(StoreError::NotAllowed(
                "a challenge plays at least one game".into(),
            ));
        }
        let mut tx = self.pool.begin().await?;
        // The team's row is the lock: two challenges at once count each other's games.
        let locked = sqlx::query("UPDATE arena_teams SET name = name WHERE id = $1")
            .bind(team)
            .execute(&mut *tx)
            .await?;
        super::found(locked.rows_affected(), || format!("team {team}"))?;
        let game = challenge_game(&mut tx, team, version, opponent).await?;
        let used = challenge_games_since(&mut tx, team, now_ms() - DAY_MS).await?;
        if used + u64::from(games) > u64::from(per_day) {
            return Err(StoreError::OverQuota {
                what: format!("a challenge of {games} games"),
                limit: u64::from(per_day),
                used,
            });
        }
        let id = insert_series(
            &mut tx,
            SeriesKind::Challenge,
            &game,
            Some(team),
            version,
            opponent,
            u64::from(games),
        )
        .await?;
        tx.commit().await?;
        self.series(id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("series {id}")))
    }

    /// Queues at once (first in the queue) an unrated match of version `version` (seat 0)
    /// against `opponent` (seat 1), played with `settings` and `seed`: a robot of the game
    /// (enrolled in the playground only, if it is not on the ladder) or another version of a
    /// bot of the same team. Returns the match's id.
    pub async fn start_playground(
        &self,
        version: i64,
        opponent: &PlaygroundOpponent,
        settings: &serde_json::Value,
        seed: u64,
    ) -> Result<i64, StoreError> {
        let own = self
            .version_by_id(version)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("version {version}")))?;
        let bot = self
            .bot_by_id(own.bot)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("bot {}", own.bot)))?;
        let other = match opponent {
            PlaygroundOpponent::Robot(robot) => {
                let robot_bot = enroll_robot(self, &bot.game, robot, false).await?;
                self.version(robot_bot, 1)
                    .await?
                    .ok_or_else(|| StoreError::NotFound(format!("robot {robot}")))?
                    .id
            }
            PlaygroundOpponent::Version(other) => {
                self.own_other_version(bot.team.id, version, *other).await?
            }
        };
        let new = NewArenaMatch {
            kind: MatchKind::Playground,
            game: bot.game,
            settings: settings.clone(),
            seed,
            seats: vec![version, other],
        };
        Ok(self.queue_matches(&[new]).await?[0])
    }

    /// Version `other`, if it is a version (not `version` itself) of a bot of team `team`.
    async fn own_other_version(
        &self,
        team: i64,
        version: i64,
        other: i64,
    ) -> Result<i64, StoreError> {
        let found = self.version_by_id(other).await?;
        let owner = match &found {
            Some(v) => self.bot_by_id(v.bot).await?.map(|b| b.team.id),
            None => None,
        };
        if owner != Some(team) || other == version {
            return Err(StoreError::NotFound(format!(
                "version {other} among the team's other versions"
            )));
        }
        Ok(other)
    }

    /// The summaries of the matches `sql` selects with `$1` = `game`.
    async fn summaries_of_game(
        &self,
        sql: &str,
        game: &str,
        limit: Option<i64>,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let mut query = sqlx::query(sql).bind(game);
        if let Some(limit) = limit {
            query = query.bind(limit);
        }
        let rows = query.fetch_all(&self.pool).await?;
        self.with_seats(&rows).await
    }

    /// The summaries of the matches `sql` selects with `$1` = `key` (and `$2`, `$3`).
    async fn summaries(
        &self,
        sql: &str,
        key: i64,
        more: Option<(i64, i64)>,
    ) -> Result<Vec<MatchSummary>, StoreError> {
        let mut query = sqlx::query(sql).bind(key);
        if let Some((a, b)) = more {
            query = query.bind(a).bind(b);
        }
        let rows = query.fetch_all(&self.pool).await?;
        self.with_seats(&rows).await
    }

    /// The matches of `rows` (as [`MATCH_SELECT`] reads them) with their seats.
    async fn with_seats(&self, rows: &[AnyRow]) -> Result<Vec<MatchSummary>, StoreError> {
        let mut matches = rows.iter().map(match_row).collect::<Result<Vec<_>, _>>()?;
        if matches.is_empty() {
            return Ok(matches);
        }
        let ids: Vec<String> = matches.iter().map(|m| m.id.to_string()).collect();
        let seats = sqlx::query(&format!(
            "SELECT s.match_id, s.seat, s.version_id, v.number, b.id, b.name, t.id, t.name, \
             b.robot, s.place, s.fault, s.mu_before, s.sigma_before, s.mu_after, s.sigma_after \
             FROM arena_match_seats s JOIN arena_versions v ON v.id = s.version_id \
             JOIN arena_bots b ON b.id = v.bot_id JOIN arena_teams t ON t.id = b.team_id \
             WHERE s.match_id IN ({}) ORDER BY s.match_id, s.seat",
            ids.join(", ")
        ))
        .fetch_all(&self.pool)
        .await?;
        let mut by_match: BTreeMap<i64, Vec<SeatSummary>> = BTreeMap::new();
        for row in &seats {
            by_match
                .entry(row.try_get(0)?)
                .or_default()
                .push(seat_row(row)?);
        }
        for m in &mut matches {
            m.seats = by_match.remove(&m.id).unwrap_or_default();
        }
        Ok(matches)
    }
}

/// A day in milliseconds: the window of a team's challenge quota.
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

const MATCH_SELECT: &str = "SELECT m.id, m.kind, m.game, m.state, m.rated, m.series_id, m.pair, \
     m.created, m.started, m.finished, m.reason, m.error, m.worker, m.claim, m.attempts, m.seq, \
     m.seed FROM arena_matches m";

pub(crate) const SERIES_SELECT: &str = "SELECT s.id, s.kind, s.game, s.team_id, s.version_a, \
     s.version_b, s.games_wanted, s.games_queued, s.games_played, s.wins, s.draws, s.losses, \
     s.penta0, s.penta1, s.penta2, s.penta3, s.penta4, s.result, s.created, s.finished \
     FROM arena_series s";

/// Queues `new` in the caller's transaction, once its seats are found fit: versions that
/// passed, of bots of its game, and for a rated match versions of different bots that are
/// rated. Wakes PostgreSQL workers.
pub(crate) async fn insert_match(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    backend: Backend,
    new: &NewArenaMatch,
) -> Result<i64, StoreError> {
    insert_match_in(tx, backend, new, None).await
}

/// [`insert_match`] of a game of series `series` (and its pair, for an SPRT).
async fn insert_match_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    backend: Backend,
    new: &NewArenaMatch,
    series: Option<(i64, Option<i64>)>,
) -> Result<i64, StoreError> {
    check_seats(tx, new).await?;
    let id = next_id(tx, "matches").await?;
    sqlx::query(
        "INSERT INTO arena_matches (id, kind, game, settings, seed, series_id, pair, priority, \
         rated, state, claim, attempts, created) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'queued', 0, 0, $10)",
    )
    .bind(id)
    .bind(new.kind.as_str())
    .bind(&new.game)
    .bind(new.settings.to_string())
    .bind(new.seed as i64)
    .bind(series.map(|s| s.0))
    .bind(series.and_then(|s| s.1))
    .bind(new.kind.priority())
    .bind(i64::from(new.kind.rated()))
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    for (seat, version) in new.seats.iter().enumerate() {
        sqlx::query(
            "INSERT INTO arena_match_seats (match_id, seat, version_id) VALUES ($1, $2, $3)",
        )
        .bind(id)
        .bind(seat as i64)
        .bind(version)
        .execute(&mut **tx)
        .await?;
    }
    if backend == Backend::Postgres {
        sqlx::query(&format!("SELECT pg_notify('{ARENA_WORK_CHANNEL}', '')"))
            .execute(&mut **tx)
            .await?;
    }
    Ok(id)
}

/// Refuses a match whose seats cannot play it (see [`insert_match`]).
async fn check_seats(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    new: &NewArenaMatch,
) -> Result<(), StoreError> {
    let refuse = |why: String| Err(StoreError::NotAllowed(why));
    if new.seats.is_empty() {
        return refuse("a match needs at least one seat".into());
    }
    let ids: Vec<String> = new.seats.iter().map(i64::to_string).collect();
    let rows = sqlx::query(&format!(
        "SELECT v.id, v.state, b.id, b.game, \
         (SELECT COUNT(*) FROM arena_ratings r WHERE r.version_id = v.id) \
         FROM arena_versions v JOIN arena_bots b ON b.id = v.bot_id WHERE v.id IN ({})",
        ids.join(", ")
    ))
    .fetch_all(&mut **tx)
    .await?;
    let mut bots = BTreeMap::new();
    for row in &rows {
        let (version, state, bot, game): (i64, String, i64, String) = (
            row.try_get(0)?,
            row.try_get(1)?,
            row.try_get(2)?,
            row.try_get(3)?,
        );
        if state != VersionState::Passed.as_str() {
            return refuse(format!("version {version} cannot play: it is {state}"));
        }
        if game != new.game {
            return refuse(format!("version {version} plays {game}, not {}", new.game));
        }
        if new.kind.rated() && row.try_get::<i64, _>(4)? == 0 {
            return refuse(format!("version {version} is not on the ladder"));
        }
        bots.insert(version, bot);
    }
    if let Some(missing) = new.seats.iter().find(|v| !bots.contains_key(v)) {
        return Err(StoreError::NotFound(format!("version {missing}")));
    }
    let distinct: std::collections::BTreeSet<i64> = bots.values().copied().collect();
    if new.kind.rated() && distinct.len() != new.seats.len() {
        return refuse("a rated match seats versions of different bots only".into());
    }
    Ok(())
}

/// The seats of match `id`, as a worker plays them.
async fn claimed_seats(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
) -> Result<Vec<ClaimedSeat>, StoreError> {
    let rows = sqlx::query(
        "SELECT s.version_id, b.id, b.name, v.number, b.robot, v.file_name, v.program, \
         v.language FROM arena_match_seats s JOIN arena_versions v ON v.id = s.version_id \
         JOIN arena_bots b ON b.id = v.bot_id WHERE s.match_id = $1 ORDER BY s.seat",
    )
    .bind(id)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| {
            let version: i64 = r.try_get(0)?;
            let player = if r.try_get::<i64, _>(4)? != 0 {
                SeatPlayer::Robot {
                    name: r.try_get(5)?,
                }
            } else {
                let hash: Option<String> = r.try_get(6)?;
                SeatPlayer::Program {
                    hash: hash.ok_or_else(|| {
                        StoreError::Corrupt(format!("version {version} plays with no program"))
                    })?,
                    language: r.try_get::<Option<String>, _>(7)?.unwrap_or_default(),
                }
            };
            Ok(ClaimedSeat {
                version,
                bot: r.try_get(1)?,
                bot_name: r.try_get(2)?,
                number: r.try_get(3)?,
                player,
            })
        })
        .collect()
}

/// Puts match `id`, running under `claim`, back in the queue — or fails it once `count`ed
/// attempts reach [`MAX_MATCH_ATTEMPTS`]. `None` when it is not running under that claim;
/// else whether it failed for good.
async fn requeue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    claim: i64,
    error: &str,
    count: bool,
) -> Result<Option<bool>, StoreError> {
    let attempt = if count { "attempts + 1" } else { "attempts" };
    let row = sqlx::query(&format!(
        "UPDATE arena_matches SET attempts = {attempt}, error = $1, lease_until = NULL, \
         started = NULL, worker = NULL, \
         state = CASE WHEN {attempt} >= $2 THEN 'failed' ELSE 'queued' END, \
         finished = CASE WHEN {attempt} >= $2 THEN $3 ELSE NULL END \
         WHERE id = $4 AND claim = $5 AND state = 'running' RETURNING state"
    ))
    .bind(error)
    .bind(MAX_MATCH_ATTEMPTS)
    .bind(now_ms())
    .bind(id)
    .bind(claim)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(|r| Ok(r.try_get::<String, _>(0)? == "failed"))
        .transpose()
}

/// Refuses an outcome that does not fit the match: a place and a fault for every seat.
fn check_outcome(m: &ClaimedMatch, outcome: &MatchOutcome) -> Result<(), StoreError> {
    let seats = m.seats.len();
    if outcome.places.len() != seats || outcome.faults.len() != seats {
        return Err(StoreError::NotAllowed(format!(
            "match {} has {seats} seats, but its result gives {} places and {} faults",
            m.id,
            outcome.places.len(),
            outcome.faults.len()
        )));
    }
    if outcome.places.iter().any(|&p| p == 0 || p as usize > seats) {
        return Err(StoreError::NotAllowed(format!(
            "match {}: places run from 1 to {seats}, not {:?}",
            m.id, outcome.places
        )));
    }
    Ok(())
}

/// Marks `m` finished if it is running under its claim, with its reason and replay; gives
/// whether it is rated, its series and its pair, or `None` if it was not running so.
async fn close_match(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    m: &ClaimedMatch,
    outcome: &MatchOutcome,
) -> Result<Option<(bool, Option<i64>, Option<i64>)>, StoreError> {
    let row = sqlx::query(
        "UPDATE arena_matches SET state = 'finished', finished = $1, lease_until = NULL, \
         reason = $2, replay = $3 WHERE id = $4 AND claim = $5 AND state = 'running' \
         RETURNING rated, series_id, pair",
    )
    .bind(now_ms())
    .bind(&outcome.reason)
    .bind(outcome.replay.clone())
    .bind(m.id)
    .bind(m.claim)
    .fetch_optional(&mut **tx)
    .await?;
    row.map(|r| Ok((r.try_get::<i64, _>(0)? != 0, r.try_get(1)?, r.try_get(2)?)))
        .transpose()
}

/// A hand-in that found no running match of its claim: taken already if the match is
/// finished with this very claim (the answer to an earlier try was lost), refused otherwise.
async fn already_taken(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    m: &ClaimedMatch,
) -> Result<Handed, StoreError> {
    let row = sqlx::query("SELECT state, claim FROM arena_matches WHERE id = $1")
        .bind(m.id)
        .fetch_optional(&mut **tx)
        .await?;
    let Some(row) = row else {
        return Ok(Handed::Refused);
    };
    let (state, claim): (String, i64) = (row.try_get(0)?, row.try_get(1)?);
    Ok(if state == "finished" && claim == m.claim {
        Handed::Taken
    } else {
        Handed::Refused
    })
}

/// How a seat's place counts in its version's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Standing {
    /// First place alone.
    Win,
    /// First place shared.
    Draw,
    /// Any other place.
    Loss,
}

fn standing(places: &[u32], seat: usize) -> Standing {
    let firsts = places.iter().filter(|&&p| p == 1).count();
    match (places[seat], firsts) {
        (1, 1) => Standing::Win,
        (1, _) => Standing::Draw,
        _ => Standing::Loss,
    }
}

/// Applies a rated result: takes the next number of the `ratings` row (the lock), reads the
/// seats' ratings, rates, and writes each version's rating and counts and each seat's rating
/// before and after.
async fn apply_ratings(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    versions: &[i64],
    places: &[u32],
) -> Result<(), StoreError> {
    let seq: i64 =
        sqlx::query("UPDATE arena_ids SET last = last + 1 WHERE name = 'ratings' RETURNING last")
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?;
    let mut before = Vec::with_capacity(versions.len());
    for &version in versions {
        let row = rating_of(tx, version).await?.ok_or_else(|| {
            StoreError::Corrupt(format!("version {version} played a rated match unrated"))
        })?;
        before.push(row.rating);
    }
    let after = arbiter_ladder::rate(&before, places);
    let now = now_ms();
    for (seat, &version) in versions.iter().enumerate() {
        let count = |s: Standing| i64::from(standing(places, seat) == s);
        sqlx::query(
            "UPDATE arena_ratings SET mu = $1, sigma = $2, games = games + 1, wins = wins + $3, \
             draws = draws + $4, losses = losses + $5, first_seats = first_seats + $6, \
             last_played = $7 WHERE version_id = $8",
        )
        .bind(after[seat].mu)
        .bind(after[seat].sigma)
        .bind(count(Standing::Win))
        .bind(count(Standing::Draw))
        .bind(count(Standing::Loss))
        .bind(i64::from(seat == 0))
        .bind(now)
        .bind(version)
        .execute(&mut **tx)
        .await?;
        write_seat_ratings(tx, id, seat, before[seat], after[seat]).await?;
    }
    sqlx::query("UPDATE arena_matches SET seq = $1 WHERE id = $2")
        .bind(seq)
        .bind(id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

async fn write_seat_ratings(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: i64,
    seat: usize,
    before: Rating,
    after: Rating,
) -> Result<(), StoreError> {
    sqlx::query(
        "UPDATE arena_match_seats SET mu_before = $1, sigma_before = $2, mu_after = $3, \
         sigma_after = $4 WHERE match_id = $5 AND seat = $6",
    )
    .bind(before.mu)
    .bind(before.sigma)
    .bind(after.mu)
    .bind(after.sigma)
    .bind(id)
    .bind(seat as i64)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Version a's points in a game against version b: 1, ½ or 0 by their places.
fn points_of_a(a_place: u32, b_place: u32) -> f64 {
    match a_place.cmp(&b_place) {
        std::cmp::Ordering::Less => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Greater => 0.0,
    }
}

/// Counts a finished game of series `series` (its row is the lock: the two games of an SPRT
/// pair finishing at once see each other), and for an SPRT the pair once both are in; ends
/// the series when it has its verdict or its games.
async fn count_series_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    series: i64,
    m: &ClaimedMatch,
    places: &[u32],
    pair: Option<i64>,
) -> Result<(), StoreError> {
    let (a, b) = versions_of_series(tx, series).await?;
    let place_of = |v: i64| {
        m.seats
            .iter()
            .position(|s| s.version == v)
            .map(|i| places[i])
    };
    let (Some(pa), Some(pb)) = (place_of(a), place_of(b)) else {
        return Err(StoreError::Corrupt(format!(
            "match {} of series {series} does not seat both of its versions",
            m.id
        )));
    };
    let points = points_of_a(pa, pb);
    sqlx::query(
        "UPDATE arena_series SET games_played = games_played + 1, wins = wins + $1, \
         draws = draws + $2, losses = losses + $3 WHERE id = $4",
    )
    .bind(i64::from(points == 1.0))
    .bind(i64::from(points == 0.5))
    .bind(i64::from(points == 0.0))
    .bind(series)
    .execute(&mut **tx)
    .await?;
    let row = sqlx::query(&format!("{SERIES_SELECT} WHERE s.id = $1"))
        .bind(series)
        .fetch_one(&mut **tx)
        .await?;
    let mut state = series_row(&row)?;
    if let Some(pair) = pair
        && let Some((first, second)) = pair_points(tx, series, pair, a, b).await?
    {
        state.counts.add_pair(first, second);
    }
    let result = match state.kind {
        SeriesKind::Sprt => state
            .summary()
            .map(|s| s.result.as_str())
            .unwrap_or("running"),
        SeriesKind::Challenge if state.games_played >= state.games_wanted => "finished",
        SeriesKind::Challenge => "running",
    };
    let [p0, p1, p2, p3, p4] = state.counts.0.map(|c| c as i64);
    sqlx::query(
        "UPDATE arena_series SET penta0 = $1, penta1 = $2, penta2 = $3, penta3 = $4, \
         penta4 = $5, result = $6, finished = CASE WHEN $6 = 'running' THEN NULL ELSE $7 END \
         WHERE id = $8",
    )
    .bind(p0)
    .bind(p1)
    .bind(p2)
    .bind(p3)
    .bind(p4)
    .bind(result)
    .bind(now_ms())
    .bind(series)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The versions a and b of series `series`.
async fn versions_of_series(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    series: i64,
) -> Result<(i64, i64), StoreError> {
    let row = sqlx::query("SELECT version_a, version_b FROM arena_series WHERE id = $1")
        .bind(series)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("series {series}")))?;
    Ok((row.try_get(0)?, row.try_get(1)?))
}

/// Version a's points in each game of pair `pair` of series `series`, once both are finished.
async fn pair_points(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    series: i64,
    pair: i64,
    a: i64,
    b: i64,
) -> Result<Option<(f64, f64)>, StoreError> {
    let rows = sqlx::query(
        "SELECT m.id, s.version_id, s.place FROM arena_matches m \
         JOIN arena_match_seats s ON s.match_id = m.id \
         WHERE m.series_id = $1 AND m.pair = $2 AND m.state = 'finished' ORDER BY m.id",
    )
    .bind(series)
    .bind(pair)
    .fetch_all(&mut **tx)
    .await?;
    let mut places: BTreeMap<i64, (Option<u32>, Option<u32>)> = BTreeMap::new();
    for row in &rows {
        let (id, version, place): (i64, i64, Option<i64>) =
            (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        let entry = places.entry(id).or_default();
        let place = place.map(|p| p as u32);
        if version == a {
            entry.0 = place;
        } else if version == b {
            entry.1 = place;
        }
    }
    let games: Vec<f64> = places
        .values()
        .filter_map(|&(pa, pb)| Some(points_of_a(pa?, pb?)))
        .collect();
    Ok(match games[..] {
        [first, second] => Some((first, second)),
        _ => None,
    })
}

/// Makes a series in the caller's transaction; returns its id.
pub(crate) async fn insert_series(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    kind: SeriesKind,
    game: &str,
    team: Option<i64>,
    version_a: i64,
    version_b: i64,
    games: u64,
) -> Result<i64, StoreError> {
    let id = next_id(tx, "series").await?;
    sqlx::query(
        "INSERT INTO arena_series (id, kind, game, team_id, version_a, version_b, \
         games_wanted, games_queued, games_played, wins, draws, losses, penta0, penta1, \
         penta2, penta3, penta4, result, created) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'running', $8)",
    )
    .bind(id)
    .bind(kind.as_str())
    .bind(game)
    .bind(team)
    .bind(version_a)
    .bind(version_b)
    .bind(games as i64)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(id)
}

/// Queues the next games of `series` with `settings` and `seed`: an SPRT's next pair (the two
/// seat orders, one seed), or a challenge's next game (the challenger in seat 0 in even
/// games). Returns their ids.
pub(crate) async fn queue_series_games(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    backend: Backend,
    series: &Series,
    settings: &serde_json::Value,
    seed: u64,
) -> Result<Vec<i64>, StoreError> {
    let (a, b) = (series.version_a, series.version_b);
    let (orders, pair) = match series.kind {
        SeriesKind::Sprt => (vec![vec![a, b], vec![b, a]], Some(series.games_queued / 2)),
        SeriesKind::Challenge if series.games_queued % 2 == 0 => (vec![vec![a, b]], None),
        SeriesKind::Challenge => (vec![vec![b, a]], None),
    };
    let mut ids = Vec::with_capacity(orders.len());
    for seats in orders {
        let new = NewArenaMatch {
            kind: series.kind.match_kind(),
            game: series.game.clone(),
            settings: settings.clone(),
            seed,
            seats,
        };
        ids.push(insert_match_in(tx, backend, &new, Some((series.id, pair))).await?);
    }
    sqlx::query("UPDATE arena_series SET games_queued = games_queued + $1 WHERE id = $2")
        .bind(ids.len() as i64)
        .bind(series.id)
        .execute(&mut **tx)
        .await?;
    Ok(ids)
}

/// The game of a challenge of team `team`'s version `version` against `opponent`, once both
/// are found fit: the challenger a passed version of the team's, the opponent a passed
/// version of another bot of the same game.
async fn challenge_game(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    team: i64,
    version: i64,
    opponent: i64,
) -> Result<String, StoreError> {
    let side = |v: i64| {
        sqlx::query(
            "SELECT b.team_id, b.game, b.id, v.state FROM arena_versions v \
             JOIN arena_bots b ON b.id = v.bot_id WHERE v.id = $1",
        )
        .bind(v)
    };
    let own = side(version)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("version {version}")))?;
    let other = side(opponent)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("version {opponent}")))?;
    let (own_team, game, own_bot, own_state): (i64, String, i64, String) = (
        own.try_get(0)?,
        own.try_get(1)?,
        own.try_get(2)?,
        own.try_get(3)?,
    );
    let (other_game, other_bot, other_state): (String, i64, String) =
        (other.try_get(1)?, other.try_get(2)?, other.try_get(3)?);
    let refuse = |why: String| Err(StoreError::NotAllowed(why));
    if own_team != team {
        return Err(StoreError::NotFound(format!(
            "version {version} among the team's"
        )));
    }
    if other_game != game || other_bot == own_bot {
        return refuse("a challenge is against another bot of the same game".into());
    }
    let passed = VersionState::Passed.as_str();
    if own_state != passed || other_state != passed {
        return refuse("only versions that passed their check play challenges".into());
    }
    Ok(game)
}

/// The games of team `team`'s challenges started at or after `since`.
async fn challenge_games_since(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    team: i64,
    since: i64,
) -> Result<u64, StoreError> {
    let row = sqlx::query(
        "SELECT CAST(COALESCE(SUM(games_wanted), 0) AS BIGINT) FROM arena_series \
         WHERE team_id = $1 AND kind = 'challenge' AND created >= $2",
    )
    .bind(team)
    .bind(since)
    .fetch_one(&mut **tx)
    .await?;
    Ok(row.try_get::<i64, _>(0)?.max(0) as u64)
}

/// The rated results of `game`, in the order they were applied: (number, versions in seat
/// order, places).
pub(crate) async fn rated_results(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
) -> Result<Vec<(i64, Vec<i64>, Vec<u32>)>, StoreError> {
    let rows = sqlx::query(
        "SELECT m.seq, s.version_id, s.place FROM arena_matches m \
         JOIN arena_match_seats s ON s.match_id = m.id \
         WHERE m.game = $1 AND m.seq IS NOT NULL ORDER BY m.seq, s.seat",
    )
    .bind(game)
    .fetch_all(&mut **tx)
    .await?;
    let mut results: Vec<(i64, Vec<i64>, Vec<u32>)> = Vec::new();
    for row in &rows {
        let (seq, version, place): (i64, i64, Option<i64>) =
            (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
        let place = place
            .ok_or_else(|| StoreError::Corrupt(format!("a rated result ({seq}) without a place")))?
            as u32;
        match results.last_mut() {
            Some((last, seats, places)) if *last == seq => {
                seats.push(version);
                places.push(place);
            }
            _ => results.push((seq, vec![version], vec![place])),
        }
    }
    Ok(results)
}

/// The rated results of bot `bot`'s versions, as points of its rating history.
pub(crate) async fn rated_points(
    pool: &sqlx::AnyPool,
    bot: i64,
) -> Result<Vec<RatingPoint>, StoreError> {
    let rows = sqlx::query(
        "SELECT m.seq, m.id, s.version_id, v.number, s.mu_after, s.sigma_after, m.finished \
         FROM arena_match_seats s JOIN arena_matches m ON m.id = s.match_id \
         JOIN arena_versions v ON v.id = s.version_id \
         WHERE v.bot_id = $1 AND m.seq IS NOT NULL ORDER BY m.seq",
    )
    .bind(bot)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(RatingPoint {
                seq: r.try_get(0)?,
                match_id: Some(r.try_get(1)?),
                version_id: r.try_get(2)?,
                number: r.try_get(3)?,
                mu: r.try_get::<Option<f64>, _>(4)?.unwrap_or(f64::NAN),
                sigma: r.try_get::<Option<f64>, _>(5)?.unwrap_or(f64::NAN),
                at: r.try_get::<Option<i64>, _>(6)?.unwrap_or(0),
            })
        })
        .collect()
}

fn match_kind(text: &str) -> Result<MatchKind, StoreError> {
    MatchKind::parse(text).ok_or_else(|| StoreError::Corrupt(format!("match kind {text:?}")))
}

fn match_row(row: &AnyRow) -> Result<MatchSummary, StoreError> {
    let state: String = row.try_get(3)?;
    Ok(MatchSummary {
        id: row.try_get(0)?,
        kind: match_kind(&row.try_get::<String, _>(1)?)?,
        game: row.try_get(2)?,
        state: ArenaMatchState::parse(&state)
            .ok_or_else(|| StoreError::Corrupt(format!("match state {state:?}")))?,
        rated: row.try_get::<i64, _>(4)? != 0,
        series: row.try_get(5)?,
        pair: row.try_get(6)?,
        created: row.try_get(7)?,
        started: row.try_get(8)?,
        finished: row.try_get(9)?,
        reason: row.try_get(10)?,
        error: row.try_get(11)?,
        worker: row.try_get(12)?,
        claim: row.try_get(13)?,
        attempts: row.try_get(14)?,
        seq: row.try_get(15)?,
        seed: row.try_get::<i64, _>(16)? as u64,
        seats: Vec::new(),
    })
}

fn seat_row(row: &AnyRow) -> Result<SeatSummary, StoreError> {
    Ok(SeatSummary {
        seat: row.try_get::<i64, _>(1)? as usize,
        version_id: row.try_get(2)?,
        number: row.try_get(3)?,
        bot_id: row.try_get(4)?,
        bot: row.try_get(5)?,
        team_id: row.try_get(6)?,
        team: row.try_get(7)?,
        robot: row.try_get::<i64, _>(8)? != 0,
        place: row.try_get::<Option<i64>, _>(9)?.map(|p| p as u32),
        fault: row.try_get(10)?,
        mu_before: row.try_get(11)?,
        sigma_before: row.try_get(12)?,
        mu_after: row.try_get(13)?,
        sigma_after: row.try_get(14)?,
    })
}

pub(crate) fn series_row(row: &AnyRow) -> Result<Series, StoreError> {
    let kind: String = row.try_get(1)?;
    let kind = SeriesKind::parse(&kind)
        .ok_or_else(|| StoreError::Corrupt(format!("series kind {kind:?}")))?;
    let result: String = row.try_get(17)?;
    let counts: [i64; 5] = [
        row.try_get(12)?,
        row.try_get(13)?,
        row.try_get(14)?,
        row.try_get(15)?,
        row.try_get(16)?,
    ];
    Ok(Series {
        id: row.try_get(0)?,
        kind,
        game: row.try_get(2)?,
        team: row.try_get(3)?,
        version_a: row.try_get(4)?,
        version_b: row.try_get(5)?,
        games_wanted: row.try_get(6)?,
        games_queued: row.try_get(7)?,
        games_played: row.try_get(8)?,
        wins: row.try_get(9)?,
        draws: row.try_get(10)?,
        losses: row.try_get(11)?,
        counts: Pentanomial(counts.map(|c| c.max(0) as u64)),
        running: result == "running",
        result: match kind {
            SeriesKind::Sprt => Some(
                SeriesResult::parse(&result)
                    .ok_or_else(|| StoreError::Corrupt(format!("series result {result:?}")))?,
            ),
            SeriesKind::Challenge => None,
        },
        created: row.try_get(18)?,
        finished: row.try_get(19)?,
    })
}
