//! Subgroup operations (docs/format-spirv.md, "Subgroup operations"): the
//! `OpGroupNonUniform*` instructions and the kernels' `OpGroup*` on small
//! subgroups, divergence (who takes part is the tangle), reconvergence at
//! merge blocks and under `MaximallyReconvergesKHR`, and a look-back across
//! workgroups. Every fixture under tests/fixtures/subgroup/ carries its expected
//! results, derived by hand in its header comment, as its `@Output`
//! condition.

use crate::common;
use common::glslang;

use std::path::{Path, PathBuf};
use vkmm::analysis::LitmusOutcome;
use vkmm::frontend::ShaderOptions;
use vkmm::{Checked, Error, Session};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/subgroup")
        .join(name)
}

fn outcome(session: &Session, name: &str) -> LitmusOutcome {
    match session.check_file(fixture(name)) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{name}: {other:?}"),
    }
}

fn outcome_text(name: &str, text: &str) -> LitmusOutcome {
    match Session::new().check_text(name, text) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{name}: {other:?}"),
    }
}

/// The fixture's `forall` condition holds: every execution gives the
/// hand-derived results, and there is at least one execution.
fn always(name: &str) {
    let o = outcome(&Session::new(), name);
    assert_eq!(o.condition_holds, Some(true), "{name}: {:?}", o.states);
    assert!(o.positive > 0, "{name}: no execution");
    assert_eq!(o.race_free, Some(true), "{name}: {:?}", o.races);
}

#[test]
fn reduce_and_scans_of_iadd() {
    // 1 << id over four ids: reduce 15; inclusive 1, 3, 7, 15; exclusive
    // 0, 1, 3, 7 (scan.spvasm).
    always("scan.spvasm");
}

#[test]
fn float_operations_in_a_fixed_order() {
    if !glslang() {
        return;
    }
    // subgroupAdd of {2^24, 1, -2^24, 1} is 1 in ascending-id order (2 in
    // another); Mul 6; Min/Max skip a NaN: -2, 5; broadcast, clustered,
    // quad swap and shuffle of floats (the float-*.comp headers).
    always("float-add.comp");
    always("float-minmax.comp");
    always("float-lanes.comp");
}

#[test]
fn a_continue_target_reconverges_only_under_maximal_reconvergence() {
    if !glslang() {
        return;
    }
    // Invocation 0 `continue`s from inside an `if`: without the execution
    // mode it adds alone at the continue target (1, the others 14) ...
    always("continue-plain.comp");
    // ... with MaximallyReconvergesKHR all four add together: 15.
    always("continue-maximal.spvasm");
}

#[test]
fn kernel_float_group_operations() {
    // OpGroupFAdd Reduce 8, InclusiveScan (doubled) 1, 4, 9, 16; OpGroupFMin
    // per subgroup (doubled) 1, 5.
    always("kernel-group-fadd.spvasm");
}

#[test]
fn the_other_integer_operations() {
    // IMul 64, UMin 1, SMax 8; Or exclusive 0, 1, 3, 7; Xor inclusive
    // 1, 3, 7, 15; clustered IAdd over pairs 3, 3, 12, 12.
    always("arith-mul.spvasm");
    always("arith-bits.spvasm");
}

#[test]
fn ballot_and_its_bit_queries() {
    // Ballot of "id is odd" = 0b1010; counts 2 / 0, 1, 1, 2 / 0, 0, 1, 1;
    // LSB 1, MSB 3; InverseBallot 0, 1, 0, 1; bit 3 set.
    always("ballot.spvasm");
}

#[test]
fn shuffles_broadcasts_and_quads() {
    always("shuffle.spvasm");
    always("broadcast.spvasm");
}

#[test]
fn elect_and_votes() {
    always("vote-elect.spvasm");
    always("vote-equal.spvasm");
}

#[test]
fn kernel_group_instructions_take_the_whole_scope_instance() {
    // Workgroup reduce 10 and exclusive scan 0, 1, 3, 6 over local ids
    // + 1; All of "even" per subgroup of two: 0.
    always("kernel-group-iadd.spvasm");
}

#[test]
fn only_the_invocations_in_a_branch_take_part_and_they_reconverge_after_it() {
    if !glslang() {
        return;
    }
    // Inside `if (id < 2)`: subgroupAdd(1 << id) = 3 (not 15),
    // subgroupExclusiveAdd 0, 1, subgroupBallot(true).x = 3,
    // subgroupElect only for id 0; after the merge block: 15 and 0b1010.
    always("half.comp");
}

#[test]
fn loop_iterations_are_different_dynamic_instances() {
    if !glslang() {
        return;
    }
    // Ids 2 and 3 skip the subgroupAdd in iteration 0: they meet ids 0
    // and 1 in iteration 1 (15), not ids 0 and 1's first arrival (3).
    always("loop-skip.comp");
}

#[test]
fn a_call_is_a_reconvergence_point_only_under_maximal_reconvergence() {
    if !glslang() {
        return;
    }
    // Without the execution mode, id 0 returns early from the callee and
    // SPIR-V does not promise it rejoins the others: it adds alone (1),
    // the others 14, and `forall (all 15)` fails.
    let o = outcome(&Session::new(), "call-return.comp");
    assert_eq!(o.condition_holds, Some(false), "{:?}", o.states);
    assert!(o.positive == 0 && o.negative > 0);
    // The same module under MaximallyReconvergesKHR: 15 for each.
    always("call-return-maximal.spvasm");
}

#[test]
fn a_subgroup_reduce_published_to_another_workgroup() {
    if !glslang() {
        return;
    }
    // Workgroup 1 sees either nothing (5, 11) or workgroup 0's aggregate
    // 3 (8, 14), race-free through the release/acquire flag; both happen.
    always("lookback.comp");
    let o = outcome(&Session::new(), "lookback.comp");
    assert_eq!(o.states.len(), 2, "{:?}", o.states);
    // Relaxed flag accesses: the aggregate's plain write and read race.
    let text = std::fs::read_to_string(fixture("lookback.comp")).unwrap();
    let relaxed = text
        .replace("gl_SemanticsRelease", "gl_SemanticsRelaxed")
        .replace("gl_SemanticsAcquire", "gl_SemanticsRelaxed");
    let o = outcome_text("lookback-relaxed.comp", &relaxed);
    assert_eq!(o.race_free, Some(false));
}

#[test]
fn subgroup_size_option_regroups_the_workgroup() {
    // `--subgroup-size 2` on scan.spvasm: two subgroups of two, whose
    // local ids are 0, 1, 0, 1; each reduce sums 1 + 2 = 3, and both
    // subgroups store at indices 0 and 1 (their local ids).
    let text = std::fs::read_to_string(fixture("scan.spvasm")).unwrap();
    let output = text
        .lines()
        .find(|l| l.starts_with("; @Output"))
        .unwrap()
        .to_string();
    let text = text.replace(
        &output,
        "; @Output: forall (%red[0][0] == 3 and %red[0][1] == 3 and %exc[0][0] == 0 and %exc[0][1] == 1)",
    );
    let session = Session::new().shader(ShaderOptions {
        subgroup_size: Some(2),
        ..ShaderOptions::default()
    });
    match session.check_text("scan2.spvasm", &text) {
        Ok(Checked::Litmus(o)) => assert_eq!(o.condition_holds, Some(true), "{:?}", o.states),
        other => panic!("{other:?}"),
    }
    // Without the option the grid's subgroup of four gives 15.
    let o = outcome_text("scan4.spvasm", &text);
    assert_eq!(o.condition_holds, Some(false));
    // A size that does not divide the workgroup is an error.
    let session = Session::new().shader(ShaderOptions {
        subgroup_size: Some(3),
        ..ShaderOptions::default()
    });
    let e = session.check_text("scan3.spvasm", &text).unwrap_err();
    assert!(e.to_string().contains("--subgroup-size 3"), "{e}");
}

/// scan.spvasm with its first group instruction replaced by `line`, and
/// the declarations `extra` after its constants.
fn with_instruction(line: &str, extra: &str) -> String {
    let text = std::fs::read_to_string(fixture("scan.spvasm")).unwrap();
    text.replace(
        "%r = OpGroupNonUniformIAdd %uint %sg Reduce %one",
        &format!("%r = {line}"),
    )
    .replace(
        "%sg = OpConstant %uint 3\n",
        &format!("%sg = OpConstant %uint 3\n{extra}"),
    )
}

fn input_error(text: &str) -> String {
    match Session::new().load_text("bad.spvasm", text) {
        Err(e @ Error::Input(_)) => e.to_string(),
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn unsupported_forms_are_errors_naming_the_instruction_and_line() {
    // An operation vkmm does not model (SPV_NV_shader_subgroup_partitioned's
    // PartitionedReduceNV) is refused naming the instruction and its line.
    let text = with_instruction(
        "OpGroupNonUniformFAdd %uint %sg PartitionedReduceNV %one %one",
        "",
    );
    let line = text
        .lines()
        .position(|l| l.contains("OpGroupNonUniformFAdd"))
        .unwrap()
        + 1;
    let e = input_error(&text);
    assert!(
        e.contains("OpGroupNonUniformFAdd")
            && e.contains("PartitionedReduceNV is not modelled")
            && e.contains(&format!(":{line}:")),
        "{e}"
    );
    // A Device execution scope is not a group's.
    let text = with_instruction(
        "OpGroupNonUniformIAdd %uint %dev Reduce %one",
        "%dev = OpConstant %uint 1\n",
    );
    let e = input_error(&text);
    assert!(e.contains("Execution scope is Device"), "{e}");
    // A cluster size that is not a power of two.
    let text = with_instruction(
        "OpGroupNonUniformIAdd %uint %sg ClusteredReduce %one %c3",
        "",
    );
    let e = input_error(&text);
    assert!(e.contains("ClusterSize is 3"), "{e}");
}

/// `n` inclusive scans in a row over one subgroup of four, each feeding
/// the next (`v = subgroupInclusiveAdd(v) + 1`), from v = id + 1.
fn scan_chain(n: usize) -> String {
    let body: String = (0..n)
        .map(|_| "    v = subgroupInclusiveAdd(v) + 1u;\n")
        .collect();
    // By hand, lane by lane (inclusive prefix sums, then + 1):
    // v0 = 1, 2, 3, 4; v1 = 2, 4, 7, 11; v2 = 3, 7, 14, 25;
    // v3 = 4, 11, 25, 50; v4 = 5, 16, 41, 91; v5 = 6, 22, 63, 154;
    // v6 = 7, 29, 92, 246.
    let expected = [
        [1, 2, 3, 4],
        [2, 4, 7, 11],
        [3, 7, 14, 25],
        [4, 11, 25, 50],
        [5, 16, 41, 91],
        [6, 22, 63, 154],
        [7, 29, 92, 246],
    ][n];
    let cond: Vec<String> = expected
        .iter()
        .enumerate()
        .map(|(i, v)| format!("%o[0][{i}] == {v}"))
        .collect();
    format!(
        "#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// @Config: 4, 1, 1
// @Output: forall ({})
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Out {{ uint r[4]; }} o;
void main() {{
    uint i = gl_SubgroupInvocationID;
    uint v = i + 1u;
{body}    o.r[i] = v;
}}
",
        cond.join(" and ")
    )
}

#[test]
fn chained_subgroup_operations_cost_one_path_each() {
    if !glslang() {
        return;
    }
    use vkmm::testing::engine::Limits;
    // Every invocation contributes one known value to each scan, so each
    // result is one value: one path per invocation however many scans
    // follow one another. (Ranging each result over the sums of every
    // subset of the contributions, and the next scan over those, doubled
    // the paths at least per scan: three scans ran past 16 paths.)
    let session = Session::new();
    let limits = Limits {
        bounds: vkmm::Bounds {
            max_paths: 16,
            ..Default::default()
        },
        ..Limits::default()
    };
    for n in 1..=6 {
        let text = scan_chain(n);
        let name = format!("chain{n}.comp");
        let program = session.load_text(&name, &text).unwrap();
        let threads = vkmm::testing::engine::trace::explore(
            &program,
            &limits,
            vkmm::testing::engine::PathPlan::of(&limits),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(threads.len(), 4, "{name}");
        for (t, tp) in threads.iter().enumerate() {
            assert_eq!(tp.paths.len(), 1, "{name}: P{t}");
        }
        // And the values are the hand-derived ones, in every execution.
        let o = outcome_text(&name, &text);
        assert_eq!(o.condition_holds, Some(true), "{name}: {:?}", o.states);
        assert!(o.positive > 0, "{name}");
    }
}
