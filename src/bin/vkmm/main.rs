//! The `vkmm` command line: argument parsing, dispatch to the library's
//! [`vkmm::Session`], the reporters, and what only a terminal program does
//! (a thread pool for suites, a progress bar, running Graphviz).

mod args;
mod output;

use args::{Cli, Command, ModelArgs, OutputFormat};
use clap::Parser;
use output::{emit, out, progress, render};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vkmm::analysis::explain::{ExplainSpec, Explanation};
use vkmm::analysis::{Checked, FileError, Summary, suite};
use vkmm::report::{self, json};
use vkmm::{Property, Session};
use web_time::Instant;

/// Counts the memory the process holds, for `--max-memory`.
#[global_allocator]
static ALLOCATOR: vkmm::memory::CountingAllocator = vkmm::memory::CountingAllocator;

fn file_error(path: &Path, e: vkmm::Error) -> FileError {
    FileError {
        file: path.display().to_string(),
        error: e.to_string(),
    }
}

fn check(
    files: &[PathBuf],
    args: &ModelArgs,
    property: Option<Property>,
    threads: usize,
) -> Result<i32, String> {
    let spinner = output::Spinner::new(args.format != OutputFormat::Json);
    let session = spinner.attach(args.session_for(property).threads(threads));
    session.preload().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut results = Vec::new();
    let mut errors = Vec::new();
    // A litmus answer `--format herd` could not print is undecided there.
    let mut herd_refused = false;
    for f in files {
        spinner.start(f);
        let checked = session.check_file(f);
        spinner.stop();
        if let Ok(c) = &checked {
            c.warnings().iter().for_each(|w| eprintln!("{w}"));
        }
        match checked {
            Ok(c) => {
                match args.format {
                    OutputFormat::Text => output::out_with(|w| report::text::write_checked(w, &c)),
                    OutputFormat::Herd => match &c {
                        Checked::Litmus(o) => match report::herd::litmus(o) {
                            Some(t) => out(&t),
                            None => {
                                herd_refused = true;
                                eprintln!(
                                    "{}: {}",
                                    f.display(),
                                    report::herd::refusal(o).unwrap_or_default()
                                )
                            }
                        },
                        Checked::Queries(_) => {
                            eprintln!(
                                "{}: herd's format is for litmus tests; see --format text",
                                f.display()
                            )
                        }
                        Checked::Termination(_) => {
                            eprintln!(
                                "{}: herd's format has no termination verdict; see --format text",
                                f.display()
                            )
                        }
                    },
                    OutputFormat::Json => {}
                }
                results.push(c);
            }
            Err(e) => {
                let e = file_error(f, e);
                if args.format != OutputFormat::Json {
                    eprintln!("error: {}", e.error);
                }
                errors.push(e);
            }
        }
    }
    let queries: Vec<_> = results
        .iter()
        .filter_map(|c| match c {
            Checked::Queries(o) => Some(o.clone()),
            Checked::Litmus(_) | Checked::Termination(_) => None,
        })
        .collect();
    let mut summary = Summary::new(&queries, errors, start.elapsed());
    summary.files = results.len();
    if args.format == OutputFormat::Json {
        // Each result carries its file's front-end warnings.
        // Borrowed and streamed: `json!` would copy every result into a tree.
        #[derive(serde::Serialize)]
        struct Doc<'a> {
            results: &'a [Checked],
            summary: &'a Summary,
        }
        let doc = Doc {
            results: &results,
            summary: &summary,
        };
        output::out_with(|w| json::write_document(w, "check", &doc));
    } else if files.len() > 1 {
        out(&report::text::summary(&summary));
    }
    let code = summary.exit_code();
    // A verdict resting on undefined behaviour is no verdict either.
    let undefined =
        |c: &Checked| matches!(c, Checked::Litmus(o) if o.undefined.condition || o.undefined.races);
    Ok(
        if code == 0 && (herd_refused || results.iter().any(|c| !c.complete() || undefined(c))) {
            EXIT_UNDECIDED
        } else {
            code
        },
    )
}

/// Exit code of a run some of whose answers a limit left undecided (or
/// rest on undefined behaviour).
const EXIT_UNDECIDED: i32 = 3;

fn explain(
    session: &Session,
    file: &Path,
    outcome: Option<&str>,
    explain_spec: Option<&Path>,
) -> Result<Explanation, String> {
    let wording = read_wording(explain_spec)?;
    let program = session.load_file(file).map_err(|e| e.to_string())?;
    program.warnings.iter().for_each(|w| eprintln!("{w}"));
    session
        .explain(&program, outcome, wording)
        .map_err(|e| e.to_string())
}

/// The session for `explain`/`show` when they are asked about termination
/// (`--property termination`, or `--progress` alone); `None` otherwise.
fn termination_session(
    args: &ModelArgs,
    property: Option<Property>,
    outcome: Option<&str>,
) -> Result<Option<Session>, String> {
    if property == Some(Property::States) {
        return Err(
            "--property states asks for the list of final states: `vkmm check --property states`; explain and show take an --outcome"
                .into(),
        );
    }
    if property != Some(Property::Termination) && args.progress.is_none() {
        return Ok(None);
    }
    if outcome.is_some() {
        return Err(
            "--outcome asks about a final state; termination asks whether some execution never reaches one: give one or the other"
                .into(),
        );
    }
    Ok(Some(args.session_for(Some(Property::Termination))))
}

fn explain_termination(
    session: &Session,
    file: &Path,
    explain_spec: Option<&Path>,
) -> Result<vkmm::TerminationExplanation, String> {
    let wording = read_wording(explain_spec)?;
    let program = session.load_file(file).map_err(|e| e.to_string())?;
    program.warnings.iter().for_each(|w| eprintln!("{w}"));
    session
        .explain_termination(&program, wording)
        .map_err(|e| e.to_string())
}

fn read_wording(explain_spec: Option<&Path>) -> Result<Option<ExplainSpec>, String> {
    match explain_spec {
        Some(p) => {
            let text =
                vkmm::memory::read_input_text(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(Some(
                ExplainSpec::parse(&p.display().to_string(), &text).map_err(|e| e.to_string())?,
            ))
        }
        None => Ok(None),
    }
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
    let session = args.session_for(Some(property));
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

/// The output format a command was asked for (JSON errors need it).
fn format_of(cli: &Cli) -> (OutputFormat, &'static str) {
    match &cli.command {
        Command::Check { args, .. } => (args.format, "check"),
        Command::Explain { args, .. } => (args.format, "explain"),
        Command::Show { .. } => (OutputFormat::Text, "show"),
        Command::Compare { format, .. } => (*format, "compare"),
        Command::Refines { format, .. } => (*format, "refines"),
        Command::Suite { args, .. } => (args.format, "suite"),
        Command::Merge { format, .. } => (*format, "merge"),
        Command::Devices { format } => (*format, "devices"),
        Command::Run { args, .. } => (args.format, "run"),
    }
}

fn run(cli: Cli) -> Result<i32, String> {
    match cli.command {
        Command::Devices { format } => {
            let list = vkmm::device::vk::devices().map_err(|e| e.to_string())?;
            emit(
                format,
                "devices",
                &serde_json::json!({ "devices": list }),
                || vkmm::device::devices_text(&list),
            );
            Ok(0)
        }
        Command::Run {
            files,
            device,
            args,
        } => {
            let gpu =
                vkmm::device::vk::Gpu::open(device.device.as_deref()).map_err(|e| e.to_string())?;
            let session = args.session();
            let batch = vkmm::device::classify::run_files(
                &session,
                &gpu,
                &files,
                &device.params(),
                args.model.is_some(),
                device.spirv.as_deref(),
            )
            .map_err(|e| e.to_string())?;
            if args.format != OutputFormat::Json {
                batch.errors.iter().for_each(|e| eprintln!("error: {e}"));
            }
            emit(args.format, "run", &batch, || {
                vkmm::device::classify::batch_text(&batch)
            });
            Ok(batch.exit_code())
        }
        Command::Check {
            files,
            args,
            property,
            threads,
        } => {
            let threads = threads.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
            // The search's parts run on the global pool, of that many
            // threads; this thread reads the files and drives the waves
            // (it waits while a wave runs).
            if threads > 1 {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build_global()
                    .map_err(|e| format!("--threads: {e}"))?;
            }
            check(&files, &args, property, threads)
        }
        Command::Explain {
            file,
            outcome,
            explain_spec,
            args,
            property,
        } => {
            if let Some(session) = termination_session(&args, property, outcome.as_deref())? {
                let x = explain_termination(&session, &file, explain_spec.as_deref())?;
                emit(args.format, "explain", &x, || {
                    report::text::termination_explanation(&x)
                });
                return Ok(if x.outcome.complete() {
                    0
                } else {
                    EXIT_UNDECIDED
                });
            }
            let x = explain(
                &args.session(),
                &file,
                outcome.as_deref(),
                explain_spec.as_deref(),
            )?;
            emit(args.format, "explain", &x, || report::text::explanation(&x));
            Ok(match x.verdict {
                vkmm::analysis::explain::Verdict::Undecided => EXIT_UNDECIDED,
                _ => 0,
            })
        }
        Command::Show {
            file,
            outcome,
            explain_spec,
            dot,
            svg,
            png,
            relations,
            args,
            property,
        } => {
            if args.format != OutputFormat::Text {
                return Err(
                    "show draws DOT (--dot/--svg/--png write files); for JSON use `vkmm explain --format json`"
                        .into(),
                );
            }
            let relations: Vec<String> = relations
                .iter()
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .collect();
            if let Some(session) = termination_session(&args, property, outcome.as_deref())? {
                let x = explain_termination(&session, &file, explain_spec.as_deref())?;
                let text = match report::dot::termination(&x, &relations) {
                    Ok(t) => t,
                    Err(e) if !x.outcome.complete() => {
                        eprintln!("{}: {e}", file.display());
                        return Ok(EXIT_UNDECIDED);
                    }
                    Err(e) => return Err(format!("{}: {e}", file.display())),
                };
                render(&text, dot.as_deref(), svg.as_deref(), png.as_deref())?;
                return Ok(0);
            }
            let x = explain(
                &args.session(),
                &file,
                outcome.as_deref(),
                explain_spec.as_deref(),
            )?;
            report::dot::check_relations(&x, &relations)?;
            let text = match report::dot::explanation(&x, &relations) {
                Ok(t) => t,
                // Nothing honest to draw: undecided has its own exit code.
                Err(e) if x.verdict == vkmm::analysis::explain::Verdict::Undecided => {
                    eprintln!("{}: {e}", file.display());
                    return Ok(EXIT_UNDECIDED);
                }
                Err(e) => return Err(format!("{}: {e}", file.display())),
            };
            render(&text, dot.as_deref(), svg.as_deref(), png.as_deref())?;
            Ok(0)
        }
        Command::Refines {
            files,
            implementation,
            spec,
            limits,
            format,
        } => refines(&files, &implementation, &spec, &limits.session(), format),
        Command::Compare {
            files,
            models,
            limits,
            format,
            fail_on_difference,
        } => {
            if models.len() < 2 {
                return Err(
                    "--models needs at least two models, e.g. --models vulkan,vulkan-nochains"
                        .into(),
                );
            }
            let session = limits.session();
            let names: Vec<&str> = models.iter().map(String::as_str).collect();
            let mut reports = Vec::new();
            let mut errors = Vec::new();
            for f in &files {
                let r = session
                    .load_file(f)
                    .and_then(|p| session.compare(&f.display().to_string(), &p, &names));
                match r {
                    Ok(r) => {
                        if format != OutputFormat::Json {
                            r.warnings.iter().for_each(|w| eprintln!("{w}"));
                        }
                        reports.push(r)
                    }
                    Err(e) => {
                        if format != OutputFormat::Json {
                            eprintln!("error: {e}");
                        }
                        errors.push(file_error(f, e));
                    }
                }
            }
            let differing = reports.iter().filter(|r| r.differs).count();
            emit(
                format,
                "compare",
                &serde_json::json!({ "comparisons": reports, "errors": errors }),
                || {
                    let mut s: String = reports.iter().map(report::text::comparison).collect();
                    s.push_str(&vkmm::analysis::compare::summary_line(&reports, &models));
                    s
                },
            );
            Ok(if !errors.is_empty() {
                2
            } else if fail_on_difference && differing > 0 {
                1
            } else if reports.iter().any(|r| !r.complete) {
                EXIT_UNDECIDED
            } else {
                0
            })
        }
        Command::Suite {
            dir,
            args,
            expected,
            manifest,
            inputs,
            property,
            jobs,
            junit,
            shard,
            undecided,
        } => {
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
            let summary = run_suite(plan, &args, property, jobs, shard)?;
            finish_suite(&summary, args.format, junit.as_deref(), &name, &undecided)
        }
        Command::Merge {
            files,
            format,
            junit,
            undecided,
        } => {
            let mut parts = Vec::new();
            for f in &files {
                let text = vkmm::memory::read_input_text(f)
                    .map_err(|e| format!("{}: {e}", f.display()))?;
                let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                    format!("{}:{}:{}: not JSON: {e}", f.display(), e.line(), e.column())
                })?;
                parts.push(vkmm::analysis::merge::Part {
                    name: f.display().to_string(),
                    doc,
                });
            }
            let summary = vkmm::analysis::merge::merge(&parts)?;
            finish_suite(&summary, format, junit.as_deref(), "merged", &undecided)
        }
    }
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
    emit(format, "suite", summary, || report::text::summary(summary));
    Ok(summary.exit_code())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (format, command) = format_of(&cli);
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            if format == OutputFormat::Json {
                let doc = serde_json::json!({ "error": e });
                out(&(json::document(command, &doc) + "\n"));
            }
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `vkmm refines`: each file's refinement report; exit 1 on a violation,
/// 2 on an unreadable file, 3 when an enumeration was incomplete.
fn refines(
    files: &[std::path::PathBuf],
    imp: &str,
    spec: &str,
    session: &vkmm::Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        let name = f.display().to_string();
        match session
            .load_file(f)
            .and_then(|p| session.refines(&name, &p, imp, spec))
        {
            Ok(r) => reports.push(r),
            Err(e) => {
                if format != OutputFormat::Json {
                    eprintln!("error: {e}");
                }
                errors.push(file_error(f, e));
            }
        }
    }
    emit(
        format,
        "refines",
        &serde_json::json!({ "refinements": reports, "errors": errors }),
        || {
            let mut s: String = reports.iter().map(vkmm::analysis::refines::text).collect();
            s.push_str(&vkmm::analysis::refines::summary_line(&reports, imp, spec));
            s
        },
    );
    Ok(vkmm::analysis::refines::exit_code(&reports, errors.len()))
}
