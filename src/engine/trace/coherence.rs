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
//! How often another thread can write the location: the sum of its write
//! statements' counts. A statement outside every loop runs at most once
//! (running it again takes a backward jump over it). A compare-exchange
//! writes only when it succeeds; it counts once when, from the statement
//! on with its value read known to equal its comparator, no backward jump
//! over it can be taken (`success_leaves`: constants and that equality
//! propagated through the code, a branch they decide followed one way).
//! Any other write in a loop counts as often as a walk of the thread's
//! states can run it (`write_counts`): every run of the thread follows
//! a path of the graph of statements and what is known of the registers
//! there, so a compare-exchange inside a loop over an array's cells,
//! whose success jumps back to the outer loop's head, counts once per
//! cell; a write on a cycle of that graph (a loop whose repeated
//! iterations write the location) has no bound, and the location is left
//! out.
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
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

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
        self.changes(program, t, events).is_none()
    }

    /// How often, in all, the events of a path of `t` change the value
    /// read at the locations the bounds cover (a read whose value differs
    /// from the one the thread's previous access there read or wrote, both
    /// known on the path); `None` when some location's changes pass its
    /// bound.
    fn changes(&self, program: &Program, t: &Thread, events: &[PathEvent]) -> Option<u64> {
        if self.locations.is_empty() {
            return Some(0);
        }
        // Per location: the value the thread's latest access there read or
        // wrote (`None`: unknown), and the changes counted so far.
        let mut last: HashMap<usize, (Option<i64>, u64)> = HashMap::new();
        let mut total = 0;
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
                total += 1;
                if entry.1 > bound {
                    return None;
                }
            }
            entry.0 = if e.writes { e.write } else { read };
        }
        Some(total)
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
    // The covered locations, and the write statements per thread no
    // simpler argument bounds: a write in a loop other than a
    // compare-exchange whose success leaves every loop around it.
    let mut covered_accesses: Vec<(usize, Vec<(usize, usize)>)> = accesses
        .into_iter()
        .filter(|(l, acc)| !program.is_undefined(*l) && covered(program, profile, acc, &op))
        .collect();
    covered_accesses.sort_unstable_by_key(|(l, _)| *l);
    let mut once: HashSet<(usize, usize)> = HashSet::new();
    let mut walked: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); program.threads.len()];
    for (_, acc) in &covered_accesses {
        for &(ti, k) in acc {
            let i = op((ti, k));
            if !i.is_write() {
                continue;
            }
            if !loops[ti][k]
                || (i.rmw_op == RmwOp::CompareExchange
                    && i.expected.is_some()
                    && success_leaves(&program.threads[ti], k))
            {
                once.insert((ti, k));
            } else {
                walked[ti].insert(k);
            }
        }
    }
    // Those statements' counts, from a walk of their thread's states.
    let counts: Vec<HashMap<usize, u64>> = program
        .threads
        .iter()
        .zip(&walked)
        .map(|(t, w)| {
            if w.is_empty() {
                HashMap::new()
            } else {
                write_counts(t, w).unwrap_or_default()
            }
        })
        .collect();
    let mut locations: HashMap<usize, Writes> = HashMap::new();
    for (l, acc) in covered_accesses {
        let mut w = Writes::default();
        for &(ti, k) in &acc {
            let i = op((ti, k));
            if !i.is_write() || w.unbounded.contains(&ti) {
                continue;
            }
            let n = if once.contains(&(ti, k)) {
                Some(1)
            } else {
                counts[ti].get(&k).copied()
            };
            if let Some(n) = n {
                w.sum += n;
                *w.per_thread.entry(ti).or_default() += n;
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

/// What a walk of the code knows of the registers at a statement: their
/// constant values, and the registers known to hold the value the latest
/// successful compare-exchange read (which equals its comparator).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Known<'t> {
    consts: BTreeMap<&'t str, i64>,
    same: BTreeSet<&'t str>,
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

    /// What is known after the compare-exchange `cas` succeeds: its
    /// destination holds the value it read, which equals its comparator.
    /// What was known to hold an earlier success's value is forgotten (the
    /// two values may differ).
    fn succeeded(&self, cas: &'t Instruction) -> Known<'t> {
        let mut known = self.clone();
        let expected = cas.expected.as_ref().map(|e| known.of(e));
        known.same.clear();
        let Some(d) = cas.dest.as_deref() else {
            return known;
        };
        match (cas.expected.as_ref(), expected) {
            (Some(_), Some(Value::Const(c))) => known.set(d, Value::Const(c)),
            (Some(Operand::Reg(e)), Some(_)) => {
                known.set(d, Value::Same);
                if e != d {
                    known.set(e, Value::Same);
                }
            }
            _ => known.set(d, Value::Unknown),
        }
        known
    }
}

/// A register's value as a walk of the code knows it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Const(i64),
    /// The value the latest successful compare-exchange read.
    Same,
    Unknown,
}

/// The statements the code can go to from the label, assignment or jump
/// at `pc` with `known`, and what is known there: an assignment of known
/// operands is known, any other forgets its destination; a branch whose
/// operands are both known goes one way, any other both ways. `None` for
/// an instruction (the caller steps it) or a jump to a label the thread
/// lacks.
fn successors<'t>(
    t: &'t Thread,
    labels: &super::spin::Labels,
    pc: usize,
    known: Known<'t>,
) -> Option<Vec<(usize, Known<'t>)>> {
    let jump = |label: &str| labels.get(label).copied();
    Some(match &t.code[pc] {
        Stmt::Label { .. } => vec![(pc + 1, known)],
        Stmt::Op(_) => return None,
        Stmt::Assign { dest, op, a, b, .. } => {
            let v = match (known.of(a), known.of(b)) {
                (Value::Const(x), Value::Const(y)) => Value::Const(op.apply(x, y)),
                (Value::Same, Value::Const(0))
                    if matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Or | ArithOp::Xor) =>
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
            vec![(pc + 1, known)]
        }
        Stmt::Goto { label, .. } => vec![(jump(label)?, known)],
        Stmt::Branch {
            cmp, a, b, label, ..
        } => {
            let to = jump(label)?;
            let taken = match (known.of(a), known.of(b)) {
                (Value::Const(x), Value::Const(y)) => Some(cmp.holds(x, y)),
                (Value::Same, Value::Same) => Some(matches!(cmp, Cmp::Eq | Cmp::Le | Cmp::Ge)),
                _ => None,
            };
            let mut out = Vec::with_capacity(2);
            if taken != Some(false) {
                out.push((to, known.clone()));
            }
            if taken != Some(true) {
                out.push((pc + 1, known));
            }
            out
        }
    })
}

/// Whether the compare-exchange at statement `k` of `t`, having succeeded
/// (its value read equals its comparator), can take no backward jump to
/// `k` or before it: walking the code from `k + 1` with what is then known
/// (the comparator's register or constant, and the destination, hold the
/// value read; [`successors`]), what the walk knows at a statement met
/// from two sides being what both know. False when some jump the walk
/// takes goes to `k` or before, or past [`MAX_STEPS`].
pub(super) fn success_leaves(t: &Thread, k: usize) -> bool {
    let Stmt::Op(cas) = &t.code[k] else {
        return false;
    };
    let labels = super::spin::label_map(t);
    let mut seen: HashMap<usize, Known> = HashMap::new();
    let mut work = vec![(k + 1, Known::default().succeeded(cas))];
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
        if let Stmt::Op(i) = &t.code[pc] {
            let mut known = known;
            if let Some(d) = i.dest.as_deref() {
                known.set(d, Value::Unknown);
            }
            work.push((pc + 1, known));
            continue;
        }
        let Some(next) = successors(t, &labels, pc, known) else {
            return false;
        };
        for (to, known) in next {
            if to <= k {
                return false;
            }
            work.push((to, known));
        }
    }
    true
}

/// The most states [`write_counts`] visits in one thread before it gives
/// up (each write in a loop then counts as unbounded).
const MAX_STATES: usize = 20_000;

/// Per statement of `writes` (write instructions of `t`), the most times
/// one run of the thread, finite or not, can write with it; `None` when
/// the walk passes [`MAX_STATES`] or jumps to a missing label. Statements
/// absent from the answer have no bound.
///
/// The walk goes from the thread's first statement knowing nothing of its
/// registers, and keeps each pair of a statement and what is known there
/// apart (no meeting), so a counter of a loop over a constant count stays
/// known through each of its iterations: its states and their steps are
/// a graph every run of the thread follows (a value read from memory is
/// unknown, a branch on it goes both ways). A compare-exchange has two
/// steps: it fails (writes nothing, its destination unknown) or succeeds
/// (writes; its destination and comparator hold the value read,
/// [`Known::succeeded`]). Any other write instruction writes each time.
/// A statement's count is then the most of its writing steps on a path
/// of the graph: none when a cycle holds one, else the longest path over
/// the graph's strongly connected components.
fn write_counts<'t>(t: &'t Thread, writes: &BTreeSet<usize>) -> Option<HashMap<usize, u64>> {
    let labels = super::spin::label_map(t);
    let mut index: HashMap<(usize, Known<'t>), usize> = HashMap::new();
    let mut states: Vec<(usize, Known<'t>)> = Vec::new();
    // Per state: its steps, each to a state with the write statement it
    // runs (if it writes).
    let mut steps: Vec<Vec<(usize, Option<usize>)>> = Vec::new();
    let mut intern = |s: (usize, Known<'t>),
                      states: &mut Vec<(usize, Known<'t>)>,
                      steps: &mut Vec<Vec<(usize, Option<usize>)>>| {
        *index.entry(s.clone()).or_insert_with(|| {
            states.push(s);
            steps.push(Vec::new());
            states.len() - 1
        })
    };
    if t.code.is_empty() {
        return Some(HashMap::new());
    }
    intern((0, Known::default()), &mut states, &mut steps);
    let mut u = 0;
    while u < states.len() {
        if states.len() > MAX_STATES {
            return None;
        }
        let (pc, known) = states[u].clone();
        let next: Vec<(usize, Known, Option<usize>)> = match &t.code[pc] {
            Stmt::Op(i) => {
                let mut failed = known.clone();
                if let Some(d) = i.dest.as_deref() {
                    failed.set(d, Value::Unknown);
                }
                let writes_here = i.is_write() && writes.contains(&pc);
                if i.rmw_op == RmwOp::CompareExchange && i.expected.is_some() && i.is_write() {
                    let won = known.succeeded(i);
                    vec![
                        (pc + 1, failed, None),
                        (pc + 1, won, writes_here.then_some(pc)),
                    ]
                } else {
                    vec![(pc + 1, failed, writes_here.then_some(pc))]
                }
            }
            _ => successors(t, &labels, pc, known)?
                .into_iter()
                .map(|(to, k)| (to, k, None))
                .collect(),
        };
        for (to, k, w) in next {
            // Past the last statement the thread has ended.
            if to < t.code.len() {
                let v = intern((to, k), &mut states, &mut steps);
                steps[u].push((v, w));
            }
        }
        u += 1;
    }
    let component = components(&steps);
    let count = component.iter().max().map_or(0, |c| c + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (s, &c) in component.iter().enumerate() {
        members[c].push(s);
    }
    let mut out = HashMap::new();
    'stmt: for &w in writes {
        // Components come numbered in reverse topological order (a step
        // leaves a component only for a lower-numbered one), so each
        // component's longest path is known before those reaching it.
        let mut longest = vec![0u64; count];
        for (c, group) in members.iter().enumerate() {
            let mut best = 0;
            for &s in group {
                for &(v, at) in &steps[s] {
                    let weight = u64::from(at == Some(w));
                    if component[v] == c {
                        if weight > 0 {
                            continue 'stmt;
                        }
                    } else {
                        best = best.max(longest[component[v]] + weight);
                    }
                }
            }
            longest[c] = best;
        }
        out.insert(w, longest[component[0]]);
    }
    Some(out)
}

/// The strongly connected components of the graph `steps` (Tarjan's
/// algorithm, iterative): each state's component, numbered so that a step
/// between two components goes from a higher number to a lower one.
fn components(steps: &[Vec<(usize, Option<usize>)>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = steps.len();
    let mut order = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![NONE; n];
    let mut stack = Vec::new();
    let (mut next_order, mut next_component) = (0, 0);
    for root in 0..n {
        if order[root] != NONE {
            continue;
        }
        // Each frame: a state and how many of its steps are looked at.
        let mut frames = vec![(root, 0usize)];
        order[root] = next_order;
        low[root] = next_order;
        next_order += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (u, ref mut i)) = frames.last_mut() {
            if let Some(&(v, _)) = steps[u].get(*i) {
                *i += 1;
                if order[v] == NONE {
                    order[v] = next_order;
                    low[v] = next_order;
                    next_order += 1;
                    stack.push(v);
                    on_stack[v] = true;
                    frames.push((v, 0));
                } else if on_stack[v] {
                    low[u] = low[u].min(order[v]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent] = low[parent].min(low[u]);
            }
            if low[u] == order[u] {
                while let Some(v) = stack.pop() {
                    on_stack[v] = false;
                    component[v] = next_component;
                    if v == u {
                        break;
                    }
                }
                next_component += 1;
            }
        }
    }
    component
}
