//! Puoribor robots: `random`, `runner` (walks a shortest path), `rotator` (walks, or places
//! the wall or rotation that hurts the opponent more than walking would help itself) and
//! `strong` (searches; see [`crate::search`]).

use arbiter_games::puoribor::{Action, Puoribor};
use arbiter_games::{Game, Robot};

use crate::{RandomRobot, Robots};

impl Robots for Puoribor {
    const ROBOTS: &'static [&'static str] = &["random", "runner", "rotator", "strong"];
    const EMPTY_SEAT: &'static str = "rotator";

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomRobot::<Puoribor>::new(seed))),
            "runner" => Some(Box::new(Runner)),
            "rotator" => Some(Box::new(Rotator::default())),
            _ => crate::strong(name),
        }
    }
}

/// The pawn move that leaves the player on turn nearest its goal, with that distance. Ties go
/// to the first move in mask order, so robots are deterministic.
fn best_step(game: &Puoribor) -> Option<(Action, u32)> {
    let me = game.current();
    let distances = game.distances(me);
    game.pawn_moves()
        .map(|(x, y)| {
            let d = u32::from(distances[x as usize][y as usize]);
            (Action::step(i32::from(x), i32::from(y)), d)
        })
        .min_by_key(|&(_, d)| d)
}

/// Walks a shortest path to its goal row; never places a wall.
pub struct Runner;

impl Robot<Puoribor> for Runner {
    fn choose(&mut self, game: &Puoribor) -> Action {
        match best_step(game) {
            Some((action, _)) => action,
            // Unreachable under the rules (a player always has a pawn move); a legal action
            // keeps the robot playing if that ever changes.
            None => {
                let mut actions = Vec::new();
                game.legal_actions(&mut actions);
                actions[0]
            }
        }
    }
}

/// Weighs every wall and rotation against walking: an action's worth is how much longer it
/// makes the opponent's shortest path minus how much longer it makes its own, and walking is
/// worth the steps it gains. It plays the best wall or rotation when that beats walking
/// (rotations must beat it by their extra wall), or matches it while the opponent leads the
/// race (walls are worth spending then, and a delay buys time to block again); it walks
/// otherwise.
#[derive(Default)]
pub struct Rotator {
    actions: Vec<Action>,
}

impl Robot<Puoribor> for Rotator {
    fn choose(&mut self, game: &Puoribor) -> Action {
        let me = game.current();
        let them = 1 - me;
        let (Some(mine), Some(theirs)) = (game.distance(me), game.distance(them)) else {
            return Runner.choose(game);
        };
        let walk = best_step(game);
        let walk_gain = walk.map_or(0, |(_, d)| i64::from(mine) - i64::from(d));
        // A step onto the goal wins: nothing beats it.
        if walk.is_some_and(|(_, d)| d == 0) {
            return Runner.choose(game);
        }
        if game.walls_remaining(me) == 0 {
            return Runner.choose(game);
        }
        game.legal_actions(&mut self.actions);
        let mut best: Option<(i64, Action)> = None;
        for &action in self.actions.iter().filter(|a| a.kind != Action::MOVE) {
            let mut after = game.clone();
            after.apply_unchecked(action);
            let (Some(mine_after), Some(theirs_after)) = (after.distance(me), after.distance(them))
            else {
                continue;
            };
            let worth = (i64::from(theirs_after) - i64::from(theirs))
                - (i64::from(mine_after) - i64::from(mine));
            // A rotation spends two walls: it must earn one more step to be worth the second.
            let cost = if action.kind == Action::ROTATE { 1 } else { 0 };
            let net = worth - cost;
            if best.is_none_or(|(b, _)| net > b) {
                best = Some((net, action));
            }
        }
        // After a walk, the opponent moves first: it wins the pure race unless strictly behind.
        let losing = i64::from(theirs) <= i64::from(mine) - walk_gain;
        match best {
            Some((net, action)) if net > walk_gain || (losing && net > 0 && net == walk_gain) => {
                action
            }
            _ => Runner.choose(game),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::quick;
    use arbiter_games::puoribor::{WallLine, WallLineKind};

    #[test]
    fn runner_steps_towards_its_goal() {
        let game = Puoribor::new();
        assert_eq!(Runner.choose(&game), Action::step(4, 1));
    }

    #[test]
    fn runner_mirror_match_ends_at_a_goal() {
        let mut game = Puoribor::new();
        while game.to_move().is_some() {
            let action = Runner.choose(&game);
            game.apply(action).expect("runner plays legal actions");
        }
        assert_eq!(game.outcome().unwrap().reason, "goal");
    }

    #[test]
    fn rotator_blocks_an_opponent_one_step_from_its_goal() {
        // Player 1 is one step from row 0 and player 0 is far from row 8.
        let game = Puoribor::from_parts(0, 200, [(0, 0), (4, 1)], [10, 10], &[]).unwrap();
        let action = Rotator::default().choose(&game);
        assert_ne!(action.kind, Action::MOVE, "got {action}");
        let mut after = game.clone();
        after.apply(action).unwrap();
        assert!(after.distance(1).unwrap() > 1);
    }

    #[test]
    fn rotator_walks_when_no_wall_helps_more() {
        assert_eq!(
            Rotator::default().choose(&Puoribor::new()).kind,
            Action::MOVE
        );
    }

    #[test]
    fn rotator_uses_a_rotation_when_no_wall_can_block() {
        // Player 1 at (8, 1) is one step from row 0. The only wall that would close that step,
        // H 7 0, crosses V 7 0; rotating the corner turns V 5 0 into it instead.
        let wall = |x, owner| WallLine {
            kind: WallLineKind::Vertical,
            x,
            y: 0,
            owner,
        };
        let walls = [wall(5, 0), wall(7, 1)];
        let game = Puoribor::from_parts(0, 200, [(0, 3), (8, 1)], [10, 10], &walls).unwrap();
        assert_eq!(game.distance(1), Some(1));
        let action = Rotator::default().choose(&game);
        assert_eq!(action.kind, Action::ROTATE, "got {action}");
        let mut after = game.clone();
        after.apply(action).unwrap();
        assert!(
            after.distance(1).unwrap() > 1,
            "{action} does not slow player 1 down"
        );
    }

    #[test]
    fn every_robot_plays_only_legal_actions() {
        for name in Puoribor::ROBOTS {
            for opponent in Puoribor::ROBOTS {
                for seed in 0..3 {
                    let mut game = Puoribor::new();
                    let mut robots = [
                        Puoribor::robot(quick(name), seed).unwrap(),
                        Puoribor::robot(quick(opponent), seed + 100).unwrap(),
                    ];
                    while let Some(p) = game.to_move() {
                        let action = robots[p].choose(&game);
                        game.apply(action)
                            .unwrap_or_else(|e| panic!("{name} played {action}: {e}"));
                    }
                }
            }
        }
    }

    #[test]
    fn rotator_beats_runner_from_both_seats() {
        for seat in 0..2 {
            let mut game = Puoribor::new();
            let mut robots: [Box<dyn Robot<Puoribor>>; 2] = [Box::new(Runner), Box::new(Runner)];
            robots[seat] = Box::new(Rotator::default());
            while let Some(p) = game.to_move() {
                let action = robots[p].choose(&game);
                game.apply(action).unwrap();
            }
            let outcome = game.outcome().unwrap();
            assert_eq!(
                outcome.scores[seat], 1.0,
                "rotator in seat {seat}: {outcome:?}"
            );
        }
    }
}
