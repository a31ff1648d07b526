//! The `searcher` robot: a beam search over its own next turns.
//!
//! A plan is a sequence of its own turns, each a push and a walk. From the plans of `d` turns it
//! keeps the best 256, at most two for each cell of the princess and cell of the target, and
//! extends each by every valid push, walking to the few reachable cells nearest the target (or
//! onto it, which scores and turns the plan to the following target). A plan is worth its
//! points, the earlier the more, less the distance left to its target; the robot plays the
//! first turn of the best plan of the deepest search completed.
//!
//! In a two-player match it guesses the other princess's target from her walks
//! ([`super::opponent`]) and, while it has a guess, plays her turn between its own in every
//! plan as the game server's robots would play it: a plan is judged on the board her push
//! leaves, and a point she scores in reply counts against it. It never pushes first, from a
//! position it has stood in before, a line it pushed first there: that position came back
//! because its plan was undone.
//!
//! Why: `lookahead` weighs two turns and only the cells nearest its target; a target across the
//! board takes several turns, and the best first step towards it is often not the nearest cell.
//! The other princess's push between two turns is what breaks plans, and her points count as
//! much in a match as its own.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Instant;

use arbiter_games::labyrinth::{Action, Cell, Labyrinth, Push};
use arbiter_games::{Clock, Robot};

use super::opponent::Watch;
use super::{Sim, greedy_action, greedy_turn, pushes_with};
use crate::{Budget, game_clock, thinking_deadline};

/// Plans kept at each depth.
const BEAM: usize = 256;
/// Plans kept at each depth that leave the princess and the target on the same two cells:
/// without this limit the beam filled with plans that push some far line and stand still, and
/// a princess one step from a target that only a detour reaches stood there for the whole
/// match.
const PLANS_PER_PLACE: usize = 2;
/// Reachable cells tried after each push, the nearest to the target.
const CELLS_PER_PUSH: usize = 6;
/// The deepest plan, in turns.
const MAX_DEPTH: usize = 3;
/// A point scored on the plan's first turn; each later turn's point is worth [`LATER`] less.
const POINT: i64 = 1000;
/// How much less a point is worth for each turn it comes later.
const LATER: i64 = 150;
/// The best plans whose following turn is weighed too.
const REFINED: usize = 24;
/// What a point the other princess scores in reply to a plan's turn costs it (the later
/// the turn, the less): a point of hers changes the ratio of their points more than one of its
/// own, but her target is only guessed, and a plan that gives up its own points to spoil a
/// wrong guess loses twice.
const DENIED: i64 = 400;
/// The share of the time left it thinks for: the rest covers a loaded machine and the pipe.
const TIME_SHARE: f64 = 0.4;

/// Plans its next turns with a beam search; see the module docs.
pub struct Searcher {
    budget: Budget,
    /// Pushes expanded on this move (one walk computed each).
    nodes: u64,
    deadline: Option<Instant>,
    pushes: Vec<Push>,
    /// The other princess's pushes, listed apart from [`Searcher::pushes`] which may be in use.
    other_pushes: Vec<Push>,
    /// Its guess of the other princess's target.
    watch: Watch,
    log: String,
    /// The lines (c, p, k) it pushed first from each position it has been in this game, by
    /// [`position_key`]: the same position again means its plan was undone and it is going in
    /// a circle, so it tries another line.
    played: HashMap<u64, Vec<(u8, u8, u8)>>,
    /// The lines it must not push first now.
    banned: Vec<(u8, u8, u8)>,
    /// The round of its previous turn: a smaller one means a new game.
    last_round: u32,
}

/// A sequence of the robot's own turns and where it leaves the princess.
#[derive(Clone, Copy)]
struct Plan {
    /// The board after the last turn, the princess where she walked.
    sim: Sim,
    /// The extra tile in hand after the last turn.
    extra: u8,
    /// The plan's first turn: what the robot plays now.
    first: Action,
    /// Points scored, each by how early.
    points: i64,
    /// The princess's cell after each turn, for the drawing.
    path: [(u8, u8); MAX_DEPTH],
    turns: usize,
    /// The other princess, while its target is guessed.
    other: Option<Other>,
}

/// The other princess of a two-player match as a plan sees it: where she is, the cell of her
/// likely target and her extra tile.
#[derive(Clone, Copy)]
struct Other {
    at: usize,
    target: usize,
    extra: u8,
}

impl Plan {
    fn distance(&self) -> i64 {
        match self.sim.target {
            Some(t) => i64::from(self.sim.manhattan(self.sim.at, t)),
            None => 0,
        }
    }

    /// What the plan is worth: its points, less the distance left.
    fn value(&self) -> i64 {
        self.points - self.distance()
    }

    /// The plan one turn longer: `push`, then a walk to `cell` of `after`.
    fn then(&self, push: Push, after: &Sim, fallen: u8, cell: usize) -> Plan {
        let mut next = *self;
        next.sim = *after;
        next.sim.at = cell;
        next.other = self.other.map(|o| Other {
            at: self.sim.moved(push, o.at),
            target: self.sim.moved(push, o.target),
            extra: o.extra,
        });
        next.extra = fallen;
        if self.turns == 0 {
            next.first = after.goto(push, cell);
        }
        if after.target == Some(cell) {
            next.points += POINT - LATER * self.turns as i64;
            next.sim.target = after.next;
            next.sim.next = None;
        }
        let w = after.width;
        next.path[self.turns] = ((cell % w) as u8, (cell / w) as u8);
        next.turns += 1;
        next
    }
}

struct OutOfBudget;

impl Searcher {
    /// The searcher, thinking within `budget`.
    pub fn new(budget: Budget) -> Searcher {
        Searcher {
            budget,
            nodes: 0,
            deadline: None,
            pushes: Vec::new(),
            other_pushes: Vec::new(),
            watch: Watch::default(),
            log: String::new(),
            played: HashMap::new(),
            banned: Vec::new(),
            last_round: 0,
        }
    }

    /// Bans the lines it pushed first the other times it stood in this very position, and
    /// returns the position's key. Against an opponent that answers a position the same way
    /// every time, playing the same line again repeats the circle for the rest of the match:
    /// on generated level 6, each robot pushed one column back the way the other had pushed
    /// it for 120 rounds, and neither scored.
    fn ban_repeats(&mut self, game: &Labyrinth) -> u64 {
        if game.round() < self.last_round {
            self.played.clear();
            self.watch.clear();
        }
        self.last_round = game.round();
        let key = position_key(game);
        self.banned = self.played.get(&key).cloned().unwrap_or_default();
        key
    }

    fn tick(&mut self) -> Result<(), OutOfBudget> {
        self.nodes += 1;
        let deadline = self.deadline.unwrap_or_else(Instant::now);
        if self.budget.exhausted(self.nodes, deadline) {
            Err(OutOfBudget)
        } else {
            Ok(())
        }
    }

    /// Every plan one turn longer than `beam[parent]`, appended to `out` as a [`Step`].
    fn extend(
        &mut self,
        game: &Labyrinth,
        beam: &[Plan],
        parent: usize,
        out: &mut Vec<Step>,
    ) -> Result<(), OutOfBudget> {
        let plan = &beam[parent];
        let mut pushes = std::mem::take(&mut self.pushes);
        pushes_with(game, plan.extra, &mut pushes);
        let mut nearest: Vec<(u32, usize)> = Vec::new();
        let mut result = Ok(());
        for &push in &pushes {
            if plan.turns == 0 && self.banned.contains(&(push.c, push.p, push.k)) {
                continue;
            }
            if let Err(e) = self.tick() {
                result = Err(e);
                break;
            }
            let (after, fallen) = plan.sim.pushed(push);
            nearest.clear();
            nearest.extend(after.walks().map(|(cell, d)| (d, cell)));
            let step = |cell: usize| Step {
                parent: parent as u32,
                push,
                cell: cell as u16,
                target: after.target.map_or(u16::MAX, |t| t as u16),
                value: plan.then(push, &after, fallen, cell).value(),
            };
            if let Some(t) = after.target
                && nearest.iter().any(|&(_, c)| c == t)
            {
                out.push(step(t));
                continue;
            }
            let keep = CELLS_PER_PUSH.min(nearest.len());
            if keep < nearest.len() {
                nearest.select_nth_unstable(keep);
            }
            nearest[..keep].sort_unstable();
            out.extend(nearest[..keep].iter().map(|&(_, cell)| step(cell)));
        }
        self.pushes = pushes;
        result
    }

    /// The best plans of the deepest search completed within the budget (best first, never
    /// empty), and their depth.
    fn search(&mut self, game: &Labyrinth, root: Plan) -> (Vec<Plan>, usize) {
        let mut beam = vec![root];
        let mut best = None;
        let mut steps = Vec::new();
        for depth in 1..=MAX_DEPTH {
            steps.clear();
            let complete = (0..beam.len())
                .try_for_each(|parent| self.extend(game, &beam, parent, &mut steps))
                .is_ok();
            if !complete && best.is_some() {
                break;
            }
            // Best first; equal values keep the order they were found in. A first depth cut
            // short still gives the best turn it saw (the greedy one if none).
            steps.sort_by_key(|s| std::cmp::Reverse(s.value));
            keep_diverse(&mut steps);
            let mut next: Vec<Plan> = steps.iter().map(|s| s.plan(&beam)).collect();
            if next.is_empty() {
                break;
            }
            let replied = next
                .iter_mut()
                .try_for_each(|plan| self.other_replies(game, plan))
                .is_ok();
            best = Some((next.clone(), depth));
            if !complete || !replied {
                break;
            }
            beam = next;
        }
        best.unwrap_or((beam, 0))
    }

    /// Plays the other princess's turn after `plan`, as the robots of the game server play
    /// (the first push after which she can walk nearest her target, then the nearest cell),
    /// towards her likely target; she is forgotten once she scores it, her next target being
    /// unknown.
    fn other_replies(&mut self, game: &Labyrinth, plan: &mut Plan) -> Result<(), OutOfBudget> {
        let Some(other) = plan.other else {
            return Ok(());
        };
        let view = Sim {
            at: other.at,
            target: Some(other.target),
            next: None,
            ..plan.sim
        };
        let mut pushes = std::mem::take(&mut self.other_pushes);
        pushes_with(game, other.extra, &mut pushes);
        let turn = greedy_turn(&view, &pushes, || self.tick());
        self.other_pushes = pushes;
        let Some((d, push, cell)) = turn? else {
            return Ok(());
        };
        let (after, fallen) = plan.sim.pushed(push);
        plan.sim = after;
        if plan.sim.next == Some(cell) {
            plan.sim.next = None;
        }
        plan.other = if d == 0 {
            plan.points -= DENIED - LATER * (plan.turns as i64 - 1);
            if plan.sim.target == Some(cell) {
                plan.sim.target = plan.sim.next.take();
            }
            None
        } else {
            Some(Other {
                at: cell,
                target: view.moved(push, other.target),
                extra: fallen,
            })
        };
        Ok(())
    }

    /// Of the best `plans`, the one whose turn after its end looks best: one that can then
    /// score by more pushes survives more of the other seats' pushes in between.
    fn refine(&mut self, game: &Labyrinth, plans: &[Plan]) -> (Plan, i64) {
        let mut best = (plans[0], i64::MIN);
        let mut pushes = std::mem::take(&mut self.pushes);
        for plan in plans.iter().take(REFINED) {
            pushes_with(game, plan.extra, &mut pushes);
            let (mut scoring, mut distance) = (0i64, u32::MAX);
            for &push in &pushes {
                if self.tick().is_err() {
                    self.pushes = pushes;
                    return best;
                }
                let (after, _) = plan.sim.pushed(push);
                let d = after.walks().map(|(_, d)| d).min().unwrap_or(u32::MAX);
                scoring += i64::from(d == 0);
                distance = distance.min(d);
            }
            let next = if plan.sim.target.is_none() {
                0
            } else if scoring > 0 {
                (POINT - LATER * plan.turns as i64) * (4 + scoring.min(12)) / 16
            } else {
                -i64::from(distance)
            };
            let value = plan.points + next;
            if value > best.1 {
                best = (*plan, value);
            }
        }
        self.pushes = pushes;
        best
    }
}

/// The plan of no turns for `seat` in `game`: its princess, target and extra tile.
fn root_plan(game: &Labyrinth, seat: usize) -> Plan {
    let mut sim = Sim::of(game, seat, game.current_target(seat));
    sim.next = game.following_target(seat).map(|d| {
        let c = game.display_cell(d);
        c.y as usize * sim.width + c.x as usize
    });
    Plan {
        sim,
        extra: game.extra(seat),
        first: greedy_action(game),
        points: 0,
        path: [(0, 0); MAX_DEPTH],
        turns: 0,
        other: None,
    }
}

/// What the robot sees of a position on its turn (the board, every princess, its extra tile and
/// its target, and how many displays are left), hashed.
fn position_key(game: &Labyrinth) -> u64 {
    let seat = game.seat_on_turn();
    let mut h = DefaultHasher::new();
    game.tiles().hash(&mut h);
    game.positions().hash(&mut h);
    game.extra(seat).hash(&mut h);
    game.current_target(seat).hash(&mut h);
    game.active_displays().count().hash(&mut h);
    h.finish()
}

/// A plan one turn longer than one of the beam, as few bytes: a depth holds many of them,
/// and only the best become plans.
struct Step {
    parent: u32,
    push: Push,
    cell: u16,
    /// The target's cell after the push (`u16::MAX` without one).
    target: u16,
    value: i64,
}

/// Keeps the best [`BEAM`] of `steps` (sorted best first), at most [`PLANS_PER_PLACE`] of
/// them for each cell of the princess and cell of the target.
fn keep_diverse(steps: &mut Vec<Step>) {
    let mut seen: HashMap<(u16, u16), usize> = HashMap::new();
    let mut kept = 0;
    // Stops at a full beam: a depth holds hundreds of thousands of steps.
    for i in 0..steps.len() {
        if kept == BEAM {
            break;
        }
        let same = seen.entry((steps[i].cell, steps[i].target)).or_default();
        *same += 1;
        if *same <= PLANS_PER_PLACE {
            steps.swap(kept, i);
            kept += 1;
        }
    }
    steps.truncate(kept);
}

impl Step {
    fn plan(&self, beam: &[Plan]) -> Plan {
        let parent = &beam[self.parent as usize];
        let (after, fallen) = parent.sim.pushed(self.push);
        parent.then(self.push, &after, fallen, usize::from(self.cell))
    }
}

impl Robot<Labyrinth> for Searcher {
    fn choose(&mut self, game: &Labyrinth) -> Action {
        self.choose_in_time(game, &game_clock::<Labyrinth>())
    }

    fn choose_in_time(&mut self, game: &Labyrinth, clock: &Clock) -> Action {
        self.log.clear();
        self.nodes = 0;
        self.deadline = Some(thinking_deadline(clock, TIME_SHARE));
        let seat = game.seat_on_turn();
        if game.current_target(seat).is_none() {
            return greedy_action(game);
        }
        let mut root = root_plan(game, seat);
        let key = self.ban_repeats(game);
        self.watch.observe(game);
        if let Some(d) = self.watch.likely_target(game) {
            let cell = |c: Cell| c.y as usize * game.width() + c.x as usize;
            root.other = Some(Other {
                at: cell(game.position(1 - seat)),
                target: cell(game.display_cell(d)),
                extra: self.watch.extra(),
            });
        }
        let (plans, depth) = self.search(game, root);
        let (plan, value) = self.refine(game, &plans);
        if let Some(push) = plan.first.push() {
            self.played
                .entry(key)
                .or_default()
                .push((push.c, push.p, push.k));
        }
        self.watch.played(game, plan.first);
        self.describe(&plan, value, depth);
        self.draw(game, &plan);
        plan.first
    }

    fn take_log(&mut self) -> String {
        std::mem::take(&mut self.log)
    }
}

impl Searcher {
    /// The plan and its evaluation in the log.
    fn describe(&mut self, plan: &Plan, value: i64, depth: usize) {
        let _ = writeln!(
            self.log,
            "plan of {depth} turns: value {value} ({} nodes), playing {:?}",
            self.nodes, plan.first
        );
    }

    /// The plan's path and the target, drawn.
    fn draw(&mut self, game: &Labyrinth, plan: &Plan) {
        let seat = game.seat_on_turn();
        let at = game.position(seat);
        let mut path = format!("#draw path {} {}", at.x, at.y);
        for &(x, y) in &plan.path[..plan.turns] {
            let _ = write!(path, " {x} {y}");
        }
        let _ = writeln!(self.log, "{path} green");
        if let Some(t) = game.current_target(seat) {
            let c = game.display_cell(t);
            let _ = writeln!(self.log, "#draw cell {} {} red target", c.x, c.y);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Robots;
    use arbiter_games::Game;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Plays generated level `level` to its end, robot `names[(seat + shift) % n]` in each
    /// seat: the actions, and each robot's points.
    fn play(level: u64, names: &[&str], shift: usize) -> (Vec<Action>, Vec<u32>) {
        let n = names.len();
        let mut game = Labyrinth::generated(level, n).unwrap();
        let mut robots: Vec<_> = (0..n)
            .map(|s| Labyrinth::robot(names[(s + shift) % n], level).unwrap())
            .collect();
        let mut actions = Vec::new();
        while let Some(p) = game.to_move() {
            let action = robots[p].choose(&game);
            robots[p].take_log();
            game.apply(action).unwrap();
            actions.push(action);
        }
        let mut points = vec![0; n];
        for seat in 0..n {
            points[(seat + shift) % n] += game.score(seat);
        }
        (actions, points)
    }

    #[test]
    fn it_plays_legal_moves_in_random_positions() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut robot = Searcher::new(Budget::Nodes(2_000));
        let mut actions = Vec::new();
        for round in 0..12u64 {
            let mut game = Labyrinth::generated(round + 1, 1 + round as usize % 4).unwrap();
            for _ in 0..rng.random_range(0..60) {
                game.legal_actions(&mut actions);
                if game.to_move().is_none() {
                    break;
                }
                game.apply_unchecked(actions[rng.random_range(0..actions.len())]);
            }
            if game.to_move().is_none() {
                continue;
            }
            let action = robot.choose(&game);
            assert_eq!(game.check(action), Ok(()));
            let log = robot.take_log();
            assert!(
                log.contains("plan of") && log.contains("#draw path"),
                "{log}"
            );
        }
    }

    #[test]
    fn a_princess_one_step_from_a_target_behind_a_blocked_line_is_not_stuck() {
        // Generated level 1 alone: the first target is one step from where the princess
        // arrives, across a column that cannot be pushed. A beam of plans that stand still
        // never found the detour and scored nothing in 88 rounds.
        let (_, points) = play(1, &["searcher/nodes=20000"], 0);
        assert!(points[0] >= 10, "{points:?}");
    }

    #[test]
    fn under_a_node_budget_it_plays_the_same_match_every_time() {
        let names = ["searcher/nodes=3000", "lookahead"];
        assert_eq!(play(2, &names, 0), play(2, &names, 0));
    }

    #[test]
    fn it_outscores_lookahead_from_both_seats() {
        let names = ["searcher/nodes=40000", "lookahead"];
        let mut points = [0, 0];
        for level in 1..3 {
            for shift in 0..2 {
                let (_, p) = play(level, &names, shift);
                points[0] += p[0];
                points[1] += p[1];
            }
        }
        assert!(
            points[0] > points[1],
            "searcher {} lookahead {}",
            points[0],
            points[1]
        );
    }

    #[test]
    fn in_a_position_it_stood_in_before_it_pushes_another_line() {
        let game = Labyrinth::generated(6, 2).unwrap();
        let mut robot = Searcher::new(Budget::Nodes(20_000));
        let first = robot.choose(&game).push().unwrap();
        let again = robot.choose(&game).push().unwrap();
        assert_ne!((first.c, first.p, first.k), (again.c, again.p, again.k));
        let third = robot.choose(&game).push().unwrap();
        assert_ne!((first.c, first.p, first.k), (third.c, third.p, third.k));
        assert_ne!((again.c, again.p, again.k), (third.c, third.p, third.k));
    }

    #[test]
    fn the_other_princess_replies_as_the_game_servers_robot_would() {
        for level in 1..6 {
            let mut game = Labyrinth::generated(level, 2).unwrap();
            game.apply(greedy_action(&game)).unwrap();
            // Seat 1 on turn: the plan sees the board from seat 0's side.
            let mut plan = root_plan(&game, 0);
            let at = game.position(1);
            let target = game.display_cell(game.current_target(1).unwrap());
            let width = game.width();
            let index = |c: Cell| c.y as usize * width + c.x as usize;
            plan.other = Some(Other {
                at: index(at),
                target: index(target),
                extra: game.extra(1),
            });
            let mut robot = Searcher::new(Budget::Nodes(1_000_000));
            robot.other_replies(&game, &mut plan).ok().unwrap();
            let before = game.score(1);
            game.apply(greedy_action(&game)).unwrap();
            let cells = game.width() * game.height();
            assert_eq!(&plan.sim.tiles[..cells], game.tiles(), "level {level}");
            assert_eq!(plan.sim.at, index(game.position(0)), "level {level}");
            match plan.other {
                Some(other) => assert_eq!(other.at, index(game.position(1)), "level {level}"),
                None => assert!(game.score(1) > before, "level {level}"),
            }
        }
    }

    #[test]
    fn as_a_process_it_plays_as_in_process() {
        // A process knows only what the turn blocks tell its seat: not the other seat's
        // points, extra tile or targets.
        use arbiter_games::{ClientEvent, WireClient};
        for level in 1..3 {
            let mut game = Labyrinth::generated(level, 2).unwrap();
            let mut in_process = Searcher::new(Budget::Nodes(20_000));
            let mut as_process = Searcher::new(Budget::Nodes(20_000));
            let mut other = crate::labyrinth::Lookahead::default();
            let mut client = arbiter_games::labyrinth::LabyrinthClient::default();
            let mut text = String::new();
            game.write_init(0, &mut text);
            for round in 0..40 {
                let Some(seat) = game.to_move() else { break };
                let action = if seat == 0 {
                    game.write_turn(Some(0), &mut text);
                    let mut told = None;
                    for line in text.lines() {
                        if let ClientEvent::YourTurn(g) =
                            Labyrinth::client_feed(&mut client, line).unwrap()
                        {
                            told = Some(g);
                        }
                    }
                    text.clear();
                    let action = in_process.choose(&game);
                    let told = told.expect("a turn block for seat 0");
                    assert_eq!(
                        as_process.choose(&told),
                        action,
                        "level {level}, round {round}"
                    );
                    Labyrinth::client_played(&mut client, action);
                    action
                } else {
                    game.write_turn(None, &mut text);
                    other.choose(&game)
                };
                game.apply(action).unwrap();
            }
        }
    }
}
