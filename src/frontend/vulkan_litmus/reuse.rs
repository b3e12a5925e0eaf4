//! Several signals of one fence, binary semaphore or event (docs/host.md,
//! "Reuse"): the front end numbers each object's signals in the order the
//! API allows them, gives each wait the number of the signal that answers
//! it (`ApiOp::Signal::epoch`, `ApiOp::Wait::epoch`), and diagnoses misuse.
//!
//! Sentences (Vulkan-Docs 090f1b19):
//! - vkResetFences: "When vkResetFences is executed on the host, it defines
//!   a fence unsignal operation for each fence, which resets the fence to
//!   the unsignaled state." Valid usage: "Each element of pFences must not
//!   be currently associated with any queue command that has not yet
//!   completed execution on that queue".
//! - vkQueueSubmit valid usage: "If fence is not VK_NULL_HANDLE, fence must
//!   be unsignaled"; "Each binary semaphore element of the
//!   pSignalSemaphores member of any element of pSubmits must be unsignaled
//!   when the semaphore signal operation it defines is executed on the
//!   device".
//! - Semaphore waiting: "Such semaphore wait operations set the semaphores
//!   created with a VkSemaphoreType of VK_SEMAPHORE_TYPE_BINARY to the
//!   unsignaled state."
//!
//! An object with one signal and no reset keeps the single-signal reading
//! (epoch 0 everywhere). A reused object's uses are ordered by one host
//! thread's program order: of its resets, waits and the submits of the
//! batches signalling it (a fence), or of the submits of the batches using
//! it and then submission order (a binary semaphore).

use super::Parser;
use super::host::ApiUse;
use crate::frontend::litmus::lexer::PErr;
use crate::ir::host::{Agent, ApiOp, SyncKind};
use crate::ir::{OpKind, Stmt};
use std::collections::{BTreeMap, HashMap};

/// The execution dependencies between API operations that vkmm knows
/// statically (each a step of the engine's system-synchronizes-with, over
/// the API operations only): a host thread's program order from a wait on,
/// a submit to its batch's commands, a batch's wait to its later commands
/// and earlier commands to its signal, and signal -> wait pairs.
struct Deps {
    next: Vec<Vec<usize>>,
}

impl Deps {
    fn new(uses: &[ApiUse], agent: &dyn Fn(usize) -> Agent) -> Deps {
        let mut next = vec![Vec::new(); uses.len()];
        let of_thread = |t: usize| (0..uses.len()).filter(move |&i| uses[i].thread == t);
        for (i, u) in uses.iter().enumerate() {
            match agent(u.thread) {
                Agent::Host => {
                    if let Some(j) = of_thread(u.thread).find(|&j| j > i) {
                        next[i].push(j);
                    }
                    if let ApiOp::Submit { submission } = u.op {
                        next[i].extend(of_thread(submission));
                    }
                }
                Agent::Submission { .. } => {
                    for j in of_thread(u.thread).filter(|&j| j > i) {
                        if matches!(uses[i].op, ApiOp::Wait { .. })
                            || matches!(uses[j].op, ApiOp::Signal { .. } | ApiOp::Reset { .. })
                        {
                            next[i].push(j);
                        }
                    }
                }
                Agent::Invocation => {}
            }
        }
        // Objects signalled once: their signal answers every wait.
        for (i, u) in uses.iter().enumerate() {
            if let ApiOp::Signal { kind, object, .. } = &u.op {
                let once = uses
                    .iter()
                    .filter(|v| matches!(&v.op, ApiOp::Signal { kind: k, object: o, .. } if k == kind && o == object))
                    .count()
                    == 1;
                if once {
                    for (j, v) in uses.iter().enumerate() {
                        if matches!(&v.op, ApiOp::Wait { kind: k, object: o, .. } if k == kind && o == object)
                        {
                            next[i].push(j);
                        }
                    }
                }
            }
        }
        Deps { next }
    }
    fn reaches(&self, a: usize, b: usize) -> bool {
        let mut seen = vec![false; self.next.len()];
        let mut stack = vec![a];
        while let Some(x) = stack.pop() {
            if x == b {
                return true;
            }
            if !std::mem::replace(&mut seen[x], true) {
                stack.extend(&self.next[x]);
            }
        }
        false
    }
}

impl Parser<'_> {
    /// Numbers the signals and waits of reused fences and binary
    /// semaphores (module doc) and diagnoses misuse.
    pub(super) fn reuse(&mut self) -> Vec<PErr> {
        let uses = &self.api_uses;
        let agent = |t: usize| self.program.host.agent(t);
        // Where use `i` is written, for messages: `P1 line 19`.
        let site = |i: usize| format!("P{} line {}", uses[i].thread, self.src.line(uses[i].at));
        // The submit of each batch.
        let submit_of: HashMap<usize, usize> = uses
            .iter()
            .enumerate()
            .filter_map(|(i, u)| match u.op {
                ApiOp::Submit { submission } => Some((submission, i)),
                _ => None,
            })
            .collect();
        // Each reused object's uses: fences with a reset or two signals,
        // binary semaphores with two signals.
        let mut objects: BTreeMap<(&str, u8), Vec<usize>> = BTreeMap::new();
        let key = |kind: &SyncKind| match kind {
            SyncKind::Fence => Some(0),
            SyncKind::Semaphore => Some(1),
            SyncKind::Event => Some(2),
            SyncKind::Timeline => None,
        };
        for (i, u) in uses.iter().enumerate() {
            match &u.op {
                ApiOp::Signal { kind, object, .. }
                | ApiOp::Wait { kind, object, .. }
                | ApiOp::Reset { kind, object } => {
                    if let Some(k) = key(kind) {
                        objects.entry((object.as_str(), k)).or_default().push(i);
                    }
                }
                _ => {}
            }
        }
        let is_signal = |i: usize| matches!(uses[i].op, ApiOp::Signal { .. });
        let is_reset = |i: usize| matches!(uses[i].op, ApiOp::Reset { .. });
        let mut deps = Deps::new(uses, &agent);
        let mut problems = Vec::new();
        let mut epochs: Vec<(usize, usize)> = Vec::new(); // (use, epoch)
        for (&(object, k), list) in &objects {
            let signals = list.iter().filter(|&&i| is_signal(i)).count();
            if signals < 2 && !list.iter().any(|&i| is_reset(i)) {
                continue;
            }
            // Where each use happens in its host thread's order: a
            // submission's command at its batch's submit.
            let host_pos = |i: usize| match agent(uses[i].thread) {
                Agent::Host => Some(i),
                _ => submit_of.get(&uses[i].thread).copied(),
            };
            let owner = host_pos(list[0]).map(|p| uses[p].thread);
            if let Some(&bad) = list
                .iter()
                .find(|&&i| host_pos(i).map(|p| uses[p].thread) != owner)
            {
                let what = ["fence", "binary semaphore", "event"][k as usize];
                problems.push((
                    uses[bad].at,
                    format!(
                        "{what} `{object}` is reused (signalled more than once or reset) and used from two host threads: vkmm orders a reused object's uses by one host thread's program order (its resets, waits and the submits of the batches using it)"
                    ),
                ));
                continue;
            }
            let mut order = list.clone();
            order.sort_by_key(|&i| (host_pos(i), i));
            if k == 2 {
                problems.extend(self.event_epochs(object, &order, &mut deps, &mut epochs));
            } else if k == 0 {
                // Epochs: the resets split the fence's life.
                let mut epoch = 0;
                let mut signal: Option<usize> = None; // of this epoch
                let mut waited = false;
                for &i in &order {
                    let u = &uses[i];
                    match &u.op {
                        ApiOp::Reset { .. } => {
                            if let (Some(s), false) = (signal, waited) {
                                problems.push((
                                    u.at,
                                    format!(
                                        "`reset fence {object}` while its signal ({}) may not have completed: wait on the fence first (vkResetFences: \"Each element of pFences must not be currently associated with any queue command that has not yet completed execution on that queue\")",
                                        site(s)
                                    ),
                                ));
                            }
                            epoch += 1;
                            signal = None;
                            waited = false;
                        }
                        ApiOp::Signal { .. } => {
                            if let Some(s) = signal {
                                problems.push((
                                    u.at,
                                    format!(
                                        "fence `{object}` is signalled again (first at {}) with no `reset fence {object}` before this batch's submit (vkQueueSubmit: \"If fence is not VK_NULL_HANDLE, fence must be unsignaled\")",
                                        site(s)
                                    ),
                                ));
                            }
                            signal = Some(i);
                            epochs.push((i, epoch));
                        }
                        ApiOp::Wait { .. } => {
                            if signal.is_none() {
                                let after_reset = if epoch > 0 {
                                    " after its last reset"
                                } else {
                                    ""
                                };
                                problems.push((
                                    u.at,
                                    format!(
                                        "hang: this wait never returns: no batch signalling fence `{object}` is submitted before it{after_reset}, so P{} (the host thread) waits forever",
                                        u.thread
                                    ),
                                ));
                            }
                            if let Some(s) = signal {
                                deps.next[s].push(i);
                            }
                            waited = true;
                            epochs.push((i, epoch));
                        }
                        _ => {}
                    }
                }
            } else {
                // Binary semaphore: signal, wait, signal, wait... in
                // submission order; the wait that unsignals a signal must
                // come before the next signal by an execution dependency.
                let mut epoch = 0;
                let mut pending: Option<usize> = None;
                let mut last_wait: Option<usize> = None;
                for &i in &order {
                    let u = &uses[i];
                    if is_signal(i) {
                        if let Some(s) = pending {
                            problems.push((
                                u.at,
                                format!(
                                    "binary semaphore `{object}` is signalled again while its signal ({}) is pending: no wait unsignals it before this batch (vkQueueSubmit: \"Each binary semaphore element of the pSignalSemaphores member of any element of pSubmits must be unsignaled when the semaphore signal operation it defines is executed on the device\")",
                                    site(s)
                                ),
                            ));
                        } else if let Some(w) = last_wait
                            && !deps.reaches(w, i)
                        {
                            problems.push((
                                u.at,
                                format!(
                                    "binary semaphore `{object}` is signalled again, but the wait that unsignals its earlier signal ({}) is not before this signal by an execution dependency (a fence the host waits on before this submit, a semaphore, or the same batch), so it may still be signaled (vkQueueSubmit: \"... must be unsignaled when the semaphore signal operation it defines is executed on the device\")",
                                    site(w)
                                ),
                            ));
                        }
                        pending = Some(i);
                        epochs.push((i, epoch));
                    } else {
                        match pending.take() {
                            Some(s) => {
                                epochs.push((i, epoch));
                                deps.next[s].push(i);
                                epoch += 1;
                                last_wait = Some(i);
                            }
                            None => problems.push((
                                u.at,
                                format!(
                                    "hang: this wait never returns: no signal of binary semaphore `{object}` is pending when this batch is submitted (each signal unblocks one wait: \"Such semaphore wait operations set the semaphores ... to the unsignaled state\"), so P{} (the queue) waits forever",
                                    u.thread
                                ),
                            )),
                        }
                    }
                }
            }
        }
        // Write the numbers into the instructions: the k-th API
        // instruction of a thread is its k-th use.
        let mut of_use: Vec<usize> = vec![0; uses.len()];
        for &(i, e) in &epochs {
            of_use[i] = e;
        }
        let mut k_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, u) in uses.iter().enumerate() {
            k_of.entry(u.thread).or_default().push(i);
        }
        for (t, list) in k_of {
            let mut k = 0;
            for stmt in &mut self.program.threads[t].code {
                if let Stmt::Op(ins) = stmt
                    && let OpKind::Api(op) = &mut ins.kind
                {
                    if let ApiOp::Signal { epoch, .. } | ApiOp::Wait { epoch, .. } = op {
                        *epoch = list.get(k).map_or(0, |&i| of_use[i]);
                    }
                    k += 1;
                }
            }
        }
        problems
    }

    /// The epochs of a reused event (set, reset, set ...): a reset of a set
    /// event opens the next epoch ("If event is already in the unsignaled
    /// state when vkResetEvent is executed, then vkResetEvent has no effect,
    /// and no event unsignal operation occurs"); each wait is answered by
    /// the set of its epoch, so it must come after the reset opening it and
    /// before the reset closing it by an execution dependency, as must the
    /// epoch's set (vkResetEvent valid usage: "There must be an execution
    /// dependency between vkResetEvent and the execution of any
    /// vkCmdWaitEvents that includes event in its pEvents parameter";
    /// vkCmdResetEvent: "... and the execution of any earlier
    /// vkCmdWaitEvents in submission order that includes event in its
    /// pEvents parameter").
    fn event_epochs(
        &self,
        object: &str,
        order: &[usize],
        deps: &mut Deps,
        epochs: &mut Vec<(usize, usize)>,
    ) -> Vec<(usize, String)> {
        let uses = &self.api_uses;
        let site = |i: usize| format!("P{} line {}", uses[i].thread, self.src.line(uses[i].at));
        let mut problems = Vec::new();
        // Pass 1: each use's epoch, each epoch's set and opening reset.
        let mut epoch_of = Vec::new();
        let mut sets: Vec<Option<usize>> = vec![None];
        let mut opening: Vec<Option<usize>> = vec![None];
        for &i in order {
            let e = sets.len() - 1;
            match &uses[i].op {
                ApiOp::Reset { .. } if sets[e].is_some() => {
                    sets.push(None);
                    opening.push(Some(i));
                    epoch_of.push((i, e + 1));
                }
                ApiOp::Reset { .. } => epoch_of.push((i, e)),
                ApiOp::Signal { .. } => {
                    if let Some(s) = sets[e] {
                        problems.push((
                            uses[i].at,
                            format!(
                                "event `{object}` is set again (first at {}) with no `reset event {object}` between: vkmm takes one set per reset (vkResetEvent, vkCmdResetEvent)",
                                site(s)
                            ),
                        ));
                    } else {
                        sets[e] = Some(i);
                    }
                    epoch_of.push((i, e));
                }
                _ => epoch_of.push((i, e)),
            }
        }
        // Pass 2: the execution dependencies each use needs, in order; a
        // wait's edge from its set is added after its own check (that the
        // set answers it is what the check is to establish).
        for &(i, e) in &epoch_of {
            let u = &uses[i];
            let who = if self.program.host.agent(u.thread).is_host() {
                "the host thread"
            } else {
                "the queue"
            };
            match &u.op {
                ApiOp::Reset { .. } if opening[e] == Some(i) => {
                    let closed = e - 1;
                    if let Some(s) = sets[closed]
                        && !deps.reaches(s, i)
                    {
                        problems.push((
                            u.at,
                            format!(
                                "`reset event {object}` may execute before its set ({}): order the set before the reset (a wait on the event or on a fence after it, or the same batch)",
                                site(s)
                            ),
                        ));
                    }
                    for &(w, we) in &epoch_of {
                        if we == closed
                            && matches!(uses[w].op, ApiOp::Wait { .. })
                            && !deps.reaches(w, i)
                        {
                            problems.push((
                                u.at,
                                format!(
                                    "`reset event {object}` may execute before the wait at {} returns (vkResetEvent: \"There must be an execution dependency between vkResetEvent and the execution of any vkCmdWaitEvents that includes event in its pEvents parameter\")",
                                    site(w)
                                ),
                            ));
                        }
                    }
                }
                ApiOp::Signal { .. } | ApiOp::Wait { .. } => {
                    if let Some(r) = opening[e]
                        && !deps.reaches(r, i)
                    {
                        problems.push((
                            u.at,
                            format!(
                                "this may execute before `reset event {object}` at {}: a use of a reset event must come after the reset by an execution dependency (a wait on a fence or semaphore signalled after it, or the same batch)",
                                site(r)
                            ),
                        ));
                    }
                    // (An event nothing sets is the front end's hang.)
                    if matches!(u.op, ApiOp::Wait { .. })
                        && sets[e].is_none()
                        && sets.iter().any(Option::is_some)
                    {
                        let after = if e > 0 { " after its last reset" } else { "" };
                        problems.push((
                            u.at,
                            format!(
                                "hang: this wait never returns: nothing sets event `{object}`{after}, so P{} ({who}) waits forever",
                                u.thread
                            ),
                        ));
                    }
                    if matches!(u.op, ApiOp::Wait { .. })
                        && let Some(s) = sets[e]
                    {
                        deps.next[s].push(i);
                    }
                    epochs.push((i, e));
                }
                _ => {}
            }
        }
        problems
    }
}
