//! Fragment shader interlock (docs/interlock.md): vkmm's own tests in
//! tests/fixtures/litmus-interlock, each quoting the sentence it exercises with a
//! verdict derived by hand (the two CSVs and the `.test` queries); the
//! located diagnoses of the lints; and mutation tests: each new rule of
//! `models/vulkan-rules.cat`, broken, changes some verdict.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus};
use vkmm::model::LoadedModel;

const RULES: &str = include_str!("../../models/vulkan-rules.cat");

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-interlock")
}

/// The rows whose verdict under `model` differs from the expected one.
fn wrong_rows(model: &LoadedModel) -> Vec<String> {
    common::csv_mismatches(&dir(), model)
}

#[test]
fn litmus_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 30);
}

#[test]
fn alloy_test_queries_give_their_expected_answers() {
    let files = common::files_with_ext(&dir(), "test");
    assert_eq!(files.len(), 5);
    let (total, failures) = common::check_queries(&files, &common::models());
    assert!(total >= 4 && failures.is_empty(), "{failures:?}");
}

#[test]
fn both_dialects_agree_on_the_ordered_counter() {
    // The same two-invocation program in both dialects (pinned values in
    // the .test; outcomes in the .litmus): the stale read is forbidden in
    // ordered mode and allowed in unordered mode.
    let model = vkmm::model::load("vulkan").unwrap();
    let program = vkmm::frontend::load(&dir().join("counter-ordered.litmus")).unwrap();
    let o = check_litmus("c", &program, &model, Limits::default(), None).unwrap();
    assert_eq!(o.holds(Property::Condition), Some(true));
    let t = common::check_path(&dir().join("interlock-ordered.test"), &common::models()).unwrap();
    assert!(t.queries.iter().all(|q| q.passed));
}

/// The model `vulkan` with its rules replaced by `rules`.
fn mutant(rules: &str) -> LoadedModel {
    common::vulkan_mutant(rules, None)
}

/// (what the mutation breaks, text to replace, replacement, a test whose
/// verdict it changes)
const MUTATIONS: &[(&str, &str, &str, &str)] = &[
    (
        "End synchronizes-with Begin in interlock order",
        "| sw_cbar | sw_interlock",
        "| sw_cbar",
        "counter-ordered.litmus",
    ),
    (
        "the interlock order is from End to Begin (not the reverse)",
        "([ILEND] ; interlock_order ; [ILBEGIN])",
        "([ILEND] ; interlock_order^-1 ; [ILBEGIN])",
        "counter-ordered.litmus",
    ),
    (
        "the fragment interlock instance domain route",
        "let locord_interlock_domain = waw(avfi, hb & sfi) | raw(avfi, hb & sfi, visfi)",
        "let locord_interlock_domain = 0",
        "counter-ordered.litmus",
    ),
    (
        "the fragment interlock instance domain is shared only by overlapping invocations",
        "let locord_interlock_domain = waw(avfi, hb & sfi) | raw(avfi, hb & sfi, visfi)",
        "let locord_interlock_domain = waw(avfi, hb) | raw(avfi, hb, visfi)",
        "fi-data-no-overlap.litmus",
    ),
    (
        "FragmentInterlock scope inclusion needs overlap",
        "let inscope_fi = sfi &",
        "let inscope_fi = sqf &",
        "fi-atomic-no-overlap-qf-data.litmus",
    ),
    (
        "FragmentInterlock operations are in scope of each other",
        "  ( (SCOPEFI * SCOPEFI)\n",
        "  ( 0\n",
        "fi-atomic-overlap.litmus",
    ),
    (
        "broader operations include the fragment interlock instance domain",
        "let AVFI = AVOP & FRAG & (QFSCOPE | (SCOPEFI \\ FI_AS_WG))",
        "let AVFI = AVOP & FRAG & (SCOPEFI \\ FI_AS_WG)",
        "mixed-scope-qf-fi.litmus",
    ),
    (
        "a workgroup instance is included only when it is a subset (no subset)",
        "let WG_IN_FI = FRAG \\ domain(swg \\ sfi)",
        "let WG_IN_FI = FRAG",
        "fi-same-workgroup-no-overlap.litmus",
    ),
    (
        "a workgroup instance is included when it is a subset",
        "let WG_IN_FI = FRAG \\ domain(swg \\ sfi)",
        "let WG_IN_FI = {}",
        "fi-same-workgroup-overlap.litmus",
    ),
];

#[test]
fn every_interlock_mutation_changes_a_verdict() {
    let unmutated = mutant(RULES);
    assert_eq!(wrong_rows(&unmutated), Vec::<String>::new());
    let mut survivors = Vec::new();
    for (what, from, to, witness) in MUTATIONS {
        assert!(RULES.contains(from), "mutation `{what}` no longer applies");
        let wrong = wrong_rows(&mutant(&RULES.replacen(from, to, 1)));
        if !wrong.iter().any(|w| w.starts_with(witness)) {
            survivors.push(format!(
                "{what} (expected {witness} to change; changed: {wrong:?})"
            ));
        }
    }
    assert!(survivors.is_empty(), "{survivors:#?}");
}

fn parse_error(name: &str, text: &str) -> String {
    let format = if name.ends_with(".test") {
        vkmm::frontend::Format::AlloyTest
    } else {
        vkmm::frontend::Format::VulkanLitmus
    };
    match vkmm::frontend::parse_text(name, text, format, Default::default()) {
        Ok(_) => panic!("{name} parsed"),
        Err(e) => e.to_string(),
    }
}

const HEAD: &str =
    "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 0 | P1@sg 0, wg 1, qf 0 ;\n";

#[test]
fn lints_are_located_errors() {
    // (rows after HEAD, expected `file:line:col: message` fragment)
    let cases = [
        (
            " beginil | beginil ;\n endil | endil ;\n",
            "t.litmus:4:12: `beginil` is a fragment shader instruction, but thread 1 is not a fragment invocation",
        ),
        (
            " st.av.sc0.fi x, 1 | ld.vis.fi.sc0 r0, x ;\n",
            "t.litmus:4:22: scope `fi` (FragmentInterlock)",
        ),
        (
            " beginil | ;\n beginil | ;\n endil | ;\n",
            "t.litmus:5:2: second `beginil` in thread 0 (the first is at line 4)",
        ),
        (
            " endil | ;\n beginil | ;\n",
            "t.litmus:4:2: `endil` without an earlier `beginil`",
        ),
        (
            " beginil | ;\n",
            "t.litmus:4:2: `beginil` without a later `endil`",
        ),
        (
            " beginil | ;\n endil | ;\n endil | ;\n",
            "t.litmus:6:2: second `endil`",
        ),
        (
            " beginil | ;\n cbar.wg 0 | ;\n endil | ;\n",
            "t.litmus:5:2: a control barrier inside the critical section of thread 0",
        ),
        (
            " beginil.acq | ;\n",
            "t.litmus:4:9: `beginil` takes no attribute",
        ),
    ];
    let mut all: Vec<(&str, String, &str)> = cases
        .iter()
        .map(|(rows, want)| ("t.litmus", format!("{HEAD}{rows}"), *want))
        .collect();
    let placement = [
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0 ;\n",
            "t.litmus:3:29: a fragment invocation needs `prim N, pixel N`",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 0, samples ;\n",
            "expected the covered sample numbers",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 0, prim 1 ;\n",
            "`prim` given twice",
        ),
        (
            "VULKAN t\n{ interlock pixel sorted; }\n P0@sg 0, wg 0, qf 0 ;\n",
            "t.litmus:2:19: expected `ordered` or `unordered` after `interlock pixel`",
        ),
        (
            "VULKAN t\n{ interlock pixel ordered; interlock sample ordered; }\n P0@sg 0, wg 0, qf 0 ;\n",
            "the interlock mode is declared twice",
        ),
        (
            "VULKAN t\n{ interlock quad ordered; }\n P0@sg 0, wg 0, qf 0 ;\n",
            "t.litmus:2:13: expected `pixel`, `sample` or `shadingrate` (the interlock granularity)",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 2, area 0 1 ;\n",
            "t.litmus:3:23: pixel 2 is covered but not in the fragment area",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixels ;\n",
            "expected pixel numbers after `pixels`",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 0, pixels 1 2 ;\n",
            "the covered pixels are given twice",
        ),
        (
            "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixels 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 ;\n",
            "a fragment area has at most 16 pixels (4x4)",
        ),
    ];
    all.extend(
        placement
            .iter()
            .map(|(t, w)| ("t.litmus", t.to_string(), *w)),
    );
    let alloy = [
        (
            "NEWTHREAD\nbeginil\nendil\n",
            "t.test:2:1: `beginil` is a fragment shader instruction",
        ),
        (
            "NEWTHREAD\nFRAGMENT prim 0 pixel 0\nbeginil\ncbar.scopewg 0\nendil\n",
            "t.test:4:1: a control barrier inside the critical section",
        ),
        (
            "NEWTHREAD\nFRAGMENT prim 0\n",
            "t.test:2:1: a fragment invocation needs `prim N pixel N`",
        ),
        (
            "INTERLOCK pixel\n",
            "t.test:1:1: INTERLOCK takes a granularity and an order",
        ),
        (
            "NEWTHREAD\nst.sc0 x = 1\nFRAGMENT prim 0 pixel 0\n",
            "t.test:3:1: FRAGMENT must come once",
        ),
        (
            "NEWTHREAD\nFRAGMENT prim 0 pixels 3 area 0 1\n",
            "t.test:2:1: pixel 3 is covered but not in the fragment area",
        ),
        (
            "NEWTHREAD\nFRAGMENT prim 0 pixel 0 1\n",
            "t.test:2:17: `pixel` takes one pixel number",
        ),
        (
            "INTERLOCK coarse ordered\n",
            "t.test:1:11: expected `pixel`, `sample` or `shadingrate`",
        ),
    ];
    all.extend(alloy.iter().map(|(t, w)| ("t.test", t.to_string(), *w)));
    let wrong: Vec<String> = all
        .into_iter()
        .filter_map(|(name, text, want)| {
            let got = parse_error(name, &text);
            (!got.contains(want)).then(|| format!("want `{want}`, got `{got}`"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_critical_section_in_a_loop_is_refused_on_the_path_that_repeats_it() {
    let text = "VULKAN t\n{ x=0; P0:r0=0; }\n P0@sg 0, wg 0, qf 0, prim 0, pixel 0 ;\n L: ;\n add r0, r0, 1 ;\n beginil ;\n endil ;\n blt r0, 2, L ;\n";
    // statically one Begin and one End: the front end accepts it
    let program = vkmm::frontend::parse_text(
        "t.litmus",
        text,
        vkmm::frontend::Format::VulkanLitmus,
        Default::default(),
    )
    .unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let Err(err) = check_litmus("t", &program, &model, Limits::default(), None) else {
        panic!("the repeating path is refused");
    };
    let err = err.to_string();
    assert!(
        err.contains("runs a second time on a path of thread 0"),
        "{err}"
    );
}

#[test]
fn the_printer_round_trips_interlock_programs() {
    for f in common::files_with_ext(&dir(), "litmus") {
        let p = vkmm::frontend::load(&f).unwrap();
        let text = vkmm::frontend::vulkan_litmus::print::to_litmus(&p);
        let q = vkmm::frontend::parse_text(
            "p.litmus",
            &text,
            vkmm::frontend::Format::VulkanLitmus,
            Default::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}\n{text}", f.display()));
        assert_eq!(vkmm::frontend::vulkan_litmus::print::to_litmus(&q), text);
        assert_eq!(p.interlock, q.interlock);
        let frags =
            |p: &vkmm::ir::Program| p.threads.iter().map(|t| t.fragment).collect::<Vec<_>>();
        assert_eq!(frags(&p), frags(&q), "{}", f.display());
    }
}
