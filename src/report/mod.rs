//! Reports: herd-like text and JSON for `check` results and `suite`
//! summaries, and Graphviz pictures of executions ([`dot`]).

pub mod dot;

use crate::analysis::{LitmusOutcome, Observation, QueryOutcome, TestOutcome};
use crate::ir::Quantifier;
use serde::Serialize;
use std::fmt::Write;
use std::time::Duration;

/// Serialises a duration as fractional milliseconds.
pub fn ser_duration<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

/// A file that could not be checked.
#[derive(Clone, Debug, Serialize)]
pub struct FileError {
    pub file: String,
    pub error: String,
}

/// A query whose answer differs from its expectation.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub file: String,
    pub detail: String,
}

/// The summary of a `suite` run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: Vec<Failure>,
    pub errors: Vec<FileError>,
    pub files: usize,
    #[serde(serialize_with = "ser_duration")]
    pub time: Duration,
}

impl Summary {
    pub fn new(outcomes: &[TestOutcome], errors: Vec<FileError>, time: Duration) -> Summary {
        let mut failed = Vec::new();
        let mut total = 0;
        let mut passed = 0;
        add_queries(outcomes, &mut total, &mut passed, &mut failed);
        Summary {
            total,
            passed,
            failed,
            errors,
            files: outcomes.len(),
            time,
        }
    }

    /// 0 when everything matches, 1 on a mismatch, 2 when some input could not be checked.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            2
        } else if !self.failed.is_empty() {
            1
        } else {
            0
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for f in &self.failed {
            let _ = writeln!(s, "FAIL {}: {}", f.file, f.detail);
        }
        for e in &self.errors {
            let _ = writeln!(s, "ERROR {}", e.error);
        }
        let _ = writeln!(
            s,
            "{} files, {} checks: {} passed, {} failed, {} errors in {:.1} ms",
            self.files + self.errors.len(),
            self.total,
            self.passed,
            self.failed.len(),
            self.errors.len(),
            self.time.as_secs_f64() * 1000.0
        );
        s
    }
}

fn query_line(q: &QueryOutcome) -> String {
    format!(
        "  line {:<3} {:<52} expected {:<11} got {:<11} {:<4} {:>9.3} ms  ({} executions, {})",
        q.line,
        q.query,
        q.expected.to_string(),
        q.actual.to_string(),
        if q.passed { "ok" } else { "FAIL" },
        q.time.as_secs_f64() * 1000.0,
        q.executions,
        q.model
    )
}

/// One test run under several models.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    pub file: String,
    pub models: Vec<String>,
    /// (what: a final state, a verdict or a query; one answer per model)
    pub rows: Vec<(String, Vec<String>)>,
    /// Whether some row's answers differ.
    pub differs: bool,
    pub notes: Vec<String>,
}

/// Side-by-side text of a comparison; rows whose answers differ start with `*`.
pub fn comparison_text(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Compare {} ({}){}",
        c.file,
        c.models.join(" | "),
        if c.differs { ": DIFFERS" } else { ": same" }
    );
    let width = c.rows.iter().map(|(w, _)| w.len()).max().unwrap_or(0);
    for (what, answers) in &c.rows {
        let mark = if answers.iter().any(|a| a != &answers[0]) {
            "*"
        } else {
            " "
        };
        let cells: Vec<String> = answers
            .iter()
            .zip(&c.models)
            .map(|(a, m)| format!("{:<w$}", a, w = m.len().max(9)))
            .collect();
        let _ = writeln!(s, "{mark} {what:<width$}  {}", cells.join(" | "));
    }
    for n in &c.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    s
}

/// Adds one check per query of checked `.test` files.
pub fn add_queries(
    outcomes: &[TestOutcome],
    total: &mut usize,
    passed: &mut usize,
    failed: &mut Vec<Failure>,
) {
    for o in outcomes {
        for q in &o.queries {
            *total += 1;
            if q.passed {
                *passed += 1;
            } else {
                failed.push(Failure {
                    file: o.file.clone(),
                    detail: format!(
                        "line {}: `{}` under {}: expected {}, got {}",
                        q.line, q.query, q.model, q.expected, q.actual
                    ),
                });
            }
        }
    }
}

/// The herd-style text report of a litmus test.
pub fn litmus_text(o: &LitmusOutcome, quantifier: Option<Quantifier>) -> String {
    let mut s = String::new();
    let kind = match quantifier {
        Some(Quantifier::Exists) => "Allowed",
        Some(Quantifier::NotExists) => "Forbidden",
        Some(Quantifier::Forall) => "Required",
        None => "Filtered",
    };
    let _ = writeln!(s, "Test {} {kind}", o.name);
    let _ = writeln!(s, "States {}", o.states.len());
    for (state, count) in &o.states {
        let cells: Vec<String> = state.iter().map(|(k, v)| format!("{k}={v};")).collect();
        let _ = writeln!(s, "{:<8} :> {}", count, cells.join(" "));
    }
    match o.condition_holds {
        Some(true) => s.push_str("Ok\n"),
        Some(false) => s.push_str("No\n"),
        None => {}
    }
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", o.positive, o.negative);
    if let Some(c) = &o.condition {
        let _ = writeln!(s, "Condition {c}");
    }
    let obs = match o.observation {
        Observation::Always => "Always",
        Observation::Sometimes => "Sometimes",
        Observation::Never => "Never",
    };
    let _ = writeln!(
        s,
        "Observation {} {obs} {} {}",
        o.name, o.positive, o.negative
    );
    if o.race_free {
        let _ = writeln!(s, "Data races: none");
    } else {
        let _ = writeln!(s, "Data races: yes");
        for r in &o.races {
            let _ = writeln!(
                s,
                "  race on {}: {}  <->  {}",
                r.location, r.first, r.second
            );
        }
    }
    if o.truncated {
        let _ = writeln!(
            s,
            "TRUNCATED after {} model evaluations ({} executions, {} partial; --max-executions): states and counts cover only those executions",
            o.executions + o.partial_evaluations,
            o.executions,
            o.partial_evaluations
        );
    }
    let _ = writeln!(
        s,
        "Time {} {:.3} ms  ({} executions, {} consistent, {} partial, model {}, unroll {}{})",
        o.name,
        o.time.as_secs_f64() * 1000.0,
        o.executions,
        o.consistent,
        o.partial_evaluations,
        o.model,
        o.unroll,
        if o.cut_paths > 0 {
            format!(
                ", BOUND HIT: {} thread paths cut, the answer covers only executions within the bound",
                o.cut_paths
            )
        } else {
            String::new()
        }
    );
    s
}

/// The text report of one checked file.
pub fn outcome_text(o: &TestOutcome) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Test {} ({}): {} events, {} candidate executions, {:.3} ms",
        o.name,
        o.file,
        o.events,
        o.candidates,
        o.time.as_secs_f64() * 1000.0
    );
    for q in &o.queries {
        let _ = writeln!(s, "{}", query_line(q));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{QueryOutcome, TestOutcome};
    use crate::ir::Expectation;

    fn outcome(passed: bool) -> TestOutcome {
        TestOutcome {
            file: "f.test".into(),
            name: "f".into(),
            events: 2,
            candidates: 1,
            queries: vec![QueryOutcome {
                line: 3,
                query: "SATISFIABLE consistent[X]".into(),
                model: "vulkan".into(),
                expected: Expectation::Satisfiable,
                actual: if passed {
                    Expectation::Satisfiable
                } else {
                    Expectation::NoSolution
                },
                passed,
                executions: 1,
                time: Duration::from_micros(5),
            }],
            time: Duration::from_micros(7),
        }
    }

    #[test]
    fn summary_exit_codes_and_json_shape() {
        let ok = Summary::new(&[outcome(true)], vec![], Duration::ZERO);
        assert_eq!((ok.total, ok.passed, ok.exit_code()), (1, 1, 0));
        let bad = Summary::new(&[outcome(false)], vec![], Duration::ZERO);
        assert_eq!(bad.exit_code(), 1);
        assert!(
            bad.failed[0]
                .detail
                .contains("expected SATISFIABLE, got NOSOLUTION")
        );
        let err = Summary::new(
            &[outcome(false)],
            vec![FileError {
                file: "g.test".into(),
                error: "g.test:1:1: boom".into(),
            }],
            Duration::ZERO,
        );
        assert_eq!(err.exit_code(), 2);
        let v = serde_json::to_value(&err).unwrap();
        for key in ["total", "passed", "failed", "errors"] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["failed"][0]["file"], "f.test");
        assert!(err.to_text().contains("1 failed, 1 errors"));
    }

    #[test]
    fn text_report_names_every_query() {
        let t = outcome_text(&outcome(true));
        assert!(t.starts_with("Test f (f.test): 2 events, 1 candidate executions"));
        assert!(t.contains("line 3"));
        assert!(t.contains("expected SATISFIABLE got SATISFIABLE ok"));
    }
}
