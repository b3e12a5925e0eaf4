//! The `vkmm` command line: argument parsing, dispatch to the library's
//! [`vkmm::Session`], the reporters, and what only a terminal program does
//! (a thread pool for suites, a progress bar, running Graphviz).

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vkmm::analysis::explain::{ExplainSpec, Explanation};
use vkmm::analysis::{Checked, FileError, Summary, suite};
use vkmm::engine::{DEFAULT_MAX_EXECUTIONS, DEFAULT_UNROLL};
use vkmm::report::{self, json};
use vkmm::{Property, Session};
use web_time::Instant;

#[derive(Parser)]
#[command(
    name = "vkmm",
    version,
    about = "Executable GPU memory models: litmus test verdicts under the Vulkan and SPIR-V/OpenCL memory models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    /// vkmm's text report.
    Text,
    /// JSON under the versioned schema of docs/json.md.
    Json,
    /// herd7's own output format (litmus tests of `check` only).
    Herd,
}

#[derive(clap::Args)]
struct ModelArgs {
    /// Model: a built-in name (vulkan, vulkan-nochains, opencl, opencl-totalsc) or a .cat
    /// file. Default: opencl for OpenCL litmus files, vulkan for the others.
    #[arg(long)]
    model: Option<String>,
    /// Model for `.test` queries marked NOCHAINS. Default: the model's
    /// declared companion (vulkan-nochains for vulkan), else the model itself.
    #[arg(long)]
    nochains_model: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
}

/// Bounds on the enumeration and front-end readings.
#[derive(clap::Args)]
struct LimitArgs {
    /// Loop unrolling bound: a statement runs at most N+1 times on a path;
    /// executions needing more are cut, counted and reported.
    #[arg(long, default_value_t = DEFAULT_UNROLL)]
    unroll: usize,
    /// The most model evaluations per litmus test: candidate executions, and
    /// the partial ones the search evaluates to prune. Past it the result is
    /// reported as truncated.
    #[arg(long, default_value_t = DEFAULT_MAX_EXECUTIONS)]
    max_executions: u64,
    /// OpenCL `local` variables named by threads of several workgroups:
    /// `per-workgroup` (one instance per workgroup, as the specification
    /// says) or `shared` (one location, as herd7 and Dat3M read them).
    #[arg(long, default_value = "per-workgroup")]
    local_memory: vkmm::frontend::LocalMemory,
}

impl LimitArgs {
    fn session(&self) -> Session {
        Session::new()
            .unroll(self.unroll)
            .max_executions(self.max_executions)
            .local_memory(self.local_memory)
    }
}

impl ModelArgs {
    fn session(&self) -> Session {
        let mut s = self.limits.session();
        if let Some(m) = &self.model {
            s = s.model(m);
        }
        if let Some(m) = &self.nochains_model {
            s = s.nochains_model(m);
        }
        s
    }
}

#[derive(Subcommand)]
enum Command {
    /// Check litmus files: for `.test`, each query's expected and actual answer;
    /// for `.litmus`, the herd-style outcome list, condition verdict and races.
    Check {
        /// The test files (`.test`, `.litmus`).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Explain an outcome: a witness if it is allowed; if it is forbidden, the
    /// axiom rejecting each candidate execution and a shortest cycle with
    /// every edge named; and a diagnosis of each data race.
    Explain {
        /// The test file.
        file: PathBuf,
        /// The outcome, in the condition syntax of the test (default: the
        /// test's own condition; `.test` files: any execution of their pinned values).
        #[arg(long)]
        outcome: Option<String>,
        /// Wording of the model's checks and relations (`.explain` file);
        /// default: the one the model declares.
        #[arg(long)]
        explain_spec: Option<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Draw an execution as Graphviz: the witness of an allowed outcome, or a
    /// rejected execution with its cycle for a forbidden one. Prints DOT to
    /// standard output unless --dot/--svg/--png name files.
    Show {
        /// The test file.
        file: PathBuf,
        /// The outcome to draw (default: the test's condition).
        #[arg(long)]
        outcome: Option<String>,
        /// Wording of the model's checks and relations (`.explain` file).
        #[arg(long)]
        explain_spec: Option<PathBuf>,
        /// Write the DOT text here.
        #[arg(long)]
        dot: Option<PathBuf>,
        /// Render SVG with Graphviz `dot`.
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Render PNG with Graphviz `dot`.
        #[arg(long)]
        png: Option<PathBuf>,
        /// Relations to draw (bindings or families: rf,fr,asmo,locord,sw,hb...; default all labelled).
        #[arg(long, value_delimiter = ',')]
        relations: Vec<String>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Run tests under several models and show where they differ: for
    /// `.litmus` files the reachable final states side by side (and the
    /// condition and race verdicts), for `.test` files each query's answer.
    Compare {
        /// The test files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Comma-separated models (built-in names or .cat files).
        #[arg(long, value_delimiter = ',', default_value = "vulkan,vulkan-nochains")]
        models: Vec<String>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Check every litmus file below a folder, in parallel, and summarise.
    /// With --expected, check the rows of an expected-verdicts CSV instead.
    Suite {
        /// The folder (CSV paths are relative to it).
        dir: PathBuf,
        #[command(flatten)]
        args: ModelArgs,
        /// `path,verdict` CSV (paths relative to DIR; 1 = the property holds).
        #[arg(long)]
        expected: Option<PathBuf>,
        /// The property the CSV's verdicts are about: condition or races.
        #[arg(long, default_value = "condition")]
        property: Property,
        /// Worker threads (default: one per core).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
    },
}

/// Prints a JSON document or text.
fn emit(
    format: OutputFormat,
    command: &str,
    value: &impl serde::Serialize,
    text: impl FnOnce() -> String,
) {
    match format {
        OutputFormat::Json => println!("{}", json::document(command, value)),
        _ => print!("{}", text()),
    }
}

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
                    OutputFormat::Text => print!("{}", report::text::checked(&c)),
                    OutputFormat::Herd => match &c {
                        Checked::Litmus(o) => match report::herd::litmus(o) {
                            Some(t) => print!("{t}"),
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
        println!("{}", json::document("check", &doc));
    } else if files.len() > 1 {
        print!("{}", report::text::summary(&summary));
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

/// Writes DOT text where asked and renders it with Graphviz.
fn render(
    text: &str,
    dot: Option<&Path>,
    svg: Option<&Path>,
    png: Option<&Path>,
) -> Result<(), String> {
    if dot.is_none() && svg.is_none() && png.is_none() {
        print!("{text}");
        return Ok(());
    }
    if let Some(p) = dot {
        std::fs::write(p, text).map_err(|e| format!("{}: cannot write: {e}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    for (out, fmt) in [(svg, "svg"), (png, "png")] {
        let Some(out) = out else { continue };
        let mut child = std::process::Command::new("dot")
            .arg(format!("-T{fmt}"))
            .arg("-o")
            .arg(out)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "cannot render {}: the Graphviz `dot` program is not installed (apt-get install graphviz); --dot FILE writes the DOT text",
                    out.display()
                ),
                _ => format!("cannot run `dot`: {e}"),
            })?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot feed `dot`: {e}"))?;
        }
        let status = child.wait().map_err(|e| format!("cannot run `dot`: {e}"))?;
        if !status.success() {
            return Err(format!("`dot -T{fmt}` failed ({status})"));
        }
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

fn progress(len: usize, json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
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
