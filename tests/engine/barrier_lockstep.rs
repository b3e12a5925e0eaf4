//! A loop tied by a control barrier to another invocation's loop that
//! ends (`engine::trace::lockstep`): the paths the unrolling bound cuts
//! after passing a barrier that the other member never reaches lose no
//! execution (the invocation waits there forever), so the answer is
//! complete; a cut path still within the other member's reach, or beside
//! a member whose own paths are cut, stays cut and the answer says so.

use crate::common;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};

/// The spinning invocation: reads `flag` between two workgroup barriers
/// until it is not 0.
fn spinner() -> Vec<String> {
    [
        "LC00:",
        "cbar.acq_rel.wg.semsc0 0",
        "ld.atom.wg.sc0 r0, flag",
        "cbar.acq_rel.wg.semsc0 1",
        "beq r0, 0, LC00",
    ]
    .map(String::from)
    .to_vec()
}

/// P0 spins on `flag` with two workgroup barriers per iteration; P1, in
/// the same workgroup, counts to `n` through the same two barriers and
/// stores `flag = 1` in its last iteration, before the first barrier.
/// `extra`: P1 first waits for `go`, which P2 (another workgroup) sets,
/// storing to `junk` in each iteration of that wait (so that the wait is
/// no await and the bound cuts P1's paths too).
fn lockstep(n: usize, extra: bool) -> String {
    let p0 = spinner();
    let mut p1: Vec<String> = Vec::new();
    if extra {
        for l in [
            "LW:",
            "ld.atom.dv.sc0 r3, go",
            "st.atom.wg.sc0 junk, 1",
            "beq r3, 0, LW",
        ] {
            p1.push(l.to_string());
        }
    }
    for l in [
        "LC01:".to_string(),
        "add r2, r2, 1".to_string(),
        format!("bne r2, {n}, LS"),
        "st.atom.wg.sc0 flag, 1".to_string(),
        "LS:".to_string(),
        "cbar.acq_rel.wg.semsc0 0".to_string(),
        "cbar.acq_rel.wg.semsc0 1".to_string(),
        format!("bne r2, {n}, LC01"),
    ] {
        p1.push(l);
    }
    let mut header = vec![
        "P0@sg 0, wg 0, qf 0".to_string(),
        "P1@sg 0, wg 0, qf 0".to_string(),
    ];
    let mut code = vec![p0, p1];
    if extra {
        header.push("P2@sg 0, wg 1, qf 0".to_string());
        code.push(vec!["st.atom.dv.sc0 go, 1".to_string()]);
    }
    common::vulkan_litmus(
        "flag=0; go=0; junk=0; P1:r2=0;",
        &header,
        &code,
        "exists (P0:r0 == 1)",
    )
}

fn check(text: &str, unroll: Option<usize>) -> LitmusOutcome {
    let mut s = Session::new();
    if let Some(u) = unroll {
        s = s.unroll(u);
    }
    match s.check_text("lockstep.litmus", text) {
        Ok(Checked::Litmus(o)) => *o,
        other => panic!("{text}\n{other:?}"),
    }
}

/// P1 passes each barrier `n` times on its only path and stores 1 after
/// its `n-1`-th pass of barrier 1, so P0's `n`-th read, after the `n`-th
/// pass of barrier 0 (acquire, synchronising with P1's release there),
/// reads 1 and its earlier reads, each before a pass P1 makes before its
/// store, read 0: every execution without barrier divergence has P0
/// leave after exactly `n` iterations with r0 = 1. P0's path that reads 0
/// `n` times goes round an `n+1`-th time, which no execution does; the
/// bound (2: three runs of the head) cuts P0's spin after 3 iterations.
/// With n = 1 and n = 2 the cut path has passed barrier 0 three times,
/// more than P1 ever does: the answer is complete, the condition always
/// holds and no data race.
#[test]
fn a_spin_tied_to_a_loop_that_ends_is_decided_at_the_default_bound() {
    for n in [1, 2] {
        let text = lockstep(n, false);
        let o = check(&text, None);
        assert_eq!(o.cut_paths, 0, "n = {n}:\n{text}\n{o:?}");
        assert!(o.complete(), "n = {n}: {o:?}");
        assert_eq!(o.condition_holds, Some(true), "n = {n}");
        assert_eq!(o.negative, 0, "n = {n}");
        assert!(o.positive > 0, "n = {n}");
        assert_eq!(o.race_free, Some(true), "n = {n}: {:?}", o.races);
    }
}

/// With n = 3, the bound of 1 cuts P0 at its loop's head after 2 passes
/// of each barrier; going on, it arrives at barrier 0 a third time with
/// no event before it, and P1 makes that pass too: P0 may still go on, so
/// the cut stays and the answer is bounded. At `--unroll 2` the cut comes
/// after 3 passes, and P0's next arrival at barrier 0, its fourth, is one
/// more than P1 makes: complete again (before arrivals counted, the
/// passes alone were compared and this took `--unroll 3`).
#[test]
fn a_cut_within_the_other_members_reach_stays_cut() {
    let text = lockstep(3, false);
    let o = check(&text, Some(1));
    assert_eq!(o.cut_paths, 1, "{text}\n{o:?}");
    assert!(!o.complete());
    for unroll in [2, 3] {
        let o = check(&text, Some(unroll));
        assert_eq!(o.cut_paths, 0, "unroll {unroll}: {o:?}");
        assert!(o.complete());
        assert_eq!(o.condition_holds, Some(true));
        assert_eq!(o.negative, 0);
    }
}

/// P1 first spins on `go`, which P2 (another workgroup) writes: P1's own
/// paths are cut at the bound, so how often P1 passes the barriers is not
/// known and P0's cut path stays cut (P0's and P1's: 2).
#[test]
fn a_member_whose_paths_are_cut_bounds_nothing() {
    let text = lockstep(1, true);
    let o = check(&text, None);
    assert_eq!(o.cut_paths, 2, "{text}\n{o:?}");
    assert!(!o.complete());
}

/// The termination question, with a worker that has no loop: P1 stores
/// `flag = 1` and passes barriers 0 and 1 once. P0's spin passes them once
/// per iteration; its paths that read 0 go round again and are cut, at
/// unroll 1 after two passes of barrier 0, which P1 never makes: those
/// cuts are discharged (P0 waits at the second pass forever, and that
/// blocked path is listed). Under FAIR, P1 runs, so P0's first read after
/// barrier 0 (acquire, synchronising with P1's release) reads 1: every
/// execution ends, a complete "terminates" (before the rule: "within the
/// bound" at every unroll, main's binary says so at unroll 2). Under HSA
/// the same: P0 waiting at barrier 0 is not schedulable (a blocked
/// invocation holds no progress, docs/termination.md), so P1, the lowest
/// unfinished invocation that can run, is scheduled fairly and runs.
#[test]
fn the_termination_question_counts_discharged_cuts_as_complete() {
    let text = common::vulkan_litmus(
        "flag=0;",
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 0, qf 0".to_string(),
        ],
        &[
            spinner(),
            [
                "st.atom.wg.sc0 flag, 1",
                "cbar.acq_rel.wg.semsc0 0",
                "cbar.acq_rel.wg.semsc0 1",
            ]
            .map(String::from)
            .to_vec(),
        ],
        "exists (P0:r0 == 1)",
    );
    use vkmm::analysis::termination::Verdict;
    let run = |progress: &str| {
        let s = Session::new().termination(Some(progress.parse().unwrap()));
        match s.check_text("lockstep.litmus", &text) {
            Ok(Checked::Termination(o)) => o,
            other => panic!("{text}\n{other:?}"),
        }
    };
    let fair = run("FAIR");
    assert_eq!(fair.verdict, Verdict::Terminates, "{text}\n{fair:?}");
    assert_eq!(fair.cut_paths, 0, "{fair:?}");
    assert!(fair.complete());
    let hsa = run("HSA");
    assert_eq!(hsa.verdict, Verdict::Terminates, "{hsa:?}");
    assert!(hsa.complete(), "{hsa:?}");
}

/// The termination question with the counting worker of [`lockstep`]
/// (n = 2): P1's loop passes the barriers twice and ends, so its paths are
/// all its behaviours (none cut; its stuck paths, where its loop jumps
/// back, go on to its end). The search deepens the bound from 0: P0's
/// cut paths stop at its loop's head, from where the next statement is
/// barrier 0, so they arrive there once more than they passed it: a
/// second time at unroll 0 (P1 reaches it: cut), a third time at unroll 1
/// (P1 never does: discharged, and P0's path blocked there is listed).
/// Under FAIR every execution ends (P0 reads 1 in its second iteration,
/// after P1's store and release at its second pass of barrier 0): a
/// complete "terminates" at unroll 1, not one within the bound.
#[test]
fn a_counting_worker_bounds_the_spin_in_the_termination_question() {
    use vkmm::analysis::termination::Verdict;
    let text = lockstep(2, false);
    let s = Session::new().termination(Some("FAIR".parse().unwrap()));
    let o = match s.check_text("lockstep.litmus", &text) {
        Ok(Checked::Termination(o)) => o,
        other => panic!("{text}\n{other:?}"),
    };
    assert_eq!(o.verdict, Verdict::Terminates, "{text}\n{o:?}");
    assert_eq!(o.cut_paths, 0, "{o:?}");
    assert_eq!(o.unroll, 1, "{o:?}");
}
