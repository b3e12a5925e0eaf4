//! Counters: locations whose every write is an atomic add (or subtract) of
//! one constant, made by instructions outside every loop: the dynamic work
//! distribution of real shaders (`tile = atomicAdd(counter, 1)`).
//!
//! The value domain of such a location holds every value the increments
//! reach (with `n` increments of `c` from `i0`: `i0`, `i0 + c`, ...,
//! `i0 + n*c`), and the largest is a value the location holds at the end.
//! But no increment reads it: a value written by an increment is the value
//! it read plus `c`, and the value it read was written by another increment
//! or is the initial one, so the value an increment reads is `i0 + k*c`
//! where `k` counts a chain of distinct increments other than itself
//! (distinct: a chain meeting itself again would add `c` a number of times
//! that is a multiple of the width's modulus, which `n*|c|` below the
//! modulus rules out). At most `n - 1` of them: an increment reads one of
//! `i0, ..., i0 + (n-1)*c`. This holds of every candidate execution (a
//! read reads the value of the write it reads from), bounded or not: each
//! instruction outside every loop runs at most once per thread (running
//! it twice takes a backward jump over it), so `n` is the number of
//! increment instructions of all threads. The paths then never fix an
//! increment's read to the top value, which no execution has: a tile
//! index one past the last workgroup, whose look-back loop would only be
//! cut by the unrolling bound.
//!
//! Which writes count: those the walk over the thread's paths made (on any
//! path, or on a state it abandoned) and those a thread running on past
//! the bound could make (statements reachable from where the bound cut a
//! path). A lowered shader holds stores it never runs (a dynamic index
//! becomes one store per cell, each behind a test of the index), so the
//! counters are found from a first walk of the paths, and the paths are
//! walked again with them ([`super::explore`]).
//!
//! Written here because it is a fact about vkmm's own program
//! representation, which no crate knows.

use super::path::ThreadPaths;
use crate::ir::{Operand, Program, RmwOp, Stmt, Thread};
use std::collections::{BTreeSet, HashMap};

/// A location's increments so far: their constant, width and number (`None`
/// before the first).
type Increments = Option<(i64, Option<u8>, u64)>;

/// Per location: the values an increment may read, for the counters; `None`
/// for every other location.
#[derive(Debug, Default)]
pub(super) struct Counters {
    reads: Vec<Option<Vec<i64>>>,
}

impl Counters {
    /// No location is a counter.
    pub(super) fn none(program: &Program) -> Counters {
        Counters {
            reads: vec![None; program.locations.len()],
        }
    }

    /// Whether some location is a counter.
    pub(super) fn any(&self) -> bool {
        self.reads.iter().any(Option::is_some)
    }

    /// The counters of `program` whose threads' walk gave `all` (none when
    /// it has host operations, byte or cooperative-matrix accesses, which
    /// write memory other ways).
    pub(super) fn of(program: &Program, all: &[ThreadPaths]) -> Counters {
        let nloc = program.locations.len();
        let none = Counters::none(program);
        let other_writers = !program.host.is_empty()
            || program
                .threads
                .iter()
                .flat_map(|t| t.instructions())
                .any(|i| i.bytes.is_some() || i.coop.is_some());
        if other_writers {
            return none;
        }
        // Per location: its increments' constant, width and number, or
        // `None` once some write is anything else.
        let mut seen: Vec<Option<Increments>> = vec![Some(None); nloc];
        for (t, tp) in program.threads.iter().zip(all) {
            let in_loop = in_loop(t);
            for i in runs(t, tp) {
                let Stmt::Op(ins) = &t.code[i] else { continue };
                if !ins.is_write() {
                    continue;
                }
                let Some(l) = program.location_of(ins) else {
                    continue;
                };
                let step = match (ins.rmw_op, &ins.operand) {
                    (RmwOp::Add, Some(Operand::Const(c))) => Some(*c),
                    (RmwOp::Sub, Some(Operand::Const(c))) => c.checked_neg(),
                    _ => None,
                };
                let increment = ins.is_read()
                    && ins.atomic
                    && ins.write_value.is_none()
                    && ins.group.is_none()
                    && !in_loop[i];
                let entry = &mut seen[l];
                *entry = match (entry.take(), step.filter(|&c| c != 0 && increment)) {
                    (Some(None), Some(c)) => Some(Some((c, ins.width, 1))),
                    (Some(Some((c0, w0, n))), Some(c)) if c == c0 && ins.width == w0 => {
                        Some(Some((c0, w0, n + 1)))
                    }
                    _ => None,
                };
            }
        }
        let reads = seen
            .into_iter()
            .enumerate()
            .map(|(l, entry)| {
                let (c, width, n) = entry.flatten()?;
                if program.is_undefined(l) {
                    return None;
                }
                // `n * |c|` below half the modulus: no chain of increments
                // comes back to the value it started from.
                let bits = u32::from(width.unwrap_or(64)).clamp(1, 64);
                let span = u128::from(n) * u128::from(c.unsigned_abs());
                if span >= 1u128 << (bits - 1) {
                    return None;
                }
                let mut v = program.initial_value(l);
                let mut values = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    values.push(v);
                    v = RmwOp::Add.apply_at(v, c, width);
                }
                Some(values)
            })
            .collect();
        Counters { reads }
    }

    /// Whether an increment of location `l` may read `v`.
    pub(super) fn may_read(&self, l: usize, v: i64) -> bool {
        match self.reads.get(l) {
            Some(Some(values)) => values.contains(&v),
            _ => true,
        }
    }
}

/// Per statement of `t`: whether it lies in a loop, i.e. between the target
/// of a backward jump and the jump (a statement runs twice only after a
/// backward jump over it).
fn in_loop(t: &Thread) -> Vec<bool> {
    let labels: HashMap<&str, usize> = super::spin::label_map(t);
    let mut depth = vec![0i64; t.code.len() + 1];
    for (j, stmt) in t.code.iter().enumerate() {
        let (Stmt::Goto { label, .. } | Stmt::Branch { label, .. }) = stmt else {
            continue;
        };
        if let Some(&head) = labels.get(label.as_str())
            && head <= j
        {
            depth[head] += 1;
            depth[j + 1] -= 1;
        }
    }
    let mut open = 0;
    depth
        .iter()
        .take(t.code.len())
        .map(|d| {
            open += d;
            open > 0
        })
        .collect()
}

/// The statements of `t` holding writes that may run: those the walk `tp`
/// made, and every statement reachable from where the bound cut a path.
fn runs(t: &Thread, tp: &ThreadPaths) -> BTreeSet<usize> {
    let mut out = tp.write_stmts.clone();
    if tp.cut_points.is_empty() {
        return out;
    }
    let labels = super::spin::label_map(t);
    let mut seen = vec![false; t.code.len() + 1];
    let mut stack: Vec<usize> = tp.cut_points.iter().copied().collect();
    while let Some(k) = stack.pop() {
        if k >= t.code.len() || std::mem::replace(&mut seen[k], true) {
            continue;
        }
        out.insert(k);
        stack.extend(super::spin::successors(t, &labels, k).into_iter().flatten());
    }
    out
}
