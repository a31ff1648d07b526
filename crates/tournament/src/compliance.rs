//! The compliance check: before the first match, each player program plays once against the
//! game's simplest robots and must get through its start and answer its first turn correctly
//! within its time bank. Robots are not checked.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::players::{self, Contestant, Status};
use crate::pool::{Arena, PlayFailure};
use crate::replays;

/// Checks every player program that is `ok`, `jobs` at a time, and marks those that fail
/// `failing` (or `kept` with `keep_failing`) with the reason. The check's replays are kept in
/// `replays` as `check-ID.jsonl.gz`, for the bot's author.
pub fn check_players(
    arena: &dyn Arena,
    players: &mut [Contestant],
    jobs: usize,
    replays: &Path,
    keep_failing: bool,
) {
    let todo: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].status == Status::Ok && players[i].is_process())
        .collect();
    let verdicts: Mutex<Vec<(usize, Result<(), String>)>> = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    let shared: &[Contestant] = players;
    let work = || {
        while let Some(&i) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
            let verdict = check_one(arena, &shared[i], replays);
            verdicts
                .lock()
                .expect("no panics while locked")
                .push((i, verdict));
        }
    };
    std::thread::scope(|scope| {
        // This thread is one of the checkers; a thread the machine cannot start is one fewer.
        for _ in 1..jobs.max(1).min(todo.len()) {
            if std::thread::Builder::new()
                .spawn_scoped(scope, work)
                .is_err()
            {
                break;
            }
        }
        work();
    });
    for (i, verdict) in verdicts.into_inner().expect("threads joined") {
        if let Err(reason) = verdict {
            players[i].status = if keep_failing {
                Status::Kept
            } else {
                Status::Failing
            };
            players[i].reason = Some(reason);
        }
    }
}

/// Times a check is played when Arbiter or the machine failed it, not the bot.
const CHECK_ATTEMPTS: u32 = 3;

fn check_one(arena: &dyn Arena, player: &Contestant, replays: &Path) -> Result<(), String> {
    let spec = players::seat_spec(player).map_err(|e| e.to_string())?;
    let file = replays.join(format!("check-{}.jsonl.gz", file_safe(&player.id)));
    let mut attempt = 1;
    loop {
        match arena.check(&spec, &file) {
            Ok(_) => {
                return replays::first_turn(&file, 0)
                    .map_err(|e| format!("could not be checked: {e}"))?;
            }
            Err(PlayFailure::CannotStart { reason, .. }) => return Err(reason),
            Err(PlayFailure::Arbiter(error)) if attempt == CHECK_ATTEMPTS => {
                return Err(format!("could not be checked ({attempt} tries): {error}"));
            }
            Err(PlayFailure::Arbiter(_)) => attempt += 1,
        }
    }
}

fn file_safe(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::GameArena;
    use arbiter_catalog::TimeLimits;
    use arbiter_catalog::domino::DominoSettings;
    use arbiter_games::domino::Domino;
    use arbiter_referee::{MatchReport, SeatSpec};

    /// A real arena whose first `failures` checks fail on Arbiter's side.
    struct Flaky {
        arena: GameArena<Domino>,
        failures: Mutex<u32>,
    }

    impl Arena for Flaky {
        fn players_per_match(&self) -> usize {
            self.arena.players_per_match()
        }

        fn play(
            &self,
            seats: &[SeatSpec],
            seed: u64,
            round: u32,
            replay: &Path,
        ) -> Result<MatchReport, PlayFailure> {
            self.arena.play(seats, seed, round, replay)
        }

        fn check(&self, seat: &SeatSpec, replay: &Path) -> Result<MatchReport, PlayFailure> {
            let mut failures = self.failures.lock().unwrap();
            if *failures > 0 {
                *failures -= 1;
                // What a leftover cgroup did to a healthy player's check.
                return Err(PlayFailure::Arbiter(
                    "setting up the sandbox: File exists".into(),
                ));
            }
            self.arena.check(seat, replay)
        }
    }

    fn flaky(failures: u32) -> Flaky {
        let time = TimeLimits::default();
        Flaky {
            arena: GameArena::new(DominoSettings::default(), &time, None).unwrap(),
            failures: Mutex::new(failures),
        }
    }

    #[test]
    fn a_check_the_machine_failed_is_played_again_not_held_against_the_bot() {
        let dir = crate::scratch_dir("check-again");
        let player = Contestant::builtin("random");
        assert_eq!(check_one(&flaky(CHECK_ATTEMPTS - 1), &player, &dir), Ok(()));
        let verdict = check_one(&flaky(CHECK_ATTEMPTS), &player, &dir);
        assert!(
            verdict
                .unwrap_err()
                .starts_with("could not be checked (3 tries)")
        );
    }
}
