//! The time and memory budget read while paths are enumerated.

use crate::engine::limits::{ExecError, LimitKind, Limits};

/// The time limit (`--timeout`) and the memory bound (`--max-memory`),
/// read while the paths are enumerated and the value domains computed: the
/// driver reads them between candidate executions only, and a path-heavy
/// thread could run far past its limit before the first candidate.
pub(crate) struct Budget {
    start: web_time::Instant,
    bounds: crate::engine::limits::Bounds,
    max_memory: Option<usize>,
    steps: std::cell::Cell<u64>,
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
        }
    }

    /// One step of the walk: an error naming the limit if the memory is
    /// spent (every step: a step may allocate in proportion to the
    /// program, and reading the count is one atomic load), or every
    /// [`BUDGET_EVERY`] steps the time (`what`: what was being computed,
    /// for the message).
    pub(crate) fn step(&self, what: &dyn Fn() -> String) -> Result<(), ExecError> {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n.is_multiple_of(BUDGET_EVERY) || crate::memory::over(self.max_memory) {
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
