//! The one exploration driver.
//!
//! Every question vkmm answers about a program — the herd-style outcome list
//! of a litmus test, the answers to `.test` queries, the explanation of one
//! outcome, a comparison of models — is a [`Visitor`] of the same walk: for
//! each combination of thread paths ([`Skeleton`]), the model is prepared
//! once, then every candidate execution of the skeleton is evaluated and
//! handed to the visitor with its evaluation. The driver owns what all of
//! them share:
//!
//! - **one limit accounting**: [`Limits::max_executions`] bounds the model
//!   evaluations, full candidates and the partial ones evaluated for
//!   pruning together; a walk that reaches it stops and its [`Coverage`]
//!   says `truncated`;
//! - **pruning**: when the visitor allows it ([`Visitor::may_prune`]), a
//!   partial reads-from assignment that already fails a check that is
//!   monotone in `rf`/`RFINIT` is abandoned with its whole subtree (every
//!   completion fails the same check, so only inconsistent candidates are
//!   skipped);
//! - **early stops**: a visitor that has its answer breaks, and the walk
//!   ends at once (`stopped_early`).
//!
//! The search engine behind [`explore`] is the seam where another
//! enumeration strategy plugs in; visitors do not see how candidates are
//! produced.

use super::trace::ThreadPaths;
use super::{Candidate, ExecError, Explorer, Limits, Partial, Skeleton};
use crate::cat::{CatError, Env, Evaluation, Model, Prepared};
use crate::ir::Program;
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::ControlFlow;

/// Why a program could not be explored or a visitor could not go on.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Cat(#[from] CatError),
    #[error("line {line}: query counts `#{name}`, but the model `{model}` binds no `{name}`")]
    UnknownCount {
        line: usize,
        name: String,
        model: String,
    },
    /// The model refuses a feature the program uses (the message quotes why).
    #[error("{0}")]
    Unsupported(String),
}

/// How much of the candidate space a walk covered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Candidate executions evaluated.
    pub executions: u64,
    /// Partial candidates (reads-from assignments under way) evaluated to
    /// prune. With `executions`, what the execution limit bounds.
    pub partial_evaluations: u64,
    /// Thread paths cut by the unrolling bound (answers about executions
    /// needing more iterations are not covered when > 0).
    pub cut_paths: usize,
    /// The unrolling bound used.
    pub unroll: usize,
    /// The visitor stopped the walk once it had its answer.
    pub stopped_early: bool,
    /// The walk stopped at a limit before the visitor had its answer:
    /// results cover only the executions seen.
    pub truncated: bool,
    /// Which limit stopped it.
    pub stopped_by: Option<LimitKind>,
}

/// A limit that can stop a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitKind {
    /// `--max-executions`: model evaluations.
    MaxExecutions,
    /// `--timeout`: wall-clock time.
    Timeout,
    /// `--max-paths`: a thread has more paths than the limit (nothing or
    /// only part of the space was explored).
    MaxPaths,
    /// `--max-writes`: more writes to one location (or sequentially
    /// consistent operations) than vkmm enumerates the orders of; the
    /// combinations of paths that have them were skipped.
    MaxWrites,
    /// `--max-memory`: the process held more memory than the bound.
    MaxMemory,
    /// The values reads can return did not settle within 64 rounds of the
    /// value-domain fixpoint (lower `--unroll`).
    ValueDomains,
    /// More than 12 invocations pass one barrier instance with a quorum:
    /// the sets of arrivals that complete it are not enumerated (the
    /// combination of paths is skipped).
    QuorumArrivals,
}

impl LimitKind {
    /// The option that sets (or, for value domains, relieves) the limit.
    pub fn option(self) -> &'static str {
        match self {
            LimitKind::MaxExecutions => "--max-executions",
            LimitKind::Timeout => "--timeout",
            LimitKind::MaxPaths => "--max-paths",
            LimitKind::MaxWrites => "--max-writes",
            LimitKind::MaxMemory => "--max-memory",
            LimitKind::ValueDomains => "--unroll",
            LimitKind::QuorumArrivals => "the quorum limit (12 arrivals)",
        }
    }

    /// What stopped the search, in words (reports say "stopped {this}").
    pub fn describe(self) -> &'static str {
        match self {
            LimitKind::MaxExecutions => "at the execution limit",
            LimitKind::Timeout => "at the time limit (--timeout)",
            LimitKind::MaxPaths => "at the path limit (--max-paths)",
            LimitKind::MaxWrites => {
                "at the order limit (--max-writes: path combinations with more writes to one location were skipped)"
            }
            LimitKind::MaxMemory => "at the memory bound (--max-memory)",
            LimitKind::ValueDomains => "before the values reads return settled (lower --unroll)",
            LimitKind::QuorumArrivals => {
                "at the quorum limit (more than 12 invocations pass a barrier with a quorum; those combinations were skipped)"
            }
        }
    }

    /// The limit's short name (`undecided (execution limit)`).
    pub fn short(self) -> &'static str {
        match self {
            LimitKind::MaxExecutions => "execution limit",
            LimitKind::Timeout => "time limit",
            LimitKind::MaxPaths => "path limit",
            LimitKind::MaxWrites => "order limit",
            LimitKind::MaxMemory => "memory bound",
            LimitKind::ValueDomains => "value domains",
            LimitKind::QuorumArrivals => "quorum limit",
        }
    }
}

/// "at the execution limit", or the words of whichever limit stopped a walk.
pub fn stopped_at(kind: Option<LimitKind>) -> &'static str {
    kind.map_or("at a limit", LimitKind::describe)
}

/// How far a walk has got, for progress displays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Model evaluations so far (candidates and partial ones).
    pub evaluations: u64,
    /// Candidate executions evaluated.
    pub executions: u64,
    /// What the visitor has found (e.g. distinct final states), if it says.
    pub found: Option<u64>,
}

/// Called now and then during a walk (every [`PROGRESS_EVERY`] evaluations).
pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

/// How many evaluations pass between two progress calls.
pub const PROGRESS_EVERY: u64 = 4096;

impl Coverage {
    /// Whether the walk saw every candidate it had to (it finished, or the
    /// visitor stopped it with its answer).
    pub fn complete(&self) -> bool {
        !self.truncated || self.stopped_early
    }

    /// Adds another walk's counts (a test explored under several models).
    pub fn add(&mut self, other: &Coverage) {
        self.executions += other.executions;
        self.partial_evaluations += other.partial_evaluations;
        self.cut_paths = self.cut_paths.max(other.cut_paths);
        self.unroll = other.unroll;
        self.stopped_early |= other.stopped_early;
        self.truncated |= other.truncated;
        self.stopped_by = self.stopped_by.or(other.stopped_by);
    }
}

/// What a question does with the candidate executions of a program.
pub trait Visitor {
    /// Whether inconsistent subtrees may be skipped before the next
    /// skeleton's search (asked once per skeleton). A visitor that looks
    /// only at consistent executions says yes; one that explains
    /// rejections, or whose answer counts inconsistent executions, says no.
    fn may_prune(&self) -> bool {
        true
    }

    /// The combinations of thread paths to walk, as blocks (per thread, the
    /// indices of the paths to combine; every combination of a block is
    /// walked). `None`, the default: every combination.
    fn blocks(&mut self, _threads: &[ThreadPaths]) -> Option<Vec<Vec<Vec<usize>>>> {
        None
    }

    /// Whether the skeleton's candidates matter to the visitor at all (asked
    /// once per skeleton, first): a visitor that says no skips them.
    fn wants(&mut self, _skeleton: &Skeleton) -> bool {
        true
    }

    /// Called once per skeleton, before its candidates.
    fn skeleton(&mut self, _skeleton: &Skeleton) {}

    /// Called instead of the others for a combination of paths that is not
    /// an execution because a path passes a control barrier with a quorum
    /// too few invocations reach ([`Skeleton::stalled_barriers`]): the
    /// invocations there wait forever. Its candidates are not walked.
    fn stalled(&mut self, _skeleton: &Skeleton) {}

    /// Whether [`Visitor::may_precede`] constrains the current skeleton's
    /// coherence orders (asked once per skeleton the visitor wants).
    fn constrains_orders(&self) -> bool {
        false
    }

    /// Whether write `a` may be coherence-before write `b` (same location)
    /// in an order the visitor can use; orders putting `a` first are never
    /// listed. The visitor must refuse those orders in
    /// [`Visitor::wants_orders`] anyway (this only saves listing them).
    fn may_precede(&self, _a: usize, _b: usize) -> bool {
        true
    }

    /// Which candidates under one combination of coherence orders (`co`,
    /// before any reads-from choice) can matter: none (skipped
    /// unevaluated), all, or those reading from fewer writes.
    fn wants_orders(
        &mut self,
        _skeleton: &Skeleton,
        _co: &crate::relation::Relation,
    ) -> super::OrderChoice {
        super::OrderChoice::All
    }

    /// Whether a candidate is worth a model evaluation: a visitor that
    /// already knows from the candidate's choices that it cannot use it
    /// says no, and the candidate is skipped unevaluated (not counted).
    fn wants_candidate(&mut self, _skeleton: &Skeleton, _candidate: &Candidate) -> bool {
        true
    }

    /// Whether the rest of the current skeleton's candidates cannot matter
    /// to the visitor (asked between candidates and at the inner nodes of
    /// the reads-from search): yes ends the skeleton's walk, unevaluated
    /// (the walk goes on with the next skeleton). The outcome listing of
    /// [`crate::analysis::Property::States`] says yes once the state every
    /// candidate of the skeleton has is recorded.
    fn settled(&self) -> bool {
        false
    }

    /// What the visitor has found so far, for progress displays (e.g. the
    /// number of distinct final states).
    fn found(&self) -> Option<u64> {
        None
    }

    /// What the visitor reads of an evaluation, asked once before the walk.
    /// `None`, the default: anything (every statement of the model is
    /// evaluated for every candidate). `Some(names)`: only whether the
    /// candidate is consistent and, for a consistent one, the flags and the
    /// model's bindings of `names`; the driver may then evaluate lazily
    /// ([`crate::cat::Prepared::evaluate_lazily`]): the checks cheapest
    /// first, stopping at the first that fails, so the evaluation of an
    /// inconsistent candidate is partial (later checks read as not passed,
    /// flags as not raised, bindings as absent).
    fn reads(&self) -> Option<Vec<String>> {
        None
    }

    /// Called with every candidate execution and its evaluation (consistent
    /// or not); breaking ends the walk (the answer is known).
    fn visit(
        &mut self,
        skeleton: &Skeleton,
        candidate: &Candidate,
        evaluation: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError>;
}

/// A model prepared for one skeleton, with the checks that can prune a
/// partial reads-from assignment.
#[derive(Clone)]
struct Staged {
    prepared: Prepared,
    /// The stages of a lazy evaluation, when the visitor allows one.
    lazy: Option<crate::cat::LazyStages>,
    /// What a partial environment of each kind ([`Partial`], in its order)
    /// can be checked with.
    pruning: [Pruning; 2],
}

/// The checks that can reject one kind of partial environment.
#[derive(Clone)]
struct Pruning {
    /// The checks monotone in what the environment leaves out.
    monotone: Vec<bool>,
    /// The statements those checks need (a partial evaluation runs only
    /// them: the other checks cannot prune).
    plan: Vec<usize>,
}

/// How many models prepared for recent skeletons are kept for reuse.
const RECENT_STAGED: usize = 4;

/// The polarity analyses of a model, per kind of partial environment
/// (they depend only on the model).
type MonotoneCache = Option<[Vec<bool>; 2]>;

impl Staged {
    /// Prepares `model` for a skeleton. The polarity analysis depends only on
    /// the model, so it runs once and is kept in `monotone_cache`.
    fn new(
        model: &Model,
        static_env: &Env,
        specialise: bool,
        reads: Option<&[&str]>,
        monotone_cache: &mut MonotoneCache,
    ) -> Result<Staged, CatError> {
        let prepared = if specialise {
            model.prepare(static_env, super::names::DYNAMIC_NAMES)?
        } else {
            model.prepare_unspecialised(static_env, super::names::DYNAMIC_NAMES)?
        };
        let flags = monotone_cache.get_or_insert_with(|| {
            let rf = prepared.monotone_checks(super::names::GROWING_NAMES);
            let mut growing = super::names::GROWING_NAMES.to_vec();
            growing.push(super::names::ILO);
            [rf, prepared.monotone_checks(&growing)]
        });
        let pruning = flags.clone().map(|monotone| Pruning {
            plan: prepared.plan_for(&monotone),
            monotone,
        });
        let lazy = reads.and_then(|names| prepared.lazy_stages(names));
        Ok(Staged {
            prepared,
            lazy,
            pruning,
        })
    }

    /// The model's evaluation of a candidate (lazy when the visitor allows).
    fn evaluate(&self, env: &Env) -> Result<Evaluation, CatError> {
        match &self.lazy {
            Some(stages) => self.prepared.evaluate_lazily(env, stages),
            None => self.prepared.evaluate(env),
        }
    }

    fn pruning(&self, kind: Partial) -> &Pruning {
        match kind {
            Partial::ReadsFrom => &self.pruning[0],
            Partial::InterlockOrder => &self.pruning[1],
        }
    }

    /// Whether some check can reject partial assignments of this kind.
    fn can_prune(&self, kind: Partial) -> bool {
        self.pruning(kind).monotone.iter().any(|&m| m)
    }

    /// False when a partial assignment already violates a check monotone in
    /// what the assignment leaves out (every completion would violate it
    /// too). Errors count as "keep": the full evaluation will report them.
    fn partial_ok(&self, partial: &Env, kind: Partial) -> bool {
        let p = self.pruning(kind);
        match self.prepared.evaluate_only(partial, &p.plan) {
            Ok(eval) => !eval
                .checks
                .iter()
                .zip(&p.monotone)
                .any(|(c, &m)| m && !c.passed),
            Err(_) => true,
        }
    }
}

/// Walks the candidate executions of `program` under `model`, handing each
/// with its evaluation to `visitor`, within `limits`.
pub fn explore(
    program: &Program,
    model: &Model,
    limits: Limits,
    visitor: &mut dyn Visitor,
) -> Result<Coverage, CheckError> {
    explore_with_progress(program, model, limits, visitor, None)
}

/// [`explore`], calling `progress` now and then.
pub fn explore_with_progress(
    program: &Program,
    model: &Model,
    limits: Limits,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    let start = web_time::Instant::now();
    let limits = limits.for_model(model);
    let explorer = match Explorer::new(program, limits) {
        Ok(e) => e,
        // A state-space limit: nothing was explored, the answer is undecided.
        Err(ExecError {
            limit: Some(kind), ..
        }) => {
            return Ok(Coverage {
                unroll: limits.unroll,
                truncated: true,
                stopped_by: Some(kind),
                ..Coverage::default()
            });
        }
        Err(e) => return Err(e.into()),
    };
    let mut coverage = Coverage {
        cut_paths: explorer.cut(),
        unroll: limits.unroll,
        ..Coverage::default()
    };
    let evaluations = Cell::new(0u64);
    let stopped_by: Cell<Option<LimitKind>> = Cell::new(None);
    // Reaching a limit marks the walk truncated; the next candidate breaks
    // the search. The clock is read every 64 evaluations.
    let over_budget = || {
        if stopped_by.get().is_some() {
            return true;
        }
        let n = evaluations.get();
        let hit = if n >= limits.max_executions {
            Some(LimitKind::MaxExecutions)
        } else if n.is_multiple_of(64) && limits.timeout.is_some_and(|t| start.elapsed() >= t) {
            Some(LimitKind::Timeout)
        } else if crate::memory::over(limits.max_memory) {
            Some(LimitKind::MaxMemory)
        } else {
            None
        };
        stopped_by.set(hit);
        hit.is_some()
    };
    // What the visitor last said it found (partial evaluations cannot ask it).
    let last_found: Cell<Option<u64>> = Cell::new(None);
    let tick = |executions: u64, found: Option<u64>| {
        let n = evaluations.get() + 1;
        evaluations.set(n);
        if found.is_some() {
            last_found.set(found);
        }
        if let Some(p) = progress
            && n.is_multiple_of(PROGRESS_EVERY)
        {
            p(Progress {
                evaluations: n,
                executions,
                found: last_found.get(),
            });
        }
    };
    let executions_seen = Cell::new(0u64);
    let mut stopped = false;
    let mut failure: Option<CheckError> = None;
    let mut monotone_cache = None;
    let recent_staged: RefCell<Vec<(Env, Staged)>> = RefCell::new(Vec::new());
    let blocks = visitor.blocks(&explorer.threads);
    let reads = visitor.reads().filter(|_| limits.lazy_checks);
    let reads: Option<Vec<&str>> = reads
        .as_ref()
        .map(|r| r.iter().map(String::as_str).collect());
    let mut per_skeleton = |mut sk: Skeleton| -> Result<ControlFlow<()>, CheckError> {
        if over_budget() {
            return Ok(ControlFlow::Break(()));
        }
        if !sk.stalled_barriers().is_empty() {
            visitor.stalled(&sk);
            return Ok(ControlFlow::Continue(()));
        }
        if !visitor.wants(&sk) {
            return Ok(ControlFlow::Continue(()));
        }
        // Orders only for the skeletons the visitor wants; too many to
        // list: skipped, and the walk says so.
        let listed = if visitor.constrains_orders() {
            let v = &*visitor;
            sk.list_orders(Some(&|a, b| v.may_precede(a, b)))
        } else {
            sk.list_orders(None)
        };
        match listed {
            Ok(()) => {}
            Err(ExecError {
                limit: Some(kind), ..
            }) => {
                explorer.skip(kind);
                return Ok(ControlFlow::Continue(()));
            }
            Err(e) => return Err(e.into()),
        }
        visitor.skeleton(&sk);
        // The model is prepared for the skeleton when a candidate (or a
        // partial one) first needs it: a visitor may refuse them all.
        let staged: OnceCell<Staged> = OnceCell::new();
        let cache = RefCell::new(&mut monotone_cache);
        let prepare_error: Cell<Option<CatError>> = Cell::new(None);
        let stage = || -> Option<&Staged> {
            if staged.get().is_none() {
                // Combinations of paths that differ only in the values their
                // reads fixed have the same static relations: the model
                // prepared for one serves the others.
                let mut recent = recent_staged.borrow_mut();
                let hit = recent
                    .iter()
                    .position(|(env, _): &(Env, Staged)| env.same_bindings(&sk.static_env));
                if let Some(i) = hit {
                    let entry = recent.remove(i);
                    let _ = staged.set(entry.1.clone());
                    recent.push(entry);
                } else {
                    match Staged::new(
                        model,
                        &sk.static_env,
                        limits.specialise,
                        reads.as_deref(),
                        &mut cache.borrow_mut(),
                    ) {
                        Ok(s) => {
                            if recent.len() == RECENT_STAGED {
                                recent.remove(0);
                            }
                            recent.push((sk.static_env.clone(), s.clone()));
                            let _ = staged.set(s);
                        }
                        Err(e) => {
                            prepare_error.set(Some(e));
                            return None;
                        }
                    }
                }
            }
            staged.get()
        };
        let may_prune = visitor.may_prune();
        // The order filter, the pruning and the candidate visit all talk to
        // the visitor.
        let shared = RefCell::new(&mut *visitor);
        let mut prune = |env: &Env, kind: Partial| {
            // Over the budget: stop evaluating, keep the subtree.
            if over_budget() {
                return true;
            }
            // Nothing under this node can matter to the visitor.
            if shared.borrow().settled() {
                return false;
            }
            let Some(staged) = stage() else {
                return true;
            };
            if !staged.can_prune(kind) {
                return true;
            }
            tick(executions_seen.get(), None);
            staged.partial_ok(env, kind)
        };
        let mut visit = |cand: &Candidate| {
            if over_budget() {
                return ControlFlow::Break(());
            }
            let mut visitor = shared.borrow_mut();
            // The rest of the skeleton cannot matter: end its walk (not the
            // whole search: `stopped` stays false).
            if visitor.settled() {
                return ControlFlow::Break(());
            }
            if !visitor.wants_candidate(&sk, cand) {
                return ControlFlow::Continue(());
            }
            let Some(staged) = stage() else {
                return ControlFlow::Break(());
            };
            tick(executions_seen.get() + 1, visitor.found());
            executions_seen.set(executions_seen.get() + 1);
            let flow = staged
                .evaluate(&cand.env)
                .map_err(CheckError::from)
                .and_then(|eval| visitor.visit(&sk, cand, &eval));
            match flow {
                Ok(ControlFlow::Continue(())) => ControlFlow::Continue(()),
                Ok(ControlFlow::Break(())) => {
                    stopped = true;
                    ControlFlow::Break(())
                }
                Err(e) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        let mut orders = |co: &crate::relation::Relation| shared.borrow_mut().wants_orders(&sk, co);
        sk.search_orders(
            if may_prune { Some(&mut prune) } else { None },
            &mut orders,
            &mut visit,
        );
        if let Some(e) = prepare_error.take() {
            return Err(e.into());
        }
        if let Some(e) = failure.take() {
            return Err(e);
        }
        Ok(if stopped || stopped_by.get().is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    };
    match blocks {
        Some(blocks) => explorer.for_each_in(&blocks, &mut per_skeleton)?,
        None => explorer.for_each(&mut per_skeleton)?,
    }
    // Combinations skipped at a limit (too many writes to order) leave the
    // walk incomplete unless the visitor had its answer anyway.
    if stopped_by.get().is_none() {
        stopped_by.set(explorer.skipped());
    }
    let executions = executions_seen.get();
    coverage.executions = executions;
    coverage.partial_evaluations = evaluations.get() - executions;
    coverage.stopped_early = stopped;
    coverage.truncated = stopped_by.get().is_some() && !stopped;
    coverage.stopped_by = stopped_by.get().filter(|_| !stopped);
    Ok(coverage)
}
