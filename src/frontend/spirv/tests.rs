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
    let e = error(&module("%f = OpTypeFloat 24\n%h = OpConstant %f 1.5\n"));
    assert!(e.message.contains("unsupported construct"), "{e}");
}

#[test]
fn dynamic_index_becomes_a_branch_chain() {
    // The index is read from memory (a builtin would fold to the
    // invocation's constant: tests/frontends/spirv_fixed_index.rs).
    let text = format!(
        "{HEADER}OpDecorate %arr ArrayStride 4\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c0 = OpConstant %uint 0\n%c2 = OpConstant %uint 2\n%arr = OpTypeArray %uint %c2\n%parr = OpTypePointer StorageBuffer %arr\n%pu = OpTypePointer StorageBuffer %uint\n%a = OpVariable %parr StorageBuffer\n%idx = OpVariable %pu StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%i = OpLoad %uint %idx\n%p = OpAccessChain %pu %a %i\nOpStore %p %c2\nOpReturn\nOpFunctionEnd\n"
    );
    let text = format!("; @Config: 2, 1, 1\n; @Output: forall (%a[0] == 2 and %a[1] == 2)\n{text}");
    let p = parse("t.spvasm", &text).unwrap();
    assert_eq!(p.locations, ["%a[0]", "%a[1]", "%idx"]);
    // The index is a register; it is not folded, so the store goes through branches.
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

/// Whether the `@Output` condition of `text` holds (the whole pipeline).
fn holds(text: &str) -> bool {
    let checked = crate::Session::new().check_text("t.spvasm", text);
    let Ok(crate::Checked::Litmus(o)) = checked else {
        panic!("{checked:?}\n{text}")
    };
    o.holds(crate::Property::Condition)
        .unwrap_or_else(|| panic!("no verdict\n{text}"))
}

/// A clspv-like module: a push-constant block `{ uint3 global size at 0;
/// uint pod at 16 }` copied into `%out[0..4]`, `reflection` lines at the end.
fn push_module(headers: &str, reflection: &str) -> String {
    format!(
        "{headers}OpCapability Shader\n%set = OpExtInstImport \"NonSemantic.ClspvReflection.5\"\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\nOpMemberDecorate %pod 0 Offset 0\nOpMemberDecorate %blk 0 Offset 0\nOpMemberDecorate %blk 1 Offset 16\nOpDecorate %rt ArrayStride 4\nOpMemberDecorate %ob 0 Offset 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%v3 = OpTypeVector %uint 3\n%pod = OpTypeStruct %uint\n%blk = OpTypeStruct %v3 %pod\n%pblk = OpTypePointer PushConstant %blk\n%pcu = OpTypePointer PushConstant %uint\n%rt = OpTypeRuntimeArray %uint\n%ob = OpTypeStruct %rt\n%pob = OpTypePointer StorageBuffer %ob\n%psu = OpTypePointer StorageBuffer %uint\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%c2 = OpConstant %uint 2\n%c3 = OpConstant %uint 3\n%c4 = OpConstant %uint 4\n%c12 = OpConstant %uint 12\n%c16 = OpConstant %uint 16\n%push = OpVariable %pblk PushConstant\n%out = OpVariable %pob StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%p0 = OpAccessChain %pcu %push %c0 %c0\n%p3 = OpAccessChain %pcu %push %c1 %c0\n%v0 = OpLoad %uint %p0\n%v3v = OpLoad %uint %p3\n%o0 = OpAccessChain %psu %out %c0 %c0\n%o3 = OpAccessChain %psu %out %c0 %c3\nOpStore %o0 %v0\nOpStore %o3 %v3v\nOpReturn\nOpFunctionEnd\n{reflection}"
    )
}

#[test]
fn reflection_fills_its_push_constants_over_the_input() {
    // clspv's reflection, PushConstantGlobalSize: the runtime writes the
    // global size into the push constant at that offset (Dat3M likewise);
    // an @Input sets the other cells (the POD argument at 16).
    let headers = |output: &str| {
        format!(
            "; @Input: %push = {{{{0, 0, 0}}, {{7}}}}, %out = {{{{0, 0, 0, 0}}}}\n; @Config: 2, 1, 1\n; @Output: forall ({output})\n"
        )
    };
    let reflection = "%r = OpExtInst %void %set PushConstantGlobalSize %c0 %c12\n";
    assert!(holds(&push_module(
        &headers("%out[0][0] == 2 and %out[0][3] == 7"),
        reflection
    )));
    assert!(!holds(&push_module(
        &headers("%out[0][0] == 0"),
        reflection
    )));
    // Without the reflection instruction the @Input value stands.
    assert!(holds(&push_module(
        &headers("%out[0][0] == 0 and %out[0][3] == 7"),
        ""
    )));
}

/// A module storing spec constants with SpecIds 0, 1, 2 (defaults 5, 6, 7)
/// into `%out[0..3]`.
fn spec_module(output: &str, reflection: &str) -> String {
    format!(
        "; @Config: 2, 1, 1\n; @Output: forall ({output})\nOpCapability Shader\n%set = OpExtInstImport \"NonSemantic.ClspvReflection.5\"\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\nOpDecorate %s0 SpecId 0\nOpDecorate %s1 SpecId 1\nOpDecorate %s2 SpecId 2\nOpDecorate %arr ArrayStride 4\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%c2 = OpConstant %uint 2\n%c3 = OpConstant %uint 3\n%s0 = OpSpecConstant %uint 5\n%s1 = OpSpecConstant %uint 6\n%s2 = OpSpecConstant %uint 7\n%arr = OpTypeArray %uint %c3\n%parr = OpTypePointer StorageBuffer %arr\n%pu = OpTypePointer StorageBuffer %uint\n%out = OpVariable %parr StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%o0 = OpAccessChain %pu %out %c0\n%o1 = OpAccessChain %pu %out %c1\n%o2 = OpAccessChain %pu %out %c2\nOpStore %o0 %s0\nOpStore %o1 %s1\nOpStore %o2 %s2\nOpReturn\nOpFunctionEnd\n{reflection}"
    )
}

#[test]
fn spec_ids_are_workgroup_sizes_only_when_the_reflection_says_so() {
    // OpSpecConstant: "Value is the bit pattern for the default value": a
    // SpecId alone does not make a spec constant the workgroup size.
    assert!(holds(&spec_module(
        "%out[0] == 5 and %out[1] == 6 and %out[2] == 7",
        ""
    )));
    assert!(!holds(&spec_module("%out[0] == 2", "")));
    // clspv's SpecConstantWorkgroupSize names the ids the runtime sets to
    // the workgroup size (x from @Config, y and z 1).
    let r = "%r = OpExtInst %void %set SpecConstantWorkgroupSize %c0 %c1 %c2\n";
    assert!(holds(&spec_module(
        "%out[0] == 2 and %out[1] == 1 and %out[2] == 1",
        r
    )));
    assert!(!holds(&spec_module("%out[0] == 5", r)));
    // Other ids: x is spec id 2.
    let r = "%r = OpExtInst %void %set SpecConstantWorkgroupSize %c2 %c0 %c1\n";
    assert!(holds(&spec_module(
        "%out[0] == 1 and %out[1] == 1 and %out[2] == 2",
        r
    )));
}

/// A module with `%v`, a StorageBuffer vector of `n` 32-bit components
/// (initially `init`), and `body`.
fn vector_module(n: usize, init: &str, output: &str, body: &str) -> String {
    format!(
        "; @Input: %v = {init}\n; @Output: forall ({output})\n{HEADER}%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%vec = OpTypeVector %uint {n}\n%pv = OpTypePointer StorageBuffer %vec\n%v = OpVariable %pv StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n{body}OpReturn\nOpFunctionEnd\n"
    )
}

#[test]
fn vectors_of_other_sizes_are_read_with_a_warning() {
    // OpTypeVector: "It must be at least 2"; Dat3M's corpus has 1 and 24.
    let body = "%x = OpLoad %vec %v\n%y = OpIAdd %vec %x %x\nOpStore %v %y\n";
    let one = vector_module(1, "{3}", "%v[0] == 6", body);
    assert!(holds(&one));
    assert!(!holds(&vector_module(1, "{3}", "%v[0] == 3", body)));
    let w = parse("t.spvasm", &one).unwrap().warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!((w[0].line, w[0].column), (9, 27), "{w:?}");
    assert!(w[0].message.contains("a vector of 1 component:"), "{w:?}");
    let five = vector_module(5, "{1, 2, 3, 4, 5}", "%v[4] == 10 and %v[0] == 2", body);
    assert!(holds(&five));
    // Three components: no warning.
    let three = vector_module(3, "{1, 2, 3}", "%v[2] == 6", body);
    assert!(parse("t.spvasm", &three).unwrap().warnings.is_empty());
    let e = error(&vector_module(0, "{}", "%v == 0", ""));
    assert!(e.message.contains("a vector has 1 to 64 components"), "{e}");
}

#[test]
fn not_and_negate_apply_to_each_component() {
    // OpNot: "Results are computed per component"; OpSNegate likewise.
    let not = "%x = OpLoad %vec %v\n%y = OpNot %vec %x\nOpStore %v %y\n";
    assert!(holds(&vector_module(
        2,
        "{0, 5}",
        "%v[0] == 4294967295 and %v[1] == 4294967290",
        not
    )));
    assert!(!holds(&vector_module(2, "{0, 5}", "%v[1] == 5", not)));
    let neg = "%x = OpLoad %vec %v\n%y = OpSNegate %vec %x\nOpStore %v %y\n";
    assert!(holds(&vector_module(
        2,
        "{1, 0}",
        "%v[0] == -1 and %v[1] == 0",
        neg
    )));
}
