//! The batched environments of `arbiter.batch` (docs/python.md): many matches stepped in one
//! call with the GIL released, every result written into NumPy arrays the environment makes
//! once and keeps. The stepping itself is the crate `arbiter-batch`.

use arbiter_batch::{Batch, Buffers, DynBatch};
use arbiter_games::puoribor::Puoribor;
use arbiter_games::quoridor::{Quoridor, Settings};
use numpy::{
    PyArray1, PyArray2, PyArray4, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// `n` matches of one game stepped together; see `arbiter.batch` for the arrays.
#[pyclass(module = "arbiter._engine", subclass)]
pub struct BatchEnv {
    batch: Box<dyn DynBatch>,
    observations: Py<PyArray4<u8>>,
    masks: Py<PyArray2<u8>>,
    rewards: Py<PyArray2<f32>>,
    dones: Py<PyArray1<bool>>,
    to_move: Py<PyArray1<u8>>,
    actions: Vec<i64>,
}

impl BatchEnv {
    /// The environment around `batch`, its arrays made and its matches reset.
    fn new(py: Python<'_>, batch: Box<dyn DynBatch>) -> PyResult<BatchEnv> {
        let n = batch.len();
        let [planes, rows, columns] = batch.observation_shape();
        let mut env = BatchEnv {
            observations: PyArray4::zeros(py, [n, planes, rows, columns], false).unbind(),
            masks: PyArray2::zeros(py, [n, batch.action_count()], false).unbind(),
            rewards: PyArray2::zeros(py, [n, batch.num_players()], false).unbind(),
            dones: PyArray1::zeros(py, n, false).unbind(),
            to_move: PyArray1::zeros(py, n, false).unbind(),
            actions: Vec::with_capacity(n),
            batch,
        };
        env.with_buffers(py, |batch, out| batch.reset(None, out))?;
        Ok(env)
    }

    /// Runs `f` on the batch and the arrays with the GIL released.
    fn with_buffers<T: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn DynBatch, &mut Buffers) -> T + Send,
    ) -> PyResult<T> {
        let mut observations = self.observations.bind(py).try_readwrite()?;
        let mut masks = self.masks.bind(py).try_readwrite()?;
        let mut rewards = self.rewards.bind(py).try_readwrite()?;
        let mut dones = self.dones.bind(py).try_readwrite()?;
        let mut to_move = self.to_move.bind(py).try_readwrite()?;
        let mut out = Buffers {
            observations: observations.as_slice_mut()?,
            masks: masks.as_slice_mut()?,
            rewards: rewards.as_slice_mut()?,
            dones: dones.as_slice_mut()?,
            to_move: to_move.as_slice_mut()?,
        };
        let batch = &mut *self.batch;
        Ok(py.detach(move || f(batch, &mut out)))
    }

    /// `actions` as action indices, into `self.actions`: a one-dimensional array of int64 or
    /// int32 numbers, or anything NumPy turns into one.
    fn read_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        self.actions.clear();
        if let Ok(array) = actions.extract::<PyReadonlyArray1<i64>>() {
            self.actions.extend(array.as_array().iter());
        } else if let Ok(array) = actions.extract::<PyReadonlyArray1<i32>>() {
            self.actions
                .extend(array.as_array().iter().map(|&a| i64::from(a)));
        } else {
            let type_name = actions.get_type().name()?;
            return Err(value_error(format!(
                "actions must be a one-dimensional int64 or int32 NumPy array, got {type_name}"
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl BatchEnv {
    /// The number of matches.
    #[getter]
    fn num_envs(&self) -> usize {
        self.batch.len()
    }
    /// The number of seats of every match.
    #[getter]
    fn num_players(&self) -> usize {
        self.batch.num_players()
    }
    /// The number of action indices.
    #[getter]
    fn action_count(&self) -> usize {
        self.batch.action_count()
    }
    /// The shape of one match's observation, `(planes, rows, columns)`.
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        let [planes, rows, columns] = self.batch.observation_shape();
        (planes, rows, columns)
    }
    /// The observations, `uint8` `(n, planes, rows, columns)`: the same array after every step.
    #[getter]
    fn obs(&self, py: Python<'_>) -> Py<PyArray4<u8>> {
        self.observations.clone_ref(py)
    }
    /// The masks of legal actions, `uint8` `(n, action_count)`.
    #[getter]
    fn mask(&self, py: Python<'_>) -> Py<PyArray2<u8>> {
        self.masks.clone_ref(py)
    }
    /// Each seat's reward for the last step, `float32` `(n, players)`.
    #[getter]
    fn rewards(&self, py: Python<'_>) -> Py<PyArray2<f32>> {
        self.rewards.clone_ref(py)
    }
    /// Whether each match ended with the last step (and started again), `bool` `(n,)`.
    #[getter]
    fn dones(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.dones.clone_ref(py)
    }
    /// The seat on turn in each match, whose observation and mask the arrays hold,
    /// `uint8` `(n,)`.
    #[getter]
    fn to_move(&self, py: Python<'_>) -> Py<PyArray1<u8>> {
        self.to_move.clone_ref(py)
    }

    /// Starts every match again; with a seed, the random policy's draws start again too.
    #[pyo3(signature = (seed=None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        self.with_buffers(py, |batch, out| batch.reset(seed, out))
    }

    /// Plays `actions[i]` in match `i` for every match; an illegal action raises `ValueError`
    /// naming the match and the action, and nothing is played in any match.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        self.read_actions(actions)?;
        let actions = std::mem::take(&mut self.actions);
        let result = self.with_buffers(py, |batch, out| batch.step(&actions, out));
        self.actions = actions;
        result?.map_err(|e| value_error(e.to_string()))
    }

    /// Plays a uniformly random legal action in every match.
    fn step_random(&mut self, py: Python<'_>) -> PyResult<()> {
        self.with_buffers(py, |batch, out| batch.step_random(out))
    }

    /// Writes a uniformly random legal action index of each match into `out`, an `int64`
    /// array of shape `(n,)`, without playing them: the actions `step_random` would play.
    fn sample_random(&self, py: Python<'_>, out: &Bound<'_, PyArray1<i64>>) -> PyResult<()> {
        if out.len() != self.batch.len() {
            return Err(value_error(format!(
                "out has {} entries for {} games",
                out.len(),
                self.batch.len()
            )));
        }
        let mut out = out.try_readwrite()?;
        let out = out.as_slice_mut()?;
        let batch = &*self.batch;
        py.detach(move || batch.sample_random(out));
        Ok(())
    }
}

/// Quoridor matches for a batch: `players` on a `board` × `board` board.
#[pyclass(module = "arbiter._engine", extends = BatchEnv)]
pub struct QuoridorBatch;

#[pymethods]
impl QuoridorBatch {
    #[new]
    #[pyo3(signature = (n, players=2, board=9, seed=0, max_ticks=None))]
    fn new(
        py: Python<'_>,
        n: usize,
        players: u8,
        board: u8,
        seed: u64,
        max_ticks: Option<u32>,
    ) -> PyResult<(Self, BatchEnv)> {
        let mut settings =
            Settings::standard(players, board).map_err(|e| value_error(e.to_string()))?;
        if let Some(limit) = max_ticks {
            settings.max_ticks = limit;
        }
        let start = Quoridor::new(settings).map_err(|e| value_error(e.to_string()))?;
        let env = BatchEnv::new(py, Box::new(Batch::new(start, n, seed)))?;
        Ok((QuoridorBatch, env))
    }
}

/// Puoribor matches for a batch, drawn after `max_ticks` actions.
#[pyclass(module = "arbiter._engine", extends = BatchEnv)]
pub struct PuoriborBatch;

#[pymethods]
impl PuoriborBatch {
    #[new]
    #[pyo3(signature = (n, seed=0, max_ticks=200))]
    fn new(py: Python<'_>, n: usize, seed: u64, max_ticks: u32) -> PyResult<(Self, BatchEnv)> {
        if max_ticks == 0 {
            return Err(value_error("max_ticks must be at least 1"));
        }
        let start = Puoribor::with_max_ticks(max_ticks);
        let env = BatchEnv::new(py, Box::new(Batch::new(start, n, seed)))?;
        Ok((PuoriborBatch, env))
    }
}
