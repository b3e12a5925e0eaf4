//! Conformance: the Dat3M Vulkan litmus suite (../shared/corpus/dat3m-vulkan)
//! against its four expected-verdict CSVs.

use crate::common;

use std::path::Path;
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};

fn run_csv(csv: &str, model: &str, property: Property) {
    let Some(dir) = common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join(csv)).unwrap();
    let rows = expected::parse(csv, &text, &dir).unwrap();
    assert!(!rows.is_empty());
    let model_v = vkmm::model::load(model).unwrap();
    let mut failures = Vec::new();
    for row in &rows {
        let program = match vkmm::frontend::load(Path::new(&row.path)) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", row.path.display()));
                continue;
            }
        };
        match check_litmus(
            &row.path.display().to_string(),
            &program,
            &model_v,
            Limits::default(),
            Some(property),
        ) {
            Ok(o) => {
                if o.holds(property) != Some(row.holds) {
                    failures.push(format!(
                        "{}: expected {}, got {:?} ({} positive, {} negative, {} cut paths)",
                        row.path.display(),
                        u8::from(row.holds),
                        o.holds(property).map(u8::from),
                        o.positive,
                        o.negative,
                        o.cut_paths
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", row.path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{csv} under {model}: {} of {} rows disagree:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn vulkan_expected_condition() {
    run_csv("VULKAN-expected.csv", "vulkan", Property::Condition);
}

#[test]
fn vulkan_nochains_expected_condition() {
    run_csv(
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Condition,
    );
}

#[test]
fn vulkan_dr_expected_races() {
    run_csv("VULKAN-DR-expected.csv", "vulkan", Property::Races);
}

#[test]
fn vulkan_dr_nochains_expected_races() {
    run_csv(
        "VULKAN-DR-NOCHAINS-expected.csv",
        "vulkan-nochains",
        Property::Races,
    );
}

/// `vulkan-dat3m` reproduces Dat3M's reading: it must give every verdict of
/// Dat3M's own CSVs (MODELS.md, "Where the references disagree").
#[test]
fn dat3m_variant_gives_dat3ms_verdicts() {
    run_csv("VULKAN-expected.csv", "vulkan-dat3m", Property::Condition);
    run_csv(
        "VULKAN-NOCHAINS-expected.csv",
        "vulkan-dat3m-nochains",
        Property::Condition,
    );
    run_csv("VULKAN-DR-expected.csv", "vulkan-dat3m", Property::Races);
    run_csv(
        "VULKAN-DR-NOCHAINS-expected.csv",
        "vulkan-dat3m-nochains",
        Property::Races,
    );
}
