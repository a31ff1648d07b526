//! Puoribor in a batch, with the action layout and observation planes of the PettingZoo
//! environment (docs/python.md): the `fights` mask flattened, `kind·81 + x·9 + y`.

use arbiter_games::puoribor::{Action, Puoribor};
use arbiter_games::{Game, PlayerId};

use crate::BatchGame;

const CELLS: usize = 81;

impl BatchGame for Puoribor {
    /// The listed legal actions: Puoribor has no cheaper record of them.
    type Legal = Vec<Action>;

    fn action_count(&self) -> usize {
        4 * CELLS
    }

    fn observation_shape(&self) -> [usize; 3] {
        [10, 9, 9]
    }

    fn list_legal(&self, legal: &mut Vec<Action>) -> u32 {
        self.legal_actions(legal);
        legal.len() as u32
    }

    fn nth_legal(&self, legal: &Vec<Action>, k: u32) -> Action {
        legal[k as usize]
    }

    fn write_mask(&self, legal: &Vec<Action>, mask: &mut [u8]) {
        mask.fill(0);
        for index in legal.iter().filter_map(|a| a.index()) {
            mask[index] = 1;
        }
    }

    /// Planes `[plane, x, y]`, as the `fights` board is indexed: `player`'s pawn, the
    /// opponent's; horizontal wall segments of `player`, of the opponent; vertical ones
    /// likewise; the midpoints of horizontal walls, of vertical walls; `player`'s walls left,
    /// the opponent's (the count, on every cell of the plane).
    fn write_observation(&self, player: PlayerId, out: &mut [u8]) {
        let board = self.board();
        out.fill(0);
        // Segment planes hold their owner's id + 1: the observer's go first.
        let mine = player as u8 + 1;
        for cell in 0..CELLS {
            let at = |channel: usize| board[channel][cell / 9][cell % 9];
            let mut set = |plane: usize| out[plane * CELLS + cell] = 1;
            if at(player) == 1 {
                set(0);
            }
            if at(1 - player) == 1 {
                set(1);
            }
            for (channel, plane) in [(2, 2), (3, 4)] {
                match at(channel) {
                    0 => {}
                    owner => set(plane + usize::from(owner != mine)),
                }
            }
            if at(4) == 1 {
                set(6);
            }
            if at(5) == 1 {
                set(7);
            }
        }
        for (plane, seat) in [player, 1 - player].into_iter().enumerate() {
            let at = (8 + plane) * CELLS;
            out[at..at + CELLS].fill(self.walls_remaining(seat));
        }
    }

    fn decode(&self, index: usize) -> Option<Action> {
        (index < 4 * CELLS).then(|| Action::from_index(index))
    }

    fn encode(&self, action: Action) -> Option<usize> {
        action.index()
    }
}
