//! The arena's pages, styles and scripts: the viewer's files (`viewer/`, where the arena's own
//! are `arena*.html`, `js/arena*.js`, `css/arena.css`), embedded into the binary. `/` is the
//! arena's home page; the replay viewer serves its check replays (`/replay.html?arena=…`).

use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use include_dir::{Dir, include_dir};

static VIEWER: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../viewer");

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Serves `/` as the arena's home page and every other path as the viewer's file of that name.
pub async fn serve(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "arena.html" } else { path };
    match VIEWER.get_file(path) {
        Some(file) => {
            let mut response = file.contents().into_response();
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type(path)),
            );
            // Pages and scripts change with the binary; a browser asks again each time.
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            // The arena's pages are never framed by another site (clickjacking).
            headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
            response
        }
        None => (
            StatusCode::NOT_FOUND,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "no such page",
        )
            .into_response(),
    }
}
