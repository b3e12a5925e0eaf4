//! Adversarial inputs, each run as the `vkmm` binary under an address-space
//! cap (`ulimit -v`) and a kill timer, with `--timeout 2 --max-memory 300`:
//! it must end undecided (exit 3) or with a clear error (exit 2), never
//! abort or be killed, within the wall-clock budget. The inputs are
//! generated here (sizes from the cases an adversarial user tried).
//!
//! Why these outcomes: a limit reached is undecided by the rules of
//! docs/reading-output.md, and a file that is not a regular file is an
//! error. The wall-clock budget (`BUDGET`) has a margin over the 3 s
//! target for a shared machine; a limit that does not bound a phase shows up as
//! a run many times longer than `--timeout`, or as a kill.
//!
//! The cases whose phase is not bounded yet are `#[ignore]`d with the
//! reason (run them with `cargo test --release --test adversarial --
//! --ignored`).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The address-space cap, in KiB (2 GiB).
const CAP_KIB: u64 = 2 << 20;

/// The most wall-clock time a run with `--timeout 2` may take here: the
/// target is about 3 s; the margin is for a machine shared with builds.
const BUDGET: Duration = Duration::from_secs(5);

/// The kill timer (well past the budget: a killed run is a failure).
const KILL_SECS: u64 = 60;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("adversarial-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs vkmm with `args` under the caps: (exit code, stderr, wall time).
/// A run killed by a signal (an abort, the kill timer) has code -1 or
/// 128 + the signal.
fn capped(args: &[&str]) -> (i32, String, Duration) {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "ulimit -v {CAP_KIB}; exec timeout -s KILL {KILL_SECS} '{}' {} >/dev/null",
        env!("CARGO_BIN_EXE_vkmm"),
        quoted.join(" ")
    );
    let start = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        start.elapsed(),
    )
}

/// Checks `file` with `--timeout 2 --max-memory 300` under the caps and
/// asserts it ends by itself within the budget: with an answer (0, 1: the
/// search finished within the limits), undecided (3) or an error (2),
/// never aborted or killed. Returns the exit code.
fn bounded(file: &Path, extra: &[&str]) -> i32 {
    let f = file.display().to_string();
    let mut args = vec!["check", &f, "--timeout", "2", "--max-memory", "300"];
    args.extend_from_slice(extra);
    let (code, err, took) = capped(&args);
    assert!(
        (0..=3).contains(&code),
        "{f}: exit {code} (an abort or a kill; expected 3, undecided, or 2, an error): {err}"
    );
    assert!(took < BUDGET, "{f}: {took:?} under --timeout 2");
    code
}

/// A `.test` of `n` threads, thread `i` running `body(i)`.
fn threads(dir: &Path, name: &str, n: usize, body: &dyn Fn(usize) -> Vec<String>) -> PathBuf {
    let mut s = String::new();
    for i in 0..n {
        s.push_str("NEWTHREAD\n");
        for l in body(i) {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s.push_str("SATISFIABLE consistent[X]\n");
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p
}

fn own_stores(dir: &Path, n: usize) -> PathBuf {
    threads(dir, &format!("own-{n}.test"), n, &|i| {
        vec![format!("st.atom.scopedev.sc0 x{i} = 1")]
    })
}

#[test]
fn a_link_to_dev_zero_and_a_fifo_are_errors() {
    let dir = scratch("special");
    let zero = dir.join("zero.litmus");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    assert_eq!(bounded(&zero, &[]), 2);
    let fifo = dir.join("fifo.litmus");
    if std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        assert_eq!(bounded(&fifo, &[]), 2);
        let d = dir.display().to_string();
        let (code, _, took) = capped(&["suite", &d, "--timeout", "2"]);
        assert_eq!(code, 2);
        assert!(took < BUDGET);
    }
}

/// 3,000 threads: relations of 3,000 x 3,000 events under a 2 GiB cap.
#[test]
#[ignore = "the memory bound is not read while the engine builds 3,000 x 3,000 relations (src/engine): on a quiet machine the process grows past the 2 GiB cap (1.7 GB RSS) and aborts before --timeout 2 stops it; under load the timeout stops it first"]
fn three_thousand_threads_end_within_the_caps() {
    let dir = scratch("t3000");
    bounded(&own_stores(&dir, 3000), &[]);
}

/// 1,000 threads: complete at about 320 MB (above --max-memory 300 by less
/// than 10 %), but the front end and path work take several times
/// --timeout 2 outside the clock.
#[test]
#[ignore = "front end and path work on 1,000 threads fall outside --timeout (src/engine): 4-8 s under --timeout 2, by load"]
fn one_thousand_threads_stop_at_the_timeout() {
    let dir = scratch("t1000");
    bounded(&own_stores(&dir, 1000), &[]);
}

/// 4,000 threads with one own store each.
#[test]
#[ignore = "path and order work on 4,000 threads check no clock (src/engine): 8 s under --timeout 2"]
fn four_thousand_threads_stop_at_the_timeout() {
    let dir = scratch("t4000");
    bounded(&own_stores(&dir, 4000), &[]);
}

/// One thread, 20,000 program-ordered atomic stores to 50 locations:
/// program order fixes every coherence order.
#[test]
#[ignore = "program-ordered writes count against --max-writes and their orders are listed in quadratic time without a clock check (src/engine)"]
fn twenty_thousand_program_ordered_stores_stop_at_the_timeout() {
    let dir = scratch("po");
    let mut s = String::from("NEWTHREAD\n");
    for i in 0..20_000 {
        s.push_str(&format!("st.atom.scopedev.sc0 x{} = {}\n", i % 50, i + 1));
    }
    s.push_str("SATISFIABLE consistent[X]\n");
    let p = dir.join("po.test");
    std::fs::write(&p, s).unwrap();
    bounded(&p, &[]);
}

/// n threads each loading every location, then storing its own (the
/// factored observation reads), as a Vulkan litmus test, one workgroup
/// per thread. This shape stops at the execution limit within the caps
/// here; the blow-up needs a shape not reproduced yet.
#[test]
fn factored_reads_stop_at_the_limits() {
    let dir = scratch("factored");
    let n = 6;
    let cols: Vec<Vec<String>> = (0..n)
        .map(|i| {
            let mut c = vec![format!("P{i}@sg 0, wg {i}, qf 0")];
            c.extend((0..n).map(|j| format!("ld.atom.dv.sc0 r{j}, x{j}")));
            c.push(format!("st.atom.dv.sc0 x{i}, 1"));
            c
        })
        .collect();
    let mut s = String::from("VULKAN factored\n{\n");
    s.extend((0..n).map(|j| format!("x{j}=0; ")));
    s.push_str("\n}\n");
    for r in 0..cols[0].len() {
        let row: Vec<String> = cols.iter().map(|c| format!("{:<28}", c[r])).collect();
        s.push_str(&format!(" {} ;\n", row.join(" | ")));
    }
    let cond: Vec<String> = (0..n).map(|i| format!("P{i}:r{i} == 0")).collect();
    s.push_str(&format!("exists ({})\n", cond.join(" /\\ ")));
    let p = dir.join("factored.litmus");
    std::fs::write(&p, s).unwrap();
    bounded(&p, &[]);
}

/// 64 interchangeable threads (symmetry reduction's classes). This shape
/// ends within the caps here; the 64 invocations were a SPIR-V
/// program, not reproduced yet.
#[test]
fn symmetry_on_many_threads_stops_at_the_timeout() {
    let dir = scratch("symmetry");
    let p = threads(&dir, "sym-64.test", 64, &|_| {
        vec![
            "st.atom.scopedev.sc0 x = 1".into(),
            "ld.atom.scopedev.sc0 y".into(),
            "st.atom.scopedev.sc0 y = 1".into(),
            "ld.atom.scopedev.sc0 x".into(),
        ]
    });
    bounded(&p, &[]);
}

/// `--format json` of a large listing is streamed: the corpus test whose
/// JSON report is 248 MB ends within the caps.
#[test]
fn a_large_json_report_is_streamed() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/dat3m-vulkan/Manual/xf-barrier-cbar-rlx-1.litmus");
    let f = if f.exists() {
        f
    } else {
        PathBuf::from("/work/shared/corpus/dat3m-vulkan/Manual/xf-barrier-cbar-rlx-1.litmus")
    };
    if !f.exists() {
        eprintln!("SKIPPED: the dat3m-vulkan corpus is absent");
        return;
    }
    let f = f.display().to_string();
    let (code, err, took) = capped(&[
        "check",
        &f,
        "--format",
        "json",
        "--max-memory",
        "1024",
        "--timeout",
        "10",
    ]);
    // Complete within the limits (0), or undecided at one of them (3).
    assert!(code == 0 || code == 3, "exit {code}: {err}");
    assert!(took < Duration::from_secs(40), "{took:?}");
}
