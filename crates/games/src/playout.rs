//! Uniform random playouts: the loop behind `arbiter bench` and the `random` robot's view of a game.

use rand::Rng;

use crate::Game;

/// Plays uniformly random legal actions until the match is over; a stuck player takes the turn
/// its game prescribes. Returns the number of plies played. `actions` is a reusable buffer.
pub fn random_playout<G: Game, R: Rng + ?Sized>(
    game: &mut G,
    rng: &mut R,
    actions: &mut Vec<G::Action>,
) -> u32 {
    let mut plies = 0;
    while game.to_move().is_some() {
        game.legal_actions(actions);
        if actions.is_empty() {
            game.apply_stuck();
        } else {
            let action = actions[rng.random_range(0..actions.len())];
            game.apply_unchecked(action);
        }
        plies += 1;
    }
    plies
}
