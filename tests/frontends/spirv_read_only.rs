//! Loads of memory no instruction writes (docs/format-spirv.md, "Read-only
//! buffers are constants"): a uniform buffer's cells ("load operations can
//! be performed on" it) and a `NonWritable` variable's ("this module does
//! not write to it") hold their initial value in every execution, so the
//! lowering folds a load of them at a known offset to that value and makes
//! no event. The fold must change no answer: the same module with the
//! variable a writable storage buffer (nothing folded) gives the same final
//! states, condition and race verdicts under the reference enumeration.

use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};
use vkmm::ir::{Program, Stmt};

fn litmus(c: Checked) -> LitmusOutcome {
    match c {
        Checked::Litmus(o) => *o,
        _ => panic!("a litmus result"),
    }
}

fn session() -> Session {
    Session::new().timeout(Some(Duration::from_secs(20)))
}

/// Two invocations. `%info` = {n, v}: invocation k, when k < n, stores v
/// to `%out[k]`, then reads `%out[1 - k]` into `%got[k]`. With n = 2 and
/// v = 7 both invocations store 7 and read the other's cell: each read
/// may see 0 or 7 (nothing orders the invocations): four consistent
/// executions, each store racing with the other invocation's read of its
/// cell (a store and a read of one location, unordered, by two
/// invocations). The condition `%out[0] == 7 and %out[1] == 7` holds in
/// every execution, the one final state the condition's cells show. `DECL` is the variable's declaration (a uniform
/// buffer, a `NonWritable` storage buffer, or a writable one).
const TWO: &str = "; @Input: %info = {2, 7}, %out = {0, 0}, %got = {0, 0}
; @Output: forall (%out[0] == 7 and %out[1] == 7)
; @Config: 2, 1, 1
OpCapability Shader
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\" %ids
OpDecorate %ids BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
OpMemberDecorate %Info 0 Offset 0
OpMemberDecorate %Info 1 Offset 4
OpDecorate %Info Block
DECORATIONS
%void = OpTypeVoid
%func = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%v3uint = OpTypeVector %uint 3
%arr = OpTypeArray %uint %c2
%Info = OpTypeStruct %uint %uint
%ptr_in_v3 = OpTypePointer Input %v3uint
%ptr_in_uint = OpTypePointer Input %uint
%ptr_sb_arr = OpTypePointer StorageBuffer %arr
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
%ptr_info = OpTypePointer CLASS %Info
%ptr_info_uint = OpTypePointer CLASS %uint
%ids = OpVariable %ptr_in_v3 Input
%info = OpVariable %ptr_info CLASS
%out = OpVariable %ptr_sb_arr StorageBuffer
%got = OpVariable %ptr_sb_arr StorageBuffer
%main = OpFunction %void None %func
%entry = OpLabel
%id_ptr = OpAccessChain %ptr_in_uint %ids %c0
%id = OpLoad %uint %id_ptr
%n_ptr = OpAccessChain %ptr_info_uint %info %c0
%n = OpLoad %uint %n_ptr
%in = OpULessThan %bool %id %n
OpSelectionMerge %after None
OpBranchConditional %in %store %after
%store = OpLabel
%v_ptr = OpAccessChain %ptr_info_uint %info %c1
%v = OpLoad %uint %v_ptr
%p = OpAccessChain %ptr_sb_uint %out %id
OpStore %p %v
OpBranch %after
%after = OpLabel
%other = OpISub %uint %c1 %id
%q = OpAccessChain %ptr_sb_uint %out %other
%r = OpLoad %uint %q
%g = OpAccessChain %ptr_sb_uint %got %id
OpStore %g %r
STORE
OpReturn
OpFunctionEnd
";

/// The variable's declarations: (storage class, decorations).
fn declared(kind: &str) -> (&'static str, &'static str) {
    match kind {
        "uniform" => ("Uniform", ""),
        "non-writable" => ("StorageBuffer", "OpDecorate %info NonWritable"),
        "non-writable-member" => ("StorageBuffer", "OpMemberDecorate %Info 1 NonWritable"),
        // A storage buffer and a writable view of its binding.
        "aliased" => (
            "Uniform",
            "OpDecorate %info DescriptorSet 0\nOpDecorate %info Binding 0\nOpDecorate %view DescriptorSet 0\nOpDecorate %view Binding 0",
        ),
        _ => ("StorageBuffer", ""),
    }
}

fn module(kind: &str, store: &str) -> String {
    let (class, decorations) = declared(kind);
    let mut src = TWO
        .replace("CLASS", class)
        .replace("DECORATIONS", decorations)
        .replace("STORE\n", store);
    if kind == "aliased" {
        src = src.replace(
            "%out = OpVariable",
            "%ptr_view = OpTypePointer StorageBuffer %Info\n%view = OpVariable %ptr_view StorageBuffer\n%out = OpVariable",
        );
    }
    src
}

/// How many of the program's accesses reach `%info`'s cells.
fn info_accesses(program: &Program) -> usize {
    program
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .filter(|s| {
            matches!(s, Stmt::Op(i) if program
                .location_of(i)
                .is_some_and(|l| program.locations[l].starts_with("%info")))
        })
        .count()
}

fn answers(o: &LitmusOutcome) -> String {
    let states: Vec<_> = o.states.iter().map(|(s, _)| s).collect();
    let races: Vec<_> = o.races.iter().map(|r| &r.location).collect();
    format!(
        "states {states:?} condition {:?} race-free {:?} races {races:?}",
        o.condition_holds, o.race_free
    )
}

#[test]
fn read_only_loads_make_no_event() {
    let load = |kind: &str| {
        session()
            .load_text("ro.spvasm", &module(kind, ""))
            .unwrap_or_else(|e| panic!("{kind}: {e}"))
    };
    // Each invocation loads n and v: four loads, folded for a uniform
    // buffer and a NonWritable variable.
    assert_eq!(info_accesses(&load("storage")), 4);
    assert_eq!(info_accesses(&load("uniform")), 0);
    assert_eq!(info_accesses(&load("non-writable")), 0);
    // Only member 1 (v) is NonWritable: the loads of n stay.
    assert_eq!(info_accesses(&load("non-writable-member")), 2);
    // A writable view of the binding may write the cells: nothing folded.
    assert_eq!(info_accesses(&load("aliased")), 4);
}

#[test]
fn folding_read_only_loads_changes_no_answer() {
    let run = |kind: &str, reference: bool| {
        let mut s = session();
        if reference {
            let limits = s.current_limits().reference();
            s = s.limits(limits);
        }
        litmus(
            s.check_text("ro.spvasm", &module(kind, ""))
                .unwrap_or_else(|e| panic!("{kind}: {e}")),
        )
    };
    let reference = run("storage", true);
    assert_eq!(reference.cut_paths, 0);
    assert_eq!(reference.condition_holds, Some(true), "{reference:?}");
    assert_eq!(reference.race_free, Some(false));
    assert_eq!(reference.states.len(), 1, "{reference:?}");
    assert_eq!(reference.consistent, 4, "{reference:?}");
    for kind in ["uniform", "non-writable", "non-writable-member"] {
        for refe in [true, false] {
            let o = run(kind, refe);
            assert_eq!(o.cut_paths, 0, "{kind} reference {refe}");
            assert_eq!(answers(&o), answers(&reference), "{kind} reference {refe}");
            assert_eq!(o.consistent, 4, "{kind} reference {refe}");
        }
    }
}

#[test]
fn an_input_left_undefined_is_not_folded() {
    // Without an @Input (and no initializer) the uniform's contents are
    // undefined: each load stays a read of an undefined value.
    let src = module("uniform", "").replace("%info = {2, 7}, ", "");
    let program = session().load_text("ro.spvasm", &src).unwrap();
    assert_eq!(info_accesses(&program), 4);
}

#[test]
fn a_write_to_a_read_only_variable_is_an_error_at_its_line() {
    // The module breaks its own NonWritable decoration: the fold relied on
    // it, so the write is refused where it is (line 61 of the module).
    let src = module(
        "non-writable",
        "%w = OpAccessChain %ptr_info_uint %info %c0\nOpStore %w %c0\n",
    );
    let line = src
        .lines()
        .position(|l| l == "OpStore %w %c0")
        .expect("the store")
        + 1;
    let e = session()
        .check_text("ro.spvasm", &src)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("ro.spvasm:{line}:")) && e.contains("declares read-only"),
        "{e}"
    );
}
