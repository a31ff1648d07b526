//! [`Racing`] for Quoridor and Puoribor: thin adapters over the engines.

use arbiter_games::PlayerId;
use arbiter_games::puoribor::{self, Puoribor};
use arbiter_games::quoridor::{self, Orientation, Quoridor};

use super::{Racing, Shape, TickLimit, Xy};

impl Racing for Quoridor {
    const TICK_LIMIT: TickLimit = TickLimit::NearestWins;

    fn side(&self) -> u8 {
        self.board_size()
    }
    fn max_ticks(&self) -> u32 {
        self.settings().max_ticks
    }
    fn pawn_at(&self, player: PlayerId) -> Option<Xy> {
        self.pawn(player).map(|c| (c.x, c.y))
    }
    fn walls_left_of(&self, player: PlayerId) -> u32 {
        u32::from(self.walls_left(player))
    }
    fn distance_of(&self, player: PlayerId) -> Option<u32> {
        self.distance(player)
    }
    fn path_of(&self, player: PlayerId) -> Vec<Xy> {
        self.shortest_path(player)
            .into_iter()
            .map(|c| (c.x, c.y))
            .collect()
    }
    fn shape(action: quoridor::Action) -> Shape {
        match action {
            quoridor::Action::Move(c) => Shape::Step((c.x, c.y)),
            quoridor::Action::Wall(w) => Shape::Wall {
                at: (w.x, w.y),
                vertical: w.orientation == Orientation::Vertical,
            },
        }
    }
}

impl Racing for Puoribor {
    const TICK_LIMIT: TickLimit = TickLimit::Draw;

    fn side(&self) -> u8 {
        puoribor::SIZE
    }
    fn max_ticks(&self) -> u32 {
        Puoribor::max_ticks(self)
    }
    fn pawn_at(&self, player: PlayerId) -> Option<Xy> {
        Some(self.pawn(player))
    }
    fn walls_left_of(&self, player: PlayerId) -> u32 {
        u32::from(self.walls_remaining(player))
    }
    fn distance_of(&self, player: PlayerId) -> Option<u32> {
        self.distance(player)
    }
    fn path_of(&self, player: PlayerId) -> Vec<Xy> {
        self.shortest_path(player)
    }
    fn shape(action: puoribor::Action) -> Shape {
        // Legal actions are on the board, so the coordinates fit in a byte.
        let at = (action.x as u8, action.y as u8);
        match action.kind {
            puoribor::Action::MOVE => Shape::Step(at),
            puoribor::Action::HORIZONTAL => Shape::Wall {
                at,
                vertical: false,
            },
            puoribor::Action::VERTICAL => Shape::Wall { at, vertical: true },
            _ => Shape::Turn { at, size: 4 },
        }
    }
}
