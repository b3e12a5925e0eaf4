//! The time and memory budget read while paths are enumerated, and the
//! request's deadline as the front ends read it.

use super::*;

/// The time limit (`--timeout`) and the memory bound (`--max-memory`),
/// read while the paths are enumerated and the value domains computed: the
/// driver reads them between candidate executions only, and a path-heavy
/// thread could run far past its limit before the first candidate.
pub(crate) struct Budget {
    start: web_time::Instant,
    bounds: crate::engine::Bounds,
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

thread_local! {
    /// The deadline of the request whose front end runs on this thread,
    /// and whether a front end stopped at it ([`FrontEndClock`]).
    static FRONT_END: std::cell::Cell<(Option<web_time::Instant>, bool)> =
        const { std::cell::Cell::new((None, false)) };
}

/// The request's deadline as the front ends read it: set on this thread
/// while a front end runs ([`FrontEndClock::start`]). A front end asks
/// [`time_is_up`] now and then in its long loops and stops with an error
/// when it says so; the session then reports the request undecided
/// ([`FrontEndClock::stopped`]), not the error.
pub(crate) struct FrontEndClock {
    outer: (Option<web_time::Instant>, bool),
}

impl FrontEndClock {
    /// Sets `deadline` for the front ends run on this thread until the
    /// clock is dropped.
    pub(crate) fn start(deadline: Option<web_time::Instant>) -> FrontEndClock {
        let outer = FRONT_END.with(|c| c.replace((deadline, false)));
        FrontEndClock { outer }
    }

    /// Whether a front end stopped because the deadline passed.
    pub(crate) fn stopped(&self) -> bool {
        FRONT_END.with(|c| c.get().1)
    }
}

impl Drop for FrontEndClock {
    fn drop(&mut self) {
        FRONT_END.with(|c| c.set(self.outer));
    }
}

/// Whether the deadline of the request whose front end runs on this
/// thread has passed (never outside [`FrontEndClock::start`]); when it
/// has, the front end stops and the request is undecided.
pub(crate) fn time_is_up() -> bool {
    FRONT_END.with(|c| {
        let (deadline, _) = c.get();
        let up = deadline.is_some_and(|d| web_time::Instant::now() >= d);
        if up {
            c.set((deadline, true));
        }
        up
    })
}

/// The deadline of the request whose front end runs on this thread (for
/// a search a front end runs itself).
pub(crate) fn front_end_deadline() -> Option<web_time::Instant> {
    FRONT_END.with(|c| c.get().0)
}

/// The message of a front end stopped by [`time_is_up`].
pub(crate) const TIME_IS_UP: &str = "stopped at the time limit (--timeout)";
