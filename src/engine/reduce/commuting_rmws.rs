//! [`Reduction::CommutingRmws`]: atomic read-modify-writes whose results
//! nothing reads, and whose effects on the location commute.
//!
//! Two stages. On a thread's paths (with [`Reduction::SymbolicStores`]):
//! an integer atomic add, sub, and, or, xor, min or max whose destination
//! register no statement of its thread reads and no final state shows
//! (`trace::Code::commuting`) keeps its read symbolic, its write the
//! operation applied to that read (an expression, as a derived store's),
//! where the reference splits the path once per value of the location's
//! domain: the candidates give the read its value (`engine::values`), as
//! they give one to a read that only flows into a store.
//!
//! On a skeleton's orders, where the model declares `rmw-atomicity`
//! ([`crate::engine::choices::commuting_orders`]): a location whose every
//! access is such an RMW, of one commuting kind (add and sub; and; or;
//! xor; signed min; signed max; unsigned min; unsigned max) at one width,
//! written by two threads or more, every pair of them mutually ordered, in
//! a skeleton where no event acquires or releases (no fence, no control
//! barrier with semantics, no acquire or release atomic) and no thread
//! system-synchronizes with another, gets one scoped modification order,
//! its writes thread by thread in program order, where the reference
//! lists every interleaving of the threads' program orders. The argument:
//! with atomicity, each RMW reads its immediate predecessor, so under
//! every interleaving the last write holds the initial value combined
//! with every operand (the operations commute and associate), and the
//! values read reach nothing (no register read, none shown). Without an
//! acquire or a release no reads-from edge synchronises, so happens-before
//! and every flag the model raises do not depend on the order, and no
//! happens-before edge orders two of these RMWs beyond program order: every
//! interleaving is a consistent order exactly when the one listed is. Each
//! candidate then stands for the number of interleavings, the multinomial
//! of the threads' counts, which [`crate::engine::Skeleton::multiplicity`]
//! counts; only for a visitor that counts candidates so
//! ([`crate::engine::Needs::commuting_rmws`]).
//!
//! Not while endings are listed (termination): a stuck or stopped path is
//! told apart by the values its reads took.

use super::hook::{Hook, OrderPlan, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct CommutingRmwsHook;

impl Hook for CommutingRmwsHook {
    fn reduction(&self) -> Reduction {
        Reduction::CommutingRmws
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.commuting_rmws = !limits.endings;
    }

    fn on_orders(&self, limits: &Limits, plan: &mut OrderPlan) {
        plan.commuting_rmws = limits.profile.rmw_atomicity;
    }
}
