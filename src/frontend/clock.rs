//! The request's bounds as the front ends read them, and the path walk a
//! front end may run itself.
//!
//! A front end runs inside a request (`vkmm check --timeout 10 ...`): its
//! long loops stop when the request's deadline passes ([`time_is_up`]), and
//! the search for the cells of a large shared variable
//! (`spirv::sparse`) walks each invocation's paths under the request's
//! bounds ([`walk_domains`]). The walk is the checker's own (the engine's
//! per-thread path walk); the session hands it in with the bounds
//! ([`FrontEndClock::start`]), so the front ends depend on the program IR
//! only, never on the engine.

use crate::ir::Program;

/// The bounds of the request a front end runs in (`--timeout`,
/// `--max-memory`, `--max-paths`, `--unroll`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FrontEndBounds {
    /// The instant the whole request must stop by.
    pub deadline: Option<web_time::Instant>,
    /// The longest one search may take.
    pub timeout: Option<std::time::Duration>,
    /// The most memory the process may hold while a search runs.
    pub max_memory: Option<usize>,
    /// The most paths one thread may have.
    pub max_paths: Option<usize>,
    /// Loop unrolling for the path walk.
    pub unroll: Option<usize>,
}

/// Why a path walk stopped without its value domains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkStop {
    /// A bound of the request stopped it (the message names the option):
    /// what the front end built so far is checked, and the answer is
    /// undecided.
    Limit(String),
    /// The program cannot be walked (not a bound).
    Error(String),
}

/// A path walk over every thread of a program, giving each location's
/// possible values (ascending), location by location.
pub type DomainWalk = fn(&Program, &FrontEndBounds) -> Result<Vec<Vec<i64>>, WalkStop>;

/// What a front end running on this thread reads.
#[derive(Clone, Copy)]
struct Context {
    bounds: FrontEndBounds,
    walk: Option<DomainWalk>,
    /// Whether a front end stopped because the deadline passed.
    stopped: bool,
    /// Whether the deadline is set aside (one bounded pass that finishes
    /// what a limited search found).
    grace: bool,
    /// The resident memory the allocator kept from earlier work when the
    /// request started ([`crate::memory::retained`]).
    retained: usize,
}

thread_local! {
    static FRONT_END: std::cell::Cell<Option<Context>> = const { std::cell::Cell::new(None) };
}

/// The request's bounds and path walk, set on this thread while a front
/// end runs; the previous ones come back when the clock is dropped.
pub struct FrontEndClock {
    outer: Option<Context>,
}

impl FrontEndClock {
    /// Sets `bounds` and `walk` for the front ends run on this thread until
    /// the clock is dropped.
    pub fn start(bounds: FrontEndBounds, walk: Option<DomainWalk>) -> FrontEndClock {
        let outer = FRONT_END.with(|c| {
            c.replace(Some(Context {
                bounds,
                walk,
                stopped: false,
                grace: false,
                retained: crate::memory::retained(),
            }))
        });
        FrontEndClock { outer }
    }

    /// Whether a front end stopped because the deadline passed.
    pub fn stopped(&self) -> bool {
        FRONT_END.with(|c| c.get().is_some_and(|x| x.stopped))
    }
}

impl Drop for FrontEndClock {
    fn drop(&mut self) {
        FRONT_END.with(|c| c.set(self.outer));
    }
}

/// Whether the deadline of the request whose front end runs on this
/// thread has passed (never outside [`FrontEndClock::start`], nor inside
/// [`Grace`]); when it has, the front end stops and the request is
/// undecided.
pub fn time_is_up() -> bool {
    FRONT_END.with(|c| {
        let Some(mut x) = c.get() else {
            return false;
        };
        if x.grace {
            return false;
        }
        let up = x
            .bounds
            .deadline
            .is_some_and(|d| web_time::Instant::now() >= d);
        if up {
            x.stopped = true;
            c.set(Some(x));
        }
        up
    })
}

/// Whether the request whose front end runs on this thread must stop, and
/// why: its deadline has passed ([`time_is_up`]: [`TIME_IS_UP`]) or the
/// process holds more than its memory bound ([`input_bound`]) as
/// [`over_input_memory`] measures it (the bytes allocated and what the
/// program itself holds, or the resident memory when larger: what the
/// front end frees, the allocator may keep; [`crate::memory::MEMORY_IS_UP`]);
/// `None` to go on. A front end's long work (a compiler's run, parsing,
/// lowering) asks it now and then, so that a request over its bounds
/// stops there rather than in the search after it. Inside [`Grace`]
/// neither bound stops the work (its one pass is bounded by the pass
/// before it).
pub fn bound_reached() -> Option<&'static str> {
    if time_is_up() {
        return Some(TIME_IS_UP);
    }
    if FRONT_END.with(|c| c.get().is_some_and(|x| x.grace)) {
        return None;
    }
    over_input_memory().then_some(crate::memory::MEMORY_IS_UP)
}

/// [`bound_reached`] with the memory counted as the search counts it
/// ([`crate::memory::over`]: the bytes allocated and what the program
/// itself holds), without reading the resident memory: cheap enough to
/// ask every few hundred steps of work, between the rarer readings of
/// [`bound_reached`].
pub fn counted_bound_reached() -> Option<&'static str> {
    if time_is_up() {
        return Some(TIME_IS_UP);
    }
    if FRONT_END.with(|c| c.get().is_some_and(|x| x.grace)) {
        return None;
    }
    crate::memory::over(input_bound()).then_some(crate::memory::MEMORY_IS_UP)
}

/// Whether a container of the front end may grow by `extra` bytes: `None`
/// to go on, or why the request must stop (the memory bound,
/// [`crate::memory::MEMORY_IS_UP`]). A table or buffer that is full moves
/// into one about twice as large while the old one is still held, and a
/// hash table fills the new one entry by entry, which can take longer
/// than the front end's periodic polls allow for: so a growth the bound
/// cannot hold is refused before it starts, as [`input_memory_leaves`]
/// measures it. Growths under a mebibyte are left to the periodic polls
/// ([`bound_reached`]), and inside [`Grace`] nothing stops the work.
pub fn room_to_grow(extra: usize) -> Option<&'static str> {
    if extra < 1 << 20 || FRONT_END.with(|c| c.get().is_none_or(|x| x.grace)) {
        return None;
    }
    (!input_memory_leaves(extra)).then_some(crate::memory::MEMORY_IS_UP)
}

/// Whether `map` may take one more entry within the memory bound
/// ([`room_to_grow`]): a full table grows into one of twice the buckets,
/// each an entry and a control byte, while the old one is held; a module
/// of hundreds of thousands of results grows its tables by tens of
/// mebibytes at once.
pub fn room_for_one_more<K, V, S>(
    map: &std::collections::HashMap<K, V, S>,
) -> Option<&'static str> {
    if map.len() < map.capacity() {
        return None;
    }
    let buckets = ((map.capacity() + 1) * 8 / 7).next_power_of_two();
    room_to_grow(buckets * (std::mem::size_of::<(K, V)>() + 1))
}

/// Whether the process is past the memory bound of the request whose
/// front end runs on this thread ([`input_bound`]), measured as
/// [`crate::memory::over_input_bound`] measures it: resident memory less
/// what the allocator kept from earlier work when the request started, so
/// that a request after one near the bound is not refused for pages the
/// process no longer holds.
pub fn over_input_memory() -> bool {
    crate::memory::over_input_bound(input_bound(), input_retained())
}

/// Whether `extra` more bytes leave the process within the memory bound of
/// the request whose front end runs on this thread
/// ([`crate::memory::input_bound_leaves`], measured as
/// [`over_input_memory`] measures it).
pub fn input_memory_leaves(extra: usize) -> bool {
    crate::memory::input_bound_leaves(input_bound(), extra, input_retained())
}

/// The resident memory the allocator kept from earlier work when the
/// request whose front end runs on this thread started (0 outside a
/// request).
fn input_retained() -> usize {
    FRONT_END.with(|c| c.get().map_or(0, |x| x.retained))
}

/// The memory bound input files and readers are held to on this thread:
/// the `--max-memory` of the request whose front end runs here (`None`:
/// it has none), or [`crate::memory::DEFAULT_MAX_MEMORY`] outside a
/// request. The bound is the request's, never the process's: requests
/// running side by side on other threads read under their own.
pub fn input_bound() -> Option<usize> {
    FRONT_END.with(|c| match c.get() {
        Some(x) => x.bounds.max_memory,
        None => Some(crate::memory::DEFAULT_MAX_MEMORY),
    })
}

/// The message of a front end stopped by [`time_is_up`].
pub const TIME_IS_UP: &str = "stopped at the time limit (--timeout)";

/// Sets the deadline aside until dropped: a front end whose search stopped
/// at a bound finishes one more pass over what it found (no longer than
/// each pass of the search took), so that what was covered is checked and
/// reported undecided instead of nothing.
pub struct Grace {
    outer: bool,
}

impl Grace {
    pub fn start() -> Grace {
        let outer = FRONT_END.with(|c| {
            let Some(mut x) = c.get() else {
                return false;
            };
            let outer = x.grace;
            x.grace = true;
            c.set(Some(x));
            outer
        });
        Grace { outer }
    }
}

impl Drop for Grace {
    fn drop(&mut self) {
        FRONT_END.with(|c| {
            if let Some(mut x) = c.get() {
                x.grace = self.outer;
                c.set(Some(x));
            }
        });
    }
}

/// Walks `program`'s paths under the request's bounds with the walk the
/// request handed in. Outside a request (a front end called directly, not
/// through `vkmm::Session`) there is no walk, and the search is stopped as
/// by a bound.
pub fn walk_domains(program: &Program) -> Result<Vec<Vec<i64>>, WalkStop> {
    let context = FRONT_END.with(|c| c.get());
    match context {
        Some(Context {
            walk: Some(walk),
            bounds,
            ..
        }) => walk(program, &bounds),
        _ => Err(WalkStop::Limit(
            "no path walk outside a request: load the shader through vkmm::Session".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_walk(_: &Program, _: &FrontEndBounds) -> Result<Vec<Vec<i64>>, WalkStop> {
        Err(WalkStop::Limit(
            "stopped at the memory bound (--max-memory)".into(),
        ))
    }

    #[test]
    fn the_clock_reads_the_deadline_and_grace_sets_it_aside() {
        // Outside a request nothing is ever late.
        assert!(!time_is_up());
        let past = web_time::Instant::now();
        let clock = FrontEndClock::start(
            FrontEndBounds {
                deadline: Some(past),
                ..FrontEndBounds::default()
            },
            Some(no_walk),
        );
        {
            let _grace = Grace::start();
            assert!(!time_is_up());
            assert!(!clock.stopped());
        }
        assert!(time_is_up());
        assert!(clock.stopped());
        assert_eq!(
            walk_domains(&Program::default()),
            Err(WalkStop::Limit(
                "stopped at the memory bound (--max-memory)".into()
            ))
        );
        drop(clock);
        assert!(!time_is_up());
        assert!(matches!(
            walk_domains(&Program::default()),
            Err(WalkStop::Limit(m)) if m.contains("vkmm::Session")
        ));
    }

    /// The bounds a front end's long work polls ([`bound_reached`]): a
    /// passed deadline stops it, except inside [`Grace`]; outside a
    /// request nothing stops. A SPIR-V assembly text of 5,000 comment
    /// lines read with the deadline passed stops where the parser first
    /// asks, at line 4,096 (read whole, it is a module with no entry
    /// point). The memory bound, which this binary cannot count (no
    /// counting allocator), is polled at the same places; the command
    /// line's tests reach it (tests/cli/limits.rs).
    #[test]
    fn the_front_ends_poll_the_bounds() {
        assert_eq!(bound_reached(), None);
        let text = "; nothing\n".repeat(5000);
        let read = || {
            crate::frontend::parse_text(
                "long.spvasm",
                &text,
                crate::frontend::Format::Spirv,
                crate::frontend::Options::default(),
            )
        };
        let whole = read().expect_err("no entry point");
        assert!(!whole.message.contains("--timeout"), "{whole}");
        let clock = FrontEndClock::start(
            FrontEndBounds {
                deadline: Some(web_time::Instant::now()),
                ..FrontEndBounds::default()
            },
            None,
        );
        {
            let _grace = Grace::start();
            assert_eq!(bound_reached(), None);
        }
        assert_eq!(bound_reached(), Some(TIME_IS_UP));
        let stopped = read().expect_err("stopped");
        assert_eq!(
            (stopped.line, stopped.message.as_str()),
            (4096, TIME_IS_UP),
            "{stopped}"
        );
        assert!(clock.stopped());
    }
}
