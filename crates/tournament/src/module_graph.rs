//! The crate's modules read top-down: no module uses, directly or through others, a module that
//! uses it. The crate once had an import circle (the pool, the plan, the setup and the standings
//! reaching into each other); this test reads the crate's own source so that none comes back.
//!
//! A module uses another when its code (not its comments, not its `tests` module) names a path
//! `crate::other…`, in a `use` or in an expression, or names an item that `lib.rs` re-exports
//! from `other`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module and the modules it uses.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// What `lib.rs` declares: the modules outside tests, and the items it re-exports from them
/// (name → module).
#[derive(Debug, Default, PartialEq)]
struct Root {
    modules: BTreeSet<String>,
    reexports: BTreeMap<String, String>,
}

/// A source without its comments and without its `tests` module (tests may reach anywhere).
fn code_of(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let tests = lines.windows(2).position(|pair| {
        pair[0].trim() == "#[cfg(test)]" && pair[1].trim_start().contains("mod tests")
    });
    lines[..tests.unwrap_or(lines.len())]
        .iter()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tokens of some code: identifiers, `::`, and every other character on its own.
fn tokens(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let mut token = c.to_string();
        if is_ident_char(c) {
            while let Some(&next) = chars.peek().filter(|&&n| is_ident_char(n)) {
                token.push(next);
                chars.next();
            }
        } else if c == ':' && chars.peek() == Some(&':') {
            token.push(chars.next().expect("peeked"));
        }
        out.push(token);
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(is_ident_char)
}

/// A path a use tree names: its segments, and the name it is known by here (its last segment
/// or its `as` alias).
#[derive(Debug, PartialEq)]
struct Named {
    segments: Vec<String>,
    name: String,
}

/// Reads the use tree (or the path of an expression) at `t[*at..]`, under `prefix`, adding each
/// path it names to `out`: `a::{b, c::d as e}` names `a::b` and `a::c::d` (as `e`). It stops at
/// the first token that cannot continue a path (`<`, `(`, `;`…).
fn use_tree(t: &[String], at: &mut usize, mut segments: Vec<String>, out: &mut Vec<Named>) {
    while let Some(token) = t.get(*at) {
        if token == "{" {
            *at += 1;
            while t
                .get(*at)
                .is_some_and(|x| is_ident(x) || x == "{" || x == "*")
            {
                use_tree(t, at, segments.clone(), out);
                if t.get(*at).is_some_and(|x| x == ",") {
                    *at += 1;
                }
            }
            if t.get(*at).is_some_and(|x| x == "}") {
                *at += 1;
            }
            return;
        }
        if !is_ident(token) && token != "*" {
            break;
        }
        segments.push(token.clone());
        *at += 1;
        if token == "*" || t.get(*at).is_none_or(|x| x != "::") {
            break;
        }
        *at += 1;
    }
    let mut name = segments.last().cloned().unwrap_or_default();
    if t.get(*at).is_some_and(|x| x == "as")
        && let Some(alias) = t.get(*at + 1)
    {
        name = alias.clone();
        *at += 2;
    }
    out.push(Named { segments, name });
}

/// Every path of some code that starts with `crate::`, without the `crate`.
fn crate_paths(code: &str) -> Vec<Named> {
    let t = tokens(code);
    let mut out = Vec::new();
    for i in 0..t.len() {
        // `pub(crate)` is not a path.
        if t[i] == "crate" && t.get(i + 1).is_some_and(|x| x == "::") {
            let mut at = i + 2;
            let mut found = Vec::new();
            use_tree(&t, &mut at, Vec::new(), &mut found);
            out.extend(found);
        }
    }
    out
}

/// The modules `lib.rs` declares outside tests and what it re-exports from them.
fn root(lib: &str) -> Root {
    let code = code_of(lib);
    let t = tokens(&code);
    let test_attribute = ["#", "[", "cfg", "(", "test", ")", "]"];
    let mut root = Root::default();
    for i in 0..t.len() {
        let declared = t[i] == "mod" && t.get(i + 2).is_some_and(|x| x == ";");
        let visibility = usize::from(i > 0 && t[i - 1] == "pub");
        let attribute = i
            .checked_sub(visibility + test_attribute.len())
            .map(|from| &t[from..i - visibility]);
        if declared && attribute != Some(&test_attribute.map(String::from)[..]) {
            root.modules.insert(t[i + 1].clone());
        }
    }
    for i in 0..t.len() {
        if t[i] == "pub" && t.get(i + 1).is_some_and(|x| x == "use") {
            let mut reexported = Vec::new();
            use_tree(&t, &mut (i + 2), Vec::new(), &mut reexported);
            for named in reexported {
                let module = &named.segments[0];
                if root.modules.contains(module) {
                    root.reexports.insert(named.name, module.clone());
                }
            }
        }
    }
    root
}

/// The graph of the modules `lib` declares, each read from `source(module)`.
fn graph_of(lib: &str, source: impl Fn(&str) -> String) -> Graph {
    let root = root(lib);
    root.modules
        .iter()
        .map(|module| {
            let used = crate_paths(&code_of(&source(module)))
                .into_iter()
                .filter_map(|named| named.segments.first().cloned())
                .filter_map(|first| match root.modules.contains(&first) {
                    true => Some(first),
                    false => root.reexports.get(&first).cloned(),
                })
                .filter(|used| used != module)
                .collect();
            (module.clone(), used)
        })
        .collect()
}

/// A circle of the graph, if there is one: its modules in order, the first one again at the
/// end (`a → b → a`).
fn circle(graph: &Graph) -> Option<Vec<String>> {
    let mut done = BTreeSet::new();
    for start in graph.keys() {
        let mut path = Vec::new();
        if let Some(circle) = circle_from(graph, start, &mut path, &mut done) {
            return Some(circle);
        }
    }
    None
}

/// Depth first from `module`, `path` the modules being visited: a module met again on it
/// closes a circle. `done` are the modules known to lead to none.
fn circle_from(
    graph: &Graph,
    module: &str,
    path: &mut Vec<String>,
    done: &mut BTreeSet<String>,
) -> Option<Vec<String>> {
    if let Some(from) = path.iter().position(|m| m == module) {
        let mut circle = path[from..].to_vec();
        circle.push(module.to_owned());
        return Some(circle);
    }
    if done.contains(module) {
        return None;
    }
    path.push(module.to_owned());
    for used in graph.get(module).into_iter().flatten() {
        if let Some(circle) = circle_from(graph, used, path, done) {
            return Some(circle);
        }
    }
    path.pop();
    done.insert(module.to_owned());
    None
}

#[test]
fn the_modules_read_top_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let read = |file: &Path| {
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    };
    let graph = graph_of(&read(&src.join("lib.rs")), |module| {
        read(&src.join(format!("{module}.rs")))
    });
    // The reading found the modules and what they use (an empty graph has no circle either).
    assert!(graph.len() >= 15, "{graph:?}");
    assert!(graph["setup"].contains("play"), "{graph:?}");
    assert!(graph["pool"].contains("plan"), "{graph:?}");
    if let Some(circle) = circle(&graph) {
        panic!(
            "the modules use each other in a circle: {}",
            circle.join(" → ")
        );
    }
}

#[test]
fn a_circle_is_found_and_named() {
    let lib = "pub mod a;\npub mod b;\npub mod c;\n#[cfg(test)]\nmod d;\npub use c::{Thing};";
    let sources = |module: &str| match module {
        "a" => "use crate::b::X;".to_owned(),
        // Through a re-export of lib.rs.
        "b" => "fn f() -> crate::Thing { todo!() }".to_owned(),
        "c" => "use crate::{b as other, a::{self, Y}};\n\n#[cfg(test)]\nmod tests {}".to_owned(),
        other => panic!("{other} is a test module, not read"),
    };
    let graph = graph_of(lib, sources);
    assert_eq!(graph["c"], BTreeSet::from(["a".to_owned(), "b".to_owned()]));
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
}

#[test]
fn comments_tests_and_paths_of_other_crates_are_not_uses() {
    let lib = "pub mod a;\npub mod b;\npub use b::Thing;\npub use other::x as y;";
    let sources = |module: &str| match module {
        "a" => "//! See [`crate::b`].\npub(crate) fn f() { other::crate_x(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::b::Thing;\n}"
            .to_owned(),
        _ => "use crate::a::f; // and crate::Thing".to_owned(),
    };
    let graph = graph_of(lib, sources);
    assert_eq!(graph["a"], BTreeSet::new());
    assert_eq!(graph["b"], BTreeSet::from(["a".to_owned()]));
    assert_eq!(circle(&graph), None);
}

#[test]
fn use_trees_name_each_path_they_bring_in() {
    let mut found = Vec::new();
    let t = tokens("x::{a::{b, c}, d as e, f::*, self}, next");
    use_tree(&t, &mut 0, Vec::new(), &mut found);
    let found: Vec<(String, String)> = found
        .into_iter()
        .map(|n| (n.segments.join("::"), n.name))
        .collect();
    let expected = [
        ("x::a::b", "b"),
        ("x::a::c", "c"),
        ("x::d", "e"),
        ("x::f::*", "*"),
        ("x::self", "self"),
    ];
    assert_eq!(found, expected.map(|(p, n)| (p.to_owned(), n.to_owned())));
}
