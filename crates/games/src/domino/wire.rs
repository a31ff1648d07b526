//! The bot protocol of docs/games/domino.md#protocol with the decisions of docs/games/domino.md#differences-from-the-original-judges, and its bot side.

use std::fmt::Write as _;
use std::time::Duration;

use super::*;
use crate::{
    ClientEvent, ExtraLines, Fault, FaultAction, Protocol, StartRounds, TimeControl, Wire,
    WireClient, shorten,
};

/// The acknowledgement of each start message.
pub const ACK: &str = "ok";
/// Every reply must come within this (docs/games/domino.md#time).
pub const REPLY_LIMIT: Duration = Duration::from_millis(500);
/// Extra time for a bot's first reply (its first `ok`), for its start-up.
pub const STARTUP_ALLOWANCE: Duration = Duration::from_millis(2000);

/// Longest piece of a bot's answer quoted back in an error text.
const QUOTE_LIMIT: usize = 60;

impl Domino {
    /// The obstacle list line: `{x;y}` items joined by `,`, in row-major order (empty when
    /// there are none), each as `{y;x}` under `legacy_obstacle_order`.
    pub fn write_obstacles(&self, out: &mut String) {
        let legacy = self.settings.legacy_obstacle_order;
        for (i, c) in self.settings.obstacles.iter().enumerate() {
            let (first, second) = if legacy { (c.y, c.x) } else { (c.x, c.y) };
            let comma = if i == 0 { "" } else { "," };
            write!(out, "{comma}{{{first};{second}}}").expect("writing to a String");
        }
    }
}

impl Wire for Domino {
    /// Two start messages (the size, then the obstacle list), each acknowledged with `ok`; the
    /// judge reads one line per request, so a second line sent with an answer is the next
    /// answer (docs/games/domino.md#faults).
    const PROTOCOL: Protocol = Protocol {
        extra_lines: ExtraLines::NextReply,
        start: StartRounds {
            rounds: 2,
            ack: Some(ACK),
        },
        ..Protocol::lines(TimeControl::PerReply {
            limit: REPLY_LIMIT,
            first_extra: STARTUP_ALLOWANCE,
        })
    };

    fn start_message(&self, round: usize, _player: PlayerId, out: &mut String) {
        match round {
            0 => writeln!(out, "{}", self.n).expect("writing to a String"),
            _ => {
                self.write_obstacles(out);
                out.push('\n');
            }
        }
    }

    /// The start token on the first turn of the match, then the opponent's last placement in
    /// the order it gave the cells.
    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        match self.last {
            None => out.push_str(self.settings.start_token.as_str()),
            Some(p) => write!(out, "{p}").expect("writing to a String"),
        }
        out.push('\n');
    }

    /// Nothing: the judge just closes the bots' input (docs/games/domino.md#the-end-of-a-match).
    fn end_message(&self, _player: PlayerId, _out: &mut String) {}

    fn parse_action(&self, line: &str) -> Result<Placement, String> {
        parse_move(line)
    }

    fn format_action(&self, p: Placement, out: &mut String) {
        write!(out, "{p}").expect("writing to a String");
    }

    /// Every fault loses the match (docs/games/domino.md#differences-from-the-original-judges).
    fn on_fault(
        &self,
        _fault: Fault<Placement>,
        _rng: &mut dyn rand::RngCore,
    ) -> FaultAction<Placement> {
        FaultAction::Forfeit
    }
}

/// Parses a move line. After trimming it must be `{x1;y1},{x2;y2}` exactly (docs/games/domino.md#move-lines): digits
/// only, no signs or spaces, a comma between the cells. Numbers too big for a board are kept
/// (capped), so that they are illegal rather than malformed.
pub fn parse_move(line: &str) -> Result<Placement, String> {
    let text = line.trim();
    if text.is_empty() {
        return Err("empty answer: expected a move `{x1;y1},{x2;y2}`".to_owned());
    }
    let malformed = || {
        format!(
            "expected a move `{{x1;y1}},{{x2;y2}}` (no spaces), got `{}`",
            shorten(text, QUOTE_LIMIT)
        )
    };
    let mut rest = text.as_bytes();
    let a = parse_cell(&mut rest).ok_or_else(malformed)?;
    rest = rest.strip_prefix(b",").ok_or_else(malformed)?;
    let b = parse_cell(&mut rest).ok_or_else(malformed)?;
    if !rest.is_empty() {
        return Err(malformed());
    }
    Ok(Placement::new(a, b))
}

/// `{x;y}` at the start of `rest`, which is advanced past it.
fn parse_cell(rest: &mut &[u8]) -> Option<Cell> {
    *rest = rest.strip_prefix(b"{")?;
    let x = parse_number(rest)?;
    *rest = rest.strip_prefix(b";")?;
    let y = parse_number(rest)?;
    *rest = rest.strip_prefix(b"}")?;
    Some(Cell::new(x, y))
}

fn parse_number(rest: &mut &[u8]) -> Option<u16> {
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let value = rest[..digits].iter().fold(0u32, |v, &d| {
        (v * 10 + u32::from(d - b'0')).min(u32::from(u16::MAX))
    });
    *rest = &rest[digits..];
    Some(value as u16)
}

/// Parses an obstacle list line: `{x;y}` items joined by `,`, or nothing.
pub fn parse_obstacles(line: &str) -> Result<Vec<Cell>, String> {
    let text = line.trim();
    let mut cells = Vec::new();
    if text.is_empty() {
        return Ok(cells);
    }
    let mut rest = text.as_bytes();
    loop {
        let cell = parse_cell(&mut rest).ok_or_else(|| {
            format!(
                "expected an obstacle list `{{x;y}},{{x;y}},...`, got `{}`",
                shorten(text, QUOTE_LIMIT)
            )
        })?;
        cells.push(cell);
        match rest.split_first() {
            None => return Ok(cells),
            Some((b',', tail)) => rest = tail,
            Some(_) => {
                return Err(format!(
                    "expected `,` between obstacles in `{}`",
                    shorten(text, QUOTE_LIMIT)
                ));
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
enum Stage {
    #[default]
    Size,
    Obstacles {
        size: u8,
    },
    Playing(Box<Domino>),
}

/// The bot side of the protocol: answers `ok` to the start messages, then keeps the board from
/// the opponent's moves and its own.
#[derive(Clone, Debug, Default)]
pub struct DominoClient {
    stage: Stage,
}

impl DominoClient {
    /// The position as the bot knows it, once the start messages are read.
    pub fn game(&self) -> Option<&Domino> {
        match &self.stage {
            Stage::Playing(game) => Some(game),
            _ => None,
        }
    }

    fn feed(&mut self, line: &str) -> Result<ClientEvent<Domino>, String> {
        match &mut self.stage {
            Stage::Size => {
                let size: u8 = line
                    .trim()
                    .parse()
                    .map_err(|_| format!("expected the board size, got `{}`", shorten(line, 40)))?;
                check_size(size).map_err(|e| e.0)?;
                self.stage = Stage::Obstacles { size };
                Ok(ClientEvent::Acknowledge(ACK))
            }
            Stage::Obstacles { size } => {
                let obstacles = parse_obstacles(line)?;
                let settings = Settings::custom(*size, &obstacles).map_err(|e| e.0)?;
                let game = Domino::new(settings).map_err(|e| e.0)?;
                self.stage = Stage::Playing(Box::new(game));
                Ok(ClientEvent::Acknowledge(ACK))
            }
            Stage::Playing(game) => {
                let text = line.trim();
                if text.eq_ignore_ascii_case("start") {
                    if game.tick() != 0 {
                        return Err("`start` in the middle of the match".to_owned());
                    }
                } else {
                    let p = parse_move(text)?;
                    game.apply(p)
                        .map_err(|e| format!("the opponent's move {p} is illegal: {e}"))?;
                }
                Ok(ClientEvent::YourTurn((**game).clone()))
            }
        }
    }
}

impl WireClient for Domino {
    type Client = DominoClient;

    fn client_feed(client: &mut DominoClient, line: &str) -> Result<ClientEvent<Self>, String> {
        client.feed(line)
    }

    fn client_played(client: &mut DominoClient, p: Placement) {
        if let Stage::Playing(game) = &mut client.stage {
            game.apply_unchecked(p);
        }
    }
}
