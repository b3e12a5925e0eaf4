//! What one search runs under ([`Limits`]: the user's [`Bounds`], the
//! reductions, the model's search profile, the walk's modes), the limits
//! that can stop it ([`LimitKind`]) and the error of a program the search
//! cannot take ([`ExecError`]). Every stage of the engine reads these, so
//! they stand below all of them: this folder names no other file of the
//! engine. The reductions by name, and sets of them, are
//! [`reductions`]: what a search may use is part of what it runs under;
//! what each reduction does is `super::reduce`.

mod reductions;
use crate::model::{LoadedModel, SearchProfile};
pub use reductions::{Reduction, Reductions, Requires};

/// A program that cannot be turned into executions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    pub message: String,
    /// The state-space limit the program exceeds, if that is why: such a
    /// program is readable, its answer is undecided (the driver reports a
    /// bounded search, not an error).
    pub limit: Option<LimitKind>,
}

impl ExecError {
    /// The program cannot be turned into executions (not a limit).
    pub fn new(message: impl Into<String>) -> ExecError {
        ExecError {
            message: message.into(),
            limit: None,
        }
    }

    /// The program exceeds a state-space limit.
    pub fn limit(kind: LimitKind, message: impl Into<String>) -> ExecError {
        ExecError {
            message: message.into(),
            limit: Some(kind),
        }
    }
}

/// What one search runs under: the user's [`Bounds`], the [`Reductions`]
/// it may use, the model's [`SearchProfile`], and the walk's modes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// What the user bounds the search by.
    pub bounds: Bounds,
    /// The reductions the search may use ([`super::reduce`]; all by default, none
    /// for the reference enumeration).
    pub reductions: Reductions,
    /// What the model declares about itself (set from the model by
    /// [`Limits::for_model`]).
    pub profile: SearchProfile,
    /// Also list the paths that end stuck in a loop or stop part-way
    /// ([`super::trace::Ending`]), for termination questions. Off: complete paths only.
    pub endings: bool,
    /// The threads one search may use ([`super::driver::explore_split`]): 1, the
    /// default, walks sequentially; more splits a search whose visitor can
    /// be split ([`super::driver::Split`]) into parts explored in parallel on the
    /// current rayon pool (with the `parallel` feature; without it, or for
    /// a visitor that cannot be split, the walk is sequential). The answer
    /// is the same either way: only the time differs.
    pub threads: usize,
    /// Walk the undefined initial values of [`crate::ir::Program::undefined`] over
    /// [`super::undefined::Domain`]. Off: every location starts at its
    /// `initial_values` entry, undefined or not (the bypass the
    /// differential tests compare with; a program without undefined
    /// locations walks the same either way).
    pub undefined_values: bool,
    /// Where data races are asked and the unrolling bound cut paths, also
    /// walk the executions in which a thread whose path was cut stops at
    /// the cut (its events before the statement that would exceed the
    /// bound: [`super::trace::ThreadPaths::cut_prefixes`]), as Dat3M's unrolled
    /// program ends a thread at its bound event. A race found there is a
    /// race within the bound; the final states, the condition and the
    /// execution counts never include those executions
    /// ([`super::driver::Visitor::prefixes`]). Off (`--no-prefix-races`): cut
    /// paths are dropped and a race among their events is never seen. Not
    /// a reduction: it changes which executions are asked about, so the
    /// reference enumeration keeps it.
    pub prefix_races: bool,
}

/// The bounds a user sets on one search; past any of them the answer is
/// undecided, never a verdict.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// The order limit: every order of a location with at most this many
    /// ordered writes is listed (orders grow as the factorial of this
    /// number); a location with more within a budget of listing steps, as
    /// many as every order of min(this, 8) unconstrained writes takes
    /// (`choices::mo_choices`); at most this many SC operations are
    /// ordered.
    pub max_writes_per_location: usize,
    /// Loop unrolling: a statement runs at most `unroll + 1` times on a path
    /// each time the path enters its innermost loop (`trace::loop_ranges`:
    /// an inner loop's body `unroll + 1` times per iteration of the outer
    /// one); paths that need more are cut (and counted).
    pub unroll: usize,
    /// The most candidate executions one litmus test may evaluate; past it
    /// the search stops and the result says it is truncated.
    pub max_executions: u64,
    /// The longest one walk of the candidate space may take; past it the
    /// search stops and the result says it is truncated.
    pub timeout: Option<std::time::Duration>,
    /// The instant the whole request must stop by (`--timeout` counted
    /// from the start of the command, or of a suite's row): every phase
    /// reads it (reading, front end, paths, relations, orders, model
    /// evaluation), and every search of a request shares it. Past it the
    /// answer is undecided. `None`: only `timeout` bounds each search.
    pub deadline: Option<web_time::Instant>,
    /// The most paths one thread may have (`--max-paths`); past it the
    /// answer is undecided.
    pub max_paths: usize,
    /// The most memory, in bytes, the process may hold while a search runs
    /// (`--max-memory`); past it the search stops and the answer is
    /// undecided. Enforced only where [`crate::memory::CountingAllocator`]
    /// is the global allocator (the `vkmm` binary installs it).
    pub max_memory: Option<usize>,
}

impl Bounds {
    /// Whether the time is spent: the request's deadline has passed, or
    /// `timeout` since `start` (the start of one search).
    pub fn expired(&self, start: web_time::Instant) -> bool {
        self.deadline.is_some_and(|d| web_time::Instant::now() >= d)
            || self.timeout.is_some_and(|t| start.elapsed() >= t)
    }

    /// These bounds with the deadline `timeout` from now (none without a
    /// timeout): the clock of one request starts.
    pub fn starting_now(self) -> Bounds {
        Bounds {
            deadline: self.timeout.map(|t| web_time::Instant::now() + t),
            ..self
        }
    }
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_writes_per_location: 8,
            unroll: DEFAULT_UNROLL,
            max_executions: DEFAULT_MAX_EXECUTIONS,
            timeout: None,
            deadline: None,
            max_paths: DEFAULT_MAX_PATHS,
            max_memory: Some(DEFAULT_MAX_MEMORY),
        }
    }
}

impl Limits {
    /// These limits with every reduction off (the reference enumeration,
    /// `--engine reference`, the oracle of the differential tests). Bounds,
    /// profile and modes are kept.
    pub fn reference(self) -> Limits {
        Limits {
            reductions: Reductions::none(),
            ..self
        }
    }

    /// These limits with `r` on or off.
    pub fn with(self, r: Reduction, on: bool) -> Limits {
        Limits {
            reductions: self.reductions.with(r, on),
            ..self
        }
    }

    /// Whether the search may use `r`.
    pub fn has(&self, r: Reduction) -> bool {
        self.reductions.has(r)
    }

    /// These limits, with the search profile of `model` (computed once,
    /// when the model loaded).
    pub fn for_model(self, model: &LoadedModel) -> Limits {
        Limits {
            profile: model.search,
            ..self
        }
    }
}

/// The default limit on candidate executions per litmus test.
pub const DEFAULT_MAX_EXECUTIONS: u64 = 200_000;

/// The default limit on the paths of one thread.
pub const DEFAULT_MAX_PATHS: usize = 100_000;

/// The default memory bound: 4 GiB (defined beside the allocator that
/// counts it).
pub use crate::memory::DEFAULT_MAX_MEMORY;

/// The default loop-unrolling bound.
pub const DEFAULT_UNROLL: usize = 2;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            bounds: Bounds::default(),
            reductions: Reductions::all(),
            profile: SearchProfile::default(),
            endings: false,
            threads: 1,
            undefined_values: true,
            prefix_races: true,
        }
    }
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
                "at the order limit (--max-writes: path combinations with more writes to one location, whose orders take more listing steps, were skipped)"
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
