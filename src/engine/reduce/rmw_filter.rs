//! [`Reduction::RmwFilter`]: where the model declares `rmw-atomicity`
//! ([`crate::model::SearchProfile::rmw_atomicity`]), the reads-from choices
//! of an RMW that atomicity forbids are skipped: on a location whose writes
//! are all mutually ordered atomics (an RMW chain), each write and the
//! initial value is read by at most one RMW, which the pruned walk over
//! combinations counts and the order listing uses.

use super::hook::{CombinationPlan, Hook, OrderPlan};
use crate::engine::limits::{Limits, Reduction};
use crate::ir::Program;

pub(super) struct RmwFilterHook;

impl Hook for RmwFilterHook {
    fn reduction(&self) -> Reduction {
        Reduction::RmwFilter
    }

    fn on_combinations(&self, _program: &Program, limits: &Limits, plan: &mut CombinationPlan) {
        plan.rmw_chains = limits.profile.rmw_atomicity;
    }

    fn on_orders(&self, limits: &Limits, plan: &mut OrderPlan) {
        plan.rmw_filter = limits.profile.rmw_atomicity;
    }
}
