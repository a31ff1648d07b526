//! Built-in robots: players that run in process (fast tournaments, empty seats on a server) and,
//! through `arbiter bot GAME NAME`, as processes speaking the game's wire protocol.

#![warn(missing_docs)]

pub mod domino;
pub mod labyrinth;
pub mod puoribor;
pub mod quoridor;
pub mod search;

use arbiter_games::{Game, Robot};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The robots a game offers, by name.
pub trait Robots: Game {
    /// Names accepted by [`Robots::robot`], weakest first.
    const ROBOTS: &'static [&'static str];

    /// A robot of that name, seeded so that it plays the same way for the same seed.
    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>>;

    /// Whether `name` names a robot: one of [`Robots::ROBOTS`], or a form of one with its
    /// settings (`strong/nodes=20000`).
    fn is_robot(name: &str) -> bool {
        Self::robot(name, 0).is_some()
    }
}

/// The `strong` robot of a racing game, if `name` is `strong` or `strong/nodes=N`.
fn strong<G: search::Racing>(name: &str) -> Option<Box<dyn Robot<G>>> {
    let budget = search::Budget::parse(name.strip_prefix("strong")?)?;
    Some(Box::new(search::Strong::<G>::new(budget)))
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

/// The robot `name`, with a small node budget if it searches: tests that play every robot
/// stay quick.
#[cfg(test)]
fn quick(name: &str) -> &str {
    if name == "strong" {
        "strong/nodes=300"
    } else {
        name
    }
}
