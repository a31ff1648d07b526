//! Levels: the generator of docs/games/labyrinth.md#generated-levels and hand-made levels read from text.

use std::fmt::Write as _;

use super::board::{Push, rot, same_class};
use super::{Cell, Code};

/// Most seats a level has, and most players a game has.
pub const MAX_SEATS: usize = 10;
/// Board sides of generated levels.
pub const GENERATED_MIN: usize = 14;
/// Largest board side of generated levels.
pub const GENERATED_MAX: usize = 20;
/// Board sides hand-made levels may have (docs/games/labyrinth.md#level-files).
pub const MIN_SIDE: usize = 2;
/// Largest board side of hand-made levels.
pub const MAX_SIDE: usize = 20;

/// Most displays a hand-made level has: N·M/4 of the largest board.
const MAX_DISPLAYS: usize = MAX_SIDE * MAX_SIDE / 4;

/// The random number generator of docs/games/labyrinth.md#generated-levels.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `next() mod n`, as docs/games/labyrinth.md#generated-levels draws (the small bias is part of the spec).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A level: the board and everything fixed before the first turn. Seats beyond the players of a
/// game are unused; generated levels have all ten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// N, the number of columns.
    pub width: usize,
    /// M, the number of rows.
    pub height: usize,
    /// The initial tiles, index `y * width + x`.
    pub tiles: Vec<u8>,
    /// BLOCKED cells in generator (or file) order.
    pub blocked: Vec<Cell>,
    /// The initial cell of each display, by index.
    pub displays: Vec<Cell>,
    /// T: the game ends after round T-1.
    pub max_tick: u32,
    /// TARGETS of each seat: a permutation of the display indices.
    pub targets: Vec<Vec<u8>>,
    /// The start cell of each seat.
    pub starts: Vec<Cell>,
    /// The seed it was generated from; `None` for a hand-made level.
    pub seed: Option<u64>,
    /// Rows (bit y) and columns (bit x) that hold a blocked cell: they cannot be pushed.
    blocked_rows: u32,
    blocked_columns: u32,
}

impl Level {
    /// The level docs/games/labyrinth.md#generated-levels draws from `seed` (level X of the contest uses seed X).
    pub fn generate(seed: u64) -> Level {
        let mut rng = SplitMix64::new(seed);
        let width = GENERATED_MIN + rng.below(7);
        let height = GENERATED_MIN + rng.below(7);
        let mut tiles = Vec::with_capacity(width * height);
        for _ in 0..width * height {
            let q = rng.below(20);
            let base = match q {
                0..3 => 1,
                3..10 => 3,
                10..14 => 7,
                14..18 => 5,
                _ => 15,
            };
            let mut tile = base;
            for _ in 0..rng.below(4) {
                tile = rot(tile);
            }
            tiles.push(tile);
        }

        let max_blocked = (width.min(height) - 1) / 2;
        let count = 1 + rng.below(max_blocked);
        let mut pick = |n: usize| -> Vec<usize> {
            let range = n - 1 - count;
            let mut a: Vec<usize> = (0..range).collect();
            for i in 0..count {
                let j = i + rng.below(range - i);
                a.swap(i, j);
            }
            let mut v = a[..count].to_vec();
            v.sort_unstable();
            v.iter().enumerate().map(|(i, &v)| 1 + v + i).collect()
        };
        let xs = pick(width);
        let mut ys = pick(height);
        for i in (1..count).rev() {
            let j = rng.below(i + 1);
            ys.swap(i, j);
        }
        let blocked = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| Cell::new(x as u8, y as u8))
            .collect();

        let cells = width * height;
        let displays_count = cells / 4 - rng.below(cells / 20 + 1);
        let mut a: Vec<usize> = (0..cells).collect();
        for i in 0..displays_count {
            let j = i + rng.below(cells - i);
            a.swap(i, j);
        }
        let displays: Vec<Cell> = a[..displays_count]
            .iter()
            .map(|&i| Cell::new((i % width) as u8, (i / width) as u8))
            .collect();

        let max_tick = 7 * displays_count / 4 + rng.below(displays_count / 4 + 1);

        let mut targets = Vec::with_capacity(MAX_SEATS);
        let mut starts = Vec::with_capacity(MAX_SEATS);
        for _ in 0..MAX_SEATS {
            let mut order: Vec<u8> = (0..displays_count as u8).collect();
            for i in (1..displays_count).rev() {
                let j = rng.below(i + 1);
                order.swap(i, j);
            }
            let first = displays[order[0] as usize];
            let candidates: Vec<Cell> = (0..height)
                .flat_map(|y| (0..width).map(move |x| Cell::new(x as u8, y as u8)))
                .filter(|c| first.manhattan(*c) == 5)
                .collect();
            starts.push(candidates[rng.below(candidates.len())]);
            targets.push(order);
        }

        let mut level = Level::unchecked(
            width,
            height,
            tiles,
            blocked,
            displays,
            max_tick as u32,
            targets,
            starts,
        );
        level.seed = Some(seed);
        level
    }

    /// A level from its parts, checked against docs/games/labyrinth.md#board-and-tiles with the allowances of docs/games/labyrinth.md#level-files for hand-made
    /// levels (2 ≤ N, M ≤ 20, starts anywhere).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        width: usize,
        height: usize,
        tiles: Vec<u8>,
        blocked: Vec<Cell>,
        displays: Vec<Cell>,
        max_tick: u32,
        targets: Vec<Vec<u8>>,
        starts: Vec<Cell>,
    ) -> Result<Level, String> {
        let level = Level::unchecked(
            width, height, tiles, blocked, displays, max_tick, targets, starts,
        );
        level.validate()?;
        Ok(level)
    }

    /// A level as a bot sees it, trusted without checks: displays already used sit anywhere,
    /// and other seats' targets are unknown.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn unchecked(
        width: usize,
        height: usize,
        tiles: Vec<u8>,
        blocked: Vec<Cell>,
        displays: Vec<Cell>,
        max_tick: u32,
        targets: Vec<Vec<u8>>,
        starts: Vec<Cell>,
    ) -> Level {
        let mut level = Level {
            width,
            height,
            tiles,
            blocked,
            displays,
            max_tick,
            targets,
            starts,
            seed: None,
            blocked_rows: 0,
            blocked_columns: 0,
        };
        level.index_blocked();
        level
    }

    fn index_blocked(&mut self) {
        self.blocked_rows = 0;
        self.blocked_columns = 0;
        // A cell past the masks is off every board; `new` indexes before `validate` refuses it.
        for b in &self.blocked {
            self.blocked_rows |= 1u32.checked_shl(b.y.into()).unwrap_or(0);
            self.blocked_columns |= 1u32.checked_shl(b.x.into()).unwrap_or(0);
        }
    }

    /// Checks the rules of docs/games/labyrinth.md#board-and-tiles that do not depend on the number of players.
    pub fn validate(&self) -> Result<(), String> {
        let (n, m) = (self.width, self.height);
        if !(MIN_SIDE..=MAX_SIDE).contains(&n) || !(MIN_SIDE..=MAX_SIDE).contains(&m) {
            return Err(format!(
                "SIZE {n} {m}: both sides must be {MIN_SIDE} to {MAX_SIDE}"
            ));
        }
        if self.tiles.len() != n * m {
            return Err(format!(
                "FIELDS has {} tiles, SIZE {n} {m} needs {}",
                self.tiles.len(),
                n * m
            ));
        }
        if let Some(t) = self.tiles.iter().find(|&&t| !(1..=15).contains(&t)) {
            return Err(format!("tile {t} is not 1 to 15"));
        }
        let on_board = |c: &Cell| (c.x as usize) < n && (c.y as usize) < m;
        let max_blocked = (n.min(m) - 1) / 2;
        if self.blocked.len() > max_blocked {
            return Err(format!(
                "{} BLOCKED cells, at most (min(N,M)-1) div 2 = {max_blocked} allowed",
                self.blocked.len()
            ));
        }
        for (i, b) in self.blocked.iter().enumerate() {
            if !on_board(b)
                || b.x == 0
                || b.y == 0
                || b.x as usize == n - 1
                || b.y as usize == m - 1
            {
                return Err(format!(
                    "BLOCKED {} {} must be on the board, off its border",
                    b.x, b.y
                ));
            }
            for o in &self.blocked[..i] {
                if b.x.abs_diff(o.x) < 2 || b.y.abs_diff(o.y) < 2 {
                    return Err(format!(
                        "BLOCKED {} {} and {} {} must differ by at least 2 in both x and y",
                        o.x, o.y, b.x, b.y
                    ));
                }
            }
        }
        let l = self.displays.len();
        if l == 0 || l > n * m / 4 {
            return Err(format!(
                "{l} displays: there must be 1 to N·M/4 = {}",
                n * m / 4
            ));
        }
        for (i, d) in self.displays.iter().enumerate() {
            if !on_board(d) {
                return Err(format!("display {i} at {} {} is off the board", d.x, d.y));
            }
            if let Some(j) = self.displays[..i].iter().position(|o| o == d) {
                return Err(format!("displays {j} and {i} are both at {} {}", d.x, d.y));
            }
        }
        if self.max_tick == 0 || self.max_tick as usize > 2 * l {
            return Err(format!(
                "MAXTICK {} must be 1 to 2·L = {}",
                self.max_tick,
                2 * l
            ));
        }
        if self.starts.is_empty() || self.starts.len() > MAX_SEATS {
            return Err(format!(
                "{} seats: a level has 1 to {MAX_SEATS}",
                self.starts.len()
            ));
        }
        if self.targets.len() != self.starts.len() {
            return Err(format!(
                "{} seats have a start but {} have TARGETS",
                self.starts.len(),
                self.targets.len()
            ));
        }
        for (s, start) in self.starts.iter().enumerate() {
            if !on_board(start) {
                return Err(format!(
                    "seat {s} starts at {} {}, off the board",
                    start.x, start.y
                ));
            }
        }
        for (s, order) in self.targets.iter().enumerate() {
            let mut seen = vec![false; l];
            for &d in order {
                match seen.get_mut(d as usize) {
                    Some(slot) if !*slot => *slot = true,
                    _ => {
                        return Err(format!(
                            "TARGETS of seat {s} must be a permutation of 0..{}",
                            l - 1
                        ));
                    }
                }
            }
            if order.len() != l {
                return Err(format!(
                    "TARGETS of seat {s} must be a permutation of 0..{}",
                    l - 1
                ));
            }
        }
        Ok(())
    }

    /// Number of seats the level has starts and targets for.
    pub fn seats(&self) -> usize {
        self.starts.len()
    }

    /// Number of cells, `width * height`.
    pub fn cells(&self) -> usize {
        self.width * self.height
    }

    /// Whether row `y` holds a blocked cell.
    pub fn row_blocked(&self, y: usize) -> bool {
        y < 32 && self.blocked_rows >> y & 1 == 1
    }

    /// Whether column `x` holds a blocked cell.
    pub fn column_blocked(&self, x: usize) -> bool {
        x < 32 && self.blocked_columns >> x & 1 == 1
    }

    /// Whether `push` is valid with `extra` as the pusher's extra tile, and if not, the code of
    /// docs/games/labyrinth.md#faults-and-message-codes in its order: BAD_PUSH, BAD_TILE, BLOCKED_LINE.
    pub fn push_code(&self, push: Push, extra: u8) -> Result<(), Code> {
        let k = push.k as usize;
        let lines = if push.c == 0 { self.height } else { self.width };
        if push.c > 1 || push.p > 1 || k >= lines {
            return Err(Code::BadPush);
        }
        if !same_class(extra, push.t) {
            return Err(Code::BadTile);
        }
        let blocked = if push.c == 0 {
            self.row_blocked(k)
        } else {
            self.column_blocked(k)
        };
        if blocked {
            return Err(Code::BlockedLine);
        }
        Ok(())
    }

    /// Reads a hand-made level. The format follows the protocol's blocks, one item a line,
    /// in any order; blank lines and `#` comments are ignored:
    ///
    /// ```text
    /// SIZE 4 3
    /// MAXTICK 2
    /// FIELDS 12 10 14 4 5 15 5 5 9 10 11 1
    /// BLOCKED 1 1
    /// DISPLAY 0 3 2
    /// DISPLAY 1 0 2
    /// SEAT 0 0 0 TARGETS 0 1
    /// SEAT 1 3 0 TARGETS 1 0
    /// ```
    ///
    /// `SEAT s x y TARGETS d...`: seat s starts at (x, y); seats are numbered from 0 without
    /// gaps. `FIELDS` may be split over several lines (one per row, say): their tiles are joined.
    pub fn parse(text: &str) -> Result<Level, String> {
        let mut size: Option<(usize, usize)> = None;
        let mut max_tick: Option<u32> = None;
        let mut tiles = Vec::new();
        let mut blocked = Vec::new();
        let mut displays: Vec<Option<Cell>> = Vec::new();
        let mut seats: Vec<Option<(Cell, Vec<u8>)>> = Vec::new();
        for (number, raw) in text.lines().enumerate() {
            let at = |e: String| format!("line {}: {e}", number + 1);
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_ascii_whitespace();
            let keyword = words.next().unwrap_or("");
            let rest: Vec<&str> = words.collect();
            let numbers = |count: Option<usize>| -> Result<Vec<usize>, String> {
                if let Some(count) = count
                    && rest.len() != count
                {
                    return Err(format!(
                        "{keyword} takes {count} number{}, got {}",
                        if count == 1 { "" } else { "s" },
                        rest.len()
                    ));
                }
                rest.iter()
                    .map(|w| {
                        w.parse::<usize>()
                            .ok()
                            .filter(|&v| v <= 10_000)
                            .ok_or_else(|| format!("`{w}` is not a number"))
                    })
                    .collect()
            };
            let cell = |x: usize, y: usize| -> Result<Cell, String> {
                if x > MAX_SIDE || y > MAX_SIDE {
                    return Err(format!("{x} {y} is off any board"));
                }
                Ok(Cell::new(x as u8, y as u8))
            };
            match keyword {
                "SIZE" => {
                    let v = numbers(Some(2)).map_err(at)?;
                    if size.is_some() {
                        return Err(at("SIZE given twice".into()));
                    }
                    if !(MIN_SIDE..=MAX_SIDE).contains(&v[0])
                        || !(MIN_SIDE..=MAX_SIDE).contains(&v[1])
                    {
                        return Err(at(format!(
                            "SIZE {} {}: both sides must be {MIN_SIDE} to {MAX_SIDE}",
                            v[0], v[1]
                        )));
                    }
                    size = Some((v[0], v[1]));
                }
                "MAXTICK" => {
                    let v = numbers(Some(1)).map_err(at)?;
                    max_tick = Some(v[0] as u32);
                }
                "FIELDS" => {
                    // Counted before the tiles are kept: no board has more than MAX_SIDE².
                    if tiles.len().saturating_add(rest.len()) > MAX_SIDE * MAX_SIDE {
                        return Err(at(format!(
                            "FIELDS: more than {} tiles, the cells of the largest board",
                            MAX_SIDE * MAX_SIDE
                        )));
                    }
                    for v in numbers(None).map_err(at)? {
                        if !(1..=15).contains(&v) {
                            return Err(at(format!("tile {v} is not 1 to 15")));
                        }
                        tiles.push(v as u8);
                    }
                }
                "BLOCKED" => {
                    let v = numbers(Some(2)).map_err(at)?;
                    if blocked.len() == (MAX_SIDE - 1) / 2 {
                        return Err(at(format!(
                            "more than {} BLOCKED cells, the most the largest board has",
                            (MAX_SIDE - 1) / 2
                        )));
                    }
                    blocked.push(cell(v[0], v[1]).map_err(at)?);
                }
                "DISPLAY" => {
                    let v = numbers(Some(3)).map_err(at)?;
                    if v[0] >= MAX_DISPLAYS {
                        return Err(at(format!("display index {} is too big", v[0])));
                    }
                    if displays.len() <= v[0] {
                        displays.resize(v[0] + 1, None);
                    }
                    if displays[v[0]].is_some() {
                        return Err(at(format!("display {} given twice", v[0])));
                    }
                    displays[v[0]] = Some(cell(v[1], v[2]).map_err(at)?);
                }
                "SEAT" => {
                    if rest.len() < 4 || rest[3] != "TARGETS" {
                        return Err(at("expected `SEAT s x y TARGETS d d ...`".into()));
                    }
                    let parse = |w: &str| {
                        w.parse::<usize>()
                            .ok()
                            .filter(|&v| v <= 10_000)
                            .ok_or_else(|| at(format!("`{w}` is not a number")))
                    };
                    let s = parse(rest[0])?;
                    if s >= MAX_SEATS {
                        return Err(at(format!("seat {s}: seats are 0 to {}", MAX_SEATS - 1)));
                    }
                    let start = cell(parse(rest[1])?, parse(rest[2])?).map_err(at)?;
                    if rest.len() - 4 > MAX_DISPLAYS {
                        return Err(at(format!(
                            "TARGETS of seat {s} lists {} displays, more than the {MAX_DISPLAYS} \
                             of the largest board",
                            rest.len() - 4
                        )));
                    }
                    let order = rest[4..]
                        .iter()
                        .map(|w| {
                            parse(w).and_then(|d| {
                                u8::try_from(d).map_err(|_| at(format!("no display {d}")))
                            })
                        })
                        .collect::<Result<Vec<u8>, String>>()?;
                    if seats.len() <= s {
                        seats.resize(s + 1, None);
                    }
                    if seats[s].is_some() {
                        return Err(at(format!("seat {s} given twice")));
                    }
                    seats[s] = Some((start, order));
                }
                other => {
                    return Err(at(format!(
                        "unknown line `{other}`: expected SIZE, MAXTICK, FIELDS, BLOCKED, \
                         DISPLAY or SEAT"
                    )));
                }
            }
        }
        let (width, height) = size.ok_or("no SIZE line")?;
        let max_tick = max_tick.ok_or("no MAXTICK line")?;
        let displays = displays
            .into_iter()
            .enumerate()
            .map(|(i, d)| d.ok_or_else(|| format!("display {i} is missing")))
            .collect::<Result<Vec<Cell>, String>>()?;
        let mut starts = Vec::new();
        let mut targets = Vec::new();
        for (s, seat) in seats.into_iter().enumerate() {
            let (start, order) = seat.ok_or_else(|| format!("seat {s} is missing"))?;
            starts.push(start);
            targets.push(order);
        }
        Level::new(
            width, height, tiles, blocked, displays, max_tick, targets, starts,
        )
    }

    /// The level in the format [`Level::parse`] reads, one FIELDS line per row.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        if let Some(seed) = self.seed {
            writeln!(w, "# generated from seed {seed}").unwrap();
        }
        writeln!(w, "SIZE {} {}", self.width, self.height).unwrap();
        writeln!(w, "MAXTICK {}", self.max_tick).unwrap();
        for row in self.tiles.chunks(self.width) {
            w.push_str("FIELDS");
            for t in row {
                write!(w, " {t}").unwrap();
            }
            w.push('\n');
        }
        for b in &self.blocked {
            writeln!(w, "BLOCKED {} {}", b.x, b.y).unwrap();
        }
        for (i, d) in self.displays.iter().enumerate() {
            writeln!(w, "DISPLAY {i} {} {}", d.x, d.y).unwrap();
        }
        for (s, (start, order)) in self.starts.iter().zip(&self.targets).enumerate() {
            write!(w, "SEAT {s} {} {} TARGETS", start.x, start.y).unwrap();
            for d in order {
                write!(w, " {d}").unwrap();
            }
            w.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = include_str!("../../../../examples/labyrinth/small.level");

    /// What is read is bounded on its line before it is kept, whatever the file announces.
    #[test]
    fn counts_beyond_the_largest_board_are_refused_on_their_line() {
        let error = |extra: &str| Level::parse(&format!("{SMALL}{extra}\n")).unwrap_err();
        let lines = SMALL.lines().count();
        let fields = format!("FIELDS{}", " 15".repeat(401));
        assert_eq!(
            error(&fields),
            format!(
                "line {}: FIELDS: more than 400 tiles, the cells of the largest board",
                lines + 1
            )
        );
        let targets = format!("SEAT 9 0 0 TARGETS{}", " 1".repeat(101));
        assert!(
            error(&targets).ends_with(
                "TARGETS of seat 9 lists 101 displays, more than the 100 of the largest board"
            ),
            "{}",
            error(&targets)
        );
        let blocked = "BLOCKED 1 1\n".repeat(10);
        assert!(
            error(&blocked).ends_with("more than 9 BLOCKED cells, the most the largest board has"),
            "{}",
            error(&blocked)
        );
        for size in [
            "4294967296 4294967296",
            "0 0",
            "1 21",
            "18446744073709551616 2",
        ] {
            let text = SMALL.replacen("SIZE", &format!("SIZE {size}\n# SIZE"), 1);
            let error = Level::parse(&text).unwrap_err();
            assert!(error.starts_with("line "), "{size}: {error}");
        }
    }
}
