//! Mutation tests for the Vulkan model: each mutation below breaks one rule
//! of the appendix in `models/vulkan-rules.cat` or one of the
//! specification's readings in `models/vulkan-spec-readings.cat`; the rule tests
//! (tests/fixtures/litmus) together with the Khronos suite must notice every one of
//! them. A mutation that survives means a rule no test exercises.
//!
//! Not mutated, because no execution can tell: the same-location half of
//! per-instruction availability/visibility (`sref & sloc`): a reference has
//! one location in every front end, so `sref` implies `sloc` (the comment
//! above `inc_instruction` in the rules).

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::analysis::Models;

const RULES: &str = include_str!("../../models/vulkan-rules.cat");
const READINGS: &str = include_str!("../../models/vulkan-spec-readings.cat");

/// (what the mutation breaks, text to replace, replacement)
const MUTATIONS: &[(&str, &str, &str)] = &[
    (
        "from-reads through location order",
        "let fr_locord(locord) = rf^-1 ; [W] ; locord ; [W]",
        "let fr_locord(locord) = 0",
    ),
    (
        "from-reads of initial-value reads",
        "| ([RFINIT] ; sloc ; [W])) \\ id",
        ") \\ id",
    ),
    (
        "release sequences only extend through RMWs",
        "let rs = [REL & A] ; (imm(asmo) ; [RMW])*",
        "let rs = [REL & A] ; (imm(asmo))*",
    ),
    (
        "hypothetical release sequences",
        "let hypors = [W & A] ; (imm(asmo) ; [RMW])*",
        "let hypors = [W & A]",
    ),
    (
        "synchronizes-with needs mutual scope inclusion",
        "let sw_atom_atom = inscope & (",
        "let sw_atom_atom = (",
    ),
    (
        "barrier synchronizes-with needs the storage class in the semantics",
        "let po_sc_sem = po & sc_in_sem",
        "let po_sc_sem = po",
    ),
    (
        "control barriers synchronize",
        "| sw_bar_bar | sw_cbar",
        "| sw_bar_bar",
    ),
    (
        "system-synchronizes-with is inter-thread-happens-before",
        "  (ssw\n  | ([SEMS] ; sw ; [SEMS])",
        "  (([SEMS] ; sw ; [SEMS])",
    ),
    (
        "inter-thread-happens-before needs SC in both semantics",
        "| ([SEMS] ; sw ; [SEMS])",
        "| sw",
    ),
    (
        "private accesses need system-synchronizes-with",
        "let locord_nonprivate_read = sloc & ([R & NONPRIV] ; hb ; [M & NONPRIV])",
        "let locord_nonprivate_read = sloc & ([R] ; hb ; [M])",
    ),
    (
        "read-after-write needs the read's visibility operation",
        "let raw(avc, link, visc) = sref & (to_av ; avc ; link ; visc ; from_vis)",
        "let raw(avc, link, visc) = sref & (to_av ; avc ; link ; [R & NONPRIV])",
    ),
    (
        "domains are shared only within a scope instance",
        "let locord_workgroup_domain = waw(avwg, hb & swg) | raw(avwg, hb & swg, viswg)",
        "let locord_workgroup_domain = waw(avwg, hb) | raw(avwg, hb, viswg)",
    ),
    (
        "availability semantics include only the accesses before them",
        "let avvis_semantics(sc_in_sem) = (sc_in_sem & (M * SEMAV)) | (sc_in_sem^-1 & (SEMVIS * M))",
        "let avvis_semantics(sc_in_sem) = (sc_in_sem & (M * (SEMAV | SEMVIS))) | (sc_in_sem^-1 & ((SEMAV | SEMVIS) * M))",
    ),
    (
        "device-domain operations",
        "let avvis_device = (M * AVDEVICE) | (VISDEVICE * M)",
        "let avvis_device = 0",
    ),
    (
        "mutually-ordered atomics use the same reference",
        "let mutord = (sloc & sref & (A * A) & inscope) \\ id",
        "let mutord = (sloc & (A * A) & inscope) \\ id",
    ),
    (
        "the queue-family scope instance in scope inclusion",
        "            | (sqf & (QFSCOPE * QFSCOPE))",
        "            | (QFSCOPE * QFSCOPE)",
    ),
    (
        "release barrier to acquire atomic needs X's storage class in A's semantics",
        "let po_sem_sc = po & sc_in_sem^-1",
        "let po_sem_sc = po",
    ),
    (
        "private writes take no domain route",
        "let to_av = [W & NONPRIV] ; (po? & avvisinc)",
        "let to_av = [W] ; (po? & avvisinc)",
    ),
    (
        "per-instruction availability/visibility covers the same reference only",
        "let inc_instruction = [AV | VIS] ; (sref & sloc)",
        "let inc_instruction = [AV | VIS] ; sloc",
    ),
    (
        "device-domain write-after-write location order",
        "  ( ([W] ; (hb & avvisinc) ; [AVDEVICE] ; hb ; [W])\n  | ",
        "  ( ",
    ),
    (
        "the queue-family domain is shared only within one queue-family instance",
        "let locord_queuefamily_domain = waw(avqf, hb & sqf) | raw(avqf, hb & sqf, visqf)",
        "let locord_queuefamily_domain = waw(avqf, hb) | raw(avqf, hb, visqf)",
    ),
    (
        "mutually-ordered atomics never race",
        "let dr = conflict \\ mutord \\ id",
        "let dr = conflict \\ id",
    ),
];

fn mutated_models(rules: &str, readings: &str) -> Models {
    let replaced = [
        ("vulkan-rules.cat", rules),
        ("vulkan-spec-readings.cat", readings),
    ];
    Models {
        chains: common::mutant("vulkan.cat", &replaced),
        no_chains: common::mutant("vulkan-nochains.cat", &replaced),
    }
}

fn all_tests() -> Vec<PathBuf> {
    let mut files = common::files_with_ext(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus"),
        "test",
    );
    if let Some(d) = common::corpus_or_skip("khronos-alloy") {
        files.extend(common::files_with_ext(&d, "test"));
    }
    files
}

/// Number of queries whose answer differs from the expectation.
fn failures(models: &Models, files: &[PathBuf]) -> usize {
    files
        .iter()
        .map(|f| match common::check_path(f, models) {
            Ok(o) => o.queries.iter().filter(|q| !q.passed).count(),
            Err(_) => 1,
        })
        .sum()
}

#[test]
fn the_unmutated_model_passes_everything() {
    assert_eq!(failures(&mutated_models(RULES, READINGS), &all_tests()), 0);
}

#[test]
fn every_mutation_is_caught() {
    let files = all_tests();
    let mut survivors = Vec::new();
    for (what, from, to) in MUTATIONS {
        let models = if RULES.contains(from) {
            mutated_models(&RULES.replacen(from, to, 1), READINGS)
        } else {
            assert!(
                READINGS.contains(from),
                "mutation `{what}` no longer applies: `{from}`"
            );
            mutated_models(RULES, &READINGS.replacen(from, to, 1))
        };
        // Caught at the first test that fails: the rest need not run.
        let caught = files
            .iter()
            .any(|f| failures(&models, std::slice::from_ref(f)) > 0);
        if !caught {
            survivors.push(*what);
        }
    }
    assert!(
        survivors.is_empty(),
        "no test notices these broken rules: {survivors:?}"
    );
}
