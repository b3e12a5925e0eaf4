//! Differential test of the model's partial evaluation per test
//! (`cat::Model::prepare`, module `cat::specialise`: static parts of
//! dynamic statements computed once, calls inlined, empty static operands
//! annihilating `;` and `&`) against the plain staging
//! (`Session::specialise(false)`, `--no-specialise`).
//!
//! The rewritten statements compute the same values, and the pruning uses
//! the polarity analysis of the model as written, so the two searches must
//! be identical, not only their answers: the same final states with the
//! same execution counts, the same numbers of executions, partial
//! evaluations and consistent executions, the same racing pairs, the same
//! `.test` answers. Compared on the repository's own tests (every
//! directory of litmus tests, Vulkan, OpenCL, interlock, host, appendix),
//! the examples, and the dat3m-vulkan, khronos-alloy and dat3m-opencl
//! corpora (the xf-barrier tests are left out: minutes for the reference).

mod common;

use std::path::{Path, PathBuf};
use vkmm::Session;
use vkmm::analysis::Checked;

const MAX_EXECUTIONS: u64 = 20_000;

fn session(specialise: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .specialise(specialise)
}

/// Everything the two searches report, minus the times.
fn summary(c: &Checked) -> String {
    match c {
        Checked::Litmus(o) => format!(
            "states {:?}\ncondition {:?} race-free {:?}\nraces {:?}\ndivergence {:?} stalls {:?}\n\
             executions {} partial {} consistent {} cut {} truncated {} stopped {:?}",
            o.states,
            o.condition_holds,
            o.race_free,
            o.races
                .iter()
                .map(|r| format!("{} / {} @ {}", r.first, r.second, r.location))
                .collect::<Vec<_>>(),
            o.barrier_divergence,
            o.barrier_stalls,
            o.executions,
            o.partial_evaluations,
            o.consistent,
            o.cut_paths,
            o.truncated,
            o.stopped_by,
        ),
        Checked::Queries(o) => o
            .queries
            .iter()
            .map(|q| format!("line {}: {:?}\n", q.line, q.actual))
            .collect(),
        Checked::Termination(o) => format!("{:?}", o.verdict),
    }
}

fn compare_file(path: &Path) -> Vec<String> {
    let name = path.display().to_string();
    let run = |on| session(on).check_file(path);
    match (run(false), run(true)) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (summary(&a), summary(&b));
            if a == b {
                Vec::new()
            } else {
                vec![format!("{name}:\nplain:\n{a}\npartially evaluated:\n{b}")]
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

fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

fn compare_all(files: &[PathBuf]) {
    let diffs = common::on_two_threads(files, &compare_file);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
fn own_tests_and_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir()
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("litmus"))
        {
            common::litmus_files_below(&p, &skipped, &mut files);
        }
    }
    common::litmus_files_below(&root.join("examples"), &skipped, &mut files);
    assert!(files.len() > 200, "{} files", files.len());
    compare_all(&files);
}

#[test]
fn corpora() {
    for sub in ["dat3m-vulkan", "khronos-alloy", "dat3m-opencl"] {
        let Some(dir) = common::corpus(sub) else {
            eprintln!("SKIPPED: ../shared/corpus/{sub} is missing");
            continue;
        };
        let mut files = Vec::new();
        common::litmus_files_below(&dir, &skipped, &mut files);
        assert!(!files.is_empty());
        compare_all(&files);
    }
}
