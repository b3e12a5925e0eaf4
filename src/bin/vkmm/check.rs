//! `vkmm check`: each file's answers, one after the other, each search on
//! the given threads.

use crate::args::{ModelArgs, OutputFormat};
use crate::output::{self, EXIT_UNDECIDED, file_error, out};
use std::path::PathBuf;
use vkmm::Property;
use vkmm::analysis::{Checked, Summary};
use vkmm::report::{self, json};
use web_time::Instant;

/// `vkmm check FILES`: the global pool sized to `threads` (default: one
/// per core), then [`check`].
pub fn command(
    files: &[PathBuf],
    args: &ModelArgs,
    property: Option<Property>,
    threads: Option<usize>,
) -> Result<i32, String> {
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
    check(files, args, property, threads)
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
    let mut limited = Vec::new();
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
                        Checked::Litmus(o) => match report::herd::litmus_of(
                            o,
                            std::fs::read_to_string(f).ok().as_deref(),
                        ) {
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
            // A limit reached before the program was read: undecided.
            Err(e @ vkmm::Error::Limit { .. }) => {
                if args.format != OutputFormat::Json {
                    eprintln!("{e}");
                }
                limited.push(vkmm::analysis::Failure {
                    file: f.display().to_string(),
                    detail: e.to_string(),
                });
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
    summary.undecided.extend(limited);
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
