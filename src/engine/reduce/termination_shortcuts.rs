//! [`Reduction::TerminationShortcuts`]: the termination search deepens the
//! unrolling bound from 0 (a witness found at a smaller bound is one at
//! the bound asked) and lists only the orders memory fairness allows
//! ([`crate::analysis::termination`] has both arguments).

use super::hook::{Hook, QuestionPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct TerminationShortcutsHook;

impl Hook for TerminationShortcutsHook {
    fn reduction(&self) -> Reduction {
        Reduction::TerminationShortcuts
    }

    fn on_question(&self, _limits: &Limits, plan: &mut QuestionPlan) {
        plan.termination_shortcuts = true;
    }
}
