//! [`Reduction::LazyChecks`]: a question reading only consistency, flags
//! and a few bindings ([`crate::engine::driver::Needs::reads`]) evaluates
//! the checks cheapest first, stopping at the first that fails, and no
//! statement the question does not need
//! (`crate::cat::Prepared::evaluate_lazily`).

use super::hook::{EvaluationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct LazyChecksHook;

impl Hook for LazyChecksHook {
    fn reduction(&self) -> Reduction {
        Reduction::LazyChecks
    }

    fn on_evaluation(&self, _limits: &Limits, plan: &mut EvaluationPlan) {
        plan.lazy_checks = true;
    }
}
