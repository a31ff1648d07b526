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
    /// With a per-reply limit: extra milliseconds for a bot's first reply, for its start-up.
    #[arg(long)]
    pub startup_ms: Option<u64>,
}

impl TimeLimits {
    /// The time control these flags give; `None` leaves the game's own.
    pub fn time_control(&self) -> Result<Option<TimeControl>, InvalidSettings> {
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
                startup_ms: Some(_),
                ..
            } => {
                return Err(InvalidSettings(
                    "--startup-ms needs --time-per-reply-ms".into(),
                ));
            }
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
