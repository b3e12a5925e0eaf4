//! The search: reductions' own tests, condition-directed search, trace limits, symmetry, the scaling families.
//!
//! One test binary (`cargo test --release --test engine`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod barrier_lockstep;
mod barrier_prefixes;
mod condition_directed;
mod condition_order;
mod own_forwarding;
mod prefix_races;
mod read_factoring;
mod rotation_symmetry;
mod scaling_families;
mod spin_extension;
mod trace_limits;
