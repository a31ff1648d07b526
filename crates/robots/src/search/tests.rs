use arbiter_games::Robot;
use arbiter_games::puoribor::Puoribor;
use arbiter_games::quoridor::{Quoridor, Settings};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Budget, Racing, Strong};
use crate::Robots;
use crate::testing::play_match;

fn quoridor(players: u8) -> Quoridor {
    Quoridor::new(Settings::standard(players, 9).unwrap()).unwrap()
}

/// Positions reached by `plies` random actions from `start` (fewer if the match ends).
fn random_positions<G: Racing>(start: &G, seeds: u64, plies: usize) -> Vec<G> {
    let mut actions = Vec::new();
    (0..seeds)
        .filter_map(|seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut game = start.clone();
            for _ in 0..rng.random_range(0..plies) {
                if game.to_move().is_none() {
                    break;
                }
                if game.is_stuck() {
                    game.apply_stuck();
                    continue;
                }
                game.legal_actions(&mut actions);
                game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            }
            game.to_move().is_some().then_some(game)
        })
        .collect()
}

fn check_paths<G: Racing + std::fmt::Debug>(game: &G) {
    let side = game.side();
    for p in 0..game.num_players() {
        let path = game.path_of(p);
        let Some(d) = game.distance_of(p) else {
            assert!(path.is_empty());
            continue;
        };
        assert_eq!(path.len() as u32, d + 1, "player {p} in {game:?}: {path:?}");
        assert_eq!(Some(path[0]), game.pawn_at(p));
        for pair in path.windows(2) {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            assert_eq!(x0.abs_diff(x1) + y0.abs_diff(y1), 1, "{path:?}");
            assert!(x1 < side && y1 < side);
        }
    }
}

#[test]
fn shortest_paths_lead_from_the_pawn_to_the_goal_one_step_at_a_time() {
    for game in random_positions(&quoridor(2), 40, 60) {
        check_paths(&game);
    }
    for game in random_positions(&quoridor(4), 40, 80) {
        check_paths(&game);
    }
    for game in random_positions(&Puoribor::new(), 40, 60) {
        check_paths(&game);
    }
}

fn plays_legal_actions<G: Racing + Robots + std::fmt::Debug>(positions: Vec<G>) {
    for game in positions {
        let mut robot = G::robot("strong/nodes=400", 0).unwrap();
        let action = robot.choose(&game);
        game.check(action)
            .unwrap_or_else(|e| panic!("{action:?} in {game:?}: {e}"));
        assert!(robot.take_log().contains("#draw path"));
    }
}

#[test]
fn strong_plays_only_legal_actions_from_random_positions() {
    plays_legal_actions(random_positions(&quoridor(2), 30, 80));
    plays_legal_actions(random_positions(&quoridor(4), 30, 120));
    plays_legal_actions(random_positions(&Puoribor::new(), 30, 80));
}

/// A whole match between the robots named.
fn play<G: Robots>(game: G, names: &[&str]) -> (Vec<G::Action>, Vec<f64>) {
    play_match(game, names, 0)
}

#[test]
fn a_node_budget_plays_the_same_match_twice() {
    let names = ["strong/nodes=3000", "strong/nodes=1500"];
    assert_eq!(play(quoridor(2), &names), play(quoridor(2), &names));
    assert_eq!(play(Puoribor::new(), &names), play(Puoribor::new(), &names));
}

#[test]
fn strong_beats_blocker_and_aiarena_hard_from_both_seats() {
    for opponent in ["blocker", "aiarena-hard"] {
        for seat in 0..2 {
            let mut names = [opponent; 2];
            names[seat] = "strong/nodes=5000";
            let (_, scores) = play(quoridor(2), &names);
            assert_eq!(scores[seat], 1.0, "against {opponent} from seat {seat}");
        }
    }
}

#[test]
fn strong_wins_half_the_seats_against_three_blockers() {
    let wins = (0..4)
        .filter(|&seat| {
            let mut names = ["blocker"; 4];
            names[seat] = "strong/nodes=10000";
            play(quoridor(4), &names).1[seat] == 1.0
        })
        .count();
    assert!(wins >= 2, "{wins} of 4");
}

#[test]
fn strong_beats_rotator_from_both_seats() {
    for seat in 0..2 {
        let mut names = ["rotator"; 2];
        names[seat] = "strong/nodes=5000";
        let (_, scores) = play(Puoribor::new(), &names);
        assert_eq!(scores[seat], 1.0, "from seat {seat}");
    }
}

#[test]
fn budget_forms_are_robot_names_and_nonsense_is_not() {
    assert!(Quoridor::is_robot("strong/nodes=20000"));
    assert!(Puoribor::is_robot("strong"));
    assert!(!Quoridor::is_robot("strong/nodes=0"));
    assert!(!Quoridor::is_robot("strong/nodes=lots"));
    assert!(!Quoridor::is_robot("stronger"));
}

#[test]
fn the_log_holds_the_line_the_evaluation_and_the_plan() {
    let mut robot = Strong::<Quoridor>::new(Budget::Nodes(2000));
    robot.choose(&quoridor(2));
    let log = robot.take_log();
    assert!(log.starts_with("strong: depth "), "{log}");
    assert!(log.contains(" eval ") && log.contains("\npv "), "{log}");
    // The robot's own path in its colour, the opponent's in player 1's.
    assert!(log.contains("#draw path 4 0 4 1"), "{log}");
    assert!(log.contains(" p1\n"), "{log}");
    assert!(robot.take_log().is_empty());
}
