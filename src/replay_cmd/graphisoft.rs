//! Logs of the GRAPHISOFT 2017 final (`specs/labyrinth.md` §4) read into replays of Labyrinth.
//!
//! A log is what one team's client received during one game: the init block, the turn block
//! sent before every turn of every seat, and the after-game `SCORE` block. The replies are not
//! in it, so each turn is inferred from the block before it and the block after it (pass 1):
//! the push that turns one FIELDS into the next with princesses and displays carried along,
//! then the walk that brings the princess where the next block has it. Pass 2 plays the whole
//! game through our engine with those turns and compares every block the engine would have
//! sent with the one in the log: any difference stops the import.
//!
//! Only the logging seat's TARGETS is in the log. The others are rebuilt: the displays a seat
//! scored, in that order, then an order under which the seat's current target is never a cell
//! its walk ended on without scoring. The replay says so in its settings (`import`).

use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use arbiter_games::labyrinth::{
    Action, Cell, Code, Goto, Init, Labyrinth, Level, Push, Setup, class_of, push_tiles,
    pushed_cell, reach,
};
use arbiter_games::{Game, SessionMode, Wire};
use arbiter_replay::{
    BotSummary, BotTick, Header, MatchResult, Message, Player, PlayerKind, ReplayWriter, Tick,
};
use serde_json::json;

/// The part of a turn block only the seat on turn gets.
#[derive(Clone, Debug)]
struct Private {
    message: String,
    target: Option<usize>,
    score: u32,
}

/// A turn block.
#[derive(Clone, Debug)]
struct Block {
    /// Line of the log its TICK is on.
    line: usize,
    tick: u32,
    fields: Vec<u8>,
    displays: Vec<(usize, Cell)>,
    positions: Vec<Cell>,
    player: usize,
    private: Option<Private>,
    /// The block as received, for the debug panel.
    text: String,
}

#[derive(Debug)]
struct Log {
    init: Init,
    blocks: Vec<Block>,
    /// `SCORE s st sf`: the logging seat's points in this game.
    score: Option<u32>,
}

fn numbers<T: std::str::FromStr>(words: &[&str], line: usize) -> Result<Vec<T>> {
    words
        .iter()
        .map(|w| {
            w.parse()
                .map_err(|_| anyhow!("line {line}: `{w}` is not a number"))
        })
        .collect()
}

fn cell(x: usize, y: usize) -> Cell {
    Cell::new(x as u8, y as u8)
}

fn parse(text: &str) -> Result<Log> {
    // Blocks end with a line holding `.`; each keeps the line number of its first line.
    let mut blocks: Vec<(usize, Vec<(usize, &str)>)> = Vec::new();
    let mut current: Vec<(usize, &str)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line == "." {
            if let Some(&(first, _)) = current.first() {
                blocks.push((first, std::mem::take(&mut current)));
            }
            continue;
        }
        current.push((i + 1, line));
    }
    if let Some(&(first, _)) = current.first() {
        blocks.push((first, current));
    }
    let mut init: Option<Init> = None;
    let mut turns = Vec::new();
    let mut score = None;
    for (first, lines) in &blocks {
        let keyword = lines[0].1.split_whitespace().next().unwrap_or("");
        match keyword {
            "ID" if init.is_none() => init = Some(parse_init(lines)?),
            "TICK" => {
                let init = init
                    .as_ref()
                    .ok_or_else(|| anyhow!("line {first}: a turn block before the init block"))?;
                turns.push(parse_block(lines, init)?);
            }
            "SCORE" => {
                let words: Vec<&str> = lines[0].1.split_whitespace().collect();
                score = Some(
                    words
                        .get(1)
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| anyhow!("line {first}: SCORE without a number"))?,
                );
            }
            // Login answers, NEXTSTART and END carry nothing about the game.
            _ => {}
        }
    }
    let init = init.ok_or_else(|| anyhow!("the log has no init block (ID, PLAYERS, …)"))?;
    if turns.is_empty() {
        bail!("the log has no turn block (TICK, FIELDS, …)");
    }
    Ok(Log {
        init,
        blocks: turns,
        score,
    })
}

/// The init block with nothing unknown in it and nothing missing but BLOCKED: a log the
/// importer does not fully understand is not trusted.
fn parse_init(lines: &[(usize, &str)]) -> Result<Init> {
    let mut init = Init::default();
    let mut seen = Vec::new();
    for &(n, line) in lines {
        let keyword = line.split_whitespace().next().unwrap_or("");
        if !init.read_line(line).map_err(|e| anyhow!("line {n}: {e}"))? {
            bail!("line {n}: `{keyword}` in the init block");
        }
        seen.push(keyword);
    }
    let first = lines[0].0;
    for item in [
        "ID", "PLAYERS", "PLAYER", "LEVEL", "SIZE", "DISPLAYS", "MAXTICK", "TARGETS",
    ] {
        if !seen.contains(&item) {
            bail!("the init block at line {first} has no {item}");
        }
    }
    Ok(init)
}

fn parse_block(lines: &[(usize, &str)], init: &Init) -> Result<Block> {
    let first = lines[0].0;
    let mut tick = None;
    let mut fields = None;
    let mut displays = Vec::new();
    let mut positions: Vec<Option<Cell>> = vec![None; init.names.len()];
    let mut player = None;
    let (mut message, mut target, mut extra, mut score) = (None, None, None, None);
    let mut text = String::new();
    for &(n, line) in lines {
        text.push_str(line);
        text.push('\n');
        let words: Vec<&str> = line.split_whitespace().collect();
        let args = &words[1..];
        let on_board = |x: usize, y: usize| -> Result<Cell> {
            if x >= init.width || y >= init.height {
                bail!(
                    "line {n}: ({x}, {y}) is off the {}×{} board",
                    init.width,
                    init.height
                );
            }
            Ok(cell(x, y))
        };
        match words[0] {
            "TICK" => tick = Some(numbers::<u32>(args, n)?.first().copied().unwrap_or(0)),
            "FIELDS" => {
                let tiles = numbers::<u8>(args, n)?;
                if tiles.len() != init.width * init.height {
                    bail!(
                        "line {n}: FIELDS has {} tiles, SIZE {} {} needs {}",
                        tiles.len(),
                        init.width,
                        init.height,
                        init.width * init.height
                    );
                }
                fields = Some(tiles);
            }
            "DISPLAY" => match numbers::<usize>(args, n)?[..] {
                [d, x, y] if d < init.displays => displays.push((d, on_board(x, y)?)),
                _ => bail!(
                    "line {n}: DISPLAY takes a display below {} and a cell",
                    init.displays
                ),
            },
            "POSITION" => match numbers::<usize>(args, n)?[..] {
                [s, x, y] if s < positions.len() => positions[s] = Some(on_board(x, y)?),
                _ => bail!(
                    "line {n}: POSITION takes a seat below {} and a cell",
                    positions.len()
                ),
            },
            "PLAYER" => player = numbers::<usize>(args, n)?.first().copied(),
            "MESSAGE" => message = Some(args.join(" ")),
            "TARGET" => target = numbers::<usize>(args, n)?.first().copied(),
            "EXTRAFIELD" => extra = numbers::<u8>(args, n)?.first().copied(),
            "GAMESCORE" => score = numbers::<u32>(args, n)?.first().copied(),
            other => bail!("line {n}: `{other}` in a turn block"),
        }
    }
    let private = match (message, extra, score) {
        // EXTRAFIELD is checked with the rest of the block in pass 2.
        (Some(message), Some(_), Some(score)) => Some(Private {
            message,
            target,
            score,
        }),
        (None, None, None) => None,
        _ => bail!("line {first}: MESSAGE, EXTRAFIELD and GAMESCORE come together or not at all"),
    };
    let player = player
        .filter(|&p| p < init.names.len())
        .ok_or_else(|| anyhow!("line {first}: the block names no seat on turn (PLAYER)"))?;
    Ok(Block {
        line: first,
        tick: tick.ok_or_else(|| anyhow!("line {first}: no TICK"))?,
        fields: fields.ok_or_else(|| anyhow!("line {first}: no FIELDS"))?,
        displays,
        positions: positions
            .into_iter()
            .enumerate()
            .map(|(s, p)| p.ok_or_else(|| anyhow!("line {first}: no POSITION of seat {s}")))
            .collect::<Result<_>>()?,
        player,
        private,
        text,
    })
}

/// A turn as pass 1 infers it.
#[derive(Clone, Copy, Debug)]
struct Turn {
    action: Action,
    /// The display the seat used, if any.
    scored: Option<usize>,
    /// Where the seat's walk ended when it walked without scoring: its current target cannot
    /// have been there.
    walked_to: Option<Cell>,
}

/// What pass 1 learns besides the turns.
#[derive(Default, Debug)]
struct Findings {
    void_turns: usize,
    ambiguous_pushes: usize,
    notes: Vec<String>,
}

fn index(width: usize, c: Cell) -> usize {
    c.y as usize * width + c.x as usize
}

fn moved(width: usize, height: usize, push: Push, c: Cell) -> Cell {
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

/// Where a turn is, for messages.
fn at(turn: usize, block: &Block) -> String {
    format!(
        "turn {} (tick {}, seat {}, log line {})",
        turn + 1,
        block.tick,
        block.player,
        block.line
    )
}

/// Pass 1 for the turn between blocks `a` and `b`.
fn infer(
    init: &Init,
    turn: usize,
    a: &Block,
    b: &Block,
    extra: u8,
    f: &mut Findings,
) -> Result<Turn> {
    let (w, h) = (init.width, init.height);
    let here = || at(turn, a);
    let same_board = a.fields == b.fields && a.displays == b.displays;
    if same_board && a.positions == b.positions {
        f.void_turns += 1;
        return Ok(Turn {
            action: Action::Void(Code::NoPush),
            scored: None,
            walked_to: None,
        });
    }
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
    if fitting.is_empty() {
        let mut why = format!(
            "{}: no push with a rotation of the extra tile {extra} turns FIELDS of log line {} \
             into FIELDS of log line {}",
            here(),
            a.line,
            b.line
        );
        if let Some((wrong, push, tiles)) = closest {
            let i = tiles
                .iter()
                .zip(&b.fields)
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            why += &format!(
                "; the closest, {push}, leaves {wrong} tile(s) different: FIELDS differs at \
                 ({}, {}): ours {} log {}",
                i % w,
                i / w,
                tiles[i],
                b.fields[i]
            );
        }
        bail!(why);
    }
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
        anyhow!(
            "{}: {} turns FIELDS into the next block's, but {}",
            here(),
            fitting[0],
            problems.join("; ")
        )
    })
}

/// The turn `push` makes of blocks `a` → `b`, if the princesses and displays agree with it.
fn explain(init: &Init, a: &Block, b: &Block, push: Push) -> Result<Turn> {
    let (w, h) = (init.width, init.height);
    let k = a.player;
    for (s, (&before, &after)) in a.positions.iter().zip(&b.positions).enumerate() {
        let carried = moved(w, h, push, before);
        if s != k && carried != after {
            bail!(
                "seat {s} would be carried to ({}, {}), the log has it at ({}, {})",
                carried.x,
                carried.y,
                after.x,
                after.y
            );
        }
    }
    let mut scored = None;
    for &(d, before) in &a.displays {
        let carried = moved(w, h, push, before);
        match b.displays.iter().find(|(e, _)| *e == d) {
            Some(&(_, after)) if after == carried => {}
            Some(&(_, after)) => bail!(
                "display {d} would be carried to ({}, {}), the log has it at ({}, {})",
                carried.x,
                carried.y,
                after.x,
                after.y
            ),
            None if scored.is_none() => scored = Some((d, carried)),
            None => bail!("more than one display is gone"),
        }
    }
    if let Some(&(d, _)) = b
        .displays
        .iter()
        .find(|(d, _)| !a.displays.iter().any(|(e, _)| e == d))
    {
        bail!("display {d} appears");
    }
    let mut tiles = a.fields.clone();
    push_tiles(&mut tiles, w, h, push);
    let start = moved(w, h, push, a.positions[k]);
    let end = b.positions[k];
    if !reach(&tiles, w, h, index(w, start)).contains(index(w, end)) {
        bail!(
            "seat {k} is carried to ({}, {}) and cannot walk to ({}, {}) where the log has it",
            start.x,
            start.y,
            end.x,
            end.y
        );
    }
    if let Some((d, c)) = scored
        && c != end
    {
        bail!(
            "display {d} is gone, but seat {k} ends at ({}, {}), not on its cell ({}, {})",
            end.x,
            end.y,
            c.x,
            c.y
        );
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

/// Cells of the displays after each turn: `cells[t][d]` after turn t (`None` once used).
type Timeline = Vec<Vec<Option<Cell>>>;

/// TARGETS for a seat whose order was not observed. The displays it scored come in the order it
/// scored them; before each, displays other seats used may be needed as fillers: a seat that
/// walked onto the display it scores later, without scoring it then, was chasing another one
/// at the time. After its last score, at each point the active display that stays clear of its
/// walks longest is picked, and picked again when another seat uses it.
fn rebuild_targets(
    seat: usize,
    turns: &[(usize, Turn)],
    cells: &Timeline,
    used_at: &[Option<usize>],
    displays: usize,
) -> Result<Vec<u8>> {
    let scores: Vec<(usize, usize)> = turns
        .iter()
        .filter_map(|(i, t)| t.scored.map(|d| (d, *i)))
        .collect();
    let walks: Vec<(usize, Cell)> = turns
        .iter()
        .filter_map(|(i, t)| t.walked_to.map(|c| (*i, c)))
        .collect();
    // The first walk of the seat in turns from..until that ends on display d's cell.
    let clash = |d: usize, from: usize, until: usize| {
        walks
            .iter()
            .filter(|(i, _)| (from..until).contains(i))
            .find(|(i, c)| cells[*i][d] == Some(*c))
            .map(|(i, _)| *i)
    };
    let mine = |d: usize| scores.iter().any(|(e, _)| *e == d);
    let mut order: Vec<usize> = Vec::new();
    // Turns before `from` are explained; the next display in `order` is current from it on.
    let mut from = 0;
    for &(d, scored_at) in &scores {
        while let Some(at) = clash(d, from, scored_at) {
            // Another seat's display, current until that seat uses it, covers the walk.
            let filler = (0..displays)
                .filter(|&e| !mine(e) && !order.contains(&e))
                .filter_map(|e| used_at[e].map(|u| (e, u)))
                .filter(|&(e, u)| u >= from && u < scored_at && clash(e, from, u).is_none())
                .max_by_key(|&(e, u)| (u, std::cmp::Reverse(e)));
            let Some((e, u)) = filler else {
                bail!(
                    "seat {seat}: no order of its targets explains the game: at turn {} its walk \
                     ends on display {d} without scoring it, which it scores at turn {}, and no \
                     display another seat used covers the time between",
                    at + 1,
                    scored_at + 1
                );
            };
            order.push(e);
            from = u + 1;
        }
        order.push(d);
        from = scored_at + 1;
    }
    let active_at = |d: usize, t: usize| used_at[d].is_none_or(|u| u >= t);
    loop {
        let candidates: Vec<usize> = (0..displays)
            .filter(|&d| !order.contains(&d) && active_at(d, from))
            .collect();
        let Some(best) = candidates.iter().copied().max_by_key(|&d| {
            let lasts = used_at[d].unwrap_or(usize::MAX);
            match clash(d, from, lasts) {
                None => (1, lasts, std::cmp::Reverse(d)),
                Some(i) => (0, i, std::cmp::Reverse(d)),
            }
        }) else {
            break;
        };
        if let Some(i) = clash(best, from, used_at[best].unwrap_or(usize::MAX)) {
            bail!(
                "seat {seat}: no order of its targets explains the game: at turn {} its walk \
                 ends on display {best} without scoring it, and every other display it could \
                 be chasing has the same trouble",
                i + 1
            );
        }
        order.push(best);
        match used_at[best] {
            Some(u) => from = u + 1,
            None => break,
        }
    }
    for d in 0..displays {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    Ok(order.into_iter().map(|d| d as u8).collect())
}

/// The line of `ours` and of `log` that differ first, by keyword, as `<field> differs: ours …
/// log …`.
fn block_difference(ours: &str, log: &Block, width: usize) -> Option<String> {
    let theirs: Vec<&str> = log.text.lines().collect();
    let ours: Vec<&str> = ours.lines().filter(|l| *l != ".").collect();
    for i in 0..ours.len().max(theirs.len()) {
        let (a, b) = (ours.get(i).copied(), theirs.get(i).copied());
        if a == b {
            continue;
        }
        fn key(l: Option<&str>) -> &str {
            l.and_then(|l| l.split_whitespace().next()).unwrap_or("end")
        }
        let field = if key(a) == key(b) { key(a) } else { key(b) };
        if field == "FIELDS"
            && let (Some(a), Some(b)) = (a, b)
        {
            let (xs, ys): (Vec<&str>, Vec<&str>) = (
                a.split_whitespace().collect(),
                b.split_whitespace().collect(),
            );
            if let Some(j) = (1..xs.len().min(ys.len())).find(|&j| xs[j] != ys[j]) {
                let c = j - 1;
                return Some(format!(
                    "FIELDS differs at ({}, {}): ours {} log {}",
                    c % width,
                    c / width,
                    xs[j],
                    ys[j]
                ));
            }
        }
        return Some(format!(
            "{field} differs: ours `{}` log `{}`",
            a.unwrap_or("nothing"),
            b.unwrap_or("nothing")
        ));
    }
    None
}

/// Reads the log at `path`, checks it with our rules and writes the replay to `output`.
pub fn import(path: &Path, output: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let log = parse(&text).with_context(|| format!("{}", path.display()))?;
    let replay = rebuild(&log, &file_name(path)).with_context(|| format!("{}", path.display()))?;
    let mut writer = ReplayWriter::create(output)?;
    for record in replay {
        writer.write(&record)?;
    }
    writer.finish()?;
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn rebuild(log: &Log, source: &str) -> Result<Vec<arbiter_replay::Record>> {
    let init = &log.init;
    let blocks = &log.blocks;
    let seats = init.names.len();
    let (w, h) = (init.width, init.height);
    if init.seat >= seats {
        bail!(
            "PLAYER {} in the init block, but PLAYERS names {seats}",
            init.seat
        );
    }
    let first = &blocks[0];
    if first.displays.len() != init.displays
        || first.displays.iter().enumerate().any(|(i, (d, _))| *d != i)
    {
        bail!(
            "the first turn block (line {}) lists {} displays, DISPLAYS says {}",
            first.line,
            first.displays.len(),
            init.displays
        );
    }

    // Pass 1: each turn from the blocks around it.
    let mut findings = Findings::default();
    let mut extras = vec![15u8; seats];
    let mut turns: Vec<Turn> = Vec::new();
    for (i, pair) in blocks.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let mut turn = infer(init, i, a, b, extras[a.player], &mut findings)?;
        // The logging seat reads what became of its turn in its next block.
        if a.player == init.seat
            && let Some(code) = blocks[i + 1..]
                .iter()
                .find(|x| x.player == init.seat)
                .and_then(|x| x.private.as_ref())
                .and_then(|p| Code::parse(&p.message))
        {
            turn.action = match (turn.action, code) {
                (Action::Void(_), code) if code != Code::Ok => Action::Void(code),
                (
                    Action::Move {
                        push,
                        goto: Goto::None,
                    },
                    Code::BadGoto,
                ) => Action::PushOnly(push),
                (action, _) => action,
            };
        }
        if let Some(push) = turn.action.push() {
            let mut tiles = a.fields.clone();
            extras[a.player] = push_tiles(&mut tiles, w, h, push);
        }
        turns.push(turn);
    }

    // The last turn: no block follows it.
    let last = blocks.last().expect("at least one block");
    let last_turn = blocks.len() - 1;
    let ends_at_limit = last.tick + 1 == init.max_tick && last.player + 1 == seats;
    let final_note;
    let mut final_turn: Option<Turn> = None;
    let k = last.player;
    // The last turn used display `d` at cell `c`: the first push that lets seat k reach it, and
    // how many do.
    let scoring = |d: usize, c: Cell| -> Option<(Turn, Push, usize)> {
        let pushes: Vec<Push> = valid_pushes(init, extras[k])
            .into_iter()
            .filter(|&push| {
                let mut tiles = last.fields.clone();
                push_tiles(&mut tiles, w, h, push);
                let start = moved(w, h, push, last.positions[k]);
                let target = moved(w, h, push, c);
                reach(&tiles, w, h, index(w, start)).contains(index(w, target))
            })
            .collect();
        let &push = pushes.first()?;
        let end = moved(w, h, push, c);
        let turn = Turn {
            action: Action::goto(push, end.x, end.y),
            scored: Some(d),
            walked_to: None,
        };
        Some((turn, push, pushes.len()))
    };
    if !ends_at_limit {
        // The game stopped early: this turn used the last display.
        let [(d, c)] = last.displays[..] else {
            bail!(
                "the log ends after {} (line {}) with {} displays active and rounds to go: a \
                 game ends early only when its last display is used",
                at(last_turn, last),
                last.line,
                last.displays.len()
            );
        };
        let Some((turn, push, count)) = scoring(d, c) else {
            bail!(
                "{}: the game ended there, so seat {k} used display {d}, but no push lets it reach it",
                at(last_turn, last)
            );
        };
        final_turn = Some(turn);
        final_note = Some(format!(
            "the last turn (seat {k} uses the last display, {d}) is inferred: the game ended \
             there; {count} push(es) let it reach the display, {push} is shown"
        ));
    } else if k == init.seat
        && let (Some(score), Some(private)) = (log.score, last.private.as_ref())
        && score == private.score + 1
    {
        let d = private.target.ok_or_else(|| {
            anyhow!(
                "{}: SCORE counts a point, but no TARGET was left",
                at(last_turn, last)
            )
        })?;
        let c = last
            .displays
            .iter()
            .find(|(e, _)| *e == d)
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                anyhow!(
                    "{}: TARGET {d} is not an active display",
                    at(last_turn, last)
                )
            })?;
        let Some((turn, push, count)) = scoring(d, c) else {
            bail!(
                "{}: SCORE says seat {k} scored its target {d}, but no push lets it reach it",
                at(last_turn, last)
            );
        };
        final_turn = Some(turn);
        final_note = Some(format!(
            "the last turn (seat {k}, round {}) is inferred from SCORE: it used its target {d}; \
             {count} push(es) let it reach it, {push} is shown",
            last.tick
        ));
    } else {
        final_note = Some(format!(
            "the last turn (seat {k}, round {}) is not in the log: no block follows it{}; the \
             replay stops before it and its scores leave it out",
            last.tick,
            if k == init.seat {
                " and SCORE shows no point in it"
            } else {
                ""
            }
        ));
    }

    // Where every display is after each turn, and when it was used: the rebuilt TARGETS must
    // keep each seat's current target off the cells its walks ended on.
    let mut cells: Timeline = Vec::new();
    for b in &blocks[1..] {
        let mut row = vec![None; init.displays];
        for &(d, c) in &b.displays {
            row[d] = Some(c);
        }
        cells.push(row);
    }
    let mut row = vec![None; init.displays];
    if let Some(push) = final_turn.and_then(|t| t.action.push()) {
        for &(d, c) in &last.displays {
            row[d] = Some(moved(w, h, push, c));
        }
        if let Some(d) = final_turn.and_then(|t| t.scored) {
            row[d] = None;
        }
    } else {
        for &(d, c) in &last.displays {
            row[d] = Some(c);
        }
    }
    cells.push(row);
    let all_turns: Vec<Turn> = turns.iter().copied().chain(final_turn).collect();
    let mut used_at = vec![None; init.displays];
    for (i, t) in all_turns.iter().enumerate() {
        if let Some(d) = t.scored {
            used_at[d] = Some(i);
        }
    }
    let mut targets = Vec::new();
    for s in 0..seats {
        if s == init.seat {
            targets.push(init.targets.clone());
            continue;
        }
        let own: Vec<(usize, Turn)> = all_turns
            .iter()
            .enumerate()
            .filter(|(i, _)| blocks[*i].player == s)
            .map(|(i, t)| (i, *t))
            .collect();
        targets.push(rebuild_targets(s, &own, &cells, &used_at, init.displays)?);
    }

    // Pass 2: the whole game through our engine, every block compared with the one logged.
    let level = Level::new(
        w,
        h,
        first.fields.clone(),
        init.blocked.clone(),
        first.displays.iter().map(|(_, c)| *c).collect(),
        init.max_tick,
        targets,
        first.positions.clone(),
    )
    .map_err(|e| anyhow!("the level of the log: {e}"))?;
    let setup = Setup {
        level,
        level_number: init.level_number,
        game_id: init.game_id,
        names: (0..seats)
            .map(|s| init.names.get(s).cloned().unwrap_or_default())
            .collect(),
        session: SessionMode::Alone,
    };
    let mut game =
        Labyrinth::from_setup(setup).map_err(|e| anyhow!("the level of the log: {e}"))?;

    let mut notes = vec![format!(
        "rebuilt from {source}, the client log of seat {} ({}): the replies are inferred from \
         the blocks; TARGETS of the other seats are reconstructed to fit what they scored, \
         not observed",
        init.seat, init.names[init.seat]
    )];
    notes.extend(final_note);
    if findings.void_turns > 0 {
        notes.push(format!(
            "{} void turn(s): the log does not say why for other seats (shown as NO_PUSH)",
            findings.void_turns
        ));
    }
    notes.extend(findings.notes.iter().cloned());
    let mut settings = game.settings_json();
    settings["note"] = json!(notes.join("; "));
    settings["import"] = json!({
        "format": "graphisoft-log",
        "source": source,
        "logging_seat": init.seat,
        "observed_targets": [init.seat],
        "void_turns": findings.void_turns,
        "ambiguous_pushes": findings.ambiguous_pushes,
        "final_turn": if final_turn.is_some() { "inferred" } else if ends_at_limit { "unknown" } else { "inferred" },
        "notes": notes,
    });
    let players = init
        .names
        .iter()
        .map(|name| Player {
            name: name.clone(),
            kind: PlayerKind::Tcp,
            command: None,
        })
        .collect();
    let mut records = vec![arbiter_replay::Record::Header(Header::new(
        Labyrinth::NAME,
        settings,
        0,
        players,
    ))];
    records.push(arbiter_replay::Record::Tick(Tick {
        tick: 0,
        player: None,
        action: Tick::start_action(),
        state: game.snapshot(),
        bots: vec![BotTick::default(); seats],
    }));
    for (i, turn) in all_turns.iter().enumerate() {
        let block = blocks.get(i).unwrap_or(last);
        if let Some(block) = blocks.get(i) {
            let mut ours = String::new();
            let private = (block.player == init.seat).then_some(init.seat);
            game.write_turn(private, &mut ours);
            if let Some(diff) = block_difference(&ours, block, w) {
                // The block before the first turn shows the level; every later one the turn
                // before it.
                let place = match i {
                    0 => format!("the first turn block (log line {})", block.line),
                    _ => format!(
                        "{} (next block: log line {})",
                        at(i - 1, &blocks[i - 1]),
                        block.line
                    ),
                };
                bail!("{place}: {diff}");
            }
        }
        let seat = game.seat_on_turn();
        match turn.action {
            Action::Move { .. } => game.apply(turn.action).map_err(|e| {
                anyhow!(
                    "{}: our rules refuse the turn the blocks show: {e}",
                    at(i, block)
                )
            })?,
            other => game.apply_unchecked(other),
        }
        // The logging client received every turn block; the others' blocks are not in the log.
        let mut bots = vec![BotTick::default(); seats];
        if let Some(block) = blocks.get(i) {
            bots[init.seat].received.push(Message {
                at_ms: 0.0,
                text: block.text.clone() + ".\n",
            });
        }
        records.push(arbiter_replay::Record::Tick(Tick {
            tick: game.tick(),
            player: Some(seat),
            action: game.action_json(turn.action),
            state: game.snapshot(),
            bots,
        }));
    }
    if final_turn.is_some() && !game.is_over() {
        bail!(
            "{}: our game is not over after the inferred last turn",
            at(last_turn, last)
        );
    }
    // The logging client's SCORE is the last check.
    if let Some(score) = log.score
        && score != game.score(init.seat)
    {
        bail!(
            "SCORE differs: ours {} log {score} (the logging seat {}'s points at the end)",
            game.score(init.seat),
            init.seat
        );
    }
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
    records.push(arbiter_replay::Record::Result(MatchResult {
        ticks: game.tick(),
        reason,
        scores,
        placement,
        bots: init
            .names
            .iter()
            .map(|name| BotSummary {
                name: name.clone(),
                errors: 0,
                timeouts: 0,
                crashed: false,
            })
            .collect(),
    }));
    Ok(records)
}
