//! `vkmm explain` and `vkmm show`: why an outcome is allowed or forbidden
//! (or why a program can run forever), as text, JSON or a drawing.

use crate::EXIT_UNDECIDED;
use crate::args::{ModelArgs, OutputFormat};
use crate::output::{emit, render};
use std::path::{Path, PathBuf};
use vkmm::analysis::explain::{ExplainSpec, Explanation};
use vkmm::report;
use vkmm::{Property, Session};

/// `vkmm explain FILE`.
pub fn explain_command(
    file: &Path,
    outcome: Option<String>,
    explain_spec: Option<PathBuf>,
    args: &ModelArgs,
    property: Option<Property>,
) -> Result<i32, String> {
    if let Some(session) = termination_session(args, property, outcome.as_deref())? {
        let x = explain_termination(&session, file, explain_spec.as_deref())?;
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
        file,
        outcome.as_deref(),
        explain_spec.as_deref(),
    )?;
    emit(args.format, "explain", &x, || report::text::explanation(&x));
    Ok(match x.verdict {
        vkmm::analysis::explain::Verdict::Undecided => EXIT_UNDECIDED,
        _ => 0,
    })
}

/// What `vkmm show` draws and where.
pub struct Drawing {
    pub dot: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub png: Option<PathBuf>,
    pub relations: Vec<String>,
}

/// `vkmm show FILE`.
pub fn show_command(
    file: &Path,
    outcome: Option<String>,
    explain_spec: Option<PathBuf>,
    drawing: Drawing,
    args: &ModelArgs,
    property: Option<Property>,
) -> Result<i32, String> {
    let Drawing {
        dot,
        svg,
        png,
        relations,
    } = drawing;
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
    if let Some(session) = termination_session(args, property, outcome.as_deref())? {
        let x = explain_termination(&session, file, explain_spec.as_deref())?;
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
        file,
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
