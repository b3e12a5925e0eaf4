//! Suites: which files a suite runs (every litmus file below a folder, or the
//! rows of an expected-verdicts CSV), and how their results are scored into
//! a [`Summary`]. Running the items is the caller's business (the facade
//! runs them in order; the command line runs them on a thread pool).

use super::{Checked, LitmusOutcome, Property, TestOutcome};
use crate::frontend::Format;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A file that could not be checked.
#[derive(Clone, Debug, Serialize)]
pub struct FileError {
    pub file: String,
    pub error: String,
}

/// A check whose answer differs from its expectation.
#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub file: String,
    pub detail: String,
}

/// The summary of a `suite` run.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: Vec<Failure>,
    pub errors: Vec<FileError>,
    pub files: usize,
    #[serde(serialize_with = "super::ser_duration")]
    pub time: Duration,
}

impl Summary {
    /// The summary of checked `.test` files: one check per query.
    pub fn new(outcomes: &[TestOutcome], errors: Vec<FileError>, time: Duration) -> Summary {
        let mut s = Summary {
            total: 0,
            passed: 0,
            failed: Vec::new(),
            errors,
            files: outcomes.len(),
            time,
        };
        for o in outcomes {
            s.add_queries(o);
        }
        s
    }

    /// Adds one check per query of a checked `.test` file.
    pub fn add_queries(&mut self, o: &TestOutcome) {
        for q in &o.queries {
            self.total += 1;
            if q.passed {
                self.passed += 1;
            } else {
                self.failed.push(Failure {
                    file: o.file.clone(),
                    detail: format!(
                        "line {}: `{}` under {}: expected {}, got {}",
                        q.line, q.query, q.model, q.expected, q.actual
                    ),
                });
            }
        }
    }

    /// 0 when everything matches, 1 on a mismatch, 2 when some input could not be checked.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            2
        } else if !self.failed.is_empty() {
            1
        } else {
            0
        }
    }
}

/// One file a suite checks, with the verdict its CSV row expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteItem {
    pub path: PathBuf,
    /// `Some(holds)` for a CSV row; `None` for a `.test` file (its queries
    /// carry their own expectations).
    pub expected: Option<bool>,
}

/// The items of a suite: the rows of `expected` (paths relative to `dir`),
/// or every `.test` file below `dir`.
pub fn plan(dir: &Path, expected: Option<&Path>) -> Result<Vec<SuiteItem>, String> {
    if let Some(csv) = expected {
        let text = std::fs::read_to_string(csv)
            .map_err(|e| format!("{}: cannot read: {e}", csv.display()))?;
        let rows = super::expected::parse(&csv.display().to_string(), &text, dir)?;
        return Ok(rows
            .into_iter()
            .map(|r| SuiteItem {
                path: r.path,
                expected: Some(r.holds),
            })
            .collect());
    }
    let mut files = Vec::new();
    collect_tests(dir, &mut files)
        .map_err(|e| format!("{}: cannot read folder: {e}", dir.display()))?;
    files.retain(|f| Format::of_path(f) == Some(Format::AlloyTest));
    if files.is_empty() {
        return Err(format!(
            "{}: no .test files found (for .litmus suites give --expected FILE.csv)",
            dir.display()
        ));
    }
    Ok(files
        .into_iter()
        .map(|path| SuiteItem {
            path,
            expected: None,
        })
        .collect())
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

/// Scores the results of a suite's items (same order) into a summary.
pub fn score(
    items: &[SuiteItem],
    results: Vec<Result<Checked, FileError>>,
    property: Property,
    time: Duration,
) -> Summary {
    let mut s = Summary::new(&[], Vec::new(), time);
    for (item, res) in items.iter().zip(results) {
        match res {
            Ok(Checked::Litmus(o)) => {
                s.files += 1;
                let Some(expected) = item.expected else {
                    continue;
                };
                s.total += 1;
                match o.holds(property) {
                    Some(h) if h == expected => s.passed += 1,
                    actual => s.failed.push(Failure {
                        file: item.path.display().to_string(),
                        detail: mismatch_detail(&o, property, expected, actual),
                    }),
                }
            }
            Ok(Checked::Queries(o)) => {
                s.files += 1;
                s.add_queries(&o);
            }
            Err(e) => s.errors.push(e),
        }
    }
    s
}

/// Why a CSV row disagrees: the verdicts, the witnesses and the outcome list.
pub fn mismatch_detail(
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
