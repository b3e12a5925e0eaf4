//! The models a check runs against, loaded once per request, and the
//! refusal of a program a model's profile does not cover.

use crate::cat::CatError;
use crate::engine::driver::CheckError;
use crate::ir::Program;
use crate::model::LoadedModel;

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

/// Refuses a program using a feature the model's profile refuses (the
/// Vulkan models: sequentially consistent operations).
pub(crate) fn check_supported(program: &Program, model: &LoadedModel) -> Result<(), CheckError> {
    match model.profile.refusal(program) {
        Some(why) => Err(CheckError::Unsupported(why)),
        None => Ok(()),
    }
}
