//! The statements of one thread that some execution can run, found by
//! running the thread's code with the values every execution agrees on:
//! its initial registers (a shader invocation's ids), constants, the
//! arithmetic on them, and reads of locations no instruction writes (a
//! uniform: its initial value in every execution). Everything else a
//! read, a read-modify-write or a group function gives is unknown, and a
//! branch on an unknown value goes both ways.
//!
//! Why it covers every execution: a register the run knows holds that
//! value on every path of every execution reaching the same statement
//! by the same branches, so a branch the run decides goes the same way
//! there; a branch it cannot decide is followed both ways. So every
//! statement an execution runs, the run reaches.
//!
//! The run keeps, per label, up to [`EXACT_STATES`] distinct register
//! states it arrived with (a loop over a constant count stays exact for
//! that many iterations); past that, the states arriving there are
//! joined into one (a register two states disagree on is unknown), which
//! only grows towards unknown, so the run ends. Past [`MAX_WORK`], or
//! once the request's time or memory is spent (the caller's `stop`, read
//! every [`STOP_EVERY`] statements: the states kept per label are copies
//! of the whole register file, so a thread of thousands of registers
//! holds hundreds of mebibytes well within its work), the run gives up
//! (`None`): the caller then takes every statement as reachable.

use super::spin::label_map;
use crate::ir::{Operand, Program, Stmt, Thread};
// FxHash, not SipHash: every statement run looks its registers up by name
// and every label hashes a whole register state.
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// A register state: each register's value, `None` where unknown.
type Regs = Vec<Option<i64>>;

/// Distinct register states kept per label before they are joined.
const EXACT_STATES: usize = 64;

/// Work before the run gives up: a statement run counts 1, a register
/// state compared or stored at a label counts its registers (so a thread
/// with thousands of registers gives up after fewer labels, and the run
/// costs at most some tens of milliseconds per thread).
const MAX_WORK: usize = 20_000_000;

/// Statements run between two readings of the caller's `stop`.
const STOP_EVERY: usize = 1024;

/// Per statement of `t`, whether some execution can run it (see the module
/// doc); `written[l]`: whether some instruction writes location `l`.
/// `None` when the run passed its budget or `stop` said to stop.
pub(super) fn reachable<'t>(
    program: &Program,
    t: &'t Thread,
    written: &[bool],
    stop: &dyn Fn() -> bool,
) -> Option<Vec<bool>> {
    if stop() {
        return None;
    }
    let labels = label_map(t);
    // Registers by number: the initial ones, then every name the code
    // assigns or reads.
    let mut number: HashMap<&'t str, usize> = HashMap::default();
    for (r, _) in &t.registers {
        let n = number.len();
        number.entry(r.as_str()).or_insert(n);
    }
    for s in &t.code {
        let mut add = |r: &'t str| {
            let n = number.len();
            number.entry(r).or_insert(n);
        };
        match s {
            Stmt::Assign { dest, a, b, .. } => {
                add(dest);
                for o in [a, b] {
                    if let Operand::Reg(r) = o {
                        add(r);
                    }
                }
            }
            Stmt::Branch { a, b, .. } => {
                for o in [a, b] {
                    if let Operand::Reg(r) = o {
                        add(r);
                    }
                }
            }
            Stmt::Op(i) => {
                if let Some(d) = &i.dest {
                    add(d);
                }
            }
            _ => {}
        }
    }
    // A register the code never assigns reads as 0, as on a path
    // (`executor::term_of`).
    let mut start: Regs = vec![Some(0); number.len()];
    for (r, v) in &t.registers {
        start[number[r.as_str()]] = Some(*v);
    }
    let value = |regs: &[Option<i64>], o: &Operand| match o {
        Operand::Const(v) => Some(*v),
        Operand::Reg(r) => regs[number[r.as_str()]],
    };
    let mut reached = vec![false; t.code.len()];
    // Per label: the exact states seen, and the joined one past them.
    let mut seen: HashMap<usize, (HashSet<Regs>, Option<Regs>)> = HashMap::default();
    let mut work: Vec<(usize, Regs)> = vec![(0, start)];
    let mut spent = 0usize;
    let mut steps = 0usize;
    while let Some((mut pc, mut regs)) = work.pop() {
        while pc < t.code.len() {
            spent += 1;
            steps += 1;
            if spent > MAX_WORK || (steps.is_multiple_of(STOP_EVERY) && stop()) {
                return None;
            }
            if let Stmt::Label { .. } = &t.code[pc] {
                spent += regs.len();
                let (exact, joined) = seen.entry(pc).or_default();
                if exact.contains(&regs) {
                    break;
                }
                if exact.len() < EXACT_STATES {
                    exact.insert(regs.clone());
                } else {
                    match joined {
                        None => *joined = Some(regs.clone()),
                        Some(j) => {
                            let mut changed = false;
                            for (x, y) in j.iter_mut().zip(&regs) {
                                if x.is_some() && *x != *y {
                                    *x = None;
                                    changed = true;
                                }
                            }
                            if !changed {
                                break;
                            }
                            regs = j.clone();
                        }
                    }
                }
            }
            reached[pc] = true;
            match &t.code[pc] {
                Stmt::Label { .. } => pc += 1,
                Stmt::Goto { label, .. } => pc = *labels.get(label.as_str())?,
                Stmt::Assign { dest, op, a, b, .. } => {
                    regs[number[dest.as_str()]] = match (value(&regs, a), value(&regs, b)) {
                        (Some(x), Some(y)) => Some(op.apply(x, y)),
                        _ => None,
                    };
                    pc += 1;
                }
                Stmt::Branch {
                    cmp, a, b, label, ..
                } => {
                    let to = *labels.get(label.as_str())?;
                    match (value(&regs, a), value(&regs, b)) {
                        (Some(x), Some(y)) => pc = if cmp.holds(x, y) { to } else { pc + 1 },
                        _ => {
                            work.push((to, regs.clone()));
                            pc += 1;
                        }
                    }
                }
                Stmt::Op(i) => {
                    if let Some(d) = &i.dest {
                        // A plain read of a location no instruction
                        // writes, with a defined initial value: that
                        // value in every execution. Anything else: unknown.
                        let known = match program.location_of(i) {
                            Some(l)
                                if i.is_read()
                                    && !i.is_write()
                                    && !i.atomic
                                    && i.group.is_none()
                                    && i.read_value.is_none()
                                    && !written.get(l).copied().unwrap_or(true)
                                    && !program.is_undefined(l) =>
                            {
                                Some(program.initial_value(l))
                            }
                            _ => None,
                        };
                        regs[number[d.as_str()]] = known;
                    }
                    pc += 1;
                }
            }
        }
    }
    Some(reached)
}
