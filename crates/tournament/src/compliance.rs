//! The compliance check: before the first match, each player program plays once against the
//! game's simplest robots and must speak the protocol: start, and answer everything up to its
//! first turn in time and in the protocol's form. A first move against the rules is only a
//! warning: the check asks whether the program can play, not whether its move on one board was
//! good (the course's judge played such programs). Robots are not checked.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use arbiter_referee::Fault;

use crate::play::{Arena, PlayFailure};
use crate::players::{self, Contestant, Status};
use crate::replays;

/// What the check of one player found.
#[derive(Clone, Debug, PartialEq)]
enum Verdict {
    /// It speaks the protocol.
    Pass,
    /// It speaks the protocol, but its first move was against the rules: why.
    Warning(String),
    /// It cannot play: why.
    Fail(String),
}

/// Whether player `p` is checked: a program that is `ok` and was not stored before the
/// tournament (a stored one, an arena's version, passed the arena's check, which plays whole
/// matches from every seat). Robots are not checked.
pub fn needs_check(p: &Contestant) -> bool {
    p.status == Status::Ok && p.is_process() && p.program.is_none()
}

/// Checks every player program that [`needs_check`], `jobs` at a time, and marks those that fail
/// `failing` (or `kept` with `keep_failing`) with the reason. Returns the warnings, by index
/// in `players`, of those that play with one. The check's replays are kept in `replays` as
/// `check-ID.jsonl.gz`, for the bot's author.
pub fn check_players(
    arena: &dyn Arena,
    players: &mut [Contestant],
    jobs: usize,
    replays: &Path,
    keep_failing: bool,
) -> Vec<(usize, String)> {
    let todo: Vec<usize> = (0..players.len())
        .filter(|&i| needs_check(&players[i]))
        .collect();
    let verdicts: Mutex<Vec<(usize, Verdict)>> = Mutex::new(Vec::new());
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
    let mut warnings = Vec::new();
    for (i, verdict) in verdicts.into_inner().expect("threads joined") {
        match verdict {
            Verdict::Pass => {}
            Verdict::Warning(why) => warnings.push((i, why)),
            Verdict::Fail(reason) => {
                players[i].status = if keep_failing {
                    Status::Kept
                } else {
                    Status::Failing
                };
                players[i].reason = Some(reason);
            }
        }
    }
    warnings.sort();
    warnings
}

/// Times a check is played when Arbiter or the machine failed it, not the bot.
const CHECK_ATTEMPTS: u32 = 3;

fn check_one(arena: &dyn Arena, player: &Contestant, replays: &Path) -> Verdict {
    let spec = match players::seat_spec(player) {
        Ok(spec) => spec,
        Err(e) => return Verdict::Fail(e.to_string()),
    };
    let file = replays.join(check_replay_name(&player.id));
    let mut attempt = 1;
    loop {
        match arena.check(&spec, &file) {
            Ok(report) => {
                let first_fault = report.bots[0].first_fault;
                return match replays::first_turn(&file, 0) {
                    Err(e) => Verdict::Fail(format!("could not be checked: {e}")),
                    Ok(Ok(())) => Verdict::Pass,
                    // The first fault of the match is the one up to the first turn.
                    Ok(Err(why)) if first_fault == Some(Fault::Illegal(())) => {
                        Verdict::Warning(why)
                    }
                    Ok(Err(why)) => Verdict::Fail(why),
                };
            }
            Err(PlayFailure::CannotStart { reason, .. }) => return Verdict::Fail(reason),
            Err(PlayFailure::Arbiter(error)) if attempt == CHECK_ATTEMPTS => {
                return Verdict::Fail(format!("could not be checked ({attempt} tries): {error}"));
            }
            Err(PlayFailure::Arbiter(_)) => attempt += 1,
        }
    }
}

/// The file name of the check's replay of the player `id`, in the tournament's replays folder.
pub fn check_replay_name(id: &str) -> String {
    format!("check-{}.jsonl.gz", file_safe(id))
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
        let verdict = check_one(&flaky(CHECK_ATTEMPTS - 1), &player, &dir);
        assert_eq!(verdict, Verdict::Pass);
        match check_one(&flaky(CHECK_ATTEMPTS), &player, &dir) {
            Verdict::Fail(why) => assert!(why.starts_with("could not be checked (3 tries)")),
            other => panic!("{other:?}"),
        }
    }

    /// A Domino player whose program answers the check's lines with `answers`.
    fn scripted(dir: &Path, answers: &[&str]) -> Contestant {
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../referee/tests/bots/scripted.py"
        );
        let quoted: Vec<String> = answers.iter().map(|a| format!("'{a}'")).collect();
        Contestant {
            command: Some(format!("python3 {script} - {}", quoted.join(" "))),
            folder: Some(dir.to_owned()),
            ..Contestant::builtin("scripted")
        }
    }

    #[test]
    fn the_check_fails_a_bot_off_the_protocol_and_warns_of_an_illegal_first_move() {
        let dir = crate::scratch_dir("check-protocol");
        let arena = flaky(0);
        let verdict = |answers: &[&str]| check_one(&arena, &scripted(&dir, answers), &dir);
        // Cells not side by side: a well-formed move against the rules.
        match verdict(&["ok", "ok", "{0;0},{2;2}"]) {
            Verdict::Warning(why) => assert!(why.contains("not side by side"), "{why}"),
            other => panic!("an illegal first move: {other:?}"),
        }
        for (answers, what) in [
            (&["ok", "ok", "hello"][..], "a malformed move"),
            (&["nope"][..], "a wrong acknowledgement"),
            (&["ok", "@hang"][..], "no answer"),
            (&["ok", "@exit:3"][..], "an exit"),
        ] {
            assert!(
                matches!(verdict(answers), Verdict::Fail(_)),
                "{what} must fail the check"
            );
        }
    }
}
