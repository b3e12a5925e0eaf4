//! Counters (`crate::engine::trace` finds them, `counters.rs` there has
//! the argument): an increment of a location every write of which is an
//! atomic add of one constant outside every loop reads one of the values a
//! chain of the other increments gives, never the value only the last
//! increment writes. It holds of every candidate execution under every
//! model (a read reads the value of the write it reads from), so the
//! paths that fix an increment's read to that value are not walked: no
//! execution takes them, and where a loop behind such a read would only
//! end at the unrolling bound, the answer stays complete.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

/// The hook: the path stage walks the paths again with the counters.
pub(super) struct CountersHook;

impl Hook for CountersHook {
    fn reduction(&self) -> Reduction {
        Reduction::Counters
    }

    fn on_paths(&self, _limits: &Limits, plan: &mut PathPlan) {
        plan.counters = true;
    }
}
