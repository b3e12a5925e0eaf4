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
//! What it changes: only which executions are walked first. The prefixes
//! are the listed paths cut short ([`stopped_at_barrier`]): each path (and
//! each prefix the unrolling bound cut) that reaches its `k`-th control
//! barrier ends just before it, as a cut prefix whose ending says it waits
//! there ([`Ending::Cut`] with `waiting`; counted as cut, so every
//! reduction that reads the cut count treats the thread's paths as
//! incomplete), the same prefix kept once; a path that finishes, or stops
//! at the bound, before its `k`-th barrier stays as it is. The paths were
//! listed for the whole program, so a read before the barrier may range
//! over values only writes after it give: those combinations find no
//! write to read and are no execution (the walk over prefixes asks every
//! read's value of the events chosen), so the prefixes walked are exactly
//! the executions in which every thread that reaches its `k`-th barrier
//! waits there. They are walked by the walk over executions stopping
//! part-way (`driver::walk_stopped`) under the reading that walk already
//! has (`Limits::prefix_races`, analysis::litmus `Outcomes::wants_prefix`):
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
//! not run, as no walk over prefixes does.
//!
//! The walks stop deepening at the first `k` no path reaches (the walk
//! over the whole program follows), at a walk stopped by its share of
//! the budget, or once the walks used an eighth of the time or
//! evaluations the question has.

use super::hook::{CombinationPlan, Hook};
use crate::engine::limits::{Limits, Reduction};
use crate::engine::trace::{Ending, NOT_STARTED, Path, ThreadPaths, exprs_made_before};
use crate::ir::{OpKind, Program, Scope, Stmt, Thread};

pub(super) struct BarrierPrefixesHook;

impl Hook for BarrierPrefixesHook {
    fn reduction(&self) -> Reduction {
        Reduction::BarrierPrefixes
    }

    fn on_combinations(&self, _program: &Program, limits: &Limits, plan: &mut CombinationPlan) {
        plan.barrier_prefixes = limits.prefix_races && !limits.endings;
    }
}

/// Whether statement `stmt` of `t` is a control barrier (group functions,
/// also barrier instructions of the IR, apart).
fn is_barrier(t: &Thread, stmt: usize) -> bool {
    matches!(&t.code[stmt], Stmt::Op(i)
        if matches!(i.kind, OpKind::ControlBarrier { .. }) && i.group.is_none())
}

/// Whether some thread of `program` has a control barrier (the walks
/// run only then).
pub fn has_barrier(program: &Program) -> bool {
    program
        .threads
        .iter()
        .any(|t| (0..t.code.len()).any(|s| is_barrier(t, s)))
}

/// Thread `t`'s listed paths `paths` cut short at its `k`-th control
/// barrier: the paths and prefixes that never reach it as they are, the
/// others as one waiting prefix each (each distinct prefix once). `None`
/// when no path or prefix reaches it.
pub fn stopped_at_barrier(t: &Thread, paths: &ThreadPaths, k: usize) -> Option<ThreadPaths> {
    // What the listing learnt of the thread beside its paths (the writes
    // of cut paths, the cut points, ...) holds for the prefixes too.
    let mut out = ThreadPaths {
        paths: Vec::new(),
        cut_prefixes: Vec::new(),
        ..paths.clone()
    };
    let mut waiting: Vec<Path> = Vec::new();
    let kth = |p: &Path| {
        p.events
            .iter()
            .enumerate()
            .filter(|(_, e)| is_barrier(t, e.stmt))
            .nth(k - 1)
            .map(|(i, e)| (i, e.stmt))
    };
    for (p, complete) in paths
        .paths
        .iter()
        .map(|p| (p, true))
        .chain(paths.cut_prefixes.iter().map(|p| (p, false)))
    {
        let Some((i, stmt)) = kth(p) else {
            if complete {
                out.paths.push(p.clone());
            } else {
                out.cut_prefixes.push(p.clone());
            }
            continue;
        };
        let events = &p.events[..i];
        if waiting.iter().any(|q| q.events == events) {
            continue;
        }
        waiting.push(Path {
            events: events.to_vec(),
            registers: Vec::new(),
            awaits: p
                .awaits
                .iter()
                .filter(|a| a.events.end <= i)
                .cloned()
                .collect(),
            ending: Ending::Cut {
                stmt,
                spinning: false,
                waiting: true,
            },
            exprs: p.exprs[..exprs_made_before(&p.exprs, i)].to_vec(),
        });
    }
    if waiting.is_empty() {
        return None;
    }
    out.cut += waiting.len();
    out.waiting = waiting.len();
    out.cut_prefixes.extend(waiting);
    Some(out)
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
