//! The arena's ladder as pure logic, with no I/O: the store keeps the state and the scheduler
//! calls these functions, so every rule here is tested without a database.
//!
//! - [`rate`] and [`recompute`]: Weng-Lin ratings (μ, σ), one player per team, places with
//!   ties; the leaderboard ranks by [`Rating::score`], μ − 3σ.
//! - [`pick_match`]: the seed that most needs games, opponents near it in μ through a
//!   heavy-tailed window, seats rotated fairly; [`SeatMix`] says how many seats, [`Pace`] how
//!   often.
//! - [`summarize`]: the SPRT series of a new version against the previous one, with the test
//!   `arbiter sprt` runs ([`series_test`]), and the sentence a bot's page shows.

#![warn(missing_docs)]

mod matchmaking;
mod pace;
mod rating;
mod seats;
mod series;

pub use matchmaking::{
    Candidate, PRIORITY_GAMES, WINDOW_TAIL, note_queued, pick_match, pick_match_with_tail,
};
pub use pace::{Pace, PaceError};
pub use rating::{Rating, RatingEvent, rate, recompute};
pub use seats::{MAX_SEATS, SeatMix, SeatMixError};
pub use series::{SeriesResult, SeriesSummary, series_test, summarize};
