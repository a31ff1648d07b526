//! The arena's service through its router (tower's `oneshot`, no socket), on a real SQLite
//! store: accounts and sessions, the protection against other sites' requests, what each
//! viewer gets from each route, uploads and their limits, teams, event streams.

use std::io::Write;
use std::path::PathBuf;

use arbiter_arena::{ArenaConfig, ArenaState, app};
use arbiter_store::{ArenaStore, Bot, Presence, User};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

struct Arena {
    app: Router,
    store: ArenaStore,
    _dir: PathBuf,
}

async fn arena(name: &str, config: ArenaConfig) -> Arena {
    let dir = arbiter_testdir::fresh(name);
    let db = dir.join("arena.db");
    arena_at(db.to_str().unwrap(), config, dir.clone()).await
}

/// The arena on the store at `target` (a SQLite file or a PostgreSQL URL).
async fn arena_at(target: &str, config: ArenaConfig, dir: PathBuf) -> Arena {
    let store = ArenaStore::open(target, Presence::MayCreate).await.unwrap();
    let state = ArenaState::open(store.clone(), target, config)
        .await
        .unwrap();
    Arena {
        app: app(state),
        store,
        _dir: dir,
    }
}

/// Who calls: a browser's session (its cookie and CSRF token), a script's token, or no one.
#[derive(Clone, Default)]
struct Client {
    cookie: Option<String>,
    csrf: Option<String>,
    bearer: Option<String>,
}

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!("{e}: {}", String::from_utf8_lossy(&self.body));
        })
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

const HOST: &str = "arena.test";

impl Arena {
    /// Sends a request as `client` would from the arena's own page (its origin, its token).
    async fn call(
        &self,
        client: &mut Client,
        method: Method,
        uri: &str,
        body: Body,
        kind: Option<&str>,
    ) -> Answer {
        let mut request = Request::builder()
            .method(method.clone())
            .uri(uri)
            .header(header::HOST, HOST);
        if let Some(kind) = kind {
            request = request.header(header::CONTENT_TYPE, kind);
        }
        if let Some(cookie) = &client.cookie {
            request = request.header(header::COOKIE, cookie);
        }
        if let Some(token) = &client.bearer {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if method != Method::GET {
            request = request.header(header::ORIGIN, format!("http://{HOST}"));
            if let Some(csrf) = &client.csrf {
                request = request.header("x-csrf-token", csrf);
            }
        }
        self.send(client, request.body(body).unwrap()).await
    }

    async fn send(&self, client: &mut Client, request: Request<Body>) -> Answer {
        let response = self.app.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        if let Some(set) = headers.get(header::SET_COOKIE) {
            let set = set.to_str().unwrap();
            client.cookie = Some(set.split(';').next().unwrap().to_owned());
        }
        let body = response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec();
        let answer = Answer {
            status,
            headers,
            body,
        };
        if let Some(csrf) = serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .and_then(|v| v["csrf"].as_str().map(str::to_owned))
        {
            client.csrf = Some(csrf);
        }
        answer
    }

    async fn get(&self, client: &mut Client, uri: &str) -> Answer {
        self.call(client, Method::GET, uri, Body::empty(), None)
            .await
    }

    async fn post(&self, client: &mut Client, uri: &str, body: Value) -> Answer {
        self.call(
            client,
            Method::POST,
            uri,
            Body::from(body.to_string()),
            Some("application/json"),
        )
        .await
    }

    async fn upload(
        &self,
        client: &mut Client,
        uri: &str,
        file_name: &str,
        bytes: &[u8],
    ) -> Answer {
        let (kind, body) = multipart(&[("file", Some(file_name), bytes)]);
        self.call(client, Method::POST, uri, Body::from(body), Some(&kind))
            .await
    }

    /// A user signed up through the API, signed in.
    async fn sign_up(&self, name: &str) -> Client {
        let mut client = Client::default();
        let answer = self
            .post(
                &mut client,
                "/api/arena/signup",
                json!({"name": name, "password": "correct horse"}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
        client
    }

    /// A user made in the store, calling with an API token.
    async fn token_user(&self, name: &str, admin: bool) -> (User, Client) {
        let user = self.store.add_user(name, PHC, admin).await.unwrap();
        let token = format!("token-of-{name}");
        self.store
            .add_token(user.id, &arbiter_logins::sha256_hex(&token), "tests")
            .await
            .unwrap();
        (
            user,
            Client {
                bearer: Some(token),
                ..Client::default()
            },
        )
    }
}

/// A well-formed argon2id hash of no password anyone types: users made in the store call
/// with tokens.
const PHC: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpg";

/// A multipart/form-data body of `fields` (name, file name, bytes); its content type.
fn multipart(fields: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "arena-test-boundary-7d3f";
    let mut body = Vec::new();
    for (name, file, bytes) in fields {
        write!(
            body,
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\""
        )
        .unwrap();
        if let Some(file) = file {
            write!(
                body,
                "; filename=\"{file}\"\r\nContent-Type: application/octet-stream"
            )
            .unwrap();
        }
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    write!(body, "--{boundary}--\r\n").unwrap();
    (format!("multipart/form-data; boundary={boundary}"), body)
}

fn gz(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

/// A check replay as the referee writes it: the version in seat 0 logging and drawing, a
/// robot in seat 1.
fn check_replay() -> Vec<u8> {
    let lines = [
        r#"{"type":"header","format":{"major":1,"minor":0},"game":"quoridor","settings":{"players":2},"seed":7,"players":[{"name":"b1 v1","kind":"process","command":"./run"},{"name":"random","kind":"builtin","command":null}]}"#,
        r##"{"type":"tick","tick":0,"player":null,"action":{"kind":"start"},"state":{"tick":0},"bots":[{"received":[],"sent":[],"error":null,"log":"secret plan\n#draw cell 4 4 red\n","offline":false,"time_ms":null,"bank_ms":1000},{"received":[],"sent":[],"error":null,"log":"","offline":false,"time_ms":null,"bank_ms":1000}]}"##,
        r#"{"type":"result","ticks":1,"reason":"crash","scores":[0.0,1.0],"placement":[2,1],"bots":[{"name":"b1 v1","errors":0,"timeouts":0,"crashed":true},{"name":"random","errors":0,"timeouts":0,"crashed":false}]}"#,
    ];
    gz(&(lines.join("\n") + "\n"))
}

/// Bot `name` of `team` with version 1 built (log "g++ said hello") and failed at its check
/// (reason "it crashed"), with one check replay.
async fn failed_bot(store: &ArenaStore, team: i64, uploader: i64, name: &str) -> Bot {
    let bot = store.add_bot(team, "quoridor", name).await.unwrap();
    store
        .add_version(bot.id, uploader, "bot.cpp", b"int main() {}")
        .await
        .unwrap();
    let build = store.claim_job("tests", 60_000).await.unwrap().unwrap();
    store
        .finish_build(&build, Ok(("0123abcd", "c++", "g++ said hello")))
        .await
        .unwrap();
    let check = store.claim_job("tests", 60_000).await.unwrap().unwrap();
    store
        .finish_check(
            &check,
            false,
            Some("it crashed"),
            &[("b1 v1 vs random".to_owned(), check_replay())],
        )
        .await
        .unwrap();
    store.bot_by_id(bot.id).await.unwrap().unwrap()
}

#[tokio::test]
async fn signing_up_in_and_out_keeps_a_session_in_an_httponly_samesite_cookie() {
    let arena = arena("arena-sessions", ArenaConfig::default()).await;
    let mut ada = Client::default();
    let answer = arena
        .post(
            &mut ada,
            "/api/arena/signup",
            json!({"name": "ada", "password": "correct horse"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let cookie = answer.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(cookie.starts_with("arena_session="), "{cookie}");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"), "no TLS here: {cookie}");
    assert_eq!(answer.json()["user"]["name"], "ada");
    assert_eq!(answer.json()["teams"][0]["name"], "ada");

    let me = arena.get(&mut ada, "/api/arena/me").await.json();
    assert_eq!(me["user"]["name"], "ada");
    assert!(me["csrf"].as_str().is_some_and(|t| t.len() == 64));

    // Signing in again gives the session a new id: one planted before is worth nothing.
    let before = ada.cookie.clone();
    let again = arena
        .post(
            &mut ada,
            "/api/arena/signin",
            json!({"name": "ada", "password": "correct horse"}),
        )
        .await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    assert_ne!(ada.cookie, before);

    assert_eq!(
        arena
            .post(&mut ada, "/api/arena/signout", json!({}))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    assert!(arena.get(&mut ada, "/api/arena/me").await.json()["user"].is_null());

    let mut stranger = Client::default();
    for (name, password, status) in [
        ("ada", "wrong horse", StatusCode::UNAUTHORIZED),
        ("nobody", "correct horse", StatusCode::UNAUTHORIZED),
        ("ada", "correct horse", StatusCode::OK),
    ] {
        let answer = arena
            .post(
                &mut stranger,
                "/api/arena/signin",
                json!({"name": name, "password": password}),
            )
            .await;
        assert_eq!(answer.status, status, "{name}: {}", answer.text());
    }
    let taken = arena
        .post(
            &mut Client::default(),
            "/api/arena/signup",
            json!({"name": "ADA", "password": "correct horse"}),
        )
        .await;
    assert_eq!(taken.status, StatusCode::CONFLICT, "{}", taken.text());
    for (form, says) in [
        (json!({"name": "bob", "password": "short"}), "too short"),
        (
            json!({"name": "../bob", "password": "correct horse"}),
            "cannot name a user",
        ),
        (json!({"name": "bob"}), "password"),
    ] {
        let answer = arena
            .post(&mut Client::default(), "/api/arena/signup", form)
            .await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text());
        assert!(
            answer.json()["error"].as_str().unwrap().contains(says),
            "{}",
            answer.text()
        );
    }
}

#[tokio::test]
async fn secure_cookies_are_sent_over_tls_only() {
    let config = ArenaConfig {
        secure_cookies: true,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-secure", config).await;
    let mut ada = Client::default();
    let answer = arena
        .post(
            &mut ada,
            "/api/arena/signup",
            json!({"name": "ada", "password": "correct horse"}),
        )
        .await;
    assert!(
        answer.headers[header::SET_COOKIE]
            .to_str()
            .unwrap()
            .contains("Secure")
    );
}

#[tokio::test]
async fn without_open_signup_an_invite_code_is_needed_once() {
    let config = ArenaConfig {
        open_signup: false,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-invites", config).await;
    arena
        .store
        .add_invite(&arbiter_logins::sha256_hex("let-me-in"))
        .await
        .unwrap();
    for (invite, status) in [
        (json!(null), StatusCode::FORBIDDEN),
        (json!("wrong"), StatusCode::FORBIDDEN),
        (json!("let-me-in"), StatusCode::CREATED),
    ] {
        let form = json!({"name": "ada", "password": "correct horse", "invite": invite});
        let answer = arena
            .post(&mut Client::default(), "/api/arena/signup", form)
            .await;
        assert_eq!(answer.status, status, "{invite}: {}", answer.text());
    }
    let form = json!({"name": "bob", "password": "correct horse", "invite": "let-me-in"});
    let again = arena
        .post(&mut Client::default(), "/api/arena/signup", form)
        .await;
    assert_eq!(again.status, StatusCode::FORBIDDEN, "a code is taken once");
}

#[tokio::test]
async fn a_forged_form_from_another_site_is_refused_and_changes_nothing() {
    let arena = arena("arena-csrf", ArenaConfig::default()).await;
    let mut ada = arena.sign_up("ada").await;
    let user = arena.store.user_by_name("ada").await.unwrap().unwrap();
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    failed_bot(&arena.store, team.id, user.id, "b1").await;
    let uri = "/api/arena/bots/quoridor/b1/retire";
    // The page of another site posting a form to the arena, with ada's cookie (the browser
    // adds it: 127.0.0.1 on another port is the same site).
    let forged = |origin: Option<&str>, fetch_site: Option<&str>, csrf: Option<&str>| {
        let mut request = Request::builder()
            .method(Method::POST)
            .uri(uri)
            .header(header::HOST, HOST)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::COOKIE, ada.cookie.clone().unwrap());
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        if let Some(site) = fetch_site {
            request = request.header("sec-fetch-site", site);
        }
        if let Some(csrf) = csrf {
            request = request.header("x-csrf-token", csrf);
        }
        request.body(Body::from("confirm=yes")).unwrap()
    };
    let token = ada.csrf.clone().unwrap();
    for request in [
        forged(Some("http://evil.example"), Some("cross-site"), None),
        forged(Some("http://127.0.0.1:9999"), Some("same-site"), None),
        forged(Some("null"), None, None),
        // The right token does not help a request from another origin…
        forged(Some("http://evil.example"), None, Some(&token)),
        forged(None, Some("cross-site"), Some(&token)),
        // … nor the right origin a request without the token.
        forged(Some(&format!("http://{HOST}")), Some("same-origin"), None),
        forged(Some(&format!("http://{HOST}")), None, Some("0000")),
    ] {
        let answer = arena.send(&mut ada.clone(), request).await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN, "{}", answer.text());
        assert_eq!(answer.json()["kind"], "forbidden");
    }
    let bot = arena.store.bot("quoridor", "b1").await.unwrap().unwrap();
    assert!(!bot.retired, "nothing changed");
    let answer = arena.post(&mut ada, uri, json!({})).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    assert!(
        arena
            .store
            .bot("quoridor", "b1")
            .await
            .unwrap()
            .unwrap()
            .retired
    );
}

/// What one viewer gets from one route.
#[derive(Clone, Copy, Debug)]
enum Gets {
    /// This status.
    Status(u16),
    /// 200, with the private part (`field` holds `text`).
    Private(&'static str, &'static str),
    /// 200, without the private part (`field` is null, absent, or lacks `text`).
    Public(&'static str, &'static str),
}

#[tokio::test]
async fn every_route_gives_each_viewer_exactly_what_it_may() {
    let arena = arena("arena-access", ArenaConfig::default()).await;
    let member = arena.sign_up("ada").await;
    let user = arena.store.user_by_name("ada").await.unwrap().unwrap();
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    failed_bot(&arena.store, team.id, user.id, "b1").await;
    let (_, stranger) = arena.token_user("bob", false).await;
    let (_, admin) = arena.token_user("root", true).await;
    let visitor = Client::default();
    let bot = "/api/arena/bots/quoridor/b1";
    let v1 = "/api/arena/bots/quoridor/b1/versions/1";
    use Gets::{Private, Public, Status};
    // Routes that read: [member, stranger, visitor, admin].
    let reads: Vec<(String, [Gets; 4])> = vec![
        (
            "/api/arena/me".into(),
            [
                Private("user", "ada"),
                Private("user", "bob"),
                Public("user", "ada"),
                Private("user", "root"),
            ],
        ),
        (
            bot.into(),
            [
                Private("versions", "g++ said hello"),
                Public("versions", "g++ said hello"),
                Public("versions", "g++ said hello"),
                Private("versions", "g++ said hello"),
            ],
        ),
        (
            v1.into(),
            [
                Private("reason", "it crashed"),
                Public("reason", "it crashed"),
                Public("reason", "it crashed"),
                Private("reason", "it crashed"),
            ],
        ),
        (
            format!("{v1}/source"),
            [Status(200), Status(403), Status(401), Status(200)],
        ),
        (
            format!("{v1}/check/0/replay"),
            [
                Private("ticks", "#draw cell"),
                Public("ticks", "#draw cell"),
                Public("ticks", "secret plan"),
                Private("ticks", "secret plan"),
            ],
        ),
        (format!("{v1}/check/1/replay"), [Status(404); 4]),
        (
            "/api/arena/teams/ada".into(),
            [
                Private("members", "ada"),
                Public("members", "ada"),
                Public("members", "ada"),
                Private("members", "ada"),
            ],
        ),
        (
            "/api/arena/bots?mine=1".into(),
            [Private("0", "b1"), Status(200), Status(401), Status(200)],
        ),
        (
            "/api/arena/admin/users".into(),
            [Status(403), Status(403), Status(401), Private("0", "ada")],
        ),
        (
            "/api/arena/admin/bots".into(),
            [
                Status(403),
                Status(403),
                Status(401),
                Private("0", "g++ said hello"),
            ],
        ),
        (
            "/api/arena/admin/queue".into(),
            [Status(403), Status(403), Status(401), Status(200)],
        ),
        ("/api/arena/bots/quoridor/nobot".into(), [Status(404); 4]),
        ("/api/arena/bots/tetris/b1".into(), [Status(404); 4]),
    ];
    let viewers = [
        member.clone(),
        stranger.clone(),
        visitor.clone(),
        admin.clone(),
    ];
    for (uri, expected) in &reads {
        for (who, gets) in viewers.iter().zip(expected) {
            let answer = arena.get(&mut who.clone(), uri).await;
            check(uri, who, *gets, &answer);
        }
    }
    // Routes that change: the stranger and the visitor are refused, the member and the admin
    // may (the member's change is undone by the admin's where both apply).
    let cpp = b"int main() { return 0; }\n";
    for (who, status) in [(&stranger, 403), (&visitor, 401)] {
        for (uri, body) in [
            (format!("{bot}/retire"), json!({})),
            (format!("{bot}/active"), json!({"version": null})),
            (
                "/api/arena/teams/ada/members".to_owned(),
                json!({"user": "bob"}),
            ),
        ] {
            let answer = arena.post(&mut who.clone(), &uri, body).await;
            assert_eq!(answer.status.as_u16(), status, "{uri}: {}", answer.text());
        }
        let answer = arena
            .upload(&mut who.clone(), &format!("{bot}/versions"), "bot.cpp", cpp)
            .await;
        assert_eq!(answer.status.as_u16(), status, "upload: {}", answer.text());
    }
    let refused = arena
        .post(
            &mut visitor.clone(),
            "/api/arena/teams",
            json!({"name": "t"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    // Choosing a version that has not passed is refused, for anyone.
    let answer = arena
        .post(
            &mut member.clone(),
            &format!("{bot}/active"),
            json!({"version": 1}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.text());
    for who in [&member, &admin] {
        let answer = arena
            .upload(&mut who.clone(), &format!("{bot}/versions"), "bot.cpp", cpp)
            .await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
        let answer = arena
            .post(
                &mut who.clone(),
                &format!("{bot}/active"),
                json!({"version": null}),
            )
            .await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    }
    assert_eq!(
        arena.get(&mut member.clone(), bot).await.json()["versions"][0]["number"],
        3
    );
    let answer = arena
        .post(
            &mut admin.clone(),
            "/api/arena/teams/ada/members",
            json!({"user": "bob"}),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.text());
    // Bob is of the team now: he sees its private parts.
    let answer = arena
        .get(&mut stranger.clone(), &format!("{v1}/source"))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, b"int main() {}");
    assert!(
        answer.headers[header::CONTENT_DISPOSITION]
            .to_str()
            .unwrap()
            .contains("bot.cpp")
    );
    let answer = arena
        .post(&mut admin.clone(), &format!("{bot}/retire"), json!({}))
        .await;
    assert_eq!(answer.json()["retired"], true);
    assert_eq!(answer.json()["versions"][0]["state"], "retired");
}

/// A field of the answer (an item, for a number), as JSON text.
fn part(answer: &Answer, field: &str) -> String {
    let json = answer.json();
    match field.parse::<usize>() {
        Ok(index) => json[index].to_string(),
        Err(_) => json[field].to_string(),
    }
}

fn check(uri: &str, who: &Client, gets: Gets, answer: &Answer) {
    let whom = who
        .bearer
        .clone()
        .or(who.cookie.clone().map(|_| "ada's session".into()))
        .unwrap_or("a visitor".into());
    let context = format!("{uri} for {whom}: {} {}", answer.status, answer.text());
    match gets {
        Gets::Status(status) => assert_eq!(answer.status.as_u16(), status, "{context}"),
        Gets::Private(field, text) => {
            assert_eq!(answer.status, StatusCode::OK, "{context}");
            assert!(part(answer, field).contains(text), "{context}");
        }
        Gets::Public(field, text) => {
            assert_eq!(answer.status, StatusCode::OK, "{context}");
            assert!(!part(answer, field).contains(text), "{context}");
        }
    }
}

#[tokio::test]
async fn a_stranger_sees_states_and_moves_but_not_logs_unless_logs_are_public() {
    let config = ArenaConfig {
        public_logs: true,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-public-logs", config).await;
    let user = arena.store.add_user("ada", PHC, false).await.unwrap();
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    failed_bot(&arena.store, team.id, user.id, "b1").await;
    let replay = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/versions/1/check/0/replay",
        )
        .await
        .json();
    assert_eq!(
        replay["ticks"][0]["bots"][0]["log"],
        "secret plan\n#draw cell 4 4 red\n"
    );
    assert_eq!(replay["result"]["reason"], "crash");
    let version = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/versions/1",
        )
        .await
        .json();
    assert_eq!(version["state"], "check_failed");
    assert_eq!(version["checks"][0]["label"], "b1 v1 vs random");
    assert!(version.get("build_log").is_none() && version.get("reason").is_none());
}

/// A zip holding `entries` (name, bytes), deflated.
fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = zip::ZipWriter::new(&mut out);
    for (name, bytes) in entries {
        writer
            .start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap();
    out.into_inner()
}

#[tokio::test]
async fn uploads_make_the_bot_queue_a_build_and_refuse_bad_input_with_its_reason() {
    let config = ArenaConfig {
        max_upload_bytes: 64 << 10,
        uploads_per_day: 3,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-uploads", config).await;
    let mut ada = arena.sign_up("ada").await;
    let uri = "/api/arena/bots/quoridor/runner/versions";
    let cpp = b"#include <cstdio>\nint main() { return 0; }\n";
    let answer = arena.upload(&mut ada, uri, "runner.cpp", cpp).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let json = answer.json();
    assert_eq!(
        (json["version"].as_i64(), json["state"].as_str()),
        (Some(1), Some("queued"))
    );
    assert_eq!(json["bot"]["team"], "ada");
    let queue = arena.store.queue().await.unwrap();
    assert!(
        queue
            .iter()
            .any(|j| j.bot_name == "runner" && j.number == 1),
        "a build is queued"
    );

    let player = zip(&[
        ("player/info.txt", b"run=python3 main.py\n"),
        ("player/main.py", b"print(1)\n"),
    ]);
    let answer = arena.upload(&mut ada, uri, "player.zip", &player).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());

    let escaping = zip(&[("../evil.txt", b"x")]);
    let huge = vec![b'x'; 80 << 10];
    for (file, bytes, status, says) in [
        (
            "bot.cobol",
            &cpp[..],
            StatusCode::BAD_REQUEST,
            "no language",
        ),
        (
            "player.zip",
            &escaping[..],
            StatusCode::BAD_REQUEST,
            "player.zip",
        ),
        (
            "player.zip",
            &b"not a zip"[..],
            StatusCode::BAD_REQUEST,
            "player.zip",
        ),
        ("empty.cpp", &b""[..], StatusCode::BAD_REQUEST, "empty"),
        (
            "big.cpp",
            &huge[..],
            StatusCode::PAYLOAD_TOO_LARGE,
            "larger than",
        ),
    ] {
        let answer = arena.upload(&mut ada, uri, file, bytes).await;
        assert_eq!(answer.status, status, "{file}: {}", answer.text());
        let error = answer.json()["error"].as_str().unwrap().to_owned();
        assert!(error.contains(says), "{file}: {error}");
    }
    let answer = arena
        .upload(
            &mut ada,
            "/api/arena/bots/tetris/runner/versions",
            "runner.cpp",
            cpp,
        )
        .await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND, "{}", answer.text());
    assert!(
        answer.text().contains("offers no game"),
        "{}",
        answer.text()
    );
    let answer = arena.post(&mut ada, uri, json!({"file": "x"})).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text());
    let (kind, body) = multipart(&[("team", None, b"ada")]);
    let answer = arena
        .call(&mut ada, Method::POST, uri, Body::from(body), Some(&kind))
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text());
    assert!(answer.text().contains("`file`"), "{}", answer.text());

    // The third upload of the day is the last.
    let answer = arena.upload(&mut ada, uri, "runner.cpp", cpp).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let answer = arena.upload(&mut ada, uri, "runner.cpp", cpp).await;
    assert_eq!(
        answer.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        answer.text()
    );
    assert_eq!(
        arena.get(&mut ada, "/api/arena/me").await.json()["uploads_today"],
        3
    );
    assert_eq!(
        arena
            .store
            .bot("quoridor", "runner")
            .await
            .unwrap()
            .unwrap()
            .versions,
        3
    );
}

#[tokio::test]
async fn a_script_makes_or_reuses_its_bot_and_another_team_cannot_take_the_name() {
    let arena = arena("arena-bots", ArenaConfig::default()).await;
    let (_, mut ada) = arena.token_user("ada", false).await;
    let (_, mut bob) = arena.token_user("bob", false).await;
    let form = json!({"game": "quoridor", "name": "runner"});
    let made = arena.post(&mut ada, "/api/arena/bots", form.clone()).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text());
    assert_eq!(made.json()["created"], true);
    let again = arena.post(&mut ada, "/api/arena/bots", form.clone()).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.text());
    assert_eq!(
        (
            again.json()["created"].as_bool(),
            again.json()["id"].clone()
        ),
        (Some(false), made.json()["id"].clone())
    );
    let taken = arena.post(&mut bob, "/api/arena/bots", form).await;
    assert_eq!(taken.status, StatusCode::CONFLICT, "{}", taken.text());
    for (form, status) in [
        (
            json!({"game": "tetris", "name": "x"}),
            StatusCode::NOT_FOUND,
        ),
        (
            json!({"game": "quoridor", "name": "a b"}),
            StatusCode::BAD_REQUEST,
        ),
        (
            json!({"game": "quoridor", "name": "x", "team": "ada"}),
            StatusCode::FORBIDDEN,
        ),
        (json!({"game": "quoridor"}), StatusCode::BAD_REQUEST),
    ] {
        let answer = arena.post(&mut bob, "/api/arena/bots", form.clone()).await;
        assert_eq!(answer.status, status, "{form}: {}", answer.text());
    }
    let answer = arena.get(&mut bob, "/api/arena/no/such/route").await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.json()["kind"], "not_found");
    let answer = arena
        .call(
            &mut bob,
            Method::POST,
            "/api/arena/bots",
            Body::from("{not json"),
            Some("application/json"),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.json()["kind"], "bad_request");
    // A script's token needs no CSRF token, whatever Origin it says.
    let request = Request::builder()
        .method(Method::POST)
        .uri("/api/arena/bots")
        .header(header::HOST, HOST)
        .header(header::ORIGIN, "http://elsewhere.example")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::AUTHORIZATION, "Bearer token-of-bob")
        .body(Body::from(
            json!({"game": "quoridor", "name": "bobs"}).to_string(),
        ))
        .unwrap();
    assert_eq!(
        arena.send(&mut bob.clone(), request).await.status,
        StatusCode::CREATED
    );
    let wrong = Client {
        bearer: Some("not-a-token".into()),
        ..Client::default()
    };
    let answer = arena.get(&mut wrong.clone(), "/api/arena/me").await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_team_is_made_and_grown_by_its_members_only() {
    let arena = arena("arena-teams", ArenaConfig::default()).await;
    let mut ada = arena.sign_up("ada").await;
    let (_, mut bob) = arena.token_user("bob", false).await;
    arena.token_user("cy", false).await;
    let made = arena
        .post(&mut ada, "/api/arena/teams", json!({"name": "blue"}))
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text());
    let taken = arena
        .post(&mut bob, "/api/arena/teams", json!({"name": "ada"}))
        .await;
    assert_eq!(taken.status, StatusCode::CONFLICT, "{}", taken.text());
    let refused = arena
        .post(
            &mut bob,
            "/api/arena/teams/blue/members",
            json!({"user": "bob"}),
        )
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{}", refused.text());
    let added = arena
        .post(
            &mut ada,
            "/api/arena/teams/blue/members",
            json!({"user": "bob"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.text());
    assert_eq!(added.json()["members"], json!(["ada", "bob"]));
    let added = arena
        .post(
            &mut bob,
            "/api/arena/teams/blue/members",
            json!({"user": "cy"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::OK, "{}", added.text());
    let unknown = arena
        .post(
            &mut bob,
            "/api/arena/teams/blue/members",
            json!({"user": "dee"}),
        )
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND, "{}", unknown.text());
    // A bot of the team is bob's to change too.
    let made = arena
        .post(
            &mut ada,
            "/api/arena/bots",
            json!({"game": "quoridor", "name": "b", "team": "blue"}),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.text());
    let retired = arena
        .post(&mut bob, "/api/arena/bots/quoridor/b/retire", json!({}))
        .await;
    assert_eq!(retired.status, StatusCode::OK, "{}", retired.text());
    let me = arena.get(&mut bob, "/api/arena/me").await.json();
    assert_eq!(me["teams"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_version_s_state_is_sent_as_events_until_it_settles() {
    let arena = arena("arena-events", ArenaConfig::default()).await;
    let user = arena.store.add_user("ada", PHC, false).await.unwrap();
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    failed_bot(&arena.store, team.id, user.id, "b1").await;
    let answer = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/versions/1/events",
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        answer.headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = answer.text();
    assert!(text.contains("event: state"), "{text}");
    assert!(text.contains(r#""state":"check_failed""#), "{text}");
    assert!(
        !text.contains("it crashed"),
        "a stranger's stream hides the reason: {text}"
    );
    let missing = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/versions/9/events",
        )
        .await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_version_being_built_is_followed_as_it_changes() {
    let arena = arena("arena-follow", ArenaConfig::default()).await;
    let user = arena.store.add_user("ada", PHC, false).await.unwrap();
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    let bot = arena
        .store
        .add_bot(team.id, "quoridor", "b1")
        .await
        .unwrap();
    arena
        .store
        .add_version(bot.id, user.id, "bot.cpp", b"int main() {}")
        .await
        .unwrap();
    let request = Request::builder()
        .uri("/api/arena/bots/quoridor/b1/versions/1/events")
        .header(header::HOST, HOST)
        .body(Body::empty())
        .unwrap();
    let mut body = arena
        .app
        .clone()
        .oneshot(request)
        .await
        .unwrap()
        .into_body();
    let mut seen = String::new();
    let mut next = async || {
        let frame = body.frame().await.unwrap().unwrap();
        String::from_utf8(frame.into_data().unwrap().to_vec()).unwrap()
    };
    seen += &next().await;
    assert!(seen.contains(r#""state":"queued""#), "{seen}");
    let job = arena
        .store
        .claim_job("tests", 60_000)
        .await
        .unwrap()
        .unwrap();
    arena
        .store
        .finish_build(&job, Err(("error: expected ';'", "the build failed")))
        .await
        .unwrap();
    while !seen.contains("build_failed") {
        seen += &next().await;
    }
}

#[tokio::test]
async fn failed_sign_ins_are_throttled() {
    let arena = arena("arena-throttle", ArenaConfig::default()).await;
    arena.sign_up("ada").await;
    let mut throttled = false;
    for _ in 0..30 {
        let answer = arena
            .post(
                &mut Client::default(),
                "/api/arena/signin",
                json!({"name": "ada", "password": "wrong horse"}),
            )
            .await;
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(
                answer.text().contains("too many failed sign-ins"),
                "{}",
                answer.text()
            );
            throttled = true;
            break;
        }
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{}", answer.text());
    }
    assert!(
        throttled,
        "30 wrong passwords in a row and still no back-off"
    );
}

#[test]
fn sessions_are_kept_in_postgresql_too() {
    let cluster = arbiter_pgtest::Cluster::start().unwrap();
    let target = cluster.database("arena_sessions");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let dir = arbiter_testdir::fresh("arena-postgres");
        let arena = arena_at(&target, ArenaConfig::default(), dir).await;
        let mut ada = arena.sign_up("ada").await;
        assert_eq!(
            arena.get(&mut ada, "/api/arena/me").await.json()["user"]["name"],
            "ada"
        );
        let cpp = b"int main() { return 0; }\n";
        let uri = "/api/arena/bots/quoridor/runner/versions";
        let answer = arena.upload(&mut ada, uri, "runner.cpp", cpp).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
        // A second service on the same database knows the session: any machine may answer.
        let other = arena_at(&target, ArenaConfig::default(), PathBuf::new()).await;
        let me = other.get(&mut ada.clone(), "/api/arena/me").await.json();
        assert_eq!(me["user"]["name"], "ada");
        let forged = Request::builder()
            .method(Method::POST)
            .uri("/api/arena/bots/quoridor/runner/retire")
            .header(header::HOST, HOST)
            .header(header::ORIGIN, "http://evil.example")
            .header(header::COOKIE, ada.cookie.clone().unwrap())
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            other.send(&mut ada.clone(), forged).await.status,
            StatusCode::FORBIDDEN
        );
        assert_eq!(
            arena
                .post(&mut ada, "/api/arena/signout", json!({}))
                .await
                .status,
            StatusCode::NO_CONTENT
        );
    });
}

#[tokio::test]
async fn event_streams_are_bounded() {
    let config = ArenaConfig {
        max_streams: 1,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-streams", config).await;
    let (user, mut ada) = arena.token_user("ada", false).await;
    let team = arena.store.team_by_name("ada").await.unwrap().unwrap();
    let bot = arena
        .store
        .add_bot(team.id, "quoridor", "b1")
        .await
        .unwrap();
    arena
        .store
        .add_version(bot.id, user.id, "bot.cpp", b"int main() {}")
        .await
        .unwrap();
    let open = |uri: &str, token: Option<&str>| {
        let mut request = Request::builder().uri(uri).header(header::HOST, HOST);
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        request.body(Body::empty()).unwrap()
    };
    // The first stream stays open (its bot's stream never ends), holding the one place.
    let first = arena
        .app
        .clone()
        .oneshot(open("/api/arena/bots/quoridor/b1/events", None))
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let second = arena
        .get(&mut ada, "/api/arena/bots/quoridor/b1/versions/1/events")
        .await;
    assert_eq!(
        second.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "{}",
        second.text()
    );
    assert_eq!(second.json()["kind"], "busy");
    drop(first);
    let visitor = arena
        .app
        .clone()
        .oneshot(open("/api/arena/me/bots/events", None))
        .await
        .unwrap();
    assert_eq!(
        visitor.status(),
        StatusCode::UNAUTHORIZED,
        "a visitor has no bots to follow"
    );
    let mine = open("/api/arena/me/bots/events", Some("token-of-ada"));
    let mut body = arena.app.clone().oneshot(mine).await.unwrap().into_body();
    let frame = body.frame().await.unwrap().unwrap().into_data().unwrap();
    let text = String::from_utf8(frame.to_vec()).unwrap();
    assert!(
        text.contains("event: bots") && text.contains(r#""name":"b1""#),
        "{text}"
    );
}

// The ladder's routes: the leaderboard, matches and their replays, challenges, the playground
// and the admin's switches, on a store with the game's robots enrolled and matches written as
// a worker writes them.

/// Bot `name` of `team` with version 1 built and passed: it plays on the ladder.
async fn passed_bot(store: &ArenaStore, team: i64, uploader: i64, name: &str) -> Bot {
    let bot = store.add_bot(team, "quoridor", name).await.unwrap();
    store
        .add_version(bot.id, uploader, "bot.cpp", b"int main() {}")
        .await
        .unwrap();
    let build = store.claim_job("tests", 60_000).await.unwrap().unwrap();
    store
        .finish_build(&build, Ok(("0123abcd", "c++", "g++ said hello")))
        .await
        .unwrap();
    let check = store.claim_job("tests", 60_000).await.unwrap().unwrap();
    store
        .finish_check(&check, true, None, &[("check".to_owned(), check_replay())])
        .await
        .unwrap();
    store.bot_by_id(bot.id).await.unwrap().unwrap()
}

/// A match's replay as the referee writes it: two programs, each logging its team's secret.
fn match_replay() -> Vec<u8> {
    let lines = [
        r#"{"type":"header","format":{"major":1,"minor":0},"game":"quoridor","settings":{"players":2},"seed":7,"players":[{"name":"b1","kind":"process","command":"./run"},{"name":"b2","kind":"process","command":"./run"}]}"#,
        r##"{"type":"tick","tick":0,"player":null,"action":{"kind":"start"},"state":{"tick":0},"bots":[{"received":[],"sent":[],"error":null,"log":"ada's plan\n#draw cell 1 1 red\n","offline":false,"time_ms":null,"bank_ms":1000},{"received":[],"sent":[],"error":null,"log":"bob's plan\n","offline":false,"time_ms":null,"bank_ms":1000}]}"##,
        r#"{"type":"result","ticks":1,"reason":"goal","scores":[1.0,0.0],"placement":[1,2],"bots":[{"name":"b1","errors":0,"timeouts":0,"crashed":false},{"name":"b2","errors":0,"timeouts":0,"crashed":false}]}"#,
    ];
    gz(&(lines.join("\n") + "\n"))
}

/// The active version's id of `bot`.
async fn active_id(store: &ArenaStore, bot: &Bot) -> i64 {
    let number = bot.active.expect("the bot plays");
    store.version(bot.id, number).await.unwrap().unwrap().id
}

/// Plays the next queued match as a worker would: seat 0 wins, seat 1 times out.
async fn play_next(store: &ArenaStore) -> i64 {
    let claimed = store.claim_match("tests", 60_000).await.unwrap().unwrap();
    let outcome = arbiter_store::MatchOutcome {
        places: vec![1, 2],
        faults: vec![None, Some("timeout".to_owned())],
        reason: "goal".to_owned(),
        replay: match_replay(),
    };
    store.finish_match(&claimed, &outcome).await.unwrap();
    claimed.id
}

/// ada's b1 and bob's b2 on the ladder with two robots; a finished ladder match of b1 against
/// b2, and a queued one. Answers the two matches' ids.
async fn ladder(arena: &Arena) -> (i64, i64) {
    let store = &arena.store;
    let ada = store.user_by_name("ada").await.unwrap().unwrap();
    let bob = store.user_by_name("bob").await.unwrap().unwrap();
    let team_ada = store.team_by_name("ada").await.unwrap().unwrap();
    let team_bob = store.team_by_name("bob").await.unwrap().unwrap();
    let b1 = passed_bot(store, team_ada.id, ada.id, "b1").await;
    let b2 = passed_bot(store, team_bob.id, bob.id, "b2").await;
    store.add_robot("quoridor", "random").await.unwrap();
    store.add_robot("quoridor", "runner").await.unwrap();
    let seats = vec![active_id(store, &b1).await, active_id(store, &b2).await];
    let new = |seed| arbiter_store::NewArenaMatch {
        kind: arbiter_store::MatchKind::Ladder,
        game: "quoridor".to_owned(),
        settings: json!({}),
        seed,
        seats: seats.clone(),
    };
    store.queue_matches(&[new(1)]).await.unwrap();
    let finished = play_next(store).await;
    let queued = store.queue_matches(&[new(2)]).await.unwrap()[0];
    (finished, queued)
}

#[tokio::test]
async fn every_ladder_route_gives_each_viewer_exactly_what_it_may() {
    let arena = arena("arena-ladder-access", ArenaConfig::default()).await;
    let member = arena.sign_up("ada").await;
    let (_, bob) = arena.token_user("bob", false).await;
    let (_, stranger) = arena.token_user("cy", false).await;
    let (_, admin) = arena.token_user("root", true).await;
    let visitor = Client::default();
    let (finished, queued) = ladder(&arena).await;
    use Gets::{Private, Public, Status};
    let replay = format!("/api/arena/matches/{finished}/replay");
    // Routes that read: [member, stranger, visitor, admin].
    let reads: Vec<(String, [Gets; 4])> = vec![
        ("/api/arena/quoridor/leaderboard".into(), [Status(200); 4]),
        ("/api/arena/quoridor/matches/live".into(), [Status(200); 4]),
        (
            "/api/arena/bots/quoridor/b1/matches".into(),
            [Status(200); 4],
        ),
        (
            "/api/arena/bots/quoridor/b1/ratings".into(),
            [Status(200); 4],
        ),
        (format!("/api/arena/matches/{finished}"), [Status(200); 4]),
        (
            replay.clone(),
            [
                Private("ticks", "ada's plan"),
                Public("ticks", "ada's plan"),
                Public("ticks", "#draw"),
                Private("ticks", "ada's plan"),
            ],
        ),
        (
            replay.clone(),
            [
                Public("ticks", "bob's plan"),
                Public("ticks", "bob's plan"),
                Public("ticks", "bob's plan"),
                Private("ticks", "bob's plan"),
            ],
        ),
        (
            format!("/api/arena/matches/{queued}/replay"),
            [Status(404); 4],
        ),
        ("/api/arena/matches/99999".into(), [Status(404); 4]),
        ("/api/arena/matches/nine".into(), [Status(400); 4]),
        ("/api/arena/tetris/leaderboard".into(), [Status(404); 4]),
        ("/api/arena/tetris/matches/live".into(), [Status(404); 4]),
        (
            "/api/arena/bots/quoridor/nobot/matches".into(),
            [Status(404); 4],
        ),
        (
            "/api/arena/admin/operations".into(),
            [
                Status(403),
                Status(403),
                Status(401),
                Private("ladder_paused", "false"),
            ],
        ),
    ];
    let viewers = [
        member.clone(),
        stranger.clone(),
        visitor.clone(),
        admin.clone(),
    ];
    for (uri, expected) in &reads {
        for (who, gets) in viewers.iter().zip(expected) {
            let answer = arena.get(&mut who.clone(), uri).await;
            check(uri, who, *gets, &answer);
        }
    }
    // bob's own seat's log is his to read, not ada's.
    let theirs = arena.get(&mut bob.clone(), &replay).await.json();
    assert_eq!(theirs["ticks"][0]["bots"][1]["log"], "bob's plan\n");
    assert_eq!(theirs["ticks"][0]["bots"][0]["log"], "");
    let seen = arena
        .get(
            &mut member.clone(),
            &format!("/api/arena/matches/{finished}"),
        )
        .await
        .json();
    assert_eq!(seen["mine"], json!([0]));
    assert_eq!(seen["seats"][1]["fault"], "timeout");
    // Routes that change: [member, stranger, visitor, admin].
    let b1 = "/api/arena/bots/quoridor/b1";
    let changes: Vec<(String, Value, [u16; 4])> = vec![
        (
            format!("{b1}/challenges"),
            json!({"opponent": "b2", "games": 2}),
            [201, 403, 401, 201],
        ),
        (
            format!("{b1}/playground"),
            json!({"opponent": "random"}),
            [201, 403, 401, 201],
        ),
        (
            "/api/arena/admin/ladder".into(),
            json!({"paused": false}),
            [403, 403, 401, 200],
        ),
        (
            "/api/arena/admin/uploads".into(),
            json!({"frozen": false}),
            [403, 403, 401, 200],
        ),
        (
            "/api/arena/admin/bots/quoridor/b2".into(),
            json!({"disabled": false}),
            [403, 403, 401, 200],
        ),
    ];
    for (uri, body, statuses) in &changes {
        for (who, status) in viewers.iter().zip(statuses) {
            let answer = arena.post(&mut who.clone(), uri, body.clone()).await;
            assert_eq!(answer.status.as_u16(), *status, "{uri}: {}", answer.text());
        }
    }
}

#[tokio::test]
async fn the_leaderboard_answers_the_contract_s_keys_best_first_with_robots_marked() {
    let arena = arena("arena-leaderboard", ArenaConfig::default()).await;
    arena.sign_up("ada").await;
    arena.token_user("bob", false).await;
    let (finished, _) = ladder(&arena).await;
    let board = arena
        .get(&mut Client::default(), "/api/arena/quoridor/leaderboard")
        .await
        .json();
    let entries = board.as_array().unwrap();
    assert_eq!(entries.len(), 4, "{board}");
    for (i, entry) in entries.iter().enumerate() {
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in [
            "rank", "bot", "team", "version", "score", "mu", "sigma", "games", "robot",
        ] {
            assert!(keys.contains(&key), "{key} missing from {entry}");
        }
        assert_eq!(entry["rank"], i + 1);
        let (mu, sigma) = (
            entry["mu"].as_f64().unwrap(),
            entry["sigma"].as_f64().unwrap(),
        );
        assert!((entry["score"].as_f64().unwrap() - (mu - 3.0 * sigma)).abs() < 1e-9);
        assert!(entry["robot"].is_boolean() && entry["games"].is_i64());
        if i > 0 {
            assert!(entries[i - 1]["score"].as_f64() >= entry["score"].as_f64());
        }
    }
    let robots: Vec<&Value> = entries.iter().filter(|e| e["robot"] == true).collect();
    assert_eq!(robots.len(), 2);
    let b1 = entries.iter().find(|e| e["bot"] == "b1").unwrap();
    assert_eq!(
        (b1["team"].as_str(), b1["version"].as_i64()),
        (Some("ada"), Some(1))
    );
    assert_eq!(
        (b1["games"].as_i64(), b1["wins"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(b1["win_share"], 1.0);
    let page = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/matches",
        )
        .await
        .json();
    // Newest first: the queued match, then the finished one.
    assert_eq!(page["matches"][0]["state"], "queued");
    assert!(page["matches"][0]["result"].is_null() && page["matches"][0]["replay"].is_null());
    let first = &page["matches"][1];
    assert_eq!(first["id"], finished);
    assert_eq!(
        (first["seat"].as_i64(), first["result"].as_str()),
        (Some(0), Some("win"))
    );
    assert_eq!(first["opponents"][0]["bot"], "b2");
    assert_eq!(
        first["replay"],
        format!("/api/arena/matches/{finished}/replay")
    );
    let theirs = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b2/matches",
        )
        .await
        .json();
    let lost = theirs["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == finished)
        .unwrap();
    assert_eq!(
        (lost["result"].as_str(), lost["fault"].as_str()),
        (Some("loss"), Some("timeout"))
    );
    let ratings = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/ratings",
        )
        .await
        .json();
    let last = ratings.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["version"], 1);
    assert_eq!(
        last["mu"], b1["mu"],
        "the chart ends where the leaderboard is"
    );
    let live = arena
        .get(&mut Client::default(), "/api/arena/quoridor/matches/live")
        .await
        .json();
    assert_eq!(live["queued"].as_array().unwrap().len(), 1, "{live}");
    assert_eq!(live["finished"][0]["id"], finished);
    assert_eq!(live["paused"], false);
}

#[tokio::test]
async fn a_bot_s_matches_come_page_by_page_newest_first() {
    let arena = arena("arena-match-pages", ArenaConfig::default()).await;
    arena.sign_up("ada").await;
    arena.token_user("bob", false).await;
    ladder(&arena).await;
    let b1 = arena.store.bot("quoridor", "b1").await.unwrap().unwrap();
    let b2 = arena.store.bot("quoridor", "b2").await.unwrap().unwrap();
    let seats = vec![
        active_id(&arena.store, &b1).await,
        active_id(&arena.store, &b2).await,
    ];
    let new: Vec<arbiter_store::NewArenaMatch> = (10..35)
        .map(|seed| arbiter_store::NewArenaMatch {
            kind: arbiter_store::MatchKind::Ladder,
            game: "quoridor".to_owned(),
            settings: json!({}),
            seed,
            seats: seats.clone(),
        })
        .collect();
    arena.store.queue_matches(&new).await.unwrap();
    let mut ids = Vec::new();
    let mut uri = "/api/arena/bots/quoridor/b1/matches".to_owned();
    loop {
        let page = arena.get(&mut Client::default(), &uri).await.json();
        ids.extend(
            page["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_i64().unwrap()),
        );
        match page["before"].as_i64() {
            Some(before) => uri = format!("/api/arena/bots/quoridor/b1/matches?before={before}"),
            None => break,
        }
    }
    assert_eq!(ids.len(), 27, "every match once: {ids:?}");
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first: {ids:?}");
    let bad = arena
        .get(
            &mut Client::default(),
            "/api/arena/bots/quoridor/b1/matches?before=x",
        )
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST, "{}", bad.text());
}

#[tokio::test]
async fn challenges_are_refused_past_the_team_s_daily_quota_and_with_bad_input() {
    let config = ArenaConfig {
        challenge_games_per_day: 10,
        ..ArenaConfig::default()
    };
    let arena = arena("arena-challenges", config).await;
    let mut ada = arena.sign_up("ada").await;
    arena.token_user("bob", false).await;
    ladder(&arena).await;
    let uri = "/api/arena/bots/quoridor/b1/challenges";
    let answer = arena
        .post(&mut ada, uri, json!({"opponent": "b2", "games": 6}))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    assert_eq!(
        (
            answer.json()["opponent"].as_str(),
            answer.json()["games"].as_i64()
        ),
        (Some("b2"), Some(6))
    );
    let over = arena
        .post(&mut ada, uri, json!({"opponent": "random", "games": 6}))
        .await;
    assert_eq!(
        over.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        over.text()
    );
    assert!(over.text().contains("quota is 10"), "{}", over.text());
    for (body, status, says) in [
        (json!({"opponent": "b2", "games": 0}), 400, "1 to 100"),
        (json!({"opponent": "b2", "games": 101}), 400, "1 to 100"),
        (json!({"opponent": "b2"}), 400, "games"),
        (json!({"opponent": "nobody", "games": 2}), 404, "nobody"),
        (json!({"opponent": "b1", "games": 2}), 400, "itself"),
    ] {
        let answer = arena.post(&mut ada, uri, body.clone()).await;
        assert_eq!(answer.status.as_u16(), status, "{body}: {}", answer.text());
        assert!(answer.text().contains(says), "{body}: {}", answer.text());
    }
    let answer = arena
        .post(&mut ada, uri, json!({"opponent": "b2", "games": 4}))
        .await;
    assert_eq!(
        answer.status,
        StatusCode::CREATED,
        "the quota's last games: {}",
        answer.text()
    );
}

#[tokio::test]
async fn a_playground_match_is_queued_at_once_and_followed_until_it_ends() {
    let arena = arena("arena-playground", ArenaConfig::default()).await;
    let mut ada = arena.sign_up("ada").await;
    arena.token_user("bob", false).await;
    ladder(&arena).await;
    // A ladder match is queued already: the playground's is played before it.
    let uri = "/api/arena/bots/quoridor/b1/playground";
    for (body, status, says) in [
        (json!({"opponent": 1}), 400, "play itself"),
        (json!({"opponent": 7}), 404, "no version 7"),
        (json!({"opponent": ""}), 400, "name the robot"),
        (json!({"opponent": "no-such-robot"}), 404, "no-such-robot"),
        (json!({}), 400, "opponent"),
    ] {
        let answer = arena.post(&mut ada, uri, body.clone()).await;
        assert_eq!(answer.status.as_u16(), status, "{body}: {}", answer.text());
        assert!(answer.text().contains(says), "{body}: {}", answer.text());
    }
    let answer = arena
        .post(&mut ada, uri, json!({"opponent": "random"}))
        .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());
    let id = answer.json()["match"].as_i64().unwrap();
    let shown = arena
        .get(&mut ada, &format!("/api/arena/matches/{id}"))
        .await
        .json();
    assert_eq!(
        (shown["kind"].as_str(), shown["state"].as_str()),
        (Some("playground"), Some("queued"))
    );
    assert_eq!(shown["seats"][1]["robot"], true);
    let request = Request::builder()
        .uri(format!("/api/arena/matches/{id}/events"))
        .header(header::HOST, HOST)
        .body(Body::empty())
        .unwrap();
    let mut body = arena
        .app
        .clone()
        .oneshot(request)
        .await
        .unwrap()
        .into_body();
    let mut seen = String::new();
    let mut next = async || match body.frame().await {
        Some(frame) => {
            String::from_utf8(frame.unwrap().into_data().unwrap_or_default().to_vec()).unwrap()
        }
        None => String::new(),
    };
    seen += &next().await;
    assert!(seen.contains(r#""state":"queued""#), "{seen}");
    assert_eq!(
        play_next(&arena.store).await,
        id,
        "the playground's match is played first"
    );
    while !seen.contains(r#""state":"finished""#) {
        let more = next().await;
        assert!(
            !more.is_empty(),
            "the stream ended before the match: {seen}"
        );
        seen += &more;
    }
    assert!(next().await.is_empty(), "the stream ends with the match");
}

#[tokio::test]
async fn the_admin_freezes_uploads_pauses_the_ladder_and_disables_a_bot() {
    let arena = arena("arena-operations", ArenaConfig::default()).await;
    let mut ada = arena.sign_up("ada").await;
    let (_, mut root) = arena.token_user("root", true).await;
    arena.token_user("bob", false).await;
    ladder(&arena).await;
    let cpp = b"int main() { return 0; }\n";
    let versions = "/api/arena/bots/quoridor/b1/versions";
    let ops = arena
        .post(
            &mut root,
            "/api/arena/admin/uploads",
            json!({"frozen": true}),
        )
        .await;
    assert_eq!(ops.json()["uploads_frozen"], true, "{}", ops.text());
    let refused = arena.upload(&mut ada, versions, "bot.cpp", cpp).await;
    assert_eq!(refused.status, StatusCode::LOCKED, "{}", refused.text());
    assert_eq!(refused.json()["kind"], "locked");
    assert!(refused.text().contains("frozen"), "{}", refused.text());
    assert_eq!(
        arena.get(&mut ada, "/api/arena/me").await.json()["arena"]["uploads_frozen"],
        true
    );
    arena
        .post(
            &mut root,
            "/api/arena/admin/uploads",
            json!({"frozen": false}),
        )
        .await;
    let answer = arena.upload(&mut ada, versions, "bot.cpp", cpp).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.text());

    let ops = arena
        .post(
            &mut root,
            "/api/arena/admin/ladder",
            json!({"paused": true}),
        )
        .await;
    assert_eq!(ops.json()["ladder_paused"], true, "{}", ops.text());
    let live = arena
        .get(&mut ada, "/api/arena/quoridor/matches/live")
        .await
        .json();
    assert_eq!(live["paused"], true);

    let bot = arena
        .post(
            &mut root,
            "/api/arena/admin/bots/quoridor/b2",
            json!({"disabled": true}),
        )
        .await;
    assert_eq!(bot.json()["disabled"], true, "{}", bot.text());
    let board = arena
        .get(&mut ada, "/api/arena/quoridor/leaderboard")
        .await
        .json();
    assert!(
        board.as_array().unwrap().iter().all(|e| e["bot"] != "b2"),
        "a disabled bot leaves the ladder: {board}"
    );
    let challenge = arena
        .post(
            &mut ada,
            "/api/arena/bots/quoridor/b1/challenges",
            json!({"opponent": "b2", "games": 2}),
        )
        .await;
    assert_eq!(
        challenge.status,
        StatusCode::CONFLICT,
        "{}",
        challenge.text()
    );
    assert!(
        challenge.text().contains("disabled"),
        "{}",
        challenge.text()
    );
    for body in [json!({}), json!({"paused": "yes"})] {
        let answer = arena.post(&mut root, "/api/arena/admin/ladder", body).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.text());
    }
}

#[tokio::test]
async fn the_ladder_s_changes_refuse_forged_requests_from_other_sites() {
    let arena = arena("arena-ladder-csrf", ArenaConfig::default()).await;
    let ada = arena.sign_up("ada").await;
    arena.token_user("bob", false).await;
    ladder(&arena).await;
    arena
        .store
        .set_admin(
            arena.store.user_by_name("ada").await.unwrap().unwrap().id,
            true,
        )
        .await
        .unwrap();
    for (uri, body) in [
        (
            "/api/arena/bots/quoridor/b1/challenges",
            json!({"opponent": "b2", "games": 2}),
        ),
        (
            "/api/arena/bots/quoridor/b1/playground",
            json!({"opponent": "random"}),
        ),
        ("/api/arena/admin/ladder", json!({"paused": true})),
        ("/api/arena/admin/uploads", json!({"frozen": true})),
        (
            "/api/arena/admin/bots/quoridor/b2",
            json!({"disabled": true}),
        ),
    ] {
        for (origin, csrf) in [
            (Some("http://evil.example"), ada.csrf.clone()),
            (Some(format!("http://{HOST}").as_str()), None),
            (None, Some("0000".to_owned())),
        ] {
            let mut request = Request::builder()
                .method(Method::POST)
                .uri(uri)
                .header(header::HOST, HOST)
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::COOKIE, ada.cookie.clone().unwrap());
            if let Some(origin) = origin {
                request = request.header(header::ORIGIN, origin);
            }
            if let Some(csrf) = &csrf {
                request = request.header("x-csrf-token", csrf);
            }
            let request = request.body(Body::from(body.to_string())).unwrap();
            let answer = arena.send(&mut ada.clone(), request).await;
            assert_eq!(
                answer.status,
                StatusCode::FORBIDDEN,
                "{uri}: {}",
                answer.text()
            );
        }
    }
    let store = &arena.store;
    assert!(!store.ladder_paused().await.unwrap() && !store.uploads_frozen().await.unwrap());
    assert!(!store.bot("quoridor", "b2").await.unwrap().unwrap().disabled);
    assert!(
        store
            .challenges_of_team(store.team_by_name("ada").await.unwrap().unwrap().id)
            .await
            .unwrap()
            .is_empty()
    );
}
