//! Cooperative matrix loads and stores (`cmld`, `cmst`): the Vulkan
//! appendix's "Cooperative Matrix Memory Access" (docs/coverage.md,
//! docs/format-vulkan-litmus.md). Every invocation of the matrix's scope
//! instance writes the instruction (one instance number, one list of
//! elements); after `:` it lists the element accesses it performs, which
//! become its ordinary non-atomic loads and stores (tagged with
//! [`crate::ir::CoopElement`]). Which invocation performs which element is
//! the implementation's choice; a test states one, as it states which
//! subgroup an invocation is in.

use super::{Parser, R};
use crate::frontend::attributes::{Attrs, LITMUS};
use crate::frontend::litmus::lexer::{Lexer, Tok, VULKAN};
use crate::ir::{
    CoopElement, Instruction, MAX_ATTRIBUTIONS, OpKind, Operand, Program, Scope, SourceSpan, Stmt,
};

/// One invocation's statement of a cooperative matrix instruction; `A`
/// is where it was written (a character offset here, line and column in
/// the `.test` format, src/frontend/alloy_test/coop.rs).
pub(crate) struct CoopUse<A = usize> {
    pub thread: usize,
    pub at: A,
    pub instance: u32,
    pub load: bool,
    pub scope: Scope,
    /// The elements (references), in order.
    pub elements: Vec<usize>,
    /// The stored value (`cmst`).
    pub value: Option<Operand>,
    /// Indices into `elements` this invocation performs, with where.
    pub performed: Vec<(usize, A)>,
    /// No `:` part: the test leaves the attribution to the implementation,
    /// and the invocation's code holds an access of every element, which
    /// [`Parser::attribution_alternatives`] keeps or drops per attribution.
    pub open: bool,
}

/// Whether the cell starting at `a` is a cooperative matrix instruction.
pub(super) fn is_coop(p: &Parser<'_>, a: usize, b: usize) -> bool {
    let mut lx = Lexer::new(p.src, VULKAN, a, b);
    matches!(lx.next(), Ok(t) if t.is_ident("cmld") || t.is_ident("cmst"))
}

impl Parser<'_> {
    /// `cmst.SCOPE.scN I, V, x y ... [: x ...]` and
    /// `cmld.SCOPE.scN I, x y ... [: r0=x ...]`.
    pub(super) fn coop_statement(&mut self, k: usize, a: usize, b: usize) -> R<Vec<Stmt>> {
        let source = SourceSpan {
            file: None,
            line: self.src.line(a),
            text: self.src.text(a, b).into(),
        };
        let mut lx = Lexer::new(self.src, VULKAN, a, b);
        let first = lx.next()?;
        let load = first.is_ident("cmld");
        let word = if load { "cmld" } else { "cmst" };
        let mut attrs = Attrs::default();
        while lx.peek()?.is_punct(".") {
            lx.next()?;
            let t = lx.next()?;
            let Tok::Ident(tok) = &t.tok else {
                return Err((
                    t.at,
                    format!("expected an attribute after `.`, found {}", t.show()),
                ));
            };
            if tok == "atom" || !attrs.token(tok, t.at, &LITMUS)? {
                return Err((
                    t.at,
                    format!(
                        "`{tok}` does not apply to `{word}`: a cooperative matrix element access is a non-atomic access with a scope (sg, wg: the matrix's), a storage class and optionally nonpriv, av, vis"
                    ),
                ));
            }
        }
        let Some((scope, mark)) = attrs.scope else {
            return Err((
                first.at,
                format!("missing scope: `{word}` names the matrix's scope (sg or wg)"),
            ));
        };
        if !matches!(scope, Scope::Subgroup | Scope::Workgroup) {
            return Err((
                mark.col,
                format!("the matrix's scope is Subgroup or Workgroup (sg, wg), not {scope}"),
            ));
        }
        let t = lx.next()?;
        let instance = match &t.tok {
            Tok::Int(d) => d
                .parse::<u32>()
                .map_err(|_| (t.at, format!("instance `{d}` is out of range")))?,
            _ => {
                return Err((
                    t.at,
                    format!(
                        "expected the instruction's instance number, found {}",
                        t.show()
                    ),
                ));
            }
        };
        lx.expect(",", "after the instance number")?;
        let value = if load {
            None
        } else {
            let v = self.value(&mut lx, k)?;
            lx.expect(",", "after the stored value")?;
            Some(v)
        };
        let mut elements: Vec<usize> = Vec::new();
        loop {
            let t = lx.peek()?;
            if t.is_punct(":") || matches!(t.tok, Tok::Eof) {
                break;
            }
            let (loc, at) = lx.ident("a location (an element of the matrix)")?;
            let r = self.used(&loc, at);
            if elements.contains(&r) {
                return Err((at, format!("element `{loc}` is listed twice")));
            }
            elements.push(r);
        }
        if elements.is_empty() {
            return Err((
                lx.peek()?.at,
                format!("expected the matrix's elements (locations) after `{word}`'s operands"),
            ));
        }
        let mut performed: Vec<(usize, usize)> = Vec::new();
        let mut dests: Vec<Option<String>> = Vec::new();
        let open = !lx.peek()?.is_punct(":");
        if open {
            // Every element, for now: the attributions keep some.
            for e in 0..elements.len() {
                performed.push((e, first.at));
                dests.push(None);
            }
        } else {
            lx.next()?;
            while !matches!(lx.peek()?.tok, Tok::Eof) {
                let dest = if load {
                    let (reg, _) = lx.ident("a register (`r0=x`: r0 receives element x)")?;
                    lx.expect("=", "between the register and the element")?;
                    Some(reg)
                } else {
                    None
                };
                let (loc, at) = lx.ident("an element this invocation accesses")?;
                let Some(e) = elements
                    .iter()
                    .position(|&r| self.program.references[r].name == loc)
                else {
                    return Err((
                        at,
                        format!(
                            "`{loc}` is not an element of this `{word}` (its elements come before `:`)"
                        ),
                    ));
                };
                if performed.iter().any(|&(p, _)| p == e) {
                    return Err((at, format!("element `{loc}` is accessed twice by P{k}")));
                }
                performed.push((e, at));
                dests.push(dest);
            }
        }
        lx.expect_end("after the elements")?;
        let mut out = Vec::new();
        for (&(e, _), dest) in performed.iter().zip(dests) {
            let kind = if load { OpKind::Load } else { OpKind::Store };
            let mut ins = Instruction::new(kind, source.clone());
            attrs.apply(&mut ins);
            attrs.validate(&ins, first.at, &LITMUS)?;
            // The scope is the matrix's; an access has one only for its
            // per-instruction availability/visibility operation.
            if !(ins.make_pointer_available || ins.make_pointer_visible) {
                ins.scope = None;
            }
            ins.reference = Some(elements[e]);
            ins.operand = value.clone();
            if let Some(d) = dest {
                self.infos[k].defined.insert(d.clone());
                ins.dest = Some(d);
            }
            ins.coop = Some(CoopElement { instance, scope });
            out.push(Stmt::Op(ins));
        }
        self.coops.push(CoopUse {
            thread: k,
            at: first.at,
            instance,
            load,
            scope,
            elements,
            value,
            performed: if open { Vec::new() } else { performed },
            open,
        });
        Ok(out)
    }

    /// The whole-program rules ([`check_uses`]).
    pub(super) fn check_coops(&self) -> R<()> {
        check_uses(&self.coops, &self.program, &|a| self.src.line(a), &|t| {
            format!("P{t}")
        })
    }

    /// Every attribution of the open instances (at most
    /// [`MAX_ATTRIBUTIONS`]) as a program built from `full`, the program
    /// before byte lowering whose invocations access every element of an
    /// open instance, with the total count. A store's element: "a single
    /// implementation-dependent invocation within the instance of the
    /// matrix's scope performs a non-atomic store to that memory location"
    /// (one invocation each). A load's element: "some
    /// implementation-dependent invocation(s) within the instance of the
    /// matrix's scope perform a non-atomic load from each memory location"
    /// (every non-empty set of invocations, smaller sets first).
    pub(super) fn attribution_alternatives(&self, full: &Program) -> (Vec<(String, Program)>, u64) {
        alternatives(&open_choices(&self.coops), full)
    }
}

/// Every attribution of the open instances' `choices` (at most
/// [`MAX_ATTRIBUTIONS`]) as a program built from `full`, the program whose
/// invocations access every element of an open instance, with the total
/// count. A store's element: "a single implementation-dependent invocation
/// within the instance of the matrix's scope performs a non-atomic store to
/// that memory location" (one invocation each). A load's element: "some
/// implementation-dependent invocation(s) within the instance of the
/// matrix's scope perform a non-atomic load from each memory location"
/// (every non-empty set of invocations, smaller sets first). Also the
/// SPIR-V front end's (src/frontend/spirv/coop.rs).
pub(crate) fn alternatives(choices: &[Choice], full: &Program) -> (Vec<(String, Program)>, u64) {
    // The options of each choice: sets of invocations (as bit masks over
    // `threads`).
    let options: Vec<Vec<u64>> = choices
        .iter()
        .map(|c| {
            let n = c.threads.len().min(63);
            if c.load {
                let mut sets: Vec<u64> = (1..(1u64 << n)).collect();
                sets.sort_by_key(|m| (m.count_ones(), *m));
                sets
            } else {
                (0..n).map(|i| 1u64 << i).collect()
            }
        })
        .collect();
    let total = options
        .iter()
        .fold(1u64, |t, o| t.saturating_mul(o.len() as u64));
    let mut out = Vec::new();
    let mut digits = vec![0usize; choices.len()];
    while out.len() < MAX_ATTRIBUTIONS && (out.len() as u64) < total {
        let chosen: Vec<(&Choice, u64)> = choices
            .iter()
            .zip(&digits)
            .zip(&options)
            .map(|((c, &d), o)| (c, o[d]))
            .collect();
        out.push((attribution_name(full, &chosen), attributed(full, &chosen)));
        // The next combination (the last choice turns fastest).
        for k in (0..digits.len()).rev() {
            digits[k] += 1;
            if digits[k] < options[k].len() {
                break;
            }
            digits[k] = 0;
        }
    }
    (out, total)
}

/// `instance 0: x by P1, y by P0+P1; instance 1: ...`.
fn attribution_name(full: &Program, chosen: &[(&Choice, u64)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<u32> = None;
    for (c, mask) in chosen {
        let who: Vec<String> = c
            .threads
            .iter()
            .enumerate()
            .filter(|(i, _)| mask >> i & 1 == 1)
            .map(|(_, t)| format!("P{t}"))
            .collect();
        let item = format!("{} by {}", full.references[c.element].name, who.join("+"));
        if current == Some(c.instance) {
            parts
                .last_mut()
                .expect("an instance")
                .push_str(&format!(", {item}"));
        } else {
            parts.push(format!("instance {}: {item}", c.instance));
            current = Some(c.instance);
        }
    }
    parts.join("; ")
}

/// One element of an open cooperative matrix instance.
pub(crate) struct Choice {
    pub instance: u32,
    /// The element's reference.
    pub element: usize,
    pub load: bool,
    /// The invocations of the instance of the matrix's scope (sorted).
    pub threads: Vec<usize>,
}

/// `full` with the element accesses of open instances the attribution does
/// not give to their invocation removed.
fn attributed(full: &Program, chosen: &[(&Choice, u64)]) -> Program {
    let mut p = full.clone();
    for (k, t) in p.threads.iter_mut().enumerate() {
        t.code.retain(|s| {
            let Stmt::Op(ins) = s else { return true };
            let (Some(c), Some(r)) = (ins.coop, ins.reference) else {
                return true;
            };
            match chosen
                .iter()
                .find(|(ch, _)| ch.instance == c.instance && ch.element == r)
            {
                Some((ch, mask)) => ch
                    .threads
                    .iter()
                    .position(|&t| t == k)
                    .is_some_and(|i| mask >> i & 1 == 1),
                None => true,
            }
        });
    }
    p
}

/// The whole-program rules: one dynamic instance per instance number,
/// executed once by every invocation of one instance of the matrix's
/// scope with the same operands, and each element accessed as the
/// newer rendering says ("some implementation-dependent invocation(s)"
/// load it; "a single implementation-dependent invocation" stores it).
/// `line` gives the line of a position (messages name another
/// invocation's), `thread` a thread's name (`P0`, `thread 0`).
pub(crate) fn check_uses<A: Copy>(
    coops: &[CoopUse<A>],
    program: &Program,
    line: &dyn Fn(A) -> usize,
    thread: &dyn Fn(usize) -> String,
) -> Result<(), (A, String)> {
    let mut instances: Vec<u32> = coops.iter().map(|c| c.instance).collect();
    instances.sort_unstable();
    instances.dedup();
    for i in instances {
        let uses: Vec<&CoopUse<A>> = coops.iter().filter(|c| c.instance == i).collect();
        let head = uses[0];
        let word = if head.load { "cmld" } else { "cmst" };
        for u in &uses {
            if program.host.agent(u.thread).is_host() {
                return Err((
                    u.at,
                    format!(
                        "`{word}` in {}, a host thread or queue submission: a cooperative matrix instruction is executed by shader invocations",
                        thread(u.thread)
                    ),
                ));
            }
            if !program.threads[u.thread].is_straight_line() {
                return Err((
                    u.at,
                    format!(
                        "`{word}` in {}, which branches: a cooperative matrix instruction is executed once by every invocation of the matrix's scope instance",
                        thread(u.thread)
                    ),
                ));
            }
            if u.load != head.load
                || u.scope != head.scope
                || u.elements != head.elements
                || u.value != head.value
            {
                return Err((
                    u.at,
                    format!(
                        "instance {i} differs from {}'s (line {}): every invocation writes the same instruction (opcode, scope, value and elements)",
                        thread(head.thread),
                        line(head.at)
                    ),
                ));
            }
            if u.open != head.open {
                return Err((
                    u.at,
                    format!(
                        "instance {i} {} the element accesses after `:` and {}'s (line {}) {}: either every invocation states its accesses or none does (vkmm then explores every attribution)",
                        if u.open { "omits" } else { "states" },
                        thread(head.thread),
                        line(head.at),
                        if head.open {
                            "omits them"
                        } else {
                            "states them"
                        }
                    ),
                ));
            }
            if uses.iter().filter(|v| v.thread == u.thread).count() > 1 {
                return Err((
                    u.at,
                    format!("{} executes instance {i} twice", thread(u.thread)),
                ));
            }
        }
        // The invocations of the scope instance of the first.
        let t0 = &program.threads[head.thread];
        let same = |t: &crate::ir::Thread| match head.scope {
            Scope::Subgroup => t.subgroup == t0.subgroup && t.queue_family == t0.queue_family,
            _ => t.workgroup == t0.workgroup && t.queue_family == t0.queue_family,
        };
        for (k, t) in program.threads.iter().enumerate() {
            let runs = uses.iter().any(|u| u.thread == k);
            if same(t) && !runs && !program.host.agent(k).is_host() {
                return Err((
                    head.at,
                    format!(
                        "{} is in the {} instance of {} but does not execute instance {i}: a cooperative matrix instruction is executed by every invocation of the instance of the matrix's scope",
                        thread(k),
                        head.scope,
                        thread(head.thread)
                    ),
                ));
            }
            if !same(t) && runs {
                let u = uses.iter().find(|u| u.thread == k).expect("runs");
                return Err((
                    u.at,
                    format!(
                        "{} executes instance {i} but is not in the {} instance of {}",
                        thread(k),
                        head.scope,
                        thread(head.thread)
                    ),
                ));
            }
        }
        for (e, &r) in head.elements.iter().enumerate() {
            let name = &program.references[r].name;
            if head.open {
                if program.sizes.contains_key(&program.references[r].location) {
                    return Err((
                        head.at,
                        format!(
                            "element `{name}` of instance {i} is a sized variable: vkmm explores the attributions of whole locations only (state the accesses after `:`)"
                        ),
                    ));
                }
                continue;
            }
            let by: Vec<(usize, A)> = uses
                .iter()
                .flat_map(|u| {
                    u.performed
                        .iter()
                        .filter(|p| p.0 == e)
                        .map(|p| (u.thread, p.1))
                })
                .collect();
            if by.is_empty() {
                return Err((
                    head.at,
                    format!(
                        "no invocation accesses element `{name}` of instance {i}: \"{}\" (name it after `:` in one invocation)",
                        if head.load {
                            "some implementation-dependent invocation(s) within the instance of the matrix's scope perform a non-atomic load from each memory location that is defined to be accessed by the instruction"
                        } else {
                            "a single implementation-dependent invocation within the instance of the matrix's scope performs a non-atomic store to that memory location"
                        }
                    ),
                ));
            }
            if !head.load && by.len() > 1 {
                return Err((
                    by[1].1,
                    format!(
                        "element `{name}` of instance {i} is stored by {} and {}: \"For each memory location accessed by a dynamic instance of a cooperative matrix store instruction ..., a single implementation-dependent invocation within the instance of the matrix's scope performs a non-atomic store to that memory location.\"",
                        thread(by[0].0),
                        thread(by[1].0)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The open instances' choices, one per element: the instance, the
/// element (reference), and the invocations of the scope instance.
pub(crate) fn open_choices<A>(coops: &[CoopUse<A>]) -> Vec<Choice> {
    let mut out: Vec<Choice> = Vec::new();
    for u in coops.iter().filter(|c| c.open) {
        for &r in &u.elements {
            match out
                .iter_mut()
                .find(|c| c.instance == u.instance && c.element == r)
            {
                Some(c) => c.threads.push(u.thread),
                None => out.push(Choice {
                    instance: u.instance,
                    element: r,
                    load: u.load,
                    threads: vec![u.thread],
                }),
            }
        }
    }
    for c in &mut out {
        c.threads.sort_unstable();
    }
    out.sort_by_key(|c| c.instance);
    out
}
