//! Differential tests of symbolic domains (`Reduction::SymbolicDomains`,
//! `--no symbolic-domains`): with symbolic stores, the value domains are
//! computed by paths that keep reads symbolic through stores, a derived
//! store adding its term's values over the domains of the reads it names
//! (`engine::trace::explore_in_full`). The claim is that the domains are
//! the ones the rounds with every read concrete compute, value for value:
//! a path with a store's reads concrete writes, at that store, its term's
//! value over one value of each read's domain, with the provenance the
//! reads' values and the path's arithmetic give it. So the comparison is
//! of the domains themselves and of the answers.
//!
//! Compared on the repository's own tests, the examples and the corpora
//! (the `symbolic-domains` row of [`crate::table`]) and on the generated
//! programs of the symbolic-stores tests.

use crate::common;

use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;
use vkmm::Reduction;
use vkmm::Session;
use vkmm::testing::engine::trace::explore_with_domains;
use vkmm::testing::engine::{Limits, PathPlan};

/// The value domains of `program` under the Vulkan model's limits, with
/// the symbolic rounds (from the first round) `on` or off (`None`: a
/// limit stopped the walk).
fn domains(program: &vkmm::ir::Program, on: bool) -> Option<Vec<Vec<i64>>> {
    let mut limits = Limits::default()
        .for_model(&common::models().chains)
        .with(Reduction::SymbolicDomains, on);
    limits.bounds.timeout = Some(Duration::from_secs(3));
    // The symbolic rounds from the first round (by default they run only
    // once the concrete ones pass the path limit).
    let plan = PathPlan {
        symbolic_domains_first: on,
        ..PathPlan::of(&limits)
    };
    explore_with_domains(program, &limits, plan)
        .ok()
        .map(|(_, d)| d)
}

fn session(on: bool) -> Session {
    Session::new()
        .max_executions(20_000)
        .reduction(Reduction::SymbolicDomains, on)
        .reduction(Reduction::Symmetry, false)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// The differences on one file: its value domains, then its answers
/// (none when either search is stopped by a limit).
pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(program) = Session::new().load_file(path)
        && let (Some(a), Some(b)) = (domains(&program, false), domains(&program, true))
        && a != b
    {
        out.push(format!(
            "{}: domains differ: concrete rounds {a:?}, symbolic rounds {b:?}",
            path.display()
        ));
    }
    out.extend(common::differing_answers(
        path,
        ("concrete rounds", "symbolic rounds"),
        (
            session(false).check_file(path),
            session(true).check_file(path),
        ),
        &|c| common::answers_of(c, true),
    ));
    out
}

/// A read of an own location whose latest write is derived takes that
/// write's term, and its value counts the write in its provenance as the
/// concrete read does. P0: `r0 = y; x = r0 + 1; r1 = x; y = r1 + 1` (x is
/// P0's own), P1: `y = 5`. By hand, y's domain: 0 (initial, no write), 5
/// (P1: y 1), 2 from 0 (x 1, y 1), 7 from 5 (x 1, y 2), and 4 from 2
/// would need x written twice (x 2, y 2) where one execution writes x
/// once: dropped; 9 from 7 needs y three times. So {0, 2, 5, 7}, and x's
/// {0, 1, 6}. A forwarded read that did not count the write of x would
/// let 4 in.
#[test]
fn an_own_read_of_a_derived_write_counts_the_write() {
    let text = "VULKAN own-derived\n{ x=0; y=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n\
        ld.sc0 r0, y | st.sc0 y, 5 ;\n\
        add r2, r0, 1 | ;\n\
        st.sc0 x, r2 | ;\n\
        ld.sc0 r1, x | ;\n\
        add r3, r1, 1 | ;\n\
        st.sc0 y, r3 | ;\n\
        exists (P0:r0 == 0)\n";
    let program = Session::new()
        .load_text("own-derived.litmus", text)
        .unwrap();
    let (concrete, symbolic) = (domains(&program, false), domains(&program, true));
    assert_eq!(concrete, symbolic);
    let symbolic = symbolic.unwrap();
    let at = |name: &str| {
        let l = program.locations.iter().position(|l| l == name).unwrap();
        symbolic[l].clone()
    };
    assert_eq!(at("y"), vec![0, 2, 5, 7]);
    assert_eq!(at("x"), vec![0, 1, 6]);
}

/// P0 copies each of `n` locations P1 writes (0 or 1 each) to a location
/// of its own: `n` reads that only flow into stores.
fn copies(n: usize) -> String {
    let init: String = (0..n).map(|i| format!("x{i}=0; y{i}=0; ")).collect();
    let p0: Vec<String> = (0..n)
        .flat_map(|i| [format!("ld.sc0 r{i}, x{i}"), format!("st.sc0 y{i}, r{i}")])
        .collect();
    let p1: Vec<String> = (0..n).map(|i| format!("st.sc0 x{i}, 1")).collect();
    common::vulkan_litmus(
        &init,
        &[
            "P0@sg 0, wg 0, qf 0".to_string(),
            "P1@sg 0, wg 1, qf 0".to_string(),
        ],
        &[p0, p1],
        "exists (y0 == 1)",
    )
}

/// Reads whose values only flow into stores no longer multiply the paths
/// of the fixpoint's rounds: P0 copies each of 12 locations P1 writes (0
/// or 1 each) to a location of its own. With every read concrete, a
/// round lists 2^12 paths of P0, past a path limit of 1000; with symbolic
/// rounds one, and the answer is the one a search without the limit
/// gives.
#[test]
fn copies_of_reads_are_one_path_while_the_domains_are_computed() {
    let text = copies(12);
    let run = |on: bool, max_paths: usize| {
        session(on)
            .max_paths(max_paths)
            .check_text("copies.litmus", &text)
            .unwrap()
    };
    let limited = common::answers_of(&run(false, 1000), true);
    assert_eq!(limited, None, "the concrete rounds pass the path limit");
    let symbolic = common::answers_of(&run(true, 1000), true);
    let unlimited = common::answers_of(&run(false, 1 << 16), true);
    assert!(symbolic.is_some());
    assert_eq!(symbolic, unlimited);
}

/// The symbolic rounds start once a round with every read concrete lists
/// more than `SYMBOLIC_ROUNDS_FROM` (1,024) paths of one thread, far
/// below the path limit. P0 copies each of `n` locations P1 writes (0 or
/// 1 each) to a location of its own: a concrete round lists 2^n paths of
/// P0. At n = 11 (2,048) the rounds run symbolic, at n = 9 (512) they
/// stay concrete, and without the reduction they are concrete at both.
/// By hand every location's domain is {0, 1} (initial 0, P1 writes 1, P0
/// copies either), whichever rounds compute it, and the answers are the
/// reference enumeration's.
#[test]
fn the_symbolic_rounds_start_past_a_thousand_concrete_paths() {
    use vkmm::testing::engine::trace::{SYMBOLIC_ROUNDS_FROM, explore_in_full};
    assert_eq!(SYMBOLIC_ROUNDS_FROM, 1024);
    // Whether the rounds ran symbolic, and the domains.
    let explored = |n: usize, on: bool| {
        let program = Session::new()
            .load_text("copies.litmus", &copies(n))
            .unwrap();
        let limits = Limits::default()
            .for_model(&common::models().chains)
            .with(Reduction::SymbolicDomains, on);
        let e = explore_in_full(&program, &limits, PathPlan::of(&limits)).unwrap();
        (e.symbolic_rounds, e.domains)
    };
    for (n, past) in [(11, true), (9, false)] {
        let (symbolic, domains) = explored(n, true);
        assert_eq!(symbolic, past, "n = {n}");
        let (concrete, by_hand) = explored(n, false);
        assert!(
            !concrete,
            "n = {n}: no symbolic rounds without the reduction"
        );
        assert_eq!(domains, by_hand, "n = {n}");
        assert!(domains.iter().all(|d| d == &[0, 1]), "n = {n}: {domains:?}");
    }
    let answers =
        |s: Session| common::answers_of(&s.check_text("copies.litmus", &copies(11)).unwrap(), true);
    let searched = answers(Session::new());
    assert!(searched.is_some());
    assert_eq!(
        searched,
        answers(Session::new().limits(Session::new().current_limits().reference()))
    );
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(128), failure_persistence: crate::common::regressions("differential-symbolic-domains"), ..ProptestConfig::default() })]

    /// The same domains and the same answers.
    #[test]
    fn generated_programs_agree(text in crate::symbolic::program()) {
        let program = Session::new().load_text("generated.litmus", &text).unwrap();
        if let (Some(a), Some(b)) = (domains(&program, false), domains(&program, true)) {
            prop_assert_eq!(a, b, "domains\n{}", text);
        }
        let limit = |s: Session| s.max_executions(5_000).timeout(Some(Duration::from_secs(3)));
        let run = |on: bool| limit(session(on)).check_text("generated.litmus", &text).unwrap();
        if let (Some(a), Some(b)) = (common::answers_of(&run(false), true), common::answers_of(&run(true), true)) {
            prop_assert_eq!(a, b, "concrete rounds / symbolic rounds\n{}", text);
        }
    }
}
