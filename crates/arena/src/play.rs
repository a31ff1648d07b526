//! Unrated matches a team starts for its bot: a challenge (a series of games against another
//! bot of the game, within the team's daily quota of challenge games) and the playground (one
//! match at once against a built-in robot or another of the bot's own versions, played before
//! anything else is, to be watched from the page).

use arbiter_store::{Bot, PlaygroundOpponent, Version, VersionState};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Act, Viewer};
use crate::bots::{find_bot, find_version};
use crate::error::{AppError, AppResult};
use crate::extract::{ApiJson, ApiPath};

/// The most games one challenge asks for.
pub const MAX_CHALLENGE_GAMES: u32 = 100;

/// The version of `bot` that plays, or why none does.
async fn active_version(state: &ArenaState, bot: &Bot) -> AppResult<Version> {
    let missing = || {
        AppError::Conflict(format!(
            "{}/{} has no version that plays yet (none has passed its check)",
            bot.game, bot.name
        ))
    };
    let number = bot.active.ok_or_else(missing)?;
    state
        .store()
        .version(bot.id, number)
        .await?
        .ok_or_else(missing)
}

/// Refuses a bot that does not play: retired or disabled by an admin.
fn check_plays(bot: &Bot) -> AppResult<()> {
    if bot.retired || bot.disabled {
        let why = if bot.retired { "retired" } else { "disabled" };
        return Err(AppError::Conflict(format!(
            "{}/{} is {why}: it plays no match",
            bot.game, bot.name
        )));
    }
    Ok(())
}

#[derive(Deserialize)]
pub struct Challenge {
    /// The name of the bot challenged, of the same game.
    opponent: String,
    /// How many games (the series is played in pairs, seats swapped).
    games: u32,
}

/// Starts a challenge: `games` unrated games of the bot's active version against the
/// opponent's; 201 with the series.
pub async fn challenge(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
    ApiJson(form): ApiJson<Challenge>,
) -> AppResult<(StatusCode, Json<Value>)> {
    let bot = find_bot(&state, &game, &name).await?;
    access::allow(&viewer, Act::PlayWith { team: bot.team.id })?;
    if form.games == 0 || form.games > MAX_CHALLENGE_GAMES {
        return Err(AppError::BadRequest(format!(
            "a challenge is 1 to {MAX_CHALLENGE_GAMES} games, not {}",
            form.games
        )));
    }
    let opponent = find_bot(&state, &game, &form.opponent).await?;
    if opponent.id == bot.id {
        return Err(AppError::BadRequest(
            "a bot does not challenge itself: its versions meet in the playground".to_owned(),
        ));
    }
    check_plays(&bot)?;
    check_plays(&opponent)?;
    let mine = active_version(&state, &bot).await?;
    let theirs = active_version(&state, &opponent).await?;
    let series = state
        .store()
        .start_challenge(
            bot.team.id,
            mine.id,
            theirs.id,
            form.games,
            state.config().challenge_games_per_day,
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "series": series.id,
            "bot": bot.name,
            "version": mine.number,
            "opponent": opponent.name,
            "opponent_version": theirs.number,
            "games": form.games,
        })),
    ))
}

/// Whom the playground's match is against: a built-in robot by name (`"strong/nodes=2000"`)
/// or another version of the bot by number.
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Opponent {
    /// A version of the bot.
    Version(i64),
    /// A robot of the game.
    Robot(String),
}

/// Refuses a robot the game does not have: the name is one of its robots, or one of them
/// with its settings after a `/` (`strong/nodes=2000`, which the robot itself reads).
fn check_robot(game: &str, robot: &str) -> AppResult<()> {
    use arbiter_catalog::Catalog;
    let known: Vec<&str> = arbiter_catalog::Games::games()
        .into_iter()
        .find(|g| g.name == game)
        .map(|g| g.robots.to_vec())
        .unwrap_or_default();
    let base = robot.split('/').next().unwrap_or(robot);
    if known.contains(&base) {
        return Ok(());
    }
    Err(AppError::NotFound(format!(
        "{game} has no robot {robot:?} (its robots: {}; strong/nodes=N searches N nodes)",
        known.join(", ")
    )))
}

/// A seed no one chose: the playground's match is a new game each time.
fn new_seed() -> u64 {
    let secret = crate::guard::secret();
    u64::from_str_radix(&secret[..16], 16).unwrap_or_default()
}

#[derive(Deserialize)]
pub struct Playground {
    opponent: Opponent,
    /// The version that plays (default: the active one).
    #[serde(default)]
    version: Option<i64>,
}

/// The version of the bot that plays in the playground: the one asked for (it must have
/// passed its check), else the active one.
async fn playing_version(state: &ArenaState, bot: &Bot, number: Option<i64>) -> AppResult<Version> {
    let Some(number) = number else {
        return active_version(state, bot).await;
    };
    let (_, version) = find_version(state, &bot.game, &bot.name, number).await?;
    if version.state != VersionState::Passed {
        return Err(AppError::Conflict(format!(
            "version {number} of {}/{} has not passed its check ({}): only a passed version \
             plays",
            bot.game,
            bot.name,
            version.state.as_str()
        )));
    }
    Ok(version)
}

/// Starts a playground match at once; 201 with its id and where to follow it.
pub async fn playground(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
    ApiJson(form): ApiJson<Playground>,
) -> AppResult<(StatusCode, Json<Value>)> {
    let bot = find_bot(&state, &game, &name).await?;
    access::allow(&viewer, Act::PlayWith { team: bot.team.id })?;
    check_plays(&bot)?;
    let version = playing_version(&state, &bot, form.version).await?;
    let opponent = match form.opponent {
        Opponent::Robot(robot) if robot.trim().is_empty() => {
            return Err(AppError::BadRequest(
                "name the robot to play against (or a version number)".to_owned(),
            ));
        }
        Opponent::Robot(robot) => {
            check_robot(&game, robot.trim())?;
            PlaygroundOpponent::Robot(robot.trim().to_owned())
        }
        Opponent::Version(number) => {
            let other = playing_version(&state, &bot, Some(number)).await?;
            if other.id == version.id {
                return Err(AppError::BadRequest(format!(
                    "v{number} would play itself: choose another version or a robot"
                )));
            }
            PlaygroundOpponent::Version(other.id)
        }
    };
    let settings = &state.game(&game)?.settings;
    let id = state
        .store()
        .start_playground(version.id, &opponent, settings, new_seed())
        .await?;
    if let Some(wake) = &state.config().wake {
        wake.notify_one();
    }
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "match": id,
            "url": format!("/api/arena/matches/{id}"),
            "events": format!("/api/arena/matches/{id}/events"),
        })),
    ))
}
