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
    random_plies(game, rng, actions, u32::MAX)
}

/// [`random_playout`] for at most `most` plies: a random position part of the way into a match.
pub fn random_plies<G: Game, R: Rng + ?Sized>(
    game: &mut G,
    rng: &mut R,
    actions: &mut Vec<G::Action>,
    most: u32,
) -> u32 {
    let mut plies = 0;
    while plies < most && game.to_move().is_some() {
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

/// Plays `count` random playouts from `start` with one generator seeded by `seed`; the plies
/// played in all. What the benchmarks of every game measure.
pub fn random_playouts<G: Game>(
    start: &G,
    count: u64,
    seed: u64,
    actions: &mut Vec<G::Action>,
) -> u64 {
    use rand::SeedableRng;
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..count)
        .map(|_| u64::from(random_playout(&mut start.clone(), &mut rng, actions)))
        .sum()
}
