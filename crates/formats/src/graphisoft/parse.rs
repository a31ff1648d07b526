//! The blocks of a log: the init block, the turn blocks and `SCORE`.

use arbiter_games::labyrinth::{Cell, Init, MAX_SEATS, level};

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
/// importer does not fully understand is not trusted. Every number is checked against the
/// rules' bounds on the line it is read from, before anything is sized by it.
fn parse_init(lines: &[(usize, &str)]) -> Result<Init, ImportError> {
    let mut init = Init::default();
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for &(n, line) in lines {
        let keyword = line.split_whitespace().next().unwrap_or("");
        if !init.read_line(line).map_err(|e| at_line(n, e))? {
            return Err(at_line(n, format!("`{keyword}` in the init block")));
        }
        check_init_line(&init, keyword).map_err(|e| at_line(n, e))?;
        seen.push((keyword, n));
    }
    let keywords = [
        "ID", "PLAYERS", "PLAYER", "LEVEL", "SIZE", "DISPLAYS", "MAXTICK", "TARGETS",
    ];
    let line_of = |keyword: &str| {
        seen.iter()
            .rev()
            .find(|(k, _)| *k == keyword)
            .map(|(_, n)| *n)
    };
    if let Some(keyword) = keywords.into_iter().find(|k| line_of(k).is_none()) {
        return Err(ImportError::InitMissing {
            line: lines[0].0,
            keyword,
        });
    }
    check_init_block(&init)
        .map_err(|(keyword, problem)| at_line(line_of(keyword).unwrap_or(lines[0].0), problem))?;
    Ok(init)
}

/// Most displays a board of the largest size has (N·M/4).
const MAX_DISPLAYS: usize = level::MAX_SIDE * level::MAX_SIDE / 4;

/// The bounds of the rules on the line of `keyword` just read into `init`, alone.
fn check_init_line(init: &Init, keyword: &str) -> Result<(), String> {
    let sides = level::MIN_SIDE..=level::MAX_SIDE;
    match keyword {
        "SIZE" if !sides.contains(&init.width) || !sides.contains(&init.height) => Err(format!(
            "SIZE {} {}: both sides must be {} to {}",
            init.width,
            init.height,
            level::MIN_SIDE,
            level::MAX_SIDE
        )),
        "PLAYERS" if !(1..=MAX_SEATS).contains(&init.names.len()) => Err(format!(
            "PLAYERS names {} seats: a game has 1 to {MAX_SEATS}",
            init.names.len()
        )),
        "PLAYER" if init.seat >= MAX_SEATS => Err(format!(
            "PLAYER {}: seats are 0 to {}",
            init.seat,
            MAX_SEATS - 1
        )),
        "DISPLAYS" if !(1..=MAX_DISPLAYS).contains(&init.displays) => Err(format!(
            "DISPLAYS {}: a board has 1 to {MAX_DISPLAYS} displays",
            init.displays
        )),
        "MAXTICK" if init.max_tick == 0 || init.max_tick as usize > 2 * MAX_DISPLAYS => {
            Err(format!(
                "MAXTICK {}: a game has 1 to {} rounds",
                init.max_tick,
                2 * MAX_DISPLAYS
            ))
        }
        "BLOCKED" if init.blocked.len() > (level::MAX_SIDE - 1) / 2 => Err(format!(
            "{} BLOCKED lines: a board has at most {}",
            init.blocked.len(),
            (level::MAX_SIDE - 1) / 2
        )),
        "TARGETS" if init.targets.len() > MAX_DISPLAYS => Err(format!(
            "TARGETS lists {} displays: a board has at most {MAX_DISPLAYS}",
            init.targets.len()
        )),
        _ => Ok(()),
    }
}

/// The bounds that tie the lines of the init block together; an error names the keyword on
/// whose line it is.
fn check_init_block(init: &Init) -> Result<(), (&'static str, String)> {
    let seats = init.names.len();
    if init.seat >= seats {
        let problem = format!("PLAYER {}, but PLAYERS names {seats} seats", init.seat);
        return Err(("PLAYER", problem));
    }
    // Both sides are at most MAX_SIDE here: the product cannot overflow.
    let most = init.width * init.height / 4;
    if init.displays > most {
        let (w, h, l) = (init.width, init.height, init.displays);
        let problem = format!("DISPLAYS {l}: a {w}×{h} board has at most N·M/4 = {most}");
        return Err(("DISPLAYS", problem));
    }
    if init.max_tick as usize > 2 * init.displays {
        let (t, l) = (init.max_tick, init.displays);
        let problem = format!("MAXTICK {t} must be 1 to 2·DISPLAYS = {}", 2 * l);
        return Err(("MAXTICK", problem));
    }
    if init.targets.len() != init.displays {
        let (n, l) = (init.targets.len(), init.displays);
        let problem = format!("TARGETS lists {n} displays, DISPLAYS says {l}");
        return Err(("TARGETS", problem));
    }
    Ok(())
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
            "TICK" => {
                let tick = first(args, n)?.unwrap_or(0);
                // Rounds are 0 to MAXTICK-1: a later tick is no round of this game.
                if tick >= init.max_tick {
                    let limit = init.max_tick;
                    return Err(at_line(
                        n,
                        format!("TICK {tick} is not below MAXTICK {limit}"),
                    ));
                }
                self.tick = Some(tick);
            }
            "FIELDS" => self.fields = Some(fields(args, n, init)?),
            "DISPLAY" => match numbers::<usize>(args, n)?[..] {
                [d, ..] if self.displays.iter().any(|&(e, _)| e == d) => {
                    return Err(at_line(n, format!("display {d} is listed twice")));
                }
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

/// The tiles of a FIELDS line, one per cell of the board; counted before they are read.
fn fields(args: &[&str], n: usize, init: &Init) -> Result<Vec<u8>, ImportError> {
    let (w, h) = (init.width, init.height);
    let cells = w.checked_mul(h);
    if cells != Some(args.len()) {
        let needs = cells.map_or_else(|| "more than any board".to_string(), |c| c.to_string());
        let problem = format!(
            "FIELDS has {} tiles, SIZE {w} {h} needs {needs}",
            args.len()
        );
        return Err(at_line(n, problem));
    }
    let tiles = numbers::<u8>(args, n)?;
    if let Some(t) = tiles.iter().find(|t| !(1..=15).contains(*t)) {
        return Err(at_line(n, format!("FIELDS: tile {t} is not 1 to 15")));
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
                        MAXTICK 2\nTARGETS 0\n.\n";

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

    /// Every number of the init block is checked against the rules on its own line, before
    /// anything is sized by it: a SIZE whose product wraps to 0 once let an empty FIELDS pass.
    #[test]
    fn numbers_beyond_the_rules_are_refused_on_their_line() {
        let init = |from: &str, to: &str| error(&format!("{}TICK 0\n.\n", INIT.replace(from, to)));
        assert_eq!(
            init("SIZE 2 2", "SIZE 4294967296 4294967296"),
            "line 5: SIZE 4294967296 4294967296: both sides must be 2 to 20"
        );
        assert_eq!(
            init("SIZE 2 2", "SIZE 0 1"),
            "line 5: SIZE 0 1: both sides must be 2 to 20"
        );
        assert_eq!(
            init("SIZE 2 2", "SIZE 18446744073709551616 2"),
            "line 5: expected numbers in `SIZE 18446744073709551616 2`"
        );
        assert_eq!(
            init("DISPLAYS 1", "DISPLAYS 9223372036854775808"),
            "line 6: DISPLAYS 9223372036854775808: a board has 1 to 100 displays"
        );
        assert_eq!(
            init("DISPLAYS 1", "DISPLAYS 2"),
            "line 6: DISPLAYS 2: a 2×2 board has at most N·M/4 = 1"
        );
        assert_eq!(
            init("MAXTICK 2", "MAXTICK 4294967295"),
            "line 7: MAXTICK 4294967295: a game has 1 to 200 rounds"
        );
        assert_eq!(
            init("MAXTICK 2", "MAXTICK 3"),
            "line 7: MAXTICK 3 must be 1 to 2·DISPLAYS = 2"
        );
        assert_eq!(
            init("PLAYER 0", "PLAYER 4294967296"),
            "line 3: PLAYER 4294967296: seats are 0 to 9"
        );
        assert_eq!(
            init("PLAYER 0", "PLAYER 2"),
            "line 3: PLAYER 2, but PLAYERS names 2 seats"
        );
        assert_eq!(
            init("PLAYERS a b", &format!("PLAYERS{}", " x".repeat(100_000))),
            "line 2: PLAYERS names 100000 seats: a game has 1 to 10"
        );
        assert_eq!(
            init("TARGETS 0", "TARGETS 0 0"),
            "line 8: TARGETS lists 2 displays, DISPLAYS says 1"
        );
        assert_eq!(
            init("TARGETS 0", "TARGETS -1"),
            "line 8: expected numbers in `TARGETS -1`"
        );
        let turn = |body: &str| error(&format!("{INIT}{body}.\n"));
        assert_eq!(
            turn("TICK 4294967295\n"),
            "line 10: TICK 4294967295 is not below MAXTICK 2"
        );
        assert_eq!(
            turn("TICK 0\nFIELDS 1 2 3 0\n"),
            "line 11: FIELDS: tile 0 is not 1 to 15"
        );
        assert_eq!(
            turn("TICK 0\nDISPLAY 0 0 0\nDISPLAY 0 1 1\n"),
            "line 12: display 0 is listed twice"
        );
    }
}
