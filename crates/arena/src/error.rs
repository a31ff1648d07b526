//! The one error type of the arena's handlers. What reaches the client is a short JSON object a
//! person can act on (`{"error": "...", "kind": "..."}`); the details of the server's own
//! failures (SQL, paths, I/O) go to its stderr only.

use axum::Json;
use axum::extract::multipart::MultipartError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use arbiter_store::StoreError;

/// The error of a handler: its message reaches the client, with an HTTP status and a kind.
#[derive(Clone, Debug, thiserror::Error)]
pub enum AppError {
    /// A request missing a field or with an invalid one (400).
    #[error("{0}")]
    BadRequest(String),
    /// Not signed in, or a wrong password or token (401).
    #[error("{0}")]
    Unauthorized(String),
    /// Signed in, but not allowed to do or see this; a request from another site (403).
    #[error("{0}")]
    Forbidden(String),
    /// No such user, team, bot, version or route (404).
    #[error("{0}")]
    NotFound(String),
    /// The name is taken (409).
    #[error("{0}")]
    Conflict(String),
    /// The request's body is over this arena's limit (413).
    #[error("{0}")]
    TooLarge(String),
    /// Over a limit on attempts or uploads: the message says when to try again (429).
    #[error("{0}")]
    TooMany(String),
    /// Closed for now by the operator (uploads frozen for the final): the message says so (423).
    #[error("{0}")]
    Locked(String),
    /// The arena is busy (too many event streams): try again later (503).
    #[error("{0}")]
    Busy(String),
    /// Anything else: the details are logged, the response only says it failed (500).
    #[error("{0}")]
    Internal(String),
}

/// The result of a handler.
pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    fn status_and_kind(&self) -> (StatusCode, &'static str) {
        match self {
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            AppError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            AppError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            AppError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            AppError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, "too_large"),
            AppError::TooMany(_) => (StatusCode::TOO_MANY_REQUESTS, "too_many"),
            AppError::Locked(_) => (StatusCode::LOCKED, "locked"),
            AppError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            AppError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        self.status_and_kind().0
    }

    /// The `kind` field of the response.
    pub fn kind(&self) -> &'static str {
        self.status_and_kind().1
    }

    /// The message shown to the client: everything but an internal error's details.
    pub fn public_message(&self) -> String {
        match self {
            AppError::Internal(_) => {
                "the arena failed to answer this request (its log says why)".to_owned()
            }
            other => other.to_string(),
        }
    }

    /// What a signed-out client is told where it must sign in.
    pub fn sign_in() -> AppError {
        AppError::Unauthorized(
            "sign in first (or send an API token: Authorization: Bearer TOKEN)".to_owned(),
        )
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, kind) = self.status_and_kind();
        if let AppError::Internal(details) = &self {
            eprintln!("arbiter arena: {details}");
        }
        let body = json!({"error": self.public_message(), "kind": kind});
        (status, Json(body)).into_response()
    }
}

impl From<StoreError> for AppError {
    fn from(error: StoreError) -> AppError {
        match error {
            StoreError::BadName { .. } => AppError::BadRequest(error.to_string()),
            StoreError::NameTaken { .. } | StoreError::NotPlayable { .. } => {
                AppError::Conflict(error.to_string())
            }
            StoreError::NotFound(_) => AppError::NotFound(error.to_string()),
            // A rule of the arena (a robot retired, a bot challenging itself): the request
            // itself is wrong, and the words say which rule.
            StoreError::NotAllowed(_) => AppError::Conflict(error.to_string()),
            StoreError::OverQuota { .. } => AppError::TooMany(error.to_string()),
            other => AppError::Internal(other.to_string()),
        }
    }
}

impl From<tokio::task::JoinError> for AppError {
    fn from(error: tokio::task::JoinError) -> AppError {
        AppError::Internal(format!("a background task failed: {error}"))
    }
}

impl From<tower_sessions::session::Error> for AppError {
    fn from(error: tower_sessions::session::Error) -> AppError {
        AppError::Internal(format!("sessions: {error}"))
    }
}

impl From<MultipartError> for AppError {
    fn from(error: MultipartError) -> AppError {
        // axum says 413 for a body over the limit; anything else is a malformed upload.
        if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
            AppError::TooLarge(format!(
                "the upload is larger than this arena accepts ({})",
                error.body_text()
            ))
        } else {
            AppError::BadRequest(format!(
                "the upload is not a valid multipart form ({}): send the file as the \
                 form field `file`",
                error.body_text()
            ))
        }
    }
}
