//! Labyrinth as an environment. A turn is a push and a walk, flattened into one index on a
//! `W` × `H` board:
//!
//! `index = push · (W·H) + (y·W + x)`, where `(x, y)` is where the princess walks after the
//! push (her own cell to stay), and `push = (line · 2 + p) · 4 + r`: `line` is row `k`
//! (`0..H`) or column `k` as `H + k`, `p` the direction of the protocol's `PUSH c p k t`, and the
//! tile pushed in is the player's extra tile turned `r` quarter turns (`rot` applied `r`
//! times, docs/games/labyrinth.md). A tile with fewer than four distinct turns (straights,
//! the cross) is masked at its smallest `r` only.

use arbiter_games::labyrinth::level::GENERATED_MIN;
use arbiter_games::labyrinth::{Action, Goto, Labyrinth, Level, Push, rot};
use arbiter_games::{Game, PlayerId};
use numpy::ndarray::{Array3, Axis};
use pyo3::PyResult;

use super::picture::{CELL, FLOOR, Grid, WALL, seat_colour};
use super::{Encoding, value_error};

pub(super) fn new(level: u64, players: usize) -> PyResult<Labyrinth> {
    Labyrinth::generated(level, players).map_err(|e| value_error(e.to_string()))
}

/// The first generated level from number `from` on that is `width` × `height`: each side is
/// one of seven sizes, so about one level in 49 has a given size.
pub(super) fn level_of_size(width: usize, height: usize, from: u64) -> PyResult<u64> {
    let sizes = GENERATED_MIN..GENERATED_MIN + 7;
    if !sizes.contains(&width) || !sizes.contains(&height) {
        return Err(value_error(format!(
            "generated levels are {} to {} cells wide and high, not {width} × {height}",
            sizes.start,
            sizes.end - 1
        )));
    }
    (0..100_000)
        .map(|k| from.wrapping_add(k))
        .find(|&n| {
            let level = Level::generate(n);
            (level.width, level.height) == (width, height)
        })
        .ok_or_else(|| value_error(format!("no {width} × {height} level from {from} on")))
}

/// The tile `extra` turned `r` quarter turns.
fn turned(extra: u8, r: usize) -> u8 {
    (0..r).fold(extra, |t, _| rot(t))
}

/// Number of observation planes: see [`Encoding::observe`] below.
const PLANES: usize = 14;

impl Encoding for Labyrinth {
    fn action_count(&self) -> usize {
        let (w, h) = (self.width(), self.height());
        (w + h) * 8 * w * h
    }

    fn decode(&self, index: usize) -> Option<Action> {
        let (w, h) = (self.width(), self.height());
        let (push, cell) = (index / (w * h), index % (w * h));
        let (line, p, r) = (push / 8, push / 4 % 2, push % 4);
        let (c, k) = match line {
            l if l < h => (0, l),
            l if l < h + w => (1, l - h),
            _ => return None,
        };
        let extra = self.extra(self.to_move()?);
        let push = Push::new(c, p as u8, k as u8, turned(extra, r));
        Some(Action::goto(push, (cell % w) as u8, (cell / w) as u8))
    }

    fn encode(&self, action: Action) -> Option<usize> {
        let (w, h) = (self.width(), self.height());
        let Action::Move {
            push,
            goto: Goto::Cell(x, y),
        } = action
        else {
            return None;
        };
        let extra = self.to_move().map_or(push.t, |s| self.extra(s));
        let r = (0..4).find(|&r| turned(extra, r) == push.t)?;
        let line = match push.c {
            0 => push.k as usize,
            _ => h + push.k as usize,
        };
        let push = (line * 2 + push.p as usize) * 4 + r;
        Some(push * w * h + y as usize * w + x as usize)
    }

    fn shape(&self) -> (usize, usize, usize) {
        (PLANES, self.height(), self.width())
    }

    /// Planes: the tile's open sides (north, west, south, east), blocked cells, the observer's
    /// princess, the other princesses, the observer's current target, the other active
    /// displays, the sides of the observer's extra tile (spread over the plane, four planes),
    /// and the rounds played over the round limit (spread).
    fn observe(&self, player: PlayerId, out: &mut Array3<f32>) {
        for y in 0..self.height() {
            for x in 0..self.width() {
                let tile = self.tile(x, y);
                for side in 0..4 {
                    out[[side, y, x]] = f32::from(tile >> side & 1);
                }
            }
        }
        for c in &self.level().blocked {
            out[[4, c.y as usize, c.x as usize]] = 1.0;
        }
        for (seat, c) in self.positions().into_iter().enumerate() {
            let plane = if seat == player { 5 } else { 6 };
            out[[plane, c.y as usize, c.x as usize]] = 1.0;
        }
        let target = self.current_target(player);
        for (d, c) in self.active_displays() {
            let plane = if Some(d) == target { 7 } else { 8 };
            out[[plane, c.y as usize, c.x as usize]] = 1.0;
        }
        let extra = self.extra(player);
        for side in 0..4 {
            let open = f32::from(extra >> side & 1);
            out.index_axis_mut(Axis(0), 9 + side).fill(open);
        }
        let progress = self.round() as f32 / self.level().max_tick.max(1) as f32;
        out.index_axis_mut(Axis(0), 13).fill(progress.min(1.0));
    }

    fn render(&self) -> String {
        super::labyrinth_text::picture(self)
    }

    /// Each tile's paths light on dark, a blocked cell's on red; active displays gold;
    /// princesses in their seat's colour (the lowest seat on top).
    fn paint(&self) -> Grid {
        const BLOCKED: [u8; 3] = [120, 30, 30];
        const DISPLAY: [u8; 3] = [250, 200, 0];
        let mut grid = Grid::new(self.width(), self.height(), WALL);
        for &c in &self.level().blocked {
            grid.cell(c.x.into(), c.y.into(), BLOCKED);
        }
        for y in 0..self.height() {
            for x in 0..self.width() {
                paint_paths(&mut grid, x, y, self.tile(x, y));
            }
        }
        for (_, c) in self.active_displays() {
            grid.token(c.x.into(), c.y.into(), 6, DISPLAY);
        }
        for (seat, c) in self.positions().into_iter().enumerate().rev() {
            grid.token(c.x.into(), c.y.into(), 5, seat_colour(seat));
        }
        grid
    }

    /// A point to the player whose walk reached its target, nothing otherwise.
    fn rewards(&self, before: &Self) -> Vec<f64> {
        self.scores()
            .iter()
            .zip(before.scores())
            .map(|(now, then)| f64::from(now - then))
            .collect()
    }
}

/// The paths of `tile` in cell `(x, y)`: a square in the middle and an arm to each open side
/// (1 north, 2 west, 4 south, 8 east).
fn paint_paths(grid: &mut Grid, x: usize, y: usize, tile: u8) {
    const PATH: usize = 8;
    const EDGE: usize = (CELL - PATH) / 2;
    let (left, top) = Grid::corner(x, y);
    let (mid_x, mid_y) = (left + EDGE, top + EDGE);
    grid.fill(mid_x, mid_y, PATH, PATH, FLOOR);
    let arms = [
        (1, mid_x, top, PATH, EDGE),
        (2, left, mid_y, EDGE, PATH),
        (4, mid_x, mid_y + PATH, PATH, EDGE),
        (8, mid_x + PATH, mid_y, EDGE, PATH),
    ];
    for (side, l, t, w, h) in arms {
        if tile & side != 0 {
            grid.fill(l, t, w, h, FLOOR);
        }
    }
}
