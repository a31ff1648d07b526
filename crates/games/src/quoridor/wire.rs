//! The bot protocol of docs/games/quoridor.md, byte for byte.

use std::fmt::Write as _;

use super::*;
use crate::{ClientEvent, Fault, FaultAction, Protocol, TimeControl, Wire, WireClient};

/// Longest piece of a bot's answer quoted back in an error text.
const QUOTE_LIMIT: usize = 60;

/// `text` in quotes, cut at `QUOTE_LIMIT` characters.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{:?}... ({} bytes)", &text[..cut], text.len()),
        None => format!("{text:?}"),
    }
}

impl Quoridor {
    fn write_players(&self, out: &mut String) {
        for p in 0..self.n as usize {
            let f = self.walls_left[p];
            match self.pawn(p) {
                Some(c) => writeln!(out, "{} {} {f}", c.x, c.y),
                None => writeln!(out, "-1 -1 {f}"),
            }
            .expect("writing to a String");
        }
    }
}

impl Wire for Quoridor {
    /// One line per answer; a late answer is dropped, never taken as the next one.
    const PROTOCOL: Protocol = Protocol::lines(TimeControl::Bank {
        initial: std::time::Duration::from_millis(1000),
        increment: std::time::Duration::from_millis(30),
    });

    fn start_message(&self, _round: usize, player: PlayerId, out: &mut String) {
        let s = self.settings();
        writeln!(out, "{}\n{player}\n{}", s.players, s.board).expect("writing to a String");
        for (cell, walls) in s.pawns.iter().zip(&s.walls) {
            writeln!(out, "{} {} {walls}", cell.x, cell.y).expect("writing to a String");
        }
    }
    /// The tick written is the one this turn will complete: the first request is tick 1.
    fn turn_message(&self, _player: PlayerId, out: &mut String) {
        writeln!(out, "{}", self.tick + 1).expect("writing to a String");
        self.write_players(out);
        writeln!(out, "{}", self.wall_count()).expect("writing to a String");
        for (w, who) in self.walls() {
            writeln!(out, "{} {} {} {who}", w.x, w.y, w.orientation.as_v())
                .expect("writing to a String");
        }
        out.push('\n');
    }
    fn end_message(&self, _player: PlayerId, out: &mut String) {
        out.push_str("-1\n\n");
    }
    fn parse_action(&self, line: &str) -> Result<Action, String> {
        parse_answer(line)
    }
    fn format_action(&self, action: Action, out: &mut String) {
        match action {
            Action::Move(c) => write!(out, "{} {}", c.x, c.y),
            Action::Wall(w) => write!(out, "{} {} {}", w.x, w.y, w.orientation.as_v()),
        }
        .expect("writing to a String");
    }
    /// The bot plays on: a random pawn move is played for it, or a random wall when it has no
    /// pawn move.
    fn on_fault(&self, _fault: Fault<Action>, rng: &mut dyn rand::RngCore) -> FaultAction<Action> {
        match self.random_fallback(rng) {
            Some(action) => FaultAction::Play(action),
            None => FaultAction::PlayAny,
        }
    }
}

/// Parses `x y` or `x y v`. Legality is `check`'s business; only what cannot be an action at all
/// (a coordinate outside `0..=255`, `v` other than 0 or 1) is refused here.
pub(super) fn parse_answer(line: &str) -> Result<Action, String> {
    let tokens: Vec<&str> = line.split_whitespace().take(4).collect();
    if tokens.is_empty() {
        return Err("empty answer: expected `x y` (move) or `x y v` (wall)".to_string());
    }
    if tokens.len() > 3 || tokens.len() < 2 {
        return Err(format!(
            "expected 2 numbers `x y` (move) or 3 numbers `x y v` (wall), got {}",
            quote(line.trim())
        ));
    }
    let mut numbers = [0i64; 3];
    for (k, token) in tokens.iter().enumerate() {
        numbers[k] = token.parse::<i64>().map_err(|_| {
            format!(
                "{} is not an integer in the answer {}",
                quote(token),
                quote(line.trim())
            )
        })?;
    }
    let coordinate = |k: usize, name: &str| {
        u8::try_from(numbers[k])
            .map_err(|_| format!("{name} = {} is not a coordinate on any board", numbers[k]))
    };
    let (x, y) = (coordinate(0, "x")?, coordinate(1, "y")?);
    if tokens.len() == 2 {
        return Ok(Action::Move(Cell::new(x, y)));
    }
    let orientation = match numbers[2] {
        0 => Orientation::Horizontal,
        1 => Orientation::Vertical,
        other => {
            return Err(format!(
                "the wall's v must be 0 (horizontal) or 1 (vertical), got {other}"
            ));
        }
    };
    Ok(Action::Wall(Wall { x, y, orientation }))
}

/// Where a bot is in the referee's stream of messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    Players,
    Id,
    Board,
    StartPawns,
    /// Between messages: a tick, `-1`, or the empty line after a turn.
    Tick,
    TurnPawns,
    WallCount,
    Walls,
    Over,
}

/// The bot side of the protocol: feed it the referee's lines, get a position on every turn.
#[derive(Clone, Debug, Default)]
pub struct QuoridorClient {
    stage: Stage,
    players: usize,
    id: usize,
    board: u8,
    start_pawns: Vec<Cell>,
    start_walls: Vec<u8>,
    tick: u32,
    pawns: Vec<Option<Cell>>,
    walls_left: Vec<u8>,
    wall_count: usize,
    walls: Vec<(Wall, PlayerId)>,
}

fn numbers(line: &str, count: usize, what: &str) -> Result<Vec<i64>, String> {
    let parsed: Result<Vec<i64>, _> = line.split_whitespace().map(str::parse::<i64>).collect();
    match parsed {
        Ok(v) if v.len() == count => Ok(v),
        _ => Err(format!("expected {what}, got {}", quote(line.trim()))),
    }
}

fn in_range<T: TryFrom<i64>>(value: i64, what: &str) -> Result<T, String> {
    T::try_from(value).map_err(|_| format!("{what} {value} is out of range"))
}

impl QuoridorClient {
    fn feed(&mut self, line: &str) -> Result<ClientEvent<Quoridor>, String> {
        match self.stage {
            Stage::Players => {
                let n = numbers(line, 1, "the number of players")?[0];
                if n != 2 && n != 4 {
                    return Err(format!("the number of players must be 2 or 4, got {n}"));
                }
                self.players = n as usize;
                self.stage = Stage::Id;
            }
            Stage::Id => {
                let id = numbers(line, 1, "this bot's player id")?[0];
                if !(0..self.players as i64).contains(&id) {
                    return Err(format!("player id {id} is not one of 0..{}", self.players));
                }
                self.id = id as usize;
                self.stage = Stage::Board;
            }
            Stage::Board => {
                let m = numbers(line, 1, "the board size")?[0];
                self.board = in_range(m, "board size")?;
                self.stage = Stage::StartPawns;
            }
            Stage::StartPawns => {
                let v = numbers(line, 3, "a start line `x y f`")?;
                self.start_pawns
                    .push(Cell::new(in_range(v[0], "x")?, in_range(v[1], "y")?));
                self.start_walls.push(in_range(v[2], "walls left")?);
                if self.start_pawns.len() == self.players {
                    self.stage = Stage::Tick;
                }
            }
            Stage::Tick => {
                if line.trim().is_empty() {
                    return Ok(ClientEvent::Pending);
                }
                let t = numbers(line, 1, "a tick or -1")?[0];
                if t == -1 {
                    self.stage = Stage::Over;
                    return Ok(ClientEvent::End);
                }
                let t: u32 = in_range(t, "tick")?;
                self.tick = t.saturating_sub(1);
                self.pawns.clear();
                self.walls_left.clear();
                self.walls.clear();
                self.stage = Stage::TurnPawns;
            }
            Stage::TurnPawns => {
                let v = numbers(line, 3, "a player line `x y f`")?;
                let pawn = if v[0] == -1 && v[1] == -1 {
                    None
                } else {
                    Some(Cell::new(in_range(v[0], "x")?, in_range(v[1], "y")?))
                };
                self.pawns.push(pawn);
                self.walls_left.push(in_range(v[2], "walls left")?);
                if self.pawns.len() == self.players {
                    self.stage = Stage::WallCount;
                }
            }
            Stage::WallCount => {
                let f = numbers(line, 1, "the number of walls")?[0];
                self.wall_count = in_range(f, "number of walls")?;
                if self.wall_count == 0 {
                    return self.turn_complete();
                }
                self.stage = Stage::Walls;
            }
            Stage::Walls => {
                let v = numbers(line, 4, "a wall line `x y v who`")?;
                let orientation = match v[2] {
                    0 => Orientation::Horizontal,
                    1 => Orientation::Vertical,
                    other => return Err(format!("wall orientation must be 0 or 1, got {other}")),
                };
                let wall = Wall {
                    x: in_range(v[0], "x")?,
                    y: in_range(v[1], "y")?,
                    orientation,
                };
                self.walls.push((wall, in_range(v[3], "wall owner")?));
                if self.walls.len() == self.wall_count {
                    return self.turn_complete();
                }
            }
            Stage::Over => {
                if line.trim().is_empty() {
                    return Ok(ClientEvent::Pending);
                }
                return Ok(ClientEvent::End);
            }
        }
        Ok(ClientEvent::Pending)
    }

    fn turn_complete(&mut self) -> Result<ClientEvent<Quoridor>, String> {
        self.stage = Stage::Tick;
        // The protocol tells a bot neither the tick limit nor who started.
        let settings = Settings {
            players: self.players as u8,
            board: self.board,
            walls: self.start_walls.clone(),
            start_player: 0,
            max_ticks: u32::MAX,
            pawns: self.start_pawns.clone(),
        };
        Quoridor::from_position(
            settings,
            self.tick,
            self.id,
            &self.pawns,
            &self.walls_left,
            &self.walls,
        )
        .map(ClientEvent::YourTurn)
        .map_err(|e| format!("the referee sent an impossible position: {}", e.0))
    }
}

impl WireClient for Quoridor {
    type Client = QuoridorClient;
    fn client_feed(client: &mut QuoridorClient, line: &str) -> Result<ClientEvent<Self>, String> {
        client.feed(line.trim_end_matches('\r'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_cut_in_errors() {
        let long = "a".repeat(1000);
        let err = parse_answer(&long).unwrap_err();
        assert!(err.len() < 200, "{err}");
        assert!(err.contains("1000 bytes"));
    }
}
