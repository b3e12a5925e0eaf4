//! The seam between the search and its reductions: the stages at which the
//! search asks the active reductions what to do, and what each stage's
//! answer (its plan) holds.
//!
//! The search never tests whether a reduction is on. At each stage it starts
//! from the reference enumeration's plan (every field off: walk
//! everything), hands it to the hook of every reduction in
//! [`crate::engine::Limits::reductions`] ([`Hook`]), and runs what the plan
//! then says. A reduction's hook turns on only its own fields, and only where
//! what it needs holds (the model's declarations in
//! [`crate::model::SearchProfile`], the shape of the program, the walk's
//! mode): so switching a reduction off is leaving its hook out, and the
//! reference enumeration is the plan no hook touched.
//!
//! The stages, in the order the search meets them:
//!
//! | stage | asked | plan |
//! | --- | --- | --- |
//! | a thread's paths | once per exploration, before the paths are listed | [`PathPlan`] |
//! | combinations of paths | once per exploration, when the explorer is made | [`CombinationPlan`] |
//! | orders and reads-from | per skeleton, when its orders are listed | [`OrderPlan`] |
//! | candidates | per skeleton, before its reads-from search | [`CandidatePlan`] |
//! | evaluation | once per walk, before the first candidate | [`EvaluationPlan`] |
//! | the question | once per question, before its walk (analysis) | [`QuestionPlan`] |

use crate::engine::limits::{Limits, Reduction};
/// The path stage's plan is the walk's own type: the executor in `trace`
/// reads it and names nothing of the reductions.
pub use crate::engine::trace::PathPlan;
use crate::ir::Program;

/// What a reduction does at each stage of the search (all defaults: nothing).
pub trait Hook: Sync {
    /// The reduction this hook belongs to.
    fn reduction(&self) -> Reduction;

    /// On each thread's paths, before they are listed.
    fn on_paths(&self, _limits: &Limits, _plan: &mut PathPlan) {}

    /// On the combinations of one path per thread, before they are walked.
    fn on_combinations(&self, _program: &Program, _limits: &Limits, _plan: &mut CombinationPlan) {}

    /// On a skeleton's coherence and SC orders and its reads-from choices.
    fn on_orders(&self, _limits: &Limits, _plan: &mut OrderPlan) {}

    /// On a skeleton's candidates, before their reads-from search.
    fn on_candidates(&self, _program: &Program, _limits: &Limits, _plan: &mut CandidatePlan) {}

    /// On each candidate's evaluation by the model.
    fn on_evaluation(&self, _limits: &Limits, _plan: &mut EvaluationPlan) {}

    /// On the question an analysis asks, before it chooses its walk.
    fn on_question(&self, _limits: &Limits, _plan: &mut QuestionPlan) {}
}

/// How the combinations of paths are walked (`Explorer`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CombinationPlan {
    /// Paths are chosen thread by thread, a partial combination dropped as
    /// soon as a value its reads need can come from nobody left.
    pub path_pruning: bool,
    /// The walk over executions stopping at the bound may drop a partial
    /// combination past the order limit (`Explorer::set_write_pruning`).
    pub write_pruning: bool,
    /// The pruned walk drops a partial combination whose RMW chains cannot
    /// close.
    pub chain_flow: bool,
    /// The RMW-chain locations are known (the model declares RMW atomicity),
    /// for the pruned walk's counting of RMW reads.
    pub rmw_chains: bool,
    /// One combination per orbit of interchangeable threads (or of an
    /// automorphism renaming locations), when the visitor allows it.
    pub symmetry: bool,
    /// The walk after a finished complete walk may skip spinning prefixes
    /// that extend to complete paths (the model declares `await-extension`
    /// and the program has nothing that breaks the argument).
    pub spin_extension: bool,
    /// Reads of thread-own locations have their reads-from pinned to the
    /// thread's latest earlier write.
    pub pin_own_reads: bool,
    /// The pruned walk drops a partial combination whose control barriers
    /// cannot agree, when the visitor wants only combinations whose
    /// barriers agree ([`crate::engine::Needs::barriers_agree`]).
    pub barrier_pruning: bool,
    /// Where races are decided, the executions in which every thread waits
    /// at its `k`-th control barrier are walked first, smallest `k` first.
    pub barrier_prefixes: bool,
}

/// How a skeleton's orders and reads-from choices are listed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrderPlan {
    /// RMW reads-from choices the declared atomicity forbids are skipped.
    pub rmw_filter: bool,
    /// The checks monotone in `rf` are asked once per combination of
    /// orders, with only the forced reads assigned.
    pub order_pruning: bool,
    /// Orders against the declared read-write coherence are not listed.
    pub coherence_pairs: bool,
    /// Orders against the declared write-write coherence are not listed.
    pub write_pairs: bool,
    /// Orders against the declared coherence of writes sequenced in one
    /// thread (under a total `co`) are not listed.
    pub sequenced_writes: bool,
    /// A location whose every access is an RMW of one commuting kind with
    /// its result unused gets one order, counted for every interleaving
    /// (`choices::commuting_orders`), for a visitor that counts so.
    pub commuting_rmws: bool,
}

/// How a skeleton's candidates are searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CandidatePlan {
    /// Observation reads may be factored location by location (the model
    /// declares `location-local-reads` and the program has nothing a read's
    /// choice could reach beyond its location).
    pub read_factoring: bool,
}

/// How each candidate is evaluated by the model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvaluationPlan {
    /// The model's dynamic statements are partially evaluated per skeleton.
    pub specialise: bool,
    /// A question reading only consistency, flags and a few bindings
    /// evaluates the checks cheapest first and stops at the first failure.
    pub lazy_checks: bool,
    /// Each evaluation starts from the walk's previous one.
    pub incremental: bool,
}

/// Which walk answers a question (the analyses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuestionPlan {
    /// Final states or a condition's verdict: candidates whose known state
    /// cannot change the answer are not evaluated.
    pub outcome_directed: bool,
    /// Termination: the bound deepens from 0 and only fair orders are
    /// listed.
    pub termination_shortcuts: bool,
    /// Termination: a stuck path whose loop cannot repeat (no split of its
    /// iterations matches) is combined with nothing.
    pub witness_pruning: bool,
}
