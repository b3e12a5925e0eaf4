//! Races within the unrolling bound (issue 17): when the bound cuts a
//! thread's path, the executions in which that thread stops at the cut are
//! walked for data races too (`Limits::prefix_races`), as Dat3M's unrolled
//! program ends a thread at its bound event. The tests of
//! tests/fixtures/litmus-bound, each with its verdict derived by hand from the
//! Vulkan appendix's Data Race definition (quoted in each file):
//!
//! - a race in the first iteration of a loop that never exits is found at
//!   every bound, and the report says who stops where;
//! - its synchronised twin has no race within bound 0 (undecided: paths
//!   were cut) and a race within bound 1 (the second iteration);
//! - its atomic twin has none at any bound (undecided);
//! - a thread stopped at the bound before a control barrier holds the
//!   others at the barrier (no race after it);
//! - the final states, the condition and the counts never include the
//!   executions that stop at the bound.

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{LitmusOutcome, Property, check_litmus};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-bound")
}

fn run(file: &str, limits: Limits, decide: Option<Property>) -> LitmusOutcome {
    let path = dir().join(file);
    let program = vkmm::frontend::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let model = vkmm::model::load("vulkan").unwrap();
    check_litmus(file, &program, &model, limits, decide).unwrap()
}

fn at(unroll: usize) -> Limits {
    Limits {
        bounds: vkmm::Bounds {
            unroll,
            ..Default::default()
        },
        ..Limits::default()
    }
}

const FILES: &[&str] = &[
    "race-in-cut-loop.litmus",
    "sync-in-cut-loop.litmus",
    "sync-in-cut-loop-exits.litmus",
    "atomic-in-cut-loop.litmus",
    "barrier-after-cut-loop.litmus",
    "lock-wg-past-order-limit.litmus",
];

/// The hand-derived race verdicts: `(file, unroll, holds(Races))`, `None`
/// for undecided (no race within the bound, paths cut).
const VERDICTS: &[(&str, usize, Option<bool>)] = &[
    ("race-in-cut-loop.litmus", 0, Some(false)),
    ("race-in-cut-loop.litmus", 1, Some(false)),
    ("race-in-cut-loop.litmus", 2, Some(false)),
    ("sync-in-cut-loop.litmus", 0, None),
    ("sync-in-cut-loop.litmus", 1, Some(false)),
    ("sync-in-cut-loop-exits.litmus", 0, None),
    ("sync-in-cut-loop-exits.litmus", 1, Some(false)),
    ("atomic-in-cut-loop.litmus", 0, None),
    ("atomic-in-cut-loop.litmus", 1, None),
    ("atomic-in-cut-loop.litmus", 2, None),
    ("barrier-after-cut-loop.litmus", 0, None),
    ("barrier-after-cut-loop.litmus", 1, None),
    ("lock-wg-past-order-limit.litmus", 0, Some(false)),
    ("lock-wg-past-order-limit.litmus", 1, Some(false)),
];

#[test]
fn race_verdicts_match_hand_derived_ones() {
    for &(file, unroll, want) in VERDICTS {
        for decide in [None, Some(Property::Races)] {
            let o = run(file, at(unroll), decide);
            assert!(o.cut_paths > 0, "{file} unroll {unroll}: paths are cut");
            assert_eq!(
                o.holds(Property::Races),
                want,
                "{file} unroll {unroll} ({decide:?}): races {:?}",
                o.races
            );
            if want.is_none() {
                assert!(o.races.is_empty(), "{file}: {:?}", o.races);
            }
        }
    }
}

#[test]
fn a_race_in_a_loop_that_never_exits_is_found_before_the_bound() {
    for unroll in 0..=2 {
        let o = run("race-in-cut-loop.litmus", at(unroll), None);
        assert_eq!(o.races.len(), 1, "{:?}", o.races);
        let r = &o.races[0];
        assert_eq!(r.location, "x");
        assert_eq!(r.first, "P0 line 21: st.av.dv.sc0 x, 1");
        assert_eq!(r.second, "P1 line 20: st.nonpriv.sc0 x, 2");
        // P0 stops where its second (third, ...) arrival at the loop's
        // head would exceed the bound.
        assert_eq!(
            r.stopped_at_bound,
            vec!["P0 stops at the bound before line 20: LC00:".to_string()]
        );
        // No complete execution: no state, no count, no condition verdict.
        assert!(o.states.is_empty());
        assert_eq!((o.executions, o.consistent), (0, 0));
        assert_eq!((o.positive, o.negative), (0, 0));
        assert_eq!(o.holds(Property::Condition), None);
        let walk = o
            .prefix_walk
            .expect("the executions stopping at the bound were walked");
        assert!(walk.executions > 0 && walk.stopped_by.is_none());
    }
}

#[test]
fn the_synchronised_twin_races_only_in_the_second_iteration() {
    let o = run("sync-in-cut-loop.litmus", at(0), None);
    assert_eq!(o.race_free, None);
    let walk = o.prefix_walk.expect("walked");
    assert!(walk.executions > 0, "the prefix executions were evaluated");
    let o = run("sync-in-cut-loop.litmus", at(1), None);
    assert_eq!(o.race_free, Some(false));
    assert_eq!(o.races.len(), 1, "{:?}", o.races);
    assert_eq!(o.races[0].first, "P0 line 25: st.av.dv.sc0 x, 1");
    assert_eq!(o.races[0].second, "P1 line 26: st.nonpriv.sc0 x, 2");
}

/// The executions stopping at the bound add no final state, no count and
/// nothing to the condition: every answer but the races is the one the
/// walk without them gives.
#[test]
fn prefix_executions_add_no_state_count_or_condition() {
    let mut compared_with_states = 0;
    for file in FILES {
        for unroll in 0..=2 {
            let on = run(file, at(unroll), None);
            let off = run(
                file,
                Limits {
                    prefix_races: false,
                    ..at(unroll)
                },
                None,
            );
            assert_eq!(on.states, off.states, "{file} unroll {unroll}");
            assert_eq!(
                (on.executions, on.consistent, on.positive, on.negative),
                (off.executions, off.consistent, off.positive, off.negative),
                "{file} unroll {unroll}"
            );
            assert_eq!(on.condition_holds, off.condition_holds, "{file}");
            assert_eq!(on.cut_paths, off.cut_paths);
            assert!(off.prefix_walk.is_none());
            if on.prefix_walk.is_some() && !on.states.is_empty() {
                compared_with_states += 1;
            }
            // A race among complete executions is the same race either way
            // (no prefix walk then).
            if off.race_free == Some(false) {
                assert_eq!(on.races, off.races, "{file} unroll {unroll}");
                assert!(on.prefix_walk.is_none());
            }
        }
    }
    // sync-in-cut-loop-exits at bound 0: complete executions and a walk
    // over the executions stopping at the bound.
    assert!(compared_with_states >= 1);
}

#[test]
fn the_switch_drops_cut_paths_as_before() {
    let off = Limits {
        prefix_races: false,
        ..at(0)
    };
    let o = run("race-in-cut-loop.litmus", off, Some(Property::Races));
    assert_eq!(o.holds(Property::Races), None);
    assert!(o.races.is_empty());
    assert!(o.prefix_walk.is_none());
}

/// The reference enumeration keeps the prefix walk (it changes which
/// executions are asked about, not how they are searched), and the
/// parallel walk gives the same answers.
#[test]
fn reference_and_parallel_walks_agree() {
    for &(file, unroll, want) in VERDICTS {
        let base = run(file, at(unroll), None);
        for limits in [
            at(unroll).reference(),
            Limits {
                threads: 2,
                ..at(unroll)
            },
        ] {
            let o = run(file, limits, None);
            assert_eq!(o.holds(Property::Races), want, "{file} unroll {unroll}");
            assert_eq!(o.races, base.races, "{file} unroll {unroll}");
            assert_eq!(o.states, base.states, "{file} unroll {unroll}");
        }
    }
}

/// A program whose paths are not cut walks no prefix.
#[test]
fn no_cut_no_prefix_walk() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/race-plain-mp.litmus");
    let program = vkmm::frontend::load(&path).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let o = check_litmus("race-plain-mp", &program, &model, at(2), None).unwrap();
    assert_eq!(o.cut_paths, 0);
    assert!(o.prefix_walk.is_none());
    assert!(o.races.iter().all(|r| r.stopped_at_bound.is_empty()));
}

fn vkmm(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(args)
        .output()
        .expect("vkmm runs")
}

/// `vkmm check FILE --unroll 0 EXTRA...`'s text report.
fn report(file: &Path, extra: &[&str]) -> String {
    let mut args = vec!["check", file.to_str().unwrap(), "--unroll", "0"];
    args.extend(extra);
    String::from_utf8_lossy(&vkmm(&args).stdout).into_owned()
}

/// The report says the race was found within the bound and who stops
/// where; an undecided answer says how many executions stopping at the
/// bound were seen; `--no-prefix-races` walks none.
#[test]
fn cli_report_wording() {
    let race = dir().join("race-in-cut-loop.litmus");
    let s = report(&race, &[]);
    for needle in [
        "Data races: yes (in an execution in which some threads stop part-way: at the unrolling bound, spinning forever in a loop no value leaves, or waiting at a control barrier)",
        "  race on x: P0 line 21: st.av.dv.sc0 x, 1  <->  P1 line 20: st.nonpriv.sc0 x, 2",
        "    in the execution where P0 stops at the bound before line 20: LC00:",
        "(0 executions, 0 consistent, 0 partial, model vulkan, unroll 0, BOUND HIT: 1 thread path cut",
    ] {
        assert!(s.contains(needle), "missing `{needle}` in\n{s}");
    }
    let v: serde_json::Value = serde_json::from_str(&report(&race, &["--format", "json"])).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["race_free"], false);
    assert_eq!(
        r["races"][0]["stopped_at_bound"][0],
        "P0 stops at the bound before line 20: LC00:"
    );
    assert_eq!(r["executions"], 0);
    assert!(r["prefix_walk"]["executions"].as_u64().unwrap() > 0);
    for (file, extra, needle) in [
        (
            "race-in-cut-loop.litmus",
            &["--no-prefix-races"][..],
            "Data races: undecided (none among the executions seen; see below)",
        ),
        (
            "sync-in-cut-loop.litmus",
            &[][..],
            "Data races: undecided (none among the executions seen, nor among 2 executions stopping at the unrolling bound; see below)",
        ),
    ] {
        let s = report(&dir().join(file), extra);
        assert!(s.contains(needle), "missing `{needle}` in\n{s}");
    }
}

/// A thread that spins forever in an await no value leaves stops there:
/// the spin reduction (every iteration dropped, nothing cut) and the
/// reference enumeration (the loop unrolled and cut) find the same race
/// before the loop.
#[test]
fn a_race_before_an_endless_spin_loop_is_found_with_and_without_the_reduction() {
    let file = "race-before-endless-spin.litmus";
    let reduced = run(file, at(2), None);
    assert_eq!(reduced.cut_paths, 0);
    assert_eq!(reduced.holds(Property::Races), Some(false));
    assert_eq!(
        reduced.races[0].stopped_at_bound,
        vec!["P1 spins forever (no value leaves the loop) at line 21: LS1:".to_string()]
    );
    let reference = run(file, at(2).reference(), Some(Property::Races));
    assert!(reference.cut_paths > 0);
    assert_eq!(reference.holds(Property::Races), Some(false));
    assert_eq!(
        reference.races[0].stopped_at_bound,
        vec!["P1 stops at the bound before line 21: LS1:".to_string()]
    );
    assert_eq!(
        (
            reduced.races[0].first.as_str(),
            reduced.races[0].second.as_str()
        ),
        ("P0 line 20: st.sc0 x, 1", "P1 line 20: st.sc0 x, 2")
    );
    assert!(reduced.states.is_empty() && reference.states.is_empty());
}

/// Past the order limit (issue 17's 8-invocation lock rows): a workgroup-
/// scope lock of two workgroups with `--max-writes 3` (or 2) has no
/// combination of complete paths within the limit (4 writes to `l`), but
/// the executions in which one thread stops at the bound after its first
/// exchange are within it, and race (hand-derived in the file). Asked for
/// races, the executions stopping at the bound are walked first and the
/// complete walk does not run at all; in the listing they are walked after
/// the complete walk, which stopped at the order limit.
#[test]
fn a_race_past_the_order_limit_is_found_where_a_thread_stops_at_the_bound() {
    let file = "lock-wg-past-order-limit.litmus";
    let limited = |max_writes: usize| Limits {
        bounds: vkmm::Bounds {
            max_writes_per_location: max_writes,
            ..at(0).bounds
        },
        ..at(0)
    };
    for decide in [None, Some(Property::Races)] {
        let o = run(file, limited(3), decide);
        assert_eq!(o.holds(Property::Races), Some(false), "{decide:?}");
        assert_eq!(o.executions, 0, "{decide:?}: no complete combination fits");
        assert!(o.states.is_empty());
        let walk = o.prefix_walk.expect("the prefix walk ran");
        assert!(walk.executions > 0);
        assert!(o.races.iter().all(|r| !r.stopped_at_bound.is_empty()));
        // Without that walk: nothing within the limit, undecided.
        let off = run(
            file,
            Limits {
                prefix_races: false,
                ..limited(3)
            },
            decide,
        );
        assert_eq!(off.holds(Property::Races), None, "{decide:?}");
    }
    // With 2, the only combination within the limit has both threads stop
    // after one exchange, each exchange reading the other's 1: RMW
    // atomicity forbids it (each would come immediately after the other in
    // the scoped modification order), so it has no execution, and the
    // combinations with a thread past its exchange are skipped: undecided,
    // and the prefix walk says it stopped at the order limit (the walk
    // over combinations drops them as soon as their writes exceed it).
    for decide in [None, Some(Property::Races)] {
        let o = run(file, limited(2), decide);
        assert_eq!(o.holds(Property::Races), None, "{decide:?}");
        assert_eq!(
            o.prefix_walk.and_then(|w| w.stopped_by),
            Some(vkmm::LimitKind::MaxWrites),
            "{decide:?}"
        );
    }
}

/// Asked for races with paths cut, the executions stopping at the bound
/// come first: within the default limits the complete walk (which would
/// find the race on x) does not run once they gave a race; the listing
/// walks the complete executions first and reports their races.
#[test]
fn asked_for_races_the_executions_stopping_at_the_bound_come_first() {
    let file = "lock-wg-past-order-limit.litmus";
    let races = run(file, at(0), Some(Property::Races));
    assert_eq!(races.holds(Property::Races), Some(false));
    assert_eq!(races.executions, 0);
    assert!(races.prefix_walk.is_some_and(|w| w.executions > 0));
    let listing = run(file, at(0), None);
    assert_eq!(listing.holds(Property::Races), Some(false));
    assert_eq!(listing.executions, 4);
    assert!(listing.prefix_walk.is_none());
    assert!(
        listing
            .races
            .iter()
            .any(|r| r.stopped_at_bound.is_empty() && r.first.contains("x, 1")),
        "{:?}",
        listing.races
    );
}

/// A thread spinning forever in an await no value leaves cuts no path,
/// but the executions in which it spins are the program's: "no race" is
/// answered only when their walk finished (hand-derived in the file).
#[test]
fn no_race_needs_the_walk_over_spinning_executions_to_finish() {
    let file = "spin-forever-race-free.litmus";
    let o = run(file, at(2), None);
    assert_eq!(o.cut_paths, 0);
    assert_eq!(o.holds(Property::Races), Some(true));
    assert_eq!(o.prefix_walk.map(|w| w.executions), Some(2));
    let limited = Limits {
        bounds: vkmm::Bounds {
            max_executions: 1,
            ..at(2).bounds
        },
        ..at(2)
    };
    for decide in [None, Some(Property::Races)] {
        let o = run(file, limited, decide);
        assert_eq!(
            o.prefix_walk.and_then(|w| w.stopped_by),
            Some(vkmm::LimitKind::MaxExecutions),
            "{decide:?}"
        );
        assert_eq!(o.holds(Property::Races), None, "{decide:?}");
        assert!(o.races.is_empty());
    }
}
