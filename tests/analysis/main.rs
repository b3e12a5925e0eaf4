//! The analyses: explain, refines, diff, gen, termination, outcome listings, show.
//!
//! One test binary (`cargo test --release --test analysis`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod diff;
mod explain;
mod family;
mod generate;
mod litmus_outcomes;
mod mapping;
mod mapping_ptx;
mod mapping_sat;
mod refines;
mod show;
mod states_listing;
mod termination;
