//! `vkmm diff --models A,B`: the smallest tests on which two models
//! disagree, written as litmus files with both models' verdicts and
//! explanations.

use crate::args::OutputFormat;
use crate::output::{EXIT_UNDECIDED, emit};
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::diff::{DiffBounds, DiffEngine, Vocabulary, annotated};

/// The search's bound as the command line gives it.
pub struct Search {
    pub threads: usize,
    pub events: usize,
    pub locations: usize,
    pub vocabulary: String,
    pub scopes: String,
    pub classes: usize,
    pub max_tests: usize,
    /// Enumerate the skeletons instead of asking the SAT solver
    /// (`--engine reference`: the oracle of the differential tests).
    pub enumerate: bool,
}

/// `vkmm diff --models A,B [--out DIR]`.
pub fn diff_command(
    models: &[String],
    search: Search,
    out: Option<&Path>,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let [a, b] = models else {
        return Err(format!(
            "--models needs exactly two models, e.g. --models vulkan,vulkan-dat3m (got {})",
            models.len()
        ));
    };
    let bounds = DiffBounds {
        threads: search.threads,
        events: search.events,
        locations: search.locations,
        vocabulary: Vocabulary::parse(&search.vocabulary, &search.scopes, search.classes)?,
        max_tests: search.max_tests.max(1),
        deadline: None,
        engine: if search.enumerate {
            DiffEngine::Enumerate
        } else {
            DiffEngine::Symbolic
        },
    };
    let report = session.diff(a, b, &bounds).map_err(|e| e.to_string())?;
    let names = [a.clone(), b.clone()];
    let mut files = Vec::new();
    for w in &report.witnesses {
        let reasons = session.diff_reasons(&names, w).map(|r| match r {
            Ok(x) => vkmm::report::text::explanation(&x),
            Err(e) => format!("(no explanation: {e})"),
        });
        let text = annotated(w, &names, &reasons);
        if let Some(dir) = out {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
            let path = dir.join(format!("{}.litmus", w.name));
            std::fs::write(&path, &text)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
            files.push(path.display().to_string());
        }
    }
    emit(
        format,
        "diff",
        &serde_json::json!({ "diff": report, "files": files }),
        || {
            let mut s = String::new();
            for n in &report.notes {
                s.push_str(&format!("note: {n}\n"));
            }
            for w in &report.witnesses {
                s.push_str(&format!(
                    "{} ({} events, {} thread{}):\n{}  {}: {}\n  {}: {}\n\n",
                    w.name,
                    w.events,
                    w.threads,
                    if w.threads == 1 { "" } else { "s" },
                    w.text,
                    names[0],
                    w.verdicts[0],
                    names[1],
                    w.verdicts[1]
                ));
            }
            for f in &files {
                s.push_str(&format!("wrote {f}\n"));
            }
            s.push_str(&format!(
                "searched {} skeletons, {} candidate executions under both models ({} disagreements the check did not confirm)\n",
                report.skeletons, report.candidates, report.unconfirmed
            ));
            s.push_str(&report.summary());
            s.push('\n');
            s
        },
    );
    Ok(if !report.witnesses.is_empty() {
        1
    } else if report.complete {
        0
    } else {
        EXIT_UNDECIDED
    })
}

/// `vkmm gen CYCLE... [--models M,...] [--out DIR]`: one test per cycle,
/// with each model's verdicts.
pub fn gen_command(
    cycles: &[String],
    models: &[String],
    out: Option<&Path>,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let mut tests = Vec::new();
    let mut undecided = false;
    for cycle in cycles {
        let g = vkmm::analysis::generate::from_cycle(cycle)
            .map_err(|e| format!("cycle `{cycle}`: {e}"))?;
        let mut verdicts = Vec::new();
        for m in models {
            let s = session.clone().model(m.clone());
            // A limit reached while the test is read or checked leaves
            // this model's verdicts undecided (exit 3), not an error.
            let program = match s.load_text(&format!("{}.litmus", g.name), &g.text) {
                Ok(p) => p,
                Err(e @ vkmm::Error::Limit { .. }) => {
                    undecided = true;
                    verdicts.push(format!("{m}: condition undecided, races undecided ({e})"));
                    continue;
                }
                Err(e) => {
                    return Err(format!(
                        "cycle `{cycle}`: the generated test does not parse: {e}"
                    ));
                }
            };
            let checked = match s.check_program(&g.name, &program) {
                Ok(c) => c,
                Err(e @ vkmm::Error::Limit { .. }) => {
                    undecided = true;
                    verdicts.push(format!("{m}: condition undecided, races undecided ({e})"));
                    continue;
                }
                Err(e) => return Err(e.to_string()),
            };
            let vkmm::Checked::Litmus(o) = checked else {
                return Err("a generated test is a litmus test".into());
            };
            undecided |= !o.complete();
            let cond = match o.holds(vkmm::Property::Condition) {
                Some(true) => "Ok (the cycle's execution is allowed)",
                Some(false) => "No (the cycle's execution is forbidden)",
                None => "undecided",
            };
            let race = match o.holds(vkmm::Property::Races) {
                Some(true) => "race-free",
                Some(false) => "racy",
                None => "races undecided",
            };
            verdicts.push(format!("{m}: condition {cond}, {race}"));
        }
        let (head, rest) = g.text.split_once('\n').unwrap_or((&g.text, ""));
        let (comment, body) = rest.split_once('\n').unwrap_or(("", rest));
        let text = format!(
            "{head}\n{}\n{}\"\n{body}",
            comment.trim_end_matches('"'),
            verdicts.join("\n")
        );
        if let Some(dir) = out {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
            let path = dir.join(format!("{}.litmus", g.name));
            std::fs::write(&path, &text)
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        }
        tests.push(serde_json::json!({ "name": g.name, "cycle": cycle, "text": text, "verdicts": verdicts }));
    }
    emit(
        format,
        "gen",
        &serde_json::json!({ "tests": tests }),
        || {
            // One blank line between tests.
            tests
                .iter()
                .map(|t| t["text"].as_str().unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n")
        },
    );
    Ok(if undecided { EXIT_UNDECIDED } else { 0 })
}
