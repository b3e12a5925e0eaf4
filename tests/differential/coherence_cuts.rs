//! Differential and hand-derived tests of coherence cuts
//! (`Reduction::CoherenceCuts`, `--no coherence-cuts`): a path on which a
//! thread's reads of one location change value more often than the other
//! threads can write it is the prefix of no execution, so the paths the
//! bound cut that do so are dropped instead of counted
//! (`engine::trace::coherence` has the argument).
//!
//! No execution has those paths, so the executions are the same ones: the
//! final states with their counts, the consistent executions, the races,
//! the condition's verdict. What differs is the walk: fewer candidates and
//! fewer paths cut, so an answer the search without the reduction leaves
//! undecided (races "undecided") may be decided with it; a verdict decided
//! without it must be the same, and the reduction never cuts more.
//!
//! The corpus-wide comparison runs as the `coherence-cuts` row of
//! [`crate::table`].

use crate::common;
use crate::path_drops;

use std::path::Path;
use vkmm::Session;
use vkmm::analysis::LitmusOutcome;

pub(crate) fn session(on: bool) -> Session {
    path_drops::session(vkmm::Reduction::CoherenceCuts, on)
}

pub(crate) use path_drops::skipped;

fn compare(name: &str, off: &LitmusOutcome, on: &LitmusOutcome) -> Vec<String> {
    path_drops::compare("coherence cuts", name, off, on)
}

pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    path_drops::compare_file(vkmm::Reduction::CoherenceCuts, "coherence cuts", path)
}

fn run(text: &str, on: bool, unroll: usize) -> LitmusOutcome {
    run_in(session(on), text, unroll)
}

fn run_in(session: Session, text: &str, unroll: usize) -> LitmusOutcome {
    common::litmus(session.unroll(unroll).check_text("t.litmus", text).unwrap())
}

/// Dat3M's TSan test (ported from C11): P1 and P2 each read `x`, then
/// compare-exchange `x` with the value last seen until it succeeds (a
/// failure stores the value read as the next one expected), then store 1
/// (P1) or 2 (P2); P0 reads `x` twice. A failure reads a value other than
/// the thread's previous access to `x` read, so each failure reads a later
/// write of the other writer, which writes `x` twice (its successful
/// compare-exchange, its store): at most two failures per thread, three
/// runs of the loop, within the default bound. Without the reduction the
/// paths failing three times are cut at every bound (and the walk at
/// unroll 5 reaches the execution limit); with it they are dropped, and
/// the answer is complete: the same 210 consistent executions and seven
/// final states as without it, at unroll 2 and 5 alike.
#[test]
fn tsan_is_complete() {
    let Some(dir) = common::corpus_or_skip("dat3m-opencl") else {
        return;
    };
    let path = dir.join("portedFromC11/manual/TSan.litmus");
    let text = std::fs::read_to_string(&path).unwrap();
    // The default execution limit: the walk evaluates about 20,000
    // candidates, complete and partial.
    let run = |on: bool, unroll| {
        let s = Session::new().reduction(vkmm::Reduction::CoherenceCuts, on);
        run_in(s, &text, unroll)
    };
    let off = run(false, 2);
    assert!(off.cut_paths > 0);
    assert_eq!(off.race_free, None);
    for unroll in [2, 5] {
        let on = run(true, unroll);
        assert_eq!(on.cut_paths, 0, "unroll {unroll}");
        assert!(!on.truncated && on.stopped_by.is_none(), "unroll {unroll}");
        assert_eq!(on.consistent, 210, "unroll {unroll}");
        assert_eq!(on.states, off.states, "unroll {unroll}");
        assert_eq!(on.states.len(), 7);
        // P0 reading 2 then 0 would read P2's store and then the initial
        // value, against read-read coherence.
        assert_eq!(on.condition_holds, Some(false));
        // Only atomics touch `x`; `y` and `a` are their thread's own.
        assert_eq!(on.race_free, Some(true));
    }
    assert!(compare("TSan", &off, &run(true, 2)).is_empty());
}

/// A lock-free increment: each thread reads `c`, then compare-exchanges
/// it from the value last seen to one more until it succeeds. By hand:
/// each thread's successful compare-exchange adds one to the value it
/// reads, and a read-modify-write reads the write before it in coherence,
/// so `c` ends at the number of threads in every execution; `exists
/// (c=N-1)` never holds; only atomics touch `c`, and `e0`, `e1`, ... are
/// each their own thread's, so no race. A failure reads a value the thread
/// has not seen last, a later write of another thread, and each other
/// thread writes `c` once (its success: the loop leaves when it succeeds),
/// so the paths failing more often than there are other threads are
/// dropped and no path is cut.
fn increments(n: usize) -> String {
    let mut text = format!("OPENCL casinc{n}\n{{ c=0; }}\n");
    for i in 0..n {
        text += &format!(
            "P{i}@wg 0, dev 0 (global atomic_int* c, global int* e{i}) {{\n  *e{i} = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e{i}, *e{i} + 1, memory_order_relaxed, memory_order_relaxed) == 0) {{}}\n}}\n"
        );
    }
    text + &format!("exists (c={})\n", n - 1)
}

/// A test-and-test-and-set lock: each thread compare-exchanges the lock
/// `m` from 0 to 1 (acquire) and, while that fails, waits until it reads 0
/// and tries again; in the critical section it increments the plain `x`,
/// then releases with a release store of 0. By hand: the successful
/// compare-exchange reads the release store of the thread before it (or
/// the initial 0), which synchronises, so the critical sections are
/// ordered by happens-before: `x` ends at the number of threads, `exists
/// (x=N-1)` never holds, and no access races. A failed attempt after a
/// wait reads 1 after reading 0 and the wait after it 0 after 1: two
/// changes of the value read per retry, each a later write of another
/// thread (two each: its acquiring and its releasing write), so the paths
/// retrying more often are dropped and no path is cut (the wait itself is
/// an await, `spin-reduction`).
fn ttas_lock(n: usize) -> String {
    let mut text = format!("OPENCL caslock{n}\n{{ m=0; x=0; }}\n");
    for i in 0..n {
        text += &format!(
            "P{i}@wg {i}, dev 0 (global atomic_int* m, global int* e{i}, global int* x) {{\n  *e{i} = 0;\n  while (atomic_compare_exchange_strong_explicit(m, e{i}, 1, memory_order_acquire, memory_order_relaxed) == 0) {{\n    while (atomic_load_explicit(m, memory_order_relaxed) != 0) {{}}\n    *e{i} = 0;\n  }}\n  int r{i} = *x;\n  *x = r{i} + 1;\n  atomic_store_explicit(m, 0, memory_order_release);\n}}\n"
        );
    }
    text + &format!("exists (x={})\n", n - 1)
}

/// The verdicts derived above for a program of `n` threads whose final
/// state is the one value `n` at `loc`: complete with the reduction, cut
/// without it, the same states either way.
fn complete_with_the_one_state(text: &str, loc: &str, n: usize) {
    // Three threads' walks evaluate more candidates than the comparisons'
    // limit: the default one.
    let session = |on: bool| {
        Session::new()
            .max_executions(1_000_000)
            .reduction(vkmm::Reduction::CoherenceCuts, on)
    };
    let (off, on) = (
        run_in(session(false), text, 2),
        run_in(session(true), text, 2),
    );
    assert!(off.cut_paths > 0);
    assert_eq!(on.cut_paths, 0);
    assert!(!on.truncated && on.stopped_by.is_none());
    assert_eq!(on.states, off.states);
    assert_eq!(on.states.len(), 1, "{:?}", on.states);
    assert_eq!(on.states[0].0.get(loc), Some(n as i64), "{:?}", on.states);
    assert_eq!(on.condition_holds, Some(false));
    assert_eq!(on.race_free, Some(true));
    assert!(compare("hand", &off, &on).is_empty());
}

#[test]
fn a_compare_exchange_increment_of_two_threads_is_complete() {
    complete_with_the_one_state(&increments(2), "c", 2);
}

#[test]
fn a_compare_exchange_lock_of_two_threads_is_complete() {
    complete_with_the_one_state(&ttas_lock(2), "x", 2);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: about 5 s, the search without the reduction (two threads: a_compare_exchange_lock_of_two_threads_is_complete)"
)]
fn a_compare_exchange_lock_of_three_threads_is_complete() {
    complete_with_the_one_state(&ttas_lock(3), "x", 3);
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: about 20 s, the search without the reduction (two threads: a_compare_exchange_increment_of_two_threads_is_complete)"
)]
fn a_compare_exchange_increment_of_three_threads_is_complete() {
    complete_with_the_one_state(&increments(3), "c", 3);
}

/// Both threads' compare-exchange loops also store 5 to `c` in every
/// failing iteration: a loop whose repeated iterations write the location,
/// so the other thread's writes have no bound and the reduction leaves
/// `c` out: the same paths are cut with it as without it, and the answer
/// stays undecided. (The states are those within the bound.)
#[test]
fn a_loop_writing_the_location_again_is_left_alone() {
    let mut text = String::from("OPENCL casloopwrite\n{ c=0; }\n");
    for i in 0..2 {
        text += &format!(
            "P{i}@wg 0, dev 0 (global atomic_int* c, global int* e{i}) {{\n  *e{i} = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e{i}, *e{i} + 1, memory_order_relaxed, memory_order_relaxed) == 0) {{\n    atomic_store_explicit(c, 5, memory_order_relaxed);\n  }}\n}}\n"
        );
    }
    text += "exists (c=2)\n";
    let (off, on) = (run(&text, false, 1), run(&text, true, 1));
    assert!(off.cut_paths > 0);
    assert_eq!(on.cut_paths, off.cut_paths);
    assert_eq!(on.states, off.states);
    assert_eq!(on.race_free, None);
}

/// One thread's loop writes `c` in its failing iterations, the other's
/// only when it leaves: the first thread's reads are bounded by the
/// second's one write (its paths changing value twice are dropped), the
/// second's are not (the first writes without bound), so fewer paths are
/// cut, some still are, and the states are the same.
#[test]
fn only_the_bounded_side_is_cut_short() {
    let text = "OPENCL casloopwrite1\n{ c=0; }\nP0@wg 0, dev 0 (global atomic_int* c, global int* e0) {\n  *e0 = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e0, *e0 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n}\nP1@wg 0, dev 0 (global atomic_int* c, global int* e1) {\n  *e1 = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e1, *e1 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {\n    atomic_store_explicit(c, 5, memory_order_relaxed);\n  }\n}\nexists (c=2)\n";
    let (off, on) = (run(text, false, 1), run(text, true, 1));
    assert!(on.cut_paths > 0 && on.cut_paths < off.cut_paths);
    assert_eq!(on.states, off.states);
    assert!(compare("one side", &off, &on).is_empty());
}

/// Each thread runs the lock-free increment of [`increments`] `k` times,
/// in a loop over a constant count around the compare-exchange loop. By
/// hand: each successful compare-exchange adds one to the value it reads,
/// and reads the write before it in coherence, so `c` ends at `n * k` in
/// every execution; only atomics touch `c`, each `e_i` is its thread's
/// own: race-free. The compare-exchange's success jumps back to the outer
/// loop's head, but the counter of that loop is known on every path
/// (constants, no read from memory decides it), so each thread's
/// compare-exchange succeeds at most `k` times: the other threads write
/// `c` at most `(n - 1) * k` times, the paths failing more often are
/// dropped. Every iteration counts against the unrolling bound.
fn outer_increments(n: usize, k: usize) -> String {
    let mut text = format!("OPENCL casouter{n}x{k}\n{{ c=0; }}\n");
    for i in 0..n {
        text += &format!(
            "P{i}@wg 0, dev 0 (global atomic_int* c, global int* e{i}) {{\n  int j{i} = 0;\n  while (j{i} < {k}) {{\n    *e{i} = atomic_load_explicit(c, memory_order_relaxed);\n    while (atomic_compare_exchange_strong_explicit(c, e{i}, *e{i} + 1, memory_order_relaxed, memory_order_relaxed) == 0) {{}}\n    j{i} = j{i} + 1;\n  }}\n}}\n"
        );
    }
    text + &format!("exists (c={})\n", n * k - 1)
}

/// The search without the reduction at `unroll`: at a bound every
/// execution fits, its states with their counts and its consistent
/// executions are all the program's (it still cuts the paths no
/// execution has, which fail more often than the others write).
fn without_at(text: &str, unroll: usize) -> LitmusOutcome {
    run_in(session(false).max_executions(1_000_000), text, unroll)
}

/// [`outer_increments`] of two threads, once each: complete with the
/// reduction at unroll 2 (cut without it), `c` ends at `n * k`, and the
/// states with their counts and the consistent executions are those of
/// the search without it at an unrolling bound every execution fits
/// (each compare-exchange loop runs at most `k + 1` times: it fails only
/// on a new write of the other thread).
#[test]
fn a_compare_exchange_inside_a_counted_loop_is_complete() {
    // Twice each (k = 2) the compare-exchange loop may run three times in
    // the outer loop's second iteration, past unroll 2, and the bound
    // every execution fits is too slow for this tier: the counting of two
    // successes is pinned by `a_compare_exchange_run_twice_counts_twice`.
    let k = 1;
    let text = outer_increments(2, k);
    let s = |on: bool| session(on).max_executions(1_000_000);
    let (off, on) = (run_in(s(false), &text, 2), run_in(s(true), &text, 2));
    assert!(off.cut_paths > 0, "k {k}");
    assert_eq!(on.cut_paths, 0, "k {k}");
    assert!(!on.truncated && on.stopped_by.is_none(), "k {k}");
    assert_eq!(on.states.len(), 1, "k {k}: {:?}", on.states);
    assert_eq!(on.states[0].0.get("c"), Some(2 * k as i64), "k {k}");
    assert_eq!(on.condition_holds, Some(false), "k {k}");
    assert_eq!(on.race_free, Some(true), "k {k}");
    let all = without_at(&text, k + 1);
    assert_eq!(on.states, all.states, "k {k}");
    assert_eq!(on.consistent, all.consistent, "k {k}");
}

/// Thread 0 increments `c` once, thread 1 twice (its loop over a constant
/// count of 2): thread 0's compare-exchange can fail twice (each of
/// thread 1's writes after its load), so a bound of one write for
/// thread 1 would drop real executions. The consistent executions and
/// the states with counts are those of the search without the reduction
/// at a bound every execution fits (thread 0's loop runs at most three
/// times, each of thread 1's at most twice); `c` ends at 3.
#[test]
fn a_compare_exchange_run_twice_counts_twice() {
    let text = "OPENCL casouter12\n{ c=0; }\nP0@wg 0, dev 0 (global atomic_int* c, global int* e0) {\n  *e0 = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e0, *e0 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n}\nP1@wg 0, dev 0 (global atomic_int* c, global int* e1) {\n  int j = 0;\n  while (j < 2) {\n    *e1 = atomic_load_explicit(c, memory_order_relaxed);\n    while (atomic_compare_exchange_strong_explicit(c, e1, *e1 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n    j = j + 1;\n  }\n}\nexists (c=2)\n";
    let on = run_in(session(true).max_executions(1_000_000), text, 2);
    assert_eq!(on.cut_paths, 0);
    assert!(!on.truncated && on.stopped_by.is_none());
    assert_eq!(on.states.len(), 1, "{:?}", on.states);
    assert_eq!(on.states[0].0.get("c"), Some(3));
    let all = without_at(text, 2);
    assert_eq!(on.states, all.states);
    assert_eq!(on.consistent, all.consistent);
    assert!(compare("twice", &all, &on).is_empty());
}

/// The compare-exchange loop sits inside a loop that goes round while a
/// flag read from memory is 0, and thread 0 sets the flag only after its
/// own increment: thread 1's loop can run, and write `c`, any number of
/// times, so no bound covers `c` for thread 0 and the reduction leaves
/// the location out: thread 0's paths are cut as without it, and the
/// answer stays undecided.
#[test]
fn a_compare_exchange_inside_a_loop_memory_decides_is_left_alone() {
    let text = "OPENCL casflag\n{ c=0; f=0; }\nP0@wg 0, dev 0 (global atomic_int* c, global atomic_int* f, global int* e0) {\n  *e0 = atomic_load_explicit(c, memory_order_relaxed);\n  while (atomic_compare_exchange_strong_explicit(c, e0, *e0 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n  atomic_store_explicit(f, 1, memory_order_relaxed);\n}\nP1@wg 0, dev 0 (global atomic_int* c, global atomic_int* f, global int* e1) {\n  while (atomic_load_explicit(f, memory_order_relaxed) == 0) {\n    *e1 = atomic_load_explicit(c, memory_order_relaxed);\n    while (atomic_compare_exchange_strong_explicit(c, e1, *e1 + 1, memory_order_relaxed, memory_order_relaxed) == 0) {}\n  }\n}\nexists (c=1)\n";
    let (off, on) = (run(text, false, 1), run(text, true, 1));
    assert!(off.cut_paths > 0);
    assert_eq!(on.race_free, None);
    assert_eq!(on.states, off.states);
    assert!(compare("flag", &off, &on).is_empty());
}
