//! The settings a tournament is stored with, typed, so that it resumes as it started on any
//! machine: the game's settings, the time limits, where replays go, and how matches are run.

use std::path::PathBuf;

use arbiter_catalog::TimeLimits;
use arbiter_sandbox::SandboxPolicy;
use arbiter_store::Tournament;
use serde::{Deserialize, Serialize};

use crate::TournamentError;
use crate::sprt::SprtPlan;

/// The settings a tournament is stored with, typed: the game's settings under `flags` (the
/// key stores have always used, so stores written before typed settings resume), the time
/// limits, and how its matches are run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredSettings<S> {
    /// The game's settings.
    pub flags: S,
    /// The time limits.
    #[serde(default)]
    pub time: TimeLimits,
    /// Where the replays go.
    pub replays: PathBuf,
    /// The challenger of a gauntlet.
    #[serde(default)]
    pub challenger: Option<String>,
    /// Whether players that failed the compliance check play.
    #[serde(default)]
    pub keep_failing: bool,
    /// Tries of a match that fails because of Arbiter or the machine.
    #[serde(default = "default_attempts")]
    pub attempts: u32,
    /// Whether and how bot programs are sandboxed (tournaments stored before there was a
    /// sandbox resume in one where the machine allows it).
    #[serde(default)]
    pub sandbox: SandboxPolicy,
    /// What an SPRT tournament plays and tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtPlan>,
}

fn default_attempts() -> u32 {
    3
}

impl<S: serde::de::DeserializeOwned> StoredSettings<S> {
    /// The settings of a stored tournament.
    pub fn of(t: &Tournament) -> Result<Self, TournamentError> {
        serde_json::from_value(t.settings.clone()).map_err(|e| {
            TournamentError::Store(arbiter_store::StoreError::Corrupt(format!(
                "the stored settings: {e}"
            )))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_store::Format;
    use std::path::Path;

    /// The settings as `arbiter tournament run` stored them before they were typed: every
    /// game's flags in one object.
    const OLD: &str = r#"{
        "flags": {"players": null, "board": 7, "walls": null, "max_ticks": 40,
                  "start_player": null, "board_seed": 12, "obstacles": null,
                  "start_token": "start", "level": null, "level_seed": null,
                  "level_file": null},
        "time": {"time_bank_ms": null, "time_per_turn_ms": null,
                 "time_per_reply_ms": 500, "startup_ms": null},
        "replays": "/tmp/t-replays/t1",
        "challenger": null,
        "keep_failing": false,
        "attempts": 2
    }"#;

    fn old(game: &str) -> Tournament {
        Tournament {
            id: 1,
            game: game.into(),
            format: Format::RoundRobin,
            seed: 12,
            rounds: 1,
            players_per_match: 2,
            settings: serde_json::from_str(OLD).unwrap(),
            created: 0,
            finished: None,
            max_attempts: 2,
            name: None,
        }
    }

    #[test]
    fn settings_stored_before_they_were_typed_read_into_each_games_type() {
        let quoridor =
            StoredSettings::<arbiter_catalog::quoridor::QuoridorSettings>::of(&old("quoridor"));
        let quoridor = quoridor.unwrap();
        assert_eq!(quoridor.flags.board, Some(7));
        assert_eq!(quoridor.flags.max_ticks, Some(40));
        assert_eq!(quoridor.time.time_per_reply_ms, Some(500));
        assert_eq!(quoridor.attempts, 2);
        // Stored before there was a sandbox: resumed in one where the machine allows it.
        assert_eq!(quoridor.sandbox, SandboxPolicy::default());
        let domino = StoredSettings::<arbiter_catalog::domino::DominoSettings>::of(&old("domino"));
        let domino = domino.unwrap().flags;
        assert_eq!(domino.board_seed, Some(12));
        assert_eq!(domino.start_token.as_deref(), Some("start"));
        let stored = StoredSettings::<serde::de::IgnoredAny>::of(&old("domino")).unwrap();
        assert_eq!(stored.replays, Path::new("/tmp/t-replays/t1"));
        assert_eq!(stored.attempts, 2);
    }

    #[test]
    fn typed_settings_are_stored_and_read_back_the_same() {
        let stored = StoredSettings {
            flags: arbiter_catalog::labyrinth::LabyrinthSettings {
                players: Some(4),
                level: Some(3),
                ..Default::default()
            },
            time: TimeLimits::default(),
            replays: "r".into(),
            challenger: Some("a".into()),
            keep_failing: true,
            attempts: 3,
            sandbox: SandboxPolicy::Required(arbiter_sandbox::SandboxConfig {
                limits: arbiter_sandbox::Limits {
                    memory_mb: 300,
                    ..Default::default()
                },
                read_only: vec!["/opt/jdk".into()],
                folders: arbiter_sandbox::FolderLimits {
                    max_entries: 20,
                    ..Default::default()
                },
                hidden: vec!["/opt/contest".into()],
                between_turns: arbiter_sandbox::BetweenTurns::Running,
            }),
            sprt: None,
        };
        let mut t = old("labyrinth");
        t.settings = serde_json::to_value(&stored).unwrap();
        assert_eq!(StoredSettings::of(&t).unwrap(), stored);
        // Stored before folders had limits: resumed with the defaults.
        t.settings["sandbox"]
            .as_object_mut()
            .unwrap()
            .remove("folders");
        let SandboxPolicy::Required(config) =
            StoredSettings::<arbiter_catalog::labyrinth::LabyrinthSettings>::of(&t)
                .unwrap()
                .sandbox
        else {
            panic!("the policy is kept")
        };
        assert_eq!(config.folders, arbiter_sandbox::FolderLimits::default());
    }
}
