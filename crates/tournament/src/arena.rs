//! [`GameArena`]: the [`Arena`] of every game of the catalog, playing each match through the
//! catalog's [`play_to_replay`] — the function `arbiter play` plays with.

use std::path::Path;

use arbiter_catalog::{
    CatalogGame, InvalidSettings, MatchPlan, PlayError, RobotSeeds, SeatPlan, Start, TableSetup,
    TimeLimits, play_to_replay,
};
use arbiter_referee::{MatchConfig, MatchReport, SeatSpec};
use arbiter_sandbox::Sandbox;

use crate::play::{Arena, PlayFailure};

/// Plays the matches of a tournament of game `G` with the settings it was created with.
pub struct GameArena<G: CatalogGame> {
    settings: G::Settings,
    players: usize,
    config: MatchConfig,
    sandbox: Option<Sandbox>,
    boards: Boards,
}

/// Which board a game that draws its board (Domino) plays a match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Boards {
    /// One per pairing of players, the same for both seat orders and every round.
    PerPairing,
    /// One per match seed, as `arbiter play` draws it: an SPRT's pair of games shares its seed,
    /// so its board, and each pair has its own.
    PerSeed,
}

impl<G: CatalogGame> GameArena<G> {
    /// The arena of `settings` under the time limits `time`, its bot programs in `sandbox`
    /// when one is given; settings that make no game are refused here, before any match.
    pub fn new(
        settings: G::Settings,
        time: &TimeLimits,
        sandbox: Option<Sandbox>,
    ) -> Result<Self, InvalidSettings> {
        let players = G::seats(&settings, 0);
        G::build(&settings, &TableSetup::numbered(players))?;
        Ok(GameArena {
            settings,
            players,
            config: MatchConfig {
                time: time.time_control(G::PROTOCOL.time)?,
                ..MatchConfig::default()
            },
            sandbox,
            boards: Boards::PerPairing,
        })
    }

    /// The same arena, drawing a board from each match's seed when the settings give none.
    pub fn with_a_board_per_seed(self) -> Self {
        GameArena {
            boards: Boards::PerSeed,
            ..self
        }
    }

    /// The settings of a match of round `round` between `seats`: a game that draws its board
    /// (Domino) draws one per pairing and round, the same for both of its games (either seat
    /// order), as the Polish judge plays them.
    fn settings_for(&self, seats: &[SeatSpec], match_seed: u64, round: u32) -> G::Settings {
        let mut settings = self.settings.clone();
        if !G::draws_board(&settings) {
            return settings;
        }
        if self.boards == Boards::PerSeed {
            if let Some(seed) = G::board_seed(&mut settings) {
                seed.get_or_insert(match_seed);
            }
            return settings;
        }
        if let Some(seed) = G::board_seed(&mut settings) {
            let mut names: Vec<String> = seats.iter().map(SeatSpec::name).collect();
            names.sort();
            // FNV-1a: stable across builds, so a resumed tournament draws the same boards.
            let mut hash = seed.unwrap_or(0) ^ 0xcbf2_9ce4_8422_2325;
            // Rounds after the first add their number, so that each round has its own board.
            let round = (round > 1).then(|| format!("\n{round}"));
            for byte in names
                .join("\n")
                .bytes()
                .chain(round.iter().flat_map(|r| r.bytes()))
            {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
            }
            *seed = Some(hash);
        }
        settings
    }
}

impl<G: CatalogGame> Arena for GameArena<G> {
    fn players_per_match(&self) -> usize {
        self.players
    }

    fn play(
        &self,
        seats: &[SeatSpec],
        seed: u64,
        round: u32,
        replay: &Path,
    ) -> Result<MatchReport, PlayFailure> {
        let settings = self.settings_for(seats, seed, round);
        play_to_replay::<G>(MatchPlan {
            start: Start::Settings(&settings),
            seats: seats.iter().cloned().map(SeatPlan::Spec).collect(),
            session: None,
            config: MatchConfig {
                seed,
                ..self.config.clone()
            },
            // As `arbiter play` seeds them: a tournament match replays with `arbiter play`.
            robot_seeds: RobotSeeds::Spread,
            replay: Some(replay),
            sandbox: self.sandbox.as_ref(),
        })
        .map_err(classify)
    }

    fn check(&self, seat: &SeatSpec, replay: &Path) -> Result<MatchReport, PlayFailure> {
        let mut seats = vec![seat.clone()];
        let robot = SeatSpec::Builtin {
            name: G::ROBOTS[0].into(),
        };
        seats.resize(self.players, robot);
        self.play(&seats, 1, 1, replay)
    }
}

/// Tells a player whose program cannot be started (its fault) from everything else (Arbiter's
/// or the machine's, retried).
fn classify(error: PlayError) -> PlayFailure {
    let message = error.chain();
    match error {
        PlayError::CannotStart { index, .. } if !error.machine_at_fault() => {
            PlayFailure::CannotStart {
                seat: index,
                reason: message,
            }
        }
        _ => PlayFailure::Arbiter(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_catalog::domino::DominoSettings;
    use arbiter_games::domino::Domino;
    use arbiter_referee::SeatError;
    use arbiter_sandbox::SandboxError;

    fn seats(a: &str, b: &str) -> Vec<SeatSpec> {
        [a, b]
            .map(|name| SeatSpec::Builtin { name: name.into() })
            .to_vec()
    }

    #[test]
    fn a_jail_that_could_not_be_set_up_is_arbiter_s_failure_a_hidden_program_the_bot_s() {
        let start = |source| PlayError::CannotStart {
            index: 1,
            who: "bot".into(),
            source,
        };
        let io = SandboxError::Io {
            what: "making cgroup",
            path: "/sys/fs/cgroup/pids/arbiter-7-0".into(),
            error: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        };
        let failure = classify(start(SeatError::Sandbox(io)));
        assert!(matches!(failure, PlayFailure::Arbiter(_)), "{failure:?}");
        let hidden = SandboxError::Hidden {
            program: "/opt/bot/run".into(),
        };
        let failure = classify(start(SeatError::Sandbox(hidden)));
        assert!(
            matches!(failure, PlayFailure::CannotStart { seat: 1, .. }),
            "{failure:?}"
        );
    }

    #[test]
    fn a_tournament_draws_a_board_per_pairing_and_round_and_an_sprt_one_per_seed() {
        let settings = DominoSettings {
            board_seed: Some(3),
            ..DominoSettings::default()
        };
        let time = TimeLimits::default();
        let pairing = GameArena::<Domino>::new(settings, &time, None).unwrap();
        let board = |arena: &GameArena<Domino>, seats: &[SeatSpec], seed, round| {
            arena.settings_for(seats, seed, round).board_seed
        };
        let (ab, ba) = (seats("random", "parity"), seats("parity", "random"));
        assert_eq!(board(&pairing, &ab, 1, 1), board(&pairing, &ba, 2, 1));
        assert_eq!(board(&pairing, &ab, 1, 1), board(&pairing, &ab, 9, 1));
        // Each round its own board, shared by both games of the pairing in that round.
        let rounds: Vec<_> = (1..=4).map(|r| board(&pairing, &ab, 1, r)).collect();
        let distinct: std::collections::HashSet<_> = rounds.iter().collect();
        assert_eq!(distinct.len(), 4, "{rounds:?}");
        assert_eq!(board(&pairing, &ab, 5, 3), board(&pairing, &ba, 6, 3));
        let per_seed = GameArena::<Domino>::new(DominoSettings::default(), &time, None)
            .unwrap()
            .with_a_board_per_seed();
        // The two games of a pair share their seed, so their board; the next pair has its own.
        assert_eq!(board(&per_seed, &ab, 41, 1), Some(41));
        assert_eq!(board(&per_seed, &ba, 41, 1), Some(41));
        assert_eq!(board(&per_seed, &ab, 42, 1), Some(42));
    }
}
