//! Who a request comes from, and the protection of everything that changes something against
//! requests made by other sites.
//!
//! A request carries either an API token (`Authorization: Bearer TOKEN`; the store keeps its
//! SHA-256) or the session cookie. A request with a token is a script's: no browser adds that
//! header by itself, so it needs nothing more. A request by cookie that changes something
//! (any method but GET, HEAD and OPTIONS) must come from the arena's own pages: it is refused
//! if the browser says it comes from another site (`Sec-Fetch-Site`) or another origin
//! (`Origin`), and, once signed in, if it does not carry the session's CSRF token in an
//! `X-CSRF-Token` header (the pages read it from `/api/arena/me`).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_sessions::Session;

use crate::ArenaState;
use crate::access::Viewer;
use crate::error::{AppError, AppResult};

/// The session's keys: the user's id and the CSRF token.
pub const USER_KEY: &str = "user";
/// See [`USER_KEY`].
pub const CSRF_KEY: &str = "csrf";
/// The header a page sends its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The middleware: finds the viewer (put into the request's extensions) and refuses what
/// another site asks for.
pub async fn guard(
    State(state): State<ArenaState>,
    session: Session,
    mut request: Request,
    next: Next,
) -> Response {
    // Owned copies: the request's body cannot be shared across the awaits.
    let (method, headers) = (request.method().clone(), request.headers().clone());
    match identify(&state, &session, &method, &headers).await {
        Ok(viewer) => {
            request.extensions_mut().insert(viewer);
            next.run(request).await
        }
        Err(error) => error.into_response(),
    }
}

async fn identify(
    state: &ArenaState,
    session: &Session,
    method: &Method,
    headers: &HeaderMap,
) -> AppResult<Viewer> {
    if let Some(token) = bearer(headers)? {
        let user = state
            .store()
            .user_by_token(&sha256_hex(&token))
            .await?
            .ok_or_else(|| {
                AppError::Unauthorized("this API token is not one of this arena's".to_owned())
            })?;
        return state.viewer_of(user).await;
    }
    let changes = !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if changes {
        same_origin(headers)?;
    }
    let Some(id) = session.get::<i64>(USER_KEY).await? else {
        return Ok(Viewer::Visitor);
    };
    if changes {
        let expected = session.get::<String>(CSRF_KEY).await?.unwrap_or_default();
        let given = headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if expected.is_empty() || !same_bytes(expected.as_bytes(), given.as_bytes()) {
            return Err(AppError::Forbidden(
                "this request lacks the page's CSRF token (reload the page)".to_owned(),
            ));
        }
    }
    match state.store().user(id).await? {
        Some(user) => state.viewer_of(user).await,
        // A user removed since: the session is over.
        None => {
            session.flush().await?;
            Ok(Viewer::Visitor)
        }
    }
}

/// The token of an `Authorization: Bearer` header, if there is one; another scheme is refused.
fn bearer(headers: &HeaderMap) -> AppResult<Option<String>> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let refused = || AppError::Unauthorized("say Authorization: Bearer TOKEN".to_owned());
    let value = value.to_str().map_err(|_| refused())?;
    let (scheme, token) = value.split_once(' ').ok_or_else(refused)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(refused());
    }
    Ok(Some(token.to_owned()))
}

/// Refuses a request the browser says another site made: `Sec-Fetch-Site` other than
/// `same-origin` or `none` (typed by the user), or an `Origin` other than the arena's own.
/// A client that sends neither (a script) passes: it has no other site's page to act for.
pub fn same_origin(headers: &HeaderMap) -> AppResult<()> {
    let refused = || {
        AppError::Forbidden(
            "a request from another site: the arena's pages are the only ones that may change \
             anything"
                .to_owned(),
        )
    };
    if let Some(site) = headers.get("sec-fetch-site")
        && !matches!(site.to_str(), Ok("same-origin" | "none"))
    {
        return Err(refused());
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().map_err(|_| refused())?;
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .ok_or_else(refused)?;
        let authority = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"))
            .ok_or_else(refused)?;
        if !authority.eq_ignore_ascii_case(host) {
            return Err(refused());
        }
    }
    Ok(())
}

/// Compares two secrets in a time that does not depend on where they differ.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub use arbiter_logins::sha256_hex;

/// A new secret (a CSRF token): 32 random bytes from the system, in hex.
pub fn secret() -> String {
    arbiter_logins::new_token()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn other_sites_are_refused_and_the_arena_and_scripts_pass() {
        let host = ("host", "127.0.0.1:8080");
        for ok in [
            vec![host],
            vec![host, ("origin", "http://127.0.0.1:8080")],
            vec![host, ("sec-fetch-site", "same-origin")],
            vec![host, ("sec-fetch-site", "none")],
        ] {
            assert!(same_origin(&headers(&ok)).is_ok(), "{ok:?}");
        }
        for refused in [
            vec![host, ("origin", "http://127.0.0.1:9999")],
            vec![host, ("origin", "null")],
            vec![host, ("origin", "http://evil.example")],
            vec![host, ("sec-fetch-site", "same-site")],
            vec![host, ("sec-fetch-site", "cross-site")],
            vec![("origin", "http://127.0.0.1:8080")],
        ] {
            assert_eq!(
                same_origin(&headers(&refused)).unwrap_err().kind(),
                "forbidden",
                "{refused:?}"
            );
        }
    }

    #[test]
    fn bearer_tokens_are_read_and_other_schemes_refused() {
        assert_eq!(bearer(&headers(&[])).unwrap(), None);
        assert_eq!(
            bearer(&headers(&[("authorization", "Bearer abc")])).unwrap(),
            Some("abc".to_owned())
        );
        assert!(bearer(&headers(&[("authorization", "Basic abc")])).is_err());
        assert!(bearer(&headers(&[("authorization", "Bearer ")])).is_err());
    }

    #[test]
    fn secrets_differ_and_hashes_are_hex() {
        assert_ne!(secret(), secret());
        assert_eq!(secret().len(), 64);
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(
            same_bytes(b"abc", b"abc") && !same_bytes(b"abc", b"abd") && !same_bytes(b"a", b"ab")
        );
    }
}
