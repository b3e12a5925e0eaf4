//! Runtime indices the lowering knows per invocation, and nested loops
//! under the unrolling bound (docs/format-spirv.md, "Undecided rows by
//! cause", class A).
//!
//! 1. A load of a builtin Input cell (or a push constant cell) is the
//!    invocation's constant: SPIR-V, Storage Class, of Input and of
//!    PushConstant: "Variables declared with this storage class are
//!    read-only, and must not have initializers." So `%out[%id]` with `%id`
//!    loaded from `GlobalInvocationId` is a direct access of the cell `%id`
//!    names, each invocation's own, and the latest-own-write filter
//!    applies to it. The fold must change no answer: the same programs
//!    with the id laundered through an `OpPhi` (a register, lowered as a
//!    branch chain over the cells) give the same
//!    final states, condition and race verdicts under the reference
//!    enumeration (`Limits::reference`).
//! 2. A statement's runs are counted per entry into its innermost loop:
//!    an inner loop runs its body up to `unroll + 1` times in every
//!    iteration of the outer one, as Dat3M unrolls nested loops.

use crate::common;

use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};
use vkmm::ir::Stmt;

fn litmus(c: Checked) -> LitmusOutcome {
    match c {
        Checked::Litmus(o) => *o,
        _ => panic!("a litmus result"),
    }
}

fn session() -> Session {
    Session::new().timeout(Some(Duration::from_secs(10)))
}

/// Three invocations, a buffer of two cells. Invocation k stores k + 1 to
/// `%out[k]` and reads it back into `%got[k]`. Invocation 2's index names
/// no cell: its accesses are out of bounds, which vkmm lowers as no access
/// at all, with the index folded or not (the branch chain over the cells
/// has no case for it). Each cell is written by one invocation only, and
/// its read follows its own store: "AX == AY and RX == RY and X→Y" makes
/// the store location-ordered before the read, and reading the initial 0
/// would from-read the store, a cycle of "location-ordered, ...,
/// reads-from, from-reads". So one final state: `%out = {1, 2}`, `%got =
/// {1, 2}`, and no race (no two invocations access one cell).
const DIRECT: &str = "; @Input: %out = {0, 0}, %got = {0, 0}
; @Output: forall (%out[0] == 1 and %out[1] == 2 and %got[0] == 1 and %got[1] == 2)
; @Config: 3, 1, 1
OpCapability Shader
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\" %ids
OpDecorate %ids BuiltIn GlobalInvocationId
OpDecorate %arr ArrayStride 4
%void = OpTypeVoid
%func = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%v3uint = OpTypeVector %uint 3
%arr = OpTypeArray %uint %c2
%ptr_in_v3 = OpTypePointer Input %v3uint
%ptr_in_uint = OpTypePointer Input %uint
%ptr_fn_uint = OpTypePointer Function %uint
%ptr_sb_arr = OpTypePointer StorageBuffer %arr
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
%ids = OpVariable %ptr_in_v3 Input
%out = OpVariable %ptr_sb_arr StorageBuffer
%got = OpVariable %ptr_sb_arr StorageBuffer
%main = OpFunction %void None %func
%entry = OpLabel
%tmp = OpVariable %ptr_fn_uint Function
%id_ptr = OpAccessChain %ptr_in_uint %ids %c0
%id0 = OpLoad %uint %id_ptr
OpStore %tmp %id0
%id = OpLoad %uint INDEX
%p = OpAccessChain %ptr_sb_uint %out %id
%v = OpIAdd %uint %id %c1
OpStore %p %v
%r = OpLoad %uint %p
%q = OpAccessChain %ptr_sb_uint %got %id
OpStore %q %r
OpReturn
OpFunctionEnd
";

/// The program with the index loaded from the builtin (`%id_ptr`) or
/// laundered through an `OpPhi` of the value the Function variable `%tmp`
/// holds. The lowering folds what a Function variable holds
/// (src/frontend/spirv/lower/known.rs) but keeps every phi a register.
fn variant(src: &str, folded: bool) -> String {
    if folded {
        src.replace("INDEX", "%id_ptr")
    } else {
        src.replace(
            "%id = OpLoad %uint INDEX\n",
            "%idv = OpLoad %uint %tmp\nOpBranch %next\n%next = OpLabel\n%id = OpPhi %uint %idv %entry\n",
        )
    }
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
fn a_builtin_index_is_a_direct_access() {
    let folded = variant(DIRECT, true);
    let program = session().load_text("direct.spvasm", &folded).unwrap();
    // No branch chain left: each invocation's accesses name one cell.
    for t in &program.threads {
        assert!(
            !t.code.iter().any(|s| matches!(s, Stmt::Branch { .. })),
            "P{}: {:?}",
            t.id,
            t.code
        );
    }
    // Invocations 0 and 1: the store, the load and the store to `%got`;
    // invocation 2's index names no cell: no access at all.
    let accesses = |k: usize| {
        program.threads[k]
            .code
            .iter()
            .filter(|s| matches!(s, Stmt::Op(i) if program.location_of(i).is_some()))
            .count()
    };
    assert_eq!((accesses(0), accesses(1), accesses(2)), (3, 3, 0));
    // The laundered index is a branch chain.
    let laundered = session()
        .load_text("direct.spvasm", &variant(DIRECT, false))
        .unwrap();
    assert!(
        laundered.threads[0]
            .code
            .iter()
            .any(|s| matches!(s, Stmt::Branch { .. }))
    );
}

#[test]
fn folding_changes_no_answer() {
    let run = |folded: bool, reference: bool| {
        let mut s = session();
        if reference {
            let limits = s.current_limits().reference();
            s = s.limits(limits);
        }
        litmus(
            s.check_text("direct.spvasm", &variant(DIRECT, folded))
                .unwrap(),
        )
    };
    let reference = run(false, true);
    assert_eq!(reference.cut_paths, 0);
    assert_eq!(reference.condition_holds, Some(true), "{reference:?}");
    assert_eq!(reference.race_free, Some(true));
    assert_eq!(reference.states.len(), 1);
    for (folded, refe) in [(true, true), (true, false), (false, false)] {
        let o = run(folded, refe);
        assert_eq!(o.cut_paths, 0, "folded {folded} reference {refe}");
        assert_eq!(
            answers(&o),
            answers(&reference),
            "folded {folded} reference {refe}"
        );
    }
}

/// A store to a builtin Input variable is refused at its line: "Variables
/// declared with this storage class are read-only".
#[test]
fn a_store_to_a_builtin_is_refused() {
    let src = variant(DIRECT, true).replace(
        "OpStore %tmp %id0\n",
        "OpStore %tmp %id0\nOpStore %id_ptr %c1\n",
    );
    let e = session()
        .check_text("direct.spvasm", &src)
        .unwrap_err()
        .to_string();
    assert!(e.contains(":32:") && e.contains("read only"), "{e}");
}

/// Dat3M's `basic/loop-struct-cond-nested`, one invocation: an outer loop
/// of three iterations (it exits when the count read before its own
/// increment is 2), each adding 1 to `%var` and then running an inner loop
/// of two iterations that multiply it by 5: ((1·25 + 1)·25 + 1)·25 = 16275.
/// Each load of `%var` and of the counters follows the invocation's own
/// store (no other invocation), so it reads that store's value (the
/// latest-own-write argument above). Counting runs per entry into the
/// innermost loop, the inner body runs twice per outer iteration: bound 3
/// (`--unroll 2`) holds every iteration, bound 2 (`--unroll 1`) cuts the
/// outer loop's third iteration, as Dat3M's UNKNOWN at bound 2 says. Along
/// the whole path the inner body runs six times: counted so, only
/// `--unroll 5` decided it.
const NESTED: &str = "; @Input:  %var = 0
; @Output: forall (%var==16275)
; @Config: 1, 1, 1
OpCapability Shader
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\"
%void = OpTypeVoid
%bool = OpTypeBool
%func = OpTypeFunction %void
%uint = OpTypeInt 64 0
%ptr_uint = OpTypePointer Uniform %uint
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%c5 = OpConstant %uint 5
%var = OpVariable %ptr_uint Uniform
%count_1 = OpVariable %ptr_uint Uniform %c0
%count_2 = OpVariable %ptr_uint Uniform %c0
%main = OpFunction %void None %func
%label_1 = OpLabel
%val_1 = OpLoad %uint %var
%val_1_new = OpIAdd %uint %val_1 %c1
OpStore %var %val_1_new
%val_count_1 = OpLoad %uint %count_1
%val_count_1_new = OpIAdd %uint %val_count_1 %c1
OpStore %count_1 %val_count_1_new
OpStore %count_2 %c0
OpBranch %label_3
%label_3 = OpLabel
%val_2 = OpLoad %uint %var
%val_2_new = OpIMul %uint %val_2 %c5
OpStore %var %val_2_new
%val_count_2 = OpLoad %uint %count_2
%val_count_2_new = OpIAdd %uint %val_count_2 %c1
OpStore %count_2 %val_count_2_new
%cond_2 = OpIEqual %bool %val_count_2 %c1
OpLoopMerge %label_4 %label_3 None
OpBranchConditional %cond_2 %label_4 %label_3
%label_4 = OpLabel
%cond_1 = OpIEqual %bool %val_count_1 %c2
OpLoopMerge %label_2 %label_1 None
OpBranchConditional %cond_1 %label_2 %label_1
%label_2 = OpLabel
OpReturn
OpFunctionEnd
";

#[test]
fn an_inner_loop_is_unrolled_per_outer_iteration() {
    let run = |unroll: usize| {
        litmus(
            session()
                .unroll(unroll)
                .check_text("nested.spvasm", NESTED)
                .unwrap(),
        )
    };
    let decided = run(2);
    assert_eq!(decided.cut_paths, 0, "{decided:?}");
    assert_eq!(decided.condition_holds, Some(true));
    assert_eq!(decided.states.len(), 1);
    let cut = run(1);
    assert!(cut.cut_paths > 0, "{cut:?}");
}

/// The `KNOWN_WRONG` row `missing_local_barrier_flag_2` (races, Dat3M
/// FAIL): the `__local` argument's array has the length of its spec
/// constant, default 1, so the stores of `a[lid]` by invocations 1 and 2
/// and of `a[lid + 1]` by all three are out of bounds except invocation
/// 0's `a[0]` (Vulkan, "Shader Out-of-Bounds Memory Access": "accessing
/// `data` at an index greater than 1 is undefined behavior"); vkmm
/// lowers them as no access, so one store is left per workgroup and there
/// is no race. With the length the host would set (`; @Input: %15 = 4`,
/// the spec constant), GPUVerify's races appear: the stores either side of
/// a barrier whose semantics lack WorkgroupMemory meet on `%18[1]` and
/// `%18[2]` (docs/format-spirv.md, "Workgroup arrays of clspv kernel
/// arguments").
#[test]
fn clspv_local_argument_rows() {
    let Some(dir) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    let path = dir.join(
        "gpuverify/inter_group_and_barrier_flag_tests/fail/missing_local_barrier_flag_2.spvasm",
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let races = |text: &str| {
        litmus(
            session()
                .decide(Some(vkmm::Property::Races))
                .check_text("m.spvasm", text)
                .unwrap(),
        )
    };
    let as_written = races(&text);
    assert_eq!(as_written.race_free, Some(true), "{as_written:?}");
    let sized = races(&format!("; @Input: %15 = 4\n{text}"));
    assert_eq!(sized.race_free, Some(false), "{sized:?}");
    let mut cells: Vec<String> = sized.races.iter().map(|r| r.location.clone()).collect();
    cells.sort();
    cells.dedup();
    assert!(
        cells.iter().any(|c| c.contains("%18[1]")) && cells.iter().any(|c| c.contains("%18[2]")),
        "{cells:?}"
    );
}

/// An access at a runtime index in a block one invocation never reaches,
/// in a module with a group instruction (whose blocks the lowering keeps
/// for every invocation alike, reached or not, so that each invocation
/// numbers the group instructions' instances the same way). Two
/// invocations of one subgroup; `%k`, read from `%idx` (which holds 1), is
/// known only when the program runs. Invocation 0 stores 1 to `%out[%k]`
/// (its `%then` block; invocation 1 never runs it); invocation 1 copies
/// `%out[%k]` to `%got[1]` (its `%else` block; invocation 0 never runs
/// it). By hand: `%sum` = {1, 1} (0 + 1 for each); `%out[1]` = 1 (the
/// only store); `%got[1]` is 0 or 1 (nothing orders the load against the
/// store, so it may read either), `%got[0]` stays 0: two final states.
/// The store and the load of `%out[1]` are plain accesses by two
/// invocations that no synchronisation orders: a race.
const UNREACHED: &str = "; @Input: %idx = {1}, %out = {0, 0, 0, 0}, %got = {0, 0}, %sum = {0, 0}
; @Output: exists (%got[1] == 1)
; @Config: 2, 1, 1
OpCapability Shader
OpCapability GroupNonUniform
OpCapability GroupNonUniformArithmetic
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\" %sid
OpDecorate %sid BuiltIn SubgroupLocalInvocationId
OpDecorate %arr1 ArrayStride 4
OpDecorate %arr2 ArrayStride 4
OpDecorate %arr4 ArrayStride 4
%void = OpTypeVoid
%func = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%c4 = OpConstant %uint 4
%sg = OpConstant %uint 3
%arr1 = OpTypeArray %uint %c1
%arr2 = OpTypeArray %uint %c2
%arr4 = OpTypeArray %uint %c4
%pin = OpTypePointer Input %uint
%p1 = OpTypePointer StorageBuffer %arr1
%p2 = OpTypePointer StorageBuffer %arr2
%p4 = OpTypePointer StorageBuffer %arr4
%pu = OpTypePointer StorageBuffer %uint
%sid = OpVariable %pin Input
%idx = OpVariable %p1 StorageBuffer
%out = OpVariable %p4 StorageBuffer
%got = OpVariable %p2 StorageBuffer
%sum = OpVariable %p2 StorageBuffer
%main = OpFunction %void None %func
%entry = OpLabel
%i = OpLoad %uint %sid
%s = OpGroupNonUniformIAdd %uint %sg Reduce %i
%ps = OpAccessChain %pu %sum %i
OpStore %ps %s
%pk = OpAccessChain %pu %idx %c0
%k = OpLoad %uint %pk
%is0 = OpIEqual %bool %i %c0
OpSelectionMerge %merge None
OpBranchConditional %is0 %then %else
%then = OpLabel
%po = OpAccessChain %pu %out %k
OpStore %po %c1
OpBranch %merge
%else = OpLabel
%pr = OpAccessChain %pu %out %k
%r = OpLoad %uint %pr
%pg = OpAccessChain %pu %got %i
OpStore %pg %r
OpBranch %merge
%merge = OpLabel
OpReturn
OpFunctionEnd
";

/// The module above lowered with the accesses of unreached blocks left out
/// (the default) and in full (`Options::unreached_chains`, the lowering
/// they replace): each invocation's code is shorter without them, and the
/// answers (final states with counts, condition, races), under the
/// reductions and under the reference enumeration, are the same, and are
/// those derived by hand above.
#[test]
fn unreached_accesses_leave_their_branches_out_and_change_no_answer() {
    use vkmm::frontend::{self, Format, Options};
    let lower = |chains: bool| {
        let options = Options {
            unreached_chains: chains,
            ..Options::default()
        };
        frontend::parse_text("unreached.spvasm", UNREACHED, Format::Spirv, options).unwrap()
    };
    let (short, full) = (lower(false), lower(true));
    for (a, b) in short.threads.iter().zip(&full.threads) {
        assert!(
            a.code.len() < b.code.len(),
            "P{}: {} statements, {} with the unreached branches",
            a.id,
            a.code.len(),
            b.code.len()
        );
    }
    let run = |program: &vkmm::ir::Program, reference: bool| {
        let mut s = session();
        if reference {
            let limits = s.current_limits().reference();
            s = s.limits(limits);
        }
        let o = litmus(s.check_program("unreached.spvasm", program).unwrap());
        let counts: Vec<u64> = o.states.iter().map(|(_, n)| *n).collect();
        (format!("{} counts {counts:?}", answers(&o)), o)
    };
    let (expected, o) = run(&full, true);
    assert_eq!(o.cut_paths, 0);
    assert_eq!(o.states.len(), 2, "{expected}");
    assert_eq!(o.condition_holds, Some(true), "{expected}");
    assert_eq!(o.race_free, Some(false), "{expected}");
    for (program, reference) in [(&full, false), (&short, true), (&short, false)] {
        assert_eq!(run(program, reference).0, expected, "reference {reference}");
    }
}
