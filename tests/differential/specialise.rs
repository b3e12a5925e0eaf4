//! Differential test of the model's partial evaluation per test
//! (`cat::Model::prepare`, module `cat::specialise`: static parts of
//! dynamic statements computed once, calls inlined, empty static operands
//! annihilating `;` and `&`) against the plain staging
//! (`Session::specialise(false)`, `--no-specialise`).
//!
//! The rewritten statements compute the same values, and the pruning uses
//! the polarity analysis of the model as written, so the two searches must
//! be identical, not only their answers: the same final states with the
//! same execution counts, the same numbers of executions, partial
//! evaluations and consistent executions, the same racing pairs, the same
//! `.test` answers. Compared on the repository's own tests (every
//! directory of litmus tests, Vulkan, OpenCL, interlock, host, appendix),
//! the examples, and the dat3m-vulkan, khronos-alloy and dat3m-opencl
//! corpora (the xf-barrier tests are left out: minutes for the reference).
//!
//! The corpus-wide comparison runs as the `specialise` row of [`crate::table`].

use std::path::Path;
use vkmm::Session;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(specialise: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::Specialise, specialise)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}
