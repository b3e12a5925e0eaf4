//! Explanations: why an outcome is allowed (a witness execution with its key
//! edges) or forbidden (for every candidate execution producing it, the
//! axiom that rejects it and a shortest cycle, each edge labelled with the
//! rule it comes from), and why two accesses race (what is missing).
//!
//! The wording is data: a model's `.explain` file (`models/vulkan.explain`)
//! maps its checks to the relations that explain them and its bindings to
//! the spec's names for them.

mod paths;
mod spec;

pub use spec::{Expansion, ExplainSpec, RaceScope, SpecError};

use crate::analysis::litmus::{memory_states, term_value};
use crate::analysis::phrases::describe;
use crate::cat::{Evaluation, Value};
use crate::engine::{Candidate, CheckError, Coverage, Limits, Skeleton, Visitor, explore};
use crate::ir::{CondExpr, Dialect, Program, Quantifier, Term};
use crate::model::profile::{EdgeStyle, family};
use crate::model::{LoadedModel, Profile};
use crate::relation::Relation;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::ControlFlow;

/// An edge of a cycle or witness: `from` and `to` are event descriptions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Edge {
    /// Event numbers (indices into the drawn execution's events).
    pub from_id: usize,
    pub to_id: usize,
    pub from: String,
    pub to: String,
    /// The binding that contains the edge (the most specific one listed).
    pub relation: String,
    /// The spec's name for it.
    pub label: String,
    /// How the edge arises (the model's `.explain` file says for which
    /// bindings): the events of the path behind it, each with its role.
    pub via: Vec<Step>,
}

/// One event on the path behind an edge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// What the event is on the path (`release atomic`, `availability
    /// operation (workgroup instance domain)`...); roles of one event are
    /// joined with `, `.
    pub role: String,
    pub id: usize,
    pub event: String,
}

/// Candidate executions rejected the same way.
#[derive(Clone, Debug, Serialize)]
pub struct Rejection {
    /// The failing check (its name in the cat file).
    pub axiom: String,
    /// A shortest cycle (acyclic checks) or the offending pair (others);
    /// empty when the model names no relation for the check.
    pub cycle: Vec<Edge>,
    /// How many candidate executions fail this way.
    pub executions: u64,
}

/// What is known about a racing pair.
#[derive(Clone, Debug, Serialize)]
pub struct RaceDiagnosis {
    pub first: String,
    pub second: String,
    pub location: String,
    /// `(question, answer)` lines from the model's `.explain` file.
    pub facts: Vec<(String, String)>,
    /// The needed links (facts marked `!` in the `.explain` file) that fail.
    pub missing: Vec<String>,
}

/// An event of a drawn execution, with its place in the scope hierarchy.
#[derive(Clone, Debug, Serialize)]
pub struct GraphEvent {
    pub id: usize,
    /// Thread number (`P<n>`).
    pub thread: usize,
    pub subgroup: usize,
    pub workgroup: usize,
    pub queue_family: usize,
    /// The device (OpenCL `dev`; 0 for Vulkan tests).
    pub device: usize,
    /// Where a fragment shader invocation is rasterized (pictures group
    /// fragment invocations by pixel, in rasterization order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<crate::ir::Fragment>,
    /// A host thread or queue submission (pictures draw them as their own
    /// clusters, docs/host.md); invocations leave it out of JSON.
    #[serde(skip_serializing_if = "is_invocation")]
    pub agent: crate::ir::host::Agent,
    /// An OpenCL command's queue and command, in OpenCL words (pictures).
    #[serde(skip)]
    pub host_label: Option<crate::ir::host::HostLabel>,
    /// Subgroup, workgroup and queue family as the source numbers them
    /// (pictures label scope instances with them).
    #[serde(skip)]
    pub scope_numbers: Option<[usize; 3]>,
    pub text: String,
}

fn is_invocation(a: &crate::ir::host::Agent) -> bool {
    *a == crate::ir::host::Agent::Invocation
}

/// The events of an execution and its labelled edges (immediate edges only).
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    pub events: Vec<String>,
    pub graph_events: Vec<GraphEvent>,
    pub edges: Vec<Edge>,
    /// How pictures draw the edges' families (the model's profile).
    #[serde(skip)]
    pub styles: Vec<EdgeStyle>,
    /// The test's dialect (pictures draw its scope instances).
    #[serde(skip)]
    pub dialect: Dialect,
    /// The binding the model declares as program order, if any.
    #[serde(skip)]
    pub program_order: Option<String>,
    /// The racing pairs of this execution (event ids, the model's race
    /// relation), drawn in pictures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<(usize, usize)>,
}

/// What the explained outcome says about the test's own condition (when
/// the outcome is the condition's: no `--outcome`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConditionVerdict {
    /// `exists`, `~exists` or `forall`.
    pub quantifier: String,
    /// Whether the condition holds; `None` when undecided.
    pub holds: Option<bool>,
    /// Why, in words.
    pub reason: String,
}

/// The explanation of one outcome of one test.
#[derive(Clone, Debug, Serialize)]
pub struct Explanation {
    pub test: String,
    pub outcome: String,
    pub model: String,
    /// Candidate executions (of any consistency) producing the outcome.
    pub candidates: u64,
    /// Of which consistent.
    pub consistent: u64,
    pub verdict: Verdict,
    pub witness: Option<Witness>,
    /// Why the inconsistent candidates are rejected, grouped.
    pub rejections: Vec<Rejection>,
    /// Races in consistent executions producing the outcome.
    pub races: Vec<RaceDiagnosis>,
    /// For a forbidden outcome: the first rejected execution, drawn, and
    /// the cycle that rejects it.
    pub rejected: Option<(Witness, Vec<Edge>)>,
    pub cut_paths: usize,
    /// The first walk stopped at the execution limit (then the verdict is
    /// `Undecided` unless a witness was found).
    pub truncated: bool,
    /// Whether the rejection groups cover every candidate producing the
    /// outcome (the second walk may stop at the execution limit; the
    /// verdict `Forbidden` stands, the counts are then a sample).
    pub rejections_complete: bool,
    /// Both walks' counts.
    pub coverage: Coverage,
    /// The test's condition, when the outcome explained is its own (for a
    /// `forall`, the outcome is the expression's negation).
    pub condition: Option<ConditionVerdict>,
    /// Every binding and family the wording labels (what pictures may draw).
    #[serde(skip)]
    pub relation_names: Vec<String>,
    /// What pictures draw by default (the wording's `picture` line).
    #[serde(skip)]
    pub picture: Vec<String>,
    /// For a test leaving cooperative matrix attributions open
    /// (src/ir/attribution.rs): the attribution explained (the first that
    /// allows the outcome), or what the verdict covers (`every attribution
    /// (4)`, `2 of 300 attributions`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
    /// When the outcome explained is the test's own condition: the races
    /// of the whole test (every consistent execution, not only those
    /// producing the outcome), each with the final states it races in, so
    /// that a race in other executions is not left unsaid. `None` when
    /// `--outcome` chose the outcome, and when the listing could not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_races: Option<TestRaces>,
    /// The bound that stopped the front end before it built the whole
    /// program (`Program::front_end_limit`: what it covered and the option
    /// to raise); the verdict is then undecided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub front_end_limit: Option<String>,
    /// The parts of the explanation that are not decided or not whole,
    /// each with the limit or bound that left it so, in words (`the test's
    /// races: none among the executions seen; the search stopped at the
    /// execution limit`); empty when every part is decided. A command
    /// that prints the explanation exits with the undecided status when
    /// it is not empty, whatever the verdict.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub undecided: Vec<String>,
}

/// The races of a whole test ([`Explanation::test_races`]), as `vkmm
/// check` finds them.
#[derive(Clone, Debug, Serialize)]
pub struct TestRaces {
    /// `Some(true)`: no consistent execution races; `Some(false)`: one
    /// does; `None`: undecided (a limit or the bound left executions
    /// unseen, or the verdict rests on undefined behaviour).
    pub race_free: Option<bool>,
    /// The racing pairs, each with the final states it races in.
    pub races: Vec<crate::analysis::litmus::RacePair>,
    /// How many final states the test has in all.
    pub states: usize,
    /// Why the races are not all known, or the final states they race in
    /// not all listed (the limit or bound, in words); `None` when both are
    /// whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
}

/// A final state as an outcome `--outcome` takes: `P1:r0 == 0 /\ x == 1`.
pub fn state_outcome(state: &crate::analysis::states::FinalState) -> String {
    state
        .iter()
        .enumerate()
        .map(|(i, (k, v))| format!("{k} == {}", state.shown(i, v)))
        .collect::<Vec<_>>()
        .join(" /\\ ")
}

/// What a plain `vkmm check` says of the test's races
/// ([`Explanation::test_races`]): the outcome listing over every
/// consistent execution.
fn test_races(program: &Program, loaded: &LoadedModel, limits: Limits) -> Option<TestRaces> {
    loaded.profile.races.as_ref()?;
    let o =
        crate::analysis::litmus::check_litmus(&program.name, program, loaded, limits, None).ok()?;
    // The verdict as `check` gives it: "no race" only when every
    // execution was seen, "a race" as soon as one is.
    let race_free = if o.undefined.races {
        None
    } else {
        o.holds(crate::analysis::litmus::Property::Races)
    };
    let undecided = match race_free {
        None => Some(format!(
            "none among the executions seen; {}",
            races_undecided_why(&o)
        )),
        Some(false) => crate::analysis::compare::listing_coverage(&o)
            .map(|(_, why, what)| format!("the final states each race is in {what}: {why}")),
        Some(true) => None,
    };
    Some(TestRaces {
        race_free,
        races: o.races,
        states: o.states.len(),
        undecided,
    })
}

/// Why `check` leaves a test's races undecided, naming the limit or bound.
fn races_undecided_why(o: &crate::analysis::litmus::LitmusOutcome) -> String {
    if o.undefined.races {
        return "the races verdict rests on executions with undefined behaviour (vkmm check says which)".into();
    }
    if let Some(why) = o.states_incomplete() {
        return why;
    }
    match o.prefix_walk {
        Some(w) if w.stopped_by.is_some() => format!("nor among {}", w.describe()),
        _ => "the search did not see every execution".into(),
    }
}

/// The parts of `x` that are not decided or not whole
/// ([`Explanation::undecided`]), each naming what left it so.
fn undecided_parts(x: &Explanation) -> Vec<String> {
    let mut parts = Vec::new();
    let stopped = |by| crate::engine::stopped_at(by);
    match x.verdict {
        Verdict::Undecided => parts.push(match (&x.front_end_limit, &x.attribution) {
            (Some(m), _) => format!("the verdict: the front end stopped before it built the whole program ({m})"),
            (None, Some(a)) if !x.truncated => format!("the verdict: {a}"),
            (None, _) => format!(
                "the verdict: the search stopped {} before finding a consistent execution producing the outcome",
                stopped(x.coverage.stopped_by)
            ),
        }),
        // A witness settles "allowed" whatever was not seen; the counts
        // and race diagnoses cover what was.
        Verdict::Allowed if x.truncated => parts.push(format!(
            "the counts and race diagnoses: they cover only the executions seen (the search stopped {})",
            stopped(x.coverage.stopped_by)
        )),
        Verdict::Allowed => {}
        // Executions needing more loop iterations than the bound lets
        // through were not seen: one of them may produce the outcome.
        Verdict::Forbidden | Verdict::Unreachable if x.cut_paths > 0 => parts.push(format!(
            "the verdict: {}",
            bound_cut(x.cut_paths)
        )),
        Verdict::Forbidden | Verdict::Unreachable => {}
    }
    if x.verdict == Verdict::Forbidden && !x.rejections_complete {
        parts.push(format!(
            "the rejections: they are from the first {} candidates producing the outcome (the search stopped {})",
            x.candidates,
            stopped(x.coverage.stopped_by)
        ));
    }
    if let Some(why) = x.test_races.as_ref().and_then(|t| t.undecided.as_ref()) {
        parts.push(format!("the test's races: {why}"));
    }
    parts
}

/// Why a verdict that no execution within the unrolling bound produces
/// the outcome is not a verdict on the program.
fn bound_cut(paths: usize) -> String {
    format!(
        "no consistent execution within the unrolling bound produces the outcome, but the bound cut {paths} thread path{} (raise --unroll)",
        if paths == 1 { "" } else { "s" }
    )
}

/// What the model says about the outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// Some consistent execution produces it.
    Allowed,
    /// Candidate executions produce it, none consistently.
    Forbidden,
    /// No candidate execution produces it at all (not even an inconsistent one).
    Unreachable,
    /// The search stopped at the execution limit before finding a
    /// consistent execution producing it: neither allowed nor forbidden is known.
    Undecided,
}

fn rel<'e>(eval: &'e Evaluation, env: &'e crate::cat::Env, name: &str) -> Option<&'e Relation> {
    match eval.lookup(name).or_else(|| env.get(name)) {
        Some(Value::Rel(r)) => Some(r),
        _ => None,
    }
}

/// The first labelled binding containing `a -> b` (with `acyclic_only`,
/// among those without a self-loop: the parts of a composed cycle).
fn label_edge(
    spec: &ExplainSpec,
    eval: &Evaluation,
    env: &crate::cat::Env,
    a: usize,
    b: usize,
    acyclic_only: bool,
) -> (String, String) {
    for (binding, label) in &spec.edges {
        if rel(eval, env, binding)
            .is_some_and(|r| r.contains(a, b) && (!acyclic_only || r.is_irreflexive()))
        {
            return (binding.clone(), label.clone());
        }
    }
    (
        "?".into(),
        "(no labelled relation contains this edge)".into(),
    )
}

fn event_text(program: &Program, sk: &Skeleton, cand: &Candidate, e: usize) -> String {
    let ev = &sk.events[e];
    let mut s = format!("e{e} {}", describe(program, ev));
    let ins = ev.instruction(program);
    // One piece of an access cut at the chunks of a sized variable
    // (src/ir/bytes.rs): the bytes it accesses.
    if let Some(loc) = program.location_of(ins)
        && program.locations[loc].ends_with(']')
        && program.symbols.split_variable_of(loc).is_some()
    {
        s.push_str(&format!(" [bytes {}]", program.locations[loc]));
    }
    // A value as its location's type reads it (`1.5` for a float cell).
    let kind = program
        .location_of(ins)
        .and_then(|l| program.symbols.kinds.get(&l).copied());
    let shown = |v: i64| crate::ir::ValueKind::show_as(kind, v);
    if ins.is_read()
        && let Ok(k) = sk.reads.binary_search(&e)
    {
        let v = shown(crate::analysis::litmus::read_value(sk, cand, e, program));
        s.push_str(&format!(
            " [reads {v}{}]",
            if cand.rf_source[k].is_none() {
                ", initial"
            } else {
                ""
            }
        ));
    }
    let written = match &cand.values {
        Some(vals) => vals.write[e],
        None => ev.write_value,
    };
    if let Some(w) = written {
        s.push_str(&format!(" [writes {}]", shown(w)));
    }
    // An API operation is labelled with the call it stands for (docs/host.md).
    if let crate::ir::OpKind::Api(op) = &ins.kind {
        s.push_str(&format!(" [{}]", op.call()));
    }
    s
}

/// A labelled edge `a -> b` of `relation`, with the path behind it when
/// the wording expands the relation.
#[allow(clippy::too_many_arguments)]
fn make_edge(
    program: &Program,
    sk: &Skeleton,
    cand: &Candidate,
    eval: &Evaluation,
    spec: &ExplainSpec,
    (a, b): (usize, usize),
    relation: String,
    label: String,
) -> Edge {
    let via = paths::expand(spec, eval, &cand.env, sk.universe(), &relation, a, b)
        .into_iter()
        .map(|(role, id)| Step {
            role,
            id,
            event: event_text(program, sk, cand, id),
        })
        .collect();
    Edge {
        from_id: a,
        to_id: b,
        from: event_text(program, sk, cand, a),
        to: event_text(program, sk, cand, b),
        relation,
        label,
        via,
    }
}

/// Which final states of a candidate execution the explained outcome asks about.
struct Target<'p> {
    program: &'p Program,
    /// The model's profile (final-memory order, race and edge bindings).
    profile: &'p Profile,
    expr: CondExpr,
    filter: Option<CondExpr>,
    /// The locations the expression and filter name.
    locs: Vec<usize>,
}

impl Target<'_> {
    /// Whether some final state of the execution passes the filter and
    /// satisfies the outcome.
    fn produced_by(&self, sk: &Skeleton, cand: &Candidate, eval: &Evaluation) -> bool {
        let (program, locs) = (self.program, &self.locs);
        memory_states(
            sk,
            cand,
            eval,
            program,
            locs,
            self.profile.final_order.as_deref(),
        )
        .iter()
        .any(|mem| {
            let value = |t: &Term| term_value(sk, cand, program, locs, mem, t);
            self.filter.as_ref().is_none_or(|f| f.eval(&value)) && self.expr.eval(&value)
        })
    }
}

/// First walk (pruned like `check`): consistent executions producing the
/// outcome — the witness and the races.
struct Witnesses<'a> {
    target: &'a Target<'a>,
    spec: &'a ExplainSpec,
    consistent: u64,
    witness: Option<Witness>,
    races: Vec<RaceDiagnosis>,
}

impl Visitor for Witnesses<'_> {
    fn visit(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        if !eval.consistent() || !self.target.produced_by(sk, cand, eval) {
            return Ok(ControlFlow::Continue(()));
        }
        let (program, profile) = (self.target.program, self.target.profile);
        self.consistent += 1;
        if self.witness.is_none() {
            self.witness = Some(witness(program, sk, cand, eval, self.spec, profile));
        }
        if eval.flags().next().is_some() {
            diagnose_races(program, sk, cand, eval, self.spec, profile, &mut self.races);
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Second walk (unpruned), for outcomes no consistent execution produces:
/// the candidates that produce it, grouped by the axiom and cycle that
/// reject them.
struct Rejections<'a> {
    target: &'a Target<'a>,
    spec: &'a ExplainSpec,
    candidates: u64,
    groups: BTreeMap<String, Rejection>,
    rejected: Option<(Witness, Vec<Edge>)>,
}

impl Visitor for Rejections<'_> {
    fn may_prune(&self) -> bool {
        false
    }

    fn visit(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        if !self.target.produced_by(sk, cand, eval) {
            return Ok(ControlFlow::Continue(()));
        }
        let (program, spec, profile) = (self.target.program, self.spec, self.target.profile);
        self.candidates += 1;
        for c in eval.checks.iter().filter(|c| !c.flag && !c.passed) {
            let cycle = spec
                .check_relation(&c.name)
                .and_then(|b| rel(eval, &cand.env, b))
                .map(|r| offending(program, sk, cand, eval, spec, r, &c.kind))
                .unwrap_or_default();
            if self.rejected.is_none() && !cycle.is_empty() {
                self.rejected = Some((
                    witness(program, sk, cand, eval, spec, profile),
                    cycle.clone(),
                ));
            }
            let key = format!(
                "{}|{}",
                c.name,
                cycle
                    .iter()
                    .map(|e| format!("{}>{}>{}", strip_id(&e.from), e.relation, strip_id(&e.to)))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            self.groups
                .entry(key)
                .or_insert_with(|| Rejection {
                    axiom: c.name.clone(),
                    cycle,
                    executions: 0,
                })
                .executions += 1;
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Explains `outcome` (default: the test's condition expression; `true` for
/// `.test` files, whose values are pinned) under `model`.
///
/// Two walks of the one driver: the first, pruned like `check`, looks for
/// consistent executions producing the outcome (a witness, races). Only if
/// it finds none, and saw every candidate, does the second walk visit the
/// inconsistent candidates producing it, to say which axioms reject them.
/// A first walk stopped by the execution limit with no witness gives
/// [`Verdict::Undecided`], never a verdict.
///
/// A test leaving cooperative matrix attributions open
/// (src/ir/attribution.rs): the outcome is allowed when some attribution
/// allows it; the explanation is then that attribution's, named. Otherwise
/// it is the first attribution's rejection, for every attribution (or
/// undecided when the bound left some unrun or one is undecided).
pub fn explain(
    program: &Program,
    loaded: &LoadedModel,
    spec: &ExplainSpec,
    outcome: Option<(&CondExpr, String)>,
    limits: Limits,
) -> Result<Explanation, CheckError> {
    let own = outcome.is_none();
    let mut x = explain_attributions(program, loaded, spec, outcome, limits)?;
    if own {
        x.test_races = test_races(program, loaded, limits);
    }
    // A program the front end built only part of (`Program::front_end_limit`:
    // a bound stopped it, and accesses it did not finish lowering are
    // marked out of bounds) settles nothing: neither its executions nor
    // their absence are the shader's.
    if program.front_end_limit.is_some() {
        x.front_end_limit.clone_from(&program.front_end_limit);
        x.verdict = Verdict::Undecided;
        x.witness = None;
        x.rejected = None;
        if let Some(c) = &mut x.condition {
            c.holds = None;
            c.reason = "undecided: the front end stopped before it built the whole program (its warning names the bound)".into();
        }
        if let Some(t) = &mut x.test_races {
            t.race_free = None;
            t.undecided = Some(format!(
                "the front end stopped before it built the whole program ({})",
                x.front_end_limit.as_deref().unwrap_or_default()
            ));
        }
    }
    // A verdict that nothing within the unrolling bound produces the
    // outcome leaves the condition it decides undecided, as `check`
    // leaves it: the executions the bound cut were not seen.
    if matches!(x.verdict, Verdict::Forbidden | Verdict::Unreachable)
        && x.cut_paths > 0
        && let Some(c) = &mut x.condition
    {
        c.holds = None;
        c.reason = format!("undecided: {}", bound_cut(x.cut_paths));
    }
    x.undecided = undecided_parts(&x);
    Ok(x)
}

/// [`explain`] of the outcome alone, over the attributions.
fn explain_attributions(
    program: &Program,
    loaded: &LoadedModel,
    spec: &ExplainSpec,
    outcome: Option<(&CondExpr, String)>,
    limits: Limits,
) -> Result<Explanation, CheckError> {
    if program.attributions.is_empty() {
        return explain_one(program, loaded, spec, outcome, limits);
    }
    let mut first: Option<Explanation> = None;
    let mut undecided = false;
    let all = program.attributions();
    for p in &all {
        let mut x = explain_one(p, loaded, spec, outcome.clone(), limits)?;
        if x.verdict == Verdict::Allowed {
            x.attribution = p.attributions.this.clone();
            return Ok(x);
        }
        undecided |= x.verdict == Verdict::Undecided;
        if first.is_none() {
            first = Some(x);
        }
    }
    let mut x = first.expect("one attribution at least");
    let total = program.attributions.total;
    if !program.attributions.complete() {
        undecided = true;
        x.attribution = Some(format!(
            "{} of {total} attributions (the bound {}): none of them allows it",
            all.len(),
            crate::ir::MAX_ATTRIBUTIONS
        ));
    } else {
        x.attribution = Some(format!(
            "every attribution ({total}): none allows it; the rejection shown is of {}",
            program.attributions.this.as_deref().unwrap_or("the first")
        ));
    }
    if undecided {
        x.verdict = Verdict::Undecided;
        let q = program
            .condition
            .as_ref()
            .and_then(|c| c.quantifier)
            .filter(|_| x.condition.is_some());
        x.condition = q.map(|q| condition_verdict(q, Verdict::Undecided));
    }
    Ok(x)
}

fn explain_one(
    program: &Program,
    loaded: &LoadedModel,
    spec: &ExplainSpec,
    outcome: Option<(&CondExpr, String)>,
    limits: Limits,
) -> Result<Explanation, CheckError> {
    crate::analysis::models::check_supported(program, loaded)?;
    let cond = program.condition.as_ref();
    // The test's own condition: a `forall` holds when its negation is
    // forbidden, so the negation is the outcome explained.
    let (expr, outcome_text, quantifier) = match outcome {
        Some((e, t)) => (e.clone(), t, None),
        None => match cond {
            Some(c) if c.quantifier == Some(Quantifier::Forall) => (
                CondExpr::Not(Box::new(c.expr.clone())),
                format!("the negation of `{}`", c.text),
                c.quantifier,
            ),
            Some(c) => (
                c.expr.clone(),
                format!("the condition of `{}`", c.text),
                c.quantifier,
            ),
            None => (CondExpr::True, "any execution".to_string(), None),
        },
    };
    let filter = cond.and_then(|c| c.filter.clone());
    let mut locs: Vec<usize> = Vec::new();
    let mut terms = Vec::new();
    expr.terms(&mut terms);
    if let Some(f) = &filter {
        f.terms(&mut terms);
    }
    for l in terms.iter().flat_map(|t| t.locations()) {
        if !locs.contains(&l) {
            locs.push(l);
        }
    }
    let target = Target {
        program,
        profile: &loaded.profile,
        expr,
        filter,
        locs,
    };
    let mut first = Witnesses {
        target: &target,
        spec,
        consistent: 0,
        witness: None,
        races: Vec::new(),
    };
    let coverage = explore(program, loaded, limits, &mut first)?;
    let mut out = Explanation {
        test: program.name.clone(),
        outcome: outcome_text,
        model: loaded.name.clone(),
        candidates: first.consistent,
        consistent: first.consistent,
        verdict: Verdict::Undecided,
        witness: first.witness,
        rejections: Vec::new(),
        races: first.races,
        rejected: None,
        cut_paths: coverage.cut_paths,
        truncated: coverage.truncated,
        rejections_complete: true,
        coverage,
        condition: None,
        relation_names: spec.relation_names(),
        picture: spec.picture.clone(),
        attribution: None,
        test_races: None,
        front_end_limit: None,
        undecided: Vec::new(),
    };
    if out.consistent > 0 {
        out.verdict = Verdict::Allowed;
    }
    if out.consistent > 0 || coverage.truncated {
        out.condition = quantifier.map(|q| condition_verdict(q, out.verdict));
        return Ok(out);
    }
    let mut second = Rejections {
        target: &target,
        spec,
        candidates: 0,
        groups: BTreeMap::new(),
        rejected: None,
    };
    // The rejected candidates include reads of a thread's own overwritten
    // writes (the cycles an explanation shows): the latest-own-write
    // filter, which leaves them out because the model rejects them, is off.
    let reject_limits = limits.with(crate::engine::Reduction::OwnWriteFilter, false);
    let reasons = explore(program, loaded, reject_limits, &mut second)?;
    out.coverage.add(&reasons);
    out.candidates = second.candidates;
    out.rejected = second.rejected;
    out.rejections = second.groups.into_values().collect();
    out.rejections
        .sort_by_key(|r| std::cmp::Reverse(r.executions));
    out.rejections_complete = !reasons.truncated;
    out.verdict = if out.candidates > 0 || reasons.truncated {
        Verdict::Forbidden
    } else {
        Verdict::Unreachable
    };
    out.condition = quantifier.map(|q| condition_verdict(q, out.verdict));
    Ok(out)
}

/// Whether the test's condition holds, given the verdict on the outcome
/// explained for it (the expression; a `forall`'s negation).
fn condition_verdict(q: Quantifier, v: Verdict) -> ConditionVerdict {
    let observed = match v {
        Verdict::Allowed => Some(true),
        Verdict::Forbidden | Verdict::Unreachable => Some(false),
        Verdict::Undecided => None,
    };
    // exists holds when its expression is observed; ~exists and forall
    // (whose negation was explained) when it is not
    let holds = match q {
        Quantifier::Exists => observed,
        Quantifier::NotExists | Quantifier::Forall => observed.map(|o| !o),
    };
    let reason = match (q, observed) {
        (_, None) => "undecided: the search stopped at a limit",
        (Quantifier::Exists, Some(true)) => "the witness satisfies it",
        (Quantifier::Exists, Some(false)) => "no consistent execution satisfies it",
        (Quantifier::NotExists, Some(true)) => "the witness below satisfies it",
        (Quantifier::NotExists, Some(false)) => "no consistent execution satisfies it",
        (Quantifier::Forall, Some(true)) => {
            "the witness below is a counterexample: it violates the expression"
        }
        (Quantifier::Forall, Some(false)) => "every consistent execution satisfies the expression",
    };
    ConditionVerdict {
        quantifier: match q {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
        .to_string(),
        holds,
        reason: reason.to_string(),
    }
}

/// `e12 P0 line 3: ...` without the event number and values: the
/// instruction, as race diagnoses name it (for grouping and matching).
pub fn strip_id(s: &str) -> &str {
    let s = s.split_once(' ').map(|(_, r)| r).unwrap_or(s);
    s.split(" [").next().unwrap_or(s)
}

/// A shortest cycle of `r` (acyclic checks) or one pair of it (empty and
/// irreflexive checks), labelled.
fn offending(
    program: &Program,
    sk: &Skeleton,
    cand: &Candidate,
    eval: &Evaluation,
    spec: &ExplainSpec,
    r: &Relation,
    kind: &crate::cat::CheckKind,
) -> Vec<Edge> {
    let n = sk.universe();
    let mut path: Vec<(usize, usize)> = match kind {
        crate::cat::CheckKind::Acyclic | crate::cat::CheckKind::Irreflexive => {
            match r.find_cycle() {
                Some(c) => (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect(),
                None => Vec::new(),
            }
        }
        crate::cat::CheckKind::Empty => r.pairs().take(1).collect(),
    };
    // A self-loop of a composed relation (a reflexive pair of a closure, or
    // an irreflexive check over a composition) hides the cycle that makes
    // it: draw that cycle through its parts instead.
    let mut parts_only = false;
    if let [(a, b)] = path[..]
        && a == b
        && let Some(c) = paths::underlying_cycle(spec, eval, &cand.env, n, a)
    {
        path = c;
        parts_only = true;
    }
    path.into_iter()
        .map(|(a, b)| {
            let (relation, label) = label_edge(spec, eval, &cand.env, a, b, parts_only);
            make_edge(program, sk, cand, eval, spec, (a, b), relation, label)
        })
        .collect()
}

/// The drawn execution of a candidate: its events and the immediate edges
/// of every relation `spec` labels.
pub(crate) fn witness(
    program: &Program,
    sk: &Skeleton,
    cand: &Candidate,
    eval: &Evaluation,
    spec: &ExplainSpec,
    profile: &Profile,
) -> Witness {
    let events = (0..sk.universe())
        .map(|e| event_text(program, sk, cand, e))
        .collect();
    let graph_events = (0..sk.universe())
        .map(|e| {
            let t = &program.threads[sk.events[e].thread];
            GraphEvent {
                id: e,
                thread: t.id,
                subgroup: t.subgroup,
                workgroup: t.workgroup,
                queue_family: t.queue_family,
                device: t.device,
                fragment: t.fragment,
                agent: program.host.agent(sk.events[e].thread),
                host_label: program.host.label(sk.events[e].thread, t),
                scope_numbers: program
                    .symbols
                    .threads
                    .get(sk.events[e].thread)
                    .and_then(|s| s.scope_numbers),
                text: event_text(program, sk, cand, e),
            }
        })
        .collect();
    // Immediate edges only (no transitive closures): each labelled relation's
    // pairs not already implied by a path of its own.
    let mut edges: Vec<Edge> = Vec::new();
    // (a, b, binding) already drawn: a pair gets one edge per relation
    // family (the name before the first `_`), the first listed binding
    // winning (`sw` is skipped where an `sw_*` case was drawn, the other
    // `locord_*` cases where one was, happens-before where
    // synchronizes-with was). Program order is not drawn (pictures show it
    // as the order of a thread's events).
    let hb = profile.happens_before.as_deref();
    let sw = profile.synchronizes_with.as_deref().map(family);
    let mut drawn: Vec<(usize, usize, String)> = Vec::new();
    for (binding, label) in &spec.edges {
        if profile.program_order.as_deref() == Some(binding.as_str()) {
            continue;
        }
        let Some(r) = rel(eval, &cand.env, binding) else {
            continue;
        };
        let r = if r.is_transitive() {
            r.immediate()
        } else {
            r.clone()
        };
        for (a, b) in r.pairs() {
            let covered = drawn.iter().any(|(x, y, d)| {
                *x == a
                    && *y == b
                    && (family(d) == family(binding)
                        || (hb == Some(binding.as_str()) && sw == Some(family(d))))
            });
            if a == b || covered {
                continue;
            }
            drawn.push((a, b, binding.clone()));
            edges.push(make_edge(
                program,
                sk,
                cand,
                eval,
                spec,
                (a, b),
                binding.clone(),
                label.clone(),
            ));
        }
    }
    let races = profile
        .races
        .as_deref()
        .and_then(|b| rel(eval, &cand.env, b))
        .map(|dr| dr.pairs().filter(|(a, b)| a < b).collect())
        .unwrap_or_default();
    Witness {
        events,
        graph_events,
        edges,
        styles: profile.edge_styles.clone(),
        dialect: program.dialect,
        program_order: profile.program_order.clone(),
        races,
    }
}

fn diagnose_races(
    program: &Program,
    sk: &Skeleton,
    cand: &Candidate,
    eval: &Evaluation,
    spec: &ExplainSpec,
    profile: &Profile,
    out: &mut Vec<RaceDiagnosis>,
) {
    let Some(dr) = profile
        .races
        .as_deref()
        .and_then(|b| rel(eval, &cand.env, b))
    else {
        return;
    };
    let set = |name: &str| match eval.lookup(name).or_else(|| cand.env.get(name)) {
        Some(Value::Set(s)) => Some(s.clone()),
        _ => None,
    };
    let host = set(crate::engine::names::HOST);
    // A test with API operations: its races are told by the host facts.
    let api_test = set("api_events").is_some_and(|s| !s.is_empty());
    for (x, y) in dr.pairs() {
        if x > y {
            continue;
        }
        // A race with a host access is told from the write to the other
        // access (the host facts below follow a write's route).
        let host_race = api_test
            || host
                .as_ref()
                .is_some_and(|h| h.contains(x) || h.contains(y));
        let (x, y) = if host_race && !sk.events[x].writes && sk.events[y].writes {
            (y, x)
        } else {
            (x, y)
        };
        let first = describe(program, &sk.events[x]);
        let second = describe(program, &sk.events[y]);
        if out.iter().any(|d| d.first == first && d.second == second) {
            continue;
        }
        let location = program
            .location_of(sk.events[x].instruction(program))
            .map(|l| program.locations[l].clone())
            .unwrap_or_default();
        let mut facts: Vec<(String, String)> = spec.race_notes.clone();
        let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
        for (binding, text) in &spec.race_pairs {
            if let Some(r) = rel(eval, &cand.env, binding) {
                facts.push((text.clone(), yes(r.contains(x, y) || r.contains(y, x))));
            }
        }
        for (set, text) in &spec.race_events {
            if let Some(Value::Set(s)) = eval.lookup(set).or_else(|| cand.env.get(set)) {
                facts.push((
                    text.clone(),
                    format!(
                        "first: {}, second: {}",
                        yes(s.contains(x)),
                        yes(s.contains(y))
                    ),
                ));
            }
        }
        let list = |r: &Relation, from: bool, e: usize| -> String {
            let evs: Vec<String> = (0..sk.universe())
                .filter(|&o| {
                    if from {
                        r.contains(e, o)
                    } else {
                        r.contains(o, e)
                    }
                })
                .map(|o| describe(program, &sk.events[o]))
                .collect();
            if evs.is_empty() {
                "none".into()
            } else {
                evs.join("; ")
            }
        };
        for (binding, text) in &spec.race_from {
            if let Some(r) = rel(eval, &cand.env, binding) {
                facts.push((text.clone(), list(r, true, x)));
            }
        }
        for (binding, text) in &spec.race_to {
            if let Some(r) = rel(eval, &cand.env, binding) {
                facts.push((text.clone(), list(r, false, y)));
            }
        }
        // Facts marked `!` are links the routes need: a "no"/"none" answer
        // (for either access) is what is missing.
        let mut missing = Vec::new();
        // A synchronisation the scopes alone block comes first: it is the
        // cause (the other missing links follow from it).
        if let (Some(rs), Some((r, q, case))) = (
            spec.race_scope.as_ref(),
            paths::scope_blocked(spec, eval, &cand.env, sk.universe(), x, y),
        ) {
            let how = format!(
                "{} -> {} ({case})",
                describe(program, &sk.events[r]),
                describe(program, &sk.events[q])
            );
            missing.push(rs.text.clone());
            facts.insert(0, (rs.text.clone(), how));
        }
        // Facts marked `@` are about the host side (docs/host.md): stated
        // only for a race with a host access, and then the only ones whose
        // `!` names what is missing (the shader routes' links are beside
        // the point when one access is the host's).
        facts.retain(|(q, _)| host_race || !q.starts_with('@'));
        for (q, _) in facts.iter_mut() {
            if let Some(text) = q.strip_prefix('@') {
                *q = text.to_string();
            } else if host_race && let Some(text) = q.strip_prefix('!') {
                *q = text.to_string();
            }
        }
        let fails = |a: &str| a == "no" || a == "none" || a.contains(": no");
        for (q, a) in facts.iter_mut() {
            if let Some(text) = q.strip_prefix('!') {
                *q = text.to_string();
                if fails(a) {
                    missing.push(q.clone());
                }
            }
        }
        // Facts marked `?` are the order of links each present on its
        // own (availability before the domain operation, ...): the first
        // that fails is what is missing when no `!` link is.
        let mut order_named = !missing.is_empty();
        for (q, a) in facts.iter_mut() {
            if let Some(text) = q.strip_prefix('?') {
                *q = text.to_string();
                if !order_named && fails(a) {
                    missing.push(q.clone());
                    order_named = true;
                }
            }
        }
        out.push(RaceDiagnosis {
            first,
            second,
            location,
            facts,
            missing,
        });
    }
}
