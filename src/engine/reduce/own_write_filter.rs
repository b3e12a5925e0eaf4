//! [`Reduction::OwnWriteFilter`]: a read of a location only its own thread
//! writes takes only the thread's latest earlier write there, where the
//! model declares `latest-own-write` for the location's storage class
//! ([`crate::model::SearchProfile::latest_own_write`]; which locations:
//! `trace::own_locations`). Not while endings are listed.

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct OwnWriteFilterHook;

impl Hook for OwnWriteFilterHook {
    fn reduction(&self) -> Reduction {
        Reduction::OwnWriteFilter
    }

    fn on_paths(&self, limits: &Limits, plan: &mut PathPlan) {
        plan.own_write_filter = limits.profile.latest_own_write != 0 && !limits.endings;
    }
}
