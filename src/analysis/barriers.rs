//! Control barriers on a combination of thread paths: which dynamic
//! instances each invocation reaches, and which are *divergent* — passed by
//! some invocation of an execution-scope instance while another invocation
//! of the same instance never reaches them.
//!
//! SPIR-V memory model for OpenCL, glossary: "Control Barrier: ... A control
//! barrier blocks some set of invocations from progressing until all of them
//! reach the same point in the execution", and "A work-group function must
//! occur within a converged control flow; i.e. all work-items in the
//! work-group must encounter precisely the same work-group function." An
//! execution in which an invocation passes a barrier that a member of its
//! instance never reaches is undefined (it would have to wait forever):
//! `check` diagnoses it ([`crate::analysis::LitmusOutcome::barrier_divergence`]),
//! termination treats the waiting invocation as blocked.

use crate::engine::{Skeleton, thread_in_instance};
use crate::ir::{OpKind, Program, Scope};

/// A dynamic barrier instance: the barrier's static instance number and how
/// many times the path reached a barrier with that number (1 for the first).
pub type BarrierKey = (u32, usize);

/// One barrier a thread's path passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Passed {
    pub key: BarrierKey,
    pub scope: Scope,
    /// The skeleton event.
    pub event: usize,
}

/// The barriers thread `t`'s events pass, in program order.
pub fn passed(program: &Program, sk: &Skeleton, t: usize) -> Vec<Passed> {
    let mut seen: Vec<u32> = Vec::new();
    sk.events
        .iter()
        .enumerate()
        .filter(|(_, e)| e.thread == t)
        .filter_map(|(event, e)| match e.instruction(program).kind {
            OpKind::ControlBarrier {
                instance,
                execution_scope,
            } => {
                seen.push(instance);
                let k = seen.iter().filter(|&&i| i == instance).count();
                Some(Passed {
                    key: (instance, k),
                    scope: execution_scope,
                    event,
                })
            }
            _ => None,
        })
        .collect()
}

/// The threads of `t`'s instance of `scope` (`t` included).
pub fn members(program: &Program, t: usize, scope: Scope) -> impl Iterator<Item = usize> + '_ {
    (0..program.threads.len()).filter(move |&u| thread_in_instance(program, u, scope, t))
}

/// Every barrier some thread passes while a member of its execution-scope
/// instance does not (`(thread, barrier passed, members that do not pass
/// it)`), given what each thread passes.
pub fn divergent(program: &Program, passed_by: &[Vec<Passed>]) -> Vec<(usize, Passed, Vec<usize>)> {
    let passes = |u: usize, key: BarrierKey| passed_by[u].iter().any(|p| p.key == key);
    let mut out = Vec::new();
    for (t, list) in passed_by.iter().enumerate() {
        for p in list {
            let missing: Vec<usize> = members(program, t, p.scope)
                .filter(|&u| !passes(u, p.key))
                .collect();
            if !missing.is_empty() {
                out.push((t, p.clone(), missing));
            }
        }
    }
    out
}
