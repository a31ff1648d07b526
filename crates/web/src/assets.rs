//! The viewer's pages, styles and scripts, embedded into the binary so that `arbiter serve`
//! needs nothing beside it.

use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use include_dir::{Dir, include_dir};

pub static VIEWER: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../viewer");

/// A file of the viewer by its path (`css/style.css`), as text.
pub fn text(path: &str) -> Option<&'static str> {
    VIEWER.get_file(path).and_then(|f| f.contents_utf8())
}

/// Every JavaScript module, as (path, source), for the exported page.
pub fn modules() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    collect_modules(&VIEWER, &mut out);
    out.sort();
    out
}

fn collect_modules(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static str)>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        if path.ends_with(".js")
            && let Some(source) = file.contents_utf8()
        {
            out.push((path, source));
        }
    }
    for sub in dir.dirs() {
        collect_modules(sub, out);
    }
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Serves `/` as the home page and every other path as the viewer file of that name.
pub async fn serve(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
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
