//! [`Reduction::CoherenceCuts`]: a path the unrolling bound cut is dropped,
//! not counted as cut, when its reads of one location change value more
//! often than the other threads can write the location, where the model
//! declares `po-coherence` ([`crate::model::SearchProfile::po_coherence`]).
//! `trace::coherence` has the argument and the locations it holds for:
//! each such change reads a write of another thread later in coherence
//! than every write read before, so no execution, finite or not, has the
//! path's prefix, and the answer stays complete where only such paths
//! were cut (a compare-exchange loop that fails again and again). Not
//! while endings are listed: a termination search also takes every prefix
//! of a path as one where the thread stops, and a dropped path's shorter
//! prefixes need not be any kept path's.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct CoherenceCutsHook;

impl Hook for CoherenceCutsHook {
    fn reduction(&self) -> Reduction {
        Reduction::CoherenceCuts
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.coherence_cuts = limits.profile.po_coherence != 0 && !limits.endings;
    }
}
