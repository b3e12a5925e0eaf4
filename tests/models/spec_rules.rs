//! vkmm's own litmus tests, one or more per rule of the Vulkan memory model
//! appendix (tests/fixtures/litmus/*.test). Each file quotes the sentence it exercises
//! and carries the verdicts derived by hand from the spec text.

use crate::common;

use std::path::Path;

#[test]
fn every_rule_test_gives_its_hand_derived_verdicts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus");
    let models = common::models();
    let files = common::files_with_ext(&dir, "test");
    assert!(
        files.len() >= 20,
        "expected the rule tests in {}",
        dir.display()
    );
    let (total, failures) = common::check_queries(&files, &models);
    assert!(
        failures.is_empty(),
        "{} of {total} rule queries failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
