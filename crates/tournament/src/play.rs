//! What a match is played through: the [`Arena`] a game gives, and why a match was not played
//! ([`PlayFailure`]). At the bottom of the crate: the pool plays through it, the compliance
//! check too, and the standings read how a match that could not start was scored.

use std::path::Path;

use arbiter_referee::{MatchReport, SeatSpec};

/// What plays the matches of a tournament: the command line implements it for each game.
pub trait Arena: Send + Sync {
    /// Players a match of the game has.
    fn players_per_match(&self) -> usize;

    /// Plays one match of round `round` (from 1) between `seats` (in seat order) seeded
    /// `seed`, writing its replay.
    fn play(
        &self,
        seats: &[SeatSpec],
        seed: u64,
        round: u32,
        replay: &Path,
    ) -> Result<MatchReport, PlayFailure>;

    /// Plays a match between `seat` and the game's simplest robots in the other seats, with
    /// `seat` first, for the compliance check.
    fn check(&self, seat: &SeatSpec, replay: &Path) -> Result<MatchReport, PlayFailure>;
}

/// Why a match was not played.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayFailure {
    /// A seat's program could not be started: the player's fault, scored as a forfeit.
    CannotStart {
        /// The seat, from 0.
        seat: usize,
        /// Why it could not be started.
        reason: String,
    },
    /// Arbiter or the machine failed (a referee error, a replay that could not be written): the
    /// match is tried again and never scored against a bot.
    Arbiter(String),
}

/// The reason of a match lost by a seat whose program could not be started
/// ([`PlayFailure::CannotStart`]).
pub const CANNOT_START: &str = "cannot_start";
