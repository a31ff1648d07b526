//! One HTML file that plays a replay with no server and no network: the viewer page with its
//! style sheet inlined, its JavaScript modules and the replay embedded as JSON.
//!
//! Browsers do not load modules from `file:` pages, so a small classic script turns each
//! embedded module into a `blob:` URL, rewriting its relative imports (`from "./x.js"`, the
//! only form the viewer uses) to its dependencies' blob URLs; the modules import each other
//! without cycles, so every dependency has its URL before it is needed.

use crate::assets;
use crate::replays::Loaded;

const PAGE: &str = "replay.html";
const STYLE_LINK: &str = r#"<link rel="stylesheet" href="/css/style.css">"#;
const ENTRY_SCRIPT: &str = r#"<script type="module" src="/js/replay-page.js"></script>"#;
const ENTRY: &str = "js/replay-page.js";

const LOADER: &str = r#"<script>
(() => {
  const sources = JSON.parse(document.getElementById("arbiter-modules").textContent);
  const urls = {};
  const load = (path) => {
    if (urls[path]) return urls[path];
    const code = sources[path].replace(
      /(\bfrom\s*)(["'])(\.\.?\/[^"']+)\2/g,
      (_, before, quote, spec) =>
        before + quote + load(new URL(spec, "http://x/" + path).pathname.slice(1)) + quote);
    urls[path] = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
    return urls[path];
  };
  import(load("__ENTRY__"));
})();
</script>"#;

/// Text that may sit inside a `<script>` element: `</` and `<!--` cannot end or confuse it.
fn script_safe(json: &str) -> String {
    // Both can only occur inside JSON strings, where these escapes mean the same text.
    json.replace("</", "<\\/").replace("<!--", "<\\u0021--")
}

/// The exported page for a replay.
pub fn page(replay: &Loaded) -> String {
    let html = assets::text(PAGE).expect("the viewer has its replay page");
    let style = assets::text("css/style.css").expect("the viewer has its style sheet");
    let modules: serde_json::Map<String, serde_json::Value> = assets::modules()
        .into_iter()
        .map(|(path, source)| (path, serde_json::Value::from(source)))
        .collect();
    let modules = serde_json::to_string(&modules).expect("strings serialize");
    let data = serde_json::to_string(&replay.body()).expect("a replay serializes");
    let scripts = format!(
        "<script type=\"application/json\" id=\"arbiter-replay\">{}</script>\n\
         <script type=\"application/json\" id=\"arbiter-modules\">{}</script>\n{}",
        script_safe(&data),
        script_safe(&modules),
        LOADER.replace("__ENTRY__", ENTRY)
    );
    assert!(
        html.contains(STYLE_LINK) && html.contains(ENTRY_SCRIPT),
        "replay.html links its style sheet and entry module as export.rs expects"
    );
    html.replace(STYLE_LINK, &format!("<style>\n{style}</style>"))
        .replace(ENTRY_SCRIPT, &scripts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_text_cannot_close_its_element() {
        assert_eq!(
            script_safe(r#"{"log":"</script><!--"}"#),
            r#"{"log":"<\/script><\u0021--"}"#
        );
    }
}
