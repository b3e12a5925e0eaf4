//! The `vkmm` command line: check litmus files, run suites.

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use vkmm::analysis::{LitmusOutcome, Models, Property, TestOutcome, check_litmus, check_program};
use vkmm::engine::{DEFAULT_MAX_EXECUTIONS, DEFAULT_UNROLL, Limits};
use vkmm::frontend::Format;
use vkmm::ir::Program;
use vkmm::report::{Failure, FileError, Summary, add_queries, litmus_text, outcome_text};

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
    Text,
    Json,
}

#[derive(clap::Args)]
struct ModelArgs {
    /// Model: a built-in name (vulkan, vulkan-nochains, opencl, opencl-totalsc) or a .cat
    /// file. Default: opencl for OpenCL litmus files, vulkan for the others.
    #[arg(long)]
    model: Option<String>,
    /// Model for `.test` queries marked NOCHAINS. Default: vulkan-nochains when
    /// --model is vulkan, else --model.
    #[arg(long)]
    nochains_model: Option<String>,
    #[command(flatten)]
    limits: LimitArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
}

impl ModelArgs {
    /// The model a program runs under: --model, else its dialect's default.
    fn model_for(&self, program: &Program) -> String {
        self.model
            .clone()
            .unwrap_or_else(|| program.dialect.default_model().to_string())
    }
}

/// Bounds on the enumeration.
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
    fn frontend(&self) -> vkmm::frontend::Options {
        vkmm::frontend::Options {
            local_memory: self.local_memory,
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            unroll: self.unroll,
            max_executions: self.max_executions,
            ..Limits::default()
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Check litmus files: for `.test`, each query's expected and actual answer;
    /// for `.litmus`, the herd-style outcome list, condition verdict and races.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Explain an outcome: a witness if it is allowed; if it is forbidden, the
    /// axiom rejecting each candidate execution and a shortest cycle with
    /// every edge named; and a diagnosis of each data race.
    Explain {
        file: PathBuf,
        /// The outcome, in the condition syntax of the test (default: the
        /// test's own condition; `.test` files: any execution of their pinned values).
        #[arg(long)]
        outcome: Option<String>,
        /// Wording of the model's checks and relations (`.explain` file);
        /// built in for the Vulkan and OpenCL models.
        #[arg(long)]
        explain_spec: Option<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Draw an execution as Graphviz: the witness of an allowed outcome, or a
    /// rejected execution with its cycle for a forbidden one. Prints DOT to
    /// standard output unless --dot/--svg/--png name files.
    Show {
        file: PathBuf,
        #[arg(long)]
        outcome: Option<String>,
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
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Comma-separated models (built-in names or .cat files).
        #[arg(long, value_delimiter = ',', default_value = "vulkan,vulkan-nochains")]
        models: Vec<String>,
        #[command(flatten)]
        limits: LimitArgs,
        #[arg(long, value_enum, default_value = "text")]
        format: OutputFormat,
    },
    /// Check every litmus file below a folder, in parallel, and summarise.
    /// With --expected, check the rows of an expected-verdicts CSV instead.
    Suite {
        dir: PathBuf,
        #[command(flatten)]
        args: ModelArgs,
        /// `path,verdict` CSV (paths relative to DIR; 1 = the property holds).
        #[arg(long)]
        expected: Option<PathBuf>,
        /// The property the CSV's verdicts are about.
        #[arg(long, default_value = "condition")]
        property: Property,
        /// Worker threads (default: one per core).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
    },
}

/// The models files run under: the one --model names, or each dialect's default.
enum ModelChoice {
    Fixed(Models),
    ByDialect { vulkan: Models, opencl: Models },
}

impl ModelChoice {
    fn for_program(&self, program: &Program) -> &Models {
        match self {
            ModelChoice::Fixed(m) => m,
            ModelChoice::ByDialect { vulkan, opencl } => match program.dialect {
                vkmm::ir::Dialect::OpenCl => opencl,
                vkmm::ir::Dialect::Vulkan => vulkan,
            },
        }
    }
}

fn load_models(args: &ModelArgs) -> Result<ModelChoice, String> {
    let load =
        |name: &str| Models::load(name, args.nochains_model.as_deref()).map_err(|e| e.to_string());
    Ok(match &args.model {
        Some(m) => ModelChoice::Fixed(load(m)?),
        None => ModelChoice::ByDialect {
            vulkan: load(vkmm::ir::Dialect::Vulkan.default_model())?,
            opencl: load(vkmm::ir::Dialect::OpenCl.default_model())?,
        },
    })
}

fn limits(args: &ModelArgs) -> Limits {
    args.limits.limits()
}

/// What checking one file produced.
enum Checked {
    Queries(TestOutcome),
    Litmus(Box<LitmusOutcome>, Box<Program>),
}

fn load(path: &Path, limits: &LimitArgs) -> Result<Program, FileError> {
    vkmm::frontend::load_with(path, limits.frontend()).map_err(|e| FileError {
        file: path.display().to_string(),
        error: e.to_string(),
    })
}

fn check_file(
    path: &Path,
    models: &ModelChoice,
    args: &ModelArgs,
    decide: Option<Property>,
) -> Result<Checked, FileError> {
    let file = path.display().to_string();
    let program = load(path, &args.limits)?;
    let models = models.for_program(&program);
    let err = |e: vkmm::analysis::CheckError| FileError {
        file: file.clone(),
        error: format!("{file}: {e}"),
    };
    if program.queries.is_empty() && Format::of_path(path) != Some(Format::AlloyTest) {
        let o = check_litmus(
            &file,
            &program,
            &models.chains,
            &models.chains_name,
            limits(args),
            decide,
        )
        .map_err(err)?;
        Ok(Checked::Litmus(Box::new(o), Box::new(program)))
    } else {
        Ok(Checked::Queries(
            check_program(&file, &program, models, limits(args)).map_err(err)?,
        ))
    }
}

/// Runs one file under every model.
fn compare_file(
    file: &Path,
    models: &[(String, vkmm::cat::Model)],
    limit_args: &LimitArgs,
) -> Result<vkmm::report::Comparison, String> {
    let limits = limit_args.limits();
    let name = file.display().to_string();
    let program = load(file, limit_args).map_err(|e| e.error)?;
    let mut cmp = vkmm::report::Comparison {
        file: name.clone(),
        models: models.iter().map(|(n, _)| n.clone()).collect(),
        ..Default::default()
    };
    if !program.queries.is_empty() {
        for (mname, model) in models {
            let ms = Models {
                chains: model.clone(),
                chains_name: mname.clone(),
                no_chains: model.clone(),
                no_chains_name: mname.clone(),
            };
            let o =
                check_program(&name, &program, &ms, limits).map_err(|e| format!("{name}: {e}"))?;
            for (i, q) in o.queries.iter().enumerate() {
                if cmp.rows.len() <= i {
                    cmp.rows
                        .push((format!("line {}: {}", q.line, q.query), Vec::new()));
                }
                cmp.rows[i].1.push(q.actual.to_string());
            }
        }
    } else {
        // A model that cannot run the test (the Vulkan models and
        // sequentially consistent operations) gets a column of "n/a" and a note.
        let mut outcomes = Vec::new();
        let mut refused = Vec::new();
        for (mname, model) in models {
            match check_litmus(&name, &program, model, mname, limits, None) {
                Ok(o) => outcomes.push(Some(o)),
                Err(vkmm::analysis::CheckError::Unsupported(why)) => {
                    refused.push(format!("{mname}: not supported: {why}"));
                    outcomes.push(None);
                }
                Err(e) => return Err(format!("{name}: {e}")),
            }
        }
        let mut states: Vec<String> = Vec::new();
        let fmt = |s: &vkmm::analysis::litmus::FinalState| {
            s.iter()
                .map(|(k, v)| format!("{k}={v};"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for o in outcomes.iter().flatten() {
            for (st, _) in &o.states {
                let t = fmt(st);
                if !states.contains(&t) {
                    states.push(t);
                }
            }
        }
        states.sort();
        for st in states {
            let cells = outcomes
                .iter()
                .map(|o| match o {
                    None => "n/a".to_string(),
                    Some(o) if o.states.iter().any(|(s, _)| fmt(s) == st) => "allowed".to_string(),
                    Some(_) => "-".to_string(),
                })
                .collect();
            cmp.rows.push((st, cells));
        }
        cmp.rows.push((
            "condition holds".into(),
            outcomes
                .iter()
                .map(|o| match o {
                    None => "n/a".to_string(),
                    Some(o) => o
                        .condition_holds
                        .map(|h| if h { "Ok" } else { "No" }.to_string())
                        .unwrap_or_else(|| "-".into()),
                })
                .collect(),
        ));
        cmp.rows.push((
            "race-free".into(),
            outcomes
                .iter()
                .map(|o| match o {
                    None => "n/a".to_string(),
                    Some(o) => if o.race_free { "yes" } else { "no" }.to_string(),
                })
                .collect(),
        ));
        cmp.notes = refused;
        cmp.notes.extend(
            outcomes
                .iter()
                .flatten()
                .filter(|o| o.cut_paths > 0 || o.truncated)
                .map(|o| {
                    format!(
                        "{}: {}{}",
                        o.model,
                        if o.cut_paths > 0 {
                            format!("bound hit ({} paths cut) ", o.cut_paths)
                        } else {
                            String::new()
                        },
                        if o.truncated { "truncated" } else { "" }
                    )
                }),
        );
    }
    cmp.differs = cmp.rows.iter().any(|(_, c)| c.iter().any(|x| x != &c[0]));
    Ok(cmp)
}

/// Loads the model, its wording and the outcome, and explains it.
fn run_explain(
    file: &Path,
    outcome: Option<&str>,
    explain_spec: Option<&Path>,
    args: &ModelArgs,
) -> Result<vkmm::analysis::explain::Explanation, String> {
    let program = load(file, &args.limits).map_err(|e| e.error)?;
    let model_name = args.model_for(&program);
    let model = vkmm::model::load(&model_name).map_err(|e| e.to_string())?;
    let spec = match explain_spec {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("{}: cannot read: {e}", p.display()))?;
            vkmm::analysis::explain::ExplainSpec::parse(&p.display().to_string(), &text)
                .map_err(|e| e.to_string())?
        }
        None => vkmm::analysis::explain::ExplainSpec::builtin(&model_name).unwrap_or_default(),
    };
    let parsed = match outcome {
        Some(o) => {
            if Format::of_path(file) != Some(Format::VulkanLitmus) {
                return Err("--outcome applies to .litmus files (a .test file's values are pinned by its instructions)".into());
            }
            let expr = vkmm::frontend::parse_outcome(&program, o).map_err(|e| e.to_string())?;
            Some((expr, o.to_string()))
        }
        None => None,
    };
    vkmm::analysis::explain::explain(
        &program,
        &model,
        &model_name,
        &spec,
        parsed.as_ref().map(|(e, t)| (e, t.clone())),
        limits(args),
    )
    .map_err(|e| format!("{}: {e}", file.display()))
}

/// Why a CSV row disagrees: the verdicts, the witnesses and the outcome list.
fn mismatch_detail(
    o: &LitmusOutcome,
    property: Property,
    expected: bool,
    actual: Option<bool>,
) -> String {
    let actual = match actual {
        Some(h) => u8::from(h).to_string(),
        None if o.truncated => "undecided (execution limit)".into(),
        None => "no condition".into(),
    };
    let mut states: Vec<String> = o
        .states
        .iter()
        .take(8)
        .map(|(s, n)| {
            let cells: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{} ({n})", cells.join(" "))
        })
        .collect();
    if o.states.len() > 8 {
        states.push(format!("... {} more", o.states.len() - 8));
    }
    let mut d = format!(
        "{property:?}: expected {}, got {actual}; {} positive, {} negative; states: [{}]",
        u8::from(expected),
        o.positive,
        o.negative,
        states.join("; ")
    );
    if let Some(r) = o.races.first() {
        d.push_str(&format!(
            "; race on {}: {} <-> {}",
            r.location, r.first, r.second
        ));
    }
    if o.cut_paths > 0 {
        d.push_str(&format!("; bound hit ({} paths cut)", o.cut_paths));
    }
    if o.stopped_early {
        d.push_str("; search stopped once decided");
    }
    d
}

fn collect_tests(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect_tests(&p, out)?;
        } else if Format::of_path(&p).is_some() {
            out.push(p);
        }
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

fn pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| e.to_string())
}

fn print_summary(summary: &Summary, format: OutputFormat) -> Result<(), String> {
    match format {
        OutputFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(summary).map_err(|e| e.to_string())?
        ),
        OutputFormat::Text => print!("{}", summary.to_text()),
    }
    Ok(())
}

fn run(cli: Cli) -> Result<i32, String> {
    match cli.command {
        Command::Check { files, args } => {
            let models = load_models(&args)?;
            let start = Instant::now();
            let mut queries = Vec::new();
            let mut litmus = Vec::new();
            let mut errors = Vec::new();
            for f in &files {
                match check_file(f, &models, &args, None) {
                    Ok(Checked::Queries(o)) => {
                        if args.format == OutputFormat::Text {
                            print!("{}", outcome_text(&o));
                        }
                        queries.push(o);
                    }
                    Ok(Checked::Litmus(o, p)) => {
                        if args.format == OutputFormat::Text {
                            let q = p.condition.as_ref().and_then(|c| c.quantifier);
                            print!("{}", litmus_text(&o, q));
                        }
                        litmus.push(*o);
                    }
                    Err(e) => {
                        if args.format == OutputFormat::Text {
                            eprintln!("error: {}", e.error);
                        }
                        errors.push(e);
                    }
                }
            }
            let mut summary = Summary::new(&queries, errors, start.elapsed());
            summary.files += litmus.len();
            if args.format == OutputFormat::Json {
                let v = serde_json::json!({
                    "results": queries,
                    "litmus": litmus,
                    "summary": summary,
                });
                println!(
                    "{}",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                );
            } else if files.len() > 1 {
                print!("{}", summary.to_text());
            }
            Ok(summary.exit_code())
        }
        Command::Explain {
            file,
            outcome,
            explain_spec,
            args,
        } => {
            let x = run_explain(&file, outcome.as_deref(), explain_spec.as_deref(), &args)?;
            match args.format {
                OutputFormat::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&x).map_err(|e| e.to_string())?
                ),
                OutputFormat::Text => print!("{}", vkmm::analysis::explain::to_text(&x)),
            }
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
            let x = run_explain(&file, outcome.as_deref(), explain_spec.as_deref(), &args)?;
            let (drawn, cycle, what) = match (&x.witness, &x.rejected) {
                (Some(w), _) => (w, &[][..], "a witness execution (allowed)"),
                (None, Some((w, c))) => {
                    (w, &c[..], "a rejected execution and its cycle (forbidden)")
                }
                (None, None) => {
                    return Err(format!(
                        "{}: no candidate execution produces the outcome ({}): nothing to draw",
                        file.display(),
                        x.outcome
                    ));
                }
            };
            let opts = vkmm::report::dot::DotOptions {
                relations: relations
                    .iter()
                    .flat_map(|r| r.split(','))
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty())
                    .collect(),
                title: format!("{}: {} — {what}", x.test, x.outcome),
            };
            let text = vkmm::report::dot::to_dot(drawn, cycle, &opts);
            if dot.is_none() && svg.is_none() && png.is_none() {
                print!("{text}");
                return Ok(0);
            }
            let dot_path = match &dot {
                Some(p) => p.clone(),
                None => std::env::temp_dir().join(format!("vkmm-{}.dot", std::process::id())),
            };
            std::fs::write(&dot_path, &text)
                .map_err(|e| format!("{}: cannot write: {e}", dot_path.display()))?;
            if dot.is_some() {
                eprintln!("wrote {}", dot_path.display());
            }
            for (out, fmt) in [(&svg, "svg"), (&png, "png")] {
                let Some(out) = out else { continue };
                let status = std::process::Command::new("dot")
                    .arg(format!("-T{fmt}"))
                    .arg("-o")
                    .arg(out)
                    .arg(&dot_path)
                    .status();
                match status {
                    Ok(st) if st.success() => eprintln!("wrote {}", out.display()),
                    Ok(st) => {
                        return Err(format!(
                            "`dot -T{fmt}` failed ({st}) on {}",
                            dot_path.display()
                        ));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(format!(
                            "cannot render {}: the Graphviz `dot` program is not installed (apt-get install graphviz); the DOT text is in {}",
                            out.display(),
                            dot_path.display()
                        ));
                    }
                    Err(e) => return Err(format!("cannot run `dot`: {e}")),
                }
            }
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
            let loaded: Vec<(String, vkmm::cat::Model)> = models
                .iter()
                .map(|m| {
                    vkmm::model::load(m)
                        .map(|x| (m.clone(), x))
                        .map_err(|e| e.to_string())
                })
                .collect::<Result<_, _>>()?;
            let mut reports = Vec::new();
            let mut errors = 0;
            for f in &files {
                match compare_file(f, &loaded, &limits) {
                    Ok(r) => reports.push(r),
                    Err(e) => {
                        errors += 1;
                        eprintln!("error: {e}");
                    }
                }
            }
            match format {
                OutputFormat::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&reports).map_err(|e| e.to_string())?
                ),
                OutputFormat::Text => {
                    for r in &reports {
                        print!("{}", vkmm::report::comparison_text(r));
                    }
                    let differing = reports.iter().filter(|r| r.differs).count();
                    println!(
                        "{} of {} tests differ between {}",
                        differing,
                        reports.len(),
                        models.join(" and ")
                    );
                }
            }
            Ok(if errors > 0 { 2 } else { 0 })
        }
        Command::Suite {
            dir,
            args,
            expected,
            property,
            jobs,
        } => {
            let models = load_models(&args)?;
            let json = args.format == OutputFormat::Json;
            let start = Instant::now();
            let summary = match expected {
                Some(csv) => {
                    let text = std::fs::read_to_string(&csv)
                        .map_err(|e| format!("{}: cannot read: {e}", csv.display()))?;
                    let rows =
                        vkmm::analysis::expected::parse(&csv.display().to_string(), &text, &dir)?;
                    let pb = progress(rows.len(), json);
                    let results: Vec<(usize, Result<Checked, FileError>)> =
                        pool(jobs)?.install(|| {
                            rows.par_iter()
                                .enumerate()
                                .map(|(i, r)| {
                                    pb.set_message(r.path.display().to_string());
                                    let res = check_file(&r.path, &models, &args, Some(property));
                                    pb.inc(1);
                                    (i, res)
                                })
                                .collect()
                        });
                    pb.finish_and_clear();
                    let (mut total, mut passed) = (0, 0);
                    let mut failed = Vec::new();
                    let mut errors = Vec::new();
                    for (i, res) in results {
                        let row = &rows[i];
                        match res {
                            Ok(Checked::Litmus(o, _)) => {
                                total += 1;
                                match o.holds(property) {
                                    Some(h) if h == row.holds => passed += 1,
                                    actual => failed.push(Failure {
                                        file: row.path.display().to_string(),
                                        detail: mismatch_detail(&o, property, row.holds, actual),
                                    }),
                                }
                            }
                            Ok(Checked::Queries(o)) => {
                                add_queries(&[o], &mut total, &mut passed, &mut failed)
                            }
                            Err(e) => errors.push(e),
                        }
                    }
                    Summary {
                        total,
                        passed,
                        failed,
                        errors,
                        files: rows.len(),
                        time: start.elapsed(),
                    }
                }
                None => {
                    let mut files = Vec::new();
                    collect_tests(&dir, &mut files)
                        .map_err(|e| format!("{}: cannot read folder: {e}", dir.display()))?;
                    files.retain(|f| Format::of_path(f) == Some(Format::AlloyTest));
                    if files.is_empty() {
                        return Err(format!(
                            "{}: no .test files found (for .litmus suites give --expected FILE.csv)",
                            dir.display()
                        ));
                    }
                    let pb = progress(files.len(), json);
                    let results: Vec<Result<Checked, FileError>> = pool(jobs)?.install(|| {
                        files
                            .par_iter()
                            .map(|f| {
                                let r = check_file(f, &models, &args, None);
                                pb.inc(1);
                                r
                            })
                            .collect()
                    });
                    pb.finish_and_clear();
                    let mut outcomes = Vec::new();
                    let mut errors = Vec::new();
                    for r in results {
                        match r {
                            Ok(Checked::Queries(o)) => outcomes.push(o),
                            Ok(Checked::Litmus(..)) => {}
                            Err(e) => errors.push(e),
                        }
                    }
                    Summary::new(&outcomes, errors, start.elapsed())
                }
            };
            print_summary(&summary, args.format)?;
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
