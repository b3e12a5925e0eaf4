//! vkmm: executable GPU memory models.
//!
//! Data flows one way: a front end ([`frontend`]) turns a litmus file into the
//! program IR ([`program`]); [`exec`] enumerates its candidate executions;
//! the [`cat`] interpreter evaluates a model (a `.cat` file from [`models`])
//! on each; [`verdict`] turns the results into answers, [`explain`] into
//! reasons (cycles, witnesses, race diagnoses); [`report`] prints them.

pub mod cat;
pub mod exec;
pub mod explain;
pub mod frontend;
pub mod models;
pub mod program;
pub mod relation;
pub mod report;
pub mod verdict;
