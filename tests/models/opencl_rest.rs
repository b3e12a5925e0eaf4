//! The OpenCL document's parts added by issue 16 (items 8-11): sub-groups,
//! arrays and pointer arithmetic, the other address spaces and atomic
//! functions, and the no-thin-air variant. Each litmus file in
//! tests/fixtures/litmus-opencl-rest cites the sentence it exercises and derives its
//! verdicts by hand; each has a twin whose verdict differs, so every
//! expectation below can fail. The mutation tests at the end break the
//! rules these tests are for and check that some expectation notices.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus};
use vkmm::model::LoadedModel;

/// (file, model, property, expectation): for `Condition`, whether the
/// condition holds (`exists`: reachable; `forall`: in every execution); for
/// `Races`, whether the test has a data race (the outcome's `holds` says
/// race-free, the negation).
const EXPECTED: &[(&str, &str, Property, bool)] = &[
    // Item 11: out-of-thin-air (3.6.1).
    ("oota-lb-data", "opencl", Property::Condition, true),
    (
        "oota-lb-data",
        "opencl-nothinair",
        Property::Condition,
        false,
    ),
    ("oota-lb-data", "opencl-nothinair", Property::Races, false),
    (
        "oota-value-from-a-write",
        "opencl",
        Property::Condition,
        true,
    ),
    (
        "oota-value-from-a-write",
        "opencl-nothinair",
        Property::Condition,
        true,
    ),
    ("oota-split-cycle-note", "opencl", Property::Condition, true),
    (
        "oota-split-cycle-note",
        "opencl-nothinair",
        Property::Condition,
        false,
    ),
    ("oota-lb-no-dependency", "opencl", Property::Condition, true),
    (
        "oota-lb-no-dependency",
        "opencl-nothinair",
        Property::Condition,
        false,
    ),
    // Item 8: sub-groups (3.5 scope inclusion, 3.6.3 barriers).
    ("sg-mp-same-subgroup", "opencl", Property::Condition, false),
    ("sg-mp-same-subgroup", "opencl", Property::Races, false),
    ("sg-mp-other-subgroup", "opencl", Property::Condition, true),
    ("sg-mp-other-subgroup", "opencl", Property::Races, true),
    (
        "sg-barrier-same-subgroup",
        "opencl",
        Property::Condition,
        false,
    ),
    ("sg-barrier-same-subgroup", "opencl", Property::Races, false),
    (
        "sg-barrier-other-subgroup",
        "opencl",
        Property::Condition,
        true,
    ),
    ("sg-barrier-other-subgroup", "opencl", Property::Races, true),
    (
        "sg-wg-barrier-across-subgroups",
        "opencl",
        Property::Condition,
        false,
    ),
    (
        "sg-wg-barrier-across-subgroups",
        "opencl",
        Property::Races,
        false,
    ),
    // Item 10: arrays, pointer arithmetic, address spaces, atomic_flag,
    // atomic_init.
    ("array-mp-index", "opencl", Property::Condition, false),
    ("array-mp-index", "opencl", Property::Races, false),
    (
        "array-mp-wrong-element",
        "opencl",
        Property::Condition,
        true,
    ),
    ("array-mp-wrong-element", "opencl", Property::Races, true),
    (
        "array-index-from-memory",
        "opencl",
        Property::Condition,
        false,
    ),
    ("array-index-from-memory", "opencl", Property::Races, false),
    ("array-index-relaxed", "opencl", Property::Condition, true),
    ("array-index-relaxed", "opencl", Property::Races, true),
    ("constant-space", "opencl", Property::Condition, true),
    ("constant-space", "opencl", Property::Races, false),
    (
        "constant-space-other-value",
        "opencl",
        Property::Condition,
        false,
    ),
    ("private-space", "opencl", Property::Condition, true),
    ("private-space", "opencl", Property::Races, false),
    (
        "private-space-other-write",
        "opencl",
        Property::Condition,
        false,
    ),
    ("atomic-flag-lock", "opencl", Property::Condition, false),
    ("atomic-flag-lock", "opencl", Property::Races, false),
    ("atomic-flag-no-clear", "opencl", Property::Condition, true),
    ("atomic-flag-no-clear", "opencl", Property::Races, false),
    ("atomic-init-plain", "opencl", Property::Races, true),
    ("atomic-init-ordered", "opencl", Property::Races, false),
    ("atomic-init-ordered", "opencl", Property::Condition, true),
];

fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-opencl-rest")
        .join(format!("{name}.litmus"))
}

/// The expectations `model` gets wrong, among those for `model_name`.
fn failures(model_name: &str, model: &LoadedModel) -> Vec<String> {
    EXPECTED
        .iter()
        .filter(|(_, m, _, _)| *m == model_name)
        .filter_map(|(name, _, property, holds)| {
            let p = path(name);
            let program = vkmm::frontend::load(&p).unwrap_or_else(|e| panic!("{e}"));
            let got = check_litmus(name, &program, model, Limits::default(), Some(*property))
                .ok()
                .and_then(|o| o.holds(*property));
            let want = if *property == Property::Races {
                !*holds
            } else {
                *holds
            };
            (got != Some(want)).then(|| {
                format!("{name} under {model_name}: {property:?} expected {holds}, got {got:?}")
            })
        })
        .collect()
}

#[test]
fn hand_derived_verdicts() {
    let mut bad = Vec::new();
    for model_name in ["opencl", "opencl-nothinair"] {
        let model = vkmm::model::load(model_name).unwrap();
        bad.extend(failures(model_name, &model));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_test_file_has_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-opencl-rest");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "litmus") {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
            assert!(
                EXPECTED.iter().any(|(n, _, _, _)| *n == stem),
                "{} has no expected verdict",
                p.display()
            );
        }
    }
}

/// The model `top` (a built-in file name) with `file` replaced by `source`.
fn mutant(top: &str, file: &str, source: &str) -> LoadedModel {
    common::mutant(top, &[(file, source)])
}

/// (model whose expectations check it, file edited, what breaks, text, replacement)
const MUTATIONS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "opencl-nothinair",
        "opencl-nothinair.cat",
        "no cycle of sequenced-before and reads-from",
        "acyclic thin_air as no-thin-air",
        "",
    ),
    (
        "opencl-nothinair",
        "opencl-nothinair.cat",
        "the cycle goes through reads-from",
        "let thin_air = sb | rf",
        "let thin_air = sb",
    ),
    (
        "opencl",
        "opencl-rules.cat",
        "SubGroup scope is inclusive within one sub-group",
        "let incl = (ssg & (SCOPESG * SCOPESG))",
        "let incl = (0 & (SCOPESG * SCOPESG))",
    ),
    (
        "opencl",
        "opencl-rules.cat",
        "SubGroup scope is inclusive within one sub-group only",
        "let incl = (ssg & (SCOPESG * SCOPESG))",
        "let incl = (swg & (SCOPESG * SCOPESG))",
    ),
];

#[test]
fn every_mutation_is_caught() {
    let top = |m: &str| format!("{m}.cat");
    let mut survivors = Vec::new();
    for &(model_name, file, what, from, to) in MUTATIONS {
        let original = vkmm::model::embedded(file).unwrap();
        assert!(
            original.contains(from),
            "mutation `{what}` no longer applies to {file}: `{from}`"
        );
        let m = mutant(&top(model_name), file, &original.replacen(from, to, 1));
        if failures(model_name, &m).is_empty() {
            survivors.push(what);
        }
    }
    assert!(
        survivors.is_empty(),
        "no test notices these broken rules:\n{}",
        survivors.join("\n")
    );
}
