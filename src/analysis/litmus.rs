//! Herd-style results of a `.litmus` test: the reachable final states (with
//! how many consistent executions reach each), the final condition's verdict,
//! positive/negative witnesses, the Always/Sometimes/Never observation, and
//! data races (with the racing pair of instructions).

use super::{CheckError, Staged};
use crate::cat::Value;
use crate::engine::{Candidate, EventInfo, Explorer, Limits, RegValue, Skeleton};
use crate::ir::{Program, Quantifier, Term};
use crate::model::LoadedModel;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::time::Duration;
use web_time::Instant;

/// Which property of a test a verdict is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Property {
    /// The final condition (`exists`, `~exists`, `forall`, under `filter`).
    Condition,
    /// Data-race freedom: no consistent (filtered) execution has a race.
    Races,
}

impl std::str::FromStr for Property {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "condition" => Ok(Property::Condition),
            "races" => Ok(Property::Races),
            _ => Err(format!(
                "unknown property `{s}`: expected `condition` or `races`"
            )),
        }
    }
}

/// How often the condition's expression holds over consistent executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Observation {
    Always,
    Sometimes,
    Never,
}

/// Two instructions that race, by thread and source line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RacePair {
    pub first: String,
    pub second: String,
    pub location: String,
}

/// A final state: `(name, value)` pairs, registers as `P0:r1` then locations.
pub type FinalState = Vec<(String, i64)>;

fn ser_states<S: serde::Serializer>(states: &[(FinalState, u64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(states.len()))?;
    for (state, n) in states {
        let values: serde_json::Map<String, serde_json::Value> = state
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::from(*v)))
            .collect();
        seq.serialize_element(&serde_json::json!({ "values": values, "executions": n }))?;
    }
    seq.end()
}

/// Everything vkmm found about a litmus test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LitmusOutcome {
    pub file: String,
    pub name: String,
    pub model: String,
    /// The condition as written (`None` when the test has none).
    pub condition: Option<String>,
    /// Reachable final states of consistent, filtered executions, with counts
    /// (JSON: `[{"values": {"P0:r0": 1, "x": 2}, "executions": 3}, ...]`).
    #[serde(serialize_with = "ser_states")]
    pub states: Vec<(FinalState, u64)>,
    /// Consistent filtered executions satisfying / not satisfying the condition's expression.
    pub positive: u64,
    pub negative: u64,
    pub observation: Observation,
    /// Whether the final condition holds (`None` without a quantifier).
    pub condition_holds: Option<bool>,
    /// Racing pairs found in consistent filtered executions (distinct pairs).
    pub races: Vec<RacePair>,
    /// Whether every consistent filtered execution is race-free.
    pub race_free: bool,
    /// Candidate executions evaluated.
    pub executions: u64,
    /// Partial candidates (reads-from assignments under way) the search
    /// evaluated to prune. With `executions`, what the execution limit bounds.
    pub partial_evaluations: u64,
    /// Of which consistent.
    pub consistent: u64,
    /// Thread paths cut by the unrolling bound (answers may be incomplete when > 0).
    pub cut_paths: usize,
    pub unroll: usize,
    /// True when the search stopped early because the asked property was decided.
    pub stopped_early: bool,
    /// True when the search stopped at the execution limit (candidate and
    /// partial evaluations together) before deciding: the verdicts then only
    /// cover the executions seen.
    pub truncated: bool,
    #[serde(serialize_with = "crate::report::ser_duration")]
    pub time: Duration,
}

impl LitmusOutcome {
    /// The verdict for a property: true when it holds; `None` when the test
    /// has no condition, or the search was truncated before deciding it.
    pub fn holds(&self, property: Property) -> Option<bool> {
        if self.truncated && !self.stopped_early {
            return None;
        }
        match property {
            Property::Condition => self.condition_holds,
            Property::Races => Some(self.race_free),
        }
    }
}

/// Value of a term in a candidate execution.
pub(crate) fn reg_value(
    sk: &Skeleton,
    cand: &Candidate,
    thread: usize,
    reg: &str,
    program: &Program,
) -> i64 {
    let Some((_, v)) = sk.registers[thread].iter().find(|(r, _)| r == reg) else {
        return 0;
    };
    match *v {
        RegValue::Const(c) => c,
        RegValue::Read(e) => read_value(sk, cand, e, program),
    }
}

pub(crate) fn read_value(sk: &Skeleton, cand: &Candidate, e: usize, program: &Program) -> i64 {
    let k = sk.reads.binary_search(&e).expect("a read event");
    match cand.rf_source[k] {
        Some(w) => sk.events[w].write_value.unwrap_or(0),
        None => {
            let loc = program
                .location_of(sk.events[e].instruction(program))
                .unwrap_or(0);
            program.initial_value(loc)
        }
    }
}

/// The possible final values of each location: the values of the writes no
/// other write to the location follows (in `co`, program order, or the
/// model's final-memory order if its profile declares one). Several maximal
/// writes (unordered writes) give several possible final states.
pub(crate) fn final_memory(
    sk: &Skeleton,
    cand: &Candidate,
    eval: &crate::cat::Evaluation,
    program: &Program,
    locations: &[usize],
    final_order: Option<&str>,
) -> Vec<Vec<i64>> {
    let co = match cand.env.get("co") {
        Some(Value::Rel(r)) => Some(r),
        _ => None,
    };
    let locord = match final_order.and_then(|b| eval.lookup(b)) {
        Some(Value::Rel(r)) => Some(r),
        _ => None,
    };
    let loc_of = |e: &EventInfo| program.location_of(e.instruction(program));
    locations
        .iter()
        .map(|&l| {
            let writes: Vec<usize> = (0..sk.events.len())
                .filter(|&e| sk.events[e].writes && loc_of(&sk.events[e]) == Some(l))
                .collect();
            if writes.is_empty() {
                return vec![program.initial_value(l)];
            }
            let after = |a: usize, b: usize| {
                (sk.events[a].thread == sk.events[b].thread && a < b)
                    || co.is_some_and(|r| r.contains(a, b))
                    || locord.is_some_and(|r| r.contains(a, b))
            };
            let mut vals: Vec<i64> = writes
                .iter()
                .filter(|&&w| !writes.iter().any(|&o| o != w && after(w, o)))
                .map(|&w| sk.events[w].write_value.unwrap_or(0))
                .collect();
            vals.sort_unstable();
            vals.dedup();
            vals
        })
        .collect()
}

/// Every combination of possible final values of `locations` (one final
/// state each; usually exactly one).
pub(crate) fn memory_states(
    sk: &Skeleton,
    cand: &Candidate,
    eval: &crate::cat::Evaluation,
    program: &Program,
    locations: &[usize],
    final_order: Option<&str>,
) -> Vec<Vec<i64>> {
    let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
    for vals in final_memory(sk, cand, eval, program, locations, final_order) {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                vals.iter().map(move |v| {
                    let mut c2 = c.clone();
                    c2.push(*v);
                    c2
                })
            })
            .collect();
    }
    combos
}

/// The value of a condition term in a candidate execution, `mem` giving the
/// final values of `locations` (other locations keep their initial value).
pub(crate) fn term_value(
    sk: &Skeleton,
    cand: &Candidate,
    program: &Program,
    locations: &[usize],
    mem: &[i64],
    t: &Term,
) -> i64 {
    match t {
        Term::Const(c) => *c,
        Term::Reg { thread, reg } => reg_value(sk, cand, *thread, reg, program),
        Term::Loc(l) => locations
            .iter()
            .position(|x| x == l)
            .map(|i| mem[i])
            .unwrap_or_else(|| program.initial_value(*l)),
    }
}

pub(crate) fn describe(program: &Program, e: &EventInfo) -> String {
    let t = &program.threads[e.thread];
    let ins = e.instruction(program);
    format!("P{} line {}: {}", t.id, ins.source.line, ins.source.text)
}

/// Runs a litmus test. With `decide = Some(property)` the search stops as soon
/// as that property is decided (the state list is then partial); with `None`
/// every candidate execution is evaluated.
pub fn check_litmus(
    file: &str,
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    decide: Option<Property>,
) -> Result<LitmusOutcome, CheckError> {
    let start = Instant::now();
    super::check_supported(program, loaded)?;
    let model = &loaded.cat;
    let final_order = loaded.profile.final_order.as_deref();
    let race_binding = loaded.profile.races.as_deref();
    let limits = limits.for_model(model);
    let explorer = Explorer::new(program, limits)?;
    let cond = program.condition.as_ref();
    let quantifier = cond.and_then(|c| c.quantifier);
    // What the final states show: the condition's terms, else every register.
    let mut shown_regs: Vec<(usize, String)> = Vec::new();
    let mut shown_locs: Vec<usize> = program.shown_locations.clone();
    if let Some(c) = cond {
        let mut terms = Vec::new();
        c.expr.terms(&mut terms);
        if let Some(f) = &c.filter {
            f.terms(&mut terms);
        }
        for t in terms {
            match t {
                Term::Reg { thread, reg } => {
                    if !shown_regs.contains(&(*thread, reg.clone())) {
                        shown_regs.push((*thread, reg.clone()))
                    }
                }
                Term::Loc(l) => {
                    if !shown_locs.contains(l) {
                        shown_locs.push(*l)
                    }
                }
                Term::Const(_) => {}
            }
        }
    } else {
        for (ti, t) in program.threads.iter().enumerate() {
            for s in &t.code {
                if let crate::ir::Stmt::Op(i) = s
                    && let Some(d) = &i.dest
                    && !shown_regs.contains(&(ti, d.clone()))
                {
                    shown_regs.push((ti, d.clone()));
                }
            }
        }
    }
    shown_regs.sort();
    let mut states: BTreeMap<FinalState, u64> = BTreeMap::new();
    let (mut positive, mut negative, mut executions, mut consistent) = (0u64, 0u64, 0u64, 0u64);
    let mut races: Vec<RacePair> = Vec::new();
    let mut racy = false;
    let mut stopped_early = false;
    let mut failure: Option<CheckError> = None;
    let mut monotone_cache = None;
    // The execution limit bounds the model evaluations: candidates and the
    // partial candidates evaluated for pruning (a test with many paths can
    // spend all its time in the latter).
    let evaluations = Cell::new(0u64);
    let truncated = Cell::new(false);
    let over_budget = || {
        let over = evaluations.get() >= limits.max_executions;
        if over {
            truncated.set(true);
        }
        over
    };

    explorer.for_each(|sk| -> Result<ControlFlow<()>, CheckError> {
        if over_budget() {
            return Ok(ControlFlow::Break(()));
        }
        let staged = Staged::new(model, &sk.static_env, &mut monotone_cache)?;
        let mut prune = |env: &crate::cat::Env| {
            // Over the budget: stop evaluating, keep the subtree (the next
            // candidate visited breaks the search).
            if over_budget() {
                return true;
            }
            evaluations.set(evaluations.get() + 1);
            staged.partial_ok(env)
        };
        let mut visit = |cand: &Candidate| {
            if over_budget() {
                return ControlFlow::Break(());
            }
            evaluations.set(evaluations.get() + 1);
            executions += 1;
            let eval = match staged.prepared.evaluate(&cand.env) {
                Ok(e) => e,
                Err(e) => {
                    failure = Some(e.into());
                    return ControlFlow::Break(());
                }
            };
            if !eval.consistent() {
                return ControlFlow::Continue(());
            }
            // Final values of the locations the condition or report needs
            // (`shown_locs` holds every location the condition names).
            let all_locs = &shown_locs;
            for mem in memory_states(&sk, cand, &eval, program, all_locs, final_order) {
                let value = |t: &Term| term_value(&sk, cand, program, all_locs, &mem, t);
                if let Some(f) = cond.and_then(|c| c.filter.as_ref())
                    && !f.eval(&value)
                {
                    continue;
                }
                consistent += 1;
                let mut state: FinalState = shown_regs
                    .iter()
                    .map(|(t, r)| {
                        (
                            format!("P{}:{r}", program.threads[*t].id),
                            reg_value(&sk, cand, *t, r, program),
                        )
                    })
                    .collect();
                for l in &shown_locs {
                    state.push((program.locations[*l].clone(), value(&Term::Loc(*l))));
                }
                *states.entry(state).or_insert(0) += 1;
                let sat = cond.is_none_or(|c| c.expr.eval(&value));
                if sat {
                    positive += 1;
                } else {
                    negative += 1;
                }
                if eval.flags().next().is_some() {
                    racy = true;
                    if let Some(Value::Rel(dr)) = race_binding.and_then(|b| eval.lookup(b)) {
                        for (a, b) in dr.pairs() {
                            if a < b {
                                let loc = program
                                    .location_of(sk.events[a].instruction(program))
                                    .map(|l| program.locations[l].clone())
                                    .unwrap_or_default();
                                let pair = RacePair {
                                    first: describe(program, &sk.events[a]),
                                    second: describe(program, &sk.events[b]),
                                    location: loc,
                                };
                                if !races.contains(&pair) {
                                    races.push(pair);
                                }
                            }
                        }
                    }
                }
                let decided = match decide {
                    Some(Property::Races) => racy,
                    Some(Property::Condition) => match quantifier {
                        Some(Quantifier::Exists) | Some(Quantifier::NotExists) => positive > 0,
                        Some(Quantifier::Forall) => negative > 0,
                        None => false,
                    },
                    None => false,
                };
                if decided {
                    stopped_early = true;
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        };
        sk.search(
            if staged.can_prune() {
                Some(&mut prune)
            } else {
                None
            },
            &mut visit,
        );
        if let Some(e) = failure.take() {
            return Err(e);
        }
        Ok(if stopped_early || truncated.get() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    })?;

    let observation = if positive > 0 && negative == 0 {
        Observation::Always
    } else if positive > 0 {
        Observation::Sometimes
    } else {
        Observation::Never
    };
    let condition_holds = quantifier.map(|q| match q {
        Quantifier::Exists => positive > 0,
        Quantifier::NotExists => positive == 0,
        Quantifier::Forall => negative == 0,
    });
    Ok(LitmusOutcome {
        file: file.to_string(),
        name: program.name.clone(),
        model: loaded.name.clone(),
        condition: cond.map(|c| c.text.clone()),
        states: states.into_iter().collect(),
        positive,
        negative,
        observation,
        condition_holds,
        races,
        race_free: !racy,
        executions,
        partial_evaluations: evaluations.get() - executions,
        consistent,
        cut_paths: explorer.cut(),
        unroll: limits.unroll,
        stopped_early,
        truncated: truncated.get(),
        time: start.elapsed(),
    })
}
