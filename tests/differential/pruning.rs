//! Differential tests of the two early prunings of the walk (issue 11):
//!
//! - **path pruning** (`Reduction::PathPruning`, `Session::path_pruning`):
//!   combinations of thread paths chosen thread by thread, a partial
//!   combination dropped as soon as a value one of its reads needs cannot be
//!   written by anyone left. It changes the walk to the combinations, not
//!   which combinations reach the search nor their order, so with and
//!   without it the searches must be identical: the same states with the
//!   same counts, the same numbers of executions, partial evaluations and
//!   consistent executions, the same races, the same `.test` answers.
//! - **order pruning** (`Reduction::OrderPruning`): under each combination of
//!   coherence orders, the checks monotone in `rf` asked once with only the
//!   forced reads assigned. It skips inconsistent candidates only, so the
//!   answers must be identical — states with their counts (the counts are
//!   consistent executions), verdicts, races, consistent executions, `.test`
//!   answers — while the numbers of candidates and partial evaluations may
//!   differ (that is its point: `order_pruning_skips_a_wrong_order_once`
//!   pins that it does skip some).
//!
//! Compared on the repository's own tests, the examples, and the
//! dat3m-vulkan, khronos-alloy and dat3m-opencl corpora (the xf-barrier
//! tests are left out: seconds each at the execution limit).
//!
//! The corpus-wide comparison runs as the `path-pruning` and `order-pruning` rows of [`crate::table`].

use crate::common;

use std::path::Path;
use vkmm::Session;

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// The session of the path-pruning row (`table`): order pruning off, path
/// pruning `on` or off.
pub(crate) fn path_session(on: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::OrderPruning, false)
        .reduction(vkmm::Reduction::PathPruning, on)
}

/// The search summary without the numbers of candidates and partial
/// evaluations (the order pruning changes those, and only those); `None`
/// for a truncated search.
fn answers(c: &vkmm::analysis::Checked) -> Option<String> {
    common::answers_of(c, false)
}

/// The order-pruning row's comparison (`table`): the same answers
/// ([`answers`]) without and with it.
pub(crate) fn compare_orders(p: &Path) -> Vec<String> {
    let session = |on: bool| {
        Session::new()
            .max_executions(MAX_EXECUTIONS)
            .reduction(vkmm::Reduction::OrderPruning, on)
    };
    common::differing_answers(
        p,
        ("without", "with"),
        (session(false).check_file(p), session(true).check_file(p)),
        &answers,
    )
}

/// `tests/fixtures/litmus-vulkan/order-pruning.litmus`: two orders of `x`, the
/// wrong one refuted by a forced read (P1 writes x = 2 after reading P0's
/// x = 1), nine candidates under each. Same answer, fewer candidates; a
/// mutation that never prunes at that point fails here.
#[test]
fn order_pruning_skips_a_wrong_order_once() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/order-pruning.litmus");
    let run = |on: bool| {
        common::litmus(
            Session::new()
                .reduction(vkmm::Reduction::OrderPruning, on)
                .check_file(&path)
                .unwrap(),
        )
    };
    let (without, with) = (run(false), run(true));
    assert_eq!(without.states, with.states);
    assert_eq!(with.condition_holds, Some(true));
    assert_eq!(with.race_free, Some(true));
    assert_eq!(without.consistent, with.consistent);
    assert_eq!(
        (without.executions, without.partial_evaluations),
        (40, 0),
        "without"
    );
    assert!(
        with.executions + with.partial_evaluations < 40,
        "with {} + {}",
        with.executions,
        with.partial_evaluations
    );
}

/// The model's declared read-write coherence (`read-write-coherence` in
/// models/vulkan-rules.cat, model::profile): in
/// `tests/fixtures/litmus-scaling/ticketlock-3.litmus` each await reads the one
/// store of its ticket to `serving` and is program-ordered before its
/// thread's own store there, so with the order pruning no order of
/// `serving` putting that own store first is listed. The same answers as
/// without the order pruning (above); 48 partial evaluations, where
/// checking each order of `serving` once with the forced reads took 84 (a
/// mutation that lists every order fails here).
#[test]
fn read_write_coherence_lists_fewer_orders() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-scaling/ticketlock-3.litmus");
    let run = |on: bool| {
        common::litmus(
            Session::new()
                .reduction(vkmm::Reduction::OrderPruning, on)
                .check_file(&path)
                .unwrap(),
        )
    };
    let (without, with) = (run(false), run(true));
    assert_eq!(without.states, with.states);
    assert_eq!(without.consistent, with.consistent);
    assert_eq!(with.condition_holds, Some(true));
    assert_eq!(with.race_free, Some(true));
    assert!(
        with.partial_evaluations < 84,
        "{} partial evaluations",
        with.partial_evaluations
    );
}

/// The model's declared write-write coherence (`write-write-coherence` in
/// models/vulkan-rules.cat, model::profile): two invocations in different
/// workgroups each store twice to `x` with device-scope atomic stores
/// (mutually ordered). The appendix: location order holds when "AX == AY
/// and RX == RY and X -> Y", and "no cycles exist in the union of ...
/// location-ordered, scoped modification order ..., reads-from,
/// from-reads": each invocation's first store is location-ordered before
/// its second, so `asmo` puts it first. Of the 4! = 24 orders of the four
/// stores, 24 / (2 * 2) = 6 are consistent; the last store is a second one
/// (x == 2 or x == 4, three executions each) and never a first one
/// (`exists (x == 1)` is false). With the order pruning only those 6 orders
/// are listed (a mutation that lists every order evaluates 24).
#[test]
fn write_write_coherence_lists_fewer_orders() {
    let text = "VULKAN ww\n{ x=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n\
        st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 3 ;\n\
        st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 4 ;\n\
        exists (x == 1)\n";
    let run = |on: bool| {
        common::litmus(
            Session::new()
                .reduction(vkmm::Reduction::OrderPruning, on)
                .check_text("ww.litmus", text)
                .unwrap(),
        )
    };
    let (without, with) = (run(false), run(true));
    assert_eq!(without.states, with.states);
    let states: Vec<String> = with
        .states
        .iter()
        .map(|(s, n)| format!("{s:?} {n}"))
        .collect();
    assert_eq!(
        states,
        ["[(\"x\", 2)] 3", "[(\"x\", 4)] 3"],
        "{:?}",
        with.states
    );
    assert_eq!(with.consistent, 6);
    assert_eq!(without.consistent, 6);
    assert_eq!(with.condition_holds, Some(false));
    assert_eq!(without.executions, 24, "without");
    assert_eq!(
        with.executions + with.partial_evaluations,
        6,
        "with {} + {}",
        with.executions,
        with.partial_evaluations
    );
}
