//! The walk over executions in which a thread spins forever at an await
//! skips the combinations that extend to complete executions
//! (`Reduction::SpinExtension`, `engine::Explorer::set_spin_extension`,
//! the `await-extension` declaration of models/vulkan-rules.cat): every
//! stopped thread spins at an await and extends, by loads only, to one of
//! its complete paths whose loads of a concrete value read a value every
//! write of the location writes. Such an execution's races are races of
//! the extended complete execution, which the complete walk reported.
//!
//! - hand-derived verdicts (tests/fixtures/litmus-bound, the Data Race sentence
//!   quoted in each file): a race-free message passing whose spinning
//!   executions are skipped, and races found only where a thread spins on
//!   a value nobody writes, or nobody writes in that combination (not
//!   skipped);
//! - the same answers and races with and without the lever on every own
//!   test, the examples and the dat3m-vulkan, khronos-alloy and
//!   dat3m-opencl corpora (tests/differential/spin.rs adds generated programs);
//! - barrier-flags-3: every spinning combination is skipped.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Session;
use vkmm::analysis::LitmusOutcome;

fn bound(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-bound")
        .join(file)
}

fn run(path: &Path, on: bool) -> LitmusOutcome {
    common::litmus(
        Session::new()
            .reduction(vkmm::Reduction::SpinExtension, on)
            .check_file(path)
            .unwrap(),
    )
}

/// Message passing through an await (hand-derived: no race). With the
/// lever, the one spinning combination (P1 at its await, P0 complete) is
/// skipped, not walked; without, it is walked (one execution, no race).
#[test]
fn spinning_executions_that_extend_are_skipped() {
    let path = bound("spin-extends-race-free.litmus");
    let (on, off) = (run(&path, true), run(&path, false));
    for o in [&on, &off] {
        assert_eq!(o.race_free, Some(true), "{:?}", o.races);
        assert!(o.races.is_empty());
        assert_eq!(o.condition_holds, Some(true));
    }
    assert_eq!(on.states, off.states);
    assert_eq!(on.executions, off.executions);
    let (won, woff) = (on.prefix_walk.unwrap(), off.prefix_walk.unwrap());
    assert_eq!((won.executions, won.extended), (0, 1));
    assert_eq!(woff.extended, 0);
    assert!(woff.executions > 0);
}

/// P1 awaits flag = 1, the only write of flag writes 2 (hand-derived: a
/// race between the two stores of x, in executions where P1 spins). The
/// spinning executions do not extend: they are walked and race, with the
/// lever as without. So does the existing test whose awaited location
/// nobody writes.
#[test]
fn spinning_executions_that_do_not_extend_are_walked() {
    for file in [
        "spin-on-other-value-race.litmus",
        "race-before-endless-spin.litmus",
    ] {
        let path = bound(file);
        for on in [true, false] {
            let o = run(&path, on);
            assert_eq!(o.race_free, Some(false), "{file} {on}");
            assert_eq!(o.races.len(), 1, "{file} {on}");
            assert!(!o.races[0].stopped_at_bound.is_empty(), "{file} {on}");
            let walk = o.prefix_walk.unwrap();
            assert_eq!(walk.extended, 0, "{file} {on}");
            assert!(walk.executions > 0, "{file} {on}");
        }
    }
    // P1 has a complete path (flag = 1 is written in other combinations),
    // but the racy combination has no write of flag: not skipped (a
    // mutation ignoring the written values lost this race).
    let path = bound("spin-unwritten-in-combination-race.litmus");
    for on in [true, false] {
        let o = run(&path, on);
        assert_eq!(o.race_free, Some(false), "{on}");
        assert_eq!(o.races.len(), 1, "{on}");
        assert!(o.races[0].first.contains("x, 1"), "{on}: {:?}", o.races);
        assert!(!o.races[0].stopped_at_bound.is_empty(), "{on}");
    }
    // Race-free, spinning on a location nobody writes: walked, and "no
    // race" needs that walk.
    let o = run(&bound("spin-forever-race-free.litmus"), true);
    assert_eq!(o.prefix_walk.unwrap().extended, 0);
}

/// The scaling family barrier-flags at 3 threads (scripts/scaling.py,
/// tests/fixtures/litmus-scaling): every spinning combination is skipped (60
/// executions walked without the lever and without factored observation
/// reads, 18 with them), the answer unchanged. Counted without symmetry
/// reduction; with it (the rotation of the threads with their `x`
/// renamed) the walk without the lever takes one combination per orbit
/// of 3: 6.
#[test]
fn barrier_flags_skips_every_spinning_combination() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-scaling/barrier-flags-3.litmus");
    let rotated = run(&path, false);
    assert_eq!(rotated.race_free, Some(true));
    assert_eq!(rotated.prefix_walk.unwrap().executions, 6);
    let run = |path: &Path, on: bool| {
        common::litmus(
            Session::new()
                .reduction(vkmm::Reduction::Symmetry, false)
                .reduction(vkmm::Reduction::SpinExtension, on)
                .check_file(path)
                .unwrap(),
        )
    };
    let (on, off) = (run(&path, true), run(&path, false));
    assert_eq!(on.race_free, Some(true));
    assert_eq!(off.race_free, Some(true));
    assert_eq!(on.states, off.states);
    assert_eq!(on.prefix_walk.unwrap().executions, 0);
    assert!(on.prefix_walk.unwrap().extended > 0);
    assert_eq!(off.prefix_walk.unwrap().executions, 18);
    let every = Session::new()
        .reduction(vkmm::Reduction::Symmetry, false)
        .reduction(vkmm::Reduction::SpinExtension, false)
        .reduction(vkmm::Reduction::ReadFactoring, false)
        .check_file(&path)
        .unwrap();
    assert_eq!(common::litmus(every).prefix_walk.unwrap().executions, 60);
}

/// Same answers (states, verdicts, races in order, consistent executions)
/// with and without the lever wherever neither search was stopped by a
/// limit.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn the_same_answers_everywhere() {
    let session = |on: bool| {
        Session::new()
            .max_executions(20_000)
            .reduction(vkmm::Reduction::SpinExtension, on)
    };
    common::assert_no_differences_everywhere(
        &|p| {
            common::differing_answers(
                p,
                ("without", "with"),
                (session(false).check_file(p), session(true).check_file(p)),
                &|c| common::answers_of(c, true),
            )
        },
        &|p| p.display().to_string().contains("xf-barrier"),
    );
}
