//! Bots and their versions: making a bot, reading it with its versions (what the viewer may
//! see of them, as [`access`] says), a version's source and check replays, choosing the active
//! version, retiring a bot.

use arbiter_store::{Bot, Version, VersionState};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Act, Object, Sight, Viewer};
use crate::error::{AppError, AppResult};
use crate::extract::{ApiJson, ApiPath, check_name};
use crate::redact;

/// What a page shows of a version's state: a passed version is `active` when it is the one
/// that plays, and every version of a retired bot is `retired`.
fn shown_state(bot: &Bot, version: &Version) -> &'static str {
    if bot.retired {
        "retired"
    } else if version.state == VersionState::Passed && bot.active == Some(version.number) {
        "active"
    } else {
        version.state.as_str()
    }
}

/// A version as the viewer may see it: its state for all, the rest for its team.
pub fn version_json(bot: &Bot, version: &Version, full: bool) -> Value {
    let mut out = json!({
        "number": version.number,
        "state": shown_state(bot, version),
        "stage": version.state.as_str(),
        "language": version.language,
        "created": version.created,
        "updated": version.updated,
    });
    if full {
        out["file_name"] = json!(version.file_name);
        out["reason"] = json!(version.reason);
        out["build_log"] = json!(version.build_log);
        out["program"] = json!(version.program);
    }
    out
}

/// The SPRT series a version plays against the team's previous active version, "is it
/// stronger?": `{result, elo, elo_error95, games, against, sentence}` (`against` the old
/// version's number), or null while it has none (a
/// first version, or one that never played).
pub async fn sprt_json(state: &ArenaState, version: &Version) -> AppResult<Value> {
    let Some(series) = state.store().series_of_version(version.id).await? else {
        return Ok(Value::Null);
    };
    let Some(summary) = series.summary() else {
        return Ok(Value::Null);
    };
    let old = state
        .store()
        .version_by_id(series.version_b)
        .await?
        .map_or(0, |v| v.number);
    Ok(json!({
        "result": summary.result,
        "elo": summary.elo,
        "elo_error95": summary.elo_error95,
        "games": summary.games,
        "against": old,
        "sentence": summary.sentence(version.number, old),
    }))
}

/// A version as [`version_json`] shows it, with its SPRT series.
pub async fn version_with_series(
    state: &ArenaState,
    bot: &Bot,
    version: &Version,
    full: bool,
) -> AppResult<Value> {
    let mut out = version_json(bot, version, full);
    out["sprt"] = sprt_json(state, version).await?;
    Ok(out)
}

/// A bot with its versions, newest first.
pub async fn bot_json(state: &ArenaState, viewer: &Viewer, bot: &Bot) -> AppResult<Value> {
    let full = access::sight(viewer, Object::Bot { team: bot.team.id }, false) == Sight::Full;
    let mut versions = state.store().versions(bot.id).await?;
    versions.sort_by_key(|v| std::cmp::Reverse(v.number));
    let mut shown = Vec::with_capacity(versions.len());
    for version in &versions {
        shown.push(version_with_series(state, bot, version, full).await?);
    }
    Ok(json!({
        "id": bot.id,
        "game": bot.game,
        "name": bot.name,
        "team": bot.team.name,
        "active": bot.active,
        "pinned": bot.pinned,
        "retired": bot.retired,
        "robot": bot.robot,
        "disabled": bot.disabled,
        "created": bot.created,
        "mine": full,
        "versions": shown,
    }))
}

/// The bot `game`/`name`, or why there is none.
pub async fn find_bot(state: &ArenaState, game: &str, name: &str) -> AppResult<Bot> {
    state.game(game)?;
    state
        .store()
        .bot(game, name)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no bot {name:?} of {game}")))
}

/// Makes the bot `game`/`name` in the team named `team` (one of the viewer's), or in the
/// viewer's own team.
pub async fn make_bot(
    state: &ArenaState,
    viewer: &Viewer,
    game: &str,
    name: &str,
    team: Option<&str>,
) -> AppResult<Bot> {
    let user = viewer.user()?;
    state.game(game)?;
    check_name("bot", name)?;
    let team_name = team.unwrap_or(&user.name);
    let team = state
        .store()
        .team_by_name(team_name)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no team {team_name:?}")))?;
    access::allow(viewer, Act::ChangeBot { team: team.id })?;
    if state.store().bot(game, name).await?.is_some() {
        return Err(AppError::Conflict(format!(
            "{game} already has a bot named {name:?}: choose another name"
        )));
    }
    Ok(state.store().add_bot(team.id, game, name).await?)
}

#[derive(Deserialize)]
pub struct NewBot {
    game: String,
    name: String,
    #[serde(default)]
    team: Option<String>,
}

/// Makes a bot, or answers the viewer's team's bot of that name as it is (`"created": false`):
/// a script may ask each time.
pub async fn create(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiJson(form): ApiJson<NewBot>,
) -> AppResult<(StatusCode, Json<Value>)> {
    access::allow(&viewer, Act::Create)?;
    state.game(&form.game)?;
    if let Some(bot) = state.store().bot(&form.game, &form.name).await? {
        access::allow(&viewer, Act::ChangeBot { team: bot.team.id }).map_err(|_| {
            AppError::Conflict(format!(
                "{} already has a bot named {:?}, of another team: choose another name",
                form.game, form.name
            ))
        })?;
        let mut out = bot_json(&state, &viewer, &bot).await?;
        out["created"] = json!(false);
        return Ok((StatusCode::OK, Json(out)));
    }
    let bot = make_bot(
        &state,
        &viewer,
        &form.game,
        &form.name,
        form.team.as_deref(),
    )
    .await?;
    let mut out = bot_json(&state, &viewer, &bot).await?;
    out["created"] = json!(true);
    Ok((StatusCode::CREATED, Json(out)))
}

#[derive(Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    game: Option<String>,
    /// Only the viewer's teams' bots.
    #[serde(default)]
    mine: Option<String>,
}

/// The bots of the viewer's teams, as `GET /bots/{game}/{name}` answers each.
pub async fn my_bots(state: &ArenaState, viewer: &Viewer) -> AppResult<Value> {
    let Viewer::User { teams, .. } = viewer else {
        return Err(AppError::sign_in());
    };
    let mut out = Vec::new();
    for team in teams {
        for bot in state.store().bots_of_team(*team).await? {
            out.push(bot_json(state, viewer, &bot).await?);
        }
    }
    Ok(Value::Array(out))
}

/// The bots of the offered games (or of one), or of the viewer's teams.
pub async fn list(
    State(state): State<ArenaState>,
    viewer: Viewer,
    Query(query): Query<ListQuery>,
) -> AppResult<Json<Value>> {
    if query
        .mine
        .as_deref()
        .is_some_and(|m| m == "1" || m == "true")
    {
        return Ok(Json(my_bots(&state, &viewer).await?));
    }
    let mut out = Vec::new();
    for game in &state.config().games {
        if query.game.as_ref().is_none_or(|g| *g == game.name) {
            for bot in state.store().bots(&game.name).await? {
                out.push(bot_json(&state, &viewer, &bot).await?);
            }
        }
    }
    Ok(Json(Value::Array(out)))
}

pub async fn one(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
) -> AppResult<Json<Value>> {
    let bot = find_bot(&state, &game, &name).await?;
    Ok(Json(bot_json(&state, &viewer, &bot).await?))
}

/// The bot and its version `number`, or why there is none.
pub async fn find_version(
    state: &ArenaState,
    game: &str,
    name: &str,
    number: i64,
) -> AppResult<(Bot, Version)> {
    let bot = find_bot(state, game, name).await?;
    let version = state
        .store()
        .version(bot.id, number)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("{game}/{name} has no version {number}")))?;
    // The bot again, read after its version: a check's end changes the version's state and the
    // bot's active number in one transaction, so a bot read after the version is at least as
    // new, and a version seen passed is seen active when it is. (Read only before, the bot
    // could be older than the version, and `arbiter submit` said "passed, not active".)
    let bot = find_bot(state, game, name).await?;
    Ok((bot, version))
}

/// A version, with the labels of its check replays.
pub async fn version(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name, number)): ApiPath<(String, String, i64)>,
) -> AppResult<Json<Value>> {
    let (bot, version) = find_version(&state, &game, &name, number).await?;
    let full = access::sight(&viewer, Object::Bot { team: bot.team.id }, false) == Sight::Full;
    let mut out = version_with_series(&state, &bot, &version, full).await?;
    let checks = state.store().check_replays(version.id).await?;
    out["checks"] = checks
        .iter()
        .enumerate()
        .map(|(i, (label, _))| json!({"index": i, "label": label}))
        .collect();
    out["bot"] = json!({"game": bot.game, "name": bot.name, "team": bot.team.name, "mine": full});
    Ok(Json(out))
}

/// The bytes a version was handed in as: for its team and the admins.
pub async fn source(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name, number)): ApiPath<(String, String, i64)>,
) -> AppResult<Response> {
    let (bot, version) = find_version(&state, &game, &name, number).await?;
    access::allow(&viewer, Act::ReadPrivate(Object::Bot { team: bot.team.id }))?;
    let bytes = state.store().source(version.id).await?;
    let disposition = format!(
        "attachment; filename=\"{}\"",
        version.file_name.replace('"', "")
    );
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// Check replay `index` of a version, in the viewer's JSON; the program seats' logs left out
/// for a viewer who is not of the team (unless logs are public).
pub async fn check_replay(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name, number, index)): ApiPath<(String, String, i64, usize)>,
) -> AppResult<Json<Value>> {
    let (bot, version) = find_version(&state, &game, &name, number).await?;
    let mut checks = state.store().check_replays(version.id).await?;
    if index >= checks.len() {
        return Err(AppError::NotFound(format!(
            "version {number} of {game}/{name} has {} check replays; there is no replay {index}",
            checks.len()
        )));
    }
    let (_, bytes) = checks.swap_remove(index);
    let sight = access::sight(
        &viewer,
        Object::Replay { team: bot.team.id },
        state.config().public_logs,
    );
    let replay = tokio::task::spawn_blocking(move || {
        redact::replay_json(&bytes, |header| {
            // In a check, every program seat is the bot's; the robots' logs tell nothing.
            redact::program_seats(header)
                .iter()
                .map(|program| sight == Sight::Full || !program)
                .collect()
        })
    })
    .await??;
    Ok(Json(replay))
}

#[derive(Deserialize)]
pub struct Choice {
    /// The version to play; `null` lets the newest passed one play.
    version: Option<i64>,
}

/// Chooses the version that plays (it must have passed its check), or lets the newest passed
/// one play again.
pub async fn set_active(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
    ApiJson(choice): ApiJson<Choice>,
) -> AppResult<Json<Value>> {
    let bot = find_bot(&state, &game, &name).await?;
    access::allow(&viewer, Act::ChangeBot { team: bot.team.id })?;
    match choice.version {
        Some(number) => {
            let (_, version) = find_version(&state, &game, &name, number).await?;
            if version.state != VersionState::Passed {
                return Err(AppError::Conflict(format!(
                    "version {number} has not passed its check ({}): only a passed version may \
                     play",
                    version.state.as_str()
                )));
            }
            state.store().set_active(bot.id, number).await?;
        }
        None => state.store().unpin(bot.id).await?,
    }
    let bot = find_bot(&state, &game, &name).await?;
    Ok(Json(bot_json(&state, &viewer, &bot).await?))
}

/// Retires a bot: it plays no more and takes no new versions.
pub async fn retire(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
) -> AppResult<Json<Value>> {
    let bot = find_bot(&state, &game, &name).await?;
    access::allow(&viewer, Act::ChangeBot { team: bot.team.id })?;
    state.store().retire(bot.id).await?;
    let bot = find_bot(&state, &game, &name).await?;
    Ok(Json(bot_json(&state, &viewer, &bot).await?))
}
