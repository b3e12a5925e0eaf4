//! Differential tests of the walks over barrier prefixes
//! (`Reduction::BarrierPrefixes`, `--no barrier-prefixes`): where races
//! are what a check decides, the executions in which every thread waits
//! at its `k`-th control barrier are walked first
//! (`engine::reduce::barrier_prefixes` has the argument that a race found
//! there is one of the whole program's executions).
//!
//! So the race verdict is the reference's: racy where the walk without the
//! reduction finds a race, race-free where it finds none (the prefixes
//! never answer "no race": the whole walk follows them). Which pair is
//! reported first may differ, and so may the walk's counts. A search
//! either side a limit stopped or truncated is not compared (their
//! budgets differ: the prefixes take an eighth of it).
//!
//! The corpus-wide comparison runs as the `barrier-prefixes` row of
//! [`crate::table`]; tests/engine/barrier_prefixes.rs has the hand-derived
//! cases.

use crate::common;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome, Property};

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(on: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .decide(Some(Property::Races))
        .reduction(vkmm::Reduction::BarrierPrefixes, on)
}

/// Files whose walks reach the evaluation limit either way.
pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// The race verdict, `None` for a search a limit stopped or truncated.
fn verdict(o: &LitmusOutcome) -> Option<Option<bool>> {
    let prefix_stopped = o.prefix_walk.is_some_and(|p| p.stopped_by.is_some());
    if o.truncated || o.stopped_by.is_some() || (prefix_stopped && o.race_free.is_none()) {
        return None;
    }
    Some(o.race_free)
}

/// The differences on one file (none when the two agree, or when either
/// is stopped by a limit, or both fail alike).
pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    compare_with(path, &|s| s)
}

/// [`compare_file`], both sessions set by `with` too.
fn compare_with(path: &Path, with: &dyn Fn(Session) -> Session) -> Vec<String> {
    let name = path.display().to_string();
    match (
        with(session(false)).check_file(path),
        with(session(true)).check_file(path),
    ) {
        (Ok(Checked::Litmus(a)), Ok(Checked::Litmus(b))) => match (verdict(&a), verdict(&b)) {
            (Some(x), Some(y)) if x != y => vec![format!(
                "{name}: race-free {x:?} without barrier prefixes, {y:?} with"
            )],
            _ => Vec::new(),
        },
        (Ok(a), Ok(b)) => {
            let (a, b) = (common::search_summary(&a), common::search_summary(&b));
            if a == b {
                Vec::new()
            } else {
                vec![format!(
                    "{name}:\nwithout barrier prefixes:\n{a}\nwith:\n{b}"
                )]
            }
        }
        (Err(a), Err(b)) if a.to_string() == b.to_string() => Vec::new(),
        (a, b) => vec![format!(
            "{name}: {:?} / {:?}",
            a.err().map(|e| e.to_string()),
            b.err().map(|e| e.to_string())
        )],
    }
}

/// The shaders of tests/fixtures/barrier-prefixes (their barriers are
/// what the reduction walks to), each with one and with two workgroups.
pub(crate) fn fixtures() -> Vec<(std::path::PathBuf, vkmm::frontend::ShaderOptions)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/barrier-prefixes");
    let files = common::files_with_ext(&dir, "wgsl");
    assert!(files.len() >= 4, "{files:?}");
    let at = |workgroups| vkmm::frontend::ShaderOptions {
        workgroups: Some([workgroups, 1, 1]),
        ..Default::default()
    };
    files
        .iter()
        .flat_map(|f| [(f.clone(), at(1)), (f.clone(), at(2))])
        .collect()
}

/// [`fixtures`]: the race verdict with the reduction is the walk's
/// without it.
#[test]
fn the_barrier_prefix_fixtures() {
    let mut diffs = Vec::new();
    for (file, shader) in &fixtures() {
        diffs.extend(compare_with(file, &|s| s.shader(shader.clone())));
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}
