//! Cooperative matrix loads and stores (issue 16 item 5, docs/coverage.md):
//! "Cooperative Matrix Memory Access" in both renderings. Hand-derived
//! verdicts in tests/fixtures/litmus-coopmat (each file quotes its sentence), the
//! difference between the renderings' load wording (the default and
//! `vulkan-coopmat-single`), and the located errors of the `cmld`/`cmst`
//! spelling.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::analysis::Property;
use vkmm::ir::{CoopElement, OpKind, Scope, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-coopmat")
}

#[test]
fn litmus_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 12);
}

/// The condition of `file` under the built-in `model`.
fn condition(file: &str, model: &str) -> bool {
    let m = vkmm::model::load(model).unwrap();
    let program = vkmm::frontend::load(&dir().join(file)).unwrap();
    vkmm::analysis::check_litmus(file, &program, &m, Default::default(), None)
        .unwrap()
        .holds(Property::Condition)
        .unwrap()
}

/// AsciiDoc: "a single implementation-dependent invocation ... performs a
/// non-atomic load or store (respectively) to each memory location";
/// newer: "some implementation-dependent invocation(s) ... perform a
/// non-atomic load". Two loaders of one element: allowed by the newer text
/// only; one loader per element: allowed by both.
#[test]
fn the_renderings_differ_on_loads_by_several_invocations() {
    assert!(condition("load-two-loaders.litmus", "vulkan"));
    assert!(!condition(
        "load-two-loaders.litmus",
        "vulkan-coopmat-single"
    ));
    assert!(condition("load-one-loader.litmus", "vulkan"));
    assert!(condition("load-one-loader.litmus", "vulkan-coopmat-single"));
    // Every other test keeps its verdict.
    let single = vkmm::model::load("vulkan-coopmat-single").unwrap();
    let wrong: Vec<String> = common::csv_mismatches(&dir(), &single)
        .into_iter()
        .filter(|w| !w.starts_with("load-two-loaders"))
        .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
    // The check is what makes the difference: without it the variant is
    // the default.
    let text = vkmm::model::embedded("vulkan-coopmat-single.cat").unwrap();
    let check = "empty ((CMLD * CMLD) & scm & sloc) \\ id as cooperative-matrix-single-load";
    assert!(text.contains(check));
    let m = common::mutant(
        "vulkan-coopmat-single.cat",
        &[("vulkan-coopmat-single.cat", &text.replace(check, ""))],
    );
    let p = vkmm::frontend::load(&dir().join("load-two-loaders.litmus")).unwrap();
    let o = vkmm::analysis::check_litmus("t", &p, &m, Default::default(), None).unwrap();
    assert_eq!(o.holds(Property::Condition), Some(true));
}

#[test]
fn element_accesses_belong_to_the_invocation_that_performs_them() {
    let p = vkmm::frontend::load(&dir().join("load-two-loaders.litmus")).unwrap();
    let accesses = |t: usize| -> Vec<(OpKind, Option<CoopElement>, String)> {
        p.threads[t]
            .code
            .iter()
            .map(|s| match s {
                Stmt::Op(i) => (
                    i.kind.clone(),
                    i.coop,
                    p.references[i.reference.unwrap()].name.clone(),
                ),
                _ => panic!("only element accesses"),
            })
            .collect()
    };
    let el = Some(CoopElement {
        instance: 0,
        scope: Scope::Subgroup,
    });
    assert_eq!(accesses(0), [(OpKind::Load, el, "x".to_string())]);
    assert_eq!(
        accesses(1),
        [
            (OpKind::Load, el, "x".to_string()),
            (OpKind::Load, el, "y".to_string())
        ]
    );
}

const HEAD: &str = "VULKAN t\n{\nx=0; y=0;\n}\n";

#[test]
fn bad_cooperative_matrix_instructions_are_located_errors() {
    let two = " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n";
    let cases: &[(&str, &str, &str)] = &[
        (
            " cmst.sg.sc0 0, 1, x y : x | cmst.sg.sc0 0, 1, x y : x y ;\n",
            "6:54",
            "a single implementation-dependent invocation",
        ),
        (
            " cmst.sg.sc0 0, 1, x y : x | cmst.sg.sc0 0, 1, x y : ;\n",
            "6:2",
            "no invocation accesses element `y`",
        ),
        (
            " cmld.sg.sc0 0, x y : r0=x | ld.sc0 r1, y ;\n",
            "6:2",
            "P1 is in the Subgroup instance of P0 but does not execute instance 0",
        ),
        (
            " cmst.sg.sc0 0, 1, x y : x | cmst.sg.sc0 0, 2, x y : y ;\n",
            "6:30",
            "instance 0 differs from P0's",
        ),
        (
            " cmst.sg.sc0 0, 1, x : z | cmst.sg.sc0 0, 1, x : x ;\n",
            "6:24",
            "`z` is not an element of this `cmst`",
        ),
        (
            " cmst.sc0 0, 1, x : x | cmst.sc0 0, 1, x : ;\n",
            "6:2",
            "missing scope",
        ),
        (
            " cmst.atom.sg.sc0 0, 1, x : x | cmst.sg.sc0 0, 1, x : ;\n",
            "6:7",
            "`atom` does not apply to `cmst`",
        ),
        (
            " cmst.qf.sc0 0, 1, x : x | cmst.qf.sc0 0, 1, x : ;\n",
            "6:7",
            "Subgroup or Workgroup",
        ),
        (
            " cmld.sg.sc0 0, x : x | cmld.sg.sc0 0, x : ;\n",
            "6:22",
            "expected `=`",
        ),
    ];
    let host = (
        " P0@host ;\n cmst.sg.sc0 0, 1, x : x ;\n",
        "6:2",
        "a host thread or queue submission",
    );
    for (body, at, words) in cases.iter().chain([&host]) {
        let head = if body.contains("@host") { "" } else { two };
        let text = format!("{HEAD}{head}{body}exists (x == 0)\n");
        let format = vkmm::frontend::Format::VulkanLitmus;
        let e = match vkmm::frontend::parse_text("t.litmus", &text, format, Default::default()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(&format!("t.litmus:{at}")), "{e}\n{text}");
        assert!(e.contains(words), "`{words}` not in: {e}");
    }
}
