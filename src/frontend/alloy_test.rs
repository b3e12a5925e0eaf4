//! Parser for the Khronos Vulkan-MemoryModel Alloy `.test` format.
//!
//! One directive or instruction per line, `//` comments. `NEWQF`, `NEWWG`,
//! `NEWSG` and `NEWTHREAD [n]` open a new queue family, workgroup, subgroup
//! and thread (a new queue family also opens a new workgroup and subgroup, a
//! new workgroup a new subgroup). An instruction is
//! `tok.tok.tok [var [= value [value2]]] [cbar-instance]`. `SLOC a b` makes
//! two references name one location, `SSW i j` makes thread `i`
//! system-synchronize-with thread `j`, and `SATISFIABLE`/`NOSOLUTION`
//! `[NOCHAINS] pred` ask whether some candidate execution satisfies `pred`.
//!
//! Where the original Alloy translator only warned (a missing scope, storage
//! class or variable; a `membar` without acquire or release), this parser
//! rejects the line, since the Alloy model then finds no execution at all.
//! The attribute tokens, the implicit attributes of atomics and the
//! validation rules are shared with the other front ends (`attributes`).

use super::attributes::{ALLOY, Attrs};
use super::{FrontendError, MAX_NESTING, suggest};
use crate::ir::{
    Cmp, Expectation, Fragment, Instruction, InterlockGranularity, InterlockMode, OpKind, Pred,
    Program, Query, Reference, Scope, SourceSpan, Stmt, Thread,
};
use std::collections::HashMap;

/// Parses the text of a `.test` file. `file` is used in error messages and
/// (its stem) as the test name.
pub fn parse(file: &str, text: &str) -> Result<Program, FrontendError> {
    let mut p = Parser::new(file);
    for (i, raw) in text.lines().enumerate() {
        p.line(i + 1, raw)?;
    }
    p.finish()
}

struct Parser<'a> {
    file: &'a str,
    program: Program,
    queue_family: usize,
    workgroup: usize,
    subgroup: usize,
    next_thread: usize,
    /// Variable name -> reference index.
    refs: HashMap<String, usize>,
    /// SLOC pairs with their positions.
    slocs: Vec<(String, String, usize, usize)>,
    /// SSW pairs (thread numbers) with their positions.
    /// `SSW a b` and `GENERATES a b` (the last field: which) with where.
    ssws: Vec<(usize, usize, usize, usize, bool)>,
    /// The line of the `INTERLOCK` directive.
    interlock_line: Option<usize>,
    /// Shader calls (`trace 1`, `call 1`, `report 1`): the thread and
    /// statement, and each callee's thread number with its line and column
    /// (resolved to thread indices in `finish`).
    calls: Vec<CallSite>,
    /// `SIZE x N` directives: name, size, line, column.
    sizes: Vec<(String, u32, usize, usize)>,
    /// Where the variable of each access was written, by (thread index,
    /// statement index): line, column (the byte lowering's errors).
    var_at: HashMap<(usize, usize), (usize, usize)>,
    /// The cooperative matrix instructions (`cmld`, `cmst`), per thread.
    coops: Vec<crate::frontend::vulkan_litmus::coop::CoopUse<coop::At>>,
}

/// A shader call statement: its thread and statement, and each callee's
/// thread number with the line and column it was written at.
type CallSite = (usize, usize, Vec<(usize, usize, usize)>);

/// A whitespace-separated word of a line and its 1-based column.
#[derive(Clone, Copy)]
struct Word<'t> {
    text: &'t str,
    col: usize,
}

/// The words of a line, in one pass (columns are counted as it goes: a
/// count from the line start per word made long lines quadratic).
fn words(line: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    // (byte offset, column) of the word being read
    let mut start = None;
    for (col, (i, c)) in line.char_indices().enumerate() {
        if c.is_whitespace() {
            if let Some((s, scol)) = start.take() {
                out.push(Word {
                    text: &line[s..i],
                    col: scol,
                });
            }
        } else if start.is_none() {
            start = Some((i, col + 1));
        }
    }
    if let Some((s, scol)) = start {
        out.push(Word {
            text: &line[s..],
            col: scol,
        });
    }
    out
}

impl<'a> Parser<'a> {
    fn new(file: &'a str) -> Self {
        let name = std::path::Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(file)
            .to_string();
        Parser {
            file,
            program: Program {
                name,
                kind: crate::ir::TestKind::Queries,
                ..Program::default()
            },
            queue_family: 0,
            workgroup: 0,
            subgroup: 0,
            next_thread: 0,
            refs: HashMap::new(),
            slocs: Vec::new(),
            ssws: Vec::new(),
            interlock_line: None,
            calls: Vec::new(),
            sizes: Vec::new(),
            var_at: HashMap::new(),
            coops: Vec::new(),
        }
    }

    fn err(&self, line: usize, column: usize, message: impl Into<String>) -> FrontendError {
        FrontendError {
            file: self.file.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    fn line(&mut self, n: usize, raw: &str) -> Result<(), FrontendError> {
        // Strip a trailing comment; the whole line may be one.
        let code = match raw.find("//") {
            Some(i) => &raw[..i],
            None => raw,
        };
        let ws = words(code);
        let Some(first) = ws.first().copied() else {
            return Ok(());
        };
        match first.text {
            "NEWQF" | "NEWWG" | "NEWSG" => {
                if let Some(extra) = ws.get(1) {
                    return Err(self.err(
                        n,
                        extra.col,
                        format!("unexpected `{}` after {}", extra.text, first.text),
                    ));
                }
                if first.text == "NEWQF" {
                    self.queue_family += 1;
                }
                if first.text != "NEWSG" {
                    self.workgroup += 1;
                }
                self.subgroup += 1;
                Ok(())
            }
            "NEWTHREAD" => self.new_thread(n, &ws),
            "INTERLOCK" => self.interlock_mode(n, &ws),
            "FRAGMENT" => self.fragment(n, &ws),
            "STAGE" => self.stage(n, &ws),
            "beginil" | "endil" => {
                if self.program.threads.is_empty() {
                    return self.instruction(n, code, &ws);
                }
                if let Some(extra) = ws.get(1) {
                    return Err(self.err(
                        n,
                        extra.col,
                        format!("`{}` takes no operand, found `{}`", first.text, extra.text),
                    ));
                }
                let span = SourceSpan {
                    file: None,
                    line: n,
                    text: code.trim().into(),
                };
                self.push(Instruction::interlock(first.text == "beginil", span));
                Ok(())
            }
            "SLOC" => {
                let (a, b) = self.two_operands(n, &ws, "SLOC takes two variable names")?;
                self.slocs
                    .push((a.text.to_string(), b.text.to_string(), n, a.col));
                Ok(())
            }
            "SSW" | "GENERATES" => {
                let generates = ws[0].text == "GENERATES";
                let (a, b) =
                    self.two_operands(n, &ws, "SSW and GENERATES take two thread numbers")?;
                let ta = self.thread_number(n, a)?;
                let tb = self.thread_number(n, b)?;
                self.ssws.push((ta, tb, n, a.col, generates));
                Ok(())
            }
            "SIZE" => {
                // `SIZE x N`: a variable of N bytes (docs/format-alloy-test.md,
                // "Memory locations as bytes").
                let (var, size) =
                    self.two_operands(n, &ws, "SIZE takes a variable name and its size in bytes")?;
                let max = crate::ir::bytes::MAX_VARIABLE_BYTES;
                let v = self.number(n, size, "the variable's size in bytes")?;
                let v = u32::try_from(v)
                    .ok()
                    .filter(|s| (1..=max).contains(s))
                    .ok_or_else(|| {
                        self.err(
                            n,
                            size.col,
                            format!("a variable has 1 to {max} bytes, found {v}"),
                        )
                    })?;
                if self.sizes.iter().any(|s| s.0 == var.text) {
                    return Err(self.err(n, var.col, format!("`{}` already has a size", var.text)));
                }
                self.sizes.push((var.text.to_string(), v, n, var.col));
                Ok(())
            }
            "SATISFIABLE" | "NOSOLUTION" => self.query(n, code, &ws),
            "trace" | "call" | "report" if !self.program.threads.is_empty() => {
                self.shader_call(n, code, &ws)
            }
            op if coop::is_coop(op) && !self.program.threads.is_empty() => self.coop(n, code, &ws),
            _ => self.instruction(n, code, &ws),
        }
    }

    fn two_operands<'w>(
        &self,
        n: usize,
        ws: &[Word<'w>],
        what: &str,
    ) -> Result<(Word<'w>, Word<'w>), FrontendError> {
        if ws.len() != 3 {
            let col = ws.get(3).map(|w| w.col).unwrap_or(ws[0].col);
            return Err(self.err(n, col, what.to_string()));
        }
        Ok((ws[1], ws[2]))
    }

    fn number(&self, n: usize, w: Word<'_>, what: &str) -> Result<i64, FrontendError> {
        w.text
            .parse::<i64>()
            .map_err(|_| self.err(n, w.col, format!("expected {what}, found `{}`", w.text)))
    }

    /// A thread number (`NEWTHREAD n`, `SSW i j`): 0 or more.
    fn thread_number(&self, n: usize, w: Word<'_>) -> Result<usize, FrontendError> {
        let v = self.number(n, w, "a thread number")?;
        usize::try_from(v).map_err(|_| self.err(n, w.col, "thread numbers are not negative"))
    }

    fn new_thread(&mut self, n: usize, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let id = match ws.get(1) {
            Some(w) => self.thread_number(n, *w)?,
            None => self.next_thread,
        };
        if let Some(extra) = ws.get(2) {
            return Err(self.err(n, extra.col, format!("unexpected `{}`", extra.text)));
        }
        if self.program.threads.iter().any(|t| t.id == id) {
            return Err(self.err(
                n,
                ws.get(1).map(|w| w.col).unwrap_or(ws[0].col),
                format!("thread {id} is declared twice"),
            ));
        }
        self.next_thread = id + 1;
        self.program.threads.push(Thread {
            id,
            subgroup: self.subgroup,
            workgroup: self.workgroup,
            queue_family: self.queue_family,
            device: 0,
            code: Vec::new(),
            registers: Vec::new(),
            fragment: None,
        });
        Ok(())
    }

    /// `INTERLOCK pixel|sample|shadingrate ordered|unordered` (docs/interlock.md).
    fn interlock_mode(&mut self, n: usize, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        if let Some(prev) = self.interlock_line {
            return Err(self.err(
                n,
                ws[0].col,
                format!("the interlock mode is declared twice (first at line {prev})"),
            ));
        }
        self.interlock_line = Some(n);
        let (g, o) = self.two_operands(
            n,
            ws,
            "INTERLOCK takes a granularity and an order: `INTERLOCK pixel ordered`",
        )?;
        let Some(granularity) = InterlockGranularity::from_keyword(g.text) else {
            return Err(self.err(
                n,
                g.col,
                format!(
                    "expected {} (the interlock granularity), found `{}`",
                    InterlockGranularity::EXPECTED,
                    g.text
                ),
            ));
        };
        let ordered = match o.text {
            "ordered" => true,
            "unordered" => false,
            other => {
                return Err(self.err(
                    n,
                    o.col,
                    format!("expected `ordered` or `unordered`, found `{other}`"),
                ));
            }
        };
        self.program.interlock = InterlockMode {
            granularity,
            ordered,
        };
        Ok(())
    }

    /// `STAGE tesc`: the current thread's shader stage (docs/coverage.md).
    fn stage(&mut self, n: usize, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let Some(t) = self.program.threads.len().checked_sub(1) else {
            return Err(self.err(
                n,
                ws[0].col,
                "STAGE gives the current thread's shader stage: write it after NEWTHREAD",
            ));
        };
        let tokens: Vec<&str> = crate::ir::ShaderStage::TOKENS
            .iter()
            .map(|(t, _)| *t)
            .collect();
        let (stage, col) = match ws.get(1) {
            Some(w) => (
                crate::ir::ShaderStage::TOKENS
                    .iter()
                    .find(|(tok, _)| *tok == w.text)
                    .map(|(_, s)| *s),
                w.col,
            ),
            None => (None, ws[0].col),
        };
        let Some(stage) = stage else {
            return Err(self.err(
                n,
                col,
                format!(
                    "expected a shader stage after STAGE: one of {}",
                    tokens.join(", ")
                ),
            ));
        };
        if ws.len() > 2 {
            return Err(self.err(n, ws[2].col, "STAGE takes one stage"));
        }
        if self.program.stages.insert(t, stage).is_some() {
            return Err(self.err(n, ws[0].col, "second STAGE for this thread"));
        }
        Ok(())
    }

    /// `FRAGMENT prim N pixel N|pixels N N... [area N N...] [samples S...]
    /// [subpass N]`: the current thread is a fragment shader invocation
    /// placed so (docs/interlock.md).
    fn fragment(&mut self, n: usize, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let Some(thread) = self.program.threads.last() else {
            return Err(self.err(
                n,
                ws[0].col,
                "FRAGMENT places the current thread: write it after NEWTHREAD",
            ));
        };
        if thread.fragment.is_some() || !thread.code.is_empty() {
            return Err(self.err(
                n,
                ws[0].col,
                format!(
                    "FRAGMENT must come once, right after NEWTHREAD, before thread {}'s instructions",
                    thread.id
                ),
            ));
        }
        let (mut prim, mut subpass) = (None, None);
        let mut pixels: Option<Vec<u32>> = None;
        let mut area: Option<Vec<u32>> = None;
        let mut samples = 0u64;
        let mut i = 1;
        while i < ws.len() {
            let kw = ws[i];
            i += 1;
            // The numbers after a list keyword.
            let start = i;
            while i < ws.len() && ws[i].text.parse::<i64>().is_ok() {
                i += 1;
            }
            let numbers = &ws[start..i];
            if matches!(kw.text, "samples" | "pixels" | "area") && numbers.is_empty() {
                return Err(self.err(
                    n,
                    kw.col,
                    format!(
                        "expected the {} numbers after `{}` (e.g. `{} 0 1`)",
                        if kw.text == "samples" {
                            "covered sample"
                        } else {
                            "pixel"
                        },
                        kw.text,
                        kw.text
                    ),
                ));
            }
            let mut values = Vec::new();
            for w in numbers {
                let x = self.number(n, *w, &format!("a {} number", kw.text))?;
                if kw.text == "samples" {
                    if !(0..64).contains(&x) {
                        return Err(self.err(
                            n,
                            w.col,
                            format!("sample {x} is out of range: samples are numbered 0..63"),
                        ));
                    }
                    samples |= 1 << x;
                    continue;
                }
                values.push(u32::try_from(x).map_err(|_| {
                    self.err(
                        n,
                        w.col,
                        format!("{} number `{x}` is out of range", kw.text),
                    )
                })?);
            }
            match kw.text {
                "samples" => continue,
                "pixels" | "area" | "pixel" => {
                    let list = if kw.text == "area" {
                        &mut area
                    } else {
                        &mut pixels
                    };
                    if list.is_some() {
                        return Err(self.err(
                            n,
                            kw.col,
                            format!("`{}` given twice (or with `pixel`/`pixels`)", kw.text),
                        ));
                    }
                    if kw.text == "pixel" && values.len() != 1 {
                        return Err(self.err(
                            n,
                            kw.col,
                            "`pixel` takes one pixel number (`pixels N N...` for several)",
                        ));
                    }
                    *list = Some(values);
                }
                "prim" | "subpass" => {
                    let slot = if kw.text == "prim" {
                        &mut prim
                    } else {
                        &mut subpass
                    };
                    if slot.is_some() {
                        return Err(self.err(n, kw.col, format!("`{}` given twice", kw.text)));
                    }
                    let [v] = values[..] else {
                        return Err(self.err(
                            n,
                            kw.col + kw.text.chars().count(),
                            format!("expected the {} number", kw.text),
                        ));
                    };
                    *slot = Some(v);
                }
                other => {
                    return Err(self.err(
                        n,
                        kw.col,
                        format!(
                            "expected `prim`, `pixel`, `pixels`, `area`, `samples` or `subpass`, found `{other}`"
                        ),
                    ));
                }
            }
        }
        let (Some(primitive), Some(pixels)) = (prim, pixels) else {
            return Err(self.err(
                n,
                ws[0].col,
                "a fragment invocation needs `prim N pixel N` (its primitive in rasterization order and its pixel; `pixels N N...` for a fragment covering several)",
            ));
        };
        let fragment = Fragment::placed(
            primitive,
            &pixels,
            area.as_deref(),
            if samples == 0 { 1 } else { samples },
            subpass.unwrap_or(0),
        )
        .map_err(|m| self.err(n, ws[0].col, m))?;
        self.program.threads.last_mut().expect("checked").fragment = Some(fragment);
        Ok(())
    }

    fn reference(&mut self, name: &str) -> usize {
        if let Some(&r) = self.refs.get(name) {
            return r;
        }
        let r = self.program.references.len();
        // Locations are assigned in `finish`, once every SLOC is known.
        self.program.references.push(Reference {
            name: name.to_string(),
            location: usize::MAX,
        });
        self.refs.insert(name.to_string(), r);
        r
    }

    fn instruction(&mut self, n: usize, code: &str, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let op = ws[0];
        if self.program.threads.is_empty() {
            return Err(self.err(
                n,
                op.col,
                format!(
                    "expected NEWQF, NEWWG, NEWSG, NEWTHREAD, SLOC, SSW, SATISFIABLE or NOSOLUTION before the first instruction, found `{}`",
                    op.text
                ),
            ));
        }
        let span = SourceSpan {
            file: None,
            line: n,
            text: code.trim().into(),
        };
        let t = Tokens::parse(self, n, op)?;
        let kind = t.kind(self, n, op)?;
        let mut ins = Instruction::new(kind.clone(), span);
        ins.atomic = t.attrs.atom.is_some() || t.rmw;
        t.attrs.apply(&mut ins);
        t.attrs
            .validate(&ins, op.col, &ALLOY)
            .map_err(|(col, msg)| self.err(n, col, msg))?;

        let rest = &ws[1..];
        match &kind {
            OpKind::Load | OpKind::Store | OpKind::Rmw | OpKind::Deallocate => {
                let Some(var) = rest.first() else {
                    return Err(self.err(
                        n,
                        op.col + op.text.chars().count(),
                        "expected a variable name after the memory access",
                    ));
                };
                let (name, bytes) = self.variable(n, *var)?;
                if !name.chars().all(|c| c.is_alphanumeric() || c == '_')
                    || name.is_empty()
                    || name.starts_with(|c: char| c.is_ascii_digit())
                {
                    return Err(self.err(
                        n,
                        var.col,
                        format!("expected a variable name, found `{}`", var.text),
                    ));
                }
                ins.reference = Some(self.reference(name));
                ins.bytes = bytes;
                let t = self.program.threads.len() - 1;
                let stmt = self.program.threads[t].code.len();
                self.var_at.insert((t, stmt), (n, var.col));
                let values = self.values(n, &rest[1..])?;
                match (&kind, values.as_slice()) {
                    (_, []) => {}
                    (OpKind::Deallocate, _) => {
                        return Err(self.err(n, rest[1].col, "`free` takes no value"));
                    }
                    (OpKind::Load, [v]) => ins.read_value = Some(*v),
                    (OpKind::Store, [v]) => ins.write_value = Some(*v),
                    (OpKind::Rmw, [r, w]) => {
                        ins.read_value = Some(*r);
                        ins.write_value = Some(*w);
                    }
                    (OpKind::Rmw, [_]) => {
                        return Err(self.err(
                            n,
                            rest[1].col,
                            "a read-modify-write takes two values: the value read, then the value written",
                        ));
                    }
                    _ => {
                        return Err(self.err(
                            n,
                            rest[1].col,
                            "a second value is only allowed on an atomic read-modify-write",
                        ));
                    }
                }
            }
            OpKind::ControlBarrier { .. } => {
                let Some(inst) = rest.first() else {
                    return Err(self.err(
                        n,
                        op.col + op.text.chars().count(),
                        "expected the control barrier's instance number",
                    ));
                };
                let v = self.number(n, *inst, "a control barrier instance number")?;
                if v < 0 || v > u32::MAX as i64 {
                    return Err(self.err(n, inst.col, "instance numbers are 0 or more"));
                }
                if let Some(extra) = rest.get(1) {
                    return Err(self.err(n, extra.col, format!("unexpected `{}`", extra.text)));
                }
                // The Alloy model gives a control barrier one scope token
                // (`scopewg`): its `inscope` uses it as the memory scope, and
                // the test's instance number (`scbarinst`) says which
                // barriers meet, whatever their placement. vkmm takes the
                // token as the execution scope too; barriers that
                // synchronize must be in each other's memory-scope
                // instance anyway (`inscope`), which implies being in one
                // instance of the same scope as execution scope, so no
                // verdict of the Alloy suite changes.
                ins.kind = OpKind::control_barrier(v as u32, ins.scope.unwrap_or(Scope::Workgroup));
            }
            _ => {
                if let Some(extra) = rest.first() {
                    return Err(self.err(
                        n,
                        extra.col,
                        format!("`{}` takes no operand, found `{}`", op.text, extra.text),
                    ));
                }
            }
        }
        self.push(ins);
        Ok(())
    }

    /// A variable word, `x` or a byte range `x[a..b]` (half-open).
    fn variable<'w>(
        &self,
        n: usize,
        w: Word<'w>,
    ) -> Result<(&'w str, Option<crate::ir::ByteRange>), FrontendError> {
        let Some(open) = w.text.find('[') else {
            return Ok((w.text, None));
        };
        let bad = |what: &str| {
            self.err(
                n,
                w.col + w.text[..open].chars().count(),
                format!(
                    "{what} in `{}`: a byte range is `[start..end]`, end excluded, with start < end (`x[0..4]`)",
                    w.text
                ),
            )
        };
        let inner = w.text[open + 1..]
            .strip_suffix(']')
            .ok_or_else(|| bad("expected `]` to close the byte range"))?;
        let (a, b) = inner
            .split_once("..")
            .ok_or_else(|| bad("expected `..` between the bounds"))?;
        let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) else {
            return Err(bad("expected two byte offsets"));
        };
        if b <= a {
            return Err(bad("the byte range is empty"));
        }
        Ok((&w.text[..open], Some(crate::ir::ByteRange::new(a, b))))
    }

    /// Appends an instruction to the current thread (the caller checked
    /// that there is one).
    /// `trace N [N...]`, `call N [N...]`, `report N`: a shader call
    /// instruction creating the threads numbered N (docs/format-alloy-test.md).
    fn shader_call(&mut self, n: usize, code: &str, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let word = ws[0].text;
        let call = crate::ir::CallKind::TOKENS
            .iter()
            .find(|(t, _)| *t == word)
            .map(|(_, c)| *c)
            .expect("dispatched on the word");
        if ws.len() < 2 {
            return Err(self.err(
                n,
                ws[0].col + word.len(),
                format!("expected the thread number `{word}` creates (`{word} 1`)"),
            ));
        }
        let mut callees = Vec::new();
        for w in &ws[1..] {
            let id = self.thread_number(n, *w)?;
            if callees.iter().any(|&(c, _, _)| c == id) {
                return Err(self.err(n, w.col, format!("`{word}` names thread {id} twice")));
            }
            callees.push((id, n, w.col));
        }
        let t = self.program.threads.len() - 1;
        let stmt = self.program.threads[t].code.len();
        self.calls.push((t, stmt, callees));
        let span = SourceSpan {
            file: None,
            line: n,
            text: code.trim().into(),
        };
        let kind = OpKind::ShaderCall {
            callees: Vec::new(),
            call,
        };
        self.push(Instruction::new(kind, span));
        Ok(())
    }

    fn push(&mut self, ins: Instruction) {
        self.program
            .threads
            .last_mut()
            .expect("checked above")
            .code
            .push(Stmt::Op(ins));
    }

    /// Parses `= v [v2]` (also `=v`, `= v`, `x=v` split by the caller).
    fn values(&self, n: usize, rest: &[Word<'_>]) -> Result<Vec<i64>, FrontendError> {
        let mut items: Vec<Word<'_>> = Vec::new();
        for w in rest {
            // split a leading '=' glued to the number
            if let Some(stripped) = w.text.strip_prefix('=') {
                items.push(Word {
                    text: "=",
                    col: w.col,
                });
                if !stripped.is_empty() {
                    items.push(Word {
                        text: stripped,
                        col: w.col + 1,
                    });
                }
            } else {
                items.push(*w);
            }
        }
        let Some(eq) = items.first() else {
            return Ok(Vec::new());
        };
        if eq.text != "=" {
            return Err(self.err(
                n,
                eq.col,
                format!("expected `= value`, found `{}`", eq.text),
            ));
        }
        if items.len() == 1 {
            return Err(self.err(n, eq.col + 1, "expected a value after `=`"));
        }
        if items.len() > 3 {
            return Err(self.err(
                n,
                items[3].col,
                format!("unexpected `{}`: at most two values", items[3].text),
            ));
        }
        items[1..]
            .iter()
            .map(|w| self.number(n, *w, "an integer value"))
            .collect()
    }

    fn query(&mut self, n: usize, code: &str, ws: &[Word<'_>]) -> Result<(), FrontendError> {
        let expect = if ws[0].text == "SATISFIABLE" {
            Expectation::Satisfiable
        } else {
            Expectation::NoSolution
        };
        // Work on the raw text after the keyword to keep exact columns.
        let start = code.find(ws[0].text).unwrap_or(0) + ws[0].text.len();
        let mut rest = &code[start..];
        let mut offset = start;
        let mut no_chains = false;
        let trimmed = rest.trim_start();
        if let Some(after) = trimmed.strip_prefix("NOCHAINS") {
            no_chains = true;
            offset += rest.len() - after.len();
            rest = after;
        }
        let mut qp = QueryParser {
            chars: rest.chars().collect(),
            pos: 0,
            base_col: code[..offset].chars().count() + 1,
            depth: 0,
        };
        let pred = qp
            .pred()
            .and_then(|p| {
                qp.skip_ws();
                if qp.pos < qp.chars.len() {
                    Err((qp.pos, format!("unexpected `{}`", qp.chars[qp.pos])))
                } else {
                    Ok(p)
                }
            })
            .map_err(|(pos, msg)| self.err(n, qp.base_col + pos, msg))?;
        self.program.queries.push(Query {
            expect,
            no_chains,
            pred,
            line: n,
            text: code.trim().into(),
            column: code[..code.len() - code.trim_start().len()].chars().count() + 1,
        });
        Ok(())
    }

    fn finish(mut self) -> Result<Program, FrontendError> {
        // Locations: union-find over SLOC pairs.
        let nrefs = self.program.references.len();
        let mut parent: Vec<usize> = (0..nrefs).collect();
        fn root(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        for (a, b, line, col) in std::mem::take(&mut self.slocs) {
            let (Some(&ra), Some(&rb)) = (self.refs.get(&a), self.refs.get(&b)) else {
                let missing = if self.refs.contains_key(&a) { &b } else { &a };
                return Err(self.err(
                    line,
                    col,
                    format!("SLOC names `{missing}`, which no instruction accesses"),
                ));
            };
            let (x, y) = (root(&mut parent, ra), root(&mut parent, rb));
            parent[x.max(y)] = x.min(y);
        }
        let mut loc_of_root: HashMap<usize, usize> = HashMap::new();
        for r in 0..nrefs {
            let rt = root(&mut parent, r);
            let next = self.program.locations.len();
            let loc = *loc_of_root.entry(rt).or_insert(next);
            if loc == next {
                self.program
                    .locations
                    .push(self.program.references[rt].name.clone());
            }
            self.program.references[r].location = loc;
        }
        // SSW and GENERATES: thread numbers -> thread indices.
        for (a, b, line, col, generates) in std::mem::take(&mut self.ssws) {
            let find = |id: usize| self.program.threads.iter().position(|t| t.id == id);
            let word = if generates { "GENERATES" } else { "SSW" };
            let (ia, ib) = match (find(a), find(b)) {
                (Some(ia), Some(ib)) => (ia, ib),
                (ia, _) => {
                    let t = if ia.is_none() { a } else { b };
                    return Err(self.err(
                        line,
                        col,
                        format!("{word} names thread {t}, which is not declared"),
                    ));
                }
            };
            if generates {
                self.program.generates.push((ia, ib));
            } else {
                self.program.ssw.push((ia, ib));
            }
        }
        // Control barrier instances: at most one per thread.
        for t in &self.program.threads {
            let mut seen = HashMap::new();
            for ins in t.instructions() {
                if let OpKind::ControlBarrier { instance, .. } = ins.kind
                    && let Some(prev) = seen.insert(instance, ins.source.line)
                {
                    return Err(self.err(
                        ins.source.line,
                        1,
                        format!(
                            "control barrier instance {instance} is reached twice by thread {} (first at line {prev})",
                            t.id
                        ),
                    ));
                }
            }
        }
        // Shader calls: thread numbers -> thread indices, then the rules
        // (docs/coverage.md).
        for (t, stmt, callees) in std::mem::take(&mut self.calls) {
            let mut indices = Vec::new();
            for (id, line, col) in callees {
                let Some(i) = self.program.threads.iter().position(|th| th.id == id) else {
                    return Err(self.err(line, col, format!("thread {id} is not declared")));
                };
                indices.push(i);
            }
            if let Stmt::Op(ins) = &mut self.program.threads[t].code[stmt]
                && let OpKind::ShaderCall { callees, .. } = &mut ins.kind
            {
                *callees = indices;
            }
        }
        let ids: Vec<usize> = self.program.threads.iter().map(|t| t.id).collect();
        if let Err(i) = crate::ir::shadercall::check(&self.program, &|t| match ids.get(t) {
            Some(id) => format!("thread {id}"),
            None => format!("thread #{t}"),
        }) {
            let line = self.program.threads[i.thread].code[i.stmt].source().line;
            return Err(self.err(line, 1, i.message));
        }
        // Fragment shader interlock (docs/interlock.md, "Lints").
        if let Err(i) = crate::ir::interlock::check(
            &self.program,
            &crate::ir::interlock::InterlockSpelling {
                begin: "beginil",
                end: "endil",
                scope: "scopefi",
                placement: "a `FRAGMENT prim N pixel N` line after its NEWTHREAD",
            },
        ) {
            let line = self.program.threads[i.thread].code[i.stmt].source().line;
            return Err(self.err(line, 1, i.message));
        }
        if self.program.threads.is_empty() {
            return Err(self.err(1, 1, "no thread: expected NEWTHREAD and instructions"));
        }
        self.program.initial_values = vec![0; self.program.locations.len()];
        // Sized variables: one location per chunk of bytes (src/ir/bytes.rs).
        for (name, size, line, col) in std::mem::take(&mut self.sizes) {
            let Some(&r) = self.refs.get(&name) else {
                return Err(self.err(
                    line,
                    col,
                    format!("SIZE names `{name}`, which no instruction accesses"),
                ));
            };
            let loc = self.program.references[r].location;
            if let Some(prev) = self.program.sizes.insert(loc, size)
                && prev != size
            {
                return Err(self.err(
                    line,
                    col,
                    format!(
                        "`{name}` names one location with a variable of {prev} bytes (SLOC): give both the same size"
                    ),
                ));
            }
        }
        for (t, thread) in self.program.threads.iter().enumerate() {
            for (k, stmt) in thread.code.iter().enumerate() {
                if let Stmt::Op(i) = stmt
                    && let (Some(r), Some(loc)) = (i.bytes, self.program.location_of(i))
                    && !self.program.sizes.contains_key(&loc)
                {
                    let (line, col) = self.var_at.get(&(t, k)).copied().unwrap_or((1, 1));
                    let name = &self.program.references[i.reference.unwrap_or(0)].name;
                    return Err(self.err(
                        line,
                        col,
                        format!(
                            "`{name}{r}` names bytes of `{name}`, which has no size: declare it with `SIZE {name} N`"
                        ),
                    ));
                }
            }
        }
        // Cooperative matrix instructions (docs/coverage.md); when one
        // leaves its attribution open, the program before lowering holds
        // every element access.
        self.check_coops()?;
        let full = self
            .coops
            .iter()
            .any(|c| c.open)
            .then(|| self.program.clone());
        let layout = crate::ir::bytes::lower(&mut self.program).map_err(|e| {
            let (line, col) = self
                .var_at
                .get(&(e.thread, e.stmt))
                .copied()
                .unwrap_or((1, 1));
            self.err(line, col, e.message)
        })?;
        let symbols = &mut self.program.symbols;
        for t in &self.program.threads {
            symbols.add_thread(t.id.to_string(), &[]);
        }
        for (name, chunks) in &layout {
            symbols.add_sized(name, chunks);
        }
        for r in &self.program.references {
            symbols.add_name(&r.name, vec![r.location]);
        }
        match &full {
            Some(full) => {
                let lowered = std::mem::take(&mut self.program);
                self.expand_coop_attributions(full, lowered)
            }
            None => Ok(self.program),
        }
    }
}

/// The tokens of an instruction's opcode.
#[derive(Default)]
struct Tokens {
    st: bool,
    ld: bool,
    rmw: bool,
    membar: bool,
    cbar: bool,
    avdevice: bool,
    visdevice: bool,
    free: bool,
    /// Every other token: the attributes shared with the other front ends.
    attrs: Attrs,
}

impl Tokens {
    fn parse(p: &Parser<'_>, n: usize, op: Word<'_>) -> Result<Tokens, FrontendError> {
        let mut t = Tokens::default();
        let mut col = op.col;
        for tok in op.text.split('.') {
            if tok.is_empty() {
                return Err(p.err(
                    n,
                    col,
                    "empty token: two dots in a row, or a leading/trailing dot",
                ));
            }
            let flag = match tok {
                "st" => Some(&mut t.st),
                "ld" => Some(&mut t.ld),
                "rmw" => Some(&mut t.rmw),
                "membar" => Some(&mut t.membar),
                "cbar" => Some(&mut t.cbar),
                "avdevice" => Some(&mut t.avdevice),
                "visdevice" => Some(&mut t.visdevice),
                "free" => Some(&mut t.free),
                _ => None,
            };
            match flag {
                Some(flag) => {
                    if *flag {
                        return Err(p.err(n, col, format!("`{tok}` given twice")));
                    }
                    *flag = true;
                }
                None => {
                    let known = t
                        .attrs
                        .token(tok, col, &ALLOY)
                        .map_err(|(c, msg)| p.err(n, c, msg))?;
                    if !known {
                        let kinds = [
                            "st",
                            "ld",
                            "rmw",
                            "membar",
                            "cbar",
                            "avdevice",
                            "visdevice",
                            "free",
                        ];
                        let hint = suggest::did_you_mean(tok, ALLOY.tokens().chain(kinds));
                        return Err(p.err(
                            n,
                            col,
                            format!(
                                "unknown token `{tok}`: expected one of st ld rmw atom membar cbar acq rel scN semscN scopesg scopewg scopeqf scopedev scopeinv scopecd scopeshcall av vis semav semvis nonpriv avtexel vistexel nonprivtexel avelem viselem nonprivelem output input callable incallable payload hitattr inpayload avdevice visdevice free{hint}"
                            ),
                        ));
                    }
                }
            }
            col += tok.chars().count() + 1;
        }
        Ok(t)
    }

    fn kind(&self, p: &Parser<'_>, n: usize, op: Word<'_>) -> Result<OpKind, FrontendError> {
        let access = self.st || self.ld || self.rmw;
        let others = [
            ("membar", self.membar),
            ("cbar", self.cbar),
            ("avdevice", self.avdevice),
            ("visdevice", self.visdevice),
            ("free", self.free),
        ];
        let named: Vec<&str> = others
            .iter()
            .filter(|(_, on)| *on)
            .map(|(s, _)| *s)
            .collect();
        if named.len() + usize::from(access) > 1 {
            return Err(p.err(
                n,
                op.col,
                "an instruction is exactly one of: a memory access (ld/st/rmw), membar, cbar, avdevice, visdevice, free",
            ));
        }
        Ok(if self.rmw || (self.st && self.ld) {
            if !self.rmw && self.attrs.atom.is_none() {
                return Err(p.err(
                    n,
                    op.col,
                    "a read-modify-write (ld.st) must be atomic: add `atom`",
                ));
            }
            OpKind::Rmw
        } else if self.ld {
            OpKind::Load
        } else if self.st {
            OpKind::Store
        } else if self.membar {
            OpKind::MemoryBarrier
        } else if self.cbar {
            OpKind::control_barrier(0, Scope::Workgroup)
        } else if self.avdevice {
            OpKind::AvailabilityDevice
        } else if self.visdevice {
            OpKind::VisibilityDevice
        } else if self.free {
            OpKind::Deallocate
        } else {
            return Err(p.err(
                n,
                op.col,
                format!(
                    "`{}` is not an instruction: expected st, ld, rmw, membar, cbar, avdevice, visdevice or free among its tokens",
                    op.text
                ),
            ));
        })
    }
}

/// Parser of query predicates: `consistent[X] && #dr=0 && (#rs>1)`.
struct QueryParser {
    chars: Vec<char>,
    pos: usize,
    /// Parentheses open around the position.
    depth: usize,
    base_col: usize,
}

type QResult<T> = Result<T, (usize, String)>;

impl QueryParser {
    fn skip_ws(&mut self) {
        while self.pos < self.chars.len() && self.chars[self.pos].is_whitespace() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        let cs: Vec<char> = s.chars().collect();
        if self.chars[self.pos..].starts_with(&cs) {
            self.pos += cs.len();
            true
        } else {
            false
        }
    }

    fn pred(&mut self) -> QResult<Pred> {
        let mut terms = vec![self.term()?];
        while self.eat("&&") {
            terms.push(self.term()?);
        }
        Ok(if terms.len() == 1 {
            terms.pop().expect("one term")
        } else {
            Pred::And(terms)
        })
    }

    fn term(&mut self) -> QResult<Pred> {
        self.skip_ws();
        if self.eat("(") {
            if self.depth >= MAX_NESTING {
                return Err((
                    self.pos - 1,
                    format!("nesting deeper than {MAX_NESTING} levels"),
                ));
            }
            self.depth += 1;
            let p = self.pred()?;
            self.depth -= 1;
            if !self.eat(")") {
                return Err((self.pos, "expected `)`".into()));
            }
            return Ok(p);
        }
        if self.eat("consistent") {
            if !self.eat("[") || !self.eat("X") || !self.eat("]") {
                return Err((self.pos, "expected `consistent[X]`".into()));
            }
            return Ok(Pred::Consistent);
        }
        if self.eat("#") {
            let start = self.pos;
            while self.pos < self.chars.len()
                && (self.chars[self.pos].is_alphanumeric() || self.chars[self.pos] == '_')
            {
                self.pos += 1;
            }
            if start == self.pos {
                return Err((start, "expected a relation name after `#`".into()));
            }
            let name: String = self.chars[start..self.pos].iter().collect();
            let cmp = if self.eat("!=") {
                Cmp::Ne
            } else if self.eat("<=") {
                Cmp::Le
            } else if self.eat(">=") {
                Cmp::Ge
            } else if self.eat("=") {
                Cmp::Eq
            } else if self.eat("<") {
                Cmp::Lt
            } else if self.eat(">") {
                Cmp::Gt
            } else {
                return Err((
                    self.pos,
                    "expected a comparison (=, !=, <, <=, >, >=)".into(),
                ));
            };
            self.skip_ws();
            let start = self.pos;
            while self.pos < self.chars.len() && self.chars[self.pos].is_ascii_digit() {
                self.pos += 1;
            }
            let digits: String = self.chars[start..self.pos].iter().collect();
            let value = digits
                .parse::<usize>()
                .map_err(|_| (start, "expected a number".to_string()))?;
            return Ok(Pred::Count { name, cmp, value });
        }
        Err((
            self.pos,
            "expected `consistent[X]`, `#name op number` or `(`".into(),
        ))
    }
}

mod coop;
#[cfg(test)]
mod tests;
