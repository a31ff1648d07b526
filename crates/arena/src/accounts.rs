//! Accounts and teams: signing up (open, or with an invite code), in and out; who one is; a
//! user's teams, making one, adding a member.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{Value, json};
use tower_sessions::Session;

use crate::ArenaState;
use crate::access::{self, Act, Object, Sight, Viewer};
use crate::error::{AppError, AppResult};
use crate::extract::{ApiJson, ApiPath, check_name};
use crate::guard::{CSRF_KEY, USER_KEY, secret, sha256_hex};

/// A day, in milliseconds: the window of the uploads quota.
pub const DAY_MS: i64 = 24 * 3600 * 1000;

/// The robots of each of `games`, weakest first, by game.
fn robots_of(games: &[&str]) -> Value {
    use arbiter_catalog::Catalog;
    let mut out = serde_json::Map::new();
    for info in arbiter_catalog::Games::games() {
        if games.contains(&info.name) {
            out.insert(info.name.to_owned(), json!(info.robots));
        }
    }
    Value::Object(out)
}

#[derive(Deserialize)]
pub struct SignUp {
    name: String,
    password: String,
    #[serde(default)]
    invite: Option<String>,
}

#[derive(Deserialize)]
pub struct SignIn {
    name: String,
    password: String,
}

fn check_password(password: &str) -> AppResult<()> {
    arbiter_logins::check_new_password(password).map_err(AppError::BadRequest)
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Starts a signed-in session for `user`: a new session id (what an attacker may have planted
/// before is worth nothing after), and a new CSRF token.
async fn start_session(session: &Session, user: i64) -> AppResult<()> {
    session.cycle_id().await?;
    session.insert(USER_KEY, user).await?;
    session.insert(CSRF_KEY, secret()).await?;
    Ok(())
}

pub async fn sign_up(
    State(state): State<ArenaState>,
    session: Session,
    ApiJson(form): ApiJson<SignUp>,
) -> AppResult<(StatusCode, Json<Value>)> {
    check_name("user", &form.name)?;
    check_password(&form.password)?;
    let store = state.store();
    if store.user_by_name(&form.name).await?.is_some()
        || store.team_by_name(&form.name).await?.is_some()
    {
        return Err(AppError::Conflict(format!(
            "the name {:?} is taken: choose another",
            form.name
        )));
    }
    if !state.config().open_signup {
        let code = form.invite.as_deref().map(str::trim).unwrap_or("");
        if code.is_empty() || !store.take_invite(&sha256_hex(code)).await? {
            return Err(AppError::Forbidden(
                "this arena signs up only with an invite code, and this one is not (or no \
                 longer) valid"
                    .to_owned(),
            ));
        }
    }
    let phc = state.logins().hash(form.password).await?;
    let user = store.add_user(&form.name, &phc, false).await.map_err(|e| {
        // Two sign-ups racing for one name: the second finds it taken.
        eprintln!("arbiter arena: adding user {:?}: {e}", form.name);
        AppError::Conflict(format!("the name {:?} is taken: choose another", form.name))
    })?;
    start_session(&session, user.id).await?;
    let viewer = state.viewer_of(user).await?;
    Ok((
        StatusCode::CREATED,
        Json(me_json(&state, &viewer, &session).await?),
    ))
}

pub async fn sign_in(
    State(state): State<ArenaState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    session: Session,
    ApiJson(form): ApiJson<SignIn>,
) -> AppResult<Json<Value>> {
    let address = peer.map(|Extension(ConnectInfo(a))| a.ip());
    let user = state.store().user_by_name(&form.name).await?;
    let phc = user.as_ref().map(|u| u.password.clone());
    let right = state
        .logins()
        .check(address, &form.name, phc, form.password)
        .await?;
    let Some(user) = user.filter(|_| right) else {
        return Err(AppError::Unauthorized("wrong name or password".to_owned()));
    };
    start_session(&session, user.id).await?;
    let viewer = state.viewer_of(user).await?;
    Ok(Json(me_json(&state, &viewer, &session).await?))
}

pub async fn sign_out(session: Session) -> AppResult<StatusCode> {
    session.flush().await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn me(
    State(state): State<ArenaState>,
    viewer: Viewer,
    session: Session,
) -> AppResult<Json<Value>> {
    Ok(Json(me_json(&state, &viewer, &session).await?))
}

/// Who the viewer is, with what the pages need: the games offered, the CSRF token, the teams,
/// the uploads left today.
///
/// The games' built-in robots are listed (weakest first) for the playground's form.
async fn me_json(state: &ArenaState, viewer: &Viewer, session: &Session) -> AppResult<Value> {
    let games: Vec<&str> = state
        .config()
        .games
        .iter()
        .map(|g| g.name.as_str())
        .collect();
    let base = json!({
        "games": games,
        "open_signup": state.config().open_signup,
        "public_logs": state.config().public_logs,
        "robots": robots_of(&games),
        "ladder_paused": state.store().ladder_paused().await?,
        "uploads_frozen": state.store().uploads_frozen().await?,
    });
    let Viewer::User { user, .. } = viewer else {
        return Ok(json!({"user": null, "arena": base}));
    };
    let store = state.store();
    let teams = store.teams_of(user.id).await?;
    let uploads = store.uploads_since(user.id, now_ms() - DAY_MS).await?;
    let csrf: Option<String> = session.get(CSRF_KEY).await?;
    Ok(json!({
        "user": {"id": user.id, "name": user.name, "admin": user.admin},
        "teams": teams.iter().map(|t| json!({"id": t.id, "name": t.name})).collect::<Vec<_>>(),
        "uploads_today": uploads,
        "uploads_per_day": state.config().uploads_per_day,
        "csrf": csrf,
        "arena": base,
    }))
}

#[derive(Deserialize)]
pub struct NewTeam {
    name: String,
}

pub async fn create_team(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiJson(form): ApiJson<NewTeam>,
) -> AppResult<(StatusCode, Json<Value>)> {
    access::allow(&viewer, Act::Create)?;
    let user = viewer.user()?;
    check_name("team", &form.name)?;
    let store = state.store();
    if store.team_by_name(&form.name).await?.is_some()
        || store.user_by_name(&form.name).await?.is_some()
    {
        return Err(AppError::Conflict(format!(
            "the name {:?} is taken: choose another",
            form.name
        )));
    }
    let team = store.add_team(&form.name, user.id).await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({"id": team.id, "name": team.name})),
    ))
}

pub async fn team(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath(name): ApiPath<String>,
) -> AppResult<Json<Value>> {
    let store = state.store();
    let team = store
        .team_by_name(&name)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no team {name:?}")))?;
    let bots = store.bots_of_team(team.id).await?;
    let bots: Vec<Value> = bots
        .iter()
        .map(|b| json!({"game": b.game, "name": b.name, "active": b.active, "retired": b.retired}))
        .collect();
    let members = match access::sight(&viewer, Object::Team { team: team.id }, false) {
        Sight::Full => {
            let members = store.team_members(team.id).await?;
            json!(members.iter().map(|u| u.name.as_str()).collect::<Vec<_>>())
        }
        _ => Value::Null,
    };
    Ok(Json(
        json!({"id": team.id, "name": team.name, "members": members, "bots": bots}),
    ))
}

#[derive(Deserialize)]
pub struct NewMember {
    user: String,
}

pub async fn add_member(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath(name): ApiPath<String>,
    ApiJson(form): ApiJson<NewMember>,
) -> AppResult<Json<Value>> {
    let store = state.store();
    let team = store
        .team_by_name(&name)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no team {name:?}")))?;
    access::allow(&viewer, Act::AddMember { team: team.id })?;
    let user = store
        .user_by_name(&form.user)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("there is no user {:?}", form.user)))?;
    let members = store.team_members(team.id).await?;
    if !members.iter().any(|m| m.id == user.id) {
        store.add_member(team.id, user.id).await?;
    }
    let members = store.team_members(team.id).await?;
    Ok(Json(json!({
        "id": team.id, "name": team.name,
        "members": members.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
    })))
}
