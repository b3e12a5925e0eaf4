//! Expected-verdict files: one `path,verdict` row per test (`1`: the property
//! holds, `0`: it does not), paths relative to the suite folder; optionally a
//! third column `checked` or `annotated` (Dat3M's liveness CSVs: annotated
//! verdicts were never machine-checked by their authors) and a header row
//! (`path,...`) first. Or Dat3M's
//! six-column rows `path,property,bound,expected,options,status` (a file
//! whose first row is that header), each row with its own property, loop
//! bound and three-valued verdict ([`RowSpec`]).

use std::path::{Path, PathBuf};

/// One row of an expected-verdicts CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRow {
    pub path: PathBuf,
    pub holds: bool,
    pub line: usize,
    /// The row's status column says `annotated`.
    pub annotated: bool,
    /// The row's own property, bound and verdict (six-column files).
    pub spec: Option<RowSpec>,
}

/// The header of the six-column format.
pub const SIX_COLUMNS: &str = "path,property,bound,expected,options,status";

/// What a property row of the six-column format asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowProperty {
    /// The `@Output` condition holds.
    Assertions,
    /// No data race under the Vulkan model.
    Races,
    /// No liveness violation under a progress model (not yet supported).
    Termination,
}

/// A three-valued verdict: the property holds, does not, or the bound
/// left it undecided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    #[serde(rename = "PASS")]
    Pass,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "UNKNOWN")]
    Unknown,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Unknown => "UNKNOWN",
        }
    }
    /// `Some(true)` is PASS, `Some(false)` FAIL, `None` UNKNOWN.
    pub fn of(holds: Option<bool>) -> Verdict {
        match holds {
            Some(true) => Verdict::Pass,
            Some(false) => Verdict::Fail,
            None => Verdict::Unknown,
        }
    }
}

/// One row of the six-column format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSpec {
    pub property: RowProperty,
    /// Dat3M's loop bound: a loop body runs at most this many times.
    pub bound: usize,
    pub expected: Verdict,
    /// `filter=true|false`, `progress=NAME`, or empty.
    pub options: String,
    /// `checked` (machine-checked by Dat3M's tests) or `annotated`.
    pub checked: bool,
}

impl RowSpec {
    /// vkmm's `--unroll` for Dat3M's bound: vkmm lets a statement run
    /// `unroll + 1` times, Dat3M a loop body `bound` times; a loop's head
    /// runs once more than its body's iterations, so `bound` runs of the
    /// head are `bound - 1` full iterations and the exit, `unroll = bound - 1`.
    pub fn unroll(&self) -> usize {
        self.bound.saturating_sub(1)
    }
    /// Whether the `@Filter` applies (`filter=false` drops it).
    pub fn filter(&self) -> bool {
        !self.options.split(';').any(|o| o.trim() == "filter=false")
    }
}

/// Parses a six-column row (`fields` split on commas).
fn six_column_row(fields: &[&str]) -> Result<(String, RowSpec), (usize, String)> {
    let [path, property, bound, expected, options, status] = fields else {
        return Err((
            0,
            format!("expected 6 columns ({SIX_COLUMNS}), found {}", fields.len()),
        ));
    };
    let col = |k: usize| fields[..k].iter().map(|f| f.len() + 1).sum::<usize>();
    let property = match property.trim() {
        "assertions" => RowProperty::Assertions,
        "races" => RowProperty::Races,
        "termination" => RowProperty::Termination,
        other => {
            return Err((
                col(1),
                format!("expected property assertions, races or termination, found `{other}`"),
            ));
        }
    };
    // An empty bound is Dat3M's default bound, 1.
    let b = Some(bound.trim()).filter(|b| !b.is_empty()).unwrap_or("1");
    let bound = b.parse::<usize>().map_err(|_| {
        (
            col(2),
            format!("expected a bound (a number), found `{bound}`"),
        )
    })?;
    let expected = match expected.trim() {
        "PASS" => Verdict::Pass,
        "FAIL" => Verdict::Fail,
        "UNKNOWN" => Verdict::Unknown,
        other => {
            return Err((
                col(3),
                format!("expected PASS, FAIL or UNKNOWN, found `{other}`"),
            ));
        }
    };
    let checked = match status.trim() {
        "checked" => true,
        "annotated" => false,
        other => {
            return Err((
                col(5),
                format!("expected status checked or annotated, found `{other}`"),
            ));
        }
    };
    Ok((
        path.trim().to_string(),
        RowSpec {
            property,
            bound,
            expected,
            options: options.trim().to_string(),
            checked,
        },
    ))
}

/// Parses a CSV's text. Errors name the line and column; the first bad
/// row fails the whole file (see [`parse_rows`] to keep the good rows).
pub fn parse(file: &str, text: &str, base: &Path) -> Result<Vec<ExpectedRow>, String> {
    let (rows, errors) = parse_rows(file, text, base);
    match errors.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(rows),
    }
}

/// Parses a CSV's text row by row: the good rows, and one error (with line
/// and column) per bad row. A UTF-8 byte-order mark is skipped.
pub fn parse_rows(file: &str, text: &str, base: &Path) -> (Vec<ExpectedRow>, Vec<String>) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut first = true;
    let six = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        == Some(SIX_COLUMNS);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if six {
            if line == SIX_COLUMNS {
                continue;
            }
            let fields: Vec<&str> = line.split(',').collect();
            // `??`: an annotated row without a verdict; nothing to compare.
            if fields.get(3).is_some_and(|e| e.trim() == "??") {
                continue;
            }
            match six_column_row(&fields) {
                Ok((path, spec)) => rows.push(ExpectedRow {
                    path: base.join(path),
                    holds: spec.expected == Verdict::Pass,
                    line: i + 1,
                    annotated: !spec.checked,
                    spec: Some(spec),
                }),
                Err((col, message)) => {
                    errors.push(format!("{file}:{}:{}: {message}", i + 1, col + 1))
                }
            }
            continue;
        }
        // A header row names its columns.
        if std::mem::take(&mut first) && line.split(',').next().map(str::trim) == Some("path") {
            continue;
        }
        let mut line = line;
        let mut annotated = false;
        if let Some((rest, last)) = line.rsplit_once(',')
            && !matches!(last.trim(), "0" | "1")
            && rest
                .rsplit_once(',')
                .is_some_and(|(_, v)| matches!(v.trim(), "0" | "1"))
        {
            annotated = match last.trim() {
                "checked" => false,
                "annotated" => true,
                other => {
                    errors.push(format!(
                        "{file}:{}:{}: expected status `checked` or `annotated`, found `{other}`",
                        i + 1,
                        rest.len() + 2
                    ));
                    continue;
                }
            };
            line = rest;
        }
        let Some((path, verdict)) = line.rsplit_once(',') else {
            errors.push(format!(
                "{file}:{}:1: expected `path,verdict`, found `{line}`",
                i + 1
            ));
            continue;
        };
        let holds = match verdict.trim() {
            "1" => true,
            "0" => false,
            other => {
                let hint = if path.contains(',') {
                    " (a row has two columns: path and verdict)"
                } else {
                    ""
                };
                errors.push(format!(
                    "{file}:{}:{}: expected verdict 1 or 0, found `{other}`{hint}",
                    i + 1,
                    path.len() + 2
                ));
                continue;
            }
        };
        rows.push(ExpectedRow {
            path: base.join(path.trim()),
            holds,
            line: i + 1,
            annotated,
            spec: None,
        });
    }
    (rows, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_reports_bad_ones() {
        let rows = parse("e.csv", "a/x.litmus,1\n\nb/y.litmus,0\n", Path::new("/d")).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].path, Path::new("/d/a/x.litmus"));
        assert!(rows[0].holds && !rows[1].holds);
        assert_eq!(rows[1].line, 3);
        let e = parse("e.csv", "x.litmus,2\n", Path::new(".")).unwrap_err();
        assert!(e.starts_with("e.csv:1:10: expected verdict 1 or 0"), "{e}");
        let e = parse("e.csv", "nocomma\n", Path::new(".")).unwrap_err();
        assert!(e.contains("path,verdict"), "{e}");
    }

    #[test]
    fn six_column_rows() {
        let text = "path,property,bound,expected,options,status\na.spvasm,races,3,UNKNOWN,filter=false,annotated\nb.spvasm,assertions,x,PASS,,checked\n";
        let (rows, errors) = parse_rows("e.csv", text, Path::new(""));
        assert_eq!(rows.len(), 1);
        let spec = rows[0].spec.as_ref().unwrap();
        assert_eq!(spec.property, RowProperty::Races);
        assert_eq!((spec.bound, spec.unroll()), (3, 2));
        assert_eq!(spec.expected, Verdict::Unknown);
        assert!(!spec.filter() && !spec.checked);
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0].starts_with("e.csv:3:21: expected a bound"),
            "{errors:?}"
        );
    }

    #[test]
    fn bad_rows_do_not_hide_good_ones() {
        let text = "\u{feff}a.litmus,1\npath,verdict\nb.litmus,yes\nc.litmus,1,x\nd.litmus,0\ne,f.litmus,1\n";
        let (rows, errors) = parse_rows("e.csv", text, Path::new(""));
        let paths: Vec<_> = rows.iter().map(|r| r.path.display().to_string()).collect();
        assert_eq!(
            paths,
            ["a.litmus", "d.litmus", "e,f.litmus"],
            "the BOM does not swallow the first row"
        );
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].starts_with("e.csv:2:6: expected verdict 1 or 0, found `verdict`"));
        assert!(
            errors[2]
                .starts_with("e.csv:4:12: expected status `checked` or `annotated`, found `x`"),
            "{errors:?}"
        );
    }

    #[test]
    fn status_column_and_header() {
        let text = "path,expected,status\na.litmus,1,checked\nb.litmus,0,annotated\nc.litmus,1\n";
        let rows = parse("l.csv", text, Path::new("")).unwrap();
        let got: Vec<(bool, bool)> = rows.iter().map(|r| (r.holds, r.annotated)).collect();
        assert_eq!(got, [(true, false), (false, true), (true, false)]);
        assert_eq!(rows[0].line, 2);
        // Only the first row can be a header.
        let e = parse("l.csv", "a.litmus,1\npath,expected\n", Path::new("")).unwrap_err();
        assert!(e.starts_with("l.csv:2:6:"), "{e}");
    }
}
