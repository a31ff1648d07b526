//! What a game writes into a replay: its settings once, and after every turn the action played
//! and the position it led to. The replay format (docs/replay-format.md) stores these as the
//! game's own serde types, which the viewer and the importers read back.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Game;

/// The replay records of a game, as serde types.
///
/// Replays have always been written with the keys of every object in sorted order, and a
/// viewer or a test may compare them byte for byte: the fields of `Snapshot` and `ActionRecord`
/// (written on every tick) are declared in that order, which a test checks for every game.
/// The settings are sorted by the replay writer, as they are written once.
pub trait Recorded: Game {
    /// The position after a turn: what the viewer draws (pawns, walls, distances, ...).
    type Snapshot: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug + Send;
    /// One action played: `{"kind": "move", ...}`.
    type ActionRecord: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug + Send;
    /// The settings of the match, for the replay header.
    type SettingsRecord: Serialize + DeserializeOwned + Clone + PartialEq + std::fmt::Debug + Send;

    /// The position now.
    fn snapshot(&self) -> Self::Snapshot;
    /// `action` as recorded, played from this position.
    fn action_record(&self, action: Self::Action) -> Self::ActionRecord;
    /// The settings of the match.
    fn settings_record(&self) -> Self::SettingsRecord;
}

/// A cell or a pair of numbers, written `[x, y]`.
pub type Pair<T> = (T, T);

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::SmallRng;
    use rand::seq::IndexedRandom;

    use super::*;
    use crate::{domino, labyrinth, puoribor, quoridor};

    /// Whether `value` is written with the keys of every object in sorted order, as a
    /// `serde_json::Value` (whose maps sort their keys) would write it.
    fn sorted<T: Serialize>(value: &T) -> bool {
        let direct = serde_json::to_string(value).unwrap();
        let via_value = serde_json::to_value(value).unwrap().to_string();
        direct == via_value
    }

    /// Plays a random match, checking that every record is in sorted key order and reads back.
    fn check_records<G: Recorded>(mut game: G, seed: u64) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut actions = Vec::new();
        assert!(sorted(&game.snapshot()), "{} snapshot", G::NAME);
        let settings = game.settings_record();
        let text = serde_json::to_string(&settings).unwrap();
        assert_eq!(
            serde_json::from_str::<G::SettingsRecord>(&text).unwrap(),
            settings
        );
        while game.to_move().is_some() {
            game.legal_actions(&mut actions);
            let Some(&action) = actions.choose(&mut rng) else {
                game.apply_stuck();
                continue;
            };
            let record = game.action_record(action);
            assert!(sorted(&record), "{} action {record:?}", G::NAME);
            let text = serde_json::to_string(&record).unwrap();
            assert_eq!(
                serde_json::from_str::<G::ActionRecord>(&text).unwrap(),
                record
            );
            game.apply_unchecked(action);
            let snapshot = game.snapshot();
            assert!(sorted(&snapshot), "{} snapshot {snapshot:?}", G::NAME);
            let text = serde_json::to_string(&snapshot).unwrap();
            assert_eq!(
                serde_json::from_str::<G::Snapshot>(&text).unwrap(),
                snapshot
            );
        }
    }

    #[test]
    fn every_game_records_in_sorted_key_order_and_reads_back() {
        for seed in 0..3 {
            for players in [2, 4] {
                let settings = quoridor::Settings::standard(players, 9).unwrap();
                check_records(quoridor::Quoridor::new(settings).unwrap(), seed);
                check_records(
                    labyrinth::Labyrinth::generated(seed, players.into()).unwrap(),
                    seed,
                );
            }
            check_records(puoribor::Puoribor::new(), seed);
            let settings = domino::Settings::generated(seed);
            check_records(domino::Domino::new(settings).unwrap(), seed);
        }
    }

    #[test]
    fn labyrinth_codes_are_written_as_on_the_wire() {
        for code in labyrinth::Code::ALL {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
        }
    }
}
