//! The engines behind the PettingZoo environments (`arbiter.pettingzoo`, docs/python.md): one
//! match of one game, driven by flat action indices, seen as planes of `float32` numbers. The
//! Python side only keeps PettingZoo's bookkeeping (agents, rewards, terminations); the rules,
//! the action layouts, the observations and the text pictures are all here.

mod domino;
mod labyrinth;
mod labyrinth_text;
mod picture;
mod puoribor;
mod quoridor;

use arbiter_games::{Game, PlayerId};
use numpy::ndarray::Array3;
use numpy::{IntoPyArray, PyArray1, PyArray3};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What a game adds to the [`Game`] trait to be an environment: a fixed action-index layout,
/// observation planes and a text picture. Each game documents its layout in docs/python.md.
trait Encoding: Game {
    /// The number of action indices, the same in every position of a match.
    fn action_count(&self) -> usize;
    /// The action at `index` for the player on turn, `None` for an index that names nothing.
    fn decode(&self, index: usize) -> Option<Self::Action>;
    /// The index of a legal action of the player on turn (`None` for an action the layout
    /// has no index for, which no legal action is).
    fn encode(&self, action: Self::Action) -> Option<usize>;
    /// The shape of an observation, `(planes, rows, columns)`.
    fn shape(&self) -> (usize, usize, usize);
    /// `player`'s observation, written into `out` (of [`Encoding::shape`]'s size, zeroed).
    fn observe(&self, player: PlayerId, out: &mut Array3<f32>);
    /// The position as text.
    fn render(&self) -> String;
    /// The position as a picture.
    fn paint(&self) -> picture::Grid;
    /// What each player earned with the turn that led from `before` to `self`. By default a
    /// finished match pays each player `2 · score − 1` (1 to a sole winner, −1 to a loser, 0
    /// to both sides of a two-player draw) and anything else pays nothing.
    fn rewards(&self, _before: &Self) -> Vec<f64> {
        match self.outcome() {
            Some(outcome) => outcome.scores.iter().map(|s| 2.0 * s - 1.0).collect(),
            None => vec![0.0; self.num_players()],
        }
    }
}

/// A match of any game, as [`Match`] drives it.
trait Env: Send + Sync {
    fn num_players(&self) -> usize;
    fn to_move(&self) -> Option<PlayerId>;
    fn action_count(&self) -> usize;
    fn shape(&self) -> (usize, usize, usize);
    fn mask(&self) -> Vec<i8>;
    fn observe(&self, player: PlayerId) -> Array3<f32>;
    fn step(&mut self, index: usize) -> Result<Vec<f64>, String>;
    fn render(&self) -> String;
    fn picture(&self) -> Array3<u8>;
    fn tick(&self) -> u32;
    fn outcome_reason(&self) -> Option<&'static str>;
}

impl<G: Encoding> Env for G {
    fn num_players(&self) -> usize {
        Game::num_players(self)
    }
    fn to_move(&self) -> Option<PlayerId> {
        Game::to_move(self)
    }
    fn action_count(&self) -> usize {
        Encoding::action_count(self)
    }
    fn shape(&self) -> (usize, usize, usize) {
        Encoding::shape(self)
    }
    fn mask(&self) -> Vec<i8> {
        let mut mask = vec![0; Encoding::action_count(self)];
        let mut actions = Vec::new();
        self.legal_actions(&mut actions);
        for index in actions.into_iter().filter_map(|a| self.encode(a)) {
            mask[index] = 1;
        }
        mask
    }
    fn observe(&self, player: PlayerId) -> Array3<f32> {
        let mut planes = Array3::zeros(Encoding::shape(self));
        Encoding::observe(self, player, &mut planes);
        planes
    }
    /// Plays the action at `index`, then the turns of players left without a legal action
    /// (Quoridor eliminates them, Domino ends), so that whoever is on turn next can act.
    fn step(&mut self, index: usize) -> Result<Vec<f64>, String> {
        if Game::to_move(self).is_none() {
            return Err("the match is over: no action follows".into());
        }
        let action = self.decode(index).ok_or_else(|| {
            format!(
                "action {index} is outside the action space 0..{}",
                Encoding::action_count(self)
            )
        })?;
        let before = self.clone();
        self.apply(action)
            .map_err(|e| format!("action {index} ({action:?}) is illegal: {e}"))?;
        while Game::to_move(self).is_some() && self.is_stuck() {
            self.apply_stuck();
        }
        Ok(self.rewards(&before))
    }
    fn render(&self) -> String {
        Encoding::render(self)
    }
    fn picture(&self) -> Array3<u8> {
        self.paint().into_array()
    }
    fn tick(&self) -> u32 {
        Game::tick(self)
    }
    fn outcome_reason(&self) -> Option<&'static str> {
        self.outcome().map(|o| o.reason)
    }
}

/// The last line of a picture: who is on turn, or why the match ended.
fn turn_line<G: Game>(game: &G) -> String {
    match (game.to_move(), game.outcome()) {
        (Some(seat), _) => format!("player {seat} to move\n"),
        (None, Some(outcome)) => format!("over: {}\n", outcome.reason),
        (None, None) => "over\n".to_owned(),
    }
}

/// `player`'s observation as the batched environment writes it (bytes), each plane divided
/// by `divisor(plane)`, into `out` (of the observation's shape).
fn observe_scaled<G: arbiter_batch::BatchGame>(
    game: &G,
    player: PlayerId,
    out: &mut Array3<f32>,
    divisor: impl Fn(usize) -> f32,
) {
    let mut bytes = vec![0; out.len()];
    game.write_observation(player, &mut bytes);
    let plane_len = out.len() / out.shape()[0];
    for ((o, &b), i) in out.iter_mut().zip(&bytes).zip(0..) {
        *o = f32::from(b) / divisor(i / plane_len);
    }
}

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// One match of one game for a PettingZoo environment: actions are flat indices into the
/// game's fixed layout, observations `float32` planes, masks `int8`.
#[pyclass(module = "arbiter._engine", frozen)]
pub struct AecMatch {
    env: std::sync::Mutex<Box<dyn Env>>,
}

impl AecMatch {
    fn new(env: impl Env + 'static) -> AecMatch {
        AecMatch {
            env: std::sync::Mutex::new(Box::new(env)),
        }
    }
    fn with<T>(&self, f: impl FnOnce(&mut dyn Env) -> T) -> T {
        let mut env = self.env.lock().unwrap_or_else(|e| e.into_inner());
        f(env.as_mut())
    }
    fn player(&self, player: usize) -> PyResult<PlayerId> {
        let n = self.with(|e| e.num_players());
        if player < n {
            Ok(player)
        } else {
            Err(value_error(format!(
                "player {player} is not a seat of this match (0..{n})"
            )))
        }
    }
}

#[pymethods]
impl AecMatch {
    /// A Quoridor match: `players` (2 or 4) on a `board` × `board` board, standard setup.
    #[staticmethod]
    fn quoridor(players: u8, board: u8) -> PyResult<AecMatch> {
        quoridor::new(players, board).map(AecMatch::new)
    }
    /// A Puoribor match from the start, drawn after `max_ticks` actions.
    #[staticmethod]
    fn puoribor(max_ticks: u32) -> PyResult<AecMatch> {
        puoribor::new(max_ticks).map(AecMatch::new)
    }
    /// A Domino match on a `size` × `size` board whose obstacles are drawn from `seed`.
    #[staticmethod]
    fn domino(size: u8, seed: u64) -> PyResult<AecMatch> {
        domino::new(size, seed).map(AecMatch::new)
    }
    /// A Labyrinth match on generated level `level` between `players` seats.
    #[staticmethod]
    fn labyrinth(level: u64, players: usize) -> PyResult<AecMatch> {
        labyrinth::new(level, players).map(AecMatch::new)
    }
    /// The number of the first generated Labyrinth level from `start` on that is `width` ×
    /// `height` cells (each side 14 to 20).
    #[staticmethod]
    fn labyrinth_level_of_size(width: usize, height: usize, start: u64) -> PyResult<u64> {
        labyrinth::level_of_size(width, height, start)
    }
    /// The number of seats.
    #[getter]
    fn num_players(&self) -> usize {
        self.with(|e| e.num_players())
    }
    /// The seat on turn, `None` once the match is over.
    #[getter]
    fn to_move(&self) -> Option<usize> {
        self.with(|e| e.to_move())
    }
    /// The number of action indices.
    #[getter]
    fn action_count(&self) -> usize {
        self.with(|e| e.action_count())
    }
    /// The shape of an observation, `(planes, rows, columns)`.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        self.with(|e| e.shape())
    }
    /// Turns played so far.
    #[getter]
    fn tick(&self) -> u32 {
        self.with(|e| e.tick())
    }
    /// Why the match ended (`goal`, `tick_limit`, …), `None` while it goes on.
    #[getter]
    fn end_reason(&self) -> Option<&'static str> {
        self.with(|e| e.outcome_reason())
    }
    /// The `int8` 0/1 mask of the legal action indices of the seat on turn.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        self.with(|e| e.mask()).into_pyarray(py)
    }
    /// `player`'s observation: `float32` planes of `observation_shape`, each value in [0, 1].
    fn observe<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let player = self.player(player)?;
        Ok(self.with(|e| e.observe(player)).into_pyarray(py))
    }
    /// Plays the action at `index` for the seat on turn; returns each seat's reward for the
    /// turn. An illegal or unknown index raises `ValueError` and changes nothing.
    fn step(&self, index: usize) -> PyResult<Vec<f64>> {
        self.with(|e| e.step(index)).map_err(value_error)
    }
    /// The position as text.
    fn render(&self) -> String {
        self.with(|e| e.render())
    }
    /// The position as a picture: `uint8` of shape `(height, width, 3)`, red, green, blue.
    fn render_rgb<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray3<u8>> {
        self.with(|e| e.picture()).into_pyarray(py)
    }
}
