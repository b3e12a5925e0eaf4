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
//! the bound could make: the statements reachable from where the bound cut
//! a path, following the branches the registers the path held there
//! decide ([`reach`]). A lowered shader holds stores it never runs (a
//! dynamic index becomes one store per cell, each behind a test of the
//! index), so the counters are found from a walk of the paths, and the
//! value domains are computed again with them (`explore`).
//!
//! Written here because it is a fact about vkmm's own program
//! representation, which no crate knows.

use super::budget::Budget;
use super::path::ThreadPaths;
use crate::engine::limits::ExecError;
use crate::ir::{Operand, Program, RmwOp, Stmt, Thread};
use std::collections::BTreeSet;

/// A location's increments so far: their constant, width and number (`None`
/// before the first).
type Increments = Option<(i64, Option<u8>, u64)>;

/// Per location: the values an increment may read, for the counters; `None`
/// for every other location.
#[derive(Debug, Default, PartialEq)]
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

    /// The counters of `program` whose threads' walk gave `all` (none when
    /// it has host operations, byte or cooperative-matrix accesses, which
    /// write memory other ways). The walks from the cut points read
    /// `budget` (a thread with many cut points and long code runs them
    /// for seconds): an error names the limit reached.
    pub(super) fn of(
        program: &Program,
        all: &[ThreadPaths],
        budget: &Budget,
    ) -> Result<Counters, ExecError> {
        let nloc = program.locations.len();
        let none = Counters::none(program);
        if program.has_other_writers() {
            return Ok(none);
        }
        // Per location: its increments' constant, width and number, or
        // `None` once some write is anything else.
        let mut seen: Vec<Option<Increments>> = vec![Some(None); nloc];
        for (t, tp) in program.threads.iter().zip(all) {
            let in_loop = in_loop(t);
            for i in runs(t, tp, budget)? {
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
        Ok(Counters { reads })
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
pub(super) fn in_loop(t: &Thread) -> Vec<bool> {
    let labels = super::spin::label_map(t);
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
/// made, and every statement a thread running on from where the bound cut
/// a path can reach ([`reach`]).
fn runs(t: &Thread, tp: &ThreadPaths, budget: &Budget) -> Result<BTreeSet<usize>, ExecError> {
    let mut out = tp.write_stmts.clone();
    if tp.cut_points.is_empty() {
        return Ok(out);
    }
    let labels = super::spin::label_map(t);
    let steering: Vec<String> = steering(t).into_iter().collect();
    for (pc, known) in &tp.cut_points {
        out.extend(reach(t, &labels, &steering, (*pc, known), budget)?);
    }
    Ok(out)
}

/// The registers of `t` that steer its branches: a branch's operands and,
/// through every assignment, the registers those are computed from
/// (whatever the statement order: a loop computes them from the registers
/// of the iteration before).
pub(super) fn steering(t: &Thread) -> BTreeSet<String> {
    fn reg(o: &Operand) -> Option<&str> {
        match o {
            Operand::Reg(r) => Some(r),
            Operand::Const(_) => None,
        }
    }
    let mut out: BTreeSet<String> = BTreeSet::new();
    for st in &t.code {
        if let Stmt::Branch { a, b, .. } = st {
            out.extend([a, b].into_iter().filter_map(reg).map(str::to_string));
        }
    }
    loop {
        let before = out.len();
        for st in &t.code {
            if let Stmt::Assign { dest, a, b, .. } = st
                && out.contains(dest)
            {
                for r in [a, b].into_iter().filter_map(reg) {
                    if !out.contains(r) {
                        out.insert(r.to_string());
                    }
                }
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// The most register values [`reach`] keeps (one per statement and
/// steering register); a larger thread is walked without them.
const MAX_REACH_CELLS: usize = 1 << 21;

/// The statements of `t` a thread may run from statement `pc` on, holding
/// there the values `known` of some `steering` registers (the rest
/// unknown): constant propagation over the code, a branch whose operands
/// are both known taking only the side they choose (as the executor does),
/// any other both sides. A register an instruction sets (a read, a group
/// function's result) is unknown after it; where two ways meet, a register
/// known the same on both stays known. Each register only loses its value,
/// so the walk ends. Each statement visited is a step of `budget`.
fn reach(
    t: &Thread,
    labels: &super::spin::Labels,
    steering: &[String],
    (pc, known): (usize, &[(String, i64)]),
    budget: &Budget,
) -> Result<BTreeSet<usize>, ExecError> {
    // Past the cap the registers are not followed: every statement
    // reachable counts.
    let follow = t.code.len().saturating_mul(steering.len()) <= MAX_REACH_CELLS;
    let steering = if follow { steering } else { &[] };
    let slot = |r: &str| steering.binary_search_by(|x| x.as_str().cmp(r)).ok();
    let value = |env: &[Option<i64>], o: &Operand| match o {
        Operand::Const(v) => Some(*v),
        Operand::Reg(r) => slot(r).and_then(|k| env[k]),
    };
    let mut start = vec![None; steering.len()];
    for (r, v) in known {
        if let Some(k) = slot(r) {
            start[k] = Some(*v);
        }
    }
    // Per statement: the registers' values on arriving there (`None`: not
    // reached yet).
    let mut at: Vec<Option<Vec<Option<i64>>>> = vec![None; t.code.len()];
    let mut work: Vec<(usize, Vec<Option<i64>>)> = vec![(pc, start)];
    let walking = || {
        format!(
            "following thread P{} past the unrolling bound to find its counters",
            t.id
        )
    };
    while let Some((k, env)) = work.pop() {
        budget.step(&walking)?;
        if k >= t.code.len() {
            continue;
        }
        let env = match &mut at[k] {
            Some(old) => {
                let mut changed = false;
                for (o, n) in old.iter_mut().zip(&env) {
                    if o.is_some() && *o != *n {
                        *o = None;
                        changed = true;
                    }
                }
                if !changed {
                    continue;
                }
                old.clone()
            }
            none => none.insert(env).clone(),
        };
        let mut next = env;
        let successors = match &t.code[k] {
            Stmt::Assign { dest, op, a, b, .. } => {
                if let Some(d) = slot(dest) {
                    next[d] = value(&next, a)
                        .zip(value(&next, b))
                        .map(|(x, y)| op.apply(x, y));
                }
                [Some(k + 1), None]
            }
            Stmt::Op(ins) => {
                if let Some(d) = ins.dest.as_deref().and_then(slot) {
                    next[d] = None;
                }
                [Some(k + 1), None]
            }
            Stmt::Branch {
                cmp, a, b, label, ..
            } => {
                let taken = labels.get(label.as_str()).copied();
                match value(&next, a).zip(value(&next, b)) {
                    Some((x, y)) if cmp.holds(x, y) => [taken, None],
                    Some(_) => [Some(k + 1), None],
                    None => [taken, Some(k + 1)],
                }
            }
            Stmt::Label { .. } | Stmt::Goto { .. } => super::spin::successors(t, labels, k),
        };
        for n in successors.into_iter().flatten() {
            work.push((n, next.clone()));
        }
    }
    Ok(at
        .iter()
        .enumerate()
        .filter_map(|(k, e)| e.as_ref().map(|_| k))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::limits::{LimitKind, Limits};
    use crate::frontend::{Format, Options, parse_text};

    /// One thread incrementing a counter, then 3,000 statements of
    /// register arithmetic steered by a branch at the end: a path cut at
    /// the top walks all of them to find the writes a thread running on
    /// could make.
    fn long_tail() -> Program {
        let mut code = String::from(
            "VULKAN tail\n{\nc=0; x=0;\n}\n P0@sg 0, wg 0, qf 0 ;\n rmw.atom.dv.sc0.add r0, c, 1 ;\n",
        );
        for k in 1..3000 {
            code.push_str(&format!(" add r{k}, r{}, 1 ;\n", k - 1));
        }
        code.push_str(" bne r2999, 7, L1 ;\n st.atom.dv.sc0 x, 1 ;\n L1: ;\nexists (x == 0)\n");
        parse_text(
            "tail.litmus",
            &code,
            Format::VulkanLitmus,
            Options::default(),
        )
        .expect("a Vulkan litmus test")
    }

    /// Finding the counters walks the code from every cut point; past the
    /// deadline that walk stops with the time limit (it read the budget)
    /// instead of running to its end, and before it the counter is found.
    #[test]
    fn the_walk_from_the_cut_points_reads_the_deadline() {
        let program = long_tail();
        let paths = ThreadPaths {
            cut_points: [(0, Vec::new())].into_iter().collect(),
            ..ThreadPaths::default()
        };
        let mut limits = Limits::default();
        let open = Budget::new(&limits);
        let found =
            Counters::of(&program, std::slice::from_ref(&paths), &open).expect("no deadline");
        let c = program.locations.iter().position(|l| l == "c").unwrap();
        assert_eq!(found.reads[c], Some(vec![0]));
        limits.bounds.deadline = Some(web_time::Instant::now());
        let spent = Budget::new(&limits);
        let e = Counters::of(&program, std::slice::from_ref(&paths), &spent)
            .expect_err("past the deadline");
        assert_eq!(e.limit, Some(LimitKind::Timeout));
        assert!(
            e.message.contains("past the unrolling bound"),
            "{}",
            e.message
        );
    }
}
