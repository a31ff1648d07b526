//! The msgpack log of the `fights` Python environment, from and to Arbiter replays of Puoribor
//! (docs/games/puoribor.md describes the environment).
//!
//! A log is one msgpack list. Its first element is the start position with `action` and
//! `agent_id` nil; each later element is the position after one action:
//!
//! ```text
//! {"state": {"board": [6][9][9] ints, "walls_remaining": [w0, w1], "done": bool},
//!  "action": [type, x, y] | nil, "agent_id": 0 | 1 | nil, "timestamp": Timestamp (ext -1)}
//! ```
//!
//! The board is indexed `[channel][x][y]` with walls labelled by owner id + 1, as upstream's
//! `PuoriborState.to_dict()` writes it; the timestamp is the wall-clock time of the step.

mod sizes;
mod timestamp;

use std::io::Cursor;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arbiter_games::puoribor::{Action, DEFAULT_MAX_TICKS, Puoribor};
use arbiter_games::{Game, Recorded, Wire};

use crate::{record, record_action};
use arbiter_replay::{BotSummary, BotTick, Header, MatchResult, Message, Player, PlayerKind};
use arbiter_replay::{Replay, Tick};
use rmpv::Value;
use serde_json::Value as Json;

use timestamp::{TIMESTAMP_EXT, Timestamp};

/// When the match of a replay started, which a replay does not record (its times count from
/// the start).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MatchStart {
    /// Seconds since the Unix epoch.
    UnixSeconds(f64),
    /// When the match ended (a replay file's modification time): the start is that minus the
    /// last time the replay records.
    EndedAt(SystemTime),
}

/// Why a replay cannot be written as a fights log.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The replay is of another game.
    #[error("a replay of {game}; the fights-msgpack format holds Puoribor games")]
    NotPuoribor {
        /// The replay's game.
        game: String,
    },
    /// The replay has no tick at all.
    #[error("the replay holds no tick")]
    Empty,
    /// A coordinate of an action does not fit the rules' integers.
    #[error("tick {tick}: the action's {value} is out of range")]
    OutOfRange {
        /// The tick.
        tick: u32,
        /// The number.
        value: i64,
    },
    /// The rules refuse an action the replay records.
    #[error("tick {tick}: action {action} is illegal: {reason}")]
    Illegal {
        /// The tick.
        tick: u32,
        /// The action.
        action: Action,
        /// Why the rules refuse it.
        reason: String,
    },
    /// The replay's position differs from the one the rules reach.
    #[error("tick {tick}: the replay's {field} {replay} differ from the rules' {rules}")]
    Differs {
        /// The tick.
        tick: u32,
        /// The field of the snapshot.
        field: &'static str,
        /// The replay's value.
        replay: Json,
        /// The rules' value.
        rules: Json,
    },
}

/// Why a fights log cannot be read into a replay.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not one msgpack value.
    #[error("not msgpack (at byte {offset}): {error}")]
    NotMsgpack {
        /// Where decoding stopped.
        offset: u64,
        /// What the decoder found.
        error: rmpv::decode::Error,
    },
    /// A length the log announces does not fit the bytes that follow it, or the log holds more
    /// than any log of a game does.
    #[error("at byte {offset}: {problem}")]
    Size {
        /// Where the value announcing it starts.
        offset: u64,
        /// What does not fit.
        problem: String,
    },
    /// The value is not a list.
    #[error("the log is not a msgpack list")]
    NotAList,
    /// The list is empty.
    #[error("the log is empty")]
    Empty,
    /// One element of the list is wrong.
    #[error("element {index}: {problem}")]
    Element {
        /// The element's index in the list (0 is the start position).
        index: usize,
        /// What is wrong with it.
        problem: Problem,
    },
}

/// What is wrong with one element of a fights log.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// A timestamp extension of a length msgpack does not define.
    #[error("a timestamp of {len} bytes (4, 8 or 12 expected)")]
    Timestamp {
        /// Its length.
        len: usize,
    },
    /// A timestamp whose nanoseconds are not below a second.
    #[error("a timestamp of {seconds} s and {nanos} ns: the nanoseconds must be below 10^9")]
    TimestampNanos {
        /// Its seconds.
        seconds: i64,
        /// Its nanoseconds.
        nanos: u32,
    },
    /// The match ends at a time this system cannot hold.
    #[error("the match ends {unix_nanos} ns after 1970, a time this system cannot hold")]
    TimeRange {
        /// The end, in nanoseconds since the Unix epoch.
        unix_nanos: i128,
    },
    /// A field is missing.
    #[error("no {0}")]
    Missing(&'static str),
    /// A field has the wrong shape.
    #[error("{what} is not {expected}")]
    Shape {
        /// The field, with indices (`board[0][3]`).
        what: String,
        /// What it should be.
        expected: &'static str,
    },
    /// The first element has an action.
    #[error("element 0 has an action; a log starts with the start position")]
    StartHasAction,
    /// The element's agent is not the one on turn.
    #[error(
        "agent_id {agent:?} acts, but it is agent {mover}'s turn (players alternate, agent 0 \
         first)"
    )]
    WrongAgent {
        /// The element's `agent_id`.
        agent: Option<u64>,
        /// The agent on turn.
        mover: usize,
    },
    /// An action after the end of the game.
    #[error("the game was already over")]
    GameOver,
    /// The rules refuse the action.
    #[error("agent {mover} plays {action}, which is illegal: {reason}")]
    Illegal {
        /// The agent.
        mover: usize,
        /// The action.
        action: Action,
        /// Why the rules refuse it.
        reason: String,
    },
    /// The board differs from the rules', first in `channel`.
    #[error(
        "the log's board differs from the rules'\n  log:   channel {channel}: {log}\n  rules: channel {channel}: {rules}"
    )]
    BoardDiffers {
        /// The first channel that differs.
        channel: usize,
        /// The log's channel.
        log: String,
        /// The rules' channel.
        rules: String,
    },
    /// `walls_remaining` differs from the rules'.
    #[error("the log says walls_remaining {log:?}, the rules {rules:?}")]
    WallsDiffer {
        /// The log's.
        log: [i64; 2],
        /// The rules'.
        rules: [i64; 2],
    },
    /// `done` differs from the rules'.
    #[error("the log says done = {log}, the rules {rules}")]
    DoneDiffers {
        /// The log's.
        log: bool,
        /// The rules'.
        rules: bool,
    },
}

/// What [`import`] read: the replay, and when the match ended if the log has timestamps (give it
/// to the replay file as its modification time, so that exporting it again gives the same
/// timestamps).
#[derive(Debug)]
pub struct Imported {
    /// The replay.
    pub replay: Replay,
    /// The time of the last element, if the log has timestamps.
    pub ended: Option<SystemTime>,
}

/// The log of a Puoribor replay, positions rebuilt from the actions with the rules (and checked
/// against the positions the replay recorded).
pub fn export(replay: &Replay, start: MatchStart) -> Result<Vec<u8>, ExportError> {
    if replay.header.game != Puoribor::NAME {
        return Err(ExportError::NotPuoribor {
            game: replay.header.game.clone(),
        });
    }
    let max_ticks = replay.header.settings["max_ticks"]
        .as_u64()
        .map_or(DEFAULT_MAX_TICKS, |t| t.min(u64::from(u32::MAX)) as u32);
    let base = start_nanos(replay, start);
    let stamp = |ms: f64| Timestamp::from_unix_nanos(base + (ms * 1e6).round() as i128);
    let mut game = Puoribor::with_max_ticks(max_ticks);
    let mut last = 0.0;
    let mut log = Vec::with_capacity(replay.ticks.len());
    for tick in &replay.ticks {
        let at = tick_ms(tick).unwrap_or(last);
        last = at;
        if tick.tick == 0 && tick.player.is_none() {
            log.push(element(&game, None, stamp(at)));
            continue;
        }
        let Some(action) = tick_action(tick)? else {
            continue;
        };
        let player = game.current();
        replay_action(&mut game, tick, action)?;
        log.push(element(&game, Some((action, player)), stamp(at)));
    }
    if log.is_empty() {
        return Err(ExportError::Empty);
    }
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &Value::Array(log))
        .expect("writing to a Vec cannot fail");
    Ok(bytes)
}

/// Plays a tick's action and checks the position against the one the replay recorded.
fn replay_action(game: &mut Puoribor, tick: &Tick, action: Action) -> Result<(), ExportError> {
    game.apply(action).map_err(|e| ExportError::Illegal {
        tick: tick.tick,
        action,
        reason: e.to_string(),
    })?;
    let ours = record(game.snapshot());
    for field in ["pawns", "walls", "walls_remaining"] {
        if let Some(theirs) = tick.state.get(field)
            && *theirs != ours[field]
        {
            return Err(ExportError::Differs {
                tick: tick.tick,
                field,
                replay: theirs.clone(),
                rules: ours[field].clone(),
            });
        }
    }
    Ok(())
}

fn key(name: &str) -> Value {
    Value::from(name)
}

fn state_value(game: &Puoribor) -> Value {
    let list = |items: Vec<Value>| Value::Array(items);
    let board = game.board();
    let board = board.iter().map(|channel| {
        list(
            channel
                .iter()
                .map(|column| list(column.iter().map(|&v| Value::from(v)).collect()))
                .collect(),
        )
    });
    let walls = [0, 1].map(|p| Value::from(game.walls_remaining(p)));
    Value::Map(vec![
        (key("board"), list(board.collect())),
        (key("walls_remaining"), list(walls.to_vec())),
        (key("done"), Value::from(game.done())),
    ])
}

fn element(game: &Puoribor, action: Option<(Action, usize)>, at: Timestamp) -> Value {
    let (action, agent) = match action {
        Some((a, p)) => (
            Value::Array(a.to_array().into_iter().map(Value::from).collect()),
            Value::from(p as u64),
        ),
        None => (Value::Nil, Value::Nil),
    };
    Value::Map(vec![
        (key("state"), state_value(game)),
        (key("action"), action),
        (key("agent_id"), agent),
        (key("timestamp"), at.to_ext()),
    ])
}

/// The action of a tick record, `None` for records that played none (a forfeit).
fn tick_action(tick: &Tick) -> Result<Option<Action>, ExportError> {
    let field = |name: &str| tick.action.get(name).and_then(Json::as_i64);
    let (Some(t), Some(x), Some(y)) = (field("type"), field("x"), field("y")) else {
        return Ok(None);
    };
    let int = |value: i64| {
        i32::try_from(value).map_err(|_| ExportError::OutOfRange {
            tick: tick.tick,
            value,
        })
    };
    Ok(Some(Action::new(int(t)?, int(x)?, int(y)?)))
}

/// Every message time of a tick, in ms from the start of the match.
fn message_times(tick: &Tick) -> impl Iterator<Item = f64> + '_ {
    tick.bots
        .iter()
        .flat_map(|b| b.received.iter().chain(&b.sent))
        .map(|m| m.at_ms)
}

/// When the tick's action was played, in ms from the start of the match: the time of the
/// mover's answer, else the latest message of the tick.
fn tick_ms(tick: &Tick) -> Option<f64> {
    let answer = tick
        .player
        .and_then(|p| tick.bots.get(p))
        .and_then(|bot| bot.sent.last())
        .map(|m| m.at_ms);
    answer.or_else(|| message_times(tick).reduce(f64::max))
}

/// The last message time of a replay, in ms from the start of the match.
fn last_ms<'a>(ticks: impl IntoIterator<Item = &'a Tick>) -> f64 {
    ticks
        .into_iter()
        .flat_map(message_times)
        .fold(0.0, f64::max)
}

/// Unix nanoseconds of the start of the match.
fn start_nanos(replay: &Replay, start: MatchStart) -> i128 {
    match start {
        MatchStart::UnixSeconds(seconds) => (seconds * 1e9).round() as i128,
        MatchStart::EndedAt(end) => {
            let end = match end.duration_since(UNIX_EPOCH) {
                Ok(d) => d.as_nanos() as i128,
                Err(e) => -(e.duration().as_nanos() as i128),
            };
            end - (last_ms(&replay.ticks) * 1e6).round() as i128
        }
    }
}

/// A replay of the game in a log, every action checked with the rules and every state
/// compared. The replay's times are the log's timestamps from the first one.
pub fn import(bytes: &[u8]) -> Result<Imported, ImportError> {
    let elements = decode(bytes)?;
    let at = |index: usize| move |problem| ImportError::Element { index, problem };
    let stamps = elements
        .iter()
        .enumerate()
        .map(|(i, e)| stamp_of(e).map_err(at(i)))
        .collect::<Result<Vec<_>, _>>()?;
    let t0 = stamps.iter().flatten().next().map(|t| t.unix_nanos());
    let ms = |i: usize| match (stamps[i], t0) {
        (Some(t), Some(t0)) => (t.unix_nanos() - t0) as f64 / 1e6,
        _ => 0.0,
    };
    // At most sizes::MAX_ELEMENTS: no truncation.
    let actions = u32::try_from(elements.len() - 1).unwrap_or(u32::MAX);
    let mut game = Puoribor::with_max_ticks(DEFAULT_MAX_TICKS.max(actions));
    let names = ["fights agent 0", "fights agent 1"];
    let header = Header::new(
        Puoribor::NAME,
        record(game.settings_record()),
        0,
        names.iter().map(|name| player(name)).collect(),
    );
    let mut ticks = vec![start_tick(&game, &elements[0], ms(0)).map_err(at(0))?];
    for (i, e) in elements.iter().enumerate().skip(1) {
        ticks.push(action_tick(&mut game, e, [ms(i - 1), ms(i)]).map_err(at(i))?);
    }
    let result = game.outcome().map(|o| MatchResult {
        ticks: game.tick(),
        reason: o.reason.to_string(),
        scores: o.scores,
        placement: o.placement,
        bots: names.iter().map(|name| summary(name)).collect(),
    });
    let ended = match t0 {
        Some(t0) => {
            let end = t0 + (last_ms(ticks.last()) * 1e6).round() as i128;
            let last = elements.len() - 1;
            Some(system_time(end).ok_or(ImportError::Element {
                index: last,
                problem: Problem::TimeRange { unix_nanos: end },
            })?)
        }
        None => None,
    };
    let replay = Replay {
        header,
        ticks,
        result,
    };
    Ok(Imported { replay, ended })
}

/// The time `unix_nanos` after the Unix epoch, if this system can hold it.
fn system_time(unix_nanos: i128) -> Option<SystemTime> {
    let magnitude = unix_nanos.unsigned_abs();
    let seconds = u64::try_from(magnitude / 1_000_000_000).ok()?;
    let since = Duration::new(seconds, (magnitude % 1_000_000_000) as u32);
    match unix_nanos >= 0 {
        true => UNIX_EPOCH.checked_add(since),
        false => UNIX_EPOCH.checked_sub(since),
    }
}

/// The elements of the log's list, its sizes checked before it is decoded. The depth is
/// limited too: rmpv's own limit of 1024 levels, each a frame of its recursive reader,
/// overflows a thread's stack before it is reached in a debug build.
fn decode(bytes: &[u8]) -> Result<Vec<Value>, ImportError> {
    sizes::check(bytes)?;
    let mut cursor = Cursor::new(bytes);
    let log = rmpv::decode::read_value_with_max_depth(&mut cursor, sizes::MAX_DEPTH).map_err(
        |error| ImportError::NotMsgpack {
            offset: cursor.position(),
            error,
        },
    )?;
    match log {
        Value::Array(elements) if elements.is_empty() => Err(ImportError::Empty),
        Value::Array(elements) => Ok(elements),
        _ => Err(ImportError::NotAList),
    }
}

fn player(name: &str) -> Player {
    Player {
        name: name.to_string(),
        kind: PlayerKind::Process,
        command: None,
    }
}

fn summary(name: &str) -> BotSummary {
    BotSummary {
        name: name.to_string(),
        errors: 0,
        timeouts: 0,
        crashed: false,
    }
}

fn stamp_of(element: &Value) -> Result<Option<Timestamp>, Problem> {
    match get(element, "timestamp") {
        Some(Value::Ext(TIMESTAMP_EXT, data)) => Timestamp::from_ext(data).map(Some),
        _ => Ok(None),
    }
}

/// Tick 0 from the first element, which must be the start position.
fn start_tick(game: &Puoribor, first: &Value, at_ms: f64) -> Result<Tick, Problem> {
    if !matches!(get(first, "action"), None | Some(Value::Nil)) {
        return Err(Problem::StartHasAction);
    }
    compare(game, get(first, "state").ok_or(Problem::Missing("state"))?)?;
    let mut bots = vec![BotTick::default(), BotTick::default()];
    for (p, bot) in bots.iter_mut().enumerate() {
        let mut text = String::new();
        game.start_message(0, p, &mut text);
        bot.received.push(Message { at_ms, text });
    }
    Ok(Tick {
        tick: 0,
        player: None,
        action: Tick::start_action(),
        state: record(game.snapshot()),
        bots,
    })
}

/// The tick of one later element: its action played and its state compared. `ms` is the time
/// of the element before (the request) and of this one (the answer).
fn action_tick(game: &mut Puoribor, element: &Value, ms: [f64; 2]) -> Result<Tick, Problem> {
    let action = ints(
        get(element, "action").ok_or(Problem::Missing("action"))?,
        "the action",
    )?;
    let [t, x, y] = action[..] else {
        return Err(Problem::Shape {
            what: "the action".into(),
            expected: "3 numbers",
        });
    };
    // Out of range is illegal, as any other action off the board.
    let int = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
    let action = Action::new(int(t), int(x), int(y));
    let mover = game.current();
    match get(element, "agent_id").and_then(Value::as_u64) {
        Some(agent) if agent == mover as u64 => {}
        agent => return Err(Problem::WrongAgent { agent, mover }),
    }
    if game.to_move().is_none() {
        return Err(Problem::GameOver);
    }
    let mut request = String::new();
    game.turn_message(mover, &mut request);
    game.apply(action).map_err(|e| Problem::Illegal {
        mover,
        action,
        reason: e.to_string(),
    })?;
    compare(
        game,
        get(element, "state").ok_or(Problem::Missing("state"))?,
    )?;
    let mut bots = vec![BotTick::default(), BotTick::default()];
    let bot = &mut bots[mover];
    bot.received.push(Message {
        at_ms: ms[0],
        text: request,
    });
    bot.sent.push(Message {
        at_ms: ms[1],
        text: action.to_string(),
    });
    bot.time_ms = Some(ms[1] - ms[0]);
    Ok(Tick {
        tick: game.tick(),
        player: Some(mover),
        action: record_action(game, action),
        state: record(game.snapshot()),
        bots,
    })
}

fn get<'a>(map: &'a Value, name: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(name))
        .map(|(_, v)| v)
}

fn ints(value: &Value, what: &str) -> Result<Vec<i64>, Problem> {
    let shape = || Problem::Shape {
        what: what.to_owned(),
        expected: "a list of integers",
    };
    let items = value.as_array().ok_or_else(shape)?;
    items.iter().map(|v| v.as_i64().ok_or_else(shape)).collect()
}

fn board_of(state: &Value) -> Result<[[[u8; 9]; 9]; 6], Problem> {
    let board = get(state, "board").ok_or(Problem::Missing("board"))?;
    let shape = |what: String, expected| Problem::Shape { what, expected };
    let channels = board.as_array().filter(|c| c.len() == 6);
    let channels = channels.ok_or_else(|| shape("the board".into(), "a list of 6 channels"))?;
    let mut out = [[[0u8; 9]; 9]; 6];
    for (c, channel) in channels.iter().enumerate() {
        let columns = channel.as_array().filter(|c| c.len() == 9);
        let columns = columns.ok_or_else(|| shape(format!("channel {c}"), "9 columns"))?;
        for (x, column) in columns.iter().enumerate() {
            let what = format!("board[{c}][{x}]");
            let cells = ints(column, &what)?;
            if cells.len() != 9 {
                return Err(shape(what, "9 cells"));
            }
            for (y, &v) in cells.iter().enumerate() {
                let what = format!("board[{c}][{x}][{y}] ({v})");
                out[c][x][y] = u8::try_from(v).map_err(|_| shape(what, "0, 1 or 2"))?;
            }
        }
    }
    Ok(out)
}

/// The state's walls remaining and `done`.
fn walls_and_done(state: &Value) -> Result<([i64; 2], bool), Problem> {
    let walls = get(state, "walls_remaining").ok_or(Problem::Missing("walls_remaining"))?;
    let walls = ints(walls, "walls_remaining")?;
    let [w0, w1] = walls[..] else {
        return Err(Problem::Shape {
            what: "walls_remaining".into(),
            expected: "2 numbers",
        });
    };
    let done = get(state, "done").and_then(Value::as_bool);
    let done = done.ok_or_else(|| Problem::Shape {
        what: "done".into(),
        expected: "a boolean",
    })?;
    Ok(([w0, w1], done))
}

fn compare(game: &Puoribor, state: &Value) -> Result<(), Problem> {
    let board = board_of(state)?;
    let rules = game.board();
    if let Some(c) = (0..6).find(|&c| board[c] != rules[c]) {
        return Err(Problem::BoardDiffers {
            channel: c,
            log: format!("{:?}", board[c]),
            rules: format!("{:?}", rules[c]),
        });
    }
    let (walls, done) = walls_and_done(state)?;
    let ours = [0, 1].map(|p| i64::from(game.walls_remaining(p)));
    if walls != ours {
        return Err(Problem::WallsDiffer {
            log: walls,
            rules: ours,
        });
    }
    if done != game.done() {
        return Err(Problem::DoneDiffers {
            log: done,
            rules: game.done(),
        });
    }
    Ok(())
}
