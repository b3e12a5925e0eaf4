//! The time and memory budget read while paths are enumerated, and the
//! share of work listings may spend together ([`Work`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::limits::{ExecError, LimitKind, Limits};

/// Work that several listings spend together, in steps of the path walk
/// ([`Budget::step`]) plus one step per [`BYTES_PER_STEP`] bytes the
/// listing allocates ([`crate::memory::allocated_here`]: on a program
/// with many locations or statements a step copies a large state, and
/// the bytes allocated follow that cost where the steps do not). The
/// walks over barrier prefixes (`crate::engine::reduce::barrier_prefixes`)
/// list the program once per barrier count, and their share of the
/// question is counted in this work rather than in time, so that where
/// they stop does not depend on the machine or its load. A listing that
/// would pass what is left stops with [`LimitKind::MaxExecutions`] (the
/// share is sized from `--max-executions`).
#[derive(Debug)]
pub struct Work {
    left: AtomicU64,
}

/// The bytes a listing allocates that count as one step of its work
/// ([`Work`]).
pub const BYTES_PER_STEP: u64 = 256;

impl Work {
    /// A share of `steps` steps.
    pub fn new(steps: u64) -> Arc<Work> {
        Arc::new(Work {
            left: AtomicU64::new(steps),
        })
    }

    /// The steps not yet spent.
    pub fn left(&self) -> u64 {
        self.left.load(Ordering::Relaxed)
    }

    /// Spends the steps `bytes` allocated count for ([`BYTES_PER_STEP`]):
    /// false (and nothing left) when fewer are left. The walks over
    /// barrier prefixes charge their model evaluations' allocations here.
    pub fn spend_bytes(&self, bytes: u64) -> bool {
        self.spend(bytes / BYTES_PER_STEP)
    }

    /// Spends `steps`: false (and nothing left) when fewer are left.
    fn spend(&self, steps: u64) -> bool {
        let left = self.left();
        self.left
            .store(left.saturating_sub(steps), Ordering::Relaxed);
        left >= steps
    }
}

/// The time limit (`--timeout`) and the memory bound (`--max-memory`),
/// read while the paths are enumerated and the value domains computed: the
/// driver reads them between candidate executions only, and a path-heavy
/// thread could run far past its limit before the first candidate.
pub(crate) struct Budget {
    start: web_time::Instant,
    bounds: crate::engine::limits::Bounds,
    max_memory: Option<usize>,
    steps: std::cell::Cell<u64>,
    /// The share of work this listing spends from, when it has one, and
    /// the steps and the thread's bytes allocated ([`Work`]) when it was
    /// last charged.
    work: Option<Arc<Work>>,
    charged: std::cell::Cell<(u64, u64)>,
}

/// The budget is read once every this many steps of the path walk.
pub(crate) const BUDGET_EVERY: u64 = 1024;

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Budget {
        Budget {
            start: web_time::Instant::now(),
            bounds: limits.bounds,
            max_memory: limits.bounds.max_memory,
            steps: std::cell::Cell::new(0),
            work: None,
            charged: std::cell::Cell::new((0, 0)),
        }
    }

    /// This budget, its work also spent from `work` ([`Work`]).
    pub(crate) fn with_work(self, work: Option<Arc<Work>>) -> Budget {
        let mut budget = self;
        budget.work = work;
        budget
            .charged
            .set((budget.steps.get(), crate::memory::allocated_here()));
        budget
    }

    /// Charges the work done since the last charge to the share, if there
    /// is one: false when the share is spent.
    fn charge(&self) -> bool {
        let Some(work) = &self.work else {
            return true;
        };
        let (steps, bytes) = (self.steps.get(), crate::memory::allocated_here());
        let (s0, b0) = self.charged.replace((steps, bytes));
        work.spend(steps - s0 + bytes.saturating_sub(b0) / BYTES_PER_STEP)
    }

    /// One step of the walk: an error naming the limit if the memory is
    /// spent (every step: a step may allocate in proportion to the
    /// program, and reading the count is one atomic load), or every
    /// [`BUDGET_EVERY`] steps the time and the share of work, which they
    /// are taken from (`what`: what was being computed, for the message).
    pub(crate) fn step(&self, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n.is_multiple_of(BUDGET_EVERY) {
            if !self.charge() {
                return Err(ExecError::limit(
                    LimitKind::MaxExecutions,
                    format!("stopped at the listings' share of work while {}", what()),
                ));
            }
            self.check(what)
        } else if crate::memory::over(self.max_memory) {
            self.check(what)
        } else {
            Ok(())
        }
    }

    /// [`Budget::step`] without the counter.
    pub(super) fn check(&self, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        if self.bounds.expired(self.start) {
            return Err(ExecError::limit(
                LimitKind::Timeout,
                format!("stopped at the time limit (--timeout) while {}", what()),
            ));
        }
        if crate::memory::over(self.max_memory) {
            return Err(ExecError::limit(
                LimitKind::MaxMemory,
                format!(
                    "stopped at the memory bound (--max-memory) while {}",
                    what()
                ),
            ));
        }
        Ok(())
    }
}

/// The work done since the last charge is charged when the listing ends.
impl Drop for Budget {
    fn drop(&mut self) {
        self.charge();
    }
}
