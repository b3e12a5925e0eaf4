//! [`Reduction::OutcomeDirected`]: where only the final states or the
//! condition's verdict are asked, a candidate whose final state is known
//! before its evaluation is not evaluated when that cannot change the
//! answer (the outcome listing's `states_only` and `condition_only` walks,
//! [`crate::analysis::litmus`]; `refines`, which compares final states).

use super::hook::{Hook, QuestionPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct OutcomeDirectedHook;

impl Hook for OutcomeDirectedHook {
    fn reduction(&self) -> Reduction {
        Reduction::OutcomeDirected
    }

    fn on_question(&self, _limits: &Limits, plan: &mut QuestionPlan) {
        plan.outcome_directed = true;
    }
}
