//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use vkmm::exec::Limits;
use vkmm::verdict::{Models, TestOutcome, check_program};

pub fn models() -> Models {
    Models::builtin("vulkan").expect("the built-in models parse")
}

pub fn check_text(name: &str, text: &str, models: &Models) -> TestOutcome {
    let program = vkmm::frontend::alloy_test::parse(name, text)
        .unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    check_program(name, &program, models, Limits::default())
        .unwrap_or_else(|e| panic!("{name} cannot be checked: {e}"))
}

pub fn check_path(path: &Path, models: &Models) -> Result<TestOutcome, String> {
    let program = vkmm::frontend::load(path).map_err(|e| e.to_string())?;
    check_program(
        &path.display().to_string(),
        &program,
        models,
        Limits::default(),
    )
    .map_err(|e| e.to_string())
}

/// `../shared/corpus/<sub>` relative to the crate, if present.
pub fn corpus(sub: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(sub);
    p.is_dir().then_some(p)
}

pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some(ext))
        .collect();
    out.sort();
    out
}

/// Checks every `.test` file; returns the number of queries and a line per
/// query whose answer differs from its expectation (or per file that fails).
pub fn check_queries(files: &[PathBuf], models: &Models) -> (usize, Vec<String>) {
    let mut total = 0;
    let mut failures = Vec::new();
    for f in files {
        match check_path(f, models) {
            Ok(o) => {
                for q in &o.queries {
                    total += 1;
                    if !q.passed {
                        failures.push(format!(
                            "{}:{}: `{}` expected {} got {}",
                            f.display(),
                            q.line,
                            q.query,
                            q.expected,
                            q.actual
                        ));
                    }
                }
            }
            Err(e) => failures.push(e),
        }
    }
    (total, failures)
}
