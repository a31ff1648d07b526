//! Robots (being written).
