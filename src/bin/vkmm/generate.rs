//! `vkmm gen --family` and `vkmm gen --mutants`: every test of a bound, and
//! the weakened variants of tests, written with each model's verdicts.

use crate::args::{OutcomesArg, OutputFormat};
use crate::diff::Search;
use crate::output::{EXIT_UNDECIDED, emit};
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::diff::Vocabulary;
use vkmm::analysis::family::{FamilyBounds, ModelVerdict, Outcomes};

/// Writes `text` as DIR/NAME.litmus, returning the path.
pub fn write_test(dir: &Path, name: &str, text: &str) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
    let path = dir.join(format!("{name}.litmus"));
    std::fs::write(&path, text).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(path.display().to_string())
}

/// A model name as a file-name part: a `.cat` path's stem.
fn model_stem(model: &str) -> String {
    Path::new(model)
        .file_stem()
        .map_or(model.to_string(), |s| s.to_string_lossy().into_owned())
}

/// Writes DIR/expected-MODEL.csv for each model: one `path,verdict` row
/// (1: the `exists` outcome is allowed) per test whose verdict under the
/// model is decided, for `vkmm suite DIR --model MODEL --expected ...`.
pub fn write_expected(
    dir: &Path,
    models: &[String],
    tests: &[(String, Vec<ModelVerdict>)],
) -> Result<Vec<String>, String> {
    let mut files = Vec::new();
    for (i, m) in models.iter().enumerate() {
        let mut csv = String::from("path,verdict\n");
        for (name, verdicts) in tests {
            if let Some(holds) = verdicts.get(i).and_then(|v| v.condition) {
                csv.push_str(&format!("{name}.litmus,{}\n", u8::from(holds)));
            }
        }
        let path = dir.join(format!("expected-{}.csv", model_stem(m)));
        std::fs::write(&path, csv).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        files.push(path.display().to_string());
    }
    Ok(files)
}

/// `vkmm gen --family`.
pub fn family_command(
    models: &[String],
    search: Search,
    outcomes: OutcomesArg,
    out: Option<&Path>,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let bounds = FamilyBounds {
        threads: search.threads,
        events: search.events,
        locations: search.locations,
        vocabulary: Vocabulary::parse(&search.vocabulary, &search.scopes, search.classes)?,
        outcomes: match outcomes {
            OutcomesArg::Forbidden => Outcomes::Forbidden,
            OutcomesArg::All => Outcomes::All,
        },
        deadline: None,
    };
    let report = session.family(models, &bounds).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    if let Some(dir) = out {
        for t in &report.tests {
            files.push(write_test(dir, &t.name, &t.text)?);
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        let rows: Vec<(String, Vec<ModelVerdict>)> = report
            .tests
            .iter()
            .map(|t| (t.name.clone(), t.verdicts.clone()))
            .collect();
        files.extend(write_expected(dir, models, &rows)?);
    }
    emit(
        format,
        "gen",
        &serde_json::json!({ "family": report, "files": files }),
        || {
            let mut s = String::new();
            for n in &report.notes {
                s.push_str(&format!("note: {n}\n"));
            }
            if out.is_none() {
                for t in &report.tests {
                    s.push_str(&t.text);
                    s.push('\n');
                }
            } else {
                s.push_str(&format!("wrote {} files\n", files.len()));
            }
            s.push_str(&report.summary());
            s.push('\n');
            s
        },
    );
    Ok(if report.complete { 0 } else { EXIT_UNDECIDED })
}

/// The Vulkan litmus files `path` names: the file, or every `.litmus`
/// file below the folder (sorted).
fn litmus_files(path: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| format!("{}: cannot read: {e}", d.display()))?;
        for e in entries {
            let p = e.map_err(|e| format!("{}: {e}", d.display()))?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `vkmm gen --mutants FILE|DIR`.
pub fn mutants_command(
    models: &[String],
    path: &Path,
    out: Option<&Path>,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let mut tests = Vec::new();
    for f in litmus_files(path)? {
        let text = std::fs::read_to_string(&f)
            .map_err(|e| format!("{}: cannot read: {e}", f.display()))?;
        // Only the Vulkan dialect is weakened.
        if text.split_whitespace().next().map(str::to_ascii_uppercase) != Some("VULKAN".into()) {
            continue;
        }
        tests.push((f.display().to_string(), text));
    }
    if tests.is_empty() {
        return Err(format!(
            "{}: no Vulkan litmus test (`.litmus` whose first word is VULKAN)",
            path.display()
        ));
    }
    let report = session.mutants(models, &tests).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    if let Some(dir) = out {
        let mut rows = Vec::new();
        for t in &report.tests {
            for m in &t.mutants {
                files.push(write_test(dir, &m.name, &m.text)?);
                rows.push((m.name.clone(), m.verdicts.clone()));
            }
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("{}: cannot create: {e}", dir.display()))?;
        files.extend(write_expected(dir, models, &rows)?);
    }
    emit(
        format,
        "gen",
        &serde_json::json!({ "mutants": report, "files": files }),
        || {
            let mut s = String::new();
            for t in &report.tests {
                match &t.skipped {
                    Some(why) => s.push_str(&format!("{}: no mutants: {why}\n", t.file)),
                    None => {
                        s.push_str(&format!(
                            "{}: {} mutant{} ({} weakening{} still forbidden{})\n",
                            t.file,
                            t.mutants.len(),
                            if t.mutants.len() == 1 { "" } else { "s" },
                            t.still_forbidden,
                            if t.still_forbidden == 1 { "" } else { "s" },
                            if t.undecided > 0 {
                                format!(", {} undecided", t.undecided)
                            } else {
                                String::new()
                            }
                        ));
                        for m in &t.mutants {
                            s.push_str(&format!("  {}: {}\n", m.name, m.mutation));
                        }
                    }
                }
            }
            if !files.is_empty() {
                s.push_str(&format!("wrote {} files\n", files.len()));
            }
            s.push_str(&report.summary());
            s.push('\n');
            s
        },
    );
    Ok(if report.complete { 0 } else { EXIT_UNDECIDED })
}

/// `vkmm refines --impl MODEL --spec MODEL --mapping FILE`.
pub fn mapping_command(
    mapping: &Path,
    imp: &str,
    spec: &str,
    bounds: vkmm::analysis::mapping::MappingBounds,
    session: &Session,
    format: OutputFormat,
) -> Result<i32, String> {
    let report = session
        .check_mapping(imp, spec, mapping, &bounds)
        .map_err(|e| e.to_string())?;
    crate::output::write_whole();
    emit(
        format,
        "refines",
        &serde_json::json!({ "mapping": report }),
        || {
            let mut s = String::new();
            for n in &report.notes {
                s.push_str(&format!("note: {n}\n"));
            }
            // The minimal tests' violations whole; those of larger tests
            // that extend one counted after it (the JSON lists them all).
            let vs = &report.violations;
            for (i, v) in vs.iter().enumerate() {
                if v.extends.is_some() {
                    continue;
                }
                s.push_str(&format!(
                    "violation: {} allows {} on the compiled test, {} forbids it on the source\nsource:\n{}compiled:\n{}\n",
                    report.implementation, v.outcome, report.specification, v.source, v.target
                ));
                let last_of_test = vs.get(i + 1).is_none_or(|w| w.source != v.source);
                let first = vs.iter().position(|w| w.source == v.source).unwrap_or(i);
                let extending: Vec<&vkmm::analysis::mapping::MappingViolation> =
                    vs.iter().filter(|w| w.extends == Some(first)).collect();
                if last_of_test && !extending.is_empty() {
                    let mut tests: Vec<&str> =
                        extending.iter().map(|w| w.source.as_str()).collect();
                    tests.dedup();
                    s.push_str(&format!(
                        "and {} more violation{} in {} larger source test{} that extend{} this one (its events among theirs; `--format json` lists each, `extends` naming this violation)\n\n",
                        extending.len(),
                        if extending.len() == 1 { "" } else { "s" },
                        tests.len(),
                        if tests.len() == 1 { "" } else { "s" },
                        if tests.len() == 1 { "s" } else { "" },
                    ));
                }
            }
            s.push_str(&report.summary());
            s.push('\n');
            s
        },
    );
    Ok(if !report.violations.is_empty() {
        1
    } else if report.complete {
        0
    } else {
        EXIT_UNDECIDED
    })
}
