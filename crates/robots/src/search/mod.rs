//! The `strong` robot of the racing games (Quoridor, 2 and 4 players, and Puoribor): an
//! alpha-beta search with iterative deepening on a shortest-path evaluation, written once over
//! the small [`Racing`] trait that both engines implement. docs/robots.md argues the choices
//! and gives the measurements.

mod alphabeta;
mod eval;
mod games;
mod robot;
mod timing;

pub use crate::Budget;
pub use robot::Strong;

use arbiter_games::{PlayerId, Wire};

/// A cell `(x, y)`: `x` the column from the left, `y` the row from the top.
pub type Xy = (u8, u8);

/// What an action does to the board, as far as the search cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// The pawn moves to this cell.
    Step(Xy),
    /// A wall anchored at `(x, y)`: horizontal walls cut `(x,y)–(x,y+1)` and
    /// `(x+1,y)–(x+1,y+1)`, vertical ones `(x,y)–(x+1,y)` and `(x,y+1)–(x+1,y+1)` (both games
    /// write walls so).
    Wall {
        /// The anchor cell.
        at: Xy,
        /// Vertical (`v = 1` on the wire) or horizontal.
        vertical: bool,
    },
    /// A turn of the square of `size` cells whose top-left cell is `at` (Puoribor's rotation).
    Turn {
        /// The top-left cell of the square.
        at: Xy,
        /// The side of the square in cells.
        size: u8,
    },
}

impl Shape {
    /// The two cell edges a wall cuts, each as its two cells; `None` for other actions.
    pub fn cut_edges(self) -> Option<[(Xy, Xy); 2]> {
        let Shape::Wall {
            at: (x, y),
            vertical,
        } = self
        else {
            return None;
        };
        Some(if vertical {
            [((x, y), (x + 1, y)), ((x, y + 1), (x + 1, y + 1))]
        } else {
            [((x, y), (x, y + 1)), ((x + 1, y), (x + 1, y + 1))]
        })
    }
}

/// What happens when a match reaches its tick limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickLimit {
    /// The players nearest their goal share the point (Quoridor).
    NearestWins,
    /// A draw (Puoribor).
    Draw,
}

/// A race of pawns to their goals, slowed by walls: what the search needs of a game beyond
/// [`arbiter_games::Game`].
pub trait Racing: Wire {
    /// What the tick limit decides.
    const TICK_LIMIT: TickLimit;
    /// The side of the (square) board in cells.
    fn side(&self) -> u8;
    /// The tick at which the match ends without a goal.
    fn max_ticks(&self) -> u32;
    /// The player's pawn; `None` once eliminated.
    fn pawn_at(&self, player: PlayerId) -> Option<Xy>;
    /// Walls the player can still place.
    fn walls_left_of(&self, player: PlayerId) -> u32;
    /// The length of the player's shortest path to its goal; `None` once eliminated.
    fn distance_of(&self, player: PlayerId) -> Option<u32>;
    /// One shortest path of the player, from its pawn to its goal, both included.
    fn path_of(&self, player: PlayerId) -> Vec<Xy>;
    /// What `action` does.
    fn shape(action: Self::Action) -> Shape;
}

#[cfg(test)]
mod tests;
