//! **Unstable**: the engine, the cat interpreter and the relation algebra,
//! for vkmm's own tests, benchmarks and the playground's tests. Nothing
//! here is part of vkmm's interface: names move or change without notice.
//! Library users go through the facade ([`crate::Session`]) and the public
//! modules.

/// The search over candidate executions (`crate::engine`'s public names).
pub mod engine {
    pub use crate::engine::*;
}
/// The cat language: parser, interpreter, values.
pub mod cat {
    pub use crate::cat::*;
}
/// Bit-matrix relations and sets.
pub mod relation {
    pub use crate::relation::*;
}
