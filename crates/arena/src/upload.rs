//! Handing in a version: a multipart form with the file (`file`: one source file, or a `.zip`
//! / `.tar.gz` of a player folder) and, for a bot that is new, its team (`team`, default the
//! uploader's own). The bot is made if it is new, so one request is enough for a script.
//!
//! What is refused before anything is stored, each with its reason: a body over the arena's
//! limit (413), a form without the file (400), a file whose language is unknown, an archive
//! that would not unpack safely (links, `..`, a zip bomb, … as `arbiter_programs::upload`
//! says; 400), more uploads than the day's quota (429), any upload while uploads are frozen
//! (423).

use arbiter_programs::upload::{UploadKind, unpack_upload};
use axum::Json;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{Multipart, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::ArenaState;
use crate::access::{self, Act, Viewer};
use crate::accounts::{DAY_MS, now_ms};
use crate::bots::{bot_json, make_bot};
use crate::error::{AppError, AppResult};
use crate::extract::ApiPath;

/// The fields of the form.
struct Form {
    file_name: String,
    bytes: Vec<u8>,
    team: Option<String>,
}

async fn read_form(mut multipart: Multipart) -> AppResult<Form> {
    let (mut file, mut team) = (None, None);
    while let Some(field) = multipart.next_field().await? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or("").to_owned();
                file = Some((name, field.bytes().await?.to_vec()));
            }
            Some("team") => {
                let text = field.text().await?;
                if !text.trim().is_empty() {
                    team = Some(text.trim().to_owned());
                }
            }
            // Other fields (a page's extras) are read and left.
            _ => {
                field.bytes().await?;
            }
        }
    }
    let (file_name, bytes) = file.ok_or_else(|| {
        AppError::BadRequest("the form has no file: send it as the field `file`".to_owned())
    })?;
    Ok(Form {
        file_name: plain_name(&file_name)?,
        bytes,
        team,
    })
}

/// The file's own name, without the folders some browsers put before it.
fn plain_name(name: &str) -> AppResult<String> {
    let name = name.rsplit(['/', '\\']).next().unwrap_or("").trim();
    if name.is_empty() || name == "." || name == ".." || name.len() > 200 {
        return Err(AppError::BadRequest(
            "the file needs its name (its extension says its language or that it is an \
             archive)"
                .to_owned(),
        ));
    }
    Ok(name.to_owned())
}

/// Refuses what would not build: an archive that does not unpack safely within the limits, a
/// source file of a language the arena does not know.
async fn check_file(state: &ArenaState, form: &Form) -> AppResult<()> {
    if form.bytes.is_empty() {
        return Err(AppError::BadRequest(format!("{} is empty", form.file_name)));
    }
    if let Some(kind) = UploadKind::of_name(&form.file_name) {
        let limits = state.config().limits.clone();
        let bytes = form.bytes.clone();
        let name = form.file_name.clone();
        return tokio::task::spawn_blocking(move || {
            let scratch = Scratch::new()?;
            unpack_upload(kind, &bytes, &scratch.0, &limits)
                .map(|_| ())
                .map_err(|e| AppError::BadRequest(format!("{name}: {e}")))
        })
        .await?;
    }
    if state
        .config()
        .languages
        .for_file_name(&form.file_name)
        .is_none()
    {
        let known: Vec<String> = state
            .config()
            .languages
            .iter()
            .flat_map(|l| {
                l.extensions
                    .iter()
                    .map(|e| format!(".{}", e.trim_start_matches('.')))
            })
            .collect();
        return Err(AppError::BadRequest(format!(
            "{}: no language of this arena has this extension (known: {}; or hand in a .zip \
             or .tar.gz of a player folder)",
            form.file_name,
            known.join(" ")
        )));
    }
    Ok(())
}

/// A folder of its own under the system's temporary folder, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> AppResult<Scratch> {
        let name = format!("arbiter-upload-{}", crate::guard::secret());
        let path = std::env::temp_dir().join(&name[..40]);
        std::fs::create_dir(&path)
            .map_err(|e| AppError::Internal(format!("making {}: {e}", path.display())))?;
        Ok(Scratch(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Refuses every upload while the operator has frozen them (for a final: the versions that
/// play stay as they are).
async fn check_open(state: &ArenaState) -> AppResult<()> {
    if state.store().uploads_frozen().await? {
        return Err(AppError::Locked(
            "uploads are frozen by the arena's operator (the versions that play stay as they \
             are, for a final): try again when they are open"
                .to_owned(),
        ));
    }
    Ok(())
}

/// Refuses an upload past the user's quota for the last 24 hours.
async fn check_quota(state: &ArenaState, user: i64) -> AppResult<()> {
    let limit = i64::from(state.config().uploads_per_day);
    let used = state.store().uploads_since(user, now_ms() - DAY_MS).await?;
    if used >= limit {
        return Err(AppError::TooMany(format!(
            "you have uploaded {used} versions in the last 24 hours, this arena's limit: try \
             again later"
        )));
    }
    Ok(())
}

pub async fn upload(
    State(state): State<ArenaState>,
    viewer: Viewer,
    ApiPath((game, name)): ApiPath<(String, String)>,
    multipart: Result<Multipart, MultipartRejection>,
) -> AppResult<(StatusCode, Json<Value>)> {
    let user = viewer.user()?.clone();
    state.game(&game)?;
    let multipart = multipart.map_err(|rejection| {
        AppError::BadRequest(format!(
            "send the version as a multipart/form-data form with the file in the field `file` \
             ({})",
            rejection.body_text()
        ))
    })?;
    let form = read_form(multipart).await?;
    let existing = state.store().bot(&game, &name).await?;
    if let Some(bot) = &existing {
        access::allow(&viewer, Act::ChangeBot { team: bot.team.id })?;
        if bot.retired {
            return Err(AppError::Conflict(format!(
                "{game}/{name} is retired: it takes no new versions"
            )));
        }
    }
    check_open(&state).await?;
    check_quota(&state, user.id).await?;
    check_file(&state, &form).await?;
    let bot = match existing {
        Some(bot) => bot,
        None => make_bot(&state, &viewer, &game, &name, form.team.as_deref()).await?,
    };
    let version = state
        .store()
        .add_version(bot.id, user.id, &form.file_name, &form.bytes)
        .await?;
    if let Some(wake) = &state.config().wake {
        wake.notify_one();
    }
    let bot = state.store().bot_by_id(bot.id).await?.unwrap_or(bot);
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "bot": bot_json(&state, &viewer, &bot).await?,
            "version": version.number,
            "state": version.state.as_str(),
            "url": format!("/api/arena/bots/{game}/{name}/versions/{}", version.number),
        })),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_named_by_its_own_name() {
        assert_eq!(plain_name("bot.cpp").unwrap(), "bot.cpp");
        assert_eq!(plain_name("C:\\Users\\a\\bot.py").unwrap(), "bot.py");
        assert_eq!(plain_name("dir/x.tar.gz").unwrap(), "x.tar.gz");
        for bad in ["", "dir/", "..", " "] {
            assert!(plain_name(bad).is_err(), "{bad:?}");
        }
    }
}
