//! OpenCL group functions (issue 16 item 9): `work_group_*` and
//! `sub_group_*` broadcast, reduce, scan, any and all. Each litmus file in
//! tests/fixtures/litmus-opencl-group cites the sentence it exercises and derives its
//! verdicts by hand; each has a twin whose verdict differs, so every
//! expectation below can fail. Values are exact (the results a register
//! receives), the memory meaning follows 3.6.3 by default (no
//! synchronisation) and 2.4 under `opencl-groupsync`, a value flowing round
//! through a group function is out of thin air under `opencl-nothinair`,
//! divergence is reported like a barrier's. The mutation tests at the end
//! break the rules and check that some expectation notices.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus};
use vkmm::ir::{GroupArith, GroupOp};
use vkmm::model::LoadedModel;

const C: Property = Property::Condition;
const RACES: Property = Property::Races;

/// (file, model, property, expectation): for `Condition`, whether the
/// condition holds (`exists`: reachable; `forall`: in every execution); for
/// `Races`, whether the test has a data race.
const EXPECTED: &[(&str, &str, Property, bool)] = &[
    // Values: reductions, scans, broadcasts, any/all, by local id.
    ("wg-reduce-add", "opencl", C, true),
    ("wg-reduce-add-two-groups", "opencl", C, false),
    ("wg-reduce-add-split", "opencl", C, true),
    ("sg-reduce-min-max", "opencl", C, true),
    ("sg-reduce-min-max-other-subgroup", "opencl", C, false),
    ("wg-scan-inclusive-add", "opencl", C, true),
    ("wg-scan-inclusive-add-reordered", "opencl", C, false),
    ("wg-scan-exclusive-add", "opencl", C, true),
    ("wg-scan-exclusive-add-inclusive-values", "opencl", C, false),
    ("sg-scan-exclusive-min-max", "opencl", C, true),
    ("sg-scan-inclusive-min-max", "opencl", C, false),
    ("wg-broadcast", "opencl", C, true),
    ("wg-broadcast-other-id", "opencl", C, false),
    ("sg-broadcast", "opencl", C, true),
    ("sg-broadcast-one-subgroup", "opencl", C, false),
    ("wg-any-all", "opencl", C, true),
    ("wg-any-all-none", "opencl", C, false),
    ("wg-reduce-branch", "opencl", C, true),
    ("wg-reduce-branch-impossible", "opencl", C, false),
    ("wg-nested-calls", "opencl", C, true),
    ("wg-nested-calls-any-none", "opencl", C, false),
    ("wg-reduce-loop", "opencl", C, true),
    ("wg-reduce-loop-divergent", "opencl", C, false),
    ("gf-converged", "opencl", C, true),
    ("gf-divergent", "opencl", C, false),
    ("gf-mismatched-functions", "opencl", C, true),
    ("gf-same-function", "opencl", C, false),
    ("gf-barrier-and-function", "opencl", C, true),
    // Memory: 3.6.3 (default) against 2.4 (opencl-groupsync).
    ("wg-reduce-mp", "opencl", C, true),
    ("wg-reduce-mp", "opencl", RACES, true),
    ("wg-reduce-mp", "opencl-groupsync", C, false),
    ("wg-reduce-mp", "opencl-groupsync", RACES, false),
    ("wg-barrier-mp", "opencl", C, false),
    ("wg-barrier-mp", "opencl", RACES, false),
    ("wg-barrier-mp", "opencl-groupsync", C, false),
    ("wg-broadcast-mp-local", "opencl", C, true),
    ("wg-broadcast-mp-local", "opencl", RACES, true),
    ("wg-broadcast-mp-local", "opencl-groupsync", C, false),
    ("wg-broadcast-mp-local", "opencl-groupsync", RACES, false),
    ("sg-reduce-mp-other-subgroup", "opencl", C, true),
    ("sg-reduce-mp-other-subgroup", "opencl-groupsync", C, true),
    (
        "sg-reduce-mp-other-subgroup",
        "opencl-groupsync",
        RACES,
        true,
    ),
    ("sg-reduce-mp-same-subgroup", "opencl", C, true),
    ("sg-reduce-mp-same-subgroup", "opencl-groupsync", C, false),
    (
        "sg-reduce-mp-same-subgroup",
        "opencl-groupsync",
        RACES,
        false,
    ),
    // Out of thin air through a group function (3.6.1).
    ("gf-oota", "opencl", C, true),
    ("gf-oota", "opencl", RACES, false),
    ("gf-oota", "opencl-nothinair", C, false),
    ("gf-oota", "opencl-groupsync", C, false),
    ("gf-write-before-call", "opencl", C, true),
    ("gf-write-before-call", "opencl-nothinair", C, true),
    ("gf-write-before-call", "opencl-groupsync", C, true),
];

/// The tests whose executions pass a group function some member of its
/// scope instance does not reach (2.4: "all Invocations in the work-group
/// must encounter precisely the same work-group function"), and the line
/// `check` reports for each.
const DIVERGENT: &[(&str, &str)] = &[
    (
        "gf-divergent",
        "P1 line 15: int r0 = work_group_reduce_add(2); (P0 never reaches it)",
    ),
    (
        "gf-mismatched-functions",
        "P0 line 12: int r0 = work_group_reduce_add(1); (P1 reaches it with another id)",
    ),
    (
        "gf-mismatched-functions",
        "P1 line 15: int r0 = work_group_reduce_min(2); (P0 reaches it with another id)",
    ),
    (
        "gf-barrier-and-function",
        "P0 line 10: work_group_barrier(CLK_GLOBAL_MEM_FENCE); (P1 reaches it with another id)",
    ),
    (
        "gf-barrier-and-function",
        "P1 line 13: int r0 = work_group_any(0); (P0 reaches it with another id)",
    ),
    (
        "wg-reduce-loop-divergent",
        "P0 line 13: int t = work_group_reduce_add(i);, time 2 (P1 reaches it 1 time)",
    ),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-opencl-group")
}

fn path(name: &str) -> PathBuf {
    dir().join(format!("{name}.litmus"))
}

/// The expectations `model` gets wrong, among those for `model_name`.
fn failures(model_name: &str, model: &LoadedModel) -> Vec<String> {
    EXPECTED
        .iter()
        .filter(|(_, m, _, _)| *m == model_name)
        .filter_map(|(name, _, property, holds)| {
            let program = vkmm::frontend::load(&path(name)).unwrap_or_else(|e| panic!("{e}"));
            let got = check_litmus(name, &program, model, Limits::default(), Some(*property))
                .ok()
                .and_then(|o| o.holds(*property));
            let want = if *property == RACES { !*holds } else { *holds };
            (got != Some(want)).then(|| {
                format!("{name} under {model_name}: {property:?} expected {holds}, got {got:?}")
            })
        })
        .collect()
}

const MODELS: [&str; 3] = ["opencl", "opencl-nothinair", "opencl-groupsync"];

#[test]
fn hand_derived_verdicts() {
    let mut bad = Vec::new();
    for model_name in MODELS {
        let model = vkmm::model::load(model_name).unwrap();
        bad.extend(failures(model_name, &model));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_test_file_has_expectations() {
    let stems: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let missing: Vec<&String> = stems
        .iter()
        .filter(|s| !EXPECTED.iter().any(|(n, _, _, _)| n == s))
        .collect();
    assert!(stems.len() >= 30, "expected the group function tests");
    assert!(missing.is_empty(), "no expected verdict: {missing:?}");
}

/// Divergence is reported where a member does not reach the group
/// function, and only there (every other test converges).
#[test]
fn divergence_is_reported_like_a_barriers() {
    let model = vkmm::model::load("opencl").unwrap();
    let mut names: Vec<&str> = EXPECTED.iter().map(|(n, _, _, _)| *n).collect();
    names.dedup();
    for name in names {
        let program = vkmm::frontend::load(&path(name)).unwrap();
        let o = check_litmus(name, &program, &model, Limits::default(), Some(C)).unwrap();
        let want: Vec<String> = DIVERGENT
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, line)| line.to_string())
            .collect();
        assert_eq!(o.barrier_divergence, want, "{name}");
    }
}

/// The final states `check` lists: the registers hold the exact results.
#[test]
fn registers_hold_the_exact_results() {
    let model = vkmm::model::load("opencl").unwrap();
    let states = |name: &str| -> Vec<String> {
        let program = vkmm::frontend::load(&path(name)).unwrap();
        let o = check_litmus(name, &program, &model, Limits::default(), Some(C)).unwrap();
        vkmm::report::text::litmus(&o)
            .lines()
            .filter(|l| l.contains(":>"))
            .map(|l| l.split(":>").nth(1).unwrap().trim().to_string())
            .collect()
    };
    assert_eq!(
        states("wg-scan-inclusive-add-reordered"),
        ["P0:r0=1; P1:r0=2; P2:r0=6;"]
    );
    assert_eq!(
        states("sg-reduce-min-max-other-subgroup"),
        ["P0:r0=1; P0:r1=3; P1:r0=1; P1:r1=3; P2:r0=2; P2:r1=2;"]
    );
    assert_eq!(
        states("wg-broadcast-other-id"),
        ["P0:r0=30; P1:r0=30; P2:r0=30;"]
    );
    assert_eq!(states("wg-reduce-loop-divergent"), ["P0:s=11; P1:s=10;"]);
}

/// `GroupOp::result` against hand-computed values: by local id, over the
/// work-items that take part.
#[test]
fn results_by_local_id() {
    let v = [Some(3), Some(1), Some(2)];
    let r = |op: GroupOp, me| op.result(&v, me, None);
    assert_eq!(r(GroupOp::Reduce(GroupArith::Add), 1), Some(6));
    assert_eq!(r(GroupOp::Reduce(GroupArith::Min), 0), Some(1));
    assert_eq!(r(GroupOp::Reduce(GroupArith::Max), 2), Some(3));
    assert_eq!(r(GroupOp::ScanInclusive(GroupArith::Add), 1), Some(4));
    assert_eq!(r(GroupOp::ScanExclusive(GroupArith::Add), 0), Some(0));
    assert_eq!(r(GroupOp::ScanExclusive(GroupArith::Add), 2), Some(4));
    assert_eq!(
        r(GroupOp::ScanExclusive(GroupArith::Min), 0),
        Some(i64::from(i32::MAX))
    );
    assert_eq!(
        r(GroupOp::ScanExclusive(GroupArith::Max), 0),
        Some(i64::from(i32::MIN))
    );
    assert_eq!(r(GroupOp::ScanInclusive(GroupArith::Min), 2), Some(1));
    assert_eq!(r(GroupOp::Any, 0), Some(1));
    assert_eq!(r(GroupOp::All, 0), Some(1));
    assert_eq!(GroupOp::All.result(&[Some(1), Some(0)], 0, None), Some(0));
    assert_eq!(GroupOp::Any.result(&[Some(0), None], 0, None), Some(0));
    assert_eq!(GroupOp::Broadcast.result(&v, 0, Some(2)), Some(2));
    // A work-item that takes no part: over the others; a broadcast from it
    // is undefined.
    let gap = [Some(3), None, Some(2)];
    assert_eq!(
        GroupOp::ScanInclusive(GroupArith::Add).result(&gap, 2, None),
        Some(5)
    );
    assert_eq!(GroupOp::Broadcast.result(&gap, 0, Some(1)), None);
    assert_eq!(GroupOp::Broadcast.result(&gap, 0, Some(3)), None);
}

/// Bad group function calls: located errors, exit 2 from the command line.
#[test]
fn bad_calls_are_located_errors() {
    let program = |call: &str| {
        format!(
            "OPENCL e\n{{ [x]=0; }}\nP0@wg 0, dev 0 (global int* x) {{\n  int r0 = {call};\n}}\nP1@wg 0, dev 0 (global int* x) {{\n  int r0 = work_group_reduce_add(1);\n}}\nexists (0:r0=1)\n"
        )
    };
    let cases = [
        (
            "work_group_broadcast(1, 2)",
            "e.litmus:4:36: the local id 2 of `work_group_broadcast` names no work-item: P0's work-group has 2 (\"Behavior is undefined when local_id is greater or equal to the work-group size\")",
        ),
        (
            "sub_group_broadcast(1, 1)",
            "e.litmus:4:35: the local id 1 of `sub_group_broadcast` names no work-item: P0's sub-group has 1 (\"Behavior is undefined when local_id is greater or equal to the sub-group size\")",
        ),
        (
            "work_group_broadcast(1, -1)",
            "e.litmus:4:36: the local id -1 of `work_group_broadcast` is negative",
        ),
        (
            "work_group_broadcast(1, 0, 0)",
            "e.litmus:4:12: the 2-dimensional form of `work_group_broadcast` is not supported: litmus work-items have one-dimensional local ids (their place among the work-group's threads)",
        ),
        (
            "work_group_reduce_add()",
            "e.litmus:4:12: `work_group_reduce_add` takes 1 argument, found 0",
        ),
        (
            "sub_group_broadcast(1)",
            "e.litmus:4:12: `sub_group_broadcast` takes 2 arguments, found 1",
        ),
        (
            "work_group_scan_inclusive_mul(1)",
            "(did you mean `work_group_scan_inclusive_min`?)",
        ),
    ];
    for (call, want) in cases {
        let text = program(call);
        let e = vkmm::frontend::parse_text(
            "e.litmus",
            &text,
            vkmm::frontend::Format::OpenClLitmus,
            Default::default(),
        )
        .expect_err(call);
        assert!(e.to_string().contains(want), "{call}: got {e}");
    }
    let dir = std::env::temp_dir().join(format!("vkmm-group-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("e.litmus");
    std::fs::write(&f, program("work_group_broadcast(1, 2)")).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("check")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("e.litmus:4:36: the local id 2"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `explain` names the rules: the group exchange in a thin-air cycle, and
/// the happens-before a synchronising group function gives.
#[test]
fn explanations_name_the_group_function() {
    let run = |model: &str, name: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
            .args(["explain", "--model", model])
            .arg(path(name))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let oota = run("opencl-nothinair", "gf-oota");
    assert!(oota.contains("Rejected by `no-thin-air`"), "{oota}");
    assert!(
        oota.contains("--[a value passed through a group function: sequenced before one work-item's call, to what is sequenced after another's]-->"),
        "{oota}"
    );
    let mp = run("opencl-groupsync", "wg-reduce-mp");
    assert!(mp.contains("Rejected by `coherence-global`"), "{mp}");
    assert!(mp.contains("--[global-happens-before]-->"), "{mp}");
    let default = run("opencl", "wg-reduce-mp");
    assert!(default.contains("Data race"), "{default}");
}

/// The model `top` (a built-in name) with `file` replaced by `source`.
fn mutant(top: &str, file: &str, source: &str) -> LoadedModel {
    common::mutant(&format!("{top}.cat"), &[(file, source)])
}

/// (model whose expectations check it, file edited, what breaks, text, replacement)
const MUTATIONS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "opencl",
        "opencl.cat",
        "the default gives group functions no synchronisation (3.6.3)",
        "let group_sync = {}",
        "let group_sync = GF",
    ),
    (
        "opencl-groupsync",
        "opencl-groupsync.cat",
        "the variant makes group functions synchronise (2.4)",
        "let group_sync = GF",
        "let group_sync = {}",
    ),
    (
        "opencl-groupsync",
        "opencl-rules.cat",
        "synchronising group functions are barriers (entry and exit fences)",
        "let CBAR = CBAR | group_sync",
        "let CBAR = CBAR",
    ),
    (
        "opencl-groupsync",
        "opencl-rules.cat",
        "synchronising group functions order global memory",
        "let GLOBAL = (M & SC0) | (F & SEMSC0) | group_sync",
        "let GLOBAL = (M & SC0) | (F & SEMSC0)",
    ),
    (
        "opencl-groupsync",
        "opencl-rules.cat",
        "synchronising group functions order local memory",
        "let LOCAL = (M & SC1) | (F & SEMSC1) | group_sync",
        "let LOCAL = (M & SC1) | (F & SEMSC1)",
    ),
    (
        "opencl-nothinair",
        "opencl-nothinair.cat",
        "a value flowing through a group function can close a thin-air cycle",
        "let thin_air = sb | rf | group_flow",
        "let thin_air = sb | rf",
    ),
    (
        "opencl-nothinair",
        "opencl-nothinair.cat",
        "the group exchange passes values between work-items",
        "let group_flow = sb ; [GF] ; (scbarinst \\ id) ; [GF] ; sb",
        "let group_flow = sb ; [GF] ; (scbarinst & sthd) ; [GF] ; sb",
    ),
];

#[test]
fn every_mutation_is_caught() {
    let survivors: Vec<&str> = MUTATIONS
        .iter()
        .filter(|(model_name, file, what, from, to)| {
            let original = vkmm::model::embedded(file).unwrap();
            assert!(
                original.contains(from),
                "mutation `{what}` no longer applies to {file}: `{from}`"
            );
            let m = mutant(model_name, file, &original.replacen(from, to, 1));
            failures(model_name, &m).is_empty()
        })
        .map(|(_, _, what, _, _)| *what)
        .collect();
    assert!(
        survivors.is_empty(),
        "no test notices these broken rules:\n{}",
        survivors.join("\n")
    );
}

/// A work-item waits forever at a group function a member of its group
/// never reaches (2.4: "All the Invocations in a single work-group must
/// execute the work-group function ... before any are allowed to continue
/// execution beyond the work-group function"); the converged twin ends.
#[test]
fn termination_waits_at_a_group_function_not_reached() {
    let run = |name: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
            .args(["check", "--property", "termination", "--progress", "FAIR"])
            .arg(path(name))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let divergent = run("gf-divergent");
    assert!(divergent.contains("NON-TERMINATING"), "{divergent}");
    assert!(
        divergent.contains("P1   blocked at a barrier"),
        "{divergent}"
    );
    let converged = run("gf-converged");
    assert!(converged.contains("TERMINATES"), "{converged}");
}
