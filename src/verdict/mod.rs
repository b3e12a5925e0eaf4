//! Verdicts: runs a program's queries against a model over all candidate
//! executions and compares each answer with the one its author expects.

use crate::cat::{CatError, Evaluation, Model, Value};
use crate::exec::{Limits, Skeleton};
use crate::program::{Expectation, Pred, Program, Query};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// The dynamic base names a candidate execution provides to a model.
pub const DYNAMIC_NAMES: &[&str] = &["rf", "asmo", "co", "RFINIT"];

/// The models a `.test` file's queries run against: `chains` for ordinary
/// queries, `no_chains` for queries marked `NOCHAINS`.
pub struct Models {
    pub chains: Model,
    pub chains_name: String,
    pub no_chains: Model,
    pub no_chains_name: String,
}

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

/// The outcome of checking one file.
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

/// Why a program could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Exec(#[from] crate::exec::ExecError),
    #[error(transparent)]
    Cat(#[from] CatError),
    #[error("line {line}: query counts `#{name}`, but the model `{model}` binds no `{name}`")]
    UnknownCount {
        line: usize,
        name: String,
        model: String,
    },
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

/// Runs every query of `program`.
pub fn check_program(
    file: &str,
    program: &Program,
    models: &Models,
    limits: Limits,
) -> Result<TestOutcome, CheckError> {
    let start = Instant::now();
    let skeleton = Skeleton::build(program, limits)?;
    let mut outcomes: Vec<Option<QueryOutcome>> = vec![None; program.queries.len()];
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
        let (model, model_name) = if no_chains {
            (&models.no_chains, &models.no_chains_name)
        } else {
            (&models.chains, &models.chains_name)
        };
        let t0 = Instant::now();
        let prepared = model.prepare(&skeleton.static_env, DYNAMIC_NAMES)?;
        let mut satisfied_at: Vec<Option<u64>> = vec![None; selected.len()];
        let mut executions = 0u64;
        let mut failure: Option<CheckError> = None;
        skeleton.for_each(|cand| {
            executions += 1;
            let eval = match prepared.evaluate(&cand.env) {
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
        });
        if let Some(e) = failure {
            return Err(e);
        }
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
        events: skeleton.universe(),
        candidates: skeleton.candidate_count(),
        queries: outcomes.into_iter().flatten().collect(),
        time: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::alloy_test::parse;

    fn models() -> Models {
        Models {
            chains: crate::models::load("vulkan").unwrap(),
            chains_name: "vulkan".into(),
            no_chains: crate::models::load("vulkan-nochains").unwrap(),
            no_chains_name: "vulkan-nochains".into(),
        }
    }

    #[test]
    fn queries_run_under_their_variant_and_compare_with_expectations() {
        // mp3transitive-like: needs an availability chain
        let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.av.scopewg.sc0 x = 1\nst.atom.rel.scopewg.sc1.semsc0.semsc1 y = 1\nNEWSG\nNEWTHREAD\nld.atom.acq.scopewg.sc1.semsc0.semsc1 y = 1\nst.atom.rel.scopedev.sc1.semsc0.semsc1.semav z = 1\nNEWWG\nNEWSG\nNEWTHREAD\nld.atom.acq.scopedev.sc1.semsc0.semsc1 z = 1\nld.vis.scopedev.sc0 x\nSATISFIABLE consistent[X] && #dr=0\nSATISFIABLE NOCHAINS consistent[X] && #dr=0\n";
        let p = parse("chain.test", text).unwrap();
        let o = check_program("chain.test", &p, &models(), Limits::default()).unwrap();
        assert_eq!(o.queries.len(), 2);
        assert_eq!(o.queries[0].model, "vulkan");
        assert!(o.queries[0].passed);
        assert_eq!(o.queries[1].model, "vulkan-nochains");
        assert_eq!(o.queries[1].actual, Expectation::NoSolution);
        assert!(!o.queries[1].passed);
        assert!(!o.passed());
    }

    #[test]
    fn counting_an_unbound_name_is_an_error() {
        let p = parse("t.test", "NEWTHREAD\nst.sc0 x = 1\nSATISFIABLE #nosuch>0\n").unwrap();
        match check_program("t.test", &p, &models(), Limits::default()) {
            Err(CheckError::UnknownCount { line, name, .. }) => {
                assert_eq!((line, name.as_str()), (3, "nosuch"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn count_predicates_count_pairs() {
        let p = parse(
            "t.test",
            "NEWWG\nNEWTHREAD\nst.sc0 x = 1\nNEWWG\nNEWTHREAD\nst.sc0 x = 2\nSATISFIABLE #dr=2\nNOSOLUTION #dr=1\nSATISFIABLE #dr>=2 && #dr<=2 && #dr!=3\n",
        )
        .unwrap();
        let o = check_program("t.test", &p, &models(), Limits::default()).unwrap();
        assert!(o.passed(), "{o:?}");
    }
}
