//! The arena's JSON API, under `/api/arena`. Every answer is JSON (a version's source is its
//! bytes; `…/events` are server-sent events); every failure is
//! `{"error": "what was wrong", "kind": "…"}` with its HTTP status (400 bad input, 401 not
//! signed in, 403 not allowed or another site's request, 404, 409 a name taken, 413 over the
//! upload limit, 429 over a quota or login throttle, 503 too many event streams).
//!
//! Requests are made with the session cookie (the pages; every request that changes something
//! then carries the `X-CSRF-Token` header, from `GET /me`, and comes from the arena's own
//! origin) or with `Authorization: Bearer TOKEN` (scripts; `arbiter arena token NAME`).
//!
//! | method and path | who | what |
//! |---|---|---|
//! | `POST /signup` `{name, password, invite?}` | anyone (an invite code unless signup is open) | makes the user and their own team of the same name, signs in; 201 with `/me`'s answer |
//! | `POST /signin` `{name, password}` | anyone (throttled per address and name) | signs in (a new session id); `/me`'s answer; 401 wrong name or password, 429 throttled |
//! | `POST /signout` | anyone | ends the session; 204 |
//! | `GET /me` | anyone | `{user: {id, name, admin} or null, teams, uploads_today, uploads_per_day, csrf, arena: {games, open_signup, public_logs}}` |
//! | `GET /me/bots/events` | signed in | SSE: `bots` events (the viewer's teams' bots, as `GET /bots?mine=1`) each time one changes |
//! | `POST /teams` `{name}` | signed in | makes a team with the viewer in it; 201 `{id, name}` |
//! | `GET /teams/{team}` | anyone | `{id, name, members (its members and admins; else null), bots}` |
//! | `POST /teams/{team}/members` `{user}` | the team's members, admins | adds a member; `{id, name, members}` |
//! | `GET /bots[?game=G][&mine=1]` | anyone (`mine`: signed in) | bots (as `GET /bots/{game}/{name}`), of the offered games or of the viewer's teams |
//! | `POST /bots` `{game, name, team?}` | signed in | makes a bot in `team` (default: the viewer's own); 201 with the bot and `"created": true`, or 200 with the viewer's team's existing bot and `"created": false`; 409 if another team has the name |
//! | `GET /bots/{game}/{name}` | anyone | `{id, game, name, team, active, pinned, retired, created, mine, versions: [version, newest first]}` |
//! | `GET /bots/{game}/{name}/events` | anyone | SSE: `bot` events (the bot as above) each time it changes |
//! | `POST /bots/{game}/{name}/versions` multipart `file` (+ `team` for a new bot) | the bot's team, admins; anyone signed in for a new bot | hands in a version (the bot made if new); 201 `{bot, version, state, url}`; 400 unknown language or unsafe archive, 413 too large, 429 over the day's quota |
//! | `GET /bots/{game}/{name}/versions/{n}` | anyone | a version: `{number, state, stage, language, created, updated, checks: [{index, label}], bot}`, and for the team and admins `file_name, reason, build_log, program` |
//! | `GET /bots/{game}/{name}/versions/{n}/events` | anyone | SSE: `state` events (the version as above, without `checks`) until it is `passed`, `build_failed` or `check_failed` |
//! | `GET /bots/{game}/{name}/versions/{n}/source` | the team, admins | the bytes handed in, as an attachment |
//! | `GET /bots/{game}/{name}/versions/{n}/check/{i}/replay` | anyone | check replay `i` in the replay viewer's JSON; other viewers than the team and admins get it without the program seats' stderr and `#draw` lines (unless the arena's logs are public) |
//! | `POST /bots/{game}/{name}/active` `{version: n or null}` | the team, admins | the version that plays (pinned; it must have passed), or `null`: the newest passed one; the bot |
//! | `POST /bots/{game}/{name}/retire` | the team, admins | retires the bot; the bot |
//! | `GET /{game}/leaderboard` | anyone | the game's ladder, best first: `[{rank, bot, team, version, score, mu, sigma, games, robot, wins, draws, losses, win_share, last_game}]` (`score` is μ − 3σ; the first nine keys are a contract) |
//! | `GET /{game}/leaderboard/events` | anyone | SSE: `leaderboard` events (as above) each time it changes |
//! | `GET /{game}/matches/live` | anyone | `{paused, running, queued, finished}`: the game's matches being played and queued, and the last ones finished (each as `GET /matches/{id}`) |
//! | `GET /{game}/matches/live/events` | anyone | SSE: `live` events (as above) each time they change |
//! | `GET /bots/{game}/{name}/matches[?before=ID]` | anyone | `{matches, before}`: the bot's matches, newest first, 20 at a time (`before` asks for the next page; null on the last), each as `GET /matches/{id}` with the bot's `seat`, `version`, `result` (`win`, `draw`, `loss` or null), `fault` and `opponents` |
//! | `GET /bots/{game}/{name}/matches/events` | anyone | SSE: `matches` events (the first page, as above) each time it changes |
//! | `GET /bots/{game}/{name}/ratings` | anyone | the bot's rating after each rated game, oldest first: `[{seq, match, version, at, mu, sigma, score}]` |
//! | `POST /bots/{game}/{name}/challenges` `{opponent, games}` | the team, admins | an unrated series of `games` (1 to 100) of the bot's active version against the active version of the bot `opponent` (of the same game); 201 `{series, …}`; 409 a bot that does not play, 429 over the team's challenge games of the day |
//! | `POST /bots/{game}/{name}/playground` `{opponent, version?}` | the team, admins | one unrated match at once of the bot's version `version` (default the active one) against a robot (`opponent` its name) or another of its passed versions (`opponent` its number); 201 `{match, url, events}` |
//! | `GET /matches/{id}` | anyone | `{id, kind, game, state, rated, created, started, finished, reason, error, series, seats: [{seat, bot, team, version, robot, place, fault, mu, sigma}], replay, mine}` (`kind` `ladder`, `challenge`, `playground` or `sprt`; `state` `queued`, `running`, `finished` or `failed`; `mine` the seats of the viewer's teams) |
//! | `GET /matches/{id}/events` | anyone | SSE: `match` events (as above, without `mine`) until it is `finished` or `failed` |
//! | `GET /matches/{id}/replay` | anyone | a finished match's replay in the replay viewer's JSON; each program seat's stderr and `#draw` lines only for its own team and the admins (everyone's if the arena's logs are public) |
//! | `GET /admin/users` | admins | every user: `{id, name, admin, created, teams, uploads_today, uploads_per_day}` |
//! | `GET /admin/bots` | admins | every bot, as `GET /bots/{game}/{name}` |
//! | `GET /admin/queue` | admins | the builds and checks queued and running |
//! | `GET /admin/operations` | admins | `{ladder_paused, uploads_frozen}` |
//! | `POST /admin/ladder` `{paused}` | admins | pauses the ladder (no new ladder match is queued) or resumes it; as `GET /admin/operations` |
//! | `POST /admin/uploads` `{frozen}` | admins | freezes uploads (each refused 423 with the reason) or opens them; as `GET /admin/operations` |
//! | `POST /admin/bots/{game}/{name}` `{disabled}` | admins | disables a bot (it leaves the ladder and plays no match) or enables it; the bot |
//!
//! A version's `state` is `queued`, `building`, `build_failed`, `checking`, `check_failed`,
//! `passed`, `active` (the passed version that plays) or `retired` (of a retired bot); its
//! `stage` is the store's state, without `active` and `retired`. A version's `sprt` is its
//! series against the team's previous active version, `{result, elo, elo_error95, games,
//! against, sentence}` (`against` the old version's number; `result` `running`, `stronger`, `not_stronger` or `inconclusive`), or null.
//! A bot has `robot` (a built-in robot enrolled in the ladder) and `disabled` (by an admin).
//!
//! The ladder's routes begin with the game (`/quoridor/leaderboard`): the fixed first words of
//! the other routes (`bots`, `matches`, `admin`, …) are no game's name.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use crate::error::AppError;
use crate::{ArenaState, accounts, admin, board, bots, events, matches, play, upload};

/// The routes under `/api/arena`.
pub fn api(state: &ArenaState) -> Router<ArenaState> {
    let version = "/bots/{game}/{name}/versions/{n}";
    Router::new()
        .route("/signup", post(accounts::sign_up))
        .route("/signin", post(accounts::sign_in))
        .route("/signout", post(accounts::sign_out))
        .route("/me", get(accounts::me))
        .route("/me/bots/events", get(events::my_bots_events))
        .route("/teams", post(accounts::create_team))
        .route("/teams/{team}", get(accounts::team))
        .route("/teams/{team}/members", post(accounts::add_member))
        .route("/bots", get(bots::list).post(bots::create))
        .route("/bots/{game}/{name}", get(bots::one))
        .route("/bots/{game}/{name}/events", get(events::bot_events))
        .route(
            "/bots/{game}/{name}/versions",
            post(upload::upload).layer(DefaultBodyLimit::max(state.config().max_upload_bytes)),
        )
        .route(version, get(bots::version))
        .route(&format!("{version}/events"), get(events::version_events))
        .route(&format!("{version}/source"), get(bots::source))
        .route(
            &format!("{version}/check/{{i}}/replay"),
            get(bots::check_replay),
        )
        .route("/bots/{game}/{name}/active", post(bots::set_active))
        .route("/bots/{game}/{name}/retire", post(bots::retire))
        .route("/bots/{game}/{name}/matches", get(matches::bot_matches))
        .route(
            "/bots/{game}/{name}/matches/events",
            get(matches::bot_matches_events),
        )
        .route("/bots/{game}/{name}/ratings", get(matches::ratings))
        .route("/bots/{game}/{name}/challenges", post(play::challenge))
        .route("/bots/{game}/{name}/playground", post(play::playground))
        .route("/{game}/leaderboard", get(board::leaderboard))
        .route("/{game}/leaderboard/events", get(board::leaderboard_events))
        .route("/{game}/matches/live", get(board::live))
        .route("/{game}/matches/live/events", get(board::live_events))
        .route("/matches/{id}", get(matches::one))
        .route("/matches/{id}/events", get(matches::events))
        .route("/matches/{id}/replay", get(matches::replay))
        .route("/admin/users", get(admin::users))
        .route("/admin/bots", get(admin::bots))
        .route("/admin/queue", get(admin::queue))
        .route("/admin/operations", get(admin::operations))
        .route("/admin/ladder", post(admin::ladder))
        .route("/admin/uploads", post(admin::uploads))
        .route("/admin/bots/{game}/{name}", post(admin::disable_bot))
        .fallback(|| async { AppError::NotFound("no such API route".to_owned()) })
}
