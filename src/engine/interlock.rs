//! Fragment shader interlock in the engine: which fragment invocations
//! overlap (one fragment interlock instance), rasterization order, and the
//! interlock orders `ilo` a candidate execution ranges over
//! (docs/interlock.md).
//!
//! The appendix: "Let F be an ordering of fragment shader invocations, such
//! that invocation F1 is ordered before invocation F2 if and only if F1 and
//! F2 overlap as described in Fragment Shader Interlock and F1 executes the
//! interlocked code before F2." F is enumerated like the SC orders: every
//! order of the invocations that execute the interlocked code, restricted to
//! the overlapping pairs (distinct restrictions only). In an ordered
//! interlock mode the critical sections of overlapping invocations run in
//! rasterization order, so only the orders that agree with it are kept;
//! in an unordered mode every order is a candidate.

use super::instances::{overlap, rasterized_before};
use super::limits::{ExecError, LimitKind};
use super::trace::EventInfo;
use crate::ir::{OpKind, Program};
use crate::relation::Relation;
use std::collections::BTreeSet;

/// The interlock orders of one combination of paths: each relates every
/// event of `F1` to every event of `F2` when `F1` is ordered before `F2`.
/// One empty order when no invocation executes interlocked code (or the
/// model does not read `ilo`: `wanted` false).
pub(crate) fn ilo_choices(
    program: &Program,
    events: &[EventInfo],
    wanted: bool,
    max: usize,
) -> Result<Vec<Relation>, ExecError> {
    let n = events.len();
    let kind = |e: usize| &events[e].instruction(program).kind;
    // The dynamic part of "exactly once": a path may not run either
    // instruction twice (the front ends check the static part).
    let mut participants = Vec::new();
    for t in 0..program.threads.len() {
        let mine: Vec<usize> = (0..n).filter(|&e| events[e].thread == t).collect();
        for k in [OpKind::BeginInterlock, OpKind::EndInterlock] {
            let runs: Vec<usize> = mine.iter().copied().filter(|&e| *kind(e) == k).collect();
            if runs.len() > 1 {
                let i = events[runs[1]].instruction(program);
                return Err(ExecError::new(format!(
                    "{}: `{}` runs a second time on a path of thread {}: an invocation executes {} exactly once",
                    i.source.place(),
                    i.source.text,
                    program.threads[t].id,
                    if k == OpKind::BeginInterlock {
                        "OpBeginInvocationInterlockEXT"
                    } else {
                        "OpEndInvocationInterlockEXT"
                    }
                )));
            }
        }
        if mine.iter().any(|&e| *kind(e) == OpKind::BeginInterlock) {
            participants.push(t);
        }
    }
    if !wanted || participants.len() < 2 {
        return Ok(vec![Relation::empty(n)]);
    }
    // Overlap classes: invocations of different classes are never ordered,
    // so each class's orders are listed alone and combined (two pixels of
    // three invocations: 6 + 6 permutations, not 720).
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for &t in &participants {
        let joined: Vec<usize> = (0..classes.len())
            .filter(|&c| classes[c].iter().any(|&u| overlap(program, t, u)))
            .collect();
        let mut class = vec![t];
        for &c in joined.iter().rev() {
            class.extend(classes.remove(c));
        }
        class.sort_unstable();
        classes.push(class);
    }
    let ordered = program.interlock.ordered;
    // May `a` come before `b`?
    let allowed = |a: usize, b: usize| !(ordered && rasterized_before(program, b, a));
    let mut per_class: Vec<Vec<Vec<(usize, usize)>>> = Vec::new();
    for class in classes.iter().filter(|c| c.len() > 1) {
        if class.len() > max {
            return Err(ExecError::limit(
                LimitKind::MaxWrites,
                format!(
                    "{} overlapping fragment invocations in critical sections: more than the {max} whose interlock orders vkmm enumerates (--max-writes)",
                    class.len()
                ),
            ));
        }
        let mut seen: BTreeSet<Vec<(usize, usize)>> = BTreeSet::new();
        let mut perm = class.clone();
        permute(&mut perm, 0, &mut |p| {
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    if !allowed(p[i], p[j]) {
                        return;
                    }
                }
            }
            let mut pairs = Vec::new();
            for i in 0..p.len() {
                for j in i + 1..p.len() {
                    if overlap(program, p[i], p[j]) {
                        pairs.push((p[i], p[j]));
                    }
                }
            }
            pairs.sort_unstable();
            seen.insert(pairs);
        });
        per_class.push(seen.into_iter().collect());
    }
    let total = per_class
        .iter()
        .fold(1usize, |acc, c| acc.saturating_mul(c.len()));
    if total > MAX_ORDERS {
        return Err(ExecError::limit(
            LimitKind::MaxWrites,
            format!(
                "{total} interlock orders over {} overlap classes: more than the {MAX_ORDERS} vkmm lists",
                per_class.len()
            ),
        ));
    }
    // Each thread's events, once.
    let mut of_thread: Vec<Vec<usize>> = vec![Vec::new(); program.threads.len()];
    for (e, ev) in events.iter().enumerate() {
        of_thread[ev.thread].push(e);
    }
    let mut out = vec![Relation::empty(n)];
    for orders in &per_class {
        let mut next = Vec::with_capacity(out.len() * orders.len());
        for base in &out {
            for pairs in orders {
                let mut r = base.clone();
                for &(a, b) in pairs {
                    for &x in &of_thread[a] {
                        for &y in &of_thread[b] {
                            r.insert(x, y);
                        }
                    }
                }
                next.push(r);
            }
        }
        out = next;
    }
    Ok(out)
}

/// The most interlock orders (product over the overlap classes) listed for
/// one combination of paths.
const MAX_ORDERS: usize = 100_000;

/// Calls `f` on every permutation of `v[k..]`.
fn permute(v: &mut Vec<usize>, k: usize, f: &mut impl FnMut(&[usize])) {
    if k == v.len() {
        return f(v);
    }
    for i in k..v.len() {
        v.swap(k, i);
        permute(v, k + 1, f);
        v.swap(k, i);
    }
}
