//! Puoribor as an environment. Action indices are those of the `fights` mask flattened:
//! `kind·81 + x·9 + y` (kind 0 move, 1 horizontal wall, 2 vertical wall, 3 rotation), and the
//! planes are indexed `[plane, x, y]` as `fights` indexes its board.

use arbiter_batch::BatchGame;
use arbiter_games::PlayerId;
use arbiter_games::puoribor::{Action, Puoribor, START_WALLS};
use numpy::ndarray::Array3;
use pyo3::PyResult;

use super::picture::{FLOOR, Grid, seat_colour};
use super::{Encoding, observe_scaled, turn_line, value_error};

pub(super) fn new(max_ticks: u32) -> PyResult<Puoribor> {
    if max_ticks == 0 {
        return Err(value_error("max_ticks must be at least 1"));
    }
    Ok(Puoribor::with_max_ticks(max_ticks))
}

impl Encoding for Puoribor {
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
        (10, 9, 9)
    }

    /// The batched environment's planes, with the walls left over the 10 each player starts
    /// with.
    fn observe(&self, player: PlayerId, out: &mut Array3<f32>) {
        let start = f32::from(START_WALLS);
        observe_scaled(
            self,
            player,
            out,
            |plane| if plane >= 8 { start } else { 1.0 },
        );
    }

    fn render(&self) -> String {
        let walls = [0, 1].map(|p| self.walls_remaining(p));
        format!(
            "{self}player 0: {} walls left\nplayer 1: {} walls left\n{}",
            walls[0],
            walls[1],
            turn_line(self)
        )
    }

    /// Wall segments in the colour of the seat that placed them; a whole wall's halves
    /// joined at its midpoint.
    fn paint(&self) -> Grid {
        let board = self.board();
        let mut grid = Grid::new(9, 9, FLOOR);
        for seat in 0..2 {
            let (x, y) = self.pawn(seat);
            grid.token(x.into(), y.into(), 3, seat_colour(seat));
        }
        let owner = |value: u8| seat_colour(usize::from(value - 1));
        for (x, y) in (0..9).flat_map(|x| (0..9).map(move |y| (x, y))) {
            let (below, right) = (board[2][x][y], board[3][x][y]);
            if below != 0 {
                grid.wall_below(x, y, 1, owner(below));
                if board[4][x][y] == 1 {
                    grid.joint(x, y, owner(below));
                }
            }
            if right != 0 {
                grid.wall_right(x, y, 1, owner(right));
                if board[5][x][y] == 1 {
                    grid.joint(x, y, owner(right));
                }
            }
        }
        grid
    }
}
