//! Limits that hold and answers that never overclaim: every report of an
//! incomplete search says undecided (exit 3) instead of a verdict word,
//! shard merges are checked whole, a broken model is an error for every
//! test, and inputs that would block or never end are clear errors
//! (exit 2). Each case runs the `vkmm` binary as a user would.
//!
//! How the expected answers are derived: `counter-ordered.litmus` has one
//! final state and needs more than two candidate executions under either
//! model (its complete run evaluates more), so `--max-executions 2` stops
//! every search before it lists every state; `atomic-in-cut-loop.litmus`
//! spins on a value written after its loop, so `--unroll 0` cuts a path.

use crate::common;

use common::{vkmm, vkmm_undecided};
use std::path::PathBuf;

const COUNTER: &str = "tests/fixtures/litmus-interlock/counter-ordered.litmus";
const CUT: &str = "tests/fixtures/litmus-bound/atomic-in-cut-loop.litmus";

/// A fresh folder under the target directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("limits-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn refines_on_a_truncated_search_is_undecided_never_yes() {
    let (out, _) = vkmm_undecided(
        &[
            "refines",
            "--impl",
            "pops",
            "--spec",
            "vulkan",
            COUNTER,
            "--max-executions",
            "2",
        ],
        &[
            "pops refines vulkan: UNDECIDED",
            "refining: 0; undecided: 1",
        ],
        &[],
    );
    assert!(!out.contains(": yes"), "{out}");
    // The complete search refines (the control).
    let (code, out, _) = vkmm(&["refines", "--impl", "pops", "--spec", "vulkan", COUNTER]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("pops refines vulkan: yes"), "{out}");
}

#[test]
fn compare_on_truncated_searches_is_undecided_never_same() {
    let args = ["compare", "--models", "vulkan,vulkan-nochains", COUNTER];
    let (out, _) = vkmm_undecided(
        &[&args[..], &["--max-executions", "2"]].concat(),
        &["): UNDECIDED", "the same: 0; undecided: 1"],
        &[],
    );
    assert!(!out.contains(": same"), "{out}");
    let (code, out, _) = vkmm(&args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("): same"), "{out}");
    assert!(out.contains("0 of 1; the same: 1; undecided: 0"), "{out}");
}

/// A suite without expectations counts an undecided file as undecided
/// (summary and exit code 3, as `check` on it); JUnit skips it with the
/// reason, or fails it under `--undecided fail`.
#[test]
fn suite_without_csv_counts_undecided_and_junit_skips_it() {
    let dir = scratch("suite");
    std::fs::copy(COUNTER, dir.join("counter-ordered.litmus")).unwrap();
    let junit = dir.join("junit.xml");
    let d = dir.display().to_string();
    let j = junit.display().to_string();
    vkmm_undecided(
        &["suite", &d, "--max-executions", "2", "--junit", &j],
        &["0 failed, 1 undecided"],
        &[],
    );
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(
        x.contains("<skipped message=\"undecided: the search stopped at the execution limit\"/>"),
        "{x}"
    );
    assert!(
        x.contains("failures=\"0\" errors=\"0\" skipped=\"1\""),
        "{x}"
    );
    let (code, _, _) = vkmm(&[
        "suite",
        &d,
        "--max-executions",
        "2",
        "--junit",
        &j,
        "--undecided",
        "fail",
    ]);
    assert_eq!(code, 3);
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.contains("<failure type=\"undecided\""), "{x}");
    assert!(
        x.contains("failures=\"1\" errors=\"0\" skipped=\"0\""),
        "{x}"
    );
    let (code, _, _) = vkmm(&["check", COUNTER, "--max-executions", "2"]);
    assert_eq!(code, 3, "check agrees");
}

/// `--format herd` follows one rule for every kind of incompleteness: an
/// unrolling cut is refused like an execution-limit cut.
#[test]
fn herd_format_refuses_every_incomplete_listing() {
    for args in [
        &[CUT, "--unroll", "0"][..],
        &[COUNTER, "--max-executions", "2"][..],
    ] {
        let (out, _) = vkmm_undecided(
            &[&["check", "--format", "herd"][..], args].concat(),
            &[],
            &["undecided ("],
        );
        assert!(!out.contains("Observation"), "{args:?}: {out}");
    }
    let (code, out, _) = vkmm(&["check", "--format", "herd", COUNTER]);
    assert_eq!(code, 0);
    assert!(out.contains("Observation counter-ordered"), "{out}");
}

/// Shard JSON names its shard and run; a merge with a shard twice or a
/// shard missing is an error, the whole set merges.
#[test]
fn merge_checks_shard_identity() {
    let dir = scratch("merge");
    let csv = "tests/fixtures/litmus-interlock/expected-condition.csv";
    let mut files = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let (code, out, err) = vkmm(&[
            "suite",
            "tests/fixtures/litmus-interlock",
            "--expected",
            csv,
            "--shard",
            &shard,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["shard"]["k"], k);
        assert_eq!(v["shard"]["n"], 2);
        assert_eq!(
            v["shard"]["run"].as_str().map(str::len),
            Some(16),
            "{}",
            v["shard"]
        );
        let f = dir.join(format!("s{k}.json"));
        std::fs::write(&f, out).unwrap();
        files.push(f.display().to_string());
    }
    let (code, _, err) = vkmm(&["merge", &files[0], &files[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("given twice"), "{err}");
    let (code, _, err) = vkmm(&["merge", &files[0]]);
    assert_eq!(code, 2);
    assert!(err.contains("shard 2/2 of run"), "{err}");
    assert!(err.contains("missing"), "{err}");
    let (code, out, err) = vkmm(&["merge", &files[0], &files[1]]);
    assert_eq!(code, 0, "{err}");
    let (_, whole, _) = vkmm(&[
        "suite",
        "tests/fixtures/litmus-interlock",
        "--expected",
        csv,
    ]);
    let counts = |s: &str| {
        s.lines()
            .last()
            .unwrap()
            .split(" in ")
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(counts(&out), counts(&whole), "{out}\n{whole}");
}

/// A model reading an identifier it never defines is an error at load,
/// for a test that never reaches the statement (no SC operations) and
/// under every reduction setting alike.
#[test]
fn a_broken_model_is_an_error_for_every_test() {
    let dir = scratch("model");
    let text = std::fs::read_to_string("models/opencl.cat").unwrap();
    assert!(text.contains("\nlet sc_fr ="), "the model defines sc_fr");
    let broken: String = text
        .lines()
        .filter(|l| !l.starts_with("let sc_fr ="))
        .map(|l| format!("{l}\n"))
        .collect();
    // The file it includes, beside it.
    std::fs::copy("models/opencl-rules.cat", dir.join("opencl-rules.cat")).unwrap();
    let model = dir.join("opencl.cat");
    std::fs::write(&model, broken).unwrap();
    let m = model.display().to_string();
    let test = "tests/fixtures/litmus-opencl/barrier-exit-then-entry.litmus";
    let mut errors = Vec::new();
    for extra in [
        &[][..],
        &["--no-lazy-checks", "--no-specialise", "--no-incremental"][..],
        &["--engine", "reference"][..],
    ] {
        let (code, out, err) = vkmm(&[&["check", "--model", &m, test][..], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {out}{err}");
        assert!(err.contains("unknown identifier `sc_fr`"), "{err}");
        errors.push(err.lines().last().unwrap().to_string());
    }
    assert!(errors.windows(2).all(|w| w[0] == w[1]), "{errors:?}");
    // The model as shipped checks the test.
    let (code, _, err) = vkmm(&["check", "--model", "models/opencl.cat", test]);
    assert_ne!(code, 2, "{err}");
}

/// Inputs that are not regular files are clear errors at once: a FIFO
/// (reading blocks until a writer comes) and a link to `/dev/zero` (never
/// ends), alone and in a suite.
#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_without_reading() {
    let dir = scratch("fifo");
    let fifo = dir.join("blocked.litmus");
    let ok = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let zero = dir.join("zero.litmus");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let mut inputs = vec![zero];
    if ok {
        inputs.push(fifo);
    }
    for f in &inputs {
        let f = f.display().to_string();
        let start = std::time::Instant::now();
        let (code, _, err) = vkmm(&["check", &f]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        assert!(start.elapsed().as_secs() < 10);
    }
    let d = dir.display().to_string();
    let (code, out, _) = vkmm(&["suite", &d]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("not a regular file"), "{out}");
}

/// With standard output closed the report cannot be written: exit 2.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_standard_output_is_an_error() {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' check {COUNTER} >&-",
            env!("CARGO_BIN_EXE_vkmm")
        ))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard output"));
}

/// SPIR-V errors are located and named as in the source: an undefined
/// branch target at its operand as `%name`, a module without an entry
/// point against the `.spv` (not its `.headers`), an empty `.spv` too short.
#[test]
fn spirv_errors_are_located_in_the_source() {
    let dir = scratch("spirv");
    let text = std::fs::read_to_string("tests/fixtures/litmus-spirv-bytes/byte-mp.spvasm").unwrap();
    let at = text
        .lines()
        .position(|l| l.trim_start().starts_with("OpBranch %join"))
        .expect("byte-mp branches to %join");
    let col = text.lines().nth(at).unwrap().find("%join").unwrap() + 1;
    let bad = text.replacen("OpBranch %join", "OpBranch %nowhere", 1);
    let f = dir.join("bad-label.spvasm");
    std::fs::write(&f, bad).unwrap();
    let f = f.display().to_string();
    let (code, _, err) = vkmm(&["check", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{f}:{}:{col}: OpBranch: `%nowhere` is not a label of this function",
            at + 1
        )),
        "{err}"
    );
    assert!(!err.contains("B0_"), "{err}");

    let empty = dir.join("empty.spv");
    std::fs::write(&empty, b"").unwrap();
    let (code, _, err) = vkmm(&["check", &empty.display().to_string()]);
    assert_eq!(code, 2);
    assert!(err.contains("too short (0 bytes)"), "{err}");

    // workgroup-barrier.spv's words without its OpEntryPoint and
    // OpExecutionMode (opcodes 15 and 16), with a headers file beside it.
    let bytes = std::fs::read("tests/fixtures/legacy-memory-model/workgroup-barrier.spv").unwrap();
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut out = words[..5].to_vec();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if !matches!(words[i] & 0xffff, 15 | 16) {
            out.extend_from_slice(&words[i..i + n]);
        }
        i += n.max(1);
    }
    let spv = dir.join("no-entry.spv");
    std::fs::write(
        &spv,
        out.iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    std::fs::copy(
        "tests/fixtures/legacy-memory-model/workgroup-barrier.spv.headers",
        dir.join("no-entry.spv.headers"),
    )
    .unwrap();
    let spv = spv.display().to_string();
    let (code, _, err) = vkmm(&["check", &spv]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{spv}:")), "{err}");
    assert!(err.contains("no OpEntryPoint"), "{err}");
    assert!(!err.contains(".headers"), "{err}");
}

/// A SPIR-V compute shader of `n` arithmetic instructions before one
/// store: front-end and lowering work in proportion to `n`, one event per
/// invocation.
pub(crate) fn long_shader(dir: &std::path::Path, n: usize) -> String {
    let mut s = String::from(
        "; @Config: 1, 1, 2\n; @Input: %w = {0}\n; @Output: forall (%w[0] == 2)\n\
         OpCapability Shader\nOpCapability VulkanMemoryModel\nOpMemoryModel Logical Vulkan\n\
         OpEntryPoint GLCompute %main \"main\"\nOpDecorate %W Block\n\
         OpMemberDecorate %W 0 Offset 0\nOpDecorate %w DescriptorSet 0\nOpDecorate %w Binding 0\n\
         %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n\
         %c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%W = OpTypeStruct %uint\n\
         %pW = OpTypePointer StorageBuffer %W\n%pu = OpTypePointer StorageBuffer %uint\n\
         %w = OpVariable %pW StorageBuffer\n%main = OpFunction %void None %fn\n%l0 = OpLabel\n\
         %x = OpAccessChain %pu %w %c0\n%v0 = OpIAdd %uint %c0 %c1\n",
    );
    for i in 1..n {
        s.push_str(&format!("%v{i} = OpIMul %uint %v{} %c1\n", i - 1));
    }
    s.push_str(&format!(
        "OpStore %x %v{}\nOpReturn\nOpFunctionEnd\n",
        n - 1
    ));
    let f = dir.join(format!("long-{n}.spvasm"));
    std::fs::write(&f, s).unwrap();
    f.display().to_string()
}

/// `--timeout` bounds the whole command, the front end included: a SPIR-V
/// program whose reading and lowering take several seconds stops about
/// `--timeout 1` after the command starts, undecided (exit 3), where the
/// same program without the limit is answered (the control: its store
/// races with the other invocation's, and `%w[0]` is 1, never 2, so the
/// `forall` fails: exit 0 with the verdict, after more than the 1.5 s the
/// bounded run may take).
#[test]
fn the_timeout_bounds_the_front_end() {
    let dir = scratch("front-end");
    let f = long_shader(&dir, 400_000);
    let start = std::time::Instant::now();
    let (code, out, err) = vkmm(&["check", &f, "--timeout", "1"]);
    let took = start.elapsed();
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("undecided: stopped at the time limit (--timeout)"),
        "{err}"
    );
    assert!(!out.contains("Observation"), "{out}");
    assert!(took.as_secs_f64() < 1.5, "{took:?} under --timeout 1");
    // The control runs in the full tier (`--features slow-tests`): it
    // takes seconds.
    if !cfg!(feature = "slow-tests") {
        return;
    }
    let start = std::time::Instant::now();
    let (code, out, err) = vkmm(&["check", &f]);
    let took = start.elapsed();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation long-400000 Never 0 1"), "{out}");
    // The work the deadline cut takes longer than the deadline (else the
    // first run could not have been cut).
    assert!(took.as_secs_f64() > 1.0, "the control takes {took:?}");
}

/// A suite row the time limit stops while its file is read and lowered
/// is undecided, as `check` on the file is (exit 3), never an error: in
/// the summary (`1 undecided, 0 errors`), in the JUnit report (skipped
/// with the reason) and with a CSV row expecting a verdict. The program
/// is [`long_shader`]'s, whose reading alone takes longer than the
/// suite's `--timeout 1` per row (the control in
/// `the_timeout_bounds_the_front_end`); `mp.litmus` beside it is answered.
#[test]
fn a_suite_row_stopped_in_the_front_end_is_undecided() {
    let dir = scratch("suite-front-end");
    let long = long_shader(&dir, 400_000);
    std::fs::copy("examples/mp.litmus", dir.join("mp.litmus")).unwrap();
    let d = dir.display().to_string();
    let junit = dir.join("junit.xml");
    let j = junit.display().to_string();
    let (out, _) = vkmm_undecided(
        &["suite", &d, "--timeout", "1", "-j", "1", "--junit", &j],
        &[
            "1 undecided, 0 errors",
            &format!(
                "UNDECIDED {long}: stopped at the time limit (--timeout) while reading and lowering the program"
            ),
        ],
        &[],
    );
    assert!(!out.contains("ERROR"), "{out}");
    let x = std::fs::read_to_string(&junit).unwrap();
    assert!(x.contains("errors=\"0\" skipped=\"1\""), "{x}");
    assert!(
        x.contains("<skipped message=\"undecided: stopped at the time limit"),
        "{x}"
    );
    // With a CSV expecting a verdict for it.
    let csv = dir.join("expected.csv");
    std::fs::write(&csv, "long-400000.spvasm,1\nmp.litmus,1\n").unwrap();
    let c = csv.display().to_string();
    vkmm_undecided(
        &["suite", &d, "--expected", &c, "--timeout", "1", "-j", "1"],
        &["1 passed, 0 failed, 1 undecided, 0 errors"],
        &[],
    );
}

/// One thread of `n` atomic stores to 50 locations, round robin, as a
/// Vulkan litmus test: one candidate execution (program order fixes each
/// location's coherence order), whose final `x0` is its last store's
/// value, never 0.
pub(crate) fn store_chain(dir: &std::path::Path, n: usize) -> String {
    let mut s = String::from("VULKAN chain\n{ ");
    s.extend((0..50).map(|j| format!("x{j}=0; ")));
    s.push_str("}\n P0@sg 0, wg 0, qf 0 ;\n");
    s.extend((0..n).map(|i| format!(" st.atom.dv.sc0 x{}, {} ;\n", i % 50, i + 1)));
    s.push_str("exists (x0 == 0)\n");
    let f = dir.join(format!("chain-{n}.litmus"));
    std::fs::write(&f, s).unwrap();
    f.display().to_string()
}

/// The Vulkan model with one more fixpoint that grows by one step of
/// program order per round: on a thread of n events, n rounds, each
/// composing relations over all of them.
const SLOW_FIXPOINT: &str = "\"Vulkan with a slow extra fixpoint\"
let chains = _ * _
include \"vulkan-spec-readings.cat\"
include \"vulkan-rules.cat\"
let imm = po \\ (po ; po)
let rec chain = ([W] ; imm) | (chain ; imm)
acyclic chain as chain-order
";

/// `--timeout` bounds one model evaluation: the model's extra `let rec`
/// on the one execution of 1,500 program-ordered stores takes seconds
/// (the control: answered, exit 0, `Never`, since every location ends at
/// its last store, not 0; and no fixpoint relation has a cycle), so under
/// `--timeout 1` the evaluation stops between rounds and the answer is
/// undecided (exit 3), about 1 s after the start.
#[test]
fn the_timeout_bounds_one_model_evaluation() {
    let dir = scratch("slow-model");
    let model = dir.join("slow.cat");
    std::fs::write(&model, SLOW_FIXPOINT).unwrap();
    let m = model.display().to_string();
    let f = store_chain(&dir, 1500);
    let start = std::time::Instant::now();
    let (code, out, err) = vkmm(&["check", &f, "--model", &m, "--timeout", "1"]);
    let took = start.elapsed();
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains("stopped at the time limit (--timeout)"),
        "{out}"
    );
    assert!(out.contains("\nUndecided\n"), "{out}");
    assert!(!out.contains("Observation chain Never 0 1"), "{out}");
    assert!(took.as_secs_f64() < 2.0, "{took:?} under --timeout 1");
    // The control runs in the full tier (`--features slow-tests`): it
    // takes seconds.
    if !cfg!(feature = "slow-tests") {
        return;
    }
    let start = std::time::Instant::now();
    let (code, out, err) = vkmm(&["check", &f, "--model", &m]);
    let took = start.elapsed();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation chain Never 0 1"), "{out}");
    // The evaluation the deadline cut takes longer than the deadline (a
    // few times longer, so a faster machine still leaves it cut).
    assert!(took.as_secs_f64() > 1.0, "the control takes {took:?}");
}

/// A racing pair's JSON lists at most 100 of the states it races in and
/// says how many there are: P1 reads eight flags P0 sets, each 0 or 1
/// (relaxed atomics, nothing orders them), and a plain `x` P0 writes
/// unordered: 2^9 = 512 final states, the race on `x` in every one (no
/// synchronisation at all). The listing's order is that of the value
/// vectors (r0..r8), so the 100th state is 99 in binary, 001100011.
#[test]
fn a_racing_pair_lists_at_most_100_states_in_json() {
    let dir = scratch("race-cap");
    let mut s = String::from("VULKAN many-racy\n{ x=0; ");
    s.extend((0..8).map(|j| format!("y{j}=0; ")));
    s.push_str("}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n");
    for j in 0..8 {
        s.push_str(&format!(
            " st.atom.dv.sc0 y{j}, 1 | ld.atom.dv.sc0 r{j}, y{j} ;\n"
        ));
    }
    s.push_str(" st.sc0 x, 1 | ld.sc0 r8, x ;\n");
    let cond: Vec<String> = (0..9).map(|j| format!("P1:r{j} == 1")).collect();
    s.push_str(&format!("exists ({})\n", cond.join(" /\\ ")));
    let f = dir.join("racy.litmus");
    std::fs::write(&f, s).unwrap();
    let f = f.display().to_string();
    let (code, out, err) = vkmm(&["check", &f, "--format", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let o = &v["results"][0];
    assert_eq!(o["states"].as_array().unwrap().len(), 512);
    let races = o["races"].as_array().unwrap();
    assert_eq!(races.len(), 1, "{races:?}");
    let r = &races[0];
    assert_eq!(r["state_count"], 512);
    assert_eq!(r["states_cut"], true);
    let listed = r["states"].as_array().unwrap();
    assert_eq!(listed.len(), 100);
    let bits: Vec<i64> = (0..9)
        .map(|j| listed[99][format!("P1:r{j}")].as_i64().unwrap())
        .collect();
    assert_eq!(bits, [0, 0, 1, 1, 0, 0, 0, 1, 1]);
    let (code, out, _) = vkmm(&["check", &f]);
    assert_eq!(code, 0);
    assert!(
        out.contains("in executions ending in each of the 512 final states"),
        "{out}"
    );
}

/// A limit reached before there is anything to explain (the file not yet
/// read) leaves `explain` and `show` undecided, exit 3, with the limit
/// named on standard error, never an error (exit 2). `--max-memory 1`:
/// the process holds more than 1 MiB before it reads a byte, so the
/// bound is reached while `mp.litmus` is read, whatever the machine
/// (stated on standard error as `undecided: stopped at the memory bound
/// (--max-memory) while the Vulkan litmus file was read`). For JSON, one
/// document with `undecided` in place of the explanation. The same for
/// the termination explanation and drawing, and for `gen`, whose test
/// is read under each model: its verdicts are undecided (exit 3).
#[test]
fn explain_show_and_gen_stopped_while_reading_are_undecided() {
    let said = "examples/mp.litmus: undecided: stopped at the memory bound (--max-memory) while the Vulkan litmus file was read";
    let bound = ["--max-memory", "1"];
    let runs: [&[&str]; 4] = [
        &["explain", "examples/mp.litmus"],
        &["show", "examples/mp.litmus"],
        &["explain", "examples/mp.litmus", "--property", "termination"],
        &["show", "examples/mp.litmus", "--property", "termination"],
    ];
    for args in runs {
        let (_, err) = vkmm_undecided(&[args, &bound[..]].concat(), &[], &[said]);
        assert!(!err.contains("error:"), "{args:?}: {err}");
    }
    let (out, _) = vkmm_undecided(
        &[
            "explain",
            "examples/mp.litmus",
            "--format",
            "json",
            "--max-memory",
            "1",
        ],
        &[],
        &[],
    );
    let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["command"], "explain");
    assert_eq!(doc["undecided"], said);
    assert!(doc.get("error").is_none(), "{out}");
    // gen: the cycle's test is generated, then read under each model.
    let (out, _) = vkmm_undecided(
        &[
            "gen",
            "Rfe.dv PodRW Coe.dv PodWW",
            "--models",
            "vulkan,vulkan-nochains",
            "--max-memory",
            "1",
        ],
        &[
            "vulkan: condition undecided, races undecided (",
            "vulkan-nochains: condition undecided, races undecided (",
        ],
        &[],
    );
    assert!(
        !out.contains("condition Ok") && !out.contains("condition No"),
        "{out}"
    );
}

/// The memory bound reached inside one test's walk ends a family and a
/// mapping check there, naming the bound (exit 3), as `diff` does: the
/// process's memory does not shrink for the next test, so going on would
/// only count every later test as cut until the time limit, which would
/// then be blamed. `--max-memory 1`: the process holds more than 1 MiB
/// before the first walk, so the first skeleton's walk (of 2 events:
/// there is none of 1 event on two threads) stops at the bound, and so
/// does the mapping's first test's listing (the enumeration, `--engine
/// reference`; the SAT search stops while its formulas are built, below).
#[test]
fn the_memory_bound_reached_in_a_walk_ends_a_family_and_a_mapping_check() {
    let (code, out, err) = vkmm(&[
        "gen",
        "--family",
        "--models",
        "vulkan,vulkan-nochains",
        "--max-memory",
        "1",
        "--timeout",
        "30",
        "--format",
        "json",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &doc["family"];
    assert_eq!(f["stopped"], "the memory bound stopped it", "{out}");
    assert_eq!(f["skeletons"], 1, "{out}");
    assert_eq!(f["complete"], false, "{out}");
    vkmm_undecided(
        &[
            "refines",
            "--mapping",
            "examples/mappings/opencl-vulkan.toml",
            "--impl",
            "vulkan",
            "--spec",
            "opencl",
            "--engine",
            "reference",
            "--max-memory",
            "1",
            "--timeout",
            "30",
        ],
        &[
            "UNDECIDED: no violation among the tests checked",
            "; the memory bound stopped it (1 source tests",
        ],
        &[],
    );
}

/// `explain` and `show` exit undecided (3) when any part of what they
/// print is undecided, whatever the verdict, and name the limit.
///
/// How the answers are derived. `sb-relaxed.litmus` is store buffering
/// with relaxed atomics: four executions (each load reads 0 or the other
/// thread's 1), every access atomic, so no race in any of them. Under
/// `--max-executions 3` the search for the `~exists` expression (both
/// loads 0) finds it among the first three (reading-output.md shows
/// `check` with one positive among three), so the condition FAILS is
/// settled by the witness; whether the test is race-free needs the fourth
/// execution, so that part is undecided at the execution limit.
/// `race-in-cut-loop.litmus`'s P0 loops forever (nobody writes `f`), so
/// every P0 path is cut and no complete execution exists: `x == 2` is
/// unreachable within the bound, but an execution past it is unseen, and
/// `check` says Undecided (exit 3).
#[test]
fn explain_and_show_exit_undecided_when_any_part_printed_is() {
    const SB: &str = "docs/examples/sb-relaxed.litmus";
    const LOOP: &str = "tests/fixtures/litmus-bound/race-in-cut-loop.litmus";
    vkmm_undecided(
        &["explain", SB, "--max-executions", "3"],
        &[
            "FAILS under vulkan",
            "Data races: undecided for the test (none among the executions seen; the search stopped at the execution limit)",
        ],
        &[],
    );
    let (out, _) = vkmm_undecided(
        &["explain", SB, "--max-executions", "3", "--format", "json"],
        &[],
        &[],
    );
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let parts: Vec<&str> = doc["undecided"]
        .as_array()
        .expect("the undecided parts")
        .iter()
        .filter_map(|p| p.as_str())
        .collect();
    assert!(
        parts.contains(
            &"the test's races: none among the executions seen; the search stopped at the execution limit"
        ),
        "{parts:?}"
    );
    // The whole search decides every part (the control).
    let (code, out, _) = vkmm(&["explain", SB]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("Data races: none in any consistent execution of the test"),
        "{out}"
    );
    assert!(!out.contains("undecided"), "{out}");
    let (code, out, _) = vkmm(&["explain", SB, "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("\"undecided\""), "{out}");

    // Nothing within the bound reaches the outcome: no verdict on the
    // program, as `check` has it.
    vkmm_undecided(
        &["explain", LOOP, "--unroll", "0"],
        &[
            "`exists (x == 2)` is UNDECIDED under vulkan: its expression is UNREACHABLE within the unrolling bound",
            "but the bound cut 1 thread path (raise --unroll)",
        ],
        &[],
    );
    vkmm_undecided(&["check", LOOP, "--unroll", "0"], &["\nUndecided\n"], &[]);
    let dir = scratch("show-undecided");
    let dot = dir.join("x.dot").display().to_string();
    vkmm_undecided(
        &["show", LOOP, "--unroll", "0", "--dot", &dot],
        &[],
        &[
            "undecided: the verdict: no consistent execution within the unrolling bound produces the outcome",
        ],
    );
}

/// A request already past its memory bound stops before the front end's
/// work, whatever the shader's language: under `--max-memory 1` the
/// process holds more than 1 MiB before it reads anything (its program
/// alone), so each shader is undecided at once, the bound named, instead
/// of being compiled (glslang, naga) and lowered for a search that stops
/// at its first look (`TRUNCATED after 0 model evaluations`). The GLSL
/// shader is never given to glslang, so the test needs no compiler.
#[test]
fn a_request_past_its_memory_bound_stops_before_the_front_end() {
    let shaders: [(&str, &[&str]); 3] = [
        (
            "examples/shaders/counter.wgsl",
            &["--local-size", "2", "--length", "out=1"],
        ),
        ("examples/glsl/mp.comp", &[]),
        ("examples/spirv/mp.spv", &[]),
    ];
    for (file, options) in shaders {
        let args = [&["check", file, "--max-memory", "1"][..], options].concat();
        let (out, _) = vkmm_undecided(
            &args,
            &[],
            &["stopped at the memory bound (--max-memory) before the program was read"],
        );
        assert!(!out.contains("TRUNCATED"), "{file}: {out}");
        // The same under a bound it stays within (the control; the
        // GLSL shader is compiled then).
        if file.ends_with(".comp") && !common::glslang() {
            continue;
        }
        let args = [&["check", file, "--max-memory", "300"][..], options].concat();
        let (code, out, err) = vkmm(&args);
        assert!(code == 0 || code == 3, "{file}: {out}{err}");
        assert!(!err.contains("max-memory"), "{file}: {err}");
    }
}

/// A manifest `m.csv` in `dir` of two race rows on a SPIR-V shader (one
/// and two invocations), both race-free; its path.
fn two_race_rows(dir: &std::path::Path) -> String {
    let shader = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/shader-dispatch/uninit.spvasm")
        .display()
        .to_string();
    let csv = dir.join("m.csv");
    std::fs::write(
        &csv,
        format!(
            "file,entry,local_size,workgroups,defines,set,inputs,property,expected\n\
             {shader},main,\"1,1,1\",\"1,1,1\",,,zero,races,race-free\n\
             {shader},main,\"2,1,1\",\"1,1,1\",,,zero,races,race-free\n"
        ),
    )
    .unwrap();
    csv.display().to_string()
}

/// A manifest whose rows a limit all stopped before their program was
/// read counts them in its summary, as undecided rows not read, never as
/// "0 files". Two race rows on a SPIR-V shader: read, both pass; under
/// `--max-memory 1` (the process holds more than 1 MiB before it reads a
/// byte) neither is read, both are undecided, exit 3.
#[test]
fn a_manifest_whose_rows_were_never_read_says_so() {
    let csv = two_race_rows(&scratch("unread-manifest"));
    let (code, out, err) = vkmm(&["suite", "--manifest", &csv]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("2 files, 2 checks: 2 passed, 0 failed, 0 undecided, 0 errors"),
        "{out}"
    );
    let (out, _) = vkmm_undecided(
        &["suite", "--manifest", &csv, "--max-memory", "1"],
        &[
            "2 files (all stopped before they were read), 2 checks: 0 passed, 0 failed, 2 undecided, 0 errors",
        ],
        &[],
    );
    assert_eq!(
        out.matches("before the program was read").count(),
        2,
        "{out}"
    );
    let (out, _) = vkmm_undecided(
        &[
            "suite",
            "--manifest",
            &csv,
            "--max-memory",
            "1",
            "--format",
            "json",
        ],
        &[],
        &[],
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["files"], 2, "{out}");
    assert_eq!(v["unread"], 2, "{out}");
    assert_eq!(v["summary"]["undecided"].as_array().map(Vec::len), Some(2));
}

/// The memory bound stops the SPIR-V lowering where it polls the bound
/// (every few hundred units of work, and before a table of values grows), and
/// the message names that phase. [`long_shader`]'s 400,000 instructions
/// are read within about 200 MiB (bounds up to 200 stop the reading), and
/// lowering them brings the run to about 390 MiB (bounds of 240 to 400
/// stop the lowering, each its own invocation's table of values): at
/// `--max-memory 240` the check stops in the lowering, undecided (exit 3)
/// with no verdict; at `--max-memory 100` it stops while the module is
/// read, a phase the message does not call lowering.
#[test]
fn the_memory_bound_stops_the_spirv_lowering_and_says_so() {
    let dir = scratch("lowering-memory");
    let f = long_shader(&dir, 400_000);
    let (out, _) = vkmm_undecided(
        &["check", &f, "--max-memory", "240"],
        &[],
        &[&format!(
            "{f}: undecided: stopped at the memory bound (--max-memory) while the SPIR-V program was lowered"
        )],
    );
    assert!(!out.contains("Observation"), "{out}");
    let (_, err) = vkmm_undecided(
        &["check", &f, "--max-memory", "100"],
        &[],
        &["undecided: stopped at the memory bound (--max-memory)"],
    );
    assert!(!err.contains("lowered"), "{err}");
}

/// `vkmm merge` counts the rows a limit stopped before they were read as
/// the one run of the whole suite does. The rows of [`two_race_rows`] in
/// two shards: both shards under `--max-memory 1` merge to "all stopped
/// before they were read", as the unsharded run under that bound says; shard 1 under the
/// bound and shard 2 without it merge to one row unread (undecided) and
/// one passed, in text and in JSON.
#[test]
fn merged_shards_count_the_rows_never_read() {
    let dir = scratch("unread-merge");
    let csv = two_race_rows(&dir);
    // Shard k of 2, under `bound` (extra arguments), written to a file.
    let shard = |k: usize, bound: &[&str]| {
        let s = format!("{k}/2");
        let args = [
            &[
                "suite",
                "--manifest",
                &csv,
                "--shard",
                &s,
                "--format",
                "json",
            ][..],
            bound,
        ]
        .concat();
        let (code, out, err) = vkmm(&args);
        assert!(code == 0 || code == 3, "{out}{err}");
        let f = dir.join(format!("s{k}-{}.json", bound.len()));
        std::fs::write(&f, out).unwrap();
        f.display().to_string()
    };
    let bound = ["--max-memory", "1"];
    let (a, b) = (shard(1, &bound), shard(2, &bound));
    let line = "2 files (all stopped before they were read), 2 checks: 0 passed, 0 failed, 2 undecided, 0 errors";
    vkmm_undecided(&["merge", &a, &b], &[line], &[]);
    let (_, whole, _) = vkmm(&["suite", "--manifest", &csv, "--max-memory", "1"]);
    assert!(whole.contains(line), "{whole}");
    // One shard unread, the other checked.
    let b = shard(2, &[]);
    vkmm_undecided(
        &["merge", &a, &b],
        &[
            "2 files (1 stopped before it was read), 2 checks: 1 passed, 0 failed, 1 undecided, 0 errors",
        ],
        &[],
    );
    let (out, _) = vkmm_undecided(&["merge", &a, &b, "--format", "json"], &[], &[]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["files"], 2, "{out}");
    assert_eq!(v["unread"], 1, "{out}");
}

/// `--max-memory` bounds the SAT search of `refines --mapping` while it
/// builds its questions: before any test is checked, the search builds
/// the one-event-per-thread question of every placement (each holds the
/// two programs' formulas: the source's under `vulkan`, with its schedule
/// copies, and the compiled program's under `ptx`), and at 3 threads of 3
/// events the whole search stays under about 50 MiB resident and a bound
/// of 20 MiB may be reached in the 3-event questions; the process holds
/// about 12 MiB at its start, so a bound of 10 MiB is reached at the
/// first poll, while those first questions are built. The answer
/// is undecided (exit 3), checked no test, covers no size, and names the
/// bound and the phase; never "no violation".
#[test]
fn the_memory_bound_stops_the_symbolic_mapping_check_while_its_formulas_are_built() {
    let (code, out, err) = vkmm(&[
        "refines",
        "--impl",
        "ptx",
        "--spec",
        "vulkan",
        "--mapping",
        "examples/mappings/vulkan-ptx-nobarrier.toml",
        "--threads",
        "3",
        "--events",
        "3",
        "--max-memory",
        "10",
        "--timeout",
        "60",
        "--format",
        "json",
    ]);
    let m = stopped_building(code, &out, &err, "mapping", "violations");
    assert_eq!(m["tests"], 0, "{out}");
}

/// The report `key` of a symbolic search the memory bound stopped while its
/// questions were built: undecided (exit 3), nothing covered, nothing found
/// in `found`.
fn stopped_building(code: i32, out: &str, err: &str, key: &str, found: &str) -> serde_json::Value {
    assert_eq!(code, 3, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(out).unwrap();
    let d = doc[key].clone();
    assert_eq!(
        d["stopped"], "the memory bound stopped it while the SAT questions were built",
        "{out}"
    );
    assert_eq!(d["complete"], false, "{out}");
    assert_eq!(d["covered_events"], 0, "{out}");
    assert_eq!(d[found].as_array().map(Vec::len), Some(0), "{out}");
    d
}

/// `--max-memory` bounds the symbolic search of `diff` while it builds its
/// formulas, not only the checks of the tests it proposes: at 3 threads of
/// 4 events the two models' formulas take well over 80 MiB (about 240 MiB
/// resident without a bound) while the process holds less before them
/// (about 40 MiB), so the bound is reached while the questions are built.
/// The answer is undecided (exit 3), covers no size, and names the bound
/// and the phase; never a difference nor "no difference".
#[test]
fn the_memory_bound_stops_the_symbolic_diff_while_its_formulas_are_built() {
    let (code, out, err) = vkmm(&[
        "diff",
        "--models",
        "vulkan,vulkan-nochains",
        "--threads",
        "3",
        "--events",
        "4",
        "--max-memory",
        "80",
        "--timeout",
        "60",
        "--format",
        "json",
    ]);
    stopped_building(code, &out, &err, "diff", "witnesses");
}
