//! [`Reduction::BarrierPrefixes`]: where races are what a walk decides
//! (`Needs::prefixes_first`, a suite's `races` rows), the executions in
//! which every thread waits at its `k`-th control barrier are walked
//! first, `k = 1, 2, ...` (`driver::barrier_prefixes_first`), each walk
//! ending at the first race, before the program's own paths are listed.
//!
//! Why: on a shader whose threads synchronise through control barriers,
//! the listing of each thread's paths and the walk over their combinations
//! cost what the whole program's value forks cost (a subgroup scan's
//! results, the values read back from shared memory after a barrier), and
//! a race between two accesses of one barrier interval needs none of what
//! follows it. Stopped at the barrier that closes the interval, each
//! thread has a few short paths: the race of GPUPrefixSums' spine scan
//! (an index past `wg_reduce`'s end, clamped onto the cell invocation 1
//! writes in the same interval) is found among 8 invocations' prefixes
//! in a fraction of a second, where the walk over complete paths met no
//! consistent execution in a minute.
//!
//! What it changes: only which executions are walked first, and that
//! they are walked before the whole program's paths are listed (a listing
//! that may itself pass the memory bound). The prefixes are listed
//! directly ([`crate::engine::Explorer::listed`],
//! `PathPlan::stop_at_barrier`): each thread's walk ends every path that
//! reaches its `k`-th control barrier just before it, as a cut prefix
//! whose ending says it waits there ([`Ending::Cut`] with `waiting`;
//! counted as cut, so every reduction that reads the cut count treats the
//! thread's paths as incomplete); a path that finishes, or that the
//! unrolling bound cuts, before its `k`-th barrier stays as it is (the
//! bound is checked before the barrier stops a path, as the complete
//! listing checks it). The value domains are the fixpoint over those
//! paths' writes, the waiting ones counting as a thread's whole run: in
//! an execution that stops there no write after the barrier exists, so
//! they hold every value such an execution can read (and the provenance
//! bound counts the writes such an execution makes). A read whose value
//! no write of the combination gives finds no write to read and is no
//! execution (the walk over prefixes asks every read's value of the
//! events chosen), so the prefixes walked are exactly the executions in
//! which every thread that reaches its `k`-th barrier waits there. They
//! are walked by the walk over executions stopping part-way
//! (`driver::walk_stopped`) under the reading that walk already has
//! (`Limits::prefix_races`, analysis::litmus `Outcomes::wants_prefix`):
//! an execution closed under program order, reads-from sources and
//! barrier partners, judged by the models as the complete execution it
//! begins. Every thread stopping at a barrier it has not yet passed, no
//! barrier instance is half passed. Such a prefix extends to the
//! executions of the whole program (each later event can be added as a
//! sink of every relation of the Vulkan models' one axiom: a read reading
//! its location's latest write, a write last in the orders), so a race
//! found there is one the walk over the whole program's executions has
//! too; races only are decided there ("race-free" needs the whole walk,
//! which follows when no race is found). With `--no-prefix-races` it does
//! not run, as no walk over prefixes does. In the pass where the first
//! workgroup runs alone the others' paths are replaced by one prefix that
//! has not started ([`not_started`]); the listing's domains then hold
//! values the others' writes give too, which only add combinations that
//! are no execution.
//!
//! The walks stop deepening at the first `k` no path reaches (the walk
//! over the whole program follows), at a listing or walk stopped by its
//! share of the budget (a listing failing is not reported here: the
//! listing of the whole program meets and reports what failed), or once
//! the listings and walks spent their share of the question's work: an
//! eighth of its evaluations for the walks, and for the listings
//! together an amount of work sized from it (`driver`'s
//! `BARRIER_PREFIXES_STEPS_PER_EVALUATION`, counted as
//! `crate::engine::trace::Work`: steps of the path walk and bytes
//! allocated), which the walks' model evaluations spend from too, by the
//! bytes they allocate: a round whose executions cost nearly what the
//! whole program's do gives way to the walk over the whole program
//! rather than running to its end. Counted in work, not time, the
//! barriers the rounds cover
//! do not depend on the machine or its load; half the question's time
//! bounds them from outside only. Each `k`'s listing serves both
//! passes; the last one, when no round of it stopped a path at its
//! barrier, ran as the listing
//! without the stop and is the whole program's listing, which the walk
//! over complete paths then takes instead of listing again
//! (`Explorer::complete_under`).

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::{Ending, NOT_STARTED, Path, ThreadPaths, is_control_barrier};
use crate::ir::{OpKind, Program, Scope, Stmt};

pub(super) struct BarrierPrefixesHook;

impl Hook for BarrierPrefixesHook {
    fn reduction(&self) -> Reduction {
        Reduction::BarrierPrefixes
    }

    fn on_combinations(&self, _program: &Program, limits: &Limits, plan: &mut CombinationPlan) {
        plan.barrier_prefixes = limits.prefix_races && !limits.endings;
    }
}

/// Whether some thread of `program` has a control barrier (the walks
/// run only then).
pub fn has_barrier(program: &Program) -> bool {
    program
        .threads
        .iter()
        .any(|t| (0..t.code.len()).any(|s| is_control_barrier(t, s)))
}

/// Whether the executions in which one workgroup runs alone (the others
/// not started) are prefixes closed under barrier partners: every control
/// barrier's execution scope is at most a workgroup, so no barrier
/// instance a running invocation passes has a member in another
/// workgroup; and the dispatch has more than one workgroup.
pub fn workgroups_alone(program: &Program) -> bool {
    let first = program.threads.first().map(|t| t.workgroup);
    program.threads.iter().any(|t| Some(t.workgroup) != first)
        && program.threads.iter().all(|t| {
            t.code.iter().all(|s| match s {
                Stmt::Op(i) => match i.kind {
                    OpKind::ControlBarrier {
                        execution_scope, ..
                    } => matches!(
                        execution_scope,
                        Scope::Invocation | Scope::Subgroup | Scope::Workgroup
                    ),
                    _ => true,
                },
                _ => true,
            })
        })
}

/// Thread `t`'s one prefix where it has not started (no event): a waiting
/// prefix at its first statement, for the executions in which another
/// workgroup runs alone.
pub fn not_started(paths: &ThreadPaths) -> ThreadPaths {
    ThreadPaths {
        paths: Vec::new(),
        cut_prefixes: vec![Path {
            events: Vec::new(),
            registers: Vec::new(),
            awaits: Vec::new(),
            ending: Ending::Cut {
                stmt: NOT_STARTED,
                spinning: false,
                waiting: true,
            },
            exprs: Vec::new(),
        }],
        cut: paths.cut + 1,
        waiting: 1,
        ..paths.clone()
    }
}
