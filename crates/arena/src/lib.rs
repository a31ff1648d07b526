//! (being built)

pub mod work;
