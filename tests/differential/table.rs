//! The corpus-wide comparisons, one row per reduction: the row's
//! comparison (the differences it finds in one file, none when the two
//! searches agree as its module says) run on the repository's own tests and
//! examples and on the dat3m-vulkan, khronos-alloy and dat3m-opencl corpora,
//! except the files the row skips.
//!
//! Two tiers. By default every row runs on a sample (every
//! [`SAMPLE_STRIDE`]-th file); with the `slow-tests` feature each row also
//! runs on every file (`common::assert_no_differences_everywhere`, with the
//! assertions the per-reduction binaries made).

use crate::common;
use crate::{
    barrier_prefixes, branch_registers, coherence_cuts, commuting_rmws, counters, incremental,
    lazy, own_writes, pruning, specialise, spin, symbolic, symbolic_domains, symmetry, undefined,
};
use std::path::{Path, PathBuf};
use vkmm::Reduction;
use vkmm::frontend::LocalMemory;

/// One row: the reduction compared (`None`: a bypass that is no
/// reduction), a name for the messages, the comparison, the files left
/// out.
struct Row {
    reduction: Option<Reduction>,
    name: &'static str,
    compare: fn(&Path) -> Vec<String>,
    skip: fn(&Path) -> bool,
}

/// Two sessions that must report the same whole search
/// ([`common::same_search`]).
fn same(p: &Path, reference: (&str, vkmm::Session), other: (&str, vkmm::Session)) -> Vec<String> {
    common::same_search(p, (reference.0, &reference.1), (other.0, &other.1))
}

const ROWS: &[Row] = &[
    Row {
        reduction: Some(Reduction::SpinReduction),
        name: "spin-reduction",
        compare: |p| spin::compare_file(p, LocalMemory::PerWorkgroup),
        skip: spin::skipped,
    },
    Row {
        reduction: Some(Reduction::LazyChecks),
        name: "lazy-checks",
        compare: |p| {
            same(
                p,
                ("every statement", lazy::session(false)),
                ("lazy", lazy::session(true)),
            )
        },
        skip: lazy::skipped,
    },
    Row {
        reduction: Some(Reduction::Incremental),
        name: "incremental (lazy checks)",
        compare: |p| {
            same(
                p,
                ("from scratch", incremental::session(false, true)),
                ("incremental", incremental::session(true, true)),
            )
        },
        skip: incremental::skipped,
    },
    Row {
        reduction: Some(Reduction::Incremental),
        name: "incremental (full evaluations)",
        compare: |p| {
            same(
                p,
                ("from scratch", incremental::session(false, false)),
                ("incremental", incremental::session(true, false)),
            )
        },
        skip: incremental::skipped,
    },
    Row {
        reduction: Some(Reduction::Specialise),
        name: "specialise",
        compare: |p| {
            same(
                p,
                ("plain", specialise::session(false)),
                ("partially evaluated", specialise::session(true)),
            )
        },
        skip: specialise::skipped,
    },
    Row {
        reduction: Some(Reduction::PathPruning),
        name: "path-pruning",
        compare: |p| {
            same(
                p,
                ("flat walk", pruning::path_session(false)),
                ("path pruning", pruning::path_session(true)),
            )
        },
        skip: pruning::skipped,
    },
    Row {
        reduction: Some(Reduction::OrderPruning),
        name: "order-pruning",
        compare: pruning::compare_orders,
        skip: pruning::skipped,
    },
    Row {
        reduction: Some(Reduction::OwnWriteFilter),
        name: "own-write-filter",
        compare: own_writes::compare,
        skip: own_writes::skipped,
    },
    Row {
        reduction: Some(Reduction::BranchRegisters),
        name: "branch-registers",
        compare: branch_registers::compare_file,
        skip: branch_registers::skipped,
    },
    Row {
        reduction: Some(Reduction::SymbolicStores),
        name: "symbolic-stores",
        compare: |p| symbolic::compare_file(p, &|s| s),
        skip: symbolic::skipped,
    },
    Row {
        reduction: Some(Reduction::SymbolicDomains),
        name: "symbolic-domains",
        compare: symbolic_domains::compare_file,
        skip: symbolic_domains::skipped,
    },
    Row {
        reduction: Some(Reduction::Symmetry),
        name: "symmetry",
        compare: symmetry::compare_file,
        skip: symmetry::skipped,
    },
    Row {
        reduction: Some(Reduction::Counters),
        name: "counters",
        compare: counters::compare_file,
        skip: counters::skipped,
    },
    Row {
        reduction: Some(Reduction::BarrierPrefixes),
        name: "barrier-prefixes",
        compare: barrier_prefixes::compare_file,
        skip: barrier_prefixes::skipped,
    },
    Row {
        reduction: Some(Reduction::CoherenceCuts),
        name: "coherence-cuts",
        compare: coherence_cuts::compare_file,
        skip: coherence_cuts::skipped,
    },
    Row {
        reduction: Some(Reduction::CommutingRmws),
        name: "commuting-rmws",
        compare: commuting_rmws::compare_file,
        skip: commuting_rmws::skipped,
    },
    Row {
        reduction: None,
        name: "undefined values (bypass)",
        compare: |p| {
            same(
                p,
                ("bypassed", undefined::session(false)),
                ("with undefined values", undefined::session(true)),
            )
        },
        skip: undefined::skipped,
    },
];

/// The reductions whose comparisons are not a row: each is compared
/// with the reference where it applies, by the test named.
const ELSEWHERE: &[(Reduction, &str)] = &[
    (Reduction::RmwFilter, "differential::rmw"),
    (Reduction::TerminationShortcuts, "differential::termination"),
    (
        Reduction::WitnessPruning,
        "differential::termination (witness pruning)",
    ),
    (Reduction::OwnForwarding, "tests/engine/own_forwarding.rs"),
    (
        Reduction::WritePruning,
        "tests/engine/prefix_races.rs, engine::tests",
    ),
    (Reduction::ChainFlow, "engine::tests (chain balances)"),
    (
        Reduction::OutcomeDirected,
        "tests/engine/condition_directed.rs",
    ),
    (Reduction::SpinExtension, "tests/engine/spin_extension.rs"),
    (Reduction::ReadFactoring, "tests/engine/read_factoring.rs"),
];

/// The sample tier takes every this-many-th file.
const SAMPLE_STRIDE: usize = 12;

/// Every file a row runs on (own tests and examples, then the corpora
/// present), except those `skip` names.
fn files(skip: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = common::own_litmus_files(skip);
    for sub in ["dat3m-vulkan", "khronos-alloy", "dat3m-opencl"] {
        if let Some(dir) = common::corpus_or_skip(sub) {
            common::litmus_files_below(&dir, skip, &mut out);
        }
    }
    out
}

#[test]
fn every_reduction_has_a_row_or_its_own_test() {
    for r in Reduction::ALL {
        let rows = ROWS.iter().filter(|row| row.reduction == Some(r)).count();
        let elsewhere = ELSEWHERE.iter().filter(|(e, _)| *e == r).count();
        assert_eq!(
            rows.min(1) + elsewhere,
            1,
            "{r}: {rows} rows, {elsewhere} elsewhere"
        );
    }
}

#[test]
fn every_row_on_a_sample() {
    let mut diffs = Vec::new();
    for row in ROWS {
        let all = files(&row.skip);
        assert!(all.len() > 200, "{}: {} files", row.name, all.len());
        let sample: Vec<PathBuf> = all.into_iter().step_by(SAMPLE_STRIDE).collect();
        for d in common::on_two_threads(&sample, &row.compare) {
            diffs.push(format!("{}: {d}", row.name));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The full tier: one test per row, every file.
macro_rules! full {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        #[cfg_attr(not(feature = "slow-tests"), ignore = "slow: --features slow-tests")]
        fn $test() {
            let row = ROWS.iter().find(|r| r.name == $name).expect($name);
            common::assert_no_differences_everywhere(&row.compare, &row.skip);
        }
    )*};
}

// The spin reduction's full tier is its module's corpus walks
// (`spin::dat3m_vulkan_corpus` and the others), with each corpus's
// reading of local memory.
full! {
    lazy_checks_everywhere: "lazy-checks",
    incremental_lazy_everywhere: "incremental (lazy checks)",
    incremental_full_everywhere: "incremental (full evaluations)",
    specialise_everywhere: "specialise",
    path_pruning_everywhere: "path-pruning",
    order_pruning_everywhere: "order-pruning",
    own_write_filter_everywhere: "own-write-filter",
    branch_registers_everywhere: "branch-registers",
    symbolic_stores_everywhere: "symbolic-stores",
    symbolic_domains_everywhere: "symbolic-domains",
    symmetry_everywhere: "symmetry",
    counters_everywhere: "counters",
    barrier_prefixes_everywhere: "barrier-prefixes",
    coherence_cuts_everywhere: "coherence-cuts",
    commuting_rmws_everywhere: "commuting-rmws",
    undefined_values_everywhere: "undefined values (bypass)",
}

#[test]
fn the_full_tier_names_every_row() {
    let names = [
        "lazy-checks",
        "incremental (lazy checks)",
        "incremental (full evaluations)",
        "specialise",
        "path-pruning",
        "order-pruning",
        "own-write-filter",
        "branch-registers",
        "symbolic-stores",
        "symbolic-domains",
        "symmetry",
        "counters",
        "barrier-prefixes",
        "coherence-cuts",
        "commuting-rmws",
        "undefined values (bypass)",
    ];
    assert_eq!(names.len() + 1, ROWS.len());
    for row in ROWS {
        assert!(
            names.contains(&row.name) || row.name == "spin-reduction",
            "{}",
            row.name
        );
    }
}
