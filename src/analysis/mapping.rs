//! Compiler-mapping checks: `vkmm refines --impl MODEL --spec MODEL
//! --mapping FILE` (docs/mappings.md).
//!
//! A mapping file says how each instruction of a source dialect compiles
//! to instructions of a target dialect. Every test of a bound over the
//! mapping's source instructions (the skeletons of `vkmm diff`, one per
//! class of skeletons equal up to thread permutation and location
//! renaming) is written in the source dialect, compiled by the mapping to
//! the target dialect, and each final state the implementation model
//! allows on the compiled test and the specification model forbids on the
//! source is a violation. A source test the specification finds racy is
//! undefined ("Any such data race results in undefined behavior", OpenCL
//! 3.6; the Vulkan appendix: "the behavior is undefined" for a data race),
//! so any outcome of its compiled form is allowed: it counts as racy, not
//! checked. Final states are compared by name: every register of each
//! thread and every location.

pub use super::diff::DiffEngine;
use super::diff::sat::mapping::{Checked, Pattern, count_vectors};
use super::diff::sat::{NotAsked, Query, Stop};
use super::diff::{
    DiffBounds, Key, Kind, LOCATIONS, Op, Shape, Vocabulary, least_key, placements,
    relabelled_keys, skeletons, useful,
};
use super::litmus::{Property, check_litmus};
use crate::engine::driver::CheckError;
use crate::engine::{LimitKind, Limits};
use crate::frontend::{Format, Options};
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// A dialect a mapping's tests are written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    Vulkan,
    OpenCl,
    /// PTX instructions, carried by OpenCL C statements (see [`ptx_statement`]).
    Ptx,
}

impl Dialect {
    pub(super) fn format(self) -> Format {
        match self {
            Dialect::Vulkan => Format::VulkanLitmus,
            Dialect::OpenCl | Dialect::Ptx => Format::OpenClLitmus,
        }
    }
    fn name(self) -> &'static str {
        DIALECTS
            .iter()
            .find(|(_, d)| *d == self)
            .map_or("", |(n, _)| n)
    }
}

/// The dialects a mapping file names, by their names in it.
const DIALECTS: &[(&str, Dialect)] = &[
    ("vulkan", Dialect::Vulkan),
    ("opencl", Dialect::OpenCl),
    ("ptx", Dialect::Ptx),
];

/// The OpenCL C memory scope carrying a PTX scope qualifier. PTX 8.5:
/// ".cta: The set of all threads executing in the same CTA as the current
/// thread" (a work-group), ".gpu: ... executing on the same compute device"
/// (the device), ".sys: The set of all threads in the current program"
/// (every device: CrossDevice).
const PTX_SCOPES: &[(&str, &str)] = &[
    ("cta", "memory_scope_work_group"),
    ("gpu", "memory_scope_device"),
    ("sys", "memory_scope_all_svm_devices"),
];

/// The read-modify-write operations of `atom` and the OpenCL C function
/// carrying each.
const PTX_ATOM_OPS: &[(&str, &str)] = &[
    ("exch", "atomic_exchange_explicit"),
    ("add", "atomic_fetch_add_explicit"),
    ("and", "atomic_fetch_and_explicit"),
    ("or", "atomic_fetch_or_explicit"),
    ("xor", "atomic_fetch_xor_explicit"),
    ("min", "atomic_fetch_min_explicit"),
    ("max", "atomic_fetch_max_explicit"),
];

/// One PTX instruction as the OpenCL C statement that carries it into the
/// IR (models/ptx.cat reads the events: atomic accesses are strong, plain
/// ones weak, a seq_cst fence is `fence.sc`, a barrier `bar.sync`).
///
/// Forms: `ld[.weak|.relaxed.S|.acquire.S|.volatile] R, [X]`,
/// `st[.weak|.relaxed.S|.release.S|.volatile] [X], V`,
/// `atom[.relaxed|.acquire|.release|.acq_rel][.S].OP R, [X], V` (OP one of
/// exch add and or xor min max; PTX's defaults `.relaxed` and `.gpu`),
/// `fence[.sc|.acq_rel|.acquire|.release].S` (default `.acq_rel`),
/// `membar.cta|gl|sys` (`fence.sc`: "On sm_70 and higher membar is a
/// synonym for fence.sc"), `bar.sync 0` / `bar.cta.sync 0` /
/// `barrier.sync 0`. S is `.cta`, `.gpu` or `.sys`; state-space and type
/// qualifiers (`.global`, `.u32`, `.b32`, `.s32`) are accepted and ignored;
/// a trailing `;` is allowed.
pub fn ptx_statement(line: &str) -> Result<String, String> {
    let text = line.trim().trim_end_matches(';').trim();
    let (op, operands) = text
        .split_once(char::is_whitespace)
        .map_or((text, ""), |(a, b)| (a, b.trim()));
    let mut words = op.split('.');
    let opcode = words.next().unwrap_or("");
    let mut sem: Option<&str> = None;
    let mut scope: Option<&str> = None;
    let mut rmw: Option<&str> = None;
    let mut cta_bar = false;
    let mut sync = false;
    for w in words {
        match w {
            "global" | "u32" | "s32" | "b32" => {}
            "weak" | "relaxed" | "acquire" | "release" | "acq_rel" | "sc" | "volatile"
                if sem.is_none() =>
            {
                sem = Some(w)
            }
            "cta" if opcode == "bar" && !cta_bar => cta_bar = true,
            "sync" if matches!(opcode, "bar" | "barrier") && !sync => sync = true,
            "cta" | "gpu" | "sys" | "gl" if scope.is_none() => {
                scope = Some(if w == "gl" { "gpu" } else { w })
            }
            "cluster" => {
                return Err(format!(
                    "`{line}`: the .cluster scope is not modelled (vkmm has no clusters; scopes: .cta, .gpu, .sys)"
                ));
            }
            _ if opcode == "atom" && rmw.is_none() && PTX_ATOM_OPS.iter().any(|(o, _)| *o == w) => {
                rmw = Some(w)
            }
            _ => {
                return Err(format!(
                    "`{line}`: unexpected qualifier `.{w}` of `{opcode}` (PTX forms: ld, st, atom, fence, membar, bar.sync; docs/mappings.md)"
                ));
            }
        }
    }
    let scope_of = |s: Option<&str>| -> Result<&'static str, String> {
        let s = s.ok_or_else(|| {
            format!("`{line}`: a strong operation names its scope (.cta, .gpu or .sys)")
        })?;
        Ok(PTX_SCOPES
            .iter()
            .find(|(p, _)| *p == s)
            .map_or("", |(_, c)| *c))
    };
    let args: Vec<&str> = if operands.is_empty() {
        Vec::new()
    } else {
        operands.split(',').map(str::trim).collect()
    };
    let address = |a: &str| -> Result<String, String> {
        a.strip_prefix('[')
            .and_then(|a| a.strip_suffix(']'))
            .map(|a| a.trim().to_string())
            .ok_or_else(|| format!("`{line}`: expected an address `[x]`, found `{a}`"))
    };
    let count = |n: usize| -> Result<(), String> {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "`{line}`: `{opcode}` takes {n} operand{}, found {}",
                if n == 1 { "" } else { "s" },
                args.len()
            ))
        }
    };
    let order = |s: &str| format!("memory_order_{s}");
    match opcode {
        "ld" => {
            count(2)?;
            let (r, x) = (args[0], address(args[1])?);
            match sem.unwrap_or("weak") {
                "weak" if scope.is_none() => Ok(format!("int {r} = *{x};")),
                // 8.4.2: "The semantics of volatile operations are equivalent to
                // a relaxed memory operation with system-scope"
                "volatile" if scope.is_none() => Ok(format!(
                    "int {r} = atomic_load_explicit({x}, memory_order_relaxed, memory_scope_all_svm_devices);"
                )),
                s @ ("relaxed" | "acquire") => Ok(format!(
                    "int {r} = atomic_load_explicit({x}, {}, {});",
                    order(s),
                    scope_of(scope)?
                )),
                s @ ("weak" | "volatile") => Err(format!("`{line}`: a .{s} ld names no scope")),
                s => Err(format!(
                    "`{line}`: ld is .weak, .relaxed, .acquire or .volatile, not .{s}"
                )),
            }
        }
        "st" => {
            count(2)?;
            let (x, v) = (address(args[0])?, args[1]);
            match sem.unwrap_or("weak") {
                "weak" if scope.is_none() => Ok(format!("*{x} = {v};")),
                "volatile" if scope.is_none() => Ok(format!(
                    "atomic_store_explicit({x}, {v}, memory_order_relaxed, memory_scope_all_svm_devices);"
                )),
                s @ ("relaxed" | "release") => Ok(format!(
                    "atomic_store_explicit({x}, {v}, {}, {});",
                    order(s),
                    scope_of(scope)?
                )),
                s @ ("weak" | "volatile") => Err(format!("`{line}`: a .{s} st names no scope")),
                s => Err(format!(
                    "`{line}`: st is .weak, .relaxed, .release or .volatile, not .{s}"
                )),
            }
        }
        "atom" => {
            count(3)?;
            let (r, x, v) = (args[0], address(args[1])?, args[2]);
            let s = sem.unwrap_or("relaxed");
            if !matches!(s, "relaxed" | "acquire" | "release" | "acq_rel") {
                return Err(format!(
                    "`{line}`: atom is .relaxed, .acquire, .release or .acq_rel, not .{s}"
                ));
            }
            let f = rmw
                .and_then(|o| PTX_ATOM_OPS.iter().find(|(p, _)| *p == o))
                .map(|(_, f)| *f)
                .ok_or_else(|| format!("`{line}`: atom names its operation (.exch, .add, .and, .or, .xor, .min, .max)"))?;
            // "If the .scope qualifier is absent, .gpu scope is assumed by default."
            let sc = scope_of(Some(scope.unwrap_or("gpu")))?;
            Ok(format!("int {r} = {f}({x}, {v}, {}, {sc});", order(s)))
        }
        "fence" | "membar" => {
            count(0)?;
            let s = if opcode == "membar" {
                if sem.is_some() {
                    return Err(format!(
                        "`{line}`: membar takes a level only (.cta, .gl, .sys)"
                    ));
                }
                "sc"
            } else {
                // "If the optional .sem qualifier is absent, .acq_rel is assumed by default."
                sem.unwrap_or("acq_rel")
            };
            let o = match s {
                "sc" => "seq_cst",
                "acq_rel" | "acquire" | "release" => s,
                _ => {
                    return Err(format!(
                        "`{line}`: fence is .sc, .acq_rel, .acquire or .release, not .{s}"
                    ));
                }
            };
            Ok(format!(
                "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, {}, {});",
                order(o),
                scope_of(scope)?
            ))
        }
        "bar" | "barrier" => {
            if !sync || sem.is_some() || scope.is_some() {
                return Err(format!(
                    "`{line}`: the barrier form is `bar.sync 0` (or bar.cta.sync, barrier.sync)"
                ));
            }
            count(1)?;
            if args[0] != "0" {
                return Err(format!(
                    "`{line}`: only barrier resource 0 is modelled (the k-th bar.sync of each thread of a CTA is one instance)"
                ));
            }
            Ok("barrier(CLK_GLOBAL_MEM_FENCE);".to_string())
        }
        _ => Err(format!(
            "`{line}`: unknown PTX instruction `{opcode}` (PTX forms: ld, st, atom, fence, membar, bar.sync; docs/mappings.md)"
        )),
    }
}

/// One row of a mapping: a source instruction and what it compiles to.
#[derive(Clone, Debug, Serialize)]
pub struct Rule {
    pub source: String,
    pub target: Vec<String>,
    /// Where the rule's `source` is in the mapping file (line, column).
    pub at: (usize, usize),
    #[serde(skip)]
    pub(super) kind: Kind,
}

/// A mapping file, read and checked.
#[derive(Clone, Debug, Serialize)]
pub struct Mapping {
    pub file: String,
    pub source: Dialect,
    pub target: Dialect,
    /// Whether threads may share a subgroup (the tests place threads in
    /// subgroups as well as workgroups).
    pub subgroups: bool,
    pub rules: Vec<Rule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMapping {
    source: toml::Spanned<String>,
    target: toml::Spanned<String>,
    #[serde(default)]
    subgroups: bool,
    #[serde(default)]
    instruction: Vec<RawRule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    source: toml::Spanned<String>,
    target: toml::Spanned<Vec<toml::Spanned<String>>>,
    /// The sentence the rule rests on (documentation only).
    #[serde(default)]
    #[allow(dead_code)]
    why: Option<String>,
}

/// Line and column (1-based) of byte `at` of `text`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, col)
}

const PLACEHOLDERS: &[&str] = &["{loc}", "{val}", "{reg}", "{id}"];

/// The placeholders of a template, or the first unknown `{...}`.
fn placeholders(t: &str) -> Result<Vec<&'static str>, String> {
    let mut rest = t;
    let mut found = Vec::new();
    while let Some(i) = rest.find('{') {
        let Some(j) = rest[i..].find('}') else {
            return Err(format!("`{{` without `}}` in `{t}`"));
        };
        let p = &rest[i..i + j + 1];
        match PLACEHOLDERS.iter().find(|x| **x == p) {
            Some(x) => found.push(*x),
            None => {
                return Err(format!(
                    "unknown placeholder `{p}` in `{t}`: expected {{loc}}, {{val}}, {{reg}} or {{id}}"
                ));
            }
        }
        rest = &rest[i + j + 1..];
    }
    Ok(found)
}

pub(super) fn fill(t: &str, loc: &str, val: i64, reg: &str, id: usize) -> String {
    t.replace("{loc}", loc)
        .replace("{val}", &val.to_string())
        .replace("{reg}", reg)
        .replace("{id}", &id.to_string())
}

/// Reads and checks a mapping file: TOML, each instruction's source and
/// target templates read by their dialect's front end. Errors name
/// `file:line:column`.
pub fn read_mapping(file: &str, text: &str, options: &Options) -> Result<Mapping, String> {
    let raw: RawMapping = toml::from_str(text).map_err(|e| {
        let (l, c) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        format!("{file}:{l}:{c}: {}", e.message())
    })?;
    let at = |r: Range<usize>| line_col(text, r.start);
    let dialect = |s: &toml::Spanned<String>| -> Result<Dialect, String> {
        let name = s.get_ref().as_str();
        DIALECTS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| *d)
            .ok_or_else(|| {
                let (l, c) = at(s.span());
                format!("{file}:{l}:{c}: unknown dialect `{name}`: expected vulkan, opencl or ptx")
            })
    };
    let source = dialect(&raw.source)?;
    let target = dialect(&raw.target)?;
    if raw.instruction.is_empty() {
        return Err(format!(
            "{file}:1:1: the mapping has no [[instruction]] (each: source = \"...\", target = [\"...\"])"
        ));
    }
    let mut rules = Vec::new();
    for r in &raw.instruction {
        let (l, c) = at(r.source.span());
        let src = r.source.get_ref().trim().to_string();
        let p = placeholders(&src).map_err(|e| format!("{file}:{l}:{c}: {e}"))?;
        let has = |x: &str| p.contains(&x);
        let targets: Vec<String> = r
            .target
            .get_ref()
            .iter()
            .map(|t| t.get_ref().trim().to_string())
            .collect();
        let barrier = targets.iter().any(|t| t.contains("{id}")) || has("{id}");
        let kind = match (has("{loc}"), has("{reg}"), has("{val}")) {
            (true, true, true) => Kind::Rmw,
            (true, true, false) => Kind::Load,
            (true, false, true) => Kind::Store,
            (false, false, false) if barrier => Kind::Cbar,
            (false, false, false) => Kind::Membar,
            _ => {
                return Err(format!(
                    "{file}:{l}:{c}: `{src}`: an access names {{loc}} and {{reg}} (a load), {{val}} (a store) or both (a read-modify-write); a barrier names none"
                ));
            }
        };
        for t in r.target.get_ref() {
            let (tl, tc) = at(t.span());
            for q in placeholders(t.get_ref()).map_err(|e| format!("{file}:{tl}:{tc}: {e}"))? {
                if q != "{id}" && !has(q) {
                    return Err(format!(
                        "{file}:{tl}:{tc}: `{}` names {q}, which the source instruction `{src}` does not have",
                        t.get_ref()
                    ));
                }
            }
        }
        let rule = Rule {
            source: src,
            target: targets,
            at: (l, c),
            kind,
        };
        // Each side reads in its dialect: a one-thread test holding it.
        let one = |d: Dialect, lines: &[String]| -> Result<(), String> {
            let body: Vec<String> = lines.iter().map(|x| fill(x, "x", 1, "r0", 0)).collect();
            if d == Dialect::Ptx {
                for b in &body {
                    ptx_statement(b)?;
                }
            }
            let t = render(d, "check", &[(0, 0)], &[body], &["x"]);
            crate::frontend::parse_text("mapping.litmus", &t, d.format(), options.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        one(source, std::slice::from_ref(&rule.source)).map_err(|e| {
            format!(
                "{file}:{l}:{c}: the source instruction `{}` does not read in the {} dialect: {e}",
                rule.source,
                source.name()
            )
        })?;
        let (tl, tc) = at(r.target.span());
        one(target, &rule.target).map_err(|e| {
            format!(
                "{file}:{tl}:{tc}: the target of `{}` does not read in the {} dialect: {e}",
                rule.source,
                target.name()
            )
        })?;
        rules.push(rule);
    }
    Ok(Mapping {
        file: file.to_string(),
        source,
        target,
        subgroups: raw.subgroups,
        rules,
    })
}

/// A test's text in dialect `d`: threads placed at `place` (workgroup,
/// subgroup), each with its statements, every location initially 0, every
/// register declared by its statements; no final clause (a listing of
/// every final state).
pub(super) fn render(
    d: Dialect,
    name: &str,
    place: &[(usize, usize)],
    threads: &[Vec<String>],
    locs: &[&str],
) -> String {
    match d {
        Dialect::Vulkan => {
            let mut text = format!("VULKAN {name}\n");
            let cols: Vec<Vec<String>> = threads
                .iter()
                .enumerate()
                .map(|(t, body)| {
                    std::iter::once(format!("P{t}@sg {}, wg {}, qf 0", place[t].1, place[t].0))
                        .chain(body.iter().cloned())
                        .collect()
                })
                .collect();
            super::diff::push_litmus_body(&mut text, locs.iter().copied(), &cols);
            text
        }
        Dialect::Ptx => {
            // The PTX program, shown in a comment; its OpenCL C carrier is
            // what the front end reads.
            let mut comment = String::from(
                "(* PTX (models/ptx.cat; each instruction carried by the OpenCL C statement below):\n",
            );
            let mut carried = Vec::new();
            for (t, body) in threads.iter().enumerate() {
                comment.push_str(&format!(
                    "   P{t} (CTA {}): {}\n",
                    place[t].0,
                    body.join("; ")
                ));
                carried.push(
                    body.iter()
                        .map(|b| ptx_statement(b).unwrap_or_else(|_| b.clone()))
                        .collect::<Vec<_>>(),
                );
            }
            comment.push_str("*)\n");
            let text = render(Dialect::OpenCl, name, place, &carried, locs);
            match text.split_once('\n') {
                Some((head, rest)) => format!("{head}\n{comment}{rest}"),
                None => text,
            }
        }
        Dialect::OpenCl => {
            let mut text = format!("OPENCL {name}\n{{ ");
            for l in locs {
                text.push_str(&format!("{l}=0; "));
            }
            text.push_str("}\n");
            let params: Vec<String> = locs
                .iter()
                .map(|l| format!("global atomic_int* {l}"))
                .collect();
            for (t, body) in threads.iter().enumerate() {
                text.push_str(&format!(
                    "P{t}@sg {}, wg {}, dev 0 ({}) {{\n",
                    place[t].1,
                    place[t].0,
                    params.join(", ")
                ));
                for s in body {
                    text.push_str(&format!("  {s}\n"));
                }
                text.push_str("}\n");
            }
            text
        }
    }
}

/// A PTX litmus test as vkmm reads it (the OpenCL C carrier, the PTX
/// program in a comment): thread `t` runs `threads[t]` (PTX instructions,
/// [`ptx_statement`]'s forms) in CTA `ctas[t]`, every location of `locs`
/// starts at 0, and `exists` (when given, in OpenCL's `1:r0=1 /\ x=2`
/// form) is the final clause.
pub fn ptx_litmus(
    name: &str,
    ctas: &[usize],
    threads: &[Vec<String>],
    locs: &[&str],
    exists: Option<&str>,
) -> String {
    let place: Vec<(usize, usize)> = ctas.iter().enumerate().map(|(t, c)| (*c, t)).collect();
    let mut text = render(Dialect::Ptx, name, &place, threads, locs);
    if let Some(c) = exists {
        text.push_str(&format!("exists ({c})\n"));
    }
    text
}

/// The source test of a skeleton and its compiled form.
pub(super) fn tests_of(m: &Mapping, shape: &Shape, name: &str) -> (String, String) {
    let mut value = 0;
    let mut locs: Vec<usize> = Vec::new();
    let mut src = Vec::new();
    let mut tgt = Vec::new();
    for thread in &shape.threads {
        let (mut s, mut t) = (Vec::new(), Vec::new());
        let (mut reg, mut id) = (0, 0);
        for &(o, l) in thread {
            let rule = &m.rules[o];
            if rule.kind != Kind::Membar && rule.kind != Kind::Cbar && !locs.contains(&l) {
                locs.push(l);
            }
            let r = format!("r{reg}");
            let v = value + 1;
            match rule.kind {
                Kind::Load => reg += 1,
                Kind::Store => value += 1,
                Kind::Rmw => {
                    reg += 1;
                    value += 1
                }
                _ => {}
            }
            s.push(fill(&rule.source, LOCATIONS[l], v, &r, id));
            t.extend(rule.target.iter().map(|x| fill(x, LOCATIONS[l], v, &r, id)));
            if rule.kind == Kind::Cbar {
                id += 1;
            }
        }
        src.push(s);
        tgt.push(t);
    }
    locs.sort();
    let names: Vec<&str> = locs.iter().map(|l| LOCATIONS[*l]).collect();
    (
        render(m.source, name, &shape.place, &src, &names),
        render(
            m.target,
            &format!("{name}-mapped"),
            &shape.place,
            &tgt,
            &names,
        ),
    )
}

/// One outcome of a compiled test that the specification forbids on the
/// source.
#[derive(Clone, Debug, Serialize)]
pub struct MappingViolation {
    /// The source test (every final state listed: no condition).
    pub source: String,
    /// The compiled test, its `exists` clause the violating final state.
    pub target: String,
    /// The final state (`P0:r0 == 1 /\ x == 2`).
    pub outcome: String,
    /// The violation (its index in the report) whose source test this one's
    /// extends: the smaller test's events, up to the order of the threads
    /// and the names of the locations, are among this test's, in program
    /// order, on threads placed alike. `None`: the source test extends no
    /// smaller violating test (a minimal one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extends: Option<usize>,
    /// The source test's skeleton.
    #[serde(skip)]
    shape: Shape,
}

/// What the check covered and found.
#[derive(Clone, Debug, Serialize)]
pub struct MappingReport {
    pub mapping: String,
    pub implementation: String,
    pub specification: String,
    pub threads: usize,
    pub events: usize,
    pub locations: usize,
    /// Whether the SAT search proposed the tests (else every test of the
    /// bound was enumerated).
    pub symbolic: bool,
    /// Source tests checked, and those the specification finds racy
    /// (undefined: every outcome of the compiled test allowed).
    pub tests: u64,
    pub racy: u64,
    /// The race filter's patterns (the SAT search's racy tests, each
    /// relabelling in its question; docs/mappings.md).
    pub race_patterns: u64,
    pub violations: Vec<MappingViolation>,
    /// Tests with a violation.
    pub violating_tests: u64,
    /// Tests whose listings a limit cut (nothing proved about them).
    pub undecided: u64,
    /// The largest total event count whose every test was checked.
    pub covered_events: usize,
    pub complete: bool,
    pub stopped: Option<String>,
    /// What the answer should be read with (the search used and why).
    pub notes: Vec<String>,
}

impl MappingReport {
    pub fn summary(&self) -> String {
        let bound = format!(
            "{} source tests{} up to threads={} events={} locations={} ({} racy under {}, so unconstrained)",
            self.tests,
            match (self.symbolic, self.complete) {
                (true, true) =>
                    " proposed by the SAT search (every other test has no such execution)",
                (true, false) => " proposed by the SAT search",
                (false, _) => "",
            },
            self.threads,
            self.events,
            self.locations,
            self.racy,
            self.specification
        );
        // What a limit left unchecked, said with any answer.
        let cut = || {
            format!(
                "every test of at most {} events checked; {}",
                self.covered_events,
                self.stopped
                    .as_deref()
                    .unwrap_or("a limit cut some listings")
            )
        };
        if !self.violations.is_empty() {
            format!(
                "VIOLATIONS: {} outcome{} of {} compiled test{} that {} allows and {} forbids on the source{} ({bound})",
                self.violations.len(),
                if self.violations.len() == 1 { "" } else { "s" },
                self.violating_tests,
                if self.violating_tests == 1 { "" } else { "s" },
                self.implementation,
                self.specification,
                if self.complete {
                    String::new()
                } else {
                    format!(", and the check is not complete: {}", cut())
                }
            )
        } else if self.complete {
            format!("no violation up to the bound: {bound}")
        } else {
            format!(
                "UNDECIDED: no violation among the tests checked, {} ({bound})",
                cut()
            )
        }
    }
}

/// The bound of a mapping check.
#[derive(Clone, Debug)]
pub struct MappingBounds {
    pub threads: usize,
    pub events: usize,
    pub locations: usize,
    pub deadline: Option<web_time::Instant>,
    /// The SAT search (falling back to the enumeration for a mapping it
    /// does not take) or every test enumerated (the oracle).
    pub engine: DiffEngine,
}

/// Final states (each its sorted clauses), whether the listing is whole,
/// and race freedom.
type StatesListing = (Vec<Vec<String>>, bool, Option<bool>);

/// A model's listing of every final state of `program` (all registers and
/// locations shown): the states as sorted clauses, whether whole, and
/// race freedom.
fn listing(
    name: &str,
    program: &Program,
    m: &LoadedModel,
    limits: Limits,
    races: bool,
) -> Result<StatesListing, Halt> {
    let mut p = program.clone();
    p.condition = None;
    p.shown_locations = (0..p.locations.len()).collect();
    // The time limit or the memory bound reached in a listing stops the
    // whole check ([`Halt::Stopped`]): every later listing would stop too.
    let run = |d: Property| match check_litmus(name, &p, m, limits.for_model(m), Some(d)) {
        Ok(o) => match super::diff::stops_all(o.stopped_by) {
            Some(k) => Err(Halt::Stopped(k)),
            None => Ok(o),
        },
        Err(CheckError::Unsupported(e)) => Err(Halt::Failed(format!("{}: {name}: {e}", m.name))),
        Err(e) => Err(Halt::Failed(format!("{}: {name}: {e}", m.name))),
    };
    let o = run(Property::States)?;
    let race_free = if races {
        run(Property::Races)?.holds(Property::Races)
    } else {
        None
    };
    let states = o
        .states
        .iter()
        .map(|(s, _)| {
            let mut v: Vec<String> = s.iter().map(|(k, v)| format!("{k} == {v}")).collect();
            v.sort();
            v
        })
        .collect();
    Ok((states, o.states_incomplete().is_none(), race_free))
}

/// Checks the mapping on every test of the bound: by the SAT search
/// (`diff::sat::mapping`) when `bounds.engine` asks for it and it takes
/// the mapping, else by enumerating the tests.
pub fn check_mapping(
    m: &Mapping,
    imp: &LoadedModel,
    spec: &LoadedModel,
    options: &Options,
    limits: Limits,
    bounds: &MappingBounds,
) -> Result<MappingReport, String> {
    let mut report = check_tests(m, imp, spec, options, limits, bounds)?;
    group(&mut report.violations, &ops_of(m));
    Ok(report)
}

/// Marks each violation whose source test extends a smaller violating
/// test ([`MappingViolation::extends`]) with the first violation of the
/// smallest such test, so that reports lead with the minimal tests: the
/// search checks tests smallest first, and a pattern that breaks the
/// mapping breaks it again in every larger test that contains it.
fn group(violations: &mut [MappingViolation], ops: &[Op]) {
    // Each distinct source test: the violation it first appears in, and the
    // root found for it.
    let mut tests: std::collections::HashMap<Shape, (usize, Option<usize>)> =
        std::collections::HashMap::new();
    let mut minimal: Vec<usize> = Vec::new();
    // Smaller tests first, whatever order the search found them in.
    let mut order: Vec<usize> = (0..violations.len()).collect();
    order.sort_by_key(|&i| (violations[i].shape.events(), i));
    for i in order {
        let shape = &violations[i].shape;
        let root = match tests.get(shape) {
            Some(&(_, root)) => root,
            None => {
                let root = minimal
                    .iter()
                    .copied()
                    .filter(|&m| {
                        violations[m].shape.events() < shape.events()
                            && violations[m].shape.embeds_in(shape, ops)
                    })
                    .min_by_key(|&m| (violations[m].shape.events(), m));
                if root.is_none() {
                    minimal.push(i);
                }
                tests.insert(shape.clone(), (i, root));
                root
            }
        };
        violations[i].extends = root;
    }
}

/// [`check_mapping`] before the violations are grouped.
fn check_tests(
    m: &Mapping,
    imp: &LoadedModel,
    spec: &LoadedModel,
    options: &Options,
    limits: Limits,
    bounds: &MappingBounds,
) -> Result<MappingReport, String> {
    if bounds.locations == 0 || bounds.locations > LOCATIONS.len() {
        return Err(format!(
            "--locations {}: expected 1 to {}",
            bounds.locations,
            LOCATIONS.len()
        ));
    }
    let mut report = MappingReport {
        mapping: m.file.clone(),
        implementation: imp.name.clone(),
        specification: spec.name.clone(),
        threads: bounds.threads,
        events: bounds.events,
        locations: bounds.locations,
        symbolic: false,
        tests: 0,
        racy: 0,
        race_patterns: 0,
        violations: Vec::new(),
        violating_tests: 0,
        undecided: 0,
        covered_events: 0,
        complete: false,
        stopped: None,
        notes: Vec::new(),
    };
    let k = Checked {
        mapping: m,
        imp,
        spec,
        options,
        limits,
    };
    if bounds.engine == DiffEngine::Symbolic {
        match symbolic(&k, bounds, &mut report) {
            Ok(done) => return done,
            Err(why) => report.notes.push(format!(
                "the symbolic search does not take {why}: checking every test of the bound"
            )),
        }
    }
    let ops = ops_of(m);
    let db = DiffBounds {
        threads: bounds.threads,
        events: bounds.events,
        locations: bounds.locations,
        vocabulary: Vocabulary {
            // Only whether threads may share a subgroup is read.
            scopes: vec![if m.subgroups { "sg" } else { "wg" }.into()],
            classes: 1,
            families: vec!["plain".into()],
        },
        max_tests: 1,
        deadline: bounds.deadline,
        engine: DiffEngine::Enumerate,
    };
    for n in 1..=bounds.threads * bounds.events {
        for shape in skeletons(&db, &ops, n) {
            if expired(bounds) {
                report.stopped = Some("the time limit stopped it".into());
                return Ok(report);
            }
            if let Err(h) = check_test(&k, &shape, n, &mut report) {
                return halted(h, report);
            }
        }
        report.covered_events = n;
    }
    Ok(finish(report))
}

/// The rows as the skeletons' instructions.
pub(super) fn ops_of(m: &Mapping) -> Vec<Op> {
    m.rules
        .iter()
        .map(|r| Op {
            kind: r.kind,
            attrs: String::new(),
            class: 0,
        })
        .collect()
}

fn expired(bounds: &MappingBounds) -> bool {
    bounds
        .deadline
        .is_some_and(|d| web_time::Instant::now() >= d)
}

/// The answer once every test of the bound was checked: complete when no
/// limit cut a listing.
fn finish(mut report: MappingReport) -> MappingReport {
    report.complete = report.undecided == 0;
    if !report.complete {
        report.stopped = Some(format!(
            "a limit cut the listings of {} test{} (raise --max-executions or --unroll)",
            report.undecided,
            if report.undecided == 1 { "" } else { "s" }
        ));
    }
    report
}

/// Checks the source test of `shape` (of `n` events) and its compiled
/// form: both listings, the violations added to the report.
fn check_test(
    k: &Checked,
    shape: &Shape,
    n: usize,
    report: &mut MappingReport,
) -> Result<(), Halt> {
    let (m, imp, spec, limits) = (k.mapping, k.imp, k.spec, k.limits);
    let parse = |d: Dialect, name: &str, text: &str| {
        crate::frontend::parse_text(
            &format!("{name}.litmus"),
            text,
            d.format(),
            k.options.clone(),
        )
        .map_err(|e| format!("generated test {name} does not read: {e}\n{text}"))
    };
    report.tests += 1;
    let name = format!("map-{n}-{:04}", report.tests);
    let (src, tgt) = tests_of(m, shape, &name);
    let sp = parse(m.source, &name, &src)?;
    let (spec_states, spec_whole, race_free) = listing(&name, &sp, spec, limits, true)?;
    match race_free {
        Some(false) => {
            report.racy += 1;
            return Ok(());
        }
        None => {
            report.undecided += 1;
            return Ok(());
        }
        Some(true) => {}
    }
    let tp = parse(m.target, &format!("{name}-mapped"), &tgt)?;
    let (imp_states, imp_whole, _) = listing(&name, &tp, imp, limits, false)?;
    // Looked up once per implementation state.
    let spec_states: std::collections::HashSet<&Vec<String>> = spec_states.iter().collect();
    if !spec_whole {
        report.undecided += 1;
        return Ok(());
    }
    let mut found = false;
    for s in &imp_states {
        if spec_states.contains(s) {
            continue;
        }
        found = true;
        let cond: Vec<(String, i64)> = s
            .iter()
            .filter_map(|c| {
                let (k, v) = c.split_once(" == ")?;
                Some((k.to_string(), v.parse().ok()?))
            })
            .collect();
        report.violations.push(MappingViolation {
            source: src.clone(),
            target: with_exists(&tgt, m.target, &cond),
            outcome: s.join(" /\\ "),
            extends: None,
            shape: shape.clone(),
        });
    }
    report.violating_tests += u64::from(found);

    if !imp_whole && !found {
        report.undecided += 1;
    }
    Ok(())
}

/// The symbolic check (`diff::sat::mapping`): for each size, smallest
/// first, each number of threads, placement and number of events per
/// thread (one shape) asks the solver for a source test whose compiled
/// form may have an outcome the specification forbids, checks each
/// proposal the ordinary way and blocks it. An unsatisfiable question
/// means no violation among that shape's tests. `Err` (before any check)
/// names what the encoding does not take.
fn symbolic(
    k: &Checked,
    bounds: &MappingBounds,
    report: &mut MappingReport,
) -> Result<Result<MappingReport, String>, String> {
    report.symbolic = true;
    let ops = ops_of(k.mapping);
    let located: Vec<bool> = ops.iter().map(Op::has_location).collect();
    let (events, locations) = (bounds.events, bounds.locations);
    // One placement of each class equal up to the order of the threads:
    // the others' skeletons are its own, threads reordered.
    let places: Vec<(usize, Vec<(usize, usize)>)> = (1..=bounds.threads)
        .flat_map(|t| {
            placements(t, k.mapping.subgroups)
                .into_iter()
                .filter(|p| least_placement(p))
                .map(move |p| (t, p))
        })
        .collect();
    let stopped_building = |kind: LimitKind| {
        format!(
            "the {} stopped it while the SAT questions were built",
            kind.short()
        )
    };
    // What the encoding does not take is a property of the rows and the
    // placement, not of the shape: the one-event-per-thread question of
    // every placement is built before any test is checked.
    for (t, place) in &places {
        if expired(bounds) {
            report.stopped = Some("the time limit stopped it".into());
            return Ok(Ok(report.clone()));
        }
        let ones = vec![1; *t];
        match Query::mapping(
            k,
            *t,
            events,
            locations,
            place,
            Some(&ones),
            bounds.deadline,
        ) {
            Ok(_) => {}
            Err(NotAsked::Unsupported(why)) => {
                report.symbolic = false;
                return Err(why);
            }
            Err(NotAsked::Stopped(Stop(kind))) => {
                report.stopped = Some(stopped_building(kind));
                return Ok(Ok(report.clone()));
            }
        }
    }
    let unchecked = report.clone();
    // The race filter's patterns, by number of threads, in the order
    // learned; each is added to every later question of its placement.
    let mut patterns: Vec<Vec<Pattern>> = vec![Vec::new(); bounds.threads + 1];
    let mut tried: std::collections::HashSet<Key> = std::collections::HashSet::new();
    for n in 1..=bounds.threads * events {
        // Every relabelling of the skeletons proposed at this size (threads
        // permuted, locations renamed), blocked in each later question of
        // the size.
        let mut blocked: Vec<Key> = Vec::new();
        for (t, place) in &places {
            let t = *t;
            for counts in count_vectors(place, events, n) {
                if expired(bounds) {
                    report.stopped = Some("the time limit stopped it".into());
                    return Ok(Ok(report.clone()));
                }
                let built = web_time::Instant::now();
                let mut q = match Query::mapping(
                    k,
                    t,
                    events,
                    locations,
                    place,
                    Some(&counts),
                    bounds.deadline,
                ) {
                    Ok(q) => q,
                    Err(NotAsked::Unsupported(why)) => {
                        *report = unchecked;
                        report.symbolic = false;
                        return Err(why);
                    }
                    Err(NotAsked::Stopped(Stop(kind))) => {
                        report.stopped = Some(stopped_building(kind));
                        return Ok(Ok(report.clone()));
                    }
                };
                for p in &patterns[t] {
                    if let Err(Stop(kind)) = q.apply(k, p) {
                        report.stopped = Some(stopped_building(kind));
                        return Ok(Ok(report.clone()));
                    }
                }
                for (place, threads) in &blocked {
                    q.block_shape(place, threads);
                }
                // A measuring aid: each question's cost on stderr.
                let stats = Stats(std::env::var_os("VKMM_SAT_STATS").is_some().then(|| {
                    let label = format!(
                        "{n} events {place:?} {counts:?} built in {:.2}s",
                        built.elapsed().as_secs_f64()
                    );
                    (label, built)
                }));
                loop {
                    let (shape, chosen) = match q.next(n) {
                        Ok(Some(x)) => x,
                        Ok(None) => {
                            stats.print(&q, "answered");
                            break;
                        }
                        Err(Stop(kind)) => {
                            stats.print(&q, "stopped");
                            report.stopped = Some(format!(
                                "the {} stopped it while the solver searched {n} events",
                                kind.short()
                            ));
                            return Ok(Ok(report.clone()));
                        }
                    };
                    q.block(&chosen);
                    // The least skeleton of its symmetry class, checked
                    // once; one the enumeration leaves out (a location
                    // accessed once, threads in unconnected parts) has the
                    // violations of a smaller test that is not left out.
                    let (least_place, threads) = least_key(&shape);
                    let least = Shape {
                        place: least_place,
                        threads,
                    };
                    if !tried.insert((least.place.clone(), least.threads.clone())) {
                        continue;
                    }
                    for (place, threads) in relabelled_keys(&shape) {
                        let threads: Vec<Vec<(usize, usize)>> = threads
                            .into_iter()
                            .map(|th| {
                                th.into_iter()
                                    .map(|(o, l)| (o, if located[o] { l } else { 0 }))
                                    .collect()
                            })
                            .collect();
                        q.block_shape(&place, &threads);
                        blocked.push((place, threads));
                    }
                    if !useful(&least, &ops) {
                        continue;
                    }
                    if expired(bounds) {
                        report.stopped = Some("the time limit stopped it".into());
                        return Ok(Ok(report.clone()));
                    }
                    let racy = report.racy;
                    if let Err(h) = check_test(k, &least, n, report) {
                        return Ok(halted(h, report.clone()));
                    }
                    if report.racy == racy {
                        continue;
                    }
                    // Racy: a consistent racy execution of it, under every
                    // relabelling, becomes a pattern of the race filter
                    // (`diff::sat::mapping::Learner`) of the later
                    // questions.
                    match q.witness(k, &shape.place, &shape.threads) {
                        Ok(Some(p)) => {
                            let all = p.relabelled(&located);
                            report.race_patterns += all.len() as u64;
                            patterns[t].extend(all);
                        }
                        Ok(None) => {}
                        Err(Stop(kind)) => {
                            report.stopped = Some(format!(
                                "the {} stopped it while the race filter learned from a racy test",
                                kind.short()
                            ));
                            return Ok(Ok(report.clone()));
                        }
                    }
                }
            }
        }
        report.covered_events = n;
    }
    Ok(Ok(finish(report.clone())))
}

/// The question a mapping check's `VKMM_SAT_STATS` line is about and when
/// its building began (`None`: no line).
struct Stats(Option<(String, web_time::Instant)>);

impl Stats {
    /// The question's line on stderr: its shape, its total time, what the
    /// solver did, and how it ended.
    fn print(&self, q: &Query, how: &str) {
        if let Some((shape, built)) = &self.0 {
            eprintln!(
                "sat-stats {shape}: {how} in {:.2}s | {}",
                built.elapsed().as_secs_f64(),
                q.stats_line()
            );
        }
    }
}

/// `place` with its workgroups numbered in the order of their first
/// thread, and each workgroup's subgroups likewise.
fn numbered(place: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut wgs: Vec<usize> = Vec::new();
    let mut sgs: Vec<(usize, usize)> = Vec::new();
    place
        .iter()
        .map(|&(w, s)| {
            let wi = wgs.iter().position(|&x| x == w).unwrap_or_else(|| {
                wgs.push(w);
                wgs.len() - 1
            });
            let si = sgs
                .iter()
                .filter(|x| x.0 == w)
                .position(|&x| x == (w, s))
                .unwrap_or_else(|| {
                    sgs.push((w, s));
                    sgs.iter().filter(|x| x.0 == w).count() - 1
                });
            (wi, si)
        })
        .collect()
}

/// Whether `place` (numbered as `placements` numbers it) is the least of
/// the placements its threads reordered give.
fn least_placement(place: &[(usize, usize)]) -> bool {
    crate::analysis::diff::permutations(place.len())
        .iter()
        .all(|perm| {
            numbered(&perm.iter().map(|&t| place[t]).collect::<Vec<_>>()).as_slice() >= place
        })
}

/// The check as far as it went when `h` stopped it (the limit named), or
/// its error.
fn halted(h: Halt, mut report: MappingReport) -> Result<MappingReport, String> {
    match h {
        Halt::Stopped(k) => {
            report.stopped = Some(format!("the {} stopped it", k.short()));
            Ok(report)
        }
        Halt::Failed(e) => Err(e),
    }
}

/// A test's text with an `exists` clause pinning `cond` appended.
fn with_exists(text: &str, d: Dialect, cond: &[(String, i64)]) -> String {
    let c: Vec<String> = cond
        .iter()
        .map(|(k, v)| match d {
            Dialect::Vulkan => format!("{k} == {v}"),
            Dialect::OpenCl | Dialect::Ptx => format!("{}={v}", k.trim_start_matches('P')),
        })
        .collect();
    format!("{text}exists ({})\n", c.join(" /\\ "))
}

/// Why a step of a family (or of a mapping check) gave no answer.
pub(super) enum Halt {
    /// The time limit or the memory bound stopped a walk: both hold for
    /// the rest of the command, so the family ends there, undecided.
    Stopped(LimitKind),
    /// An error (the family fails with it).
    Failed(String),
}

impl From<String> for Halt {
    fn from(e: String) -> Halt {
        Halt::Failed(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ops 0 and 1 are accesses (a load and a store), 2 a fence.
    fn ops() -> Vec<Op> {
        [Kind::Load, Kind::Store, Kind::Membar]
            .into_iter()
            .map(|kind| Op {
                kind,
                attrs: String::new(),
                class: 0,
            })
            .collect()
    }

    fn shape(place: &[(usize, usize)], threads: &[&[(usize, usize)]]) -> Shape {
        Shape {
            place: place.to_vec(),
            threads: threads.iter().map(|t| t.to_vec()).collect(),
        }
    }

    /// Message passing: thread 0 stores x then y, thread 1 loads y then x.
    fn mp() -> Shape {
        shape(&[(0, 0), (0, 1)], &[&[(1, 0), (1, 1)], &[(0, 1), (0, 0)]])
    }

    /// Message passing with its threads swapped, its locations renamed, a
    /// fence and a load between.
    fn bigger() -> Shape {
        shape(
            &[(0, 0), (0, 1)],
            &[&[(0, 0), (2, 0), (0, 1)], &[(1, 1), (0, 0), (1, 0)]],
        )
    }

    fn violation(s: Shape) -> MappingViolation {
        MappingViolation {
            source: format!("{s:?}"),
            target: String::new(),
            outcome: String::new(),
            extends: None,
            shape: s,
        }
    }

    /// One placement of each class equal up to the order of the threads,
    /// by hand: three threads each in a subgroup of its own are all in one
    /// workgroup, two in one and one alone (of the three orders
    /// `placements` gives, the first), or all apart; with shared
    /// subgroups, two threads share one, share only a workgroup, or share
    /// nothing.
    #[test]
    fn one_placement_of_each_class_is_asked() {
        let kept = |t, sg| -> Vec<Vec<(usize, usize)>> {
            crate::analysis::diff::placements(t, sg)
                .into_iter()
                .filter(|p| least_placement(p))
                .collect()
        };
        assert_eq!(
            kept(3, false),
            vec![
                vec![(0, 0), (0, 1), (0, 2)],
                vec![(0, 0), (0, 1), (1, 0)],
                vec![(0, 0), (1, 0), (2, 0)],
            ]
        );
        assert_eq!(crate::analysis::diff::placements(3, false).len(), 5);
        assert_eq!(
            kept(2, true),
            vec![
                vec![(0, 0), (0, 0)],
                vec![(0, 0), (0, 1)],
                vec![(0, 0), (1, 0)]
            ]
        );
    }

    /// A report with violations that a limit stopped says that it is not
    /// complete and how far it got, and claims nothing of the tests the
    /// search did not reach; a complete one says the search proposed every
    /// test with such an execution.
    #[test]
    fn violations_found_before_a_limit_are_not_a_complete_answer() {
        let mut r = MappingReport {
            mapping: "m.toml".into(),
            implementation: "vulkan".into(),
            specification: "opencl".into(),
            threads: 3,
            events: 3,
            locations: 2,
            symbolic: true,
            tests: 1,
            racy: 0,
            race_patterns: 0,
            violations: vec![violation(mp())],
            violating_tests: 1,
            undecided: 0,
            covered_events: 4,
            complete: false,
            stopped: Some("the time limit stopped it while the solver searched 5 events".into()),
            notes: Vec::new(),
        };
        let s = r.summary();
        assert!(
            s.starts_with("VIOLATIONS: 1 outcome of 1 compiled test"),
            "{s}"
        );
        assert!(
            s.contains("not complete: every test of at most 4 events checked; the time limit stopped it while the solver searched 5 events"),
            "{s}"
        );
        assert!(!s.contains("every other test"), "{s}");
        r.complete = true;
        r.stopped = None;
        let s = r.summary();
        assert!(!s.contains("not complete"), "{s}");
        assert!(
            s.contains("(every other test has no such execution)"),
            "{s}"
        );
    }

    /// Message passing (thread 0 stores x then y, thread 1 loads y then
    /// x) is among a test's events up to the order of the threads, the
    /// names of the locations and events in between; not when a thread's
    /// order differs, the threads' placement differs, or one location
    /// would need two names.
    #[test]
    fn a_test_embeds_in_those_that_contain_its_events_in_order() {
        let ops = ops();
        let (mp, bigger) = (mp(), bigger());
        assert!(mp.embeds_in(&bigger, &ops));
        assert!(mp.embeds_in(&mp, &ops));
        assert!(!bigger.embeds_in(&mp, &ops));
        // Thread 1's loads in the other order.
        let reordered = shape(&[(0, 0), (0, 1)], &[&[(1, 0), (1, 1)], &[(0, 0), (0, 1)]]);
        assert!(!mp.embeds_in(&reordered, &ops));
        // Both threads in one subgroup: placed differently.
        let one_subgroup = shape(&[(0, 0), (0, 0)], &[&[(1, 0), (1, 1)], &[(0, 1), (0, 0)]]);
        assert!(!mp.embeds_in(&one_subgroup, &ops));
        // One location where message passing needs two.
        let one_location = shape(&[(0, 0), (0, 1)], &[&[(1, 0), (1, 0)], &[(0, 0), (0, 0)]]);
        assert!(!mp.embeds_in(&one_location, &ops));
    }

    /// The report's grouping: each test that extends a smaller violating
    /// test points at that test's first violation, whatever order the
    /// violations were found in; a test that extends none is minimal.
    #[test]
    fn violations_of_larger_tests_point_at_the_minimal_test_they_extend() {
        let ops = ops();
        let (mp, bigger) = (mp(), bigger());
        let other = shape(&[(0, 0), (0, 1)], &[&[(1, 0), (1, 0)], &[(0, 0), (0, 0)]]);
        // Found largest first; message passing twice (two outcomes).
        let mut vs: Vec<MappingViolation> = [&bigger, &mp, &mp, &other, &bigger]
            .into_iter()
            .map(|s| violation(s.clone()))
            .collect();
        group(&mut vs, &ops);
        let extends: Vec<Option<usize>> = vs.iter().map(|v| v.extends).collect();
        assert_eq!(extends, [Some(1), None, None, None, Some(1)]);
    }
}
