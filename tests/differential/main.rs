//! The differential tests: every reduction of the search (`vkmm::Reduction`)
//! against the search without it, in one test binary.
//!
//! [`table`] holds the corpus-wide comparisons, one row per reduction (and
//! one for the undefined-values bypass): a small sample of the files by
//! default, every file with the `slow-tests` feature
//! (`cargo test --release --features slow-tests --test differential`). The
//! modules hold each reduction's hand-derived tests and generated programs
//! (an eighth of the generated cases by default, `common::cases`; all of
//! them with `slow-tests`), and their own corpus walks (also behind
//! `slow-tests`).

#[path = "../common/mod.rs"]
mod common;

mod barrier_prefixes;
mod branch_registers;
mod coherence_cuts;
mod commuting_rmws;
mod counters;
mod incremental;
mod interlock;
mod lazy;
mod lockstep;
mod own_writes;
mod parallel;
mod path_drops;
mod pruning;
mod rmw;
mod sat_encoding;
mod specialise;
mod spin;
mod symbolic;
mod symbolic_domains;
mod symmetry;
mod table;
mod termination;
mod undefined;
