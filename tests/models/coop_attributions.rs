//! Cooperative matrix instructions whose attribution the test leaves open
//! (issue 16 item 5, docs/format-vulkan-litmus.md "Cooperative matrix
//! loads and stores", src/ir/attribution.rs): "is this outcome allowed"
//! ranges over every attribution the rendering allows. Hand-derived
//! verdicts in tests/fixtures/litmus-coopmat-open (each file quotes its sentence
//! and says which attribution decides), the attributions built, their
//! union, the bound, explain naming the attribution, located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::analysis::Property;
use vkmm::analysis::explain::Verdict;
use vkmm::ir::{OpKind, Program, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-coopmat-open")
}

#[test]
fn litmus_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 8);
}

fn load(file: &str) -> Program {
    vkmm::frontend::load(&dir().join(file)).unwrap()
}

fn parse(text: &str) -> Result<Program, String> {
    let format = vkmm::frontend::Format::VulkanLitmus;
    vkmm::frontend::parse_text("t.litmus", text, format, Default::default())
        .map_err(|e| e.to_string())
}

/// Each attribution's element accesses: (thread, kind, location).
fn accesses(p: &Program) -> Vec<(usize, OpKind, String)> {
    let mut out = Vec::new();
    for (k, t) in p.threads.iter().enumerate() {
        for s in &t.code {
            if let Stmt::Op(i) = s
                && i.coop.is_some()
            {
                let r = i.reference.unwrap();
                out.push((k, i.kind.clone(), p.references[r].name.clone()));
            }
        }
    }
    out
}

fn names(p: &Program) -> Vec<String> {
    p.attributions()
        .iter()
        .map(|a| a.attributions.this.clone().unwrap())
        .collect()
}

/// Stores: "a single implementation-dependent invocation ... performs a
/// non-atomic store to that memory location": one invocation per element.
#[test]
fn a_store_element_goes_to_exactly_one_invocation() {
    let p = load("store-open.litmus");
    assert_eq!(names(&p), ["instance 0: x by P0", "instance 0: x by P1"]);
    assert_eq!(p.attributions.total, 2);
    let alts = p.attributions();
    assert_eq!(accesses(alts[0]), [(0, OpKind::Store, "x".to_string())]);
    assert_eq!(accesses(alts[1]), [(1, OpKind::Store, "x".to_string())]);
    // Two elements: 2 x 2.
    let p = load("store-open-barrier.litmus");
    assert_eq!(p.attributions.total, 4);
    assert_eq!(names(&p)[1], "instance 0: x by P0, y by P1");
}

/// Loads: "some implementation-dependent invocation(s) ... perform a
/// non-atomic load": every non-empty set of invocations, singletons first.
#[test]
fn a_load_element_goes_to_every_non_empty_set_of_invocations() {
    let p = load("load-open.litmus");
    assert_eq!(
        names(&p),
        [
            "instance 0: x by P0",
            "instance 0: x by P1",
            "instance 0: x by P0+P1"
        ]
    );
    assert_eq!(
        accesses(p.attributions()[2]),
        [
            (0, OpKind::Load, "x".to_string()),
            (1, OpKind::Load, "x".to_string())
        ]
    );
    let two = "VULKAN t\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n cmld.sg.sc0 3, x y | cmld.sg.sc0 3, x y ;\nexists (x == 0)\n";
    let p = parse(two).unwrap();
    assert_eq!(p.attributions.total, 9);
    assert_eq!(p.attributions().len(), 9);
    // A test stating the attribution has none to explore.
    let stated = vkmm::frontend::load(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/litmus-coopmat/store-own-element.litmus"),
    )
    .unwrap();
    assert!(stated.attributions.is_empty());
    assert_eq!(stated.attributions().len(), 1);
}

fn run(p: &Program, model: &str, decide: Option<Property>) -> vkmm::analysis::LitmusOutcome {
    let m = vkmm::model::load(model).unwrap();
    vkmm::analysis::check_litmus("t", p, &m, Default::default(), decide).unwrap()
}

/// store-open: r0 = 0 only when P1 stores x; the union lists both final
/// states and the race names its attribution.
#[test]
fn the_outcome_list_is_the_union_of_the_attributions() {
    let p = load("store-open.litmus");
    let o = run(&p, "vulkan", None);
    let values: Vec<i64> = o.states.iter().map(|(s, _)| s.values()[0]).collect();
    assert_eq!(values, [0, 1]);
    assert_eq!(o.holds(Property::Condition), Some(true));
    assert_eq!(o.races.len(), 1);
    assert_eq!(
        o.races[0].attribution.as_deref(),
        Some("instance 0: x by P1")
    );
    let a = o.attributions.unwrap();
    assert_eq!((a.explored, a.total), (2, 2));
    // Each attribution alone: only the second allows it.
    let alts = p.attributions();
    let alone = |q: &Program| {
        let mut q = q.clone();
        q.attributions = Default::default();
        run(&q, "vulkan", None).holds(Property::Condition)
    };
    assert_eq!(alone(alts[0]), Some(false));
    assert_eq!(alone(alts[1]), Some(true));
}

/// The loads' set semantics and the AsciiDoc single loader give the same
/// answers on these tests (a race is a pair of accesses, so a set of
/// loaders races when one of its members does alone); the variant rejects
/// the attributions with two loaders of one element (no consistent
/// execution), so it sees fewer executions.
#[test]
fn the_single_loader_variant_keeps_the_answers() {
    let single = vkmm::model::load("vulkan-coopmat-single").unwrap();
    let wrong = common::csv_mismatches(&dir(), &single);
    assert!(wrong.is_empty(), "{wrong:?}");
    let p = load("load-open.litmus");
    let (d, s) = (
        run(&p, "vulkan", None),
        run(&p, "vulkan-coopmat-single", None),
    );
    assert!(
        s.consistent < d.consistent,
        "{} {}",
        s.consistent,
        d.consistent
    );
    assert!(
        s.races
            .iter()
            .all(|r| !r.attribution.as_ref().unwrap().contains('+'))
    );
    assert!(
        d.races
            .iter()
            .any(|r| r.attribution.as_ref().unwrap().contains('+'))
    );
}

/// Past the bound, what the attributions built do not settle is undecided;
/// a witness settles `exists` whatever the others do.
#[test]
fn past_the_bound_the_unsettled_answers_are_undecided() {
    let row = |f: &dyn Fn(usize) -> String| (0..8).map(f).collect::<Vec<_>>().join(" | ");
    let text = |cond: &str| {
        format!(
            "VULKAN t\n{{ x=0; y=0; z=0; }}\n{} ;\n{} ;\nexists ({cond})\n",
            row(&|k| format!("P{k}@sg 0, wg 0, qf 0")),
            row(&|_| "cmst.sg.sc0 0, 1, x y z".to_string())
        )
    };
    let p = parse(&text("x == 2")).unwrap();
    assert_eq!(p.attributions.total, 512);
    assert_eq!(p.attributions().len(), vkmm::ir::MAX_ATTRIBUTIONS);
    assert!(!p.attributions.complete());
    let o = run(&p, "vulkan", None);
    assert_eq!(o.condition_holds, None);
    assert_eq!(o.holds(Property::Races), None);
    assert!(!o.complete());
    let report = vkmm::report::text::litmus(&o);
    assert!(report.contains("Undecided"), "{report}");
    assert!(report.contains("Attributions: 64 of 512 run"), "{report}");
    let o = run(&parse(&text("x == 1")).unwrap(), "vulkan", None);
    assert_eq!(o.condition_holds, Some(true));
    // Deciding the condition stops at the first witness.
    let o = run(
        &load("store-open.litmus"),
        "vulkan",
        Some(Property::Condition),
    );
    assert_eq!(o.holds(Property::Condition), Some(true));
}

#[test]
fn explain_names_the_attribution() {
    let session = vkmm::Session::new();
    let p = load("store-open.litmus");
    let x = session.explain(&p, None, None).unwrap();
    assert_eq!(x.verdict, Verdict::Allowed);
    assert_eq!(x.attribution.as_deref(), Some("instance 0: x by P1"));
    let text = vkmm::report::text::explanation(&x);
    assert!(text.contains("Attribution: instance 0: x by P1"), "{text}");
    let p = load("store-open-barrier.litmus");
    let x = session.explain(&p, None, None).unwrap();
    assert_eq!(x.verdict, Verdict::Forbidden);
    assert!(
        x.attribution
            .as_deref()
            .unwrap()
            .starts_with("every attribution (4)"),
        "{:?}",
        x.attribution
    );
}

#[test]
fn open_and_stated_attributions_do_not_mix() {
    let e = parse("VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n cmst.sg.sc0 0, 1, x : x | cmst.sg.sc0 0, 1, x ;\nexists (x == 0)\n").unwrap_err();
    assert!(e.contains("t.litmus:4:28"), "{e}");
    assert!(
        e.contains("either every invocation states its accesses or none does"),
        "{e}"
    );
    let e = parse("VULKAN t\n{ x:8=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n cmst.sg.sc0 0, 1, x | cmst.sg.sc0 0, 1, x ;\nexists (x == 0)\n").unwrap_err();
    assert!(e.contains("t.litmus:4:2"), "{e}");
    assert!(e.contains("is a sized variable"), "{e}");
}

/// `--model`'s help lists the variants of issue 16's shader call and
/// cooperative matrix items.
#[test]
fn the_model_help_lists_the_new_variants() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(["check", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for name in [
        "vulkan-shcall-wide",
        "vulkan-shcall-mid",
        "vulkan-shcall-narrow",
        "vulkan-coopmat-single",
    ] {
        assert!(help.contains(name), "{name} not in:\n{help}");
        assert!(vkmm::model::load(name).is_ok(), "{name} is built in");
    }
}
