//! [`Reduction::SpinReduction`]: a side-effect-free spin loop runs as an
//! await, only the iteration that leaves the loop, instead of being
//! unrolled (which loops qualify: `trace::spin_loops`; the argument that an
//! await loses no execution: MODELS.md, spin loops); and an iteration of
//! any loop that only loaded and left the live registers as it found them
//! is dropped (`trace::executor::repeats`; MODELS.md, repeated iterations).

use super::hook::{Hook, PathPlan};
use crate::engine::limits::{Limits, Reduction};

pub(super) struct SpinReductionHook;

impl Hook for SpinReductionHook {
    fn reduction(&self) -> Reduction {
        Reduction::SpinReduction
    }

    fn on_paths(&self, _limits: &Limits, plan: &mut PathPlan) {
        plan.awaits = true;
    }
}
