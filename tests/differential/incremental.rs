//! Differential test of the incremental evaluation of the model
//! (`Prepared::evaluate_lazily_from` and its full and plan forms: each
//! evaluation of a walk from the one before, re-running only the
//! statements whose inputs changed, with early cutoff) against evaluating
//! every candidate from scratch (`Session::incremental(false)`,
//! `--no-incremental`, the oracle).
//!
//! The incremental evaluation changes how a candidate's evaluation is
//! computed, not which candidates are walked or how they are judged, so the
//! two searches must be identical: the same final states with the same
//! execution counts, the same numbers of executions, partial evaluations
//! and consistent executions, the same racing pairs, the same `.test`
//! answers. Compared on the repository's own tests, the examples, and the
//! dat3m-vulkan, khronos-alloy and dat3m-opencl corpora, with lazy
//! evaluation on (stages stopping early, then a next candidate going
//! further) and off (full evaluations), sequentially and in parallel (each
//! part of a parallel walk keeps its own last evaluation). The xf-barrier
//! tests are left out as in `differential/lazy.rs` (seconds each at the
//! execution limit); `barrier_flags_and_cbar_rlx` covers that family.
//!
//! The corpus-wide comparison runs as the two `incremental` rows of [`crate::table`].

use std::path::Path;
use vkmm::Session;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(incremental: bool, lazy: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::LazyChecks, lazy)
        .reduction(vkmm::Reduction::Incremental, incremental)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}
