//! Differential tests of race bounds (`Reduction::RaceBounds`,
//! `--no race-bounds`): a race question skips the combinations of paths,
//! and the combinations of orders, under which the model's race flags,
//! evaluated once with the dynamic names (or `rf` and `RFINIT` alone) at
//! their least values, are not raised (`engine::reduce::race_bounds` has
//! the argument).
//!
//! Each comparison asks the races property (a suite's races rows,
//! `check --property races`) of the reference enumeration (`--engine
//! reference`), of the default search without race bounds and of the
//! default search: the race verdicts must be the reference's, and the
//! racing pairs the search without race bounds reports. The corpus-wide
//! comparison runs as the `race-bounds` row of [`crate::table`].

use crate::common;
use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;
use vkmm::analysis::{Checked, LitmusOutcome};
use vkmm::{Property, Reduction, Reductions, Session};

/// The race question under `reductions`.
fn session(reductions: Reductions) -> Session {
    Session::new()
        .reductions(reductions)
        .decide(Some(Property::Races))
}

/// The three searches: the reference, the default without race bounds,
/// the default.
fn sessions() -> [(&'static str, Session); 3] {
    [
        ("reference", session(Reductions::none())),
        (
            "without race-bounds",
            session(Reductions::all().without(Reduction::RaceBounds)),
        ),
        ("race-bounds", session(Reductions::all())),
    ]
}

/// The race verdict and the racing pairs, `None` for a search a limit
/// stopped (under a budget the walks see different executions).
fn answers(o: &LitmusOutcome) -> Option<(Option<bool>, Vec<String>)> {
    let prefix_stopped = o.prefix_walk.is_some_and(|p| p.stopped_by.is_some());
    if o.truncated || o.stopped_by.is_some() || prefix_stopped {
        return None;
    }
    let races = o
        .races
        .iter()
        .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
        .collect();
    Some((o.holds(Property::Races), races))
}

/// The differences between the three searches' outcomes (`outcomes` in
/// [`sessions`]'s order): verdicts against the reference, racing pairs
/// against the search without race bounds.
fn differences(name: &str, outcomes: &[LitmusOutcome]) -> Vec<String> {
    let [reference, without, with] = outcomes else {
        return vec![format!("{name}: {} outcomes", outcomes.len())];
    };
    let mut diffs = Vec::new();
    if let (Some(w), Some(b)) = (answers(without), answers(with)) {
        if w != b {
            diffs.push(format!("{name}: without race-bounds {w:?}, with {b:?}"));
        }
        if let Some(r) = answers(reference)
            && r.0 != b.0
        {
            diffs.push(format!(
                "{name}: reference {:?}, race-bounds {:?}",
                r.0, b.0
            ));
        }
    }
    if without.race_bounded > 0 || reference.race_bounded > 0 {
        diffs.push(format!("{name}: a search without race-bounds skipped"));
    }
    diffs
}

/// The `race-bounds` row of the table: the three searches on one file.
pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    let mut outcomes = Vec::new();
    for (label, s) in sessions() {
        match s.max_executions(20_000).check_file(path) {
            Ok(Checked::Litmus(o)) => outcomes.push(*o),
            // Queries and termination: no race question.
            Ok(_) => return Vec::new(),
            Err(e) if label == "reference" => return vec![format!("{name}: {e}")],
            Err(e) => return vec![format!("{name} ({label}): {e}")],
        }
    }
    differences(&name, &outcomes)
}

/// The files the row leaves out: none.
pub(crate) fn skipped(_: &Path) -> bool {
    false
}

/// The three searches on `text`.
fn outcomes_of(text: &str) -> Vec<LitmusOutcome> {
    sessions()
        .into_iter()
        .map(|(_, s)| {
            common::litmus(
                s.max_executions(5_000)
                    .timeout(Some(Duration::from_secs(3)))
                    .check_text("t.litmus", text)
                    .unwrap_or_else(|e| panic!("{e}\n{text}")),
            )
        })
        .collect()
}

/// The atomicOps-like fixture: every access atomic, barriers between the
/// phases. By hand: race-free (atomics are mutually ordered; the plain
/// zero-initialisation of the workgroup atomic is ordered by naga's
/// barrier). With race bounds every combination of orders is refuted by
/// its bound before a reads-from choice: no candidate is evaluated, and
/// the states are reported as partial. Without, the candidates are
/// walked: over a thousand executions.
#[test]
fn every_access_atomic_is_answered_from_the_bounds() {
    let file = "tests/fixtures/wgsl/atomic-phases.wgsl";
    let run = |r: Reductions| common::litmus(session(r).threads(1).check_file(file).unwrap());
    let with = run(Reductions::all());
    let without = run(Reductions::all().without(Reduction::RaceBounds));
    for o in [&with, &without] {
        assert!(!o.truncated, "{:?}", o.stopped_by);
        assert_eq!(o.holds(Property::Races), Some(true));
        assert!(o.races.is_empty());
    }
    assert_eq!(with.executions, 0);
    assert!(with.race_bounded > 0);
    assert!(with.states_incomplete().is_some());
    assert!(without.executions >= 1_000, "{}", without.executions);
    assert_eq!(without.race_bounded, 0);
    assert!(
        with.partial_evaluations * 10 < without.executions + without.partial_evaluations,
        "{} / {}",
        with.partial_evaluations,
        without.executions + without.partial_evaluations
    );
}

/// A plain store beside the atomics races with the other invocation's
/// load; the racing pair is the one the search without race bounds
/// reports, and the reference agrees on the verdict.
#[test]
fn a_plain_access_still_races() {
    let text = "VULKAN plain\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.atom.dv.sc0 y, 1 | ld.atom.dv.sc0 r0, y ;\n st.sc0 x, 1 | ld.sc0 r1, x ;\n";
    let outcomes = outcomes_of(text);
    assert_eq!(differences("plain", &outcomes), Vec::<String>::new());
    assert_eq!(outcomes[2].holds(Property::Races), Some(false));
    assert_eq!(outcomes[2].races.len(), 1);
}

/// A message passed with release and acquire: race-free, and the bound
/// of the orders under which the acquire reads the release's write keeps
/// them (it is the full search's); the three searches agree.
#[test]
fn message_passing_agrees() {
    let text = "VULKAN mp\n{ x=0; y=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.av.dv.sc0 x, 1 | ld.atom.acq.dv.sc0.semsc0 r0, y ;\n st.atom.rel.dv.sc0.semsc0 y, 1 | beq r0, 0, L ;\n | ld.vis.dv.sc0 r1, x ;\n | L: ;\n";
    let outcomes = outcomes_of(text);
    assert_eq!(differences("mp", &outcomes), Vec::<String>::new());
}

/// Generated programs (those of `crate::symbolic`, without their
/// condition, so that races are the whole question): the same verdicts
/// as the reference, the same racing pairs as without race bounds.
fn without_condition(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("exists"))
        .map(|l| format!("{l}\n"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(128), failure_persistence: crate::common::regressions("differential-race-bounds"), ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_agree(text in crate::symbolic::program()) {
        let text = without_condition(&text);
        let outcomes = outcomes_of(&text);
        let diffs = differences("generated", &outcomes);
        prop_assert!(diffs.is_empty(), "{:?}\n{}", diffs, text);
    }
}
