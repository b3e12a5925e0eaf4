//! [`Reduction::SymbolicStores`]: a read whose value only flows into
//! stores, registers and local arithmetic stays symbolic, one path where
//! there was one per value (`trace::explore_with_domains`, and
//! [`crate::engine::values`] for how the candidates give it a value).
//!
//! Not while endings are listed (termination): a stuck or stopped path is
//! told apart by the values its reads took.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct SymbolicStoresHook;

impl Hook for SymbolicStoresHook {
    fn reduction(&self) -> Reduction {
        Reduction::SymbolicStores
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.symbolic_stores = !limits.endings;
    }
}
