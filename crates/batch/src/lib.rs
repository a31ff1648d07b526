//! Many matches of one game stepped together for self-play (docs/python.md, "The batched
//! environment"). Each step plays one action in every match and writes, for every match, the
//! observation of the player on turn, the mask of its legal actions, each seat's reward and
//! whether the match ended, into flat arrays the caller owns (the Python package's NumPy
//! arrays), with no allocation per step.
//!
//! A finished match starts again at once, in the same step ("same-step" reset): its `done` is
//! set, its rewards are the final ones, and its observation and mask are already those of the
//! new match's first position.
#![warn(missing_docs)]

mod puoribor;
mod quoridor;
mod spread;

use std::fmt;

use arbiter_games::{Game, PlayerId};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use quoridor::QuoridorLegal;

/// What a game adds to [`Game`] to be stepped in a batch: a fixed layout of action indices,
/// observation planes of bytes, and a record of the legal actions that gives the mask and
/// draws a random action without listing the actions one by one.
pub trait BatchGame: Game {
    /// The legal actions of the player on turn, as [`BatchGame::list_legal`] records them.
    type Legal: Default + Clone + Send + Sync;
    /// The number of action indices, the same in every position.
    fn action_count(&self) -> usize;
    /// The shape of an observation, `(planes, rows, columns)`.
    fn observation_shape(&self) -> [usize; 3];
    /// Records the legal actions of the player on turn in `legal`; returns how many there are.
    fn list_legal(&self, legal: &mut Self::Legal) -> u32;
    /// The `k`-th of the legal actions recorded in `legal` (`k` below their number).
    fn nth_legal(&self, legal: &Self::Legal, k: u32) -> Self::Action;
    /// Writes the 0/1 mask of the actions in `legal` into `mask` (of `action_count` bytes).
    fn write_mask(&self, legal: &Self::Legal, mask: &mut [u8]);
    /// Writes `player`'s observation into `out` (of the shape's size).
    fn write_observation(&self, player: PlayerId, out: &mut [u8]);
    /// The action at `index`, `None` for an index outside the layout.
    fn decode(&self, index: usize) -> Option<Self::Action>;
    /// The index of an action, `None` for an action the layout has no index for (which no
    /// legal action is).
    fn encode(&self, action: Self::Action) -> Option<usize>;
}

/// The arrays a step writes, one row per match, each row contiguous: observations
/// (`observation_len` bytes), masks (`action_count` bytes), rewards (one per seat), dones and
/// the seat on turn.
pub struct Buffers<'a> {
    /// The observation of the player on turn, planes of bytes.
    pub observations: &'a mut [u8],
    /// 1 at each legal action index of the player on turn.
    pub masks: &'a mut [u8],
    /// Each seat's reward for the step.
    pub rewards: &'a mut [f32],
    /// Whether the match ended with the step (and started again).
    pub dones: &'a mut [bool],
    /// The seat on turn, whose observation and mask are written.
    pub to_move: &'a mut [u8],
}

/// Why a step was refused; nothing was played in any match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepError {
    /// The number of actions is not the number of matches.
    Count {
        /// Actions given.
        given: usize,
        /// Matches in the batch.
        expected: usize,
    },
    /// An action index outside the layout, or an illegal action.
    Illegal {
        /// The match.
        game: usize,
        /// The action index given for it.
        action: i64,
        /// What is wrong with it.
        reason: String,
    },
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepError::Count { given, expected } => write!(
                f,
                "{given} actions given for {expected} games: one action per game"
            ),
            StepError::Illegal {
                game,
                action,
                reason,
            } => write!(f, "game {game}: action {action} {reason}"),
        }
    }
}

impl std::error::Error for StepError {}

/// A [`Batch`] of any game, for callers that choose the game at run time.
pub trait DynBatch: Send + Sync {
    /// See [`Batch::len`].
    fn len(&self) -> usize;
    /// See [`Batch::is_empty`].
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// See [`Batch::num_players`].
    fn num_players(&self) -> usize;
    /// See [`Batch::action_count`].
    fn action_count(&self) -> usize;
    /// See [`Batch::observation_shape`].
    fn observation_shape(&self) -> [usize; 3];
    /// See [`Batch::reset`].
    fn reset(&mut self, seed: Option<u64>, out: &mut Buffers);
    /// See [`Batch::step`].
    fn step(&mut self, actions: &[i64], out: &mut Buffers) -> Result<(), StepError>;
    /// See [`Batch::step_random`].
    fn step_random(&mut self, out: &mut Buffers);
    /// See [`Batch::sample_random`].
    fn sample_random(&self, actions: &mut [i64]);
}

impl<G: BatchGame> DynBatch for Batch<G> {
    fn len(&self) -> usize {
        Batch::len(self)
    }
    fn num_players(&self) -> usize {
        Batch::num_players(self)
    }
    fn action_count(&self) -> usize {
        Batch::action_count(self)
    }
    fn observation_shape(&self) -> [usize; 3] {
        Batch::observation_shape(self)
    }
    fn reset(&mut self, seed: Option<u64>, out: &mut Buffers) {
        Batch::reset(self, seed, out)
    }
    fn step(&mut self, actions: &[i64], out: &mut Buffers) -> Result<(), StepError> {
        Batch::step(self, actions, out)
    }
    fn step_random(&mut self, out: &mut Buffers) {
        Batch::step_random(self, out)
    }
    fn sample_random(&self, actions: &mut [i64]) {
        Batch::sample_random(self, actions)
    }
}

/// `n` matches of one game, all started from the same position, and the random number
/// generator of the random policy.
///
/// The random action of each match is drawn as soon as its position is known, while the
/// position's legal actions are at hand: the batch keeps one action per match rather than a
/// record of every match's legal actions.
pub struct Batch<G: BatchGame> {
    start: G,
    games: Vec<G>,
    /// The random action drawn for each match's position.
    next: Vec<G::Action>,
    /// The legal actions of the match being written.
    legal: G::Legal,
    rng: SmallRng,
}

impl<G: BatchGame> Batch<G> {
    /// `n` matches from `start`; the random policy draws from `seed`. Call
    /// [`Batch::reset`] to write the first observations and draw the first random actions.
    pub fn new(start: G, n: usize, seed: u64) -> Batch<G> {
        let mut legal = G::Legal::default();
        start.list_legal(&mut legal);
        let first = start.nth_legal(&legal, 0);
        Batch {
            games: vec![start.clone(); n],
            next: vec![first; n],
            legal,
            start,
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    /// The number of matches.
    pub fn len(&self) -> usize {
        self.games.len()
    }
    /// Whether the batch has no match.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
    /// The number of seats of every match.
    pub fn num_players(&self) -> usize {
        self.start.num_players()
    }
    /// The number of action indices.
    pub fn action_count(&self) -> usize {
        self.start.action_count()
    }
    /// The shape of one observation, `(planes, rows, columns)`.
    pub fn observation_shape(&self) -> [usize; 3] {
        self.start.observation_shape()
    }
    /// The matches, in order.
    pub fn games(&self) -> &[G] {
        &self.games
    }

    /// Starts every match again (and, given a seed, the random policy's draws too), then
    /// writes every row of `out`: first observations and masks, no reward, no done.
    pub fn reset(&mut self, seed: Option<u64>, out: &mut Buffers) {
        if let Some(seed) = seed {
            self.rng = SmallRng::seed_from_u64(seed);
        }
        for i in 0..self.len() {
            out.rewards[self.seats(i)].fill(0.0);
            out.dones[i] = false;
            self.restart(i, out);
        }
    }

    /// Plays `actions[i]` (an action index) in match `i`, for every match, once all are known
    /// to be legal; otherwise nothing is played and the first faulty one is named.
    pub fn step(&mut self, actions: &[i64], out: &mut Buffers) -> Result<(), StepError> {
        let decoded = |i: usize| self.legal_action(i, actions[i]);
        if actions.len() != self.len() {
            return Err(StepError::Count {
                given: actions.len(),
                expected: self.len(),
            });
        }
        if let Some(error) = (0..self.len()).find_map(|i| decoded(i).err()) {
            return Err(error);
        }
        for (i, &index) in actions.iter().enumerate() {
            // Checked above: every index decodes.
            if let Some(action) = self.games[i].decode(index as usize) {
                self.advance(i, action, out);
            }
        }
        Ok(())
    }

    /// Plays a uniformly random legal action in every match: the actions
    /// [`Batch::sample_random`] gives.
    pub fn step_random(&mut self, out: &mut Buffers) {
        for i in 0..self.len() {
            self.advance(i, self.next[i], out);
        }
    }

    /// Writes a uniformly random legal action index of each match into `actions` (one per
    /// match), without playing them: the actions [`Batch::step_random`] would play.
    pub fn sample_random(&self, actions: &mut [i64]) {
        for ((slot, game), &action) in actions.iter_mut().zip(&self.games).zip(&self.next) {
            *slot = game.encode(action).map_or(-1, |a| a as i64);
        }
    }

    fn legal_action(&self, i: usize, index: i64) -> Result<G::Action, StepError> {
        let game = &self.games[i];
        let illegal = |reason: String| StepError::Illegal {
            game: i,
            action: index,
            reason,
        };
        let action = usize::try_from(index)
            .ok()
            .and_then(|a| game.decode(a))
            .ok_or_else(|| {
                illegal(format!(
                    "is outside the action space 0..{}",
                    game.action_count()
                ))
            })?;
        game.check(action)
            .map_err(|e| illegal(format!("({action:?}) is illegal: {e}")))?;
        Ok(action)
    }

    /// Plays a legal `action` in match `i`, then the turns of players left without a legal
    /// action, restarts the match if it ended, and writes its row.
    fn advance(&mut self, i: usize, action: G::Action, out: &mut Buffers) {
        let game = &mut self.games[i];
        game.apply_unchecked(action);
        let mut count = game.list_legal(&mut self.legal);
        while count == 0 && game.to_move().is_some() {
            game.apply_stuck();
            count = game.list_legal(&mut self.legal);
        }
        let seats = self.seats(i);
        match self.games[i].outcome() {
            Some(outcome) => {
                for (reward, score) in out.rewards[seats].iter_mut().zip(&outcome.scores) {
                    *reward = (2.0 * score - 1.0) as f32;
                }
                out.dones[i] = true;
                self.restart(i, out);
            }
            None => {
                out.rewards[seats].fill(0.0);
                out.dones[i] = false;
                self.write_row(i, count, out);
            }
        }
    }

    /// Starts match `i` again and writes its row.
    fn restart(&mut self, i: usize, out: &mut Buffers) {
        self.games[i].clone_from(&self.start);
        let count = self.games[i].list_legal(&mut self.legal);
        self.write_row(i, count, out);
    }

    fn seats(&self, i: usize) -> std::ops::Range<usize> {
        let n = self.num_players();
        i * n..(i + 1) * n
    }

    /// Writes match `i`'s observation, mask and seat on turn, with its `count` legal actions
    /// in `self.legal`, and draws its random action among them.
    fn write_row(&mut self, i: usize, count: u32, out: &mut Buffers) {
        let game = &self.games[i];
        let player = game.to_move().unwrap_or(0);
        let obs = self.observation_shape().iter().product::<usize>();
        let actions = self.action_count();
        game.write_observation(player, &mut out.observations[i * obs..(i + 1) * obs]);
        game.write_mask(&self.legal, &mut out.masks[i * actions..(i + 1) * actions]);
        out.to_move[i] = player as u8;
        if count > 0 {
            let k = self.rng.random_range(0..count);
            self.next[i] = game.nth_legal(&self.legal, k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbiter_games::puoribor::Puoribor;
    use arbiter_games::quoridor::{Quoridor, Settings};

    /// Owned arrays for a batch, as the Python package's NumPy arrays are.
    #[derive(Clone, PartialEq, Debug)]
    struct Arrays {
        observations: Vec<u8>,
        masks: Vec<u8>,
        rewards: Vec<f32>,
        dones: Vec<bool>,
        to_move: Vec<u8>,
    }

    impl Arrays {
        fn for_batch<G: BatchGame>(batch: &Batch<G>) -> Arrays {
            let n = batch.len();
            Arrays {
                observations: vec![0; n * batch.observation_shape().iter().product::<usize>()],
                masks: vec![0; n * batch.action_count()],
                rewards: vec![0.0; n * batch.num_players()],
                dones: vec![false; n],
                to_move: vec![0; n],
            }
        }
        fn buffers(&mut self) -> Buffers<'_> {
            Buffers {
                observations: &mut self.observations,
                masks: &mut self.masks,
                rewards: &mut self.rewards,
                dones: &mut self.dones,
                to_move: &mut self.to_move,
            }
        }
    }

    fn quoridor_batch(players: u8, board: u8, n: usize, seed: u64) -> (Batch<Quoridor>, Arrays) {
        let start = Quoridor::new(Settings::standard(players, board).unwrap()).unwrap();
        let mut batch = Batch::new(start, n, seed);
        let mut arrays = Arrays::for_batch(&batch);
        batch.reset(None, &mut arrays.buffers());
        (batch, arrays)
    }

    /// The mask the engine's list of legal actions gives.
    fn listed_mask<G: BatchGame>(game: &G) -> Vec<u8> {
        let mut mask = vec![0; game.action_count()];
        let mut actions = Vec::new();
        game.legal_actions(&mut actions);
        for a in actions {
            mask[game.encode(a).unwrap()] = 1;
        }
        mask
    }

    /// Plays `steps` random steps in `batch`, checking every mask and seat on turn.
    fn check_masks<G: BatchGame + fmt::Debug>(mut batch: Batch<G>, steps: usize) {
        let mut arrays = Arrays::for_batch(&batch);
        batch.reset(None, &mut arrays.buffers());
        let actions = batch.action_count();
        for _ in 0..steps {
            batch.step_random(&mut arrays.buffers());
            for (i, game) in batch.games().iter().enumerate() {
                let mask = &arrays.masks[i * actions..(i + 1) * actions];
                assert_eq!(mask, listed_mask(game), "game {i}: {game:?}");
                assert_eq!(Some(usize::from(arrays.to_move[i])), game.to_move());
            }
        }
    }

    #[test]
    fn masks_are_the_legal_actions_of_the_player_on_turn() {
        for (players, board) in [(2, 9), (4, 9), (2, 5), (4, 7), (2, 19)] {
            let start = Quoridor::new(Settings::standard(players, board).unwrap()).unwrap();
            check_masks(Batch::new(start, 8, 1), 300);
        }
        check_masks(Batch::new(Puoribor::with_max_ticks(60), 4, 1), 150);
    }

    #[test]
    fn observations_show_pawns_walls_and_walls_left_from_the_player_on_turn() {
        let (mut batch, mut arrays) = quoridor_batch(2, 9, 1, 3);
        let cells = 81;
        for _ in 0..40 {
            batch.step_random(&mut arrays.buffers());
            let game = &batch.games()[0];
            let obs = &arrays.observations;
            let me = game.current();
            for (plane, seat) in [me, 1 - me].into_iter().enumerate() {
                let pawn = game.pawn(seat).unwrap();
                let at = plane * cells + pawn.y as usize * 9 + pawn.x as usize;
                assert_eq!(
                    obs[plane * cells..(plane + 1) * cells].iter().sum::<u8>(),
                    1
                );
                assert_eq!(obs[at], 1);
                let left = &obs[(4 + plane) * cells..(5 + plane) * cells];
                assert!(left.iter().all(|&v| v == game.walls_left(seat)));
            }
            let mut walls = 0;
            for (wall, _) in game.walls() {
                let plane = 2 + usize::from(wall.orientation.as_v());
                assert_eq!(
                    obs[plane * cells + wall.y as usize * 9 + wall.x as usize],
                    1
                );
                walls += 1;
            }
            assert_eq!(
                obs[2 * cells..4 * cells]
                    .iter()
                    .map(|&v| v as usize)
                    .sum::<usize>(),
                walls
            );
        }
    }

    #[test]
    fn a_refused_step_names_the_game_and_plays_nothing() {
        let (mut batch, mut arrays) = quoridor_batch(2, 9, 3, 5);
        let before = (batch.games().to_vec(), arrays.clone());
        let mut actions = vec![0i64; 3];
        batch.sample_random(&mut actions);
        for (bad, expected) in [(0, "is illegal"), (500, "outside"), (-1, "outside")] {
            let mut wrong = actions.clone();
            wrong[1] = bad;
            let error = batch.step(&wrong, &mut arrays.buffers()).unwrap_err();
            let text = error.to_string();
            assert!(
                text.starts_with(&format!("game 1: action {bad} ")),
                "{text}"
            );
            assert!(text.contains(expected), "{text}");
            assert_eq!((batch.games().to_vec(), arrays.clone()), before);
        }
        let error = batch
            .step(&actions[..2], &mut arrays.buffers())
            .unwrap_err();
        assert_eq!(
            error,
            StepError::Count {
                given: 2,
                expected: 3
            }
        );
        batch.step(&actions, &mut arrays.buffers()).unwrap();
    }

    #[test]
    fn the_random_policy_is_the_sampled_actions_played_and_repeats_with_its_seed() {
        let (mut stepped, mut a) = quoridor_batch(2, 9, 16, 7);
        let (mut sampled, mut b) = quoridor_batch(2, 9, 16, 7);
        let mut actions = vec![0i64; 16];
        for _ in 0..500 {
            stepped.step_random(&mut a.buffers());
            sampled.sample_random(&mut actions);
            sampled.step(&actions, &mut b.buffers()).unwrap();
            assert_eq!(a, b);
        }
        let first = a.clone();
        stepped.reset(Some(9), &mut a.buffers());
        sampled.reset(Some(9), &mut b.buffers());
        assert_ne!(a, first);
        for _ in 0..200 {
            stepped.step_random(&mut a.buffers());
            sampled.step_random(&mut b.buffers());
            assert_eq!(a, b);
        }
    }

    #[test]
    fn a_finished_match_pays_its_rewards_and_starts_again_in_the_same_step() {
        let (mut batch, mut arrays) = quoridor_batch(2, 9, 4, 11);
        let start = arrays.clone();
        let (obs, actions) = (6 * 81, batch.action_count());
        let mut finished = 0;
        for _ in 0..1000 {
            let ticks: Vec<u32> = batch.games().iter().map(|g| g.tick()).collect();
            batch.step_random(&mut arrays.buffers());
            for (i, &tick) in ticks.iter().enumerate() {
                let rewards = &arrays.rewards[2 * i..2 * i + 2];
                if !arrays.dones[i] {
                    assert_eq!(rewards, [0.0, 0.0]);
                    continue;
                }
                finished += 1;
                assert!(tick < 100, "a match ends within the tick limit");
                assert_eq!(rewards[0], -rewards[1]);
                assert!(rewards.iter().all(|r| [-1.0, 0.0, 1.0].contains(r)));
                assert_eq!(batch.games()[i].tick(), 0);
                let row = |a: &Arrays| {
                    (
                        a.observations[i * obs..(i + 1) * obs].to_vec(),
                        a.masks[i * actions..(i + 1) * actions].to_vec(),
                        a.to_move[i],
                    )
                };
                assert_eq!(row(&arrays), row(&start));
            }
        }
        assert!(finished > 10, "{finished} matches finished");
    }
}
