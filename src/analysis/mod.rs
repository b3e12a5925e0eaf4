//! Verdicts: what a test's executions say, compared with what its author
//! expects. [`queries`] answers the Alloy-style queries of `.test` files;
//! [`litmus`] computes herd-style outcomes, final-condition verdicts and
//! data races of `.litmus` files; [`expected`] reads expected-verdict CSVs.

pub mod expected;
pub mod explain;
pub mod litmus;
pub mod queries;

pub use litmus::{LitmusOutcome, Observation, Property, RacePair, check_litmus};
pub use queries::{QueryOutcome, TestOutcome, check_program};

use crate::cat::{CatError, Env, Evaluation, Model, Prepared};
use crate::engine::ExecError;
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
        let chains = crate::model::load(name)?;
        let no_chains = match no_chains.or(chains.profile.nochains.as_deref()) {
            Some(companion) => crate::model::load(companion)?,
            None => chains.clone(),
        };
        Ok(Models { chains, no_chains })
    }

    /// A built-in model by name, with its no-chains companion.
    pub fn builtin(name: &str) -> Result<Models, CatError> {
        Self::load(name, None)
    }
}

/// Why a test could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Cat(#[from] CatError),
    #[error("line {line}: query counts `#{name}`, but the model `{model}` binds no `{name}`")]
    UnknownCount {
        line: usize,
        name: String,
        model: String,
    },
    #[error("{0}")]
    Unsupported(String),
}

/// Refuses a program using a feature the model's profile refuses (the
/// Vulkan models: sequentially consistent operations).
pub(crate) fn check_supported(program: &Program, model: &LoadedModel) -> Result<(), CheckError> {
    match model.profile.refusal(program) {
        Some(why) => Err(CheckError::Unsupported(why)),
        None => Ok(()),
    }
}

/// A model prepared for one skeleton, with the checks that can prune a
/// partial reads-from assignment.
pub(crate) struct Staged {
    pub prepared: Prepared,
    monotone: Vec<bool>,
}

impl Staged {
    /// Prepares `model` for a skeleton. The polarity analysis depends only on
    /// the model, so it runs once and is kept in `monotone_cache`.
    pub fn new(
        model: &Model,
        static_env: &Env,
        monotone_cache: &mut Option<Vec<bool>>,
    ) -> Result<Staged, CatError> {
        let prepared = model.prepare(static_env, DYNAMIC_NAMES)?;
        let monotone = monotone_cache
            .get_or_insert_with(|| prepared.monotone_checks(GROWING_NAMES))
            .clone();
        Ok(Staged { prepared, monotone })
    }

    /// Whether some check can reject partial assignments.
    pub fn can_prune(&self) -> bool {
        self.monotone.iter().any(|&m| m)
    }

    /// False when a partial assignment already violates a monotone check
    /// (every completion would violate it too). Errors count as "keep": the
    /// full evaluation will report them.
    pub fn partial_ok(&self, partial: &Env) -> bool {
        match self.prepared.evaluate(partial) {
            Ok(eval) => !rejects(&eval, &self.monotone),
            Err(_) => true,
        }
    }
}

fn rejects(eval: &Evaluation, monotone: &[bool]) -> bool {
    eval.checks
        .iter()
        .zip(monotone)
        .any(|(c, &m)| m && !c.passed)
}

#[cfg(test)]
mod tests;
