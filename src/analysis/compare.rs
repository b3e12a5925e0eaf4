//! One test under several models, side by side: for litmus tests the
//! reachable final states, the condition verdict and race freedom; for
//! `.test` files each query's answer. A model that refuses the test (the
//! Vulkan models and sequentially consistent operations) gets `n/a` and a
//! note saying why.

use super::{CheckError, Models, check_litmus, check_program};
use crate::engine::Limits;
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::Serialize;

/// One test run under several models.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    pub file: String,
    pub models: Vec<String>,
    /// (what: a final state, a verdict or a query; one answer per model)
    pub rows: Vec<(String, Vec<String>)>,
    /// Whether some row's answers differ, decided answers only: a state a
    /// partial listing did not show (`unseen`) and an `undecided` verdict
    /// differ from nothing, so truncated searches never prove a difference.
    pub differs: bool,
    /// Whether every model's answer is complete (every final state listed,
    /// every verdict decided). Two answers are `same` only then; otherwise,
    /// without a proven difference, the comparison is undecided.
    pub complete: bool,
    pub notes: Vec<String>,
    /// The front end's warnings about the file.
    pub warnings: Vec<crate::frontend::FrontendWarning>,
}

/// Runs `program` under every model of `models`.
pub fn compare(
    file: &str,
    program: &Program,
    models: &[LoadedModel],
    limits: Limits,
) -> Result<Comparison, CheckError> {
    let mut cmp = Comparison {
        file: file.to_string(),
        models: models.iter().map(|m| m.name.clone()).collect(),
        complete: true,
        warnings: program.warnings.clone(),
        ..Default::default()
    };
    if !program.queries.is_empty() {
        for model in models {
            let ms = Models {
                chains: model.clone(),
                no_chains: model.clone(),
            };
            let o = check_program(file, program, &ms, limits)?;
            for (i, q) in o.queries.iter().enumerate() {
                if cmp.rows.len() <= i {
                    cmp.rows
                        .push((format!("line {}: {}", q.line, q.query), Vec::new()));
                }
                cmp.rows[i].1.push(q.actual.to_string());
                if q.actual == super::Answer::Undecided {
                    cmp.complete = false;
                }
            }
        }
    } else {
        let mut outcomes = Vec::new();
        let mut refused = Vec::new();
        for model in models {
            match check_litmus(file, program, model, limits, None) {
                Ok(o) => outcomes.push(Some(o)),
                Err(CheckError::Unsupported(why)) => {
                    refused.push(format!("{}: not supported: {why}", model.name));
                    outcomes.push(None);
                }
                Err(e) => return Err(e),
            }
        }
        let fmt = |s: &super::litmus::FinalState| {
            let mut t = String::new();
            super::phrases::push_state(&mut t, s, |k| k);
            t
        };
        let mut states: Vec<String> = Vec::new();
        for o in outcomes.iter().flatten() {
            for (st, _) in &o.states {
                let t = fmt(st);
                if !states.contains(&t) {
                    states.push(t);
                }
            }
        }
        states.sort();
        let cells = |f: &dyn Fn(&super::LitmusOutcome) -> String| -> Vec<String> {
            outcomes
                .iter()
                .map(|o| o.as_ref().map_or_else(|| "n/a".to_string(), f))
                .collect()
        };
        for st in states {
            let row = cells(&|o| {
                if o.states.iter().any(|(s, _)| fmt(s) == st) {
                    "allowed".into()
                } else if o.states_incomplete().is_some() {
                    UNSEEN.into()
                } else {
                    "-".into()
                }
            });
            cmp.rows.push((st, row));
        }
        cmp.rows.push((
            "condition holds".into(),
            cells(&|o| match o.holds(super::Property::Condition) {
                Some(true) => "Ok".into(),
                Some(false) => "No".into(),
                None if o.quantifier.is_some() => UNDECIDED.into(),
                None => "-".into(),
            }),
        ));
        cmp.rows.push((
            "race-free".into(),
            cells(&|o| match o.holds(super::Property::Races) {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => UNDECIDED.into(),
            }),
        ));
        cmp.complete = outcomes
            .iter()
            .flatten()
            .all(|o| o.states_incomplete().is_none());
        cmp.notes = refused;
        for o in outcomes.iter().flatten() {
            if let Some(why) = o.states_incomplete() {
                cmp.notes.push(format!(
                    "{}: INCOMPLETE ({why}): its states cover only the executions seen",
                    o.model
                ));
            }
        }
    }
    let decided = |x: &&String| !matches!(x.as_str(), UNSEEN | UNDECIDED | "UNDECIDED");
    cmp.complete &= cmp.rows.iter().all(|(_, c)| c.iter().all(|x| decided(&x)));
    cmp.differs = cmp.rows.iter().any(|(_, c)| {
        let mut known = c.iter().filter(decided);
        known.next().is_some_and(|first| known.any(|x| x != first))
    });
    Ok(cmp)
}

/// A state cell for a model whose listing is partial and lacks the state:
/// the state may be reachable among the executions not seen.
pub const UNSEEN: &str = "unseen";

/// A verdict cell a limit or the unrolling bound left undecided.
pub const UNDECIDED: &str = "undecided";

/// A comparison's answer in one word: `DIFFERS` (some decided answers
/// differ), `same` (every answer complete and equal), else `UNDECIDED`.
pub fn answer(c: &Comparison) -> &'static str {
    if c.differs {
        "DIFFERS"
    } else if c.complete {
        "same"
    } else {
        "UNDECIDED"
    }
}

/// The closing line of `vkmm compare`: tests whose answers differ, are the
/// same, and are undecided (never counted as the same).
pub fn summary_line(reports: &[Comparison], models: &[String]) -> String {
    let n = |a: &str| reports.iter().filter(|r| answer(r) == a).count();
    format!(
        "tests whose answers differ between {}: {} of {}; the same: {}; undecided: {}\n",
        models.join(" and "),
        n("DIFFERS"),
        reports.len(),
        n("same"),
        n("UNDECIDED")
    )
}
