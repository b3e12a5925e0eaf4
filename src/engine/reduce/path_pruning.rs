//! [`Reduction::PathPruning`]: combinations of thread paths are chosen
//! thread by thread, a partial one dropped as soon as a value one of its
//! reads needs can come from nobody left (`Explorer::block_pruned`): the
//! same combinations reach the search, by a shorter walk.

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::ir::Program;

pub(super) struct PathPruningHook;

impl Hook for PathPruningHook {
    fn reduction(&self) -> Reduction {
        Reduction::PathPruning
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.path_pruning = true;
    }
}
