//! [`Reduction::OwnWriteFilter`]: a read of a location only its own thread
//! writes takes only the thread's latest earlier write there, where the
//! model declares `latest-own-write` for the location's storage class
//! ([`crate::model::SearchProfile::latest_own_write`]; which locations:
//! `trace::own_locations`, which states the cycles a dropped path closes).
//!
//! Also while endings are listed (the termination search), where a path
//! stands for more than complete executions: a thread stuck in a loop (the
//! finite prefix of an infinite execution), blocked at a control barrier,
//! or stopped part-way (every prefix of a listed path). A path the filter
//! drops is one whose read `R` of an own location returns a value other
//! than the thread's latest write `W*` program-ordered before `R` (the
//! initial value where there is none). Every execution having such a
//! prefix, finite or not, holds `R` with that value, and so holds the
//! events of `R`'s thread before `R` (a thread's events in an execution
//! are a prefix of its program order), among them `W*`, and the write `R`
//! reads (own: no other thread runs a write there). The cycle of
//! location-ordered, reads-from and from-reads lies among those events,
//! whatever follows them: the finite candidate that stands for an infinite
//! execution, or for one that stops at a barrier or part-way, is
//! inconsistent, as the infinite execution containing it is. The prefixes
//! that stop before `R` stay listed: the filter fixes `R`'s value without
//! splitting the path there, so they are prefixes of the path that reads
//! `W*`. `tests/differential/termination.rs` compares the verdicts with
//! the reference enumeration on fixtures where it drops paths.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct OwnWriteFilterHook;

impl Hook for OwnWriteFilterHook {
    fn reduction(&self) -> Reduction {
        Reduction::OwnWriteFilter
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.own_write_filter = limits.profile.latest_own_write != 0;
    }
}
