//! [`Reduction::SymbolicDomains`]: the value domains are computed by
//! paths that keep a read symbolic while its value only flows into
//! stores, registers and local arithmetic, as the paths of
//! [`Reduction::SymbolicStores`] do. A derived store then stands for one
//! write per value of its term over the domains of the reads it names
//! (with the provenance each value would have had on its own path), so
//! reads that never decide anything no longer multiply the paths of every
//! round of the fixpoint (`trace::explore_in_full`). The domains are the
//! same ones: the values a path with every read concrete writes at a store
//! are its term's values over the same reads' domains.
//!
//! Only with symbolic stores (the walk reads both fields), and not while
//! endings are listed.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct SymbolicDomainsHook;

impl Hook for SymbolicDomainsHook {
    fn reduction(&self) -> Reduction {
        Reduction::SymbolicDomains
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.symbolic_domains = !limits.endings;
    }
}
