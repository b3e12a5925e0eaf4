//! The command line and the facade: transcripts (golden, docs examples), limits, adversarial inputs.
//!
//! One test binary (`cargo test --release --test cli`); each module
//! was its own file of tests (filter with `-- MODULE::`).

#[path = "../common/mod.rs"]
mod common;

mod adversarial;
mod cli;
mod docs_examples;
mod facade;
mod golden;
mod limits;
