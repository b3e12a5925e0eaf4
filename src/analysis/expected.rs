//! Expected-verdict files: one `path,verdict` row per test (`1`: the property
//! holds, `0`: it does not), paths relative to the suite folder.

use std::path::{Path, PathBuf};

/// One row of an expected-verdicts CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedRow {
    pub path: PathBuf,
    pub holds: bool,
    pub line: usize,
}

/// Parses a CSV's text. Errors name the line and column.
pub fn parse(file: &str, text: &str, base: &Path) -> Result<Vec<ExpectedRow>, String> {
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((path, verdict)) = line.rsplit_once(',') else {
            return Err(format!(
                "{file}:{}:1: expected `path,verdict`, found `{line}`",
                i + 1
            ));
        };
        let holds = match verdict.trim() {
            "1" => true,
            "0" => false,
            other => {
                return Err(format!(
                    "{file}:{}:{}: expected verdict 1 or 0, found `{other}`",
                    i + 1,
                    path.len() + 2
                ));
            }
        };
        rows.push(ExpectedRow {
            path: base.join(path.trim()),
            holds,
            line: i + 1,
        });
    }
    Ok(rows)
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
}
