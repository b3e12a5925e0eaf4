//! [`Reduction::BranchRegisters`]: with the latest-own-write filter, the
//! run that finds the statements each thread can run (`trace::reach`,
//! which decides the writes another thread can run and so the own
//! locations) tracks only the registers whose values can decide a
//! branch: those a branch compares and those their values are computed
//! from. No other register changes which statements run, so the run
//! reaches the same statements with states of a few registers instead of
//! the thread's whole register file (`trace::reach` has the argument).

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct BranchRegistersHook;

impl Hook for BranchRegistersHook {
    fn reduction(&self) -> Reduction {
        Reduction::BranchRegisters
    }

    fn on_paths(&self, _limits: &Limits, plan: &mut PathPlan) {
        plan.branch_registers = true;
    }
}
