//! [`Reduction::WritePruning`]: in the pruned walk over executions stopping
//! at the bound, a partial combination already holding more ordered writes
//! to one location than the order limit is dropped: every completion would
//! be skipped at the order limit anyway (`Explorer::set_write_pruning` has
//! the argument and says why only that walk turns it on).

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::ir::Program;

pub(super) struct WritePruningHook;

impl Hook for WritePruningHook {
    fn reduction(&self) -> Reduction {
        Reduction::WritePruning
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.write_pruning = true;
    }
}
