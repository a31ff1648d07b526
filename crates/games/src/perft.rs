//! Perft: the number of sequences of legal actions of a given length, the standard check that a
//! move generator is both complete and correct.

use crate::Game;

/// Counts the sequences of `depth` legal actions from `game`. It follows `legal_actions` only:
/// it does not stop at a finished position, and a position where the player on turn is stuck
/// ends the sequence there.
pub fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    let mut buffers = vec![Vec::new(); depth as usize + 1];
    perft_with(game, depth, &mut buffers)
}

fn perft_with<G: Game>(game: &G, depth: u32, buffers: &mut [Vec<G::Action>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (actions, rest) = buffers.split_first_mut().expect("one buffer per level");
    game.legal_actions(actions);
    if depth == 1 {
        return actions.len() as u64;
    }
    let mut total = 0;
    for &action in actions.iter() {
        let mut next = game.clone();
        next.apply_unchecked(action);
        total += perft_with(&next, depth - 1, rest);
    }
    total
}
