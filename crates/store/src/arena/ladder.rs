//! The arena's ladder in the store: the operator's switches, the built-in robots, a rating per
//! version, the leaderboard and what matchmaking reads, and the scheduler's decisions, each
//! taken in one transaction under the `schedule` row so that two serves on one store never
//! queue the same need twice.
//!
//! A version's rating begins when it first becomes its bot's active one ([`activated`]): from
//! its predecessor's μ with σ reset, the predecessor and the number of the last rated result
//! at that moment kept with it, so that [`ArenaStore::recompute_ratings`] replays the very
//! same history. The ratings themselves change only in `finish_match` (`matches.rs`).

use std::collections::BTreeMap;

use arbiter_ladder::{Candidate, Rating, RatingEvent};
use sqlx::Row;
use sqlx::any::AnyRow;

use super::matches::{self, MatchKind, NewArenaMatch, SeriesKind};
use super::{ArenaStore, Bot, VersionState, next_id};
use crate::{StoreError, now_ms};

/// The reserved team of the built-in robots: no user or team may take its name.
pub const ROBOTS_TEAM: &str = "robots";

/// The setting of the ladder's pace (`arbiter_ladder::Pace` as written: `unlimited`, `20`).
pub const LADDER_PACE: &str = "ladder_pace";
/// The setting that pauses the ladder (`1`): no match is scheduled while it is set.
pub const LADDER_PAUSED: &str = "ladder_paused";
/// The setting that freezes uploads (`1`): no version may be handed in while it is set.
pub const UPLOADS_FROZEN: &str = "uploads_frozen";

/// The most games an SPRT series of a new version plays before it is called inconclusive.
pub const SPRT_MAX_GAMES: u64 = 1000;

/// The setting of the seat mix of `game`'s ladder games (`arbiter_ladder::SeatMix` as
/// written: `2`, `2:3,4:1`).
pub fn ladder_seats_setting(game: &str) -> String {
    format!("ladder_seats.{game}")
}

/// One row of a game's leaderboard: an active version of a bot on the ladder.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LadderEntry {
    /// 1 for the best score.
    pub rank: usize,
    /// The bot's id.
    pub bot_id: i64,
    /// The bot's name.
    pub bot: String,
    /// Its team's name.
    pub team: String,
    /// Its team's id.
    pub team_id: i64,
    /// The active version's number.
    pub version: i64,
    /// The active version's id.
    pub version_id: i64,
    /// μ − 3σ: what the ladder ranks by.
    pub score: f64,
    /// The rating's mean.
    pub mu: f64,
    /// The rating's uncertainty.
    pub sigma: f64,
    /// Rated games the version played.
    pub games: i64,
    /// Of which it won (first place alone).
    pub wins: i64,
    /// Drawn (first place shared).
    pub draws: i64,
    /// Lost.
    pub losses: i64,
    /// When it last played a rated game (Unix milliseconds).
    pub last_game: Option<i64>,
    /// Whether it is a built-in robot.
    pub robot: bool,
}

/// A point of a bot's rating over time: a version's start, or a rated result of it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RatingPoint {
    /// The number of the last rated result at that point (the order of all points).
    pub seq: i64,
    /// The match whose result this is; `None` for a version's start.
    pub match_id: Option<i64>,
    /// The version's id.
    pub version_id: i64,
    /// The version's number.
    pub number: i64,
    /// The rating's mean after it.
    pub mu: f64,
    /// Its uncertainty after it.
    pub sigma: f64,
    /// When (Unix milliseconds).
    pub at: i64,
}

/// What the ladder's scheduler decides from, read under the `schedule` lock.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderView {
    /// The time of the reading (Unix milliseconds).
    pub now: i64,
    /// The game's ladder matches waiting for a worker.
    pub queued: usize,
    /// When the game's last ladder match was queued.
    pub last_queued: Option<i64>,
    /// The game's ladder members. Their `games` and `last_played` count the ladder matches
    /// queued or running for them as played, so that the next pick does not seat them again
    /// before those are played.
    pub candidates: Vec<Candidate>,
}

/// A version's rating row, as a rated result reads and writes it.
pub(crate) struct RatingRow {
    pub(crate) rating: Rating,
}

impl ArenaStore {
    /// The operator's setting `name`, if set.
    pub async fn setting(&self, name: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT value FROM arena_settings WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    /// Sets the operator's setting `name` to `value`.
    pub async fn set_setting(&self, name: &str, value: &str) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO arena_settings (name, value) VALUES ($1, $2) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        )
        .bind(name)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    async fn flag(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self.setting(name).await?.as_deref() == Some("1"))
    }

    /// Whether the ladder is paused: the scheduler queues nothing.
    pub async fn ladder_paused(&self) -> Result<bool, StoreError> {
        self.flag(LADDER_PAUSED).await
    }

    /// Pauses or resumes the ladder.
    pub async fn set_ladder_paused(&self, paused: bool) -> Result<(), StoreError> {
        self.set_setting(LADDER_PAUSED, if paused { "1" } else { "0" })
            .await
    }

    /// Whether uploads are frozen: no version may be handed in.
    pub async fn uploads_frozen(&self) -> Result<bool, StoreError> {
        self.flag(UPLOADS_FROZEN).await
    }

    /// Freezes or opens uploads.
    pub async fn set_uploads_frozen(&self, frozen: bool) -> Result<(), StoreError> {
        self.set_setting(UPLOADS_FROZEN, if frozen { "1" } else { "0" })
            .await
    }

    /// Takes bot `bot` off the ladder (it plays no ladder game) or puts it back.
    pub async fn set_disabled(&self, bot: i64, disabled: bool) -> Result<(), StoreError> {
        let done = sqlx::query("UPDATE arena_bots SET disabled = $1 WHERE id = $2")
            .bind(i64::from(disabled))
            .bind(bot)
            .execute(&self.pool)
            .await?;
        super::found(done.rows_affected(), || format!("bot {bot}"))
    }

    /// Enrolls the built-in robot `robot` (`random`, `strong/nodes=2000`; the caller checks it
    /// against the game's robots) as a permanent member of `game`'s ladder: a bot of the team
    /// [`ROBOTS_TEAM`] named after it, with one passed version that is active and rated from
    /// the start. A robot already there is a conflict ([`StoreError::NameTaken`]), unless it
    /// was enrolled only as a playground opponent: then it joins the ladder.
    pub async fn add_robot(&self, game: &str, robot: &str) -> Result<Bot, StoreError> {
        let id = enroll_robot(self, game, robot, true).await?;
        self.bot_by_id(id)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("bot {id}")))
    }

    /// The robots of `game` (every game's with `None`), by game and name.
    pub async fn robots(&self, game: Option<&str>) -> Result<Vec<Bot>, StoreError> {
        let sql = format!(
            "{} WHERE b.robot = 1 AND ($1 IS NULL OR b.game = $1) \
             ORDER BY b.game, lower(b.name)",
            super::BOT_SELECT
        );
        let rows = sqlx::query(&sql).bind(game).fetch_all(&self.pool).await?;
        rows.iter().map(super::bot_row).collect()
    }

    /// `game`'s leaderboard: the active version of every bot that is neither retired nor
    /// disabled, best score (μ − 3σ) first.
    pub async fn leaderboard(&self, game: &str) -> Result<Vec<LadderEntry>, StoreError> {
        let rows = sqlx::query(&format!(
            "SELECT b.id, b.name, t.name, t.id, v.number, v.id, r.mu, r.sigma, r.games, r.wins, \
             r.draws, r.losses, r.last_played, b.robot {MEMBERS} ORDER BY b.id"
        ))
        .bind(game)
        .fetch_all(&self.pool)
        .await?;
        let mut entries = rows.iter().map(entry_row).collect::<Result<Vec<_>, _>>()?;
        entries.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.bot_id.cmp(&b.bot_id)));
        for (i, entry) in entries.iter_mut().enumerate() {
            entry.rank = i + 1;
        }
        Ok(entries)
    }

    /// `game`'s ladder members as matchmaking sees them ([`arbiter_ladder::pick_match`]),
    /// with their queued ladder matches counted as played.
    pub async fn ladder_candidates(&self, game: &str) -> Result<Vec<Candidate>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let candidates = candidates(&mut tx, game).await?;
        tx.commit().await?;
        Ok(candidates)
    }

    /// Takes one decision of the ladder's scheduler for `game` alone (under the `schedule`
    /// lock): `decide` is shown the queue and the members, and the match it returns (a ladder
    /// match of `game`) is queued. Returns the new match's id.
    pub async fn schedule_ladder<F>(&self, game: &str, decide: F) -> Result<Option<i64>, StoreError>
    where
        F: FnOnce(&LadderView) -> Option<NewArenaMatch> + Send,
    {
        let mut tx = self.pool.begin().await?;
        lock_schedule(&mut tx).await?;
        let (queued, last_queued) = ladder_queue(&mut tx, game).await?;
        let view = LadderView {
            now: now_ms(),
            queued,
            last_queued,
            candidates: candidates(&mut tx, game).await?,
        };
        let Some(new) = decide(&view) else {
            tx.commit().await?;
            return Ok(None);
        };
        if new.kind != MatchKind::Ladder || new.game != game {
            return Err(StoreError::NotAllowed(format!(
                "the ladder of {game} may queue only ladder matches of {game}, not a {} \
                 match of {}",
                new.kind.as_str(),
                new.game
            )));
        }
        let id = matches::insert_match(&mut tx, self.backend, &new).await?;
        tx.commit().await?;
        Ok(Some(id))
    }

    /// Queues the next games of `game`'s running series, alone (under the `schedule` lock):
    /// a pair (same seed, seats swapped) for each SPRT series with nothing queued or running
    /// — as long as SPRT games stay within a third of the queue (at least one pair) so that
    /// they never starve the ladder — and a game for each challenge with nothing queued or
    /// running and games left. Only an SPRT whose new version is still its bot's active one
    /// plays. `seed` gives each pair or game its seed. Returns the new matches' ids.
    pub async fn schedule_series(
        &self,
        game: &str,
        settings: &serde_json::Value,
        seed: &mut (dyn FnMut() -> u64 + Send),
    ) -> Result<Vec<i64>, StoreError> {
        let mut tx = self.pool.begin().await?;
        lock_schedule(&mut tx).await?;
        let (total, sprt) = series_queue(&mut tx, game).await?;
        let mut room = (total / 3).max(2).saturating_sub(sprt);
        let mut queued = Vec::new();
        for series in idle_series(&mut tx, game).await? {
            let games = match series.kind {
                SeriesKind::Sprt if room < 2 => continue,
                SeriesKind::Sprt => 2,
                SeriesKind::Challenge => 1,
            };
            let ids = matches::queue_series_games(&mut tx, self.backend, &series, settings, seed())
                .await?;
            if series.kind == SeriesKind::Sprt {
                room -= games;
            }
            queued.extend(ids);
        }
        tx.commit().await?;
        Ok(queued)
    }

    /// Replays `game`'s stored rating history (every version's start, every rated result, in
    /// the order the store applied them): the figures must equal the live ones.
    pub async fn recompute_ratings(&self, game: &str) -> Result<BTreeMap<i64, Rating>, StoreError> {
        let mut events: Vec<((i64, u8, i64), RatingEvent)> = Vec::new();
        // Under the `ratings` lock: no result is applied between the reads.
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE arena_ids SET last = last WHERE name = 'ratings'")
            .execute(&mut *tx)
            .await?;
        let starts = sqlx::query(
            "SELECT r.version_id, r.inherits, r.start_seq FROM arena_ratings r \
             JOIN arena_versions v ON v.id = r.version_id JOIN arena_bots b ON b.id = v.bot_id \
             WHERE b.game = $1",
        )
        .bind(game)
        .fetch_all(&mut *tx)
        .await?;
        for row in &starts {
            let (version, inherits, at): (i64, Option<i64>, i64) =
                (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
            // A start follows the result it saw last; starts at one number, in their order.
            let key = (at, 1, version);
            events.push((key, RatingEvent::Start { version, inherits }));
        }
        for (seq, seats, places) in matches::rated_results(&mut tx, game).await? {
            events.push(((seq, 0, 0), RatingEvent::Result { seats, places }));
        }
        tx.commit().await?;
        events.sort_by_key(|(key, _)| *key);
        Ok(arbiter_ladder::recompute(
            events.into_iter().map(|(_, e)| e),
        ))
    }

    /// The live rating of every version of `game` that has one.
    pub async fn ratings(&self, game: &str) -> Result<BTreeMap<i64, Rating>, StoreError> {
        let rows = sqlx::query(
            "SELECT r.version_id, r.mu, r.sigma FROM arena_ratings r \
             JOIN arena_versions v ON v.id = r.version_id JOIN arena_bots b ON b.id = v.bot_id \
             WHERE b.game = $1",
        )
        .bind(game)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let rating = Rating {
                    mu: r.try_get(1)?,
                    sigma: r.try_get(2)?,
                };
                Ok((r.try_get(0)?, rating))
            })
            .collect()
    }

    /// Bot `bot`'s rating over time, all its versions: each version's start and each rated
    /// result, in order.
    pub async fn rating_history(&self, bot: i64) -> Result<Vec<RatingPoint>, StoreError> {
        let mut points = Vec::new();
        let starts = sqlx::query(
            "SELECT r.start_seq, r.version_id, v.number, r.start_mu, r.created \
             FROM arena_ratings r JOIN arena_versions v ON v.id = r.version_id \
             WHERE v.bot_id = $1",
        )
        .bind(bot)
        .fetch_all(&self.pool)
        .await?;
        for r in &starts {
            points.push(RatingPoint {
                seq: r.try_get(0)?,
                match_id: None,
                version_id: r.try_get(1)?,
                number: r.try_get(2)?,
                mu: r.try_get(3)?,
                sigma: Rating::INITIAL.sigma,
                at: r.try_get(4)?,
            });
        }
        points.extend(matches::rated_points(&self.pool, bot).await?);
        points.sort_by_key(|p| (p.seq, p.match_id.is_none(), p.version_id));
        Ok(points)
    }
}

/// The members of a game's ladder, as the queries that read them end: bots of the game, not
/// retired nor disabled, their active version and its rating.
const MEMBERS: &str = "FROM arena_bots b JOIN arena_teams t ON t.id = b.team_id \
     JOIN arena_versions v ON v.bot_id = b.id AND v.number = b.active \
     JOIN arena_ratings r ON r.version_id = v.id \
     WHERE b.game = $1 AND b.retired = 0 AND b.disabled = 0";

fn entry_row(row: &AnyRow) -> Result<LadderEntry, StoreError> {
    let rating = Rating {
        mu: row.try_get(6)?,
        sigma: row.try_get(7)?,
    };
    Ok(LadderEntry {
        rank: 0,
        bot_id: row.try_get(0)?,
        bot: row.try_get(1)?,
        team: row.try_get(2)?,
        team_id: row.try_get(3)?,
        version: row.try_get(4)?,
        version_id: row.try_get(5)?,
        score: rating.score(),
        mu: rating.mu,
        sigma: rating.sigma,
        games: row.try_get(8)?,
        wins: row.try_get(9)?,
        draws: row.try_get(10)?,
        losses: row.try_get(11)?,
        last_game: row.try_get(12)?,
        robot: row.try_get::<i64, _>(13)? != 0,
    })
}

/// The ladder members of `game`, with the ladder matches queued or running for them counted
/// as games played at the time they were queued.
async fn candidates(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
) -> Result<Vec<Candidate>, StoreError> {
    let rows = sqlx::query(&format!(
        "SELECT v.id, b.id, b.team_id, r.mu, r.sigma, r.games, r.last_played, v.created, \
         b.robot, r.first_seats, \
         (SELECT COUNT(*) FROM arena_match_seats s JOIN arena_matches m ON m.id = s.match_id \
          WHERE s.version_id = v.id AND m.kind = 'ladder' AND m.state IN ('queued', 'running')), \
         (SELECT MAX(m.created) FROM arena_match_seats s JOIN arena_matches m ON m.id = s.match_id \
          WHERE s.version_id = v.id AND m.kind = 'ladder' AND m.state IN ('queued', 'running')) \
         {MEMBERS} ORDER BY v.id"
    ))
    .bind(game)
    .fetch_all(&mut **tx)
    .await?;
    rows.iter()
        .map(|r| {
            let played: i64 = r.try_get(5)?;
            let pending: i64 = r.try_get(10)?;
            let last: Option<i64> = r.try_get(6)?;
            let queued: Option<i64> = r.try_get(11)?;
            Ok(Candidate {
                version: r.try_get(0)?,
                bot: r.try_get(1)?,
                team: r.try_get(2)?,
                rating: Rating {
                    mu: r.try_get(3)?,
                    sigma: r.try_get(4)?,
                },
                games: (played + pending).max(0) as u64,
                last_played: last.max(queued),
                created: r.try_get(7)?,
                robot: r.try_get::<i64, _>(8)? != 0,
                first_seats: r.try_get::<i64, _>(9)?.max(0) as u64,
            })
        })
        .collect()
}

/// Takes the scheduler's lock for the caller's transaction (its first statement).
pub(crate) async fn lock_schedule(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE arena_ids SET last = last WHERE name = 'schedule'")
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// How many of `game`'s ladder matches wait for a worker, and when the last was queued.
async fn ladder_queue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
) -> Result<(usize, Option<i64>), StoreError> {
    let row = sqlx::query(
        "SELECT COALESCE(SUM(CASE WHEN state = 'queued' THEN 1 ELSE 0 END), 0), MAX(created) \
         FROM arena_matches WHERE game = $1 AND kind = 'ladder'",
    )
    .bind(game)
    .fetch_one(&mut **tx)
    .await?;
    let queued: i64 = row.try_get(0)?;
    Ok((queued.max(0) as usize, row.try_get(1)?))
}

/// How many of `game`'s matches are queued or running, and how many of them are SPRT games.
async fn series_queue(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
) -> Result<(usize, usize), StoreError> {
    let row = sqlx::query(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN kind = 'sprt' THEN 1 ELSE 0 END), 0) \
         FROM arena_matches WHERE game = $1 AND state IN ('queued', 'running')",
    )
    .bind(game)
    .fetch_one(&mut **tx)
    .await?;
    let (total, sprt): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
    Ok((total.max(0) as usize, sprt.max(0) as usize))
}

/// `game`'s running series that have nothing queued or running and may play more: SPRT
/// series whose new version is still active, challenges with games left; least played first.
async fn idle_series(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
) -> Result<Vec<matches::Series>, StoreError> {
    let sql = format!(
        "{} WHERE s.game = $1 AND s.result = 'running' \
         AND NOT EXISTS (SELECT 1 FROM arena_matches m WHERE m.series_id = s.id \
             AND m.state IN ('queued', 'running')) \
         AND (s.kind = 'challenge' AND s.games_queued < s.games_wanted \
             OR s.kind = 'sprt' AND EXISTS (SELECT 1 FROM arena_versions v \
                 JOIN arena_bots b ON b.id = v.bot_id \
                 WHERE v.id = s.version_a AND b.active = v.number)) \
         ORDER BY s.games_queued, s.id",
        matches::SERIES_SELECT
    );
    let rows = sqlx::query(&sql).bind(game).fetch_all(&mut **tx).await?;
    rows.iter().map(matches::series_row).collect()
}

/// What follows when bot `bot`'s active version may have changed in the caller's transaction
/// (`before` was its number before): a version active for the first time gets its rating row —
/// its predecessor's μ with σ reset, or the initial rating — and, if it replaces another
/// version of a bot that is no robot, an SPRT series against it.
pub(crate) async fn activated(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    bot: i64,
    before: Option<i64>,
) -> Result<(), StoreError> {
    let row = sqlx::query(
        "SELECT b.active, b.robot, b.game, v.id, \
         (SELECT p.id FROM arena_versions p WHERE p.bot_id = b.id AND p.number = $2) \
         FROM arena_bots b JOIN arena_versions v ON v.bot_id = b.id AND v.number = b.active \
         WHERE b.id = $1",
    )
    .bind(bot)
    .bind(before)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else { return Ok(()) };
    let (active, robot, game): (i64, i64, String) =
        (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    let (version, previous): (i64, Option<i64>) = (row.try_get(3)?, row.try_get(4)?);
    if before == Some(active) {
        return Ok(());
    }
    let fresh = start_rating(tx, version, previous).await?;
    if let Some(previous) = previous.filter(|_| fresh && robot == 0) {
        matches::insert_series(
            tx,
            SeriesKind::Sprt,
            &game,
            None,
            version,
            previous,
            SPRT_MAX_GAMES,
        )
        .await?;
    }
    Ok(())
}

/// Gives `version` its rating row unless it has one: `previous`'s μ with σ reset if it has a
/// rating, else the initial rating; returns whether it was new. Takes the `ratings` row first,
/// so that no result is applied between reading `previous` and noting where it started.
async fn start_rating(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    version: i64,
    previous: Option<i64>,
) -> Result<bool, StoreError> {
    let seq: i64 =
        sqlx::query("UPDATE arena_ids SET last = last WHERE name = 'ratings' RETURNING last")
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?;
    let exists = sqlx::query("SELECT 1 FROM arena_ratings WHERE version_id = $1")
        .bind(version)
        .fetch_optional(&mut **tx)
        .await?;
    if exists.is_some() {
        return Ok(false);
    }
    let inherited = match previous {
        Some(p) => rating_of(tx, p).await?.map(|r| (p, r.rating.inherited())),
        None => None,
    };
    let start = inherited.map_or(Rating::INITIAL, |(_, r)| r);
    sqlx::query(
        "INSERT INTO arena_ratings (version_id, mu, sigma, start_mu, games, wins, draws, \
         losses, first_seats, last_played, inherits, start_seq, created) \
         VALUES ($1, $2, $3, $2, 0, 0, 0, 0, 0, NULL, $4, $5, $6)",
    )
    .bind(version)
    .bind(start.mu)
    .bind(start.sigma)
    .bind(inherited.map(|(p, _)| p))
    .bind(seq)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    Ok(true)
}

/// Version `version`'s rating, if it has one.
pub(crate) async fn rating_of(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    version: i64,
) -> Result<Option<RatingRow>, StoreError> {
    let row = sqlx::query("SELECT mu, sigma FROM arena_ratings WHERE version_id = $1")
        .bind(version)
        .fetch_optional(&mut **tx)
        .await?;
    row.map(|r| {
        Ok(RatingRow {
            rating: Rating {
                mu: r.try_get(0)?,
                sigma: r.try_get(1)?,
            },
        })
    })
    .transpose()
}

/// Makes (or finds) the robot bot `robot` of `game` with its one passed version; `ladder`
/// says whether it joins the ladder (`add_robot`) or only sits in the playground (disabled).
/// Returns the bot's id.
pub(crate) async fn enroll_robot(
    store: &ArenaStore,
    game: &str,
    robot: &str,
    ladder: bool,
) -> Result<i64, StoreError> {
    check_robot_name(robot)?;
    let mut tx = store.pool.begin().await?;
    lock_schedule(&mut tx).await?;
    if let Some((id, disabled)) = robot_bot(&mut tx, game, robot).await? {
        if ladder && !disabled {
            return Err(StoreError::NameTaken {
                kind: "robot",
                name: robot.to_owned(),
            });
        }
        if ladder {
            sqlx::query("UPDATE arena_bots SET disabled = 0 WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        return Ok(id);
    }
    let (team, user) = robots_team(&mut tx).await?;
    let id = insert_robot(&mut tx, (team, user), game, robot, !ladder).await?;
    tx.commit().await?;
    Ok(id)
}

/// A robot's name as the catalog writes it: no blank, no control character, at most 64.
fn check_robot_name(robot: &str) -> Result<(), StoreError> {
    let bad = |why: &str| {
        Err(StoreError::BadName {
            kind: "robot",
            name: robot.to_owned(),
            why: why.to_owned(),
        })
    };
    if robot.is_empty() {
        return bad("it is empty");
    }
    if robot.chars().count() > 64 {
        return bad("it is longer than 64 characters");
    }
    if robot.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad("it has a blank or a control character");
    }
    Ok(())
}

/// The robot bot `robot` of `game`, if there is one: its id and whether it is disabled.
async fn robot_bot(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    game: &str,
    robot: &str,
) -> Result<Option<(i64, bool)>, StoreError> {
    let row = sqlx::query(
        "SELECT id, disabled, robot FROM arena_bots WHERE game = $1 AND lower(name) = lower($2)",
    )
    .bind(game)
    .bind(robot)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(row) = row else { return Ok(None) };
    if row.try_get::<i64, _>(2)? == 0 {
        return Err(StoreError::NameTaken {
            kind: "bot",
            name: robot.to_owned(),
        });
    }
    Ok(Some((row.try_get(0)?, row.try_get::<i64, _>(1)? != 0)))
}

/// The ids of the team of the robots and of its one user (the robots' versions' uploader),
/// made the first time. The user's password hash is no hash: nobody signs in as it.
async fn robots_team(tx: &mut sqlx::Transaction<'_, sqlx::Any>) -> Result<(i64, i64), StoreError> {
    let found = sqlx::query(
        "SELECT t.id, m.user_id FROM arena_teams t JOIN arena_members m ON m.team_id = t.id \
         WHERE lower(t.name) = $1",
    )
    .bind(ROBOTS_TEAM)
    .fetch_optional(&mut **tx)
    .await?;
    if let Some(row) = found {
        return Ok((row.try_get(0)?, row.try_get(1)?));
    }
    let user = next_id(tx, "users").await?;
    sqlx::query(
        "INSERT INTO arena_users (id, name, admin, password, created) VALUES ($1, $2, 0, '!', $3)",
    )
    .bind(user)
    .bind(ROBOTS_TEAM)
    .bind(now_ms())
    .execute(&mut **tx)
    .await?;
    let team = super::insert_team(tx, ROBOTS_TEAM, user).await?;
    Ok((team.id, user))
}

/// Makes the robot's bot, its one version (passed, language `robot`, its file name the
/// robot's name, no program) and, as its active version, its rating.
async fn insert_robot(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    (team, user): (i64, i64),
    game: &str,
    robot: &str,
    disabled: bool,
) -> Result<i64, StoreError> {
    let now = now_ms();
    let bot = next_id(tx, "bots").await?;
    sqlx::query(
        "INSERT INTO arena_bots (id, team_id, game, name, versions, active, pinned, retired, \
         created, robot, disabled) VALUES ($1, $2, $3, $4, 1, 1, 1, 0, $5, 1, $6)",
    )
    .bind(bot)
    .bind(team)
    .bind(game)
    .bind(robot)
    .bind(now)
    .bind(i64::from(disabled))
    .execute(&mut **tx)
    .await?;
    let version = next_id(tx, "versions").await?;
    sqlx::query(
        "INSERT INTO arena_versions (id, bot_id, number, state, language, file_name, source, \
         uploader, created, updated) VALUES ($1, $2, 1, $3, 'robot', $4, $5, $6, $7, $7)",
    )
    .bind(version)
    .bind(bot)
    .bind(VersionState::Passed.as_str())
    .bind(robot)
    .bind(Vec::<u8>::new())
    .bind(user)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    start_rating(tx, version, None).await?;
    Ok(bot)
}
