//! Differential test of the lazy evaluation of the model
//! (`Prepared::lazy_stages` / `evaluate_lazily`: the checks cheapest first,
//! stopping at the first that fails, only what the question reads) against
//! evaluating every statement for every candidate
//! (`Session::lazy_checks(false)`, `--no-lazy-checks`).
//!
//! The lazy evaluation changes what is computed for a candidate, not which
//! candidates are walked or how they are judged, so the two searches must be
//! identical: the same final states with the same execution counts, the
//! same numbers of executions, partial evaluations and consistent
//! executions, the same racing pairs, the same `.test` answers. Compared on
//! the repository's own tests, the examples, and the dat3m-vulkan,
//! khronos-alloy and dat3m-opencl corpora (the xf-barrier tests are left
//! out: seconds each at the execution limit).
//!
//! The corpus-wide comparison runs as the `lazy-checks` row of [`crate::table`].

use std::path::Path;
use vkmm::Session;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(lazy: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::LazyChecks, lazy)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}
