//! Parser and lowering tests on hand-written snippets.

use super::parse;

const HEADER: &str =
    "OpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n";

fn module(body: &str) -> String {
    format!(
        "{HEADER}%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%ptr = OpTypePointer StorageBuffer %uint\n%x = OpVariable %ptr StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n{body}OpReturn\nOpFunctionEnd\n"
    )
}

#[test]
fn a_store_is_read_and_the_condition_holds() {
    let text = format!(
        "; @Output: forall (%x == 1)\n{}",
        module("OpStore %x %c1\n")
    );
    let p = parse("t.spvasm", &text).unwrap();
    assert_eq!(p.threads.len(), 1);
    assert_eq!(p.locations, ["%x"]);
    assert!(p.condition.is_some());
}

#[test]
fn config_places_invocations() {
    let text = format!("; @Config: 2, 1, 2\n{}", module("OpStore %x %c1\n"));
    let p = parse("t.spvasm", &text).unwrap();
    let places: Vec<_> = p
        .threads
        .iter()
        .map(|t| (t.subgroup, t.workgroup))
        .collect();
    assert_eq!(places, [(0, 0), (0, 0), (1, 1), (1, 1)]);
}

fn error(text: &str) -> super::FrontendError {
    parse("t.spvasm", text).unwrap_err()
}

#[test]
fn bad_input_is_located() {
    let e = error(&module("OpStroe %x %c1\n"));
    assert_eq!((e.line, e.column), (13, 1), "{e}");
    assert!(
        e.message.contains("unknown opcode `OpStroe`") && e.message.contains("OpStore"),
        "{e}"
    );
    let e = error(&module("OpStore %x\n"));
    assert!(e.message.contains("too few operands"), "{e}");
    let e = error(&module("OpStore %x %c1 %c1 %c1\n"));
    assert!(
        e.message.contains("expected") || e.message.contains("too many"),
        "{e}"
    );
    let e = error(&module(
        "OpStore %x %later\n%later = OpIAdd %uint %c1 %c1\n",
    ));
    assert!(e.message.contains("used before its definition"), "{e}");
    assert_eq!((e.line, e.column), (13, 12), "{e}");
    let e = error(&format!("; @Config: 2, x\n{}", module("")));
    assert_eq!((e.line, e.column), (1, 11), "{e}");
    let e = error(&format!("; @Input: %x = {{1,\n{}", module("")));
    assert_eq!(e.line, 1, "{e}");
    let e = error(&format!("; @Output: forall (%y == 1)\n{}", module("")));
    assert!(e.message.contains("unknown location `%y`"), "{e}");
    let e = error(&module("%f = OpTypeFloat 32\n%h = OpConstant %f 1.5\n"));
    assert!(e.message.contains("unsupported construct"), "{e}");
}

#[test]
fn dynamic_index_becomes_a_branch_chain() {
    let text = format!(
        "{HEADER}OpDecorate %arr ArrayStride 4\nOpDecorate %gid BuiltIn GlobalInvocationId\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%v3 = OpTypeVector %uint 3\n%pin = OpTypePointer Input %v3\n%gid = OpVariable %pin Input\n%c0 = OpConstant %uint 0\n%c2 = OpConstant %uint 2\n%arr = OpTypeArray %uint %c2\n%parr = OpTypePointer StorageBuffer %arr\n%pu = OpTypePointer StorageBuffer %uint\n%a = OpVariable %parr StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%g = OpLoad %v3 %gid\n%i = OpCompositeExtract %uint %g 0\n%p = OpAccessChain %pu %a %i\nOpStore %p %c2\nOpReturn\nOpFunctionEnd\n"
    );
    let text = format!("; @Config: 2, 1, 1\n; @Output: forall (%a[0] == 2 and %a[1] == 2)\n{text}");
    let p = parse("t.spvasm", &text).unwrap();
    assert_eq!(p.locations, ["%a[0]", "%a[1]"]);
    // The builtin is a register; the index is not folded, so the store goes through branches.
    assert!(
        p.threads[1]
            .code
            .iter()
            .any(|s| matches!(s, crate::ir::Stmt::Branch { .. }))
    );
}

#[test]
fn a_workgroup_size_other_than_the_config_is_a_warning() {
    let text = |config: &str| {
        format!(
            "; @Config: {config}\nOpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 2 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n"
        )
    };
    // Two invocations in one subgroup, or one in each of two subgroups:
    // the shader's workgroup of two.
    assert!(
        parse("t.spvasm", &text("2, 1, 3"))
            .unwrap()
            .warnings
            .is_empty()
    );
    assert!(
        parse("t.spvasm", &text("1, 2, 1"))
            .unwrap()
            .warnings
            .is_empty()
    );
    let w = parse("t.spvasm", &text("1, 1, 2")).unwrap().warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].line, w[0].column), (5, 1));
    assert!(
        w[0].message
            .contains("workgroup has 2 invocations (LocalSize 2 1 1)")
            && w[0].message.contains("@Config gives 1 x 1 = 1"),
        "{}",
        w[0].message
    );
}
