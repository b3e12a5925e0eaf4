//! The host side's static base names (docs/host.md, MODELS.md "Static base
//! names"): which events are host events, which API operations perform
//! which availability, visibility and memory domain operations, their
//! source and destination scopes (`apiinc`), and the
//! system-synchronizes-with the API's execution dependencies make.
//!
//! The appendix, System-Synchronizes-With: "If there is an execution
//! dependency between two operations A and B, then the operation in the
//! first synchronization scope system-synchronizes-with the operation in the
//! second synchronization scope." The steps below are the synchronization
//! scopes the synchronization chapter gives each operation; an execution
//! dependency chain is a sequence of them, so the derived relation is their
//! transitive closure.

use super::trace::EventInfo;
use crate::cat::Env;
use crate::ir::host::{Agent, ApiOp, ClCommandKind, Mapping, Svm, SyncKind};
use crate::ir::{Instruction, OpKind, Program};
use crate::model::names;
use crate::relation::{EventSet, Relation};

/// The API operation of an instruction, if it is one.
fn api(i: &Instruction) -> Option<&ApiOp> {
    match &i.kind {
        OpKind::Api(op) => Some(op),
        _ => None,
    }
}

/// Sets the host base names in `env` and returns the system-synchronizes-with
/// pairs the API operations derive (empty without host agents).
pub(crate) fn host_env(program: &Program, events: &[EventInfo], env: &mut Env) -> Relation {
    let n = events.len();
    let ins = |e: usize| events[e].instruction(program);
    let agent = |e: usize| program.host.agent(events[e].thread);
    let set_of = |pred: &dyn Fn(usize) -> bool| EventSet::from_iter(n, (0..n).filter(|&e| pred(e)));
    let is_mem = |e: usize| ins(e).is_memory_access();
    let is_w = |e: usize| events[e].writes;
    let host = |e: usize| agent(e).is_host();
    let device_access = |e: usize| is_mem(e) && !host(e);
    let loc = |e: usize| program.location_of(ins(e));
    let coherent = |e: usize| {
        host(e)
            && is_mem(e)
            && loc(e).and_then(|l| program.host.mapping(l)) == Some(Mapping::Coherent)
    };

    // Events of each thread, in program order.
    let mut of_thread: Vec<Vec<usize>> = vec![Vec::new(); program.threads.len()];
    for (e, ev) in events.iter().enumerate() {
        of_thread[ev.thread].push(e);
    }
    // A command's events: itself, for a dispatch the events of the
    // invocations it runs, for a transfer command those of its transfer
    // thread (its memory accesses).
    let group = |e: usize| -> Vec<usize> {
        let mut g = vec![e];
        let threads = match api(ins(e)) {
            Some(ApiOp::Dispatch { threads }) => threads.as_slice(),
            Some(ApiOp::Transfer { thread, .. }) => std::slice::from_ref(thread),
            _ => &[],
        };
        for &t in threads {
            g.extend(of_thread.get(t).into_iter().flatten().copied());
        }
        g
    };

    let mut apiinc = Relation::empty(n);
    let mut step = Relation::empty(n);
    let (mut avhost, mut vishost, mut domhd, mut domdh, mut apiav, mut apivis) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    // Host-coherent memory: "VK_MEMORY_PROPERTY_HOST_COHERENT_BIT bit
    // specifies that the host cache management commands
    // vkFlushMappedMemoryRanges and vkInvalidateMappedMemoryRanges are not
    // needed to manage availability and visibility on the host" (memory
    // chapter, Vulkan-Docs 090f1b19): a host write to it is its own
    // availability operation to the host domain, a host read its own
    // visibility operation from it.
    for e in 0..n {
        if coherent(e) {
            apiinc.insert(e, e);
            if is_w(e) {
                avhost.push(e);
            }
            if ins(e).is_read() {
                vishost.push(e);
            }
        }
    }
    // Signals and waits, for matching.
    let mut signals: Vec<(usize, SyncKind, &str, Option<i64>, usize)> = Vec::new();
    for e in 0..n {
        if let Some(ApiOp::Signal {
            kind,
            object,
            value,
            epoch,
        }) = api(ins(e))
        {
            signals.push((e, *kind, object.as_str(), *value, *epoch));
        }
    }
    for (t, evs) in of_thread.iter().enumerate() {
        match program.host.agent(t) {
            Agent::Invocation => {}
            Agent::Host => {
                for (k, &e) in evs.iter().enumerate() {
                    let Some(op) = api(ins(e)) else { continue };
                    let before = &evs[..k];
                    let after = &evs[k + 1..];
                    match op {
                        ApiOp::Submit { submission } => {
                            // Host write ordering guarantee: "The first
                            // synchronization scope includes execution of
                            // vkQueueSubmit on the host and anything that
                            // happened-before it"; the second "all commands
                            // submitted in the same queue submission".
                            for &b in before {
                                step.insert(b, e);
                            }
                            for &c in of_thread.get(*submission).into_iter().flatten() {
                                for g in group(c) {
                                    step.insert(e, g);
                                }
                            }
                            // "vkQueueSubmit performs a memory domain
                            // operation from host to device, and a
                            // visibility operation with source scope of the
                            // device domain and destination scope of all
                            // agents and references on the device."
                            domhd.push(e);
                            apivis.push(e);
                            for y in (0..n).filter(|&y| device_access(y)) {
                                apiinc.insert(e, y);
                            }
                        }
                        ApiOp::Flush { references } | ApiOp::Invalidate { references } => {
                            let locs: Vec<usize> = references
                                .iter()
                                .map(|&r| program.references[r].location)
                                .collect();
                            let flush = matches!(op, ApiOp::Flush { .. });
                            // "vkFlushMappedMemoryRanges performs an
                            // availability operation, with a source scope of
                            // (agents,references) = (all host threads, all
                            // mapped memory ranges passed to the command),
                            // and destination scope of the host domain."
                            // "vkInvalidateMappedMemoryRanges performs a
                            // visibility operation, with a source scope of
                            // the host domain and a destination scope of
                            // (agents,references) = (all host threads, all
                            // mapped memory ranges passed to the command)."
                            for x in (0..n).filter(|&x| host(x) && is_mem(x)) {
                                if loc(x).is_some_and(|l| locs.contains(&l)) {
                                    if flush && is_w(x) {
                                        apiinc.insert(x, e);
                                    } else if !flush {
                                        apiinc.insert(e, x);
                                    }
                                }
                            }
                            if flush {
                                avhost.push(e);
                            } else {
                                vishost.push(e);
                            }
                        }
                        ApiOp::Signal { .. } => {
                            for &b in before {
                                step.insert(b, e);
                            }
                        }
                        ApiOp::Wait { .. } => {
                            for &a in after {
                                step.insert(e, a);
                            }
                        }
                        ApiOp::Barrier(_)
                        | ApiOp::Reset { .. }
                        | ApiOp::Dispatch { .. }
                        | ApiOp::Transfer { .. }
                        | ApiOp::ClEnqueue { .. }
                        | ApiOp::ClStart { .. }
                        | ApiOp::ClComplete { .. }
                        | ApiOp::ClWait { .. } => {}
                    }
                }
            }
            Agent::Submission { .. } => {
                for (k, &e) in evs.iter().enumerate() {
                    let Some(op) = api(ins(e)) else { continue };
                    let before: Vec<usize> = evs[..k].iter().flat_map(|&c| group(c)).collect();
                    let after: Vec<usize> = evs[k + 1..].iter().flat_map(|&c| group(c)).collect();
                    match op {
                        ApiOp::Signal { .. } => {
                            // Fence and semaphore signal operations: "The
                            // first synchronization scope includes all
                            // commands that occur earlier in submission
                            // order"; "The first access scope includes all
                            // memory access performed by the device."
                            for &b in &before {
                                step.insert(b, e);
                            }
                            apiav.push(e);
                            for x in (0..n).filter(|&x| device_access(x) && is_w(x)) {
                                apiinc.insert(x, e);
                            }
                        }
                        ApiOp::Wait { kind, .. } => {
                            // Semaphore wait operations (vkQueueSubmit2):
                            // "The second synchronization scope of each
                            // semaphore wait operation defined by this
                            // command includes every command in the same
                            // batch that the wait operation is defined in,
                            // and all commands that occur later in
                            // submission order"; "The second access scope
                            // includes all memory access performed by the
                            // device." vkCmdWaitEvents
                            // without memory barriers: execution only.
                            for &a in &after {
                                step.insert(e, a);
                            }
                            if *kind != SyncKind::Event {
                                apivis.push(e);
                                for y in (0..n).filter(|&y| device_access(y)) {
                                    apiinc.insert(e, y);
                                }
                            }
                        }
                        ApiOp::Barrier(dep) => {
                            // vkCmdPipelineBarrier: the first synchronization
                            // scope is the earlier commands in submission
                            // order at the source stages, the second the
                            // later ones at the destination stages. The
                            // commands with stages are dispatches (compute)
                            // and transfer commands (copy, clear).
                            for &c in &evs[..k] {
                                let Some(cop) = api(ins(c)) else { continue };
                                if !dep.src_covers(cop) {
                                    continue;
                                }
                                for g in group(c) {
                                    step.insert(g, e);
                                    // "An availability operation with source
                                    // scope of all writes in the first access
                                    // scope of the dependency and a
                                    // destination scope of the device domain."
                                    if device_access(g) && is_w(g) && dep.src_writes_of(cop) {
                                        apiinc.insert(g, e);
                                    }
                                }
                            }
                            for &c in &evs[k + 1..] {
                                let Some(cop) = api(ins(c)) else { continue };
                                if !dep.dst_covers(cop) {
                                    continue;
                                }
                                for g in group(c) {
                                    step.insert(e, g);
                                    // "A visibility operation with source
                                    // scope of the device domain and
                                    // destination scope of the second access
                                    // scope of the dependency."
                                    if device_access(g)
                                        && ((ins(g).is_read() && dep.dst_accesses_of(cop, false))
                                            || (is_w(g) && dep.dst_accesses_of(cop, true)))
                                    {
                                        apiinc.insert(e, g);
                                    }
                                }
                            }
                            apiav.push(e);
                            apivis.push(e);
                            if dep.host_to_device() {
                                domhd.push(e);
                            }
                            if dep.device_to_host() {
                                domdh.push(e);
                            }
                        }
                        ApiOp::Submit { .. }
                        | ApiOp::Reset { .. }
                        | ApiOp::Flush { .. }
                        | ApiOp::Invalidate { .. }
                        | ApiOp::Dispatch { .. }
                        | ApiOp::Transfer { .. }
                        | ApiOp::ClEnqueue { .. }
                        | ApiOp::ClStart { .. }
                        | ApiOp::ClComplete { .. }
                        | ApiOp::ClWait { .. } => {}
                    }
                }
            }
        }
    }
    // Signal -> wait: a fence, binary semaphore or event wait returns after
    // its signal (of a reused fence or binary semaphore: the signal of the
    // wait's number, docs/host.md "Reuse"); a timeline wait for value v after the first signal that
    // reaches v: the one with the lowest value at least v (signal values
    // increase).
    for e in 0..n {
        let Some(ApiOp::Wait {
            kind,
            object,
            value,
            epoch,
        }) = api(ins(e))
        else {
            continue;
        };
        let matching = signals
            .iter()
            .filter(|s| s.1 == *kind && s.2 == object && s.4 == *epoch)
            .filter(|s| *kind != SyncKind::Timeline || s.3 >= *value);
        let chosen = if *kind == SyncKind::Timeline {
            if value.unwrap_or(0) == 0 {
                None
            } else {
                matching.min_by_key(|s| s.3).map(|s| s.0)
            }
        } else {
            matching.map(|s| s.0).next()
        };
        if let Some(s) = chosen {
            step.insert(s, e);
        }
    }

    let set = |v: &[usize]| EventSet::from_iter(n, v.iter().copied());
    env.set(names::HOST, set_of(&host));
    env.set(names::API, set_of(&|e| api(ins(e)).is_some()));
    env.set(names::AVHOST, set(&avhost));
    env.set(names::VISHOST, set(&vishost));
    env.set(names::DOMHD, set(&domhd));
    env.set(names::DOMDH, set(&domdh));
    env.set(names::APIAV, set(&apiav));
    env.set(names::APIVIS, set(&apivis));
    env.rel(names::APIINC, apiinc);
    env.rel(names::APISSW, step.transitive_closure());
    opencl_env(program, events, env);
    step.transitive_closure()
}

/// The OpenCL host side's base names (docs/host.md, "OpenCL"): one relation
/// per ordering rule of 3.6.4 of the SPIR-V memory model for OpenCL, the
/// map and unmap scopes, and the memory kinds of 3.3. Empty without OpenCL
/// commands. An OpenCL command is a thread of two events: its start (the
/// execution of C, [`ApiOp::ClStart`]) and its completion (the signalling
/// entity S, [`ApiOp::ClComplete`]); the front end resolves event wait
/// lists, queue order and `clFinish` into the commands each waits on.
fn opencl_env(program: &Program, events: &[EventInfo], env: &mut Env) {
    let n = events.len();
    let ins = |e: usize| events[e].instruction(program);
    let host = |e: usize| program.host.agent(events[e].thread).is_host();
    let is_mem = |e: usize| ins(e).is_memory_access();
    let svm = |e: usize| {
        program
            .location_of(ins(e))
            .and_then(|l| program.host.svm(l))
    };
    let mut start = vec![None; program.threads.len()];
    let mut complete = vec![None; program.threads.len()];
    let mut of_thread: Vec<Vec<usize>> = vec![Vec::new(); program.threads.len()];
    for (e, ev) in events.iter().enumerate() {
        of_thread[ev.thread].push(e);
        match api(ins(e)) {
            Some(ApiOp::ClStart { .. }) => start[ev.thread] = Some(e),
            Some(ApiOp::ClComplete { .. }) => complete[ev.thread] = Some(e),
            _ => {}
        }
    }
    let mut rules: [Relation; 6] = std::array::from_fn(|_| Relation::empty(n));
    let mut mapinc = Relation::empty(n);
    let mut unmapinc = Relation::empty(n);
    for (e, ev) in events.iter().enumerate() {
        match api(ev.instruction(program)) {
            // Rule 1: "If an API function call X enqueues a command C,
            // then X global-synchronizes-with C."
            Some(ApiOp::ClEnqueue { command, .. }) => {
                if let Some(c) = start.get(*command).copied().flatten() {
                    rules[0].insert(e, c);
                }
            }
            Some(ApiOp::ClStart { kind, waits, .. }) => {
                let t = ev.thread;
                // Rule 2: "If S is a synchronizing entity upon which a
                // command C waits, then S global-synchronizes-with C."
                for &w in waits {
                    if let Some(s) = complete.get(w).copied().flatten() {
                        rules[1].insert(s, e);
                    }
                }
                let done = complete[t];
                // Rule 3: "If a command C has a signally entity S that
                // signals its completion, then C global-synchronizes-with S."
                if let Some(s) = done {
                    rules[2].insert(e, s);
                }
                match kind {
                    ClCommandKind::Kernel { threads } => {
                        for &w in threads {
                            for &x in of_thread.get(w).into_iter().flatten() {
                                // Rule 5: "The start of a SPIR-V instance K
                                // global-synchronizes-with all operations in
                                // the work items of K."
                                rules[4].insert(e, x);
                                // Rule 6: "All operations of all work items
                                // of a kernel-instance K global-synchronizes-
                                // with the signaling entity S signalling the
                                // completion of K."
                                if let Some(s) = done {
                                    rules[5].insert(x, s);
                                }
                            }
                        }
                    }
                    ClCommandKind::Map { locations } | ClCommandKind::Unmap { locations } => {
                        let map = matches!(kind, ClCommandKind::Map { .. });
                        for x in (0..n).filter(|&x| host(x) && is_mem(x)) {
                            let hit = program
                                .location_of(ins(x))
                                .is_some_and(|l| locations.contains(&l));
                            match (hit, map, done) {
                                (true, true, Some(s)) => mapinc.insert(s, x),
                                (true, false, _) => unmapinc.insert(x, e),
                                _ => {}
                            }
                        }
                    }
                    // A read or write of a buffer: its loads and stores are
                    // in its own thread, ordered by opencl-host.cat.
                    ClCommandKind::Marker
                    | ClCommandKind::Barrier
                    | ClCommandKind::Transfer { .. }
                    | ClCommandKind::UserEvent => {}
                }
            }
            // Rule 4: "For a command C launched from the host, if C has a
            // synchronizing entity S that signals its completion, then S
            // global-synchronizes-with an API call X that waits on S."
            Some(ApiOp::ClWait { commands, .. }) => {
                for &c in commands {
                    if let Some(s) = complete.get(c).copied().flatten() {
                        rules[3].insert(s, e);
                    }
                }
            }
            _ => {}
        }
    }
    let set_of = |pred: &dyn Fn(usize) -> bool| EventSet::from_iter(n, (0..n).filter(|&e| pred(e)));
    env.set(
        names::COARSE,
        set_of(&|e| is_mem(e) && svm(e).is_some_and(Svm::is_coarse)),
    );
    env.set(
        names::CDNARROW,
        set_of(&|e| is_mem(e) && !host(e) && svm(e).is_some_and(|k| !k.cross_device())),
    );
    let [r1, r2, r3, r4, r5, r6] = rules;
    env.rel(names::CLENQ, r1);
    env.rel(names::CLWAIT, r2);
    env.rel(names::CLCOMPL, r3);
    env.rel(names::CLHOSTWAIT, r4);
    env.rel(names::CLKSTART, r5);
    env.rel(names::CLKEND, r6);
    env.rel(names::CLMAPINC, mapinc);
    env.rel(names::CLUNMAPINC, unmapinc);
}
