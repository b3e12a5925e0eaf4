//! Golden-output tests: the exact reports of the `vkmm` binary on bundled
//! examples and own tests, compared with `tests/fixtures/golden/*.out`.
//!
//! Times are the only thing normalised (`12.345 ms` -> `<t> ms`, herd's
//! `Time NAME 0.01` -> `Time NAME <t>`, JSON `"time": 1.5` -> `"time": "<t>"`).
//! After an intended change of a report, regenerate the files with
//!
//! ```text
//! VKMM_UPDATE_GOLDEN=1 cargo test --release --test cli golden::
//! ```
//!
//! and review the diff (`git diff tests/fixtures/golden`) before committing.

use std::path::Path;
use std::process::Command;

/// (golden file, arguments). Paths are relative to the crate root, where the
/// binary runs.
const CASES: &[(&str, &[&str])] = &[
    ("check-mp-test", &["check", "examples/mp.test"]),
    ("check-mp-litmus", &["check", "examples/mp.litmus"]),
    (
        "check-mp-litmus-herd",
        &["check", "--format", "herd", "examples/mp.litmus"],
    ),
    (
        "check-mp-litmus-json",
        &["check", "--format", "json", "examples/mp.litmus"],
    ),
    ("check-opencl-mp", &["check", "examples/opencl-mp.litmus"]),
    (
        "check-races",
        &["check", "tests/fixtures/litmus-vulkan/race-plain-mp.litmus"],
    ),
    // Message passing reading the payload whatever the flag: the race
    // only where the acquire read the initial 0 (P1:r0=0), derived by
    // hand: reading 1 makes the release synchronize with the acquire, so
    // the payload write happens before the payload read.
    (
        "check-race-states",
        &[
            "check",
            "tests/fixtures/golden/inputs/mp-payload-unconditional.litmus",
        ],
    ),
    (
        "check-race-states-json",
        &[
            "check",
            "--format",
            "json",
            "tests/fixtures/golden/inputs/mp-payload-unconditional.litmus",
        ],
    ),
    (
        "explain-race-states",
        &[
            "explain",
            "tests/fixtures/golden/inputs/mp-payload-unconditional.litmus",
        ],
    ),
    (
        "explain-mp-stale",
        &["explain", "examples/mp.litmus", "--outcome", "P1:r1 == 0"],
    ),
    (
        "explain-mp-stale-json",
        &[
            "explain",
            "--format",
            "json",
            "examples/mp.litmus",
            "--outcome",
            "P1:r1 == 0",
        ],
    ),
    (
        "explain-scope-mismatch-race",
        &[
            "explain",
            "tests/fixtures/litmus-vulkan/scope-mismatch-race.litmus",
        ],
    ),
    (
        "show-mp-stale",
        &["show", "examples/mp.litmus", "--outcome", "P1:r1 == 0"],
    ),
    (
        "compare-opencl-sb",
        &[
            "compare",
            "--models",
            "vulkan,opencl",
            "examples/opencl-sb-sc.litmus",
            "examples/opencl-mp.litmus",
        ],
    ),
    ("compare-mp-test", &["compare", "examples/mp.test"]),
    (
        "suite-own-rules",
        &["suite", "tests/fixtures/litmus", "-j", "1"],
    ),
    (
        "suite-own-vulkan-json",
        &[
            "suite",
            "tests/fixtures/litmus-vulkan",
            "--expected",
            "tests/fixtures/litmus-vulkan/expected-condition.csv",
            "--format",
            "json",
            "-j",
            "1",
        ],
    ),
    (
        "error-missing-file",
        &["check", "examples/no-such-file.litmus"],
    ),
];

/// Replaces every measured time by `<t>`.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let mut fixed: Vec<String> = Vec::new();
        for (i, w) in words.iter().enumerate() {
            let next = words.get(i + 1).copied().unwrap_or("");
            let number = |s: &str| !s.is_empty() && s.parse::<f64>().is_ok();
            let is_time = (number(w) && (next == "ms" || next.starts_with("ms")))
                || (words.first() == Some(&"Time") && i == 2 && number(w));
            if is_time {
                fixed.push("<t>".into());
            } else if i > 0 && matches!(words[i - 1], "\"time\":" | "\"time_ms\":") {
                let (value, comma) = match w.strip_suffix(',') {
                    Some(v) => (v, ","),
                    None => (*w, ""),
                };
                if number(value) {
                    fixed.push(format!("\"<t>\"{comma}"));
                } else {
                    fixed.push((*w).to_string());
                }
            } else {
                fixed.push((*w).to_string());
            }
        }
        // A time right-aligned in a column is padded by as many spaces as
        // it has fewer digits: one space before it, whatever its width.
        let mut line = fixed.join(" ");
        while line.contains("  <t>") {
            line = line.replace("  <t>", " <t>");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn run(args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(args)
        .current_dir(root)
        .output()
        .expect("vkmm runs");
    let mut s = format!("$ vkmm {}\n", args.join(" "));
    s.push_str(&String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    if !err.is_empty() {
        s.push_str("--- stderr\n");
        s.push_str(&err);
    }
    s.push_str(&format!("--- exit {}\n", out.status.code().unwrap_or(-1)));
    normalise(&s)
}

#[test]
fn reports_match_the_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
    let update = std::env::var_os("VKMM_UPDATE_GOLDEN").is_some();
    let mut differ = Vec::new();
    for (name, args) in CASES {
        let actual = run(args);
        let path = dir.join(format!("{name}.out"));
        if update {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != actual {
            differ.push(format!(
                "{name}: differs from {}\n--- expected\n{expected}\n--- actual\n{actual}",
                path.display()
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{}\n(after an intended change: VKMM_UPDATE_GOLDEN=1 cargo test --release --test cli golden::)",
        differ.join("\n")
    );
}

#[test]
fn normalising_replaces_only_times() {
    assert_eq!(
        normalise("Time mp 0.01\n  line 3 x 1.234 ms  (2 executions)\n  \"time\": 2.5,\n"),
        "Time mp <t>\n  line 3 x <t> ms  (2 executions)\n  \"time\": \"<t>\",\n"
    );
    assert_eq!(normalise("States 1\n1:r1=1;\n"), "States 1\n1:r1=1;\n");
    // Padded times normalise alike, whatever their width.
    assert_eq!(normalise("ok    12.345 ms"), normalise("ok     1.234 ms"));
    assert_eq!(normalise("ok     1.234 ms"), "ok <t> ms\n");
}

/// The JUnit example in docs/reading-output.md has the counts a merge of
/// the two shards of `tests/fixtures/litmus-vulkan` writes: `tests="N"` on both
/// elements is the number of `<testcase>` elements, which is the "N checks"
/// the merge prints (14: one per row of expected-condition.csv, counted by
/// hand), and the doc's example shows that same N.
#[test]
fn the_documented_junit_example_counts_the_checks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("vkmm-golden-junit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vkmm = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_vkmm"))
            .args(args)
            .current_dir(root)
            .output()
            .expect("vkmm runs")
    };
    let csv = "tests/fixtures/litmus-vulkan/expected-condition.csv";
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let out = vkmm(&[
            "suite",
            "tests/fixtures/litmus-vulkan",
            "--expected",
            csv,
            "--shard",
            k,
            "--format",
            "json",
            "-j",
            "1",
        ]);
        let path = dir.join(format!("s{}.json", shards.len() + 1));
        std::fs::write(&path, &out.stdout).unwrap();
        shards.push(path.display().to_string());
    }
    let xml = dir.join("j.xml");
    let xml_arg = xml.display().to_string();
    let out = vkmm(&["merge", &shards[0], &shards[1], "--junit", &xml_arg]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        stdout.starts_with("14 files, 14 checks: 14 passed"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&xml).unwrap();
    assert_eq!(written.matches("<testcase ").count(), 14, "{written}");
    assert_eq!(written.matches(" tests=\"14\"").count(), 2, "{written}");
    let doc = std::fs::read_to_string(root.join("docs/reading-output.md")).unwrap();
    let start = doc.find("<testsuites name=\"vkmm\"").expect("the example");
    let example = &doc[start..start + 200];
    assert!(example.contains(" tests=\"14\""), "{example}");
    assert_eq!(doc.matches("14 files, 14 checks: 14 passed").count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
