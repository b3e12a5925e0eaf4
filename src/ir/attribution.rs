//! Alternative programs for the cooperative matrix element accesses a test
//! leaves to the implementation (docs/format-vulkan-litmus.md,
//! "Cooperative matrix loads and stores"; docs/coverage.md).
//!
//! The Vulkan appendix leaves "which invocation performs each element
//! access" open: "some implementation-dependent invocation(s) within the
//! instance of the matrix's scope perform a non-atomic load from each
//! memory location that is defined to be accessed by the instruction" and
//! "a single implementation-dependent invocation within the instance of the
//! matrix's scope performs a non-atomic store to that memory location". An
//! outcome is allowed when some attribution allows it, so a test that does
//! not state one is run once per attribution and its answers are the union
//! ([`crate::analysis::check_litmus`], [`crate::analysis::explain`]).
//! The front end builds every attribution as a whole [`Program`]: the first
//! is the program itself, the others are in [`Attributions::others`].

use super::Program;

/// At most this many attributions are built (the program itself
/// included); past it the answers the attributions built do not settle are
/// undecided ([`Attributions::complete`]).
pub const MAX_ATTRIBUTIONS: usize = 64;

/// The attributions of a program whose cooperative matrix instructions
/// leave the performing invocations open. Empty (the default) for every
/// other program.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Attributions {
    /// This program's attribution, e.g. `instance 0: x by P1, y by P0`.
    pub this: Option<String>,
    /// The other attributions (each with `this` set and no `others`).
    pub others: Vec<Program>,
    /// How many attributions there are in all (this one included),
    /// saturating at `u64::MAX`; more than `1 + others.len()` when the
    /// bound [`MAX_ATTRIBUTIONS`] cut the list.
    pub total: u64,
}

impl Attributions {
    /// Whether the program has no alternatives (nothing left open).
    pub fn is_empty(&self) -> bool {
        self.this.is_none()
    }

    /// How many attributions were built (the program itself included).
    pub fn built(&self) -> usize {
        if self.is_empty() {
            1
        } else {
            1 + self.others.len()
        }
    }

    /// Whether every attribution was built.
    pub fn complete(&self) -> bool {
        self.is_empty() || self.built() as u64 >= self.total
    }
}

impl Program {
    /// The program and its alternative attributions, in order.
    pub fn attributions(&self) -> Vec<&Program> {
        std::iter::once(self)
            .chain(self.attributions.others.iter())
            .collect()
    }
}
