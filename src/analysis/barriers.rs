//! Control barriers on a combination of thread paths, as the analyses see
//! them: which barriers are *divergent* — passed by some invocation of an
//! execution-scope instance while another invocation of the same instance
//! never reaches them, or reaches them fewer times — and which *stall* (a
//! barrier with a quorum that too few invocations reach). The engine groups
//! the arrivals ([`crate::engine::barrier`]); this module judges them.
//!
//! SPIR-V memory model for OpenCL, glossary: "Control Barrier: ... A control
//! barrier blocks some set of invocations from progressing until all of them
//! reach the same point in the execution"; 3.5: "A work-group function must
//! occur within a converged control flow; i.e. all Invocations in the
//! work-group must encounter precisely the same work-group function. For
//! example, if a work-group function occurs within a loop, the Invocations
//! must encounter the same work-group function in the same loop
//! iterations." An execution in which an invocation passes a barrier that a
//! member of its instance never reaches, or reaches fewer times, is
//! undefined (it would have to wait forever): `check` diagnoses it
//! ([`crate::analysis::LitmusOutcome::barrier_divergence`]), termination
//! treats the waiting invocation as blocked.

use crate::engine::{BarrierGroup, EventInfo, Skeleton};
use crate::ir::{OpKind, Program};

/// A barrier passed while some member of its execution-scope instance does
/// not arrive at the same dynamic instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The skeleton event that passes it.
    pub event: usize,
    /// How many times its thread reached the barrier's instance number
    /// (this pass included).
    pub pass: usize,
    /// The members that do not arrive, with how many times each reaches a
    /// barrier with the same instance number on its path (and whether it
    /// reaches this pass with another id).
    pub missing: Vec<Missing>,
}

/// A member of an instance that does not arrive at a barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missing {
    pub thread: usize,
    /// Times its path reaches the barrier's instance number.
    pub reaches: usize,
}

impl Missing {
    /// Why it is missing, for reports: `P1 never reaches it`, `P1 reaches it
    /// 1 time`, `P1 reaches it with another id`.
    pub fn describe(&self, program: &Program, pass: usize) -> String {
        let who = format!("P{}", program.threads[self.thread].id);
        match self.reaches {
            0 => format!("{who} never reaches it"),
            r if r < pass => format!("{who} reaches it {r} time{}", if r == 1 { "" } else { "s" }),
            _ => format!("{who} reaches it with another id"),
        }
    }
}

/// Times thread `t`'s events in `events` reach a barrier numbered `instance`.
fn reaches(program: &Program, events: &[EventInfo], t: usize, instance: u32) -> usize {
    events
        .iter()
        .filter(|e| e.thread == t)
        .filter(|e| {
            matches!(e.instruction(program).kind,
                OpKind::ControlBarrier { instance: i, .. } if i == instance)
        })
        .count()
}

/// The divergent barriers of a skeleton: barriers without a quorum passed
/// while a member of the instance neither passes nor waits at the same
/// dynamic instance (barriers with a quorum need only the quorum).
pub fn divergent(program: &Program, sk: &Skeleton) -> Vec<Divergence> {
    let mut out = Vec::new();
    for g in &sk.barriers {
        if g.has_quorum() || g.passed.is_empty() {
            continue;
        }
        let missing: Vec<Missing> = g
            .absent(&sk.events)
            .map(|u| Missing {
                thread: u,
                reaches: reaches(program, &sk.events, u, g.key.0),
            })
            .collect();
        if missing.is_empty() {
            continue;
        }
        for &(e, _) in &g.passed {
            out.push(Divergence {
                event: e,
                pass: g.key.1,
                missing: missing.clone(),
            });
        }
    }
    out.sort_by_key(|d| d.event);
    out
}

/// The divergent barriers of a skeleton as report lines:
/// `P0 line 5: text, time 2 (P1 reaches it 1 time)`.
pub fn describe_divergent(program: &Program, sk: &Skeleton) -> Vec<String> {
    divergent(program, sk)
        .into_iter()
        .map(|d| {
            let why: Vec<String> = d
                .missing
                .iter()
                .map(|m| m.describe(program, d.pass))
                .collect();
            format!(
                "{}{} ({})",
                super::phrases::describe(program, &sk.events[d.event]),
                pass_note(d.pass),
                why.join(", ")
            )
        })
        .collect()
}

/// `, time 2` after a barrier reached for the second time (nothing for the first).
pub fn pass_note(pass: usize) -> String {
    if pass > 1 {
        format!(", time {pass}")
    } else {
        String::new()
    }
}

/// The groups whose passing events stall (quorum not reached), with those
/// events.
pub fn stalled(sk: &Skeleton) -> Vec<(&BarrierGroup, Vec<usize>)> {
    sk.barriers
        .iter()
        .map(|g| (g, g.stalled().collect::<Vec<_>>()))
        .filter(|(_, s)| !s.is_empty())
        .collect()
}

/// Whether the skeleton's barriers are possible for a termination witness:
/// no barrier is divergent or stalled, and an invocation waiting at a
/// barrier waits at one that does not open for it (too few arrive).
pub fn agree(program: &Program, sk: &Skeleton) -> bool {
    divergent(program, sk).is_empty()
        && sk.stalled_barriers().is_empty()
        && sk
            .barriers
            .iter()
            .all(|g| g.waiting.iter().all(|&(_, q)| !g.opens_for(q)))
}
