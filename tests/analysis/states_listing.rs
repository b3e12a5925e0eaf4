//! The outcome-directed listing (`vkmm check --property states`,
//! [`Property::States`], issue 11 item 1): candidates whose final state is
//! already recorded are not evaluated, and a combination of paths whose
//! candidates all have one recorded state is not walked.
//!
//! The listing must have exactly the states of the full listing (the one
//! that evaluates every candidate) and the same condition verdict, barrier
//! divergence and stalls; a race it reports must be one the full listing
//! reports; it never evaluates more executions than the full listing
//! without symmetry reduction (see `session`). Compared on the
//! repository's own tests and examples and on the dat3m-vulkan,
//! khronos-alloy and dat3m-opencl corpora (every fourth file of each, every
//! file with `--features slow-tests`) wherever the full listing is
//! complete within the execution limit.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome, Property};

const MAX_EXECUTIONS: u64 = 20_000;

/// The full listing without symmetry reduction: the rotation symmetry
/// (threads and locations renamed together) reduces only the full
/// listing, so on ring-shaped programs (barrier-flags, the ticket locks)
/// the reduced full listing evaluates fewer executions than the states
/// listing; the comparison of executions is with the full enumeration.
fn session(states: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .decide(states.then_some(Property::States))
        .reduction(vkmm::Reduction::Symmetry, states)
}

fn litmus(path: &Path, states: bool) -> Option<LitmusOutcome> {
    match session(states).check_file(path) {
        Ok(Checked::Litmus(o)) => Some(*o),
        _ => None,
    }
}

/// What the two listings of `path` disagree on (nothing when the full
/// listing is not a complete search: then there is nothing to compare).
fn differences(path: &Path) -> Vec<String> {
    let (Some(full), Some(states)) = (litmus(path, false), litmus(path, true)) else {
        return Vec::new();
    };
    if full.truncated || full.stopped_early {
        return Vec::new();
    }
    let name = path.display();
    let mut out = Vec::new();
    let keys = |o: &LitmusOutcome| o.states.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
    if keys(&full) != keys(&states) {
        out.push(format!(
            "{name}: states differ:\n  full {:?}\n  states {:?}",
            keys(&full),
            keys(&states)
        ));
    }
    if states.truncated {
        out.push(format!(
            "{name}: the states listing is truncated, the full one is not"
        ));
    }
    if full.condition_holds != states.condition_holds || full.observation != states.observation {
        out.push(format!(
            "{name}: condition {:?}/{:?} against {:?}/{:?}",
            full.condition_holds, full.observation, states.condition_holds, states.observation
        ));
    }
    let set = |v: &[String]| v.iter().cloned().collect::<BTreeSet<_>>();
    if set(&full.barrier_divergence) != set(&states.barrier_divergence)
        || set(&full.barrier_stalls) != set(&states.barrier_stalls)
        || full.cut_paths != states.cut_paths
    {
        out.push(format!("{name}: barrier notes or cut paths differ"));
    }
    if states.executions > full.executions {
        out.push(format!(
            "{name}: {} executions evaluated, the full listing {}",
            states.executions, full.executions
        ));
    }
    // A race a witness shows is a race; no race seen among the witnesses
    // decides nothing.
    match (full.race_free, states.race_free) {
        (Some(false), Some(false) | None) | (Some(true) | None, None) => {}
        (f, s) => out.push(format!("{name}: race-free {f:?} against {s:?}")),
    }
    // The same racing pair; the final states it is attributed to are those
    // of the executions each walk saw (the witness walk sees fewer).
    let same_pair = |a: &vkmm::analysis::RacePair, b: &vkmm::analysis::RacePair| {
        (&a.first, &a.second, &a.location) == (&b.first, &b.second, &b.location)
    };
    if states
        .races
        .iter()
        .any(|r| !full.races.iter().any(|f| same_pair(r, f)))
    {
        out.push(format!("{name}: a race the full listing does not report"));
    }
    out
}

fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

#[test]
fn the_states_are_those_of_the_full_listing_everywhere() {
    let mut files = common::own_litmus_files(&skipped);
    assert!(files.len() > 200, "{} files", files.len());
    // Every corpus file with `slow-tests`, else every fourth.
    let stride = if cfg!(feature = "slow-tests") { 1 } else { 4 };
    for sub in ["dat3m-vulkan", "khronos-alloy", "dat3m-opencl"] {
        if let Some(dir) = common::corpus_or_skip(sub) {
            let mut here = Vec::new();
            common::litmus_files_below(&dir, &skipped, &mut here);
            files.extend(here.into_iter().step_by(stride));
        }
    }
    let diffs = common::on_two_threads(&files, &|p| differences(p));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

fn scaling(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-scaling")
        .join(name)
}

/// barrier-flags-3: one final state (every thread reads its neighbour's 1),
/// reached by 3! = 6 consistent executions (one per arrival order at the
/// counter). The listing keeps one witness and evaluates fewer candidates.
#[test]
fn one_witness_per_state() {
    let path = scaling("barrier-flags-3.litmus");
    let full = litmus(&path, false).unwrap();
    let states = litmus(&path, true).unwrap();
    assert_eq!(full.states.len(), 1);
    assert_eq!(full.states[0].1, 6, "{:?}", full.states);
    assert_eq!(states.states, vec![(full.states[0].0.clone(), 1)]);
    assert_eq!(states.consistent, 1);
    // (Fewer candidates than the full walk evaluating every combination
    // of the observation loads; with factored observation reads both
    // evaluate one candidate per combination of the other choices.)
    let every = |states: bool| match session(states)
        .reduction(vkmm::Reduction::ReadFactoring, false)
        .check_file(&path)
    {
        Ok(Checked::Litmus(o)) => *o,
        _ => panic!("barrier-flags-3"),
    };
    let (full_every, states_every) = (every(false), every(true));
    assert!(
        states_every.executions < full_every.executions,
        "{} / {}",
        states_every.executions,
        full_every.executions
    );
    assert!(states.states_only && !full.states_only);
    // Complete in its states, though the race question is open.
    assert_eq!(states.race_free, None);
    assert_eq!(full.race_free, Some(true));
    assert!(states.complete());
    assert_eq!(states.holds(Property::Condition), Some(true));
}

/// A race shown by a witness is reported; the text says what the counts
/// are and that the race list comes from the witnesses.
#[test]
fn the_report_says_what_was_checked() {
    let (code, out, err) = common::vkmm(&[
        "check",
        "--property",
        "states",
        "tests/fixtures/litmus-scaling/barrier-flags-3.litmus",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1        :> P0:r2=1; P1:r2=1; P2:r2=1;"),
        "{out}"
    );
    assert!(
        out.contains("the counts are witnesses, not executions"),
        "{out}"
    );
    assert!(out.contains("Data races: not checked"), "{out}");

    // Message passing without synchronisation: every execution races.
    let mp = "VULKAN mp-plain\n{ x=0; f=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.sc0 x, 1 | ld.sc0 r0, f ;\n st.sc0 f, 1 | ld.sc0 r1, x ;\nexists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let file = std::env::temp_dir().join(format!("vkmm-states-{}.litmus", std::process::id()));
    std::fs::write(&file, mp).unwrap();
    let (code, out, err) = common::vkmm(&["check", "--property", "states", file.to_str().unwrap()]);
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Data races: yes (among the witnesses; other pairs may race too)"),
        "{out}"
    );
}

/// A listing is not a verdict: suites, explain and show refuse it.
#[test]
fn other_commands_refuse_the_states_property() {
    let file = "tests/fixtures/litmus-scaling/barrier-flags-3.litmus";
    for args in [
        [
            "suite",
            "tests/fixtures/litmus-scaling",
            "--property",
            "states",
        ],
        ["explain", file, "--property", "states"],
    ] {
        let (code, _, err) = common::vkmm(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("--property states"), "{args:?}: {err}");
    }
}
