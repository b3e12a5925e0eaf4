//! The search's entry points: the walk over combinations of per-thread
//! paths ([`driver::enumerate`], in parallel parts with
//! [`driver::explore_split`]), handing every candidate execution with its
//! evaluation to a [`Visitor`]. The analyses call these, never the driver's
//! internals.

use super::driver::{self, CheckError, Coverage, ProgressFn, Split, Visitor};
use super::limits::Limits;
use crate::ir::Program;
use crate::model::LoadedModel;

/// Walks the candidate executions of `program` under `model`, handing each
/// with its evaluation to `visitor`, within `limits`.
pub fn explore(
    program: &Program,
    model: &LoadedModel,
    limits: Limits,
    visitor: &mut dyn Visitor,
) -> Result<Coverage, CheckError> {
    explore_with_progress(program, model, limits, visitor, None)
}

/// [`explore`], calling `progress` now and then.
pub fn explore_with_progress(
    program: &Program,
    model: &LoadedModel,
    limits: Limits,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    driver::enumerate(program, model, limits, visitor, progress)
}

/// [`explore_with_progress`], split into parts explored in parallel where
/// the visitor forks ([`driver::explore_split`]).
pub fn explore_split<V: Split>(
    program: &Program,
    model: &LoadedModel,
    limits: Limits,
    visitor: &mut V,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    driver::explore_split(program, model, limits, visitor, progress)
}
