//! The admins' views: every user with their teams and uploads against the quota, every bot,
//! and the queue of builds and checks.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Act, Viewer};
use crate::accounts::{DAY_MS, now_ms};
use crate::bots::bot_json;
use crate::error::AppResult;

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
