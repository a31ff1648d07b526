//! Other tools' formats, read into and written from Arbiter replays, so that a contest can
//! switch to Arbiter and keep its files and viewers. One module per format:
//!
//! - [`graphisoft`]: the client logs of the GRAPHISOFT 2017 final (Labyrinth), imported;
//! - [`fights_msgpack`]: the msgpack logs of the `fights` Python environment (Puoribor),
//!   imported and exported;
//! - [`judge_log`]: the `.log` of the Polish Domino judge, exported;
//! - [`ai_arena`]: AI Arena's match configs and maps (Quoridor), read.
//!
//! Every function takes values (bytes, text, a [`arbiter_replay::Replay`]) and returns values
//! or an error of its own that says what was wrong and where: nothing here panics on bad input.

#![warn(missing_docs)]

pub mod ai_arena;
pub mod fights_msgpack;
pub mod graphisoft;
pub mod judge_log;

/// A game's typed record (snapshot, settings) as the JSON value a replay read back holds: the
/// importers build replays of that untyped shape, as any reader of replay files sees them.
fn record(value: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).expect("a game's record is plain JSON")
}

/// The record of `action` played from `game`, as JSON (see [`record`]).
fn record_action<G: arbiter_games::Recorded>(game: &G, action: G::Action) -> serde_json::Value {
    record(game.action_record(action))
}
