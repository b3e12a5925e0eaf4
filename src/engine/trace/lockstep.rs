//! Cut paths that lose no execution: a thread's loop tied by a control
//! barrier to another invocation's loop that ends.
//!
//! SPIR-V memory model for OpenCL, glossary: "A control barrier blocks
//! some set of invocations from progressing until all of them reach the
//! same point in the execution"; 3.5: "if a work-group function occurs
//! within a loop, the Invocations must encounter the same work-group
//! function in the same loop iterations". An invocation that spins on a
//! workgroup flag while another member of its workgroup does the work
//! (`if (lid == last) flag = ...; barrier(); f = flag; barrier();`)
//! passes the loop's barriers once per iteration, as often as the worker
//! does; when every path of the worker is complete (none cut) and
//! reaches the barrier at most `m` times, the spinning invocation's
//! `(m+1)`-th pass never opens. A path the bound cut after such a pass
//! therefore stops short of no execution in which every barrier opens:
//! the invocation waits at that barrier forever (while endings are
//! listed, its path blocked there is listed; elsewhere the extensions
//! past the cut would be executions with barrier divergence, which the
//! analyses diagnose within the bound). Such a path is *discharged*: counted
//! apart from the cut paths (`ThreadPaths::discharged`), so the bound is
//! not reported as reached on its account.
//!
//! The argument needs the other member's paths to be all of its
//! behaviours: none cut. That also rules out a loop it repeats forever
//! through the barrier: the walk drops a repeated iteration only when it
//! only loads (no barrier), so any other iteration the loop can repeat is
//! walked again and again until the bound cuts it. A stuck path (while
//! endings are listed) ends where its loop jumps back, and its thread's
//! walk goes on from there, so its passes count as those of any path.
//! Only unnamed barriers without a quorum count (a named one meets only
//! the arrivals with its id; a quorum opens without every member), and
//! never group functions (a non-uniform one waits for no one).

use super::budget::Budget;
use super::path::{Ending, Passes, PathEvent, ThreadPaths};
use crate::engine::instances::same_instance;
use crate::engine::limits::ExecError;
use crate::ir::{OpKind, Program, Scope, Stmt, Thread};
use std::collections::BTreeMap;

/// The barrier of statement `stmt` of `t` when it is one that every member
/// of its execution-scope instance must reach: its instance number and
/// execution scope.
fn unnamed_barrier(t: &Thread, stmt: usize) -> Option<(u32, Scope)> {
    let Stmt::Op(i) = &t.code[stmt] else {
        return None;
    };
    match i.kind {
        OpKind::ControlBarrier {
            instance,
            execution_scope,
            id: None,
            quorum: None,
        } if i.group.is_none() => Some((instance, execution_scope)),
        _ => None,
    }
}

/// The passes of `events` (a path of `t`) through unnamed, quorum-free
/// control barriers.
pub fn passes(t: &Thread, events: &[PathEvent]) -> Passes {
    let mut count: BTreeMap<(u32, Scope), usize> = BTreeMap::new();
    for e in events {
        if let Some(key) = unnamed_barrier(t, e.stmt) {
            *count.entry(key).or_default() += 1;
        }
    }
    count.into_iter().map(|((i, s), n)| (i, s, n)).collect()
}

/// The unnamed, quorum-free control barrier a thread arrives at next from
/// statement `from`, when it gets there without making an event
/// ([`super::ahead::way_on`]; `value` gives a register's constant).
/// `None` when the way on meets any other instruction, a branch on an
/// unknown value, the end of the code, or has no end.
///
/// A path the unrolling bound cut at `from` goes on, in every execution,
/// to that barrier with the events it already has: its arrival there is
/// as certain as its passes (`arrivals`), and while endings are listed its
/// path blocked there is one of its thread's (the executor lists it).
pub(super) fn barrier_ahead(
    t: &Thread,
    labels: &super::spin::Labels,
    from: usize,
    value: &dyn Fn(&str) -> Option<i64>,
) -> Option<usize> {
    let (pc, _) = super::ahead::way_on(t, labels, from, value, &|_| false)?;
    unnamed_barrier(t, pc).map(|_| pc)
}

/// [`passes`] of a cut path of `t` whose thread goes on to arrive at the
/// barrier of statement `ahead` ([`barrier_ahead`]): that arrival counts
/// as one more pass, which opens only if every member of its instance
/// arrives as often.
pub fn arrivals(t: &Thread, events: &[PathEvent], ahead: Option<usize>) -> Passes {
    let mut out = passes(t, events);
    if let Some((i, scope)) = ahead.and_then(|pc| unnamed_barrier(t, pc)) {
        match out.iter_mut().find(|(j, s, _)| *j == i && *s == scope) {
            Some(entry) => entry.2 += 1,
            None => {
                out.push((i, scope, 1));
                out.sort();
            }
        }
    }
    out
}

/// The most times any behaviour of a thread arrives at each barrier
/// instance number, or `None` when its paths are not all its behaviours
/// (the bound cut some).
fn reach(
    t: &Thread,
    tp: &ThreadPaths,
    budget: &Budget,
) -> Result<Option<BTreeMap<u32, usize>>, ExecError> {
    if tp.cut > 0 {
        return Ok(None);
    }
    let mut most: BTreeMap<u32, usize> = BTreeMap::new();
    let mut raise = |i: u32, n: usize| {
        let m = most.entry(i).or_default();
        *m = (*m).max(n);
    };
    for p in &tp.paths {
        budget.step(&|| format!("counting the barriers thread P{} passes", t.id))?;
        for (i, _, n) in passes(t, &p.events) {
            raise(i, n);
        }
        // Waiting at a barrier is arriving at it (blocked there, or
        // stopped there by the listing of barrier prefixes).
        match &p.ending {
            Ending::Blocked { key, .. } => raise(key.0, key.1),
            Ending::Cut {
                stmt,
                waiting: true,
                ..
            } => {
                if let Some((i, _)) = unnamed_barrier(t, *stmt) {
                    let passed = p
                        .events
                        .iter()
                        .filter(|e| unnamed_barrier(t, e.stmt).is_some_and(|(j, _)| j == i))
                        .count();
                    raise(i, passed + 1);
                }
            }
            _ => {}
        }
    }
    Ok(Some(most))
}

/// Moves from `cut` to `discharged` the cut paths of every thread that
/// passed a barrier some other member of its execution-scope instance
/// never reaches (see the module doc). Counting the passes reads
/// `budget`; an error names the limit reached.
pub(crate) fn discharge(
    program: &Program,
    all: &mut [ThreadPaths],
    budget: &Budget,
) -> Result<(), ExecError> {
    if all.iter().all(|tp| tp.cut == 0) {
        return Ok(());
    }
    let reach: Vec<Option<BTreeMap<u32, usize>>> = program
        .threads
        .iter()
        .zip(all.iter())
        .map(|(t, tp)| reach(t, tp, budget))
        .collect::<Result<_, _>>()?;
    for (t, tp) in all.iter_mut().enumerate() {
        let mut freed = 0;
        for (profile, &n) in &tp.cut_barriers {
            let unopened = profile.iter().any(|&(i, scope, k)| {
                reach.iter().enumerate().any(|(u, r)| {
                    u != t
                        && same_instance(program, u, scope, t)
                        && r.as_ref()
                            .is_some_and(|r| r.get(&i).copied().unwrap_or(0) < k)
                })
            });
            if unopened {
                freed += n;
            }
        }
        tp.cut -= freed;
        tp.discharged += freed;
    }
    Ok(())
}
