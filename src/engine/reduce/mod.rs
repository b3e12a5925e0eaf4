//! The search's reductions: the ways the engine walks fewer paths,
//! combinations, orders or evaluations than the reference enumeration while
//! giving the same answers.
//!
//! Each reduction is one [`Reduction`]: its name (the spelling of
//! `--no NAME` and of the tables of the differential tests), a one-line
//! description, and what it needs the model to declare about itself
//! ([`Requires`], read from [`crate::model::SearchProfile`]). A search runs with a
//! [`Reductions`] set: all of them by default, none for the reference
//! enumeration (`--engine reference`), the oracle the differential tests
//! compare every reduction with.
//!
//! Each reduction lives in its own file here and acts through one
//! [`hook::Hook`]: the search asks the active reductions at each of its
//! stages (a thread's paths, combinations of paths, a skeleton's orders, its
//! candidates, their evaluation, the question asked) and runs the plan they
//! leave ([`hook`] has the table). The search itself never asks whether a
//! reduction is on. [`symmetry`] and [`rotation`] ([`Reduction::Symmetry`]),
//! `chain_flow` (`ChainFlow`) and `spin_extension` (`SpinExtension`)
//! also hold the code their stage runs, as types the walk over
//! combinations calls: they read the paths and the limits, never the walk.

mod witness_pruning;
pub(super) use witness_pruning::BarrierPruning;
pub mod barrier_prefixes;
mod branch_registers;
mod chain_flow;
mod coherence_cuts;
mod commuting_rmws;
mod counters;
pub use crate::engine::limits::{Reduction, Reductions, Requires};
pub(super) use chain_flow::{ChainFlow, best_below};
pub mod hook;
mod incremental;
mod lazy_checks;
mod order_pruning;
mod outcome_directed;
mod own_forwarding;
mod own_write_filter;
mod path_pruning;
mod read_factoring;
mod rmw_filter;
pub mod rotation;
mod specialise;
mod spin_extension;
pub(super) use spin_extension::{SpinBlock, SpinExtension};
mod spin_reduction;
mod symbolic_domains;
mod symbolic_stores;
pub mod symmetry;
mod termination_shortcuts;
mod write_pruning;

use crate::engine::limits::Limits;
use crate::ir::Program;
pub use hook::{
    CandidatePlan, CombinationPlan, EvaluationPlan, Hook, OrderPlan, PathPlan, QuestionPlan,
};

/// The hook of `r` (each in `r`'s own file).
fn hook_of(r: Reduction) -> &'static dyn Hook {
    match r {
        Reduction::SpinReduction => &spin_reduction::SpinReductionHook,
        Reduction::RmwFilter => &rmw_filter::RmwFilterHook,
        Reduction::TerminationShortcuts => &termination_shortcuts::TerminationShortcutsHook,
        Reduction::Specialise => &specialise::SpecialiseHook,
        Reduction::LazyChecks => &lazy_checks::LazyChecksHook,
        Reduction::Incremental => &incremental::IncrementalHook,
        Reduction::OwnWriteFilter => &own_write_filter::OwnWriteFilterHook,
        Reduction::OwnForwarding => &own_forwarding::OwnForwardingHook,
        Reduction::BranchRegisters => &branch_registers::BranchRegistersHook,
        Reduction::PathPruning => &path_pruning::PathPruningHook,
        Reduction::WritePruning => &write_pruning::WritePruningHook,
        Reduction::ChainFlow => &chain_flow::ChainFlowHook,
        Reduction::OrderPruning => &order_pruning::OrderPruningHook,
        Reduction::OutcomeDirected => &outcome_directed::OutcomeDirectedHook,
        Reduction::SymbolicStores => &symbolic_stores::SymbolicStoresHook,
        Reduction::Symmetry => &symmetry::SymmetryHook,
        Reduction::SpinExtension => &spin_extension::SpinExtensionHook,
        Reduction::ReadFactoring => &read_factoring::ReadFactoringHook,
        Reduction::Counters => &counters::CountersHook,
        Reduction::WitnessPruning => &witness_pruning::WitnessPruningHook,
        Reduction::SymbolicDomains => &symbolic_domains::SymbolicDomainsHook,
        Reduction::BarrierPrefixes => &barrier_prefixes::BarrierPrefixesHook,
        Reduction::CoherenceCuts => &coherence_cuts::CoherenceCutsHook,
        Reduction::CommutingRmws => &commuting_rmws::CommutingRmwsHook,
    }
}

/// The hooks of the reductions in `limits.reductions`, in
/// [`Reduction::ALL`]'s order.
pub fn active(limits: &Limits) -> impl Iterator<Item = &'static dyn Hook> {
    limits.reductions.iter().map(hook_of)
}

impl PathPlan {
    /// What the active reductions make of the path stage.
    pub fn of(limits: &Limits) -> PathPlan {
        let mut plan = PathPlan::default();
        active(limits).for_each(|h| h.on_paths(limits, &mut plan));
        plan
    }
}

impl CombinationPlan {
    /// What the active reductions make of the combination stage.
    pub fn of(program: &Program, limits: &Limits) -> CombinationPlan {
        let mut plan = CombinationPlan::default();
        active(limits).for_each(|h| h.on_combinations(program, limits, &mut plan));
        plan
    }
}

impl OrderPlan {
    /// What the active reductions make of the order stage.
    pub fn of(limits: &Limits) -> OrderPlan {
        let mut plan = OrderPlan::default();
        active(limits).for_each(|h| h.on_orders(limits, &mut plan));
        plan
    }
}

impl CandidatePlan {
    /// What the active reductions make of the candidate stage.
    pub fn of(program: &Program, limits: &Limits) -> CandidatePlan {
        let mut plan = CandidatePlan::default();
        active(limits).for_each(|h| h.on_candidates(program, limits, &mut plan));
        plan
    }
}

impl EvaluationPlan {
    /// What the active reductions make of the evaluation stage.
    pub fn of(limits: &Limits) -> EvaluationPlan {
        let mut plan = EvaluationPlan::default();
        active(limits).for_each(|h| h.on_evaluation(limits, &mut plan));
        plan
    }
}

impl QuestionPlan {
    /// What the active reductions make of a question.
    pub fn of(limits: &Limits) -> QuestionPlan {
        let mut plan = QuestionPlan::default();
        active(limits).for_each(|h| h.on_question(limits, &mut plan));
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        let mut names: Vec<&str> = Reduction::ALL.iter().map(|r| r.name()).collect();
        for r in Reduction::ALL {
            assert_eq!(r.name().parse::<Reduction>(), Ok(r));
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Reduction::ALL.len());
        assert!("no-such".parse::<Reduction>().is_err());
    }

    #[test]
    fn each_hook_belongs_to_its_reduction() {
        for r in Reduction::ALL {
            assert_eq!(hook_of(r).reduction(), r);
        }
    }

    /// The reference enumeration is the plan no hook touched: every field
    /// off at every stage. And each reduction alone turns on something at
    /// some stage for a model declaring every fact (else its hook would be
    /// dead): the stages' plans differ from the reference's.
    #[test]
    fn no_reduction_is_the_untouched_plan_and_each_one_acts() {
        use crate::engine::limits::Limits;
        let program = crate::ir::Program::default();
        let mut limits = Limits::default().reference();
        limits.profile.rmw_atomicity = true;
        limits.profile.latest_own_write = 1;
        limits.profile.await_extension = true;
        limits.profile.location_local_reads = true;
        limits.profile.po_coherence = u64::MAX;
        let plans = |l: &Limits| {
            (
                PathPlan::of(l),
                CombinationPlan::of(&program, l),
                OrderPlan::of(l),
                CandidatePlan::of(&program, l),
                EvaluationPlan::of(l),
                QuestionPlan::of(l),
            )
        };
        let none = plans(&limits);
        assert_eq!(none, Default::default());
        for r in Reduction::ALL {
            assert_ne!(plans(&limits.with(r, true)), none, "{r} changes no plan");
        }
    }

    #[test]
    fn sets_hold_what_was_put_in() {
        let all = Reductions::all();
        assert_eq!(all.iter().count(), Reduction::ALL.len());
        let some = all.without(Reduction::Symmetry);
        assert!(!some.has(Reduction::Symmetry));
        assert!(some.has(Reduction::RmwFilter));
        assert_eq!(Reductions::none().iter().count(), 0);
        assert!(
            Reductions::none()
                .with(Reduction::Incremental, true)
                .has(Reduction::Incremental)
        );
    }
}
