//! Where a path goes on from a statement without making an event: through
//! labels, jumps, assignments and branches on registers whose values it
//! knows. The executor asks it where the unrolling bound cuts a path: the
//! way on is then the same in every execution having the path, and what
//! it meets first (a control barrier: `lockstep`) is where the thread
//! goes next.
//!
//! Written here because it is a fact about vkmm's own program
//! representation, which no crate knows.

use crate::ir::{Operand, Stmt, Thread};
use std::collections::HashMap;

/// The first statement from `from` on (`from` included) at which `stop`
/// holds or that is an instruction, and how many statements the way there
/// passes, going through labels, jumps, assignments and branches whose
/// operands are known (`value` gives a register's constant, `None` when
/// it is not known; an assignment from an unknown operand makes its
/// destination unknown). The end of the code counts as a statement `stop`
/// is asked about (`t.code.len()`). `None` when the way meets a branch on
/// an unknown value, a jump to a label that is not defined, or takes more
/// steps than the code has statements (a loop with no event).
pub(super) fn way_on(
    t: &Thread,
    labels: &super::spin::Labels,
    from: usize,
    value: &dyn Fn(&str) -> Option<i64>,
    stop: &dyn Fn(usize) -> bool,
) -> Option<(usize, usize)> {
    let mut assigned: HashMap<&str, Option<i64>> = HashMap::default();
    let get = |assigned: &HashMap<&str, Option<i64>>, o: &Operand| match o {
        Operand::Const(v) => Some(*v),
        Operand::Reg(r) => match assigned.get(r.as_str()) {
            Some(v) => *v,
            None => value(r),
        },
    };
    let mut pc = from;
    for steps in 0..=t.code.len() {
        if stop(pc) {
            return Some((pc, steps));
        }
        match t.code.get(pc)? {
            Stmt::Label { .. } => pc += 1,
            Stmt::Goto { label, .. } => pc = *labels.get(label.as_str())?,
            Stmt::Assign { dest, op, a, b, .. } => {
                let v = get(&assigned, a).zip(get(&assigned, b));
                assigned.insert(dest, v.map(|(x, y)| op.apply(x, y)));
                pc += 1;
            }
            Stmt::Branch {
                cmp, a, b, label, ..
            } => {
                let (x, y) = (get(&assigned, a)?, get(&assigned, b)?);
                pc = if cmp.holds(x, y) {
                    *labels.get(label.as_str())?
                } else {
                    pc + 1
                };
            }
            Stmt::Op(_) => return Some((pc, steps)),
        }
    }
    None
}
