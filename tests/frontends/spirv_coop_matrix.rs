//! SPIR-V cooperative matrices (issue 16, docs/format-spirv.md
//! "Cooperative matrices"): `OpTypeCooperativeMatrixKHR`,
//! `OpCooperativeMatrixLoadKHR` / `OpCooperativeMatrixStoreKHR` lowered to
//! the element accesses the Vulkan litmus dialect's `cmld` / `cmst` build,
//! the attribution left open. Hand-derived verdicts in
//! tests/fixtures/litmus-spirv-coopmat (each file quotes its sentences), each the
//! twin of a test of tests/fixtures/litmus-coopmat-open with the same verdicts, and
//! the located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::ir::{OpKind, Scope, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-spirv-coopmat")
}

#[test]
fn spirv_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 14);
}

fn verdicts(path: &Path) -> (bool, bool) {
    common::vulkan_verdicts(path)
}

#[test]
fn each_spirv_test_agrees_with_its_litmus_twin() {
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-coopmat-open");
    for name in ["store-open", "store-open-barrier", "load-open"] {
        let a = verdicts(&dir().join(format!("{name}.spvasm")));
        let b = verdicts(&litmus.join(format!("{name}.litmus")));
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn the_instructions_become_the_litmus_element_accesses_with_open_attributions() {
    let p = vkmm::frontend::load(&dir().join("store-open-barrier.spvasm")).unwrap();
    // Two elements, each stored by P0 or P1; %buf[0][1] is accessed by
    // nothing else, so its attributions give the same answers and one is
    // run: two attributions (by who stores %buf[0][0], which P0 reads).
    assert_eq!(p.attributions.total, 2);
    assert_eq!(p.attributions.others.len(), 1);
    // The full program (every element in every invocation) is gone: each
    // attribution stores each element once over both invocations.
    for q in p.attributions() {
        let stores: Vec<_> = q
            .threads
            .iter()
            .flat_map(|t| t.code.iter())
            .filter_map(|s| match s {
                Stmt::Op(i) if i.coop.is_some() => Some(i),
                _ => None,
            })
            .collect();
        assert_eq!(stores.len(), 2);
        for i in stores {
            assert_eq!(i.kind, OpKind::Store);
            assert_eq!(i.coop.unwrap().scope, Scope::Subgroup);
            assert!(i.non_private);
            assert_eq!(i.scope, None, "the matrix's scope is not the access's");
        }
    }
    // A load: every non-empty set of the two invocations.
    let l = vkmm::frontend::load(&dir().join("load-open.spvasm")).unwrap();
    assert_eq!(l.attributions.total, 3);
}

// ----- located errors ------------------------------------------------------------

fn base() -> String {
    std::fs::read_to_string(dir().join("store-open-barrier.spvasm")).unwrap()
}

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    common::parse_spvasm(text)
}

fn line_of(text: &str, prefix: &str) -> usize {
    common::line_starting(text, prefix)
}

/// `base()` with `from` replaced by `to` must fail with `message` at the
/// line starting with `at`, column `col`; the base parses.
fn error(from: &str, to: &str, at: &str, col: usize, message: &str) {
    let t = base().replace(from, to);
    assert_ne!(t, base(), "{from}");
    let line = line_of(&t, at);
    assert_eq!(
        parse(&t).unwrap_err(),
        format!("t.spvasm:{line}:{col}: {message}")
    );
    assert!(parse(&base()).is_ok());
}

#[test]
fn a_layout_other_than_row_or_column_major_is_an_error_at_the_operand() {
    error(
        "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c2",
        "OpCooperativeMatrixStoreKHR %pm %ones %sg %c2",
        "OpCooperativeMatrixStoreKHR",
        39,
        "unsupported cooperative matrix layout 3: vkmm reads RowMajorKHR (0) and ColumnMajorKHR (1)",
    );
}

#[test]
fn a_matrix_scope_other_than_subgroup_or_workgroup_is_an_error_at_the_type() {
    error(
        "%mat = OpTypeCooperativeMatrixKHR %uint %sg",
        "%mat = OpTypeCooperativeMatrixKHR %uint %c1",
        "%mat = OpTypeCooperativeMatrixKHR",
        41,
        "the matrix's scope is Subgroup (3) or Workgroup (2), not 1: the instance of the matrix's scope is a subgroup or a workgroup",
    );
}

#[test]
fn a_store_stride_of_zero_is_an_error_at_the_stride() {
    error(
        "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c2",
        "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c0",
        "OpCooperativeMatrixStoreKHR",
        43,
        "'Stride' must be greater than 0 when passed to OpCooperativeMatrixStoreKHR and must be greater than or equal to 0 when passed to OpCooperativeMatrixLoadKHR (found 0)",
    );
}

#[test]
fn elements_past_the_variable_are_an_error_at_the_pointer() {
    // Column-major with stride 3: element (0, 1) is at index 3, byte 12,
    // past the 12-byte block (the twin, stride 2, is byte 8: %buf[1]).
    error(
        "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c2",
        "OpCooperativeMatrixStoreKHR %pm %ones %c1 %sg",
        "OpCooperativeMatrixStoreKHR",
        29,
        "OpCooperativeMatrixStoreKHR: element (0, 1) is at byte offset 12, outside the variable (or not a cell of its size)",
    );
}

/// A matrix built from a scalar read from memory at run time: neither
/// one value vkmm knows nor one it leaves uncomputed (a loaded matrix is
/// such a value, and is stored: `muladd.spvasm`), so the store is refused
/// at the object.
#[test]
fn a_matrix_of_a_runtime_scalar_is_refused_at_the_object() {
    error(
        "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c2",
        "%pv = OpAccessChain %pu %buf %c1\n%rv = OpLoad %uint %pv\n%cm = OpCompositeConstruct %mat %rv\nOpCooperativeMatrixStoreKHR %pm %cm %c0 %c2",
        "OpCooperativeMatrixStoreKHR",
        33,
        "vkmm stores a matrix whose components all have one known value: OpConstantComposite of the matrix type (\"there must be only one 'Constituent' and it is used to initialize all members\"), OpConstantNull, OpCompositeConstruct of one constant, or arithmetic on those; this one is computed from a value known only at run time",
    );
}

#[test]
fn operands_that_differ_within_the_scope_instance_are_an_error() {
    // The pointer indexes by the invocation id (a builtin, folded to each
    // invocation's constant): the two invocations of the subgroup store
    // through different elements, refused, the operands must be uniform.
    let t = base()
        .replace(
            "%pm = OpAccessChain %pu %buf %c0 %c0\n",
            "%px0 = OpAccessChain %pinu %lid %c0\n%x0 = OpLoad %uint %px0\n%pm = OpAccessChain %pu %buf %c0 %x0\n%pm0 = OpAccessChain %pu %buf %c0 %c0\n",
        )
        .replace("%mat = OpTypeCooperativeMatrixKHR %uint %sg %c1 %c2", "%mat = OpTypeCooperativeMatrixKHR %uint %sg %c1 %c1");
    let line = line_of(&t, "OpCooperativeMatrixStoreKHR");
    let e = parse(&t).unwrap_err();
    assert_eq!(
        e,
        format!(
            "t.spvasm:{line}:1: P1 executes this instruction as cooperative matrix instance 0, where P0, in the same Subgroup instance, executes line {line} with other operands (elements, stored value or scope): \"All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of the cooperative matrix\""
        )
    );
}

#[test]
fn an_instruction_some_invocations_skip_is_an_error() {
    // The store moves into P0's branch: P1 never executes it (the branch
    // on the invocation id is folded and P1 never reaches the block, which
    // is left out of its code, so the instances are counted apart).
    let t = base()
        .replace(
            "OpCooperativeMatrixStoreKHR %pm %ones %c0 %c2 NonPrivatePointer\n",
            "",
        )
        .replace(
            "%read = OpLabel\n",
            "%read = OpLabel\nOpCooperativeMatrixStoreKHR %pm %ones %c0 %c2 NonPrivatePointer\n",
        );
    let line = line_of(&t, "OpCooperativeMatrixStoreKHR");
    assert_eq!(
        parse(&t).unwrap_err(),
        format!(
            "t.spvasm:{line}:1: P0 executes this cooperative matrix instruction as its instance 0, but P1, in the same Subgroup instance, executes 0 cooperative matrix instruction(s): \"All dynamic instances of an instruction with an operand or result that is an object of this type must be executed such that all the invocations in the 'Scope' instance are active or none of them are\""
        )
    );
}

/// A pointer indexed by a value read from memory (`%buf[1]`, 7 in the
/// `@Input`, but a load the invocations perform at run time, not a builtin
/// vkmm folds): vkmm cannot tell that every invocation of the subgroup uses
/// the same element, so the store is refused at the pointer with the
/// operand rule ("All the operands to this instruction must be dynamically
/// uniform within every instance of the 'Scope' of the cooperative
/// matrix"). The index would be out of range at run time too, so the
/// refusal is not about the value: a constant 0 read the same way is
/// refused alike (the second case).
#[test]
fn a_pointer_indexed_by_a_value_read_from_memory_is_refused_at_the_pointer() {
    for input in ["{{0, 0}, 7}", "{{0, 0}, 0}"] {
        let t = base()
            .replace(
                "%pm = OpAccessChain %pu %buf %c0 %c0\n",
                "%pidx = OpAccessChain %pu %buf %c1\n%idx = OpLoad %uint %pidx\n%pm = OpAccessChain %pu %buf %c0 %idx\n",
            )
            .replace("; @Input: %buf = {{0, 0}, 7}", &format!("; @Input: %buf = {input}"))
            .replace(
                "%mat = OpTypeCooperativeMatrixKHR %uint %sg %c1 %c2",
                "%mat = OpTypeCooperativeMatrixKHR %uint %sg %c1 %c1",
            );
        assert_ne!(t, base());
        let line = line_of(&t, "OpCooperativeMatrixStoreKHR");
        assert_eq!(
            parse(&t).unwrap_err(),
            format!(
                "t.spvasm:{line}:29: OpCooperativeMatrixStoreKHR: the pointer has an index vkmm knows only at run time: \"All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of the cooperative matrix\"; index with constants (or builtins)"
            ),
            "{input}"
        );
    }
}

/// WGSL through naga (`enable wgpu_cooperative_matrix;`): naga writes
/// `var acc = coop_mat8x8<f32, C>()` as a Function variable of the matrix
/// type and `coopMultiplyAdd` as OpCooperativeMatrixMulAddKHR. `a` is only
/// read (two 8x8 tile loads), each of `c`'s 64 elements is stored once by
/// one invocation ("a single implementation-dependent invocation ...
/// performs a non-atomic store") and nothing else touches `c`: race-free.
/// `c` holds MulAdd's result, which vkmm does not compute: left out of
/// the final states with a warning at the MulAdd.
#[test]
fn a_wgsl_muladd_with_its_accumulator_in_a_function_variable_is_read() {
    let dir = std::env::temp_dir().join(format!("vkmm-coop-var-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("coop.wgsl");
    std::fs::write(
        &file,
        "enable wgpu_cooperative_matrix;\n@group(0) @binding(0)\nvar<storage, read_write> a: array<f32, 64>;\n@group(0) @binding(1)\nvar<storage, read_write> c: array<f32, 64>;\n@compute @workgroup_size(2, 1, 1)\nfn main() {\n    let x = coopLoadT<coop_mat8x8<f32, A>>(&a[0], 8u);\n    let y = coopLoadT<coop_mat8x8<f32, B>>(&a[0], 8u);\n    var acc = coop_mat8x8<f32, C>();\n    acc = coopMultiplyAdd(x, y, acc);\n    coopStoreT(acc, &c[0], 8u);\n}\n",
    )
    .unwrap();
    let (code, out, err) = common::vkmm(&["check", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Data races: none"), "{out}");
    assert!(
        err.contains("coop.wgsl:11:11: warning: the final states leave out c[0], c[1],")
            && err.contains("c[63]: they may hold the components of a cooperative matrix"),
        "{err}"
    );
}

// ----- matrices as real code uses them ---------------------------------------

fn fixture(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

/// muladd.spvasm (its header derives the verdicts): each tile load is one
/// load per element, C's store one store per element, and C, a MulAdd's
/// result, is left out of the final states with a warning at the MulAdd
/// that made it.
#[test]
fn a_muladd_over_k_tiles_loads_every_element_and_leaves_c_out_of_the_final_states() {
    // Without the condition, the final states show what the shader
    // writes: C's cells, left out.
    let text = fixture("muladd.spvasm").replace("; @Output: forall (%buf[3] == 7)\n", "");
    let p = parse(&text).unwrap();
    // Two steps of two 2x2 tile loads (16 element loads) and C's four
    // stores, over the two invocations' attributions: in the first
    // attribution every element's access is P0's or P1's.
    let loads = |p: &vkmm::ir::Program| -> usize {
        p.threads
            .iter()
            .flat_map(|t| t.code.iter())
            .filter(|s| matches!(s, Stmt::Op(i) if i.coop.is_some() && i.kind == OpKind::Load))
            .count()
    };
    assert_eq!(
        loads(&p),
        16,
        "A and B are written by nothing: one attribution"
    );
    let stores: usize = p
        .threads
        .iter()
        .flat_map(|t| t.code.iter())
        .filter(|s| matches!(s, Stmt::Op(i) if i.coop.is_some() && i.kind == OpKind::Store))
        .count();
    assert_eq!(stores, 4, "each of C's elements stored once");
    let c: Vec<&str> = p
        .uncomputed
        .iter()
        .map(|l| p.locations[*l].as_str())
        .collect();
    assert_eq!(c, ["%buf[2][0]", "%buf[2][1]", "%buf[2][2]", "%buf[2][3]"]);
    let line = line_of(&text, "%new0 = OpCooperativeMatrixMulAddKHR");
    assert!(
        p.warnings.iter().any(|w| w.line == line
            && w.message
                .contains("may hold the components of a cooperative matrix")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn a_condition_on_a_computed_matrix_is_refused() {
    let t = fixture("muladd.spvasm").replace(
        "; @Output: forall (%buf[3] == 7)",
        "; @Output: forall (%buf[2][0] == 0)",
    );
    let e = parse(&t).unwrap_err();
    assert!(
        e.contains("reads `%buf[2][0]`, which may hold the components of a cooperative matrix"),
        "{e}"
    );
}

/// The loop as glslang writes it: the tile pointers take the loop
/// counter (an OpPhi) as index, which vkmm knows only at run time (it
/// does not unroll loops in the front end), so the first load is refused
/// at its pointer.
#[test]
fn the_muladd_loop_before_unrolling_is_refused_at_the_tile_pointer() {
    let t = fixture("muladd-loop.spvasm");
    let line = line_of(&t, "%ta = OpCooperativeMatrixLoadKHR");
    assert_eq!(
        parse(&t).unwrap_err(),
        format!(
            "t.spvasm:{line}:40: OpCooperativeMatrixLoadKHR: the pointer has an index vkmm knows only at run time: \"All the operands to this instruction must be dynamically uniform within every instance of the 'Scope' of the cooperative matrix\"; index with constants (or builtins)"
        )
    );
}

#[test]
fn a_muladd_result_deciding_a_branch_is_refused_at_the_branch() {
    let t = fixture("muladd.spvasm").replace(
        "%res = OpLoad %matC %acc\n",
        "%res = OpLoad %matC %acc\n%e = OpCompositeExtract %float %res 0\n%pos = OpFOrdGreaterThan %bool %e %f0\nOpSelectionMerge %j None\nOpBranchConditional %pos %w %j\n%w = OpLabel\n%p00 = OpAccessChain %pf %buf %c0 %c0\nOpStore %p00 %f0\nOpBranch %j\n%j = OpLabel\n",
    );
    let line = line_of(&t, "OpBranchConditional %pos");
    let e = parse(&t).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "t.spvasm:{line}:21: OpBranchConditional: the components of a cooperative matrix, or its length (`OpCooperativeMatrixMulAddKHR` at line "
        )) && e.contains("may decide which way a branch goes"),
        "{e}"
    );
}

#[test]
fn a_length_indexing_memory_is_refused_at_the_index() {
    // "Number of components of a cooperative matrix type accessible to
    // the current invocation": the implementation's.
    let t = fixture("muladd.spvasm").replace(
        "%res = OpLoad %matC %acc\n",
        "%res = OpLoad %matC %acc\n%n = OpCooperativeMatrixLengthKHR %uint %matC\n%pn = OpAccessChain %pf %buf %c0 %n\nOpStore %pn %f0\n",
    );
    let line = line_of(&t, "%pn = OpAccessChain");
    let e = parse(&t).unwrap_err();
    assert!(
        e.starts_with(&format!("t.spvasm:{line}:34: OpAccessChain: the components of a cooperative matrix, or its length (`OpCooperativeMatrixLengthKHR`"))
            && e.contains("the location an access reaches (an index)"),
        "{e}"
    );
}

/// A MulAdd only one invocation of the subgroup executes (a branch on
/// the invocation's id, folded): the invocations' cooperative matrix
/// instructions no longer pair up ("All dynamic instances of an
/// instruction with an operand or result that is an object of this type
/// must be executed such that all the invocations in the 'Scope' instance
/// are active or none of them are").
#[test]
fn a_muladd_one_invocation_skips_is_an_error() {
    let t = fixture("muladd.spvasm")
        .replace(
            "OpEntryPoint GLCompute %main \"main\"\n",
            "OpEntryPoint GLCompute %main \"main\" %lid\nOpDecorate %lid BuiltIn SubgroupLocalInvocationId\n",
        )
        .replace(
            "%buf = OpVariable %pbuf StorageBuffer\n",
            "%buf = OpVariable %pbuf StorageBuffer\n%pin = OpTypePointer Input %uint\n%lid = OpVariable %pin Input\n",
        )
        .replace(
            "%new2 = OpCooperativeMatrixMulAddKHR %matC %ta2 %tb2 %old2\nOpStore %acc %new2\n",
            "%x = OpLoad %uint %lid\n%z = OpIEqual %bool %x %c0\nOpSelectionMerge %j None\nOpBranchConditional %z %do %j\n%do = OpLabel\n%new2 = OpCooperativeMatrixMulAddKHR %matC %ta2 %tb2 %old2\nOpStore %acc %new2\nOpBranch %j\n%j = OpLabel\n",
        );
    let muladd = line_of(&t, "%new2 = OpCooperativeMatrixMulAddKHR");
    let store = line_of(&t, "OpCooperativeMatrixStoreKHR");
    let e = parse(&t).unwrap_err();
    assert!(
        e.starts_with(&format!("t.spvasm:{store}:1: P1 executes this instruction as cooperative matrix instance 5, where P0, in the same Subgroup instance, executes line {muladd}")),
        "{e}"
    );
}

/// A component written into a matrix (OpCompositeInsert): which component
/// an index names is the implementation's, so the stored matrix is no
/// longer one of a known value: its cells are left out, and the condition
/// on them refused.
#[test]
fn a_matrix_with_an_inserted_component_is_not_computed() {
    let t = fixture("tiles-race.spvasm")
        .replace(
            "%p = OpAccessChain",
            "%m0 = OpCompositeInsert %row %c3 %m 0\n%p = OpAccessChain",
        )
        .replace(
            "OpCooperativeMatrixStoreKHR %p %m ",
            "OpCooperativeMatrixStoreKHR %p %m0 ",
        );
    let e = parse(&t).unwrap_err();
    assert!(
        e.contains("reads `%buf[0][1]`, which may hold the components of a cooperative matrix"),
        "{e}"
    );
    // Without the insert, the matrix of one value is exact.
    assert!(parse(&fixture("tiles-race.spvasm")).is_ok());
}

/// The constant matrix stays exact through a conversion and a scale
/// (f16-convert.spvasm: 1.0 as a half, to 32 bits, times 3.0), and each
/// 16-bit element is its own 2-byte cell.
#[test]
fn a_half_matrix_is_read_through_two_byte_cells() {
    let p = vkmm::frontend::load(&dir().join("f16-convert.spvasm")).unwrap();
    let c: Vec<&str> = p
        .uncomputed
        .iter()
        .map(|l| p.locations[*l].as_str())
        .collect();
    assert_eq!(c, ["%buf[1][0]", "%buf[1][1]", "%buf[1][2]", "%buf[1][3]"]);
    // A matrix stored through a pointer whose cells are wider than its
    // components is refused at the pointer (elements are cells of the
    // component's width).
    let t = fixture("f16-convert.spvasm").replace(
        "%p2 = OpAccessChain %pf %buf %c2 %c0\nOpCooperativeMatrixStoreKHR %p2 %o3 %c0 %c2",
        "%p2 = OpAccessChain %pf %buf %c2 %c0\nOpCooperativeMatrixStoreKHR %p2 %ones %c0 %c2",
    );
    let line = line_of(&t, "OpCooperativeMatrixStoreKHR %p2");
    assert_eq!(
        parse(&t).unwrap_err(),
        format!(
            "t.spvasm:{line}:29: OpCooperativeMatrixStoreKHR: element (0, 0) is at byte offset 24, outside the variable (or not a cell of its size)"
        )
    );
}
