//! Alloy-style queries (`.test` files): does some candidate execution satisfy
//! a predicate over the model's results (`consistent[X]`, `#dr=0`, ...)?

use super::models::Models;
use crate::cat::{Evaluation, Value};
use crate::engine::{CheckError, Limits, Split, Visitor, explore_split};
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
    /// `Undecided` when a limit stopped the walk before it found a
    /// satisfying execution, or when cooperative matrix attributions were
    /// left unbuilt.
    pub actual: Answer,
    pub passed: bool,
    /// Candidate executions evaluated before the answer was known.
    pub executions: u64,
    #[serde(serialize_with = "crate::analysis::schema::ser_duration")]
    pub time: Duration,
    /// Why an undecided answer is undecided: the limit that stopped the
    /// search, the paths the unrolling bound cut, or the attributions
    /// left unbuilt (`None` for a decided answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
}

/// What the candidate executions say about a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Answer {
    /// Some candidate execution satisfies the predicate.
    Satisfiable,
    /// None does (every candidate was seen).
    NoSolution,
    /// No satisfying execution among those seen before a limit stopped
    /// the walk.
    Undecided,
}

impl Answer {
    /// Whether the answer is the expected one (an undecided answer never is).
    pub fn matches(self, expected: Expectation) -> bool {
        matches!(
            (self, expected),
            (Answer::Satisfiable, Expectation::Satisfiable)
                | (Answer::NoSolution, Expectation::NoSolution)
        )
    }
}

impl std::fmt::Display for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Answer::Satisfiable => "SATISFIABLE",
            Answer::NoSolution => "NOSOLUTION",
            Answer::Undecided => "UNDECIDED",
        })
    }
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
    /// Control barriers some thread passes while a member of its
    /// execution-scope instance never reaches them (undefined: see
    /// [`crate::analysis::barriers`]), as `P0 line 5: text (P1 never
    /// reaches it)`; the queries' answers do not depend on it.
    pub barrier_divergence: Vec<String>,
    #[serde(serialize_with = "crate::analysis::schema::ser_duration")]
    pub time: Duration,
    /// The front end's warnings about the file (set by the session).
    pub warnings: Vec<crate::frontend::FrontendWarning>,
    /// For a test leaving cooperative matrix attributions open: how many
    /// were run (every one built; the answers are the union over them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributions: Option<super::litmus::AttributionCount>,
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

/// The names `pred` counts.
fn counted_names(pred: &Pred, out: &mut Vec<String>) {
    match pred {
        Pred::Consistent => {}
        Pred::Count { name, .. } => out.push(name.clone()),
        Pred::And(ps) => ps.iter().for_each(|p| counted_names(p, out)),
    }
}

/// The visitor behind [`check_program`]: which queries some candidate
/// execution satisfies (and after how many executions).
struct Answers<'q> {
    program: &'q Program,
    queries: Vec<&'q Query>,
    model_name: &'q str,
    satisfied_at: Vec<Option<u64>>,
    /// Every query asks for a consistent execution.
    consistent_only: bool,
    executions: u64,
    /// Largest skeleton and candidate-space size, counted in the first walk.
    events: usize,
    candidates: u128,
    count_space: bool,
    barrier_divergence: Vec<String>,
}

impl Visitor for Answers<'_> {
    /// Inconsistent subtrees can only be skipped while every open query
    /// needs a consistent execution.
    fn may_prune(&self) -> bool {
        self.queries
            .iter()
            .zip(&self.satisfied_at)
            .all(|(q, s)| s.is_some() || requires_consistency(&q.pred))
    }

    /// When every query asks for a consistent execution, only consistent
    /// candidates matter, and of them the names the queries count.
    fn needs(&self) -> crate::engine::Needs {
        let reads = self.consistent_only.then(|| {
            let mut names = Vec::new();
            for q in &self.queries {
                counted_names(&q.pred, &mut names);
            }
            names
        });
        crate::engine::Needs {
            reads,
            ..Default::default()
        }
    }

    fn skeleton(&mut self, sk: &crate::engine::Skeleton) {
        self.events = self.events.max(sk.universe());
        for d in super::barriers::describe_divergent(self.program, sk) {
            if !self.barrier_divergence.contains(&d) {
                self.barrier_divergence.push(d);
            }
        }
        if self.count_space {
            self.candidates = self.candidates.saturating_add(sk.candidate_count());
        }
    }

    fn visit(
        &mut self,
        _sk: &crate::engine::Skeleton,
        _cand: &crate::engine::Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        self.executions += 1;
        // Every query asks for a consistent execution (the only case in
        // which the evaluation may be lazy, see `reads`): an inconsistent
        // candidate answers none, and its evaluation may be partial.
        if self.consistent_only && !eval.consistent() {
            return Ok(ControlFlow::Continue(()));
        }
        for (k, q) in self.queries.iter().enumerate() {
            if self.satisfied_at[k].is_some() {
                continue;
            }
            match holds(&q.pred, eval) {
                Ok(true) => self.satisfied_at[k] = Some(self.executions),
                Ok(false) => {}
                Err(name) => {
                    return Err(CheckError::UnknownCount {
                        line: q.line,
                        name,
                        model: self.model_name.to_string(),
                    });
                }
            }
        }
        Ok(if self.satisfied_at.iter().all(Option::is_some) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    }
}

/// The queries split ([`crate::engine::driver::explore_split`]) when one
/// query asks for a consistent execution: pruning is then always allowed
/// and the walk breaks at the first execution satisfying it, which
/// decides by itself. With several queries the walk breaks once all are
/// satisfied, which no single part knows, and with a count over every
/// candidate pruning depends on what earlier parts satisfied: those walk
/// sequentially.
impl Split for Answers<'_> {
    fn fork(&self) -> Option<Self> {
        if self.queries.len() != 1 || !self.consistent_only {
            return None;
        }
        Some(Answers {
            program: self.program,
            queries: self.queries.clone(),
            model_name: self.model_name,
            satisfied_at: vec![None; self.queries.len()],
            consistent_only: self.consistent_only,
            executions: 0,
            events: 0,
            candidates: 0,
            count_space: self.count_space,
            barrier_divergence: Vec::new(),
        })
    }

    /// A query first satisfied in the part is satisfied at the part's
    /// execution, counted from the walk's start.
    fn merge(
        &mut self,
        part: Self,
        _: &mut dyn FnMut(usize) -> Option<crate::engine::LimitKind>,
    ) -> Result<(), crate::engine::LimitKind> {
        for (s, p) in self.satisfied_at.iter_mut().zip(part.satisfied_at) {
            if s.is_none() {
                *s = p.map(|n| self.executions + n);
            }
        }
        self.executions += part.executions;
        self.events = self.events.max(part.events);
        self.candidates = self.candidates.saturating_add(part.candidates);
        for d in part.barrier_divergence {
            if !self.barrier_divergence.contains(&d) {
                self.barrier_divergence.push(d);
            }
        }
        Ok(())
    }
}

/// Runs every query of `program`. A program leaving cooperative matrix
/// attributions open (src/ir/attribution.rs) is run once per attribution
/// and the answers are united: "some implementation-dependent
/// invocation(s) ... perform a non-atomic load" and "a single
/// implementation-dependent invocation ... performs a non-atomic store"
/// leave the choice to the implementation, so a query is satisfiable when
/// some attribution satisfies it, and has no solution only when every
/// attribution was built and none does.
pub fn check_program(
    file: &str,
    program: &Program,
    models: &Models,
    limits: Limits,
) -> Result<TestOutcome, CheckError> {
    let start = Instant::now();
    // A query that does not ask for a consistent execution (a count over
    // every candidate) sees the candidates the model rejects too: the
    // latest-own-write filter, which leaves some of those out, is off.
    let limits = if program
        .queries
        .iter()
        .all(|q| requires_consistency(&q.pred))
    {
        limits
    } else {
        limits.with(crate::engine::Reduction::OwnWriteFilter, false)
    };
    let mut out = check_one(file, program, models, limits)?;
    for alt in &program.attributions.others {
        let o = check_one(file, alt, models, limits)?;
        out.events = out.events.max(o.events);
        out.candidates = out.candidates.saturating_add(o.candidates);
        for d in o.barrier_divergence {
            if !out.barrier_divergence.contains(&d) {
                out.barrier_divergence.push(d);
            }
        }
        for (q, a) in out.queries.iter_mut().zip(o.queries) {
            q.executions += a.executions;
            q.time += a.time;
            q.actual = match (q.actual, a.actual) {
                (Answer::Satisfiable, _) | (_, Answer::Satisfiable) => Answer::Satisfiable,
                (Answer::NoSolution, Answer::NoSolution) => Answer::NoSolution,
                _ => Answer::Undecided,
            };
            q.undecided = match q.actual {
                Answer::Undecided => q.undecided.take().or(a.undecided),
                _ => None,
            };
        }
    }
    if !program.attributions.is_empty() {
        out.attributions = Some(super::litmus::AttributionCount {
            explored: program.attributions.built(),
            total: program.attributions.total,
        });
    }
    if !program.attributions.complete() {
        for q in &mut out.queries {
            if q.actual == Answer::NoSolution {
                q.actual = Answer::Undecided;
                q.undecided = Some(format!(
                    "{} of {} cooperative matrix attributions built",
                    program.attributions.built(),
                    program.attributions.total
                ));
            }
        }
    }
    for q in &mut out.queries {
        q.passed = q.actual.matches(q.expected);
    }
    out.time = start.elapsed();
    Ok(out)
}

/// Runs every query of one program (one attribution).
fn check_one(
    file: &str,
    program: &Program,
    models: &Models,
    limits: Limits,
) -> Result<TestOutcome, CheckError> {
    let start = Instant::now();
    super::models::check_supported(program, &models.chains)?;
    super::models::check_supported(program, &models.no_chains)?;
    let mut outcomes: Vec<Option<QueryOutcome>> = vec![None; program.queries.len()];
    let mut events = 0;
    let mut candidates = 0u128;
    let mut counted = false; // count the candidate space once, not per model
    let mut barrier_divergence = Vec::new();
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
        let model_name = &loaded.name;
        let t0 = Instant::now();
        let mut v = Answers {
            program,
            queries: selected.iter().map(|(_, q)| *q).collect(),
            model_name,
            satisfied_at: vec![None; selected.len()],
            consistent_only: selected.iter().all(|(_, q)| requires_consistency(&q.pred)),
            executions: 0,
            events: 0,
            candidates: 0,
            count_space: !counted,
            barrier_divergence: Vec::new(),
        };
        let coverage = explore_split(program, loaded, limits, &mut v, None)?;
        events = events.max(v.events);
        for d in std::mem::take(&mut v.barrier_divergence) {
            if !barrier_divergence.contains(&d) {
                barrier_divergence.push(d);
            }
        }
        if !counted {
            candidates = v.candidates;
            counted = true;
        }
        let elapsed = t0.elapsed();
        for (k, (qi, q)) in selected.iter().enumerate() {
            let actual = match v.satisfied_at[k] {
                Some(_) => Answer::Satisfiable,
                None if coverage.complete() => Answer::NoSolution,
                None => Answer::Undecided,
            };
            outcomes[*qi] = Some(QueryOutcome {
                line: q.line,
                query: q.text.clone(),
                model: model_name.clone(),
                expected: q.expect,
                actual,
                passed: actual.matches(q.expect),
                executions: v.satisfied_at[k].unwrap_or(v.executions),
                time: elapsed,
                undecided: (actual == Answer::Undecided).then(|| {
                    super::suite::undecided_why(
                        coverage.cut_paths,
                        coverage.truncated,
                        coverage.stopped_by,
                    )
                }),
            });
        }
    }
    Ok(TestOutcome {
        file: file.to_string(),
        name: program.name.clone(),
        events,
        candidates,
        queries: outcomes.into_iter().flatten().collect(),
        barrier_divergence,
        time: start.elapsed(),
        warnings: Vec::new(),
        attributions: None,
    })
}
