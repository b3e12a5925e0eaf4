//! `vkmm suite` and `vkmm merge`: many files (or a CSV's or a manifest's
//! rows) checked in parallel and summarised.

use crate::args::{ModelArgs, OutputFormat};
use crate::output::{emit, progress};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use vkmm::analysis::{Summary, suite};
use vkmm::report;
use vkmm::{Property, Session};

/// What `vkmm suite` was asked to run.
pub struct SuiteArgs {
    pub dir: Option<PathBuf>,
    pub manifest: Option<PathBuf>,
    pub inputs: Option<PathBuf>,
    pub expected: Option<PathBuf>,
    pub property: Property,
    pub jobs: Option<usize>,
    pub junit: Option<PathBuf>,
    pub shard: Option<(usize, usize)>,
    /// How JUnit reports an undecided check: `skip` or `fail`.
    pub undecided: String,
}

/// `vkmm suite`.
pub fn suite_command(a: SuiteArgs, args: &ModelArgs) -> Result<i32, String> {
    let SuiteArgs {
        dir,
        manifest,
        inputs,
        expected,
        property,
        jobs,
        junit,
        shard,
        undecided,
    } = a;
    let (plan, name) = match (&dir, &manifest) {
        (None, Some(m)) => (
            SuitePlan::Manifest {
                manifest: m,
                inputs: inputs.as_deref(),
            },
            m.display().to_string(),
        ),
        (Some(d), None) => {
            if inputs.is_some() {
                return Err("--inputs goes with --manifest".into());
            }
            (
                SuitePlan::Folder {
                    dir: d,
                    expected: expected.as_deref(),
                },
                d.display().to_string(),
            )
        }
        (Some(_), Some(_)) => {
            return Err("give a folder or --manifest FILE, not both".into());
        }
        (None, None) => return Err("give a folder to run, or --manifest FILE".into()),
    };
    let summary = run_suite(plan, args, property, jobs, shard)?;
    finish_suite(&summary, args.format, junit.as_deref(), &name, &undecided)
}

/// `vkmm merge FILES`: the shards' JSON checked for identity (K/N, one
/// run id, no duplicate or missing shard) and put back together.
pub fn merge_command(
    files: &[PathBuf],
    format: OutputFormat,
    junit: Option<&Path>,
    undecided: &str,
) -> Result<i32, String> {
    let mut parts = Vec::new();
    for f in files {
        // `merge` has no --max-memory: the default bound.
        let text = vkmm::memory::read_input_text(f, Some(vkmm::DEFAULT_MAX_MEMORY))
            .map_err(|e| format!("{}: {e}", f.display()))?;
        let doc: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("{}:{}:{}: not JSON: {e}", f.display(), e.line(), e.column()))?;
        parts.push(vkmm::analysis::merge::Part {
            name: f.display().to_string(),
            doc,
        });
    }
    let summary = vkmm::analysis::merge::merge(&parts)?;
    finish_suite(&summary, format, junit, "merged", undecided)
}

/// What a suite runs: the litmus files below a folder (or a CSV's rows),
/// or a shader manifest's rows.
enum SuitePlan<'a> {
    Folder {
        dir: &'a Path,
        expected: Option<&'a Path>,
    },
    Manifest {
        manifest: &'a Path,
        inputs: Option<&'a Path>,
    },
}

fn run_suite(
    plan: SuitePlan<'_>,
    args: &ModelArgs,
    property: Property,
    jobs: Option<usize>,
    shard: Option<(usize, usize)>,
) -> Result<Summary, String> {
    if property == Property::States {
        return Err(
            "--property states is a listing, not a verdict a CSV can expect: `vkmm check --property states` lists the states"
                .into(),
        );
    }
    // `--timeout` per row: each row makes its own deadline when it starts.
    let session = args.session_for(Some(property)).deadline(None);
    session.preload().map_err(|e| e.to_string())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("-j: {e}"))?;
    let json = args.format == OutputFormat::Json;
    let run = |session: &Session, items: &[suite::SuiteItem]| {
        let pb = progress(items.len(), json);
        let results = pool.install(|| {
            items
                .par_iter()
                .map(|item| {
                    pb.set_message(
                        item.manifest
                            .as_ref()
                            .map_or_else(|| item.path.display().to_string(), |m| m.label()),
                    );
                    let r = session.suite_item(item);
                    pb.inc(1);
                    r
                })
                .collect()
        });
        pb.finish_and_clear();
        results
    };
    match plan {
        SuitePlan::Folder { dir, expected } => {
            session.suite_with(dir, expected, property, shard, &run)
        }
        SuitePlan::Manifest { manifest, inputs } => {
            session.manifest_suite(manifest, inputs, shard, &run)
        }
    }
    .map_err(|e| e.to_string())
}

/// Prints a suite's summary, writes its JUnit XML, returns its exit code.
fn finish_suite(
    summary: &Summary,
    format: OutputFormat,
    junit: Option<&Path>,
    name: &str,
    undecided: &str,
) -> Result<i32, String> {
    if let Some(j) = junit {
        let policy = if undecided == "fail" {
            report::junit::Undecided::Fail
        } else {
            report::junit::Undecided::Skip
        };
        std::fs::write(j, report::junit::suite_with(name, summary, policy))
            .map_err(|e| format!("{}: cannot write: {e}", j.display()))?;
    }
    if format != OutputFormat::Json {
        summary.warnings.iter().for_each(|w| eprintln!("{w}"));
    }
    // The summary's fields at the top (as `merge` reads them), and its
    // counts again under `summary`, where `check --format json` has them
    // (the records and warnings, the bulk of a large suite, only once, at
    // the top).
    #[derive(serde::Serialize)]
    struct Counts<'a> {
        total: usize,
        passed: usize,
        failed: &'a [vkmm::analysis::Failure],
        undecided: &'a [vkmm::analysis::Failure],
        undefined_behaviour: &'a [vkmm::analysis::Failure],
        errors: &'a [vkmm::analysis::FileError],
        unsupported: &'a [vkmm::analysis::Failure],
        files: usize,
        annotated: usize,
        annotated_agree: usize,
        annotated_disagree: &'a [vkmm::analysis::Failure],
        #[serde(serialize_with = "vkmm::analysis::ser_duration")]
        time: std::time::Duration,
    }
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        #[serde(flatten)]
        fields: &'a Summary,
        summary: Counts<'a>,
    }
    let doc = Doc {
        fields: summary,
        summary: Counts {
            total: summary.total,
            passed: summary.passed,
            failed: &summary.failed,
            undecided: &summary.undecided,
            undefined_behaviour: &summary.undefined_behaviour,
            errors: &summary.errors,
            unsupported: &summary.unsupported,
            files: summary.files,
            annotated: summary.annotated,
            annotated_agree: summary.annotated_agree,
            annotated_disagree: &summary.annotated_disagree,
            time: summary.time,
        },
    };
    emit(format, "suite", &doc, || report::text::summary(summary));
    Ok(summary.exit_code())
}
