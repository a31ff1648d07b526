//! Quoridor as an environment. Action indices on an `m` × `m` board: `y·m + x` moves the pawn
//! to `(x, y)`; then `m·m + y·(m−1) + x` places the horizontal wall anchored at `(x, y)`; then
//! `m·m + (m−1)² + y·(m−1) + x` the vertical one (docs/games/quoridor.md names the walls).

use arbiter_batch::BatchGame;
use arbiter_games::PlayerId;
use arbiter_games::quoridor::{Action, Orientation, Quoridor, Settings};
use numpy::ndarray::Array3;
use pyo3::PyResult;

use super::picture::{FLOOR, Grid, WALL, seat_colour};
use super::{Encoding, observe_scaled, turn_line, value_error};

pub(super) fn new(players: u8, board: u8) -> PyResult<Quoridor> {
    let settings = Settings::standard(players, board).map_err(|e| value_error(e.to_string()))?;
    Quoridor::new(settings).map_err(|e| value_error(e.to_string()))
}

impl Encoding for Quoridor {
    fn action_count(&self) -> usize {
        BatchGame::action_count(self)
    }

    fn decode(&self, index: usize) -> Option<Action> {
        BatchGame::decode(self, index)
    }

    fn encode(&self, action: Action) -> Option<usize> {
        BatchGame::encode(self, action)
    }

    fn shape(&self) -> (usize, usize, usize) {
        let [planes, rows, columns] = self.observation_shape();
        (planes, rows, columns)
    }

    /// The batched environment's planes, with each seat's walls left over the walls it
    /// started with (the seats in the planes' order: `player` first).
    fn observe(&self, player: PlayerId, out: &mut Array3<f32>) {
        let n = self.settings().players as usize;
        let start = &self.settings().walls;
        observe_scaled(self, player, out, |plane| match plane.checked_sub(n + 2) {
            Some(k) => f32::from(start[(player + k) % n].max(1)),
            None => 1.0,
        });
    }

    fn render(&self) -> String {
        let m = self.board_size() as usize;
        let (rows, cols) = (2 * m + 1, 4 * m + 1);
        let mut grid = vec![vec![' '; cols]; rows];
        for (r, row) in grid.iter_mut().enumerate() {
            for (c, ch) in row.iter_mut().enumerate() {
                *ch = match (r % 2 == 0, c % 4 == 0) {
                    (true, true) => '+',
                    (true, false) if r == 0 || r == rows - 1 => '-',
                    (false, true) if c == 0 || c == cols - 1 => '|',
                    _ => ' ',
                };
            }
        }
        for seat in 0..self.settings().players as usize {
            if let Some(c) = self.pawn(seat) {
                grid[2 * c.y as usize + 1][4 * c.x as usize + 2] = char::from(b'0' + seat as u8);
            }
        }
        for (wall, _) in self.walls() {
            let (x, y) = (wall.x as usize, wall.y as usize);
            match wall.orientation {
                Orientation::Horizontal => (4 * x + 1..4 * x + 8).for_each(|c| {
                    grid[2 * y + 2][c] = '-';
                }),
                Orientation::Vertical => (2 * y + 1..2 * y + 4).for_each(|r| {
                    grid[r][4 * x + 4] = '|';
                }),
            }
        }
        let mut text: String = grid
            .into_iter()
            .map(|row| row.into_iter().collect::<String>() + "\n")
            .collect();
        for seat in 0..self.settings().players as usize {
            let state = if self.is_eliminated(seat) {
                "eliminated".to_owned()
            } else {
                format!("{} walls left", self.walls_left(seat))
            };
            text.push_str(&format!("player {seat}: {state}\n"));
        }
        text.push_str(&turn_line(self));
        text
    }

    fn paint(&self) -> Grid {
        let m = usize::from(self.board_size());
        let mut grid = Grid::new(m, m, FLOOR);
        for seat in 0..usize::from(self.settings().players) {
            if let Some(c) = self.pawn(seat) {
                grid.token(c.x.into(), c.y.into(), 3, seat_colour(seat));
            }
        }
        for (wall, _) in self.walls() {
            let (x, y) = (wall.x.into(), wall.y.into());
            match wall.orientation {
                Orientation::Horizontal => grid.wall_below(x, y, 2, WALL),
                Orientation::Vertical => grid.wall_right(x, y, 2, WALL),
            }
        }
        grid
    }
}
