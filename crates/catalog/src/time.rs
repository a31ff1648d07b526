//! The time limit flags, the same on every command that plays matches.

use std::time::Duration;

use arbiter_games::TimeControl;

use crate::InvalidSettings;

/// Time limit flags; without any, a match is played under its game's own time control. The
/// same on every command that plays matches; tournaments store them as they are (serde).
#[derive(
    clap::Args, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize,
)]
pub struct TimeLimits {
    /// A time bank: each bot's bank at the start, in milliseconds (Quoridor: 1000).
    #[arg(long, conflicts_with_all = ["time_per_reply_ms", "startup_ms"])]
    pub time_bank_ms: Option<u64>,
    /// A time bank: milliseconds added to a bot's bank before each of its turns (Quoridor: 30).
    #[arg(long, conflicts_with_all = ["time_per_reply_ms", "startup_ms"])]
    pub time_per_turn_ms: Option<u64>,
    /// A hard limit on every reply, in milliseconds (Puoribor: 1000, Domino: 500).
    #[arg(long, alias = "reply-ms")]
    pub time_per_reply_ms: Option<u64>,
    /// Extra milliseconds for a bot's first reply, for its start-up: with --time-per-reply-ms,
    /// or alone with the game's own per-reply limit.
    #[arg(long)]
    pub startup_ms: Option<u64>,
}

impl TimeLimits {
    /// The time control these flags give to a game whose own is `own`; `None` leaves the
    /// game's own. `--startup-ms` alone changes only the first reply's extra time of the
    /// game's own per-reply limit; a game timed by a bank has none to change.
    pub fn time_control(&self, own: TimeControl) -> Result<Option<TimeControl>, InvalidSettings> {
        let ms = Duration::from_millis;
        Ok(match *self {
            TimeLimits {
                time_bank_ms: None,
                time_per_turn_ms: None,
                time_per_reply_ms: None,
                startup_ms: None,
            } => None,
            TimeLimits {
                time_per_reply_ms: None,
                startup_ms: Some(extra),
                ..
            } => match own {
                TimeControl::PerReply { limit, .. } => Some(TimeControl::PerReply {
                    limit,
                    first_extra: ms(extra),
                }),
                TimeControl::Bank { .. } => {
                    return Err(InvalidSettings(
                        "--startup-ms alone changes a per-reply limit, and this game is timed \
                         by a time bank: give --time-per-reply-ms too"
                            .into(),
                    ));
                }
            },
            TimeLimits {
                time_per_reply_ms: Some(limit),
                startup_ms,
                ..
            } => Some(TimeControl::PerReply {
                limit: ms(limit),
                first_extra: ms(startup_ms.unwrap_or(0)),
            }),
            TimeLimits {
                time_bank_ms,
                time_per_turn_ms,
                ..
            } => Some(TimeControl::Bank {
                initial: ms(time_bank_ms.unwrap_or(1000)),
                increment: ms(time_per_turn_ms.unwrap_or(30)),
            }),
        })
    }
}
