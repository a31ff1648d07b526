//! Pass 2: the whole game through our engine, every block it would send compared with the one
//! logged, written as replay records.

use arbiter_games::labyrinth::{Action, Labyrinth, Level, Setup};
use arbiter_games::{Game, Recorded, SessionMode};

use crate::{record, record_action};
use arbiter_replay::{BotSummary, BotTick, Header, MatchResult, Message, Player, PlayerKind};
use arbiter_replay::{Record, Tick};
use serde_json::{Value, json};

use super::infer::Inferred;
use super::parse::{Block, Log};
use super::targets::all_targets;
use super::{ImportError, Place};

/// The replay records of the game in `log`, with the turns pass 1 inferred.
pub(super) fn rebuild(
    log: &Log,
    inferred: &Inferred,
    source: &str,
) -> Result<Vec<Record>, ImportError> {
    let mut game = start(log, all_targets(log, inferred)?)?;
    let header = Header::new(
        Labyrinth::NAME,
        settings(&game, log, inferred, source),
        0,
        players(log),
    );
    let seats = log.init.names.len();
    let mut records = vec![
        Record::Header(header),
        Record::Tick(Tick {
            tick: 0,
            player: None,
            action: Tick::start_action(),
            state: record(game.snapshot()),
            bots: vec![BotTick::default(); seats],
        }),
    ];
    for i in 0..inferred.turns.len() {
        records.push(Record::Tick(play_turn(&mut game, log, inferred, i)?));
    }
    let (last_turn, last) = (log.blocks.len() - 1, &log.blocks[log.blocks.len() - 1]);
    if inferred.final_inferred && !game.is_over() {
        return Err(ImportError::Turn {
            place: Place::of(last_turn, last),
            problem: "our game is not over after the inferred last turn".into(),
        });
    }
    // The logging client's SCORE is the last check.
    let seat = log.init.seat;
    if let Some(score) = log.score
        && score != game.score(seat)
    {
        return Err(ImportError::Score {
            ours: game.score(seat),
            log: score,
            seat,
        });
    }
    records.push(Record::Result(result(&game, log)));
    Ok(records)
}

/// The game at the start of the log, with `targets` for every seat.
fn start(log: &Log, targets: Vec<Vec<u8>>) -> Result<Labyrinth, ImportError> {
    let (init, first) = (&log.init, &log.blocks[0]);
    let level = |e: String| ImportError::Level(format!("the level of the log: {e}"));
    let level = Level::new(
        init.width,
        init.height,
        first.fields.clone(),
        init.blocked.clone(),
        first.displays.iter().map(|(_, c)| *c).collect(),
        init.max_tick,
        targets,
        first.positions.clone(),
    )
    .map_err(level)?;
    let setup = Setup {
        level,
        level_number: init.level_number,
        game_id: init.game_id,
        names: init.names.clone(),
        session: SessionMode::Alone,
    };
    Labyrinth::from_setup(setup)
        .map_err(|e| ImportError::Level(format!("the level of the log: {}", e.reason)))
}

/// The game's settings with what the replay says about the import (`note`, `import`).
fn settings(game: &Labyrinth, log: &Log, inferred: &Inferred, source: &str) -> Value {
    let init = &log.init;
    let mut notes = vec![format!(
        "rebuilt from {source}, the client log of seat {} ({}): the replies are inferred from \
         the blocks; TARGETS of the other seats are reconstructed to fit what they scored, \
         not observed",
        init.seat, init.names[init.seat]
    )];
    notes.push(inferred.final_note.clone());
    if inferred.void_turns > 0 {
        notes.push(format!(
            "{} void turn(s): the log does not say why for other seats (shown as NO_PUSH)",
            inferred.void_turns
        ));
    }
    let final_turn = if !inferred.final_inferred && inferred.ends_at_limit {
        "unknown"
    } else {
        "inferred"
    };
    let mut settings = record(game.settings_record());
    settings["note"] = json!(notes.join("; "));
    settings["import"] = json!({
        "format": "graphisoft-log",
        "source": source,
        "logging_seat": init.seat,
        "observed_targets": [init.seat],
        "void_turns": inferred.void_turns,
        "ambiguous_pushes": inferred.ambiguous_pushes,
        "final_turn": final_turn,
        "notes": notes,
    });
    settings
}

fn players(log: &Log) -> Vec<Player> {
    let player = |name: &String| Player {
        name: name.clone(),
        kind: PlayerKind::Tcp,
        command: None,
    };
    log.init.names.iter().map(player).collect()
}

/// Turn `i`: the block before it compared with ours, then the turn played.
fn play_turn(
    game: &mut Labyrinth,
    log: &Log,
    inferred: &Inferred,
    i: usize,
) -> Result<Tick, ImportError> {
    let (init, blocks) = (&log.init, &log.blocks);
    let block = blocks.get(i);
    if let Some(block) = block {
        compare_block(game, log, i, block)?;
    }
    let turn = inferred.turns[i];
    let seat = game.seat_on_turn();
    match turn.action {
        Action::Move { .. } => game.apply(turn.action).map_err(|e| ImportError::Turn {
            place: Place::of(i, block.unwrap_or(&blocks[blocks.len() - 1])),
            problem: format!("our rules refuse the turn the blocks show: {e}"),
        })?,
        other => game.apply_unchecked(other),
    }
    // The logging client received every turn block; the others' blocks are not in the log.
    let mut bots = vec![BotTick::default(); init.names.len()];
    if let Some(block) = block {
        bots[init.seat].received.push(Message {
            at_ms: 0.0,
            text: block.text.clone() + ".\n",
        });
    }
    Ok(Tick {
        tick: game.tick(),
        player: Some(seat),
        action: record_action(game, turn.action),
        state: record(game.snapshot()),
        bots,
    })
}

/// Checks the block our engine sends before turn `i` against the logged one.
fn compare_block(game: &Labyrinth, log: &Log, i: usize, block: &Block) -> Result<(), ImportError> {
    let seat = log.init.seat;
    let mut ours = String::new();
    game.write_turn((block.player == seat).then_some(seat), &mut ours);
    let Some(difference) = block_difference(&ours, block, log.init.width) else {
        return Ok(());
    };
    // The block before the first turn shows the level; every later one the turn before it.
    let place = match i {
        0 => format!("the first turn block (log line {})", block.line),
        _ => format!(
            "{} (next block: log line {})",
            Place::of(i - 1, &log.blocks[i - 1]),
            block.line
        ),
    };
    Err(ImportError::Differs { place, difference })
}

/// The line of `ours` and of `log` that differ first, by keyword, as `<field> differs: ours …
/// log …`.
fn block_difference(ours: &str, log: &Block, width: usize) -> Option<String> {
    let theirs: Vec<&str> = log.text.lines().collect();
    let ours: Vec<&str> = ours.lines().filter(|l| *l != ".").collect();
    let i = (0..ours.len().max(theirs.len())).find(|&i| ours.get(i) != theirs.get(i))?;
    let (a, b) = (ours.get(i).copied(), theirs.get(i).copied());
    fn key(l: Option<&str>) -> &str {
        l.and_then(|l| l.split_whitespace().next()).unwrap_or("end")
    }
    let field = if key(a) == key(b) { key(a) } else { key(b) };
    if field == "FIELDS"
        && let (Some(a), Some(b)) = (a, b)
        && let Some(difference) = fields_difference(a, b, width)
    {
        return Some(difference);
    }
    Some(format!(
        "{field} differs: ours `{}` log `{}`",
        a.unwrap_or("nothing"),
        b.unwrap_or("nothing")
    ))
}

/// The first tile two FIELDS lines differ in, with its cell.
fn fields_difference(ours: &str, log: &str, width: usize) -> Option<String> {
    let (xs, ys): (Vec<&str>, Vec<&str>) = (
        ours.split_whitespace().collect(),
        log.split_whitespace().collect(),
    );
    let j = (1..xs.len().min(ys.len())).find(|&j| xs[j] != ys[j])?;
    let c = j - 1;
    Some(format!(
        "FIELDS differs at ({}, {}): ours {} log {}",
        c % width,
        c / width,
        xs[j],
        ys[j]
    ))
}

/// The result: the engine's outcome, or the places by score at the round limit.
fn result(game: &Labyrinth, log: &Log) -> MatchResult {
    let scores: Vec<f64> = game.scores().iter().map(|&s| f64::from(s)).collect();
    let (reason, placement) = match game.outcome() {
        Some(o) => (o.reason.to_string(), o.placement),
        None => (
            "tick_limit".to_string(),
            scores
                .iter()
                .map(|&mine| 1 + scores.iter().filter(|&&o| o > mine).count() as u32)
                .collect(),
        ),
    };
    let summary = |name: &String| BotSummary {
        name: name.clone(),
        errors: 0,
        timeouts: 0,
        crashed: false,
    };
    MatchResult {
        ticks: game.tick(),
        reason,
        scores,
        placement,
        bots: log.init.names.iter().map(summary).collect(),
    }
}
