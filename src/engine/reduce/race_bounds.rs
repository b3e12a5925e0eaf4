//! [`Reduction::RaceBounds`]: a race question skips the combinations of
//! paths in which no candidate can race, without listing their orders.
//!
//! The argument. A skeleton fixes the events and the static base names;
//! its candidates differ only in the dynamic names (`rf`, `RFINIT`, `co`,
//! `asmo`, `sco`, `ilo`), and every candidate's value of each is a superset
//! of the empty one. A flag `flag ~empty e` whose expression is antitone
//! in each dynamic name (Vulkan's `dr = conflict \ mutord \ id \ (locord |
//! locord^-1)`: more reads-from or order edges only grow happens-before
//! and location order, so `dr` only shrinks) has at the empty names a
//! value holding every pair it holds in any candidate; a plain flag
//! (`flag empty e`) whose expression is monotone likewise
//! ([`crate::cat::Prepared::bounded_flags`] proves which, from the model's
//! text). When every flag of the model is such a flag and the model
//! evaluated once at the empty names raises none, no candidate of the
//! skeleton raises one: a visitor that needs only the candidates raising a
//! flag ([`crate::engine::Visitor::flags_only`]: a race question, which
//! says so only where nothing else it reports, such as undefined
//! behaviour or barrier divergence, rests on the skeleton's candidates)
//! loses nothing when the skeleton is skipped. A model whose flags the
//! analysis cannot follow gets no skip.
//!
//! That one evaluation counts as a partial evaluation against
//! `--max-executions`; one stopped at a limit, or failing, skips nothing
//! (the candidates' search then meets and reports it).

use super::hook::{EvaluationPlan, Hook};
use crate::cat::{CatError, Env, Prepared};
use crate::engine::limits::{Limits, Reduction};
use crate::model::names::{BASE_NAMES, Kind, Stage};
use crate::relation::{EventSet, Relation};

pub(super) struct RaceBoundsHook;

impl Hook for RaceBoundsHook {
    fn reduction(&self) -> Reduction {
        Reduction::RaceBounds
    }

    fn on_evaluation(&self, _limits: &Limits, plan: &mut EvaluationPlan) {
        plan.race_bounds = true;
    }
}

/// The dynamic base names at their least values over `universe` events:
/// every one empty.
pub(in crate::engine) fn least(universe: usize) -> Env {
    let mut env = Env::new(universe);
    for b in BASE_NAMES.iter().filter(|b| b.stage == Stage::Dynamic) {
        match b.kind {
            Kind::Set => env.set(b.name, EventSet::empty(universe)),
            Kind::Relation => env.rel(b.name, Relation::empty(universe)),
        }
    }
    env
}

/// The statements a skeleton's bound needs (those every flag of the model
/// reads, [`Prepared::plan_for`]), or `None` when some flag is not bounded
/// (`bounded`, per check, from [`Prepared::bounded_flags`]): no skeleton
/// may then be skipped.
pub(in crate::engine) fn plan(
    prepared: &Prepared,
    bounded: &[bool],
    flags: &[bool],
) -> Option<Vec<usize>> {
    if flags.iter().zip(bounded).any(|(&f, &b)| f && !b) {
        return None;
    }
    Some(prepared.plan_for(flags))
}

/// Whether no candidate of the skeleton `prepared` was prepared for (over
/// `universe` events) raises a flag: the flags' statements (`plan`, from
/// [`plan`]) evaluated at the least dynamic names raise none.
pub(in crate::engine) fn no_flag_raised(
    prepared: &Prepared,
    plan: &[usize],
    universe: usize,
) -> Result<bool, CatError> {
    let eval = prepared.evaluate_only(&least(universe), plan)?;
    Ok(eval.flags().next().is_none())
}
