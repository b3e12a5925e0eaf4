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
//! `chain_flow` and `spin_extension` also hold the code their stage runs.

use crate::model::SearchProfile;

mod chain_flow;
pub(super) use chain_flow::ChainFlow;
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
pub(super) use spin_extension::SpinBlock;
mod spin_reduction;
mod symbolic_stores;
pub mod symmetry;
mod termination_shortcuts;
mod write_pruning;

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
        Reduction::PathPruning => &path_pruning::PathPruningHook,
        Reduction::WritePruning => &write_pruning::WritePruningHook,
        Reduction::ChainFlow => &chain_flow::ChainFlowHook,
        Reduction::OrderPruning => &order_pruning::OrderPruningHook,
        Reduction::OutcomeDirected => &outcome_directed::OutcomeDirectedHook,
        Reduction::SymbolicStores => &symbolic_stores::SymbolicStoresHook,
        Reduction::Symmetry => &symmetry::SymmetryHook,
        Reduction::SpinExtension => &spin_extension::SpinExtensionHook,
        Reduction::ReadFactoring => &read_factoring::ReadFactoringHook,
    }
}

/// One reduction of the search (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reduction {
    /// Side-effect-free spin loops run as awaits (only the iteration that
    /// leaves the loop: `trace::spin_loops`) instead of being unrolled.
    SpinReduction,
    /// The reads-from choices of an RMW that the model's declared
    /// atomicity forbids are skipped ([`SearchProfile::rmw_atomicity`]).
    RmwFilter,
    /// The termination search deepens the unrolling bound from 0 and lists
    /// only the orders memory fairness allows
    /// ([`crate::analysis::termination`]).
    TerminationShortcuts,
    /// The model's dynamic statements are partially evaluated for each
    /// test (`crate::cat::Model::prepare`).
    Specialise,
    /// Questions reading only consistency, flags and a few bindings
    /// evaluate the checks cheapest first, stopping at the first that
    /// fails, and no statement the question does not need.
    LazyChecks,
    /// Each evaluation starts from the previous one of the same walk: only
    /// the statements whose inputs changed run again
    /// (`crate::cat::Prepared::evaluate_lazily_from`).
    Incremental,
    /// A read of a location only its own thread writes takes only the
    /// thread's latest earlier write there, where the model declares
    /// `latest-own-write` ([`SearchProfile::latest_own_write`],
    /// `trace::own_locations`).
    OwnWriteFilter,
    /// With [`Reduction::OwnWriteFilter`] and [`Reduction::SymbolicStores`],
    /// such a read whose latest earlier write is derived takes that write's
    /// term as its value (`trace`, `fix_read`).
    OwnForwarding,
    /// Combinations of thread paths are chosen thread by thread, a partial
    /// one dropped as soon as a value one of its reads needs can come from
    /// nobody left (`Explorer::block_with`): the same combinations reach
    /// the search, by a shorter walk.
    PathPruning,
    /// In the pruned walk over executions stopping at the bound, a partial
    /// combination already holding more ordered writes to one location
    /// than the order limit is dropped (`Explorer::set_write_pruning`).
    WritePruning,
    /// The pruned walk checks the balances of RMW chains (`chains`): a
    /// partial combination whose RMW chains cannot close is dropped.
    ChainFlow,
    /// Under each combination of coherence (and SC) orders, the checks
    /// monotone in `rf` are asked once with only the forced reads assigned,
    /// and orders the declared coherence facts rule out are not listed.
    OrderPruning,
    /// Where only the final states or the condition's verdict are asked, a
    /// candidate whose final state is known before its evaluation is not
    /// evaluated when that cannot change the answer
    /// ([`crate::analysis::litmus`]).
    OutcomeDirected,
    /// A read whose value only flows into stores, registers and local
    /// arithmetic stays symbolic: one path where there was one per value
    /// (`trace::explore_with_domains`, [`super::values`]).
    SymbolicStores,
    /// One execution per orbit under the permutations of interchangeable
    /// threads (and the renamings of [`super::rotation`]), counted for its
    /// orbit ([`super::symmetry`]).
    Symmetry,
    /// After a finished complete walk, a combination whose stopped threads
    /// all spin forever at an await and extend to complete paths is not
    /// walked again for races (`Explorer::set_spin_extension`).
    SpinExtension,
    /// The reads-from choices of observation reads are searched location
    /// by location and handed to the visitor as a product
    /// (`candidates::observation_reads`).
    ReadFactoring,
}

/// What a reduction needs the model to declare about itself before it
/// applies (it is inert otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requires {
    /// Nothing: it holds for every model.
    Nothing,
    /// `rmw-atomicity`.
    RmwAtomicity,
    /// `latest-own-write` for the read's storage class.
    LatestOwnWrite,
    /// `await-extension`.
    AwaitExtension,
    /// `location-local-reads`.
    LocationLocalReads,
    /// `read-write-coherence`, `write-write-coherence` or
    /// `co-write-write-coherence` for the orders it leaves out (the
    /// monotone checks under forced reads hold for every model).
    Coherence,
}

impl Requires {
    /// Whether `profile` declares what this asks for (for
    /// [`Requires::Coherence`]: any of the three facts).
    pub fn holds(self, profile: &SearchProfile) -> bool {
        match self {
            Requires::Nothing => true,
            Requires::RmwAtomicity => profile.rmw_atomicity,
            Requires::LatestOwnWrite => profile.latest_own_write != 0,
            Requires::AwaitExtension => profile.await_extension,
            Requires::LocationLocalReads => profile.location_local_reads,
            Requires::Coherence => {
                profile.read_write_coherence
                    || profile.write_write_coherence
                    || profile.co_write_write_coherence != 0
            }
        }
    }
}

impl Reduction {
    /// Every reduction, in the order `--help` and the tables list them.
    pub const ALL: [Reduction; 17] = [
        Reduction::SpinReduction,
        Reduction::RmwFilter,
        Reduction::TerminationShortcuts,
        Reduction::Specialise,
        Reduction::LazyChecks,
        Reduction::Incremental,
        Reduction::OwnWriteFilter,
        Reduction::OwnForwarding,
        Reduction::PathPruning,
        Reduction::WritePruning,
        Reduction::ChainFlow,
        Reduction::OrderPruning,
        Reduction::OutcomeDirected,
        Reduction::SymbolicStores,
        Reduction::Symmetry,
        Reduction::SpinExtension,
        Reduction::ReadFactoring,
    ];

    /// The reduction's name: `--no NAME`, and the old `--no-NAME` switch.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::SpinReduction => "spin-reduction",
            Reduction::RmwFilter => "rmw-filter",
            Reduction::TerminationShortcuts => "termination-shortcuts",
            Reduction::Specialise => "specialise",
            Reduction::LazyChecks => "lazy-checks",
            Reduction::Incremental => "incremental",
            Reduction::OwnWriteFilter => "own-write-filter",
            Reduction::OwnForwarding => "own-forwarding",
            Reduction::PathPruning => "path-pruning",
            Reduction::WritePruning => "write-pruning",
            Reduction::ChainFlow => "chain-flow",
            Reduction::OrderPruning => "order-pruning",
            Reduction::OutcomeDirected => "outcome-directed",
            Reduction::SymbolicStores => "symbolic-stores",
            Reduction::Symmetry => "symmetry",
            Reduction::SpinExtension => "spin-extension",
            Reduction::ReadFactoring => "read-factoring",
        }
    }

    /// One line saying what the reduction skips.
    pub fn doc(self) -> &'static str {
        match self {
            Reduction::SpinReduction => "run side-effect-free spin loops as awaits",
            Reduction::RmwFilter => "skip RMW reads-from choices the declared atomicity forbids",
            Reduction::TerminationShortcuts => {
                "termination: deepen the bound from 0, list only fair orders"
            }
            Reduction::Specialise => "partially evaluate the model per test",
            Reduction::LazyChecks => "evaluate only the checks a question reads, cheapest first",
            Reduction::Incremental => "re-evaluate only the statements whose inputs changed",
            Reduction::OwnWriteFilter => "a read of a thread-own location reads its latest write",
            Reduction::OwnForwarding => "forward a derived own write's term to its later reads",
            Reduction::PathPruning => "choose paths thread by thread, dropping unsatisfiable ones",
            Reduction::WritePruning => "drop combinations past the order limit early",
            Reduction::ChainFlow => "drop combinations whose RMW chains cannot balance",
            Reduction::OrderPruning => "refute a coherence order once, before its reads-from",
            Reduction::OutcomeDirected => {
                "skip candidates whose known state cannot change the answer"
            }
            Reduction::SymbolicStores => "keep reads that only flow into stores symbolic",
            Reduction::Symmetry => "walk one execution per orbit of interchangeable threads",
            Reduction::SpinExtension => "skip spinning prefixes that extend to complete executions",
            Reduction::ReadFactoring => "factor observation reads' choices by location",
        }
    }

    /// What the reduction needs the model to declare.
    pub fn requires(self) -> Requires {
        match self {
            Reduction::RmwFilter => Requires::RmwAtomicity,
            Reduction::OwnWriteFilter | Reduction::OwnForwarding => Requires::LatestOwnWrite,
            Reduction::SpinExtension => Requires::AwaitExtension,
            Reduction::ReadFactoring => Requires::LocationLocalReads,
            Reduction::OrderPruning => Requires::Coherence,
            _ => Requires::Nothing,
        }
    }

    /// The reduction named `name` ([`Reduction::name`]).
    pub fn from_name(name: &str) -> Option<Reduction> {
        Reduction::ALL.into_iter().find(|r| r.name() == name)
    }

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl std::fmt::Display for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Reduction {
    type Err = String;

    fn from_str(s: &str) -> Result<Reduction, String> {
        Reduction::from_name(s).ok_or_else(|| {
            let names: Vec<&str> = Reduction::ALL.iter().map(|r| r.name()).collect();
            format!("no reduction `{s}`; the reductions: {}", names.join(", "))
        })
    }
}

/// A set of reductions.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reductions(u32);

impl Reductions {
    /// Every reduction (the default search).
    pub fn all() -> Reductions {
        Reduction::ALL
            .into_iter()
            .fold(Reductions(0), |s, r| s.with(r, true))
    }

    /// No reduction (the reference enumeration).
    pub fn none() -> Reductions {
        Reductions(0)
    }

    /// Whether `r` is in the set.
    pub fn has(self, r: Reduction) -> bool {
        self.0 & r.bit() != 0
    }

    /// The set with `r` in it (`on`) or not.
    pub fn with(self, r: Reduction, on: bool) -> Reductions {
        if on {
            Reductions(self.0 | r.bit())
        } else {
            Reductions(self.0 & !r.bit())
        }
    }

    /// The set without `r`.
    pub fn without(self, r: Reduction) -> Reductions {
        self.with(r, false)
    }

    /// The reductions in the set, in [`Reduction::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = Reduction> {
        Reduction::ALL.into_iter().filter(move |r| self.has(*r))
    }
}

impl Default for Reductions {
    fn default() -> Self {
        Reductions::all()
    }
}

impl std::fmt::Debug for Reductions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
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
        use crate::engine::Limits;
        let program = crate::ir::Program::default();
        let mut limits = Limits::default().reference();
        limits.profile.rmw_atomicity = true;
        limits.profile.latest_own_write = 1;
        limits.profile.await_extension = true;
        limits.profile.location_local_reads = true;
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
