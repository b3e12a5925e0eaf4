//! Refinement: does every outcome an implementation model allows appear
//! among the outcomes a specification model allows? `vkmm refines --impl
//! pops --spec vulkan FILE...` (docs/interlock.md, "POPS"). For a litmus
//! test, an outcome is a reachable final state; each final state the
//! implementation reaches and the specification does not is a violation,
//! reported with the implementation's witness execution and the
//! specification's explanation of why it is forbidden.

use super::explain::ExplainSpec;
use super::explain::{Explanation, explain};
use super::litmus::check_litmus;
use crate::engine::Limits;
use crate::engine::driver::CheckError;
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::Serialize;

/// One outcome the implementation allows and the specification forbids.
#[derive(Clone, Debug, Serialize)]
pub struct Violation {
    /// The final state, as a condition (`P1:r2 == 0 /\ x == 1`).
    pub outcome: String,
    /// The implementation's witness execution (the first
    /// [`EXPLAINED`] violations of a test only).
    pub witness: Option<Explanation>,
    /// Why the specification forbids it (likewise).
    pub forbidden: Option<Explanation>,
}

/// How many violations of one test are explained (each explanation
/// enumerates the test again under one model); the others are listed.
pub const EXPLAINED: usize = 3;

/// A test checked for refinement.
#[derive(Clone, Debug, Serialize)]
pub struct Refinement {
    pub file: String,
    pub implementation: String,
    pub specification: String,
    pub violations: Vec<Violation>,
    /// Final states each model reaches.
    pub impl_states: usize,
    pub spec_states: usize,
    /// Whether both enumerations listed every reachable final state (else
    /// a missing violation proves nothing).
    pub complete: bool,
    /// The answer: `yes` only when both listings are whole and no outcome
    /// is missing; `no` when the specification's listing is whole and
    /// misses an outcome the implementation reaches (a reached state is
    /// reached whatever the implementation's walk left unseen); otherwise
    /// `undecided`.
    pub answer: RefinesAnswer,
    /// Why a listing may miss final states (`pops: the search stopped at
    /// the execution limit`), one line per model whose listing is partial.
    pub incomplete: Vec<String>,
    /// Outcomes the implementation reaches that the specification's partial
    /// listing did not show: violations only if a whole listing confirms
    /// them, so none is reported as one.
    pub unconfirmed: Vec<String>,
}

/// The answer of a refinement check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefinesAnswer {
    Yes,
    No,
    Undecided,
}

/// Checks `program` (a litmus test) for refinement of `spec` by `imp`.
pub fn refines(
    file: &str,
    program: &Program,
    imp: &LoadedModel,
    spec: &LoadedModel,
    limits: Limits,
) -> Result<Refinement, CheckError> {
    if program.condition.is_none() && !program.queries.is_empty() {
        return Err(CheckError::Unsupported(
            "refines compares final states: give it herd-style .litmus tests".into(),
        ));
    }
    // Only the final states are compared: the outcome-directed listing
    // (one witness per state) has them all, unless the full walk is asked.
    let decide = crate::engine::QuestionPlan::of(&limits)
        .outcome_directed
        .then_some(super::litmus::Property::States);
    let run = |m: &LoadedModel| check_litmus(file, program, m, limits, decide);
    let i = run(imp)?;
    let s = run(spec)?;
    let incomplete: Vec<String> = [(imp, &i), (spec, &s)]
        .iter()
        .filter_map(|(m, o)| {
            o.states_incomplete()
                .map(|why| format!("{}: {why}", m.name))
        })
        .collect();
    let spec_whole = s.states_incomplete().is_none();
    let mut violations = Vec::new();
    let mut unconfirmed = Vec::new();
    for (state, _) in &i.states {
        // Listings are sorted (`LitmusOutcome::states`): a lookup, not a
        // scan, so that two listings of many states compare in n log n.
        if s.states.binary_search_by(|(t, _)| t.cmp(state)).is_ok() {
            continue;
        }
        let outcome = state
            .iter()
            .map(|(k, v)| format!("{k} == {v}"))
            .collect::<Vec<_>>()
            .join(" /\\ ");
        if !spec_whole {
            unconfirmed.push(outcome);
            continue;
        }
        if violations.len() >= EXPLAINED {
            violations.push(Violation {
                outcome,
                witness: None,
                forbidden: None,
            });
            continue;
        }
        let expr = crate::frontend::parse_outcome(program, &outcome)
            .map_err(|e| CheckError::Unsupported(e.to_string()))?;
        let why = |m: &LoadedModel| -> Result<Explanation, CheckError> {
            let wording =
                ExplainSpec::of(&m.profile).map_err(|e| CheckError::Unsupported(e.to_string()))?;
            explain(program, m, &wording, Some((&expr, outcome.clone())), limits)
        };
        let (witness, forbidden) = (Some(why(imp)?), Some(why(spec)?));
        violations.push(Violation {
            outcome,
            witness,
            forbidden,
        });
    }
    Ok(Refinement {
        file: file.to_string(),
        implementation: imp.name.clone(),
        specification: spec.name.clone(),
        impl_states: i.states.len(),
        spec_states: s.states.len(),
        complete: incomplete.is_empty(),
        answer: if !violations.is_empty() {
            RefinesAnswer::No
        } else if incomplete.is_empty() {
            RefinesAnswer::Yes
        } else {
            RefinesAnswer::Undecided
        },
        violations,
        incomplete,
        unconfirmed,
    })
}

/// The exit code of `vkmm refines`: 2 when a file could not be checked,
/// else 1 on a violation, else 3 when some answer is undecided, else 0.
pub fn exit_code(reports: &[Refinement], errors: usize) -> i32 {
    let any = |a: RefinesAnswer| reports.iter().any(|r| r.answer == a);
    if errors > 0 {
        2
    } else if any(RefinesAnswer::No) {
        1
    } else if any(RefinesAnswer::Undecided) {
        3
    } else {
        0
    }
}
