//! The walks over barrier prefixes (`Reduction::BarrierPrefixes`, `--no
//! barrier-prefixes`): where races are what a check decides, the
//! executions in which every invocation waits at its `k`-th control
//! barrier (first those of one workgroup running alone) are walked before
//! the whole program's. Verdicts of tests/fixtures/barrier-prefixes,
//! derived by hand in each file: `clamped.wgsl` is racy (invocation 1's
//! write of `cells[1]` and invocation 2's read of it share one barrier
//! interval), `separated.wgsl` is race-free (a barrier between them),
//! `before-forks.wgsl` is racy before its barrier (with sixteen paths per
//! invocation after it), `after-last.wgsl` is racy only after its last
//! barrier, `middle.wgsl` is racy between its second and third of four
//! barriers.

use crate::common::{vkmm, vkmm_undecided};

const CLAMPED: &str = "tests/fixtures/barrier-prefixes/clamped.wgsl";
const SEPARATED: &str = "tests/fixtures/barrier-prefixes/separated.wgsl";
const BEFORE_FORKS: &str = "tests/fixtures/barrier-prefixes/before-forks.wgsl";
const AFTER_LAST: &str = "tests/fixtures/barrier-prefixes/after-last.wgsl";
const MIDDLE: &str = "tests/fixtures/barrier-prefixes/middle.wgsl";

/// `vkmm check --property races --workgroups 2 FILE EXTRA... --format
/// json`'s one result.
fn races(file: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "check",
        "--property",
        "races",
        "--workgroups",
        "2",
        file,
        "--format",
        "json",
    ];
    args.extend(extra);
    let (code, out, err) = vkmm(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["results"][0].clone()
}

/// The race of result `r`, found among the prefixes (racy, no complete
/// execution walked) on `cells[1]` of the first workgroup, its first
/// access at `first` (a line and instruction).
fn prefix_race<'r>(r: &'r serde_json::Value, first: &str) -> &'r serde_json::Value {
    assert_eq!(r["race_free"], false, "{r}");
    assert_eq!(r["executions"], 0, "{r}");
    let race = &r["races"][0];
    assert_eq!(race["location"], "cells[1]@wg0", "{r}");
    assert!(race["first"].as_str().unwrap().contains(first), "{r}");
    race
}

/// The race is found among the prefixes, in the first workgroup running
/// alone, with its invocations waiting at the barrier that closes the
/// racy interval: no complete execution walked, and the report says who
/// stops where.
#[test]
fn a_race_of_one_barrier_interval_is_found_among_the_prefixes() {
    let r = races(CLAMPED, &[]);
    let race = prefix_race(&r, "line 18: OpStore");
    assert!(
        race["second"]
            .as_str()
            .unwrap()
            .contains("line 17: %47 = OpLoad")
    );
    let stops: Vec<&str> = race["stopped_at_bound"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        stops,
        [
            "P0, P1, P2, P3 wait at the control barrier of line 19: OpControlBarrier %6 %6 %35",
            "P4, P5, P6, P7 have not started",
        ]
    );
    let (_, text, _) = vkmm(&["check", "--property", "races", "--workgroups", "2", CLAMPED]);
    assert!(
        text.contains(
            "Data races: yes (in an execution in which some threads stop part-way: at the unrolling bound, spinning forever in a loop no value leaves, or waiting at a control barrier)"
        ),
        "{text}"
    );
}

/// Without the reduction the same verdict comes from complete executions;
/// the race-free twin is race-free either way (the prefixes never decide
/// "no race": the whole walk follows them).
#[test]
fn the_verdicts_are_those_of_the_whole_walk() {
    let r = races(CLAMPED, &["--no", "barrier-prefixes"]);
    assert_eq!(r["race_free"], false, "{r}");
    assert!(r["executions"].as_u64().unwrap() > 0, "{r}");
    assert!(
        r["races"][0]["stopped_at_bound"]
            .as_array()
            .is_none_or(|a| a.is_empty()),
        "{r}"
    );
    for extra in [&[][..], &["--no", "barrier-prefixes"][..]] {
        let r = races(SEPARATED, extra);
        assert_eq!(r["race_free"], true, "{extra:?}: {r}");
        assert!(r["races"].as_array().unwrap().is_empty());
    }
}

/// A race only the second workgroup runs into is found by the walk over
/// every workgroup's prefixes (the first workgroup alone has none): the
/// same shader with the reads of invocations 2 and 3 made only in
/// workgroup 1 (in workgroup 0 invocations 0 and 1 read and write their
/// own cell: no race there).
#[test]
fn a_race_of_another_workgroup_is_found_with_every_workgroup_running() {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(CLAMPED))
            .unwrap()
            .replace(
                "let v = cells[min(i, 1u)];",
                "var v = 0u; if (w.x == 1u || i < 2u) { v = cells[min(i, 1u)]; }",
            );
    let dir = std::env::temp_dir().join(format!("vkmm-barrier-prefixes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("second.wgsl");
    std::fs::write(&file, text).unwrap();
    let r = races(file.to_str().unwrap(), &[]);
    assert_eq!(r["race_free"], false, "{r}");
    assert_eq!(r["races"][0]["location"], "cells[1]@wg1", "{r}");
    let r = races(file.to_str().unwrap(), &["--no", "barrier-prefixes"]);
    assert_eq!(r["race_free"], false, "{r}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The prefixes are listed on their own, before the whole program's paths:
/// a race before the first barrier is decided where listing every path
/// passes the path limit (sixteen per invocation after the barrier, past
/// `--max-paths 8`; one each up to it). Without the reduction the same
/// limit leaves the question undecided, and without the limit the whole
/// walk finds the race too (in one workgroup: with two it spends the
/// evaluation limit on combinations of complete paths first).
#[test]
fn a_race_before_a_barrier_is_decided_without_listing_every_path() {
    let r = races(BEFORE_FORKS, &["--max-paths", "8"]);
    assert_eq!(r["race_free"], false, "{r}");
    assert_eq!(r["executions"], 0, "{r}");
    let race = &r["races"][0];
    assert_eq!(race["location"], "cells[1]@wg0", "{r}");
    assert!(race["first"].as_str().unwrap().contains("line 17: OpStore"));
    assert!(race["second"].as_str().unwrap().contains("line 18: %"));
    vkmm_undecided(
        &[
            "check",
            "--property",
            "races",
            "--workgroups",
            "2",
            BEFORE_FORKS,
            "--max-paths",
            "8",
            "--no",
            "barrier-prefixes",
        ],
        &[
            "Data races: undecided",
            "stopped at the path limit (--max-paths)",
        ],
        &[],
    );
    let (code, out, err) = vkmm(&[
        "check",
        "--property",
        "races",
        BEFORE_FORKS,
        "--no",
        "barrier-prefixes",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}\n{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["race_free"], false, "{r}");
    assert!(r["executions"].as_u64().unwrap() > 0, "{r}");
}

/// A race after the last barrier is none of the prefixes' (before the
/// barrier the writes touch distinct cells and nothing reads them): the
/// listing and walk over complete paths follow and find it in a complete
/// execution, as the walk without the reduction does.
#[test]
fn a_race_after_the_last_barrier_is_found_by_the_whole_walk() {
    for extra in [&[][..], &["--no", "barrier-prefixes"][..]] {
        let r = races(AFTER_LAST, extra);
        assert_eq!(r["race_free"], false, "{extra:?}: {r}");
        assert!(r["executions"].as_u64().unwrap() > 0, "{extra:?}: {r}");
        let race = &r["races"][0];
        assert_eq!(race["location"], "cells[1]@wg0", "{extra:?}: {r}");
        assert!(race["first"].as_str().unwrap().contains("line 19: OpStore"));
        assert!(
            race["stopped_at_bound"]
                .as_array()
                .is_none_or(|a| a.is_empty()),
            "{extra:?}: {r}"
        );
    }
}

/// A race between the second and the third of four barriers is found
/// among the prefixes waiting at the third (the listings up to the first
/// and second hold none): the
/// write of line 21 and the read of line 22, no complete execution
/// walked; the whole walk finds the race too.
#[test]
fn a_race_between_two_middle_barriers_is_found_among_the_prefixes() {
    let r = races(MIDDLE, &[]);
    let race = prefix_race(&r, "line 21: OpStore");
    assert!(race["second"].as_str().unwrap().contains("line 22:"));
    assert_eq!(
        race["stopped_at_bound"][0],
        "P0, P1, P2, P3 wait at the control barrier of line 23: OpControlBarrier %6 %6 %35"
    );
    let whole = races(MIDDLE, &["--no", "barrier-prefixes"]);
    assert_eq!(whole["race_free"], false, "{whole}");
    assert!(whole["executions"].as_u64().unwrap() > 0, "{whole}");
}
