//! Candidate executions of a program.
//!
//! Three stages. [`trace`] runs each thread on its own and lists its paths
//! (loops unrolled to a bound, reads left symbolic until a value is needed).
//! A combination of one path per thread gives the events of an execution: a
//! [`Skeleton`], holding everything that does not depend on the execution's
//! choices — the static base sets and relations handed to a model — and the
//! choices themselves: which write each read reads from (or the initial
//! value), compatible with the values the path fixed, and a scoped
//! modification order per location. [`Skeleton::search`] walks those choices
//! depth-first, asking a pruning callback at inner nodes so that a partial
//! reads-from that already violates a monotone axiom is abandoned with its
//! whole subtree.
//!
//! This file is the module's facade: the submodules and what they export.
//! No file of the engine imports through it: each names the file that
//! defines what it uses. The walk over combinations of paths is
//! [`Explorer`] (`explorer.rs`); the skeleton of one combination and the
//! entry points of its search are [`Skeleton`] (`skeleton.rs`); the search
//! itself is `candidates.rs`, the driver that runs a model over it
//! [`driver`], and the reductions [`reduce`].

pub mod barrier;
mod base;
mod candidates;
mod choices;
pub mod driver;
mod explorer;
mod host;
mod instances;
mod interlock;
mod limits;
pub use crate::model::names;
pub mod reduce;
mod search;
mod skeleton;
pub mod trace;
pub mod undefined;
pub mod values;

pub use barrier::{BarrierGroup, BarrierKey, combinations};
pub use base::scope_set_name;
pub use candidates::{Candidate, FactorGroup, Factors, OrderChoice, Partial, Prune, Slices};
pub use driver::{CheckError, Coverage, Needs, Progress, ProgressFn, Split, Visitor, stopped_at};
pub use explorer::Explorer;
pub(crate) use instances::same_instance;
pub use limits::{
    Bounds, DEFAULT_MAX_EXECUTIONS, DEFAULT_MAX_MEMORY, DEFAULT_MAX_PATHS, DEFAULT_UNROLL,
    ExecError, LimitKind, Limits,
};
pub use reduce::{
    CandidatePlan, CombinationPlan, EvaluationPlan, OrderPlan, PathPlan, QuestionPlan, Reduction,
    Reductions, rotation, symmetry,
};
pub use search::{explore, explore_split, explore_with_progress};
pub use skeleton::{
    Listed, MAX_SEARCH_KEY_BYTES, SearchKey, SearchKeys, Skeleton, SkeletonRotation,
    SkeletonSymmetry,
};
pub use trace::{
    BarrierValues, Ending, EventInfo, NOT_STARTED, PathEvent, ReadValue, RegValue, Stuck,
};

#[cfg(test)]
mod tests;
