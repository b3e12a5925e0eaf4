//! Control barriers: execution scope against memory scope, named barriers
//! with a quorum, and barrier divergence counted per number of arrivals.
//! Every verdict is derived by hand from the sentence quoted next to it.

use vkmm::analysis::LitmusOutcome;
use vkmm::analysis::termination::{Progress, Verdict};
use vkmm::ir::{OpKind, Operand, Scope};
use vkmm::{Checked, Error, Session};

fn litmus(name: &str, text: &str) -> LitmusOutcome {
    match Session::new().check_text(name, text) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{other:?}"),
    }
}

/// Whether the condition holds (`exists`: some consistent execution).
fn holds(name: &str, text: &str) -> bool {
    litmus(name, text).condition_holds.unwrap()
}

fn termination(text: &str) -> Verdict {
    let session = Session::new().termination(Some(Progress::default()));
    match session.check_text("t.litmus", text) {
        Ok(Checked::Termination(o)) => o.verdict,
        other => panic!("{other:?}"),
    }
}

fn input_error(name: &str, text: &str) -> String {
    match Session::new().load_text(name, text) {
        Err(e @ Error::Input(_)) => e.to_string(),
        other => panic!("expected an input error, got {other:?}"),
    }
}

// ----- 1. Execution scope and memory scope ---------------------------------

/// P0 writes x and passes a device-memory-scope barrier; P1 passes the
/// barrier, then reads x. `P1:r0 == 0` needs the barrier not to
/// synchronize.
const CROSS_WORKGROUP: &str = "VULKAN cbar-exec-scope\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.atom.dv.sc0 x, 1 | cbar.acq_rel.dv.semsc0 0 ;\n cbar.acq_rel.dv.semsc0 0 | ld.atom.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n";

#[test]
fn dat3m_cbar_token_is_the_memory_scope_and_execution_is_workgroup() {
    // Dat3M's `VisitorLitmusVulkan` builds every `cbar` with execution
    // scope WORK_GROUP and adds the scope token as a tag (`inscope` reads
    // it as the memory scope).
    let p = Session::new()
        .load_text("t.litmus", CROSS_WORKGROUP)
        .unwrap();
    let cbar = p.threads[1].instructions().next().unwrap();
    assert_eq!(cbar.kind, OpKind::control_barrier(0, Scope::Workgroup));
    assert_eq!(cbar.scope, Some(Scope::Device));
}

#[test]
fn a_workgroup_execution_scope_barrier_does_not_synchronize_two_workgroups() {
    // Vulkan appendix, synchronizes-with: "If A is a release barrier, B is
    // an acquire barrier, and C is a control barrier ..., then A
    // synchronizes-with B if ... A and B are in the instance of C's
    // execution scope". P0 and P1 are in different workgroups: the
    // barriers (one dynamic instance per workgroup) do not synchronize,
    // although their Device memory scopes contain each other, so P1 may
    // read the initial 0.
    assert!(holds("x.litmus", CROSS_WORKGROUP));
    // One workgroup (two subgroups): they do synchronize: P0's write
    // happens-before P1's read, which reads 1.
    let same = CROSS_WORKGROUP.replace("P1@sg 0, wg 1", "P1@sg 1, wg 0");
    assert!(!holds("s.litmus", &same));
}

/// A SPIR-V compute module after `headers`: the types, the constants 0, 1,
/// 2 and 72 (AcquireRelease | UniformMemory), `decls`, the invocation's
/// global id in `%id0`, then `body` (ending with `OpReturn`).
fn spirv(headers: &str, decls: &str, body: &str) -> String {
    format!(
        "{headers}
               OpCapability Shader
               OpMemoryModel Logical Vulkan
               OpEntryPoint GLCompute %main \"main\" %gid
               OpDecorate %gid BuiltIn GlobalInvocationId
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
     %v3uint = OpTypeVector %uint 3
  %ptr_in_v3 = OpTypePointer Input %v3uint
   %ptr_in_u = OpTypePointer Input %uint
        %arr = OpTypeRuntimeArray %uint
     %ptr_sb = OpTypePointer StorageBuffer %arr
   %ptr_sb_u = OpTypePointer StorageBuffer %uint
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
    %uint_72 = OpConstant %uint 72
{decls}
        %gid = OpVariable %ptr_in_v3 Input
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %p0 = OpAccessChain %ptr_in_u %gid %uint_0
        %id0 = OpLoad %uint %p0
{body}
               OpFunctionEnd
"
    )
}

/// `@Config` and the execution scope operand of the one OpControlBarrier
/// both invocations reach: invocation 0 stores 1 to `%x` before it,
/// invocation 1 loads `%x` after it into `%y`.
fn spirv_barrier(config: &str, execution_scope: &str) -> String {
    spirv(
        &format!(
            "; @Input: %x = {{0}}, %y = {{0}}\n; @Output: exists (%y[0] == 0)\n; @Config: {config}"
        ),
        &format!(
            "       %exec = OpConstant %uint {execution_scope}
          %x = OpVariable %ptr_sb StorageBuffer
          %y = OpVariable %ptr_sb StorageBuffer"
        ),
        "         %px = OpAccessChain %ptr_sb_u %x %uint_0
         %py = OpAccessChain %ptr_sb_u %y %uint_0
        %is0 = OpIEqual %bool %id0 %uint_0
               OpSelectionMerge %mid None
               OpBranchConditional %is0 %writer %mid
     %writer = OpLabel
               OpAtomicStore %px %uint_1 %uint_0 %uint_1
               OpBranch %mid
        %mid = OpLabel
               OpControlBarrier %exec %uint_1 %uint_72
               OpSelectionMerge %end None
               OpBranchConditional %is0 %end %reader
     %reader = OpLabel
          %v = OpAtomicLoad %uint %px %uint_1 %uint_0
               OpStore %py %v
               OpBranch %end
        %end = OpLabel
               OpReturn",
    )
}

#[test]
fn spirv_control_barrier_keeps_both_scopes() {
    // `OpControlBarrier Execution Memory Semantics` (72 = AcquireRelease |
    // UniformMemory, Device memory scope). The same appendix sentence:
    // with Workgroup (2) execution scope, invocations of two workgroups
    // (`@Config: 1, 1, 2`) are not in one instance of it: %y may be 0.
    assert!(holds("x.spvasm", &spirv_barrier("1, 1, 2", "2")));
    // Two subgroups of one workgroup: synchronized, %y is 1.
    assert!(!holds("s.spvasm", &spirv_barrier("1, 2, 1", "2")));
    // Device (1) execution scope: both workgroups are in its instance
    // (the IR keeps it; Vulkan's SPIR-V environment allows only Workgroup
    // and Subgroup, VUID-StandaloneSpirv-None-04636, but OpenCL allows it).
    assert!(!holds("d.spvasm", &spirv_barrier("1, 1, 2", "1")));
    let p = Session::new()
        .load_text("d.spvasm", &spirv_barrier("1, 1, 2", "1"))
        .unwrap();
    let cbar = p.threads[0]
        .instructions()
        .find(|i| matches!(i.kind, OpKind::ControlBarrier { .. }))
        .unwrap();
    assert!(matches!(
        cbar.kind,
        OpKind::ControlBarrier {
            execution_scope: Scope::Device,
            ..
        }
    ));
    assert_eq!(cbar.scope, Some(Scope::Device));
}

#[test]
fn alloy_test_cbar_token_is_both_scopes() {
    // The Alloy model gives `cbar` one scope: `inscope` uses it as the
    // memory scope, and instance numbers group the barriers. vkmm takes the
    // token as the execution scope too. A Device-scope barrier across two
    // workgroups synchronizes: the read cannot return the old value.
    let cross = "NEWQF\nNEWWG\nNEWSG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 1\ncbar.acq.rel.scopedev.semsc0 1\nNEWWG\nNEWSG\nNEWTHREAD\ncbar.acq.rel.scopedev.semsc0 1\nld.atom.scopedev.sc0 x = 0\nNOSOLUTION consistent[X]\n";
    let check = |text: &str| match Session::new().check_text("t.test", text) {
        Ok(Checked::Queries(o)) => o.passed(),
        other => panic!("{other:?}"),
    };
    assert!(check(cross));
    let p = Session::new().load_text("t.test", cross).unwrap();
    let cbar = p.threads[1].instructions().next().unwrap();
    assert_eq!(cbar.kind, OpKind::control_barrier(1, Scope::Device));
    assert_eq!(cbar.scope, Some(Scope::Device));
    // Workgroup scope across the two workgroups: not in each other's
    // memory-scope (nor execution-scope) instance: the old value is allowed.
    let apart = cross
        .replace("scopedev.semsc0", "scopewg.semsc0")
        .replace("NOSOLUTION", "SATISFIABLE");
    assert!(check(&apart));
}

#[test]
fn opencl_barriers_meet_per_workgroup() {
    // 3.6.3: "The control barrier function provides a mechanism for a
    // kernel to synchronize the work-items within a single scope instance
    // defined by the WorkGroup or SubGroup execution scope parameter";
    // `barrier` has WorkGroup execution scope. Two workgroups: no
    // synchronization, so the relaxed read may see 0; one workgroup: the
    // entry fence of P0 global-synchronizes-with P1's exit fence.
    let text = "OPENCL b\n{ [x]=0; }\nP0@wg 0, dev 0 (global atomic_int* x) {\n  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);\n  barrier(CLK_GLOBAL_MEM_FENCE);\n}\nP1@wg 1, dev 0 (global atomic_int* x) {\n  barrier(CLK_GLOBAL_MEM_FENCE);\n  int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);\n}\nexists (1:r0=0)\n";
    assert!(holds("x.litmus", text));
    let same = text.replace("P1@wg 1", "P1@wg 0");
    assert!(!holds("s.litmus", &same));
}

// ----- 2. Named barriers with a quorum --------------------------------------
//
// The specifications have no named barriers: the meaning is Dat3M's
// `NamedBarrier` ("Only barriers with the same instanceId and the same
// resourceId can synchronize with each other"; the quorum is the "Minimal
// number of threads required to reach a control barrier before any thread
// can proceed"), read from its program encoding (every arrival passes once
// the quorum is reached; a set of at least quorum arrivals completes the
// barrier and releases to every passing one).

/// Three invocations of one workgroup; P0 writes x then passes the barrier,
/// P1 passes it then reads x, P2 only passes it. `ARGS` is the barrier's
/// instance, id and quorum.
fn three(args: &str) -> String {
    format!(
        "VULKAN q\n{{ x=0; }}\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 | P2@sg 2, wg 0, qf 0 ;\n st.atom.dv.sc0 x, 1 | cbar.acq_rel.dv.semsc0 {args} | cbar.acq_rel.dv.semsc0 {args} ;\n cbar.acq_rel.dv.semsc0 {args} | ld.atom.dv.sc0 r0, x | ;\nexists (P1:r0 == 0)\n"
    )
}

#[test]
fn named_barrier_operands_are_kept() {
    let p = Session::new()
        .load_text(
            "t.litmus",
            "VULKAN n\n{ P0:r1=7; }\n P0@sg 0, wg 0, qf 0 ;\n cbar.wg 3, r1, 2 ;\n cbar.wg 4, 9 ;\n",
        )
        .unwrap();
    let mut ins = p.threads[0].instructions();
    assert_eq!(
        ins.next().unwrap().kind,
        OpKind::ControlBarrier {
            instance: 3,
            execution_scope: Scope::Workgroup,
            id: Some(Operand::Reg("r1".into())),
            quorum: Some(Operand::Const(2)),
        }
    );
    assert_eq!(
        ins.next().unwrap().kind,
        OpKind::ControlBarrier {
            instance: 4,
            execution_scope: Scope::Workgroup,
            id: Some(Operand::Const(9)),
            quorum: None,
        }
    );
    // The printer writes them back.
    let printed = vkmm::frontend::vulkan_litmus::print::to_litmus(&p);
    assert!(printed.contains("cbar.wg 3, r1, 2"), "{printed}");
    assert!(printed.contains("cbar.wg 4, 9"), "{printed}");
}

#[test]
fn same_id_synchronizes_different_ids_do_not() {
    // Quorum 3, all three arrive with id 1: every arrival completes the
    // barrier, P0's release reaches P1: the read returns 1.
    assert!(!holds("a.litmus", &three("1, 1, 3")));
    // P1 has id 2: its barrier (quorum 1) is another barrier than P0's and
    // P2's (id 1, quorum 2): nothing orders P0's write before P1's read.
    let apart = three("1, 1, 2").replacen(
        "| cbar.acq_rel.dv.semsc0 1, 1, 2 | cbar",
        "| cbar.acq_rel.dv.semsc0 1, 2, 1 | cbar",
        1,
    );
    assert!(apart.contains("1, 2, 1"), "{apart}");
    let o = litmus("b.litmus", &apart);
    assert_eq!(o.condition_holds, Some(true));
    assert!(o.barrier_stalls.is_empty() && o.barrier_divergence.is_empty());
    // Without a quorum, every invocation of the workgroup must arrive with
    // the same id: P0's id 5 and P1's id 6 are two barriers, each passed
    // while the other invocation never reaches it (divergence, named).
    let two = "VULKAN ids\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n st.atom.dv.sc0 x, 1 | cbar.acq_rel.dv.semsc0 1, 6 ;\n cbar.acq_rel.dv.semsc0 1, 5 | ld.atom.dv.sc0 r0, x ;\nexists (P1:r0 == 0)\n";
    let o = litmus("i.litmus", two);
    assert_eq!(o.condition_holds, Some(true));
    assert_eq!(
        o.barrier_divergence,
        [
            "P0 line 5: cbar.acq_rel.dv.semsc0 1, 5 (P1 reaches it with another id)",
            "P1 line 4: cbar.acq_rel.dv.semsc0 1, 6 (P0 reaches it with another id)"
        ]
    );
    assert!(!holds("j.litmus", &two.replace("1, 6", "1, 5")));
    // An id given by a register: the same value meets (read 1 only).
    let reg = three("1, r5, 3").replace("{ x=0; }", "{ x=0; P0:r5=1; P1:r5=1; P2:r5=1; }");
    assert!(!holds("c.litmus", &reg));
    // A different value in P1's register: P1 waits at a barrier of quorum
    // 3 that only it reaches: no complete execution, the others' barrier
    // (two arrivals, quorum 3) stalls too.
    let split = reg.replace("P1:r5=1", "P1:r5=2");
    let o = litmus("d.litmus", &split);
    assert_eq!(o.condition_holds, Some(false));
    assert!(o.states.is_empty());
    assert_eq!(o.barrier_stalls.len(), 3, "{:?}", o.barrier_stalls);
}

#[test]
fn a_quorum_smaller_than_the_arrivals_lets_a_subset_synchronize() {
    // Quorum 2, three arrive: the barrier opens for all; P1 and P2 may be
    // the two that complete it, P0's release then reaches no one and P1
    // may read 0 (Dat3M's `quorum1-pass`).
    let o = litmus("p.litmus", &three("1, 1, 2"));
    assert_eq!(o.condition_holds, Some(true));
    assert_eq!(o.states.len(), 2, "{:?}", o.states);
    // Quorum 3 of 3: P0 is among those completing it (`quorum1-fail`).
    assert!(!holds("f.litmus", &three("1, 1, 3")));
}

#[test]
fn a_quorum_not_reached_blocks_forever() {
    // Quorum 4, three arrive: no invocation passes, so no execution is
    // complete: no final state, the condition does not hold, and check
    // names the waiting barriers (`quorum1-hang`).
    let o = litmus("h.litmus", &three("1, 1, 4"));
    assert_eq!(o.condition_holds, Some(false));
    assert!(o.states.is_empty());
    assert_eq!(
        o.barrier_stalls[0],
        "P0 line 5: cbar.acq_rel.dv.semsc0 1, 1, 4 waits forever: quorum 4, 3 arrive (P0, P1, P2)"
    );
    // Termination: all three wait at the barrier forever.
    assert_eq!(termination(&three("1, 1, 4")), Verdict::NonTerminating);
    let session = Session::new().termination(Some(Progress::default()));
    let Ok(Checked::Termination(t)) = session.check_text("t.litmus", &three("1, 1, 4")) else {
        panic!()
    };
    let w = t.witness.unwrap();
    assert!(w.threads.iter().all(|t| t.fate == "blocked at a barrier"));
    // Reached (2 or 3 of 3): every execution ends.
    assert_eq!(termination(&three("1, 1, 2")), Verdict::Terminates);
    assert_eq!(termination(&three("1, 1, 3")), Verdict::Terminates);
}

#[test]
fn bad_named_barriers_are_located_errors() {
    let base = "VULKAN n\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n";
    for (cell, at, why) in [
        (
            "cbar.wg 1, 1, 0",
            "t.litmus:4:16",
            "quorum is 0: expected a positive integer",
        ),
        ("cbar.wg 1, 1, -2", "t.litmus:4:16", "quorum is -2"),
        (
            "cbar.wg 1, r3, 2",
            "t.litmus:4:13",
            "register `r3` is read by P0 but never written",
        ),
        (
            "cbar.wg 1, 1, r4",
            "t.litmus:4:16",
            "register `r4` is read by P0 but never written",
        ),
        (
            "cbar.wg 1, 1, 2, 3",
            "t.litmus:4:17",
            "expected `,` and a barrier id or quorum",
        ),
    ] {
        let e = input_error("t.litmus", &format!("{base} {cell} ;\n"));
        assert!(e.contains(at) && e.contains(why), "{cell}: {e}");
    }
    // A quorum register holding 0 on a path: an error naming the line.
    let text = "VULKAN n\n{ x=0; P0:r4=0; }\n P0@sg 0, wg 0, qf 0 ;\n cbar.wg 1, 1, r4 ;\n";
    let e = Session::new()
        .check_text("t.litmus", text)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 4") && e.contains("quorum of `cbar.wg 1, 1, r4` is 0"),
        "{e}"
    );
}

// ----- 3. Divergence counted per number of arrivals -------------------------
//
// SPIR-V memory model for OpenCL, 3.5: "A work-group function must occur
// within a converged control flow; i.e. all Invocations in the work-group
// must encounter precisely the same work-group function. For example, if a
// work-group function occurs within a loop, the Invocations must encounter
// the same work-group function in the same loop iterations."

#[test]
fn a_barrier_in_a_loop_reached_a_different_number_of_times_diverges() {
    // P0 passes the barrier twice, P1 once (one workgroup): P0's second
    // pass is a dynamic instance P1 never reaches.
    let text = "VULKAN loop\n{ P0:r1=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | cbar.wg 0 ;\n cbar.wg 0 | ;\n add r1, r1, 1 | ;\n bne r1, 2, LC00 | ;\nexists (P0:r1 == 2)\n";
    let o = litmus("l.litmus", text);
    assert_eq!(
        o.barrier_divergence,
        ["P0 line 5: cbar.wg 0, time 2 (P1 reaches it 1 time)"]
    );
    // Both loop twice: converged, no diagnosis.
    let both = "VULKAN loop2\n{ P0:r1=0; P1:r1=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n LC00: | LC10: ;\n cbar.wg 0 | cbar.wg 0 ;\n add r1, r1, 1 | add r1, r1, 1 ;\n bne r1, 2, LC00 | bne r1, 2, LC10 ;\nexists (P0:r1 == 2)\n";
    assert!(litmus("m.litmus", both).barrier_divergence.is_empty());
}

#[test]
fn opencl_barrier_in_a_while_loop_diverges_by_trip_count() {
    let text = "OPENCL w\n{ [x]=0; }\nP0@wg 0, dev 0 (global int* x) {\n  int i = 0;\n  while (i < 2) { barrier(CLK_GLOBAL_MEM_FENCE); i = i + 1; }\n}\nP1@wg 0, dev 0 (global int* x) {\n  barrier(CLK_GLOBAL_MEM_FENCE);\n}\nexists (x=0)\n";
    let o = litmus("w.litmus", text);
    assert_eq!(o.barrier_divergence.len(), 1, "{:?}", o.barrier_divergence);
    assert!(
        o.barrier_divergence[0].starts_with("P0 line 5: ")
            && o.barrier_divergence[0].ends_with(", time 2 (P1 reaches it 1 time)"),
        "{:?}",
        o.barrier_divergence
    );
}

#[test]
fn spirv_barrier_in_a_loop_diverges_by_trip_count() {
    // Invocation i runs the loop i + 1 times (one workgroup of two).
    let text = spirv(
        "; @Output: exists (%x[0] == 0)\n; @Config: 2, 1, 1",
        "          %x = OpVariable %ptr_sb StorageBuffer",
        "      %limit = OpIAdd %uint %id0 %uint_1
               OpBranch %head
       %head = OpLabel
          %i = OpPhi %uint %uint_0 %entry %next %body
               OpLoopMerge %end %body None
       %more = OpULessThan %bool %i %limit
               OpBranchConditional %more %body %end
       %body = OpLabel
               OpControlBarrier %uint_2 %uint_2 %uint_72
       %next = OpIAdd %uint %i %uint_1
               OpBranch %head
        %end = OpLabel
               OpReturn",
    );
    let o = litmus("l.spvasm", &text);
    assert_eq!(o.barrier_divergence.len(), 1, "{:?}", o.barrier_divergence);
    assert!(
        o.barrier_divergence[0].contains("OpControlBarrier")
            && o.barrier_divergence[0].ends_with(", time 2 (P0 reaches it 1 time)"),
        "{:?}",
        o.barrier_divergence
    );
}

#[test]
fn alloy_test_barrier_some_thread_never_reaches_is_diagnosed() {
    // The same sentence; a `.test` file is straight-line, so only "some but
    // not all" can happen there. P0 passes barrier 1, P1 (same workgroup)
    // has none. The query's answer does not depend on it.
    let text = "NEWWG\nNEWSG\nNEWTHREAD\nst.atom.scopewg.sc0 x = 1\ncbar.acq.rel.scopewg.semsc0 1\nNEWSG\nNEWTHREAD\nld.atom.scopewg.sc0 x = 0\nSATISFIABLE consistent[X]\n";
    let Ok(Checked::Queries(o)) = Session::new().check_text("d.test", text) else {
        panic!()
    };
    assert!(o.passed());
    assert_eq!(
        o.barrier_divergence,
        ["P0 line 5: cbar.acq.rel.scopewg.semsc0 1 (P1 never reaches it)"]
    );
    // P1 in another workgroup: its own instance, nothing missing.
    let apart = text.replace("NEWSG\nNEWTHREAD\nld", "NEWWG\nNEWSG\nNEWTHREAD\nld");
    let Ok(Checked::Queries(o)) = Session::new().check_text("a.test", &apart) else {
        panic!()
    };
    assert!(
        o.barrier_divergence.is_empty(),
        "{:?}",
        o.barrier_divergence
    );
}

/// The `scbarinst` relation of every skeleton of `text`, as sorted pairs of
/// thread numbers.
fn scbarinst_by_thread(text: &str) -> Vec<Vec<(usize, usize)>> {
    use vkmm::testing::cat::Value;
    use vkmm::testing::engine::{ExecError, Explorer, Limits};
    let p = Session::new().load_text("t.litmus", text).unwrap();
    let ex = Explorer::new(&p, Limits::default()).unwrap();
    let mut out = Vec::new();
    ex.for_each(|sk| -> Result<_, ExecError> {
        let Some(Value::Rel(r)) = sk.static_env.get("scbarinst") else {
            panic!("no scbarinst")
        };
        let mut pairs: Vec<(usize, usize)> = r
            .pairs()
            .map(|(a, b)| (sk.events[a].thread, sk.events[b].thread))
            .collect();
        pairs.sort();
        out.push(pairs);
        Ok(std::ops::ControlFlow::Continue(()))
    })
    .unwrap();
    out.sort();
    out
}

#[test]
fn scbarinst_per_execution_scope_instance_and_completing_set() {
    // Two workgroups: each barrier is its own instance (only `(t, t)`).
    assert_eq!(scbarinst_by_thread(CROSS_WORKGROUP), [vec![(0, 0), (1, 1)]]);
    // Quorum 2 of 3 arrivals: one skeleton per completing set S of 2 or 3
    // arrivals, scbarinst = S x arrivals.
    let all = |s: &[usize]| -> Vec<(usize, usize)> {
        let mut v: Vec<(usize, usize)> = s
            .iter()
            .flat_map(|&a| (0..3).map(move |b| (a, b)))
            .collect();
        v.sort();
        v
    };
    let mut expected = vec![all(&[0, 1]), all(&[0, 2]), all(&[1, 2]), all(&[0, 1, 2])];
    expected.sort();
    assert_eq!(scbarinst_by_thread(&three("1, 1, 2")), expected);
    // Quorum 3: one skeleton, everyone completes it.
    assert_eq!(scbarinst_by_thread(&three("1, 1, 3")), [all(&[0, 1, 2])]);
}

/// Thirteen invocations pass one barrier with a quorum: past the twelve
/// arrivals whose completing sets vkmm enumerates, so the answer is
/// undecided (a state-space limit, exit 3), not an input error.
#[test]
fn too_many_quorum_arrivals_is_an_undecided_answer() {
    let n = 13;
    let header: Vec<String> = (0..n).map(|i| format!("P{i}@sg {i}, wg 0, qf 0")).collect();
    let row: Vec<&str> = (0..n).map(|_| "cbar.acq_rel.wg.semsc0 1, 1, 2").collect();
    let text = format!(
        "VULKAN quorum13\n{{ x=0; }}\n {} ;\n {} ;\nexists (x == 0)\n",
        header.join(" | "),
        row.join(" | ")
    );
    let checked = vkmm::Session::new()
        .check_text("quorum13.litmus", &text)
        .unwrap();
    let vkmm::Checked::Litmus(o) = &checked else {
        panic!("a litmus outcome")
    };
    assert!(!checked.complete());
    assert_eq!(o.condition_holds, None);
    assert_eq!(o.stopped_by, Some(vkmm::LimitKind::QuorumArrivals));
}
