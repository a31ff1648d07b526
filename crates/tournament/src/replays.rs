//! What the tournament reads back from a match's replay: the turns each bot answered (for the
//! time per move), and whether a bot answered its first turn correctly (the compliance check).

use std::path::Path;

use arbiter_replay::{Record, ReplayReader};

/// How many requests each of `players` seats was sent and timed, from the replay at `path`.
pub fn turns(path: &Path, players: usize) -> Result<Vec<u32>, String> {
    let mut counts = vec![0u32; players];
    for_each_tick(path, |tick| {
        for (seat, bot) in tick.bots.iter().enumerate().take(players) {
            if bot.time_ms.is_some() {
                counts[seat] += 1;
            }
        }
        true
    })?;
    Ok(counts)
}

/// Whether seat `seat` got through its start and its first turn without a fault; the fault and
/// the end of the bot's stderr otherwise.
pub fn first_turn(path: &Path, seat: usize) -> Result<Result<(), String>, String> {
    let mut verdict = Ok(());
    let mut log = String::new();
    for_each_tick(path, |tick| {
        let Some(bot) = tick.bots.get(seat) else {
            return false;
        };
        log.push_str(&bot.log);
        if let Some(error) = &bot.error {
            verdict = Err(with_log(error, &log));
            return false;
        }
        tick.player != Some(seat)
    })?;
    Ok(verdict)
}

fn for_each_tick(
    path: &Path,
    mut f: impl FnMut(&arbiter_replay::Tick) -> bool,
) -> Result<(), String> {
    let what = |e: &dyn std::fmt::Display| format!("reading the replay {}: {e}", path.display());
    let mut reader = ReplayReader::open(path).map_err(|e| what(&e))?;
    while let Some(record) = reader.next_record().map_err(|e| what(&e))? {
        if let Record::Tick(tick) = record
            && !f(&tick)
        {
            break;
        }
    }
    Ok(())
}

/// The fault with the end of what the bot wrote to stderr, where the cause usually is.
fn with_log(error: &str, log: &str) -> String {
    let log = log.trim();
    if log.is_empty() {
        return error.to_owned();
    }
    let chars: Vec<char> = log.chars().collect();
    let tail: String = chars[chars.len().saturating_sub(300)..].iter().collect();
    format!("{error} (its stderr ends: {})", tail.replace('\n', " | "))
}
