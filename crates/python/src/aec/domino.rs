//! Domino as an environment. Action indices on an `n` × `n` board: `2·(y·n + x)` covers
//! `(x, y)` and its right neighbour `((x + 1) mod n, y)`, `2·(y·n + x) + 1` covers `(x, y)` and
//! the cell below, `(x, (y + 1) mod n)` (the edges wrap, docs/games/domino.md).

use arbiter_games::PlayerId;
use arbiter_games::domino::{Cell, Domino, Placement, Settings};
use numpy::ndarray::Array3;
use pyo3::PyResult;

use super::picture::{FLOOR, Grid, WALL, seat_colour};
use super::{Encoding, turn_line, value_error};

pub(super) fn new(size: u8, seed: u64) -> PyResult<Domino> {
    let settings = Settings::seeded(size, seed).map_err(|e| value_error(e.to_string()))?;
    Domino::new(settings).map_err(|e| value_error(e.to_string()))
}

impl Encoding for Domino {
    fn action_count(&self) -> usize {
        let n = self.size() as usize;
        2 * n * n
    }

    fn decode(&self, index: usize) -> Option<Placement> {
        let n = u16::from(self.size());
        let cell = u16::try_from(index / 2).ok().filter(|&c| c < n * n)?;
        let (x, y) = (cell % n, cell / n);
        let b = match index % 2 {
            0 => Cell::new((x + 1) % n, y),
            _ => Cell::new(x, (y + 1) % n),
        };
        Some(Placement::new(Cell::new(x, y), b))
    }

    fn encode(&self, placement: Placement) -> Option<usize> {
        let n = self.size() as usize;
        let p = placement.canonical(self.size());
        let vertical = usize::from(p.a.x == p.b.x);
        Some(2 * (p.a.y as usize * n + p.a.x as usize) + vertical)
    }

    fn shape(&self) -> (usize, usize, usize) {
        let n = self.size() as usize;
        (2, n, n)
    }

    /// Planes: free cells, then obstacles (a cell in neither is covered by a domino). Both
    /// players see the same board.
    fn observe(&self, _player: PlayerId, out: &mut Array3<f32>) {
        for y in 0..self.size() {
            for x in 0..self.size() {
                let cell = Cell::new(u16::from(x), u16::from(y));
                if self.is_free(cell) {
                    out[[0, y as usize, x as usize]] = 1.0;
                }
            }
        }
        for c in &self.settings().obstacles {
            out[[1, c.y as usize, c.x as usize]] = 1.0;
        }
    }

    /// `.` free, `X` an obstacle, `#` covered.
    fn render(&self) -> String {
        let mut text = String::new();
        for y in 0..u16::from(self.size()) {
            for x in 0..u16::from(self.size()) {
                let cell = Cell::new(x, y);
                text.push(if self.is_free(cell) {
                    '.'
                } else if self.settings().obstacles.contains(&cell) {
                    'X'
                } else {
                    '#'
                });
            }
            text.push('\n');
        }
        if let Some(p) = self.last_placement() {
            text.push_str(&format!("last placement: {p}\n"));
        }
        text + &turn_line(self)
    }

    /// Free cells light, obstacles dark, covered cells grey, the last domino in the colour
    /// of the player who placed it.
    fn paint(&self) -> Grid {
        const COVERED: [u8; 3] = [150, 150, 160];
        let n = self.size() as usize;
        let mut grid = Grid::new(n, n, FLOOR);
        for y in 0..n {
            for x in 0..n {
                let cell = Cell::new(x as u16, y as u16);
                if !self.is_free(cell) {
                    grid.cell(x, y, COVERED);
                }
            }
        }
        for c in &self.settings().obstacles {
            grid.cell(c.x.into(), c.y.into(), WALL);
        }
        if let Some(p) = self.last_placement() {
            let placed_by = seat_colour(1 - self.current());
            for c in [p.a, p.b] {
                grid.cell(c.x.into(), c.y.into(), placed_by);
            }
        }
        grid
    }
}
