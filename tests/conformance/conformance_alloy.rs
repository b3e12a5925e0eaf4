//! Conformance: every query of the Khronos Vulkan-MemoryModel Alloy suite
//! (../shared/corpus/khronos-alloy) gives the published answer.

use crate::common;

#[test]
fn khronos_alloy_suite_172_of_172() {
    let Some(dir) = common::corpus_or_skip("khronos-alloy") else {
        return;
    };
    let models = common::models();
    let files = common::files_with_ext(&dir, "test");
    assert_eq!(files.len(), 89, "the corpus should hold 89 .test files");
    let (total, failures) = common::check_queries(&files, &models);
    assert!(
        failures.is_empty(),
        "{} of {total} queries disagree with the published verdicts:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(total, 172);
}
