//! Alpha-beta with iterative deepening, from one player's side.
//!
//! With four players the search is *paranoid*: every opponent is taken to play against the
//! searching player, so the tree is a two-sided minimax and alpha-beta prunes it as in a
//! two-player game (docs/robots.md says why it is preferred to best-reply search here).
//! Walls are restricted to the ones across the shortest path of the players the mover plays
//! against: the only walls that lengthen a path at once.

use std::time::Instant;

use arbiter_games::PlayerId;

use super::eval::{WIN, evaluate, evaluate_all, terminal};
use super::timing::Limits;
use super::{Racing, Shape, Xy};

/// Deepest iteration tried (a won or lost race ends the deepening much sooner).
const MAX_DEPTH: usize = 64;

/// Positions between two looks at the clock.
const CLOCK_EVERY: u64 = 32;

/// What one search found.
#[derive(Clone, Debug)]
pub struct Report<A> {
    /// The principal variation of the deepest finished iteration, its first action the choice.
    pub pv: Vec<A>,
    /// Its score for the searching player, in hundredths of a step (see `eval`).
    pub score: i32,
    /// The depth of that iteration, in plies.
    pub depth: usize,
    /// Positions visited, all iterations together.
    pub nodes: u64,
}

/// Where the walls worth trying are: the cells and edges of the shortest paths of the players
/// the mover plays against.
struct Hot {
    side: usize,
    cells: Vec<bool>,
    /// Edge from a cell to the one below it.
    down: Vec<bool>,
    /// Edge from a cell to the one right of it.
    right: Vec<bool>,
}

impl Hot {
    fn new(side: u8) -> Hot {
        let side = side as usize;
        Hot {
            side,
            cells: vec![false; side * side],
            down: vec![false; side * side],
            right: vec![false; side * side],
        }
    }

    fn clear(&mut self) {
        self.cells.fill(false);
        self.down.fill(false);
        self.right.fill(false);
    }

    fn at(&self, (x, y): Xy) -> usize {
        y as usize * self.side + x as usize
    }

    fn mark(&mut self, path: &[Xy]) {
        for pair in path.windows(2) {
            let (a, b) = (pair[0].min(pair[1]), pair[0].max(pair[1]));
            let i = self.at(a);
            self.cells[i] = true;
            if a.0 == b.0 {
                self.down[i] = true;
            } else {
                self.right[i] = true;
            }
        }
        if let Some(&last) = path.last() {
            let i = self.at(last);
            self.cells[i] = true;
        }
    }

    fn cuts(&self, shape: Shape) -> bool {
        match shape {
            Shape::Step(_) => true,
            Shape::Wall { .. } => shape.cut_edges().is_some_and(|edges| {
                edges.iter().any(|&(a, b)| {
                    let i = self.at(a);
                    if a.0 == b.0 {
                        self.down[i]
                    } else {
                        self.right[i]
                    }
                })
            }),
            Shape::Turn { at: (x, y), size } => {
                (y..y + size).any(|cy| (x..x + size).any(|cx| self.cells[self.at((cx, cy))]))
            }
        }
    }
}

/// One search from a root position.
pub struct Searcher<G: Racing> {
    me: PlayerId,
    limits: Limits,
    nodes: u64,
    /// `nodes` when the clock was last read.
    clock_read_at: u64,
    stopped: bool,
    /// Set while the first iteration runs: it always finishes, so there is always an answer.
    must_finish: bool,
    hot: Hot,
    scratch: Vec<G::Action>,
    killers: Vec<[Option<G::Action>; 2]>,
    pv: Vec<Vec<G::Action>>,
    last_pv: Vec<G::Action>,
}

impl<G: Racing> Searcher<G> {
    /// A search for `me`, on turn in `root`, within `limits`.
    pub fn new(root: &G, me: PlayerId, limits: Limits) -> Self {
        Searcher {
            me,
            limits,
            nodes: 0,
            clock_read_at: 0,
            stopped: false,
            must_finish: true,
            hot: Hot::new(root.side()),
            scratch: Vec::new(),
            killers: vec![[None; 2]; MAX_DEPTH + 1],
            pv: vec![Vec::new(); MAX_DEPTH + 1],
            last_pv: Vec::new(),
        }
    }

    /// Deepens until the limits say stop; the answer is the best line of the deepest finished
    /// iteration. `None` only when the player on turn has no action at all.
    pub fn run(mut self, root: &G) -> Option<Report<G::Action>> {
        let mut report: Option<Report<G::Action>> = None;
        for depth in 1..=MAX_DEPTH {
            let score = if root.num_players() == 2 {
                self.alphabeta(root, depth, 0, -WIN - 1, WIN + 1)
            } else {
                self.maxn(root, depth, 0)[self.me]
            };
            self.must_finish = false;
            if self.stopped || self.pv[0].is_empty() {
                break;
            }
            self.last_pv = self.pv[0].clone();
            report = Some(Report {
                pv: self.last_pv.clone(),
                score,
                depth,
                nodes: self.nodes,
            });
            let decided = score.abs() >= WIN - MAX_DEPTH as i32;
            let out_of_nodes = self.nodes >= self.limits.nodes;
            if decided || out_of_nodes || Instant::now() >= self.limits.soft {
                break;
            }
        }
        report.map(|r| Report {
            nodes: self.nodes,
            ..r
        })
    }

    fn should_stop(&mut self) -> bool {
        if self.must_finish {
            return false;
        }
        if self.nodes >= self.limits.nodes {
            self.stopped = true;
        }
        if !self.stopped && self.nodes - self.clock_read_at >= CLOCK_EVERY {
            self.clock_read_at = self.nodes;
            self.stopped = Instant::now() >= self.limits.hard;
        }
        self.stopped
    }

    fn alphabeta(&mut self, game: &G, depth: usize, ply: usize, alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        let Some(mover) = game.to_move() else {
            return terminal(game, self.me, ply).unwrap_or(0);
        };
        if depth == 0 || ply >= MAX_DEPTH {
            return evaluate(game, self.me);
        }
        let children = self.children(game, mover, depth, ply);
        if children.is_empty() {
            // Stuck (a Quoridor pawn boxed in, with no wall to place): the rules take the turn.
            let mut next = game.clone();
            next.apply_stuck();
            self.nodes += 1;
            return self.alphabeta(&next, depth - 1, ply + 1, alpha, beta);
        }
        let maximizing = mover == self.me;
        let (mut alpha, mut beta) = (alpha, beta);
        let mut best = if maximizing { -WIN - 1 } else { WIN + 1 };
        for (action, child) in children {
            if self.should_stop() {
                return 0;
            }
            let score = self.alphabeta(&child, depth - 1, ply + 1, alpha, beta);
            if self.stopped {
                return 0;
            }
            let better = if maximizing {
                score > best
            } else {
                score < best
            };
            if better {
                best = score;
                self.keep_line(ply, action);
            }
            if maximizing {
                alpha = alpha.max(score);
            } else {
                beta = beta.min(score);
            }
            if alpha >= beta {
                let killers = &mut self.killers[ply];
                if killers[0] != Some(action) {
                    killers[1] = killers[0];
                    killers[0] = Some(action);
                }
                break;
            }
        }
        best
    }

    /// Max-n: every player picks the child best for itself by the same evaluation; the
    /// scores of all players come back up the tree. Ties keep the first child.
    fn maxn(&mut self, game: &G, depth: usize, ply: usize) -> [i32; 4] {
        self.pv[ply].clear();
        let Some(mover) = game.to_move() else {
            return evaluate_all(game).map(|s| {
                if s >= WIN - MAX_DEPTH as i32 {
                    s - ply as i32
                } else if s <= MAX_DEPTH as i32 - WIN {
                    s + ply as i32
                } else {
                    s
                }
            });
        };
        if depth == 0 || ply >= MAX_DEPTH {
            return evaluate_all(game);
        }
        let children = self.children(game, mover, depth, ply);
        if children.is_empty() {
            let mut next = game.clone();
            next.apply_stuck();
            self.nodes += 1;
            return self.maxn(&next, depth - 1, ply + 1);
        }
        let mut best: Option<[i32; 4]> = None;
        for (action, child) in children {
            if self.should_stop() {
                return [0; 4];
            }
            let scores = self.maxn(&child, depth - 1, ply + 1);
            if self.stopped {
                return [0; 4];
            }
            if best.is_none_or(|b| scores[mover] > b[mover]) {
                best = Some(scores);
                self.keep_line(ply, action);
            }
        }
        best.unwrap_or([0; 4])
    }

    /// `action` followed by the best line of the ply below is the best line at `ply`.
    fn keep_line(&mut self, ply: usize, action: G::Action) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(action);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// The actions worth searching with the positions they lead to, best guess first.
    fn children(
        &mut self,
        game: &G,
        mover: PlayerId,
        depth: usize,
        ply: usize,
    ) -> Vec<(G::Action, G)> {
        game.legal_actions(&mut self.scratch);
        self.hot.clear();
        // Paranoid (two players, or alpha-beta): the opponents play against the searching
        // player only. Max-n: every player plays against all the others.
        let paranoid = game.num_players() == 2;
        let targets: Vec<PlayerId> = if mover == self.me || !paranoid {
            (0..game.num_players()).filter(|&p| p != mover).collect()
        } else {
            vec![self.me]
        };
        for p in targets {
            let path = game.path_of(p);
            self.hot.mark(&path);
        }
        let own_path = game.path_of(mover);
        let remembered = self.last_pv.get(ply).copied();
        let killers = self.killers[ply];
        let mut children: Vec<(i32, G::Action, G)> = Vec::with_capacity(self.scratch.len());
        // A pawn that cannot move may have only walls that cut nobody's path: all are tried.
        let filter = self.scratch.iter().any(|&a| self.hot.cuts(G::shape(a)));
        for &action in &self.scratch {
            let shape = G::shape(action);
            if filter && !self.hot.cuts(shape) {
                continue;
            }
            let mut child = game.clone();
            child.apply_unchecked(action);
            self.nodes += 1;
            let guess = if Some(action) == remembered {
                3 * WIN
            } else if killers.contains(&Some(action)) {
                2 * WIN
            } else if depth >= 2 && paranoid {
                // A one-ply look, from the mover's side.
                let score = evaluate(&child, self.me);
                if mover == self.me { score } else { -score }
            } else {
                cheap_guess(shape, &own_path)
            };
            children.push((guess, action, child));
        }
        // Stable: equal guesses keep the engine's order, so the search is deterministic.
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        children.into_iter().map(|(_, a, c)| (a, c)).collect()
    }
}

/// Without a look ahead: steps along the mover's own path first (the farther the better, for
/// jumps), then walls, then other steps.
fn cheap_guess(shape: Shape, own_path: &[Xy]) -> i32 {
    match shape {
        Shape::Step(to) => match own_path.iter().position(|&c| c == to) {
            Some(k) => 1000 + k as i32,
            None => -1000,
        },
        Shape::Wall { .. } => 0,
        Shape::Turn { .. } => -1,
    }
}
