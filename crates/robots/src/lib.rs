//! Built-in robots: players that run in process (fast tournaments, empty seats on a server) and,
//! through `arbiter bot GAME NAME`, as processes speaking the game's wire protocol.

#![warn(missing_docs)]

pub mod domino;
pub mod labyrinth;
pub mod puoribor;
pub mod quoridor;
pub mod search;

use std::time::Instant;

use arbiter_games::{Clock, Game, Robot, TimeControl, Wire};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The robots a game offers, by name.
pub trait Robots: Game {
    /// Names accepted by [`Robots::robot`], weakest first.
    const ROBOTS: &'static [&'static str];

    /// A robot of that name, seeded so that it plays the same way for the same seed. Robots
    /// that search also take a budget suffix, `NAME/nodes=N` (see [`Budget::split`]).
    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>>;

    /// The robot that fills a game server's empty seats unless the organiser names one: one
    /// that answers at once (searching robots spend their time, and a server runs many
    /// tables); by default the last of [`Robots::ROBOTS`].
    const EMPTY_SEAT: &'static str = Self::ROBOTS[Self::ROBOTS.len() - 1];

    /// Whether [`Robots::robot`] knows `name`, budget suffix included: what the command line
    /// and tournaments check a robot's name with.
    fn is_robot(name: &str) -> bool {
        Self::robot(name, 0).is_some()
    }
}

/// The `strong` robot of a racing game, if `name` is `strong` or `strong/nodes=N`.
fn strong<G: search::Racing>(name: &str) -> Option<Box<dyn Robot<G>>> {
    match Budget::split(name)? {
        ("strong", budget) => Some(Box::new(search::Strong::<G>::new(budget))),
        _ => None,
    }
}

/// How long a searching robot thinks about a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Budget {
    /// By the match's clock: strongest, but what it finds depends on the machine.
    Clock,
    /// A fixed number of search nodes per move, whatever the clock says: the same moves on
    /// every machine, for tests and reproducible matches (a count too big for the clock
    /// times out).
    Nodes(u64),
}

impl Budget {
    /// Splits a robot name into its base name and budget: `strong` thinks by the clock,
    /// `strong/nodes=20000` by a node count. `None` when the suffix is not of that form.
    pub fn split(name: &str) -> Option<(&str, Budget)> {
        let Some((base, suffix)) = name.split_once('/') else {
            return Some((name, Budget::Clock));
        };
        let nodes = suffix.strip_prefix("nodes=")?;
        // `u64::from_str` takes a leading `+`; a budget is digits only.
        if nodes.is_empty() || !nodes.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((base, Budget::Nodes(nodes.parse().ok().filter(|&n| n > 0)?)))
    }

    /// Whether a search that has visited `nodes` nodes must stop now: past its node count,
    /// or past `deadline` by the clock (checked every 1,024 nodes: reading the time costs
    /// more than a node).
    pub fn exhausted(&self, nodes: u64, deadline: Instant) -> bool {
        match *self {
            Budget::Nodes(limit) => nodes >= limit,
            Budget::Clock => nodes.is_multiple_of(1024) && Instant::now() >= deadline,
        }
    }
}

/// A clock for one answer from now under `G`'s own time control: what a searching robot
/// asked through [`Robot::choose`], without a match clock, thinks by.
pub fn game_clock<G: Wire>() -> Clock {
    let now = Instant::now();
    let allowed = match G::PROTOCOL.time {
        TimeControl::PerReply { limit, .. } => limit,
        TimeControl::Bank { initial, .. } => initial,
    };
    Clock {
        started: now,
        deadline: now + allowed,
        control: G::PROTOCOL.time,
    }
}

/// The moment a robot answering under `clock` stops thinking: `share` of the time left,
/// so that the answer still crosses the pipe in time on a loaded machine.
pub fn thinking_deadline(clock: &Clock, share: f64) -> Instant {
    Instant::now() + clock.left().mul_f64(share.clamp(0.0, 1.0))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_suffix_is_split_off_a_robot_name() {
        assert_eq!(Budget::split("strong"), Some(("strong", Budget::Clock)));
        assert_eq!(
            Budget::split("solver/nodes=5000"),
            Some(("solver", Budget::Nodes(5000)))
        );
        for bad in [
            "solver/",
            "solver/nodes=",
            "solver/nodes=0",
            "solver/nodes=+5",
            "solver/nodes=5k",
            "solver/playouts=5",
            "solver/nodes=99999999999999999999999",
        ] {
            assert_eq!(Budget::split(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_node_budget_stops_at_its_count_and_the_clock_at_its_deadline() {
        let later = Instant::now() + std::time::Duration::from_secs(3600);
        assert!(!Budget::Nodes(10).exhausted(9, Instant::now()));
        assert!(Budget::Nodes(10).exhausted(10, later));
        assert!(!Budget::Clock.exhausted(1024, later));
        assert!(Budget::Clock.exhausted(1024, Instant::now()));
    }
}
