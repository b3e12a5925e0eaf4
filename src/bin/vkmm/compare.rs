//! `vkmm compare` and `vkmm refines`: one test under several models.

use crate::args::OutputFormat;
use crate::output::{EXIT_UNDECIDED, emit, file_error};
use std::path::PathBuf;
use vkmm::Session;
use vkmm::report;

/// `vkmm compare FILES --models A,B,...`.
pub fn compare_command(
    files: &[PathBuf],
    models: &[String],
    session: &Session,
    format: OutputFormat,
    fail_on_difference: bool,
) -> Result<i32, String> {
    if models.len() < 2 {
        return Err(
            "--models needs at least two models, e.g. --models vulkan,vulkan-nochains".into(),
        );
    }
    let names: Vec<&str> = models.iter().map(String::as_str).collect();
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut limited = 0;
    for f in files {
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
            // A limit reached before the program was read: undecided.
            Err(e @ vkmm::Error::Limit { .. }) => {
                eprintln!("{e}");
                limited += 1;
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
            s.push_str(&vkmm::analysis::compare::summary_line(&reports, models));
            s
        },
    );
    Ok(if !errors.is_empty() {
        2
    } else if fail_on_difference && differing > 0 {
        1
    } else if limited > 0 || reports.iter().any(|r| !r.complete) {
        EXIT_UNDECIDED
    } else {
        0
    })
}

/// `vkmm refines`: each file's refinement report; exit 1 on a violation,
/// 2 on an unreadable file, 3 when an enumeration was incomplete.
pub fn refines(
    files: &[std::path::PathBuf],
    imp: &str,
    spec: &str,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let mut reports = Vec::new();
    let mut errors = Vec::new();
    let mut limited = 0;
    for f in files {
        let name = f.display().to_string();
        match session
            .load_file(f)
            .and_then(|p| session.refines(&name, &p, imp, spec))
        {
            Ok(r) => reports.push(r),
            // A limit reached before the program was read: undecided.
            Err(e @ vkmm::Error::Limit { .. }) => {
                eprintln!("{e}");
                limited += 1;
            }
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
            let mut s: String = reports.iter().map(vkmm::report::text::refinement).collect();
            s.push_str(&vkmm::report::text::refinement_summary(&reports, imp, spec));
            s
        },
    );
    let code = vkmm::analysis::refines::exit_code(&reports, errors.len());
    Ok(if code == 0 && limited > 0 {
        EXIT_UNDECIDED
    } else {
        code
    })
}
