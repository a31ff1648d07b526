//! Built-in robots: players that run in process (fast tournaments, empty seats on a server) and,
//! through `arbiter bot GAME NAME`, as processes speaking the game's wire protocol.

#![warn(missing_docs)]

pub mod domino;
pub mod labyrinth;
pub mod puoribor;
pub mod quoridor;

use arbiter_games::{Game, Robot};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The robots a game offers, by name.
pub trait Robots: Game {
    /// Names accepted by [`Robots::robot`], weakest first.
    const ROBOTS: &'static [&'static str];

    /// A robot of that name, seeded so that it plays the same way for the same seed.
    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>>;
}

/// Plays a uniformly random legal action; works for every game.
pub struct RandomRobot<G: Game> {
    rng: SmallRng,
    actions: Vec<G::Action>,
}

impl<G: Game> RandomRobot<G> {
    /// A random robot whose choices follow `seed`.
    pub fn new(seed: u64) -> Self {
        RandomRobot {
            rng: SmallRng::seed_from_u64(seed),
            actions: Vec::new(),
        }
    }
}

impl<G: Game> Robot<G> for RandomRobot<G> {
    fn choose(&mut self, game: &G) -> G::Action {
        use rand::Rng;
        game.legal_actions(&mut self.actions);
        assert!(
            !self.actions.is_empty(),
            "a robot is only asked to act when it has a legal action"
        );
        self.actions[self.rng.random_range(0..self.actions.len())]
    }
}
