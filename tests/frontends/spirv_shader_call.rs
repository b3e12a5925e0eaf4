//! Shader calls in SPIR-V (issue 16 item 1, docs/format-spirv.md "Shader
//! calls"): the ray tracing execution models, `OpExecuteCallableKHR`,
//! `OpTraceRayKHR`, `OpReportIntersectionKHR`, the ShaderCallKHR scope
//! and the ray tracing storage classes, lowered to the IR the Vulkan
//! litmus dialect builds. Hand-derived verdicts in
//! tests/fixtures/litmus-spirv-shadercall (each file quotes its sentences), each
//! the twin of a test of tests/fixtures/litmus-shadercall with the same verdict,
//! and the located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::ir::{CallKind, Interface, OpKind, ShaderStage, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-spirv-shadercall")
}

#[test]
fn spirv_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 18);
}

fn verdicts(path: &Path) -> (bool, bool) {
    common::vulkan_verdicts(path)
}

/// Each SPIR-V test and the Vulkan litmus test it spells give the same
/// verdicts: the two front ends build the same relations.
#[test]
fn each_spirv_test_agrees_with_its_litmus_twin() {
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-shadercall");
    for name in [
        "callable-data",
        "callee-reads-payload",
        "callee-reads-plain",
        "entry-barriers",
        "entry-barriers-not-called",
        "return-barriers",
        "return-barriers-subgroup",
    ] {
        let a = verdicts(&dir().join(format!("{name}.spvasm")));
        let b = verdicts(&litmus.join(format!("{name}.litmus")));
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn execution_models_calls_and_storage_classes_become_the_litmus_ir() {
    let p = vkmm::frontend::load(&dir().join("callable-data.spvasm")).unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::ClosestHit));
    assert_eq!(p.stage(1), Some(ShaderStage::Callable));
    let ops = |t: usize| -> Vec<vkmm::ir::Instruction> {
        p.threads[t]
            .code
            .iter()
            .filter_map(|s| match s {
                Stmt::Op(i) => Some(i.clone()),
                _ => None,
            })
            .collect()
    };
    let caller = ops(0);
    assert_eq!(
        caller[2].kind,
        OpKind::ShaderCall {
            callees: vec![1],
            call: CallKind::ExecuteCallable
        }
    );
    assert_eq!(caller[0].interface, Some(Interface::CallableData));
    // The callee's IncomingCallableDataKHR variable is the caller's
    // CallableDataKHR variable: one location.
    let callee = ops(1);
    assert_eq!(callee[0].interface, Some(Interface::IncomingCallableData));
    assert_eq!(callee[0].reference, caller[0].reference);
    // Passing another variable binds the incoming one to it instead.
    let p2 = vkmm::frontend::load(&dir().join("callable-data-other.spvasm")).unwrap();
    let Stmt::Op(w) = &p2.threads[0].code[0] else {
        panic!()
    };
    let read = p2.threads[1]
        .code
        .iter()
        .find_map(|s| match s {
            Stmt::Op(i) if i.kind == OpKind::Load => Some(i.clone()),
            _ => None,
        })
        .unwrap();
    assert_ne!(read.reference, w.reference);
    // A trace: ray generation and closest hit.
    let p3 = vkmm::frontend::load(&dir().join("callee-reads-payload.spvasm")).unwrap();
    assert_eq!(p3.stage(0), Some(ShaderStage::RayGeneration));
    assert_eq!(p3.stage(1), Some(ShaderStage::ClosestHit));
    assert!(p3.threads[0].code.iter().any(|s| matches!(
        s,
        Stmt::Op(i) if i.kind == OpKind::ShaderCall { callees: vec![1], call: CallKind::TraceRay }
    )));
}

// ----- located errors ------------------------------------------------------------

fn base() -> String {
    std::fs::read_to_string(dir().join("callable-data.spvasm")).unwrap()
}

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    common::parse_spvasm(text)
}

fn line_of(text: &str, prefix: &str) -> usize {
    common::line_starting(text, prefix)
}

#[test]
fn a_shader_call_without_its_call_line_is_an_error_at_the_instruction() {
    let t = base().replace("; @Call: P0 -> P1\n", "");
    let e = parse(&t).unwrap_err();
    let line = line_of(&t, "OpExecuteCallableKHR");
    assert_eq!(
        e,
        format!(
            "t.spvasm:{line}:1: OpExecuteCallableKHR is shader call number 1 of P0, but the @Call lines of P0 name 0: add `; @Call: P0 -> Pk` for the invocations it creates (docs/format-spirv.md, \"Shader calls\")"
        )
    );
    // The twin with the line parses.
    assert!(parse(&base()).is_ok());
}

#[test]
fn a_call_line_without_its_instruction_is_an_error_at_the_line() {
    let t = base().replace(
        "; @Call: P0 -> P1\n",
        "; @Call: P0 -> P1\n; @Call: P1 -> P0\n",
    );
    let e = parse(&t).unwrap_err();
    assert!(e.contains("the shader calls form a cycle through P"), "{e}");
    let t = base().replace("OpExecuteCallableKHR %c0 %data\n", "");
    let e = parse(&t).unwrap_err();
    let line = line_of(&t, "; @Call");
    assert_eq!(
        e,
        format!(
            "t.spvasm:{line}:3: P0 executes 0 shader call instruction(s), but this is its @Call line number 1"
        )
    );
}

#[test]
fn malformed_headers_are_errors_at_their_column() {
    for (header, col, what) in [
        ("; @Call: P0 P1", 13, "expected `->`"),
        ("; @Call: P0 -> Q1", 16, "expected an invocation `Pk`"),
        ("; @Call: P0 -> P1, P1", 20, "names P1 twice"),
        ("; @Call: P0 -> P7", 3, "there are 2 invocations"),
        ("; @Call: P1 -> P1", 3, "creates itself"),
        (
            "; @Shaders: %chit, %nope",
            20,
            "`%nope` is not the function of an OpEntryPoint",
        ),
        (
            "; @Shaders: %chit %callee",
            19,
            "expected `,` or the end of the line",
        ),
    ] {
        let key = if header.contains("@Call") {
            "; @Call: P0 -> P1"
        } else {
            "; @Shaders: %chit, %callee"
        };
        let t = base().replace(key, header);
        let line = line_of(&t, header);
        let e = parse(&t).unwrap_err();
        assert!(
            e.starts_with(&format!("t.spvasm:{line}:{col}: ")) && e.contains(what),
            "{header}: {e}"
        );
    }
    // @Shaders must name one entry function per @Config invocation.
    let t = base().replace("; @Shaders", "; @Config: 3, 1, 1\n; @Shaders");
    let e = parse(&t).unwrap_err();
    assert!(
        e.contains("@Shaders names 2 entry functions, but @Config gives 3 invocations"),
        "{e}"
    );
}

#[test]
fn the_stage_rules_and_the_data_operand_are_checked_at_the_instruction() {
    // SPIR-V, OpExecuteCallableKHR: "This instruction is allowed only in
    // RayGenerationKHR, ClosestHitKHR, MissKHR and CallableKHR execution
    // models": an any-hit caller is refused (the twin, closest hit, runs).
    let t = base().replace(
        "OpEntryPoint ClosestHitKHR %chit",
        "OpEntryPoint AnyHitKHR %chit",
    );
    let e = parse(&t).unwrap_err();
    let line = line_of(&t, "OpExecuteCallableKHR");
    assert_eq!(
        e,
        format!(
            "t.spvasm:{line}:1: `call` (OpExecuteCallableKHR) is executed by rgen, rchit, rmiss, rcall shaders, but P0 has stage rahit"
        )
    );
    // "Callable Data must have a storage class of CallableDataKHR or
    // IncomingCallableDataKHR".
    let t = base().replace(
        "OpExecuteCallableKHR %c0 %data",
        "OpExecuteCallableKHR %c0 %out",
    );
    let e = parse(&t).unwrap_err();
    assert_eq!(
        e,
        format!(
            "t.spvasm:{line}:26: OpExecuteCallableKHR: expected a pointer to a variable of storage class CallableDataKHR or IncomingCallableDataKHR"
        )
    );
    // The callee must be callable: a miss invocation is not.
    let t = base().replace("OpEntryPoint CallableKHR", "OpEntryPoint MissKHR");
    let e = parse(&t).unwrap_err();
    assert!(
        e.contains("creates rcall invocations, but P1 has stage rmiss"),
        "{e}"
    );
    // The incoming variable must have the layout of the data passed.
    let t = base()
        .replace(
            "%pin = OpTypePointer IncomingCallableDataKHR %uint",
            "%pair = OpTypeStruct %uint %uint\n%pin = OpTypePointer IncomingCallableDataKHR %pair",
        )
        .replace(
            "%v = OpLoad %uint %in",
            "%pp = OpAccessChain %pin1 %in %c0\n%v = OpLoad %uint %pp",
        )
        .replace(
            "%in = OpVariable",
            "%pin1 = OpTypePointer IncomingCallableDataKHR %uint\n%in = OpVariable",
        );
    let e = parse(&t).unwrap_err();
    assert!(
        e.contains(
            "the IncomingCallableDataKHR variable `%in` of P1 does not have the layout of `%data`"
        ),
        "{e}"
    );
}

#[test]
fn the_shader_call_scope_outside_ray_tracing_is_an_error_at_the_barrier() {
    // "shader call instance - accessible by shader agents that are
    // shader-call-related": a compute invocation has none.
    let t = "; @Config: 1, 1, 1
OpCapability Shader
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%shcall = OpConstant %uint 6
%sem = OpConstant %uint 8260
%main = OpFunction %void None %fn
%l = OpLabel
OpMemoryBarrier %shcall %sem
OpReturn
OpFunctionEnd
";
    let e = parse(t).unwrap_err();
    assert!(
        e.starts_with("t.spvasm:12:1: ShaderCallKHR scope in P0, which has no stage"),
        "{e}"
    );
    // Workgroup scope (2) in the same program is fine.
    assert!(parse(&t.replace("OpConstant %uint 6", "OpConstant %uint 2")).is_ok());
}

#[test]
fn the_cli_exits_2_on_a_missing_call_line() {
    let dir = std::env::temp_dir().join(format!("vkmm-spv-call-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("nocall.spvasm");
    std::fs::write(&f, base().replace("; @Call: P0 -> P1\n", "")).unwrap();
    let (code, _, err) = common::vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nocall.spvasm:"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
