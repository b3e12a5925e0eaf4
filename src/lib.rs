//! vkmm: executable GPU memory models.
//!
//! Data flows one way: a front end ([`frontend`]) turns a litmus file into the
//! program IR ([`ir`]); the engine enumerates its candidate executions; the
//! cat interpreter evaluates a model (a `.cat` file from [`model`]) on each;
//! [`analysis`] turns the results into answers (outcomes, query answers,
//! explanations, comparisons); [`report`] prints them.
//!
//! # What is public
//!
//! - the facade: [`Session`] and [`check`], their [`Error`], what a check
//!   returns ([`Checked`], [`Property`]) and what a search runs under
//!   ([`Bounds`], [`Limits`], [`Reduction`], [`Reductions`], [`Progress`]);
//! - [`ir`], to build programs; [`frontend`], to read them from files and
//!   text; [`model`], to load models;
//! - [`analysis`], the checks and the result types they return (outcomes,
//!   query answers, explanations, comparisons, suites);
//! - [`report`], the output formats;
//! - [`memory`] (the memory bound and its allocator) and [`device`]
//!   (running litmus tests on a Vulkan device), which the `vkmm` binary uses.
//!
//! The engine, the cat interpreter and the relation algebra are private;
//! `vkmm::testing` opens them to vkmm's own tests and benchmarks, with no
//! promise of stability.

pub mod analysis;
pub(crate) mod cat;
pub mod device;
pub(crate) mod engine;
pub mod frontend;
pub mod ir;
pub mod memory;
pub mod model;
pub(crate) mod relation;
pub mod report;
mod session;

pub use analysis::{CheckError, Checked, Property};
pub use cat::CatError;
pub use engine::{
    Bounds, DEFAULT_MAX_EXECUTIONS, DEFAULT_MAX_MEMORY, DEFAULT_MAX_PATHS, DEFAULT_UNROLL,
    LimitKind, Limits, Progress, Reduction, Reductions,
};
pub use session::{Error, ProgressCallback, Session, SuiteRunner, TerminationExplanation, check};

#[doc(hidden)]
pub mod testing;
