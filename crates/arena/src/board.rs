//! A game's ladder as everyone may read it: the leaderboard (best first, score μ − 3σ) and the
//! matches queued, being played and just finished, each also as server-sent events so that
//! the ladder's page changes by itself.
//!
//! The leaderboard's first nine keys (`rank`, `bot`, `team`, `version`, `score`, `mu`,
//! `sigma`, `games`, `robot`) are a contract with scripts (issue 29); the others are the
//! page's.

use arbiter_store::{ArenaMatchState, LadderEntry};
use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::ArenaState;
use crate::error::AppResult;
use crate::events::{follow, place};
use crate::extract::ApiPath;
use crate::matches::match_json;

/// How many finished matches the live list ends with.
pub const FINISHED_SHOWN: i64 = 10;

/// A version's share of the points of its games: a win 1, a draw ½; `None` before any game.
fn win_share(entry: &LadderEntry) -> Option<f64> {
    (entry.games > 0).then(|| (entry.wins as f64 + entry.draws as f64 / 2.0) / entry.games as f64)
}

fn entry_json(entry: &LadderEntry) -> Value {
    json!({
        "rank": entry.rank,
        "bot": entry.bot,
        "team": entry.team,
        "version": entry.version,
        "score": entry.score,
        "mu": entry.mu,
        "sigma": entry.sigma,
        "games": entry.games,
        "robot": entry.robot,
        "wins": entry.wins,
        "draws": entry.draws,
        "losses": entry.losses,
        "win_share": win_share(entry),
        "last_game": entry.last_game,
    })
}

async fn leaderboard_json(state: &ArenaState, game: &str) -> AppResult<Value> {
    state.game(game)?;
    let entries = state.store().leaderboard(game).await?;
    Ok(entries.iter().map(entry_json).collect())
}

pub async fn leaderboard(
    State(state): State<ArenaState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Json<Value>> {
    Ok(Json(leaderboard_json(&state, &game).await?))
}

/// The leaderboard each time it changes (a result rated, a version come or gone).
pub async fn leaderboard_events(
    State(state): State<ArenaState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Response> {
    state.game(&game)?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, game) = (state.clone(), game.clone());
        async move { leaderboard_json(&state, &game).await }
    };
    Ok(follow(permit, "leaderboard", fetch, |_| false).into_response())
}

/// The game's matches being played and queued, the last ones finished, and whether the
/// ladder is paused.
async fn live_json(state: &ArenaState, game: &str) -> AppResult<Value> {
    state.game(game)?;
    let store = state.store();
    let live = store.live_matches(game).await?;
    let (running, queued): (Vec<_>, Vec<_>) = live
        .iter()
        .partition(|m| m.state == ArenaMatchState::Running);
    let finished = store.recent_matches(game, FINISHED_SHOWN).await?;
    Ok(json!({
        "paused": store.ladder_paused().await?,
        "running": running.into_iter().map(match_json).collect::<Vec<_>>(),
        "queued": queued.into_iter().map(match_json).collect::<Vec<_>>(),
        "finished": finished.iter().map(match_json).collect::<Vec<_>>(),
    }))
}

pub async fn live(
    State(state): State<ArenaState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Json<Value>> {
    Ok(Json(live_json(&state, &game).await?))
}

/// The live matches each time they change.
pub async fn live_events(
    State(state): State<ArenaState>,
    ApiPath(game): ApiPath<String>,
) -> AppResult<Response> {
    state.game(&game)?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, game) = (state.clone(), game.clone());
        async move { live_json(&state, &game).await }
    };
    Ok(follow(permit, "live", fetch, |_| false).into_response())
}
