//! Verdicts: what a test's executions say, compared with what its author
//! expects. [`queries`] answers the Alloy-style queries of `.test` files;
//! [`litmus`] computes herd-style outcomes, final-condition verdicts and
//! data races of `.litmus` files; [`expected`] reads expected-verdict CSVs.

pub mod barriers;
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
pub mod mutants;
pub mod phrases;
pub mod pops;
pub mod queries;
pub mod refines;
pub mod states;
pub mod suite;
pub mod termination;

pub use litmus::{
    AttributionCount, LitmusOutcome, Observation, PrefixWalk, Property, RacePair, check_litmus,
};
pub use queries::{Answer, QueryOutcome, TestOutcome, check_program};

use crate::cat::CatError;
use crate::ir::Program;
use crate::model::LoadedModel;

pub use crate::engine::names::{DYNAMIC_NAMES, GROWING_NAMES};

/// The models tests run against: `chains` for ordinary queries and
/// conditions, `no_chains` for `.test` queries marked `NOCHAINS`.
pub struct Models {
    pub chains: LoadedModel,
    pub no_chains: LoadedModel,
}

impl Models {
    /// Loads `name` (a built-in model or a `.cat` file) for ordinary queries
    /// and `no_chains` for `NOCHAINS` queries; without `no_chains`, the
    /// companion the model's profile declares (`nochains`), else the model.
    pub fn load(name: &str, no_chains: Option<&str>) -> Result<Models, CatError> {
        Self::load_within(name, no_chains, Some(crate::memory::DEFAULT_MAX_MEMORY))
    }

    /// [`Models::load`] with the model files read under `bound`, the
    /// memory bound of the request loading them (`None`: none).
    pub fn load_within(
        name: &str,
        no_chains: Option<&str>,
        bound: Option<usize>,
    ) -> Result<Models, CatError> {
        let chains = crate::model::load_within(name, bound)?;
        let no_chains = match no_chains.or(chains.profile.nochains.as_deref()) {
            Some(companion) => crate::model::load_within(companion, bound)?,
            None => chains.clone(),
        };
        Ok(Models { chains, no_chains })
    }

    /// A built-in model by name, with its no-chains companion.
    pub fn builtin(name: &str) -> Result<Models, CatError> {
        Self::load(name, None)
    }
}

pub use crate::engine::driver::CheckError;
pub use compare::Comparison;

/// The schema name and major version of the JSON documents vkmm's records
/// are printed in (docs/json.md): [`crate::report::json`] writes it into
/// every document, and [`merge`] reads suite documents back only under it.
pub const SCHEMA: &str = "vkmm/1";
pub use suite::{Failure, FileError, Summary};

/// What checking one file produced.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Checked {
    /// The answers to a `.test` file's queries.
    Queries(TestOutcome),
    /// The herd-style outcome of a litmus test.
    Litmus(Box<LitmusOutcome>),
    /// Whether a litmus test terminates under a progress model.
    Termination(Box<termination::TerminationOutcome>),
}

impl Checked {
    /// Whether every answer is decided: no walk stopped at a limit before
    /// listing every state, and no verdict depends on executions the loop
    /// unrolling bound cut (`cut_paths`) or the limit left unseen.
    pub fn complete(&self) -> bool {
        match self {
            Checked::Queries(o) => o.queries.iter().all(|q| q.actual != Answer::Undecided),
            Checked::Litmus(o) => o.complete(),
            Checked::Termination(o) => o.complete(),
        }
    }

    /// The limit that stopped the search, where one did and the answer
    /// names it.
    pub fn stopped_by(&self) -> Option<crate::engine::LimitKind> {
        match self {
            Checked::Queries(_) => None,
            Checked::Litmus(o) => o.stopped_by,
            Checked::Termination(o) => o.stopped_by,
        }
    }

    /// The front end's warnings about the file.
    pub fn warnings(&self) -> &[crate::frontend::FrontendWarning] {
        match self {
            Checked::Queries(o) => &o.warnings,
            Checked::Litmus(o) => &o.warnings,
            Checked::Termination(o) => &o.warnings,
        }
    }

    /// Attaches the front end's warnings about the file.
    pub fn with_warnings(mut self, w: &[crate::frontend::FrontendWarning]) -> Checked {
        let slot = match &mut self {
            Checked::Queries(o) => &mut o.warnings,
            Checked::Litmus(o) => &mut o.warnings,
            Checked::Termination(o) => &mut o.warnings,
        };
        slot.extend_from_slice(w);
        self
    }

    /// The file the result is about.
    pub fn file(&self) -> &str {
        match self {
            Checked::Queries(o) => &o.file,
            Checked::Litmus(o) => &o.file,
            Checked::Termination(o) => &o.file,
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

/// Refuses a program using a feature the model's profile refuses (the
/// Vulkan models: sequentially consistent operations).
pub(crate) fn check_supported(program: &Program, model: &LoadedModel) -> Result<(), CheckError> {
    match model.profile.refusal(program) {
        Some(why) => Err(CheckError::Unsupported(why)),
        None => Ok(()),
    }
}

#[cfg(test)]
pub(crate) mod test_programs;
#[cfg(test)]
mod tests;
