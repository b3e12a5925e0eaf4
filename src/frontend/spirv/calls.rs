//! Shader calls in a SPIR-V module: which entry point
//! each invocation runs (`; @Shaders: %gen, %hit`) and which invocations
//! each shader call instruction creates (`; @Call: P0 -> P1, P2`).
//! A module cannot say either: the shader binding table and the
//! acceleration structure choose the shaders a call runs, so the test
//! states them, as the Vulkan litmus dialect's `trace P1` does.
//! docs/format-spirv.md, "Shader calls".

use super::lower::{Gen, Memory};
use super::module::{Class, Module};
use super::syntax::{Inst, Located};
use crate::ir::{CallKind, Interface, Program, ShaderStage, Stmt};
use std::collections::HashMap;

/// The `@Shaders` line: each entry function (id without `%`, its
/// column), and the line and column of the `@`.
pub(super) type Shaders = (Vec<(String, usize)>, usize, usize);

/// What the shader call headers say.
#[derive(Debug, Default)]
pub(super) struct CallHeaders {
    /// `@Shaders`: the entry function of each invocation.
    pub shaders: Option<Shaders>,
    /// `@Call` lines in file order: caller, callees, line, column of the `@`.
    pub calls: Vec<Call>,
    /// `@Generates` lines (docs/format-spirv.md, "Shader stages"): the
    /// invocation that contributes to generating the listed ones.
    pub generates: Vec<Call>,
}

/// One `@Call` line: the next shader call instruction of `caller` creates
/// `callees`.
#[derive(Clone, Debug)]
pub(super) struct Call {
    pub caller: usize,
    pub callees: Vec<usize>,
    pub line: usize,
    pub col: usize,
}

/// The stage of an invocation running an entry point of execution model
/// `model`, for the graphics and ray tracing execution models the IR has
/// a stage for (GLCompute and Kernel run as compute invocations, as
/// before; [`refused_model`] names the others). SPIR-V, Execution Model:
/// "Vertex: Vertex shading stage.", "TessellationControl: Tessellation
/// control (or hull) shading stage.", "TessellationEvaluation:
/// Tessellation evaluation (or domain) shading stage.", "Geometry:
/// Geometry shading stage."
pub(super) fn stage_of(model: &str) -> Option<ShaderStage> {
    Some(match model.trim_end_matches("KHR").trim_end_matches("NV") {
        "Vertex" => ShaderStage::Vertex,
        "TessellationControl" => ShaderStage::TessellationControl,
        "TessellationEvaluation" => ShaderStage::TessellationEvaluation,
        "Geometry" => ShaderStage::Geometry,
        "RayGeneration" => ShaderStage::RayGeneration,
        "Intersection" => ShaderStage::Intersection,
        "AnyHit" => ShaderStage::AnyHit,
        "ClosestHit" => ShaderStage::ClosestHit,
        "Miss" => ShaderStage::Miss,
        "Callable" => ShaderStage::Callable,
        _ => return None,
    })
}

/// Why an execution model that has no IR stage is refused, if it is one
/// of them: running its invocations as compute invocations would drop
/// what the appendix says of them.
pub(super) fn refused_model(model: &str) -> Option<String> {
    let why = match model {
        "Fragment" => {
            "SPIR-V, Execution Model, \"Fragment: Fragment shading stage.\"; a fragment invocation needs its rasterization placement (primitive, pixel), which the Vulkan litmus dialect gives (`prim N, pixel N`, docs/interlock.md) and a module cannot"
        }
        "TaskEXT" | "MeshEXT" | "TaskNV" | "MeshNV" => {
            "the IR has no task or mesh stage (a mesh shader's Output variables are shared by its workgroup, which no rule of vkmm's models reads yet)"
        }
        _ => return None,
    };
    Some(format!(
        "execution model {model} has no shader stage in vkmm: {why}; vkmm lowers GLCompute, Kernel, Vertex, TessellationControl, TessellationEvaluation, Geometry and the ray tracing models"
    ))
}

/// Reads the `@Shaders`, `@Call` and `@Generates` comment lines of `text`.
pub(super) fn read(text: &str) -> Result<CallHeaders, Located> {
    let mut h = CallHeaders::default();
    for (n, raw) in text.split('\n').enumerate() {
        let line = n + 1;
        let chars: Vec<char> = raw.chars().collect();
        let mut i = 0;
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if chars.get(i) != Some(&';') {
            continue;
        }
        let Some(at) = chars[i..].iter().position(|c| *c == '@').map(|p| p + i) else {
            continue;
        };
        let mut j = at + 1;
        while chars.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
            j += 1;
        }
        let key: String = chars[at + 1..j].iter().collect();
        if key != "Shaders" && key != "Call" && key != "Generates" {
            continue;
        }
        let mut c = Cursor {
            chars: &chars,
            i: j,
            line,
        };
        c.skip();
        if !c.eat(':') {
            return Err((line, at + 1, format!("expected `:` after `@{key}`")));
        }
        if key == "Shaders" {
            if h.shaders.is_some() {
                return Err((line, at + 1, "a file has at most one `@Shaders`".into()));
            }
            let mut ids = Vec::new();
            loop {
                c.skip();
                let col = c.i + 1;
                if !c.eat('%') {
                    return Err(c.expected("`%` and the entry function of the next invocation"));
                }
                let id = c.word();
                if id.is_empty() {
                    return Err((line, col, "expected an id after `%`".into()));
                }
                ids.push((id, col));
                c.skip();
                if c.at_end() {
                    break;
                }
                if !c.eat(',') {
                    return Err(c.expected("`,` or the end of the line"));
                }
            }
            if ids.len() > super::headers::MAX_INVOCATIONS {
                return Err((
                    line,
                    at + 1,
                    format!(
                        "@Shaders asks for more than {} invocations",
                        super::headers::MAX_INVOCATIONS
                    ),
                ));
            }
            h.shaders = Some((ids, line, at + 1));
        } else {
            c.skip();
            let caller = c.thread()?;
            c.skip();
            if !(c.eat('-') && c.eat('>')) {
                return Err(c.expected(if key == "Call" {
                    "`->` and the invocations the shader call creates"
                } else {
                    "`->` and the invocations it contributes to generating"
                }));
            }
            let mut callees = Vec::new();
            loop {
                c.skip();
                let col = c.i + 1;
                let t = c.thread()?;
                if callees.contains(&t) {
                    return Err((line, col, format!("`@{key}` names P{t} twice")));
                }
                callees.push(t);
                c.skip();
                if c.at_end() {
                    break;
                }
                if !c.eat(',') {
                    return Err(c.expected("`,` or the end of the line"));
                }
            }
            let call = Call {
                caller,
                callees,
                line,
                col: at + 1,
            };
            if key == "Call" {
                h.calls.push(call);
            } else {
                h.generates.push(call);
            }
        }
    }
    Ok(h)
}

struct Cursor<'a> {
    chars: &'a [char],
    i: usize,
    line: usize,
}

impl Cursor<'_> {
    fn skip(&mut self) {
        while self.chars.get(self.i).is_some_and(|c| c.is_whitespace()) {
            self.i += 1;
        }
    }
    fn at_end(&self) -> bool {
        self.i >= self.chars.len()
    }
    fn eat(&mut self, ch: char) -> bool {
        if self.chars.get(self.i) == Some(&ch) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn word(&mut self) -> String {
        let start = self.i;
        while self
            .chars
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        {
            self.i += 1;
        }
        self.chars[start..self.i].iter().collect()
    }
    fn expected(&self, what: &str) -> Located {
        let found = match self.chars.get(self.i) {
            Some(c) => format!("`{c}`"),
            None => "the end of the line".into(),
        };
        (
            self.line,
            self.i + 1,
            format!("expected {what}, found {found}"),
        )
    }
    /// `Pk`.
    fn thread(&mut self) -> Result<usize, Located> {
        let col = self.i + 1;
        if !self.eat('P') {
            return Err(self.expected("an invocation `Pk`"));
        }
        let digits = self.word();
        digits.parse().map_err(|_| {
            (
                self.line,
                col,
                format!("expected an invocation `Pk`, found `P{digits}`"),
            )
        })
    }
}

/// The storage class of the ray tracing variables' locations: one that
/// no semantics names.
pub(super) const RAY_DATA: crate::ir::StorageClass = crate::ir::StorageClass(4);

/// The entry function and stage of each of the `n` invocations: the
/// `@Shaders` list, else the module's first entry point for all.
pub(super) fn entries(
    h: &CallHeaders,
    m: &Module,
    first: &str,
    n: usize,
) -> Result<Vec<(String, Option<ShaderStage>)>, Located> {
    // The stage of entry function `f`; an execution model without one is
    // refused at its OpEntryPoint.
    let stage = |f: &str| -> Result<Option<ShaderStage>, Located> {
        let Some(e) = m.entries.iter().find(|e| e.1 == f) else {
            return Ok(None);
        };
        match refused_model(&e.0) {
            Some(why) => Err((e.2, e.3, why)),
            None => Ok(stage_of(&e.0)),
        }
    };
    let Some((ids, line, col)) = &h.shaders else {
        return Ok(vec![(first.to_string(), stage(first)?); n]);
    };
    if ids.len() != n {
        return Err((
            *line,
            *col,
            format!(
                "@Shaders names {} entry functions, but @Config gives {n} invocations: one per invocation",
                ids.len()
            ),
        ));
    }
    ids.iter()
        .map(|(id, c)| {
            if !m.entries.iter().any(|e| e.1 == *id) {
                return Err((
                    *line,
                    *c,
                    format!("`%{id}` is not the function of an OpEntryPoint of the module"),
                ));
            }
            Ok((id.clone(), stage(id)?))
        })
        .collect()
}

/// The `@Generates` lines as `Program::generates` pairs, checked: known
/// invocations, not the invocation itself, each pair once. The appendix,
/// "Shader I/O": "... in the shader invocation(s) that contribute to
/// generating invocation A".
pub(super) fn generates(h: &CallHeaders, n: usize) -> Result<Vec<(usize, usize)>, Located> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for g in &h.generates {
        for &t in std::iter::once(&g.caller).chain(&g.callees) {
            if t >= n {
                return Err((
                    g.line,
                    g.col,
                    format!(
                        "`@Generates` names P{t}, but there are {n} invocations (P0 to P{})",
                        n - 1
                    ),
                ));
            }
        }
        for &t in &g.callees {
            if t == g.caller {
                return Err((
                    g.line,
                    g.col,
                    format!(
                        "P{t} contributes to generating itself: an invocation is generated by invocations of an earlier stage"
                    ),
                ));
            }
            if out.contains(&(g.caller, t)) {
                return Err((
                    g.line,
                    g.col,
                    format!(
                        "`@Generates` says twice that P{} contributes to generating P{t}",
                        g.caller
                    ),
                ));
            }
            out.push((g.caller, t));
        }
    }
    Ok(out)
}

/// An order of the `n` invocations with each creator before the
/// invocations it creates; the `@Call` lines checked against each other.
pub(super) fn order(h: &CallHeaders, n: usize) -> Result<Vec<usize>, Located> {
    let mut creator: Vec<Option<usize>> = vec![None; n];
    for c in &h.calls {
        for &t in std::iter::once(&c.caller).chain(&c.callees) {
            if t >= n {
                return Err((
                    c.line,
                    c.col,
                    format!(
                        "`@Call` names P{t}, but there are {n} invocations (P0 to P{})",
                        n - 1
                    ),
                ));
            }
        }
        for &t in &c.callees {
            if t == c.caller {
                return Err((
                    c.line,
                    c.col,
                    format!("P{t} creates itself: a shader call creates another invocation"),
                ));
            }
            if let Some(other) = creator[t] {
                return Err((
                    c.line,
                    c.col,
                    format!(
                        "P{t} is created by a shader call of P{other} already: \"A is shader-call-related to B if A is created by an shader call instruction executed by B\" (one creating instruction per invocation)"
                    ),
                ));
            }
            creator[t] = Some(c.caller);
        }
    }
    let mut done = vec![false; n];
    let mut out = Vec::new();
    while out.len() < n {
        let before = out.len();
        for t in 0..n {
            if !done[t] && creator[t].is_none_or(|c| done[c]) {
                done[t] = true;
                out.push(t);
            }
        }
        if out.len() == before {
            let t = (0..n).find(|&t| !done[t]).expect("one is left");
            let c = h
                .calls
                .iter()
                .find(|c| c.callees.contains(&t))
                .expect("a creator");
            return Err((
                c.line,
                c.col,
                format!(
                    "the shader calls form a cycle through P{t}: an invocation cannot be created by one it creates"
                ),
            ));
        }
    }
    Ok(out)
}

/// After invocation `k` is lowered: its shader call instructions matched
/// against its `@Call` lines, and the incoming variables of the
/// invocations they create bound to the variable each call passes.
/// Shader I/O: a read of an incoming variable "is system-synchronized-after
/// all writes to the corresponding ... storage variable(s) in the shader
/// invocation(s) that contribute to generating invocation A"; the
/// corresponding variable is the one the call's data operand names (for
/// OpReportIntersectionKHR, the intersection invocation's
/// HitAttributeKHR variable, and the incoming payload it was given).
pub(super) fn bind(
    h: &CallHeaders,
    m: &Module,
    mem: &Memory,
    k: usize,
    g: &Gen,
    bindings: &mut [HashMap<String, (String, usize)>],
) -> Result<(), Located> {
    let lines: Vec<&Call> = h.calls.iter().filter(|c| c.caller == k).collect();
    if let Some(extra) = lines.get(g.created.len()) {
        return Err((
            extra.line,
            extra.col,
            format!(
                "P{k} executes {} shader call instruction(s), but this is its @Call line number {}",
                g.created.len(),
                g.created.len() + 1
            ),
        ));
    }
    let layout = |var: &str, instance: usize| -> Vec<(i64, u32)> {
        mem.cells
            .get(&(var.to_string(), instance))
            .map(|cs| cs.iter().map(|(c, _)| (c.offset, c.size)).collect())
            .unwrap_or_default()
    };
    let own = &g.place_bindings();
    for made in &g.created {
        // (class of the callee's variables, the instance they become)
        let mut binds: Vec<(Interface, (String, usize))> = Vec::new();
        match (made.call, &made.data) {
            (CallKind::ExecuteCallable, Some(d)) => {
                binds.push((Interface::IncomingCallableData, d.clone()));
            }
            (CallKind::TraceRay, Some(d)) => binds.push((Interface::IncomingRayPayload, d.clone())),
            _ => {
                for v in &m.globals {
                    match v.class {
                        Class::Ray(Interface::HitAttribute) => {
                            let at = own.get(&v.id).cloned().unwrap_or((v.id.clone(), k));
                            binds.push((Interface::HitAttribute, at));
                        }
                        Class::Ray(Interface::IncomingRayPayload) => {
                            if let Some(at) = own.get(&v.id) {
                                binds.push((Interface::IncomingRayPayload, at.clone()));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        for &callee in &made.callees {
            for (class, (var, instance)) in &binds {
                for v in m.globals.iter().filter(|v| v.class == Class::Ray(*class)) {
                    if layout(&v.id, callee) != layout(var, *instance) {
                        return Err((
                            made.line,
                            made.col,
                            format!(
                                "the {} variable `%{}` of P{callee} does not have the layout of `%{var}` this shader call passes to it",
                                super::lower::class_name(*class),
                                v.id
                            ),
                        ));
                    }
                    bindings[callee].insert(v.id.clone(), (var.clone(), *instance));
                }
            }
        }
    }
    Ok(())
}

/// The shader call rules of `crate::ir::shadercall` (stages, one creator,
/// straight-line callers, the ShaderCallKHR scope), reported at the
/// instruction.
pub(super) fn check(program: &Program, insts: &[Inst]) -> Result<(), Located> {
    crate::ir::shadercall::check(program, &|t| format!("P{t}")).map_err(|i| {
        let line = match &program.threads[i.thread].code[i.stmt] {
            Stmt::Op(op) => op.source.line,
            _ => 1,
        };
        let col = insts.iter().find(|x| x.line == line).map_or(1, |x| x.col);
        (line, col, i.message)
    })
}
