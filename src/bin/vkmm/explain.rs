//! `vkmm explain` and `vkmm show`: why an outcome is allowed or forbidden
//! (or why a program can run forever), as text, JSON or a drawing.

use crate::args::{ModelArgs, OutputFormat};
use crate::output::{EXIT_UNDECIDED, emit, render};
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
        let x = match explain_termination(&session, file, explain_spec.as_deref())? {
            Ok(x) => x,
            Err(stop) => return Ok(stopped(args.format, &stop)),
        };
        emit(args.format, "explain", &x, || {
            report::text::termination_explanation(&x)
        });
        return Ok(if x.outcome.complete() {
            0
        } else {
            EXIT_UNDECIDED
        });
    }
    let x = match explain(
        &args.session(),
        file,
        outcome.as_deref(),
        explain_spec.as_deref(),
    )? {
        Ok(x) => x,
        Err(stop) => return Ok(stopped(args.format, &stop)),
    };
    emit(args.format, "explain", &x, || report::text::explanation(&x));
    // Undecided anywhere in what is printed (the verdict, the counts, the
    // rejections, the test's races) is undecided for the command.
    Ok(if x.undecided.is_empty() {
        0
    } else {
        EXIT_UNDECIDED
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
        let x = match explain_termination(&session, file, explain_spec.as_deref())? {
            Ok(x) => x,
            Err(stop) => return Ok(stopped(args.format, &stop)),
        };
        let text = match report::dot::termination(&x, &relations) {
            Ok(t) => t,
            Err(e) if !x.outcome.complete() => {
                eprintln!("{}: {e}", file.display());
                return Ok(EXIT_UNDECIDED);
            }
            Err(e) => return Err(format!("{}: {e}", file.display())),
        };
        render(&text, dot.as_deref(), svg.as_deref(), png.as_deref())?;
        // A drawing of a search a limit stopped is no verdict.
        if let Some(why) = termination_undecided(&x) {
            eprintln!("{}: undecided: {why}", file.display());
            return Ok(EXIT_UNDECIDED);
        }
        return Ok(0);
    }
    let x = match explain(
        &args.session(),
        file,
        outcome.as_deref(),
        explain_spec.as_deref(),
    )? {
        Ok(x) => x,
        Err(stop) => return Ok(stopped(args.format, &stop)),
    };
    report::dot::check_relations(&x, &relations)?;
    let text = match report::dot::explanation(&x, &relations) {
        Ok(t) => t,
        // Nothing honest to draw for an answer not decided (an undecided
        // verdict, nothing producing the outcome within a bound that cut
        // paths): undecided has its own exit code.
        Err(e) if !x.undecided.is_empty() => {
            eprintln!("{}: {e}", file.display());
            // An undecided verdict is what the message above says; a
            // verdict within a bound says why it is not the program's.
            if x.verdict != vkmm::analysis::explain::Verdict::Undecided {
                for part in &x.undecided {
                    eprintln!("{}: undecided: {part}", file.display());
                }
            }
            return Ok(EXIT_UNDECIDED);
        }
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    render(&text, dot.as_deref(), svg.as_deref(), png.as_deref())?;
    // What the drawing stands for is not all decided (a verdict within the
    // unrolling bound, a sample of the rejections, the test's races): said
    // on standard error, with the undecided status.
    if x.undecided.is_empty() {
        Ok(0)
    } else {
        for part in &x.undecided {
            eprintln!("{}: undecided: {part}", file.display());
        }
        Ok(EXIT_UNDECIDED)
    }
}

/// What a limit reached before there was anything to explain (the file
/// not yet read and lowered) leaves: undecided, not an error of the input.
/// The message goes to standard error (and, for JSON, into a document
/// with `undecided` in place of the answer); the exit code is 3.
fn stopped(format: OutputFormat, stop: &str) -> i32 {
    if format == OutputFormat::Json {
        let doc = serde_json::json!({ "undecided": stop });
        crate::output::out(&(vkmm::report::json::document("explain", &doc) + "\n"));
    }
    eprintln!("{stop}");
    EXIT_UNDECIDED
}

/// An explanation; `Ok(Err(message))` when a limit stopped the work
/// before the program was read ([`vkmm::Error::Limit`]: undecided), and
/// `Err` for an error of the input or of the request.
fn explain(
    session: &Session,
    file: &Path,
    outcome: Option<&str>,
    explain_spec: Option<&Path>,
) -> Result<Result<Explanation, String>, String> {
    let wording = read_wording(explain_spec, session)?;
    let program = match session.load_file(file) {
        Ok(p) => p,
        Err(e @ vkmm::Error::Limit { .. }) => return Ok(Err(e.to_string())),
        Err(e) => return Err(e.to_string()),
    };
    program.warnings.iter().for_each(|w| eprintln!("{w}"));
    session
        .explain(&program, outcome, wording)
        .map(Ok)
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

/// [`explain`]'s termination counterpart.
fn explain_termination(
    session: &Session,
    file: &Path,
    explain_spec: Option<&Path>,
) -> Result<Result<vkmm::TerminationExplanation, String>, String> {
    let wording = read_wording(explain_spec, session)?;
    let program = match session.load_file(file) {
        Ok(p) => p,
        Err(e @ vkmm::Error::Limit { .. }) => return Ok(Err(e.to_string())),
        Err(e) => return Err(e.to_string()),
    };
    program.warnings.iter().for_each(|w| eprintln!("{w}"));
    session
        .explain_termination(&program, wording)
        .map(Ok)
        .map_err(|e| e.to_string())
}

/// The wording file, read under the session's memory bound.
fn read_wording(
    explain_spec: Option<&Path>,
    session: &Session,
) -> Result<Option<ExplainSpec>, String> {
    match explain_spec {
        Some(p) => {
            let text = vkmm::memory::read_input_text(p, session.current_limits().bounds.max_memory)
                .map_err(|e| format!("{}: {e}", p.display()))?;
            Ok(Some(
                ExplainSpec::parse(&p.display().to_string(), &text).map_err(|e| e.to_string())?,
            ))
        }
        None => Ok(None),
    }
}

/// Why a termination explanation is not a verdict on the program, or
/// `None` when it is: the front end or a limit stopped the search, or the
/// program terminates only within the unrolling bound.
fn termination_undecided(x: &vkmm::TerminationExplanation) -> Option<String> {
    let o = &x.outcome;
    if o.complete() {
        return None;
    }
    Some(if let Some(m) = &o.front_end_limit {
        format!("the front end stopped before it built the whole program ({m})")
    } else if o.bounded() {
        format!(
            "it terminates within the unrolling bound only: the bound cut {} thread path{} (raise --unroll)",
            o.cut_paths,
            if o.cut_paths == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "the search stopped {}",
            o.stopped_by.map_or("at a limit", vkmm::LimitKind::describe)
        )
    })
}
