//! Expected-verdict files: one `path,verdict` row per test (`1`: the property
//! holds, `0`: it does not), paths relative to the suite folder; optionally a
//! third column `checked` or `annotated` (Dat3M's liveness CSVs: annotated
//! verdicts were never machine-checked by their authors) and a header row
//! (`path,...`) first.

use std::path::{Path, PathBuf};

/// One row of an expected-verdicts CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRow {
    pub path: PathBuf,
    pub holds: bool,
    pub line: usize,
    /// The row's status column says `annotated`.
    pub annotated: bool,
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
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
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
