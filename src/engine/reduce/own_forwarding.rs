//! [`Reduction::OwnForwarding`]: with the latest-own-write filter and
//! symbolic stores, a read of a thread-own location whose latest earlier
//! write is derived takes that write's term as its value (the executor's
//! `fix_read`), and the skeleton pins its reads-from to that write
//! (`trace::own_sets`, empty where the filter does not apply).

use super::hook::{CombinationPlan, Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};
use crate::ir::Program;

pub(super) struct OwnForwardingHook;

impl Hook for OwnForwardingHook {
    fn reduction(&self) -> Reduction {
        Reduction::OwnForwarding
    }

    fn on_paths(&self, _limits: &Limits, plan: &mut PathPlan) {
        plan.own_forwarding = true;
    }

    fn on_combinations(&self, _program: &Program, _limits: &Limits, plan: &mut CombinationPlan) {
        plan.pin_own_reads = true;
    }
}
