//! What a robot can guess about the other princess in a two-player Labyrinth match: a bot is
//! told every princess's cell but only its own targets, so the other seat's target is inferred
//! from where it walked.
//!
//! Between two of its own turns the robot sees the other seat's whole turn as a change of the
//! board: the line it pushed (the only one whose push turns the old board into the new one)
//! and the cell it walked to. A player heading for a display walks to a reachable cell nearest
//! to it and scores it when it can, so each display gets a penalty each turn: how much farther
//! from it the walk ended than the nearest reachable cell, and more if it could have been
//! scored and was not. The display with the smallest penalty since the other seat last scored
//! is its likely target.

use arbiter_games::Game;
use arbiter_games::labyrinth::{Action, Labyrinth, Push, push_tiles, pushed_cell, reach};

/// The penalty for a display the other seat could have scored and did not.
const SPURNED: u32 = 20;

/// The other seat's turns watched so far and what they say about its target.
#[derive(Default)]
pub struct Watch {
    /// The position after the robot's own last turn.
    before: Option<Labyrinth>,
    /// Each display's penalty since the other seat last scored.
    penalty: Vec<u32>,
    /// Turns of the other seat watched since it last scored.
    watched: u32,
    /// The other seat's extra tile: the one that fell out of its last push.
    extra: Option<u8>,
}

impl Watch {
    /// Takes in the other seat's turn that led to `game` (the robot on turn), when the robot
    /// saw the position before it.
    pub fn observe(&mut self, game: &Labyrinth) {
        let Some(before) = self.before.take() else {
            return;
        };
        let me = game.seat_on_turn();
        let other = 1 - me;
        if game.positions().len() != 2
            || before.seat_on_turn() != other
            || before.round() > game.round()
            || before.tiles().len() != game.tiles().len()
        {
            self.reset();
            return;
        }
        let Some(push) = pushed_line(&before, game) else {
            return; // A void turn says nothing.
        };
        // Only she played since `before`: a display gone is one she scored. (Her points are not
        // told to a bot, so a robot running as a process could not see them.)
        if game.active_displays().count() < before.active_displays().count() {
            let mut tiles = before.tiles().to_vec();
            self.extra = Some(push_tiles(&mut tiles, game.width(), game.height(), push));
            self.reset();
            return;
        }
        let (w, h) = (game.width(), game.height());
        let mut tiles = before.tiles().to_vec();
        self.extra = Some(push_tiles(&mut tiles, w, h, push));
        let moved = |c: arbiter_games::labyrinth::Cell| {
            let (x, y) = pushed_cell(w, h, push, c.x as usize, c.y as usize);
            y * w + x
        };
        let end = game.position(other);
        let end = end.y as usize * w + end.x as usize;
        let manhattan =
            |a: usize, b: usize| ((a % w).abs_diff(b % w) + (a / w).abs_diff(b / w)) as u32;
        let walkable = reach(&tiles, w, h, moved(before.position(other)));
        self.penalty.resize(game.level().displays.len(), 0);
        for (d, _) in game.active_displays() {
            let cell = moved(before.display_cell(d));
            let nearest = walkable
                .iter()
                .map(|c| manhattan(c, cell))
                .min()
                .unwrap_or(0);
            self.penalty[d] += if nearest == 0 {
                SPURNED
            } else {
                manhattan(end, cell) - nearest
            };
        }
        self.watched += 1;
    }

    fn reset(&mut self) {
        self.penalty.iter_mut().for_each(|p| *p = 0);
        self.watched = 0;
    }

    /// Display `d`'s penalty since the other seat last scored.
    fn penalty(&self, d: usize) -> u32 {
        self.penalty.get(d).copied().unwrap_or(0)
    }

    /// Forgets everything: a new match.
    pub fn clear(&mut self) {
        *self = Watch::default();
    }

    /// Remembers the position after the robot plays `action` in `game`.
    pub fn played(&mut self, game: &Labyrinth, action: Action) {
        let mut after = game.clone();
        after.apply_unchecked(action);
        self.before = Some(after);
    }

    /// The other seat's likely target: the active display with the smallest penalty, the
    /// nearest to it of those; `None` before it was watched for a turn since it last scored.
    pub fn likely_target(&self, game: &Labyrinth) -> Option<usize> {
        if self.watched == 0 || game.positions().len() != 2 {
            return None;
        }
        let at = game.position(1 - game.seat_on_turn());
        game.active_displays()
            .min_by_key(|&(d, cell)| (self.penalty(d), cell.manhattan(at)))
            .map(|(d, _)| d)
    }
}

/// The push that turned `before`'s board into `after`'s, if one did (the inserted tile is the
/// one now on the entry cell).
fn pushed_line(before: &Labyrinth, after: &Labyrinth) -> Option<Push> {
    let (w, h) = (after.width(), after.height());
    if before.tiles() == after.tiles() {
        return None;
    }
    let mut tiles = Vec::with_capacity(w * h);
    for c in 0..2u8 {
        let lines = if c == 0 { h } else { w };
        for p in 0..2u8 {
            for k in 0..lines {
                let entry = match (c, p) {
                    (0, 1) => k * w,
                    (0, _) => k * w + w - 1,
                    (1, 1) => k,
                    _ => (h - 1) * w + k,
                };
                let t = after.tiles()[entry];
                let push = Push::new(c, p, k as u8, t);
                if after.level().push_code(push, t).is_err() {
                    continue;
                }
                tiles.clear();
                tiles.extend_from_slice(before.tiles());
                push_tiles(&mut tiles, w, h, push);
                if tiles == after.tiles() {
                    return Some(push);
                }
            }
        }
    }
    None
}

impl Watch {
    /// Turns of the other seat watched since it last scored.
    pub fn watched_turns(&self) -> u32 {
        self.watched
    }

    /// The other seat's extra tile, as far as its pushes tell (15, every seat's first extra,
    /// before any was seen).
    pub fn extra(&self) -> u8 {
        self.extra.unwrap_or(15)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labyrinth::{Lookahead, greedy_action};
    use arbiter_games::Robot;

    #[test]
    fn the_pushed_line_is_read_off_the_boards() {
        let game = Labyrinth::generated(1, 2).unwrap();
        let action = greedy_action(&game);
        let mut after = game.clone();
        after.apply(action).unwrap();
        let push = action.push().unwrap();
        assert_eq!(pushed_line(&game, &after), Some(push));
        assert_eq!(pushed_line(&game, &game), None);
    }

    #[test]
    fn the_target_of_the_game_servers_robot_is_among_the_guesses() {
        // The game server's robot takes the push after which it can walk nearest its target
        // and walks to the nearest cell: its target is never penalised, so it is always among
        // the displays of the least penalty, and is the guess when the others fell behind.
        let (mut watched, mut alone) = (0, 0);
        for level in 1..4 {
            let mut game = Labyrinth::generated(level, 2).unwrap();
            let mut lookahead = Lookahead::default();
            let mut watch = Watch::default();
            let mut target = game.current_target(1);
            for _ in 0..60 {
                let action = lookahead.choose(&game);
                watch.played(&game, action);
                game.apply(action).unwrap();
                if game.is_over() || game.current_target(1) != target {
                    break; // `lookahead` took its target: the penalties no longer hold.
                }
                game.apply(greedy_action(&game)).unwrap();
                if game.is_over() {
                    break;
                }
                watch.observe(&game);
                target = game.current_target(1);
                let Some(t) = target else { break };
                let least = game.active_displays().map(|(d, _)| watch.penalty(d)).min();
                if watch.watched_turns() > 0 {
                    watched += 1;
                    assert_eq!(Some(watch.penalty(t)), least, "level {level}");
                    let tied = game
                        .active_displays()
                        .filter(|&(d, _)| Some(watch.penalty(d)) == least);
                    if tied.count() == 1 {
                        alone += 1;
                        assert_eq!(watch.likely_target(&game), Some(t));
                    }
                }
            }
        }
        assert!(
            watched >= 50 && alone >= 20,
            "{watched} turns watched, {alone} guesses alone"
        );
    }
}
