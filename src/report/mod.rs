//! Reporters: each turns the typed results of [`crate::analysis`] into one
//! output format. Results know nothing of their printing.
//!
//! - [`text`]: vkmm's plain-text reports (herd-like outcome lists with
//!   execution counts and notes, query answers, summaries, comparisons,
//!   explanations);
//! - [`herd`]: herd7's own output format, exactly, for tools that parse it;
//! - [`json`]: JSON under a versioned schema (`docs/json.md`);
//! - [`dot`]: Graphviz pictures of executions.

pub mod dot;
pub mod herd;
pub mod json;
pub mod junit;
pub mod text;
