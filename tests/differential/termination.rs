//! Differential test of the termination search's shortcuts
//! (`Reduction::TerminationShortcuts`: iterative deepening over the unrolling
//! bound, and coherence orders that memory fairness rules out never
//! listed) against the reference search (one search at the bound, every
//! order listed).
//!
//! Deepening is sound because a witness found with fewer loop iterations
//! is a witness whatever the bound; the order constraint because the
//! visitor refuses every order it rules out anyway (a suffix write
//! coherence-before a prefix write). So where both answers are decided
//! they agree, and a witness of the reference is matched by one of the
//! shortcut search. Compared: the liveness corpus (every fourth file under
//! FAIR, OBE and HSA at unroll 1 and 2), and generated exchange loops.

use crate::common;

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use vkmm::Session;
use vkmm::analysis::Checked;
use vkmm::analysis::termination::{Progress, TerminationOutcome, Verdict};

fn run(
    shortcuts: bool,
    progress: &str,
    unroll: usize,
    f: &dyn Fn(&Session) -> Checked,
) -> TerminationOutcome {
    let s = Session::new()
        .max_executions(20_000)
        .unroll(unroll)
        .reduction(vkmm::Reduction::TerminationShortcuts, shortcuts)
        .termination(Some(progress.parse::<Progress>().unwrap()));
    match f(&s) {
        Checked::Termination(o) => *o,
        other => panic!("{other:?}"),
    }
}

/// The disagreements between the reference and the shortcut answers.
pub(crate) fn compare(
    name: &str,
    reference: &TerminationOutcome,
    fast: &TerminationOutcome,
) -> Option<String> {
    let bad = match (reference.verdict, fast.verdict) {
        // A witness is a witness: the shortcut search must find one too,
        // unless a limit stopped it first (an undecided answer, never
        // "terminates": a limit below the bound asked for leaves the
        // answer undecided).
        (Verdict::NonTerminating, v) => v == Verdict::Terminates,
        // No witness within the bound: none at a smaller one either.
        (Verdict::Terminates, v) => {
            v == Verdict::NonTerminating || (!reference.truncated && v == Verdict::Undecided)
        }
        (Verdict::Undecided, _) => false,
    };
    bad.then(|| {
        format!(
            "{name}: reference {:?} (unroll {}), shortcuts {:?} (unroll {})",
            reference.verdict, reference.unroll, fast.verdict, fast.unroll
        )
    })
}

pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for progress in ["FAIR", "OBE", "HSA"] {
        for unroll in [1, 2] {
            let check = |s: &Session| s.check_file(path).unwrap();
            let (a, b) = (
                run(false, progress, unroll, &check),
                run(true, progress, unroll, &check),
            );
            out.extend(compare(
                &format!("{} {progress} u{unroll}", path.display()),
                &a,
                &b,
            ));
        }
    }
    out
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn liveness_corpus() {
    let Some(dir) = common::corpus("dat3m-vulkan-liveness") else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-vulkan-liveness is missing");
        return;
    };
    let mut files = Vec::new();
    common::litmus_files_below(&dir, &|_| false, &mut files);
    assert!(files.len() > 300);
    let sample: Vec<PathBuf> = files.into_iter().step_by(4).collect();
    let diffs = common::on_two_threads(&sample, &compare_file);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Deepening finds the shallowest witness; when a deeper bound is stopped
/// by a limit, the answer is that of the deepest bound searched to the end.
#[test]
fn deepening_reports_the_bound_it_decided_at() {
    let Some(dir) = common::corpus("dat3m-vulkan-liveness") else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-vulkan-liveness is missing");
        return;
    };
    // Two exchange loops that can feed each other forever: a witness needs
    // one iteration of each to repeat (bound 1).
    let livelock = dir.join("CADP/2_threads_4_instructions/58_simple.litmus");
    let check = |s: &Session| s.check_file(&livelock).unwrap();
    let fast = run(true, "FAIR", 2, &check);
    assert_eq!(fast.verdict, Verdict::NonTerminating);
    assert_eq!(fast.unroll, 1, "the witness of the shallowest bound");
    assert_eq!(fast.max_unroll, 2, "the bound asked for");
    let text = vkmm::report::text::termination(&fast);
    assert!(text.contains("decided at unroll 1 of 2"), "{text}");
    let reference = run(false, "FAIR", 2, &check);
    assert_eq!(reference.verdict, Verdict::NonTerminating);
    assert_eq!(reference.unroll, 2);
    // Two exchange loops that terminate (Dat3M: 1 under FAIR). At bound 3
    // a path combination has more than 8 writes to one location
    // (--max-writes). Before the order limit was a budget of listing steps
    // its combinations were skipped and the answer was bound 1's; with the
    // budget, bound 3 was stopped and the answer bound 2's; with
    // write-write coherence (each thread's writes to the location in
    // program order) their orders are listed within the budget: the search
    // reaches bound 3, which still cuts paths, "terminates within unroll 3".
    let capped = dir.join("CADP/2_threads_4_instructions/122_simple.litmus");
    let check = |s: &Session| s.check_file(&capped).unwrap();
    let fast = run(true, "FAIR", 3, &check);
    assert_eq!(fast.verdict, Verdict::Terminates);
    assert!(fast.bounded() && !fast.complete());
    assert_eq!(fast.unroll, 3);
    assert_eq!(fast.searched_within, None);
    let text = vkmm::report::text::termination(&fast);
    assert!(text.contains("within unroll 3"), "{text}");
    // The search without the shortcuts, at bound 3 alone, agrees.
    let reference = run(false, "FAIR", 3, &check);
    assert_eq!(reference.verdict, Verdict::Terminates);
    assert_eq!(reference.unroll, 3);
}

// ------------------------------------------------------------ generated programs

/// One thread: a loop of one or two exchanges of `m`, leaving when the
/// first exchange reads `exit` (the CADP shape).
#[derive(Clone, Debug)]
struct Spinner {
    wg: usize,
    swaps: Vec<i64>,
    exit: i64,
    dv: bool,
}

fn spinner() -> impl Strategy<Value = Spinner> {
    (
        0..2usize,
        prop::collection::vec(0..3i64, 1..3),
        0..3i64,
        any::<bool>(),
    )
        .prop_map(|(wg, swaps, exit, dv)| Spinner {
            wg,
            swaps,
            exit,
            dv,
        })
}

fn program_text(threads: &[Spinner]) -> String {
    let header: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| format!("P{i}@sg {i}, wg {}, qf 0", t.wg))
        .collect();
    let code: Vec<Vec<String>> = threads
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let sc = if t.dv { "dv" } else { "wg" };
            let mut c = vec![format!("LC{i}0:")];
            for (k, v) in t.swaps.iter().enumerate() {
                c.push(format!("rmw.atom.{sc}.sc0 r{k}, m, {v}"));
            }
            c.push(format!("beq r0, {}, LC{i}1", t.exit));
            c.push(format!("goto LC{i}0"));
            c.push(format!("LC{i}1:"));
            c
        })
        .collect();
    common::vulkan_litmus("m=0;", &header, &code, "exists (0 == 0)")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::common::cases(48), failure_persistence: crate::common::regressions("differential-termination"), ..ProptestConfig::default() })]
    #[test]
    fn generated_exchange_loops_agree(threads in prop::collection::vec(spinner(), 2..4), progress in 0..3usize) {
        let text = program_text(&threads);
        let progress = ["FAIR", "OBE", "HSA"][progress];
        let check = |s: &Session| s.check_text("gen.litmus", &text).unwrap();
        let (a, b) = (run(false, progress, 2, &check), run(true, progress, 2, &check));
        let diff = compare(&format!("{progress}\n{text}"), &a, &b);
        prop_assert!(diff.is_none(), "{}", diff.unwrap_or_default());
    }
}
