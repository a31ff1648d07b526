//! The evaluation: who wins the race, in hundredths of a step, from one player's side.
//!
//! Each player's shortest path (pawns ignored) says on which tick it would arrive if nobody
//! walled it any more: the player on turn arrives first among equals, which is worth half a
//! step. When nobody can arrive before the tick limit, the limit decides: Quoridor gives the
//! point to the players nearest their goal after the moves they still have, Puoribor calls a
//! draw. Walls in hand are worth [`WALL`] each while there is time to use them.

use arbiter_games::PlayerId;

use super::{Racing, TickLimit};

/// A won match; wins sooner score higher (the ply is taken off).
pub const WIN: i32 = 1_000_000;

/// What a wall in hand is worth, in hundredths of a step.
const WALL: i32 = 45;

/// Ticks from the limit below which walls in hand lose their worth, linearly.
const WALL_HORIZON: u32 = 40;

/// The score of an ended match for `me`: a win, a loss, or a share of the point.
pub fn terminal<G: Racing>(game: &G, me: PlayerId, ply: usize) -> Option<i32> {
    let outcome = game.outcome()?;
    let share = outcome.scores.get(me).copied().unwrap_or(0.0);
    let ply = ply as i32;
    Some(if share >= 1.0 {
        WIN - ply
    } else if share <= 0.0 {
        ply - WIN
    } else {
        ((2.0 * share - 1.0) * f64::from(WIN / 2)) as i32
    })
}

/// The player's standing in the race.
struct Runner {
    player: PlayerId,
    distance: u32,
    /// Turns it still gets before the tick limit.
    turns: u32,
    /// The tick (counted from now) on which it would arrive.
    arrival: u32,
}

/// The score of a position still in play, for `me`.
pub fn evaluate<G: Racing>(game: &G, me: PlayerId) -> i32 {
    evaluate_all(game)[me]
}

/// The score of a position still in play for every player (an eliminated player's is a
/// loss's half).
pub fn evaluate_all<G: Racing>(game: &G) -> [i32; 4] {
    let mut scores = [-WIN / 2; 4];
    let Some(on_turn) = game.to_move() else {
        for (p, score) in scores.iter_mut().enumerate().take(game.num_players()) {
            *score = terminal(game, p, 0).unwrap_or(0);
        }
        return scores;
    };
    let n = game.num_players();
    let remaining = game.max_ticks().saturating_sub(game.tick());
    let alive = (0..n).filter(|&p| game.pawn_at(p).is_some()).count() as u32;
    let mut runners: Vec<Runner> = Vec::with_capacity(n);
    let mut offset = 0;
    for k in 0..n {
        let player = (on_turn + k) % n;
        let Some(distance) = game.distance_of(player) else {
            continue;
        };
        let turns = if remaining > offset {
            (remaining - offset - 1) / alive + 1
        } else {
            0
        };
        let arrival = offset + distance.max(1).saturating_sub(1) * alive + 1;
        runners.push(Runner {
            player,
            distance,
            turns,
            arrival,
        });
        offset += 1;
    }
    let race = runners.iter().any(|r| r.arrival <= remaining);
    // Lower is better: ticks to arrive (in hundredths of a round), or steps short at the limit.
    let standing = |r: &Runner| -> i32 {
        if race {
            (r.arrival * 100 / alive) as i32
        } else {
            match G::TICK_LIMIT {
                TickLimit::NearestWins => 100 * r.distance.saturating_sub(r.turns) as i32,
                TickLimit::Draw => 0,
            }
        }
    };
    let walls: Vec<i32> = runners
        .iter()
        .map(|r| game.walls_left_of(r.player) as i32)
        .collect();
    let all_walls: i32 = walls.iter().sum();
    let others = runners.len().max(2) as i32 - 1;
    let horizon = remaining.min(WALL_HORIZON) as i32;
    for (k, me) in runners.iter().enumerate() {
        let best_other = runners
            .iter()
            .filter(|r| r.player != me.player)
            .map(standing)
            .min()
            .unwrap_or(i32::MAX / 4);
        let wall_diff = walls[k] * (others + 1) - all_walls;
        scores[me.player] =
            best_other - standing(me) + WALL * wall_diff * horizon / (WALL_HORIZON as i32 * others);
    }
    scores
}
