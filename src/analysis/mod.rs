//! Verdicts: what a test's executions say, compared with what its author
//! expects. [`queries`] answers the Alloy-style queries of `.test` files;
//! [`litmus`] computes herd-style outcomes, final-condition verdicts and
//! data races of `.litmus` files; [`expected`] reads expected-verdict CSVs.

pub mod compare;
pub mod expected;
pub mod explain;
pub mod litmus;
pub mod queries;
pub mod suite;

pub use litmus::{LitmusOutcome, Observation, Property, RacePair, check_litmus};
pub use queries::{Answer, QueryOutcome, TestOutcome, check_program};

use crate::cat::{CatError, Model};
use crate::ir::Program;

/// The dynamic base names a candidate execution provides to a model.
pub const DYNAMIC_NAMES: &[&str] = &["rf", "asmo", "co", "sco", "RFINIT"];

/// The dynamic names that grow during the reads-from search (`asmo`/`co`
/// and `sco` are fixed first).
pub const GROWING_NAMES: &[&str] = &["rf", "RFINIT"];

/// The models tests run against: `chains` for ordinary queries and
/// conditions, `no_chains` for `.test` queries marked `NOCHAINS`.
pub struct Models {
    pub chains: Model,
    pub chains_name: String,
    pub no_chains: Model,
    pub no_chains_name: String,
}

impl Models {
    /// Loads `name` (a built-in model or a `.cat` file) for ordinary queries
    /// and `no_chains` for `NOCHAINS` queries; without `no_chains`, the
    /// companion of `vulkan` is `vulkan-nochains` and any other model is its
    /// own companion.
    pub fn load(name: &str, no_chains: Option<&str>) -> Result<Models, CatError> {
        let companion = match no_chains {
            Some(m) => m,
            None if name == "vulkan" => "vulkan-nochains",
            None => name,
        };
        Ok(Models {
            chains: crate::model::load(name)?,
            chains_name: name.to_string(),
            no_chains: crate::model::load(companion)?,
            no_chains_name: companion.to_string(),
        })
    }

    /// A built-in model by name, with its no-chains companion.
    pub fn builtin(name: &str) -> Result<Models, CatError> {
        Self::load(name, None)
    }
}

pub use crate::engine::driver::CheckError;
pub use compare::Comparison;
pub use suite::{Failure, FileError, Summary};

/// What checking one file produced.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Checked {
    /// The answers to a `.test` file's queries.
    Queries(TestOutcome),
    /// The herd-style outcome of a litmus test.
    Litmus(Box<LitmusOutcome>),
}

impl Checked {
    /// Whether every answer is complete: no walk stopped at the execution
    /// limit before deciding (a complete answer may still be bounded by the
    /// loop unrolling: see `cut_paths`).
    pub fn complete(&self) -> bool {
        match self {
            Checked::Queries(o) => o.queries.iter().all(|q| q.actual != Answer::Undecided),
            Checked::Litmus(o) => !o.truncated || o.stopped_early,
        }
    }

    /// The file the result is about.
    pub fn file(&self) -> &str {
        match self {
            Checked::Queries(o) => &o.file,
            Checked::Litmus(o) => &o.file,
        }
    }
}

/// Serialises a duration as fractional milliseconds.
pub fn ser_duration<S: serde::Serializer>(
    d: &std::time::Duration,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

/// The Vulkan models cannot run programs with sequentially consistent
/// operations: "SequentiallyConsistent memory semantics is not supported and
/// must not be used." (Memory Model appendix, Memory Semantics).
pub(crate) fn check_supported(program: &Program, model_name: &str) -> Result<(), CheckError> {
    if !model_name.starts_with("vulkan") {
        return Ok(());
    }
    for t in &program.threads {
        for i in t.instructions() {
            if i.semantics.seq_cst {
                return Err(CheckError::Unsupported(format!(
                    "line {}: `{}` is sequentially consistent, which the Vulkan memory model does not support (\"SequentiallyConsistent memory semantics is not supported and must not be used\"); choose another model with --model",
                    i.source.line, i.source.text
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
