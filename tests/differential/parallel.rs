//! Differential test of the parallel search (issue 11, item 5:
//! `Limits::threads`, `engine::driver::explore_split`, `vkmm check -j N`)
//! against the sequential one.
//!
//! The parallel walk cuts one search into consecutive parts (skeletons in
//! walk order, a skeleton with many candidates cut into ranges of its
//! coherence-order combinations), explores them on a rayon pool and merges
//! the visitors' findings in part order. That replays the sequential walk,
//! so everything a complete search reports must be identical: the final
//! states with their execution counts, the condition verdict, witnesses,
//! the racing pairs in the same order, barrier divergences and stalls, the
//! numbers of executions, partial evaluations and consistent executions,
//! `stopped_early`, and each `.test` query's answer with the execution it
//! was found at. Compared with 1, 2 and 3 threads (3 cuts the parts
//! unevenly) on the repository's own tests and examples and on the corpora
//! dat3m-vulkan, khronos-alloy and dat3m-opencl (the xf-barrier tests are
//! left out, as in tests/differential/lazy.rs: seconds each at the limit).
//!
//! A search that stops at the execution limit is the exception: the parts
//! spend one shared budget, so which candidates were seen before it may
//! differ. There the parallel search must say it was truncated, at the
//! same limit, as the sequential one does.
//!
//! The unit tests at the end check a property decided in one part that
//! stops the other parts (`a_decided_property_stops_every_part`) and the
//! execution limit truncating a parallel search
//! (`the_execution_limit_truncates_a_parallel_search`).

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use vkmm::Session;
use vkmm::analysis::{Checked, Property};

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(threads: usize) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .threads(threads)
}

/// A rayon pool of `n` threads (one per thread count, shared by the tests).
fn pool(n: usize) -> &'static rayon::ThreadPool {
    static POOLS: [OnceLock<rayon::ThreadPool>; 4] = [const { OnceLock::new() }; 4];
    POOLS[n].get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    })
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// What [`common::search_summary`] compares, with what it leaves out that a
/// parallel search could get wrong: `stopped_early`, and for each `.test`
/// query the execution it was answered at, the candidate space and the
/// barrier divergences.
fn summary(c: &Checked) -> String {
    let mut s = common::search_summary(c);
    match c {
        Checked::Litmus(o) => s.push_str(&format!(
            "\nstopped early {} positive {} negative {}",
            o.stopped_early, o.positive, o.negative
        )),
        Checked::Queries(o) => {
            s.push_str(&format!(
                "events {} candidates {} divergence {:?}\n",
                o.events, o.candidates, o.barrier_divergence
            ));
            for q in &o.queries {
                s.push_str(&format!("line {}: at {}\n", q.line, q.executions));
            }
        }
        Checked::Termination(_) => {}
    }
    s
}

/// The limit a litmus search stopped at, if any (`.test` answers at a limit
/// say `Undecided`, compared as they are).
fn truncated(c: &Checked) -> Option<vkmm::LimitKind> {
    match c {
        Checked::Litmus(o) if o.truncated => Some(o.stopped_by.unwrap()),
        _ => None,
    }
}

/// `path` checked sequentially and with 2 and 3 threads: one line per
/// disagreement.
pub(crate) fn compare(path: &Path, decide: Option<Property>) -> Vec<String> {
    let name = path.display().to_string();
    let check = |threads: usize| {
        let s = session(threads).decide(decide);
        pool(threads).install(|| s.check_file(path))
    };
    let reference = check(1);
    let mut diffs = Vec::new();
    for threads in [2, 3] {
        let other = check(threads);
        match (&reference, &other) {
            (Ok(a), Ok(b)) => match truncated(a) {
                Some(kind) => {
                    if truncated(b) != Some(kind) {
                        diffs.push(format!(
                            "{name} ({decide:?}): sequential stopped at {kind:?}, {threads} threads at {:?}",
                            truncated(b)
                        ));
                    }
                }
                None => {
                    let (a, b) = (summary(a), summary(b));
                    if a != b {
                        diffs.push(format!(
                            "{name} ({decide:?}):\nsequential:\n{a}\n{threads} threads:\n{b}"
                        ));
                    }
                }
            },
            (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
            (a, b) => diffs.push(format!(
                "{name}: {:?} / {:?}",
                a.as_ref().err().map(|e| e.to_string()),
                b.as_ref().err().map(|e| e.to_string())
            )),
        }
    }
    diffs
}

fn assert_same(files: &[PathBuf], decide: Option<Property>) {
    let diffs = common::on_two_threads(files, &|p| compare(p, decide));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn own_tests_and_examples() {
    let own = common::own_litmus_files(&skipped);
    assert!(own.len() > 200, "{} files", own.len());
    assert_same(&own, None);
    // Decided: the search stops at the first witness (a condition decided
    // in one part stops the others), with the same witness counts.
    let litmus: Vec<PathBuf> = own
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    assert_same(&litmus, Some(Property::Condition));
    assert_same(&litmus, Some(Property::Races));
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn corpora() {
    for sub in ["dat3m-vulkan", "khronos-alloy", "dat3m-opencl"] {
        let Some(dir) = common::corpus_or_skip(sub) else {
            continue;
        };
        let mut files = Vec::new();
        common::litmus_files_below(&dir, &skipped, &mut files);
        assert!(!files.is_empty());
        assert_same(&files, None);
    }
}

/// A test whose condition is decided by a witness past the first part:
/// with the property decided, the parallel search stops early (parts after
/// the deciding one stop through the shared flag, and none of them is
/// merged), with the same witness and execution counts as the sequential
/// search, and fewer executions than the whole listing.
///
/// Four threads each store 1 to their own location then load two others:
/// eight reads of two possible writes each (the initial value or the one
/// store), 256 candidates, enough for the parallel driver to cut the one
/// skeleton into parts by the choices of the first read it branches on.
/// The condition `P0:r0 == 1` holds in the executions where P0's first
/// load reads P1's store, which the Vulkan memory model allows (nothing
/// orders the store after the load: "a read returns the value of a write
/// it reads from", and the stores and loads are relaxed atomics with no
/// synchronisation), so the `exists` condition holds; the search meets the
/// initial-value choices first, so the witness is not the first candidate.
///
/// Here the witness falls in the last part that has candidates, so this
/// test alone does not see parts after the deciding one being dropped:
/// `own_tests_and_examples` does (its decided runs). Mutation checked:
/// merging the parts after the one that broke, without the shared flag,
/// fails it on tests/fixtures/litmus-bytes/race-one-byte.litmus and
/// tests/fixtures/litmus-host/bug-copy-barrier-no-transfer-read.litmus.
#[test]
fn a_decided_property_stops_every_part() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/differential-parallel-decided.litmus");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        "VULKAN decided\n{ x=0; y=0; z=0; w=0; }\n\
         P0@sg 0,wg 0,qf 0 | P1@sg 0,wg 1,qf 0 | P2@sg 0,wg 2,qf 0 | P3@sg 0,wg 3,qf 0 ;\n\
         st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 y, 1 | st.atom.dv.sc0 z, 1 | st.atom.dv.sc0 w, 1 ;\n\
         ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r0, z | ld.atom.dv.sc0 r0, w | ld.atom.dv.sc0 r0, x ;\n\
         ld.atom.dv.sc0 r1, z | ld.atom.dv.sc0 r1, w | ld.atom.dv.sc0 r1, x | ld.atom.dv.sc0 r1, y ;\n\
         exists (P0:r0 == 1)\n",
    )
    .unwrap();
    let run = |threads: usize, decide: Option<Property>| {
        // The full walk: the outcome-directed one would evaluate only
        // witnesses, and this test needs candidates before the witness.
        let s = Session::new()
            .threads(threads)
            .decide(decide)
            .reduction(vkmm::Reduction::OutcomeDirected, false);
        common::litmus(pool(threads).install(|| s.check_file(&path)).unwrap())
    };
    let full = run(1, None);
    assert_eq!(full.condition_holds, Some(true));
    assert!(full.positive >= 1 && full.negative >= 1, "{full:?}");
    let sequential = run(1, Some(Property::Condition));
    assert!(sequential.stopped_early);
    assert!(full.executions >= 256, "{}", full.executions);
    assert!(
        sequential.negative > 0,
        "the witness is not the first candidate"
    );
    for threads in [2, 3] {
        let parallel = run(threads, Some(Property::Condition));
        assert!(parallel.stopped_early, "{threads} threads: {parallel:?}");
        assert!(!parallel.truncated);
        assert_eq!(parallel.condition_holds, Some(true));
        assert_eq!(parallel.positive, 1, "one witness: the walk stopped there");
        assert_eq!(sequential.positive, 1);
        assert_eq!(parallel.negative, sequential.negative);
        assert_eq!(parallel.executions, sequential.executions);
        assert_eq!(parallel.partial_evaluations, sequential.partial_evaluations);
        assert_eq!(parallel.states, sequential.states);
        assert!(
            parallel.executions < full.executions,
            "the walk stopped early"
        );
    }
    let _ = std::fs::remove_file(&path);
}

/// A search past the execution limit, split into parts: the parts spend one
/// budget, so the parallel search evaluates no more than the limit allows
/// (plus one evaluation per thread under way when it was reached) and says
/// it was truncated at the execution limit, its verdicts undecided where
/// the executions seen do not settle them.
#[test]
fn the_execution_limit_truncates_a_parallel_search() {
    // (Symmetry reduction off too: it divides the candidates of the
    // files with identical threads, which this test wants many of.)
    let concrete = || {
        Session::new()
            .reduction(vkmm::Reduction::SymbolicStores, false)
            .reduction(vkmm::Reduction::Symmetry, false)
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp-coherence-pressure.litmus");
    let path = if path.exists() {
        path
    } else {
        // Any own test with more candidates than the limit below (the
        // concrete enumeration: symbolic stores leave none with as many).
        common::own_litmus_files(&skipped)
            .into_iter()
            .find(|p| {
                matches!(concrete().check_file(p), Ok(Checked::Litmus(o)) if o.executions + o.partial_evaluations > 200 && !o.truncated)
            })
            .expect("an own test with more than 200 evaluations")
    };
    let full = common::litmus(concrete().check_file(&path).unwrap());
    assert!(!full.truncated);
    let limit = full.executions + full.partial_evaluations - 1;
    for threads in [1, 2, 3] {
        let s = concrete().threads(threads).max_executions(limit / 4);
        let o = common::litmus(pool(threads).install(|| s.check_file(&path)).unwrap());
        assert!(o.truncated, "{threads} threads: {o:?}");
        assert!(!o.complete());
        assert_eq!(
            o.stopped_by,
            Some(vkmm::LimitKind::MaxExecutions),
            "{threads} threads"
        );
        assert!(
            o.executions + o.partial_evaluations <= limit / 4 + threads as u64,
            "{threads} threads: {} + {} evaluations past the limit {}",
            o.executions,
            o.partial_evaluations,
            limit / 4
        );
        assert_eq!(o.race_free, None.or(o.race_free.filter(|f| !f)));
    }
}

/// Many waves in flight: the flag barrier at 5 threads (the scaling
/// family, generated by scripts/scaling.py into tests/fixtures/scaling-large)
/// without symmetry reduction has 120 skeletons of one execution each,
/// one unit each, so the driver hands out waves (16 units per thread) while earlier ones are still searched
/// (`engine::driver::parallel`, overlapped waves), and merges them in walk
/// order: the same summary as the sequential walk, with 2 and 3 threads.
#[test]
fn many_waves_merge_in_walk_order() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scaling-large/barrier-flags-5.litmus");
    let check = |threads: usize| {
        let s = session(threads).reduction(vkmm::Reduction::Symmetry, false);
        pool(threads).install(|| s.check_file(&path)).unwrap()
    };
    let reference = check(1);
    match &reference {
        Checked::Litmus(o) => {
            assert!(!o.truncated);
            assert_eq!(o.executions, 120, "one execution per arrival order");
            assert_eq!(o.race_free, Some(true));
        }
        other => panic!("{other:?}"),
    }
    for threads in [2, 3] {
        assert_eq!(
            summary(&check(threads)),
            summary(&reference),
            "{threads} threads"
        );
    }
}
