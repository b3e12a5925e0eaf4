//! The host side of the Vulkan `.litmus` dialect (docs/host.md): host
//! threads (`Pk@host`), queue submissions (`Pk@queue N`), mapped memory
//! (`mapped x coherent;`) and the API operations.

use super::Parser;
use crate::frontend::litmus::lexer::{Lexer, PErr, R, Tok, thread_of};
use crate::ir::host::{Agent, ApiOp, Dependency, Mapping, SyncKind, TransferKind, access, stage};
use crate::ir::{Instruction, OpKind, Operand, Order, Scope, SourceSpan, Stmt, Thread};
use std::collections::HashMap;

/// Where an API operation was written, for the whole-program checks.
pub(super) struct ApiUse {
    pub thread: usize,
    /// The opcode's position.
    pub at: usize,
    pub op: ApiOp,
    /// The position of each thread operand (`submit P2`, `dispatch P3, P4`).
    pub operand_at: Vec<usize>,
}

/// A transfer command (`copy`, `fill`, `update`) read in a submission; its
/// transfer thread is added once every row is read (`add_transfer_threads`).
pub(super) struct PendingTransfer {
    /// The submission holding the command.
    submission: usize,
    /// A copy's source reference.
    src: Option<usize>,
    dst: usize,
    /// A fill's or update's data.
    value: i64,
    at: usize,
    source: SourceSpan,
}

/// The register of a copy's transfer thread (the value copied).
const COPY_REGISTER: &str = "v";

/// The API words, with the agents that may use them.
const HOST_WORDS: &str = "submit flush invalidate signal wait set reset";
const SUBMISSION_WORDS: &str = "dispatch barrier signal wait set reset copy fill update";

impl Parser<'_> {
    /// `mapped x coherent;` or `mapped x noncoherent;` in the initial state.
    pub(super) fn mapped_entry(&mut self, lx: &mut Lexer<'_>, at: usize) -> R<()> {
        let (name, name_at) = lx.ident("a location name after `mapped`")?;
        let (kind, kind_at) = lx.ident("`coherent` or `noncoherent` after the location")?;
        let mapping = match kind.as_str() {
            "coherent" => Mapping::Coherent,
            "noncoherent" => Mapping::NonCoherent,
            _ => {
                return Err((
                    kind_at,
                    format!(
                        "expected `coherent` (HOST_COHERENT memory) or `noncoherent` after `mapped {name}`, found `{kind}`"
                    ),
                ));
            }
        };
        let r = self.reference(&name);
        let loc = self.program.references[r].location;
        let mapped = &mut self.program.host.mapped;
        if mapped.len() <= loc {
            mapped.resize(loc + 1, None);
        }
        if mapped[loc].is_some() {
            return Err((name_at, format!("location `{name}` is mapped twice")));
        }
        mapped[loc] = Some(mapping);
        let _ = at;
        Ok(())
    }

    /// `Pk@host` or `Pk@queue N` after the `@` of a declaration; `None` when
    /// the cell is an invocation's placement.
    pub(super) fn host_placement(&mut self, lx: &mut Lexer<'_>, k: usize) -> R<Option<Agent>> {
        let t = lx.peek()?;
        let agent = if t.is_ident("host") {
            lx.next()?;
            Agent::Host
        } else if t.is_ident("queue") {
            lx.next()?;
            let (q, q_at) = lx.integer("the queue number after `queue`")?;
            let queue = usize::try_from(q)
                .map_err(|_| (q_at, format!("queue number `{q}` is out of range")))?;
            Agent::Submission { queue }
        } else {
            return Ok(None);
        };
        lx.expect_end("after the thread declaration")?;
        let agents = &mut self.program.host.agents;
        if agents.len() <= k {
            agents.resize(k + 1, Agent::Invocation);
        }
        agents[k] = agent;
        Ok(Some(agent))
    }

    /// A memory access or API operation of a host thread or submission, or
    /// an API word in an invocation (an error). `None`: not such a
    /// statement (labels, branches and arithmetic are parsed as usual).
    pub(super) fn api_statement(
        &mut self,
        lx: &mut Lexer<'_>,
        k: usize,
        word: &str,
        op_at: usize,
        source: &SourceSpan,
    ) -> R<Option<Stmt>> {
        let agent = self.program.host.agent(k);
        let host_word = HOST_WORDS.split(' ').any(|w| w == word);
        let submission_word = SUBMISSION_WORDS.split(' ').any(|w| w == word);
        match agent {
            Agent::Invocation if host_word || submission_word => {
                return Err((
                    op_at,
                    format!(
                        "`{word}` is an API operation: write it in a host thread (`P{k}@host`) or a queue submission (`P{k}@queue 0`), not in an invocation"
                    ),
                ));
            }
            Agent::Invocation => return Ok(None),
            Agent::Host => {
                if matches!(word, "ld" | "st" | "rmw") {
                    return self.host_access(lx, k, word, op_at, source).map(Some);
                }
                if matches!(word, "copy" | "fill" | "update" | "dispatch" | "barrier") {
                    return Err((
                        op_at,
                        format!(
                            "`{word}` is a command: write it in a queue submission (`Pj@queue 0`) that the host thread submits"
                        ),
                    ));
                }
                if !host_word {
                    if matches!(
                        word,
                        "membar" | "cbar" | "avdevice" | "visdevice" | "beginil" | "endil"
                    ) {
                        return Err((
                            op_at,
                            format!(
                                "`{word}` is a shader instruction: a host thread has ld, st, rmw and the host API operations ({HOST_WORDS})"
                            ),
                        ));
                    }
                    return Ok(None);
                }
            }
            Agent::Submission { .. } => {
                if !submission_word {
                    return Err((
                        op_at,
                        format!(
                            "`{word}` is not a command: a queue submission holds {SUBMISSION_WORDS} (docs/host.md)"
                        ),
                    ));
                }
            }
        }
        let mut operand_at = Vec::new();
        let op = match word {
            "submit" => {
                let (t, at) = self.thread_operand(lx)?;
                operand_at.push(at);
                lx.expect_end("after the submitted thread")?;
                ApiOp::Submit { submission: t }
            }
            "flush" | "invalidate" => {
                let mut references = Vec::new();
                loop {
                    let (name, at) = lx.ident("a location name")?;
                    let r = self.mapped_reference(&name, at, || {
                        format!(
                            "`{word} {name}`: location `{name}` is not mapped memory (declare `mapped {name} noncoherent;` in the initial state)"
                        )
                    })?;
                    references.push(r);
                    if !lx.peek()?.is_punct(",") {
                        break;
                    }
                    lx.next()?;
                }
                lx.expect_end("after the locations")?;
                if word == "flush" {
                    ApiOp::Flush { references }
                } else {
                    ApiOp::Invalidate { references }
                }
            }
            "signal" | "wait" | "set" => {
                let kind = if word == "set" {
                    let (w, at) = lx.ident("`event` after `set`")?;
                    if w != "event" {
                        return Err((at, format!("expected `event` after `set`, found `{w}`")));
                    }
                    SyncKind::Event
                } else {
                    let (w, at) = lx.ident("fence, sem, timeline or event")?;
                    match w.as_str() {
                        "fence" => SyncKind::Fence,
                        "sem" => SyncKind::Semaphore,
                        "timeline" => SyncKind::Timeline,
                        "event" if word == "wait" => SyncKind::Event,
                        "event" => {
                            return Err((at, "an event is set: write `set event E`".into()));
                        }
                        _ => {
                            return Err((
                                at,
                                format!(
                                    "expected fence, sem, timeline or event after `{word}`, found `{w}`"
                                ),
                            ));
                        }
                    }
                };
                let (object, _) = lx.ident("the name of the synchronisation object")?;
                let value = if kind == SyncKind::Timeline {
                    lx.expect(",", "before the timeline value")?;
                    let (v, v_at) = lx.integer("the timeline value")?;
                    if v < 0 {
                        return Err((v_at, format!("timeline value {v} is negative")));
                    }
                    Some(v)
                } else {
                    None
                };
                lx.expect_end("after the synchronisation object")?;
                self.check_sync_agent(agent, word, kind, op_at)?;
                if word == "wait" {
                    ApiOp::Wait {
                        kind,
                        object,
                        value,
                        epoch: 0,
                    }
                } else {
                    ApiOp::Signal {
                        kind,
                        object,
                        value,
                        epoch: 0,
                    }
                }
            }
            "reset" => {
                // vkResetFences: "When vkResetFences is executed on the
                // host, it defines a fence unsignal operation for each
                // fence, which resets the fence to the unsignaled state."
                // vkResetEvent: "When vkResetEvent is executed on the host,
                // it defines an event unsignal operation which resets the
                // event to the unsignaled state."; vkCmdResetEvent: "When
                // vkCmdResetEvent is submitted to a queue, it defines an
                // execution dependency on commands that were submitted
                // before it, and defines an event unsignal operation which
                // resets the event to the unsignaled state."
                let (w, at) = lx.ident("`fence` or `event` after `reset`")?;
                let kind = match w.as_str() {
                    "fence" if agent.is_host() => SyncKind::Fence,
                    "fence" => {
                        return Err((
                            at,
                            "a fence is reset by the host (vkResetFences), not by a queue submission".into(),
                        ));
                    }
                    "event" => SyncKind::Event,
                    _ => {
                        return Err((
                            at,
                            format!(
                                "expected `fence` or `event` after `reset` (vkResetFences, vkResetEvent, vkCmdResetEvent; binary semaphores are unsignaled by their waits), found `{w}`"
                            ),
                        ));
                    }
                };
                let (object, _) = lx.ident("the name of the fence or event")?;
                lx.expect_end("after the fence or event")?;
                ApiOp::Reset { kind, object }
            }
            "dispatch" => {
                let mut threads = Vec::new();
                loop {
                    let (t, at) = self.thread_operand(lx)?;
                    threads.push(t);
                    operand_at.push(at);
                    if !lx.peek()?.is_punct(",") {
                        break;
                    }
                    lx.next()?;
                }
                lx.expect_end("after the dispatched threads")?;
                ApiOp::Dispatch { threads }
            }
            "barrier" => {
                let (src_stages, src_access) = self.scope_mask(lx, true)?;
                let arrow = lx.next()?;
                let gt = lx.next()?;
                if !(arrow.is_punct("-") && gt.is_punct(">")) {
                    return Err((
                        arrow.at,
                        format!(
                            "expected `->` between the source and destination scopes (`barrier COMPUTE:SHADER_WRITE -> HOST:HOST_READ`), found {}",
                            arrow.show()
                        ),
                    ));
                }
                let (dst_stages, dst_access) = self.scope_mask(lx, false)?;
                lx.expect_end("after the destination scope")?;
                ApiOp::Barrier(Dependency {
                    src_stages,
                    src_access,
                    dst_stages,
                    dst_access,
                })
            }
            "copy" | "fill" | "update" => self.transfer_command(lx, k, word, op_at, source)?,
            _ => unreachable!("API words are listed above"),
        };
        self.api_uses.push(ApiUse {
            thread: k,
            at: op_at,
            op: op.clone(),
            operand_at,
        });
        Ok(Some(Stmt::Op(Instruction::new(
            OpKind::Api(op),
            source.clone(),
        ))))
    }

    /// `copy SRC -> DST` (vkCmdCopyBuffer), `fill DST, V`
    /// (vkCmdFillBuffer), `update DST, V` (vkCmdUpdateBuffer) in submission
    /// `k`: the command, whose accesses are a transfer thread numbered
    /// after the test's threads (added by `add_transfer_threads`).
    fn transfer_command(
        &mut self,
        lx: &mut Lexer<'_>,
        k: usize,
        word: &str,
        op_at: usize,
        source: &SourceSpan,
    ) -> R<ApiOp> {
        let kind = match word {
            "copy" => TransferKind::Copy,
            "fill" => TransferKind::Fill,
            _ => TransferKind::Update,
        };
        let (src, dst, value) = if kind == TransferKind::Copy {
            let (s, s_at) = lx.ident("the source location of the copy (`copy x -> y`)")?;
            let arrow = lx.next()?;
            let gt = lx.next()?;
            if !(arrow.is_punct("-") && gt.is_punct(">")) {
                return Err((
                    arrow.at,
                    format!(
                        "expected `->` between the copy's source and destination (`copy {s} -> y`), found {}",
                        arrow.show()
                    ),
                ));
            }
            let (d, d_at) = lx.ident("the destination location of the copy")?;
            let src = self.used(&s, s_at);
            let dst = self.used(&d, d_at);
            let refs = &self.program.references;
            if refs[src].location == refs[dst].location {
                // VUID-vkCmdCopyBuffer-pRegions-00117
                return Err((
                    d_at,
                    format!(
                        "`copy {s} -> {d}` reads and writes one location: vkCmdCopyBuffer \"Each memory location accessed by this command must not be accessed by both a source region and a destination region\""
                    ),
                ));
            }
            (Some(src), dst, 0)
        } else {
            let (d, d_at) = lx.ident(&format!("the destination location of the {word}"))?;
            lx.expect(",", &format!("after the destination (`{word} {d}, 1`)"))?;
            let (v, _) = lx.integer(&format!("the data the {word} writes"))?;
            (None, self.used(&d, d_at), v)
        };
        lx.expect_end(&format!("after the {word} command"))?;
        let thread = self.program.threads.len() + self.transfers.len();
        self.transfers.push(PendingTransfer {
            submission: k,
            src,
            dst,
            value,
            at: op_at,
            source: source.clone(),
        });
        Ok(ApiOp::Transfer { kind, thread })
    }

    /// The transfer threads of the transfer commands, after the test's
    /// threads (P{n}, P{n+1}, ... in the order the commands were read),
    /// each on its submission's queue: a copy is a read of the source into
    /// the register `v` and a write of `v` to the destination, a fill or
    /// update one write of its data. The accesses are non-private and have
    /// no storage class or scope (like host accesses: the API's
    /// availability, visibility and domain operations order them). A
    /// command's accesses are a thread of their own, not statements of the
    /// submission: program order within one thread is happens-before, and
    /// commands in submission order are not ordered unless a
    /// synchronization command says so.
    pub(super) fn add_transfer_threads(&mut self) {
        let pending = std::mem::take(&mut self.transfers);
        // Fresh subgroup and workgroup ids: a transfer thread is in no
        // scope instance of the invocations.
        let next = |f: fn(&Thread) -> usize| {
            self.program
                .threads
                .iter()
                .map(|t| f(t) + 1)
                .max()
                .unwrap_or(0)
        };
        let (sg, wg) = (next(|t| t.subgroup), next(|t| t.workgroup));
        for (i, p) in pending.iter().enumerate() {
            let id = self.program.threads.len();
            let access = |kind: OpKind, reference: usize| {
                let mut ins = Instruction::new(kind, p.source.clone());
                ins.reference = Some(reference);
                ins.non_private = true;
                ins
            };
            let mut info = super::ThreadInfo::default();
            let mut code = Vec::new();
            let data = match p.src {
                Some(src) => {
                    let mut ld = access(OpKind::Load, src);
                    ld.dest = Some(COPY_REGISTER.to_string());
                    info.defined.insert(COPY_REGISTER.to_string());
                    code.push(Stmt::Op(ld));
                    Operand::Reg(COPY_REGISTER.to_string())
                }
                None => Operand::Const(p.value),
            };
            let mut st = access(OpKind::Store, p.dst);
            st.operand = Some(data);
            code.push(Stmt::Op(st));
            info.stmt_at = vec![p.at; code.len()];
            self.program.threads.push(Thread {
                id,
                subgroup: sg + i,
                workgroup: wg + i,
                queue_family: 0,
                device: 0,
                code,
                registers: Vec::new(),
                fragment: None,
            });
            self.infos.push(info);
            let queue = match self.program.host.agent(p.submission) {
                Agent::Submission { queue } => queue,
                _ => 0,
            };
            let agents = &mut self.program.host.agents;
            agents.resize(id, Agent::Invocation);
            agents.push(Agent::Submission { queue });
        }
        self.transfer_threads = pending.len();
    }

    /// Whether thread `k` is a transfer thread (not a column of the test).
    fn is_transfer_thread(&self, k: usize) -> bool {
        k + self.transfer_threads >= self.program.threads.len()
    }

    /// The reference `name` (at `at`), which must be mapped memory.
    fn mapped_reference(
        &mut self,
        name: &str,
        at: usize,
        error: impl FnOnce() -> String,
    ) -> R<usize> {
        let r = self.used(name, at);
        let loc = self.program.references[r].location;
        if self.program.host.mapping(loc).is_none() {
            return Err((at, error()));
        }
        Ok(r)
    }

    /// Which agents may signal or wait on which objects.
    fn check_sync_agent(&self, agent: Agent, word: &str, kind: SyncKind, at: usize) -> R<()> {
        let host = agent.is_host();
        let bad = match (kind, word) {
            (SyncKind::Fence, "signal") if host => Some(
                "a fence is signalled by a queue submission (vkQueueSubmit's fence), not by the host",
            ),
            (SyncKind::Fence, "wait") if !host => Some(
                "a fence is waited on by the host (vkWaitForFences), not by a queue submission",
            ),
            (SyncKind::Semaphore, _) if host => Some(
                "a binary semaphore is signalled and waited on by queue submissions only (the host signals and waits on timeline semaphores)",
            ),
            _ => None,
        };
        match bad {
            Some(m) => Err((at, m.into())),
            None => Ok(()),
        }
    }

    /// `Pn` or `n`.
    fn thread_operand(&mut self, lx: &mut Lexer<'_>) -> R<(usize, usize)> {
        let t = lx.next()?;
        match thread_of(&t) {
            Some(id) => Ok((id, t.at)),
            None => Err((
                t.at,
                format!("expected a thread (`P2`), found {}", t.show()),
            )),
        }
    }

    /// `STAGE[+STAGE...]:ACCESS[+ACCESS...]`: stages and access mask of one
    /// scope of a dependency, every access checked against the stages.
    fn scope_mask(&mut self, lx: &mut Lexer<'_>, first: bool) -> R<(u32, u32)> {
        let list = |lx: &mut Lexer<'_>,
                    table: &[(&str, u32)],
                    what: &str|
         -> R<Vec<(u32, usize, String)>> {
            let mut out = Vec::new();
            loop {
                let (w, at) = lx.ident(what)?;
                let upper = w.to_ascii_uppercase();
                let Some(&(_, bit)) = table.iter().find(|(n, _)| *n == upper) else {
                    let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
                    return Err((
                        at,
                        format!("unknown {what} `{w}`: expected one of {}", names.join(" ")),
                    ));
                };
                out.push((bit, at, upper));
                if !matches!(lx.peek()?.tok, Tok::Other('+')) {
                    return Ok(out);
                }
                lx.next()?;
            }
        };
        let stages = list(lx, stage::NAMES, "pipeline stage")?;
        lx.expect(":", "between the stages and the access mask")?;
        let accesses = list(lx, access::NAMES, "access type")?;
        let stage_mask = stages.iter().fold(0, |m, s| m | s.0);
        let access_mask = accesses.iter().fold(0, |m, s| m | s.0);
        for (bit, at, name) in &accesses {
            if *bit == 0 {
                continue;
            }
            if stage_mask & access::stages_for(*bit) == 0 {
                let side = if first { "source" } else { "destination" };
                return Err((
                    *at,
                    format!(
                        "access type {name} cannot be performed by the {side} stages of this barrier ({}): it needs {}",
                        stages
                            .iter()
                            .map(|s| s.2.as_str())
                            .collect::<Vec<_>>()
                            .join("+"),
                        stage_names(access::stages_for(*bit))
                    ),
                ));
            }
        }
        Ok((stage_mask, access_mask))
    }

    /// A host thread's `ld`, `st` or `rmw` on mapped memory: tokens `atom`,
    /// `acq`, `rel`, `acq_rel` and an rmw operation. "Each host atomic
    /// operation implicitly uses the CrossDevice scope, and uses a memory
    /// semantics equivalent to a C++ std::memory_order value of relaxed,
    /// acquire, release, acq_rel, or seq_cst" (seq_cst is not supported).
    fn host_access(
        &mut self,
        lx: &mut Lexer<'_>,
        k: usize,
        word: &str,
        op_at: usize,
        source: &SourceSpan,
    ) -> R<Stmt> {
        let kind = match word {
            "ld" => OpKind::Load,
            "st" => OpKind::Store,
            _ => OpKind::Rmw,
        };
        let mut ins = Instruction::new(kind.clone(), source.clone());
        let mut order = Order::Relaxed;
        while lx.peek()?.is_punct(".") {
            lx.next()?;
            let (tok, at) = lx.ident("an attribute after `.`")?;
            match tok.as_str() {
                "atom" => ins.atomic = true,
                "acq" => order = order.join(Order::Acquire),
                "rel" => order = order.join(Order::Release),
                "acq_rel" => order = Order::AcquireRelease,
                t if kind == OpKind::Rmw && super::RMW_OPS.iter().any(|(n, _)| *n == t) => {
                    ins.rmw_op = super::RMW_OPS
                        .iter()
                        .find(|(n, _)| *n == t)
                        .map(|x| x.1)
                        .unwrap_or_default();
                }
                _ => {
                    return Err((
                        at,
                        format!(
                            "`{tok}` is not a host access attribute: a host thread's {word} takes atom, acq, rel, acq_rel{} (host atomics have CrossDevice scope, and host memory has no storage class)",
                            if kind == OpKind::Rmw {
                                " and an rmw operation"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
        if kind == OpKind::Rmw && !ins.atomic {
            return Err((
                op_at,
                "a read-modify-write must be atomic: write `rmw.atom...`".into(),
            ));
        }
        if order != Order::Relaxed && !ins.atomic {
            return Err((
                op_at,
                "acq/rel need `atom`: only host atomics have a memory order".into(),
            ));
        }
        if (kind == OpKind::Load && order.is_release())
            || (kind == OpKind::Store && order.is_acquire())
        {
            return Err((
                op_at,
                "an atomic load cannot release and an atomic store cannot acquire".into(),
            ));
        }
        ins.semantics.order = order;
        ins.non_private = true;
        if ins.atomic {
            ins.scope = Some(Scope::CrossDevice);
        }
        let (loc_name, loc_at);
        match kind {
            OpKind::Load | OpKind::Rmw => {
                let (dest, _) = lx.ident("the destination register")?;
                lx.expect(",", "after the destination register")?;
                (loc_name, loc_at) = lx.ident("a location name")?;
                if kind == OpKind::Rmw {
                    lx.expect(",", "after the location")?;
                    ins.operand = Some(self.value(lx, k)?);
                }
                self.infos[k].defined.insert(dest.clone());
                ins.dest = Some(dest);
            }
            _ => {
                (loc_name, loc_at) = lx.ident("a location name")?;
                lx.expect(",", "after the location")?;
                ins.operand = Some(self.value(lx, k)?);
            }
        }
        lx.expect_end("after the operands")?;
        let r = self.mapped_reference(&loc_name, loc_at, || {
            format!(
                "host thread P{k} accesses `{loc_name}`, which is not mapped memory: declare `mapped {loc_name} coherent;` (or `noncoherent`) in the initial state"
            )
        })?;
        ins.reference = Some(r);
        Ok(Stmt::Op(ins))
    }

    /// The whole-program checks of the host side: threads named by `submit`
    /// and `dispatch`, each submission submitted once and each invocation
    /// dispatched once, submissions holding commands only, and every wait
    /// answered by a signal (a wait nobody signals hangs).
    pub(super) fn check_host(&mut self) -> Vec<PErr> {
        let mut problems = Vec::new();
        if self.program.host.is_empty() {
            return problems;
        }
        let n = self.program.threads.len();
        let agents: Vec<Agent> = (0..n).map(|t| self.program.host.agent(t)).collect();
        self.program.host.agents = agents.clone();
        let mut submitted: HashMap<usize, usize> = HashMap::new();
        let mut dispatched: HashMap<usize, usize> = HashMap::new();
        for u in &self.api_uses {
            match &u.op {
                ApiOp::Submit { submission } => {
                    let at = u.operand_at[0];
                    if !matches!(agents.get(*submission), Some(Agent::Submission { .. }))
                        || self.is_transfer_thread(*submission)
                    {
                        problems.push((
                            at,
                            format!("`submit P{submission}`: P{submission} is not a queue submission (declare it `P{submission}@queue 0`)"),
                        ));
                    } else if let Some(prev) = submitted.insert(*submission, at) {
                        problems.push((
                            at,
                            format!("submission P{submission} is submitted twice (first at line {}): write a second `@queue` column for a second batch", self.src.line(prev)),
                        ));
                    }
                }
                ApiOp::Dispatch { threads } => {
                    for (t, &at) in threads.iter().zip(&u.operand_at) {
                        if agents.get(*t) != Some(&Agent::Invocation) {
                            problems.push((
                                at,
                                format!("`dispatch P{t}`: P{t} is not a shader invocation"),
                            ));
                        } else if let Some(prev) = dispatched.insert(*t, at) {
                            problems.push((
                                at,
                                format!(
                                    "invocation P{t} is dispatched twice (first at line {})",
                                    self.src.line(prev)
                                ),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        for (k, a) in agents.iter().enumerate() {
            if self.is_transfer_thread(k) {
                continue;
            }
            if a.is_submission() && !submitted.contains_key(&k) {
                let at = self.infos[k].stmt_at.first().copied().unwrap_or(0);
                problems.push((
                    at,
                    format!(
                        "submission P{k} is never submitted: add `submit P{k}` to a host thread"
                    ),
                ));
            }
            if a.is_submission() {
                for (s, &at) in self.program.threads[k]
                    .code
                    .iter()
                    .zip(&self.infos[k].stmt_at)
                {
                    if !matches!(s, Stmt::Op(i) if matches!(i.kind, OpKind::Api(_))) {
                        problems.push((at, format!("a queue submission holds commands only ({SUBMISSION_WORDS}); labels, jumps and arithmetic belong in threads")));
                    }
                }
            }
        }
        // Synchronisation objects: one kind per name, at most one signal of
        // a fence, binary semaphore or event, distinct timeline values, and
        // a signal for every wait.
        let mut kinds: HashMap<&str, (SyncKind, usize)> = HashMap::new();
        let mut signals: HashMap<&str, Vec<(Option<i64>, usize)>> = HashMap::new();
        for u in &self.api_uses {
            let (kind, object) = match &u.op {
                ApiOp::Signal { kind, object, .. } | ApiOp::Wait { kind, object, .. } => {
                    (kind, object)
                }
                ApiOp::Reset { kind, object } => (kind, object),
                _ => continue,
            };
            match kinds.get(object.as_str()) {
                Some((k0, at0)) if k0 != kind => problems.push((
                    u.at,
                    format!(
                        "`{object}` is used as a {} here and as a {} at line {}",
                        kind.name(),
                        k0.name(),
                        self.src.line(*at0)
                    ),
                )),
                Some(_) => {}
                None => {
                    kinds.insert(object, (*kind, u.at));
                }
            }
            if let ApiOp::Signal { value, .. } = &u.op {
                let list = signals.entry(object).or_default();
                // Fences, binary semaphores and reset events are reused
                // (`reuse`).
                let reset = |o: &str| {
                    self.api_uses
                        .iter()
                        .any(|v| matches!(&v.op, ApiOp::Reset { object: r, .. } if r == o))
                };
                if *kind == SyncKind::Event && !list.is_empty() && !reset(object) {
                    problems.push((
                        u.at,
                        format!("{} `{object}` is set twice (first at line {}) with no `reset event {object}` between: vkmm takes one set per reset (vkResetEvent, vkCmdResetEvent)", kind.name(), self.src.line(list[0].1)),
                    ));
                }
                if *kind == SyncKind::Timeline
                    && let Some((_, prev)) = list.iter().find(|(v, _)| v == value)
                {
                    problems.push((
                        u.at,
                        format!("timeline `{object}` is signalled with value {} twice (first at line {}): signal values must increase", value.unwrap_or(0), self.src.line(*prev)),
                    ));
                }
                list.push((*value, u.at));
            }
        }
        let mut binary_waits: HashMap<&str, usize> = HashMap::new();
        for u in &self.api_uses {
            let ApiOp::Wait {
                kind,
                object,
                value,
                ..
            } = &u.op
            else {
                continue;
            };
            let sigs = signals
                .get(object.as_str())
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let answered = match kind {
                SyncKind::Timeline => {
                    let v = value.unwrap_or(0);
                    v == 0 || sigs.iter().any(|(s, _)| s.unwrap_or(0) >= v)
                }
                _ => !sigs.is_empty(),
            };
            if !answered {
                let who = if agents[u.thread].is_host() {
                    "the host thread"
                } else {
                    "the queue"
                };
                let what = match kind {
                    SyncKind::Timeline => format!(
                        "no signal of timeline `{object}` reaches value {}{}",
                        value.unwrap_or(0),
                        match sigs.iter().filter_map(|(s, _)| *s).max() {
                            Some(m) => format!(" (the highest signalled value is {m})"),
                            None => String::new(),
                        }
                    ),
                    _ => format!("nothing signals {} `{object}`", kind.name()),
                };
                problems.push((
                    u.at,
                    format!(
                        "hang: this wait never returns: {what}, so P{} ({who}) waits forever",
                        u.thread
                    ),
                ));
            }
            if *kind == SyncKind::Semaphore
                && sigs.len() < 2
                && let Some(prev) = binary_waits.insert(object, u.at)
            {
                problems.push((
                    u.at,
                    format!("binary semaphore `{object}` is waited on twice (first at line {}): one signal unblocks one wait, so the second hangs", self.src.line(prev)),
                ));
            }
        }
        if problems.is_empty() {
            problems.extend(self.reuse());
        }
        problems
    }
}

/// The stage names of a mask, `+`-joined.
fn stage_names(mask: u32) -> String {
    stage::NAMES
        .iter()
        .filter(|(n, b)| mask & b != 0 && !matches!(*n, "COMPUTE_SHADER" | "ALL_TRANSFER"))
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(" or ")
}
