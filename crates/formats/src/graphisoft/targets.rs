//! TARGETS of the seats whose order the log does not show, rebuilt to fit what they did.

use std::cmp::Reverse;

use arbiter_games::labyrinth::Cell;

use super::ImportError;
use super::infer::{Inferred, Turn, moved};
use super::parse::Log;

/// Cells of the displays after each turn: `cells[t][d]` after turn t (`None` once used).
type Timeline = Vec<Vec<Option<Cell>>>;

/// TARGETS of every seat: the logging seat's as logged, the others' rebuilt.
pub(super) fn all_targets(log: &Log, inferred: &Inferred) -> Result<Vec<Vec<u8>>, ImportError> {
    let init = &log.init;
    let cells = timeline(log, inferred);
    let mut used_at = vec![None; init.displays];
    for (i, t) in inferred.turns.iter().enumerate() {
        if let Some(d) = t.scored {
            used_at[d] = Some(i);
        }
    }
    let history = History {
        cells: &cells,
        used_at: &used_at,
        displays: init.displays,
    };
    (0..init.names.len())
        .map(|s| {
            if s == init.seat {
                return Ok(init.targets.clone());
            }
            let own: Vec<(usize, Turn)> = inferred
                .turns
                .iter()
                .enumerate()
                .filter(|(i, _)| log.blocks[*i].player == s)
                .map(|(i, t)| (i, *t))
                .collect();
            rebuild_targets(s, &own, &history)
        })
        .collect()
}

/// Where every display is after each turn: the blocks after the first, then after the last
/// turn (moved by its push, if it was inferred).
fn timeline(log: &Log, inferred: &Inferred) -> Timeline {
    let (init, blocks) = (&log.init, &log.blocks);
    let row_of = |displays: &[(usize, Cell)]| {
        let mut row = vec![None; init.displays];
        for &(d, c) in displays {
            row[d] = Some(c);
        }
        row
    };
    let mut cells: Timeline = blocks[1..].iter().map(|b| row_of(&b.displays)).collect();
    let last = &blocks[blocks.len() - 1];
    let final_turn = inferred
        .final_inferred
        .then(|| inferred.turns.last())
        .flatten();
    let mut row = row_of(&last.displays);
    if let Some(push) = final_turn.and_then(|t| t.action.push()) {
        for &(d, c) in &last.displays {
            row[d] = Some(moved(init.width, init.height, push, c));
        }
        if let Some(d) = final_turn.and_then(|t| t.scored) {
            row[d] = None;
        }
    }
    cells.push(row);
    cells
}

/// What happened to the displays during the game.
struct History<'a> {
    cells: &'a Timeline,
    /// The turn each display was used in.
    used_at: &'a [Option<usize>],
    displays: usize,
}

/// One seat's turns, as the rebuilding reads them.
struct Seat<'a> {
    seat: usize,
    /// `(display, turn)` of each display the seat scored, in order.
    scores: Vec<(usize, usize)>,
    /// `(turn, cell)` of each walk that ended without scoring.
    walks: Vec<(usize, Cell)>,
    history: &'a History<'a>,
}

impl Seat<'_> {
    /// The first walk of the seat in turns from..until that ends on display d's cell.
    fn clash(&self, d: usize, from: usize, until: usize) -> Option<usize> {
        self.walks
            .iter()
            .filter(|(i, _)| (from..until).contains(i))
            .find(|(i, c)| self.history.cells[*i][d] == Some(*c))
            .map(|(i, _)| *i)
    }

    fn mine(&self, d: usize) -> bool {
        self.scores.iter().any(|(e, _)| *e == d)
    }

    /// The displays it scored, in order, with fillers before each where needed; returns the
    /// turn from which the next display of the order is current.
    fn scored_order(&self, order: &mut Vec<usize>) -> Result<usize, ImportError> {
        let h = self.history;
        // Turns before `from` are explained; the next display in `order` is current from it on.
        let mut from = 0;
        for &(d, scored_at) in &self.scores {
            while let Some(at) = self.clash(d, from, scored_at) {
                // Another seat's display, current until that seat uses it, covers the walk.
                let filler = (0..h.displays)
                    .filter(|&e| !self.mine(e) && !order.contains(&e))
                    .filter_map(|e| h.used_at[e].map(|u| (e, u)))
                    .filter(|&(e, u)| {
                        u >= from && u < scored_at && self.clash(e, from, u).is_none()
                    })
                    .max_by_key(|&(e, u)| (u, Reverse(e)));
                let Some((e, u)) = filler else {
                    return Err(ImportError::Targets {
                        seat: self.seat,
                        why: format!(
                            "at turn {} its walk ends on display {d} without scoring it, which \
                             it scores at turn {}, and no display another seat used covers the \
                             time between",
                            at + 1,
                            scored_at + 1
                        ),
                    });
                };
                order.push(e);
                from = u + 1;
            }
            order.push(d);
            from = scored_at + 1;
        }
        Ok(from)
    }

    /// After its last score, at each point the active display that stays clear of its walks
    /// longest, picked again when another seat uses it.
    fn rest_order(&self, order: &mut Vec<usize>, mut from: usize) -> Result<(), ImportError> {
        let h = self.history;
        let active_at = |d: usize, t: usize| h.used_at[d].is_none_or(|u| u >= t);
        loop {
            let candidates = (0..h.displays).filter(|&d| !order.contains(&d) && active_at(d, from));
            let Some(best) = candidates.max_by_key(|&d| {
                let lasts = h.used_at[d].unwrap_or(usize::MAX);
                match self.clash(d, from, lasts) {
                    None => (1, lasts, Reverse(d)),
                    Some(i) => (0, i, Reverse(d)),
                }
            }) else {
                return Ok(());
            };
            if let Some(i) = self.clash(best, from, h.used_at[best].unwrap_or(usize::MAX)) {
                return Err(ImportError::Targets {
                    seat: self.seat,
                    why: format!(
                        "at turn {} its walk ends on display {best} without scoring it, and \
                         every other display it could be chasing has the same trouble",
                        i + 1
                    ),
                });
            }
            order.push(best);
            match h.used_at[best] {
                Some(u) => from = u + 1,
                None => return Ok(()),
            }
        }
    }
}

/// TARGETS for a seat whose order was not observed. The displays it scored come in the order it
/// scored them; before each, displays other seats used may be needed as fillers: a seat that
/// walked onto the display it scores later, without scoring it then, was chasing another one
/// at the time. After its last score, at each point the active display that stays clear of its
/// walks longest is picked, and picked again when another seat uses it.
fn rebuild_targets(
    seat: usize,
    turns: &[(usize, Turn)],
    history: &History,
) -> Result<Vec<u8>, ImportError> {
    let seat = Seat {
        seat,
        scores: turns
            .iter()
            .filter_map(|(i, t)| t.scored.map(|d| (d, *i)))
            .collect(),
        walks: turns
            .iter()
            .filter_map(|(i, t)| t.walked_to.map(|c| (*i, c)))
            .collect(),
        history,
    };
    let mut order = Vec::new();
    let from = seat.scored_order(&mut order)?;
    seat.rest_order(&mut order, from)?;
    for d in 0..history.displays {
        if !order.contains(&d) {
            order.push(d);
        }
    }
    Ok(order.into_iter().map(|d| d as u8).collect())
}
