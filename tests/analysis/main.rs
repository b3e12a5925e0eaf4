//! The analyses: explain, refines, diff, gen, termination, outcome listings, show.
//!
//! One test binary (`cargo test --release --test analysis`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod explain;
mod refines;
mod diff;
mod generate;
mod termination;
mod litmus_outcomes;
mod states_listing;
mod show;
