//! The block protocol of docs/games/labyrinth.md#protocol with the decisions of docs/games/labyrinth.md#where-arbiter-differs-from-the-2017-server, and its bot side.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use super::*;
use crate::{
    ClientEvent, Deserted, Fault, FaultAction, Framing, Protocol, SessionMode, TimeControl,
    Watchers, Wire, WireClient, shorten,
};

/// Every reply must come within this (docs/games/labyrinth.md#protocol).
pub const REPLY_LIMIT: Duration = Duration::from_secs(2);

/// Longest piece of a reply quoted back in an error text.
const QUOTE_LIMIT: usize = 60;

/// Reads a reply block: its lines joined by `\n`, the closing `.` left out. Lines may come in
/// any order, end in `\r` and have runs of blanks; the first `PUSH` line and the first `GOTO`
/// line count, other lines are ignored (docs/games/labyrinth.md#reply). The error (NO_PUSH) is for a reply without a
/// well-formed first PUSH; a malformed GOTO is kept as [`Goto::Malformed`], for the rules to
/// refuse with BAD_GOTO while the push stands.
pub fn parse_action(text: &str) -> Result<Action, String> {
    let mut push: Option<Result<Push, String>> = None;
    let mut goto: Option<Goto> = None;
    for line in text.split('\n') {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("PUSH") if push.is_none() => {
                let numbers: Vec<Option<u8>> = words.map(number).collect();
                push = Some(match numbers[..] {
                    [Some(c), Some(p), Some(k), Some(t)] => Ok(Push::new(c, p, k, t)),
                    _ => Err(line.trim().to_owned()),
                });
            }
            Some("GOTO") if goto.is_none() => {
                let numbers: Vec<Option<u8>> = words.map(number).collect();
                goto = Some(match numbers[..] {
                    [Some(x), Some(y)] => Goto::Cell(x, y),
                    _ => Goto::Malformed,
                });
            }
            _ => {}
        }
    }
    match push {
        Some(Ok(push)) => Ok(Action::Move {
            push,
            goto: goto.unwrap_or(Goto::None),
        }),
        Some(Err(line)) => Err(format!(
            "NO_PUSH: expected `PUSH c p k t` with four numbers, got `{}`",
            shorten(&line, QUOTE_LIMIT)
        )),
        None if text.trim().is_empty() => Err(
            "NO_PUSH: empty reply: expected `PUSH c p k t`, optionally `GOTO x y`, then `.`"
                .to_owned(),
        ),
        None => Err(format!(
            "NO_PUSH: no `PUSH c p k t` line in the reply `{}`",
            shorten(text.trim(), QUOTE_LIMIT)
        )),
    }
}

/// A non-negative number of digits only, capped at 255 so that a big one is out of range
/// rather than unreadable.
fn number(word: &str) -> Option<u8> {
    if word.is_empty() || !word.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = word
        .bytes()
        .fold(0u32, |v, d| (v * 10 + u32::from(d - b'0')).min(255));
    Some(value as u8)
}

impl Labyrinth {
    /// The game init block of docs/games/labyrinth.md#protocol for seat `player`, `.` line included.
    pub fn write_init(&self, player: PlayerId, out: &mut String) {
        let level = &self.level;
        let settings = &self.settings;
        writeln!(out, "ID {}", settings.game_id).unwrap();
        out.push_str("PLAYERS");
        for name in &settings.names {
            write!(out, " {name}").unwrap();
        }
        out.push('\n');
        writeln!(out, "PLAYER {player}").unwrap();
        writeln!(out, "LEVEL {}", settings.level_number).unwrap();
        writeln!(out, "SIZE {} {}", level.width, level.height).unwrap();
        writeln!(out, "DISPLAYS {}", level.displays.len()).unwrap();
        writeln!(out, "MAXTICK {}", level.max_tick).unwrap();
        for b in &level.blocked {
            writeln!(out, "BLOCKED {} {}", b.x, b.y).unwrap();
        }
        out.push_str("TARGETS");
        for d in &level.targets[player] {
            write!(out, " {d}").unwrap();
        }
        out.push_str("\n.\n");
    }

    /// The turn block of docs/games/labyrinth.md#protocol: the state before the turn of the seat on turn; with the private
    /// part (MESSAGE, TARGET, EXTRAFIELD, GAMESCORE) of `private`, if given. `.` line included.
    pub fn write_turn(&self, private: Option<PlayerId>, out: &mut String) {
        writeln!(out, "TICK {}", self.round()).unwrap();
        out.push_str("FIELDS");
        for t in &self.tiles {
            write!(out, " {t}").unwrap();
        }
        out.push('\n');
        for (d, cell) in self.active_displays() {
            writeln!(out, "DISPLAY {d} {} {}", cell.x, cell.y).unwrap();
        }
        for s in 0..self.players {
            let cell = self.position(s);
            writeln!(out, "POSITION {s} {} {}", cell.x, cell.y).unwrap();
        }
        writeln!(out, "PLAYER {}", self.seat_on_turn()).unwrap();
        if let Some(s) = private {
            writeln!(out, "MESSAGE {}", self.codes[s]).unwrap();
            if let Some(d) = self.current_target(s) {
                writeln!(out, "TARGET {d}").unwrap();
            }
            writeln!(out, "EXTRAFIELD {}", self.extras[s]).unwrap();
            writeln!(out, "GAMESCORE {}", self.scores[s]).unwrap();
        }
        out.push_str(".\n");
    }

    /// The after-game block and the finish block of a one-game session (docs/games/labyrinth.md#protocol), for seat `player`.
    pub fn write_session_end(&self, player: PlayerId, out: &mut String) {
        let score = self.scores[player];
        writeln!(out, "SCORE {score} {score} 0").unwrap();
        writeln!(out, "ID {}", self.settings.game_id).unwrap();
        out.push_str("NEXTSTART 0 -1 0\n.\n");
        writeln!(out, "END {score} 0").unwrap();
        out.push_str(".\n");
    }
}

impl Wire for Labyrinth {
    /// Blocks ended by `.` (docs/games/labyrinth.md#protocol); everyone is told the state before each turn; nothing sent
    /// before a turn block answers it (docs/games/labyrinth.md#reply); a match with no connected player left ends
    /// (docs/games/labyrinth.md#disconnects).
    const PROTOCOL: Protocol = Protocol {
        framing: Framing::Block { terminator: "." },
        watchers: Watchers::ToldEveryTurn,
        deserted: Deserted::End,
        ..Protocol::lines(TimeControl::PerReply {
            limit: REPLY_LIMIT,
            first_extra: Duration::ZERO,
        })
    };

    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        self.write_init(player, out);
    }

    fn turn_message(&self, player: PlayerId, out: &mut String) {
        self.write_turn(Some(player), out);
    }

    fn watch_message(&self, _player: PlayerId, out: &mut String) {
        self.write_turn(None, out);
    }

    fn end_message(&self, player: PlayerId, out: &mut String) {
        if self.settings.session == SessionMode::Alone {
            self.write_session_end(player, out);
        }
    }

    fn parse_action(&self, text: &str) -> Result<Action, String> {
        parse_action(text)
    }

    /// The reply lines without the closing `.` (see [`Wire::PROTOCOL`]); nothing for a void
    /// turn, as the official client sends nothing when it has no move.
    fn format_action(&self, action: Action, out: &mut String) {
        match action {
            Action::Move { push, goto } => {
                write!(out, "{push}").unwrap();
                match goto {
                    Goto::None => {}
                    Goto::Cell(x, y) => write!(out, "\nGOTO {x} {y}").unwrap(),
                    Goto::Malformed => out.push_str("\nGOTO"),
                }
            }
            Action::PushOnly(push) => write!(out, "{push}").unwrap(),
            Action::Void(_) => {}
        }
    }

    /// docs/games/labyrinth.md#turns-and-the-end and docs/games/labyrinth.md#faults-and-message-codes: a malformed reply is NO_PUSH, a refused reply keeps a valid push (BAD_GOTO)
    /// and otherwise voids the turn with the push's code, a late reply or a seat that is gone
    /// voids the turn with TIMEOUT.
    fn on_fault(&self, fault: Fault<Action>, _rng: &mut dyn rand::RngCore) -> FaultAction<Action> {
        FaultAction::Play(match fault {
            Fault::Malformed => Action::Void(Code::NoPush),
            Fault::Illegal(action) => self.refused(action),
            Fault::Timeout | Fault::Crash => Action::Void(Code::Timeout),
        })
    }
}

/// The game init block of docs/games/labyrinth.md#protocol as a client reads it: a bot from the server, the importer from a
/// client's log.
#[derive(Clone, Debug, Default)]
pub struct Init {
    /// `ID i`: the game's id.
    pub game_id: u64,
    /// `PLAYERS`: the seats' names, in seat order.
    pub names: Vec<String>,
    /// `PLAYER K`: this bot's seat.
    pub seat: usize,
    /// `LEVEL X`: the level number.
    pub level_number: u64,
    /// `SIZE N M`: N, the number of columns.
    pub width: usize,
    /// `SIZE N M`: M, the number of rows.
    pub height: usize,
    /// `DISPLAYS L`: the number of displays.
    pub displays: usize,
    /// `MAXTICK T`: the number of rounds.
    pub max_tick: u32,
    /// `BLOCKED x y`: the blocked cells, one per line.
    pub blocked: Vec<Cell>,
    /// `TARGETS`: this seat's order of the displays.
    pub targets: Vec<u8>,
}

impl Init {
    /// Reads one line of the init block into `self`. `Ok(false)`, with `self` unchanged, for a
    /// keyword the init block does not have: a bot skips such lines, a log reader refuses them.
    pub fn read_line(&mut self, line: &str) -> Result<bool, String> {
        let keyword = line.split_ascii_whitespace().next().unwrap_or("");
        match keyword {
            "ID" => self.game_id = numbers(line, 1, Some(1))?[0],
            "PLAYERS" => {
                self.names = line
                    .split_ascii_whitespace()
                    .skip(1)
                    .map(str::to_owned)
                    .collect()
            }
            "PLAYER" => self.seat = numbers(line, 1, Some(1))?[0],
            "LEVEL" => self.level_number = numbers(line, 1, Some(1))?[0],
            "SIZE" => {
                let v = numbers(line, 1, Some(2))?;
                (self.width, self.height) = (v[0], v[1]);
            }
            "DISPLAYS" => self.displays = numbers(line, 1, Some(1))?[0],
            "MAXTICK" => self.max_tick = numbers(line, 1, Some(1))?[0],
            "BLOCKED" => {
                let v = numbers(line, 1, Some(2))?;
                self.blocked.push(Cell::new(v[0], v[1]));
            }
            "TARGETS" => self.targets = numbers(line, 1, None)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The bot side of the protocol: collects each block up to its `.`, remembers the init block,
/// and rebuilds the position from every turn block addressed to its own seat. Blocks for other
/// seats are read and ignored.
#[derive(Clone, Debug, Default)]
pub struct LabyrinthClient {
    block: Vec<String>,
    init: Option<Init>,
    last: Option<Box<Labyrinth>>,
}

impl LabyrinthClient {
    /// The position of the last turn block addressed to this bot.
    pub fn game(&self) -> Option<&Labyrinth> {
        self.last.as_deref()
    }

    /// This bot's seat, once the init block is read.
    pub fn seat(&self) -> Option<usize> {
        self.init.as_ref().map(|i| i.seat)
    }

    fn feed(&mut self, line: &str) -> Result<ClientEvent<Labyrinth>, String> {
        let line = line.trim();
        if line != "." {
            if !line.is_empty() {
                self.block.push(line.to_owned());
            }
            return Ok(ClientEvent::Pending);
        }
        let block = std::mem::take(&mut self.block);
        let first = block
            .first()
            .and_then(|l| l.split_ascii_whitespace().next())
            .unwrap_or("");
        match first {
            "ID" => {
                self.init = Some(read_init(&block)?);
                Ok(ClientEvent::Pending)
            }
            "TICK" => {
                let init = self
                    .init
                    .as_ref()
                    .ok_or("a turn block came before the init block")?;
                match read_turn(init, &block)? {
                    Some(game) => {
                        self.last = Some(Box::new(game.clone()));
                        Ok(ClientEvent::YourTurn(game))
                    }
                    None => Ok(ClientEvent::Pending),
                }
            }
            "END" => Ok(ClientEvent::End),
            // The after-game block (SCORE), a login reply (MESSAGE), anything newer: not a turn.
            _ => Ok(ClientEvent::Pending),
        }
    }
}

/// The numbers of `line` after its first `skip` words, `count` of them if given; a number too
/// big for `T` is refused like a word.
fn numbers<T: std::str::FromStr>(
    line: &str,
    skip: usize,
    count: Option<usize>,
) -> Result<Vec<T>, String> {
    let values = line
        .split_ascii_whitespace()
        .skip(skip)
        .map(|w| w.parse::<T>())
        .collect::<Result<Vec<T>, _>>()
        .map_err(|_| format!("expected numbers in `{}`", shorten(line, QUOTE_LIMIT)))?;
    if let Some(count) = count
        && values.len() != count
    {
        return Err(format!(
            "expected {count} numbers in `{}`",
            shorten(line, QUOTE_LIMIT)
        ));
    }
    Ok(values)
}

/// The init block as a bot needs it: lines it does not know are skipped, and what it cannot
/// play without is checked.
fn read_init(block: &[String]) -> Result<Init, String> {
    let mut init = Init::default();
    for line in block {
        init.read_line(line)?;
    }
    let sides = level::MIN_SIDE..=level::MAX_SIDE;
    if !sides.contains(&init.width) || !sides.contains(&init.height) {
        return Err(format!(
            "SIZE {} {} is not a Labyrinth board",
            init.width, init.height
        ));
    }
    if init.displays == 0 || init.displays > 128 || init.targets.len() != init.displays {
        return Err(format!(
            "DISPLAYS {} with {} TARGETS",
            init.displays,
            init.targets.len()
        ));
    }
    if init.names.is_empty() || init.names.len() > MAX_SEATS || init.seat >= init.names.len() {
        return Err(format!(
            "PLAYER {} among {} PLAYERS",
            init.seat,
            init.names.len()
        ));
    }
    Ok(init)
}

/// The position a turn block describes, if it is this bot's turn (the block has the private
/// part and names its seat).
fn read_turn(init: &Init, block: &[String]) -> Result<Option<Labyrinth>, String> {
    let (w, h) = (init.width, init.height);
    let players = init.names.len();
    let mut round = 0u32;
    let mut tiles = Vec::new();
    let mut displays = vec![Cell::new(0, 0); init.displays];
    let mut active = 0u128;
    let mut positions = vec![Cell::new(0, 0); players];
    let mut on_turn = None;
    let mut private = false;
    let (mut code, mut extra, mut score) = (Code::Ok, 15u8, 0u32);
    let on_board = |x: u64, y: u64| -> Result<Cell, String> {
        if x as usize >= w || y as usize >= h {
            return Err(format!("cell {x} {y} is off the {w}×{h} board"));
        }
        Ok(Cell::new(x as u8, y as u8))
    };
    for line in block {
        let keyword = line.split_ascii_whitespace().next().unwrap_or("");
        match keyword {
            "TICK" => round = numbers::<u64>(line, 1, Some(1))?[0] as u32,
            "FIELDS" => {
                tiles = numbers::<u64>(line, 1, Some(w * h))?
                    .into_iter()
                    .map(|t| t as u8 & 15)
                    .collect()
            }
            "DISPLAY" => {
                let v = numbers::<u64>(line, 1, Some(3))?;
                let d = v[0] as usize;
                if d >= init.displays {
                    return Err(format!("display {d} of {}", init.displays));
                }
                displays[d] = on_board(v[1], v[2])?;
                active |= 1 << d;
            }
            "POSITION" => {
                let v = numbers::<u64>(line, 1, Some(3))?;
                let s = v[0] as usize;
                if s >= players {
                    return Err(format!("POSITION of seat {s} among {players} players"));
                }
                positions[s] = on_board(v[1], v[2])?;
            }
            "PLAYER" => on_turn = Some(numbers::<u64>(line, 1, Some(1))?[0] as usize),
            "MESSAGE" => {
                private = true;
                let token = line.split_ascii_whitespace().nth(1).unwrap_or("");
                code = Code::parse(token).unwrap_or(Code::Ok);
            }
            "EXTRAFIELD" => {
                private = true;
                extra = numbers::<u64>(line, 1, Some(1))?[0] as u8 & 15;
            }
            "GAMESCORE" => {
                private = true;
                score = numbers::<u64>(line, 1, Some(1))?[0] as u32;
            }
            "TARGET" => private = true,
            _ => {}
        }
    }
    let on_turn = on_turn.ok_or("a turn block without PLAYER")?;
    if !private || on_turn != init.seat {
        return Ok(None);
    }
    if tiles.len() != w * h {
        return Err("a turn block without FIELDS".to_owned());
    }
    // Other seats' targets are secret: they get the displays in index order.
    let targets = (0..players)
        .map(|s| {
            if s == init.seat {
                init.targets.clone()
            } else {
                (0..init.displays as u8).collect()
            }
        })
        .collect();
    let level = Level::unchecked(
        w,
        h,
        tiles.clone(),
        init.blocked.clone(),
        displays.clone(),
        init.max_tick,
        targets,
        positions.clone(),
    );
    let mut game = Labyrinth {
        level: Arc::new(level),
        settings: Arc::new(Settings {
            game_id: init.game_id,
            level_number: init.level_number,
            names: init.names.clone(),
            session: SessionMode::Alone,
        }),
        players,
        tiles,
        positions: [0; MAX_SEATS],
        extras: [15; MAX_SEATS],
        scores: [0; MAX_SEATS],
        codes: [Code::Ok; MAX_SEATS],
        next_target: [0; MAX_SEATS],
        display_cells: displays
            .iter()
            .map(|c| (c.y as usize * w + c.x as usize) as u16)
            .collect(),
        active,
        turns: round * players as u32 + on_turn as u32,
        end: None,
    };
    for (s, c) in positions.iter().enumerate() {
        game.positions[s] = (c.y as usize * w + c.x as usize) as u16;
    }
    game.extras[init.seat] = extra;
    game.scores[init.seat] = score;
    game.codes[init.seat] = code;
    game.advance_targets();
    Ok(Some(game))
}

impl WireClient for Labyrinth {
    type Client = LabyrinthClient;

    fn client_feed(client: &mut LabyrinthClient, line: &str) -> Result<ClientEvent<Self>, String> {
        client.feed(line)
    }
}
