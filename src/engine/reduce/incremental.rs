//! [`Reduction::Incremental`]: each evaluation starts from the previous one
//! of the same walk, and only the statements whose inputs changed run again
//! (`crate::cat::Prepared::evaluate_lazily_from`).

use super::hook::{EvaluationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct IncrementalHook;

impl Hook for IncrementalHook {
    fn reduction(&self) -> Reduction {
        Reduction::Incremental
    }

    fn on_evaluation(&self, _limits: &Limits, plan: &mut EvaluationPlan) {
        plan.incremental = true;
    }
}
