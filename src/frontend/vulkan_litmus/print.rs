//! Printer for the Vulkan dialect of herd-style `.litmus` tests: the inverse
//! of [`super::parse`].
//!
//! [`to_litmus`] writes a [`Program`] as a `.litmus` file that the parser
//! reads back as the same program (up to source spans and the condition's
//! source text). The output is canonical, so printing is a fixed point:
//! `to_litmus(&parse(&to_litmus(p)))` is `to_litmus(p)`.
//!
//! What the printer canonicalises:
//!
//! - the header is `VULKAN name`, with no quoted comments;
//! - the initial state lists, one entry a line, every thread's register
//!   initial values (`P1:r0=0;`, thread by thread, in the program's order),
//!   then every reference in the program's order: the first reference of a
//!   location as `x=v;` (every location gets an explicit initial value), any
//!   further one as `y aliases x;`;
//! - the `ssw` block is written only when there are `ssw` pairs;
//! - the declaration row numbers workgroups from 0 within their queue family
//!   and subgroups from 0 within their workgroup, in order of first
//!   appearance (queue family numbers are kept: the IR stores them as
//!   written);
//! - statement `i` of every thread is in row `i` (empty cells only below a
//!   thread's last statement); every column is padded to its widest cell;
//! - attributes come in one order: `atom`, `acq`/`rel`/`acq_rel`, `av`,
//!   `vis`, `nonpriv` (`avtexel`... `avelem`... for image and tensor
//!   accesses), the scope, `scN`, `semscN` (ascending), `semav`,
//!   `semvis`, then the rmw operation (none for an exchange); attributes the
//!   parser adds by itself are left out (`av` on atomic writes, `vis` on
//!   atomic reads, `nonpriv` on atomics and on `av`/`vis` accesses);
//! - the final clauses come as `locations [...]`, `filter (...)`, then
//!   `exists`/`~exists`/`forall (...)`, each on its own line; expressions
//!   use `==`, `!=`, `/\`, `\/`, `~` and only the parentheses the tree needs
//!   (plus one pair around the whole expression and one after a `~`, unless
//!   that would nest deeper than the parser allows).
//!
//! A program no parse can produce (scopes the dialect cannot spell, an
//! attribute the parser would reject, Alloy-style queries...) is printed as
//! closely as possible; where a construct has no spelling the output does
//! not parse. [`try_to_litmus`] checks the round trip and reports the first
//! difference instead.

use super::{ARITH_OPS, BRANCHES, RMW_OPS};
use crate::frontend::attributes::{LITMUS, flavoured};
use crate::frontend::litmus::condition::MAX_NESTING;
use crate::ir::{
    CondExpr, Condition, Instruction, InterlockMode, OpKind, Operand, Order, Program, Quantifier,
    Stmt, Term,
};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A program that does not survive printing and parsing back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PrintError {
    pub message: String,
}

/// Writes `program` as a Vulkan `.litmus` test (see the module documentation
/// for the layout). Never panics.
pub fn to_litmus(program: &Program) -> String {
    let names = Names::new(program);
    let mut out = String::new();
    if program.name.is_empty() {
        out.push_str("VULKAN\n");
    } else {
        let _ = writeln!(out, "VULKAN {}", program.name);
    }
    init_block(program, &names, &mut out);
    if !program.ssw.is_empty() || !program.generates.is_empty() {
        out.push_str("{\n");
        for (a, b) in &program.ssw {
            let _ = writeln!(out, "ssw {a} {b};");
        }
        for (a, b) in &program.generates {
            let _ = writeln!(out, "gen {a} {b};");
        }
        out.push_str("}\n");
    }
    rows(program, &names, &mut out);
    final_clauses(program, &names, &mut out);
    out
}

/// Prints `program`, parses the text back and checks it gives the same
/// program (ignoring source spans, the condition's source text and
/// front-end warnings).
pub fn try_to_litmus(program: &Program) -> Result<String, PrintError> {
    // A sized variable is lowered to chunk locations and hidden registers
    // (src/ir/bytes.rs): the declaration `x:N` and the byte ranges are not
    // kept, so printing would not give the test back.
    if let Some(n) = program.symbols.names.iter().find(|n| !n.bytes.is_empty()) {
        return Err(PrintError {
            message: format!(
                "`{}` is a sized variable (docs/format-vulkan-litmus.md, \"Memory locations as bytes\"): a program with sized variables is lowered to one location per chunk of bytes and cannot be printed back as a litmus test",
                n.name
            ),
        });
    }
    let text = to_litmus(program);
    let file = format!("{}.litmus", program.name);
    let back = super::parse(&file, &text).map_err(|e| PrintError {
        message: format!("the printed test does not parse back: {e}\n{text}"),
    })?;
    let (a, b) = (comparable(program), comparable(&back));
    match first_difference(&a, &b, "program") {
        None => Ok(text),
        Some(path) => Err(PrintError {
            message: format!(
                "the printed test parses back to a different program: {path} differs (the Vulkan litmus dialect cannot express it)"
            ),
        }),
    }
}

// ----- names ---------------------------------------------------------------

/// The name each location is printed with.
struct Names<'p> {
    program: &'p Program,
    /// For each location, its first reference (the one declaring it).
    primary: Vec<Option<usize>>,
}

impl<'p> Names<'p> {
    fn new(program: &'p Program) -> Self {
        let mut primary = vec![None; program.locations.len()];
        for (r, reference) in program.references.iter().enumerate() {
            if let Some(slot @ None) = primary.get_mut(reference.location) {
                *slot = Some(r);
            }
        }
        Names { program, primary }
    }

    /// A location as written in conditions and `locations [...]`: the name
    /// of its first reference.
    fn location(&self, loc: usize) -> &'p str {
        match self.primary.get(loc).copied().flatten() {
            Some(r) => &self.program.references[r].name,
            None => self
                .program
                .locations
                .get(loc)
                .map(String::as_str)
                .unwrap_or("?"),
        }
    }

    fn reference(&self, r: Option<usize>) -> &'p str {
        r.and_then(|r| self.program.references.get(r))
            .map(|r| r.name.as_str())
            .unwrap_or("?")
    }
}

// ----- initial state -------------------------------------------------------

fn init_block(program: &Program, names: &Names<'_>, out: &mut String) {
    out.push_str("{\n");
    if program.interlock != InterlockMode::default() {
        let InterlockMode {
            granularity,
            ordered,
        } = program.interlock;
        let g = granularity.keyword();
        let o = if ordered { "ordered" } else { "unordered" };
        let _ = writeln!(out, "interlock {g} {o};");
    }
    for (k, thread) in program.threads.iter().enumerate() {
        for (reg, value) in &thread.registers {
            let _ = writeln!(out, "P{k}:{reg}={value};");
        }
    }
    for (r, reference) in program.references.iter().enumerate() {
        let loc = reference.location;
        match names.primary.get(loc).copied().flatten() {
            Some(first) if first != r => {
                let _ = writeln!(out, "{} aliases {};", reference.name, names.location(loc));
            }
            _ => {
                let _ = writeln!(out, "{}={};", reference.name, program.initial_value(loc));
            }
        }
    }
    // Locations without any reference cannot be accessed; keep their values.
    for (loc, name) in program.locations.iter().enumerate() {
        if names.primary[loc].is_none() {
            let _ = writeln!(out, "{name}={};", program.initial_value(loc));
        }
    }
    out.push_str("}\n");
}

// ----- thread declarations and instruction rows -----------------------------

/// `P0@sg S, wg W, qf Q` for each thread: workgroups numbered within their
/// queue family, subgroups within their workgroup, by first appearance.
fn declarations(program: &Program) -> Vec<String> {
    let mut workgroups: HashMap<(usize, usize), usize> = HashMap::new();
    let mut wg_count: HashMap<usize, usize> = HashMap::new();
    let mut subgroups: HashMap<(usize, usize, usize), usize> = HashMap::new();
    let mut sg_count: HashMap<(usize, usize), usize> = HashMap::new();
    program
        .threads
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let qf = t.queue_family;
            let wg = *workgroups.entry((qf, t.workgroup)).or_insert_with(|| {
                let n = wg_count.entry(qf).or_insert(0);
                *n += 1;
                *n - 1
            });
            let sg = *subgroups
                .entry((qf, t.workgroup, t.subgroup))
                .or_insert_with(|| {
                    let n = sg_count.entry((qf, t.workgroup)).or_insert(0);
                    *n += 1;
                    *n - 1
                });
            let mut d = format!("P{k}@sg {sg}, wg {wg}, qf {qf}");
            if let Some(stage) = program.stage(k) {
                d.push_str(", ");
                d.push_str(stage.token());
            }
            if let Some(f) = &t.fragment {
                let _ = write!(d, ", prim {}", f.primitive);
                if f.pixels.len() == 1 {
                    let _ = write!(d, ", pixel {}", f.pixel);
                } else {
                    d.push_str(", pixels");
                    for p in f.pixels.as_slice() {
                        let _ = write!(d, " {p}");
                    }
                }
                if f.area != f.pixels {
                    d.push_str(", area");
                    for p in f.area.as_slice() {
                        let _ = write!(d, " {p}");
                    }
                }
                if f.samples != 1 {
                    d.push_str(", samples");
                    for k in (0..64).filter(|k| f.samples & (1u64 << k) != 0) {
                        let _ = write!(d, " {k}");
                    }
                }
                if f.subpass != 0 {
                    let _ = write!(d, ", subpass {}", f.subpass);
                }
            }
            d
        })
        .collect()
}

fn rows(program: &Program, names: &Names<'_>, out: &mut String) {
    let columns: Vec<Vec<String>> = program
        .threads
        .iter()
        .map(|t| t.code.iter().map(|s| statement(names, s)).collect())
        .collect();
    let decls = declarations(program);
    let widths: Vec<usize> = decls
        .iter()
        .zip(&columns)
        .map(|(d, cells)| {
            cells
                .iter()
                .chain(std::iter::once(d))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let row = |out: &mut String, cells: &mut dyn Iterator<Item = &str>| {
        let padded: Vec<String> = cells
            .zip(&widths)
            .map(|(c, &w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, " {} ;", padded.join(" | "));
    };
    row(out, &mut decls.iter().map(String::as_str));
    let height = columns.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..height {
        row(
            out,
            &mut columns
                .iter()
                .map(|c| c.get(i).map(String::as_str).unwrap_or("")),
        );
    }
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Const(v) => v.to_string(),
        Operand::Reg(r) => r.clone(),
    }
}

fn statement(names: &Names<'_>, s: &Stmt) -> String {
    match s {
        Stmt::Op(ins) => instruction(names, ins),
        Stmt::Label { name, .. } => format!("{name}:"),
        Stmt::Goto { label, .. } => format!("goto {label}"),
        Stmt::Branch {
            cmp, a, b, label, ..
        } => {
            let word = BRANCHES
                .iter()
                .find(|(_, c)| c == cmp)
                .map(|(w, _)| *w)
                .unwrap_or("b?");
            format!("{word} {}, {}, {label}", operand(a), operand(b))
        }
        Stmt::Assign { dest, op, a, b, .. } => {
            // Numeric operations have no litmus spelling: their name
            // shows what the SPIR-V front end computed.
            let word = match op {
                crate::ir::ArithOp::Num(n) => n.name(),
                _ => ARITH_OPS
                    .iter()
                    .find(|(_, o)| o == op)
                    .map_or("?", |(w, _)| *w)
                    .to_string(),
            };
            format!("{word} {dest}, {}, {}", operand(a), operand(b))
        }
    }
}

/// The opcode with its attribute tokens, in canonical order, leaving out
/// those the parser implies.
fn opcode(ins: &Instruction) -> String {
    // The interlock instructions carry their attributes by definition.
    match ins.kind {
        OpKind::BeginInterlock => return "beginil".into(),
        OpKind::EndInterlock => return "endil".into(),
        // API operations are printed as written (docs/host.md).
        OpKind::Api(_) => return ins.source.text.to_string(),
        // `trace Pk`, `call Pk`, `report Pk`: no attribute.
        OpKind::ShaderCall { call, .. } => return call.token().into(),
        _ => {}
    }
    let mut s = String::from(match ins.kind {
        OpKind::BeginInterlock
        | OpKind::EndInterlock
        | OpKind::Api(_)
        | OpKind::ShaderCall { .. } => {
            unreachable!("returned above")
        }
        OpKind::Load => "ld",
        OpKind::Store => "st",
        OpKind::Rmw => "rmw",
        OpKind::MemoryBarrier => "membar",
        OpKind::ControlBarrier { .. } => "cbar",
        OpKind::AvailabilityDevice => "avdevice",
        OpKind::VisibilityDevice => "visdevice",
        OpKind::Deallocate => "free",
    });
    let mut tok = |t: &str| {
        s.push('.');
        s.push_str(t);
    };
    if ins.atomic {
        tok("atom");
    }
    let sem = &ins.semantics;
    match sem.order {
        Order::Relaxed => {}
        Order::Acquire => tok("acq"),
        Order::Release => tok("rel"),
        Order::AcquireRelease => tok("acq_rel"),
    }
    let av = ins.make_pointer_available && !(ins.atomic && ins.is_write());
    let vis = ins.make_pointer_visible && !(ins.atomic && ins.is_read());
    // Image and tensor accesses spell the same flags `avtexel`, `avelem`...
    let spelt = |base| flavoured(base, ins.access_kind);
    if av {
        tok(spelt("av"));
    }
    if vis {
        tok(spelt("vis"));
    }
    let implied_nonpriv = ins.atomic || ins.make_pointer_available || ins.make_pointer_visible;
    if ins.non_private && !implied_nonpriv {
        tok(spelt("nonpriv"));
    }
    if let Some(i) = ins.interface {
        tok(i.token());
    }
    if let Some(scope) = ins.scope {
        match LITMUS.scopes.iter().find(|(_, s)| *s == scope) {
            Some((name, _)) => tok(name),
            // No spelling: an unknown token, which the parser rejects.
            None => tok(&scope.name().to_lowercase()),
        }
    }
    if let Some(sc) = ins.storage_class {
        tok(&format!("sc{}", sc.0));
    }
    for sc in &sem.storage_classes {
        tok(&format!("semsc{}", sc.0));
    }
    if sem.make_available {
        tok("semav");
    }
    if sem.make_visible {
        tok("semvis");
    }
    // An exchange has no token (and `RMW_OPS` no entry for it).
    if ins.kind == OpKind::Rmw
        && let Some((name, _)) = RMW_OPS.iter().find(|(_, op)| *op == ins.rmw_op)
    {
        tok(name);
    }
    s
}

fn instruction(names: &Names<'_>, ins: &Instruction) -> String {
    let op = opcode(ins);
    let dest = ins.dest.as_deref().unwrap_or("?");
    let loc = names.reference(ins.reference);
    let value = ins.operand.as_ref().map(operand);
    let value = value.as_deref().unwrap_or("?");
    match ins.kind {
        OpKind::Load => format!("{op} {dest}, {loc}"),
        OpKind::Deallocate => format!("{op} {loc}"),
        OpKind::ShaderCall { ref callees, .. } => {
            let names: Vec<String> = callees.iter().map(|c| format!("P{c}")).collect();
            format!("{op} {}", names.join(", "))
        }
        OpKind::Store => format!("{op} {loc}, {value}"),
        OpKind::Rmw => format!("{op} {dest}, {loc}, {value}"),
        OpKind::ControlBarrier {
            instance,
            ref id,
            ref quorum,
            ..
        } => {
            let mut s = format!("{op} {instance}");
            for o in id.iter().chain(quorum) {
                s.push_str(", ");
                s.push_str(&operand(o));
            }
            s
        }
        OpKind::MemoryBarrier
        | OpKind::AvailabilityDevice
        | OpKind::VisibilityDevice
        | OpKind::BeginInterlock
        | OpKind::EndInterlock
        | OpKind::Api(_) => op,
    }
}

// ----- final clauses ---------------------------------------------------------

fn final_clauses(program: &Program, names: &Names<'_>, out: &mut String) {
    if !program.shown_locations.is_empty() {
        let list: Vec<String> = program
            .shown_locations
            .iter()
            .map(|&l| format!("{};", names.location(l)))
            .collect();
        let _ = writeln!(out, "locations [{}]", list.join(" "));
    }
    let Some(Condition {
        quantifier,
        expr,
        filter,
        ..
    }) = &program.condition
    else {
        return;
    };
    if let Some(f) = filter {
        let _ = writeln!(out, "filter {}", top_expr(names, f));
    }
    let word = match quantifier {
        Some(Quantifier::Exists) => "exists",
        Some(Quantifier::NotExists) => "~exists",
        Some(Quantifier::Forall) => "forall",
        None => return,
    };
    let _ = writeln!(out, "{word} {}", top_expr(names, expr));
}

/// Binding strength of the context an expression is printed in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// Anything goes (`a \/ b`).
    Or,
    /// The left operand of `/\` or the right operand of `\/`.
    And,
    /// The operand of `~` or the right operand of `/\`.
    Unary,
}

/// Whether `e` needs parentheses when printed at `level`.
fn needs_parens(e: &CondExpr, level: Level) -> bool {
    match e {
        CondExpr::Or(..) => level > Level::Or,
        CondExpr::And(..) => level > Level::And,
        _ => false,
    }
}

/// How deeply the parser nests (each `(` and each `~` counts one) to read
/// the minimal spelling of `e` at `level`.
fn nesting(e: &CondExpr, level: Level) -> usize {
    if needs_parens(e, level) {
        return 1 + nesting(e, Level::Or);
    }
    match e {
        CondExpr::Or(a, b) => nesting(a, Level::Or).max(nesting(b, Level::And)),
        CondExpr::And(a, b) => nesting(a, Level::And).max(nesting(b, Level::Unary)),
        CondExpr::Not(x) => 1 + nesting(x, Level::Unary),
        CondExpr::True
        | CondExpr::False
        | CondExpr::Eq(..)
        | CondExpr::Ne(..)
        | CondExpr::Cmp(..) => 0,
    }
}

/// A whole condition: in parentheses, with `~(a == b)` for negated
/// comparisons, unless those two extra levels would nest too deeply.
fn top_expr(names: &Names<'_>, e: &CondExpr) -> String {
    let decorate = nesting(e, Level::Or) + 2 < MAX_NESTING;
    let mut s = String::new();
    expr(names, e, Level::Or, decorate, &mut s);
    if decorate { format!("({s})") } else { s }
}

fn expr(names: &Names<'_>, e: &CondExpr, level: Level, decorate: bool, out: &mut String) {
    if needs_parens(e, level) {
        out.push('(');
        expr(names, e, Level::Or, decorate, out);
        out.push(')');
        return;
    }
    match e {
        CondExpr::True => out.push_str("true"),
        CondExpr::False => out.push_str("false"),
        CondExpr::Eq(a, b) | CondExpr::Ne(a, b) => {
            let op = if matches!(e, CondExpr::Eq(..)) {
                "=="
            } else {
                "!="
            };
            let _ = write!(out, "{} {op} {}", term(names, a), term(names, b));
        }
        CondExpr::Cmp(o, a, b) => {
            let _ = write!(out, "{} {} {}", term(names, a), o.symbol(), term(names, b));
        }
        CondExpr::Not(x) => {
            out.push('~');
            if decorate && matches!(**x, CondExpr::Eq(..) | CondExpr::Ne(..) | CondExpr::Cmp(..)) {
                out.push('(');
                expr(names, x, Level::Unary, decorate, out);
                out.push(')');
            } else {
                expr(names, x, Level::Unary, decorate, out);
            }
        }
        CondExpr::And(a, b) => {
            expr(names, a, Level::And, decorate, out);
            out.push_str(" /\\ ");
            expr(names, b, Level::Unary, decorate, out);
        }
        CondExpr::Or(a, b) => {
            expr(names, a, Level::Or, decorate, out);
            out.push_str(" \\/ ");
            expr(names, b, Level::And, decorate, out);
        }
    }
}

fn term(names: &Names<'_>, t: &Term) -> String {
    match t {
        Term::Reg { thread, reg } => format!("P{thread}:{reg}"),
        Term::Loc(l) => names.location(*l).to_string(),
        Term::Const(v) => v.to_string(),
        Term::Bytes { name, .. } => name.clone(),
    }
}

// ----- round-trip check --------------------------------------------------------

/// The program as JSON without what printing cannot keep: source spans and
/// the condition's source text.
fn comparable(program: &Program) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("source");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(program).unwrap_or(serde_json::Value::Null);
    strip(&mut v);
    if let Some(c) = v.get_mut("condition").and_then(|c| c.as_object_mut()) {
        c.remove("text");
    }
    // The printer declares every location, so no warning about an
    // undeclared one survives printing.
    if let Some(p) = v.as_object_mut() {
        p.remove("warnings");
    }
    v
}

/// The path of the first place where `a` and `b` differ.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => {
                        if let Some(p) = first_difference(va, vb, &format!("{path}.{k}")) {
                            return Some(p);
                        }
                    }
                    None => return Some(format!("{path}.{k}")),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}"))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                if let Some(p) = first_difference(va, vb, &format!("{path}[{i}]")) {
                    return Some(p);
                }
            }
            (x.len() != y.len()).then(|| format!("{path} (length {} vs {})", x.len(), y.len()))
        }
        _ => (a != b).then(|| format!("{path} ({a} vs {b})")),
    }
}

#[cfg(test)]
mod tests;
