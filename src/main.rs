//! The `vkmm` command line: check litmus files, run suites.

use clap::{Parser, Subcommand, ValueEnum};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;
use vkmm::exec::Limits;
use vkmm::report::{FileError, Summary, outcome_text};
use vkmm::verdict::{Models, TestOutcome, check_program};

#[derive(Parser)]
#[command(
    name = "vkmm",
    version,
    about = "Executable GPU memory models: litmus test verdicts under the Vulkan memory model"
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
    /// Model for ordinary queries: a built-in name (vulkan, vulkan-nochains) or a .cat file.
    #[arg(long, default_value = "vulkan")]
    model: String,
    /// Model for NOCHAINS queries. Default: vulkan-nochains when --model is vulkan, else --model.
    #[arg(long)]
    nochains_model: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutputFormat,
}

#[derive(Subcommand)]
enum Command {
    /// Check litmus files: each query's expected and actual answer, and the time.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        args: ModelArgs,
    },
    /// Check every litmus file below a folder, in parallel, and summarise.
    Suite {
        dir: PathBuf,
        #[command(flatten)]
        args: ModelArgs,
        /// Worker threads (default: one per core).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
    },
}

fn load_models(args: &ModelArgs) -> Result<Models, String> {
    let chains = vkmm::models::load(&args.model).map_err(|e| e.to_string())?;
    let nc_name = match &args.nochains_model {
        Some(m) => m.clone(),
        None if args.model == "vulkan" => "vulkan-nochains".to_string(),
        None => args.model.clone(),
    };
    let no_chains = vkmm::models::load(&nc_name).map_err(|e| e.to_string())?;
    Ok(Models {
        chains,
        chains_name: args.model.clone(),
        no_chains,
        no_chains_name: nc_name,
    })
}

fn check_file(path: &Path, models: &Models) -> Result<TestOutcome, FileError> {
    let file = path.display().to_string();
    let program = vkmm::frontend::load(path).map_err(|e| FileError {
        file: file.clone(),
        error: e.to_string(),
    })?;
    check_program(&file, &program, models, Limits::default()).map_err(|e| FileError {
        file: file.clone(),
        error: format!("{file}: {e}"),
    })
}

fn collect_tests(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            collect_tests(&p, out)?;
        } else if vkmm::frontend::Format::of_path(&p).is_some() {
            out.push(p);
        }
    }
    Ok(())
}

fn run(cli: Cli) -> Result<i32, String> {
    match cli.command {
        Command::Check { files, args } => {
            let models = load_models(&args)?;
            let start = Instant::now();
            let results: Vec<Result<TestOutcome, FileError>> =
                files.iter().map(|f| check_file(f, &models)).collect();
            let mut outcomes = Vec::new();
            let mut errors = Vec::new();
            for r in results {
                match r {
                    Ok(o) => {
                        if args.format == OutputFormat::Text {
                            print!("{}", outcome_text(&o));
                        }
                        outcomes.push(o);
                    }
                    Err(e) => {
                        if args.format == OutputFormat::Text {
                            eprintln!("error: {}", e.error);
                        }
                        errors.push(e);
                    }
                }
            }
            let summary = Summary::new(&outcomes, errors, start.elapsed());
            if args.format == OutputFormat::Json {
                let v = serde_json::json!({ "results": outcomes, "summary": summary });
                println!(
                    "{}",
                    serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
                );
            } else if files.len() > 1 {
                print!("{}", summary.to_text());
            }
            Ok(summary.exit_code())
        }
        Command::Suite { dir, args, jobs } => {
            let models = load_models(&args)?;
            let mut files = Vec::new();
            collect_tests(&dir, &mut files)
                .map_err(|e| format!("{}: cannot read folder: {e}", dir.display()))?;
            if files.is_empty() {
                return Err(format!("{}: no litmus files found", dir.display()));
            }
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(jobs.unwrap_or(0))
                .build()
                .map_err(|e| e.to_string())?;
            let start = Instant::now();
            let results: Vec<Result<TestOutcome, FileError>> =
                pool.install(|| files.par_iter().map(|f| check_file(f, &models)).collect());
            let mut outcomes = Vec::new();
            let mut errors = Vec::new();
            for r in results {
                match r {
                    Ok(o) => outcomes.push(o),
                    Err(e) => errors.push(e),
                }
            }
            let summary = Summary::new(&outcomes, errors, start.elapsed());
            match args.format {
                OutputFormat::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?
                ),
                OutputFormat::Text => print!("{}", summary.to_text()),
            }
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
