//! Differential tests of commuting RMWs (`Reduction::CommutingRmws`,
//! `--no commuting-rmws`): an integer atomic RMW of a commuting kind whose
//! result nothing reads keeps its read symbolic, and a location whose every
//! access is such an RMW gets one coherence order where nothing
//! synchronises, each candidate counted for the interleavings it stands for
//! (`engine::reduce::commuting_rmws` has the argument).
//!
//! Each fixture is checked by the reference enumeration (`--engine
//! reference`, every reduction off) and by the default search; the final
//! states with their counts, the consistent executions, the condition's
//! verdict and the racing pairs must be the ones derived by hand, in both.
//! Where the order reduction applies the default search evaluates fewer
//! candidates; where a result is read it does not apply.
//!
//! The corpus-wide comparison runs as the `commuting-rmws` row of
//! [`crate::table`].

use crate::common;
use crate::path_drops;

use std::path::Path;
use vkmm::analysis::{Checked, LitmusOutcome};
use vkmm::{Reduction, Reductions, Session};

pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    path_drops::compare_file(Reduction::CommutingRmws, "commuting-rmws", path)
}

pub(crate) use path_drops::skipped;

/// The reference enumeration and the default search on `text`.
fn both(text: &str) -> (LitmusOutcome, LitmusOutcome) {
    let run = |s: Session| common::litmus(s.check_text("t.litmus", text).unwrap());
    (
        run(Session::new().reductions(Reductions::none())),
        run(Session::new()),
    )
}

/// The default search without this reduction alone.
fn without(text: &str) -> LitmusOutcome {
    common::litmus(
        Session::new()
            .reduction(Reduction::CommutingRmws, false)
            .check_text("t.litmus", text)
            .unwrap(),
    )
}

/// The final states as `(state, count)` pairs, in the listing's words.
fn states(o: &LitmusOutcome) -> Vec<String> {
    o.states
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
}

fn races(o: &LitmusOutcome) -> Vec<String> {
    o.races
        .iter()
        .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
        .collect()
}

/// The default search on `text`, once it agrees with the reference.
fn agreed(text: &str) -> LitmusOutcome {
    let (reference, reduced) = both(text);
    agree(&reference, &reduced);
    reduced
}

/// Asserts that the two searches agree and are complete.
fn agree(reference: &LitmusOutcome, reduced: &LitmusOutcome) {
    assert!(!reference.truncated && !reduced.truncated);
    assert_eq!(states(reference), states(reduced));
    assert_eq!(reference.consistent, reduced.consistent);
    assert_eq!(reference.condition_holds, reduced.condition_holds);
    assert_eq!(reference.race_free, reduced.race_free);
    assert_eq!(races(reference), races(reduced));
}

/// Two threads add the constants 1, 2 and 4, 8 to `x`, results unused.
/// By hand: every interleaving of the two program orders is an execution,
/// C(4, 2) = 6, each ending with x = 15; atomics only, no race. The
/// reduction lists one order, evaluated once, counted 6 times.
#[test]
fn constant_adds_onto_one_cell_count_every_interleaving() {
    let text = "VULKAN adds\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 4 ;\n rmw.atom.dv.sc0.add r1, x, 2 | rmw.atom.dv.sc0.add r1, x, 8 ;\nexists (x==15)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 6);
    assert_eq!(reduced.states.len(), 1, "{:?}", reduced.states);
    assert_eq!(reduced.condition_holds, Some(true));
    assert_eq!(reduced.race_free, Some(true));
    assert_eq!(reduced.executions, 1);
    assert!(without(text).executions > 1);
}

/// Id-dependent operands (each thread's initial `r9`, as a shader's
/// invocation id) onto two cells: P0 adds 1 to x, 1 to y, 1 to x; P1 adds
/// 2 to each likewise. By hand: x ends 1 + 1 + 2 + 2 = 6, y ends 3; x's
/// four adds interleave in C(4, 2) = 6 ways, y's two in 2: 12 executions,
/// one state, race-free; one candidate evaluated.
#[test]
fn id_dependent_adds_onto_several_cells() {
    let text = "VULKAN ids\n{ x=0; y=0; P0:r9=1; P1:r9=2; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, r9 | rmw.atom.dv.sc0.add r0, x, r9 ;\n rmw.atom.dv.sc0.add r1, y, r9 | rmw.atom.dv.sc0.add r1, y, r9 ;\n rmw.atom.dv.sc0.add r2, x, r9 | rmw.atom.dv.sc0.add r2, x, r9 ;\nexists (x==6 /\\ y==3)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 12);
    assert_eq!(reduced.states.len(), 1);
    assert_eq!(reduced.condition_holds, Some(true));
    assert_eq!(reduced.executions, 1);
}

/// Three threads, of 2, 1 and 1 adds (and, with xor, one commuting kind
/// of their own on `y`). By hand: x's adds interleave in 4! / (2! 1! 1!)
/// = 12 ways, y's two xors in 2, so 24 executions, x = 1 + 2 + 4 + 8 = 15
/// and y = 3 ^ 5 = 6 in each; one candidate evaluated.
#[test]
fn three_threads_count_the_multinomial() {
    let text = "VULKAN three\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 4 | rmw.atom.dv.sc0.add r0, x, 8 ;\n rmw.atom.dv.sc0.add r1, x, 2 | rmw.atom.dv.sc0.xor r1, y, 3 | rmw.atom.dv.sc0.xor r1, y, 5 ;\nexists (x==15 /\\ y==6)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 24);
    assert_eq!(reduced.states.len(), 1, "{:?}", reduced.states);
    assert_eq!(reduced.condition_holds, Some(true));
    assert_eq!(reduced.executions, 1);
}

/// A later atomic load of `x` in P0: `x` is no longer accessed by such
/// RMWs only, so its orders are all listed; the adds' reads still stay
/// symbolic. By hand, with A = P0's add 1, B = P1's add 2: co A, B lets
/// the load read A (1) or B (3); co B, A leaves it A's write (3,
/// coherence). So r1 = 1 once and r1 = 3 twice, 3 executions.
#[test]
fn a_later_read_in_the_same_thread_keeps_every_order() {
    let text = "VULKAN later-read\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 2 ;\n ld.atom.dv.sc0 r1, x | ;\nexists (P0:r1==1)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 3);
    assert_eq!(reduced.states.len(), 2, "{:?}", reduced.states);
    assert_eq!(reduced.condition_holds, Some(true));
}

/// A release fence in P0 between its two adds: something may synchronise,
/// so no order is left out. By hand: P0's two adds (1, 2) and P1's one
/// (4) interleave in 3 ways, x = 7 in each; race-free.
#[test]
fn a_fence_keeps_every_order() {
    let text = "VULKAN fence\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 4 ;\n membar.dv.semsc0.rel | ;\n rmw.atom.dv.sc0.add r1, x, 2 | ;\nexists (x==7)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 3);
    assert!(reduced.executions >= 3, "{}", reduced.executions);
}

/// A control barrier between the adds of two invocations of one
/// workgroup: it may order them, so no order is left out. By hand: the
/// barrier has no semantics (an execution barrier), so P0's add (1) and
/// P1's add (2) still take either order: 2 executions, x = 3; race-free.
#[test]
fn a_barrier_keeps_every_order() {
    let text = "VULKAN barrier\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n cbar.wg 1 | rmw.atom.dv.sc0.add r0, x, 2 ;\n rmw.atom.dv.sc0.add r0, x, 1 | cbar.wg 1 ;\nexists (x==3)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 2);
    assert!(reduced.executions >= 2, "{}", reduced.executions);
}

/// P0's result is shown (the condition names `P0:r0`): the reduction must
/// not apply. By hand: P0 first reads 0, P1 first leaves it 2: two states,
/// one execution each.
#[test]
fn a_used_result_is_not_reduced() {
    let text = "VULKAN used\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 2 ;\nexists (P0:r0==0)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.consistent, 2);
    assert_eq!(reduced.states.len(), 2, "{:?}", reduced.states);
    let off = without(text);
    assert_eq!(reduced.executions, off.executions);
}

/// The reduced location beside a race elsewhere: plain stores of `z` by
/// both threads race in every execution, and the racing pair is reported
/// as the reference reports it. By hand: x's two adds take either order,
/// and the model orders no plain writes (its `asmo` relates atomics): 2
/// executions, x = 3 in each.
#[test]
fn a_race_elsewhere_is_still_found() {
    let text = "VULKAN race\n{ x=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r0, x, 2 ;\n st.sc0 z, 1 | st.sc0 z, 2 ;\nexists (x==3)\n";
    let reduced = agreed(text);
    assert_eq!(reduced.race_free, Some(false));
    assert_eq!(reduced.consistent, 2);
    assert_eq!(reduced.executions, 1);
}

/// The WGSL fixture (its comment has the derivation): 12 executions, one
/// state, race-free, by the reference and by the default search, the
/// latter evaluating one candidate.
#[test]
fn a_shader_of_id_dependent_adds() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/commuting-rmws/ids.wgsl");
    let run = |s: Session| match s.check_file(&path).unwrap() {
        Checked::Litmus(o) => *o,
        _ => panic!("a listing"),
    };
    let reference = run(Session::new().reductions(Reductions::none()));
    let reduced = run(Session::new());
    agree(&reference, &reduced);
    assert_eq!(reduced.consistent, 12);
    assert_eq!(reduced.states.len(), 1, "{:?}", reduced.states);
    assert_eq!(reduced.race_free, Some(true));
    assert_eq!(reduced.executions, 1);
}
