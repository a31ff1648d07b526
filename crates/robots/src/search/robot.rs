//! The robot around the search: its time, its answer when the search has none, its log.

use std::fmt::Write as _;
use std::time::Instant;

use arbiter_games::{Clock, OwnClock, PlayerId, Robot};

use super::alphabeta::{Report, Searcher};
use super::timing::Limits;
use super::{Racing, Shape, Xy};
use crate::Budget;

/// Actions of the principal variation written to the log.
const PV_SHOWN: usize = 8;

/// The `strong` robot: alpha-beta under the match's clock or a node budget.
pub struct Strong<G: Racing> {
    budget: Budget,
    /// The robot's own account of the game's default clock, for [`Robot::choose`].
    own_clock: OwnClock,
    log: String,
    actions: Vec<G::Action>,
}

impl<G: Racing> Strong<G> {
    /// A robot thinking within `budget`.
    pub fn new(budget: Budget) -> Self {
        Strong {
            budget,
            own_clock: OwnClock::new(G::PROTOCOL.time),
            log: String::new(),
            actions: Vec::new(),
        }
    }

    /// The turns `me` expects still to play: its way home and its walls, with a little slack,
    /// but never more than the tick limit leaves it.
    fn turns_left(game: &G, me: PlayerId) -> u32 {
        let alive = (0..game.num_players())
            .filter(|&p| game.pawn_at(p).is_some())
            .count()
            .max(1) as u32;
        let by_limit = game.max_ticks().saturating_sub(game.tick()).div_ceil(alive);
        let by_race = game.distance_of(me).unwrap_or(0) + game.walls_left_of(me) + 4;
        by_limit.min(by_race).max(1)
    }

    fn write_log(&mut self, game: &G, me: PlayerId, report: &Report<G::Action>, started: Instant) {
        self.log.clear();
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let _ = writeln!(
            self.log,
            "strong: depth {} eval {:+} nodes {} time {ms:.1} ms",
            report.depth, report.score, report.nodes
        );
        self.log.push_str("pv");
        let mut text = String::new();
        for (k, &action) in report.pv.iter().take(PV_SHOWN).enumerate() {
            text.clear();
            game.format_action(action, &mut text);
            self.log.push_str(if k == 0 { " " } else { " | " });
            self.log.push_str(&text);
        }
        self.log.push('\n');
        let Some(&best) = report.pv.first() else {
            return;
        };
        let mut after = game.clone();
        after.apply_unchecked(best);
        for p in 0..game.num_players() {
            let mut path = after.path_of(p);
            if p == me
                && let (Some(from), Some(first)) = (game.pawn_at(me), path.first())
                && from != *first
            {
                path.insert(0, from);
            }
            // The robot's own plan in its colour, the opponents' in theirs.
            let colour = if p == me {
                String::new()
            } else {
                format!(" p{p}")
            };
            draw_path(&mut self.log, &path, &colour);
        }
        for &action in report.pv.iter().take(PV_SHOWN) {
            if let Shape::Wall {
                at: (x, y),
                vertical,
            } = G::shape(action)
            {
                let _ = writeln!(self.log, "#draw wall {x} {y} {} orange", u8::from(vertical));
            }
        }
    }
}

fn draw_path(log: &mut String, path: &[Xy], colour: &str) {
    if path.len() < 2 {
        return;
    }
    log.push_str("#draw path");
    for &(x, y) in path {
        let _ = write!(log, " {x} {y}");
    }
    log.push_str(colour);
    log.push('\n');
}

impl<G: Racing> Robot<G> for Strong<G> {
    fn choose(&mut self, game: &G) -> G::Action {
        let clock = self.own_clock.start(Instant::now());
        let action = self.choose_in_time(game, &clock);
        self.own_clock.answered(&clock, Instant::now());
        action
    }

    fn choose_in_time(&mut self, game: &G, clock: &Clock) -> G::Action {
        let started = Instant::now();
        let me = game.to_move().unwrap_or(0);
        let limits = Limits::new(self.budget, clock, Self::turns_left(game, me));
        match Searcher::new(game, me, limits).run(game) {
            Some(report) => {
                self.write_log(game, me, &report, started);
                report.pv[0]
            }
            None => {
                // No search answer means no action the search tries; any legal one will do.
                game.legal_actions(&mut self.actions);
                self.log.clear();
                self.actions[0]
            }
        }
    }

    fn take_log(&mut self) -> String {
        std::mem::take(&mut self.log)
    }
}
