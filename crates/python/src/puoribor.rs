//! Puoribor for the `fights` drop-in (`arbiter.compat.fights.envs.puoribor`): a state is the
//! upstream board `[channel][x][y]` and walls remaining as NumPy `int64` arrays, exactly as
//! `fights` keeps it. Each call reads the position from the arrays (or finds it in a one-entry
//! cache keyed by every number of them), so the arrays stay the one truth a user may read, copy
//! or change, as with `fights`.

use std::cell::RefCell;

use arbiter_games::Game;
use arbiter_games::puoribor::{Action, Puoribor, WallLine, WallLineKind};
use numpy::ndarray::ArrayView3;
use numpy::{
    PyArray1, PyArray3, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

/// `fights` has no draw: a game goes on until a pawn reaches its goal row.
const NO_DRAW: u32 = u32::MAX;

fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// A state's numbers as the caller gave them.
#[derive(PartialEq)]
struct Numbers {
    /// The board `[channel][x][y]`, flattened.
    board: Vec<i64>,
    walls: [i64; 2],
}

const BOARD_SHAPE: (usize, usize, usize) = (6, 9, 9);

/// The numbers of `board` and `walls_remaining`. Any strides are accepted; the dtype must be
/// `int64`, as `fights` requires (its Cython step refuses other dtypes with a `ValueError`
/// too).
fn read_numbers(board: &Bound<'_, PyAny>, walls_remaining: &Bound<'_, PyAny>) -> PyResult<Numbers> {
    let board = read_int64(board, "board", &[6, 9, 9])?;
    let walls = read_int64(walls_remaining, "walls_remaining", &[2])?;
    Ok(Numbers {
        board,
        walls: [walls[0], walls[1]],
    })
}

fn read_int64(value: &Bound<'_, PyAny>, name: &str, shape: &[usize]) -> PyResult<Vec<i64>> {
    let wrong = |got: String| {
        value_error(format!(
            "{name} must be a NumPy int64 array of shape {shape:?}, got {got}"
        ))
    };
    let array = value
        .cast::<PyArrayDyn<i64>>()
        .map_err(|_| wrong(describe(value)))?;
    if array.shape() != shape {
        return Err(wrong(format!("shape {:?}", array.shape())));
    }
    // `to_vec` copies without NumPy's borrow bookkeeping, in memory order: right for C order
    // only. A transposed, Fortran-ordered or sliced array is read index by index.
    match array.is_c_contiguous().then(|| array.to_vec()) {
        Some(Ok(values)) => Ok(values),
        _ => Ok(array.to_owned_array().iter().copied().collect()),
    }
}

/// The engine's position for `numbers`, with `agent` on turn.
fn position(numbers: &Numbers, agent: usize) -> PyResult<Puoribor> {
    if let Some(i) = numbers.board.iter().position(|v| !(0..=2).contains(v)) {
        let (c, x, y) = (i / 81, i / 9 % 9, i % 9);
        return Err(value_error(format!(
            "board[{c}, {x}, {y}] is {}: pawns and midpoints are 0 or 1, walls 0, 1 or 2",
            numbers.board[i]
        )));
    }
    let mut board = [[[0u8; 9]; 9]; 6];
    let cells = board.as_flattened_mut().as_flattened_mut();
    for (cell, &value) in cells.iter_mut().zip(&numbers.board) {
        *cell = value as u8; // 0 to 2, checked above
    }
    let mut walls = [0u8; 2];
    for (agent, (count, &value)) in walls.iter_mut().zip(&numbers.walls).enumerate() {
        *count = u8::try_from(value).map_err(|_| {
            value_error(format!(
                "walls_remaining[{agent}] is {value}, not a count of walls"
            ))
        })?;
    }
    Puoribor::from_board(&board, walls, agent as u32, NO_DRAW)
        .map_err(|e| value_error(e.to_string()))
}

/// The numbers of a position, as `fights` arrays hold them: pawns one-hot in channels 0 and
/// 1, wall segments labelled with their owner's id + 1 in channels 2 (under a cell) and 3
/// (right of a cell), midpoints of whole walls in channels 4 and 5. Built from the few walls
/// there are rather than from [`Puoribor::board`], which visits all 486 cells; the differential
/// test compares every board with `fights`.
fn numbers_of(game: &Puoribor) -> Numbers {
    let cell = |channel: usize, x: u8, y: u8| channel * 81 + usize::from(x) * 9 + usize::from(y);
    let mut board = vec![0; 6 * 81];
    for agent in 0..2 {
        let (x, y) = game.pawn(agent);
        board[cell(agent, x, y)] = 1;
    }
    for WallLine { kind, x, y, owner } in game.wall_lines() {
        let label = i64::from(owner) + 1;
        let (channel, second) = match kind {
            WallLineKind::Horizontal | WallLineKind::UnitHorizontal => (2, (x + 1, y)),
            WallLineKind::Vertical | WallLineKind::UnitVertical => (3, (x, y + 1)),
        };
        board[cell(channel, x, y)] = label;
        if matches!(kind, WallLineKind::Horizontal | WallLineKind::Vertical) {
            board[cell(channel, second.0, second.1)] = label;
            board[cell(channel + 2, x, y)] = 1;
        }
    }
    Numbers {
        board,
        walls: [0, 1].map(|p| i64::from(game.walls_remaining(p))),
    }
}

/// The last position a step made, with the numbers of the state it returned and the agent on
/// turn after it. An agent loop asks for the legal actions of that state and then steps it, so
/// both calls find it here instead of rebuilding it from the arrays. The key is every number
/// the position is built from: a state with other numbers never matches.
struct Cached {
    numbers: Numbers,
    agent: usize,
    game: Puoribor,
}

thread_local! {
    static LAST: RefCell<Option<Cached>> = const { RefCell::new(None) };
}

fn cached_position(numbers: &Numbers, agent: usize) -> PyResult<Puoribor> {
    let hit = LAST.with_borrow(|last| {
        last.as_ref()
            .filter(|c| c.agent == agent && c.numbers == *numbers)
            .map(|c| c.game.clone())
    });
    match hit {
        Some(game) => Ok(game),
        None => position(numbers, agent),
    }
}

/// The agent and the position of a state's arrays, with that agent on turn.
fn state_position(
    board: &Bound<'_, PyAny>,
    walls_remaining: &Bound<'_, PyAny>,
    agent_id: i64,
) -> PyResult<(usize, Puoribor)> {
    let agent = read_agent(agent_id)?;
    let numbers = read_numbers(board, walls_remaining)?;
    Ok((agent, cached_position(&numbers, agent)?))
}

/// `[action_type, x, y]` from anything `numpy.array(action, dtype=numpy.int_)` takes, as
/// `fights` reads it. An `int64` array (a row of `numpy.argwhere`) and a tuple or list of ints
/// are read directly; anything else goes through NumPy.
fn read_action(action: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Ok((kind, x, y)) = action.extract::<(i64, i64, i64)>() {
        return Ok(action_of([kind, x, y]));
    }
    if let Ok(array) = action.extract::<PyReadonlyArray1<'_, i64>>()
        && let Ok(values) = array.as_slice()
    {
        return action_from(values, action);
    }
    if action.is_instance_of::<PyList>()
        && let Ok(values) = action.extract::<Vec<i64>>()
    {
        return action_from(&values, action);
    }
    let numpy = action.py().import("numpy")?;
    let array: PyReadonlyArray1<'_, i64> = numpy
        .call_method1("ascontiguousarray", (action, numpy.getattr("int64")?))?
        .extract()
        .map_err(|_| wrong_action(action))?;
    action_from(array.as_slice().unwrap_or_default(), action)
}

fn action_from(values: &[i64], action: &Bound<'_, PyAny>) -> PyResult<Action> {
    match *values {
        [kind, x, y] => Ok(action_of([kind, x, y])),
        _ => Err(wrong_action(action)),
    }
}

fn action_of([kind, x, y]: [i64; 3]) -> Action {
    // Numbers past i32 are as far off the board as i32's ends.
    let narrow = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    Action::new(narrow(kind), narrow(x), narrow(y))
}

fn wrong_action(action: &Bound<'_, PyAny>) -> PyErr {
    value_error(format!(
        "an action is [action_type, x, y], got {}",
        describe(action)
    ))
}

fn describe(value: &Bound<'_, PyAny>) -> String {
    match value.repr() {
        Ok(text) => arbiter_games::shorten(&text.to_string_lossy(), 80).into_owned(),
        Err(_) => "a value without a repr".into(),
    }
}

fn read_agent(agent_id: i64) -> PyResult<usize> {
    match agent_id {
        0 | 1 => Ok(agent_id as usize),
        _ => Err(value_error(format!("invalid agent_id: {agent_id}"))),
    }
}

/// A new C-contiguous `int64` array of `shape` holding `values`.
fn int64_array<'py>(
    py: Python<'py>,
    shape: (usize, usize, usize),
    values: &[i64],
) -> PyResult<Bound<'py, PyArray3<i64>>> {
    let view = ArrayView3::from_shape(shape, values).map_err(|e| value_error(e.to_string()))?;
    Ok(PyArray3::from_array(py, &view))
}

/// A state as `puoribor_step` returns it: `(board, walls_remaining, done)`.
type Stepped<'py> = (Bound<'py, PyArray3<i64>>, Bound<'py, PyArray1<i64>>, bool);

/// The state after `agent_id` plays `action`: `(board, walls_remaining, done)`, new arrays.
/// An illegal action raises `ValueError`, as `fights` does.
#[pyfunction]
pub fn puoribor_step<'py>(
    py: Python<'py>,
    board: &Bound<'py, PyAny>,
    walls_remaining: &Bound<'py, PyAny>,
    agent_id: i64,
    action: &Bound<'py, PyAny>,
) -> PyResult<Stepped<'py>> {
    let action = read_action(action)?;
    let (agent, mut game) = state_position(board, walls_remaining, agent_id)?;
    if game.done() {
        return Err(value_error(
            "the game is done: a pawn is on its goal row, no action follows",
        ));
    }
    game.apply(action).map_err(|e| value_error(e.to_string()))?;
    let numbers = numbers_of(&game);
    let board = int64_array(py, BOARD_SHAPE, &numbers.board)?;
    let walls = PyArray1::from_slice(py, &numbers.walls);
    let done = game.done();
    LAST.set(Some(Cached {
        numbers,
        agent: 1 - agent,
        game,
    }));
    Ok((board, walls, done))
}

/// The `(4, 9, 9)` mask of `agent_id`'s legal actions, `[action_type][x][y]`, 0 or 1.
#[pyfunction]
pub fn puoribor_legal_actions<'py>(
    py: Python<'py>,
    board: &Bound<'py, PyAny>,
    walls_remaining: &Bound<'py, PyAny>,
    agent_id: i64,
) -> PyResult<Bound<'py, PyArray3<i64>>> {
    let (_, game) = state_position(board, walls_remaining, agent_id)?;
    let mask = game.legal_mask_flat().map(i64::from);
    int64_array(py, (4, 9, 9), &mask)
}
