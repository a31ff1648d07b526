//! Pass 1: each turn inferred from the blocks around it, and the last turn, which no block
//! follows, from how the game ended.

use arbiter_games::labyrinth::{
    Action, Cell, Code, Goto, Init, Push, class_of, push_tiles, pushed_cell, reach,
};

use super::parse::{Block, Log, cell};
use super::{ImportError, Place};

/// A turn as pass 1 infers it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    pub action: Action,
    /// The display the seat used, if any.
    pub scored: Option<usize>,
    /// Where the seat's walk ended when it walked without scoring: its current target cannot
    /// have been there.
    pub walked_to: Option<Cell>,
}

/// What pass 1 learns: the turns, and what the replay should say about them.
#[derive(Debug)]
pub(super) struct Inferred {
    /// Every turn, the last one included when it could be inferred.
    pub turns: Vec<Turn>,
    /// Whether the last turn was inferred (it is the last of `turns`).
    pub final_inferred: bool,
    /// Whether the log ends at the round limit.
    pub ends_at_limit: bool,
    /// What the replay says about the last turn.
    pub final_note: String,
    pub void_turns: usize,
    pub ambiguous_pushes: usize,
}

fn index(width: usize, c: Cell) -> usize {
    c.y as usize * width + c.x as usize
}

pub(super) fn moved(width: usize, height: usize, push: Push, c: Cell) -> Cell {
    let (x, y) = pushed_cell(width, height, push, c.x as usize, c.y as usize);
    cell(x, y)
}

/// The pushes a seat with `extra` may play on a board with `blocked` lines, in the robots' order.
fn valid_pushes(init: &Init, extra: u8) -> Vec<Push> {
    let (class, n) = class_of(extra);
    let mut out = Vec::new();
    for c in 0..2u8 {
        let lines = if c == 0 { init.height } else { init.width };
        for p in 0..2u8 {
            for k in 0..lines {
                let blocked = init
                    .blocked
                    .iter()
                    .any(|b| usize::from(if c == 0 { b.y } else { b.x }) == k);
                if blocked {
                    continue;
                }
                for &t in &class[..n] {
                    out.push(Push::new(c, p, k as u8, t));
                }
            }
        }
    }
    out
}

fn turn_error(turn: usize, block: &Block, problem: String) -> ImportError {
    ImportError::Turn {
        place: Place::of(turn, block),
        problem,
    }
}

/// Checks what the first block says against the init block.
fn check_start(log: &Log) -> Result<(), ImportError> {
    let init = &log.init;
    let seats = init.names.len();
    if init.seat >= seats {
        let seat = init.seat;
        return Err(ImportError::Level(format!(
            "PLAYER {seat} in the init block, but PLAYERS names {seats}"
        )));
    }
    let first = &log.blocks[0];
    let numbered = first.displays.iter().enumerate().all(|(i, (d, _))| *d == i);
    if first.displays.len() != init.displays || !numbered {
        return Err(ImportError::Level(format!(
            "the first turn block (line {}) lists {} displays, DISPLAYS says {}",
            first.line,
            first.displays.len(),
            init.displays
        )));
    }
    Ok(())
}

/// Pass 1 over the whole log.
pub(super) fn infer_all(log: &Log) -> Result<Inferred, ImportError> {
    check_start(log)?;
    let (init, blocks) = (&log.init, &log.blocks);
    let mut inferred = Inferred {
        turns: Vec::new(),
        final_inferred: false,
        ends_at_limit: false,
        final_note: String::new(),
        void_turns: 0,
        ambiguous_pushes: 0,
    };
    let mut extras = vec![15u8; init.names.len()];
    for (i, pair) in blocks.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let mut turn = infer(init, i, a, b, extras[a.player], &mut inferred)?;
        // The logging seat reads what became of its turn in its next block.
        if a.player == init.seat
            && let Some(code) = blocks[i + 1..]
                .iter()
                .find(|x| x.player == init.seat)
                .and_then(|x| x.private.as_ref())
                .and_then(|p| Code::parse(&p.message))
        {
            turn.action = corrected(turn.action, code);
        }
        if let Some(push) = turn.action.push() {
            let mut tiles = a.fields.clone();
            extras[a.player] = push_tiles(&mut tiles, init.width, init.height, push);
        }
        inferred.turns.push(turn);
    }
    let last = blocks.len() - 1;
    let (final_turn, note) = last_turn(log, last, extras[blocks[last].player])?;
    inferred.ends_at_limit = ends_at_limit(init, &blocks[last]);
    inferred.final_inferred = final_turn.is_some();
    inferred.turns.extend(final_turn);
    inferred.final_note = note;
    Ok(inferred)
}

/// The turn the blocks show, as the code the logging seat was told corrects it: a void turn
/// for a reason, a walk the server refused.
fn corrected(action: Action, code: Code) -> Action {
    match (action, code) {
        (Action::Void(_), code) if code != Code::Ok => Action::Void(code),
        (
            Action::Move {
                push,
                goto: Goto::None,
            },
            Code::BadGoto,
        ) => Action::PushOnly(push),
        (action, _) => action,
    }
}

fn ends_at_limit(init: &Init, last: &Block) -> bool {
    last.tick.checked_add(1) == Some(init.max_tick) && last.player + 1 == init.names.len()
}

/// Pass 1 for the turn between blocks `a` and `b`.
fn infer(
    init: &Init,
    turn: usize,
    a: &Block,
    b: &Block,
    extra: u8,
    f: &mut Inferred,
) -> Result<Turn, ImportError> {
    let same_board = a.fields == b.fields && a.displays == b.displays;
    if same_board && a.positions == b.positions {
        f.void_turns += 1;
        return Ok(Turn {
            action: Action::Void(Code::NoPush),
            scored: None,
            walked_to: None,
        });
    }
    let fitting = fitting_pushes(init, a, b, extra).map_err(|e| turn_error(turn, a, e))?;
    // Of the pushes that give the next FIELDS, one under which everything else fits.
    let mut problems = Vec::new();
    let mut found = Vec::new();
    for &push in &fitting {
        match explain(init, a, b, push) {
            Ok(turn) => found.push(turn),
            Err(e) => problems.push(format!("{push}: {e}")),
        }
    }
    if found.len() > 1 {
        f.ambiguous_pushes += 1;
    }
    found.into_iter().next().ok_or_else(|| {
        let problem = format!(
            "{} turns FIELDS into the next block's, but {}",
            fitting[0],
            problems.join("; ")
        );
        turn_error(turn, a, problem)
    })
}

/// The pushes that turn FIELDS of `a` into FIELDS of `b`; if none does, why, with the closest.
fn fitting_pushes(init: &Init, a: &Block, b: &Block, extra: u8) -> Result<Vec<Push>, String> {
    let (w, h) = (init.width, init.height);
    let mut fitting = Vec::new();
    let mut closest: Option<(usize, Push, Vec<u8>)> = None;
    for push in valid_pushes(init, extra) {
        let mut tiles = a.fields.clone();
        push_tiles(&mut tiles, w, h, push);
        let wrong = tiles.iter().zip(&b.fields).filter(|(x, y)| x != y).count();
        if wrong == 0 {
            fitting.push(push);
        } else if closest.as_ref().is_none_or(|c| wrong < c.0) {
            closest = Some((wrong, push, tiles));
        }
    }
    if !fitting.is_empty() {
        return Ok(fitting);
    }
    let mut why = format!(
        "no push with a rotation of the extra tile {extra} turns FIELDS of log line {} into \
         FIELDS of log line {}",
        a.line, b.line
    );
    if let Some((wrong, push, tiles)) = closest {
        let i = tiles.iter().zip(&b.fields).position(|(x, y)| x != y);
        let i = i.unwrap_or(0);
        why += &format!(
            "; the closest, {push}, leaves {wrong} tile(s) different: FIELDS differs at ({}, {}): \
             ours {} log {}",
            i % w,
            i / w,
            tiles[i],
            b.fields[i]
        );
    }
    Err(why)
}

/// Checks that the princesses of the seats not on turn are carried by `push` where `b` has them.
fn carried_seats(init: &Init, a: &Block, b: &Block, push: Push) -> Result<(), String> {
    let (w, h) = (init.width, init.height);
    for (s, (&before, &after)) in a.positions.iter().zip(&b.positions).enumerate() {
        let carried = moved(w, h, push, before);
        if s != a.player && carried != after {
            return Err(format!(
                "seat {s} would be carried to ({}, {}), the log has it at ({}, {})",
                carried.x, carried.y, after.x, after.y
            ));
        }
    }
    Ok(())
}

/// The display used in the turn `push` makes of `a` → `b` and where it was, if one is gone;
/// checks the others are carried where `b` has them.
fn used_display(
    init: &Init,
    a: &Block,
    b: &Block,
    push: Push,
) -> Result<Option<(usize, Cell)>, String> {
    let (w, h) = (init.width, init.height);
    let mut scored = None;
    for &(d, before) in &a.displays {
        let carried = moved(w, h, push, before);
        match b.displays.iter().find(|(e, _)| *e == d) {
            Some(&(_, after)) if after == carried => {}
            Some(&(_, after)) => {
                return Err(format!(
                    "display {d} would be carried to ({}, {}), the log has it at ({}, {})",
                    carried.x, carried.y, after.x, after.y
                ));
            }
            None if scored.is_none() => scored = Some((d, carried)),
            None => return Err("more than one display is gone".into()),
        }
    }
    let new = b
        .displays
        .iter()
        .find(|(d, _)| !a.displays.iter().any(|(e, _)| e == d));
    if let Some(&(d, _)) = new {
        return Err(format!("display {d} appears"));
    }
    Ok(scored)
}

/// The turn `push` makes of blocks `a` → `b`, if the princesses and displays agree with it.
fn explain(init: &Init, a: &Block, b: &Block, push: Push) -> Result<Turn, String> {
    let (w, h) = (init.width, init.height);
    let k = a.player;
    carried_seats(init, a, b, push)?;
    let scored = used_display(init, a, b, push)?;
    let mut tiles = a.fields.clone();
    push_tiles(&mut tiles, w, h, push);
    let start = moved(w, h, push, a.positions[k]);
    let end = b.positions[k];
    if !reach(&tiles, w, h, index(w, start)).contains(index(w, end)) {
        return Err(format!(
            "seat {k} is carried to ({}, {}) and cannot walk to ({}, {}) where the log has it",
            start.x, start.y, end.x, end.y
        ));
    }
    if let Some((d, c)) = scored
        && c != end
    {
        return Err(format!(
            "display {d} is gone, but seat {k} ends at ({}, {}), not on its cell ({}, {})",
            end.x, end.y, c.x, c.y
        ));
    }
    let goto = if scored.is_some() || start != end {
        Goto::Cell(end.x, end.y)
    } else {
        Goto::None
    };
    Ok(Turn {
        action: Action::Move { push, goto },
        scored: scored.map(|(d, _)| d),
        walked_to: (scored.is_none() && goto != Goto::None).then_some(end),
    })
}

/// The last turn, had it used display `d` at cell `c`: the first push that lets its seat reach
/// it, and how many do.
fn scoring(init: &Init, last: &Block, extra: u8, d: usize, c: Cell) -> Option<(Turn, Push, usize)> {
    let (w, h) = (init.width, init.height);
    let k = last.player;
    let reaches = |push: Push| {
        let mut tiles = last.fields.clone();
        push_tiles(&mut tiles, w, h, push);
        let start = moved(w, h, push, last.positions[k]);
        let target = moved(w, h, push, c);
        reach(&tiles, w, h, index(w, start)).contains(index(w, target))
    };
    let pushes: Vec<Push> = valid_pushes(init, extra)
        .into_iter()
        .filter(|&p| reaches(p))
        .collect();
    let &push = pushes.first()?;
    let end = moved(w, h, push, c);
    let turn = Turn {
        action: Action::goto(push, end.x, end.y),
        scored: Some(d),
        walked_to: None,
    };
    Some((turn, push, pushes.len()))
}

/// The last turn, which no block follows, if the end of the game tells it, and the note that
/// says how it was found (or why not).
fn last_turn(log: &Log, turn: usize, extra: u8) -> Result<(Option<Turn>, String), ImportError> {
    let (init, last) = (&log.init, &log.blocks[turn]);
    let k = last.player;
    let fail = |problem: String| turn_error(turn, last, problem);
    if !ends_at_limit(init, last) {
        // The game stopped early: this turn used the last display.
        let [(d, c)] = last.displays[..] else {
            return Err(ImportError::Level(format!(
                "the log ends after {} (line {}) with {} displays active and rounds to go: a \
                 game ends early only when its last display is used",
                Place::of(turn, last),
                last.line,
                last.displays.len()
            )));
        };
        let (found, push, count) = scoring(init, last, extra, d, c).ok_or_else(|| {
            fail(format!(
                "the game ended there, so seat {k} used display {d}, but no push lets it reach it"
            ))
        })?;
        let note = format!(
            "the last turn (seat {k} uses the last display, {d}) is inferred: the game ended \
             there; {count} push(es) let it reach the display, {push} is shown"
        );
        return Ok((Some(found), note));
    }
    if k == init.seat
        && let (Some(score), Some(private)) = (log.score, last.private.as_ref())
        && score == private.score + 1
    {
        let d = private
            .target
            .ok_or_else(|| fail("SCORE counts a point, but no TARGET was left".into()))?;
        let c = last.displays.iter().find(|(e, _)| *e == d).map(|(_, c)| *c);
        let c = c.ok_or_else(|| fail(format!("TARGET {d} is not an active display")))?;
        let (found, push, count) = scoring(init, last, extra, d, c).ok_or_else(|| {
            fail(format!(
                "SCORE says seat {k} scored its target {d}, but no push lets it reach it"
            ))
        })?;
        let note = format!(
            "the last turn (seat {k}, round {}) is inferred from SCORE: it used its target {d}; \
             {count} push(es) let it reach it, {push} is shown",
            last.tick
        );
        return Ok((Some(found), note));
    }
    let why = if k == init.seat {
        " and SCORE shows no point in it"
    } else {
        ""
    };
    let note = format!(
        "the last turn (seat {k}, round {}) is not in the log: no block follows it{why}; the \
         replay stops before it and its scores leave it out",
        last.tick
    );
    Ok((None, note))
}
