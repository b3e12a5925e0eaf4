//! The time limit (`--timeout`) is read while a thread's paths are
//! enumerated (`engine::trace`), not only between candidate executions: a
//! path-heavy thread stops at the limit and the answer is undecided,
//! "stopped at the time limit". No timing is asserted: the limit is zero,
//! so the first reading of the clock (after 1024 steps of the walk) stops
//! the walk, whatever the machine's speed.

use crate::common;

use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::Checked;
use vkmm::testing::engine::trace::{ThreadPaths, explore as explore_with};
use vkmm::testing::engine::{ExecError, LimitKind, Limits, PathPlan};

/// Every thread's paths under `limits`, the path stage planned as the
/// search plans it.
fn explore(program: &vkmm::ir::Program, limits: &Limits) -> Result<Vec<ThreadPaths>, ExecError> {
    explore_with(program, limits, PathPlan::of(limits))
}

/// P0 reads `n` locations and branches on each value; P1 writes 1 to each,
/// so every read can return 0 or 1 and P0 has 2^n paths.
fn branchy(n: usize) -> String {
    let init: String = (0..n).map(|i| format!("x{i}=0; ")).collect();
    let mut p0 = Vec::new();
    let mut p1 = Vec::new();
    for i in 0..n {
        p0.push(format!("ld.atom.dv.sc0 r{i}, x{i}"));
        p0.push(format!("beq r{i}, 0, L{i}"));
        p0.push(format!("L{i}:"));
        p1.push(format!("st.atom.dv.sc0 x{i}, 1"));
    }
    common::vulkan_litmus(
        &init,
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 1, qf 0".to_string(),
        ],
        &[p0, p1],
        "exists (P0:r0 == 1)",
    )
}

#[test]
fn path_enumeration_stops_at_the_time_limit() {
    let text = branchy(14);
    let session = Session::new().max_paths(usize::MAX);
    let program = session.load_text("gen.litmus", &text).unwrap();
    // The walk itself: the limit's error, naming the time limit.
    let limits = Limits {
        bounds: vkmm::Bounds {
            timeout: Some(Duration::ZERO),
            max_paths: usize::MAX,
            ..Default::default()
        },
        ..Limits::default()
    };
    let err = explore(&program, &limits).unwrap_err();
    assert_eq!(err.limit, Some(LimitKind::Timeout), "{err}");
    assert!(err.to_string().contains("time limit"), "{err}");
    assert!(err.to_string().contains("paths of thread P0"), "{err}");
    // Without the limit the same walk finishes: 2^14 paths for P0.
    let limits = Limits {
        bounds: vkmm::Bounds {
            max_paths: usize::MAX,
            ..Default::default()
        },
        ..Limits::default()
    };
    let paths = explore(&program, &limits).unwrap();
    assert_eq!(paths[0].paths.len(), 1 << 14);
    // The whole check: undecided, stopped by the time limit, nothing run.
    let Ok(Checked::Litmus(o)) = session
        .timeout(Some(Duration::ZERO))
        .check_text("gen.litmus", &text)
    else {
        panic!("the test checks")
    };
    assert_eq!(o.stopped_by, Some(LimitKind::Timeout));
    assert_eq!(o.condition_holds, None);
    assert_eq!(o.executions, 0);
    let report = vkmm::report::text::litmus(&o);
    assert!(report.contains("time limit"), "{report}");
}

#[test]
fn the_value_domain_rounds_read_the_clock() {
    // Fewer than 1024 steps: the walk of the paths never reads the clock,
    // but the end of each round of the value-domain fixpoint does.
    let text = branchy(2);
    let program = Session::new().load_text("gen.litmus", &text).unwrap();
    let limits = Limits {
        bounds: vkmm::Bounds {
            timeout: Some(Duration::ZERO),
            ..Default::default()
        },
        ..Limits::default()
    };
    let err = explore(&program, &limits).unwrap_err();
    assert_eq!(err.limit, Some(LimitKind::Timeout), "{err}");
    assert!(err.to_string().contains("value domains"), "{err}");
    let paths = explore(&program, &Limits::default()).unwrap();
    assert_eq!(paths[0].paths.len(), 4);
}

/// `path` checked with `--max-writes max_writes`.
fn with_max_writes(path: &std::path::Path, max_writes: usize) -> vkmm::analysis::LitmusOutcome {
    common::litmus(
        Session::new()
            .max_writes(max_writes)
            .check_file(path)
            .unwrap(),
    )
}

/// The order limit counts the steps of listing a location's orders, not
/// its writes, past `--max-writes`: tests/fixtures/litmus-bound/rmw-chain-over-order-limit
/// (five exchanges of one location, mutually ordered: "If A is a write and
/// B is a read-modify-write and B reads the value written by A, then B
/// comes immediately after A in A's scoped modification order", so the
/// values read fix the order and every one of the 5! orders is its own
/// final state). Listing one combination's order tests at most 5 + 4 + 3 +
/// 2 + 1 = 15 prefixes, exactly the steps of every order of 3
/// unconstrained writes (3 + 6 + 6): `--max-writes 3` lists it in full (a
/// count of writes, 5 > 3, or a budget one step short would not), with the
/// answer of the default limit (5 writes, at most 8: every order listed);
/// `--max-writes 2` (4 steps) stops at the order limit and says so.
#[test]
fn the_order_limit_is_a_budget_of_listing_steps() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-bound/rmw-chain-over-order-limit.litmus");
    let run = |max_writes: usize| with_max_writes(&path, max_writes);
    let (three, default) = (run(3), run(8));
    for o in [&three, &default] {
        assert!(!o.truncated, "stopped by {:?}", o.stopped_by);
        assert_eq!(o.states.len(), 120);
        assert_eq!(o.consistent, 120);
        assert_eq!(o.positive, 1);
    }
    assert_eq!(three.states, default.states);
    let two = run(2);
    assert!(two.truncated);
    assert_eq!(two.stopped_by, Some(LimitKind::MaxWrites));
    assert!(two.states.is_empty());
}

/// The order limit counts the steps of listing a location's orders, not
/// its writes (`--max-writes 8`: as many steps as 8 unconstrained writes
/// take): Dat3M's liveness test `CADP/2_threads_3_instructions/107_simple`
/// (two threads storing and exchanging one location in loops: up to 12
/// writes to it at unroll 2, all mutually ordered, most RMWs) was skipped
/// at the limit; RMW atomicity keeps its orders few, and it is listed in
/// full now, with the states that `--max-writes 12` (which counted writes
/// up to 12) gives. Nine unconstrained writes are still skipped
/// (tests/cli/cli.rs, `state_space_limits_are_undecided_answers_not_input_errors`).
#[test]
fn the_order_limit_counts_listing_steps_not_writes() {
    let Some(dir) = common::corpus_or_skip("dat3m-vulkan-liveness/CADP/2_threads_3_instructions")
    else {
        return;
    };
    let path = dir.join("107_simple.litmus");
    let run = |max_writes: usize| with_max_writes(&path, max_writes);
    let (default, twelve) = (run(8), run(12));
    assert!(!default.truncated, "stopped by {:?}", default.stopped_by);
    assert_eq!(default.states, twelve.states);
    assert_eq!(default.consistent, twelve.consistent);
    assert!(default.consistent > 0);
}

/// A thread running `body` (litmus lines) beside P1, which writes 1 to `x`
/// and `y`.
fn looping(body: &[&str]) -> vkmm::ir::Program {
    let text = common::vulkan_litmus(
        "x=0; y=0; z=0;",
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 1, qf 0".to_string(),
        ],
        &[
            body.iter().map(|s| s.to_string()).collect(),
            vec!["st.atom.dv.sc0 x, 1".into(), "st.atom.dv.sc0 y, 1".into()],
        ],
        "exists (P0:r1 == 0)",
    );
    Session::new().load_text("loop.litmus", &text).unwrap()
}

/// P0's paths at unroll 1 with every reduction off (no await dropping its
/// iterations): (complete paths, paths cut, stores on each complete path).
fn p0_paths(program: &vkmm::ir::Program) -> (usize, usize, Vec<usize>) {
    let mut limits = Limits::default().reference();
    limits.bounds.unroll = 1;
    let threads = explore(program, &limits).unwrap();
    let stores = threads[0]
        .paths
        .iter()
        .map(|p| p.events.iter().filter(|e| e.write.is_some()).count())
        .collect();
    (threads[0].paths.len(), threads[0].cut, stores)
}

/// A loop with a constant trip count runs the same in every execution: its
/// four iterations run although the bound allows two, and nothing is cut
/// (counted against the bound, the path would be cut at its third).
#[test]
fn a_counted_loop_runs_free_of_the_unrolling_bound() {
    let program = looping(&[
        "LC00:",
        "st.atom.dv.sc0 z, r1",
        "add r1, r1, 1",
        "bne r1, 4, LC00",
    ]);
    assert_eq!(p0_paths(&program), (1, 0, vec![4]));
}

/// A branch on a value read inside the body of a counted loop decides what
/// one iteration does, not how many run (its two sides meet again before
/// the jump back): still four iterations on every path, one path per
/// choice of the four values read (2^4), nothing cut.
#[test]
fn a_branch_on_memory_inside_a_counted_loop_keeps_it_free() {
    let program = looping(&[
        "LC00:",
        "ld.atom.dv.sc0 r3, y",
        "beq r3, 0, LC02",
        "add r4, r4, 1",
        "LC02:",
        "st.atom.dv.sc0 z, r1",
        "add r1, r1, 1",
        "bne r1, 4, LC00",
    ]);
    let (paths, cut, stores) = p0_paths(&program);
    assert_eq!((paths, cut), (16, 0));
    assert!(stores.iter().all(|&n| n == 4), "{stores:?}");
}

/// A loop whose exit reads memory (a spin on `x`) still counts against the
/// bound: at unroll 1 the paths reading 0 twice are cut, and the complete
/// ones leave after one or two iterations.
#[test]
fn a_loop_waiting_on_memory_counts_against_the_bound() {
    let program = looping(&[
        "LC00:",
        "ld.atom.dv.sc0 r3, x",
        "add r1, r1, 1",
        "bne r3, 1, LC00",
    ]);
    let (paths, cut, _) = p0_paths(&program);
    assert_eq!((paths, cut), (2, 1));
}

/// A counter incremented only on one side of a branch on memory carries
/// the branch's influence (taint through control): a loop bounded by it
/// waits on memory and counts against the bound.
#[test]
fn a_counter_set_under_a_branch_on_memory_counts_against_the_bound() {
    let program = looping(&[
        "LC00:",
        "ld.atom.dv.sc0 r3, x",
        "beq r3, 0, LC02",
        "add r1, r1, 1",
        "LC02:",
        "bne r1, 4, LC00",
    ]);
    let (_, cut, _) = p0_paths(&program);
    assert!(cut > 0, "the loop's iterations were not counted");
}

/// A counted loop inside one side of a branch on memory: the branch decides
/// whether the loop runs, not how often (its counter is set and tested
/// inside the side the path took, whose sides meet again only after the
/// loop). On the side that runs it, four iterations with nothing cut
/// although the bound allows two; on the other, none. Were the counter
/// read as chosen by memory inside the side (taint at the branch, not
/// where the sides meet), the loop would count against the bound and the
/// path would be cut at its third iteration.
#[test]
fn a_counted_loop_under_a_branch_on_memory_runs_free() {
    let program = looping(&[
        "ld.atom.dv.sc0 r3, x",
        "beq r3, 0, LC09",
        "LC00:",
        "st.atom.dv.sc0 z, r1",
        "add r1, r1, 1",
        "bne r1, 4, LC00",
        "LC09:",
    ]);
    let (paths, cut, mut stores) = p0_paths(&program);
    stores.sort_unstable();
    assert_eq!((paths, cut, stores), (2, 0, vec![0, 4]));
}

/// Where the sides of a branch on memory meet again, a register the sides
/// assign holds a value the branch chose: a loop after the meeting point
/// bounded by it (three or four iterations) waits on memory and counts
/// against the bound (two runs at unroll 1: cut). Read as a constant, it
/// would run free and nothing would be cut.
#[test]
fn a_bound_chosen_by_a_branch_on_memory_counts_after_the_sides_meet() {
    let program = looping(&[
        "ld.atom.dv.sc0 r3, x",
        "beq r3, 0, LC08",
        "add r5, r5, 4",
        "goto LC09",
        "LC08:",
        "add r5, r5, 3",
        "LC09:",
        "LC00:",
        "st.atom.dv.sc0 z, r1",
        "add r1, r1, 1",
        "bne r1, r5, LC00",
    ]);
    let (_, cut, _) = p0_paths(&program);
    assert!(cut > 0, "the loop's iterations were not counted");
}

/// A look-back loop (P0 spins on `f` while it reads 0, copies P1's first
/// value, 1, into r5 and looks again, leaves on 2; r9 counts iterations and
/// nothing reads it) is not an await as a whole, but an iteration that
/// reads what the iteration before it read leaves every live register as
/// it found them and is dropped: the listing is complete at unroll 1. By
/// hand: P0 reads f's writes in coherence order (0, then 1, then 2), so r5
/// is 1 when it saw P1's first write and 0 when it read 2 first; both
/// happen. With the reductions off the loop is unrolled and cut.
#[test]
fn an_iteration_that_repeats_the_one_before_is_dropped_not_cut() {
    let text = "VULKAN look-back\n{ f=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n LC00: | st.atom.rel.dv.sc0.semsc0 f, 1 ;\n ld.atom.acq.dv.sc0.semsc0 r0, f | st.atom.rel.dv.sc0.semsc0 f, 2 ;\n add r9, r9, 1 | ;\n beq r0, 2, LC01 | ;\n beq r0, 0, LC00 | ;\n add r5, r0, 0 | ;\n goto LC00 | ;\n LC01: | ;\nexists (P0:r5 == 1)\n";
    let run = |session: vkmm::Session| match session.unroll(1).check_text("t.litmus", text) {
        Ok(vkmm::Checked::Litmus(o)) => *o,
        other => panic!("{other:?}"),
    };
    let o = run(vkmm::Session::new());
    assert!(!o.truncated && o.cut_paths == 0, "cut: {}", o.cut_paths);
    assert_eq!(o.states.len(), 2, "r5 is 0 or 1");
    assert_eq!(o.condition_holds, Some(true), "r5 == 1 is reachable");
    let reference = run(vkmm::Session::new().reductions(vkmm::Reductions::none()));
    assert!(
        reference.cut_paths > 0,
        "the unrolled loop is cut at the bound"
    );
}

/// P0 sets r0 (5, or 20) and dispatches on it through nine tests `beq r0,
/// k, LCk` for k = 0..7 and again for 5 (a chain the executor jumps
/// through at once when r0 is known and not from memory). Hand
/// derivation, as the statements run one by one: with r0 = 5 the first
/// test that holds is the sixth (k = 5), whose target stores 15 to `z`;
/// the ninth test (5 again, target storing 99) is never reached. With r0 =
/// 20 no test holds and the path falls through to the store of 7 to `z`.
#[test]
fn a_dispatch_chain_lands_on_the_first_test_that_holds() {
    let body = |r0: i64| {
        let mut lines = vec![format!("add r0, r0, {r0}"), "add r1, r1, 0".into()];
        lines.extend((0..8).map(|k| format!("beq r0, {k}, LC{:02}", 10 + k)));
        lines.push("beq r0, 5, LC20".into());
        lines.push("st.atom.dv.sc0 z, 7".into());
        lines.push("goto LC30".into());
        for k in 0..8 {
            lines.push(format!("LC{:02}:", 10 + k));
            lines.push(format!("st.atom.dv.sc0 z, {}", 10 + k));
            lines.push("goto LC30".into());
        }
        lines.push("LC20:".into());
        lines.push("st.atom.dv.sc0 z, 99".into());
        lines.push("LC30:".into());
        lines
    };
    for (r0, stored) in [(5, 15), (20, 7)] {
        let lines = body(r0);
        let program = looping(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        let limits = Limits::default();
        let threads =
            vkmm::testing::engine::trace::explore(&program, &limits, PathPlan::of(&limits))
                .unwrap();
        let written: Vec<Vec<i64>> = threads[0]
            .paths
            .iter()
            .map(|p| p.events.iter().filter_map(|e| e.write).collect())
            .collect();
        assert_eq!(written, vec![vec![stored]], "r0 = {r0}");
    }
}
