//! Replay format (being written).
