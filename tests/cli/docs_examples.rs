//! The transcripts in the documentation are real: every `$ vkmm ...` line
//! in a ```text block of README.md and docs/*.md is run (through `sh`, in a
//! scratch folder that sees the repository's `examples`, `docs`, `tests`
//! and `../shared`), and its output (stdout and stderr together) must be the
//! lines that follow it, up to the next `$ ` line or the end of the block.
//! Times are compared as `<t>`; a line `...` (or `  ...`) stands for any
//! number of lines; `$ echo $?` checks the exit code of the command before.
//! A command naming `../shared` is skipped when the corpus is absent, one
//! rendering a picture when Graphviz is not installed; each such skip is
//! reported once ([`common::skip`]: a failure under CI).
//!
//! `VKMM_UPDATE_DOCS=1 cargo test --release --test cli docs_examples::` rewrites
//! the transcripts that differ and have no `...` line with what vkmm prints
//! now (review the diff: it is documentation).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

struct Transcript {
    file: String,
    line: usize,
    command: String,
    expected: Vec<String>,
    exit: Option<String>,
}

fn transcripts(root: &Path) -> Vec<Transcript> {
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(root).unwrap().display().to_string();
        let mut in_block = false;
        let mut current: Option<Transcript> = None;
        for (i, line) in text.lines().enumerate() {
            if line.starts_with("```") {
                if in_block {
                    out.extend(current.take());
                }
                in_block = line == "```text";
                continue;
            }
            if !in_block {
                continue;
            }
            if let Some(cmd) = line.strip_prefix("$ ") {
                if cmd == "echo $?" {
                    // the next line is the exit code of the command above
                    if let Some(t) = current.as_mut() {
                        t.exit = Some(String::new());
                    }
                    continue;
                }
                out.extend(current.take());
                if cmd.starts_with("vkmm ") {
                    current = Some(Transcript {
                        file: name.clone(),
                        line: i + 1,
                        command: cmd.to_string(),
                        expected: Vec::new(),
                        exit: None,
                    });
                }
                continue;
            }
            if let Some(t) = current.as_mut() {
                match &mut t.exit {
                    Some(code) if code.is_empty() => *code = line.trim().to_string(),
                    Some(_) => {}
                    None => t.expected.push(line.to_string()),
                }
            }
        }
    }
    out
}

/// Times vary: `12.345 ms`, JSON `"time": 12.3` and the seconds ending
/// herd's `Time NAME 0.00` line become `<t>`.
fn normalise(line: &str) -> String {
    if let Some(rest) = line.trim_end().strip_prefix("Time ")
        && let Some((name, seconds)) = rest.rsplit_once(' ')
        && !name.contains(' ')
        && seconds.contains('.')
        && seconds.chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return format!("Time {name} <t>");
    }
    let mut s = String::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric()) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            let rest: String = chars[i..].iter().collect();
            if number.contains('.') && (rest.starts_with(" ms") || rest.starts_with("ms")) {
                // Times are right-aligned in columns: a slower run's wider
                // number takes a space of the padding before it.
                while s.ends_with("  ") {
                    s.pop();
                }
                s.push_str("<t>");
            } else {
                s.push_str(&number);
            }
            continue;
        }
        s.push(chars[i]);
        i += 1;
    }
    s.trim_end().to_string()
}

/// Whether `actual` matches `expected`, `...` lines matching any run of lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "..." => {
            (0..=actual.len()).any(|k| matches(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| normalise(e) == normalise(a) && matches(rest, more)),
    }
}

#[test]
fn documented_transcripts_are_what_vkmm_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_BIN_EXE_vkmm"));
    let ws = std::env::temp_dir().join(format!("vkmm-docs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&ws);
    let repo = ws.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    for d in ["examples", "docs", "tests"] {
        std::os::unix::fs::symlink(root.join(d), repo.join(d)).unwrap();
    }
    let shared = root.join("../shared");
    let have_shared = shared.join("corpus").is_dir();
    if have_shared {
        std::os::unix::fs::symlink(&shared, ws.join("shared")).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let have_dot = Command::new("dot").arg("-V").output().is_ok();
    let all = transcripts(root);
    if !have_shared && all.iter().any(|t| t.command.contains("../shared")) {
        common::skip("../shared/corpus is missing: the transcripts that name it are not run");
    }
    if !have_dot
        && all
            .iter()
            .any(|t| t.command.contains("--svg") || t.command.contains("--png"))
    {
        common::skip(
            "Graphviz `dot` is not installed (Debian `graphviz`): the transcripts that render pictures are not run",
        );
    }
    assert!(all.len() >= 25, "{} transcripts found", all.len());
    let update = std::env::var_os("VKMM_UPDATE_DOCS").is_some();
    let mut updates: Vec<(&Transcript, Vec<String>)> = Vec::new();
    let mut failures = Vec::new();
    for t in &all {
        if t.command.contains("../shared") && !have_shared {
            continue;
        }
        // Rendering needs Graphviz (.ci/run installs it).
        if (t.command.contains("--svg") || t.command.contains("--png")) && !have_dot {
            continue;
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("{} 2>&1", t.command))
            .current_dir(&repo)
            .env("PATH", &path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let actual: Vec<String> = text.lines().map(str::to_string).collect();
        let mut wrong = Vec::new();
        if !matches(&t.expected, &actual) {
            if update && !t.expected.iter().any(|l| l.trim() == "...") {
                updates.push((t, actual.clone()));
                continue;
            }
            wrong.push(format!(
                "expected:\n{}\nactual:\n{}",
                t.expected.join("\n"),
                actual.join("\n")
            ));
        }
        if let Some(code) = &t.exit {
            let got = out.status.code().map(|c| c.to_string()).unwrap_or_default();
            if *code != got {
                wrong.push(format!("exit code: expected {code}, got {got}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}:{}: $ {}\n{}",
                t.file,
                t.line,
                t.command,
                wrong.join("\n")
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&ws);
    // Rewrite from the last transcript up, so that line numbers hold.
    for (t, actual) in updates.iter().rev() {
        let path = root.join(&t.file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let from = t.line; // the line after the command (0-based index)
        lines.splice(from..from + t.expected.len(), actual.iter().cloned());
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    assert!(
        failures.is_empty(),
        "{} of {} documented transcripts differ:\n\n{}",
        failures.len(),
        all.len(),
        failures.join("\n\n")
    );
}

/// The comparison of transcripts ignores times and nothing else: herd's
/// `Time NAME S` seconds (0.00 on a quiet machine, 0.01 under load) and
/// the text report's milliseconds, but not a test name or a count.
#[test]
fn times_and_only_times_are_normalised() {
    assert_eq!(normalise("Time mp 0.00"), normalise("Time mp 0.01"));
    assert_eq!(
        normalise("Time mp 0.727 ms  (6 executions, 3 consistent)"),
        normalise("Time mp 12.5 ms  (6 executions, 3 consistent)")
    );
    assert_ne!(normalise("Time mp 0.00"), normalise("Time sb 0.00"));
    assert_ne!(
        normalise("Time mp 0.727 ms  (6 executions, 3 consistent)"),
        normalise("Time mp 0.727 ms  (7 executions, 3 consistent)")
    );
    assert_ne!(
        normalise("Observation mp Always 1 0"),
        normalise("Observation mp Always 1 1")
    );
}
