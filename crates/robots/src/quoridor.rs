//! Quoridor robots: `random`, `runner` (races along a shortest path), `blocker` (races, and
//! walls off the opponent who is ahead), `aiarena-hard` (races, and places a wall that costs an
//! opponent more than three steps) and `strong` (searches; see [`crate::search`]).

use arbiter_games::quoridor::{Action, Cell, Quoridor};
use arbiter_games::{Game, PlayerId, Robot};

use crate::{RandomRobot, Robots};

impl Robots for Quoridor {
    const ROBOTS: &'static [&'static str] =
        &["random", "runner", "blocker", "aiarena-hard", "strong"];
    const EMPTY_SEAT: &'static str = "blocker";

    fn robot(name: &str, seed: u64) -> Option<Box<dyn Robot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomRobot::<Quoridor>::new(seed))),
            "runner" => Some(Box::new(Runner::default())),
            "blocker" => Some(Box::new(Blocker::default())),
            "aiarena-hard" => Some(Box::new(AiArenaHard::default())),
            _ => crate::strong(name),
        }
    }
}

/// Walks a shortest path to its goal and never places a wall unless it cannot move.
#[derive(Default)]
pub struct Runner {
    moves: Vec<Cell>,
    actions: Vec<Action>,
}

impl Runner {
    /// The pawn move that leaves the player nearest its goal; ties go to the first move
    /// generated, so the robot is deterministic.
    fn best_step(&mut self, game: &Quoridor) -> Option<(Cell, u32)> {
        let me = game.current();
        game.pawn_moves(&mut self.moves);
        self.moves
            .iter()
            .filter_map(|&cell| game.distance_from(me, cell).map(|d| (cell, d)))
            .min_by_key(|&(_, d)| d)
    }
}

impl Robot<Quoridor> for Runner {
    fn choose(&mut self, game: &Quoridor) -> Action {
        if let Some((cell, _)) = self.best_step(game) {
            return Action::Move(cell);
        }
        // Boxed in by pawns: a wall is the only legal action left.
        game.legal_actions(&mut self.actions);
        self.actions[0]
    }
}

/// Races like [`Runner`], but when the opponent nearest its goal is strictly closer to it than
/// this robot is to its own, places the wall that lengthens that opponent's path most (if any
/// wall lengthens it at all).
#[derive(Default)]
pub struct Blocker {
    runner: Runner,
    actions: Vec<Action>,
}

impl Blocker {
    fn leading_opponent(game: &Quoridor, me: PlayerId) -> Option<(PlayerId, u32)> {
        (0..game.num_players())
            .filter(|&p| p != me)
            .filter_map(|p| game.distance(p).map(|d| (p, d)))
            .min_by_key(|&(_, d)| d)
    }

    /// The wall that adds most to the opponent's path, preferring walls that cost this robot
    /// least; `None` when no wall slows the opponent down.
    fn best_wall(&mut self, game: &Quoridor, me: PlayerId, opponent: PlayerId) -> Option<Action> {
        let their_before = game.distance(opponent)?;
        let mine_before = game.distance(me)?;
        game.legal_actions(&mut self.actions);
        let mut best: Option<(u32, i64, Action)> = None;
        for &action in self.actions.iter().filter(|a| matches!(a, Action::Wall(_))) {
            let mut after = game.clone();
            after.apply_unchecked(action);
            let gain = after.distance(opponent)?.saturating_sub(their_before);
            let cost = i64::from(after.distance(me)?) - i64::from(mine_before);
            if gain > 0 && best.is_none_or(|(g, c, _)| gain > g || (gain == g && cost < c)) {
                best = Some((gain, cost, action));
            }
        }
        best.map(|(_, _, action)| action)
    }
}

impl Robot<Quoridor> for Blocker {
    fn choose(&mut self, game: &Quoridor) -> Action {
        let me = game.current();
        if game.walls_left(me) > 0
            && let (Some(mine), Some((opponent, theirs))) =
                (game.distance(me), Self::leading_opponent(game, me))
            && theirs < mine
            && let Some(wall) = self.best_wall(game, me, opponent)
        {
            return wall;
        }
        self.runner.choose(game)
    }
}

/// AI Arena's "hard" test bot: walks a shortest path, and places the wall that lengthens an
/// opponent's shortest path most whenever that is by more than [`AiArenaHard::THRESHOLD`]
/// steps. Of equally good walls it takes the first in the engine's order (horizontal walls,
/// then vertical, each by row then column), trying the opponents in id order.
#[derive(Default)]
pub struct AiArenaHard {
    runner: Runner,
    actions: Vec<Action>,
}

impl AiArenaHard {
    /// A wall must add more than this many steps to an opponent's path to be placed.
    pub const THRESHOLD: u32 = 3;

    /// The wall that adds most steps to one opponent's path, with those steps.
    fn best_wall(&mut self, game: &Quoridor, me: PlayerId) -> Option<(u32, Action)> {
        let before: Vec<Option<u32>> = (0..game.num_players())
            .map(|p| if p == me { None } else { game.distance(p) })
            .collect();
        game.legal_actions(&mut self.actions);
        let mut best: Option<(u32, Action)> = None;
        for &action in self.actions.iter().filter(|a| matches!(a, Action::Wall(_))) {
            let mut after = game.clone();
            after.apply_unchecked(action);
            let gain = before
                .iter()
                .enumerate()
                .filter_map(|(p, d)| Some(after.distance(p)?.saturating_sub((*d)?)))
                .max()
                .unwrap_or(0);
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, action));
            }
        }
        best
    }
}

impl Robot<Quoridor> for AiArenaHard {
    fn choose(&mut self, game: &Quoridor) -> Action {
        let me = game.current();
        if game.walls_left(me) > 0
            && let Some((gain, wall)) = self.best_wall(game, me)
            && gain > Self::THRESHOLD
        {
            return wall;
        }
        self.runner.choose(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{play_match, quick};
    use arbiter_games::quoridor::{Settings, Wall};

    fn start() -> Quoridor {
        Quoridor::new(Settings::standard(2, 9).unwrap()).unwrap()
    }

    #[test]
    fn runner_steps_straight_towards_its_goal() {
        let game = start();
        assert_eq!(
            Runner::default().choose(&game),
            Action::Move(Cell { x: 4, y: 1 })
        );
    }

    #[test]
    fn runner_reaches_its_goal_against_itself_within_the_tick_limit() {
        let mut game = start();
        let mut robots = [Runner::default(), Runner::default()];
        while let Some(p) = game.to_move() {
            let action = robots[p].choose(&game);
            game.apply(action).expect("runner plays legal actions");
        }
        let outcome = game.outcome().unwrap();
        assert_eq!(outcome.reason, "goal");
        // Both run down column 4; player 0 steps next to player 1 first, and player 1 jumps
        // over it, gaining the step that wins the race.
        assert_eq!(outcome.scores, vec![0.0, 1.0]);
    }

    #[test]
    fn blocker_walls_an_opponent_that_is_ahead() {
        let mut game = start();
        // Player 0 runs three steps while player 1 wastes its turns far from home.
        let plan = [
            (0, Action::Move(Cell { x: 4, y: 1 })),
            (1, Action::Move(Cell { x: 3, y: 8 })),
            (0, Action::Move(Cell { x: 4, y: 2 })),
            (1, Action::Move(Cell { x: 4, y: 8 })),
            (0, Action::Move(Cell { x: 4, y: 3 })),
        ];
        for (p, action) in plan {
            assert_eq!(game.to_move(), Some(p));
            game.apply(action).unwrap();
        }
        let before = game.distance(0).unwrap();
        let action = Blocker::default().choose(&game);
        assert!(matches!(action, Action::Wall(_)), "got {action:?}");
        game.apply(action).unwrap();
        assert!(game.distance(0).unwrap() > before);
    }

    #[test]
    fn blocker_runs_when_it_is_ahead() {
        let game = start();
        assert!(matches!(Blocker::default().choose(&game), Action::Move(_)));
    }

    #[test]
    fn aiarena_hard_walks_while_no_wall_costs_the_opponent_four_steps() {
        let game = start();
        assert!(matches!(
            AiArenaHard::default().choose(&game),
            Action::Move(_)
        ));
    }

    #[test]
    fn aiarena_hard_closes_a_gap_that_sends_the_opponent_round() {
        // A barrier below row 3 open at columns 4-5 and 8: closing 4-5 sends player 1 to column
        // 8, four steps longer.
        let walls = [
            (Wall::horizontal(0, 3), 1),
            (Wall::horizontal(2, 3), 1),
            (Wall::horizontal(6, 3), 1),
        ];
        let pawns = [Some(Cell::new(4, 0)), Some(Cell::new(4, 8))];
        let settings = Settings::standard(2, 9).unwrap();
        let game = Quoridor::from_position(settings, 0, 0, &pawns, &[10, 7], &walls).unwrap();
        assert_eq!(game.distance(1), Some(8));
        let action = AiArenaHard::default().choose(&game);
        assert_eq!(action, Action::Wall(Wall::horizontal(4, 3)));
        let mut after = game.clone();
        after.apply(action).unwrap();
        assert_eq!(after.distance(1), Some(12));
    }

    #[test]
    fn every_robot_plays_only_legal_actions_in_four_player_games() {
        for name in Quoridor::ROBOTS {
            for seed in 0..5 {
                let game = Quoridor::new(Settings::standard(4, 9).unwrap()).unwrap();
                play_match(game, &[quick(name); 4], seed * 4);
            }
        }
    }
}
