//! The one error type of the handlers. What reaches the browser is a short JSON object a person
//! can act on (`{"error": "...", "kind": "..."}`); paths, SQL and I/O details of the server's
//! own failures go to its stderr only.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use arbiter_replay::ReplayError;
use arbiter_store::StoreError;

/// The error of a handler: its message reaches the browser, with an HTTP status and a kind.
#[derive(Clone, Debug, thiserror::Error)]
pub enum AppError {
    /// No such replay, tournament, player, match or route (404).
    #[error("{0}")]
    NotFound(String),
    /// A request missing a parameter or with an invalid one (400).
    #[error("{0}")]
    BadRequest(String),
    /// A replay from a newer Arbiter: the message says which version and what to do.
    #[error("{0}")]
    TooNew(String),
    /// A replay that is not one (or is damaged); the message names the line.
    #[error("{0}")]
    BadReplay(String),
    /// A replay past one of the server's limits (its text after decompression, a line's
    /// length): the message names the file and the limit.
    #[error("{0}")]
    TooLarge(String),
    /// Anything else: the details are logged, the response only says it failed.
    #[error("{0}")]
    Internal(String),
}

impl AppError {
    fn status_and_kind(&self) -> (StatusCode, &'static str) {
        match self {
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            AppError::TooNew(_) => (StatusCode::UNPROCESSABLE_ENTITY, "too_new"),
            AppError::BadReplay(_) => (StatusCode::UNPROCESSABLE_ENTITY, "bad_replay"),
            AppError::TooLarge(_) => (StatusCode::UNPROCESSABLE_ENTITY, "too_large"),
            AppError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }

    /// The message shown to the user: everything but an internal error's details.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(_) => {
                "the server failed to answer this request (its log says why)".to_owned()
            }
            other => other.to_string(),
        }
    }

    /// The `kind` field of the response.
    pub fn kind(&self) -> &'static str {
        self.status_and_kind().1
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, kind) = self.status_and_kind();
        if let AppError::Internal(details) = &self {
            eprintln!("arbiter serve: {details}");
        }
        let body = json!({"error": self.public_message(), "kind": kind});
        (status, Json(body)).into_response()
    }
}

impl From<ReplayError> for AppError {
    fn from(error: ReplayError) -> AppError {
        match error {
            ReplayError::TooNew { .. } => AppError::TooNew(error.to_string()),
            ReplayError::Malformed { .. } | ReplayError::Empty => {
                AppError::BadReplay(error.to_string())
            }
            ReplayError::Open { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                AppError::NotFound("there is no such replay".to_owned())
            }
            other => AppError::Internal(other.to_string()),
        }
    }
}

impl From<StoreError> for AppError {
    fn from(error: StoreError) -> AppError {
        match error {
            StoreError::NoTournament(id) => {
                AppError::NotFound(format!("there is no tournament {id}"))
            }
            other => AppError::Internal(other.to_string()),
        }
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(error: tokio::task::JoinError) -> AppError {
        AppError::Internal(format!("a background task failed: {error}"))
    }
}

pub type AppResult<T> = Result<T, AppError>;

impl From<crate::tail::TailError> for AppError {
    fn from(error: crate::tail::TailError) -> AppError {
        use crate::tail::TailError;
        match error {
            TailError::Open { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                AppError::NotFound("there is no such replay".to_owned())
            }
            TailError::Read { source, .. }
                if matches!(
                    source.kind(),
                    std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput
                ) =>
            {
                AppError::BadReplay(format!("the replay file is damaged ({source})"))
            }
            TailError::NotText { line, .. } => {
                AppError::BadReplay(format!("replay line {line}: not UTF-8 text"))
            }
            TailError::LongLine { .. } | TailError::TooLarge { .. } => {
                AppError::TooLarge(replay_limit_message(&error))
            }
            other => AppError::Internal(other.to_string()),
        }
    }
}

/// A limit's message with the file named by its name inside the replays folder's tree, not by
/// the server's path to it.
fn replay_limit_message(error: &crate::tail::TailError) -> String {
    use crate::tail::{MAX_LINE, TailError, amount};
    let name = |path: &std::path::Path| {
        path.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    };
    match error {
        TailError::TooLarge { path, cap } => format!(
            "replay {}: more than {} of text once decompressed, this server's limit \
             (arbiter web --max-replay-mb)",
            name(path),
            amount(*cap)
        ),
        TailError::LongLine { path, line } => format!(
            "replay {}, line {line}: longer than {} MiB, this server's limit for one line",
            name(path),
            MAX_LINE >> 20
        ),
        other => other.to_string(),
    }
}
