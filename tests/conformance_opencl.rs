//! Conformance: the Dat3M OpenCL litmus suite (../shared/corpus/dat3m-opencl)
//! against its two expected-verdict CSVs, under the `opencl` model.
//!
//! The corpus authors (herd7, Dat3M) read a `local` variable named by threads
//! of different workgroups as one location; the specification gives each
//! workgroup its own local memory. With `--local-memory shared` every row
//! matches; with the specification's reading exactly the rows listed in
//! `SPEC_READING_DIFFERS` disagree, and no others.

mod common;

use std::path::Path;
use vkmm::exec::Limits;
use vkmm::frontend::{LocalMemory, Options};
use vkmm::verdict::{Property, check_litmus, expected};

/// Rows whose reference verdict depends on sharing `local` memory across
/// workgroups (the specification: "Local Memory: A memory region associated
/// with a work-group and accessible only by work-items in that work-group").
/// Sorted.
const SPEC_READING_DIFFERS: &[&str] = &[
    // P1 (workgroup 1) reads its own `y`, which no one writes.
    "herd/old/MP_relacq.litmus: Condition",
    "herd/old/MP_relaxed.litmus: Condition",
    // the condition names `y`, which has an instance per workgroup
    "herd/thinair.litmus: Condition",
    "herd/thinair.litmus: Races",
];

/// The rows that disagree with their reference verdict.
fn disagreements(csv: &str, property: Property, local_memory: LocalMemory) -> Option<Vec<String>> {
    let dir = common::corpus("dat3m-opencl")?;
    let text = std::fs::read_to_string(dir.join(csv)).unwrap();
    let rows = expected::parse(csv, &text, &dir).unwrap();
    assert!(!rows.is_empty());
    let model = vkmm::models::load("opencl").unwrap();
    let mut out = Vec::new();
    for row in &rows {
        let rel = row
            .path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let program =
            match vkmm::frontend::load_with(Path::new(&row.path), Options { local_memory }) {
                Ok(p) => p,
                Err(e) => {
                    out.push(format!("{rel}: {property:?} (error: {e})"));
                    continue;
                }
            };
        match check_litmus(
            &rel,
            &program,
            &model,
            "opencl",
            Limits::default(),
            Some(property),
        ) {
            Ok(o) if o.holds(property) == Some(row.holds) => {}
            Ok(o) => out.push(format!(
                "{rel}: {property:?} (expected {}, got {:?})",
                u8::from(row.holds),
                o.holds(property).map(u8::from)
            )),
            Err(e) => out.push(format!("{rel}: {property:?} (error: {e})")),
        }
    }
    Some(out)
}

fn skipped(csv: &str) {
    eprintln!(
        "\n!!!!!!!! SKIPPED: ../shared/corpus/dat3m-opencl is missing; {csv} was NOT checked !!!!!!!!\n"
    );
}

#[test]
fn opencl_expected_condition_shared_local_memory() {
    let Some(d) = disagreements(
        "OPENCL-expected.csv",
        Property::Condition,
        LocalMemory::Shared,
    ) else {
        return skipped("OPENCL-expected.csv");
    };
    assert!(d.is_empty(), "rows disagree:\n{}", d.join("\n"));
}

#[test]
fn opencl_dr_expected_races_shared_local_memory() {
    let Some(d) = disagreements(
        "OPENCL-DR-expected.csv",
        Property::Races,
        LocalMemory::Shared,
    ) else {
        return skipped("OPENCL-DR-expected.csv");
    };
    assert!(d.is_empty(), "rows disagree:\n{}", d.join("\n"));
}

#[test]
fn the_specifications_local_memory_changes_exactly_the_documented_rows() {
    let mut all = Vec::new();
    for (csv, property) in [
        ("OPENCL-expected.csv", Property::Condition),
        ("OPENCL-DR-expected.csv", Property::Races),
    ] {
        let Some(d) = disagreements(csv, property, LocalMemory::PerWorkgroup) else {
            return skipped(csv);
        };
        all.extend(d);
    }
    let mut names: Vec<&str> = all.iter().map(|s| s.split(" (").next().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, SPEC_READING_DIFFERS, "{}", all.join("\n"));
}

/// vkmm's own OpenCL rule tests (tests/litmus-opencl), verdicts derived by
/// hand from the specification (each file says which sentence it exercises).
fn own_tests(csv: &str, property: Property) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus-opencl");
    let text = std::fs::read_to_string(dir.join(csv)).unwrap();
    let rows = expected::parse(csv, &text, &dir).unwrap();
    assert!(rows.len() >= 15);
    let model = vkmm::models::load("opencl").unwrap();
    let mut bad = Vec::new();
    for row in &rows {
        let program = vkmm::frontend::load(&row.path).unwrap_or_else(|e| panic!("{e}"));
        let name = row.path.display().to_string();
        let o = check_litmus(&name, &program, &model, "opencl", Limits::default(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        if o.holds(property) != Some(row.holds) {
            bad.push(format!("{name}: expected {}", u8::from(row.holds)));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn own_rule_tests_condition() {
    own_tests("expected-condition.csv", Property::Condition);
}

#[test]
fn own_rule_tests_races() {
    own_tests("expected-races.csv", Property::Races);
}
