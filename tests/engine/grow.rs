//! The execution-graph search (`engine::grow`, docs/design-programs-search.md
//! "Step 1: what is built") against the reference enumeration
//! (`Limits::reference`).
//!
//! What must agree, and why: the graph search produces each execution in
//! which program order and reads-from are acyclic once (its revisits never
//! make a read read a write that follows it through program order and
//! reads-from), and hands it to the same model evaluation. So on a program
//! without loops (no unrolling bound in play) its consistent executions,
//! counted by final registers, final memory and flags raised, are exactly
//! the reference's consistent executions whose program order and
//! reads-from are acyclic. Each file also checks that no complete graph
//! was produced twice (the maximality condition of the revisits) and that
//! none of the graph search's executions has such a cycle.
//!
//! The default tier runs every second of the repository's own litmus tests and every
//! sixteenth corpus file; `--features slow-tests` runs every file of both.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::ir::{Program, Stmt};
use vkmm::testing::engine::{Bounds, CheckError, Limits};
use vkmm::testing::{Counts, execution_counts};

/// Whether some thread jumps back (a loop: the unrolling bound applies).
fn has_loops(p: &Program) -> bool {
    p.threads.iter().any(|t| {
        let label_at = |l: &str| {
            t.code
                .iter()
                .position(|s| matches!(s, Stmt::Label { name, .. } if name == l))
        };
        t.code.iter().enumerate().any(|(k, s)| match s {
            Stmt::Goto { label, .. } | Stmt::Branch { label, .. } => {
                label_at(label).is_none_or(|at| at <= k)
            }
            _ => false,
        })
    })
}

/// What one file gave.
enum Outcome {
    /// Both searches agree on this many consistent executions.
    Agree(u64),
    /// Not compared, and why (a loop, a refused feature, a limit, a
    /// file that does not read).
    Skipped(&'static str),
    /// A difference, in words.
    Differ(String),
}

fn limits() -> Limits {
    Limits {
        bounds: Bounds {
            max_executions: 50_000,
            timeout: Some(std::time::Duration::from_secs(10)),
            ..Bounds::default()
        },
        ..Limits::default()
    }
    .reference()
}

fn compare(path: &Path) -> Outcome {
    let session = vkmm::Session::new();
    let Ok(program) = session.load_file(path) else {
        return Outcome::Skipped("does not read");
    };
    if has_loops(&program) {
        return Outcome::Skipped("loops");
    }
    let Ok(models) = session.models_for(&program) else {
        return Outcome::Skipped("no model");
    };
    let model = &models.chains;
    let grow = Limits {
        grow: true,
        ..limits()
    };
    let grown = match execution_counts(&program, model, grow, true, true) {
        Ok(c) => c,
        Err(CheckError::Exec(e)) if e.message.contains("does not run") => {
            return Outcome::Skipped("refused by the graph search");
        }
        Err(e) => return Outcome::Differ(format!("graph search failed: {e}")),
    };
    let reference = match execution_counts(&program, model, limits(), false, true) {
        Ok(c) => c,
        Err(_) => return Outcome::Skipped("the reference fails"),
    };
    if !reference.coverage.complete() || !grown.coverage.complete() {
        return Outcome::Skipped("a limit");
    }
    differences(&grown, &reference)
}

fn differences(grown: &Counts, reference: &Counts) -> Outcome {
    let stats = grown.stats.expect("the graph search says what it did");
    let mut out = Vec::new();
    if stats.duplicates > 0 {
        out.push(format!(
            "{} complete graphs produced twice",
            stats.duplicates
        ));
    }
    if grown.cyclic > 0 {
        out.push(format!(
            "{} graph executions with a po|rf cycle",
            grown.cyclic
        ));
    }
    for (state, &n) in &reference.states {
        let g = grown.states.get(state).copied().unwrap_or(0);
        if g != n {
            out.push(format!("{state}: reference {n}, graphs {g}"));
        }
    }
    for (state, &g) in &grown.states {
        if !reference.states.contains_key(state) {
            out.push(format!("{state}: reference 0, graphs {g}"));
        }
    }
    if out.is_empty() {
        Outcome::Agree(grown.states.values().sum())
    } else {
        Outcome::Differ(out.join("; "))
    }
}

/// The corpus files compared: every one with `slow-tests`, else every
/// sixteenth.
fn corpus_files() -> Vec<PathBuf> {
    let stride = if cfg!(feature = "slow-tests") { 1 } else { 16 };
    let mut files = Vec::new();
    for sub in [
        "khronos-alloy",
        "dat3m-vulkan",
        "dat3m-opencl",
        "dat3m-spirv",
    ] {
        if let Some(dir) = common::corpus_or_skip(sub) {
            let mut here = Vec::new();
            common::files_below_with(&dir, &["litmus", "test", "spvasm"], &|_| false, &mut here);
            files.extend(here.into_iter().step_by(stride));
        }
    }
    files
}

fn run(files: &[PathBuf]) -> (u64, usize, Vec<String>) {
    let (mut executions, mut agreed) = (0u64, 0usize);
    let mut differ = Vec::new();
    let mut skipped: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in files {
        match compare(f) {
            Outcome::Agree(n) => {
                agreed += 1;
                executions += n;
            }
            Outcome::Skipped(why) => *skipped.entry(why).or_default() += 1,
            Outcome::Differ(d) => differ.push(format!("{}: {d}", f.display())),
        }
    }
    eprintln!(
        "{} files: {agreed} agree ({executions} consistent executions), skipped {skipped:?}, {} differ",
        files.len(),
        differ.len()
    );
    (executions, agreed, differ)
}

#[test]
fn own_tests_agree_with_the_reference() {
    // Every own test with `slow-tests`, else every second.
    let stride = if cfg!(feature = "slow-tests") { 1 } else { 2 };
    let files: Vec<_> = common::own_litmus_files(&|_| false)
        .into_iter()
        .step_by(stride)
        .collect();
    let (executions, agreed, differ) = run(&files);
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // The own tests hold dozens of loop-free programs the search runs.
    assert!(
        agreed >= 20 / stride && executions > 0,
        "only {agreed} files compared"
    );
}

#[test]
fn corpus_agrees_with_the_reference() {
    let files = corpus_files();
    if files.is_empty() {
        return; // every corpus is missing (each said so above)
    }
    let (_, agreed, differ) = run(&files);
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(
        agreed >= files.len() / 4,
        "only {agreed} of {} files compared",
        files.len()
    );
}

/// The counts of both searches on a Vulkan litmus test given as text.
fn counts_of(text: &str) -> (Counts, Counts) {
    let session = vkmm::Session::new();
    let program = session.load_text("t.litmus", text).unwrap();
    let models = session.models_for(&program).unwrap();
    let grow = Limits {
        grow: true,
        ..limits()
    };
    let grown = execution_counts(&program, &models.chains, grow, true, false).unwrap();
    let reference = execution_counts(&program, &models.chains, limits(), false, false).unwrap();
    (grown, reference)
}

/// The number of consistent executions whose state holds every piece of
/// `parts` (`0:r0=1`, `x=[2]`, ...).
fn with(c: &Counts, parts: &[&str]) -> u64 {
    c.states
        .iter()
        .filter(|(k, _)| parts.iter().all(|p| k.split(' ').any(|w| w == *p)))
        .map(|(_, n)| n)
        .sum()
}

const HEAD: &str = "VULKAN t\n{ x=0; y=0; }\n";

#[test]
fn message_passing_read_first_revisits_each_read_once() {
    // P0 reads y then x before P1 writes: each read gets P1's write only by
    // a revisit. Graphs: r0 in {init, y=1} times r1 in {init, x=1}: 4, each
    // once. The acquire/release pair with the available/visible payload
    // forbids r0=1, r1=0 (the model's point), so 3 are consistent; one
    // write per location: one coherence order each.
    let text = format!(
        "{HEAD} P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n ld.atom.acq.dv.sc0.semsc0 r0, y | st.av.dv.sc0 x, 1 ;\n ld.vis.dv.sc0 r1, x | st.atom.rel.dv.sc0.semsc0 y, 1 ;\nexists (P0:r0 == 1 /\\ P0:r1 == 0)\n"
    );
    let (grown, reference) = counts_of(&text);
    let stats = grown.stats.unwrap();
    assert_eq!((stats.complete, stats.duplicates), (4, 0), "{stats:?}");
    assert!(stats.revisits >= 2, "{stats:?}");
    assert_eq!(grown.states.values().sum::<u64>(), 3);
    assert_eq!(with(&grown, &["0:r0=1", "0:r1=0"]), 0);
    assert_eq!(with(&grown, &["0:r0=1", "0:r1=1"]), 1);
    assert_eq!(grown.states, reference.states);
}

#[test]
fn a_read_and_two_later_writers_give_three_graphs() {
    // P0 reads x before P1 and P2 write it: the read reads the initial
    // value, P1's or P2's write, one graph each (the revisit by P2's write
    // after P1's revisit is refused: P1's write, which it would remove, is
    // in the prefix of a revisiting write). Two atomic writes of one
    // location: two coherence orders per graph, each consistent (one read
    // closes no cycle), so 6 executions, the final x the later write's.
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n ld.atom.dv.sc0 r0, x | st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 2 ;\nexists (P0:r0 == 0)\n";
    let (grown, reference) = counts_of(text);
    let stats = grown.stats.unwrap();
    assert_eq!((stats.complete, stats.duplicates), (3, 0), "{stats:?}");
    assert_eq!(grown.states.values().sum::<u64>(), 6);
    for r in 0..3 {
        assert_eq!(with(&grown, &[&format!("0:r0={r}")]), 2, "r0={r}");
    }
    assert_eq!(grown.states, reference.states);
}

#[test]
fn load_buffering_is_left_out() {
    // Each thread reads one location and then writes the other: the
    // execution in which both read the other's write (r0 = r1 = 1) has a
    // cycle in program order and reads-from. The Vulkan model has no axiom
    // against it, so the reference lists it; the graph search grows
    // graphs in program order and never makes it: 3 graphs, not 4.
    let text = format!(
        "{HEAD} P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r1, y ;\n st.atom.dv.sc0 y, 1 | st.atom.dv.sc0 x, 1 ;\nexists (P0:r0 == 1 /\\ P1:r1 == 1)\n"
    );
    let (grown, reference) = counts_of(&text);
    assert_eq!(grown.stats.unwrap().complete, 3);
    assert_eq!((grown.cyclic, reference.cyclic), (0, 1));
    assert_eq!(with(&grown, &["0:r0=1", "1:r1=1"]), 0);
    assert_eq!(with(&reference, &["0:r0=1", "1:r1=1"]), 1);
    assert_eq!(grown.states.values().sum::<u64>(), 3);
}

#[test]
fn a_revisited_read_modify_write_writes_again() {
    // Two atomic increments of x. Graphs: both read 0; P1 reads P0's 1;
    // P0 reads P1's 1 (P1's write part revisits P0's read, whose write
    // part is removed and written again as 2): 3 graphs. RMW atomicity
    // rejects the first under either coherence order, leaving 2
    // executions, each ending with x = 2.
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, x, 1 | rmw.atom.dv.sc0.add r1, x, 1 ;\nexists (P0:r0 == 0)\n";
    let (grown, reference) = counts_of(text);
    let stats = grown.stats.unwrap();
    assert_eq!((stats.complete, stats.duplicates), (3, 0), "{stats:?}");
    assert!(stats.revisits >= 1);
    assert_eq!(grown.states.values().sum::<u64>(), 2);
    assert_eq!(with(&grown, &["0:r0=1", "1:r1=0", "x=[2]"]), 1);
    assert_eq!(with(&grown, &["0:r0=0", "1:r1=1", "x=[2]"]), 1);
    assert_eq!(grown.states, reference.states);
}

#[test]
fn a_spin_loop_is_cut_at_the_bound_and_the_answer_is_bounded() {
    // examples/mp.litmus: P1 spins on the flag. P0 runs first, so each
    // load of the flag reads 0 or P0's 1. The loop's head runs at most
    // unroll + 1 = 3 times: leaving at the 1st, 2nd or 3rd load gives 3
    // runs of P1, each reading x as 0 or 1 (6 graphs; the acquire/visible
    // pair makes only x = 1 consistent: 3 executions), and the run that
    // reads 0 three times is cut at the head: one graph cut, the answer
    // bounded.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp.litmus");
    let session = vkmm::Session::new();
    let program = session.load_file(&path).unwrap();
    let models = session.models_for(&program).unwrap();
    let grow = Limits {
        grow: true,
        ..limits()
    };
    let c = execution_counts(&program, &models.chains, grow, true, false).unwrap();
    let stats = c.stats.unwrap();
    assert_eq!((stats.complete, stats.cut), (6, 1), "{stats:?}");
    // Cut paths: the analyses report the answer bounded.
    assert_eq!(c.coverage.cut_paths, 1);
    assert_eq!(c.states.values().sum::<u64>(), 3);
    assert_eq!(with(&c, &["1:r1=1"]), 3);
}

#[test]
fn the_execution_limit_truncates_the_search() {
    // The three-writer program has 6 candidate executions (3 graphs, 2
    // coherence orders each): a limit of 2 evaluations stops the walk
    // before its end, and the coverage says truncated at that limit.
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n ld.atom.dv.sc0 r0, x | st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 2 ;\nexists (P0:r0 == 0)\n";
    let session = vkmm::Session::new();
    let program = session.load_text("t.litmus", text).unwrap();
    let models = session.models_for(&program).unwrap();
    let mut grow = Limits {
        grow: true,
        ..limits()
    };
    grow.bounds.max_executions = 2;
    let c = execution_counts(&program, &models.chains, grow, true, false).unwrap();
    assert!(c.coverage.truncated, "{:?}", c.coverage);
    assert_eq!(
        c.coverage.stopped_by,
        Some(vkmm::testing::engine::LimitKind::MaxExecutions)
    );
    assert!(c.states.values().sum::<u64>() <= 2);
}

#[test]
fn unsupported_programs_are_refused_with_the_statement() {
    // A control barrier: the search says which statement it cannot run.
    let text = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.sc0 x, 1 | cbar.wg 0 ;\n cbar.wg 0 | ld.sc0 r0, x ;\nexists (P1:r0 == 1)\n";
    let session = vkmm::Session::new();
    let program = session.load_text("t.litmus", text).unwrap();
    let models = session.models_for(&program).unwrap();
    let grow = Limits {
        grow: true,
        ..limits()
    };
    let e = execution_counts(&program, &models.chains, grow, true, false).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("line 5") && msg.contains("control barrier"),
        "{msg}"
    );
}
