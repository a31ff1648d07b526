//! The blocks of a log: the init block, the turn blocks and `SCORE`.

use arbiter_games::labyrinth::{Cell, Init};

use super::ImportError;

/// The part of a turn block only the seat on turn gets.
#[derive(Clone, Debug)]
pub(super) struct Private {
    pub message: String,
    pub target: Option<usize>,
    pub score: u32,
}

/// A turn block.
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// Line of the log its TICK is on.
    pub line: usize,
    pub tick: u32,
    pub fields: Vec<u8>,
    pub displays: Vec<(usize, Cell)>,
    pub positions: Vec<Cell>,
    pub player: usize,
    pub private: Option<Private>,
    /// The block as received, for the debug panel.
    pub text: String,
}

#[derive(Debug)]
pub(super) struct Log {
    pub init: Init,
    pub blocks: Vec<Block>,
    /// `SCORE s st sf`: the logging seat's points in this game.
    pub score: Option<u32>,
}

/// Lines of one block, each with its line number.
type Lines<'a> = Vec<(usize, &'a str)>;

fn at_line(line: usize, problem: impl Into<String>) -> ImportError {
    ImportError::Line {
        line,
        problem: problem.into(),
    }
}

fn numbers<T: std::str::FromStr>(words: &[&str], line: usize) -> Result<Vec<T>, ImportError> {
    words
        .iter()
        .map(|w| {
            w.parse()
                .map_err(|_| at_line(line, format!("`{w}` is not a number")))
        })
        .collect()
}

pub(super) fn cell(x: usize, y: usize) -> Cell {
    Cell::new(x as u8, y as u8)
}

/// The blocks of a log: blocks end with a line holding `.`; empty lines are skipped.
fn blocks(text: &str) -> Vec<Lines<'_>> {
    let mut blocks = Vec::new();
    let mut current = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line == "." {
            if !current.is_empty() {
                blocks.push(std::mem::take(&mut current));
            }
            continue;
        }
        current.push((i + 1, line));
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    blocks
}

pub(super) fn parse(text: &str) -> Result<Log, ImportError> {
    let mut init: Option<Init> = None;
    let mut turns = Vec::new();
    let mut score = None;
    for lines in blocks(text) {
        let (first, head) = lines[0];
        let mut words = head.split_whitespace();
        match words.next().unwrap_or("") {
            "ID" if init.is_none() => init = Some(parse_init(&lines)?),
            "TICK" => {
                let init = init
                    .as_ref()
                    .ok_or_else(|| at_line(first, "a turn block before the init block"))?;
                turns.push(parse_block(&lines, init)?);
            }
            "SCORE" => {
                let points = words.next().and_then(|w| w.parse().ok());
                score = Some(points.ok_or_else(|| at_line(first, "SCORE without a number"))?);
            }
            // Login answers, NEXTSTART and END carry nothing about the game.
            _ => {}
        }
    }
    let init = init.ok_or(ImportError::NoInit)?;
    if turns.is_empty() {
        return Err(ImportError::NoTurns);
    }
    Ok(Log {
        init,
        blocks: turns,
        score,
    })
}

/// The init block with nothing unknown in it and nothing missing but BLOCKED: a log the
/// importer does not fully understand is not trusted.
fn parse_init(lines: &[(usize, &str)]) -> Result<Init, ImportError> {
    let mut init = Init::default();
    let mut seen = Vec::new();
    for &(n, line) in lines {
        let keyword = line.split_whitespace().next().unwrap_or("");
        if !init.read_line(line).map_err(|e| at_line(n, e))? {
            return Err(at_line(n, format!("`{keyword}` in the init block")));
        }
        seen.push(keyword);
    }
    let keywords = [
        "ID", "PLAYERS", "PLAYER", "LEVEL", "SIZE", "DISPLAYS", "MAXTICK", "TARGETS",
    ];
    match keywords.into_iter().find(|k| !seen.contains(k)) {
        Some(keyword) => Err(ImportError::InitMissing {
            line: lines[0].0,
            keyword,
        }),
        None => Ok(init),
    }
}

/// The lines of a turn block as read, before the block is checked whole.
#[derive(Default)]
struct Parts {
    tick: Option<u32>,
    fields: Option<Vec<u8>>,
    displays: Vec<(usize, Cell)>,
    positions: Vec<Option<Cell>>,
    player: Option<usize>,
    message: Option<String>,
    target: Option<usize>,
    extra: Option<u8>,
    score: Option<u32>,
    text: String,
}

impl Parts {
    /// Reads line `n` of a turn block.
    fn read(&mut self, n: usize, line: &str, init: &Init) -> Result<(), ImportError> {
        self.text.push_str(line);
        self.text.push('\n');
        let words: Vec<&str> = line.split_whitespace().collect();
        let args = &words[1..];
        let on_board = |x: usize, y: usize| {
            if x >= init.width || y >= init.height {
                let size = format!("{}×{}", init.width, init.height);
                return Err(at_line(n, format!("({x}, {y}) is off the {size} board")));
            }
            Ok(cell(x, y))
        };
        fn first<T: std::str::FromStr + Copy>(
            words: &[&str],
            n: usize,
        ) -> Result<Option<T>, ImportError> {
            numbers(words, n).map(|v: Vec<T>| v.first().copied())
        }
        match words[0] {
            "TICK" => self.tick = Some(first(args, n)?.unwrap_or(0)),
            "FIELDS" => self.fields = Some(fields(args, n, init)?),
            "DISPLAY" => match numbers::<usize>(args, n)?[..] {
                [d, x, y] if d < init.displays => self.displays.push((d, on_board(x, y)?)),
                _ => {
                    let limit = init.displays;
                    let problem = format!("DISPLAY takes a display below {limit} and a cell");
                    return Err(at_line(n, problem));
                }
            },
            "POSITION" => match numbers::<usize>(args, n)?[..] {
                [s, x, y] if s < self.positions.len() => self.positions[s] = Some(on_board(x, y)?),
                _ => {
                    let limit = self.positions.len();
                    let problem = format!("POSITION takes a seat below {limit} and a cell");
                    return Err(at_line(n, problem));
                }
            },
            "PLAYER" => self.player = first(args, n)?,
            "MESSAGE" => self.message = Some(args.join(" ")),
            "TARGET" => self.target = first(args, n)?,
            "EXTRAFIELD" => self.extra = first(args, n)?,
            "GAMESCORE" => self.score = first(args, n)?,
            other => return Err(at_line(n, format!("`{other}` in a turn block"))),
        }
        Ok(())
    }

    /// The block, if every line it needs was there.
    fn block(self, first: usize, seats: usize) -> Result<Block, ImportError> {
        let private = match (self.message, self.extra, self.score) {
            // EXTRAFIELD is checked with the rest of the block in pass 2.
            (Some(message), Some(_), Some(score)) => Some(Private {
                message,
                target: self.target,
                score,
            }),
            (None, None, None) => None,
            _ => {
                let problem = "MESSAGE, EXTRAFIELD and GAMESCORE come together or not at all";
                return Err(at_line(first, problem));
            }
        };
        let player = self.player.filter(|&p| p < seats);
        let player =
            player.ok_or_else(|| at_line(first, "the block names no seat on turn (PLAYER)"))?;
        let positions = self.positions.into_iter().enumerate();
        Ok(Block {
            line: first,
            tick: self.tick.ok_or_else(|| at_line(first, "no TICK"))?,
            fields: self.fields.ok_or_else(|| at_line(first, "no FIELDS"))?,
            displays: self.displays,
            positions: positions
                .map(|(s, p)| p.ok_or_else(|| at_line(first, format!("no POSITION of seat {s}"))))
                .collect::<Result<_, _>>()?,
            player,
            private,
            text: self.text,
        })
    }
}

/// The tiles of a FIELDS line, one per cell of the board.
fn fields(args: &[&str], n: usize, init: &Init) -> Result<Vec<u8>, ImportError> {
    let tiles = numbers::<u8>(args, n)?;
    let (w, h) = (init.width, init.height);
    if tiles.len() != w * h {
        let problem = format!(
            "FIELDS has {} tiles, SIZE {w} {h} needs {}",
            tiles.len(),
            w * h
        );
        return Err(at_line(n, problem));
    }
    Ok(tiles)
}

fn parse_block(lines: &[(usize, &str)], init: &Init) -> Result<Block, ImportError> {
    let seats = init.names.len();
    let mut parts = Parts {
        positions: vec![None; seats],
        ..Parts::default()
    };
    for &(n, line) in lines {
        parts.read(n, line, init)?;
    }
    parts.block(lines[0].0, seats)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INIT: &str = "ID 7\nPLAYERS a b\nPLAYER 0\nLEVEL 1\nSIZE 2 2\nDISPLAYS 1\n\
                        MAXTICK 5\nTARGETS 0\n.\n";

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn blocks_and_their_lines() {
        let log = parse(&format!(
            "{INIT}TICK 0\nFIELDS 1 2 3 4\nDISPLAY 0 1 1\nPOSITION 0 0 0\nPOSITION 1 1 0\n\
             PLAYER 1\n.\nSCORE 3 1 2\n.\n"
        ))
        .unwrap();
        assert_eq!(log.init.names.len(), 2);
        assert_eq!(log.score, Some(3));
        let block = &log.blocks[0];
        assert_eq!((block.line, block.tick, block.player), (10, 0, 1));
        assert_eq!(block.fields, [1, 2, 3, 4]);
        assert_eq!(block.positions, [cell(0, 0), cell(1, 0)]);
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        assert_eq!(error(""), "the log has no init block (ID, PLAYERS, …)");
        assert_eq!(error(INIT), "the log has no turn block (TICK, FIELDS, …)");
        assert_eq!(
            error("TICK 0\n.\n"),
            "line 1: a turn block before the init block"
        );
        assert_eq!(
            error("ID 7\nPLAYERS a b\n.\n"),
            "the init block at line 1 has no PLAYER"
        );
        assert_eq!(
            error("ID 7\nCOLOUR red\n.\n"),
            "line 2: `COLOUR` in the init block"
        );
        let turn = |body: &str| error(&format!("{INIT}TICK 0\n{body}.\n"));
        assert_eq!(turn("FIELDS 1 2 x 4\n"), "line 11: `x` is not a number");
        assert_eq!(
            turn("FIELDS 1 2 3\n"),
            "line 11: FIELDS has 3 tiles, SIZE 2 2 needs 4"
        );
        assert_eq!(
            turn("POSITION 0 2 0\n"),
            "line 11: (2, 0) is off the 2×2 board"
        );
        assert_eq!(
            turn("DISPLAY 1 0 0\n"),
            "line 11: DISPLAY takes a display below 1 and a cell"
        );
        assert_eq!(turn("PLAYER 1\n"), "line 10: no FIELDS");
        assert_eq!(turn("WALL 1\n"), "line 11: `WALL` in a turn block");
        assert_eq!(
            error(&format!("{INIT}TICK 0\nFIELDS 1 2 3 4\nPLAYER 0\n.\n")),
            "line 10: no POSITION of seat 0"
        );
        assert_eq!(
            error(&format!("{INIT}TICK 0\nPLAYER 0\nMESSAGE OK\n.\n")),
            "line 10: MESSAGE, EXTRAFIELD and GAMESCORE come together or not at all"
        );
        assert_eq!(
            error(&format!("{INIT}TICK 0\nPLAYER 2\n.\n")),
            "line 10: the block names no seat on turn (PLAYER)"
        );
        assert_eq!(
            error(&format!("{INIT}SCORE many\n.\n")),
            "line 10: SCORE without a number"
        );
    }
}
