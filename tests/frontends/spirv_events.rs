//! Events of SPIR-V programs in reports (issue 17 item 6): an event is the
//! instruction as written (`%v = OpLoad %uint %x`, so its result id names
//! it) at its source line, and an invocation is `P3` with its workgroup
//! and local invocation ids (`P3 (wg 1,0,0 lid 1,0,0)`). Other formats keep
//! `P0 line 3: ...`.

use vkmm::{Checked, Session};

/// Two workgroups of two invocations; invocation 3 stores, every
/// invocation loads: plain accesses in different workgroups race.
const RACE: &str = "; @Config: 1, 2, 2
OpCapability Shader
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
OpDecorate %gid BuiltIn GlobalInvocationId
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%v3 = OpTypeVector %uint 3
%pin = OpTypePointer Input %v3
%gid = OpVariable %pin Input
%c1 = OpConstant %uint 1
%c3 = OpConstant %uint 3
%ptr = OpTypePointer StorageBuffer %uint
%x = OpVariable %ptr StorageBuffer
%main = OpFunction %void None %fn
%entry = OpLabel
%g = OpLoad %v3 %gid
%i = OpCompositeExtract %uint %g 0
%last = OpIEqual %bool %i %c3
OpSelectionMerge %done None
OpBranchConditional %last %store %done
%store = OpLabel
OpStore %x %c1
OpBranch %done
%done = OpLabel
%seen = OpLoad %uint %x
OpReturn
OpFunctionEnd
";

#[test]
fn a_race_names_the_invocations_and_the_instructions() {
    let Ok(Checked::Litmus(o)) = Session::new().check_text("race.spvasm", RACE) else {
        panic!("the program checks")
    };
    let report = vkmm::report::text::litmus(&o);
    // The store is line 25 of RACE, the load line 28.
    assert!(
        report.contains("P3 (wg 1,0,0 lid 1,0,0) line 25: OpStore %x %c1"),
        "{report}"
    );
    assert!(
        report.contains("P0 (wg 0,0,0 lid 0,0,0) line 28: %seen = OpLoad %uint %x"),
        "{report}"
    );
    // Invocation 3's own load is ordered after its store: no race with it.
    assert!(
        !report.contains("P3 (wg 1,0,0 lid 1,0,0) line 28"),
        "{report}"
    );
}

#[test]
fn litmus_threads_keep_their_plain_names() {
    let text = "VULKAN race\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.sc0 x, 1 | ld.sc0 r0, x ;\nexists (P1:r0 == 0)\n";
    let Ok(Checked::Litmus(o)) = Session::new().check_text("race.litmus", text) else {
        panic!("the test checks")
    };
    let report = vkmm::report::text::litmus(&o);
    assert!(report.contains("race on x: P0 line 4: "), "{report}");
}

#[test]
fn outcomes_use_the_output_syntax() {
    let session = Session::new();
    let p = session.load_text("race.spvasm", RACE).unwrap();
    assert!(vkmm::frontend::parse_outcome(&p, "%x == 1 and not (%x == 0)").is_ok());
    let e = vkmm::frontend::parse_outcome(&p, "%x == 1 and %nope == 0").unwrap_err();
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("--outcome", 1, 13),
        "{e}"
    );
    // The store happens in every execution: x ends at 1, never 0.
    use vkmm::analysis::explain::Verdict;
    let never = session.explain(&p, Some("%x == 0"), None).unwrap();
    assert_ne!(never.verdict, Verdict::Allowed);
    let always = session.explain(&p, Some("%x == 1"), None).unwrap();
    assert_eq!(always.verdict, Verdict::Allowed);
    // The witness names the store by invocation and instruction.
    let w = format!("{:?}", always.witness);
    assert!(
        w.contains("P3 (wg 1,0,0 lid 1,0,0) line 25: OpStore %x %c1"),
        "{w}"
    );
}
