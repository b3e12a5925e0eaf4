//! The comparison shared by the reductions that drop paths no execution
//! has (`counters`, `coherence-cuts`): with and without the reduction the
//! executions are the same ones, so the final states with their counts,
//! the consistent executions, the races and the barrier findings agree;
//! what may differ is the walk. The reduction never cuts more paths, and
//! a verdict decided without it is the same with it, while one left
//! undecided by cut paths may be decided where fewer are cut.

use crate::common;

use std::path::Path;
use vkmm::analysis::{Checked, LitmusOutcome};
use vkmm::{Reduction, Session};

const MAX_EXECUTIONS: u64 = 20_000;

/// A session with `reduction` on or off, under an execution limit that
/// keeps the corpus walks short.
pub(crate) fn session(reduction: Reduction, on: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(reduction, on)
}

/// Files whose walk the limit stops either way.
pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// What must be the same with and without the reduction, and the paths
/// cut; `None` for a search a limit stopped or truncated (under a budget
/// the two walks see different executions).
fn answers(o: &LitmusOutcome) -> Option<(String, usize)> {
    let prefix_stopped = o.prefix_walk.is_some_and(|p| p.stopped_by.is_some());
    if o.truncated || o.stopped_by.is_some() || prefix_stopped {
        return None;
    }
    let races: Vec<String> = o
        .races
        .iter()
        .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
        .collect();
    Some((
        format!(
            "states {:?}\nconsistent {}\nraces {races:?}\ndivergence {:?} stalls {:?}",
            o.states, o.consistent, o.barrier_divergence, o.barrier_stalls,
        ),
        o.cut_paths,
    ))
}

/// The differences between the search without the reduction called
/// `label` (`off`) and with it (`on`) on one outcome listing.
pub(crate) fn compare(
    label: &str,
    name: &str,
    off: &LitmusOutcome,
    on: &LitmusOutcome,
) -> Vec<String> {
    let (Some((a, cut_off)), Some((b, cut_on))) = (answers(off), answers(on)) else {
        return Vec::new();
    };
    let mut diffs = Vec::new();
    if a != b {
        diffs.push(format!("{name}:\nwithout {label}:\n{a}\nwith:\n{b}"));
    }
    if cut_on > cut_off {
        diffs.push(format!(
            "{name}: {cut_on} paths cut with {label}, {cut_off} without"
        ));
    }
    let fewer_cut = cut_on < cut_off;
    for (what, x, y) in [
        ("condition", off.condition_holds, on.condition_holds),
        ("race-free", off.race_free, on.race_free),
    ] {
        if x != y && !(x.is_none() && fewer_cut) {
            diffs.push(format!("{name}: {what} {x:?} without {label}, {y:?} with"));
        }
    }
    diffs
}

/// The differences on one file (none when the two agree, or when either
/// is stopped by a limit, or both fail alike).
pub(crate) fn compare_file(reduction: Reduction, label: &str, path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    match (
        session(reduction, false).check_file(path),
        session(reduction, true).check_file(path),
    ) {
        (Ok(Checked::Litmus(a)), Ok(Checked::Litmus(b))) => compare(label, &name, &a, &b),
        (Ok(a), Ok(b)) => {
            let (a, b) = (common::search_summary(&a), common::search_summary(&b));
            if a == b {
                Vec::new()
            } else {
                vec![format!("{name}:\nwithout {label}:\n{a}\nwith:\n{b}")]
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
