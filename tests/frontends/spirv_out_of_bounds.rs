//! Out-of-bounds accesses (issue 17, the two `KNOWN_WRONG` rows of the
//! SPIR-V ratchet). SPIR-V, OpAccessChain, of each index: "if indexing into
//! a vector, array, or matrix, with the result type being a logical pointer
//! type, causes undefined behavior if not in bounds". vkmm's default
//! reading makes no access for an index that names no cell and marks the
//! path (`Program::out_of_bounds`): every report of an execution taking it
//! says so, and a verdict resting on one is no verdict
//! (`Status::Undefined`). The named variant `--out-of-bounds flat` is
//! Dat3M's byte-addressed memory: elements past the end of a shared
//! variable instance are more locations of it. The programs and the
//! verdicts derived by hand are in tests/fixtures/litmus-spirv-oob/ (their
//! comments).

use std::path::{Path, PathBuf};
use vkmm::analysis::LitmusOutcome;
use vkmm::analysis::suite::Status;
use vkmm::frontend::OutOfBoundsReading;
use vkmm::{Property, Session};

use crate::common;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-spirv-oob")
        .join(name)
}

fn check_text(reading: OutOfBoundsReading, name: &str, text: &str) -> LitmusOutcome {
    common::litmus(
        Session::new()
            .out_of_bounds(reading)
            .check_text(name, text)
            .unwrap(),
    )
}

/// The text of test file `name` with `from` replaced by `to`.
fn edited(name: &str, from: &str, to: &str) -> String {
    std::fs::read_to_string(file(name))
        .unwrap()
        .replace(from, to)
}

fn check(reading: OutOfBoundsReading, name: &str) -> LitmusOutcome {
    let text = std::fs::read_to_string(file(name)).unwrap();
    check_text(reading, name, &text)
}

/// The out-of-bounds accesses of an outcome as `(variable, line, threads)`.
fn accesses(o: &LitmusOutcome) -> Vec<(String, usize, usize)> {
    o.undefined
        .out_of_bounds
        .iter()
        .map(|a| (a.variable.clone(), a.line, a.threads.len()))
        .collect()
}

#[test]
fn out_of_bounds_stores_are_undefined_behaviour_by_default() {
    let o = check(OutOfBoundsReading::Undefined, "oob-race.spvasm");
    // The one execution accesses out of bounds: invocation 0's second
    // store (line 52), invocation 1's two stores (lines 49 and 52).
    assert_eq!(o.consistent, 1);
    assert_eq!(o.undefined.executions, 1, "{o:?}");
    let mut a = accesses(&o);
    a.sort();
    assert_eq!(a, [("%a".into(), 49, 1), ("%a".into(), 52, 2)]);
    // In bounds, only invocation 0's a[0]: no race among those, but the
    // race-free verdict covers the undefined execution.
    assert_eq!(o.race_free, Some(true));
    assert!(o.rests_on_undefined(Property::Races));
    assert!(o.undefined.races);
    let text = vkmm::report::text::litmus(&o);
    assert!(
        text.contains("out-of-bounds access to %a at oob-race.spvasm:52 in 1 execution"),
        "{text}"
    );
    assert!(
        text.contains("the race verdict rests on them: no verdict"),
        "{text}"
    );
    let json = serde_json::to_value(&o).unwrap();
    assert_eq!(json["undefined"]["executions"], 1, "{json}");
    assert_eq!(json["undefined"]["races"], true, "{json}");
}

#[test]
fn the_flat_reading_makes_the_out_of_bounds_stores_race() {
    let o = check(OutOfBoundsReading::Flat, "oob-race.spvasm");
    // a[1] and a[2] are locations: invocation 0's a[1] meets invocation
    // 1's a[1]; a[2] is invocation 1's alone.
    assert_eq!(o.race_free, Some(false), "{o:?}");
    let cells: Vec<&str> = o.races.iter().map(|r| r.location.as_str()).collect();
    assert_eq!(cells, ["%a[1]"]);
    // Every access names a location: no undefined behaviour left.
    assert!(o.undefined.is_empty(), "{o:?}");
    assert!(!o.rests_on_undefined(Property::Races));
}

#[test]
fn an_out_of_bounds_branch_never_taken_is_no_undefined_behaviour() {
    let o = check(OutOfBoundsReading::Undefined, "oob-not-taken.spvasm");
    assert!(o.undefined.is_empty(), "{o:?}");
    assert_eq!((o.condition_holds, o.race_free), (Some(true), Some(true)));
    assert!(!vkmm::report::text::litmus(&o).contains("Undefined behaviour"));
    // The sites exist (the lowering met the stores), untaken.
    let program = Session::new()
        .load_file(file("oob-not-taken.spvasm"))
        .unwrap();
    assert_eq!(program.out_of_bounds.len(), 2);
    // With the flag set every execution takes the branch: both stores
    // are out of bounds (a[1] by invocation 0, a[2] by invocation 1).
    let text = edited("oob-not-taken.spvasm", "%flag = 0", "%flag = 1");
    let o = check_text(OutOfBoundsReading::Undefined, "taken.spvasm", &text);
    assert_eq!(o.undefined.executions, o.consistent, "{o:?}");
    assert_eq!(accesses(&o), [("%a".into(), 53, 2)]);
    // The condition (on %b, in bounds) is a universal claim over the
    // undefined executions too.
    assert!(o.undefined.condition && o.undefined.races, "{o:?}");
}

#[test]
fn an_index_read_from_memory_is_checked_on_every_path() {
    // Index 1 of a one-element array, in the only execution.
    let o = check(OutOfBoundsReading::Undefined, "oob-chain.spvasm");
    assert_eq!(o.undefined.executions, 1, "{o:?}");
    assert_eq!(o.condition_holds, Some(true));
    assert!(o.rests_on_undefined(Property::Condition));
    // Flat: the register-held index names %out[1], a location past the
    // end: the store is made there, %out[0] keeps 0, nothing undefined.
    let o = check(OutOfBoundsReading::Flat, "oob-chain.spvasm");
    assert!(o.undefined.is_empty(), "{o:?}");
    assert_eq!(o.condition_holds, Some(true));
    assert!(!o.rests_on_undefined(Property::Condition));
    // Index 0: in bounds, %out[0] == 7, the forall fails, nothing undefined.
    let text = edited("oob-chain.spvasm", "%idx = 1", "%idx = 0");
    let o = check_text(OutOfBoundsReading::Undefined, "in.spvasm", &text);
    assert!(o.undefined.is_empty(), "{o:?}");
    assert_eq!(o.condition_holds, Some(false));
}

/// A witness without undefined behaviour settles a verdict whatever the
/// undefined executions do: the flag read from a racy cell takes the
/// out-of-bounds branch in some executions only.
#[test]
fn a_witness_without_undefined_behaviour_still_decides() {
    // Invocation 0 stores 1 to %flag last; invocation 1's load of it
    // races with that store in every execution (both in bounds) and reads
    // 0 or 1; when it reads 1 it stores out of bounds. Invocation 0 reads
    // its flag before its own store and nobody else writes it: 0.
    let text = edited(
        "oob-not-taken.spvasm",
        "OpStore %q %c1\nOpReturn",
        "OpStore %q %c1\n%is0 = OpIEqual %bool %lid %c0\nOpSelectionMerge %w None\nOpBranchConditional %is0 %wr %w\n%wr = OpLabel\nOpStore %flag %c1\nOpBranch %w\n%w = OpLabel\nOpReturn",
    );
    let o = check_text(OutOfBoundsReading::Undefined, "mixed.spvasm", &text);
    assert_eq!((o.undefined.executions, o.consistent), (1, 2), "{o:?}");
    assert_eq!(o.race_free, Some(false));
    assert!(!o.rests_on_undefined(Property::Races), "{o:?}");
    // The forall on %b covers the undefined executions.
    assert!(o.rests_on_undefined(Property::Condition), "{o:?}");
}

/// Suite records: six-column rows expecting Dat3M's FAIL (races) on the
/// racing program are `undefined` under the default reading (not a
/// PASS or a FAIL), `passed` under the flat one.
#[test]
fn suite_rows_say_undefined_behaviour() {
    let dir = file("");
    let csv = std::env::temp_dir().join(format!("vkmm-oob-{}.csv", std::process::id()));
    std::fs::write(
        &csv,
        "path,property,bound,expected,options,status\noob-race.spvasm,races,1,FAIL,,checked\noob-not-taken.spvasm,races,1,PASS,,checked\n",
    )
    .unwrap();
    let run = |reading| {
        Session::new()
            .out_of_bounds(reading)
            .suite(&dir, Some(&csv), Property::Condition)
            .unwrap()
    };
    let s = run(OutOfBoundsReading::Undefined);
    let statuses: Vec<Status> = s.records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Status::Undefined, Status::Passed], "{s:?}");
    assert_eq!(s.undefined_behaviour.len(), 1);
    assert_eq!(s.exit_code(), 3);
    let detail = s.records[0].detail.clone().unwrap_or_default();
    assert!(
        detail.contains("undefined behaviour: out-of-bounds access to %a at"),
        "{detail}"
    );
    let summary = vkmm::report::text::summary(&s);
    assert!(summary.contains("UNDEFINED "), "{summary}");
    let s = run(OutOfBoundsReading::Flat);
    let statuses: Vec<Status> = s.records.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Status::Passed, Status::Passed], "{s:?}");
    assert_eq!(s.exit_code(), 0);
    let _ = std::fs::remove_file(&csv);
}

/// Out-of-bounds offsets held in registers under the flat reading: a loop
/// counter (tests/fixtures/litmus-spirv-oob/oob-loop.spvasm) and an OpPhi
/// (oob-phi.spvasm) running past the end name elements past it, which
/// are locations of their variable; by default they are undefined
/// behaviour. The verdicts are derived in the files' comments.
#[test]
fn a_loop_counter_past_the_end_reaches_an_element_past_it_under_flat() {
    let run = |reading| {
        common::litmus(
            Session::new()
                .out_of_bounds(reading)
                .unroll(4)
                .check_file(file("oob-loop.spvasm"))
                .unwrap(),
        )
    };
    let o = run(OutOfBoundsReading::Undefined);
    assert_eq!(o.undefined.executions, 1, "{o:?}");
    let mut a = accesses(&o);
    a.sort();
    assert_eq!(a, [("%a".into(), 61, 1), ("%a".into(), 62, 1)]);
    assert!(o.rests_on_undefined(Property::Condition), "{o:?}");
    // Flat: a[2] holds the 3 stored there, read back into out[2].
    let o = run(OutOfBoundsReading::Flat);
    assert!(o.undefined.is_empty(), "{o:?}");
    assert!(o.complete(), "{o:?}");
    assert_eq!((o.condition_holds, o.race_free), (Some(true), Some(true)));
}

#[test]
fn an_opphi_index_past_the_end_is_its_own_location_under_flat() {
    let o = check(OutOfBoundsReading::Undefined, "oob-phi.spvasm");
    assert_eq!(accesses(&o), [("%w".into(), 74, 1), ("%w".into(), 75, 1)]);
    assert!(o.rests_on_undefined(Property::Races), "{o:?}");
    let o = check(OutOfBoundsReading::Flat, "oob-phi.spvasm");
    assert!(o.undefined.is_empty(), "{o:?}");
    // w[0] is invocation 0's, w[1] invocation 1's: race-free, out = {1, 2}.
    assert_eq!((o.condition_holds, o.race_free), (Some(true), Some(true)));
    // Index 100 (byte 400) is past the 64 elements past the end (bytes 4
    // to 260): still undefined behaviour, marked, under the flat reading.
    let text = edited(
        "oob-phi.spvasm",
        "%limit = OpConstant %uint 10",
        "%limit = OpConstant %uint 1",
    );
    let o = check_text(OutOfBoundsReading::Flat, "far.spvasm", &text);
    assert_eq!(accesses(&o), [("%w".into(), 74, 1), ("%w".into(), 75, 1)]);
    assert!(o.rests_on_undefined(Property::Races), "{o:?}");
    assert!(o.rests_on_undefined(Property::Condition), "{o:?}");
}
