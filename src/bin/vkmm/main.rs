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

fn file_error(path: &Path, e: vkmm::Error) -> FileError {
    FileError {
        file: path.display().to_string(),
        error: e.to_string(),
    }
}

fn check(files: &[PathBuf], args: &ModelArgs) -> Result<i32, String> {
    let session = args.session();
    session.preload().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match session.check_file(f) {
            Ok(c) => {
                match args.format {
                    OutputFormat::Text => out(&report::text::checked(&c)),
                    OutputFormat::Herd => match &c {
                        Checked::Litmus(o) => match report::herd::litmus(o) {
                            Some(t) => out(&t),
                            None => eprintln!(
                                "{}: undecided (the search stopped at the execution limit): herd's format has no word for it; see --format text",
                                f.display()
                            ),
                        },
                        Checked::Queries(_) => {
                            eprintln!(
                                "{}: herd's format is for litmus tests; see --format text",
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
            Checked::Litmus(_) => None,
        })
        .collect();
    let mut summary = Summary::new(&queries, errors, start.elapsed());
    summary.files = results.len();
    if args.format == OutputFormat::Json {
        let doc = serde_json::json!({ "results": results, "summary": summary });
        out(&(json::document("check", &doc) + "\n"));
    } else if files.len() > 1 {
        out(&report::text::summary(&summary));
    }
    Ok(summary.exit_code())
}

fn explain(
    session: &Session,
    file: &Path,
    outcome: Option<&str>,
    explain_spec: Option<&Path>,
) -> Result<Explanation, String> {
    let wording = match explain_spec {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
            Some(ExplainSpec::parse(&p.display().to_string(), &text).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let program = session.load_file(file).map_err(|e| e.to_string())?;
    session
        .explain(&program, outcome, wording)
        .map_err(|e| e.to_string())
}

fn run_suite(
    dir: &Path,
    args: &ModelArgs,
    expected: Option<&Path>,
    property: Property,
    jobs: Option<usize>,
) -> Result<Summary, String> {
    let session = args.session().decide(expected.map(|_| property));
    session.preload().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let items = suite::plan(dir, expected)?;
    let pb = progress(items.len(), args.format == OutputFormat::Json);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| format!("-j: {e}"))?;
    let results: Vec<Result<Checked, FileError>> = pool.install(|| {
        items
            .par_iter()
            .map(|item| {
                pb.set_message(item.path.display().to_string());
                let r = session.suite_item(item);
                pb.inc(1);
                r
            })
            .collect()
    });
    pb.finish_and_clear();
    Ok(suite::score(&items, results, property, start.elapsed()))
}

fn run(cli: Cli) -> Result<i32, String> {
    match cli.command {
        Command::Check { files, args } => check(&files, &args),
        Command::Explain {
            file,
            outcome,
            explain_spec,
            args,
        } => {
            let x = explain(
                &args.session(),
                &file,
                outcome.as_deref(),
                explain_spec.as_deref(),
            )?;
            emit(args.format, "explain", &x, || report::text::explanation(&x));
            Ok(0)
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
        } => {
            let x = explain(
                &args.session(),
                &file,
                outcome.as_deref(),
                explain_spec.as_deref(),
            )?;
            let relations: Vec<String> = relations
                .iter()
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty())
                .collect();
            let text = report::dot::explanation(&x, &relations)
                .map_err(|e| format!("{}: {e}", file.display()))?;
            render(&text, dot.as_deref(), svg.as_deref(), png.as_deref())?;
            Ok(0)
        }
        Command::Compare {
            files,
            models,
            limits,
            format,
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
            let mut errors = 0;
            for f in &files {
                let r = session
                    .load_file(f)
                    .and_then(|p| session.compare(&f.display().to_string(), &p, &names));
                match r {
                    Ok(r) => reports.push(r),
                    Err(e) => {
                        errors += 1;
                        eprintln!("error: {e}");
                    }
                }
            }
            emit(
                format,
                "compare",
                &serde_json::json!({ "comparisons": reports }),
                || {
                    let mut s: String = reports.iter().map(report::text::comparison).collect();
                    let differing = reports.iter().filter(|r| r.differs).count();
                    s.push_str(&format!(
                        "{} of {} tests differ between {}\n",
                        differing,
                        reports.len(),
                        models.join(" and ")
                    ));
                    s
                },
            );
            Ok(if errors > 0 { 2 } else { 0 })
        }
        Command::Suite {
            dir,
            args,
            expected,
            property,
            jobs,
        } => {
            let summary = run_suite(&dir, &args, expected.as_deref(), property, jobs)?;
            emit(args.format, "suite", &summary, || {
                report::text::summary(&summary)
            });
            Ok(summary.exit_code())
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
