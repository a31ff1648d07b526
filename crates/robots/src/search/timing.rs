//! How long one search may think: a node budget, or a share of the match's clock.

use std::time::{Duration, Instant};

use arbiter_games::{Clock, TimeControl};

use crate::Budget;

/// Kept back from a bank for the time the referee counts and the robot cannot see: the pipe,
/// scheduling on a loaded machine, the answer's way back.
const BANK_RESERVE: Duration = Duration::from_millis(60);

/// The share of a per-reply limit the robot aims to use, and the share at which it stops
/// whatever it is doing.
const REPLY_SOFT: f64 = 0.3;
const REPLY_HARD: f64 = 0.45;

/// When one search stops.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// No new iteration starts after this.
    pub soft: Instant,
    /// The running iteration is abandoned at this instant.
    pub hard: Instant,
    /// Positions the search may visit; `u64::MAX` under the clock.
    pub nodes: u64,
}

impl Limits {
    /// The limits of one answer under `clock`, for a player that expects to play
    /// `turns_left` more turns (this one included).
    pub fn new(budget: Budget, clock: &Clock, turns_left: u32) -> Limits {
        let now = Instant::now();
        let left = clock.left();
        let (soft, hard) = match clock.control {
            TimeControl::Bank { .. } => {
                let usable = left.saturating_sub(BANK_RESERVE + left / 8);
                let share = usable / turns_left.max(1);
                (share / 2, (share * 3).min(usable / 2))
            }
            TimeControl::PerReply { limit, .. } => {
                let cap = left.min(limit);
                (cap.mul_f64(REPLY_SOFT), cap.mul_f64(REPLY_HARD))
            }
        };
        match budget {
            Budget::Clock => Limits {
                soft: now + soft,
                hard: now + hard,
                nodes: u64::MAX,
            },
            // Only a runaway budget meets the clock; below it, the budget alone decides.
            Budget::Nodes(nodes) => {
                let hard = match clock.control {
                    TimeControl::Bank { .. } => left.saturating_sub(BANK_RESERVE) / 2,
                    TimeControl::PerReply { .. } => left.mul_f64(0.8),
                };
                Limits {
                    soft: now + hard,
                    hard: now + hard,
                    nodes,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bank_is_spread_and_a_reserve_kept() {
        let ms = Duration::from_millis;
        let now = Instant::now();
        let clock = Clock {
            started: now,
            deadline: now + ms(1030),
            control: TimeControl::Bank {
                initial: ms(1000),
                increment: ms(30),
            },
        };
        let limits = Limits::new(Budget::Clock, &clock, 20);
        assert!(limits.hard < clock.deadline - ms(400));
        assert!(limits.soft <= limits.hard);
        // An empty bank leaves no time at all: the search answers after its first iteration.
        let empty = Clock {
            deadline: now + ms(50),
            ..clock
        };
        let limits = Limits::new(Budget::Clock, &empty, 20);
        assert!(limits.hard <= Instant::now());
    }
}
