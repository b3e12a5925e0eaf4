//! Differential test of the undefined-initial-value machinery
//! (`Program::undefined`, `engine::undefined`: the finite value domain,
//! one walk per assignment, `Skeleton::initial`) against its bypass
//! (`Session::undefined_values(false)`, every location at its listed
//! initial value).
//!
//! Only `.spvasm` programs and Vulkan litmus tests that write `x=undef;`
//! (the files of `tests/fixtures/litmus-undef/`, left out here: tested by
//! `tests/models/undefined_litmus.rs`) have undefined locations; every other
//! program must walk exactly as before the machinery existed. So on the
//! repository's own tests (every `tests/fixtures/litmus*` directory), the examples,
//! and the dat3m-vulkan, khronos-alloy and dat3m-opencl corpora, the two
//! searches must be identical, not only their answers: the same final
//! states with the same execution counts, the same numbers of executions,
//! partial evaluations and consistent executions, the same racing pairs,
//! the same `.test` answers (`common::search_summary`). The xf-barrier
//! tests are left out (minutes each). And the switch is not idle: on a
//! program that has undefined locations the two searches differ.
//!
//! The corpus-wide comparison runs as the `undefined values (bypass)` row of [`crate::table`].

use crate::common;

use std::path::Path;
use vkmm::Session;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(undefined: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .undefined_values(undefined)
}

pub(crate) fn skipped(path: &Path) -> bool {
    let p = path.display().to_string();
    p.contains("xf-barrier") || p.contains("litmus-undef")
}

/// Two StorageBuffer variables with neither an Initializer nor an @Input:
/// their contents are undefined ("determined by a SPIR-V variable's
/// initializer, if present, or else are undefined").
const TWO_UNDEFINED: &str = "; @Output: forall (%v1 == %v2)
; @Config: 1, 1, 1
OpCapability Shader
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%ptr = OpTypePointer StorageBuffer %uint
%v1 = OpVariable %ptr StorageBuffer
%v2 = OpVariable %ptr StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
";

#[test]
fn the_switch_bypasses_undefined_values() {
    let run = |on: bool| {
        let c = session(on)
            .check_text("u.spvasm", TWO_UNDEFINED)
            .expect("the program checks");
        common::search_summary(&c)
    };
    let (bypassed, walked) = (run(false), run(true));
    // Bypassed: both start at 0, one state, `forall` holds; walked: equal
    // and distinct fresh values, `forall` fails.
    assert!(bypassed.contains("condition Some(true)"), "{bypassed}");
    assert!(walked.contains("condition Some(false)"), "{walked}");
    assert_ne!(bypassed, walked);
}
