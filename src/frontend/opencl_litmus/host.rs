//! OpenCL host threads, commands and shared virtual memory
//! (docs/format-opencl-litmus.md, "Host threads"; docs/host.md, "OpenCL").
//!
//! A host thread (`Pk@host`) holds plain accesses, C11 atomics and host API
//! calls. Each call that enqueues a command becomes an [`ApiOp::ClEnqueue`]
//! event of the host thread, and the command a thread of its own, numbered
//! after the test's threads (agent [`Agent::Submission`] of its queue): its
//! start ([`ApiOp::ClStart`], the execution of C) and its completion
//! ([`ApiOp::ClComplete`], the signalling entity S). Event names, wait lists,
//! queue order and `clFinish` are resolved here, once every thread is read,
//! into the commands each command or host call waits on; the ordering rules
//! of 3.6.4 are the engine's (`engine::host`) and the model's
//! (`models/opencl-host.cat`).

use super::{Ctx, K, Parser, R};
use crate::ir::host::{Agent, ApiOp, ClCommandKind, Svm};
use crate::ir::{Instruction, OPENCL_GLOBAL, OpKind, Operand, Scope, SourceSpan, Stmt, Thread};
use std::collections::HashMap;

/// A name and where it was written.
type Named = (String, usize, usize);

/// The host side of the test being read.
#[derive(Default)]
pub(super) struct HostState {
    /// `svm x KIND;` declarations of the init block.
    svm: Vec<(Named, Svm)>,
    /// `queue q out_of_order;` declarations.
    out_of_order: HashMap<String, (usize, usize)>,
    /// Whether each thread read so far is a host thread.
    pub(super) host: Vec<bool>,
    /// The host API calls, in the order they were read.
    calls: Vec<Call>,
    /// Where each thread's declaration starts.
    thread_at: Vec<(usize, usize)>,
    /// The host pointers of `clEnqueueReadBuffer` / `clEnqueueWriteBuffer`.
    host_memory: Vec<Named>,
}

/// Whether `call` copies between a buffer and host memory.
fn transfer(call: &str) -> bool {
    matches!(call, "clEnqueueReadBuffer" | "clEnqueueWriteBuffer")
}

/// What `call` does to its memory object, for messages.
fn verb(call: &str) -> &'static str {
    match call {
        "clEnqueueReadBuffer" => "reads",
        "clEnqueueWriteBuffer" => "writes",
        "clEnqueueUnmapMemObject" | "clEnqueueSVMUnmap" => "unmaps",
        _ => "maps",
    }
}

/// What a host call does, as read.
enum What {
    Enqueue {
        queue: Named,
        kind: Pending,
        waits: Vec<Named>,
        event: Option<Named>,
        call: &'static str,
        /// A blocking map: the statement of the host's wait after it.
        blocking: Option<usize>,
    },
    WaitForEvents(Vec<Named>),
    Finish(Named),
    /// `clCreateUserEvent(&u)`.
    CreateUserEvent(Named),
    /// `clSetUserEventStatus(u, CL_COMPLETE)`.
    SetUserEvent(Named),
}

/// A command's kind before thread numbers are checked.
enum Pending {
    Kernel(Vec<(usize, usize, usize)>),
    Map(Vec<usize>),
    Unmap(Vec<usize>),
    Marker,
    Barrier,
    /// `clEnqueueReadBuffer` (`read`) or `clEnqueueWriteBuffer`: the
    /// buffer's locations and the host memory's, element by element.
    Transfer {
        read: bool,
        buffer: Vec<usize>,
        host: Vec<usize>,
        /// The buffer's and the host memory's names, for labels.
        names: (String, String),
    },
}

struct Call {
    thread: usize,
    /// The statement of the call in the thread's code.
    stmt: usize,
    line: usize,
    what: What,
}

/// The host API calls the dialect reads.
const CALLS: &[&str] = &[
    "clEnqueueNDRangeKernel",
    "clEnqueueMapBuffer",
    "clEnqueueSVMMap",
    "clEnqueueUnmapMemObject",
    "clEnqueueSVMUnmap",
    "clEnqueueMarkerWithWaitList",
    "clEnqueueBarrierWithWaitList",
    "clEnqueueReadBuffer",
    "clEnqueueWriteBuffer",
    "clWaitForEvents",
    "clFinish",
    "clCreateUserEvent",
    "clSetUserEventStatus",
];

/// The host API calls, for messages.
const CALL_LIST: &str = "clEnqueueNDRangeKernel, clEnqueueMapBuffer, clEnqueueSVMMap, clEnqueueUnmapMemObject, clEnqueueSVMUnmap, clEnqueueMarkerWithWaitList, clEnqueueBarrierWithWaitList, clEnqueueReadBuffer, clEnqueueWriteBuffer, clWaitForEvents, clFinish, clCreateUserEvent, clSetUserEventStatus";

/// The built-in functions a host thread may call: C11 atomics (OpenCL C's
/// names), which the host performs at `memory_scope_all_svm_devices`.
pub(super) fn host_function(name: &str) -> bool {
    let base = name.strip_suffix("_explicit").unwrap_or(name);
    matches!(
        base,
        "atomic_load"
            | "atomic_store"
            | "atomic_exchange"
            | "atomic_fetch_add"
            | "atomic_fetch_sub"
            | "atomic_fetch_and"
            | "atomic_fetch_or"
            | "atomic_fetch_xor"
            | "atomic_fetch_min"
            | "atomic_fetch_max"
            | "atomic_compare_exchange_strong"
            | "atomic_compare_exchange_weak"
            | "atomic_flag_test_and_set"
            | "atomic_flag_clear"
            | "atomic_init"
    )
}

/// Whether a statement starting with `word` is a host API call.
pub(super) fn is_api_word(word: &str) -> bool {
    word.starts_with("cl") && word.len() > 2 && word.as_bytes()[2].is_ascii_uppercase()
}

impl Parser<'_> {
    /// In the init block: `svm x KIND;` (KIND `coarse`, `fine`, `fine
    /// atomics`, `system`, `system atomics`) or `queue q out_of_order;`.
    /// `false` when the entry is something else.
    pub(super) fn host_declaration(&mut self) -> R<bool> {
        let svm = self.is_ident("svm");
        if !(svm || self.is_ident("queue")) || !matches!(self.peek_at(1).k, K::Ident(_)) {
            return Ok(false);
        }
        self.next();
        let (name, t) = self.ident("a name")?;
        if svm {
            let (kind, kt) = self.ident("an SVM kind (`coarse`, `fine` or `system`)")?;
            let atomics = self.is_ident("atomics");
            if atomics {
                self.next();
            }
            let k = match (kind.as_str(), atomics) {
                ("coarse", false) => Svm::Coarse,
                ("fine", a) => Svm::FineBuffer { atomics: a },
                ("system", a) => Svm::FineSystem { atomics: a },
                ("coarse", true) => {
                    return Err((
                        kt.line,
                        kt.col,
                        "coarse-grained SVM has no atomics support (`fine atomics` or `system atomics`: \"Fine-Grained SVM with atomics\", 3.3)".into(),
                    ));
                }
                _ => {
                    return Err((
                        kt.line,
                        kt.col,
                        format!(
                            "expected an SVM kind after `svm {name}`: `coarse`, `fine`, `fine atomics`, `system` or `system atomics`, found `{kind}`"
                        ),
                    ));
                }
            };
            if self.host.svm.iter().any(|((n, _, _), _)| *n == name) {
                return Err((t.line, t.col, format!("`svm {name}` is declared twice")));
            }
            self.host.svm.push(((name, t.line, t.col), k));
        } else {
            self.expect_word(
                "out_of_order",
                &format!("after `queue {name}` (queues are in order unless declared so)"),
            )?;
            if self
                .host
                .out_of_order
                .insert(name.clone(), (t.line, t.col))
                .is_some()
            {
                return Err((t.line, t.col, format!("queue `{name}` is declared twice")));
            }
        }
        Ok(true)
    }

    /// The word `want` (an error naming `after` otherwise).
    fn expect_word(&mut self, want: &str, after: &str) -> R<()> {
        let (w, t) = self.ident(&format!("`{want}`"))?;
        if w == want {
            Ok(())
        } else {
            Err((
                t.line,
                t.col,
                format!("expected `{want}` {after}, found `{w}`"),
            ))
        }
    }

    /// A host API call statement (`clFinish(q);`), at `t`.
    pub(super) fn host_call(&mut self, ctx: &mut Ctx, word: &str) -> R<()> {
        let t = self.next();
        if !ctx.host {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{word}` is a host API call: write it in a host thread (`P{}@host`), not in a work-item",
                    ctx.index
                ),
            ));
        }
        let Some(&call) = CALLS.iter().find(|c| **c == word) else {
            return Err((
                t.line,
                t.col,
                format!(
                    "unknown host API call `{word}` (supported: {CALL_LIST}){}",
                    super::suggest::did_you_mean(word, CALLS.iter().copied())
                ),
            ));
        };
        if ctx.conditional > 0 {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{word}` inside `if` or `while`: host API calls are at the top level of a host thread (each enqueues its command exactly once)"
                ),
            ));
        }
        self.expect("(", &format!("after `{word}`"))?;
        let what = match call {
            "clWaitForEvents" => {
                let events = if self.is("{") {
                    self.name_list("an event name")?
                } else {
                    let (e, et) = self.ident("an event or `{` for a list of events")?;
                    vec![(e, et.line, et.col)]
                };
                What::WaitForEvents(events)
            }
            "clFinish" => {
                let (q, qt) = self.ident("a command-queue name")?;
                What::Finish((q, qt.line, qt.col))
            }
            "clCreateUserEvent" => {
                self.expect("&", "before the created user event (`&u`)")?;
                let (e, et) = self.ident("a user event name")?;
                What::CreateUserEvent((e, et.line, et.col))
            }
            "clSetUserEventStatus" => {
                let (e, et) = self.ident("a user event name")?;
                self.expect(",", "after the user event")?;
                self.expect_word(
                    "CL_COMPLETE",
                    "(vkmm sets user events to CL_COMPLETE only: a negative status, an error, is not modelled)",
                )?;
                What::SetUserEvent((e, et.line, et.col))
            }
            _ => {
                let (q, qt) = self.ident("a command-queue name")?;
                let queue = (q, qt.line, qt.col);
                let mut blocking = false;
                let kind = match call {
                    "clEnqueueNDRangeKernel" => {
                        self.expect(",", "after the queue")?;
                        let mut list = Vec::new();
                        for (name, l, c) in self.name_list("a work-item thread `Pk`")? {
                            let k = name
                                .strip_prefix('P')
                                .and_then(|d| d.parse::<usize>().ok())
                                .filter(|_| super::is_thread_name(&name))
                                .ok_or((
                                    l,
                                    c,
                                    format!("expected a work-item thread `Pk`, found `{name}`"),
                                ))?;
                            list.push((k, l, c));
                        }
                        if list.is_empty() {
                            return Err((
                                t.line,
                                t.col,
                                "a kernel enqueue runs at least one work-item".into(),
                            ));
                        }
                        Pending::Kernel(list)
                    }
                    "clEnqueueMapBuffer" | "clEnqueueSVMMap" => {
                        self.expect(",", "after the queue")?;
                        let svm = call == "clEnqueueSVMMap";
                        if svm {
                            blocking = self.blocking()?;
                            self.expect(",", "after the blocking flag")?;
                        }
                        let locs = self.mapped_object(ctx, call, svm)?;
                        if !svm {
                            self.expect(",", "after the buffer")?;
                            blocking = self.blocking()?;
                        }
                        Pending::Map(locs)
                    }
                    "clEnqueueUnmapMemObject" | "clEnqueueSVMUnmap" => {
                        self.expect(",", "after the queue")?;
                        Pending::Unmap(self.mapped_object(
                            ctx,
                            call,
                            call == "clEnqueueSVMUnmap",
                        )?)
                    }
                    "clEnqueueReadBuffer" | "clEnqueueWriteBuffer" => {
                        self.expect(",", "after the queue")?;
                        let buffer_name = self.peek().show().replace('`', "");
                        let buffer = self.mapped_object(ctx, call, false)?;
                        self.expect(",", "after the buffer")?;
                        blocking = self.blocking()?;
                        self.expect(",", "after the blocking flag")?;
                        let host_name = self.peek().show().replace('`', "");
                        let host = self.host_pointer(ctx, call, buffer.len())?;
                        Pending::Transfer {
                            read: call == "clEnqueueReadBuffer",
                            buffer,
                            host,
                            names: (buffer_name, host_name),
                        }
                    }
                    "clEnqueueMarkerWithWaitList" => Pending::Marker,
                    _ => Pending::Barrier,
                };
                let mut waits = Vec::new();
                let mut event = None;
                if self.eat(",") {
                    if self.is_ident("NULL") {
                        self.next();
                    } else {
                        waits = self.name_list("an event name")?;
                    }
                    if self.eat(",") {
                        if self.is_ident("NULL") {
                            self.next();
                        } else {
                            self.expect("&", "before the returned event (`&e`) or `NULL`")?;
                            let (e, et) = self.ident("an event name")?;
                            event = Some((e, et.line, et.col));
                        }
                    }
                }
                What::Enqueue {
                    queue,
                    kind,
                    waits,
                    event,
                    call,
                    blocking: blocking.then_some(0),
                }
            }
        };
        self.expect(")", &format!("to close `{word}(`"))?;
        self.expect(";", "after a call")?;
        let source = self.span(t.line);
        let stmt = ctx.code.len();
        let placeholder = |c: &'static str| {
            Stmt::Op(Instruction::new(
                OpKind::Api(ApiOp::ClWait {
                    commands: Vec::new(),
                    call: c,
                }),
                source.clone(),
            ))
        };
        ctx.code.push(placeholder(call));
        let mut what = what;
        if let What::Enqueue {
            blocking: Some(b), ..
        } = &mut what
        {
            *b = ctx.code.len();
            ctx.code.push(placeholder(call));
        }
        self.host.calls.push(Call {
            thread: ctx.index,
            stmt,
            line: t.line,
            what,
        });
        Ok(())
    }

    /// `{a, b}` (possibly empty).
    fn name_list(&mut self, what: &str) -> R<Vec<Named>> {
        self.expect("{", &format!("to open a list ({what}s)"))?;
        let mut out = Vec::new();
        if self.eat("}") {
            return Ok(out);
        }
        loop {
            let (n, t) = self.ident(what)?;
            out.push((n, t.line, t.col));
            if self.eat("}") {
                return Ok(out);
            }
            self.expect(",", "between list elements")?;
        }
    }

    /// `CL_TRUE` or `CL_FALSE`.
    fn blocking(&mut self) -> R<bool> {
        let (w, t) = self.ident("`CL_TRUE` or `CL_FALSE` (blocking or not)")?;
        match w.as_str() {
            "CL_TRUE" => Ok(true),
            "CL_FALSE" => Ok(false),
            _ => Err((
                t.line,
                t.col,
                format!("expected `CL_TRUE` or `CL_FALSE` (blocking or not), found `{w}`"),
            )),
        }
    }

    /// The memory object a map or unmap names: a `global` parameter of the
    /// host thread, a buffer for `clEnqueueMapBuffer` /
    /// `clEnqueueUnmapMemObject`, SVM for `clEnqueueSVMMap` /
    /// `clEnqueueSVMUnmap`. Its locations (an array: every element).
    fn mapped_object(&mut self, ctx: &Ctx, call: &str, svm_call: bool) -> R<Vec<usize>> {
        let (name, t) = self.param_name(&format!("`{call}` {} a memory object", verb(call)))?;
        let Some(p) = ctx.params.get(&name) else {
            let what = if ctx.regs.contains(&name) {
                format!("`{name}` is a register, not a memory object")
            } else {
                format!("`{name}` is not a parameter of P{}", ctx.index)
            };
            return Err((
                t.line,
                t.col,
                format!(
                    "`{call}` {} a buffer{}: {what} (declare it `global int* {name}`)",
                    verb(call),
                    if transfer(call) {
                        ""
                    } else {
                        " or SVM allocation"
                    }
                ),
            ));
        };
        let kind = self
            .host
            .svm
            .iter()
            .find(|((n, _, _), _)| *n == name)
            .map(|(_, k)| *k)
            .unwrap_or(Svm::Buffer);
        let is_svm = kind != Svm::Buffer;
        if svm_call && !is_svm {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{call}` of `{name}`, which is a buffer, not SVM: use {} (or declare `svm {name} coarse;`)",
                    if call == "clEnqueueSVMMap" {
                        "clEnqueueMapBuffer"
                    } else {
                        "clEnqueueUnmapMemObject"
                    }
                ),
            ));
        }
        if !svm_call && is_svm {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{call}` of `{name}`, which is {} SVM, not a buffer: use {}",
                    kind.spelling(),
                    match call {
                        "clEnqueueMapBuffer" => "clEnqueueSVMMap",
                        "clEnqueueUnmapMemObject" => "clEnqueueSVMUnmap",
                        _ => "the host's own accesses (SVM needs no copy) or clEnqueueSVMMap",
                    }
                ),
            ));
        }
        Ok((p.reference..p.reference + p.len).collect())
    }

    /// The column of line `line`'s first non-blank character.
    fn indent(&self, line: usize) -> usize {
        self.lines
            .get(line.wrapping_sub(1))
            .map_or(1, |l| l.len() - l.trim_start().len() + 1)
    }

    /// A parameter's name (`what`: the message's start when it is not a
    /// name) and its token.
    fn param_name(&mut self, what: &str) -> R<(String, super::Tok)> {
        let t = self.peek().clone();
        let K::Ident(name) = &t.k else {
            return Err((
                t.line,
                t.col,
                format!("{what}: expected a parameter name, found {}", t.show()),
            ));
        };
        let name = name.clone();
        self.next();
        Ok((name, t))
    }

    /// The host memory a read or write of a buffer copies to or from: a
    /// parameter of the host thread that is not SVM, with `len` elements
    /// (the buffer's). Its locations.
    fn host_pointer(&mut self, ctx: &Ctx, call: &str, len: usize) -> R<Vec<usize>> {
        let dir = if call == "clEnqueueReadBuffer" {
            "into"
        } else {
            "from"
        };
        let (name, t) = self.param_name(&format!("`{call}` copies {dir} host memory"))?;
        let Some(p) = ctx.params.get(&name) else {
            let what = if ctx.regs.contains(&name) {
                format!(
                    "`{name}` is a register: pass host memory, a parameter (`global int* {name}`) the host reads or writes"
                )
            } else {
                format!("`{name}` is not a parameter of P{}", ctx.index)
            };
            return Err((t.line, t.col, format!("`{call}`'s host pointer: {what}")));
        };
        if let Some((_, kind)) = self.host.svm.iter().find(|((n, _, _), _)| *n == name) {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{call}`'s host pointer `{name}` is {} SVM: the host pointer is host memory, which no `svm` declaration names",
                    kind.spelling()
                ),
            ));
        }
        if p.len != len {
            return Err((
                t.line,
                t.col,
                format!(
                    "`{call}` copies the whole buffer ({len} element{}), but `{name}` has {}",
                    if len == 1 { "" } else { "s" },
                    p.len
                ),
            ));
        }
        self.host.host_memory.push((name, t.line, t.col));
        Ok((p.reference..p.reference + p.len).collect())
    }

    /// A cycle of waits across host threads is a hang: a host call returns
    /// after the calls before it in its thread, a command starts after its
    /// enqueue and the completions it waits on, completes after its start,
    /// and a host wait returns after the completions it waits on. `host`:
    /// the host calls (thread, statement, operation); `commands`: the
    /// command threads, numbered from `n`.
    fn wait_cycle(&self, host: &[(usize, usize, ApiOp)], commands: &[Thread], n: usize) -> R<()> {
        let p = host.len();
        let start = |c: usize| p + 2 * (c - n);
        let mut next: Vec<Vec<usize>> = vec![Vec::new(); p + 2 * commands.len()];
        for (k, (t, s, op)) in host.iter().enumerate() {
            // The next call of the same host thread.
            if let Some(j) = (0..p)
                .filter(|&j| host[j].0 == *t && host[j].1 > *s)
                .min_by_key(|&j| host[j].1)
            {
                next[k].push(j);
            }
            match op {
                ApiOp::ClEnqueue { command, .. } => next[k].push(start(*command)),
                ApiOp::ClWait { commands: cs, .. } => {
                    for &c in cs {
                        next[start(c) + 1].push(k);
                    }
                }
                _ => {}
            }
        }
        for (i, th) in commands.iter().enumerate() {
            let c = n + i;
            next[start(c)].push(start(c) + 1);
            if let Some(Stmt::Op(ins)) = th.code.first()
                && let OpKind::Api(ApiOp::ClStart { waits, .. }) = &ins.kind
            {
                for &w in waits {
                    next[start(w) + 1].push(start(c));
                }
            }
        }
        // Depth-first search for a cycle through a host wait.
        let mut state = vec![0u8; next.len()];
        let mut path: Vec<usize> = Vec::new();
        fn dfs(
            v: usize,
            next: &[Vec<usize>],
            state: &mut [u8],
            path: &mut Vec<usize>,
        ) -> Option<usize> {
            state[v] = 1;
            path.push(v);
            for &w in &next[v] {
                if state[w] == 1 {
                    return Some(w);
                }
                if state[w] == 0
                    && let Some(c) = dfs(w, next, state, path)
                {
                    return Some(c);
                }
            }
            path.pop();
            state[v] = 2;
            None
        }
        for v in 0..next.len() {
            if state[v] != 0 {
                continue;
            }
            let Some(w) = dfs(v, &next, &mut state, &mut path) else {
                continue;
            };
            let at = path.iter().position(|&x| x == w).unwrap_or(0);
            let cycle = &path[at..];
            let lines: Vec<String> = cycle
                .iter()
                .filter(|&&x| x < p)
                .map(|&x| {
                    let (t, s, _) = &host[x];
                    format!(
                        "P{t} line {}",
                        self.program.threads[*t].code[*s].source().line
                    )
                })
                .collect();
            let wait = cycle
                .iter()
                .copied()
                .find(|&x| x < p && matches!(host[x].2, ApiOp::ClWait { .. }))
                .unwrap_or(cycle[0].min(p.saturating_sub(1)));
            let (t, s, _) = &host[wait];
            let line = self.program.threads[*t].code[*s].source().line;
            let col = self.indent(line);
            return Err((
                line,
                col,
                format!(
                    "hang: this wait never returns: the host calls and commands at {} wait on each other in a cycle, so P{t} (the host thread) waits forever",
                    lines.join(", ")
                ),
            ));
        }
        Ok(())
    }

    /// The global locations of the name `name`: itself, or an array's
    /// elements.
    fn locations_of(&self, name: &str) -> Vec<usize> {
        match self.arrays.get(name) {
            Some(&len) => (0..len)
                .filter_map(|k| self.locs.get(&format!("{name}[{k}]")).copied())
                .collect(),
            None => self.locs.get(name).copied().into_iter().collect(),
        }
    }

    /// Records where thread `index` starts and whether it is a host thread.
    pub(super) fn host_thread(&mut self, index: usize, host: bool, at: (usize, usize)) {
        self.host.host.resize(index, false);
        self.host.host.push(host);
        self.host.thread_at.resize(index, (0, 0));
        self.host.thread_at.push(at);
    }

    /// Once every thread is read: checks the host side and builds the
    /// command threads, the agents and the memory kinds.
    pub(super) fn finish_host(&mut self) -> R<()> {
        let n = self.program.threads.len();
        let is_host = |t: usize| self.host.host.get(t).copied().unwrap_or(false);
        if !(0..n).any(is_host) {
            if let Some(((name, l, c), _)) = self.host.svm.first() {
                return Err((
                    *l,
                    *c,
                    format!(
                        "`svm {name}` declares shared virtual memory, which only a test with a host thread (`Pk@host`) uses"
                    ),
                ));
            }
            if let Some((name, (l, c))) = self.host.out_of_order.iter().next() {
                return Err((
                    *l,
                    *c,
                    format!(
                        "queue `{name}` is declared, but no host thread (`Pk@host`) enqueues commands"
                    ),
                ));
            }
            return Ok(());
        }
        // Memory kinds: every global location is a buffer unless `svm`.
        let mut svm: Vec<Option<Svm>> = vec![None; self.program.locations.len()];
        for (name, class) in &self.classes {
            if *class != OPENCL_GLOBAL {
                continue;
            }
            for l in self.locations_of(name) {
                svm[l] = Some(Svm::Buffer);
            }
        }
        for ((name, l, c), kind) in &self.host.svm {
            if self.classes.get(name) != Some(&OPENCL_GLOBAL) {
                return Err((
                    *l,
                    *c,
                    format!(
                        "`svm {name}`: no thread declares `{name}` as a `global` parameter (SVM is global memory shared with the host)"
                    ),
                ));
            }
            for l in self.locations_of(name) {
                svm[l] = Some(*kind);
            }
        }
        // Host memory: the host pointers of reads and writes of buffers.
        // The host's own allocation ("host threads may only access global
        // memory", 3.6; the host pointer is memory of the host program),
        // which no work-item touches and no map or unmap names; only the
        // host threads and the copying commands access it, ordered by the
        // rules of 3.6.4 like fine-grained system SVM without atomics.
        let mut host_locs: Vec<usize> = Vec::new();
        for (name, _, _) in &self.host.host_memory {
            host_locs.extend(self.locations_of(name));
        }
        for (t, th) in self.program.threads.iter().enumerate() {
            if is_host(t) {
                continue;
            }
            if let Some(i) = th.code.iter().find_map(|s| match s {
                Stmt::Op(i) if i.reference.is_some_and(|l| host_locs.contains(&l)) => Some(i),
                _ => None,
            }) {
                let name = self
                    .host
                    .host_memory
                    .iter()
                    .find(|(n, _, _)| self.locations_of(n).iter().any(|l| Some(*l) == i.reference))
                    .map_or(String::new(), |(n, _, _)| n.clone());
                let line = i.source.line;
                let col = self.indent(line);
                return Err((
                    line,
                    col,
                    format!(
                        "work-item P{t} accesses `{name}`, the host memory of a clEnqueueReadBuffer/clEnqueueWriteBuffer: a kernel reaches host data through a buffer (or SVM), not the host pointer"
                    ),
                ));
            }
        }
        for &l in &host_locs {
            svm[l] = Some(Svm::FineSystem { atomics: false });
        }
        for c in &self.host.calls {
            if let What::Enqueue {
                kind: Pending::Map(ls) | Pending::Unmap(ls),
                call,
                ..
            } = &c.what
                && ls.iter().any(|l| host_locs.contains(l))
            {
                let col = self.indent(c.line);
                return Err((
                    c.line,
                    col,
                    format!(
                        "`{call}` of host memory (the host pointer of a clEnqueueReadBuffer/clEnqueueWriteBuffer): map a buffer, and copy with the host pointer"
                    ),
                ));
            }
        }
        // Commands: one thread each, after the test's threads.
        let calls = std::mem::take(&mut self.host.calls);
        let mut command_of_call: Vec<Option<usize>> = Vec::new();
        let mut next = n;
        for c in &calls {
            if matches!(c.what, What::Enqueue { .. } | What::SetUserEvent(_)) {
                command_of_call.push(Some(next));
                next += 1;
            } else {
                command_of_call.push(None);
            }
        }
        // Events: who returns them.
        let mut events: HashMap<&str, (usize, usize, usize)> = HashMap::new(); // name -> (command, call index, line)
        for (k, c) in calls.iter().enumerate() {
            if let What::Enqueue {
                event: Some((e, l, col)),
                ..
            } = &c.what
            {
                if let Some(&(_, _, first)) = events.get(e.as_str()) {
                    return Err((
                        *l,
                        *col,
                        format!(
                            "event `{e}` is returned twice (first at line {first}): name each command's event once"
                        ),
                    ));
                }
                events.insert(e, (command_of_call[k].unwrap_or(0), k, c.line));
            }
        }
        // User events: created by one call, completed by the command of the
        // call setting them.
        let mut created: HashMap<&str, (usize, usize)> = HashMap::new(); // name -> (call index, line)
        for (k, c) in calls.iter().enumerate() {
            match &c.what {
                What::CreateUserEvent((e, l, col)) => {
                    if let Some(&(_, _, first)) = events.get(e.as_str()) {
                        return Err((
                            *l,
                            *col,
                            format!(
                                "event `{e}` is returned twice (first at line {first}): name each command's event once"
                            ),
                        ));
                    }
                    if let Some((_, first)) = created.insert(e, (k, c.line)) {
                        return Err((
                            *l,
                            *col,
                            format!("user event `{e}` is created twice (first at line {first})"),
                        ));
                    }
                }
                What::SetUserEvent((e, l, col)) => {
                    let Some(&(j, line)) = created.get(e.as_str()) else {
                        return Err((
                            *l,
                            *col,
                            format!(
                                "`{e}` is not a user event created before this call: create it with `clCreateUserEvent(&{e});`"
                            ),
                        ));
                    };
                    if calls[j].thread != c.thread {
                        // The order of creation and set is one thread's.
                        return Err((
                            *l,
                            *col,
                            format!(
                                "user event `{e}` is set by P{} but created by P{}: vkmm orders a user event's calls by one host thread's program order",
                                c.thread, calls[j].thread
                            ),
                        ));
                    }
                    if let Some(&(_, _, first)) = events.get(e.as_str()) {
                        return Err((
                            *l,
                            *col,
                            format!("user event `{e}` is set twice (first at line {first})"),
                        ));
                    }
                    events.insert(e, (command_of_call[k].unwrap_or(0), j, line));
                }
                _ => {}
            }
        }
        let resolve = |c: &Call, k: usize, (e, l, col): &Named, waiter: &str| -> R<usize> {
            match events.get(e.as_str()) {
                None => {
                    let why = if created.contains_key(e.as_str()) {
                        format!(
                            "user event `{e}` is never set to CL_COMPLETE (`clSetUserEventStatus({e}, CL_COMPLETE);`)"
                        )
                    } else {
                        format!(
                            "no command returns event `{e}` (`&{e}` as the last argument of an enqueue)"
                        )
                    };
                    let so = if waiter.starts_with("this wait") {
                        format!("P{} (the host thread) waits forever", c.thread)
                    } else {
                        "it never completes, nor does anything waiting on it".to_string()
                    };
                    Err((*l, *col, format!("hang: {waiter}: {why}, so {so}")))
                }
                Some(&(cmd, j, line)) => {
                    if calls[j].thread == c.thread && j >= k {
                        Err((
                            *l,
                            *col,
                            format!(
                                "event `{e}` is used before the call that returns it (line {line})"
                            ),
                        ))
                    } else {
                        Ok(cmd)
                    }
                }
            }
        };
        // Queues: one host thread each, commands in its program order.
        let mut queues: HashMap<&str, (usize, usize, Vec<usize>)> = HashMap::new(); // name -> (index, owner, commands)
        let mut last_barrier: HashMap<&str, usize> = HashMap::new();
        let mut threads: Vec<Thread> = Vec::new();
        let mut agents: Vec<Agent> = (0..n)
            .map(|t| {
                if is_host(t) {
                    Agent::Host
                } else {
                    Agent::Invocation
                }
            })
            .collect();
        let mut enqueued: HashMap<usize, usize> = HashMap::new(); // work-item -> line
        let mut patches: Vec<(usize, usize, ApiOp)> = Vec::new();
        // Fresh work-group and sub-group ids for the command threads (they
        // are in no scope instance of the work-items).
        let wg_base = self
            .program
            .threads
            .iter()
            .map(|t| t.workgroup + 1)
            .max()
            .unwrap_or(0);
        let sg_base = self
            .program
            .threads
            .iter()
            .map(|t| t.subgroup + 1)
            .max()
            .unwrap_or(0);
        // A command's thread: in a work-group and sub-group of its own.
        let command_thread = |cmd: usize, code: Vec<Stmt>| Thread {
            id: cmd,
            subgroup: sg_base + (cmd - n),
            workgroup: wg_base + (cmd - n),
            queue_family: 0,
            device: 0,
            code,
            registers: Vec::new(),
            fragment: None,
        };
        // User events' commands are on no queue: pictures draw them as one
        // cluster of their own, after the queues.
        let user_queue = {
            let mut names: Vec<&str> = calls
                .iter()
                .filter_map(|c| match &c.what {
                    What::Enqueue { queue, .. } | What::Finish(queue) => Some(queue.0.as_str()),
                    _ => None,
                })
                .collect();
            names.sort_unstable();
            names.dedup();
            names.len()
        };
        for (k, c) in calls.iter().enumerate() {
            let qname = match &c.what {
                What::Enqueue { queue, .. } | What::Finish(queue) => Some(queue),
                What::WaitForEvents(_) | What::CreateUserEvent(_) | What::SetUserEvent(_) => None,
            };
            if let Some((q, l, col)) = qname {
                let nq = queues.len();
                let entry = queues.entry(q).or_insert((nq, c.thread, Vec::new()));
                if entry.1 != c.thread {
                    return Err((
                        *l,
                        *col,
                        format!(
                            "queue `{q}` is used by P{} and P{}: vkmm orders a queue's commands by one host thread's program order",
                            entry.1, c.thread
                        ),
                    ));
                }
            }
            match &c.what {
                What::CreateUserEvent(_) => {}
                What::SetUserEvent((e, _, _)) => {
                    // 3.6.4: "each command C enqueued onto a command-queue
                    // has an associated logically signaling entity S"; a
                    // user event is such an S whose status the host sets.
                    let cmd = command_of_call[k].unwrap_or(0);
                    let span = |what: &str| SourceSpan {
                        file: None,
                        line: c.line,
                        text: format!("{what} of {}", self.span(c.line).text).into(),
                    };
                    let call = "clSetUserEventStatus";
                    threads.push(command_thread(
                        cmd,
                        vec![
                            Stmt::Op(Instruction::new(
                                OpKind::Api(ApiOp::ClStart {
                                    kind: ClCommandKind::UserEvent,
                                    waits: Vec::new(),
                                    call,
                                    event: Some(e.clone()),
                                    wait_events: Vec::new(),
                                }),
                                span("start"),
                            )),
                            Stmt::Op(Instruction::new(
                                OpKind::Api(ApiOp::ClComplete { call }),
                                span("completion"),
                            )),
                        ],
                    ));
                    agents.push(Agent::Submission { queue: user_queue });
                    patches.push((c.thread, c.stmt, ApiOp::ClEnqueue { command: cmd, call }));
                }
                What::WaitForEvents(list) => {
                    let mut cmds = Vec::new();
                    for e in list {
                        cmds.push(resolve(c, k, e, "this wait never returns")?);
                    }
                    patches.push((
                        c.thread,
                        c.stmt,
                        ApiOp::ClWait {
                            commands: cmds,
                            call: "clWaitForEvents",
                        },
                    ));
                }
                What::Finish((q, _, _)) => {
                    let cmds = queues[q.as_str()].2.clone();
                    patches.push((
                        c.thread,
                        c.stmt,
                        ApiOp::ClWait {
                            commands: cmds,
                            call: "clFinish",
                        },
                    ));
                }
                What::Enqueue {
                    queue: (q, _, _),
                    kind,
                    waits,
                    call,
                    blocking,
                    event,
                    ..
                } => {
                    let cmd = command_of_call[k].unwrap_or(0);
                    let mut wait_cmds = Vec::new();
                    for e in waits {
                        let w = resolve(c, k, e, "this command never starts")?;
                        if !wait_cmds.contains(&w) {
                            wait_cmds.push(w);
                        }
                    }
                    let out_of_order = self.host.out_of_order.contains_key(q.as_str());
                    let earlier = queues[q.as_str()].2.clone();
                    let marker_or_barrier = matches!(kind, Pending::Marker | Pending::Barrier);
                    let add = |w: usize, list: &mut Vec<usize>| {
                        if !list.contains(&w) {
                            list.push(w);
                        }
                    };
                    if !out_of_order {
                        // An in-order queue: each command starts after the
                        // one enqueued before it has completed.
                        if let Some(&prev) = earlier.last() {
                            add(prev, &mut wait_cmds);
                        }
                    } else {
                        // Out of order: a barrier orders every later
                        // command; a marker or barrier with an empty wait
                        // list waits on every earlier command.
                        if let Some(&b) = last_barrier.get(q.as_str()) {
                            add(b, &mut wait_cmds);
                        }
                        if marker_or_barrier && waits.is_empty() {
                            for &w in &earlier {
                                add(w, &mut wait_cmds);
                            }
                        }
                        if matches!(kind, Pending::Barrier) {
                            last_barrier.insert(q, cmd);
                        }
                    }
                    let ir_kind = match kind {
                        Pending::Kernel(list) => {
                            let mut ts = Vec::new();
                            for &(w, l, col) in list {
                                if w >= n || is_host(w) {
                                    return Err((
                                        l,
                                        col,
                                        if w >= n {
                                            format!("no thread P{w} in this test")
                                        } else {
                                            format!("P{w} is a host thread, not a work-item")
                                        },
                                    ));
                                }
                                if let Some(first) = enqueued.insert(w, l) {
                                    return Err((
                                        l,
                                        col,
                                        format!(
                                            "work-item P{w} is enqueued twice (first at line {first}): write a second thread for a second kernel-instance"
                                        ),
                                    ));
                                }
                                ts.push(w);
                            }
                            ClCommandKind::Kernel { threads: ts }
                        }
                        Pending::Map(l) => ClCommandKind::Map {
                            locations: l.clone(),
                        },
                        Pending::Unmap(l) => ClCommandKind::Unmap {
                            locations: l.clone(),
                        },
                        Pending::Marker => ClCommandKind::Marker,
                        Pending::Barrier => ClCommandKind::Barrier,
                        Pending::Transfer { read, .. } => ClCommandKind::Transfer { read: *read },
                    };
                    let qi = queues[q.as_str()].0;
                    if let Some(e) = queues.get_mut(q.as_str()) {
                        e.2.push(cmd);
                    }
                    let text = self.span(c.line).text;
                    let span = |what: &str| SourceSpan {
                        file: None,
                        line: c.line,
                        text: format!("{what} of {text}").into(),
                    };
                    let start = Instruction::new(
                        OpKind::Api(ApiOp::ClStart {
                            kind: ir_kind,
                            waits: wait_cmds,
                            call,
                            event: event.as_ref().map(|e| e.0.clone()),
                            wait_events: waits.iter().map(|w| w.0.clone()).collect(),
                        }),
                        span("start"),
                    );
                    let done = Instruction::new(
                        OpKind::Api(ApiOp::ClComplete { call }),
                        span("completion"),
                    );
                    threads.push(command_thread(
                        cmd,
                        [Stmt::Op(start)]
                            .into_iter()
                            .chain(Self::copy_ops(kind, &span))
                            .chain([Stmt::Op(done)])
                            .collect(),
                    ));
                    agents.push(Agent::Submission { queue: qi });
                    patches.push((c.thread, c.stmt, ApiOp::ClEnqueue { command: cmd, call }));
                    if let Some(b) = blocking {
                        patches.push((
                            c.thread,
                            *b,
                            ApiOp::ClWait {
                                commands: vec![cmd],
                                call,
                            },
                        ));
                    }
                }
            }
        }
        self.wait_cycle(&patches, &threads, n)?;
        for t in 0..n {
            if !is_host(t) && !enqueued.contains_key(&t) {
                let (l, c) = self.host.thread_at[t];
                return Err((
                    l,
                    c,
                    format!(
                        "work-item P{t} is enqueued by no `clEnqueueNDRangeKernel`: in a test with host threads, a host thread enqueues every kernel"
                    ),
                ));
            }
        }
        for (t, s, op) in patches {
            if let Stmt::Op(i) = &mut self.program.threads[t].code[s] {
                i.kind = OpKind::Api(op);
            }
        }
        for th in threads {
            self.program.threads.push(th);
            self.thread_regs.push(Default::default());
        }
        self.program.host.agents = agents;
        self.program.host.svm = svm;
        let mut names: Vec<(&str, usize)> = queues.iter().map(|(q, e)| (*q, e.0)).collect();
        names.sort_by_key(|n| n.1);
        self.program.host.queues = names.into_iter().map(|n| n.0.to_string()).collect();
        Ok(())
    }

    /// The memory operations a command issues between its start and its
    /// completion: a read or write of a buffer copies element by element
    /// (3.6.4, rule 2: "memory operations issued by C1 will
    /// global-happen-before memory operations issued by C"), the buffer
    /// read as the device side does.
    fn copy_ops(kind: &Pending, span: &dyn Fn(&str) -> SourceSpan) -> Vec<Stmt> {
        let Pending::Transfer {
            read,
            buffer,
            host,
            names: (bn, hn),
        } = kind
        else {
            return Vec::new();
        };
        let (from, to, fname, tname) = if *read {
            (buffer, host, bn, hn)
        } else {
            (host, buffer, hn, bn)
        };
        let element = |name: &str, k: usize| {
            if from.len() == 1 {
                name.to_string()
            } else {
                format!("{name}[{k}]")
            }
        };
        let mut out = Vec::new();
        for (k, (&a, &b)) in from.iter().zip(to).enumerate() {
            let reg = format!("%copy{k}");
            let mut load = Instruction::new(
                OpKind::Load,
                span(&format!("copy reading {}", element(fname, k))),
            );
            load.reference = Some(a);
            load.storage_class = Some(OPENCL_GLOBAL);
            load.non_private = true;
            load.dest = Some(reg.clone());
            let mut store = Instruction::new(
                OpKind::Store,
                span(&format!("copy writing {}", element(tname, k))),
            );
            store.reference = Some(b);
            store.storage_class = Some(OPENCL_GLOBAL);
            store.non_private = true;
            store.operand = Some(Operand::Reg(reg));
            out.push(Stmt::Op(load));
            out.push(Stmt::Op(store));
        }
        out
    }

    /// After a host thread's atomic call lowered `from..`: the instructions
    /// are C11 atomics at CrossDevice scope (3.6.1: "C11-compatible atomic
    /// operations in host code will synchronize at CrossDevice scope").
    pub(super) fn host_atomics(ctx: &mut Ctx, from: usize) {
        for s in &mut ctx.code[from..] {
            if let Stmt::Op(i) = s
                && i.atomic
            {
                i.scope = Some(Scope::CrossDevice);
            }
        }
    }
}
