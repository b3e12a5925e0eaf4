//! vkmm: executable GPU memory models.
//!
//! Data flows one way: a front end ([`frontend`]) turns a litmus file into the
//! program IR ([`ir`]); [`engine`] enumerates its candidate executions;
//! the [`cat`] interpreter evaluates a model (a `.cat` file from [`model`])
//! on each; [`analysis`] turns the results into answers (outcomes, query
//! answers, explanations, comparisons); [`report`] prints them.

pub mod analysis;
pub mod cat;
pub mod device;
pub mod engine;
pub mod frontend;
pub mod ir;
pub mod memory;
pub mod model;
pub mod relation;
pub mod report;
pub mod session;

pub use analysis::{Checked, Property};
pub use engine::{Bounds, Limits, Reduction, Reductions};
pub use session::{Error, Session, TerminationExplanation, check};
