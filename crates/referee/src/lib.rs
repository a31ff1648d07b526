//! Referee (being written).
