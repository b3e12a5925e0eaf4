//! Differential test of the RMW reads-from filter (`Reduction::RmwFilter`,
//! a model's `rmw-atomicity` declaration) against the reference
//! enumeration, which evaluates every reads-from choice.
//!
//! The filter only skips candidates whose RMW reads from a write other than
//! its immediate predecessor in scoped modification order (or the initial
//! value when it has one): each closes a cycle of reads-from, from-reads
//! and `asmo` that every Vulkan reading forbids (location-order-acyclicity).
//! So on every file where both searches are complete the answers must be
//! identical: final states, condition and race verdicts, `.test` query
//! answers, and termination verdicts. Files of dat3m-vulkan, khronos-alloy,
//! the liveness corpus (termination under HSA, every third file) and the
//! repository's own tests, and generated programs of RMWs, stores and loads
//! at random scopes, are compared.

use crate::common;

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use vkmm::analysis::Checked;
use vkmm::analysis::termination::Progress;
use vkmm::{Property, Session};

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(filter: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::RmwFilter, filter)
}

/// The differences between the reference and the filtered answers.
pub(crate) fn compare(name: &str, reference: &Checked, filtered: &Checked) -> Vec<String> {
    let mut out = Vec::new();
    match (reference, filtered) {
        (Checked::Litmus(a), Checked::Litmus(b)) => {
            for p in [Property::Condition, Property::Races] {
                if let (Some(x), Some(y)) = (a.holds(p), b.holds(p))
                    && x != y
                {
                    out.push(format!("{name}: {p:?} reference {x}, filtered {y}"));
                }
            }
            if !a.truncated && !b.truncated {
                let sa: Vec<_> = a.states.iter().map(|(s, _)| s).collect();
                let sb: Vec<_> = b.states.iter().map(|(s, _)| s).collect();
                if sa != sb {
                    out.push(format!("{name}: final states differ: {sa:?} / {sb:?}"));
                }
                if a.races != b.races {
                    out.push(format!("{name}: racing pairs differ"));
                }
            }
        }
        (Checked::Queries(a), Checked::Queries(b)) => {
            for (x, y) in a.queries.iter().zip(&b.queries) {
                if x.actual != y.actual && format!("{:?}", x.actual) != "Undecided" {
                    out.push(format!(
                        "{name} line {}: reference {:?}, filtered {:?}",
                        x.line, x.actual, y.actual
                    ));
                }
            }
        }
        (Checked::Termination(a), Checked::Termination(b)) => {
            if a.complete() && b.complete() && a.verdict != b.verdict {
                out.push(format!(
                    "{name}: termination reference {:?}, filtered {:?}",
                    a.verdict, b.verdict
                ));
            }
        }
        _ => out.push(format!("{name}: results of different kinds")),
    }
    out
}

pub(crate) fn compare_file(path: &Path, termination: bool) -> Vec<String> {
    let name = path.display().to_string();
    let run = |filter| {
        let s = session(filter);
        let s = if termination {
            s.unroll(1)
                .termination(Some("HSA".parse::<Progress>().unwrap()))
        } else {
            s
        };
        s.check_file(path)
    };
    match (run(false), run(true)) {
        (Ok(a), Ok(b)) => compare(&name, &a, &b),
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Vec::new(),
        (a, b) => vec![format!(
            "{name}: {:?} / {:?}",
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        )],
    }
}

/// The xf-barrier tests are left out (minutes for the reference).
pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    common::litmus_files_below(dir, &skipped, out);
}

/// Compares `files` on two threads (the machine has two cores).
fn compare_all(files: &[PathBuf], termination: bool) -> Vec<String> {
    common::on_two_threads(files, &|p| compare_file(p, termination))
}

fn corpus_files(sub: &str) -> Option<Vec<PathBuf>> {
    let dir = common::corpus_or_skip(sub)?;
    let mut files = Vec::new();
    files_below(&dir, &mut files);
    assert!(!files.is_empty());
    Some(files)
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn dat3m_vulkan_and_khronos_corpora() {
    for sub in ["dat3m-vulkan", "khronos-alloy"] {
        if let Some(files) = corpus_files(sub) {
            let diffs = compare_all(&files, false);
            assert!(diffs.is_empty(), "{}", diffs.join("\n"));
        }
    }
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn liveness_corpus_under_hsa() {
    let Some(files) = corpus_files("dat3m-vulkan-liveness") else {
        return;
    };
    let sample: Vec<PathBuf> = files.into_iter().step_by(3).collect();
    let diffs = compare_all(&sample, true);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
#[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
fn own_tests_and_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for d in [
        "tests/fixtures/litmus",
        "tests/fixtures/litmus-vulkan",
        "examples",
    ] {
        files_below(&root.join(d), &mut files);
    }
    assert!(files.len() > 10);
    let diffs = compare_all(&files, false);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The filter skips candidates: on an RMW chain it evaluates fewer.
#[test]
fn the_filter_skips_forbidden_reads() {
    let text = "VULKAN chain\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n rmw.atom.dv.sc0 r0, x, 1 | rmw.atom.dv.sc0 r1, x, 2 | rmw.atom.dv.sc0 r2, x, 3 ;\nexists (P0:r0 == 0 /\\ P1:r1 == 0)\n";
    let run = |filter| match session(filter).check_text("chain.litmus", text).unwrap() {
        Checked::Litmus(o) => o,
        other => unreachable!("{other:?}"),
    };
    let (reference, filtered) = (run(false), run(true));
    // two RMWs cannot both read the initial value (atomicity)
    assert_eq!(reference.condition_holds, Some(false));
    assert_eq!(filtered.condition_holds, Some(false));
    assert_eq!(reference.states, filtered.states);
    assert!(
        filtered.executions + filtered.partial_evaluations
            < reference.executions + reference.partial_evaluations,
        "{} + {} vs {} + {}",
        filtered.executions,
        filtered.partial_evaluations,
        reference.executions,
        reference.partial_evaluations
    );
}

// ------------------------------------------------------------ generated programs

/// One generated instruction: an RMW (exchange or add), a store or a load,
/// atomic at workgroup or device scope, or plain.
#[derive(Clone, Debug)]
struct Op {
    kind: u8,
    loc: usize,
    atomic: bool,
    dv: bool,
    value: i64,
}

fn op() -> impl Strategy<Value = Op> {
    (0..4u8, 0..2usize, any::<bool>(), any::<bool>(), 1..3i64).prop_map(
        |(kind, loc, atomic, dv, value)| Op {
            kind,
            loc,
            atomic,
            dv,
            value,
        },
    )
}

fn program_text(threads: &[(usize, Vec<Op>)]) -> String {
    let locs = ["x", "y"];
    let header: Vec<String> = threads
        .iter()
        .enumerate()
        .map(|(i, (wg, _))| format!("P{i}@sg {i}, wg {wg}, qf 0"))
        .collect();
    let code: Vec<Vec<String>> = threads
        .iter()
        .map(|(_, ops)| {
            ops.iter()
                .enumerate()
                .map(|(k, o)| {
                    let l = locs[o.loc];
                    let sc = if o.dv { "dv" } else { "wg" };
                    match (o.kind, o.atomic) {
                        (0, _) => format!("rmw.atom.{sc}.sc0 r{k}, {l}, {}", o.value),
                        (1, _) => format!("rmw.atom.{sc}.sc0.add r{k}, {l}, {}", o.value),
                        (2, true) => format!("st.atom.{sc}.sc0 {l}, {}", o.value),
                        (2, false) => format!("st.sc0 {l}, {}", o.value),
                        (_, true) => format!("ld.atom.{sc}.sc0 r{k}, {l}"),
                        (_, false) => format!("ld.sc0 r{k}, {l}"),
                    }
                })
                .collect()
        })
        .collect();
    common::vulkan_litmus("x=0; y=0;", &header, &code, "exists (x == 1)")
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(96), failure_persistence: crate::common::regressions("differential-rmw"), ..ProptestConfig::default() })]
    #[test]
    fn generated_programs_agree(
        threads in prop::collection::vec((0..2usize, prop::collection::vec(op(), 1..4)), 2..4)
    ) {
        let text = program_text(&threads);
        let run = |filter| session(filter).check_text("gen.litmus", &text);
        let (a, b) = (run(false), run(true));
        match (a, b) {
            (Ok(a), Ok(b)) => {
                let mut diffs = compare("gen", &a, &b);
                // The verdict-only walk against the full one.
                diffs.extend(common::directed_agrees_on_quantifiers(&text, &session(true)));
                prop_assert!(diffs.is_empty(), "{}\n{}", text, diffs.join("\n"));
            }
            // every generated program is well formed
            (a, b) => prop_assert!(
                false,
                "{}\n{:?} / {:?}",
                text,
                a.err().map(|e| e.to_string()),
                b.err().map(|e| e.to_string())
            ),
        }
    }
}
