//! One thread's code run with concrete register values, replayed over the
//! events the thread already has in a graph: each read event gives the
//! value its write stores, and the run stops at the statement that makes
//! the thread's next event (or at the end of the code, or at the
//! unrolling bound).
//!
//! Replaying from the first statement keeps no interpreter state in the
//! graph: a revisit that changes what a read reads, or removes the
//! thread's later events, needs no undoing. Its cost is the length of the
//! thread's run per step, which is small next to the model evaluation of a
//! complete graph.

use crate::engine::limits::ExecError;
use crate::ir::{Instruction, OpKind, Operand, Program, RmwOp, Stmt, Thread};
use std::collections::HashMap;

/// What a thread's next event is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Proposed {
    /// A read of `loc`: a load, or the read part of a read-modify-write.
    /// `pinned`: the value the test says it reads (Alloy `.test`).
    Read { loc: usize, pinned: Option<i64> },
    /// A write of `loc`: a store (`rmw` false) or the write part of the
    /// read-modify-write whose read part is the thread's last event.
    /// `value`: `None` when the test gives no value.
    Write {
        loc: usize,
        value: Option<i64>,
        rmw: bool,
    },
    /// An event that accesses no memory (a memory barrier, a device
    /// availability or visibility operation).
    Other,
}

/// Where a thread's run stops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// It reached the end of its code: its final registers, by name.
    Finished(Vec<(String, i64)>),
    /// The next statement would run more often than the unrolling bound
    /// allows: the thread is cut there.
    Cut,
    /// Its next event, made by statement `stmt`.
    Event { stmt: usize, proposed: Proposed },
}

/// What a read event of the thread (the `k`-th event) read: `None` when the
/// write it reads gives no value.
pub(super) type ReadValues<'a> = &'a dyn Fn(usize) -> Option<i64>;

/// The instructions the search runs (the others are refused before it
/// starts: [`unsupported`]).
fn plain_event(i: &Instruction) -> bool {
    matches!(
        i.kind,
        OpKind::MemoryBarrier | OpKind::AvailabilityDevice | OpKind::VisibilityDevice
    )
}

/// Why the search cannot run `program` yet, if it cannot.
pub(super) fn unsupported(program: &Program) -> Option<String> {
    for (t, th) in program.threads.iter().enumerate() {
        for s in &th.code {
            let Stmt::Op(i) = s else { continue };
            let what = if i.group.is_some() {
                Some("a group function")
            } else if i.coop.is_some() {
                Some("a cooperative matrix element access")
            } else {
                match &i.kind {
                    OpKind::Load | OpKind::Store | OpKind::Rmw => {
                        if program.location_of(i).is_none() {
                            Some("a memory access without a location")
                        } else {
                            None
                        }
                    }
                    OpKind::ControlBarrier { .. } => Some("a control barrier"),
                    OpKind::BeginInterlock | OpKind::EndInterlock => {
                        Some("a fragment interlock operation")
                    }
                    OpKind::Deallocate => Some("a deallocation"),
                    OpKind::ShaderCall { .. } => Some("a shader call"),
                    OpKind::Api(_) => Some("a host API operation"),
                    _ if plain_event(i) => None,
                    _ => Some("an operation it does not know"),
                }
            };
            if let Some(what) = what {
                return Some(format!(
                    "{}: `{}` of thread {} is {what}, which the execution-graph search does not run yet",
                    i.source.place(),
                    i.source.text.trim(),
                    t
                ));
            }
        }
    }
    None
}

/// The value of an operand (`None`: a value the test does not give).
fn operand(regs: &HashMap<&str, Option<i64>>, op: &Operand) -> Option<i64> {
    match op {
        Operand::Const(v) => Some(*v),
        // A register never assigned holds 0, as in the path executor.
        Operand::Reg(r) => regs.get(r.as_str()).copied().unwrap_or(Some(0)),
    }
}

/// Runs thread `t` over its `events` existing events (`read(k)`: what its
/// `k`-th event read, for read events) and says where it stops next.
/// `unroll`: how many times more than once a statement may run.
pub(super) fn run(
    program: &Program,
    t: usize,
    events: usize,
    read: ReadValues,
    unroll: usize,
) -> Result<Step, ExecError> {
    let thread: &Thread = &program.threads[t];
    let code = &thread.code;
    let labels: HashMap<&str, usize> = code
        .iter()
        .enumerate()
        .filter_map(|(k, s)| match s {
            Stmt::Label { name, .. } => Some((name.as_str(), k)),
            _ => None,
        })
        .collect();
    let target = |label: &str| {
        labels
            .get(label)
            .copied()
            .ok_or_else(|| ExecError::new(format!("thread {t}: label `{label}` is not defined")))
    };
    let mut regs: HashMap<&str, Option<i64>> = thread
        .registers
        .iter()
        .map(|(r, v)| (r.as_str(), Some(*v)))
        .collect();
    let unknown = |what: &str, source: &crate::ir::SourceSpan| {
        ExecError::new(format!(
            "{}: thread {t} {what} a value the test does not give; the execution-graph search needs concrete values",
            source.place()
        ))
    };
    let mut runs = vec![0usize; code.len()];
    // The next existing event to replay.
    let mut k = 0usize;
    let mut pc = 0usize;
    loop {
        if pc >= code.len() {
            if k != events {
                return Err(ExecError::new(format!(
                    "thread {t} ended with {} of its {events} events replayed",
                    k
                )));
            }
            let mut out: Vec<(String, i64)> = Vec::with_capacity(regs.len());
            for (r, v) in &regs {
                // A register holding a value the test does not give is
                // refused where it is read into (below), so none is left.
                out.push((r.to_string(), v.unwrap_or(0)));
            }
            out.sort();
            return Ok(Step::Finished(out));
        }
        runs[pc] += 1;
        // The path executor's bound: a statement runs at most `unroll + 1`
        // times on a path.
        if runs[pc] > unroll + 1 {
            return Ok(Step::Cut);
        }
        match &code[pc] {
            Stmt::Label { .. } => pc += 1,
            Stmt::Goto { label, .. } => pc = target(label)?,
            Stmt::Assign {
                dest,
                op,
                a,
                b,
                source,
            } => {
                let (Some(va), Some(vb)) = (operand(&regs, a), operand(&regs, b)) else {
                    return Err(unknown("computes with", source));
                };
                regs.insert(dest.as_str(), Some(op.apply(va, vb)));
                pc += 1;
            }
            Stmt::Branch {
                cmp,
                a,
                b,
                label,
                source,
            } => {
                let (Some(va), Some(vb)) = (operand(&regs, a), operand(&regs, b)) else {
                    return Err(unknown("branches on", source));
                };
                pc = if cmp.holds(va, vb) {
                    target(label)?
                } else {
                    pc + 1
                };
            }
            Stmt::Op(i) => {
                let loc = program.location_of(i);
                let line = &i.source;
                match i.kind {
                    OpKind::Load | OpKind::Rmw => {
                        let loc = loc.ok_or_else(|| unknown("accesses no location with", line))?;
                        if k == events {
                            return Ok(Step::Event {
                                stmt: pc,
                                proposed: Proposed::Read {
                                    loc,
                                    pinned: i.read_value,
                                },
                            });
                        }
                        let old = read(k);
                        k += 1;
                        if let Some(dest) = &i.dest {
                            if old.is_none() {
                                return Err(unknown("reads into a register", line));
                            }
                            regs.insert(dest.as_str(), old);
                        }
                        if i.kind == OpKind::Rmw {
                            // "A compare-exchange writes only when the value
                            // read equals the expected one": a failed one is
                            // a read only.
                            let writes = match (i.rmw_op, &i.expected) {
                                (RmwOp::CompareExchange, Some(exp)) => {
                                    let (Some(o), Some(e)) = (old, operand(&regs, exp)) else {
                                        return Err(unknown("compares", line));
                                    };
                                    o == e
                                }
                                _ => true,
                            };
                            if writes {
                                let value = match (i.write_value, &i.operand) {
                                    (Some(v), _) => Some(v),
                                    (None, Some(op)) => match (operand(&regs, op), old) {
                                        (Some(v), Some(o)) => {
                                            Some(i.rmw_op.apply_at(o, v, i.width))
                                        }
                                        (Some(v), None) if !i.rmw_op.uses_old() => Some(v),
                                        _ => None,
                                    },
                                    (None, None) => None,
                                };
                                if k == events {
                                    return Ok(Step::Event {
                                        stmt: pc,
                                        proposed: Proposed::Write {
                                            loc,
                                            value,
                                            rmw: true,
                                        },
                                    });
                                }
                                k += 1;
                            }
                        }
                        pc += 1;
                    }
                    OpKind::Store => {
                        let loc = loc.ok_or_else(|| unknown("accesses no location with", line))?;
                        if k == events {
                            let value = match (i.write_value, &i.operand) {
                                (Some(v), _) => Some(v),
                                (None, Some(op)) => operand(&regs, op),
                                (None, None) => None,
                            };
                            return Ok(Step::Event {
                                stmt: pc,
                                proposed: Proposed::Write {
                                    loc,
                                    value,
                                    rmw: false,
                                },
                            });
                        }
                        k += 1;
                        pc += 1;
                    }
                    _ if plain_event(i) => {
                        if k == events {
                            return Ok(Step::Event {
                                stmt: pc,
                                proposed: Proposed::Other,
                            });
                        }
                        k += 1;
                        pc += 1;
                    }
                    _ => {
                        return Err(ExecError::new(format!(
                            "{}: the execution-graph search does not run `{}`",
                            line.place(),
                            i.source.text.trim()
                        )));
                    }
                }
            }
        }
    }
}
