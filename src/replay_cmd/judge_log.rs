//! The `.log` file of the Java Domino judge (`specs/domino.md` §3, "Log") from an Arbiter replay
//! of Domino, for users who keep the judge's replay viewer. The layout is
//! [`arbiter_games::domino::JudgeLog`]'s; this module reads it out of a replay.

use std::path::Path;

use anyhow::{Context, Result, bail};
use arbiter_games::Wire;
use arbiter_games::domino::{Cell, Domino, JudgeLog, JudgeLogEnd, Placement, Settings};
use arbiter_replay::{Replay, read_replay};
use serde_json::Value;

/// The judge's log of the Domino match recorded in `path`.
pub fn export(path: &Path) -> Result<String> {
    let replay =
        read_replay(path).with_context(|| format!("cannot read replay {}", path.display()))?;
    Ok(judge_log(&replay)
        .with_context(|| format!("{}", path.display()))?
        .to_string())
}

/// The judge has no way to load a log back into a match: its logs leave out how the match
/// ended and the obstacle order it was sent in.
pub fn import(_log: &Path, _output: &Path) -> Result<()> {
    bail!(
        "the judge's .log cannot be read back into a replay: it does not say how the match \
         ended, nor the coordinate order the bots were sent; only `replay export` writes it"
    )
}

pub fn judge_log(replay: &Replay) -> Result<JudgeLog> {
    let header = &replay.header;
    if header.game != "domino" {
        bail!(
            "a replay of {}: the judge's log is for domino only",
            header.game
        );
    }
    let settings: Settings =
        serde_json::from_value(header.settings.clone()).context("the replay's Domino settings")?;
    let game = Domino::new(settings)?;
    let mut obstacles = String::new();
    game.write_obstacles(&mut obstacles);
    let alias = |p: usize| {
        header
            .players
            .get(p)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    };

    // The acknowledgements the judge would have written OK for: the answers of tick 0 that
    // pass, except one that answers the request its bot was faulted on (it came too late).
    let mut acks = 0;
    if let Some(start) = replay.ticks.first() {
        for bot in &start.bots {
            let ok = |text: &str| Domino::PROTOCOL.start.check_ack(text).is_ok();
            let passed = bot.sent.iter().filter(|m| ok(&m.text)).count();
            let answered_all = bot.sent.len() >= bot.received.len();
            let late =
                bot.error.is_some() && answered_all && bot.sent.last().is_some_and(|m| ok(&m.text));
            acks += passed - usize::from(late);
        }
    }
    let moves = replay
        .ticks
        .iter()
        .skip(1)
        .filter(|t| t.action["kind"] == "place")
        .map(|t| placement(&t.action))
        .collect::<Result<Vec<_>>>()?;
    // The judge wrote ERROR when it could see the answer was wrong, and nothing on a timeout.
    let wrong_answer = replay
        .result
        .as_ref()
        .is_some_and(|r| r.reason == "malformed" || r.reason == "illegal");
    Ok(JudgeLog {
        size: game.size(),
        obstacles,
        players: [alias(0), alias(1)],
        acks,
        moves,
        end: if wrong_answer {
            JudgeLogEnd::Error
        } else {
            JudgeLogEnd::Clean
        },
    })
}

/// A placement from a replay's action: `{"kind": "place", "cells": [[x1, y1], [x2, y2]]}`.
fn placement(action: &Value) -> Result<Placement> {
    let cell = |i: usize| -> Option<Cell> {
        let c = action["cells"].get(i)?;
        Some(Cell::new(
            u16::try_from(c.get(0)?.as_u64()?).ok()?,
            u16::try_from(c.get(1)?.as_u64()?).ok()?,
        ))
    };
    match (cell(0), cell(1)) {
        (Some(a), Some(b)) => Ok(Placement::new(a, b)),
        _ => bail!("a placement without its two cells: {action}"),
    }
}
