//! Differential tests of the termination search's shortcuts
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
//!
//! And of witness pruning (`Reduction::WitnessPruning`): stuck paths whose
//! loop cannot repeat, and partial combinations whose control barriers
//! cannot agree, are never combined. It drops only combinations the search
//! refuses anyway, so with it and without it the answers are the same:
//! verdict, the bound decided at, the cut paths. Compared: the liveness
//! corpus (the same sample), and generated exchange loops with control
//! barriers before, inside and after them.

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
    run_with(
        vkmm::Reduction::TerminationShortcuts,
        shortcuts,
        progress,
        unroll,
        f,
    )
}

/// The termination check under `progress` at `unroll` with `reduction`
/// on or off (the others on).
fn run_with(
    reduction: vkmm::Reduction,
    on: bool,
    progress: &str,
    unroll: usize,
    f: &dyn Fn(&Session) -> Checked,
) -> TerminationOutcome {
    termination(&session(progress, unroll).reduction(reduction, on), f)
}

/// The session the termination checks here run in: `progress`, `unroll`,
/// at most 20,000 executions.
fn session(progress: &str, unroll: usize) -> Session {
    Session::new()
        .max_executions(20_000)
        .unroll(unroll)
        .termination(Some(progress.parse::<Progress>().unwrap()))
}

/// The termination outcome `f` gives in `s`.
fn termination(s: &Session, f: &dyn Fn(&Session) -> Checked) -> TerminationOutcome {
    match f(s) {
        Checked::Termination(o) => *o,
        other => panic!("{other:?}"),
    }
}

/// The termination check of the file at `path` under `progress` at
/// `unroll` with exactly `reductions` on (none: the reference).
fn run_file(
    path: &Path,
    reductions: vkmm::Reductions,
    progress: &str,
    unroll: usize,
) -> TerminationOutcome {
    run_reductions(reductions, progress, unroll, &|s| {
        s.check_file(path).unwrap()
    })
}

/// The termination check `f` runs under `progress` at `unroll` with
/// exactly `reductions` on.
fn run_reductions(
    reductions: vkmm::Reductions,
    progress: &str,
    unroll: usize,
    f: &dyn Fn(&Session) -> Checked,
) -> TerminationOutcome {
    termination(&session(progress, unroll).reductions(reductions), f)
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

/// The disagreements between the search without witness pruning and with
/// it: where the search without it is decided, the search with it decides
/// the same at the same bound, with no more evaluations (it walks the same
/// blocks in the same order, less combinations the search refuses
/// unevaluated, so it is not stopped where the other is not).
pub(crate) fn compare_pruning(
    name: &str,
    plain: &TerminationOutcome,
    pruned: &TerminationOutcome,
) -> Option<String> {
    let evaluations = |o: &TerminationOutcome| o.executions + o.partial_evaluations;
    let same = plain.truncated
        || (plain.verdict == pruned.verdict
            && plain.unroll == pruned.unroll
            && plain.cut_paths == pruned.cut_paths
            && plain.witness.is_some() == pruned.witness.is_some()
            && evaluations(pruned) <= evaluations(plain));
    (!same).then(|| {
        format!(
            "{name}: without pruning {:?} (unroll {}, {} cut, {} evaluations), with {:?} (unroll {}, {} cut, {} evaluations)",
            plain.verdict,
            plain.unroll,
            plain.cut_paths,
            evaluations(plain),
            pruned.verdict,
            pruned.unroll,
            pruned.cut_paths,
            evaluations(pruned)
        )
    })
}

pub(crate) fn compare_pruning_file(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for progress in ["FAIR", "OBE", "HSA"] {
        for unroll in [1, 2] {
            let check = |s: &Session| s.check_file(path).unwrap();
            let witness = vkmm::Reduction::WitnessPruning;
            let (a, b) = (
                run_with(witness, false, progress, unroll, &check),
                run_with(witness, true, progress, unroll, &check),
            );
            out.extend(compare_pruning(
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
fn liveness_corpus_with_and_without_witness_pruning() {
    let Some(dir) = common::corpus("dat3m-vulkan-liveness") else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-vulkan-liveness is missing");
        return;
    };
    let mut files = Vec::new();
    common::litmus_files_below(&dir, &|_| false, &mut files);
    assert!(files.len() > 300);
    let sample: Vec<PathBuf> = files.into_iter().step_by(4).collect();
    let diffs = common::on_two_threads(&sample, &compare_pruning_file);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The quick tier's sample of the liveness corpus for witness pruning
/// (every 24th file).
#[test]
fn liveness_sample_with_and_without_witness_pruning() {
    let Some(dir) = common::corpus("dat3m-vulkan-liveness") else {
        eprintln!("SKIPPED: ../shared/corpus/dat3m-vulkan-liveness is missing");
        return;
    };
    let mut files = Vec::new();
    common::litmus_files_below(&dir, &|_| false, &mut files);
    let sample: Vec<PathBuf> = files.into_iter().step_by(24).collect();
    assert!(sample.len() >= 12, "{} files", sample.len());
    let diffs = common::on_two_threads(&sample, &compare_pruning_file);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn liveness_corpus() {
    let Some(dir) = common::corpus_or_skip("dat3m-vulkan-liveness") else {
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
    let Some(dir) = common::corpus_or_skip("dat3m-vulkan-liveness") else {
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
    // (P1 only reads `Mem0`, so P0's exchanges read P0's latest write
    // there: with the latest-own-write filter P0 has one path, which leaves
    // its loop in the second iteration. The paths and orders above are
    // those of the search without it.)
    let capped = dir.join("CADP/2_threads_4_instructions/122_simple.litmus");
    let unfiltered = vkmm::Reductions::all().without(vkmm::Reduction::OwnWriteFilter);
    let fast = run_file(&capped, unfiltered, "FAIR", 3);
    assert_eq!(fast.verdict, Verdict::Terminates);
    assert!(fast.bounded() && !fast.complete());
    assert_eq!(fast.unroll, 3);
    assert_eq!(fast.searched_within, None);
    let text = vkmm::report::text::termination(&fast);
    assert!(text.contains("within unroll 3"), "{text}");
    // The search without the shortcuts, at bound 3 alone, agrees.
    let plain = unfiltered.without(vkmm::Reduction::TerminationShortcuts);
    let reference = run_file(&capped, plain, "FAIR", 3);
    assert_eq!(reference.verdict, Verdict::Terminates);
    assert_eq!(reference.unroll, 3);
    // With the filter: complete at bound 1, the first with no path cut.
    let filtered = run_file(&capped, vkmm::Reductions::all(), "FAIR", 3);
    assert_eq!(filtered.verdict, Verdict::Terminates);
    assert!(filtered.complete(), "{filtered:?}");
    assert_eq!(filtered.unroll, 1);
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

/// Where a thread meets control barriers (`cbar.wg N`, instance N) around
/// its exchange loop: before it, at the top of its body, after it.
#[derive(Clone, Debug)]
struct Barriers {
    before: bool,
    inside: bool,
    after: bool,
}

fn barriers() -> impl Strategy<Value = Barriers> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(before, inside, after)| Barriers {
        before,
        inside,
        after,
    })
}

/// [`program_text`] with control barriers around each thread's loop.
fn program_with_barriers(threads: &[(Spinner, Barriers)]) -> String {
    let header: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(i, (t, _))| format!("P{i}@sg {i}, wg {}, qf 0", t.wg))
        .collect();
    let code: Vec<Vec<String>> = threads
        .iter()
        .enumerate()
        .map(|(i, (t, b))| {
            let sc = if t.dv { "dv" } else { "wg" };
            let mut c = Vec::new();
            if b.before {
                c.push("cbar.wg 0".to_string());
            }
            c.push(format!("LC{i}0:"));
            if b.inside {
                c.push("cbar.wg 1".to_string());
            }
            for (k, v) in t.swaps.iter().enumerate() {
                c.push(format!("rmw.atom.{sc}.sc0 r{k}, m, {v}"));
            }
            c.push(format!("beq r0, {}, LC{i}1", t.exit));
            c.push(format!("goto LC{i}0"));
            c.push(format!("LC{i}1:"));
            if b.after {
                c.push("cbar.wg 2".to_string());
            }
            c
        })
        .collect();
    common::vulkan_litmus("m=0;", &header, &code, "exists (0 == 0)")
}

/// Found by hand: P0 passes a barrier with P1, then waits for `x == 1`,
/// which nothing writes; P1 passes the barrier and finishes. Under FAIR
/// the execution where both pass the barrier and P0 spins forever reading
/// the initial 0 (nothing writes `x`: memory fairness holds) is a witness,
/// so the pruned walk must keep the combination in which both pass the
/// barrier. A P1 that never reaches the barrier (its other paths: none
/// here) would leave P0 blocked, also non-terminating; with P1 finishing,
/// the only witnesses are those where both pass.
#[test]
fn a_spin_after_a_barrier_both_pass_is_a_witness_with_pruning() {
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n cbar.wg 0 | cbar.wg 0 ;\n LC00: | ;\n ld.atom.wg.sc0 r0, x | ;\n bne r0, 1, LC00 | ;\nexists (0 == 0)\n";
    let check = |s: &Session| s.check_text("spin.litmus", text).unwrap();
    for on in [false, true] {
        let o = run_with(vkmm::Reduction::WitnessPruning, on, "FAIR", 1, &check);
        assert_eq!(o.verdict, Verdict::NonTerminating, "pruning {on}");
        let w = o.witness.expect("a witness");
        assert_eq!(w.threads[0].fate, "stuck", "pruning {on}: {w:?}");
        assert_eq!(w.threads[1].fate, "finished", "pruning {on}: {w:?}");
    }
}

/// Found by hand: the same P0, and a P1 that writes `x = 1` before the
/// barrier. Every execution passes the barrier with both (P0 cannot pass
/// it alone, and P1 reaches it), so P0's spin then reads 1 (the only
/// write, coherence-maximal: memory fairness) and leaves: no witness under
/// FAIR; P0 blocked at the barrier needs P1 stopped before it, which FAIR
/// does not allow. Terminates, completely (the spin loop is an await).
#[test]
fn a_spin_on_a_flag_written_before_the_barrier_terminates_with_pruning() {
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n cbar.wg 0 | st.atom.wg.sc0 x, 1 ;\n LC00: | cbar.wg 0 ;\n ld.atom.wg.sc0 r0, x | ;\n bne r0, 1, LC00 | ;\nexists (0 == 0)\n";
    let check = |s: &Session| s.check_text("flag.litmus", text).unwrap();
    for on in [false, true] {
        let o = run_with(vkmm::Reduction::WitnessPruning, on, "FAIR", 1, &check);
        assert_eq!(o.verdict, Verdict::Terminates, "pruning {on}");
        assert!(o.complete(), "pruning {on}: {} cut", o.cut_paths);
    }
}

/// tests/fixtures/termination/pruned-block-order.litmus (its verdict
/// derived in the file): NON-TERMINATING at unroll 1 under FAIR, with P1
/// blocked at barrier 2 and P0 and P2 spinning. With witness pruning the
/// search walks its blocks of endings in the order of the search without
/// it (their combinations counted unpruned), so within the 20,000
/// evaluations of [`session`] it finds the witness as the plain search
/// does, with no more evaluations; ordered by their pruned sizes, the
/// block with all three stuck came first and spent the evaluations.
#[test]
fn witness_pruning_keeps_the_order_of_the_blocks_of_endings() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/termination/pruned-block-order.litmus");
    let check = |s: &Session| s.check_file(&path).unwrap();
    let witness = vkmm::Reduction::WitnessPruning;
    let (plain, pruned) = (
        run_with(witness, false, "FAIR", 2, &check),
        run_with(witness, true, "FAIR", 2, &check),
    );
    for (name, o) in [("plain", &plain), ("pruned", &pruned)] {
        assert_eq!(o.verdict, Verdict::NonTerminating, "{name}: {o:?}");
        assert_eq!(o.unroll, 1, "{name}");
        let w = o.witness.as_ref().expect("a witness");
        let fates: Vec<&str> = w.threads.iter().map(|t| t.fate.as_str()).collect();
        assert_eq!(
            fates,
            ["stuck", "blocked at a barrier", "stuck"],
            "{name}: {w:?}"
        );
    }
    let evaluations = |o: &TerminationOutcome| o.executions + o.partial_evaluations;
    assert!(
        evaluations(&pruned) <= evaluations(&plain),
        "pruned {} evaluations, plain {}",
        evaluations(&pruned),
        evaluations(&plain)
    );
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(48), failure_persistence: crate::common::regressions("differential-termination-pruning"), ..ProptestConfig::default() })]
    #[test]
    fn generated_loops_with_barriers_agree_with_and_without_pruning(
        threads in prop::collection::vec((spinner(), barriers()), 2..4),
        progress in 0..3usize,
        unroll in 0..3usize,
    ) {
        let text = program_with_barriers(&threads);
        let progress = ["FAIR", "OBE", "HSA"][progress];
        let check = |s: &Session| s.check_text("gen.litmus", &text).unwrap();
        let witness = vkmm::Reduction::WitnessPruning;
        let (a, b) = (
            run_with(witness, false, progress, unroll, &check),
            run_with(witness, true, progress, unroll, &check),
        );
        let diff = compare_pruning(&format!("{progress} u{unroll}\n{text}"), &a, &b);
        prop_assert!(diff.is_none(), "{}", diff.unwrap_or_default());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(48), failure_persistence: crate::common::regressions("differential-termination"), ..ProptestConfig::default() })]
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

/// tests/fixtures/wgsl/look-back-subgroup.wgsl (its verdicts derived in
/// the file) under the search and under the reference enumeration (every
/// reduction off): the search drops the spinning iteration of the look-back
/// as a repetition of the one before it and finds the witness at unroll 0;
/// the reference matches the suffix with an infix, one bound later (at
/// unroll 0 its "terminates" holds only within the bound). From unroll 1,
/// where both decide they agree, and the reference's witnesses are the
/// search's.
#[test]
fn look_back_beside_a_subgroup_operation_against_the_reference() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wgsl/look-back-subgroup.wgsl");
    let mut diffs = Vec::new();
    for progress in ["FAIR", "OBE", "HSA"] {
        for unroll in [0, 1, 2] {
            let of = |reductions| run_file(&path, reductions, progress, unroll);
            let reference = of(vkmm::Reductions::none());
            let search = of(vkmm::Reductions::default());
            if unroll >= 1 && progress != "FAIR" {
                assert_eq!(
                    reference.verdict,
                    Verdict::NonTerminating,
                    "{progress} u{unroll}"
                );
            }
            if unroll == 0 {
                // One iteration: the reference has no infix to match, so
                // its "terminates" is only within the bound.
                if search.verdict == Verdict::NonTerminating {
                    assert!(
                        reference.verdict == Verdict::NonTerminating || !reference.complete(),
                        "{progress} u0: {reference:?}"
                    );
                }
                continue;
            }
            diffs.extend(compare(
                &format!("look-back-subgroup {progress} u{unroll}"),
                &reference,
                &search,
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// tests/fixtures/wgsl/bounded-spin.wgsl and reset-spin.wgsl (their
/// verdicts derived in the files) under the search and under the reference
/// enumeration (every reduction off): both walk the paths with the same
/// executor, whose counter loops leave the iterations that advance the
/// counter uncounted, and agree at every bound.
#[test]
fn counter_bounded_spins_against_the_reference() {
    let mut diffs = Vec::new();
    for name in ["bounded-spin.wgsl", "reset-spin.wgsl"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/wgsl")
            .join(name);
        for progress in ["FAIR", "OBE", "HSA"] {
            for unroll in [0, 1, 2] {
                let of = |reductions| run_file(&path, reductions, progress, unroll);
                let reference = of(vkmm::Reductions::none());
                let search = of(vkmm::Reductions::default());
                assert!(
                    reference.complete(),
                    "{name} {progress} u{unroll}: {reference:?}"
                );
                diffs.extend(compare(
                    &format!("{name} {progress} u{unroll}"),
                    &reference,
                    &search,
                ));
            }
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

// ------------------------------------------------- the own-write filter

/// The termination check of `text` under `progress` at `unroll` with
/// `reductions` on.
fn run_text(
    text: &str,
    reductions: vkmm::Reductions,
    progress: &str,
    unroll: usize,
) -> TerminationOutcome {
    run_reductions(reductions, progress, unroll, &|s| {
        s.check_text("own.litmus", text).unwrap()
    })
}

/// The search's reductions without the latest-own-write filter.
fn without_own_write_filter() -> vkmm::Reductions {
    vkmm::Reductions::all().without(vkmm::Reduction::OwnWriteFilter)
}

/// P0 stores 1 to `x`, which no other thread writes, then loops reading
/// `x` (and storing `y`, so the loop is no spin the walk runs as an await)
/// until it reads `exit`.
///
/// `exit` = 1, derived by hand: the read's only writes are the initial 0
/// and P0's own store of 1, program-ordered before it; reading 0
/// from-reads that store, which is location-ordered before the read (a
/// cycle), so every execution reads 1 in the first iteration and ends:
/// TERMINATES under every progress model. The filter gives the read that
/// one value, so no path loops and the answer is complete at every bound;
/// without it the paths reading 0 loop until the bound cuts them (their
/// stuck endings are inconsistent, so no witness either way): TERMINATES
/// WITHIN THE BOUND.
///
/// `exit` = 2, which nothing writes: the read reads P0's own 1 in every
/// iteration (the cycle above rules out the initial 0), so the loop never
/// ends; its iterations repeat one another (the same statements, values
/// and registers, the read reading the coherence-maximal write of `x`):
/// NON-TERMINATING under every progress model (P0 is the only thread),
/// from unroll 1 (one iteration to match the repeating one; the loop
/// stores, so it is no await).
fn own_loop(exit: i64) -> String {
    format!(
        "VULKAN own-loop
{{ x=0; y=0; }}
 P0@sg 0, wg 0, qf 0 ;
 st.atom.wg.sc0 x, 1 ;
 LC00: ;
 ld.atom.wg.sc0 r0, x ;
 st.atom.wg.sc0 y, 1 ;
 bne r0, {exit}, LC00 ;
exists (0 == 0)
"
    )
}

/// P0 stores 1 to its own `x` and meets P1 at a workgroup barrier only
/// when it reads 1 back. Derived by hand: P0 reads 1 (reading 0 closes
/// the cycle above), so both pass the barrier and finish: TERMINATES
/// under FAIR and OBE (both threads start and run fairly), complete.
/// Without the filter P0 also has the path reading 0, on which it skips
/// the barrier and P1 waits there forever: a witness's shape, refused
/// because its execution is inconsistent. Under HSA P1 need not be
/// scheduled (P0, the lowest id, ends first; then P1 is the lowest
/// unfinished one and runs fairly too), so the answer is the same.
const OWN_BARRIER: &str = "VULKAN own-barrier
{ x=0; }
 P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;
 st.atom.wg.sc0 x, 1 | cbar.wg 0 ;
 ld.atom.wg.sc0 r0, x | ;
 bne r0, 1, LC00 | ;
 cbar.wg 0 | ;
 LC00: | ;
exists (0 == 0)
";

/// The latest-own-write filter while endings are listed: on the three
/// fixtures above the search with the filter, the search without it and
/// the reference enumeration (every reduction off) give the verdicts
/// derived by hand, and the filter is not idle (a loop it decides
/// completely, fewer candidates evaluated).
#[test]
fn own_write_filter_in_termination_against_the_reference() {
    let mut diffs = Vec::new();
    for progress in ["FAIR", "OBE", "HSA"] {
        for unroll in [0, 1, 2] {
            let name = |f: &str| format!("{f} {progress} u{unroll}");
            let of = |text: &str, reductions| run_text(text, reductions, progress, unroll);
            let all = vkmm::Reductions::default;

            let search = of(&own_loop(1), all());
            assert_eq!(search.verdict, Verdict::Terminates, "{}", name("own-loop"));
            assert!(search.complete(), "{}: {search:?}", name("own-loop"));
            let unfiltered = of(&own_loop(1), without_own_write_filter());
            assert_eq!(
                unfiltered.verdict,
                Verdict::Terminates,
                "{}",
                name("own-loop")
            );
            assert!(
                unfiltered.cut_paths > 0 && !unfiltered.complete(),
                "{}: {unfiltered:?}",
                name("own-loop")
            );
            let reference = of(&own_loop(1), vkmm::Reductions::none());
            diffs.extend(compare(&name("own-loop"), &reference, &search));

            let search = of(&own_loop(2), all());
            let reference = of(&own_loop(2), vkmm::Reductions::none());
            if unroll >= 1 {
                assert_eq!(
                    search.verdict,
                    Verdict::NonTerminating,
                    "{}",
                    name("own-loop-forever")
                );
                assert_eq!(
                    reference.verdict,
                    Verdict::NonTerminating,
                    "{}",
                    name("own-loop-forever")
                );
            }
            diffs.extend(compare(&name("own-loop-forever"), &reference, &search));

            let search = of(OWN_BARRIER, all());
            assert_eq!(
                search.verdict,
                Verdict::Terminates,
                "{}",
                name("own-barrier")
            );
            assert!(search.complete(), "{}: {search:?}", name("own-barrier"));
            let unfiltered = of(OWN_BARRIER, without_own_write_filter());
            assert_eq!(
                unfiltered.verdict,
                Verdict::Terminates,
                "{}",
                name("own-barrier")
            );
            assert!(
                search.executions < unfiltered.executions,
                "{}: {} candidates with the filter, {} without",
                name("own-barrier"),
                search.executions,
                unfiltered.executions
            );
            let reference = of(OWN_BARRIER, vkmm::Reductions::none());
            assert_eq!(
                reference.verdict,
                Verdict::Terminates,
                "{}",
                name("own-barrier")
            );
            diffs.extend(compare(&name("own-barrier"), &reference, &search));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// How many skeletons the pruned walk over `block` (one list of paths per
/// thread) yields.
fn skeletons_in(ex: &vkmm::testing::engine::Explorer, block: Vec<Vec<usize>>) -> usize {
    let mut n = 0;
    ex.for_each_in(
        &[block],
        |_| -> Result<_, vkmm::testing::engine::ExecError> {
            n += 1;
            Ok(std::ops::ControlFlow::Continue(()))
        },
    )
    .unwrap();
    n
}

/// The program of the two dead-workgroup tests below: P0 and P1 form
/// workgroup 0, P2 and P3 workgroup 1, each tied by barrier 0; P0 goes
/// on to store `v` only when it reads the `y == 1` that P1's path
/// reading `z == 1` writes.
fn dead_workgroup_program() -> vkmm::ir::Program {
    let text = "VULKAN t\n{ y=0; z=0; v=0; w=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 | P2@sg 2, wg 1, qf 0 | P3@sg 3, wg 1, qf 0 ;\n cbar.wg 0 | cbar.wg 0 | cbar.wg 0 | cbar.wg 0 ;\n ld.atom.dv.sc0 r0, y | ld.atom.dv.sc0 r1, z | ld.atom.dv.sc0 r2, z | st.atom.dv.sc0 z, 1 ;\n bne r0, 1, E0 | bne r1, 1, E1 | bne r2, 1, E2 | ;\n st.atom.dv.sc0 v, 1 | st.atom.dv.sc0 y, 1 | st.atom.dv.sc0 w, 1 | ;\n E0: | E1: | E2: | ;\nexists (0 == 0)\n";
    Session::new().load_text("t.litmus", text).unwrap()
}

/// The number of events of each path of each thread, in the explorer's
/// order.
fn path_lengths(ex: &vkmm::testing::engine::Explorer) -> Vec<Vec<usize>> {
    ex.threads
        .iter()
        .map(|t| t.paths.iter().map(|p| p.events.len()).collect())
        .collect()
}

/// The indices of a thread's paths of `n` events (`lengths` from
/// [`path_lengths`]).
fn paths_of_length(lengths: &[usize], n: usize) -> Vec<usize> {
    (0..lengths.len()).filter(|&i| lengths[i] == n).collect()
}

/// The pruned walk over a block of paths skips the block whole when the
/// threads one workgroup's barriers tie together have no combination of
/// their paths whose barriers agree (`Explorer::ranges_agree`). P0 and
/// P1 share workgroup 0 and barrier 0; P1 skips it when it reads
/// `x == 1`; P2, in workgroup 1, writes `x` and has no barrier. In the
/// block where P1 takes the path that skips the barrier, P0 passes it
/// without P1 (every path of P0 passes it): no combination agrees, so the
/// walk visits no skeleton and no partial combination. Derived by hand:
/// without the range check the walk chooses P2's path and P1's before
/// P0's refutes each. The block with every path still yields the
/// combinations in which P1 passes the barrier.
#[test]
fn a_workgroup_whose_barriers_cannot_agree_skips_its_block() {
    use vkmm::testing::engine::{Explorer, Limits};
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 | P2@sg 2, wg 1, qf 0 ;\n cbar.wg 0 | ld.atom.wg.sc0 r0, x | st.atom.dv.sc0 x, 1 ;\n  | beq r0, 1, END | ;\n  | cbar.wg 0 | ;\n  | END: | ;\nexists (0 == 0)\n";
    let p = Session::new().load_text("t.litmus", text).unwrap();
    let mut ex = Explorer::new(&p, Limits::default()).unwrap();
    ex.set_barrier_agreement(true);
    let all: Vec<Vec<usize>> = ex
        .threads
        .iter()
        .map(|t| (0..t.paths.len()).collect())
        .collect();
    // P1's paths: the one with a barrier event passes it.
    let skips: Vec<usize> = all[1]
        .iter()
        .copied()
        .filter(|&i| ex.threads[1].paths[i].events.len() == 1)
        .collect();
    assert_eq!(skips.len(), 1, "{:?}", ex.threads[1].paths.len());
    ex.take_walk_nodes();
    let dead = vec![all[0].clone(), skips, all[2].clone()];
    assert_eq!(skeletons_in(&ex, dead), 0);
    assert_eq!(ex.take_walk_nodes(), 0);
    assert!(skeletons_in(&ex, all) > 0);
}

/// The pruned walk does not walk a workgroup's threads again under a
/// choice of the workgroups above it that leaves them the same state
/// (`RangeMemo` in the explorer). P0 and P1 form workgroup 0, P2 and P3
/// workgroup 1, each tied by barrier 0. P0's path taken here reads
/// `y == 1`, which only P1's other path writes: every combination dies
/// when P0 is chosen, last. P2 has two paths (it reads `z` as 0, or as
/// the 1 P3 writes, and writes `w`, which no one reads), and both leave
/// workgroup 0 the same state: the pairs its reads need (`y`, 1: written
/// by no chosen path), no read of workgroup 1 waiting for a value. Derived
/// by hand: the walk chooses P3 (1 node), P2 (2 nodes), then under P2's
/// first path P1 and P0 (2 nodes, dead); under P2's second path the
/// subtree is known dead: 5 nodes, where walking workgroup 0 again takes
/// 7. No combination is visited; the block with all of P0's paths still
/// yields the ones where P0 reads 0.
#[test]
fn a_dead_workgroup_is_walked_once_per_state_of_the_workgroups_above() {
    use vkmm::testing::engine::{Explorer, Limits};
    let p = dead_workgroup_program();
    let mut ex = Explorer::new(&p, Limits::default()).unwrap();
    ex.set_barrier_agreement(true);
    let lengths = path_lengths(&ex);
    assert_eq!(lengths.len(), 4);
    // P0's path reading 1 stores to `v`; P1's path reading 0 does not
    // store to `y`.
    let with = |t: usize, n: usize| paths_of_length(&lengths[t], n);
    let (reads_one, no_store) = (with(0, 3), with(1, 2));
    assert_eq!((reads_one.len(), no_store.len()), (1, 1), "{lengths:?}");
    assert_eq!((lengths[2].len(), lengths[3].len()), (2, 1), "{lengths:?}");
    let all = |t: usize| -> Vec<usize> { (0..lengths[t].len()).collect() };
    ex.take_walk_nodes();
    let dead = vec![reads_one, no_store.clone(), all(2), all(3)];
    assert_eq!(skeletons_in(&ex, dead), 0);
    assert_eq!(ex.take_walk_nodes(), 5);
    assert!(skeletons_in(&ex, vec![all(0), no_store, all(2), all(3)]) > 0);
}

/// The pruned walk's barrier check at a thread reads the chosen paths of
/// that thread's range alone (`Explorer::barriers_agree_from`): the
/// ranges above passed it when their first thread was chosen, and no
/// barrier instance reaches outside its range. The program of
/// `a_dead_workgroup_is_walked_once_per_state_of_the_workgroups_above`:
/// ranges P0-P1 and P2-P3. Derived by hand from that test's walk: P3's
/// node reads P3 (1), each of P2's two nodes reads P2 and P3 (2 + 2),
/// P1's node reads P1 (1), and P0's node dies before the barrier check
/// (the `y == 1` it reads is written by no chosen path): 6 path reads.
/// Reading every chosen thread from the judged one, P1's node reads
/// P1-P3 (3): 8.
#[test]
fn the_barrier_check_reads_the_judged_threads_range_only() {
    use vkmm::testing::engine::{Explorer, Limits};
    let p = dead_workgroup_program();
    let mut ex = Explorer::new(&p, Limits::default()).unwrap();
    ex.set_barrier_agreement(true);
    let lengths = path_lengths(&ex);
    let with = |t: usize, n: usize| paths_of_length(&lengths[t], n);
    let all = |t: usize| -> Vec<usize> { (0..lengths[t].len()).collect() };
    let block = vec![with(0, 3), with(1, 2), all(2), all(3)];
    ex.take_barrier_reads();
    assert_eq!(skeletons_in(&ex, block), 0);
    assert_eq!(ex.take_walk_nodes(), 5);
    assert_eq!(ex.take_barrier_reads(), 6);
}
