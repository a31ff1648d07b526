//! The arena's matches as the pages read them: one match (its seats with bot, team, version,
//! place, fault and rating after), a bot's matches page by page with its result in each, a
//! bot's rating over time, a match's replay with each seat's logs shown to that seat's team
//! only (as [`access::visible_seats`] says), and a match followed as events until it ends.

use arbiter_store::{MatchSummary, SeatSummary};
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Viewer};
use crate::bots::find_bot;
use crate::error::{AppError, AppResult};
use crate::events::{follow, place};
use crate::extract::{ApiPath, ApiQuery};
use crate::redact;

/// The most matches of a bot answered at once; `before` asks for the next page.
pub const PAGE: i64 = 20;

/// Whether a match state is one it keeps (its result is known, or it could not be played).
pub fn is_over(state: &str) -> bool {
    matches!(state, "finished" | "failed")
}

fn seat_json(seat: &SeatSummary) -> Value {
    json!({
        "seat": seat.seat,
        "bot": seat.bot,
        "team": seat.team,
        "version": seat.number,
        "robot": seat.robot,
        "place": seat.place,
        "fault": seat.fault,
        "mu": seat.mu_after,
        "sigma": seat.sigma_after,
    })
}

/// A match as every viewer sees it: nothing of it is private but its replay's logs.
pub fn match_json(m: &MatchSummary) -> Value {
    let state = m.state.as_str();
    json!({
        "id": m.id,
        "kind": m.kind.as_str(),
        "game": m.game,
        "state": state,
        "created": m.created,
        "started": m.started,
        "finished": m.finished,
        "series": m.series,
        "rated": m.rated,
        "reason": m.reason,
        "error": m.error,
        "seats": m.seats.iter().map(seat_json).collect::<Vec<_>>(),
        "replay": (state == "finished").then(|| format!("/api/arena/matches/{}/replay", m.id)),
    })
}

/// How a seat did against the others: `win` (alone in the best place), `draw` (sharing it),
/// `loss` (someone placed better); `None` before the result.
fn outcome(m: &MatchSummary, seat: &SeatSummary) -> Option<&'static str> {
    let mine = seat.place?;
    let others: Vec<u32> = m
        .seats
        .iter()
        .filter(|s| s.seat != seat.seat)
        .filter_map(|s| s.place)
        .collect();
    Some(if others.iter().any(|&p| p < mine) {
        "loss"
    } else if others.contains(&mine) {
        "draw"
    } else {
        "win"
    })
}

/// A match as seen from `bot`: the seat of its newest version in it (an SPRT game seats two
/// of its versions), its opponents and its result.
pub fn match_of_bot_json(m: &MatchSummary, bot: i64) -> Value {
    let mut out = match_json(m);
    let seat = m
        .seats
        .iter()
        .filter(|s| s.bot_id == bot)
        .max_by_key(|s| s.number);
    if let Some(seat) = seat {
        out["seat"] = json!(seat.seat);
        out["version"] = json!(seat.number);
        out["result"] = json!(outcome(m, seat));
        out["fault"] = json!(seat.fault);
        out["opponents"] = m
            .seats
            .iter()
            .filter(|s| s.seat != seat.seat)
            .map(|s| json!({"bot": s.bot, "team": s.team, "version": s.number, "robot": s.robot, "seat": s.seat}))
            .collect();
    }
    out
}

#[derive(Deserialize)]
pub struct Page {
    /// Only matches older than this one (the id the previous page ended with).
    #[serde(default)]
    before: Option<i64>,
}

/// A page of a bot's matches, newest first: `{matches, before}` where `before` asks for the
/// next page (null on the last).
pub async fn bot_matches_json(
    state: &ArenaState,
    game: &str,
    name: &str,
    before: Option<i64>,
) -> AppResult<Value> {
    let bot = find_bot(state, game, name).await?;
    let matches = state.store().matches_of_bot(bot.id, before, PAGE).await?;
    let next = if matches.len() as i64 == PAGE {
        matches.last().map(|m| m.id)
    } else {
        None
    };
    Ok(json!({
        "matches": matches.iter().map(|m| match_of_bot_json(m, bot.id)).collect::<Vec<_>>(),
        "before": next,
    }))
}

pub async fn bot_matches(
    State(state): State<ArenaState>,
    ApiPath((game, name)): ApiPath<(String, String)>,
    ApiQuery(page): ApiQuery<Page>,
) -> AppResult<Json<Value>> {
    Ok(Json(
        bot_matches_json(&state, &game, &name, page.before).await?,
    ))
}

/// The newest page of a bot's matches, each time it changes (a match queued, begun, ended).
pub async fn bot_matches_events(
    State(state): State<ArenaState>,
    ApiPath((game, name)): ApiPath<(String, String)>,
) -> AppResult<Response> {
    find_bot(&state, &game, &name).await?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, game, name) = (state.clone(), game.clone(), name.clone());
        async move { bot_matches_json(&state, &game, &name, None).await }
    };
    Ok(follow(permit, "matches", fetch, |_| false).into_response())
}

/// A bot's rating after each rated game of each of its versions, oldest first: the chart of
/// its page.
pub async fn ratings(
    State(state): State<ArenaState>,
    ApiPath((game, name)): ApiPath<(String, String)>,
) -> AppResult<Json<Value>> {
    let bot = find_bot(&state, &game, &name).await?;
    let points = state.store().rating_history(bot.id).await?;
    Ok(Json(
        points
            .iter()
            .map(|p| {
                json!({
                    "seq": p.seq, "match": p.match_id, "version": p.number, "at": p.at,
                    "mu": p.mu, "sigma": p.sigma, "score": p.mu - 3.0 * p.sigma,
                })
            })
            .collect(),
    ))
}

/// The match `id`, or why there is none.
pub async fn find_match(state: &ArenaState, id: i64) -> AppResult<MatchSummary> {
    state
        .store()
        .arena_match(id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no match {id}")))
}

/// The seats of a match that are the viewer's teams' (the replay page opens on one of them).
fn mine(viewer: &Viewer, m: &MatchSummary) -> Vec<usize> {
    let Viewer::User { teams, .. } = viewer else {
        return Vec::new();
    };
    m.seats
        .iter()
        .filter(|s| !s.robot && teams.contains(&s.team_id))
        .map(|s| s.seat)
        .collect()
}

/// The team of each seat's bot, by seat number; `None` for a robot.
fn seat_teams(m: &MatchSummary) -> Vec<Option<i64>> {
    let mut seats: Vec<&SeatSummary> = m.seats.iter().collect();
    seats.sort_by_key(|s| s.seat);
    seats
        .iter()
        .map(|s| (!s.robot).then_some(s.team_id))
        .collect()
}

pub async fn one(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    let m = find_match(&state, id).await?;
    let mut out = match_json(&m);
    out["mine"] = json!(mine(&viewer, &m));
    Ok(Json(out))
}

/// A match, each time its state changes, until it is over (the playground follows it).
pub async fn events(
    State(state): State<ArenaState>,
    ApiPath(id): ApiPath<i64>,
) -> AppResult<Response> {
    find_match(&state, id).await?;
    let permit = place(&state)?;
    let fetch = move || {
        let state = state.clone();
        async move { Ok(match_json(&find_match(&state, id).await?)) }
    };
    let over = |m: &Value| m["state"].as_str().is_some_and(is_over);
    Ok(follow(permit, "match", fetch, over).into_response())
}

/// A finished match's replay in the viewer's JSON, each program seat's logs left in for its
/// own team only (everyone's with public logs).
pub async fn replay(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath(id): ApiPath<i64>,
) -> AppResult<Json<Value>> {
    let m = find_match(&state, id).await?;
    let bytes = state.store().match_replay(id).await?.ok_or_else(|| {
        AppError::NotFound(format!(
            "match {id} has no replay ({}): a replay is kept when the match ends",
            m.state.as_str()
        ))
    })?;
    let allowed = access::visible_seats(&viewer, &seat_teams(&m), state.config().public_logs);
    let replay = tokio::task::spawn_blocking(move || {
        redact::replay_json(&bytes, |header| redact::visible_programs(header, &allowed))
    })
    .await??;
    Ok(Json(replay))
}
