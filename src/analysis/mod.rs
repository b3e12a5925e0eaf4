//! Verdicts: what a test's executions say, compared with what its author
//! expects. [`queries`] answers the Alloy-style queries of `.test` files;
//! [`litmus`] computes herd-style outcomes, final-condition verdicts and
//! data races of `.litmus` files; [`expected`] reads expected-verdict CSVs.

pub mod barriers;
mod checked;
pub mod compare;
pub mod diff;
pub mod expected;
pub mod explain;
pub mod family;
// `gen` is a reserved word in edition 2024.
#[path = "gen.rs"]
pub mod generate;
pub mod litmus;
pub mod manifest;
pub mod mapping;
pub mod merge;
mod models;
pub mod mutants;
pub mod phrases;
pub mod pops;
pub mod queries;
pub mod refines;
mod schema;
pub mod states;
pub mod suite;
pub mod termination;

pub use litmus::{
    AttributionCount, LitmusOutcome, Observation, PrefixWalk, Property, RacePair, check_litmus,
};
pub use queries::{Answer, QueryOutcome, TestOutcome, check_program};

pub use crate::engine::names::{DYNAMIC_NAMES, GROWING_NAMES};

pub use crate::engine::driver::CheckError;
pub use compare::Comparison;

pub use suite::{Failure, FileError, Summary};

pub use checked::Checked;
pub use models::Models;
pub use schema::{SCHEMA, ser_duration};

#[cfg(test)]
pub(crate) mod test_programs;
#[cfg(test)]
mod tests;
