//! axum's `Json`, `Path` and `Query`, answering a malformed request with an [`AppError`] (JSON, as every
//! other failure of the API) instead of axum's plain-text rejection.

use axum::extract::{FromRequest, FromRequestParts, Json, Path, Query, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::access::Viewer;
use crate::error::AppError;

/// A JSON body.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<Self, AppError> {
        Json::<T>::from_request(request, state)
            .await
            .map(|Json(value)| ApiJson(value))
            .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
    }
}

/// The parameters of the route's path.
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| ApiPath(value))
            .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
    }
}

/// The parameters of the address's query (`?before=12`).
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(value)| ApiQuery(value))
            .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Viewer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, AppError> {
        parts
            .extensions
            .get::<Viewer>()
            .cloned()
            .ok_or_else(|| AppError::Internal("a request that did not pass the guard".to_owned()))
    }
}

/// Refuses a name of a user (`kind` "user"), team or bot the store would refuse, before
/// anything is done: the store's rules, said in the store's words.
pub fn check_name(kind: &'static str, name: &str) -> Result<(), AppError> {
    arbiter_store::arena::check_name(kind, name).map_err(AppError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_and_plain() {
        for good in ["ada", "Team-7", "bot_v2.1", "x"] {
            assert!(check_name("bot", good).is_ok(), "{good}");
        }
        for bad in ["", ".hidden", "a/b", "a b", "é", &"x".repeat(41), "../x"] {
            assert_eq!(
                check_name("bot", bad).unwrap_err().kind(),
                "bad_request",
                "{bad}"
            );
        }
    }
}
