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
//! - **one limit accounting**: [`Bounds::max_executions`](super::Bounds::max_executions) bounds the model
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
//! **Parallel walks** ([`explore_split`]). A walk is cut
//! into consecutive parts (skeletons in walk order; a skeleton with many
//! candidates into ranges of [`super::Slices`]: its coherence-order
//! combinations, SC orders and blocks of the choices of its first
//! branching read), each explored by a fork of the visitor ([`Split`]),
//! and the parts are merged back in walk order, which replays the
//! sequential walk: the same answer, counts and orders. The limits are
//! budgets the parts share (atomics); a decided part stops the parts after
//! it through a shared flag (the lowest index that broke), and the parts
//! before it finish, as the sequential walk would have seen them.
//!
//! Where rayon lives: in the library, behind the `parallel` feature (which
//! the `cli` feature enables; off for wasm32-unknown-unknown, which has no
//! threads, where [`explore_split`] is the sequential walk). The split and
//! the merge need the driver's internals (the budget, the pruning, the
//! prepared models), so they cannot live in the CLI; and running the parts
//! on the *current* rayon pool lets a caller size it (`vkmm check -j N`
//! builds the global pool of N threads) or nest it in its own pool without
//! oversubscribing (rayon's nested parallelism shares the pool's threads).

use super::candidates::{Candidate, OrderChoice, Partial, Prune, Slices};
use super::explorer::Explorer;
use super::limits::{ExecError, LimitKind, Limits};
use super::reduce::barrier_prefixes::{has_barrier, not_started, workgroups_alone};
use super::skeleton::Skeleton;
use super::trace::{Listing, ThreadPaths};
use crate::cat::{CatError, Env, Evaluation, Model, Prepared};
use crate::ir::Program;
use crate::model::LoadedModel;
use crate::model::names;
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

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
    /// Whether the walk over the executions in which threads stop where
    /// the unrolling bound cut them ran ([`Visitor::prefixes`]). None of
    /// the counts above include it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prefix_walk: bool,
    /// Candidate executions that walk evaluated.
    #[serde(skip_serializing_if = "is_zero")]
    pub prefix_executions: u64,
    /// The limit that stopped that walk before it finished, if any (the
    /// walk over complete paths had finished: its answers stand).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_stopped_by: Option<LimitKind>,
    /// Combinations of that walk skipped because every thread stopped in
    /// them spins forever at an await and extends to a complete path
    /// whose execution the complete walk judged
    /// ([`super::Explorer::set_spin_extension`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub prefix_extended: u64,
    /// The threads the walk permuted by symmetry reduction (in classes of
    /// interchangeable threads, [`crate::engine::symmetry`]): each
    /// candidate evaluated stood for its images under their permutations,
    /// which the visitor counted. 0: no reduction.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub symmetric_threads: usize,
    /// The order of the group of automorphisms renaming locations the walk
    /// was reduced by ([`crate::engine::rotation`]): each candidate
    /// evaluated stood for its images, which the visitor recorded. 0: no
    /// such reduction.
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub rotation_order: usize,
}

fn is_zero_usize(n: &usize) -> bool {
    *n == 0
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
        self.prefix_walk |= other.prefix_walk;
        self.prefix_executions += other.prefix_executions;
        self.prefix_extended += other.prefix_extended;
        self.prefix_stopped_by = self.prefix_stopped_by.or(other.prefix_stopped_by);
        self.symmetric_threads = self.symmetric_threads.max(other.symmetric_threads);
        self.rotation_order = self.rotation_order.max(other.rotation_order);
    }
}

/// What a question needs of the search, declared once before the walk: what
/// it reads of an evaluation, and which reductions it allows that change
/// what it is handed (a reduction that changes nothing it sees needs no
/// consent). [`Needs::default`]: every candidate, evaluated in full, one by
/// one, every execution walked, complete executions first, every order.
#[derive(Clone, Debug, Default)]
pub struct Needs {
    /// What the visitor reads of an evaluation. `None`: anything (every
    /// statement of the model is evaluated for every candidate).
    /// `Some(names)`: only whether the candidate is consistent and, for a
    /// consistent one, the flags and the model's bindings of `names`; the
    /// driver may then evaluate lazily
    /// ([`crate::cat::Prepared::evaluate_lazily`]): the checks cheapest
    /// first, stopping at the first that fails, so the evaluation of an
    /// inconsistent candidate is partial (later checks read as not passed,
    /// flags as not raised, bindings as absent).
    pub reads: Option<Vec<String>>,
    /// Whether the visitor takes factored candidates
    /// ([`Visitor::visit_factored`]): its answers read of a candidate only
    /// its consistency, its flags, bindings that do not read the
    /// reads-from edges into observation reads (location order, data
    /// races, happens-before: see `location-local-reads` in MODELS.md), and
    /// the values its reads read (its `rf_source`, `values`), never its
    /// environment's `rf`. No: every candidate is evaluated on its own
    /// ([`super::Reduction::ReadFactoring`] has no effect).
    pub factored: bool,
    /// Whether the walk may be reduced by the symmetry of interchangeable
    /// threads ([`crate::engine::symmetry`], with
    /// [`super::Reduction::Symmetry`]), and which threads it must keep as
    /// they are: `Some(fixed)` (per thread, true: not permuted) from a
    /// visitor whose answers every permutation of the other interchangeable
    /// threads keeps, that counts each candidate
    /// [`Skeleton::multiplicity`] times and maps what it records of a
    /// thread to the images ([`crate::engine::symmetry::Symmetry::images`]).
    /// `None`: every execution is walked.
    pub symmetry: Option<Vec<bool>>,
    /// Whether the walk may be reduced by an automorphism that renames
    /// locations too ([`crate::engine::rotation`], with
    /// [`super::Reduction::Symmetry`], when `symmetry` finds no class):
    /// `Some(shown)` from a visitor whose answers are functions of the
    /// final states over `shown` (an automorphism is used only when it
    /// maps them onto themselves), that records each consistent candidate
    /// with its images under the powers [`Skeleton::rotation`] names
    /// (registers and locations renamed, the condition evaluated on each
    /// image) and maps racing pairs likewise.
    pub renaming: Option<super::reduce::rotation::Shown>,
    /// Whether, when the unrolling bound cut paths, the walk over
    /// executions stopping at the bound should run before the walk over
    /// complete paths (`prefixes_first`; [`Visitor::prefixes`] is then
    /// asked before the first walk). A visitor deciding races says yes; no
    /// keeps the complete executions first.
    pub prefixes_first: bool,
    /// Whether [`Visitor::may_precede`] constrains the coherence orders of
    /// the skeletons the visitor wants.
    pub constrains_orders: bool,
    /// Whether the visitor wants only combinations of paths whose control
    /// barriers agree: no barrier passed while a member of its
    /// execution-scope instance does not arrive, no invocation waiting at
    /// a barrier that opens for it (`analysis::barriers::agree`, which its
    /// [`Visitor::wants`] applies anyway). With
    /// [`super::Reduction::WitnessPruning`] the walk then drops a partial
    /// combination that already breaks it.
    pub barriers_agree: bool,
    /// Whether the visitor counts each candidate
    /// [`Skeleton::multiplicity`] times and reads of it nothing that
    /// depends on the coherence order among RMWs whose results nothing
    /// reads (their read values, that order itself): with
    /// [`super::Reduction::CommutingRmws`] a location whose every access
    /// is such an RMW then gets one order (`choices::commuting_orders`).
    pub commuting_rmws: bool,
}

/// What a question does with the candidate executions of a program: the
/// callbacks of the walk. What it needs of the search is declared once,
/// before the walk ([`Visitor::needs`]).
pub trait Visitor {
    /// What the visitor needs of the search (asked once, before the walk).
    /// The default: everything, evaluated in full, no reduction that a
    /// visitor must opt into.
    fn needs(&self) -> Needs {
        Needs::default()
    }

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

    /// Whether to walk, after the executions of complete paths, the
    /// executions in which each thread runs a complete path or stops where
    /// the unrolling bound cut it, some thread stopping
    /// ([`Limits::prefix_races`], [`super::trace::Ending::Cut`] in the
    /// skeleton's `endings`; also a thread spinning forever in an await no
    /// value lets it leave). Asked once, only when that limit is on and
    /// some such prefix exists: after the first walk unless it ended at
    /// the visitor's break (a walk stopped at a limit included: the prefix
    /// walk then has what the budget left), or before it when the bound
    /// cut paths and the visitor wants the prefixes first
    /// ([`Needs::prefixes_first`]; [`Visitor::prefixes_end`] follows).
    /// Yes: every later call (until `prefixes_end`) is about such
    /// executions (they have no final state). No, the default: the walk
    /// ends.
    fn prefixes(&mut self) -> bool {
        false
    }

    /// Called after a walk over executions stopping at the bound that ran
    /// before the walk over complete paths (when the bound cut paths: see
    /// [`enumerate`]): every later call is about complete
    /// executions again.
    fn prefixes_end(&mut self) {}

    /// Called instead of the others for a combination of paths that is not
    /// an execution because a path passes a control barrier with a quorum
    /// too few invocations reach ([`Skeleton::stalled_barriers`]): the
    /// invocations there wait forever. Its candidates are not walked.
    fn stalled(&mut self, _skeleton: &Skeleton) {}

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
    ) -> OrderChoice {
        OrderChoice::All
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

    /// Called instead of [`Visitor::visit`] with a factored candidate
    /// ([`super::Factors`]) and the evaluation of its first combination,
    /// which is every combination's as far as a factored visitor reads it.
    /// The default visits each combination ([`super::Factors::for_each`])
    /// with that evaluation. `over`: whether the walk's budget is spent
    /// (time, memory, or another part decided); the combinations stop
    /// when it says yes, and the walk is then undecided (the budget holds
    /// the limit), so a visitor ending early that way returns `Continue`,
    /// never `Break` (which claims an answer).
    fn visit_factored(
        &mut self,
        skeleton: &Skeleton,
        candidate: &Candidate,
        evaluation: &Evaluation,
        over: &dyn Fn() -> bool,
    ) -> Result<ControlFlow<()>, CheckError> {
        visit_combinations(self, skeleton, candidate, evaluation, over)
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

/// [`Visitor::visit`] of each combination a factored candidate stands for
/// ([`super::Factors::for_each`]) that the visitor wants
/// ([`Visitor::wants_candidate`]: the outcome-directed listing skips a
/// combination whose state it recorded already), with the evaluation of
/// its first (a candidate that is not factored: visited as it is), until
/// one breaks or fails.
pub fn visit_combinations<V: Visitor + ?Sized>(
    visitor: &mut V,
    skeleton: &Skeleton,
    candidate: &Candidate,
    evaluation: &Evaluation,
    over: &dyn Fn() -> bool,
) -> Result<ControlFlow<()>, CheckError> {
    let Some(factors) = candidate.factors.as_ref() else {
        return visitor.visit(skeleton, candidate, evaluation);
    };
    let mut failure = None;
    // Whether the budget ended the combinations (the walk is then
    // undecided: no answer is claimed).
    let spent = Cell::new(false);
    let budget = || {
        spent.set(spent.get() || over());
        spent.get()
    };
    let flow = factors.for_each(skeleton, candidate, &budget, &mut |c| {
        if !visitor.wants_candidate(skeleton, c) {
            return ControlFlow::Continue(());
        }
        match visitor.visit(skeleton, c, evaluation) {
            Ok(f) => f,
            Err(e) => {
                failure = Some(e);
                ControlFlow::Break(())
            }
        }
    });
    match failure {
        Some(e) => Err(e),
        None if spent.get() => Ok(ControlFlow::Continue(())),
        None => Ok(flow),
    }
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

/// How many models prepared for recent skeletons are kept for reuse (per
/// thread of the walk).
const RECENT_STAGED: usize = 16;

/// The bytes of sets and relations the models prepared for recent
/// skeletons hold together at most (per thread of the walk), their static
/// environments included: over a few thousand events one preparation
/// holds tens of megabytes (a model's static bindings), so the count
/// alone would let the kept ones take a gigabyte. The most recent is kept
/// whatever its size.
const RECENT_BYTES: usize = 96 << 20;

/// The models prepared for recent skeletons, most recent last (shared by
/// the parts of a parallel walk: preparing is per skeleton, and parts of
/// neighbouring skeletons often share one).
///
/// Keyed by [`Skeleton::shape`]: a lookup compares numbers, and only a
/// hit compares environments (a miss over many entries costs nothing).
/// Each entry also records the bytes it holds ([`RECENT_BYTES`]).
type Recent = std::sync::Mutex<Vec<(u64, Env, Staged, usize)>>;

/// The polarity analyses of a model, per kind of partial environment
/// (they depend only on the model: computed once per walk, shared by its
/// parts).
type MonotoneCache = OnceLock<[Vec<bool>; 2]>;

/// The last model evaluation of one walk (or one part of a parallel walk:
/// never shared between threads), which the next evaluation starts from
/// ([`Reduction::Incremental`](super::Reduction::Incremental)).
type Last = RefCell<Option<Evaluation>>;

impl Staged {
    /// Prepares `model` for a skeleton. The polarity analysis depends only on
    /// the model, so it runs once and is kept in `monotone_cache`.
    fn new(
        model: &Model,
        static_env: &Env,
        specialise: bool,
        reads: Option<&[&str]>,
        monotone_cache: &MonotoneCache,
    ) -> Result<Staged, CatError> {
        let prepared = if specialise {
            model.prepare(static_env, names::DYNAMIC_NAMES)?
        } else {
            model.prepare_unspecialised(static_env, names::DYNAMIC_NAMES)?
        };
        let flags = monotone_cache.get_or_init(|| {
            let rf = prepared.monotone_checks(names::GROWING_NAMES);
            let mut growing = names::GROWING_NAMES.to_vec();
            growing.push(names::ILO);
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

    /// The model's evaluation of a candidate (lazy when the visitor
    /// allows), handed to `f`. With `last` (incremental evaluation), from
    /// the walk's last evaluation, which this one then replaces (an error
    /// clears it: the next evaluation starts from scratch).
    fn evaluated<R>(
        &self,
        env: &Env,
        last: Option<&Last>,
        f: impl FnOnce(&Evaluation) -> R,
    ) -> Result<R, CatError> {
        let Some(last) = last else {
            let eval = match &self.lazy {
                Some(stages) => self.prepared.evaluate_lazily(env, stages),
                None => self.prepared.evaluate(env),
            }?;
            return Ok(f(&eval));
        };
        let mut last = last.borrow_mut();
        let prev = last.take();
        let eval = match &self.lazy {
            Some(stages) => self
                .prepared
                .evaluate_lazily_from(env, stages, prev.as_ref()),
            None => self.prepared.evaluate_from(env, prev.as_ref()),
        }?;
        Ok(f(last.insert(eval)))
    }

    fn pruning(&self, kind: Partial) -> &Pruning {
        match kind {
            Partial::ReadsFrom | Partial::Location => &self.pruning[0],
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
        // A partial evaluation starts from scratch, not from the walk's
        // last evaluation: a partial environment differs from the
        // candidate before it in many `rf` edges, and the full evaluation
        // after it would then start from a plan that ran few statements.
        self.prepared
            .evaluate_only(partial, &p.plan)
            .map_or(true, |e| {
                !e.checks
                    .iter()
                    .zip(&p.monotone)
                    .any(|(c, &m)| m && !c.passed)
            })
    }
}

/// The limits of one walk as budgets its parts share: the model
/// evaluations counted (one atomic counter, so that parts explored in
/// parallel spend one `max_executions`), the clock, the memory bound, and
/// the limit that stopped the walk once one did.
struct Budget<'a> {
    start: web_time::Instant,
    limits: Limits,
    evaluations: AtomicU64,
    executions: AtomicU64,
    /// The limit that stopped the walk: 0 none, else 1 + its index in
    /// [`LIMIT_KINDS`].
    stopped_by: AtomicU8,
    /// What the visitor last said it found (`u64::MAX`: nothing yet).
    last_found: AtomicU64,
    /// Calls of [`Budget::over`]: the clock is read every
    /// [`POLLS_PER_CLOCK`] of them too, so that a walk skipping
    /// candidates or skeletons unevaluated (an outcome-directed walk)
    /// still stops at its time limit.
    polls: AtomicU64,
    progress: Option<ProgressFn<'a>>,
    /// A share of work the walk's evaluations spend from, in the bytes
    /// they allocate ([`crate::engine::trace::Work`]), and this thread's
    /// bytes allocated when it was last charged: the walks over barrier
    /// prefixes, which run on one thread, so that a round whose
    /// evaluations are costly gives way to the walk over the whole
    /// program as a costly listing does.
    work: Option<Arc<crate::engine::trace::Work>>,
    work_charged: AtomicU64,
}

/// How many [`Budget::over`] calls pass between two readings of the clock.
const POLLS_PER_CLOCK: u64 = 256;

/// The limits a walk's budget can stop at, in the order `stopped_by` codes them.
const LIMIT_KINDS: [LimitKind; 7] = [
    LimitKind::MaxExecutions,
    LimitKind::Timeout,
    LimitKind::MaxPaths,
    LimitKind::MaxWrites,
    LimitKind::MaxMemory,
    LimitKind::ValueDomains,
    LimitKind::QuorumArrivals,
];

impl<'a> Budget<'a> {
    fn new(limits: Limits, progress: Option<ProgressFn<'a>>) -> Budget<'a> {
        Budget {
            start: web_time::Instant::now(),
            limits,
            evaluations: AtomicU64::new(0),
            executions: AtomicU64::new(0),
            stopped_by: AtomicU8::new(0),
            last_found: AtomicU64::new(u64::MAX),
            polls: AtomicU64::new(0),
            progress,
            work: None,
            work_charged: AtomicU64::new(0),
        }
    }

    /// This budget, its evaluations also charged to `work` by the bytes
    /// they allocate on the calling thread ([`Budget::charge_work`]).
    fn with_work(self, work: Arc<crate::engine::trace::Work>) -> Budget<'a> {
        Budget {
            work: Some(work),
            ..self
        }
    }

    /// Starts counting the bytes the calling thread allocates from now
    /// (what it allocated before was charged by whatever allocated it).
    fn start_work(&self) {
        self.work_charged
            .store(crate::memory::allocated_here(), Ordering::Relaxed);
    }

    /// Charges the bytes the calling thread allocated since the last
    /// charge to the share of work, if the budget has one; once the share
    /// is spent the walk stops at [`LimitKind::MaxExecutions`] (the share
    /// is sized from `--max-executions`).
    fn charge_work(&self) {
        self.charge_allocated(crate::memory::allocated_here());
    }

    /// [`Budget::charge_work`] with the calling thread's bytes allocated
    /// read as `now`.
    fn charge_allocated(&self, now: u64) {
        if let Some(work) = &self.work {
            let before = self.work_charged.swap(now, Ordering::Relaxed);
            if !work.spend_bytes(now.saturating_sub(before)) {
                self.stop(LimitKind::MaxExecutions);
            }
        }
    }

    fn stopped_by(&self) -> Option<LimitKind> {
        match self.stopped_by.load(Ordering::Relaxed) {
            0 => None,
            k => Some(LIMIT_KINDS[k as usize - 1]),
        }
    }

    /// Records the limit that stopped the walk (the first one wins).
    fn stop(&self, kind: LimitKind) {
        let code = LIMIT_KINDS.iter().position(|&k| k == kind).unwrap_or(0) as u8 + 1;
        let _ = self
            .stopped_by
            .compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether a limit is reached: the walk then stops (the next candidate
    /// breaks the search) and is truncated. The clock is read every 64
    /// evaluations ([`Budget::tick`]) and every [`POLLS_PER_CLOCK`] calls.
    fn over(&self) -> bool {
        self.over_with(true)
    }

    /// [`Budget::over`] without the evaluation count: the time and memory
    /// bounds only (and a limit already reached). The combinations a
    /// factored candidate stands for ([`super::Factors::for_each`]) ask
    /// this: they are not model evaluations, and the candidate that
    /// reached `max_executions` is still recorded whole.
    fn over_bounds(&self) -> bool {
        self.over_with(false)
    }

    fn over_with(&self, evaluations: bool) -> bool {
        if self.stopped_by().is_some() {
            return true;
        }
        let polls = self.polls.fetch_add(1, Ordering::Relaxed) + 1;
        let hit = if evaluations
            && self.evaluations.load(Ordering::Relaxed) >= self.limits.bounds.max_executions
        {
            Some(LimitKind::MaxExecutions)
        } else if polls.is_multiple_of(POLLS_PER_CLOCK) && self.limits.bounds.expired(self.start) {
            Some(LimitKind::Timeout)
        } else if crate::memory::over(self.limits.bounds.max_memory) {
            Some(LimitKind::MaxMemory)
        } else {
            None
        };
        if let Some(kind) = hit {
            self.stop(kind);
        }
        hit.is_some()
    }

    /// What stops merging a part into the visitor ([`Split::merge`]): the
    /// time spent, the memory held past the bound, or `bytes` more that
    /// would not fit under it. Read at every call (a merge asks rarely:
    /// before it copies, then every many rows).
    #[cfg(feature = "parallel")]
    fn merge_stop(&self, bytes: usize) -> Option<LimitKind> {
        let b = &self.limits.bounds;
        if b.expired(self.start) {
            Some(LimitKind::Timeout)
        } else if crate::memory::over(b.max_memory)
            || !crate::relation::Relation::fits(bytes, b.max_memory)
        {
            Some(LimitKind::MaxMemory)
        } else {
            None
        }
    }

    /// The bounds one model evaluation stops at ([`crate::cat::EvalBounds`]):
    /// the request's deadline or this walk's `timeout`, whichever comes
    /// first, and the memory bound.
    fn eval_bounds(&self) -> crate::cat::EvalBounds {
        let b = self.limits.bounds;
        let timeout = b.timeout.map(|t| self.start + t);
        crate::cat::EvalBounds {
            deadline: match (b.deadline, timeout) {
                (Some(d), Some(t)) => Some(d.min(t)),
                (d, t) => d.or(t),
            },
            max_memory: b.max_memory,
        }
    }

    /// Records the limit a model evaluation stopped at, if `e` is one
    /// ([`crate::cat::EvalBounds`]): the walk is then undecided. False
    /// for any other error.
    fn stopped_evaluation(&self, e: &CatError) -> bool {
        let kind = match e.kind {
            crate::cat::CatErrorKind::TimeLimit => LimitKind::Timeout,
            crate::cat::CatErrorKind::MemoryBound => LimitKind::MaxMemory,
            _ => return false,
        };
        self.stop(kind);
        true
    }

    /// One model evaluation (of a candidate when `execution`).
    fn tick(&self, execution: bool, found: Option<u64>) {
        self.charge_work();
        let n = self.evaluations.fetch_add(1, Ordering::Relaxed) + 1;
        let executions = if execution {
            self.executions.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            self.executions.load(Ordering::Relaxed)
        };
        if let Some(f) = found {
            self.last_found.store(f, Ordering::Relaxed);
        }
        if n.is_multiple_of(64) && self.limits.bounds.expired(self.start) {
            self.stop(LimitKind::Timeout);
        }
        if let Some(p) = self.progress
            && n.is_multiple_of(PROGRESS_EVERY)
        {
            let found = self.last_found.load(Ordering::Relaxed);
            p(Progress {
                evaluations: n,
                executions,
                found: (found != u64::MAX).then_some(found),
            });
        }
    }
}

/// What a walk shares between its skeletons (and its parts).
struct Walk<'a, 'b> {
    model: &'a Model,
    limits: Limits,
    /// What the visitor reads of an evaluation ([`Needs::reads`]), when
    /// the evaluation may be lazy.
    reads: Option<Vec<String>>,
    /// Whether the visitor takes factored candidates ([`Needs::factored`]).
    factored: bool,
    /// Whether the visitor constrains the orders ([`Needs::constrains_orders`]).
    constrains_orders: bool,
    /// Whether the visitor counts commuting RMWs' orders ([`Needs::commuting_rmws`]).
    commuting_rmws: bool,
    /// How the active reductions evaluate candidates.
    plan: super::reduce::EvaluationPlan,
    budget: &'a Budget<'b>,
    monotone: &'a MonotoneCache,
}

/// What the search of one skeleton (or of part of its orders) did.
#[derive(Default)]
struct Searched {
    /// Candidates evaluated.
    executions: u64,
    /// Model evaluations: candidates and partial ones.
    evaluations: u64,
    /// The visitor broke (it has its answer).
    stopped: bool,
}

impl<'a, 'b> Walk<'a, 'b> {
    fn new(
        model: &'a Model,
        limits: Limits,
        needs: &Needs,
        budget: &'a Budget<'b>,
        monotone: &'a MonotoneCache,
    ) -> Walk<'a, 'b> {
        let plan = super::reduce::EvaluationPlan::of(&limits);
        Walk {
            model,
            limits,
            reads: needs.reads.clone().filter(|_| plan.lazy_checks),
            factored: needs.factored,
            constrains_orders: needs.constrains_orders,
            commuting_rmws: needs.commuting_rmws,
            plan,
            budget,
            monotone,
        }
    }

    /// Walks the candidates of `sk` (orders listed; `part`: of that part
    /// of its walk only, `None`: all), handing them to `visitor`. `recent`: models prepared for recent skeletons.
    /// `cancelled`: whether another part made this one useless.
    fn search(
        &self,
        visitor: &mut dyn Visitor,
        sk: &Skeleton,
        part: Option<Slices>,
        recent: &Recent,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Searched, CheckError> {
        let budget = self.budget;
        let over = || budget.over() || cancelled();
        let over_bounds = || budget.over_bounds() || cancelled();
        // One evaluation stops at the deadline and the memory bound too
        // (a long `let rec`, many operators over many events): its error
        // is then the limit, read below, not a fault of the model.
        let _bounds = budget.eval_bounds().enter();
        let executions = Cell::new(0u64);
        let evaluations = Cell::new(0u64);
        let mut stopped = false;
        let mut failure: Option<CheckError> = None;
        // The model is prepared for the skeleton when a candidate (or a
        // partial one) first needs it: a visitor may refuse them all.
        let staged: OnceCell<Staged> = OnceCell::new();
        let prepare_error: Cell<Option<CatError>> = Cell::new(None);
        let stage = || -> Option<&Staged> {
            if staged.get().is_none() {
                // Combinations of paths that differ only in the values their
                // reads fixed have the same static relations: the model
                // prepared for one serves the others.
                let mut recent = recent.lock().unwrap_or_else(|e| e.into_inner());
                let hit = recent.iter().position(|(shape, env, _, _)| {
                    *shape == sk.shape && env.same_bindings(&sk.static_env)
                });
                if let Some(i) = hit {
                    let entry = recent.remove(i);
                    let _ = staged.set(entry.2.clone());
                    recent.push(entry);
                } else {
                    let reads: Option<Vec<&str>> = self
                        .reads
                        .as_ref()
                        .map(|r| r.iter().map(String::as_str).collect());
                    match Staged::new(
                        self.model,
                        &sk.static_env,
                        self.plan.specialise,
                        reads.as_deref(),
                        self.monotone,
                    ) {
                        Ok(s) => {
                            let threads = self.limits.threads.max(1);
                            if recent.len() == RECENT_STAGED * threads {
                                recent.remove(0);
                            }
                            let bytes = sk.static_env.bytes() + s.prepared.bytes();
                            let mut held: usize = recent.iter().map(|e| e.3).sum::<usize>() + bytes;
                            while !recent.is_empty() && held > RECENT_BYTES.saturating_mul(threads)
                            {
                                held -= recent.remove(0).3;
                            }
                            recent.push((sk.shape, sk.static_env.clone(), s.clone(), bytes));
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
        // The walk's last evaluation, when evaluating incrementally: the
        // prune and visit closures evaluate in the walk's order, each from
        // the one before.
        let last: Last = RefCell::new(None);
        let last = self.plan.incremental.then_some(&last);
        // The order filter, the pruning and the candidate visit all talk to
        // the visitor.
        let shared = RefCell::new(&mut *visitor);
        let mut prune = |env: &Env, kind: Partial, counted: bool| {
            // Over the budget: stop evaluating and abandon the subtree (the
            // search is reported as stopped by the limit either way; a
            // subtree kept would be walked to its leaves, and with derived
            // stores leaves the values rule out never reach `visit`, which
            // is where the walk would otherwise stop).
            if over() {
                return false;
            }
            // Nothing under this node can matter to the visitor.
            if shared.borrow().settled() {
                return false;
            }
            let Some(staged) = stage() else {
                return true;
            };
            if kind == Partial::Location {
                // A full evaluation: whether one location's observation
                // reads are consistent with the rest (an error reads as
                // consistent: the candidate's evaluation reports it).
                if counted {
                    budget.tick(false, None);
                    evaluations.set(evaluations.get() + 1);
                }
                return staged
                    .evaluated(env, last, Evaluation::consistent)
                    .unwrap_or(true);
            }
            if !staged.can_prune(kind) {
                return true;
            }
            if counted {
                budget.tick(false, None);
                evaluations.set(evaluations.get() + 1);
            }
            staged.partial_ok(env, kind)
        };
        let mut visit = |cand: &Candidate| {
            if over() {
                return ControlFlow::Break(());
            }
            let mut visitor = shared.borrow_mut();
            // The rest of the skeleton cannot matter: end its walk (not the
            // whole search: `stopped` stays false).
            if visitor.settled() {
                return ControlFlow::Break(());
            }
            // (A factored candidate stands for others: it is evaluated.)
            if cand.factors.is_none() && !visitor.wants_candidate(sk, cand) {
                return ControlFlow::Continue(());
            }
            let Some(staged) = stage() else {
                return ControlFlow::Break(());
            };
            budget.tick(true, visitor.found());
            evaluations.set(evaluations.get() + 1);
            executions.set(executions.get() + 1);
            let flow = staged
                .evaluated(&cand.env, last, |eval| match &cand.factors {
                    Some(_) => visitor.visit_factored(sk, cand, eval, &over_bounds),
                    None => visitor.visit(sk, cand, eval),
                })
                .map_err(CheckError::from)
                .and_then(|r| r);
            match flow {
                Ok(ControlFlow::Continue(())) => ControlFlow::Continue(()),
                Ok(ControlFlow::Break(())) => {
                    stopped = true;
                    ControlFlow::Break(())
                }
                // An evaluation (the candidate's, or one the visitor ran)
                // stopped at a limit: the walk ends undecided.
                Err(CheckError::Cat(e)) if budget.stopped_evaluation(&e) => ControlFlow::Break(()),
                Err(e) => {
                    failure = Some(e);
                    ControlFlow::Break(())
                }
            }
        };
        let mut orders = |co: &crate::relation::Relation| shared.borrow_mut().wants_orders(sk, co);
        let factor = self.factored;
        let prune: Option<Prune> = if may_prune { Some(&mut prune) } else { None };
        match part {
            Some(p) => sk.search_part(prune, &mut orders, &mut visit, p, factor),
            None => sk.search_orders(prune, &mut orders, &mut visit, factor),
        }
        if let Some(e) = prepare_error.take()
            && !budget.stopped_evaluation(&e)
        {
            return Err(e.into());
        }
        if let Some(e) = failure.take() {
            return Err(e);
        }
        Ok(Searched {
            executions: executions.get(),
            evaluations: evaluations.get(),
            stopped,
        })
    }
}

/// The paths of the program's threads for a walk (`listed` when a
/// listing stopped at a barrier listed them all: [`barrier_prefixes_first`]),
/// or the coverage of a walk that a state-space limit stopped before it
/// began (nothing explored: the answer is undecided).
fn start<'p>(
    prepared: &Listing<'p>,
    listed: Option<Explorer<'p>>,
    limits: Limits,
) -> Result<Result<Explorer<'p>, Coverage>, CheckError> {
    if let Some(e) = listed.and_then(|e| e.complete_under(limits)) {
        return Ok(Ok(e));
    }
    match Explorer::listed(prepared, limits, None, None) {
        Ok(e) => Ok(Ok(e)),
        Err(ExecError {
            limit: Some(kind), ..
        }) => Ok(Err(Coverage {
            unroll: limits.bounds.unroll,
            truncated: true,
            stopped_by: Some(kind),
            ..Coverage::default()
        })),
        Err(e) => Err(e.into()),
    }
}

/// The coverage of a finished walk: `done` its summed searches, `stopped_by`
/// the limit the budget reached, if any.
fn finish(
    explorer: &Explorer,
    limits: Limits,
    done: &Searched,
    stopped_by: Option<LimitKind>,
) -> Coverage {
    // Combinations skipped at a limit (too many writes to order) leave the
    // walk incomplete unless the visitor had its answer anyway.
    let stopped_by = stopped_by.or(explorer.skipped());
    let stopped = done.stopped;
    Coverage {
        cut_paths: explorer.cut(),
        unroll: limits.bounds.unroll,
        executions: done.executions,
        partial_evaluations: done.evaluations - done.executions,
        stopped_early: stopped,
        truncated: stopped_by.is_some() && !stopped,
        stopped_by: stopped_by.filter(|_| !stopped),
        symmetric_threads: explorer
            .symmetry()
            .map_or(0, |s| s.classes.iter().map(Vec::len).sum()),
        rotation_order: explorer.rotation().map_or(0, |r| r.order()),
        ..Coverage::default()
    }
}

/// After a finished walk (`coverage`), the walk over the combinations of
/// paths in which some thread stops where the unrolling bound cut it
/// ([`Visitor::prefixes`]), sequential, under the same budget; its counts
/// go to the `prefix_*` fields only.
fn walk_prefixes(
    mut explorer: Explorer,
    walk: &Walk,
    visitor: &mut dyn Visitor,
    coverage: &mut Coverage,
) -> Result<(), CheckError> {
    // After a walk stopped at a limit the prefix walk still runs on what
    // the budget has left (nothing, after the time or evaluation limit;
    // after combinations skipped at the order limit, the rest): a race it
    // finds is a race whatever the first walk missed, and "no race" is
    // not answered either way.
    if coverage.prefix_walk
        || !walk.limits.prefix_races
        || explorer.threads.iter().all(|t| t.cut_prefixes.is_empty())
        || coverage.stopped_early
        || !visitor.prefixes()
    {
        return Ok(());
    }
    // The first walk's skipped combinations are in its coverage already.
    explorer.take_skipped();
    // The combinations that extend to complete ones are skipped only when
    // the complete walk covered every complete combination.
    let extend = !coverage.truncated && coverage.stopped_by.is_none();
    let (done, stopped_by) = walk_stopped(&mut explorer, walk, visitor, extend)?;
    record_prefix_walk(coverage, &done, stopped_by);
    coverage.prefix_extended = explorer.take_extended();
    Ok(())
}

/// The walk over the combinations of paths in which some thread stops at
/// the bound ([`Explorer::prefix_blocks`], dropping combinations past the
/// order limit as they are chosen: [`Explorer::set_write_pruning`]), by
/// `walk` for `visitor`; the explorer is left as it was (cut prefixes
/// apart, no skip recorded). What it did, and the limit that stopped it
/// before it finished (none when the visitor broke).
fn walk_stopped(
    explorer: &mut Explorer,
    walk: &Walk,
    visitor: &mut dyn Visitor,
    extend: bool,
) -> Result<(Searched, Option<LimitKind>), CheckError> {
    let complete: Vec<usize> = explorer.threads.iter().map(|t| t.paths.len()).collect();
    let blocks = explorer.prefix_blocks();
    explorer.set_write_pruning(true);
    explorer.set_spin_extension(extend, &complete);
    let done = walk_skeletons(explorer, Some(&blocks), walk, visitor, &Recent::default())?;
    explorer.set_spin_extension(false, &complete);
    explorer.set_write_pruning(false);
    let skipped = explorer.take_skipped();
    explorer.restore_prefixes(&complete);
    let stopped_by = if done.stopped {
        None
    } else {
        walk.budget.stopped_by().or(skipped)
    };
    Ok((done, stopped_by))
}

/// Records in `coverage` a walk over executions stopping at the bound.
fn record_prefix_walk(coverage: &mut Coverage, done: &Searched, stopped_by: Option<LimitKind>) {
    coverage.prefix_walk = true;
    coverage.prefix_executions = done.executions;
    coverage.prefix_stopped_by = stopped_by;
}

/// What the walk over executions stopping at the bound did when it ran
/// first ([`prefixes_first`]).
struct PrefixesFirst {
    done: Searched,
    stopped_by: Option<LimitKind>,
    /// The limits left for the walk over complete paths.
    rest: Limits,
}

/// When the unrolling bound cut paths, the walk over the executions in
/// which some thread stops at the bound ([`Visitor::prefixes`]) runs
/// before the walk over complete paths, under half of the budget (time
/// and evaluations); the complete walk gets what it left.
///
/// Why first: with paths cut, "no race" cannot be answered whatever the
/// walks find, so both walks only look for a race, and the prefix walk
/// holds the smaller executions (fewer writes to order, fewer
/// combinations). A lock whose holders run past the bound (8
/// invocations of a compare-exchange lock: 16 writes to the lock word on
/// complete paths, past the order limit) has its race between two
/// invocations in the critical section, with the others stopped at the
/// bound; walked second, that race was never reached, the first walk
/// spending the whole budget (or skipping every combination at the order
/// limit). A visitor that breaks there has its answer: the complete walk
/// does not run. Only when the bound cut paths: a thread spinning forever
/// in an await no value leaves is no bound, and "no race" is then
/// answerable after both walks, the complete one first as before.
fn prefixes_first(
    explorer: &mut Explorer,
    model: &Model,
    limits: Limits,
    needs: &Needs,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Option<PrefixesFirst>, CheckError> {
    if !limits.prefix_races
        || explorer.cut() == 0
        || explorer.threads.iter().all(|t| t.cut_prefixes.is_empty())
        || !needs.prefixes_first
        || !visitor.prefixes()
    {
        return Ok(None);
    }
    let started = web_time::Instant::now();
    let share = Limits {
        bounds: super::limits::Bounds {
            max_executions: (limits.bounds.max_executions / 2).max(1),
            timeout: limits.bounds.timeout.map(|t| t / 2),
            // Half the time left before the request's deadline too.
            deadline: limits
                .bounds
                .deadline
                .map(|d| started + d.saturating_duration_since(started) / 2),
            ..limits.bounds
        },
        ..limits
    };
    let budget = Budget::new(share, progress);
    let monotone = MonotoneCache::new();
    let walk = Walk::new(model, share, needs, &budget, &monotone);
    // First: no complete walk has run, so nothing extends to it.
    let (done, stopped_by) = walk_stopped(explorer, &walk, visitor, false)?;
    visitor.prefixes_end();
    let rest = Limits {
        bounds: super::limits::Bounds {
            max_executions: limits
                .bounds
                .max_executions
                .saturating_sub(done.evaluations),
            timeout: limits
                .bounds
                .timeout
                .map(|t| t.saturating_sub(started.elapsed())),
            ..limits.bounds
        },
        ..limits
    };
    Ok(Some(PrefixesFirst {
        done,
        stopped_by,
        rest,
    }))
}

/// The share of the question's evaluations the walks over barrier
/// prefixes may take: the races they find are found in a small part of
/// it, and on a program whose race they miss the walk over the whole
/// program needs the rest.
const BARRIER_PREFIXES_SHARE: u64 = 8;

/// The work ([`crate::engine::trace::Work`]: steps of the path walk and
/// bytes allocated) the listings up to each barrier may take together,
/// per evaluation of the walks' share. With the default
/// `--max-executions` (25,000 evaluations for the walks) that is 20
/// million steps: three times what the listings up to the fifth barrier
/// of csdl's and csdldf's workgroup 0 (8 invocations each, their races)
/// take, and on SPD (a race after the last barrier) the listings up to
/// its twelfth barrier, not the costlier ones past it. The walks' model
/// evaluations spend from the same share, by the bytes they allocate
/// ([`Budget::charge_work`]). Counted in work, not time, the rounds cover
/// the same barriers on any machine under any load.
const BARRIER_PREFIXES_STEPS_PER_EVALUATION: u64 = 800;

/// The longest the walks over barrier prefixes run, an outer bound only
/// (their share of work stops them first on a machine that is not
/// overloaded): half the question's time limit, or this without one.
const BARRIER_PREFIXES_TIME: std::time::Duration = std::time::Duration::from_secs(60);

/// Where the combination plan says so
/// ([`super::reduce::hook::CombinationPlan::barrier_prefixes`]) and the
/// visitor decides races ([`Needs::prefixes_first`]): before the program's
/// paths are listed, the walks over the executions in which every thread
/// waits at its `k`-th control barrier, `k = 1, 2, ...`, their paths
/// listed up to there ([`Explorer::listed`];
/// `crate::engine::reduce::barrier_prefixes` says why and when they
/// stop), on a share of the budget counted in work: an eighth of the
/// evaluations for the walks ([`BARRIER_PREFIXES_SHARE`]; at most an
/// eighth of the default `--max-executions`), and work
/// sized from it for the listings
/// ([`BARRIER_PREFIXES_STEPS_PER_EVALUATION`]); half the time limit is an
/// outer bound only ([`BARRIER_PREFIXES_TIME`]). `Ok(Ok(coverage))`: a walk's visitor
/// broke, its answer decided there; `Ok(Err((rest, listed)))`: no
/// answer, the limits left for the listing of the whole program and its
/// walks, and the last listing when it stopped no path at its barrier
/// (it is then the whole program's: [`Explorer::complete_under`]).
fn barrier_prefixes_first<'p>(
    prepared: &Listing<'p>,
    model: &Model,
    limits: Limits,
    needs: &Needs,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Result<Coverage, (Limits, Option<Explorer<'p>>)>, CheckError> {
    let program = prepared.program();
    if !needs.prefixes_first
        || !super::reduce::hook::CombinationPlan::of(program, &limits).barrier_prefixes
        || !has_barrier(program)
    {
        return Ok(Err((limits, None)));
    }
    let started = web_time::Instant::now();
    let share_time = limits
        .bounds
        .timeout
        .map_or(BARRIER_PREFIXES_TIME, |t| t / 2);
    let end = started + share_time;
    // The share follows `--max-executions` up to the default's: a raised
    // limit (to let the whole program's walk go further) does not
    // lengthen rounds that found no race.
    let evaluations_share = (limits.bounds.max_executions / BARRIER_PREFIXES_SHARE).clamp(
        1,
        super::limits::DEFAULT_MAX_EXECUTIONS / BARRIER_PREFIXES_SHARE,
    );
    let work = super::trace::Work::new(
        evaluations_share.saturating_mul(BARRIER_PREFIXES_STEPS_PER_EVALUATION),
    );
    let share = Limits {
        bounds: super::limits::Bounds {
            max_executions: evaluations_share,
            timeout: Some(share_time),
            deadline: Some(limits.bounds.deadline.map_or(end, |d| d.min(end))),
            ..limits.bounds
        },
        ..limits
    };
    let budget = Budget::new(share, progress).with_work(work.clone());
    let monotone = MonotoneCache::new();
    let mut evaluations = 0u64;
    // First the first workgroup alone (the others not started: a race on
    // workgroup memory needs no other workgroup), then every workgroup.
    let first = program.threads.first().map_or(0, |t| t.workgroup);
    let passes = if workgroups_alone(program) {
        vec![Some(first), None]
    } else {
        vec![None]
    };
    // The listing stopped at each `k`, listed once for both passes.
    let mut listed: Vec<Explorer> = Vec::new();
    // The listing in which no thread reached its barrier.
    let mut complete = None;
    'passes: for alone in passes {
        for k in 1.. {
            if listed.len() < k {
                // The share of work is spent: the walk over the whole
                // program follows.
                if work.left() == 0 {
                    break 'passes;
                }
                match Explorer::listed(prepared, share, Some(k), Some(work.clone())) {
                    Ok(e) => listed.push(e),
                    // A limit (the share of work among them, or a failure,
                    // which the listing of the whole program reports)
                    // stops the walks.
                    Err(_) => break 'passes,
                }
            }
            let runs = |t: &crate::ir::Thread| alone.is_none_or(|w| t.workgroup == w);
            // No path of a running thread reaches its k-th barrier: the
            // next pass, or the walks over the whole program, follow.
            if !program
                .threads
                .iter()
                .zip(&listed[k - 1].threads)
                .any(|(t, tp)| runs(t) && tp.waiting > 0)
            {
                if alone.is_none() {
                    listed.truncate(k);
                    complete = listed.pop();
                }
                break;
            }
            let listing = &listed[k - 1];
            let threads = program
                .threads
                .iter()
                .zip(&listing.threads)
                .map(|(t, tp)| if runs(t) { tp.clone() } else { not_started(tp) })
                .collect();
            let mut at_k = listing.with_threads(threads, share);
            at_k.set_symmetry(needs.symmetry.as_deref());
            at_k.set_rotation(needs.renaming.as_ref());
            at_k.set_barrier_agreement(needs.barriers_agree);
            if !visitor.prefixes() {
                break;
            }
            let walk = Walk::new(model, share, needs, &budget, &monotone);
            // The walk's evaluations spend from the listings' share of
            // work too (the bytes they allocate), so that a round whose
            // executions are as costly as the whole program's does not
            // run to its end before the walk over the whole program.
            budget.start_work();
            let (done, stopped_by) = walk_stopped(&mut at_k, &walk, visitor, false)?;
            budget.charge_work();
            let stopped_by = stopped_by.or(budget.stopped_by());
            visitor.prefixes_end();
            evaluations += done.evaluations;
            if done.stopped {
                let decided = Searched {
                    stopped: true,
                    ..Searched::default()
                };
                let mut coverage = finish(&at_k, limits, &decided, None);
                // The paths the unrolling bound cut before the barrier,
                // not those waiting there.
                coverage.cut_paths = listing.threads.iter().map(|t| t.cut - t.waiting).sum();
                record_prefix_walk(&mut coverage, &done, None);
                return Ok(Ok(coverage));
            }
            // The wall-clock share is an outer bound only: the share of
            // work and evaluations stops the rounds first.
            if stopped_by.is_some() || started.elapsed() >= share_time {
                break 'passes;
            }
        }
    }
    let rest = Limits {
        bounds: super::limits::Bounds {
            max_executions: limits.bounds.max_executions.saturating_sub(evaluations),
            ..limits.bounds
        },
        ..limits
    };
    Ok(Err((less_time(rest, started), complete)))
}

/// `limits` with the time since `started` taken from their time limit.
fn less_time(limits: Limits, started: web_time::Instant) -> Limits {
    Limits {
        bounds: super::limits::Bounds {
            timeout: limits
                .bounds
                .timeout
                .map(|t| t.saturating_sub(started.elapsed())),
            ..limits.bounds
        },
        ..limits
    }
}

/// The explorer over `program`'s complete paths and the limits left for
/// its walks, after the walks over barrier prefixes
/// ([`barrier_prefixes_first`]); `Err(coverage)`: the question was
/// decided there, or a limit stopped the listing.
fn listed_for_walk<'p>(
    program: &'p Program,
    model: &Model,
    limits: Limits,
    needs: &Needs,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Result<(Explorer<'p>, Limits), Coverage>, CheckError> {
    let (prepared, limits) = prepare(program, limits);
    let (limits, listed) =
        match barrier_prefixes_first(&prepared, model, limits, needs, visitor, progress)? {
            Ok(coverage) => return Ok(Err(coverage)),
            Err(rest) => rest,
        };
    Ok(start(&prepared, listed, limits)?.map(|e| (e, limits)))
}

/// What the listings of `program` under `limits` read of it
/// ([`Listing`]: the walks over barrier prefixes and the listing of the
/// whole program share it), and `limits` with the time it took taken
/// from their time limit.
fn prepare(program: &Program, limits: Limits) -> (Listing<'_>, Limits) {
    let started = web_time::Instant::now();
    let prepared = Listing::of(program, &limits, super::PathPlan::of(&limits));
    (prepared, less_time(limits, started))
}

/// The coverage of a walk whose executions stopping at the bound were
/// walked first (`first`) and decided the visitor's answer: the complete
/// walk did not run.
fn decided_by_prefixes(explorer: &Explorer, limits: Limits, first: &PrefixesFirst) -> Coverage {
    let done = Searched {
        stopped: true,
        ..Searched::default()
    };
    let mut coverage = finish(explorer, limits, &done, None);
    record_prefix_walk(&mut coverage, &first.done, first.stopped_by);
    coverage
}

/// The sequential walk over the skeletons of `blocks` (`None`: every
/// combination of paths), each searched by `walk` for `visitor`.
fn walk_skeletons(
    explorer: &Explorer,
    blocks: Option<&[Vec<Vec<usize>>]>,
    walk: &Walk,
    visitor: &mut dyn Visitor,
    recent: &Recent,
) -> Result<Searched, CheckError> {
    let budget = walk.budget;
    let mut done = Searched::default();
    let mut per_skeleton = |mut sk: Skeleton| -> Result<ControlFlow<()>, CheckError> {
        if budget.over() {
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
        if !list_orders(explorer, walk, &*visitor, &mut sk)? {
            return Ok(ControlFlow::Continue(()));
        }
        visitor.skeleton(&sk);
        let s = walk.search(&mut *visitor, &sk, None, recent, &|| false)?;
        done.executions += s.executions;
        done.evaluations += s.evaluations;
        done.stopped |= s.stopped;
        Ok(if s.stopped || budget.stopped_by().is_some() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    };
    match blocks {
        Some(blocks) => explorer.for_each_in(blocks, &mut per_skeleton)?,
        None => explorer.for_each(&mut per_skeleton)?,
    }
    Ok(done)
}

/// Lists the orders of a skeleton the visitor wants (constrained when the
/// visitor says so). `Ok(false)`: too many to list, skipped (the walk says
/// so through `explorer`).
fn list_orders(
    explorer: &Explorer,
    walk: &Walk,
    visitor: &dyn Visitor,
    sk: &mut Skeleton,
) -> Result<bool, CheckError> {
    sk.commuting_allowed = walk.commuting_rmws && !walk.constrains_orders;
    let listed = if walk.constrains_orders {
        sk.list_orders(Some(&|a, b| visitor.may_precede(a, b)))
    } else {
        sk.list_orders(None)
    };
    match listed {
        Ok(()) => Ok(true),
        Err(ExecError {
            limit: Some(kind), ..
        }) => {
            explorer.skip(kind);
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

/// Walks the candidate executions of `program` under `loaded`, built from
/// combinations of per-thread paths, handing each with its evaluation to
/// `visitor`, within `limits`, calling `progress` now and then
/// (sequentially; [`explore_split`] in parallel parts).
pub fn enumerate(
    program: &Program,
    loaded: &LoadedModel,
    limits: Limits,
    visitor: &mut dyn Visitor,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    let (model, limits) = (&loaded.cat, limits.for_model(loaded));
    let needs = visitor.needs();
    let (mut explorer, limits) =
        match listed_for_walk(program, model, limits, &needs, visitor, progress)? {
            Ok(listed) => listed,
            Err(coverage) => return Ok(coverage),
        };
    explorer.set_symmetry(needs.symmetry.as_deref());
    explorer.set_rotation(needs.renaming.as_ref());
    explorer.set_barrier_agreement(needs.barriers_agree);
    let first = prefixes_first(&mut explorer, model, limits, &needs, visitor, progress)?;
    if let Some(first) = first.as_ref().filter(|f| f.done.stopped) {
        return Ok(decided_by_prefixes(&explorer, limits, first));
    }
    let rest = first.as_ref().map_or(limits, |f| f.rest);
    let budget = Budget::new(rest, progress);
    let monotone = MonotoneCache::new();
    let blocks = visitor.blocks(&explorer.threads);
    let walk = Walk::new(model, rest, &needs, &budget, &monotone);
    let done = walk_skeletons(
        &explorer,
        blocks.as_deref(),
        &walk,
        visitor,
        &Recent::default(),
    )?;
    let mut coverage = finish(&explorer, limits, &done, budget.stopped_by());
    if let Some(first) = &first {
        record_prefix_walk(&mut coverage, &first.done, first.stopped_by);
    }
    walk_prefixes(explorer, &walk, visitor, &mut coverage)?;
    Ok(coverage)
}

/// A visitor whose walk can be split into parts explored in parallel
/// ([`explore_split`]): each part gets a fresh visitor ([`Split::fork`]),
/// and the finished parts are merged back into the visitor in part order
/// ([`Split::merge`]), which must give what the sequential walk gives.
///
/// The parts are consecutive pieces of the sequential walk (skeletons in
/// walk order; a skeleton with many orders cut into consecutive ranges of
/// its coherence-order combinations), so merging them in order replays the
/// sequential walk, provided the fork behaves in its part as the visitor
/// would there after the earlier parts. A visitor may fork only when its
/// answers to the driver ([`Visitor::may_prune`], [`Visitor::wants`],
/// [`Needs::constrains_orders`], [`Visitor::may_precede`],
/// [`Visitor::wants_orders`], [`Visitor::wants_candidate`],
/// [`Visitor::settled`], [`Needs::reads`]) do not depend on what it
/// found in earlier skeletons, and when `visit` breaks only at a candidate
/// that decides the answer by itself (whatever came before, the
/// sequential walk would break there too unless it broke earlier). The
/// outcome listing of [`crate::analysis::Property::States`], whose
/// `wants` depends on the states already recorded, does not fork.
///
/// A fork for a later part of a skeleton that an earlier part began is
/// asked [`Visitor::wants`] again (to set up its per-skeleton state) but
/// not [`Visitor::skeleton`], which the visitor sees once per skeleton.
pub trait Split: Visitor + Send + Sized {
    /// A fresh visitor for one part (nothing found yet), or `None` when
    /// this visitor's walk cannot be split (it is then sequential).
    fn fork(&self) -> Option<Self>;

    /// Adds what a finished part found (parts arrive in walk order). A
    /// merge that copies much (a part's listing of final states) asks
    /// `stop` (with the bytes it is about to allocate, or 0: the walk's
    /// deadline and memory bound) before and while it copies, and ends
    /// with the limit `stop` names: the walk then stops there, truncated
    /// at that limit.
    fn merge(
        &mut self,
        part: Self,
        stop: &mut dyn FnMut(usize) -> Option<LimitKind>,
    ) -> Result<(), LimitKind>;
}

/// [`enumerate`], split into parts explored in parallel when
/// `limits.threads > 1`, the `parallel` feature is on and the visitor
/// forks; otherwise sequential. Either way the visitor ends as the
/// sequential walk leaves it and the coverage is the same (executions,
/// partial evaluations, `stopped_early`), except when a limit truncates
/// the walk: the parts then spend one shared budget, and which candidates
/// were seen before the limit may differ (the walk says `truncated`, as
/// the sequential one does).
pub fn explore_split<V: Split>(
    program: &Program,
    model: &LoadedModel,
    limits: Limits,
    visitor: &mut V,
    progress: Option<ProgressFn<'_>>,
) -> Result<Coverage, CheckError> {
    #[cfg(feature = "parallel")]
    if limits.threads > 1 && visitor.fork().is_some() {
        return parallel::explore(program, model, limits, visitor, progress);
    }
    enumerate(program, model, limits, visitor, progress)
}

/// The parallel walk (the `parallel` feature).
///
/// The driver (the caller's thread) walks the combinations of paths as the
/// sequential walk does, asking a fork of the visitor (a probe) whether it
/// wants each skeleton and listing the orders of those it wants; each
/// becomes a unit of work (a skeleton with many candidates several: its
/// coherence-order combinations cut into consecutive ranges). Units are
/// gathered into waves and a wave's units are searched in parallel on the
/// current rayon pool, each by a fork of the visitor, then merged into the
/// visitor in unit order: the sequential walk, replayed. A wave is
/// searched in a scoped thread of its own while the driver walks on and
/// gathers the next (the waves are merged in walk order: the one in
/// flight before the next is handed out). A unit whose
/// visitor breaks (decided) or fails marks its index in a shared flag:
/// units after it stop at once and are dropped, units before it go on
/// (the sequential walk would have seen them), so the merged answer is
/// the sequential one. The limits are the shared [`Budget`].
#[cfg(feature = "parallel")]
mod parallel {
    use super::*;
    use rayon::prelude::*;
    use std::sync::atomic::AtomicUsize;

    /// A skeleton with at least this many candidates is cut into parts.
    const SPLIT_CANDIDATES: u128 = 256;

    /// The blocks the choices of a skeleton's first branching read are cut
    /// into ([`super::super::Slices`]).
    const BLOCKS: usize = 8;

    /// One unit of work.
    enum Work {
        /// A combination of paths stalled at a barrier ([`Visitor::stalled`]).
        Stalled(Box<Skeleton>),
        /// The candidates of a skeleton, or of a part of its walk
        /// ([`super::super::Slices`]); `first`: the skeleton's first unit.
        Search {
            sk: Arc<Skeleton>,
            part: Option<Slices>,
            first: bool,
        },
    }

    struct Unit<V> {
        work: Work,
        visitor: V,
    }

    /// What a unit did.
    struct Done<V> {
        visitor: V,
        searched: Result<Searched, CheckError>,
        /// Cancelled before it began (a lower unit broke, or a limit).
        skipped: bool,
    }

    pub(super) fn explore<V: Split>(
        program: &Program,
        loaded: &LoadedModel,
        limits: Limits,
        visitor: &mut V,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<Coverage, CheckError> {
        let (model, limits) = (&loaded.cat, limits.for_model(loaded));
        let needs = visitor.needs();
        let (mut explorer, limits) =
            match listed_for_walk(program, model, limits, &needs, visitor, progress)? {
                Ok(listed) => listed,
                Err(coverage) => return Ok(coverage),
            };
        explorer.set_symmetry(needs.symmetry.as_deref());
        explorer.set_rotation(needs.renaming.as_ref());
        explorer.set_barrier_agreement(needs.barriers_agree);
        let first = prefixes_first(&mut explorer, model, limits, &needs, visitor, progress)?;
        if let Some(first) = first.as_ref().filter(|f| f.done.stopped) {
            return Ok(decided_by_prefixes(&explorer, limits, first));
        }
        let rest = first.as_ref().map_or(limits, |f| f.rest);
        let budget = Budget::new(rest, progress);
        let monotone = MonotoneCache::new();
        let blocks = visitor.blocks(&explorer.threads);
        let walk = Walk::new(model, rest, &needs, &budget, &monotone);
        let threads = limits.threads.max(1);
        let wave_size = 16 * threads;
        let Some(mut probe) = visitor.fork() else {
            // The walks over barrier prefixes ran already.
            let limits = Limits {
                reductions: limits
                    .reductions
                    .without(crate::engine::limits::Reduction::BarrierPrefixes),
                ..limits
            };
            return enumerate(program, loaded, limits, visitor, progress);
        };
        // The lowest unit index whose visitor broke or failed.
        let lowest = AtomicUsize::new(usize::MAX);
        let recent = Recent::default();
        let mut wave: Vec<Unit<V>> = Vec::new();
        let mut merged = 0usize; // units handed out so far
        let mut done = Searched::default();
        let mut failure: Option<CheckError> = None;
        let mut finished = false;
        // A wave's units searched in parallel on the rayon pool. A wave
        // runs in a scoped thread of its own while the driver walks on and
        // gathers the next one (the walk over combinations of paths is
        // sequential; with units of one execution each it is most of the
        // driver's time).
        let search_wave = |base: usize, units: Vec<Unit<V>>| -> Vec<Done<V>> {
            units
                .into_par_iter()
                .enumerate()
                .map(|(i, unit)| {
                    let index = base + i;
                    let cancelled = || lowest.load(Ordering::Relaxed) < index;
                    let Unit {
                        work,
                        visitor: mut v,
                    } = unit;
                    if cancelled() || budget.over() {
                        return Done {
                            visitor: v,
                            searched: Ok(Searched::default()),
                            skipped: true,
                        };
                    }
                    let searched = match work {
                        Work::Stalled(sk) => {
                            v.stalled(&sk);
                            Ok(Searched::default())
                        }
                        Work::Search { sk, part, first } => {
                            // The fork sets up its per-skeleton state (the
                            // probe already said it wants the skeleton).
                            v.wants(&sk);
                            if first {
                                v.skeleton(&sk);
                            }
                            walk.search(&mut v, &sk, part, &recent, &cancelled)
                        }
                    };
                    if searched.as_ref().map_or(true, |s| s.stopped) {
                        lowest.fetch_min(index, Ordering::Relaxed);
                    }
                    Done {
                        visitor: v,
                        searched,
                        skipped: false,
                    }
                })
                .collect()
        };
        let search_wave = &search_wave;
        // Merges a searched wave into the visitor in unit order, up to the
        // first unit that broke or failed; whether the walk is over.
        let mut merge = |results: Vec<Done<V>>, visitor: &mut V| -> bool {
            for r in results {
                if r.skipped {
                    continue;
                }
                match r.searched {
                    Ok(s) => {
                        done.executions += s.executions;
                        done.evaluations += s.evaluations;
                        let mut stop = |bytes| budget.merge_stop(bytes);
                        if let Err(kind) = visitor.merge(r.visitor, &mut stop) {
                            budget.stop(kind);
                            return true;
                        }
                        if s.stopped {
                            done.stopped = true;
                            return true;
                        }
                    }
                    Err(e) => {
                        failure = Some(e);
                        return true;
                    }
                }
            }
            budget.stopped_by().is_some()
        };
        /// A wave's results (a panic in its thread goes on here).
        fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> T {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        }
        let walked = std::thread::scope(|scope| {
            // The wave being searched while the driver walks on.
            let mut in_flight = None;
            // Hands `wave` out, after merging the wave in flight (waves
            // merge in walk order); whether the walk is over.
            let mut launch = |wave: &mut Vec<Unit<V>>, visitor: &mut V| -> bool {
                if let Some(h) = in_flight.take()
                    && merge(join(h), visitor)
                {
                    return true;
                }
                let base = merged;
                merged += wave.len();
                let units = std::mem::take(wave);
                in_flight = Some(scope.spawn(move || search_wave(base, units)));
                false
            };
            let mut per_skeleton = |mut sk: Skeleton| -> Result<ControlFlow<()>, CheckError> {
                if finished || budget.over() {
                    return Ok(ControlFlow::Break(()));
                }
                let fork = |v: &V| v.fork().expect("a visitor that forked forks again");
                if !sk.stalled_barriers().is_empty() {
                    wave.push(Unit {
                        visitor: fork(visitor),
                        work: Work::Stalled(Box::new(sk)),
                    });
                } else if probe.wants(&sk) && list_orders(&explorer, &walk, &probe, &mut sk)? {
                    let slices = sk.slice_count(BLOCKS).unwrap_or(1);
                    let parts = if sk.candidate_count() >= SPLIT_CANDIDATES {
                        slices.min(4 * threads)
                    } else {
                        1
                    };
                    let sk = Arc::new(sk);
                    if parts <= 1 {
                        wave.push(Unit {
                            visitor: fork(visitor),
                            work: Work::Search {
                                sk,
                                part: None,
                                first: true,
                            },
                        });
                    } else {
                        // Consecutive ranges of nearly equal numbers of slices.
                        for p in 0..parts {
                            let at =
                                |p: usize| (slices as u128 * p as u128 / parts as u128) as usize;
                            let range = at(p)..at(p + 1);
                            wave.push(Unit {
                                visitor: fork(visitor),
                                work: Work::Search {
                                    sk: sk.clone(),
                                    part: Some(Slices {
                                        range,
                                        blocks: BLOCKS,
                                    }),
                                    first: p == 0,
                                },
                            });
                        }
                    }
                }
                if wave.len() >= wave_size && launch(&mut wave, visitor) {
                    finished = true;
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            };
            let walked = match blocks {
                Some(blocks) => explorer.for_each_in(&blocks, &mut per_skeleton),
                None => explorer.for_each(&mut per_skeleton),
            };
            // The wave in flight, then the units gathered after it (before
            // a failure of the walk itself, as in the sequential walk,
            // which may break before reaching it).
            if let Some(h) = in_flight.take()
                && merge(join(h), visitor)
            {
                finished = true;
            }
            if !finished && !wave.is_empty() {
                let base = merged;
                merged += wave.len();
                merge(search_wave(base, std::mem::take(&mut wave)), visitor);
            }
            walked
        });
        if let Some(e) = failure {
            return Err(e);
        }
        if !done.stopped {
            walked?;
        }
        let mut coverage = finish(&explorer, limits, &done, budget.stopped_by());
        if let Some(first) = &first {
            record_prefix_walk(&mut coverage, &first.done, first.stopped_by);
        }
        walk_prefixes(explorer, &walk, visitor, &mut coverage)?;
        Ok(coverage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walk with a share of work stops at `--max-executions` once the
    /// bytes its evaluations allocated pass the share, and not before; a
    /// walk without one is never stopped by the bytes.
    #[test]
    fn the_bytes_a_walk_allocates_spend_its_share_of_work() {
        let steps = 10;
        let per_step = crate::engine::trace::BYTES_PER_STEP;
        let work = crate::engine::trace::Work::new(steps);
        let budget = Budget::new(Limits::default(), None).with_work(work.clone());
        // The walk starts with 1,000 bytes allocated before it, which are
        // not its own ([`Budget::start_work`]).
        budget.work_charged.store(1_000, Ordering::Relaxed);
        budget.charge_allocated(1_000 + 4 * per_step);
        assert_eq!(work.left(), steps - 4);
        assert_eq!(budget.stopped_by(), None);
        budget.charge_allocated(1_000 + 10 * per_step);
        assert_eq!(work.left(), 0);
        assert_eq!(budget.stopped_by(), None, "spent exactly, not passed");
        budget.charge_allocated(1_000 + 11 * per_step);
        assert_eq!(budget.stopped_by(), Some(LimitKind::MaxExecutions));
        assert!(budget.over());

        let unshared = Budget::new(Limits::default(), None);
        unshared.charge_allocated(u64::MAX);
        assert_eq!(unshared.stopped_by(), None);
        assert!(!unshared.over());
    }
}
