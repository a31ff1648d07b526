//! What the tournament pages show, read from the store and the replays, as JSON values.
//!
//! The store is async and so are these; only reading replay files (a player's faults and
//! slowest answers) goes to a blocking thread.

use std::collections::HashMap;
use std::path::PathBuf;

use arbiter_store::{
    Contestant, Format, MatchRow, MatchState, ReplayStore, StoreError, Tournament, TournamentStore,
};
use arbiter_tournament::standings::{self, Table};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{AppError, AppResult};
use crate::replays;
use crate::stored::ReplayAt;

/// How many of a player's slowest answers and faults the player page lists.
const SLOWEST: usize = 15;
const MAX_FAULTS: usize = 200;

fn tournament_json(t: &Tournament) -> Value {
    json!({
        "id": t.id,
        "game": t.game,
        "format": t.format.as_str(),
        "seed": t.seed,
        "rounds": t.rounds,
        "players_per_match": t.players_per_match,
        "created": t.created,
        "finished": t.finished,
        "name": t.name,
    })
}

fn player_json(p: &Contestant) -> Value {
    json!({
        "id": p.id,
        "alias": p.alias,
        "full_name": p.full_name,
        "status": p.status.as_str(),
        "reason": p.reason,
        "builtin": p.command.is_none(),
    })
}

fn counts(matches: &[MatchRow]) -> Value {
    let count = |state: MatchState| matches.iter().filter(|m| m.state == state).count();
    json!({
        "total": matches.len(),
        "queued": count(MatchState::Queued),
        "running": count(MatchState::Running),
        "done": count(MatchState::Done),
        "failed": count(MatchState::Failed),
    })
}

/// Every tournament of the store, the newest first.
pub async fn list(store: &TournamentStore) -> AppResult<Value> {
    let latest = store.latest().await?.unwrap_or(0);
    let mut out = Vec::new();
    // Tournament ids are given in order from 1, so the newest id bounds them all.
    for id in (1..=latest).rev() {
        let t = match store.tournament(id).await {
            Ok(t) => t,
            Err(StoreError::NoTournament(_)) => continue,
            Err(e) => return Err(e.into()),
        };
        let matches = store.matches(id).await?;
        let mut value = tournament_json(&t);
        value["players"] = json!(
            store
                .players(id)
                .await?
                .iter()
                .filter(|p| p.status.plays())
                .count()
        );
        value["matches"] = counts(&matches);
        value["runner"] = runner_json(store, &t, &matches).await?;
        out.push(value);
    }
    Ok(Value::Array(out))
}

async fn table(
    store: &TournamentStore,
    t: &Tournament,
) -> AppResult<(Table, Vec<Contestant>, Vec<MatchRow>)> {
    let players = store.players(t.id).await?;
    let matches = store.matches(t.id).await?;
    let byes = store.byes(t.id).await?;
    let table = standings::compute(&players, &matches, &byes, t.players_per_match);
    Ok((table, players, matches))
}

/// A tournament with its standings (and cross-table), players and match counts.
pub async fn overview(store: &TournamentStore, id: i64) -> AppResult<Value> {
    let t = store.tournament(id).await?;
    let (table, players, matches) = table(store, &t).await?;
    let mut value = tournament_json(&t);
    value["matches"] = counts(&matches);
    value["runner"] = runner_json(store, &t, &matches).await?;
    value["players"] = players.iter().map(player_json).collect();
    value["standings"] = standings_json(&table);
    Ok(value)
}

/// Whether a tournament not finished is being played: `{"state": "finished" | "playing" |
/// "gone", "lapsed": [match ids], "resume": command}`. Its runner is gone when matches are left
/// and none is held by a worker whose lease is running (a runner killed, a machine switched
/// off): only a new run plays them, and `resume` is the command that starts one.
async fn runner_json(
    store: &TournamentStore,
    t: &Tournament,
    matches: &[MatchRow],
) -> AppResult<Value> {
    if t.finished.is_some() {
        return Ok(json!({"state": "finished", "lapsed": [], "resume": null}));
    }
    let lapsed = store.lapsed_leases(t.id).await?;
    let running = matches
        .iter()
        .filter(|m| m.state == MatchState::Running)
        .count();
    let left = running > 0 || matches.iter().any(|m| m.state == MatchState::Queued);
    let gone = left && running == lapsed.len();
    Ok(json!({
        "state": if gone { "gone" } else { "playing" },
        "lapsed": lapsed,
        "resume": resume_command(store, t),
    }))
}

/// The command that goes on with tournament `t` of `store`.
fn resume_command(store: &TournamentStore, t: &Tournament) -> String {
    // A PostgreSQL URL may hold a password: it is not shown.
    let db = store.file().map_or_else(
        || "postgres://…".to_owned(),
        |file| shell_word(&file.display().to_string()),
    );
    match t.format {
        Format::Sprt => format!("arbiter sprt {} --db {db} --resume {}", t.game, t.id),
        _ => format!("arbiter tournament resume --db {db} --tournament {}", t.id),
    }
}

/// `text` as one word of a shell command line: quoted unless it is plainly safe.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

fn standings_json(table: &Table) -> Value {
    let cross: Vec<Vec<Value>> = table
        .cross
        .iter()
        .map(|row| {
            row.iter()
                .map(|&(points, games)| json!({"points": points, "games": games}))
                .collect()
        })
        .collect();
    json!({
        "two_player": table.two_player,
        "rows": standings::to_json(table),
        "cross": cross,
    })
}

pub async fn standings(store: &TournamentStore, id: i64) -> AppResult<Value> {
    let t = store.tournament(id).await?;
    Ok(standings_json(&table(store, &t).await?.0))
}

pub async fn players(store: &TournamentStore, id: i64) -> AppResult<Value> {
    store.tournament(id).await?;
    Ok(store.players(id).await?.iter().map(player_json).collect())
}

/// Filters of the matches list.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct MatchFilter {
    /// Only the matches this player (id) played in.
    pub player: Option<String>,
    /// Only the matches this player (id) played in too: with `player`, the matches of a pairing.
    pub opponent: Option<String>,
    /// `win`, `draw` or `loss`: of `player`, or (without a player) whether someone won.
    pub result: Option<String>,
    /// `yes`: only matches with a fault (of `player`, if given); `no`: only those without.
    pub faults: Option<String>,
    /// `queued`, `running`, `done` or `failed`.
    pub state: Option<String>,
}

/// The outcome of a played match for the player in `seat`.
fn outcome(m: &MatchRow, seat: usize) -> Option<&'static str> {
    let result = m.result.as_ref()?;
    let best = result.scores.iter().copied().fold(f64::MIN, f64::max);
    let sharing = result.scores.iter().filter(|&&s| s == best).count();
    let score = *result.scores.get(seat)?;
    Some(if score < best {
        "loss"
    } else if sharing > 1 {
        "draw"
    } else {
        "win"
    })
}

fn has_faults(m: &MatchRow, seat: Option<usize>) -> bool {
    m.result.as_ref().is_some_and(|r| {
        r.faults.iter().any(|f| {
            seat.is_none_or(|s| f.seat == s)
                && (f.errors > 0 || f.timeouts > 0 || f.crashed || f.note.is_some())
        })
    })
}

impl MatchFilter {
    fn check(&self) -> AppResult<()> {
        let bad = |what: &str, value: &str, allowed: &str| {
            Err(AppError::BadRequest(format!(
                "{what}={value:?}: expected one of {allowed}"
            )))
        };
        if let Some(r) = &self.result
            && !["win", "draw", "loss"].contains(&r.as_str())
        {
            return bad("result", r, "win, draw, loss");
        }
        if let Some(f) = &self.faults
            && !["yes", "no"].contains(&f.as_str())
        {
            return bad("faults", f, "yes, no");
        }
        if let Some(s) = &self.state
            && !["queued", "running", "done", "failed"].contains(&s.as_str())
        {
            return bad("state", s, "queued, running, done, failed");
        }
        Ok(())
    }

    fn keeps(&self, m: &MatchRow) -> bool {
        let seat = match &self.player {
            Some(p) => match m.seats.iter().position(|s| s == p) {
                Some(seat) => Some(seat),
                None => return false,
            },
            None => None,
        };
        if let Some(opponent) = &self.opponent
            && !m.seats.contains(opponent)
        {
            return false;
        }
        if let Some(state) = &self.state
            && m.state.as_str() != state
        {
            return false;
        }
        if let Some(result) = &self.result {
            let found = match seat {
                Some(seat) => outcome(m, seat),
                // Without a player: a match is a draw if its best score is shared, else won.
                None => (0..m.seats.len())
                    .filter_map(|s| outcome(m, s))
                    .find(|&o| o != "loss")
                    .map(|o| if o == "draw" { "draw" } else { "win" }),
            };
            let wanted = if seat.is_none() && result == "loss" {
                "win"
            } else {
                result.as_str()
            };
            if found != Some(wanted) {
                return false;
            }
        }
        if let Some(faults) = &self.faults
            && has_faults(m, seat) != (faults == "yes")
        {
            return false;
        }
        true
    }
}

fn match_json(m: &MatchRow, aliases: &HashMap<&str, &str>) -> Value {
    let result = m.result.as_ref();
    let seats: Vec<Value> = m
        .seats
        .iter()
        .enumerate()
        .map(|(seat, player)| {
            let fault = result.and_then(|r| r.faults.iter().find(|f| f.seat == seat));
            json!({
                "player": player,
                "alias": aliases.get(player.as_str()).copied().unwrap_or(player),
                "score": result.and_then(|r| r.scores.get(seat)),
                "place": result.and_then(|r| r.placement.get(seat)),
                "outcome": outcome(m, seat),
                "errors": fault.map_or(0, |f| f.errors),
                "timeouts": fault.map_or(0, |f| f.timeouts),
                "crashed": fault.is_some_and(|f| f.crashed),
                "note": fault.and_then(|f| f.note.clone()),
                "time_ms": result.and_then(|r| r.time_ms.get(seat)),
            })
        })
        .collect();
    json!({
        "id": m.id,
        "round": m.round,
        "state": m.state.as_str(),
        "seed": m.seed,
        "seats": seats,
        "reason": result.map(|r| &r.reason),
        "ticks": result.map(|r| r.ticks),
        "faults": has_faults(m, None),
        "has_replay": result.is_some_and(|r| r.replay.is_some()) || m.state == MatchState::Running,
        "error": m.error,
        "started": m.started,
        "finished": m.finished,
    })
}

pub async fn matches(store: &TournamentStore, id: i64, filter: &MatchFilter) -> AppResult<Value> {
    filter.check()?;
    store.tournament(id).await?;
    let players = store.players(id).await?;
    let aliases: HashMap<&str, &str> = players
        .iter()
        .map(|p| (p.id.as_str(), p.alias.as_str()))
        .collect();
    let rows = store.matches(id).await?;
    let lapsed = store.lapsed_leases(id).await?;
    Ok(rows
        .iter()
        .filter(|m| filter.keeps(m))
        .map(|m| {
            let mut value = match_json(m, &aliases);
            // Running in the store, yet no worker plays it any more.
            value["stalled"] = json!(lapsed.contains(&m.id));
            value
        })
        .collect())
}

pub async fn one_match(store: &TournamentStore, id: i64, match_id: i64) -> AppResult<Value> {
    store.tournament(id).await?;
    let players = store.players(id).await?;
    let aliases: HashMap<&str, &str> = players
        .iter()
        .map(|p| (p.id.as_str(), p.alias.as_str()))
        .collect();
    let row = find_match(store, id, match_id).await?;
    Ok(match_json(&row, &aliases))
}

async fn find_match(store: &TournamentStore, id: i64, match_id: i64) -> AppResult<MatchRow> {
    store
        .matches(id)
        .await?
        .into_iter()
        .find(|m| m.id == match_id)
        .ok_or_else(|| AppError::NotFound(format!("tournament {id} has no match {match_id}")))
}

/// The replay file of a match: the one its result names, or, while it is being played, the one
/// the worker pool writes (`m{id:05}.jsonl.gz` in the tournament's replays folder, as
/// `RunOptions::replays` says).
fn replay_file(t: &Tournament, m: &MatchRow) -> Option<PathBuf> {
    if let Some(path) = m.result.as_ref().and_then(|r| r.replay.as_ref()) {
        return Some(PathBuf::from(path));
    }
    if m.state != MatchState::Running {
        return None;
    }
    let dir = t.settings.get("replays")?.as_str()?;
    Some(PathBuf::from(dir).join(format!("m{:05}.jsonl.gz", m.id)))
}

/// The replay of a player's compliance check, kept beside the tournament's match replays.
fn check_replay_file(t: &Tournament, player: &str) -> Option<PathBuf> {
    let dir = t.settings.get("replays")?.as_str()?;
    Some(PathBuf::from(dir).join(arbiter_tournament::compliance::check_replay_name(player)))
}

/// Where the replay of the compliance check of player `player_id` is read, if it was kept.
pub async fn check_replay(
    store: &TournamentStore,
    id: i64,
    player_id: &str,
) -> AppResult<ReplayAt> {
    let t = store.tournament(id).await?;
    if !store.players(id).await?.iter().any(|p| p.id == player_id) {
        return Err(AppError::NotFound(format!(
            "tournament {id} has no player {player_id:?}"
        )));
    }
    match check_replay_file(&t, player_id) {
        Some(file) if file.is_file() => Ok(ReplayAt::File(file)),
        _ => Err(AppError::NotFound(format!(
            "player {player_id:?} of tournament {id} has no check replay (robots are not \
             checked)"
        ))),
    }
}

/// Where a match's replay is read: the store's replay of its newest claim if it keeps one (a
/// match played on any machine), else its file.
pub async fn match_replay(
    store: &TournamentStore,
    stored: Option<&ReplayStore>,
    id: i64,
    match_id: i64,
) -> AppResult<ReplayAt> {
    let t = store.tournament(id).await?;
    let m = find_match(store, id, match_id).await?;
    let has_replay =
        m.state == MatchState::Running || m.result.as_ref().is_some_and(|r| r.replay.is_some());
    if let Some(stored) = stored
        && has_replay
        && let Some(replay) = stored.newest(id, match_id).await?
    {
        return Ok(ReplayAt::Stored(replay.key));
    }
    replay_file(&t, &m).map(ReplayAt::File).ok_or_else(|| {
        AppError::NotFound(format!(
            "match {match_id} has no replay ({})",
            m.state.as_str()
        ))
    })
}

/// The ratings after each completed round: `[{round, ratings: [{player, rating, error95,
/// games}]}]`, oldest first.
pub async fn ratings(store: &TournamentStore, id: i64) -> AppResult<Value> {
    store.tournament(id).await?;
    let mut rounds: Vec<(u32, Vec<Value>)> = Vec::new();
    for (round, row) in store.ratings(id).await? {
        let entry = json!({
            "player": row.player,
            "rating": row.rating,
            "error95": row.deviation,
            "games": row.games,
        });
        match rounds.last_mut() {
            Some((r, list)) if *r == round => list.push(entry),
            _ => rounds.push((round, vec![entry])),
        }
    }
    Ok(rounds
        .into_iter()
        .map(|(round, ratings)| json!({"round": round, "ratings": ratings}))
        .collect())
}

#[derive(Serialize)]
struct Fault {
    #[serde(rename = "match")]
    match_id: i64,
    seat: usize,
    tick: u32,
    error: String,
}

#[derive(Serialize)]
struct SlowMove {
    #[serde(rename = "match")]
    match_id: i64,
    seat: usize,
    tick: u32,
    time_ms: f64,
    answer: Option<String>,
}

/// A player: its standing, its matches' faults (read from the replays, with the referee's words)
/// and its slowest answers.
pub async fn player(store: &TournamentStore, id: i64, player_id: String) -> AppResult<Value> {
    let t = store.tournament(id).await?;
    let (table, players, matches) = table(store, &t).await?;
    // The replays are files, read on a blocking thread.
    tokio::task::spawn_blocking(move || player_page(&t, &table, &players, &matches, &player_id))
        .await?
}

fn player_page(
    t: &Tournament,
    table: &Table,
    players: &[Contestant],
    matches: &[MatchRow],
    player_id: &str,
) -> AppResult<Value> {
    let id = t.id;
    let p = players.iter().find(|p| p.id == player_id).ok_or_else(|| {
        AppError::NotFound(format!("tournament {id} has no player {player_id:?}"))
    })?;
    let mut faults = Vec::new();
    let mut slowest: Vec<SlowMove> = Vec::new();
    let mut unreadable = 0;
    let mut played = 0;
    for m in matches {
        let Some(seat) = m.seats.iter().position(|s| s == player_id) else {
            continue;
        };
        if m.state != MatchState::Done {
            continue;
        }
        played += 1;
        if let Some(note) = m
            .result
            .as_ref()
            .and_then(|r| r.faults.iter().find(|f| f.seat == seat))
            .and_then(|f| f.note.clone())
        {
            faults.push(Fault {
                match_id: m.id,
                seat,
                tick: 0,
                error: note,
            });
        }
        let Some(path) = replay_file(t, m) else {
            continue;
        };
        let Ok(loaded) = replays::load(&path) else {
            unreadable += 1;
            continue;
        };
        for tick in &loaded.replay.ticks {
            let Some(bot) = tick.bots.get(seat) else {
                continue;
            };
            if let Some(error) = &bot.error
                && faults.len() < MAX_FAULTS
            {
                faults.push(Fault {
                    match_id: m.id,
                    seat,
                    tick: tick.tick,
                    error: error.clone(),
                });
            }
            if tick.player == Some(seat)
                && let Some(time_ms) = bot.time_ms
            {
                slowest.push(SlowMove {
                    match_id: m.id,
                    seat,
                    tick: tick.tick,
                    time_ms,
                    answer: bot.sent.first().map(|s| s.text.clone()),
                });
                if slowest.len() > 4 * SLOWEST {
                    keep_slowest(&mut slowest);
                }
            }
        }
    }
    keep_slowest(&mut slowest);
    let standing = table
        .rows
        .iter()
        .position(|r| r.player == player_id)
        .map(|rank| {
            let mut row = serde_json::to_value(&table.rows[rank]).expect("a standing serializes");
            row["rank"] = json!(rank + 1);
            row
        });
    Ok(json!({
        "tournament": tournament_json(t),
        "player": player_json(p),
        "check_replay": check_replay_file(t, &p.id).is_some_and(|file| file.is_file()),
        "standing": standing,
        "matches_played": played,
        "faults": faults,
        "faults_capped": faults.len() >= MAX_FAULTS,
        "slowest": slowest,
        "unreadable_replays": unreadable,
    }))
}

fn keep_slowest(moves: &mut Vec<SlowMove>) {
    moves.sort_by(|a, b| b.time_ms.total_cmp(&a.time_ms));
    moves.truncate(SLOWEST);
}

/// The matches being played now, in every tournament that is not finished.
pub async fn running(store: &TournamentStore) -> AppResult<Vec<Value>> {
    let latest = store.latest().await?.unwrap_or(0);
    let mut out = Vec::new();
    for id in 1..=latest {
        let Ok(t) = store.tournament(id).await else {
            continue;
        };
        if t.finished.is_some() {
            continue;
        }
        let players = store.players(id).await?;
        let aliases: HashMap<&str, &str> = players
            .iter()
            .map(|p| (p.id.as_str(), p.alias.as_str()))
            .collect();
        let lapsed = store.lapsed_leases(id).await?;
        for m in store.matches(id).await? {
            // A match whose worker is gone is not being played.
            if m.state == MatchState::Running && !lapsed.contains(&m.id) {
                let mut value = match_json(&m, &aliases);
                value["tournament"] = json!(id);
                value["game"] = json!(t.game);
                out.push(value);
            }
        }
    }
    Ok(out)
}
