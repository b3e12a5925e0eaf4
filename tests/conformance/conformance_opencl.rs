//! Conformance: the Dat3M OpenCL litmus suite (../shared/corpus/dat3m-opencl)
//! against its two expected-verdict CSVs, under the `opencl` model.
//!
//! The corpus authors (herd7, Dat3M) read a `local` variable named by threads
//! of different workgroups as one location; the specification gives each
//! workgroup its own local memory. With `--local-memory shared` every row
//! matches; with the specification's reading exactly the rows listed in
//! `SPEC_READING_DIFFERS` disagree, and no others.
//!
//! The `opencl-totalsc` variant (the document's unscoped total order S of
//! sequentially consistent operations) disagrees with exactly the rows in
//! `TOTAL_SC_DIFFERS`.

use crate::common;

use std::path::Path;
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};
use vkmm::frontend::{LocalMemory, Options};

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

/// Rows whose reference verdict (scoped SC, Batty et al.) the document's
/// unscoped total order S changes. Sorted.
const TOTAL_SC_DIFFERS: &[&str] = &[
    // Device-scope SC operations on two devices: S orders them anyway, and
    // the C11 read rule then forbids both loads reading 0.
    "overhauling/example10.litmus: Condition",
];

/// The rows that disagree with their reference verdict under `model`.
fn disagreements(
    csv: &str,
    property: Property,
    local_memory: LocalMemory,
    model_name: &str,
) -> Option<Vec<String>> {
    let dir = common::corpus_or_skip("dat3m-opencl")?;
    let text = std::fs::read_to_string(dir.join(csv)).unwrap();
    let rows = expected::parse(csv, &text, &dir).unwrap();
    assert!(!rows.is_empty());
    let model = vkmm::model::load(model_name).unwrap();
    let mut out = Vec::new();
    for row in &rows {
        let rel = row
            .path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let program = match vkmm::frontend::load_with(
            Path::new(&row.path),
            Options {
                local_memory,
                ..Options::default()
            },
        ) {
            Ok(p) => p,
            Err(e) => {
                out.push(format!("{rel}: {property:?} (error: {e})"));
                continue;
            }
        };
        match check_litmus(&rel, &program, &model, Limits::default(), Some(property)) {
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
    common::skip(&format!(
        "../shared/corpus/dat3m-opencl is missing, so {csv} is not checked"
    ));
}

#[test]
fn opencl_expected_condition_shared_local_memory() {
    let Some(d) = disagreements(
        "OPENCL-expected.csv",
        Property::Condition,
        LocalMemory::Shared,
        "opencl",
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
        "opencl",
    ) else {
        return skipped("OPENCL-DR-expected.csv");
    };
    assert!(d.is_empty(), "rows disagree:\n{}", d.join("\n"));
}

/// Asserts that, over both CSVs, exactly the rows `documented` disagree.
fn exactly_these_rows_disagree(local_memory: LocalMemory, model_name: &str, documented: &[&str]) {
    let mut all = Vec::new();
    for (csv, property) in [
        ("OPENCL-expected.csv", Property::Condition),
        ("OPENCL-DR-expected.csv", Property::Races),
    ] {
        let Some(d) = disagreements(csv, property, local_memory, model_name) else {
            return skipped(csv);
        };
        all.extend(d);
    }
    let mut names: Vec<&str> = all.iter().map(|s| s.split(" (").next().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, documented, "{}", all.join("\n"));
}

#[test]
fn the_specifications_local_memory_changes_exactly_the_documented_rows() {
    exactly_these_rows_disagree(LocalMemory::PerWorkgroup, "opencl", SPEC_READING_DIFFERS);
}

#[test]
fn the_total_sc_variant_changes_exactly_the_documented_rows() {
    exactly_these_rows_disagree(LocalMemory::Shared, "opencl-totalsc", TOTAL_SC_DIFFERS);
}

/// vkmm's own OpenCL rule tests (tests/fixtures/litmus-opencl), verdicts derived by
/// hand from the specification (each file says which sentence it exercises).
fn own_tests(model_name: &str) {
    let rows = common::opencl_own_expectations(model_name);
    assert!(rows.len() >= 60);
    let model = vkmm::model::load(model_name).unwrap();
    let mut bad = Vec::new();
    for (path, property, holds) in &rows {
        let program = vkmm::frontend::load(path).unwrap_or_else(|e| panic!("{e}"));
        let name = path.display().to_string();
        let o = check_litmus(&name, &program, &model, Limits::default(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        if o.holds(*property) != Some(*holds) {
            bad.push(format!(
                "{name}: {property:?} expected {}",
                u8::from(*holds)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn own_rule_tests() {
    own_tests("opencl");
}

#[test]
fn own_rule_tests_total_sc_variant() {
    own_tests("opencl-totalsc");
}
