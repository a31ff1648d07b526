//! The native part of the Python package `arbiter` (docs/python.md): Arbiter's game engines as
//! the extension module `arbiter._engine`. The Python modules around it (`crates/python/python/`)
//! give the public API; this module only moves numbers between NumPy arrays and the engines.
#![warn(missing_docs)]

mod aec;
mod batch;
mod puoribor;

use pyo3::prelude::*;

/// The extension module `arbiter._engine`.
#[pymodule]
fn _engine(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(puoribor::puoribor_step, module)?)?;
    module.add_function(wrap_pyfunction!(puoribor::puoribor_legal_actions, module)?)?;
    module.add_class::<aec::AecMatch>()?;
    module.add_class::<batch::BatchEnv>()?;
    module.add_class::<batch::QuoridorBatch>()?;
    module.add_class::<batch::PuoriborBatch>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
