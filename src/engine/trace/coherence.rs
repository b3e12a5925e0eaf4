//! Coherence bounds on a thread's reads: how often the reads of one
//! location in one thread can change value, and the paths the unrolling
//! bound cut that change it more often ([`crate::engine::trace::PathPlan::coherence_cuts`]).
//!
//! The fact, declared by the model as `po-coherence`
//! ([`crate::model::SearchProfile::po_coherence`]): in each thread, the
//! accesses to one location, in program order, are in coherence order.
//! With `X` the thread's access to the location just before the read `Y`,
//! and `p` the write `X` is (a store, or a read-modify-write that wrote)
//! or reads from, `Y` reads `p` or a write after `p` in coherence
//! (read-read coherence, "the value computed by B shall either equal the
//! value stored by X, or be the value stored by a side effect Y on M,
//! where Y follows X in the modification order of M", and write-read
//! coherence; the Vulkan and OpenCL model files argue it from their
//! axioms). So:
//!
//! - when `Y` reads a value other than the one `X` read or wrote, it reads
//!   a write strictly after `p` in coherence (the initial value comes
//!   before every write: a read of it after `X` has the value `X` had);
//! - that write is another thread's: the thread's own writes are `p` or
//!   before it (write-write coherence and the same cases one access
//!   earlier), or after `Y` in program order (which `Y` cannot read);
//! - the write each access stands at never goes back along program order,
//!   so the reads at which the value changes read distinct writes of the
//!   other threads, in coherence order.
//!
//! A path on which the reads of a location change value (compared with
//! the thread's previous access there, both values known on the path)
//! more often than the other threads can write the location is then the
//! prefix of no execution, finite or not. Such a path the bound cut is
//! dropped, not counted as cut, and the answer stays complete: a
//! compare-exchange loop fails only when it reads a value other than the
//! one it last saw, so it fails at most as often as the others write.
//!
//! How often another thread can write the location: each statement
//! writing it counts once, which holds when no execution of the thread
//! runs the statement twice. A statement outside every loop runs at most
//! once (running it again takes a backward jump over it). A
//! compare-exchange in a loop writes only when it succeeds; it counts once
//! when, from the statement on with its value read known to equal its
//! comparator, no backward jump over it can be taken (`success_leaves`:
//! constants and that equality propagated through the code, a branch they
//! decide followed one way). Any other write in a loop leaves the location
//! out: a loop whose repeated iterations write the location can write it
//! without bound.
//!
//! Which locations: those of the declared storage classes, every access of
//! the program to them a memory access the model orders (no host
//! operations, byte-range or cooperative-matrix accesses anywhere, which
//! write memory other ways), no two accesses of one thread unsequenced
//! operands of one C expression, a defined initial value, and, for
//! `po-coherence atomic` (Vulkan: "all atomic writes that are
//! mutually-ordered with A occur in an order known as A's scoped
//! modification order", and only those), every access an atomic through
//! one reference, each pair of threads' accesses in each other's scope
//! instance, so that the scoped modification order of the location is
//! one total order.
//!
//! Written here because it is a fact about vkmm's own program
//! representation, which no crate knows.

use super::path::{PathEvent, ReadValue};
use crate::ir::{ArithOp, Cmp, Instruction, Operand, Program, RmwOp, Stmt, Thread};
use crate::model::SearchProfile;
use std::collections::{HashMap, HashSet};

/// Per location, how many times a thread's reads there can change value:
/// the writes the other threads can make. Locations the fact does not
/// cover are absent.
#[derive(Clone, Debug, Default)]
pub struct Bounds {
    /// The thread the bounds are of.
    thread: usize,
    /// The writes each covered location can take, shared by every thread.
    locations: std::sync::Arc<HashMap<usize, Writes>>,
}

/// The writes of one location: the sum of the threads' bounded counts,
/// those counts, and the threads whose writes have no bound.
#[derive(Clone, Debug, Default)]
struct Writes {
    sum: u64,
    per_thread: HashMap<usize, u64>,
    unbounded: Vec<usize>,
}

/// The most steps [`success_leaves`] takes before it gives up (the write
/// then counts as unbounded).
const MAX_STEPS: usize = 100_000;

impl Bounds {
    /// The bound of location `l`, if the fact covers it.
    pub fn of_location(&self, l: usize) -> Option<u64> {
        let w = self.locations.get(&l)?;
        match w.unbounded.as_slice() {
            [] => Some(w.sum - w.per_thread.get(&self.thread).copied().unwrap_or(0)),
            [u] if *u == self.thread => Some(w.sum),
            _ => None,
        }
    }

    /// Whether the events of a path of `t` change the value read at some
    /// location more often than its bound allows: no execution has them.
    pub(super) fn exceeded(&self, program: &Program, t: &Thread, events: &[PathEvent]) -> bool {
        if self.locations.is_empty() {
            return false;
        }
        // Per location: the value the thread's latest access there read or
        // wrote (`None`: unknown), and the changes counted so far.
        let mut last: HashMap<usize, (Option<i64>, u64)> = HashMap::new();
        for e in events {
            let Stmt::Op(ins) = &t.code[e.stmt] else {
                continue;
            };
            let Some(l) = program.location_of(ins) else {
                continue;
            };
            let Some(bound) = self.of_location(l) else {
                continue;
            };
            let read = match e.read {
                Some(ReadValue::Concrete(v)) if ins.is_read() => Some(v),
                _ => None,
            };
            let entry = last.entry(l).or_insert((None, 0));
            if let (Some(before), Some(v)) = (entry.0, read)
                && before != v
            {
                entry.1 += 1;
                if entry.1 > bound {
                    return true;
                }
            }
            entry.0 = if e.writes { e.write } else { read };
        }
        false
    }
}

/// The bounds of each thread of `program` under `profile` (none for a
/// model without `po-coherence`, or with `on` false).
pub fn bounds(program: &Program, profile: &SearchProfile, on: bool) -> Vec<Bounds> {
    let none = vec![Bounds::default(); program.threads.len()];
    if !on || profile.po_coherence == 0 {
        return none;
    }
    if program.has_other_writers() {
        return none;
    }
    // Per location: its accesses (thread, statement).
    let mut accesses: HashMap<usize, Vec<(usize, usize)>> = HashMap::new();
    for (ti, t) in program.threads.iter().enumerate() {
        for (k, st) in t.code.iter().enumerate() {
            if let Stmt::Op(i) = st
                && i.is_memory_access()
                && let Some(l) = program.location_of(i)
            {
                accesses.entry(l).or_default().push((ti, k));
            }
        }
    }
    let op = |(ti, k): (usize, usize)| match &program.threads[ti].code[k] {
        Stmt::Op(i) => i,
        _ => unreachable!("an access is an instruction"),
    };
    let loops: Vec<Vec<bool>> = program
        .threads
        .iter()
        .map(super::counters::in_loop)
        .collect();
    let mut locations: HashMap<usize, Writes> = HashMap::new();
    for (l, acc) in accesses {
        if program.is_undefined(l) || !covered(program, profile, &acc, &op) {
            continue;
        }
        let mut w = Writes::default();
        for &(ti, k) in &acc {
            let i = op((ti, k));
            if !i.is_write() || w.unbounded.contains(&ti) {
                continue;
            }
            let once = !loops[ti][k]
                || (i.rmw_op == RmwOp::CompareExchange
                    && i.expected.is_some()
                    && success_leaves(&program.threads[ti], k));
            if once {
                w.sum += 1;
                *w.per_thread.entry(ti).or_default() += 1;
            } else {
                w.sum -= w.per_thread.remove(&ti).unwrap_or(0);
                w.unbounded.push(ti);
            }
        }
        // Two threads without a bound: no thread's reads have one.
        if w.unbounded.len() < 2 {
            locations.insert(l, w);
        }
    }
    let locations = std::sync::Arc::new(locations);
    (0..program.threads.len())
        .map(|thread| Bounds {
            thread,
            locations: locations.clone(),
        })
        .collect()
}

/// Whether the fact covers a location with accesses `acc`: each in a
/// declared storage class, no two of one thread unsequenced, and under
/// `po-coherence atomic` each an atomic through one reference, every two
/// of different threads each in the other's scope instance.
fn covered<'p>(
    program: &'p Program,
    profile: &SearchProfile,
    acc: &[(usize, usize)],
    op: &dyn Fn((usize, usize)) -> &'p Instruction,
) -> bool {
    let classes = profile.po_coherence;
    let in_class = |i: &Instruction| {
        let c = i.storage_class.map_or(0, |c| c.0);
        c < 64 && classes & (1 << c) != 0
    };
    if !acc.iter().all(|&a| in_class(op(a))) {
        return false;
    }
    // Per thread, its accesses: no two of them unsequenced operands.
    let mut by_thread: HashMap<usize, Vec<&Instruction>> = HashMap::new();
    for &(ti, k) in acc {
        by_thread.entry(ti).or_default().push(op((ti, k)));
    }
    let unsequenced = by_thread.values().any(|own| {
        own.iter().enumerate().any(|(n, a)| {
            !a.operand_of.is_empty()
                && own[n + 1..]
                    .iter()
                    .any(|b| (a.is_write() || b.is_write()) && super::own::may_be_unsequenced(a, b))
        })
    });
    if unsequenced {
        return false;
    }
    if !profile.po_coherence_atomic {
        return true;
    }
    let first = op(acc[0]).reference;
    if !acc
        .iter()
        .all(|&a| op(a).atomic && op(a).reference == first)
    {
        return false;
    }
    // Each access's scope instance holds every thread with an access:
    // the instances of a scope part the threads, so it is enough that
    // every thread shares one instance of each scope named.
    let threads: Vec<usize> = by_thread.keys().copied().collect();
    let mut scopes: Vec<crate::ir::Scope> = Vec::new();
    for &a in acc {
        match op(a).scope {
            Some(s) if !scopes.contains(&s) => scopes.push(s),
            Some(_) => {}
            None => return false,
        }
    }
    scopes.iter().all(|&s| {
        threads
            .iter()
            .all(|&t| crate::engine::instances::thread_in_instance(program, t, s, threads[0]))
    })
}

/// What [`success_leaves`] knows of the registers at a statement: their
/// constant values, and the registers known to hold the value the
/// compare-exchange read (which equals its comparator).
#[derive(Clone, Debug, Default, PartialEq)]
struct Known<'t> {
    consts: HashMap<&'t str, i64>,
    same: HashSet<&'t str>,
}

impl<'t> Known<'t> {
    fn of(&self, o: &'t Operand) -> Value {
        match o {
            Operand::Const(c) => Value::Const(*c),
            Operand::Reg(r) => match self.consts.get(r.as_str()) {
                Some(c) => Value::Const(*c),
                None if self.same.contains(r.as_str()) => Value::Same,
                None => Value::Unknown,
            },
        }
    }

    fn set(&mut self, r: &'t str, v: Value) {
        self.consts.remove(r);
        self.same.remove(r);
        match v {
            Value::Const(c) => {
                self.consts.insert(r, c);
            }
            Value::Same => {
                self.same.insert(r);
            }
            Value::Unknown => {}
        }
    }

    /// What both know.
    fn meet(&self, other: &Known<'t>) -> Known<'t> {
        Known {
            consts: self
                .consts
                .iter()
                .filter(|(r, c)| other.consts.get(*r) == Some(c))
                .map(|(r, c)| (*r, *c))
                .collect(),
            same: self.same.intersection(&other.same).copied().collect(),
        }
    }
}

/// A register's value as [`success_leaves`] knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Const(i64),
    /// The value the compare-exchange read.
    Same,
    Unknown,
}

/// Whether the compare-exchange at statement `k` of `t`, having succeeded
/// (its value read equals its comparator), can take no backward jump to
/// `k` or before it: walking the code from `k + 1` with what is then known
/// (the comparator's register or constant, and the destination, hold the
/// value read), a branch whose operands are both known goes one way, any
/// other both ways, an assignment of known operands is known, any other
/// write of a register forgets it. False when some jump the walk takes
/// goes to `k` or before, or past [`MAX_STEPS`].
pub(super) fn success_leaves(t: &Thread, k: usize) -> bool {
    let Stmt::Op(cas) = &t.code[k] else {
        return false;
    };
    let labels = super::spin::label_map(t);
    let mut start = Known::default();
    if let Some(d) = cas.dest.as_deref() {
        match cas.expected.as_ref() {
            Some(Operand::Const(c)) => start.set(d, Value::Const(*c)),
            Some(Operand::Reg(e)) => {
                start.set(d, Value::Same);
                if e != d {
                    start.set(e, Value::Same);
                }
            }
            None => {}
        }
    }
    let mut seen: HashMap<usize, Known> = HashMap::new();
    let mut work = vec![(k + 1, start)];
    let mut steps = 0;
    while let Some((pc, known)) = work.pop() {
        steps += 1;
        if steps > MAX_STEPS {
            return false;
        }
        if pc >= t.code.len() {
            continue;
        }
        let known = match seen.get(&pc) {
            Some(before) => {
                let met = before.meet(&known);
                if &met == before {
                    continue;
                }
                met
            }
            None => known,
        };
        seen.insert(pc, known.clone());
        let jump = |label: &str| labels.get(label).copied();
        match &t.code[pc] {
            Stmt::Label { .. } => work.push((pc + 1, known)),
            Stmt::Op(i) => {
                let mut known = known;
                if let Some(d) = i.dest.as_deref() {
                    known.set(d, Value::Unknown);
                }
                work.push((pc + 1, known));
            }
            Stmt::Assign { dest, op, a, b, .. } => {
                let v = match (known.of(a), known.of(b)) {
                    (Value::Const(x), Value::Const(y)) => Value::Const(op.apply(x, y)),
                    (Value::Same, Value::Const(0))
                        if matches!(
                            op,
                            ArithOp::Add | ArithOp::Sub | ArithOp::Or | ArithOp::Xor
                        ) =>
                    {
                        Value::Same
                    }
                    (Value::Const(0), Value::Same)
                        if matches!(op, ArithOp::Add | ArithOp::Or | ArithOp::Xor) =>
                    {
                        Value::Same
                    }
                    _ => Value::Unknown,
                };
                let mut known = known;
                known.set(dest, v);
                work.push((pc + 1, known));
            }
            Stmt::Goto { label, .. } => {
                let Some(to) = jump(label) else { return false };
                if to <= k {
                    return false;
                }
                work.push((to, known));
            }
            Stmt::Branch {
                cmp, a, b, label, ..
            } => {
                let Some(to) = jump(label) else { return false };
                let taken = match (known.of(a), known.of(b)) {
                    (Value::Const(x), Value::Const(y)) => Some(cmp.holds(x, y)),
                    (Value::Same, Value::Same) => Some(matches!(cmp, Cmp::Eq | Cmp::Le | Cmp::Ge)),
                    _ => None,
                };
                if taken != Some(false) {
                    if to <= k {
                        return false;
                    }
                    work.push((to, known.clone()));
                }
                if taken != Some(true) {
                    work.push((pc + 1, known));
                }
            }
        }
    }
    true
}
