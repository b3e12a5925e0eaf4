//! JUnit XML of a suite, for CI systems that show test results: one
//! `<testsuite>` with one `<testcase>` per check (CSV row, `.test` query,
//! litmus file). A mismatch is a `<failure>`; an undecided check is never a
//! pass: `<skipped>` with the reason (what stopped the search), or under the
//! `fail` policy ([`Undecided::Fail`], `--undecided fail`) a
//! `<failure type="undecided">`; a file that could not be checked is an
//! `<error>`; a litmus file checked without expectation and decided passes.
//!
//! Written by hand: the format is a handful of elements, and escaping text
//! is all an XML writer would add.

use crate::analysis::suite::{Record, Status, Summary};
use std::fmt::Write;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 has no other control characters.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                let _ = write!(out, "&#xFFFD;");
            }
            c => out.push(c),
        }
    }
    out
}

fn case_name(r: &Record) -> String {
    match (&r.query, r.property) {
        (Some(q), _) => q.clone(),
        (None, Some(p)) => format!("{p:?}").to_lowercase(),
        (None, None) => "check".into(),
    }
}

/// How an undecided check is reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Undecided {
    /// `<skipped message="undecided: ...">`: neither a pass nor a mismatch.
    #[default]
    Skip,
    /// `<failure type="undecided">`: a CI run that must decide every check.
    Fail,
}

/// The JUnit XML document of a suite named `name`, undecided checks skipped.
pub fn suite(name: &str, s: &Summary) -> String {
    suite_with(name, s, Undecided::Skip)
}

/// The JUnit XML document of a suite named `name`, undecided checks
/// reported as `policy` says.
pub fn suite_with(name: &str, s: &Summary, policy: Undecided) -> String {
    let mut x = String::new();
    let _ = writeln!(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let undecided = s
        .records
        .iter()
        .filter(|r| r.status == Status::Undecided)
        .count();
    let skipped = s
        .records
        .iter()
        .filter(|r| r.status == Status::Unsupported)
        .count()
        + if policy == Undecided::Skip {
            undecided
        } else {
            0
        };
    let failures = s
        .records
        .iter()
        .filter(|r| matches!(r.status, Status::Failed | Status::Undefined))
        .count()
        + if policy == Undecided::Fail {
            undecided
        } else {
            0
        };
    let errors = s
        .records
        .iter()
        .filter(|r| r.status == Status::Error)
        .count();
    let _ = writeln!(
        x,
        "<testsuites name=\"vkmm\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        s.records.len(),
        s.time.as_secs_f64()
    );
    let _ = writeln!(
        x,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{:.3}\">",
        escape(name),
        s.records.len(),
        s.time.as_secs_f64()
    );
    for r in &s.records {
        let _ = write!(
            x,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6}\"",
            escape(&r.file),
            escape(&case_name(r)),
            r.time_ms / 1000.0
        );
        let detail = escape(r.detail.as_deref().unwrap_or(""));
        match r.status {
            Status::Passed | Status::Checked => {
                let _ = writeln!(x, "/>");
            }
            Status::Unsupported => {
                let _ = writeln!(
                    x,
                    ">\n      <skipped message=\"{detail}\"/>\n    </testcase>"
                );
            }
            Status::Failed => {
                let _ = writeln!(
                    x,
                    ">\n      <failure type=\"mismatch\" message=\"expected {}, got {}\">{detail}</failure>\n    </testcase>",
                    escape(r.expected.as_deref().unwrap_or("-")),
                    escape(&r.actual)
                );
            }
            Status::Undecided if policy == Undecided::Skip => {
                let _ = writeln!(
                    x,
                    ">\n      <skipped message=\"undecided: {}\"/>\n    </testcase>",
                    if detail.is_empty() {
                        "a limit stopped the search".to_string()
                    } else {
                        detail
                    }
                );
            }
            Status::Undecided => {
                let _ = writeln!(
                    x,
                    ">\n      <failure type=\"undecided\" message=\"undecided: a limit stopped the search\">{detail}</failure>\n    </testcase>"
                );
            }
            Status::Undefined => {
                let _ = writeln!(
                    x,
                    ">\n      <failure type=\"undefined\" message=\"undefined behaviour: the verdict rests on executions with an out-of-bounds access\">{detail}</failure>\n    </testcase>"
                );
            }
            Status::Error => {
                let _ = writeln!(
                    x,
                    ">\n      <error type=\"input\" message=\"{detail}\"/>\n    </testcase>"
                );
            }
        }
    }
    let _ = writeln!(x, "  </testsuite>\n</testsuites>");
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::FileError;
    use std::time::Duration;

    #[test]
    fn escapes_and_counts() {
        assert_eq!(
            escape("a<b & \"c\"\u{1}"),
            "a&lt;b &amp; &quot;c&quot;&#xFFFD;"
        );
        let mut s = Summary::new(&[], Vec::new(), Duration::from_millis(5));
        s.add_error(FileError {
            file: "x<1>.litmus".into(),
            error: "x.litmus:1:2: bad".into(),
        });
        let x = suite("own", &s);
        assert!(
            x.contains("tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""),
            "{x}"
        );
        assert!(x.contains("classname=\"x&lt;1&gt;.litmus\""), "{x}");
        assert!(
            x.contains("<error type=\"input\" message=\"x.litmus:1:2: bad\"/>"),
            "{x}"
        );
    }
}
