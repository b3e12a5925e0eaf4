//! Undefined initial values in the Vulkan litmus dialect (`x=undef;`), the
//! appendix's Allocation sentence: "The values stored in newly allocated
//! memory locations are determined by a SPIR-V variable's initializer, if
//! present, or else are undefined" (docs/format-vulkan-litmus.md,
//! "Undefined initial values"; docs/coverage.md, the Allocation row).
//! Hand-derived verdicts of tests/fixtures/litmus-undef (each file quotes the
//! sentence and says why), each with a twin whose verdict differs, and the
//! located errors of the spelling.

use std::path::Path;
use vkmm::analysis::{Property, check_litmus};

fn outcome(file: &str, property: Property) -> bool {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-undef")
        .join(file);
    let program = vkmm::frontend::load(&path).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    check_litmus(file, &program, &model, Default::default(), None)
        .unwrap()
        .holds(property)
        .unwrap()
}

#[test]
fn an_undefined_initial_value_may_be_any_value() {
    // (file, the condition holds, race-free)
    let expected = [
        ("undef-read.litmus", true, true),
        ("defined-read.litmus", false, true),
        ("undef-mp.litmus", true, true),
        ("undef-mp-stale.litmus", true, false),
        ("undef-two-locations.litmus", true, true),
        ("undef-two-locations-equal.litmus", true, true),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-undef");
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        on_disk,
        expected.len(),
        "every file of {dir:?} has a verdict here"
    );
    for (file, condition, race_free) in expected {
        assert_eq!(outcome(file, Property::Condition), condition, "{file}");
        assert_eq!(outcome(file, Property::Races), race_free, "{file} races");
    }
}

#[test]
fn undef_marks_the_location_and_only_it() {
    let text = "VULKAN t\n{ x=undef; y=3; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r0, x ;\n ld.sc0 r1, y ;\nexists (P0:r0 == 1)\n";
    let p = parse(text).unwrap();
    let x = p.locations.iter().position(|l| l == "x").unwrap();
    let y = p.locations.iter().position(|l| l == "y").unwrap();
    assert!(p.is_undefined(x));
    assert!(!p.is_undefined(y));
    assert_eq!(p.initial_values[y], 3);
}

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    let format = vkmm::frontend::Format::VulkanLitmus;
    vkmm::frontend::parse_text("t.litmus", text, format, Default::default())
        .map_err(|e| e.to_string())
}

#[test]
fn bad_undefined_entries_are_located_errors() {
    let body = " P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r0, x ;\nexists (P0:r0 == 1)\n";
    let cases: &[(&str, &str, &str)] = &[
        (
            "x=undef; x=0;",
            "2:12",
            "location `x` already has an initial value (line 2)",
        ),
        (
            "x=0; x=undef;",
            "2:8",
            "location `x` already has an initial value (line 2)",
        ),
        ("x:8=undef;", "2:7", "`x` has a size in bytes"),
        ("x=undef; x:8;", "2:12", "`x` starts undefined"),
        (
            "a=undef; b=undef; c=undef; d=undef; x=undef;",
            "2:41",
            "at most 4 locations may start undefined",
        ),
        (
            "x=undefined;",
            "2:5",
            "a location's initial value must be an integer",
        ),
    ];
    for (init, at, message) in cases {
        let text = format!("VULKAN t\n{{ {init} }}\n{body}");
        let e = parse(&text).expect_err(init);
        assert!(e.contains(&format!("t.litmus:{at}:")), "{init}: {e}");
        assert!(e.contains(message), "{init}: {e}");
    }
}
