//! Labyrinth as an environment. A turn is a push and a walk, flattened into one index on a
//! `W` × `H` board:
//!
//! `index = push · (W·H) + (y·W + x)`, where `(x, y)` is where the princess walks after the
//! push (her own cell to stay), and `push = (line · 2 + p) · 4 + r`: `line` is row `k`
//! (`0..H`) or column `k` as `H + k`, `p` the direction of the protocol's `PUSH c p k t`, and the
//! tile pushed in is the player's extra tile turned `r` quarter turns (`rot` applied `r`
//! times, docs/games/labyrinth.md). A tile with fewer than four distinct turns (straights,
//! the cross) is masked at its smallest `r` only.

use arbiter_games::labyrinth::{Action, Goto, Labyrinth, Push, rot};
use arbiter_games::{Game, PlayerId};
use numpy::ndarray::{Array3, Axis};
use pyo3::PyResult;

use super::{Encoding, value_error};

pub(super) fn new(level: u64, players: usize) -> PyResult<Labyrinth> {
    Labyrinth::generated(level, players).map_err(|e| value_error(e.to_string()))
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

    /// A point to the player whose walk reached its target, nothing otherwise.
    fn rewards(&self, before: &Self) -> Vec<f64> {
        self.scores()
            .iter()
            .zip(before.scores())
            .map(|(now, then)| f64::from(now - then))
            .collect()
    }
}
