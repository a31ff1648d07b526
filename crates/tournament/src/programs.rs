//! Player programs on every machine: when a tournament is created, each playing folder is
//! packed and stored (crate `arbiter-programs`) and its hash written on its player; whoever
//! plays a match runs the player from a local cache, fetching the program from the store the
//! first time. Players of stores written before programs were stored run from their folder.

use std::path::{Path, PathBuf};

use arbiter_programs::{ProgramError, cache};
use arbiter_referee::{Commands, SeatSpec};
use arbiter_store::StoredProgram;
use arbiter_store::blocking::Store;

pub use arbiter_programs::DEFAULT_MAX_MB;

use crate::TournamentError;
use crate::players::{self, Contestant, Status};

/// Packs the folder of player `p` into an archive of at most `max_mb` MiB and stores it,
/// returning its hash and the links of the folder that point outside it (see
/// [`arbiter_programs::archive`]). The outer error is the store's; the inner one the folder's,
/// which keeps the player out of the tournament.
pub fn store_program(
    store: &Store,
    p: &Contestant,
    max_mb: u64,
) -> Result<Result<(String, Vec<PathBuf>), ProgramError>, TournamentError> {
    let Some(folder) = &p.folder else {
        return Err(TournamentError::Player {
            id: p.id.clone(),
            message: "has no folder to store".into(),
        });
    };
    let packed = match arbiter_programs::pack(folder, max_mb << 20) {
        Ok(packed) => packed,
        Err(error) => return Ok(Err(error)),
    };
    store.save_program(&StoredProgram {
        hash: packed.hash.clone(),
        size: packed.size,
        entries: packed.entries,
        archive: packed.archive,
    })?;
    Ok(Ok((packed.hash, packed.outside_links)))
}

/// The folder to run player `p` from: its program's folder under `cache`, fetched from the
/// store if it is not there yet (safe with other workers fetching it at once); the player's
/// own folder if it has no stored program.
pub fn local_folder(
    store: &Store,
    p: &Contestant,
    cache: &Path,
) -> Result<PathBuf, TournamentError> {
    let failed = |message: String| TournamentError::Player {
        id: p.id.clone(),
        message,
    };
    let Some(hash) = &p.program else {
        return p
            .folder
            .clone()
            .ok_or_else(|| failed("a robot has no folder".into()));
    };
    if let Some(dir) = cache::lookup(cache, hash).map_err(|e| failed(e.to_string()))? {
        return Ok(dir);
    }
    let program = store
        .program(hash)?
        .ok_or_else(|| failed(format!("its program {hash} is not in the store")))?;
    cache::install(cache, hash, &program.archive, program.size).map_err(|e| failed(e.to_string()))
}

/// How the referee opens the seat of player `p`, its program run from `cache`
/// ([`local_folder`]); robots as [`players::seat_spec`].
pub fn seat_spec(store: &Store, p: &Contestant, cache: &Path) -> Result<SeatSpec, TournamentError> {
    if !p.is_process() {
        return players::seat_spec(p);
    }
    let local = Contestant {
        folder: Some(local_folder(store, p, cache)?),
        ..p.clone()
    };
    players::seat_spec(&local)
}

/// The player `id` of program `hash`, which the store holds already, built and checked where
/// it was handed in (an arena's version): run as the `info.txt` of the program says, read
/// from the program in `cache` (fetched from the store the first time). It has no folder of its
/// own: every worker runs it from the store.
pub fn stored_player(
    store: &Store,
    id: &str,
    hash: &str,
    cache: &Path,
) -> Result<Contestant, TournamentError> {
    let stored = Contestant {
        id: id.to_owned(),
        alias: id.to_owned(),
        full_name: String::new(),
        command: None,
        folder: None,
        status: Status::Ok,
        reason: None,
        program: Some(hash.to_owned()),
    };
    let folder = local_folder(store, &stored, cache)?;
    let read = players::discover_one(id, &folder, Commands::AsWritten);
    if read.status != Status::Ok {
        return Err(TournamentError::Player {
            id: id.to_owned(),
            message: format!(
                "its program {hash} is not a player folder: {}",
                read.reason.unwrap_or_default()
            ),
        });
    }
    Ok(Contestant {
        folder: None,
        program: Some(hash.to_owned()),
        ..read
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use arbiter_store::{Presence, Tournament, now_ms};

    use super::*;
    use crate::schedule::Format;
    use crate::scratch_dir as scratch;

    /// A player folder whose program prints a line of a file of its folder.
    fn player_folder(dir: &Path) -> Contestant {
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        std::fs::write(dir.join("info.txt"), "reader\nAda Lovelace\n./bot.sh\n").unwrap();
        std::fs::write(dir.join("bot.sh"), "#!/bin/sh\ncat lib/move.txt\n").unwrap();
        std::fs::set_permissions(dir.join("bot.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::write(dir.join("lib/move.txt"), "MOVE 3\n").unwrap();
        let p = players::discover_one("123456", dir, arbiter_referee::Commands::AsWritten);
        assert_eq!(p.status, Status::Ok, "{:?}", p.reason);
        p
    }

    fn tournament() -> Tournament {
        Tournament {
            id: 0,
            game: "quoridor".into(),
            format: Format::RoundRobin,
            seed: 1,
            rounds: 1,
            players_per_match: 2,
            settings: serde_json::json!({}),
            created: now_ms(),
            finished: None,
            max_attempts: 3,
            name: None,
        }
    }

    /// Runs the seat's command in its folder, as the referee would, and returns what it printed.
    fn run(spec: &SeatSpec) -> String {
        let SeatSpec::Folder { dir, argv, .. } = spec else {
            panic!("{spec:?}")
        };
        let out = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// Stored on one machine, run on another: the folder is gone, the program runs from the
    /// cache.
    #[test]
    fn a_stored_program_runs_from_an_empty_cache_once_its_folder_is_gone() {
        let root = scratch("roundtrip");
        let db = root.join("t.db");
        let store = Store::open(db.to_str().unwrap(), Presence::MayCreate).unwrap();
        let mut p = player_folder(&root.join("players/123456"));
        let (hash, outside) = store_program(&store, &p, 1).unwrap().unwrap();
        assert!(outside.is_empty());
        p.program = Some(hash.clone());
        let id = store
            .create(
                &tournament(),
                &|_| serde_json::json!({}),
                &[p, Contestant::builtin("runner")],
                &[],
                None,
            )
            .unwrap();
        store.close();
        std::fs::remove_dir_all(root.join("players")).unwrap();

        let store = Store::open(db.to_str().unwrap(), Presence::MustExist).unwrap();
        let players = store.players(id).unwrap();
        let cache = root.join("cache");
        let spec = seat_spec(&store, &players[0], &cache).unwrap();
        let SeatSpec::Folder { dir, .. } = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(dir, &cache.join(&hash));
        assert_eq!(run(&spec), "MOVE 3\n");
        // Found in the cache the next time; robots need nothing.
        assert_eq!(local_folder(&store, &players[0], &cache).unwrap(), *dir);
        assert_eq!(
            seat_spec(&store, &players[1], &cache).unwrap(),
            SeatSpec::Builtin {
                name: "runner".into()
            }
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// Workers of one machine, each with its own connection, starting one player at once.
    #[test]
    fn two_workers_fetching_one_program_at_once_both_run_it() {
        let root = scratch("race");
        let db = root.join("t.db");
        let store = Store::open(db.to_str().unwrap(), Presence::MayCreate).unwrap();
        let mut p = player_folder(&root.join("players/123456"));
        p.program = Some(store_program(&store, &p, 1).unwrap().unwrap().0);
        store.close();
        let cache = root.join("cache");
        let specs: Vec<SeatSpec> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    s.spawn(|| {
                        let store = Store::open(db.to_str().unwrap(), Presence::MustExist)?;
                        seat_spec(&store, &p, &cache)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap().unwrap())
                .collect()
        });
        assert_eq!(specs[0], specs[1]);
        assert_eq!(run(&specs[1]), "MOVE 3\n");
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// An arena's version: its program in the store, no folder; it plays as its `info.txt`
    /// says, from the cache.
    #[test]
    fn a_program_stored_already_is_a_player_run_from_the_store() {
        let root = scratch("stored-player");
        let store = Store::open(root.join("t.db").to_str().unwrap(), Presence::MayCreate).unwrap();
        let p = player_folder(&root.join("players/123456"));
        let (hash, _) = store_program(&store, &p, 1).unwrap().unwrap();
        let cache = root.join("cache");
        let player = stored_player(&store, "walker v3", &hash, &cache).unwrap();
        assert_eq!(
            (
                player.id.as_str(),
                player.alias.as_str(),
                player.full_name.as_str()
            ),
            ("walker v3", "reader", "Ada Lovelace")
        );
        assert_eq!(player.command.as_deref(), Some("./bot.sh"));
        assert_eq!((player.folder.clone(), player.status), (None, Status::Ok));
        assert_eq!(player.program.as_deref(), Some(hash.as_str()));
        assert_eq!(
            run(&seat_spec(&store, &player, &cache).unwrap()),
            "MOVE 3\n"
        );

        // A program that is not a player folder cannot play.
        let bare = root.join("bare");
        std::fs::create_dir_all(&bare).unwrap();
        std::fs::write(bare.join("bot.sh"), "#!/bin/sh\n").unwrap();
        let packed = arbiter_programs::pack(&bare, 1 << 20).unwrap();
        store
            .save_program(&StoredProgram {
                hash: packed.hash.clone(),
                size: packed.size,
                entries: packed.entries,
                archive: packed.archive,
            })
            .unwrap();
        let error = stored_player(&store, "bare v1", &packed.hash, &cache)
            .unwrap_err()
            .to_string();
        let not = format!(
            "player bare v1: its program {} is not a player folder: ",
            packed.hash
        );
        assert!(error.starts_with(&not), "{error}");
        store.close();
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_damaged_or_missing_program_is_the_players_error_and_leaves_the_cache_empty() {
        let root = scratch("damaged");
        let store = Store::open(root.join("t.db").to_str().unwrap(), Presence::MayCreate).unwrap();
        let mut p = player_folder(&root.join("players/123456"));
        let hash = "cd".repeat(32);
        store
            .save_program(&StoredProgram {
                hash: hash.clone(),
                size: 10,
                entries: 1,
                archive: b"\x1f\x8b not really gzip".to_vec(),
            })
            .unwrap();
        p.program = Some(hash.clone());
        let cache = root.join("cache");
        let error = local_folder(&store, &p, &cache).unwrap_err().to_string();
        let damaged = format!("player 123456: the stored program {hash} is damaged: ");
        assert!(error.starts_with(&damaged), "{error}");
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 0);
        p.program = Some("ef".repeat(32));
        let error = local_folder(&store, &p, &cache).unwrap_err().to_string();
        let missing = format!(
            "player 123456: its program {} is not in the store",
            "ef".repeat(32)
        );
        assert_eq!(error, missing);
        // A player stored before programs were runs from its folder.
        p.program = None;
        assert_eq!(
            local_folder(&store, &p, &cache).unwrap(),
            root.join("players/123456")
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
