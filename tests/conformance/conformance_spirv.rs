//! Conformance: Dat3M's SPIR-V programs (../shared/corpus/dat3m-spirv)
//! against the six-column expected.csv, a ratchet while the front end
//! grows (docs/format-spirv.md has the counts):
//!
//! - every `checked` row listed in `conformance_spirv.passing` must still
//!   give its expected verdict;
//! - a `checked` row that gives the opposite decided verdict (PASS for
//!   FAIL or FAIL for PASS) must be listed in [`KNOWN_WRONG`] (with why);
//!   no new one may appear;
//! - undecided rows (bound or limit hit) and unsupported ones (termination,
//!   constructs outside the IR) are counted and printed, not failed;
//! - a `checked` row whose verdict rests on undefined behaviour (an
//!   out-of-bounds access, `Status::Undefined`) must be listed in
//!   [`UNDEFINED_BEHAVIOUR`], and every row listed there must be so; those
//!   rows must give Dat3M's verdict under `--out-of-bounds flat`, Dat3M's
//!   reading (docs/format-spirv.md, "Out-of-bounds accesses").
//!
//! Rows run on a thread pool with a 5 s limit each.

use crate::common;

use rayon::prelude::*;
use std::time::Duration;
use vkmm::analysis::suite::{Record, Status};
use vkmm::{Property, Session};

/// Checked rows that give the opposite decided verdict today, with why,
/// grouped by cause. None since the out-of-bounds reading (below).
const KNOWN_WRONG: &[&str] = &[];

/// Checked rows whose verdict rests on undefined behaviour under the
/// default reading, each of which gives Dat3M's verdict under the flat
/// one (except [`FLAT_UNDEFINED`], undefined under both). clspv `__local` kernel arguments: the array length is a spec
/// constant the host sets (ArgumentWorkgroup), default 1, so the racing
/// accesses are out of bounds. SPIR-V, OpAccessChain, of each index: "if
/// indexing into a vector, array, or matrix, with the result type being a
/// logical pointer type, causes undefined behavior if not in bounds":
/// vkmm reports the undefined behaviour (it used to drop the accesses and
/// answer PASS); Dat3M's byte addresses past the array meet and race
/// (`--out-of-bounds flat`). With the length given (`@Input: %15 = 4`)
/// vkmm reports GPUVerify's races under either reading. `missing_local_barrier_flag_2`
/// and `miscfail1` were `KNOWN_WRONG` (vkmm's silent drop answered PASS
/// where Dat3M says FAIL); the others passed by the same silent drop (in the passing list until the
/// out-of-bounds reading): clspv `__local` arrays of spec-constant length
/// 1, and the alignment rows' reads past their arrays.
const UNDEFINED_BEHAVIOUR: &[&str] = &[
    "alignment/alignment2-struct-local.spvasm: assertions",
    "alignment/alignment2-struct-pointer.spvasm: assertions",
    "alignment/alignment3-struct-local.spvasm: assertions",
    "alignment/alignment4-struct-local.spvasm: assertions",
    "alignment/stride-vector-overwrite-result-no-stride.spvasm: assertions",
    "alignment/stride-vector-overwrite-result-stride.spvasm: assertions",
    "gpuverify/atomics/atomic_read_race.spvasm: races",
    "gpuverify/atomics/histo.spvasm: races",
    "gpuverify/benign_race_tests/fail/writeafterread_otherval.spvasm: races",
    "gpuverify/inter_group_and_barrier_flag_tests/fail/sync.spvasm: races",
    "gpuverify/pointertests/test_return_pointer.spvasm: races",
    "gpuverify/sourcelocation_tests/races/fail/write_read.spvasm: races",
    "gpuverify/sourcelocation_tests/races/pass/no_race.spvasm: races",
    "gpuverify/sourcelocation_tests/races/pass/read_read.spvasm: races",
    "gpuverify/test_local_id_inference.spvasm: races",
    "gpuverify/barrier_intervals/test2.spvasm: races",
    "gpuverify/sourcelocation_tests/barrier_divergence/fail.spvasm: races",
    "gpuverify/inter_group_and_barrier_flag_tests/pass/local_barrier_flag_2.spvasm: races",
    "gpuverify/misc/fail/miscfail1.spvasm: races",
    "gpuverify/inter_group_and_barrier_flag_tests/fail/missing_local_barrier_flag_2.spvasm: races",
    // The loop `for (i = gid; ; i += 256) { A[i] = ..; B[i + 10] = ..;
    // C[i + 20] = ..; if (i >= 768) break; }` over buffers of 9, 18 and
    // 27 words: its second iteration indexes A[256]. Dat3M's bound 1 cuts
    // the loop before it (UNKNOWN); vkmm runs the register-counted loop
    // to its end and meets the out-of-bounds stores.
    "gpuverify/test_mod_invariants/global_reduce_strength.spvasm: races",
];

/// The [`UNDEFINED_BEHAVIOUR`] rows the flat reading leaves undefined. An
/// offset held in a register (a loop counter, an OpPhi) may name the
/// elements past the end, up to 64 (docs/format-spirv.md,
/// "Out-of-bounds accesses"). The six alignment rows read 16 words through
/// an element pointer into a smaller array (the word past the end is one
/// more location, which the assertions do not read); `races/pass/no_race`
/// indexes one-element Workgroup arrays with an OpPhi equal to the local
/// id (each element past the end is its variable's, one invocation's).
/// `global_reduce_strength` stores at A[gid + 256], far past the 64
/// elements the flat reading lets an offset run past the end.
const FLAT_UNDEFINED: &[&str] =
    &["gpuverify/test_mod_invariants/global_reduce_strength.spvasm: races"];

/// The [`UNDEFINED_BEHAVIOUR`] rows under `--out-of-bounds flat`: each
/// must give Dat3M's verdict (their CSV rows, from `csv`), those of
/// [`FLAT_UNDEFINED`] must still be undefined behaviour.
fn flat_rows(dir: &std::path::Path, csv: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut rows: Vec<&str> = text.lines().take(1).collect();
    rows.extend(text.lines().filter(|l| {
        UNDEFINED_BEHAVIOUR.iter().any(|u| {
            u.rsplit_once(": ")
                .is_some_and(|(f, p)| l.starts_with(&format!("{f},{p},")))
        })
    }));
    // (A file listed for one property may have rows of the other.)
    assert!(rows.len() > UNDEFINED_BEHAVIOUR.len(), "{rows:?}");
    let flat_csv = std::env::temp_dir().join(format!("vkmm-flat-{}.csv", std::process::id()));
    std::fs::write(&flat_csv, rows.join("\n") + "\n").unwrap();
    let summary = Session::new()
        .timeout(Some(Duration::from_secs(5)))
        .out_of_bounds(vkmm::frontend::OutOfBoundsReading::Flat)
        .suite(dir, Some(&flat_csv), Property::Condition)
        .unwrap();
    let _ = std::fs::remove_file(&flat_csv);
    summary
        .records
        .iter()
        .filter(|r| r.group.as_deref() == Some("checked"))
        .filter(|r| UNDEFINED_BEHAVIOUR.contains(&key(r, "dat3m-spirv").as_str()))
        .filter(|r| {
            let want = if FLAT_UNDEFINED.contains(&key(r, "dat3m-spirv").as_str()) {
                Status::Undefined
            } else {
                Status::Passed
            };
            r.status != want
        })
        .map(|r| {
            format!(
                "{}: under --out-of-bounds flat {:?}: {}",
                key(r, "dat3m-spirv"),
                r.status,
                r.detail.clone().unwrap_or_default()
            )
        })
        .collect()
}

fn key(r: &Record, dir: &str) -> String {
    let rel = r.file.split_once(dir).map_or(r.file.as_str(), |(_, p)| p);
    let property = match r.property {
        Some(Property::Condition) => "assertions",
        Some(Property::Races) => "races",
        Some(Property::Termination) | None => "termination",
        Some(Property::States) => "states",
    };
    format!("{}: {property}", rel.trim_start_matches('/'))
}

/// About 2-3 minutes on two cores: run by `.ci/run` (`cargo test --release
/// --test conformance -- --ignored conformance_spirv::`), kept out of the README's quick
/// test command.
#[test]
#[ignore = "slow (minutes): .ci/run runs it with --ignored"]
fn checked_rows_ratchet() {
    let Some(dir) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    let csv = dir.join("expected.csv");
    let session = Session::new().timeout(Some(Duration::from_secs(5)));
    let summary = session
        .suite_with(&dir, Some(&csv), Property::Condition, None, &|s, items| {
            items.par_iter().map(|i| s.suite_item(i)).collect()
        })
        .unwrap();
    let passing: Vec<&str> = include_str!("../fixtures/conformance_spirv.passing")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut problems = Vec::new();
    let mut counts = std::collections::BTreeMap::<(String, String), usize>::new();
    for r in &summary.records {
        let group = r.group.clone().unwrap_or_default();
        *counts
            .entry((group.clone(), format!("{:?}", r.status)))
            .or_default() += 1;
        if group != "checked" {
            continue;
        }
        let k = key(r, "dat3m-spirv");
        // A file that cannot be read has no property: any listed row of
        // the file regressed (this was a hole: three listed rows errored).
        let file = k.rsplit_once(": ").map_or(k.as_str(), |(f, _)| f);
        if r.status == Status::Error
            && let Some(listed) = passing
                .iter()
                .find(|p| p.rsplit_once(": ").is_some_and(|(f, _)| f == file))
        {
            problems.push(format!(
                "{listed}: passed before, now an error: {}",
                r.detail.clone().unwrap_or_default()
            ));
        }
        if passing.contains(&k.as_str()) && r.status != Status::Passed {
            problems.push(format!(
                "{k}: passed before, now {:?}: {}",
                r.status,
                r.detail.clone().unwrap_or_default()
            ));
        }
        if r.status == Status::Failed && !KNOWN_WRONG.contains(&k.as_str()) {
            problems.push(format!(
                "{k}: wrong decided verdict: {}",
                r.detail.clone().unwrap_or_default()
            ));
        }
        if (r.status == Status::Undefined) != UNDEFINED_BEHAVIOUR.contains(&k.as_str()) {
            problems.push(format!(
                "{k}: {:?}, {} in UNDEFINED_BEHAVIOUR: {}",
                r.status,
                if UNDEFINED_BEHAVIOUR.contains(&k.as_str()) {
                    "listed"
                } else {
                    "not listed"
                },
                r.detail.clone().unwrap_or_default()
            ));
        }
    }
    problems.extend(flat_rows(&dir, &csv));
    for ((group, status), n) in &counts {
        eprintln!("{group:>9} {status:<11} {n}");
    }
    for u in &summary.unsupported {
        eprintln!("unsupported: {}", u.detail);
    }
    assert!(
        passing.len() >= 168,
        "the ratchet list lost rows: {}",
        passing.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
