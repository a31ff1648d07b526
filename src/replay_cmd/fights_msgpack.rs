//! The msgpack log of the `fights` Python environment (`specs/puoribor.md` §5), from and to
//! Arbiter replays of Puoribor.
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

use std::io::Cursor;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, anyhow, bail};
use arbiter_games::puoribor::{Action, DEFAULT_MAX_TICKS, Puoribor};
use arbiter_games::{Game, Recorded, Wire};
use arbiter_replay::{
    BotSummary, BotTick, Event, Header, MatchResult, Message, Player, PlayerKind, Replay,
    ReplayWriter, Tick, TickAction, read_replay,
};
use rmpv::Value;
use serde_json::Value as Json;

/// The msgpack extension type of timestamps.
const TIMESTAMP_EXT: i8 = -1;

/// A time as seconds and nanoseconds since the Unix epoch (seconds may be negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timestamp {
    seconds: i64,
    nanos: u32,
}

impl Timestamp {
    fn from_unix_nanos(nanos: i128) -> Timestamp {
        Timestamp {
            seconds: nanos.div_euclid(1_000_000_000) as i64,
            nanos: nanos.rem_euclid(1_000_000_000) as u32,
        }
    }

    fn unix_nanos(self) -> i128 {
        i128::from(self.seconds) * 1_000_000_000 + i128::from(self.nanos)
    }

    /// The smallest of the three layouts of the msgpack spec, as Python's `msgpack` writes.
    fn to_ext(self) -> Value {
        let bytes = if self.seconds >> 34 == 0 {
            let seconds = self.seconds as u64;
            if self.nanos == 0 && seconds >> 32 == 0 {
                (seconds as u32).to_be_bytes().to_vec()
            } else {
                (u64::from(self.nanos) << 34 | seconds)
                    .to_be_bytes()
                    .to_vec()
            }
        } else {
            let mut bytes = self.nanos.to_be_bytes().to_vec();
            bytes.extend(self.seconds.to_be_bytes());
            bytes
        };
        Value::Ext(TIMESTAMP_EXT, bytes)
    }

    fn from_ext(bytes: &[u8]) -> Result<Timestamp> {
        let invalid = || anyhow!("a timestamp of {} bytes (4, 8 or 12 expected)", bytes.len());
        Ok(match bytes.len() {
            4 => Timestamp {
                seconds: i64::from(u32::from_be_bytes(bytes.try_into().map_err(|_| invalid())?)),
                nanos: 0,
            },
            8 => {
                let v = u64::from_be_bytes(bytes.try_into().map_err(|_| invalid())?);
                Timestamp {
                    seconds: (v & ((1 << 34) - 1)) as i64,
                    nanos: (v >> 34) as u32,
                }
            }
            12 => Timestamp {
                nanos: u32::from_be_bytes(bytes[..4].try_into().map_err(|_| invalid())?),
                seconds: i64::from_be_bytes(bytes[4..].try_into().map_err(|_| invalid())?),
            },
            _ => return Err(invalid()),
        })
    }
}

fn key(name: &str) -> Value {
    Value::from(name)
}

fn state_value(game: &Puoribor) -> Value {
    let board = game.board();
    let board = Value::Array(
        board
            .iter()
            .map(|channel| {
                Value::Array(
                    channel
                        .iter()
                        .map(|column| {
                            Value::Array(column.iter().map(|&v| Value::from(v)).collect())
                        })
                        .collect(),
                )
            })
            .collect(),
    );
    Value::Map(vec![
        (key("board"), board),
        (
            key("walls_remaining"),
            Value::Array(vec![
                Value::from(game.walls_remaining(0)),
                Value::from(game.walls_remaining(1)),
            ]),
        ),
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
fn tick_action(tick: &Tick) -> Result<Option<Action>> {
    let field = |name: &str| tick.action.get(name).and_then(Json::as_i64);
    match (field("type"), field("x"), field("y")) {
        (Some(t), Some(x), Some(y)) => {
            let int = |v: i64| i32::try_from(v).map_err(|_| anyhow!("{v} is out of range"));
            Ok(Some(Action::new(int(t)?, int(x)?, int(y)?)))
        }
        _ => Ok(None),
    }
}

/// When the tick's action was played, in ms from the start of the match: the time of the
/// mover's answer, else the latest message of the tick.
fn tick_ms(tick: &Tick) -> Option<f64> {
    let answer = tick
        .player
        .and_then(|p| tick.bots.get(p))
        .and_then(|bot| bot.sent.last())
        .map(|m| m.at_ms);
    answer.or_else(|| {
        tick.bots
            .iter()
            .flat_map(|b| b.received.iter().chain(&b.sent))
            .map(|m| m.at_ms)
            .reduce(f64::max)
    })
}

fn last_ms(replay: &Replay) -> f64 {
    replay
        .ticks
        .iter()
        .flat_map(|t| &t.bots)
        .flat_map(|b| b.received.iter().chain(&b.sent))
        .map(|m| m.at_ms)
        .fold(0.0, f64::max)
}

/// Unix nanoseconds of the start of the match.
fn start_nanos(path: &Path, replay: &Replay, start: Option<f64>) -> Result<i128> {
    if let Some(seconds) = start {
        return Ok((seconds * 1e9).round() as i128);
    }
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .with_context(|| format!("reading the modification time of {}", path.display()))?;
    let end = match modified.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    };
    Ok(end - (last_ms(replay) * 1e6).round() as i128)
}

/// The log of a Puoribor replay, positions rebuilt from the actions with the rules (and
/// checked against the positions the replay recorded).
pub fn export(path: &Path, start: Option<f64>) -> Result<Vec<u8>> {
    let replay = read_replay(path).with_context(|| format!("reading {}", path.display()))?;
    if replay.header.game != Puoribor::NAME {
        bail!(
            "{} is a replay of {}; the fights-msgpack format holds Puoribor games",
            path.display(),
            replay.header.game
        );
    }
    let max_ticks = replay.header.settings["max_ticks"]
        .as_u64()
        .map_or(DEFAULT_MAX_TICKS, |t| t.min(u64::from(u32::MAX)) as u32);
    let base = start_nanos(path, &replay, start)?;
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
        let Some(action) = tick_action(tick).with_context(|| format!("tick {}", tick.tick))? else {
            continue;
        };
        let player = game.current();
        game.apply(action)
            .map_err(|e| anyhow!("tick {}: action {action} is illegal: {e}", tick.tick))?;
        let ours = serde_json::to_value(game.snapshot())?;
        for field in ["pawns", "walls", "walls_remaining"] {
            if tick.state.get(field).is_some_and(|v| *v != ours[field]) {
                bail!(
                    "tick {}: the replay's {field} {} differ from the rules' {}",
                    tick.tick,
                    tick.state[field],
                    ours[field]
                );
            }
        }
        log.push(element(&game, Some((action, player)), stamp(at)));
    }
    if log.is_empty() {
        bail!("{} holds no tick", path.display());
    }
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &Value::Array(log))
        .context("encoding the msgpack log")?;
    Ok(bytes)
}

fn get<'a>(map: &'a Value, name: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(name))
        .map(|(_, v)| v)
}

fn ints(value: &Value, what: &str) -> Result<Vec<i64>> {
    value
        .as_array()
        .ok_or_else(|| anyhow!("{what} is not a list"))?
        .iter()
        .map(|v| {
            v.as_i64()
                .ok_or_else(|| anyhow!("{what} holds a non-integer"))
        })
        .collect()
}

fn board_of(state: &Value) -> Result<[[[u8; 9]; 9]; 6]> {
    let board = get(state, "board").ok_or_else(|| anyhow!("the state has no board"))?;
    let mut out = [[[0u8; 9]; 9]; 6];
    let channels = board.as_array().filter(|c| c.len() == 6);
    let channels = channels.ok_or_else(|| anyhow!("the board is not a list of 6 channels"))?;
    for (c, channel) in channels.iter().enumerate() {
        let columns = channel.as_array().filter(|c| c.len() == 9);
        let columns = columns.ok_or_else(|| anyhow!("channel {c} is not 9 columns"))?;
        for (x, column) in columns.iter().enumerate() {
            let cells = ints(column, &format!("board[{c}][{x}]"))?;
            if cells.len() != 9 {
                bail!("board[{c}][{x}] does not hold 9 cells");
            }
            for (y, &v) in cells.iter().enumerate() {
                out[c][x][y] = u8::try_from(v)
                    .map_err(|_| anyhow!("board[{c}][{x}][{y}] is {v}, not 0, 1 or 2"))?;
            }
        }
    }
    Ok(out)
}

/// The state's walls remaining and `done`.
fn walls_and_done(state: &Value) -> Result<([i64; 2], bool)> {
    let walls = get(state, "walls_remaining").ok_or_else(|| anyhow!("no walls_remaining"))?;
    let walls = ints(walls, "walls_remaining")?;
    let [w0, w1] = walls[..] else {
        bail!("walls_remaining holds {} numbers, not 2", walls.len());
    };
    let done = get(state, "done").and_then(Value::as_bool);
    Ok((
        [w0, w1],
        done.ok_or_else(|| anyhow!("done is not a boolean"))?,
    ))
}

fn compare(game: &Puoribor, state: &Value) -> Result<()> {
    let board = board_of(state)?;
    if board != game.board() {
        let (mut theirs, mut ours) = (String::new(), String::new());
        for (c, (a, b)) in board.iter().zip(game.board()).enumerate() {
            if *a != b {
                theirs = format!("channel {c}: {a:?}");
                ours = format!("channel {c}: {b:?}");
                break;
            }
        }
        bail!("the log's board differs from the rules'\n  log:   {theirs}\n  rules: {ours}");
    }
    let (walls, done) = walls_and_done(state)?;
    let ours = [0, 1].map(|p| i64::from(game.walls_remaining(p)));
    if walls != ours {
        bail!("the log says walls_remaining {walls:?}, the rules {ours:?}");
    }
    if done != game.done() {
        bail!("the log says done = {done}, the rules {}", game.done());
    }
    Ok(())
}

/// A replay of the game in a log, every action checked with the rules and every state compared.
/// The replay's times are the log's timestamps from the first one; the file's modification
/// time is set to the last, so that exporting it again gives the same timestamps.
pub fn import(path: &Path, output: &Path) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let log = rmpv::decode::read_value(&mut Cursor::new(&bytes))
        .with_context(|| format!("{} is not msgpack", path.display()))?;
    let elements = log
        .as_array()
        .ok_or_else(|| anyhow!("{} does not hold a msgpack list", path.display()))?;
    let first = elements
        .first()
        .ok_or_else(|| anyhow!("the log is empty"))?;
    let actions = elements.len() as u32 - 1;
    let mut game = Puoribor::with_max_ticks(DEFAULT_MAX_TICKS.max(actions));
    let stamps: Vec<Option<Timestamp>> = elements
        .iter()
        .enumerate()
        .map(|(i, e)| match get(e, "timestamp") {
            Some(Value::Ext(TIMESTAMP_EXT, data)) => Timestamp::from_ext(data)
                .map(Some)
                .with_context(|| format!("element {i}")),
            _ => Ok(None),
        })
        .collect::<Result<_>>()?;
    let t0 = stamps.iter().flatten().next().map(|t| t.unix_nanos());
    let ms = |i: usize| match (stamps[i], t0) {
        (Some(t), Some(t0)) => (t.unix_nanos() - t0) as f64 / 1e6,
        _ => 0.0,
    };
    let names = ["fights agent 0", "fights agent 1"];
    let header = Header::new(
        Puoribor::NAME,
        game.settings_record(),
        0,
        names
            .iter()
            .map(|name| Player {
                name: name.to_string(),
                kind: PlayerKind::Process,
                command: None,
            })
            .collect(),
    );
    if !matches!(get(first, "action"), None | Some(Value::Nil)) {
        bail!("element 0 has an action; a log starts with the start position");
    }
    let state = get(first, "state").ok_or_else(|| anyhow!("element 0 has no state"))?;
    compare(&game, state).context("element 0 is not the start position")?;
    let mut start = Tick {
        tick: 0,
        player: None,
        action: Event::Start.into(),
        state: game.snapshot(),
        bots: vec![BotTick::default(), BotTick::default()],
    };
    for (p, bot) in start.bots.iter_mut().enumerate() {
        let mut text = String::new();
        game.start_message(0, p, &mut text);
        bot.received.push(Message { at_ms: ms(0), text });
    }
    let mut ticks = vec![start];
    for (i, e) in elements.iter().enumerate().skip(1) {
        let context = || format!("element {i}");
        let action = get(e, "action")
            .ok_or_else(|| anyhow!("no action"))
            .with_context(context)?;
        let action = ints(action, "the action").with_context(context)?;
        let [t, x, y] = action[..] else {
            bail!(
                "element {i}: the action holds {} numbers, not 3",
                action.len()
            );
        };
        let int = |v: i64| i32::try_from(v).unwrap_or(i32::MAX);
        let action = Action::new(int(t), int(x), int(y));
        let mover = game.current();
        match get(e, "agent_id").and_then(Value::as_u64) {
            Some(agent) if agent == mover as u64 => {}
            agent => bail!(
                "element {i}: agent_id {agent:?} acts, but it is agent {mover}'s turn (players alternate, agent 0 first)"
            ),
        }
        if game.to_move().is_none() {
            bail!("element {i}: the game was already over");
        }
        let mut request = String::new();
        game.turn_message(mover, &mut request);
        game.apply(action).map_err(|e| {
            anyhow!("element {i}: agent {mover} plays {action}, which is illegal: {e}")
        })?;
        let state = get(e, "state")
            .ok_or_else(|| anyhow!("no state"))
            .with_context(context)?;
        compare(&game, state).with_context(context)?;
        let mut bots = vec![BotTick::default(), BotTick::default()];
        bots[mover].received.push(Message {
            at_ms: ms(i - 1),
            text: request,
        });
        bots[mover].sent.push(Message {
            at_ms: ms(i),
            text: action.to_string(),
        });
        bots[mover].time_ms = Some(ms(i) - ms(i - 1));
        ticks.push(Tick {
            tick: game.tick(),
            player: Some(mover),
            action: TickAction::Played(game.action_record(action)),
            state: game.snapshot(),
            bots,
        });
    }
    let result = game.outcome().map(|o| MatchResult {
        ticks: game.tick(),
        reason: o.reason.to_string(),
        scores: o.scores,
        placement: o.placement,
        bots: names
            .iter()
            .map(|name| BotSummary {
                name: name.to_string(),
                errors: 0,
                timeouts: 0,
                crashed: false,
            })
            .collect(),
    });
    let replay = Replay {
        header,
        ticks,
        result,
    };
    let mut writer = ReplayWriter::create(output)?;
    replay.write_to(&mut writer)?;
    writer.finish()?;
    if let Some(t0) = t0 {
        let last = replay.ticks.last().map_or(0.0, |t| {
            t.bots
                .iter()
                .flat_map(|b| b.received.iter().chain(&b.sent))
                .map(|m| m.at_ms)
                .fold(0.0, f64::max)
        });
        let end = t0 + (last * 1e6).round() as i128;
        let end = if end >= 0 {
            UNIX_EPOCH + Duration::from_nanos(end as u64)
        } else {
            UNIX_EPOCH - Duration::from_nanos((-end) as u64)
        };
        set_modified(output, end)?;
    }
    Ok(())
}

fn set_modified(path: &Path, time: SystemTime) -> Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(time))
        .with_context(|| format!("setting the modification time of {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_take_the_smallest_layout() {
        let t = |seconds, nanos| Timestamp { seconds, nanos };
        for (stamp, len) in [
            (t(1_700_000_000, 0), 4),
            (t(1_700_000_000, 5), 8),
            (t(1 << 34, 0), 12),
            (t(-1, 999_999_999), 12),
        ] {
            let Value::Ext(TIMESTAMP_EXT, bytes) = stamp.to_ext() else {
                panic!("not a timestamp")
            };
            assert_eq!(bytes.len(), len, "{stamp:?}");
            assert_eq!(Timestamp::from_ext(&bytes).unwrap(), stamp);
        }
        let nanos = 1_700_000_000_123_456_789;
        assert_eq!(Timestamp::from_unix_nanos(nanos).unix_nanos(), nanos);
        assert_eq!(Timestamp::from_unix_nanos(-1), t(-1, 999_999_999));
    }
}
