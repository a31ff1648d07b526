//! The admins' views: every user with their teams and uploads against the quota, every bot,
//! and the queue of builds and checks; and running the arena: pausing the ladder, freezing
//! uploads (for a final), disabling a bot (it leaves the ladder, its versions stay).

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Act, Viewer};
use crate::accounts::{DAY_MS, now_ms};
use crate::bots::{bot_json, find_bot};
use crate::error::AppResult;
use crate::extract::{ApiJson, ApiPath};
use serde::Deserialize;

pub async fn users(State(state): State<ArenaState>, viewer: Viewer) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Admin)?;
    let store = state.store();
    let since = now_ms() - DAY_MS;
    let mut out = Vec::new();
    for user in store.users().await? {
        let teams = store.teams_of(user.id).await?;
        out.push(json!({
            "id": user.id,
            "name": user.name,
            "admin": user.admin,
            "created": user.created,
            "teams": teams.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            "uploads_today": store.uploads_since(user.id, since).await?,
            "uploads_per_day": state.config().uploads_per_day,
        }));
    }
    Ok(Json(Value::Array(out)))
}

pub async fn bots(State(state): State<ArenaState>, viewer: Viewer) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Admin)?;
    let mut out = Vec::new();
    for bot in state.store().all_bots().await? {
        out.push(bot_json(&state, &viewer, &bot).await?);
    }
    Ok(Json(Value::Array(out)))
}

pub async fn queue(State(state): State<ArenaState>, viewer: Viewer) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Admin)?;
    let jobs = state.store().queue().await?;
    let jobs: Vec<Value> = jobs
        .iter()
        .map(|j| {
            json!({
                "id": j.id, "kind": j.kind.as_str(), "game": j.game, "bot": j.bot_name,
                "version": j.number, "running": j.running, "worker": j.worker,
                "lease_until": j.lease_until, "attempts": j.attempts, "created": j.created,
            })
        })
        .collect();
    Ok(Json(Value::Array(jobs)))
}

/// Whether the ladder is paused and uploads are frozen: what the operator has switched.
pub async fn operations_json(state: &ArenaState) -> AppResult<Value> {
    let store = state.store();
    Ok(json!({
        "ladder_paused": store.ladder_paused().await?,
        "uploads_frozen": store.uploads_frozen().await?,
    }))
}

pub async fn operations(State(state): State<ArenaState>, viewer: Viewer) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Admin)?;
    Ok(Json(operations_json(&state).await?))
}

#[derive(Deserialize)]
pub struct Ladder {
    paused: bool,
}

/// Pauses the ladder (no new ladder match is queued; those queued are played) or resumes it.
pub async fn ladder(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiJson(form): ApiJson<Ladder>,
) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Operate)?;
    state.store().set_ladder_paused(form.paused).await?;
    Ok(Json(operations_json(&state).await?))
}

#[derive(Deserialize)]
pub struct Uploads {
    frozen: bool,
}

/// Freezes uploads (every new version is refused, 423) or opens them again.
pub async fn uploads(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiJson(form): ApiJson<Uploads>,
) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Operate)?;
    state.store().set_uploads_frozen(form.frozen).await?;
    Ok(Json(operations_json(&state).await?))
}

#[derive(Deserialize)]
pub struct Disable {
    disabled: bool,
}

/// Disables a bot (it leaves the ladder and plays no match) or enables it again; the bot.
pub async fn disable_bot(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
    ApiJson(form): ApiJson<Disable>,
) -> AppResult<Json<Value>> {
    access::allow(&viewer, Act::Operate)?;
    let bot = find_bot(&state, &game, &name).await?;
    state.store().set_disabled(bot.id, form.disabled).await?;
    let bot = find_bot(&state, &game, &name).await?;
    Ok(Json(bot_json(&state, &viewer, &bot).await?))
}
