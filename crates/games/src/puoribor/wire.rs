//! The bot protocol of docs/games/puoribor.md#protocol, byte for byte, and its bot side.

use std::fmt::Write as _;
use std::time::Duration;

use super::*;
use crate::{ClientEvent, Fault, FaultAction, Protocol, TimeControl, Wire, WireClient, shorten};

/// Longest piece of a bot's answer quoted back in an error text.
const QUOTE_LIMIT: usize = 60;

/// How a wall line of the protocol reads: a whole wall or a unit segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WallLineKind {
    /// `H`: a whole horizontal wall anchored at its left segment.
    Horizontal,
    /// `V`: a whole vertical wall anchored at its top segment.
    Vertical,
    /// `h`: one horizontal segment, left over from a whole wall split by a rotation.
    UnitHorizontal,
    /// `v`: one vertical segment.
    UnitVertical,
}

impl WallLineKind {
    /// The letter the protocol writes: `H`, `V`, `h` or `v`.
    pub fn letter(self) -> char {
        match self {
            WallLineKind::Horizontal => 'H',
            WallLineKind::Vertical => 'V',
            WallLineKind::UnitHorizontal => 'h',
            WallLineKind::UnitVertical => 'v',
        }
    }

    /// The kind a protocol letter names; `None` for anything else.
    pub fn from_letter(letter: &str) -> Option<WallLineKind> {
        match letter {
            "H" => Some(WallLineKind::Horizontal),
            "V" => Some(WallLineKind::Vertical),
            "h" => Some(WallLineKind::UnitHorizontal),
            "v" => Some(WallLineKind::UnitVertical),
            _ => None,
        }
    }
}

/// One wall line of the protocol, `kind x y owner`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WallLine {
    /// A whole wall or a unit segment, and its orientation.
    pub kind: WallLineKind,
    /// Column: of the anchor (left or top segment) for a whole wall, of the segment for a unit one.
    pub x: u8,
    /// Row, anchored like `x`.
    pub y: u8,
    /// The player id of the wall's owner, 0 or 1.
    pub owner: u8,
}

impl fmt::Display for WallLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.kind.letter(),
            self.x,
            self.y,
            self.owner
        )
    }
}

impl Wire for Puoribor {
    /// One line per answer; 1 s per reply, 2 s more for a bot's first reply (docs/games/puoribor.md#time).
    const PROTOCOL: Protocol = Protocol::lines(TimeControl::PerReply {
        limit: Duration::from_secs(1),
        first_extra: Duration::from_secs(2),
    });

    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        writeln!(out, "{player}\n{SIZE}").expect("writing to a String");
    }

    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        writeln!(out, "{}", self.tick).expect("writing to a String");
        for p in 0..2 {
            let (x, y) = self.pawn(p);
            writeln!(out, "{x} {y} {}", self.walls[p]).expect("writing to a String");
        }
        writeln!(out, "{}", self.wall_line_count()).expect("writing to a String");
        for line in self.wall_lines() {
            writeln!(out, "{line}").expect("writing to a String");
        }
    }

    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("-1\n");
    }

    fn parse_action(&self, line: &str) -> Result<Action, String> {
        parse_answer(line)
    }

    fn format_action(&self, action: Action, out: &mut String) {
        write!(out, "{action}").expect("writing to a String");
    }

    /// Every fault loses the match.
    fn on_fault(&self, _fault: Fault<Action>, _rng: &mut dyn rand::RngCore) -> FaultAction<Action> {
        FaultAction::Forfeit
    }
}

/// Parses `type x y`: three decimal integers separated by whitespace. Only a line that is not
/// three integers is malformed; values out of range make an illegal action, which `check`
/// explains.
pub(super) fn parse_answer(line: &str) -> Result<Action, String> {
    let text = line.trim();
    if text.is_empty() {
        return Err("empty answer: expected `type x y`, three integers".into());
    }
    let mut numbers = [0i32; 3];
    let mut count = 0;
    for token in text.split_whitespace() {
        if count == 3 {
            return Err(format!(
                "expected three integers `type x y`, got more: `{}`",
                shorten(text, QUOTE_LIMIT)
            ));
        }
        numbers[count] = token.parse().map_err(|_| {
            format!(
                "`{}` is not an integer (the answer was `{}`); expected `type x y`",
                shorten(token, QUOTE_LIMIT),
                shorten(text, QUOTE_LIMIT)
            )
        })?;
        count += 1;
    }
    if count < 3 {
        return Err(format!(
            "expected three integers `type x y`, got {count}: `{}`",
            shorten(text, QUOTE_LIMIT)
        ));
    }
    Ok(Action::from(numbers))
}

/// Where a bot is in the referee's stream of lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    Id,
    Size,
    /// Between turns: a tick, or `-1`.
    Tick,
    Pawn(usize),
    Count,
    Walls,
    Over,
}

/// The bot side of the protocol: feed it the referee's lines, get a position on every turn.
#[derive(Clone, Debug, Default)]
pub struct PuoriborClient {
    stage: Stage,
    id: usize,
    tick: u32,
    pawns: [(u8, u8); 2],
    walls_remaining: [u8; 2],
    count: usize,
    walls: Vec<WallLine>,
}

fn integers<const K: usize>(line: &str, what: &str) -> Result<[i64; K], String> {
    let mut out = [0i64; K];
    let mut tokens = line.split_whitespace();
    for slot in out.iter_mut() {
        *slot = tokens
            .next()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("expected {what}, got `{}`", shorten(line, QUOTE_LIMIT)))?;
    }
    if tokens.next().is_some() {
        return Err(format!(
            "expected {what}, got more: `{}`",
            shorten(line, QUOTE_LIMIT)
        ));
    }
    Ok(out)
}

fn in_range<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, String> {
    T::try_from(value).map_err(|_| format!("{what} {value} is out of range"))
}

impl PuoriborClient {
    /// This bot's player id, once the start message is read.
    pub fn id(&self) -> PlayerId {
        self.id
    }

    fn feed(&mut self, line: &str) -> Result<ClientEvent<Puoribor>, String> {
        match self.stage {
            Stage::Id => {
                let [id] = integers(line, "this bot's player id (0 or 1)")?;
                if !(0..2).contains(&id) {
                    return Err(format!("the player id must be 0 or 1, got {id}"));
                }
                self.id = id as usize;
                self.stage = Stage::Size;
            }
            Stage::Size => {
                let [size] = integers(line, "the board size")?;
                if size != i64::from(SIZE) {
                    return Err(format!("the board size must be {SIZE}, got {size}"));
                }
                self.stage = Stage::Tick;
            }
            Stage::Tick => {
                let [tick] = integers(line, "a tick or -1")?;
                if tick == -1 {
                    self.stage = Stage::Over;
                    return Ok(ClientEvent::End);
                }
                self.tick = in_range(tick, "tick")?;
                self.walls.clear();
                self.stage = Stage::Pawn(0);
            }
            Stage::Pawn(p) => {
                let [x, y, walls] = integers(line, "a player line `x y walls`")?;
                self.pawns[p] = (in_range(x, "x")?, in_range(y, "y")?);
                self.walls_remaining[p] = in_range(walls, "walls remaining")?;
                self.stage = if p == 0 { Stage::Pawn(1) } else { Stage::Count };
            }
            Stage::Count => {
                let [k] = integers(line, "the number of wall lines")?;
                self.count = in_range(k, "number of wall lines")?;
                if self.count == 0 {
                    return self.turn_complete();
                }
                self.stage = Stage::Walls;
            }
            Stage::Walls => {
                let mut tokens = line.split_whitespace();
                let kind = tokens
                    .next()
                    .and_then(WallLineKind::from_letter)
                    .ok_or_else(|| {
                        format!(
                            "expected a wall line `H|V|h|v x y owner`, got `{}`",
                            shorten(line, QUOTE_LIMIT)
                        )
                    })?;
                let rest: Vec<&str> = tokens.collect();
                let [x, y, owner] = integers(&rest.join(" "), "`x y owner` after the kind")?;
                self.walls.push(WallLine {
                    kind,
                    x: in_range(x, "x")?,
                    y: in_range(y, "y")?,
                    owner: in_range(owner, "owner")?,
                });
                if self.walls.len() == self.count {
                    return self.turn_complete();
                }
            }
            Stage::Over => return Ok(ClientEvent::End),
        }
        Ok(ClientEvent::Pending)
    }

    fn turn_complete(&mut self) -> Result<ClientEvent<Puoribor>, String> {
        self.stage = Stage::Tick;
        if self.tick as usize % 2 != self.id {
            return Err(format!(
                "tick {} is player {}'s turn, but this bot is player {}",
                self.tick,
                self.tick % 2,
                self.id
            ));
        }
        // The protocol does not tell a bot the tick limit.
        Puoribor::from_parts(
            self.tick,
            u32::MAX,
            self.pawns,
            self.walls_remaining,
            &self.walls,
        )
        .map(ClientEvent::YourTurn)
        .map_err(|e| format!("the referee sent an impossible position: {}", e.0))
    }
}

impl WireClient for Puoribor {
    type Client = PuoriborClient;
    fn client_feed(client: &mut PuoriborClient, line: &str) -> Result<ClientEvent<Self>, String> {
        client.feed(line.trim_end_matches('\r'))
    }
}
