//! The `vkmm` binary: exit codes, error messages, JSON summaries, batches
//! that keep going after bad input.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn vkmm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(args)
        .output()
        .expect("vkmm runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vkmm-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/mp.test")
        .display()
        .to_string()
}

#[test]
fn check_bundled_example_exits_zero() {
    let out = vkmm(&["check", &example()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("SATISFIABLE consistent[X] && #dr=0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("expected SATISFIABLE got SATISFIABLE"),
        "{stdout}"
    );
    assert!(stdout.contains(" ms"), "{stdout}");
}

#[test]
fn mismatch_exits_one() {
    let d = scratch("mismatch");
    let f = d.join("wrong.test");
    // The real answer is NOSOLUTION: message passing without release/acquire races.
    std::fs::write(
        &f,
        "NEWWG\nNEWSG\nNEWTHREAD\nst.sc0 x = 1\nNEWWG\nNEWSG\nNEWTHREAD\nld.sc0 x\nSATISFIABLE consistent[X] && #dr=0\n",
    )
    .unwrap();
    let out = vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAIL"));
}

#[test]
fn bad_input_exits_two_with_location_and_batch_continues() {
    let d = scratch("bad");
    let bad = d.join("bad.test");
    std::fs::write(
        &bad,
        "NEWTHREAD\nst.atom.scopewg.sc0 x = 1\nld.bogus.sc0 x\n",
    )
    .unwrap();
    std::fs::copy(example(), d.join("mp.test")).unwrap();
    let out = vkmm(&["check", bad.to_str().unwrap(), &example()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.test:3:4: unknown token `bogus`"),
        "{stderr}"
    );
    // the good file was still checked
    assert!(String::from_utf8_lossy(&out.stdout).contains("Test mp"));

    let out = vkmm(&["suite", d.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"], 2);
    assert_eq!(v["passed"], 2);
    assert_eq!(v["errors"].as_array().unwrap().len(), 1);
    assert!(v["errors"][0]["error"].as_str().unwrap().contains(":3:4:"));
}

#[test]
fn missing_file_and_bad_model_exit_two() {
    let out = vkmm(&["check", "/nonexistent/x.test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read file"));

    let d = scratch("model");
    let m = d.join("broken.cat");
    std::fs::write(&m, "let x = (po |\n").unwrap();
    let out = vkmm(&["check", "--model", m.to_str().unwrap(), &example()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.cat:"), "{stderr}");
}

#[test]
fn user_model_from_file() {
    // A model that accepts everything and binds an empty `dr`.
    let d = scratch("usermodel");
    let m = d.join("anything.cat");
    std::fs::write(&m, "\"Anything goes\"\nlet dr = 0\n").unwrap();
    let out = vkmm(&["check", "--model", m.to_str().unwrap(), &example()]);
    // mp's second query (NOSOLUTION ... #dr>0) still holds, the first too.
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn check_json_has_results_and_summary() {
    let out = vkmm(&["check", "--format", "json", &example()]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["summary"]["total"], 2);
    let q = &v["results"][0]["queries"][0];
    assert_eq!(q["expected"], "Satisfiable");
    assert_eq!(q["passed"], true);
    assert!(q["time"].as_f64().is_some());
}

#[test]
fn suite_with_expected_csv_and_properties() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-vulkan");
    let d = dir.to_str().unwrap();
    let out = vkmm(&[
        "suite",
        d,
        "--expected",
        dir.join("expected-condition.csv").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["total"], 14);
    assert_eq!(v["passed"], 14);
    // the races CSV read as conditions disagrees: exit 1 with a detail
    let out = vkmm(&[
        "suite",
        d,
        "--expected",
        dir.join("expected-races.csv").to_str().unwrap(),
        "--property",
        "condition",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["failed"][0]["file"]
            .as_str()
            .unwrap()
            .ends_with("race-plain-mp.litmus")
    );
    let out = vkmm(&[
        "suite",
        d,
        "--expected",
        dir.join("expected-races.csv").to_str().unwrap(),
        "--property",
        "races",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("10 passed, 0 failed"));
}

#[test]
fn litmus_check_reads_like_herd() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/race-plain-mp.litmus");
    let out = vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "Test race-plain-mp Allowed",
        "States 4",
        "P1:r0=1; P1:r1=0;",
        "\nOk\n",
        "Positive: 1 Negative: 3",
        "Observation race-plain-mp Sometimes 1 3",
        "race on x: P0 line 7: st.nonpriv.sc0 x, 1  <->  P1 line 8: ld.nonpriv.sc0 r1, x",
    ] {
        assert!(s.contains(needle), "missing `{needle}` in\n{s}");
    }
}

#[test]
fn bad_litmus_rows_keep_the_suite_going() {
    let d = scratch("badlitmus");
    std::fs::write(
        d.join("bad.litmus"),
        "VULKAN bad\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n ld.atom.dv.sc0 r0, x ;\n goto NOWHERE ;\nexists (P0:r0 == 0)\n",
    )
    .unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/litmus-vulkan/rmw-exchange.litmus"),
        d.join("good.litmus"),
    )
    .unwrap();
    std::fs::write(
        d.join("e.csv"),
        "bad.litmus,1\ngood.litmus,1\nmissing.litmus,1\n",
    )
    .unwrap();
    let out = vkmm(&[
        "suite",
        d.to_str().unwrap(),
        "--expected",
        d.join("e.csv").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], 1);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    let text = serde_json::to_string(errors).unwrap();
    assert!(text.contains("bad.litmus:5:"), "{text}");
    assert!(text.contains("NOWHERE"), "{text}");
    assert!(text.contains("missing.litmus"), "{text}");
}

#[test]
fn compare_shows_where_models_differ() {
    let Some(d) = common::corpus_or_skip("khronos-alloy") else {
        return;
    };
    let f = d.join("mp3transitive.test");
    let out = vkmm(&[
        "compare",
        f.to_str().unwrap(),
        "--models",
        "vulkan,vulkan-nochains",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("DIFFERS"), "{s}");
    assert!(
        s.contains("* line 22: SATISFIABLE consistent[X] && #dr=0")
            && s.contains("SATISFIABLE | NOSOLUTION"),
        "{s}"
    );
    assert!(
        s.contains("tests whose answers differ between vulkan and vulkan-nochains: 1 of 1"),
        "{s}"
    );
    // with --fail-on-difference a difference is a failure
    let out = vkmm(&["compare", f.to_str().unwrap(), "--fail-on-difference"]);
    assert_eq!(out.status.code(), Some(1));
    // a litmus test whose outcome sets agree
    let l = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/rmw-add-counter.litmus");
    let out = vkmm(&["compare", l.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "vkmm/1");
    assert_eq!(v["command"], "compare");
    assert_eq!(v["comparisons"][0]["differs"], false);
    assert_eq!(v["comparisons"][0]["complete"], true);
    assert_eq!(v["comparisons"][0]["rows"][0][1][0], "allowed");
    // fewer than two models is an error
    let out = vkmm(&["compare", l.to_str().unwrap(), "--models", "vulkan"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bundled_litmus_example_checks_and_explains() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mp.litmus");
    let out = vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("Test mp Required") && s.contains("\nOk\n"),
        "{s}"
    );
    // the spin loop runs as an await: no path is cut by the unrolling bound
    assert!(!s.contains("BOUND HIT"), "{s}");
    let out = vkmm(&["check", f.to_str().unwrap(), "--no-spin-reduction"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("BOUND HIT"));
    let out = vkmm(&["explain", f.to_str().unwrap(), "--outcome", "P1:r1 == 0"]);
    assert_eq!(out.status.code(), Some(0));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(
        s.contains("is FORBIDDEN") && s.contains("location-order-acyclicity"),
        "{s}"
    );
}

#[test]
fn litmus_json_states_are_objects() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan/rmw-add-counter.litmus");
    let out = vkmm(&["check", "--format", "json", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "vkmm/1");
    assert_eq!(v["results"][0]["kind"], "litmus");
    let states = v["results"][0]["states"].as_array().unwrap();
    assert_eq!(states.len(), 2);
    assert_eq!(states[0]["values"]["c"], 2);
    assert_eq!(states[0]["executions"], 1);
    assert_eq!(v["results"][0]["condition_holds"], true);
}

fn bundled(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn opencl_files_run_under_the_opencl_model_by_default() {
    let out = vkmm(&["check", &bundled("opencl-mp.litmus")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("model opencl"), "{text}");
    assert!(text.contains("Observation opencl-mp Never"), "{text}");
    // the same file under the Vulkan model, on request
    let out = vkmm(&["check", &bundled("opencl-mp.litmus"), "--model", "vulkan"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("model vulkan"));
}

#[test]
fn compare_vulkan_and_opencl_marks_unsupported_sc() {
    let out = vkmm(&[
        "compare",
        "--models",
        "vulkan,opencl",
        &bundled("opencl-mp.litmus"),
        &bundled("opencl-sb-sc.litmus"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("opencl-mp.litmus (vulkan | opencl): same"),
        "{text}"
    );
    assert!(
        text.contains("opencl-sb-sc.litmus (vulkan | opencl): DIFFERS"),
        "{text}"
    );
    assert!(text.contains("n/a"), "{text}");
    assert!(text.contains("vulkan: not supported"), "{text}");
    assert!(
        text.contains("tests whose answers differ between vulkan and opencl: 1 of 2"),
        "{text}"
    );
}

#[test]
fn local_memory_option_is_validated() {
    let out = vkmm(&[
        "check",
        &bundled("opencl-mp.litmus"),
        "--local-memory",
        "global",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("per-workgroup"));
}

#[test]
fn undecided_answers_have_their_own_exit_code() {
    let f = bundled("mp.litmus");
    let out = vkmm(&["check", &f, "--max-executions", "1"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\nUndecided\n"));
    let out = vkmm(&[
        "explain",
        &f,
        "--outcome",
        "P1:r1 == 0",
        "--max-executions",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("is UNDECIDED"));
    let out = vkmm(&[
        "show",
        &f,
        "--outcome",
        "P1:r1 == 0",
        "--max-executions",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(3), "show draws nothing undecided");
    assert!(String::from_utf8_lossy(&out.stderr).contains("undecided"));
    let out = vkmm(&["compare", &f, "--max-executions", "1"]);
    assert_eq!(out.status.code(), Some(3));
    // A `.test` query left undecided says which limit stopped it, in the
    // text, the JSON and a suite's detail.
    let t = example();
    let out = vkmm(&["check", &t, "--max-executions", "1"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("UNDECIDED") && text.contains("vulkan; stopped at the execution limit)"),
        "{text}"
    );
    let out = vkmm(&["check", &t, "--max-executions", "1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["results"][0]["queries"][0]["undecided"],
        "stopped at the execution limit"
    );
    let detail = v["summary"]["undecided"][0]["detail"].as_str().unwrap();
    assert!(
        detail.ends_with("(stopped at the execution limit)"),
        "{detail}"
    );
    let out = vkmm(&["check", &t]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("stopped"));
    let out = vkmm(&["check", &t, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["results"][0]["queries"][0].get("undecided").is_none());
}

#[test]
fn options_out_of_range_name_the_option() {
    let f = bundled("mp.litmus");
    for (args, name) in [
        (
            vec!["check", &f, "--unroll", "18446744073709551615"],
            "--unroll",
        ),
        (
            vec!["check", &f, "--max-executions", "0"],
            "--max-executions",
        ),
        (
            vec!["suite", "tests/fixtures/litmus", "-j", "10000"],
            "--jobs",
        ),
        (
            vec!["suite", "tests/fixtures/litmus", "--shard", "3/2"],
            "--shard",
        ),
    ] {
        let out = vkmm(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(name),
            "{args:?}"
        );
    }
}

#[test]
fn a_folder_given_to_check_points_to_suite() {
    let out = vkmm(&["check", env!("CARGO_MANIFEST_DIR")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a folder: `vkmm suite"));
}

#[test]
fn json_is_printed_even_when_the_run_cannot_start() {
    let out = vkmm(&["suite", "/no/such/dir", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "vkmm/1");
    assert_eq!(v["command"], "suite");
    assert!(v["error"].as_str().unwrap().contains("/no/such/dir"));
}

/// Writes `csv` as `e.csv` in `d` and runs `vkmm suite d --expected d/e.csv` with `extra`.
fn suite_with_csv(d: &Path, csv: &str, extra: &[&str]) -> (Option<i32>, String) {
    std::fs::write(d.join("e.csv"), csv).unwrap();
    let dir = d.to_str().unwrap();
    let csv_path = d.join("e.csv");
    let mut args = vec!["suite", dir, "--expected", csv_path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = vkmm(&args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn bad_csv_rows_are_reported_and_the_rest_runs() {
    let d = scratch("badcsv");
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-vulkan");
    std::fs::copy(own.join("rmw-exchange.litmus"), d.join("a.litmus")).unwrap();
    let (code, s) = suite_with_csv(
        &d,
        "\u{feff}a.litmus,1\npath,verdict\na.litmus,yes\na.litmus,1,x\n",
        &[],
    );
    assert_eq!(code, Some(2), "{s}");
    assert!(s.contains("1 check: 1 passed"), "{s}");
    assert!(s.contains("3 errors"), "{s}");
    assert!(s.contains("e.csv:2:6: expected verdict 1 or 0"), "{s}");
}

#[test]
fn shards_merge_back_into_the_whole_suite_with_junit() {
    let d = scratch("shards");
    let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-vulkan");
    let csv = own.join("expected-condition.csv");
    let mut parts = Vec::new();
    for k in 1..=3 {
        let out = vkmm(&[
            "suite",
            own.to_str().unwrap(),
            "--expected",
            csv.to_str().unwrap(),
            "--shard",
            &format!("{k}/3"),
            "--format",
            "json",
        ]);
        assert_eq!(out.status.code(), Some(0));
        let p = d.join(format!("shard{k}.json"));
        std::fs::write(&p, &out.stdout).unwrap();
        parts.push(p.display().to_string());
    }
    let whole = vkmm(&[
        "suite",
        own.to_str().unwrap(),
        "--expected",
        csv.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let whole: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    let junit = d.join("j.xml");
    let mut args = vec![
        "merge",
        "--format",
        "json",
        "--junit",
        junit.to_str().unwrap(),
    ];
    args.extend(parts.iter().map(String::as_str));
    let out = vkmm(&args);
    assert_eq!(out.status.code(), Some(0));
    let merged: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(merged["total"], whole["total"]);
    assert_eq!(merged["passed"], whole["passed"]);
    assert_eq!(
        merged["records"].as_array().unwrap().len(),
        whole["records"].as_array().unwrap().len()
    );
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(
        x.starts_with("<?xml") && x.contains(&format!("tests=\"{}\"", whole["total"])),
        "{x}"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let files: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus"))
            .unwrap()
            .map(|e| e.unwrap().path().display().to_string())
            .collect();
    let mut child = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("check")
        .args(&files)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(status.code() != Some(101), "{status:?} {err}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A renamed copy of models/vulkan.cat in a folder of its own behaves as
/// `--model vulkan`: its profile comes with its text (and the rules file it
/// includes), not its name.
#[test]
fn renamed_copy_of_a_builtin_model_behaves_the_same() {
    let d = scratch("renamed");
    let copy = d.join("my-gpu.cat");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/vulkan.cat");
    std::fs::copy(source, &copy).unwrap();
    let copy = copy.to_str().unwrap();

    let sc = bundled("opencl-sb-sc.litmus");
    let builtin = vkmm(&["check", "--model", "vulkan", &sc]);
    let renamed = vkmm(&["check", "--model", copy, &sc]);
    assert_eq!(builtin.status.code(), Some(2));
    assert_eq!(renamed.status.code(), Some(2));
    assert_eq!(text(&builtin.stderr), text(&renamed.stderr));
    assert!(
        text(&renamed.stderr).contains(
            "\"SequentiallyConsistent memory semantics is not supported and must not be used\""
        ),
        "{}",
        text(&renamed.stderr)
    );

    // Same wording in explanations (only the model's name differs).
    let mp = bundled("mp.litmus");
    let builtin = vkmm(&["explain", "--model", "vulkan", &mp]);
    let renamed = vkmm(&["explain", "--model", copy, &mp]);
    assert_eq!(renamed.status.code(), Some(0), "{}", text(&renamed.stderr));
    let renamed_text = text(&renamed.stdout).replace(copy, "vulkan");
    assert_eq!(text(&builtin.stdout), renamed_text);
    // (mp.litmus is a forall: its negation is explained, by a cycle)
    assert!(renamed_text.contains("--[from-reads"), "{renamed_text}");

    // Same no-chains companion: NOCHAINS queries run under vulkan-nochains.
    let chains = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus/chain-subgroup-to-queuefamily.test")
        .display()
        .to_string();
    for model in ["vulkan", copy] {
        let out = vkmm(&["check", "--model", model, &chains]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        let nochains: Vec<String> = text(&out.stdout)
            .lines()
            .filter(|l| l.contains(" NOCHAINS "))
            .map(String::from)
            .collect();
        assert_eq!(nochains.len(), 2, "{}", text(&out.stdout));
        assert!(
            nochains.iter().all(|l| l.ends_with(", vulkan-nochains)")),
            "{nochains:?}"
        );
    }
}

/// A user's model declares its own refusal and wording.
#[test]
fn user_model_declares_refusal_and_wording() {
    let d = scratch("declares");
    let m = d.join("mine.cat");
    std::fs::write(
        &m,
        "\"Mine\"\n(*@ refuse seq_cst \"my GPU\" \"SC is not offered here\"\n    explain \"mine.explain\" *)\nlet hb = po | rf\nacyclic hb as causality\n",
    )
    .unwrap();
    std::fs::write(
        d.join("mine.explain"),
        "check causality hb\nedge rf read by\nedge po before\n",
    )
    .unwrap();
    let m = m.to_str().unwrap();
    let out = vkmm(&["check", "--model", m, &bundled("opencl-sb-sc.litmus")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "is sequentially consistent, which my GPU does not support (\"SC is not offered here\")"
        ),
        "{stderr}"
    );
    let out = vkmm(&["explain", "--model", m, &bundled("opencl-mp.litmus")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("[read by]"),
        "{}",
        text(&out.stdout)
    );
}

/// A malformed declaration is reported at its file, line and column.
#[test]
fn malformed_declaration_exits_two_with_position() {
    let d = scratch("malformed");
    let m = d.join("bad.cat");
    std::fs::write(
        &m,
        "let hb = po\n(*@ races hb\n    refuse nothing \"x\" \"y\" *)\n",
    )
    .unwrap();
    let out = vkmm(&["check", "--model", m.to_str().unwrap(), &example()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("bad.cat:3:12: unknown feature `nothing`"),
        "{stderr}"
    );
}

/// A single thread counts to 5 in memory (`y`, read, incremented and
/// written back each iteration: the loop's exit depends on a value read,
/// so each iteration counts against the unrolling bound), then stores
/// `x = 1`. At the default unroll the store is never reached, so neither
/// `exists (x == 1)` nor `~exists (x == 1)` may pass: both are undecided.
/// (A loop counting in a register runs the same in every execution and is
/// not bounded: `a_register_counted_loop_is_not_bounded`.)
#[test]
fn a_verdict_the_loop_bound_decides_is_undecided() {
    let d = scratch("bounded");
    let body = "{ x=0; y=0; P0:r0=0; }\n P0@sg 0, wg 0, qf 0 ;\n LOOP: ;\n ld.sc0 r0, y ;\n add r0, r0, 1 ;\n st.sc0 y, r0 ;\n bne r0, 5, LOOP ;\n st.sc0 x, 1 ;\n";
    std::fs::write(
        d.join("count-exists.litmus"),
        format!("VULKAN count-exists\n{body}exists (x == 1)\n"),
    )
    .unwrap();
    std::fs::write(
        d.join("count-not-exists.litmus"),
        format!("VULKAN count-not-exists\n{body}~exists (x == 1)\n"),
    )
    .unwrap();
    let csv = "count-exists.litmus,1\ncount-not-exists.litmus,0\n";
    let (code, s) = suite_with_csv(&d, csv, &[]);
    assert_eq!(code, Some(3), "{s}");
    assert!(s.contains("0 passed, 0 failed, 2 undecided"), "{s}");
    assert!(s.contains("loop unrolling bound"), "{s}");
    // with enough unrolling both are decided
    let (code, s) = suite_with_csv(&d, csv, &["--unroll", "5"]);
    assert_eq!(code, Some(0), "{s}");
    let out = vkmm(&["check", d.join("count-exists.litmus").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\nUndecided\n"));
}

/// A single thread counts a register to 5 in a loop, then stores `x = 1`:
/// the loop runs the same in every execution, so it runs to its end at the
/// default unroll (2) and the verdict is decided.
#[test]
fn a_register_counted_loop_is_not_bounded() {
    let d = scratch("counted");
    let body = "{ x=0; P0:r0=0; }\n P0@sg 0, wg 0, qf 0 ;\n LOOP: ;\n add r0, r0, 1 ;\n bne r0, 5, LOOP ;\n st.sc0 x, 1 ;\n";
    std::fs::write(
        d.join("count-exists.litmus"),
        format!("VULKAN count-exists\n{body}exists (x == 1)\n"),
    )
    .unwrap();
    let csv = "count-exists.litmus,1\n";
    let (code, s) = suite_with_csv(&d, csv, &[]);
    assert_eq!(code, Some(0), "{s}");
    assert!(s.contains("1 passed, 0 failed, 0 undecided"), "{s}");
}

#[test]
fn warnings_go_to_stderr_and_into_json_results() {
    let d = scratch("warnings");
    let f = d.join("w.litmus");
    std::fs::write(
        &f,
        "VULKAN w\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n st.av.dv.sc0 y, 1 ;\nexists (y == 1)\n",
    )
    .unwrap();
    let file = f.display().to_string();
    let out = vkmm(&["check", &file]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{file}:4:15: warning: location `y` is not declared"
        )),
        "{stderr}"
    );
    let out = vkmm(&["check", "--format", "json", &file]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let w = &doc["results"][0]["warnings"][0];
    assert_eq!(
        (w["line"].as_u64(), w["column"].as_u64()),
        (Some(4), Some(15))
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn termination_check_and_suite_with_a_status_column() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spin = root.join("examples/spin-wait.litmus");
    let spin = spin.to_str().unwrap();
    let out = vkmm(&[
        "check",
        "--property",
        "termination",
        "--progress",
        "HSA",
        spin,
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("NON-TERMINATING"), "{stdout}");
    assert!(stdout.contains("P1   never started"), "{stdout}");
    assert!(
        stdout.contains("reads 0 from the initial value"),
        "{stdout}"
    );
    let out = vkmm(&["check", "--progress", "FAIR", spin]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("TERMINATES: every execution"));
    // A progress model that does not exist: exit 2, named.
    let out = vkmm(&["check", "--progress", "FAIRISH", spin]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown progress model `FAIRISH`"));
    // A suite of the liveness CSVs' shape: annotated rows counted apart.
    let d = scratch("liveness");
    std::fs::copy(root.join("examples/spin-wait.litmus"), d.join("w.litmus")).unwrap();
    let csv = d.join("e.csv");
    std::fs::write(
        &csv,
        "path,expected,status\nw.litmus,0,checked\nw.litmus,1,annotated\n",
    )
    .unwrap();
    let out = vkmm(&[
        "suite",
        d.to_str().unwrap(),
        "--expected",
        csv.to_str().unwrap(),
        "--property",
        "termination",
        "--progress",
        "HSA",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("1 check: 1 passed, 0 failed"), "{stdout}");
    assert!(stdout.contains("ANNOTATED ROW DIFFERS"), "{stdout}");
    assert!(stdout.contains("0 of 1 agree"), "{stdout}");
}

/// Nine atomic writes to one location, one per invocation: more than the
/// eight whose orders vkmm enumerates by default, and nothing constrains
/// their order (9! orders: more listing steps than the order limit's
/// budget).
const NINE_WRITES: &str = "VULKAN w9\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 | P3@sg 0, wg 3, qf 0 | P4@sg 0, wg 4, qf 0 | P5@sg 0, wg 5, qf 0 | P6@sg 0, wg 6, qf 0 | P7@sg 0, wg 7, qf 0 | P8@sg 0, wg 8, qf 0 ;\n st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 3 | st.atom.dv.sc0 x, 4 | st.atom.dv.sc0 x, 5 | st.atom.dv.sc0 x, 6 | st.atom.dv.sc0 x, 7 | st.atom.dv.sc0 x, 8 | st.atom.dv.sc0 x, 9 ;\nexists (x == 9)\n";

/// Nine atomic writes, three per invocation: program order puts each
/// invocation's three in order (write-write coherence: the appendix's
/// location order, "AX == AY and RX == RY and X -> Y", is acyclic with
/// asmo), so of the 9! orders 9! / (3! 3! 3!) = 1680 are listed, within
/// the order limit's budget: a complete answer, every one consistent.
const NINE_WRITES_IN_THREES: &str = "VULKAN w9\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 x, 4 | st.atom.dv.sc0 x, 7 ;\n st.atom.dv.sc0 x, 2 | st.atom.dv.sc0 x, 5 | st.atom.dv.sc0 x, 8 ;\n st.atom.dv.sc0 x, 3 | st.atom.dv.sc0 x, 6 | st.atom.dv.sc0 x, 9 ;\nexists (x == 9)\n";

#[test]
fn state_space_limits_are_undecided_answers_not_input_errors() {
    let d = scratch("limits");
    let w9 = d.join("w9.litmus");
    std::fs::write(&w9, NINE_WRITES).unwrap();
    let w9 = w9.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = vkmm(args);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    // the order limit: the combination is skipped, the answer undecided
    let (code, s) = run(&["check", w9]);
    assert_eq!(code, Some(3), "{s}");
    assert!(s.contains("\nUndecided\n"), "{s}");
    assert!(
        s.contains("stopped at the order limit (--max-writes"),
        "{s}"
    );
    let (code, s) = run(&["check", "--format", "json", w9]);
    assert_eq!(code, Some(3), "{s}");
    let doc: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(doc["results"][0]["stopped_by"], "max-writes", "{s}");
    assert_eq!(doc["results"][0]["truncated"], true, "{s}");
    // in threes, program order constrains them: complete
    let threes = d.join("w9-threes.litmus");
    std::fs::write(&threes, NINE_WRITES_IN_THREES).unwrap();
    let (code, s) = run(&["check", "--format", "json", threes.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{s}");
    let doc: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(doc["results"][0]["truncated"], false, "{s}");
    assert_eq!(doc["results"][0]["consistent"], 1680, "{s}");
    // the memory bound: nine writes have 9! orders, over 64 MiB (the
    // bound counts the process's resident memory, about 30 MiB before
    // the file is read: a bound below that stops the reading instead)
    let (code, s) = run(&["check", "--max-writes", "9", "--max-memory", "64", w9]);
    assert_eq!(code, Some(3), "{s}");
    assert!(
        s.contains("stopped at the memory bound (--max-memory)"),
        "{s}"
    );
    // the path limit: the unreduced spin loop has three paths at unroll 2
    let mp = bundled("mp.litmus");
    let (code, s) = run(&["check", "--no-spin-reduction", "--max-paths", "2", &mp]);
    assert_eq!(code, Some(3), "{s}");
    assert!(s.contains("stopped at the path limit (--max-paths)"), "{s}");
    // three fit (the unrolled loop's cut path still leaves `forall` undecided)
    let (_, s) = run(&["check", "--no-spin-reduction", "--max-paths", "3", &mp]);
    assert!(!s.contains("path limit") && s.contains("BOUND HIT"), "{s}");
    // in a suite the row is undecided, not an error
    let csv = d.join("expected.csv");
    std::fs::write(&csv, "w9.litmus,1\n").unwrap();
    let (code, s) = run(&[
        "suite",
        d.to_str().unwrap(),
        "--expected",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(3), "{s}");
    assert!(s.contains("undecided (order limit)"), "{s}");
    // the option ranges are validated
    let (code, _) = run(&["check", "--max-writes", "13", w9]);
    assert_eq!(code, Some(2));
    let (code, _) = run(&["check", "--max-paths", "0", w9]);
    assert_eq!(code, Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn suite_and_compare_report_front_end_warnings() {
    let d = scratch("suite-warnings");
    let f = d.join("w.litmus");
    std::fs::write(
        &f,
        "VULKAN w\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n st.av.dv.sc0 y, 1 ;\nexists (y == 1)\n",
    )
    .unwrap();
    let warning = format!(
        "{}:4:15: warning: location `y` is not declared",
        f.display()
    );
    // a folder suite and a CSV suite with two rows on the file: once each
    let csv = d.join("expected.csv");
    std::fs::write(&csv, "w.litmus,1\nw.litmus,1\n").unwrap();
    for extra in [vec![], vec!["--expected", csv.to_str().unwrap()]] {
        let mut args = vec!["suite", d.to_str().unwrap()];
        args.extend(extra.iter().copied());
        let out = vkmm(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
        args.extend(["--format", "json"]);
        let out = vkmm(&args);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let w = doc["warnings"].as_array().unwrap();
        assert_eq!(w.len(), 1, "{doc}");
        assert_eq!(
            (w[0]["line"].as_u64(), w[0]["column"].as_u64()),
            (Some(4), Some(15))
        );
    }
    let file = f.to_str().unwrap();
    let out = vkmm(&["compare", "--models", "vulkan,vulkan-nochains", file]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&warning));
    let out = vkmm(&[
        "compare",
        "--models",
        "vulkan,vulkan-nochains",
        "--format",
        "json",
        file,
    ]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["comparisons"][0]["warnings"][0]["line"], 4, "{doc}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `explain` and `show` with `--progress` answer the termination question
/// (tests/analysis/termination.rs checks the witness itself).
#[test]
fn explain_and_show_render_termination_witnesses() {
    let spin = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/spin-wait.litmus");
    let spin = spin.to_str().unwrap();
    let out = vkmm(&["explain", "--progress", "HSA", spin]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("NON-TERMINATING"), "{stdout}");
    assert!(
        stdout.contains("flag [reads 0, initial]  <- repeats forever"),
        "{stdout}"
    );
    let out = vkmm(&[
        "explain",
        "--property",
        "termination",
        "--progress",
        "HSA",
        "--format",
        "json",
        spin,
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "non-terminating");
    assert_eq!(
        v["witness"]["loops"][0]["suffix_events"],
        serde_json::json!([0])
    );
    assert!(
        v["witness"]["execution"]["events"][0]
            .as_str()
            .unwrap()
            .contains("flag")
    );
    let out = vkmm(&["show", "--progress", "HSA", spin]);
    let dot = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        dot.contains("P0 (stuck, fair)")
            && dot.contains("; P1 never started, not fair")
            && dot.contains("fillcolor=lightpink"),
        "{dot}"
    );
    // FAIR: it terminates; nothing to draw, said on stderr (exit 2: a
    // complete answer with no picture is a usage error like `show` of an
    // unreachable outcome).
    let out = vkmm(&["show", "--progress", "FAIR", spin]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to draw"));
    // A final state and termination are different questions.
    let out = vkmm(&[
        "explain",
        "--progress",
        "HSA",
        "--outcome",
        "P0:r0 == 1",
        spin,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--outcome"));
}

/// `--no REDUCTION[,...]` and the old `--no-NAME` spellings turn the same
/// reductions off. Derived by hand on examples/spin-wait.litmus: P0 spins
/// on a flag P1 sets once. With the spin reduction the loop is an await
/// (one path, no bound hit); unrolled (--unroll 2) the path that keeps
/// reading 0 is cut at the bound, so the output says BOUND HIT.
#[test]
fn no_turns_reductions_off_like_the_old_switches() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/spin-wait.litmus");
    let f = f.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["check", f];
        args.extend_from_slice(extra);
        let out = vkmm(&args);
        assert_eq!(out.status.code(), Some(3), "{extra:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let reduced = vkmm(&["check", f]);
    assert_eq!(reduced.status.code(), Some(0));
    assert!(!text(&reduced.stdout).contains("BOUND HIT"));
    let cut = |s: &str| s.contains("BOUND HIT") && s.contains("3 executions");
    for extra in [
        &["--no", "spin-reduction"][..],
        &["--no=symmetry,spin-reduction"],
        &["--no", "symmetry", "--no", "spin-reduction"],
        &["--no-spin-reduction"],
        &["--engine", "reference"],
    ] {
        let s = run(extra);
        assert!(cut(&s), "{extra:?}: {s}");
    }
    // A reduction other than the spin reduction leaves the await alone.
    let out = vkmm(&["check", f, "--no", "symmetry", "--no-rmw-filter"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!text(&out.stdout).contains("BOUND HIT"));
    // A name that is no reduction is refused, naming them all.
    let out = vkmm(&["check", f, "--no", "spin-reductions"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("spin-reduction, rmw-filter"), "{err}");
    // After `--`, an argument is a file name, not a switch.
    let out = vkmm(&["check", "--", "--no-spin-reduction"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--no-spin-reduction"));
}

/// `--engine` names one search with its reductions (`default`) and its
/// oracle (`reference`); any other name, the removed `grow` among them, is
/// a usage error (exit 2) that lists the two, before any file is read.
#[test]
fn an_unknown_engine_is_a_usage_error_naming_the_engines() {
    for name in ["grow", "fast"] {
        let out = vkmm(&["check", "--engine", name, "examples/mp.litmus"]);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("invalid value '{name}' for '--engine <ENGINE>'")),
            "{err}"
        );
        assert!(
            err.contains("[possible values: default, reference]"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{name}");
    }
}

/// `check --help` shows bounds, models and examples; the reductions only
/// behind `--engine`, the `--no` switches hidden.
#[test]
fn help_shows_bounds_and_models_and_hides_the_reductions() {
    let out = vkmm(&["check", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for shown in [
        "Bounds:",
        "--unroll",
        "--max-executions",
        "--timeout",
        "Model:",
        "--model",
        "Examples:",
        "--engine",
    ] {
        assert!(help.contains(shown), "{shown} missing:\n{help}");
    }
    for hidden in [
        "--no-spin-reduction",
        "--no-symmetry",
        "--no <",
        "--no-prefix-races",
    ] {
        assert!(!help.contains(hidden), "{hidden} shown:\n{help}");
    }
    // The long help of --engine lists every reduction, one per line.
    for r in vkmm::Reduction::ALL {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(r.name())),
            "{r} not listed:\n{help}"
        );
    }
    let short = text(&vkmm(&["check", "-h"]).stdout);
    assert!(!short.contains("spin-reduction"), "{short}");
    // Users' options first: the model, the output (format, property) and
    // the bounds come before the readings, the shader dispatch and the
    // engine.
    let at = |h: &str| {
        help.find(h)
            .unwrap_or_else(|| panic!("{h} missing:\n{help}"))
    };
    for first in ["Model:", "Output:", "--format", "--property", "Bounds:"] {
        for later in ["Readings:", "Shader dispatch:", "Engine:"] {
            assert!(at(first) < at(later), "{first} after {later}:\n{help}");
        }
    }
}
