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

    /// The robot a game server seats where no player is, unless told otherwise: the
    /// strongest that answers at once (a searching robot would spend the session's time on
    /// every move). The last of [`Robots::ROBOTS`] unless the game says otherwise.
    const EMPTY_SEAT: &'static str = Self::ROBOTS[Self::ROBOTS.len() - 1];

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

/// Helpers of the robots' tests.
#[cfg(test)]
mod testing {
    use super::*;

    /// The robot `name`, with a small node budget if it searches: tests that play every robot
    /// stay quick.
    pub fn quick(name: &str) -> &str {
        if name == "strong" {
            "strong/nodes=300"
        } else {
            name
        }
    }

    /// A whole match from `game` between the robots named, seat by seat, the robot of seat `k`
    /// seeded `first_seed + k`: the actions played and the points of each seat. Panics on an
    /// illegal action, naming the robot.
    pub fn play_match<G: Robots>(
        mut game: G,
        names: &[&str],
        first_seed: u64,
    ) -> (Vec<G::Action>, Vec<f64>) {
        let mut robots: Vec<Box<dyn Robot<G>>> = names
            .iter()
            .enumerate()
            .map(|(seat, name)| G::robot(name, first_seed + seat as u64).unwrap())
            .collect();
        let mut played = Vec::new();
        while let Some(p) = game.to_move() {
            if game.is_stuck() {
                game.apply_stuck();
                continue;
            }
            let action = robots[p].choose(&game);
            game.apply(action)
                .unwrap_or_else(|e| panic!("{} played {action:?}: {e}", names[p]));
            played.push(action);
        }
        (played, game.outcome().unwrap().scores)
    }
}
