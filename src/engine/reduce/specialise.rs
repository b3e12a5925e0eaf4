//! [`Reduction::Specialise`]: the model's dynamic statements are partially
//! evaluated for each skeleton's static relations
//! (`crate::cat::Model::prepare`), so a candidate evaluates only what its
//! choices change.

use super::hook::{EvaluationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct SpecialiseHook;

impl Hook for SpecialiseHook {
    fn reduction(&self) -> Reduction {
        Reduction::Specialise
    }

    fn on_evaluation(&self, _limits: &Limits, plan: &mut EvaluationPlan) {
        plan.specialise = true;
    }
}
