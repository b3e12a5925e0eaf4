//! Distinguishing-test synthesis: the smallest Vulkan litmus tests on which
//! two models disagree.
//!
//! The search walks candidate executions, not programs' verdicts (the
//! approach of Memalloy, Wickerson et al., POPL'17): it enumerates the
//! event skeletons of an execution (threads placed in workgroups and
//! subgroups, each event an instruction of the vocabulary on a location),
//! smallest first and one per class of symmetric skeletons (threads
//! permuted, locations renamed; values are fixed by the skeleton: every
//! write stores its own value, so renaming values gives nothing new), and
//! for each skeleton walks every candidate execution (every reads-from,
//! every scoped modification order) with the engine's reference
//! enumeration, evaluating both models on each. A candidate consistent
//! under one model and not the other, or consistent under both and racy
//! under one only, is pinned by a final condition (each read's value and
//! each location's final value: every write's value is distinct, so the
//! values name the writes read) and becomes a litmus test. The normal check
//! of that test under both models is the verdict: the synthesis only
//! proposes. A confirmed test is then minimised: while removing one event
//! keeps a confirmed difference, the smaller test replaces it.
//!
//! The space: threads `1..=threads`, each with `1..=events` events; at most
//! `locations` locations, each accessed by at least two events (a location
//! accessed once is never read from another event nor ordered with one; the
//! minimisation still tries removing events down to such tests). A search
//! that a deadline or the candidate limit stops says which sizes it covered
//! completely: never "no difference" past them.

pub(super) mod sat;

use super::litmus::{Property, check_litmus};
use crate::cat::{CatErrorKind, Value};
use crate::engine::driver::CheckError;
use crate::engine::{Candidate, LimitKind, Limits, Skeleton};
use crate::engine::{Visitor, explore};
use crate::frontend::{Format, Options};
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::Serialize;
use std::ops::ControlFlow;

/// The instruction vocabulary of the search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocabulary {
    /// Scope tokens of atomics, barriers and `av`/`vis` accesses
    /// (`sg`, `wg`, `qf`, `dv`, `inv`).
    pub scopes: Vec<String>,
    /// Storage classes (`sc0` ... `sc{classes-1}`); semantics name the
    /// access's own class (barriers: one class each).
    pub classes: usize,
    /// The instruction families, from [`FAMILIES`].
    pub families: Vec<String>,
}

/// The instruction families a vocabulary may hold, with what each adds.
pub const FAMILIES: &[(&str, &str)] = &[
    ("plain", "non-atomic ld/st"),
    ("atomic", "relaxed atomic ld/st at each scope"),
    ("acqrel", "acquire loads and release stores at each scope"),
    (
        "avvis",
        "ld.vis / st.av (MakePointerVisible/Available) at each scope",
    ),
    (
        "semavvis",
        "acquire loads with semvis, release stores with semav",
    ),
    ("rmw", "atomic exchange, relaxed and acq_rel, at each scope"),
    ("membar", "membar.acq / membar.rel at each scope"),
    ("cbar", "control barriers at each scope"),
    ("device", "avdevice / visdevice"),
];

impl Default for Vocabulary {
    fn default() -> Self {
        Vocabulary {
            scopes: vec!["wg".into(), "dv".into()],
            classes: 1,
            families: ["plain", "atomic", "acqrel", "avvis"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }
}

impl Vocabulary {
    /// Reads `families` and `scopes` (comma-separated lists), checking each
    /// name.
    pub fn parse(families: &str, scopes: &str, classes: usize) -> Result<Vocabulary, String> {
        let list = |s: &str| -> Vec<String> {
            s.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        };
        let families = list(families);
        for f in &families {
            if !FAMILIES.iter().any(|(n, _)| n == f) && explicit(f).is_none() {
                return Err(format!(
                    "unknown instruction family `{f}`: expected one of {}, or an instruction \
                     form such as `st.av.wg` or `rmw.atom.acq_rel.dv.semsc0.semav` (the opcode \
                     and its attributes, without the storage class token)",
                    FAMILIES
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        let scopes = list(scopes);
        for s in &scopes {
            if !["sg", "wg", "qf", "dv", "inv"].contains(&s.as_str()) {
                return Err(format!(
                    "unknown scope `{s}`: expected sg, wg, qf, dv or inv"
                ));
            }
        }
        if families.is_empty() {
            return Err("the vocabulary names no instruction family".into());
        }
        if !(1..=4).contains(&classes) {
            return Err(format!(
                "--classes {classes}: expected 1 to 4 storage classes"
            ));
        }
        Ok(Vocabulary {
            scopes,
            classes,
            families,
        })
    }

    fn has(&self, family: &str) -> bool {
        self.families.iter().any(|f| f == family)
    }

    /// Every instruction of the vocabulary.
    pub(super) fn ops(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        let classes: Vec<usize> = (0..self.classes).collect();
        for &c in &classes {
            let mut access = |kind: Kind, attrs: String| {
                ops.push(Op {
                    kind,
                    attrs,
                    class: c,
                })
            };
            if self.has("plain") {
                access(Kind::Load, String::new());
                access(Kind::Store, String::new());
            }
            for s in &self.scopes {
                if self.has("atomic") {
                    access(Kind::Load, format!(".atom.{s}"));
                    access(Kind::Store, format!(".atom.{s}"));
                }
                if self.has("avvis") {
                    access(Kind::Load, format!(".vis.{s}"));
                    access(Kind::Store, format!(".av.{s}"));
                }
                if self.has("rmw") {
                    access(Kind::Rmw, format!(".atom.{s}"));
                }
                // Semantics name one storage class, the access's or another.
                for d in &classes {
                    if self.has("acqrel") {
                        access(Kind::Load, format!(".atom.acq.{s}.semsc{d}"));
                        access(Kind::Store, format!(".atom.rel.{s}.semsc{d}"));
                    }
                    if self.has("semavvis") {
                        access(Kind::Load, format!(".atom.acq.{s}.semsc{d}.semvis"));
                        access(Kind::Store, format!(".atom.rel.{s}.semsc{d}.semav"));
                    }
                    if self.has("rmw") {
                        access(Kind::Rmw, format!(".atom.acq_rel.{s}.semsc{d}"));
                        if self.has("semavvis") {
                            access(
                                Kind::Rmw,
                                format!(".atom.acq_rel.{s}.semsc{d}.semav.semvis"),
                            );
                        }
                    }
                }
            }
        }
        // Barriers have no storage class of their own: one per semantics class.
        for s in &self.scopes {
            for c in &classes {
                if self.has("membar") {
                    for (b, flag) in [("acq", "semvis"), ("rel", "semav")] {
                        let attrs = format!(".{b}.{s}.semsc{c}");
                        ops.push(Op {
                            kind: Kind::Membar,
                            attrs: if self.has("semavvis") {
                                format!("{attrs}.{flag}")
                            } else {
                                attrs
                            },
                            class: 0,
                        });
                    }
                }
            }
        }
        for f in &self.families {
            if FAMILIES.iter().any(|(n, _)| n == f) {
                continue;
            }
            if let Some(op) = explicit(f) {
                ops.push(op);
            }
        }
        for s in &self.scopes {
            if self.has("cbar") {
                ops.push(Op {
                    kind: Kind::Cbar,
                    attrs: format!(".{s}"),
                    class: 0,
                });
            }
        }
        if self.has("device") {
            ops.push(Op {
                kind: Kind::AvDevice,
                attrs: String::new(),
                class: 0,
            });
            ops.push(Op {
                kind: Kind::VisDevice,
                attrs: String::new(),
                class: 0,
            });
        }
        ops
    }

    /// Whether threads may share a subgroup as well as a workgroup (only
    /// the subgroup scope tells a subgroup from its workgroup).
    fn subgroups(&self) -> bool {
        self.scopes.iter().any(|s| s == "sg")
    }
}

impl std::fmt::Display for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at scopes {} with {} storage class{}",
            self.families.join(","),
            self.scopes.join(","),
            self.classes,
            if self.classes == 1 { "" } else { "es" }
        )
    }
}

/// An instruction form of the vocabulary given whole: the opcode (`ld`,
/// `st`, `rmw`, `membar`, `cbar`, `avdevice`, `visdevice`) and its
/// attribute tokens, the storage class token left out (accesses get
/// `sc0`). `None` for anything else; the front end checks the tokens when
/// the first test is read.
fn explicit(form: &str) -> Option<Op> {
    let (opcode, attrs) = match form.split_once('.') {
        Some((o, a)) => (o, format!(".{a}")),
        None => (form, String::new()),
    };
    let kind = match opcode {
        "ld" => Kind::Load,
        "st" => Kind::Store,
        "rmw" => Kind::Rmw,
        "membar" => Kind::Membar,
        "cbar" => Kind::Cbar,
        "avdevice" if attrs.is_empty() => Kind::AvDevice,
        "visdevice" if attrs.is_empty() => Kind::VisDevice,
        _ => return None,
    };
    if attrs
        .split('.')
        .any(|t| t.starts_with("sc") && t[2..].parse::<u32>().is_ok())
    {
        return None;
    }
    Some(Op {
        kind,
        attrs,
        class: 0,
    })
}

/// What the search covers.
#[derive(Clone, Debug)]
pub struct DiffBounds {
    /// The most threads.
    pub threads: usize,
    /// The most events per thread.
    pub events: usize,
    /// The most locations.
    pub locations: usize,
    pub vocabulary: Vocabulary,
    /// Stop after this many distinguishing tests of the smallest size.
    pub max_tests: usize,
    /// The instant the search stops by (undecided past the sizes covered).
    pub deadline: Option<web_time::Instant>,
    /// How skeletons are found.
    pub engine: DiffEngine,
}

/// How the search finds the skeletons on which the models may differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffEngine {
    /// A SAT question per placement of the threads and size (module
    /// `sat`), falling back to the enumeration for a vocabulary or model
    /// it does not take.
    #[default]
    Symbolic,
    /// Every skeleton of the bound, one per symmetry class, each walked
    /// (the reference the symbolic search is tested against).
    Enumerate,
}

impl Default for DiffBounds {
    fn default() -> Self {
        DiffBounds {
            threads: 2,
            events: 2,
            locations: 2,
            vocabulary: Vocabulary::default(),
            max_tests: 1,
            deadline: None,
            engine: DiffEngine::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Kind {
    Load,
    Store,
    Rmw,
    Membar,
    Cbar,
    AvDevice,
    VisDevice,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Op {
    pub(super) kind: Kind,
    pub(super) attrs: String,
    pub(super) class: usize,
}

impl Op {
    pub(super) fn has_location(&self) -> bool {
        matches!(self.kind, Kind::Load | Kind::Store | Kind::Rmw)
    }
}

/// A skeleton's events: per event (instruction index, location index).
type Events = [(usize, usize)];

/// A skeleton's symmetry key: placements and, per thread, its events.
pub(super) type Key = (Vec<(usize, usize)>, Vec<Vec<(usize, usize)>>);

/// One skeleton: thread placements and, per thread, (op index, location).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Shape {
    /// Per thread: (workgroup, subgroup), numbered in order of first use.
    pub(super) place: Vec<(usize, usize)>,
    pub(super) threads: Vec<Vec<(usize, usize)>>,
}

pub(super) const LOCATIONS: &[&str] = &["x", "y", "z", "w"];

/// Every injective map of `0..k` into `0..m`, extending `cur`, into `out`.
fn injections(k: usize, m: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if cur.len() == k {
        out.push(cur.clone());
        return;
    }
    for x in 0..m {
        if !cur.contains(&x) {
            cur.push(x);
            injections(k, m, cur, out);
            cur.pop();
        }
    }
}

impl Shape {
    pub(super) fn events(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }

    /// Whether `big` contains this skeleton: an injective map of this
    /// skeleton's threads to `big`'s, keeping which threads share a
    /// workgroup and which a subgroup, and an injective renaming of its
    /// locations, under which each thread's events (instruction and, for an
    /// access, location) are a subsequence of its image's, in program order.
    pub(super) fn embeds_in(&self, big: &Shape, ops: &[Op]) -> bool {
        let n = self.threads.len();
        if n > big.threads.len() || self.events() > big.events() {
            return false;
        }
        let locs = |s: &Shape| {
            s.threads
                .iter()
                .flatten()
                .filter(|(o, _)| ops.get(*o).is_some_and(Op::has_location))
                .map(|&(_, l)| l + 1)
                .max()
                .unwrap_or(0)
        };
        let (mine, theirs) = (locs(self), locs(big));
        if mine > theirs {
            return false;
        }
        let maps = |k: usize, m: usize| -> Vec<Vec<usize>> {
            let mut out = Vec::new();
            let mut cur = Vec::new();
            injections(k, m, &mut cur, &mut out);
            out
        };
        let renamings = maps(mine, theirs);
        maps(n, big.threads.len()).iter().any(|t| {
            let placed = (0..n).all(|i| {
                (0..n).all(|j| {
                    let (a, b) = (self.place[i], self.place[j]);
                    let (c, d) = (big.place[t[i]], big.place[t[j]]);
                    (a.0 == b.0) == (c.0 == d.0) && (a == b) == (c == d)
                })
            });
            placed
                && renamings.iter().any(|r| {
                    (0..n).all(|i| {
                        let mut rest = big.threads[t[i]].iter();
                        self.threads[i].iter().all(|&(o, l)| {
                            let access = ops.get(o).is_some_and(Op::has_location);
                            rest.any(|&(o2, l2)| o2 == o && (!access || r[l] == l2))
                        })
                    })
                })
        })
    }

    /// The skeleton with its threads in order `perm` and locations renamed
    /// by `loc`, placements renumbered in order of first use: equal keys,
    /// equal tests up to symmetry.
    fn key(&self, perm: &[usize], loc: &[usize]) -> Key {
        let mut wgs: Vec<usize> = Vec::new();
        let mut sgs: Vec<(usize, usize)> = Vec::new();
        let mut place = Vec::new();
        for &t in perm {
            let (w, s) = self.place[t];
            let wi = wgs.iter().position(|&x| x == w).unwrap_or_else(|| {
                wgs.push(w);
                wgs.len() - 1
            });
            let si = match sgs.iter().position(|&x| x == (w, s)) {
                Some(i) => sgs[..i].iter().filter(|x| x.0 == w).count(),
                None => {
                    let n = sgs.iter().filter(|x| x.0 == w).count();
                    sgs.push((w, s));
                    n
                }
            };
            place.push((wi, si));
        }
        let threads = perm
            .iter()
            .map(|&t| self.threads[t].iter().map(|&(o, l)| (o, loc[l])).collect())
            .collect();
        (place, threads)
    }

    /// The Vulkan-dialect litmus text of the skeleton and, per event
    /// (thread, index), its register and the value it writes.
    pub(super) fn render(
        &self,
        name: &str,
        ops: &[Op],
        comment: &str,
        condition: Option<&Pinned>,
    ) -> String {
        let mut cols: Vec<Vec<String>> = Vec::new();
        let mut value = 0;
        let mut locs: Vec<usize> = Vec::new();
        for (t, thread) in self.threads.iter().enumerate() {
            let mut col = vec![format!(
                "P{t}@sg {}, wg {}, qf 0",
                self.place[t].1, self.place[t].0
            )];
            let mut reg = 0;
            let mut cbars = 0;
            for &(o, l) in thread {
                let op = &ops[o];
                let x = LOCATIONS[l];
                if op.has_location() && !locs.contains(&l) {
                    locs.push(l);
                }
                let sc = format!(".sc{}", op.class);
                col.push(match op.kind {
                    Kind::Load => {
                        reg += 1;
                        format!("ld{}{sc} r{}, {x}", op.attrs, reg - 1)
                    }
                    Kind::Store => {
                        value += 1;
                        format!("st{}{sc} {x}, {value}", op.attrs)
                    }
                    Kind::Rmw => {
                        reg += 1;
                        value += 1;
                        format!("rmw{}{sc} r{}, {x}, {value}", op.attrs, reg - 1)
                    }
                    Kind::Membar => format!("membar{}", op.attrs),
                    Kind::Cbar => {
                        cbars += 1;
                        format!("cbar{} {}", op.attrs, cbars - 1)
                    }
                    Kind::AvDevice => "avdevice".into(),
                    Kind::VisDevice => "visdevice".into(),
                });
            }
            cols.push(col);
        }
        locs.sort();
        let mut text = format!("VULKAN {name}\n");
        if !comment.is_empty() {
            text.push('"');
            text.push_str(&comment.replace('"', "'"));
            text.push_str("\"\n");
        }
        push_litmus_body(&mut text, locs.iter().map(|l| LOCATIONS[*l]), &cols);
        if let Some(c) = condition {
            if c.filter {
                text.push_str(&format!("filter ({})\n", c.reads));
            }
            text.push_str(&format!("exists ({})\n", c.all));
        }
        text
    }

    /// The skeleton without event `i` of thread `t` (a thread left empty
    /// goes, the placements renumbered).
    pub(super) fn without(&self, t: usize, i: usize) -> Shape {
        let mut s = self.clone();
        s.threads[t].remove(i);
        if s.threads[t].is_empty() {
            s.threads.remove(t);
            s.place.remove(t);
        }
        let perm: Vec<usize> = (0..s.threads.len()).collect();
        let locs: Vec<usize> = (0..LOCATIONS.len()).collect();
        let (place, threads) = s.key(&perm, &locs);
        Shape { place, threads }
    }
}

/// How a distinguishing test tells the models apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Difference {
    /// The condition's outcome is allowed by `first` (0 or 1) and forbidden
    /// by the other model.
    Outcome { allowed_by: usize },
    /// The test races under `first` and is race-free under the other.
    Race { racy_under: usize },
}

/// One distinguishing test, confirmed by the ordinary check under both models.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    /// The test's name (its file stem).
    pub name: String,
    /// The test, without commentary.
    pub text: String,
    /// Its final condition (`exists`).
    pub condition: String,
    /// Its filter, for a race difference: the reads of the racy execution.
    pub filter: Option<String>,
    pub difference: Difference,
    /// Events, threads and locations of the test.
    pub events: usize,
    pub threads: usize,
    /// Each model's verdicts: the condition (`Ok`/`No`) and race freedom.
    pub verdicts: [String; 2],
}

/// The answer of a search.
#[derive(Clone, Debug, Serialize)]
pub struct DiffReport {
    pub models: [String; 2],
    pub vocabulary: String,
    pub threads: usize,
    pub events: usize,
    pub locations: usize,
    /// The distinguishing tests found (smallest size first).
    pub witnesses: Vec<Witness>,
    /// The largest total event count whose every skeleton was searched
    /// (0: none).
    pub covered_events: usize,
    /// Whether every skeleton of the bound was searched.
    pub complete: bool,
    /// Skeletons walked, candidate executions evaluated under both models.
    pub skeletons: u64,
    pub candidates: u64,
    /// Candidates on which the models disagreed whose test the ordinary
    /// check did not confirm (another execution gives the same final state).
    pub unconfirmed: u64,
    /// Skeletons whose walk, or tests whose check, a limit cut (the
    /// execution limit, the unrolling bound): the search is not exhaustive.
    pub cut: u64,
    /// Why the search stopped before the bound, when it did.
    pub stopped: Option<String>,
    pub notes: Vec<String>,
}

impl DiffReport {
    /// The search's answer in one line.
    pub fn summary(&self) -> String {
        let bound = format!(
            "threads={} events={} locations={}, vocabulary {}",
            self.threads, self.events, self.locations, self.vocabulary
        );
        if !self.witnesses.is_empty() {
            let n = self.witnesses[0].events;
            format!(
                "{} and {} differ: {} distinguishing test{} of {} event{} (none smaller within {bound})",
                self.models[0],
                self.models[1],
                self.witnesses.len(),
                if self.witnesses.len() == 1 { "" } else { "s" },
                n,
                if n == 1 { "" } else { "s" },
            )
        } else if self.complete {
            format!(
                "no difference between {} and {} up to {bound}",
                self.models[0], self.models[1]
            )
        } else {
            format!(
                "UNDECIDED: no difference between {} and {} among tests of at most {} events; {} ({bound})",
                self.models[0],
                self.models[1],
                self.covered_events,
                self.stopped.as_deref().unwrap_or("the search stopped")
            )
        }
    }
}

/// A confirmed difference: the clauses, how the models differ, their verdicts.
type Found = (Pinned, Difference, [String; 2]);

/// The final clauses pinning one candidate execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pinned {
    /// Each read's value.
    pub(super) reads: String,
    /// Each read's value and each location's final value.
    pub(super) all: String,
    /// Whether the test keeps only this execution's reads (`filter`): for a
    /// candidate consistent under both models and racy under one only, so
    /// that the test's race verdict is this execution's.
    pub(super) filter: bool,
}

/// Walks every candidate of a program under model `a`, evaluating `b` on
/// the same candidate, and records the conditions pinning those on which
/// they disagree.
struct Differ<'a> {
    program: &'a Program,
    b: &'a LoadedModel,
    races: [Option<String>; 2],
    final_order: [Option<String>; 2],
    prepared_b: Option<crate::cat::Prepared>,
    found: Vec<Pinned>,
    candidates: u64,
    /// Why model `b` could not be prepared for the current skeleton.
    error: Option<crate::cat::CatError>,
}

impl Differ<'_> {
    fn racy(&self, which: usize, eval: &crate::cat::Evaluation) -> bool {
        match self.races[which].as_deref().and_then(|n| eval.lookup(n)) {
            Some(Value::Rel(r)) => !r.is_empty(),
            _ => false,
        }
    }

    /// The condition pinning candidate `c` of `sk` under the model `eval`
    /// comes from.
    fn condition(
        &self,
        sk: &Skeleton,
        c: &Candidate,
        eval: &crate::cat::Evaluation,
        which: usize,
    ) -> Pinned {
        pin(
            self.program,
            self.final_order[which].as_deref(),
            sk,
            c,
            eval,
        )
    }
}

/// The condition pinning candidate `c` of `sk`: every read's value and
/// every location's final value (the last write in the relation
/// `final_order` of the evaluation `eval`, else `co`).
pub(super) fn pin(
    p: &Program,
    final_order: Option<&str>,
    sk: &Skeleton,
    c: &Candidate,
    eval: &crate::cat::Evaluation,
) -> Pinned {
    let loc_of = |e: usize| p.location_of(sk.events[e].instruction(p));
    let mut parts = Vec::new();
    for (t, regs) in sk.registers.iter().enumerate() {
        for (r, v) in regs {
            let value = match v {
                crate::engine::RegValue::Const(k) => *k,
                crate::engine::RegValue::Read(e) => {
                    let i = sk.reads.iter().position(|x| x == e);
                    match i.and_then(|i| c.rf_source[i]) {
                        Some(w) => sk.events[w].write_value.unwrap_or(0),
                        None => loc_of(*e).map_or(0, |l| sk.initial[l]),
                    }
                }
                crate::engine::RegValue::Expr(_) => continue,
            };
            parts.push(format!("P{t}:{r} == {value}"));
        }
    }
    let reads = parts.join(" /\\ ");
    let order = final_order
        .and_then(|n| eval.lookup(n))
        .or_else(|| c.env.get("co"));
    for (l, name) in p.locations.iter().enumerate() {
        let writes: Vec<usize> = (0..sk.events.len())
            .filter(|&e| sk.events[e].writes && loc_of(e) == Some(l))
            .collect();
        let last = writes.iter().copied().find(|&w| {
            writes
                .iter()
                .all(|&v| v == w || !matches!(order, Some(Value::Rel(r)) if r.contains(w, v)))
        });
        let value = match last {
            Some(w) if writes.len() == 1 || order.is_some() => {
                sk.events[w].write_value.unwrap_or(0)
            }
            _ => sk.initial[l],
        };
        parts.push(format!("{name} == {value}"));
    }
    Pinned {
        reads,
        all: parts.join(" /\\ "),
        filter: false,
    }
}

impl Visitor for Differ<'_> {
    fn may_prune(&self) -> bool {
        false
    }

    fn skeleton(&mut self, skeleton: &Skeleton) {
        self.prepared_b = match self
            .b
            .cat
            .prepare(&skeleton.static_env, crate::engine::names::DYNAMIC_NAMES)
        {
            Ok(p) => Some(p),
            Err(e) => {
                self.error = Some(e);
                None
            }
        };
    }

    fn visit(
        &mut self,
        skeleton: &Skeleton,
        candidate: &Candidate,
        eval_a: &crate::cat::Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        self.candidates += 1;
        let Some(prepared) = &self.prepared_b else {
            return Ok(ControlFlow::Break(()));
        };
        // An evaluation stopped at the time limit or the memory bound
        // goes back to the walk, which ends undecided (any other error
        // fails it).
        let eval_b = prepared.evaluate(&candidate.env)?;
        let (ca, cb) = (eval_a.consistent(), eval_b.consistent());
        let differs = match (ca, cb) {
            (true, false) | (false, true) => true,
            (true, true) => self.racy(0, eval_a) != self.racy(1, &eval_b),
            (false, false) => false,
        };
        if differs {
            let (eval, which) = if ca { (eval_a, 0) } else { (&eval_b, 1) };
            let mut pinned = self.condition(skeleton, candidate, eval, which);
            // A race difference: keep this execution only (a single-thread
            // test has no race, and a test without reads keeps every one).
            pinned.filter = ca && cb && !pinned.reads.is_empty();
            if !self.found.contains(&pinned) {
                self.found.push(pinned);
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Every skeleton of `n` events in the space, one per symmetry class.
pub(super) fn skeletons(bounds: &DiffBounds, ops: &[Op], n: usize) -> Vec<Shape> {
    let mut out = Vec::new();
    for t in 1..=bounds.threads.min(n) {
        // Thread lengths: non-increasing is not assumed (placements break
        // the symmetry); every composition of n into t parts of 1..=events.
        let mut lens = Vec::new();
        compositions(n, t, bounds.events, &mut Vec::new(), &mut lens);
        let places = placements(t, bounds.vocabulary.subgroups());
        for len in &lens {
            for place in &places {
                let slots: usize = len.iter().sum();
                let mut choice = vec![(0usize, 0usize); slots];
                enumerate_events(
                    ops,
                    bounds.locations,
                    &mut choice,
                    0,
                    &mut |events: &[(usize, usize)]| {
                        let mut threads = Vec::new();
                        let mut at = 0;
                        for &l in len {
                            threads.push(events[at..at + l].to_vec());
                            at += l;
                        }
                        let shape = Shape {
                            place: place.clone(),
                            threads,
                        };
                        if useful(&shape, ops) && canonical(&shape) {
                            out.push(shape);
                        }
                    },
                );
            }
        }
    }
    out
}

fn compositions(n: usize, t: usize, max: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if t == 0 {
        if n == 0 {
            out.push(cur.clone());
        }
        return;
    }
    for k in 1..=max.min(n) {
        if n - k < t - 1 {
            break;
        }
        cur.push(k);
        compositions(n - k, t - 1, max, cur, out);
        cur.pop();
    }
}

/// The placements of `t` threads (workgroup, subgroup), numbered in order
/// of first use; with `subgroups` false each thread has its own subgroup.
pub(super) fn placements(t: usize, subgroups: bool) -> Vec<Vec<(usize, usize)>> {
    let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
    for _ in 0..t {
        let mut next = Vec::new();
        for p in &out {
            let wgs = p.iter().map(|x| x.0 + 1).max().unwrap_or(0);
            for w in 0..=wgs {
                let sgs = p
                    .iter()
                    .filter(|x| x.0 == w)
                    .map(|x| x.1 + 1)
                    .max()
                    .unwrap_or(0);
                let choices: Vec<usize> = if subgroups {
                    (0..=sgs).collect()
                } else {
                    vec![sgs]
                };
                for s in choices {
                    let mut q = p.clone();
                    q.push((w, s));
                    next.push(q);
                }
            }
        }
        out = next;
    }
    out
}

fn enumerate_events(
    ops: &[Op],
    locations: usize,
    choice: &mut Vec<(usize, usize)>,
    at: usize,
    f: &mut dyn FnMut(&Events),
) {
    if at == choice.len() {
        f(choice);
        return;
    }
    for (o, op) in ops.iter().enumerate() {
        let locs = if op.has_location() { locations } else { 1 };
        for l in 0..locs {
            choice[at] = (o, l);
            enumerate_events(ops, locations, choice, at + 1, f);
        }
    }
}

/// Every location used is accessed at least twice, and the threads are
/// connected (through the locations they share, or control barriers: two
/// threads of one workgroup that both have one). A test whose threads fall
/// into two unconnected parts is never a smallest witness: no relation of
/// an execution joins the parts, so its executions are pairs of the parts'
/// executions, consistent and race-free exactly when both parts' are, and
/// one part alone shows the difference.
pub(super) fn useful(shape: &Shape, ops: &[Op]) -> bool {
    let mut count = [0usize; 4];
    for &(o, l) in shape.threads.iter().flatten() {
        if ops[o].has_location() {
            count[l] += 1;
        }
    }
    if !(count.iter().all(|&c| c != 1) && count.iter().any(|&c| c >= 2)) {
        return false;
    }
    let t = shape.threads.len();
    let touches = |i: usize, l: usize| {
        shape.threads[i]
            .iter()
            .any(|&(o, m)| ops[o].has_location() && m == l)
    };
    let cbar = |i: usize| {
        shape.threads[i]
            .iter()
            .any(|&(o, _)| ops[o].kind == Kind::Cbar)
    };
    let joined = |i: usize, j: usize| {
        (0..LOCATIONS.len()).any(|l| touches(i, l) && touches(j, l))
            || (cbar(i) && cbar(j) && shape.place[i].0 == shape.place[j].0)
    };
    let mut reached = vec![false; t];
    reached[0] = true;
    let mut stack = vec![0];
    while let Some(i) = stack.pop() {
        let next: Vec<usize> = (0..t).filter(|&j| !reached[j] && joined(i, j)).collect();
        for j in next {
            reached[j] = true;
            stack.push(j);
        }
    }
    reached.iter().all(|&r| r)
}

pub(super) fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// The keys of the skeleton under every relabelling of its symmetry
/// class: threads permuted, the locations it uses renamed among
/// themselves.
pub(super) fn relabelled_keys(shape: &Shape) -> impl Iterator<Item = Key> + '_ {
    let idl: Vec<usize> = (0..LOCATIONS.len()).collect();
    let used = shape
        .threads
        .iter()
        .flatten()
        .map(|e| e.1 + 1)
        .max()
        .unwrap_or(0);
    let locations: Vec<Vec<usize>> = permutations(used)
        .into_iter()
        .map(|lp| {
            let mut loc = idl.clone();
            loc[..used].copy_from_slice(&lp);
            loc
        })
        .collect();
    permutations(shape.threads.len())
        .into_iter()
        .flat_map(move |perm| {
            locations
                .clone()
                .into_iter()
                .map(move |loc| shape.key(&perm, &loc))
        })
}

/// The least key of the skeleton's symmetry class (threads permuted,
/// locations renamed): equal for two skeletons of one class.
pub(super) fn least_key(shape: &Shape) -> Key {
    relabelled_keys(shape).min().unwrap_or_default()
}

/// Whether the skeleton is the least of its symmetry class.
fn canonical(shape: &Shape) -> bool {
    let ident: Vec<usize> = (0..shape.threads.len()).collect();
    let idl: Vec<usize> = (0..LOCATIONS.len()).collect();
    let own = shape.key(&ident, &idl);
    if own.0 != shape.place || own.1 != shape.threads {
        return false;
    }
    relabelled_keys(shape).all(|k| k >= own)
}

/// The two models and how to read and check the tests.
pub struct Pair<'m> {
    pub a: &'m LoadedModel,
    pub b: &'m LoadedModel,
    pub options: Options,
    pub limits: Limits,
}

impl Pair<'_> {
    fn parse(&self, name: &str, text: &str) -> Result<Program, String> {
        crate::frontend::parse_text(
            &format!("{name}.litmus"),
            text,
            Format::VulkanLitmus,
            self.options.clone(),
        )
        .map_err(|e| format!("generated test {name} does not parse: {e}\n{text}"))
    }

    /// The candidates of `shape` on which the models disagree, each as a
    /// pinned condition; with the candidates evaluated.
    fn candidates(&self, shape: &Shape, ops: &[Op]) -> Result<(Vec<Pinned>, u64, bool), Halt> {
        let text = shape.render("candidate", ops, "", None);
        let program = self.parse("candidate", &text)?;
        let limits = self.limits.reference().for_model(self.a);
        let mut v = Differ {
            program: &program,
            b: self.b,
            races: [self.a.profile.races.clone(), self.b.profile.races.clone()],
            final_order: [
                self.a.profile.final_order.clone(),
                self.b.profile.final_order.clone(),
            ],
            prepared_b: None,
            found: Vec::new(),
            candidates: 0,
            error: None,
        };
        let coverage = explore(&program, self.a, limits, &mut v).map_err(|e| e.to_string())?;
        if let Some(e) = v.error {
            return Err(match e.kind {
                CatErrorKind::TimeLimit => Halt::Stopped(LimitKind::Timeout),
                CatErrorKind::MemoryBound => Halt::Stopped(LimitKind::MaxMemory),
                _ => Halt::Failed(format!("model {}: {e}", self.b.name)),
            });
        }
        if let Some(k) = stops_all(coverage.stopped_by) {
            return Err(Halt::Stopped(k));
        }
        let cut = coverage.truncated || coverage.stopped_by.is_some() || coverage.cut_paths > 0;
        Ok((v.found, v.candidates, cut))
    }

    /// The ordinary check of the test under both models: the difference,
    /// with both verdicts, when the check confirms one.
    fn confirm(&self, name: &str, text: &str) -> Result<Option<(Difference, [String; 2])>, Halt> {
        let program = self.parse(name, text)?;
        let mut out = Vec::new();
        for m in [self.a, self.b] {
            match check_litmus(name, &program, m, self.limits.for_model(m), None) {
                Ok(o) => out.push(o),
                // A model refusing the test (e.g. a vocabulary it lacks) tells nothing.
                Err(CheckError::Unsupported(_)) => return Ok(None),
                Err(e) => return Err(Halt::Failed(format!("{name}: {e}"))),
            }
        }
        if let Some(k) = out.iter().find_map(|o| stops_all(o.stopped_by)) {
            return Err(Halt::Stopped(k));
        }
        if !out.iter().all(|o| o.complete()) {
            return Err(Halt::Undecided);
        }
        let cond: Vec<Option<bool>> = out.iter().map(|o| o.holds(Property::Condition)).collect();
        let race: Vec<Option<bool>> = out.iter().map(|o| o.holds(Property::Races)).collect();
        let verdicts = [0, 1].map(|i| {
            format!(
                "condition {}, {}",
                match cond[i] {
                    Some(true) => "Ok (allowed)",
                    Some(false) => "No (forbidden)",
                    None => "undecided",
                },
                match race[i] {
                    Some(true) => "race-free",
                    Some(false) => "racy",
                    None => "races undecided",
                }
            )
        });
        let d = match (cond[0], cond[1], race[0], race[1]) {
            (Some(x), Some(y), _, _) if x != y => Difference::Outcome {
                allowed_by: if x { 0 } else { 1 },
            },
            (_, _, Some(x), Some(y)) if x != y => Difference::Race {
                racy_under: if x { 1 } else { 0 },
            },
            _ => return Ok(None),
        };
        Ok(Some((d, verdicts)))
    }

    /// A confirmed distinguishing test of `shape`, if one of its
    /// disagreeing candidates gives one.
    fn witness(
        &self,
        shape: &Shape,
        ops: &[Op],
        report: &mut Tally,
    ) -> Result<Option<Found>, Halt> {
        let (conds, n, cut) = self.candidates(shape, ops)?;
        report.skeletons += 1;
        report.candidates += n;
        report.cut += u64::from(cut);
        for c in conds {
            let text = shape.render("candidate", ops, "", Some(&c));
            match self.confirm("candidate", &text) {
                Ok(Some((d, v))) => return Ok(Some((c, d, v))),
                Ok(None) => report.unconfirmed += 1,
                Err(Halt::Undecided) => report.cut += 1,
                Err(e) => return Err(e),
            }
        }
        Ok(None)
    }

    /// Removes events while a confirmed difference stays.
    fn minimise(
        &self,
        mut shape: Shape,
        mut found: Found,
        ops: &[Op],
        report: &mut Tally,
    ) -> Result<(Shape, Found), Halt> {
        'outer: loop {
            for t in 0..shape.threads.len() {
                for i in 0..shape.threads[t].len() {
                    let smaller = shape.without(t, i);
                    if smaller.events() == 0 {
                        continue;
                    }
                    if let Some(f) = self.witness(&smaller, ops, report)? {
                        shape = smaller;
                        found = f;
                        continue 'outer;
                    }
                }
            }
            return Ok((shape, found));
        }
    }
}

/// What the search of one skeleton (and the checks of its candidates)
/// counted, added to the report in skeleton order.
#[derive(Default)]
struct Tally {
    skeletons: u64,
    candidates: u64,
    unconfirmed: u64,
    cut: u64,
}

impl Tally {
    fn add_to(&self, report: &mut DiffReport) {
        report.skeletons += self.skeletons;
        report.candidates += self.candidates;
        report.unconfirmed += self.unconfirmed;
        report.cut += self.cut;
    }
}

/// Skeletons searched at once (in parallel with the `parallel` feature);
/// their results are taken in skeleton order, so the answer and the counts
/// do not depend on the number of threads.
const BATCH: usize = 64;

/// `f` of every shape of `batch`, in order: on the current rayon pool with
/// the `parallel` feature.
fn in_order<T: Send>(batch: &[Shape], f: impl Fn(&Shape) -> T + Sync + Send) -> Vec<T> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        batch.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        batch.iter().map(f).collect()
    }
}

/// The limit a walk stopped at when it is one that stops every later
/// walk too (the command's deadline, the process's memory bound); the
/// execution limit and the unrolling bound are per walk and only cut it.
pub(super) fn stops_all(kind: Option<LimitKind>) -> Option<LimitKind> {
    kind.filter(|k| matches!(k, LimitKind::Timeout | LimitKind::MaxMemory))
}

/// Why a step of the search gave no answer.
enum Halt {
    /// The time limit or the memory bound stopped it: the whole search
    /// ends undecided.
    Stopped(LimitKind),
    /// Another limit left one check undecided (no confirmation either
    /// way); the search goes on.
    Undecided,
    /// An error (a test that does not parse, a model that fails).
    Failed(String),
}

/// The answer of a search a step of which gave none: undecided past the
/// sizes covered, or the step's error.
fn halted(h: Halt, mut report: DiffReport) -> Result<DiffReport, String> {
    report.stopped = Some(match h {
        Halt::Stopped(k) => format!("the {} stopped it", k.short()),
        Halt::Undecided => "a limit left a check undecided".into(),
        Halt::Failed(e) => return Err(e),
    });
    Ok(report)
}

impl From<String> for Halt {
    fn from(e: String) -> Halt {
        Halt::Failed(e)
    }
}

/// Searches the bound for tests on which the models of `pair` disagree,
/// smallest first; stops after the first size holding `max_tests` of them.
pub fn diff(pair: &Pair, bounds: &DiffBounds) -> Result<DiffReport, String> {
    let ops = bounds.vocabulary.ops();
    let mut report = DiffReport {
        models: [pair.a.name.clone(), pair.b.name.clone()],
        vocabulary: bounds.vocabulary.to_string(),
        threads: bounds.threads,
        events: bounds.events,
        locations: bounds.locations,
        witnesses: Vec::new(),
        covered_events: 0,
        complete: false,
        skeletons: 0,
        candidates: 0,
        unconfirmed: 0,
        cut: 0,
        stopped: None,
        notes: Vec::new(),
    };
    if bounds.locations == 0 || bounds.locations > LOCATIONS.len() {
        return Err(format!(
            "--locations {}: expected 1 to {}",
            bounds.locations,
            LOCATIONS.len()
        ));
    }
    for m in [pair.a, pair.b] {
        if m.profile.host.contains(&crate::ir::host::HostApi::OpenCl) {
            report.notes.push(format!(
                "{} is an OpenCL model: the search writes Vulkan-dialect tests, so it compares \
                 the models on the part of the vocabulary the two dialects share (no \
                 sequentially consistent operations, no OpenCL fences)",
                m.name
            ));
        }
    }
    let mut seen: Vec<String> = Vec::new();
    if bounds.engine == DiffEngine::Symbolic {
        match symbolic(pair, bounds, &ops, &mut report, &mut seen) {
            Ok(done) => return done,
            Err(why) => report.notes.push(format!(
                "the symbolic search does not take {why}: searching by enumerating the skeletons"
            )),
        }
    }
    for n in 1..=bounds.threads * bounds.events {
        let shapes = skeletons(bounds, &ops, n);
        for batch in shapes.chunks(BATCH) {
            if expired(bounds) {
                report.stopped = Some("the time limit stopped it".into());
                return Ok(report);
            }
            let searched = in_order(batch, |shape| {
                let mut tally = Tally::default();
                let found = pair.witness(shape, &ops, &mut tally);
                (tally, found)
            });
            for (shape, (tally, found)) in batch.iter().zip(searched) {
                tally.add_to(&mut report);
                let found = match found {
                    Ok(Some(f)) => f,
                    Ok(None) => continue,
                    Err(h) => return halted(h, report),
                };
                match record(pair, shape, found, &ops, &mut report, &mut seen, bounds, n) {
                    Ok(true) => return Ok(report),
                    Ok(false) => {}
                    Err(h) => return halted(h, report),
                }
            }
        }
        if let Some(r) = size_done(&mut report, n) {
            return r;
        }
        if !report.witnesses.is_empty() {
            break;
        }
    }
    report.complete = true;
    Ok(report)
}

fn expired(bounds: &DiffBounds) -> bool {
    bounds
        .deadline
        .is_some_and(|d| web_time::Instant::now() >= d)
}

/// After every skeleton of `n` events: the answer when a limit cut some
/// (and nothing was found), else `n` is covered.
fn size_done(report: &mut DiffReport, n: usize) -> Option<Result<DiffReport, String>> {
    if report.cut > 0 && report.witnesses.is_empty() {
        report.stopped = Some(format!(
            "a limit cut the candidates of {} skeleton{} of {n} events (raise --max-executions)",
            report.cut,
            if report.cut == 1 { "" } else { "s" }
        ));
        return Some(Ok(report.clone()));
    }
    report.covered_events = n;
    None
}

/// Minimises a confirmed difference of `shape` (of `n` events) and adds
/// it to the report unless an equal test is there; `true` when the report
/// holds `max_tests` tests.
#[allow(clippy::too_many_arguments)]
fn record(
    pair: &Pair,
    shape: &Shape,
    found: Found,
    ops: &[Op],
    report: &mut DiffReport,
    seen: &mut Vec<String>,
    bounds: &DiffBounds,
    n: usize,
) -> Result<bool, Halt> {
    let mut tally = Tally::default();
    let minimised = pair.minimise(shape.clone(), found, ops, &mut tally);
    tally.add_to(report);
    let (shape, (condition, difference, verdicts)) = minimised?;
    let body = shape.render("T", ops, "", Some(&condition));
    let filter = condition.filter.then(|| condition.reads.clone());
    if seen.contains(&body) {
        return Ok(false);
    }
    seen.push(body);
    let name = format!(
        "diff-{}-{}",
        report.witnesses.len() + 1,
        match difference {
            Difference::Outcome { .. } => "outcome",
            Difference::Race { .. } => "race",
        }
    );
    report.witnesses.push(Witness {
        text: shape.render(&name, ops, "", Some(&condition)),
        name,
        condition: condition.all,
        filter,
        difference,
        events: shape.events(),
        threads: shape.threads.len(),
        verdicts,
    });
    if report.witnesses.len() >= bounds.max_tests {
        report.covered_events = n - 1;
        report.complete = true;
        return Ok(true);
    }
    Ok(false)
}

/// The symbolic search (module `sat`): for each size, smallest first, each
/// number of threads and placement asks the solver for an execution on
/// which the models differ, and searches the skeleton of each answer as
/// the enumeration does. `Err` (before any search) names what the
/// symbolic encoding does not take.
fn symbolic(
    pair: &Pair,
    bounds: &DiffBounds,
    ops: &[Op],
    report: &mut DiffReport,
    seen: &mut Vec<String>,
) -> Result<Result<DiffReport, String>, String> {
    // The search's deadline or the request's, whichever comes first.
    let deadline = match (bounds.deadline, pair.limits.bounds.deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let late = || deadline.is_some_and(|d| web_time::Instant::now() >= d);
    let mut queries = Vec::new();
    for t in 1..=bounds.threads {
        for place in placements(t, bounds.vocabulary.subgroups()) {
            if late() {
                report.stopped = Some("the time limit stopped it".into());
                return Ok(Ok(report.clone()));
            }
            let q = match sat::Query::new(
                pair,
                ops,
                t,
                bounds.events,
                bounds.locations,
                &place,
                deadline,
            ) {
                Ok(q) => q,
                Err(sat::NotAsked::Unsupported(why)) => return Err(why),
                Err(sat::NotAsked::Stopped(sat::Stop(k))) => {
                    report.stopped = Some(format!(
                        "the {} stopped it while the SAT questions were built",
                        k.short()
                    ));
                    return Ok(Ok(report.clone()));
                }
            };
            queries.push((t, q));
        }
    }
    let mut tried: std::collections::HashSet<Key> = std::collections::HashSet::new();
    let mut unreproduced = 0u64;
    for n in 1..=bounds.threads * bounds.events {
        for (t, q) in &mut queries {
            if n < *t || n > *t * bounds.events {
                continue;
            }
            loop {
                let (shape, chosen) = match q.next(n) {
                    Ok(Some(x)) => x,
                    Ok(None) => break,
                    Err(sat::Stop(k)) => {
                        report.stopped = Some(format!(
                            "the {} stopped it while the solver searched {n} events",
                            k.short()
                        ));
                        return Ok(Ok(report.clone()));
                    }
                };
                q.block(&chosen);
                // The least skeleton of its symmetry class, as the
                // enumeration would walk it.
                let (place, threads) = least_key(&shape);
                let shape = Shape { place, threads };
                if !tried.insert((shape.place.clone(), shape.threads.clone())) {
                    continue;
                }
                let mut tally = Tally::default();
                let found = pair.witness(&shape, ops, &mut tally);
                if tally.unconfirmed == 0 && tally.cut == 0 && matches!(found, Ok(None)) {
                    unreproduced += 1;
                }
                tally.add_to(report);
                let found = match found {
                    Ok(Some(f)) => f,
                    Ok(None) => continue,
                    Err(h) => return Ok(halted(h, report.clone())),
                };
                match record(pair, &shape, found, ops, report, seen, bounds, n) {
                    Ok(true) => return Ok(Ok(report.clone())),
                    Ok(false) => {}
                    Err(h) => return Ok(halted(h, report.clone())),
                }
            }
        }
        if let Some(r) = size_done(report, n) {
            return Ok(r);
        }
        if !report.witnesses.is_empty() {
            break;
        }
    }
    if unreproduced > 0 {
        report.notes.push(format!(
            "{unreproduced} skeleton{} the symbolic search proposed had no candidate on which the models disagree",
            if unreproduced == 1 { "" } else { "s" }
        ));
    }
    report.complete = true;
    Ok(Ok(report.clone()))
}

/// The number of skeletons of each total size the bound holds (for the
/// measurements and the docs).
pub fn count_skeletons(bounds: &DiffBounds) -> Vec<(usize, usize)> {
    let ops = bounds.vocabulary.ops();
    (1..=bounds.threads * bounds.events)
        .map(|n| (n, skeletons(bounds, &ops, n).len()))
        .collect()
}

/// The litmus text of a witness with its commentary (each model's verdicts
/// and explanations, `reasons`).
pub fn annotated(w: &Witness, models: &[String; 2], reasons: &[String; 2]) -> String {
    let what = match w.difference {
        Difference::Outcome { allowed_by } => format!(
            "The condition's outcome is allowed by {} and forbidden by {}.",
            models[allowed_by],
            models[1 - allowed_by]
        ),
        Difference::Race { racy_under } => format!(
            "The test races under {} and is race-free under {}.",
            models[racy_under],
            models[1 - racy_under]
        ),
    };
    let mut comment = format!(
        "Found by vkmm diff --models {},{}. {what}\n{}: {}\n{}: {}\n",
        models[0], models[1], models[0], w.verdicts[0], models[1], w.verdicts[1]
    );
    for (m, r) in models.iter().zip(reasons) {
        comment.push_str(&format!("\nUnder {m}:\n{}", r.trim_end()));
        comment.push('\n');
    }
    let (head, rest) = w.text.split_once('\n').unwrap_or((&w.text, ""));
    format!("{head}\n\"{}\"\n{rest}", comment.replace('"', "'"))
}

/// The body of a Vulkan litmus test after its name: the initial state
/// (each of `locations` 0) and the threads' columns side by side, each
/// padded to its widest line.
pub(super) fn push_litmus_body<'a>(
    text: &mut String,
    locations: impl IntoIterator<Item = &'a str>,
    cols: &[Vec<String>],
) {
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| c.iter().map(String::len).max().unwrap_or(0))
        .collect();
    let init: Vec<String> = locations.into_iter().map(|l| format!("{l}=0;")).collect();
    text.push_str("{\n");
    text.push_str(&init.join(" "));
    text.push_str("\n}\n");
    for r in 0..rows {
        let cells: Vec<String> = cols
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!(" {:w$} ", c.get(r).map_or("", String::as_str), w = *w))
            .collect();
        text.push_str(&cells.join("|"));
        text.push_str(";\n");
    }
}
