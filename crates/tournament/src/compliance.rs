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

fn check_one(arena: &dyn Arena, player: &Contestant, replays: &Path) -> Result<(), String> {
    let spec = players::seat_spec(player).map_err(|e| e.to_string())?;
    let file = replays.join(format!("check-{}.jsonl.gz", file_safe(&player.id)));
    match arena.check(&spec, &file) {
        Ok(_) => replays::first_turn(&file, 0).map_err(|e| format!("could not be checked: {e}"))?,
        Err(PlayFailure::CannotStart { reason, .. }) => Err(reason),
        Err(PlayFailure::Arbiter(error)) => Err(format!("could not be checked: {error}")),
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
