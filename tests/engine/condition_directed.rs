//! The outcome-directed walk for condition verdicts (issues 11 and 17):
//! where only the condition is asked (`vkmm suite --property condition`,
//! [`Session::suite`] with [`Property::Condition`], the SPIR-V
//! `assertions` rows), a candidate whose final state is known before its
//! evaluation is evaluated only when that state could decide the verdict
//! and is not recorded yet ([`vkmm::Reduction::OutcomeDirected`]).
//!
//! Why the final states alone decide: the corpora's verdicts are defined
//! over them (../shared/corpus/README.md: "`1` means the property holds:
//! for `exists`, some consistent execution satisfies the condition; for
//! `~exists`, none does; for `forall`, every one does"), over the
//! executions passing the `filter` (Dat3M's `@Filter` for SPIR-V), and
//! the filter and the condition read registers and final values only,
//! which the state holds.
//!
//! The oracle is the full walk (`--no-outcome-directed`, every other lever
//! as by default), which evaluates every candidate until the verdict is
//! known. On every litmus and SPIR-V file of the repository and of the
//! dat3m-vulkan and dat3m-opencl corpora, on the `checked` assertion rows
//! of dat3m-spirv (a time limit per row), and on the generated programs of
//! tests/differential*.rs (three quantifiers each), the directed walk
//! must give the full walk's verdict wherever the full walk decides, be
//! decided wherever it is complete, cut the same paths, and evaluate no
//! more candidates. khronos-alloy does not apply: its `.test` queries ask
//! about `consistent[X]` and race counts of the candidates a test pins,
//! not about final states.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;
use vkmm::Session;
use vkmm::analysis::FileError;
use vkmm::analysis::{Checked, LitmusOutcome, Property};
use vkmm::frontend::LocalMemory;

const MAX_EXECUTIONS: u64 = 20_000;

fn session(directed: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .decide(Some(Property::Condition))
        .reduction(vkmm::Reduction::OutcomeDirected, directed)
}

fn litmus(r: Result<Checked, FileError>) -> Result<Option<LitmusOutcome>, String> {
    match r {
        Ok(Checked::Litmus(o)) => Ok(Some(*o)),
        Ok(_) => Ok(None),
        Err(e) => Err(e.error),
    }
}

/// Both walks of one file under `base` (a session without the lever set).
fn both(path: &Path, base: &dyn Fn(bool) -> Session) -> Vec<String> {
    let run = |directed: bool| {
        litmus(base(directed).check_file(path).map_err(|e| FileError {
            file: path.display().to_string(),
            error: e.to_string(),
        }))
    };
    compare_results(&path.display().to_string(), run(false), run(true))
}

fn compare_results(
    name: &str,
    full: Result<Option<LitmusOutcome>, String>,
    directed: Result<Option<LitmusOutcome>, String>,
) -> Vec<String> {
    match (full, directed) {
        (Ok(Some(f)), Ok(Some(d))) => common::directed_differences(name, &f, &d),
        (Ok(None), Ok(None)) => Vec::new(),
        (Err(a), Err(b)) if a == b => Vec::new(),
        (a, b) => vec![format!(
            "{name}: the walks end differently: full {:?}, directed {:?}",
            a.map(|o| o.map(|o| o.condition_holds)),
            b.map(|o| o.map(|o| o.condition_holds))
        )],
    }
}

/// Every `.litmus` and `.spvasm` file below `dir`, sorted.
fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    common::files_below_with(dir, &["litmus", "spvasm"], &|_| false, out);
}

fn own_files() -> Vec<PathBuf> {
    let mut dirs = common::own_test_dirs();
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"));
    let mut files = Vec::new();
    for d in dirs {
        files_below(&d, &mut files);
    }
    files
}

/// The hand-derived tests of tests/fixtures/litmus-directed (verdicts and the
/// sentences they follow from in each file; expected-condition.csv):
/// both walks give them, and the directed one evaluates fewer candidates
/// wherever a state fails the filter or cannot be a witness
/// (mp-forall-fails: its first candidate is the counterexample, for both).
#[test]
fn hand_derived_verdicts_with_fewer_evaluations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-directed");
    let csv = dir.join("expected-condition.csv");
    let run = |directed: bool| {
        let s = Session::new()
            .reduction(vkmm::Reduction::OutcomeDirected, directed)
            .suite(&dir, Some(&csv), Property::Condition)
            .unwrap();
        assert_eq!((s.total, s.passed), (5, 5), "{:?}", s.failed);
        s.records
            .iter()
            .map(|r| {
                let name = Path::new(&r.file).file_name().unwrap();
                (name.to_string_lossy().into_owned(), r.executions)
            })
            .collect::<Vec<_>>()
    };
    let (full, directed) = (run(false), run(true));
    for ((name, f), (_, d)) in full.iter().zip(&directed) {
        if name == "mp-forall-fails.litmus" {
            assert_eq!((*f, *d), (1, 1), "{name}");
        } else {
            assert!(d < f, "{name}: directed {d}, full {f} executions");
        }
    }
}

#[test]
fn own_files_agree() {
    let files = own_files();
    assert!(files.len() > 300, "{} files", files.len());
    let diffs = common::on_two_threads(&files, &|p| both(p, &session));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

fn corpus_agrees(sub: &str, base: &(dyn Fn(bool) -> Session + Sync)) {
    let Some(dir) = common::corpus_or_skip(sub) else {
        return;
    };
    let mut files = Vec::new();
    files_below(&dir, &mut files);
    assert!(files.len() > 100, "{} files", files.len());
    let diffs = common::on_two_threads(&files, &|p| both(p, base));
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn dat3m_vulkan_agrees() {
    corpus_agrees("dat3m-vulkan", &session);
    // The NOCHAINS rows' model too.
    corpus_agrees("dat3m-vulkan", &|d| session(d).model("vulkan-nochains"));
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn dat3m_opencl_agrees() {
    // The references' reading of `local` (the CI run of the CSVs).
    corpus_agrees("dat3m-opencl", &|d| {
        session(d).local_memory(LocalMemory::Shared)
    });
}

/// The `checked` assertion rows of dat3m-spirv, each with its bound and
/// filter option, 10 s per walk at most (the execution limit is the one
/// that binds; a row stopped by the clock is not compared).
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn dat3m_spirv_assertion_rows_agree() {
    let Some(dir) = common::corpus_or_skip("dat3m-spirv") else {
        return;
    };
    let (items, _) = vkmm::analysis::suite::plan(&dir, Some(&dir.join("expected.csv"))).unwrap();
    let items: Vec<_> = items
        .into_iter()
        .filter(|i| {
            i.row.as_ref().is_some_and(|r| {
                r.checked && r.property == vkmm::analysis::expected::RowProperty::Assertions
            })
        })
        .collect();
    assert!(items.len() > 90, "{} rows", items.len());
    let paths: Vec<PathBuf> = (0..items.len())
        .map(|i| PathBuf::from(i.to_string()))
        .collect();
    let newly = std::sync::Mutex::new(Vec::new());
    let diffs = common::on_two_threads(&paths, &|p| {
        let item = &items[p.to_string_lossy().parse::<usize>().unwrap()];
        let run = |directed: bool| {
            litmus(
                session(directed)
                    .max_executions(200_000)
                    .timeout(Some(Duration::from_secs(10)))
                    .suite_item(item),
            )
        };
        let (full, directed) = (run(false), run(true));
        let timed_out = |r: &Result<Option<LitmusOutcome>, String>| matches!(r, Ok(Some(o)) if o.stopped_by == Some(vkmm::LimitKind::Timeout));
        if let (Ok(Some(f)), Ok(Some(d))) = (&full, &directed)
            && f.holds(Property::Condition).is_none()
            && d.holds(Property::Condition).is_some()
        {
            newly.lock().unwrap().push(item.path.display().to_string());
        }
        if timed_out(&full) || timed_out(&directed) {
            return Vec::new();
        }
        compare_results(&item.path.display().to_string(), full, directed)
    });
    for row in newly.into_inner().unwrap() {
        eprintln!("decided by the directed walk only: {row}");
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// The reports say what the counts are: a suite's failure detail calls
/// them witnesses, the text report says the walk was for the verdict only
/// and that races were not checked; `--no-outcome-directed` is the full
/// walk.
#[test]
fn reports_say_the_counts_are_witnesses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-directed");
    let csv = std::env::temp_dir().join(format!("vkmm-directed-{}.csv", std::process::id()));
    // A wrong expectation, for the failure's detail.
    std::fs::write(&csv, "mp-exists-forbidden.litmus,1\n").unwrap();
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "suite".to_string(),
            dir.display().to_string(),
            "--expected".into(),
            csv.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        common::vkmm(&a)
    };
    let (code, out, _) = run(args(&[]));
    let (full_code, full_out, _) = run(args(&["--no-outcome-directed"]));
    let (json_code, json, _) = run(args(&["--format", "json"]));
    let _ = std::fs::remove_file(&csv);
    assert_eq!((code, full_code, json_code), (1, 1, 1), "{out}\n{full_out}");
    assert!(
        out.contains("0 positive, 0 negative witnesses (condition only"),
        "{out}"
    );
    assert!(
        full_out.contains("0 positive, 3 negative; states:"),
        "{full_out}"
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["records"][0]["executions"], 1, "{json}");

    let o = session(true)
        .check_file(dir.join("mp-forall-fails.litmus"))
        .unwrap();
    let Checked::Litmus(o) = o else { panic!() };
    assert!(o.condition_only && !o.states_only);
    let text = vkmm::report::text::litmus(&o);
    assert!(text.contains("Condition only (outcome-directed)"), "{text}");
    assert!(text.contains("Data races: not checked"), "{text}");
    assert!(vkmm::report::herd::litmus(&o).is_none());
    let json = serde_json::to_value(&*o).unwrap();
    assert_eq!(json["condition_only"], true);
}
