//! Cut paths discharged because they passed a barrier that another member
//! never reaches (`engine::trace::lockstep`), against two oracles on
//! generated programs: the reference enumeration (the same executor, no
//! reduction) and the same program with the spinning loop bounded by a
//! counter, checked at a bound that cuts nothing (so nothing is
//! discharged either). A discharged path must lose no execution: the
//! answers agree, states with counts and races.

use proptest::prelude::*;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};

/// Where P0 reads `x` in its loop: nowhere, between the two barriers, or
/// after the second one (racing with P1's write of the next iteration).
#[derive(Clone, Copy, Debug)]
enum Read {
    None,
    Between,
    After,
}

/// The program: P0 spins on `flag` through barriers 0 and 1; P1 counts to
/// `n` through the same barriers, writes `x` (plain) before barrier 0 when
/// `write`, and stores `flag = 1` in its last iteration. `bound`: P0 also
/// leaves after that many iterations (counter `c`).
fn program(n: usize, write: bool, read: Read, bound: Option<usize>) -> String {
    program_with(n, write, read, bound, false)
}

/// [`program`], with P0's loop reading `y` (which nothing writes) before
/// barrier 0 when `event_first`: from the loop's head P0 then makes an
/// event before it arrives at the barrier.
fn program_with(
    n: usize,
    write: bool,
    read: Read,
    bound: Option<usize>,
    event_first: bool,
) -> String {
    let mut p0 = vec!["LC00:".to_string()];
    if event_first {
        p0.push("ld.atom.wg.sc0 r7, y".to_string());
    }
    p0.push("cbar.acq_rel.wg.semsc0 0".to_string());
    if let Read::Between = read {
        p0.push("ld.sc0 r5, x".to_string());
    }
    p0.push("ld.atom.wg.sc0 r0, flag".to_string());
    p0.push("cbar.acq_rel.wg.semsc0 1".to_string());
    if let Read::After = read {
        p0.push("ld.sc0 r5, x".to_string());
    }
    if let Some(k) = bound {
        p0.push("add r6, r6, 1".to_string());
        p0.push(format!("beq r6, {k}, LE"));
    }
    p0.push("beq r0, 0, LC00".to_string());
    p0.push("LE:".to_string());
    let mut p1 = vec!["LC01:".to_string(), "add r2, r2, 1".to_string()];
    if write {
        p1.push("st.sc0 x, r2".to_string());
    }
    p1.extend([
        format!("bne r2, {n}, LS"),
        "st.atom.wg.sc0 flag, 1".to_string(),
        "LS:".to_string(),
        "cbar.acq_rel.wg.semsc0 0".to_string(),
        "cbar.acq_rel.wg.semsc0 1".to_string(),
        format!("bne r2, {n}, LC01"),
    ]);
    crate::common::vulkan_litmus(
        "flag=0; x=0; y=0; P0:r5=0; P0:r6=0; P0:r7=0; P1:r2=0;",
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 0, qf 0".to_string(),
        ],
        &[p0, p1],
        "exists (P0:r0 == 1 /\\ P0:r5 == 0)",
    )
}

fn check(text: &str, unroll: usize, reference: bool) -> LitmusOutcome {
    let mut s = Session::new().unroll(unroll);
    if reference {
        s = s.reductions(vkmm::Reductions::none());
    }
    match s.check_text("lockstep.litmus", text) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{text}\n{other:?}"),
    }
}

/// What must agree: the verdict, the counts of executions satisfying the
/// condition and not, and the race verdict.
fn answer(o: &LitmusOutcome) -> (Option<bool>, u64, u64, Option<bool>, bool) {
    (
        o.condition_holds,
        o.positive,
        o.negative,
        o.race_free,
        o.complete(),
    )
}

fn read() -> impl Strategy<Value = Read> {
    prop_oneof![Just(Read::None), Just(Read::Between), Just(Read::After)]
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(48), failure_persistence: crate::common::regressions("differential-lockstep"), ..ProptestConfig::default() })]

    /// The spin's cut path at `--unroll n` has passed the barriers `n+1`
    /// times, one more than P1: discharged, so the answer is complete.
    /// Bounded at `n+1` iterations instead, P0's loop is cut nowhere at
    /// `--unroll n+1` (its exit by the counter adds only executions in
    /// which it read 0 after P1's store synchronised with it: inconsistent).
    #[test]
    fn discharged_cuts_lose_no_execution(n in 1usize..=3, write: bool, read in read()) {
        let text = program(n, write, read, None);
        let unroll = n.max(1);
        let search = check(&text, unroll, false);
        prop_assert_eq!(search.cut_paths, 0, "{}\n{:?}", text, search);
        prop_assert!(search.positive > 0, "{}\n{:?}", text, search);
        let reference = check(&text, unroll, true);
        prop_assert_eq!(answer(&search), answer(&reference), "{}", text);
        let bounded_text = program(n, write, read, Some(n + 1));
        let bounded = check(&bounded_text, n + 1, true);
        prop_assert_eq!(bounded.cut_paths, 0, "{}", bounded_text);
        prop_assert_eq!(answer(&search), answer(&bounded), "{}\n{}", text, bounded_text);
    }

    /// One bound lower, `--unroll n-1`: the spin's cut path has passed the
    /// barriers `n` times, as often as P1, and stops at its loop's head,
    /// from where its next statement is barrier 0: that arrival, its
    /// `n+1`-th, is one more than P1 makes, so the path is discharged and
    /// the answer is the bounded program's. With an event between the
    /// head and the barrier (a read of `y`) the arrival is not certain
    /// without it: the cut stays.
    #[test]
    fn an_arrival_after_the_cut_loses_no_execution(n in 1usize..=3, write: bool, read in read()) {
        let text = program(n, write, read, None);
        let search = check(&text, n - 1, false);
        prop_assert_eq!(search.cut_paths, 0, "{}\n{:?}", text, search);
        let reference = check(&text, n - 1, true);
        prop_assert_eq!(answer(&search), answer(&reference), "{}", text);
        let bounded_text = program(n, write, read, Some(n + 1));
        let bounded = check(&bounded_text, n + 1, true);
        prop_assert_eq!(answer(&search), answer(&bounded), "{}\n{}", text, bounded_text);
        let eventful = program_with(n, write, read, None, true);
        let cut = check(&eventful, n - 1, false);
        prop_assert!(cut.cut_paths > 0, "{}\n{:?}", eventful, cut);
    }
}
