//! The value domains of group functions and their fixpoint.

use super::*;

/// The work-items of the scope instance a group function of thread `t`
/// exchanges values with.
pub(super) fn group_size(program: &Program, t: &Thread, ins: &Instruction) -> usize {
    let OpKind::ControlBarrier {
        execution_scope, ..
    } = ins.kind
    else {
        return 1;
    };
    let me = program
        .threads
        .iter()
        .position(|x| std::ptr::eq(x, t))
        .unwrap_or(0);
    (0..program.threads.len())
        .filter(|&u| crate::engine::instances::thread_in_instance(program, u, execution_scope, me))
        .count()
}

/// The value domain a read or group function result ranges over: its
/// location's, or (a group function) the domain of its static instance,
/// after the locations'.
pub(super) fn domain_slot(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) => match (&i.group, &i.kind) {
            (Some(_), OpKind::ControlBarrier { instance, .. }) => {
                Some(program.locations.len() + *instance as usize)
            }
            _ => program.location_of(i),
        },
        _ => None,
    }
}

/// The number of group-function domains: one per control barrier instance
/// number below the largest a group function has.
pub(super) fn group_slots(program: &Program) -> usize {
    program
        .threads
        .iter()
        .flat_map(|t| t.instructions())
        .filter_map(|i| match (&i.group, &i.kind) {
            (Some(_), OpKind::ControlBarrier { instance, .. }) => Some(*instance as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Executes a group function: an event whose result, like a read's value,
/// stays symbolic until something needs it (then it ranges over the
/// instance's domain); the skeleton computes it exactly from the values
/// the work-items contribute and drops the combinations of paths whose
/// concrete results disagree (`crate::engine::barrier::group_results`).
pub(super) fn step_group(s: &mut State, ins: &Instruction, values: BarrierValues) {
    let index = s.events.len();
    let prov = ins
        .operand
        .as_ref()
        .map(|op| reg_prov(s, op))
        .unwrap_or_default();
    if let Some(dest) = &ins.dest {
        s.regs.insert(dest.clone(), RegValue::Read(index));
        s.prov.insert(dest.clone(), Prov::new());
        s.from_memory.insert(dest.clone());
    }
    s.events.push(PathEvent {
        stmt: s.pc,
        read: Some(ReadValue::Symbolic),
        write: None,
        write_prov: Some(prov),
        writes: false,
        barrier: values,
        derived: None,
    });
}

/// Adds to the group-function domains (after the `nloc` location domains)
/// every result a group function can have, given the values each thread's
/// paths contribute to it: for a reduction or scan, the operation over any
/// subset of the threads, one value each (a superset of the results:
/// combinations of paths whose results disagree are dropped later); for a
/// broadcast any contributed value; for any/all 0 and 1. Returns whether a
/// domain grew.
pub(super) fn group_domains(
    program: &Program,
    all: &[ThreadPaths],
    nloc: usize,
    domain: &mut Domains,
) -> Result<bool, ExecError> {
    use crate::ir::GroupOp;
    // instance -> (ops, per thread: value -> provenance)
    type Ops = Vec<(GroupOp, Option<u8>)>;
    let mut at: BTreeMap<usize, (Ops, BTreeMap<usize, ValueSet>)> = BTreeMap::new();
    for (ti, (t, tp)) in program.threads.iter().zip(all).enumerate() {
        for p in &tp.paths {
            for e in &p.events {
                let Stmt::Op(i) = &t.code[e.stmt] else {
                    continue;
                };
                let (Some(g), OpKind::ControlBarrier { instance, .. }, Some(v)) =
                    (&i.group, &i.kind, e.barrier.contribution)
                else {
                    continue;
                };
                let entry = at.entry(*instance as usize).or_default();
                if !entry.0.contains(&(g.op, g.width)) {
                    entry.0.push((g.op, g.width));
                }
                let prov = e.write_prov.clone().unwrap_or_default();
                merge_value(entry.1.entry(ti).or_default(), v, &prov);
            }
        }
    }
    let mut changed = false;
    for (k, (ops, per_thread)) in at {
        let mut results: BTreeMap<i64, Prov> = BTreeMap::new();
        for (op, width) in ops {
            match op {
                GroupOp::Any | GroupOp::All | GroupOp::Elect | GroupOp::AllEqual => {
                    merge_value(&mut results, 0, &Prov::new());
                    merge_value(&mut results, 1, &Prov::new());
                }
                GroupOp::Ballot(c) => {
                    // Each invocation's bit, set or not: every mask of
                    // the invocations of its 32-bit component.
                    let mut masks: BTreeMap<i64, Prov> = BTreeMap::from([(0, Prov::new())]);
                    for (&ti, vs) in &per_thread {
                        let bit = group_bit(program, ti, c);
                        if bit == 0 || !vs.keys().any(|&v| v != 0) {
                            continue;
                        }
                        let prov = vs.iter().filter(|(v, _)| **v != 0).map(|(_, p)| p);
                        let prov = prov.fold(None::<Prov>, |acc, p| {
                            Some(acc.map_or_else(|| p.clone(), |a| prov_min(&a, p)))
                        });
                        let prov = prov.unwrap_or_default();
                        let mut next = masks.clone();
                        for (m, pm) in &masks {
                            merge_value(
                                &mut next,
                                i64::from((*m as i32) | bit),
                                &prov_max(pm, &prov),
                            );
                        }
                        if next.len() > MAX_GROUP_VALUES {
                            return Err(ExecError::limit(
                                LimitKind::ValueDomains,
                                format!(
                                    "a ballot has more than {MAX_GROUP_VALUES} possible results: use a smaller subgroup"
                                ),
                            ));
                        }
                        masks = next;
                    }
                    for (v, p) in &masks {
                        merge_value(&mut results, *v, p);
                    }
                }
                GroupOp::Broadcast | GroupOp::BroadcastFirst | GroupOp::Lane(_) => {
                    for vs in per_thread.values() {
                        for (v, p) in vs {
                            merge_value(&mut results, *v, p);
                        }
                    }
                }
                GroupOp::Reduce(a)
                | GroupOp::ScanInclusive(a)
                | GroupOp::ScanExclusive(a)
                | GroupOp::Clustered(a, _) => {
                    let mut acc: BTreeMap<i64, Prov> =
                        BTreeMap::from([(a.identity_at(width), Prov::new())]);
                    for vs in per_thread.values() {
                        let mut next = acc.clone();
                        for (x, px) in &acc {
                            for (v, pv) in vs {
                                merge_value(
                                    &mut next,
                                    a.apply_at(*x, *v, width),
                                    &prov_max(px, pv),
                                );
                            }
                        }
                        if next.len() > MAX_GROUP_VALUES {
                            return Err(ExecError::limit(
                                LimitKind::ValueDomains,
                                format!(
                                    "a group function has more than {MAX_GROUP_VALUES} possible results: lower --unroll"
                                ),
                            ));
                        }
                        acc = next;
                    }
                    for (v, p) in &acc {
                        merge_value(&mut results, *v, p);
                    }
                }
            }
        }
        for (v, p) in &results {
            changed |= merge_value(&mut domain[nloc + k], *v, p);
        }
    }
    Ok(changed)
}

/// The bit thread `t` sets in component `c` of a ballot: `1 << k` for its
/// local id `32c + k` in its subgroup (0 when its id is in another
/// component).
pub(super) fn group_bit(program: &Program, t: usize, c: u8) -> i32 {
    let me = (0..t)
        .filter(|&u| {
            crate::engine::instances::thread_in_instance(program, u, crate::ir::Scope::Subgroup, t)
        })
        .count();
    match me.checked_sub(32 * usize::from(c)) {
        Some(k) if k < 32 => 1i32 << k,
        _ => 0,
    }
}

/// Values with their provenance (one location's or group function's domain).
pub(super) type ValueSet = BTreeMap<i64, Prov>;

/// The most results one group function's domain may hold.
pub(super) const MAX_GROUP_VALUES: usize = 4096;

/// Adds `v` with provenance `prov` to a domain (the componentwise minimum
/// with the provenance it has); returns whether the domain changed.
pub(super) fn merge_value(d: &mut BTreeMap<i64, Prov>, v: i64, prov: &Prov) -> bool {
    match d.get_mut(&v) {
        None => {
            d.insert(v, prov.clone());
            true
        }
        Some(old) => {
            // (zip: the minimum with an empty, all-zero, vector is empty)
            let merged: Prov = old.iter().zip(prov).map(|(a, b)| *a.min(b)).collect();
            if merged != *old {
                *old = merged;
                true
            } else {
                false
            }
        }
    }
}
