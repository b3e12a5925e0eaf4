//! Alloy-style queries (`.test` files): does some candidate execution satisfy
//! a predicate over the model's results (`consistent[X]`, `#dr=0`, ...)?

use super::{CheckError, Models, Staged};
use crate::cat::{Evaluation, Value};
use crate::engine::{Explorer, Limits, Orders};
use crate::ir::{Expectation, Pred, Program, Query};
use std::ops::ControlFlow;
use std::time::Duration;
use web_time::Instant;

/// The answer to one query.
#[derive(Clone, Debug, serde::Serialize)]
pub struct QueryOutcome {
    pub line: usize,
    pub query: String,
    pub model: String,
    pub expected: Expectation,
    pub actual: Expectation,
    pub passed: bool,
    /// Candidate executions evaluated before the answer was known.
    pub executions: u64,
    #[serde(serialize_with = "crate::report::ser_duration")]
    pub time: Duration,
}

/// The outcome of checking one `.test` file.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TestOutcome {
    pub file: String,
    pub name: String,
    pub events: usize,
    /// Size of the candidate space (product of the reads-from and order choices).
    pub candidates: u128,
    pub queries: Vec<QueryOutcome>,
    #[serde(serialize_with = "crate::report::ser_duration")]
    pub time: Duration,
}

impl TestOutcome {
    pub fn passed(&self) -> bool {
        self.queries.iter().all(|q| q.passed)
    }
}

fn holds(pred: &Pred, eval: &Evaluation) -> Result<bool, String> {
    Ok(match pred {
        Pred::Consistent => eval.consistent(),
        Pred::Count { name, cmp, value } => {
            let count = match eval.lookup(name) {
                Some(Value::Rel(r)) => r.count(),
                Some(Value::Set(s)) => s.count(),
                _ => return Err(name.clone()),
            };
            cmp.holds(count, *value)
        }
        Pred::And(ps) => {
            for p in ps {
                if !holds(p, eval)? {
                    return Ok(false);
                }
            }
            true
        }
    })
}

/// Whether every execution satisfying `pred` is consistent (then
/// inconsistent partial executions can be pruned).
fn requires_consistency(pred: &Pred) -> bool {
    match pred {
        Pred::Consistent => true,
        Pred::Count { .. } => false,
        Pred::And(ps) => ps.iter().any(requires_consistency),
    }
}

/// Runs every query of `program`.
pub fn check_program(
    file: &str,
    program: &Program,
    models: &Models,
    limits: Limits,
) -> Result<TestOutcome, CheckError> {
    let start = Instant::now();
    super::check_supported(program, &models.chains)?;
    super::check_supported(program, &models.no_chains)?;
    let orders =
        Orders::for_model(&models.chains.cat).union(Orders::for_model(&models.no_chains.cat));
    let explorer = Explorer::new(program, Limits { orders, ..limits })?;
    let mut outcomes: Vec<Option<QueryOutcome>> = vec![None; program.queries.len()];
    let mut events = 0;
    let mut candidates = 0u128;
    let mut counted = false; // count the candidate space once, not per model
    for no_chains in [false, true] {
        let selected: Vec<(usize, &Query)> = program
            .queries
            .iter()
            .enumerate()
            .filter(|(_, q)| q.no_chains == no_chains)
            .collect();
        if selected.is_empty() {
            continue;
        }
        let loaded = if no_chains {
            &models.no_chains
        } else {
            &models.chains
        };
        let (model, model_name) = (&loaded.cat, &loaded.name);
        let t0 = Instant::now();
        let mut satisfied_at: Vec<Option<u64>> = vec![None; selected.len()];
        let mut executions = 0u64;
        let mut failure: Option<CheckError> = None;
        let mut monotone_cache = None;
        explorer.for_each(|skeleton| -> Result<ControlFlow<()>, CheckError> {
            events = events.max(skeleton.universe());
            if !counted {
                candidates = candidates.saturating_add(skeleton.candidate_count());
            }
            let staged = Staged::new(model, &skeleton.static_env, &mut monotone_cache)?;
            let can_prune = staged.can_prune()
                && selected
                    .iter()
                    .zip(&satisfied_at)
                    .all(|((_, q), s)| s.is_some() || requires_consistency(&q.pred));
            let mut prune = |env: &crate::cat::Env| staged.partial_ok(env);
            let mut visit = |cand: &crate::engine::Candidate| {
                executions += 1;
                let eval = match staged.prepared.evaluate(&cand.env) {
                    Ok(e) => e,
                    Err(e) => {
                        failure = Some(e.into());
                        return ControlFlow::Break(());
                    }
                };
                for (k, (_, q)) in selected.iter().enumerate() {
                    if satisfied_at[k].is_some() {
                        continue;
                    }
                    match holds(&q.pred, &eval) {
                        Ok(true) => satisfied_at[k] = Some(executions),
                        Ok(false) => {}
                        Err(name) => {
                            failure = Some(CheckError::UnknownCount {
                                line: q.line,
                                name,
                                model: model_name.clone(),
                            });
                            return ControlFlow::Break(());
                        }
                    }
                }
                if satisfied_at.iter().all(Option::is_some) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            skeleton.search(if can_prune { Some(&mut prune) } else { None }, &mut visit);
            if let Some(e) = failure.take() {
                return Err(e);
            }
            Ok(if satisfied_at.iter().all(Option::is_some) {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })?;
        counted = true;
        let elapsed = t0.elapsed();
        for (k, (qi, q)) in selected.iter().enumerate() {
            let actual = if satisfied_at[k].is_some() {
                Expectation::Satisfiable
            } else {
                Expectation::NoSolution
            };
            outcomes[*qi] = Some(QueryOutcome {
                line: q.line,
                query: q.text.clone(),
                model: model_name.clone(),
                expected: q.expect,
                actual,
                passed: actual == q.expect,
                executions: satisfied_at[k].unwrap_or(executions),
                time: elapsed,
            });
        }
    }
    Ok(TestOutcome {
        file: file.to_string(),
        name: program.name.clone(),
        events,
        candidates,
        queries: outcomes.into_iter().flatten().collect(),
        time: start.elapsed(),
    })
}
