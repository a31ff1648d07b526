//! States that change, as server-sent events: a version's (`state` events until it is built
//! and checked, or failed), and a bot's (`bot` events, each time it or one of its versions
//! changes). The store is read every [`POLL`] by each stream; the streams open at once are
//! bounded (`max_streams`), one more is answered 503. A stream that cannot read the store
//! sends a `failure` event with the reason, then ends.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;

use crate::ArenaState;
use crate::access::{self, Object, Sight, Viewer};
use crate::bots::{bot_json, find_bot, find_version, version_with_series};
use crate::error::{AppError, AppResult};
use crate::extract::ApiPath;

/// How often a stream reads the store again.
pub const POLL: Duration = Duration::from_millis(500);

/// What a stream keeps between events.
struct Follow<F> {
    fetch: F,
    name: &'static str,
    last: Option<Value>,
    ended: bool,
    first: bool,
    is_final: fn(&Value) -> bool,
    /// The stream's place among those open at once, given back when it ends.
    _permit: OwnedSemaphorePermit,
}

/// An event stream of what `fetch` answers, sent when it changes, until `is_final` of it; the
/// streams of the ladder's pages (`matches`, `board`) are made here too.
pub fn follow<F, Fut>(
    permit: OwnedSemaphorePermit,
    name: &'static str,
    fetch: F,
    is_final: fn(&Value) -> bool,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static>
where
    F: FnMut() -> Fut + Send + 'static,
    Fut: Future<Output = AppResult<Value>> + Send,
{
    let start = Follow {
        fetch,
        name,
        last: None,
        ended: false,
        first: true,
        is_final,
        _permit: permit,
    };
    let stream = futures_util::stream::unfold(start, |mut follow| async move {
        if follow.ended {
            return None;
        }
        loop {
            if !std::mem::replace(&mut follow.first, false) {
                tokio::time::sleep(POLL).await;
            }
            match (follow.fetch)().await {
                Ok(value) if follow.last.as_ref() == Some(&value) => continue,
                Ok(value) => {
                    let event = Event::default().event(follow.name).data(value.to_string());
                    follow.ended = (follow.is_final)(&value);
                    follow.last = Some(value);
                    return Some((Ok(event), follow));
                }
                Err(e) => {
                    let event = Event::default().event("failure").data(e.public_message());
                    follow.ended = true;
                    return Some((Ok(event), follow));
                }
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

/// A place among the streams open at once, or 503 when there is none.
pub fn place(state: &ArenaState) -> AppResult<OwnedSemaphorePermit> {
    state.0.streams.clone().try_acquire_owned().map_err(|_| {
        AppError::Busy("the arena follows too many pages at once: try again later".to_owned())
    })
}

/// Whether a version's state is one it keeps: built and checked, or failed.
fn settled(version: &Value) -> bool {
    matches!(
        version["stage"].as_str(),
        Some("build_failed" | "check_failed" | "passed")
    )
}

pub async fn version_events(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name, number)): ApiPath<(String, String, i64)>,
) -> AppResult<Response> {
    // An unknown bot or version is a 404 here, not an event stream that fails.
    find_version(&state, &game, &name, number).await?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, viewer, game, name) =
            (state.clone(), viewer.clone(), game.clone(), name.clone());
        async move {
            let (bot, version) = find_version(&state, &game, &name, number).await?;
            let full =
                access::sight(&viewer, Object::Bot { team: bot.team.id }, false) == Sight::Full;
            version_with_series(&state, &bot, &version, full).await
        }
    };
    Ok(follow(permit, "state", fetch, settled).into_response())
}

pub async fn bot_events(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
) -> AppResult<Response> {
    find_bot(&state, &game, &name).await?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, viewer, game, name) =
            (state.clone(), viewer.clone(), game.clone(), name.clone());
        async move {
            let bot = find_bot(&state, &game, &name).await?;
            bot_json(&state, &viewer, &bot).await
        }
    };
    Ok(follow(permit, "bot", fetch, |_| false).into_response())
}

/// The viewer's teams' bots, each time one of them changes (the home page's list).
pub async fn my_bots_events(
    State(state): State<ArenaState>,
    viewer: Viewer,
) -> AppResult<Response> {
    viewer.user()?;
    let permit = place(&state)?;
    let fetch = move || {
        let (state, viewer) = (state.clone(), viewer.clone());
        async move { crate::bots::my_bots(&state, &viewer).await }
    };
    Ok(follow(permit, "bots", fetch, |_| false).into_response())
}
