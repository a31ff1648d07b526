//! A folder handed in by a stranger — a player folder, unpacked from whatever archive the player
//! chose — read without trusting it.
//!
//! - [`open_file`]: one of its files, opened only if it is a regular file reached without a
//!   link that leads out of the folder (`info.txt -> ../victim/bot.sh`, `-> /etc/shadow`),
//!   and without waiting on a named pipe;
//! - [`walk`]: its whole tree within [`Bounds`] of bytes, entries and depth, links as links,
//!   with a few open files however deep it is; [`copy`] copies such a tree and [`remove_tree`]
//!   removes one.

#![warn(missing_docs)]

mod beneath;
mod sys;
mod tree;

pub use beneath::{Refusal, Refused, kind_of, open_file};
pub use sys::Kind;
pub use tree::{Bounds, Entry, Over, Totals, WalkError, copy, remove_tree, walk};
