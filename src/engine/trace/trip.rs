//! Loops whose test compares a counter with a constant: an iteration that
//! moves the counter strictly towards the bound is not counted by the
//! unrolling bound.
//!
//! A bounded spin (`for (spin = 0u; spin < MAX_SPIN; ) { if (flag ready)
//! { ...; spin = 0u; } else { spin += 1u; } }`) branches on a value from
//! memory in every iteration, so its iterations are not free in the sense
//! of `executor::free_iteration`, and the bound cuts it after
//! `unroll + 1` iterations although it runs at most `MAX_SPIN` iterations
//! in a row without the counter falling back. Here such an iteration is
//! not counted: arriving at the head by the jump back, the distance from
//! the counter's value (as the loop's test computes it) to the first
//! value that leaves the loop is smaller than at the last arrival. The
//! loop's statement counts are then set back to what they were at the
//! last counted arrival, so the iterations that do not advance the counter (one that resets it)
//! meet the bound as before.
//!
//! The walk still ends: between two counted iterations there are at most
//! as many uncounted ones as the distance at the first (it falls by at
//! least one each time, and the loop leaves once it is zero or less), a loop is
//! taken this way only when that distance is at most
//! [`MAX_FREE_ITERATIONS`], and every uncounted iteration counts towards
//! the path's [`MAX_FREE_ITERATIONS`]. Nothing is lost by not counting an
//! iteration: the path goes on as the executor walks any path, and a cut
//! it no longer makes is only a path it now follows to its end.

use super::path::RegValue;
use super::state::{MAX_FREE_ITERATIONS, MAX_TRIP_ITERATIONS, State};
use crate::ir::{Cmp, Operand, Stmt, Thread};
use std::collections::HashMap;

/// A loop's test: the first statement after the head that is not a label
/// or an assignment is a branch comparing a register with a constant,
/// one side of which leaves the loop.
#[derive(Clone, Debug)]
pub(super) struct CounterTest {
    /// The assignments between the head and the branch, in order.
    assigns: Vec<usize>,
    /// The register the branch compares.
    reg: String,
    /// The loop goes round again when `value stay bound` holds.
    stay: Cmp,
    bound: i64,
}

/// The loops of `t` (`loops`: head -> last backward jump) whose test
/// compares a register with a constant.
pub(super) fn counter_tests(
    t: &Thread,
    labels: &super::spin::Labels,
    loops: &HashMap<usize, usize>,
) -> HashMap<usize, CounterTest> {
    let mut out = HashMap::new();
    for (&head, &back) in loops {
        if let Some(test) = counter_test(t, labels, head, back) {
            out.insert(head, test);
        }
    }
    out
}

fn counter_test(
    t: &Thread,
    labels: &super::spin::Labels,
    head: usize,
    back: usize,
) -> Option<CounterTest> {
    let inside = |k: usize| (head..=back).contains(&k);
    let mut assigns = Vec::new();
    for k in head + 1..=back {
        match &t.code[k] {
            Stmt::Label { .. } => {}
            Stmt::Assign { .. } => assigns.push(k),
            Stmt::Branch {
                cmp, a, b, label, ..
            } => {
                let to = *labels.get(label.as_str())?;
                // The other side: past the assignments and labels after
                // the branch, the statement there or where its jump goes.
                let mut next = k + 1;
                while let Some(Stmt::Assign { .. } | Stmt::Label { .. }) = t.code.get(next) {
                    next += 1;
                }
                if let Some(Stmt::Goto { label, .. }) = t.code.get(next) {
                    next = *labels.get(label.as_str())?;
                }
                let holds_stays = match (inside(to), inside(next)) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => return None,
                };
                let (reg, bound, cmp) = match (a, b) {
                    (Operand::Reg(r), Operand::Const(c)) => (r, *c, *cmp),
                    (Operand::Const(c), Operand::Reg(r)) => (r, *c, cmp.mirrored()),
                    _ => return None,
                };
                let stay = if holds_stays { cmp } else { cmp.negate() };
                if matches!(stay, Cmp::Eq | Cmp::Ne) {
                    return None;
                }
                return Some(CounterTest {
                    assigns,
                    reg: reg.clone(),
                    stay,
                    bound,
                });
            }
            _ => return None,
        }
    }
    None
}

impl CounterTest {
    /// How many more times the counter must move by one before the test
    /// leaves the loop, with the registers of `s` at the head (zero or
    /// less: it leaves now); `None` when a value the test computes is
    /// not concrete.
    fn distance(&self, s: &State, t: &Thread) -> Option<i128> {
        let mut local: HashMap<&str, Option<i64>> = HashMap::new();
        let value = |local: &HashMap<&str, Option<i64>>, op: &Operand| match op {
            Operand::Const(c) => Some(*c),
            Operand::Reg(r) => match local.get(r.as_str()) {
                Some(v) => *v,
                None => match s.regs.get(r) {
                    Some(RegValue::Const(c)) => Some(*c),
                    _ => None,
                },
            },
        };
        for &k in &self.assigns {
            if let Stmt::Assign { dest, op, a, b, .. } = &t.code[k] {
                let v = value(&local, a)
                    .zip(value(&local, b))
                    .map(|(x, y)| op.apply(x, y));
                local.insert(dest, v);
            }
        }
        let v = i128::from(value(&local, &Operand::Reg(self.reg.clone()))?);
        let bound = i128::from(self.bound);
        Some(match self.stay {
            Cmp::Lt => bound - v,
            Cmp::Le => bound - v + 1,
            Cmp::Gt => v - bound,
            Cmp::Ge => v - bound + 1,
            Cmp::Eq | Cmp::Ne => return None,
        })
    }
}

/// Per loop head with a counter test, what the path was at its last
/// counted arrival there: the counter's distance from the bound (at the
/// last arrival, counted or not) and the runs of the loop's statements.
pub(super) type Arrivals = Vec<(usize, Option<i128>, Vec<usize>)>;

/// At the head `s.pc` of a loop with `test` whose statements are
/// `s.pc..=back`, arrived at from outside the loop or after an iteration
/// the unrolling bound does not count otherwise (`fresh`: the runs were
/// just set to zero) or by the jump back. When the iteration just run
/// moved the counter strictly towards the bound, the runs of the
/// loop's statements are set back to what they were at the last counted
/// arrival, and the iteration counts towards [`MAX_FREE_ITERATIONS`];
/// otherwise this arrival is the one later iterations are measured from.
pub(super) fn arrive(s: &mut State, t: &Thread, test: &CounterTest, back: usize, fresh: bool) {
    let head = s.pc;
    let now = test.distance(s, t);
    let at = s.trips.iter().position(|(h, _, _)| *h == head);
    if !fresh
        && let Some(at) = at
        && let (Some(before), Some(now)) = (s.trips[at].1, now)
        && now < before
        && before <= i128::from(MAX_FREE_ITERATIONS)
        && s.free_iterations < MAX_FREE_ITERATIONS
    {
        s.free_iterations += 1;
        let (_, distance, runs) = &mut s.trips[at];
        *distance = Some(now);
        for (k, &r) in (head..=back).zip(runs.iter()) {
            if s.runs[k] != r {
                s.runs[k] = r;
            }
        }
        return;
    }
    let runs: Vec<usize> = (head..=back).map(|k| s.runs[k]).collect();
    match at {
        Some(at) => s.trips[at] = (head, now, runs),
        None => s.trips.push((head, now, runs)),
    }
}

/// At the head `s.pc` of a loop with `test`, arrived at by the jump back
/// after an iteration no branch on a value from memory decided, once the
/// path's [`MAX_FREE_ITERATIONS`] are spent: whether the iteration moved
/// the counter strictly towards the bound from a distance of at most
/// [`MAX_TRIP_ITERATIONS`] at the last arrival, with fewer than that many
/// such iterations on the path so far. It then counts as one of them and
/// the unrolling bound does not count it. The walk still ends: the
/// distance falls by at least one per iteration, and the path's count of
/// these iterations is capped.
pub(super) fn counted_down(s: &mut State, t: &Thread, test: &CounterTest) -> bool {
    let head = s.pc;
    let Some(before) = s
        .trips
        .iter()
        .find(|(h, _, _)| *h == head)
        .and_then(|(_, d, _)| *d)
    else {
        return false;
    };
    let Some(now) = test.distance(s, t) else {
        return false;
    };
    if now < before
        && before <= i128::from(MAX_TRIP_ITERATIONS)
        && s.trip_iterations < MAX_TRIP_ITERATIONS
    {
        s.trip_iterations += 1;
        return true;
    }
    false
}
