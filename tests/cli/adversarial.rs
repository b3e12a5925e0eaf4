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
//! reason (run them with `cargo test --release --test cli adversarial:: --
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

/// The most resident memory a run with `--max-memory 300` may reach: the
/// bound within 10 %.
const PEAK_KIB: u64 = 330 << 10;

/// One run of vkmm at a time: the wall-clock budgets assume a run has the
/// machine's cores, not a share with this binary's other runs.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|p| p.into_inner())
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("adversarial-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs vkmm with `args` under the caps: (exit code, stderr, wall time).
/// A run killed by a signal (an abort, the kill timer) has code -1.
fn capped(args: &[&str]) -> (i32, String, Duration) {
    let (code, err, took, _) = measured(args);
    (code, err, took)
}

/// [`capped`], with the run's peak resident memory in KiB (its `VmHWM`,
/// read every few milliseconds while it runs: the high-water mark, so a
/// late reading holds every earlier peak; 0 where `/proc` is absent).
fn measured(args: &[&str]) -> (i32, String, Duration, u64) {
    measured_env(&[], args)
}

/// [`measured`] with environment variables set for the run.
fn measured_env(env: &[(&str, &str)], args: &[&str]) -> (i32, String, Duration, u64) {
    measured_under(CAP_KIB, env, args)
}

/// [`measured_env`] under an address-space cap of `cap_kib` KiB.
fn measured_under(
    cap_kib: u64,
    env: &[(&str, &str)],
    args: &[&str],
) -> (i32, String, Duration, u64) {
    let _turn = one_at_a_time();
    use std::io::Read;
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    // `exec`: the shell becomes vkmm, whose process the readings follow.
    let script = format!(
        "ulimit -v {cap_kib}; exec '{}' {} >/dev/null",
        env!("CARGO_BIN_EXE_vkmm"),
        quoted.join(" ")
    );
    let start = Instant::now();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .envs(env.iter().copied())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    });
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let code = loop {
        if let Some(kib) = std::fs::read_to_string(&status).ok().and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak = peak.max(kib);
        }
        if let Some(s) = child.try_wait().unwrap() {
            break s.code().unwrap_or(-1);
        }
        if start.elapsed() > Duration::from_secs(KILL_SECS) {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    (code, reader.join().unwrap(), start.elapsed(), peak)
}

/// Checks `file` with `--timeout 2 --max-memory 300` under the caps and
/// asserts it ends by itself within the budget: with an answer (0, 1: the
/// search finished within the limits), undecided (3) or an error (2),
/// never aborted or killed. Returns the exit code.
fn bounded(file: &Path, extra: &[&str]) -> i32 {
    bounded_with(file, extra).0
}

/// [`bounded`], also asserting the peak resident memory is within 10 % of
/// `--max-memory 300`; returns the exit code and stderr.
fn bounded_with(file: &Path, extra: &[&str]) -> (i32, String) {
    let f = file.display().to_string();
    let mut args = vec!["check", &f, "--timeout", "2", "--max-memory", "300"];
    args.extend_from_slice(extra);
    let (code, err, took, peak) = measured(&args);
    assert!(
        (0..=3).contains(&code),
        "{f}: exit {code} (an abort or a kill; expected 3, undecided, or 2, an error): {err}"
    );
    assert!(took < BUDGET, "{f}: {took:?} under --timeout 2");
    assert!(
        peak < PEAK_KIB,
        "{f}: {} MiB resident under --max-memory 300",
        peak >> 10
    );
    (code, err)
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
/// Each location's one order is no n x n relation of its own (the orders
/// of the locations with one order are one relation), and the relations
/// are built after a check that they fit the bound.
#[test]
fn three_thousand_threads_end_within_the_caps() {
    let dir = scratch("t3000");
    bounded(&own_stores(&dir, 3000), &[]);
}

/// 1,000 threads: complete (one execution, satisfiable: the expected
/// answer of the query, each store the only write of its location) within
/// the limits.
#[test]
fn one_thousand_threads_stop_at_the_timeout() {
    let dir = scratch("t1000");
    let code = bounded(&own_stores(&dir, 1000), &[]);
    assert!(code == 0 || code == 3, "exit {code}");
}

/// 4,000 and 10,000 threads with one own store each: answered or undecided
/// within the limits, 10,000 threads stopping at the memory bound within
/// 10 % of it (about 318 MiB resident: the path walk gives each write a
/// provenance vector of one counter per location, 80 KB for 10,000
/// locations).
///
/// Full tier only (`--features slow-tests`, which CI runs): the same
/// capability at a smaller size, 1,000 and 3,000 threads, runs in both.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (1,000 and 3,000 threads run in the quick tier)"
)]
fn four_and_ten_thousand_threads_stop_at_the_timeout() {
    let dir = scratch("t4000");
    let (code, err) = bounded_with(&own_stores(&dir, 4000), &[]);
    assert!(code == 0 || code == 3, "4,000 threads: exit {code}: {err}");
    let (code, err) = bounded_with(&own_stores(&dir, 10_000), &[]);
    assert!(code == 0 || code == 3, "10,000 threads: exit {code}: {err}");
}

/// One thread of `n` atomic stores to `locations` locations, round robin,
/// each of its own value.
fn program_ordered(dir: &Path, n: usize, locations: usize) -> PathBuf {
    let mut s = String::from("NEWTHREAD\n");
    for i in 0..n {
        s.push_str(&format!(
            "st.atom.scopedev.sc0 x{} = {}\n",
            i % locations,
            i + 1
        ));
    }
    s.push_str("SATISFIABLE consistent[X]\n");
    let p = dir.join(format!("po-{n}-{locations}.test"));
    std::fs::write(&p, s).unwrap();
    p
}

/// One thread, 20,000 program-ordered atomic stores to 50 locations:
/// program order fixes every coherence order (vulkan.cat's coherence:
/// "location-ordered" writes of one thread are `asmo`-ordered their way),
/// so the order limit is never the reason; the relations over 20,000
/// events (50 MB each) do not fit --max-memory 300: undecided at once.
#[test]
fn twenty_thousand_program_ordered_stores_stop_at_the_timeout() {
    let dir = scratch("po");
    let (code, err) = bounded_with(&program_ordered(&dir, 20_000, 50), &[]);
    assert_eq!(code, 3, "{err}");
}

/// Program order is free: 1,000 program-ordered stores to 5 locations
/// (200 writes per location, more than --max-writes 8 and than the 64 a
/// location may have at all when its orders are listed), and 2,000 to 50,
/// have one coherence order per location, and the query is answered:
/// satisfiable (the one execution is consistent: every location's writes
/// in program order, nothing reads).
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (twenty_thousand_program_ordered_stores_stop_at_the_timeout runs in the quick tier)"
)]
fn program_ordered_stores_do_not_count_against_the_order_limit() {
    let dir = scratch("po-free");
    for (n, locations) in [(1000, 5), (2000, 50)] {
        let f = program_ordered(&dir, n, locations).display().to_string();
        let (code, err, took, peak) = measured(&["check", &f, "--timeout", "10"]);
        assert_eq!(code, 0, "{n} stores: {err}");
        assert!(took < Duration::from_secs(10), "{n} stores: {took:?}");
        assert!(peak < 1 << 20, "{n} stores: {} MiB", peak >> 10);
    }
}

/// Writes, in a scratch folder `name`, a Vulkan litmus test of 6 threads
/// (one workgroup each), each reading every location with `load`, then
/// writing its own with `store`; its path.
fn factored_reads(name: &str, load: &str, store: &str) -> PathBuf {
    let dir = scratch(name);
    let n = 6;
    let cols: Vec<Vec<String>> = (0..n)
        .map(|i| {
            let mut c = vec![format!("P{i}@sg 0, wg {i}, qf 0")];
            c.extend((0..n).map(|j| format!("{load} r{j}, x{j}")));
            c.push(format!("{store} x{i}, 1"));
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
    let p = dir.join(format!("{name}.litmus"));
    std::fs::write(&p, s).unwrap();
    p
}

/// n threads each loading every location, then storing its own (the
/// factored observation reads), as a Vulkan litmus test, one workgroup
/// per thread. This shape stops at the execution limit within the caps
/// here; the blow-up needs a shape not reproduced yet.
#[test]
fn factored_reads_stop_at_the_limits() {
    bounded(
        &factored_reads("factored", "ld.atom.dv.sc0", "st.atom.dv.sc0"),
        &[],
    );
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
    let Some(dir) = crate::common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let f = dir
        .join("Manual/xf-barrier-cbar-rlx-1.litmus")
        .display()
        .to_string();
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

/// A GLSL compiler that never finishes is killed at the deadline: the
/// check ends undecided (exit 3) at about `--timeout 2`, and the compiler
/// process is gone when vkmm has exited (a compiler left running would
/// still be sleeping). The compiler here is a script (`VKMM_GLSLANG`)
/// that records its process id and sleeps far past the kill timer.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (a_shader_naga_lowers_slowly_stops_at_the_timeout runs in the quick tier)"
)]
fn a_compiler_that_never_finishes_is_killed_at_the_deadline() {
    let dir = scratch("slow-glslang");
    let pid_file = dir.join("pid");
    let script = dir.join("slow-glslang");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho $$ > '{}'\nexec sleep 300\n",
            pid_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let s = script.display().to_string();
    let (code, err, took, _) = measured_env(
        &[("VKMM_GLSLANG", &s)],
        &[
            "check",
            "examples/glsl/mp.comp",
            "--timeout",
            "2",
            "--max-memory",
            "300",
        ],
    );
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("stopped at the time limit (--timeout)"),
        "{err}"
    );
    assert!(took < BUDGET, "{took:?} under --timeout 2");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
    // Gone, or at most a zombie nobody reaps yet.
    assert!(
        stat.as_ref().map_or(true, |s| s.contains(") Z ")),
        "the compiler {} still runs: {stat:?}",
        pid.trim()
    );
}

/// A WGSL shader whose lowering in naga takes far longer than the limit
/// (300,000 statements in one function: naga's WGSL lowering spends
/// minutes on it, and grows past 300 MiB) ends undecided at about
/// `--timeout 2` or at `--max-memory 300`, whichever comes first, within
/// the caps.
#[test]
fn a_shader_naga_lowers_slowly_stops_at_the_timeout() {
    let dir = scratch("slow-naga");
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1)\nfn main() {\n  var v: u32 = 0u;\n",
    );
    for _ in 0..300_000 {
        s.push_str("  v = v * 3u + 1u;\n");
    }
    s.push_str("  out[0] = v;\n}\n");
    let p = dir.join("long.wgsl");
    std::fs::write(&p, s).unwrap();
    let (code, err) = bounded_with(&p, &["--length", "out=1"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("stopped at the time limit (--timeout)")
            || err.contains("stopped at the memory bound (--max-memory) while naga"),
        "{err}"
    );
}

/// The memory bound respects an address-space limit below it: under
/// `ulimit -v` of 600 MiB and the default `--max-memory` (4096 MiB), 4,000
/// threads with one own store each (more than 300 MiB of relations) end
/// undecided at half the address space (300 MiB, within 10 %), long
/// before `--timeout 30` (with the address space alone bounding it, the
/// search runs to the time limit, or an allocation fails: an abort).
#[test]
fn the_memory_bound_respects_the_address_space_limit() {
    let dir = scratch("rlimit");
    let f = own_stores(&dir, 4000).display().to_string();
    let (code, err, took, peak) = measured_under(600 << 10, &[], &["check", &f, "--timeout", "30"]);
    assert_eq!(code, 3, "{err}");
    // The memory bound, not the time limit, stopped it (about 1.4 s).
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        peak < 330 << 10,
        "{} MiB under a 600 MiB address space",
        peak >> 10
    );
}

/// The corpus file `rel` (below `../shared/corpus` or `/work/shared/corpus`).
fn corpus_file(rel: &str) -> Option<PathBuf> {
    [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from("/work/shared/corpus"),
    ]
    .into_iter()
    .map(|d| d.join(rel))
    .find(|f| f.exists())
}

/// The factored observation reads in their plain form: 6 threads (one
/// workgroup each) each loading every location with plain loads, then
/// storing its own. Each load reads the initial value or the one store:
/// 2^36 combinations of one evaluated candidate, each recorded.
#[test]
fn plain_factored_reads_stop_at_the_limits() {
    bounded(&factored_reads("factored-plain", "ld.sc0", "st.sc0"), &[]);
}

/// The corpus xf-barrier test with two source rows swapped (P0 and P1
/// reset their flag after reading `x0`..`x2`): its factored reads reach
/// 786,432 final states. The walk stops at the limits, and so does the
/// listing built after it (sorted, its racing pairs' states attributed):
/// past the deadline a listing of that size is dropped, not sorted.
#[test]
fn xf_barrier_with_rows_swapped_stops_at_the_limits() {
    let Some(f) = corpus_file("dat3m-vulkan/Manual/xf-barrier-cbar-rlx-1.litmus") else {
        eprintln!("SKIPPED: the dat3m-vulkan corpus is absent");
        return;
    };
    let text = std::fs::read_to_string(f).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let rows: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_end().ends_with(';'))
        .collect();
    lines.swap(rows[10], rows[11]);
    let dir = scratch("xf-swap");
    let p = dir.join("xf-swap.litmus");
    std::fs::write(&p, lines.join("\n")).unwrap();
    bounded(&p, &[]);
}

/// `--timeout` bounds writing the report too: a report that is still
/// being written at the deadline is cut short, marked on its last line
/// and on standard error, and the command exits 3 (undecided); a complete
/// report (exit 0) is only ever given within the deadline. The corpus
/// test's search takes about 2-3 s; its JSON report (races with the
/// states they race in, about 1 GB) takes longer to write than the rest
/// of `--timeout 8`.
#[test]
fn a_report_written_past_the_deadline_is_cut_short() {
    let Some(f) = corpus_file("dat3m-vulkan/Manual/xf-barrier-load-rlx-1.litmus") else {
        eprintln!("SKIPPED: the dat3m-vulkan corpus is absent");
        return;
    };
    let dir = scratch("report-cut");
    let report = dir.join("report.json");
    let _turn = one_at_a_time();
    let start = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(["check", "--format", "json", "--timeout", "8"])
        .arg(&f)
        .stdout(std::fs::File::create(&report).unwrap())
        .output()
        .unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => assert!(took < Duration::from_secs(9), "complete after {took:?}"),
        Some(3) => {
            let text = std::fs::read(&report).unwrap();
            let tail = String::from_utf8_lossy(&text[text.len().saturating_sub(100)..]);
            assert!(
                err.contains("cut short at the time limit (--timeout)")
                    || err.contains("stopped at the time limit"),
                "{err}"
            );
            if err.contains("cut short") {
                assert!(
                    tail.ends_with("REPORT CUT SHORT at the time limit (--timeout)\n"),
                    "{tail}"
                );
            }
            assert!(took < Duration::from_secs(40), "{took:?}");
        }
        c => panic!("exit {c:?}: {err}"),
    }
    let _ = std::fs::remove_file(&report);
}

/// A text report is timed as it goes out: a listing of 65,536 final
/// states (P1 reads sixteen flags P0 sets, each 0 or 1, every register
/// named in the condition: about 10 MB of text, far over a pipe's buffer
/// and the megabyte always written whole) whose search takes about half
/// a second is written to a reader that waits 3 s before reading; under
/// `--timeout 2` the writer is still blocked at the deadline, so the
/// report is cut short and marked.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (a_report_written_past_the_deadline_is_cut_short runs in the quick tier)"
)]
fn a_text_report_to_a_slow_reader_is_cut_short() {
    let dir = scratch("report-slow-reader");
    let n = 16;
    let mut s = String::from("VULKAN many\n{ ");
    s.extend((0..n).map(|j| format!("y{j}=0; ")));
    s.push_str("}\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n");
    for j in 0..n {
        s.push_str(&format!(
            " st.atom.dv.sc0 y{j}, 1 | ld.atom.dv.sc0 r{j}, y{j} ;\n"
        ));
    }
    let cond: Vec<String> = (0..n).map(|j| format!("P1:r{j} == 1")).collect();
    s.push_str(&format!("exists ({})\n", cond.join(" /\\ ")));
    let f = dir.join("many.litmus");
    std::fs::write(&f, s).unwrap();
    let (out, err) = (dir.join("out.txt"), dir.join("err.txt"));
    let script = format!(
        "'{}' check --timeout 2 '{}' 2>'{}' | (sleep 3; cat > '{}')",
        env!("CARGO_BIN_EXE_vkmm"),
        f.display(),
        err.display(),
        out.display()
    );
    let status = std::process::Command::new("sh")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success());
    let err = std::fs::read_to_string(&err).unwrap();
    if err.contains("stopped at the time limit") {
        // The search itself ran out of time on a loaded machine.
        return;
    }
    assert!(
        err.contains("cut short at the time limit (--timeout)"),
        "{err}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("Test many Allowed\nStates 65536\n"),
        "{}",
        &text[..text.len().min(200)]
    );
    assert!(
        text.ends_with("REPORT CUT SHORT at the time limit (--timeout)\n"),
        "{}",
        &text[text.len().saturating_sub(200)..]
    );
    // Cut: the whole listing is about 10 MB.
    assert!(text.len() < 8_000_000, "{} bytes", text.len());
    let _ = std::fs::remove_file(&out);
}

/// A Vulkan litmus test of `rows` rows (about 50 bytes each): P0 stores
/// 1, 2, ... to `x`, P1 loads it into r0..r7 in turn; written under the
/// scratch folder `name`, its path returned.
fn many_rows(name: &str, rows: usize) -> String {
    let dir = scratch(name);
    let mut s =
        String::from("VULKAN rows\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n");
    for i in 0..rows {
        s.push_str(&format!(
            " st.atom.dv.sc0 x, {} | ld.atom.dv.sc0 r{}, x ;\n",
            i + 1,
            i % 8
        ));
    }
    s.push_str("exists (P1:r0 == 0)\n");
    let p = dir.join("rows.litmus");
    std::fs::write(&p, s).unwrap();
    p.display().to_string()
}

/// The litmus reader reads the deadline: a Vulkan litmus test of 150,000
/// rows (7.5 MB; its reading alone took 3.6 s here) stops about
/// `--timeout 1` after the command starts, undecided, within the caps
/// (under `--max-memory 600`: reading it takes more than 300 MiB, and the
/// reader reads the memory bound too).
#[test]
fn a_litmus_file_of_many_rows_stops_at_the_timeout() {
    let f = many_rows("many-rows", 150_000);
    let (code, err, took, peak) = measured(&["check", &f, "--timeout", "1", "--max-memory", "600"]);
    assert_eq!(code, 3, "{err}");
    // Stopped while the file was read (said on stderr), or, where reading
    // takes under a second, by the search after it (the report, on stdout,
    // says so): either way undecided at the deadline.
    assert!(
        err.is_empty() || err.contains("stopped at the time limit (--timeout)"),
        "{err}"
    );
    // About 1 s; the reading alone took 3.6 s.
    assert!(
        took < Duration::from_millis(2500),
        "{took:?} under --timeout 1"
    );
    assert!(peak < 2 * PEAK_KIB, "{} MiB", peak >> 10);
}

/// The Vulkan litmus reader reads the memory bound: 400,000 rows (20 MB)
/// under `--max-memory 300` and a long timeout stop while the file is
/// read, undecided, within 10 % of the bound (the whole file read took
/// 5.5 s and about 580 MiB resident here before the reader read the
/// bound; the search then stopped at it, too late).
///
/// Full tier only (`--features slow-tests`, which CI runs): the reader's
/// memory bound is checked in the quick tier at 150,000 rows
/// (`a_litmus_file_read_under_the_memory_bound_stays_within_it`).
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (150,000 rows run in the quick tier)"
)]
fn a_litmus_file_of_many_rows_stops_at_the_memory_bound() {
    let f = many_rows("many-rows-memory", 400_000);
    stops_at_the_memory_bound(
        &f,
        "stopped at the memory bound (--max-memory) while the Vulkan litmus file was read",
    );
}

/// `vkmm check FILE --timeout 30 --max-memory 300` stops undecided (exit
/// 3) with `why` on its standard error, within 10 s and the peak the caps
/// allow.
fn stops_at_the_memory_bound(f: &str, why: &str) {
    let (code, err, took, peak) = measured(&["check", f, "--timeout", "30", "--max-memory", "300"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains(why), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(peak < PEAK_KIB, "{} MiB", peak >> 10);
}

/// A Vulkan litmus file of 150,000 rows (7.5 MB) under `--max-memory 300`
/// and a long timeout: its reading stops at the memory bound, undecided,
/// within 10 % of the bound, run after run (four runs in the full
/// tier). Before a statement buffer
/// doubles, the reader counts what the process holds as its resident
/// memory when that is larger than the bytes allocated (what the reader
/// freed, the allocator keeps); counting the allocated bytes alone, a
/// doubling late in the file took some runs to 340 MiB resident.
#[test]
fn a_litmus_file_read_under_the_memory_bound_stays_within_it() {
    let f = many_rows("many-rows-resident", 150_000);
    // Four runs in the full tier (`--features slow-tests`), one here.
    let runs = if cfg!(feature = "slow-tests") { 4 } else { 1 };
    for _ in 0..runs {
        stops_at_the_memory_bound(&f, "stopped at the memory bound (--max-memory)");
    }
}

/// The OpenCL litmus reader reads the deadline: a test of 400,000 atomic
/// stores in one kernel (31 MB; half of them took 0.9 to 4.3 s and 420 MiB
/// to read here before the reader read the clock) stops about `--timeout 1` after the
/// command starts, undecided, within the caps (the memory bound set
/// above what one second of reading takes, so that the clock stops it);
/// under `--max-memory 300` and a long timeout it stops at the memory
/// bound instead, undecided, within 10 % of it (the token buffer is not
/// doubled past the bound).
#[test]
fn an_opencl_litmus_file_of_many_statements_stops_at_the_timeout() {
    let dir = scratch("opencl-many");
    let mut s = String::from("OPENCL many\n{ [x]=0; }\nP0@wg 0, dev 0 (global atomic_int* x) {\n");
    for i in 0..400_000 {
        s.push_str(&format!(
            "  atomic_store_explicit(x, {}, memory_order_relaxed, memory_scope_device);\n",
            i + 1
        ));
    }
    s.push_str(
        "}\nP1@wg 1, dev 0 (global atomic_int* x) {\n  \
         int r0 = atomic_load_explicit(x, memory_order_relaxed, memory_scope_device);\n}\n\
         exists (1:r0=0)\n",
    );
    let p = dir.join("many.litmus");
    std::fs::write(&p, s).unwrap();
    let f = p.display().to_string();
    let (code, err, took, _) = measured(&["check", &f, "--timeout", "1", "--max-memory", "900"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("stopped at the time limit (--timeout)"),
        "{err}"
    );
    assert!(
        took < Duration::from_millis(2500),
        "{took:?} under --timeout 1"
    );
    // The memory bound's half runs in the full tier (`--features
    // slow-tests`): reading up to the bound takes seconds.
    if !cfg!(feature = "slow-tests") {
        return;
    }
    stops_at_the_memory_bound(&f, "stopped at the memory bound (--max-memory)");
}

/// The coherence orders listed for many locations stay within the memory
/// bound: one thread of 300 atomic stores to 50 locations, under a model
/// that declares nothing of coherence (so program order does not fix the
/// orders): 6! = 720 orders per location, each two relations over the
/// 350 events, 1 GB for the 50 locations (900 MiB resident here when the
/// bound was read only every 1,024 orders of one location). The listing
/// stops at the memory bound: undecided, within the caps.
#[test]
fn orders_of_many_locations_stop_at_the_memory_bound() {
    let dir = scratch("orders-memory");
    let model = dir.join("bare.cat");
    std::fs::write(&model, "\"bare\"\nacyclic co as coherence\n").unwrap();
    let m = model.display().to_string();
    let p = PathBuf::from(crate::limits::store_chain(&dir, 300));
    let (code, err) = bounded_with(&p, &["--model", &m]);
    assert_eq!(code, 3, "{err}");
}

/// The termination search over one thread's 1,000 program-ordered atomic
/// stores to 50 locations frees one phase's tables before the next grows:
/// the resident memory follows what the process holds only when the
/// allocator gives freed pages back promptly
/// (`memory::return_freed_memory_promptly`; with mimalloc's default delay
/// the peak passed the 10 % allowance). Ends within the caps, answer or
/// not.
#[test]
fn a_termination_search_over_program_ordered_stores_stays_within_the_caps() {
    let dir = scratch("termination-chain");
    let p = PathBuf::from(crate::limits::store_chain(&dir, 1000));
    bounded(&p, &["--property", "termination"]);
}

/// The SPIR-V front end holds the memory bound in every phase: the
/// 400,000 arithmetic instructions of [`crate::limits::long_shader`] take
/// about 390 MiB resident to check whole, read and lowered in phases of
/// different sizes (the module's text and instructions, its table of
/// result types, then each invocation's table of values, which grows by
/// doubling into tens of mebibytes at once). Under `--max-memory` of 150,
/// 240 and 300 MiB and a long timeout, each run stops undecided (exit 3)
/// in whichever phase reaches the bound, never with a verdict, its peak
/// resident memory within 10 % of the bound.
#[test]
fn the_spirv_front_end_stays_within_the_memory_bound() {
    let dir = scratch("spirv-memory");
    let f = crate::limits::long_shader(&dir, 400_000);
    for bound in [150u64, 240, 300] {
        let b = bound.to_string();
        let (code, err, _, peak) = measured(&["check", &f, "--timeout", "30", "--max-memory", &b]);
        assert_eq!(code, 3, "--max-memory {bound}: {err}");
        assert!(
            err.contains("undecided: stopped at the memory bound (--max-memory)"),
            "--max-memory {bound}: {err}"
        );
        assert!(
            peak < (bound << 10) * 11 / 10,
            "--max-memory {bound}: {} MiB resident",
            peak >> 10
        );
    }
}

/// The rows `rows` (data rows from 1) of the real-shader manifest, as a
/// manifest of their own in the scratch folder `name` with the files'
/// paths made absolute, and the inputs file remapped to it (its
/// `[[shader]]` entries for those files, `rows` renumbered); the paths of
/// the two, or `None` where the corpus is absent.
fn corpus_rows(name: &str, rows: &[usize]) -> Option<(String, String)> {
    let corpus = crate::common::corpus_or_skip("real-shaders")?;
    let dir = scratch(name);
    let text = std::fs::read_to_string(corpus.join("manifest.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let all: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let mut writer = csv::Writer::from_path(dir.join("m.csv")).unwrap();
    writer.write_record(reader.headers().unwrap()).unwrap();
    let mut files = Vec::new();
    for &r in rows {
        let mut row: Vec<String> = all[r - 1].iter().map(str::to_string).collect();
        files.push(row[0].clone());
        row[0] = corpus.join(&row[0]).display().to_string();
        writer.write_record(&row).unwrap();
    }
    writer.flush().unwrap();
    // Each entry: kept when its file is one of the rows' and its rows
    // (when given) name one of them, renumbered in the subset.
    let inputs = std::fs::read_to_string("tests/fixtures/real-shaders/inputs.toml").unwrap();
    let mut out = String::new();
    for entry in inputs.split("[[shader]]\n").skip(1) {
        let field = |key: &str| {
            entry
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key} = ")))
                .map(str::to_string)
        };
        let file = field("file").unwrap();
        let file = file.trim_matches('"');
        let listed: Option<Vec<usize>> = field("rows").map(|l| {
            l.trim_matches(['[', ']'])
                .split(',')
                .map(|n| n.trim().parse().unwrap())
                .collect()
        });
        let picked: Vec<usize> = (1..=rows.len())
            .filter(|&k| {
                files[k - 1] == file && listed.as_ref().is_none_or(|l| l.contains(&rows[k - 1]))
            })
            .collect();
        if picked.is_empty() {
            continue;
        }
        let mut e = entry.replacen(
            &format!("file = \"{file}\""),
            &format!("file = \"{}\"", corpus.join(file).display()),
            1,
        );
        if let Some(l) = field("rows") {
            e = e.replacen(&format!("rows = {l}"), &format!("rows = {picked:?}"), 1);
        }
        out.push_str("[[shader]]\n");
        out.push_str(&e);
    }
    std::fs::write(dir.join("inputs.toml"), out).unwrap();
    Some((
        dir.join("m.csv").display().to_string(),
        dir.join("inputs.toml").display().to_string(),
    ))
}

/// Real shaders whose phases before the path walk are long: the race rows
/// of GPUPrefixSums' chained scans at `BLOCK_DIM=8` (rows 24 and 27: the
/// run that finds the statements each invocation can reach keeps copies of
/// register files of thousands of registers, past 500 MiB and 7 s before
/// the walk starts), and FidelityFX SPD (row 32: the lowering of its image
/// array stores, one case per texel of each image, runs seconds within a
/// few hundred instructions). Under `--timeout 2 --max-memory 300` each row
/// ends undecided within the caps.
#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "slow: --features slow-tests (limits::the_timeout_bounds_the_front_end and the_memory_bound_stops_the_spirv_lowering_and_says_so run in the quick tier)"
)]
fn real_shaders_with_long_phases_stop_at_the_limits() {
    let mut rows = vec![24, 27];
    if crate::common::glslang() {
        rows.push(32);
    }
    for row in rows {
        let Some((csv, inputs)) = corpus_rows(&format!("long-phase-{row}"), &[row]) else {
            return;
        };
        let (code, err, took, peak) = measured(&[
            "suite",
            "--manifest",
            &csv,
            "--inputs",
            &inputs,
            "--timeout",
            "2",
            "--max-memory",
            "300",
            "-j",
            "1",
        ]);
        assert_eq!(code, 3, "row {row}: {err}");
        assert!(took < BUDGET, "row {row}: {took:?} under --timeout 2");
        assert!(peak < PEAK_KIB, "row {row}: {} MiB resident", peak >> 10);
    }
}
