//! The OpenCL host side (docs/host.md, "OpenCL"): host threads, commands,
//! events, queues and shared virtual memory in the OpenCL C dialect. The
//! litmus tests in tests/fixtures/litmus-opencl-host each quote the sentence they
//! exercise and carry a hand-derived verdict (expected-condition.csv,
//! expected-races.csv); the classic bugs' race diagnoses name the missing
//! call; host tests of one API are refused by the other API's models; bad
//! input is a located error (exit 2); each host rule of
//! models/opencl-host.cat (and its uses in opencl-rules.cat) is mutated and
//! must be caught.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::model::LoadedModel;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-opencl-host")
}

#[test]
fn host_tests_give_their_hand_derived_verdicts() {
    let rows = common::csv_rows(&dir());
    assert!(rows.len() >= 50, "both CSVs list the tests");
    // Every OpenCL model includes opencl-rules.cat, hence the host rules.
    for model in [
        "opencl",
        "opencl-totalsc",
        "opencl-groupsync",
        "opencl-nothinair",
    ] {
        let m = vkmm::model::load(model).unwrap();
        let bad = common::csv_mismatches(&dir(), &m);
        assert!(bad.is_empty(), "{model}:\n{}", bad.join("\n"));
    }
}

/// The `missing:` line of the race diagnosis of `file`'s condition.
fn missing(file: &str) -> String {
    common::missing_line(&format!("tests/fixtures/litmus-opencl-host/{file}"))
}

#[test]
fn classic_bugs_name_the_missing_call() {
    for (file, names) in [
        (
            "bug-read-before-finish.litmus",
            &["clFinish", "clWaitForEvents"][..],
        ),
        (
            "bug-host-write-after-enqueue.litmus",
            &["enqueued after the host access"][..],
        ),
        (
            "bug-buffer-read-without-map.litmus",
            &["a map completed"][..],
        ),
        (
            "bug-coarse-svm-without-map.litmus",
            &["a map completed"][..],
        ),
        ("bug-write-without-unmap.litmus", &["an unmap between"][..]),
        (
            "bug-fine-svm-without-atomics-mp.litmus",
            &["fine-grained SVM with atomics", "inclusive scopes"][..],
        ),
    ] {
        let m = missing(file);
        for n in names {
            assert!(m.contains(n), "{file}: `{n}` not in `{m}`");
        }
    }
    // A correct test is race-free: no race diagnosed, and explain says so.
    let (_, out, _) = common::vkmm(&[
        "explain",
        "tests/fixtures/litmus-opencl-host/fine-svm-finish-read.litmus",
    ]);
    assert!(!out.contains("race on"), "{out}");
    assert!(out.contains("Data races: none"), "{out}");
}

#[test]
fn explanation_names_the_rules_commands_and_lines() {
    let (code, out, _) = common::vkmm(&[
        "explain",
        "tests/fixtures/litmus-opencl-host/marker-event.litmus",
        "--outcome",
        "P0:r0 == 1",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("ALLOWED"), "{out}");
    // The commands are threads numbered after the test's, their events
    // named by the call and the line enqueuing them; each rule's edge by
    // its sentence.
    for want in [
        "P3 line 9: start of clEnqueueMarkerWithWaitList(q, {k}, &m);",
        "P2 line 8: completion of clEnqueueNDRangeKernel(q, {P1}, NULL, &k);",
        "-> e7 P3 line 9: start of clEnqueueMarkerWithWaitList(q, {k}, &m);  [global-synchronizes-with: the command waits on this completion (3.6.4 rule 2",
        "-> e2 P0 line 10: clWaitForEvents({m});  [global-synchronizes-with: the host call waits on this completion (3.6.4 rule 4",
    ] {
        assert!(out.contains(want), "`{want}` not in\n{out}");
    }
}

#[test]
fn rule_edges_are_worded_with_their_sentence() {
    let (code, out, _) = common::vkmm(&[
        "explain",
        "tests/fixtures/litmus-opencl-host/bug-read-before-finish.litmus",
    ]);
    assert_eq!(code, 0);
    for want in [
        "3.6.4 rule 1",
        "3.6.4 rule 3",
        "3.6.4 rule 4",
        "3.6.4 rule 5",
        "3.6.4 rule 6",
    ] {
        assert!(out.contains(want), "`{want}` not in\n{out}");
    }
}

#[test]
fn each_api_is_refused_by_the_other_apis_models() {
    // An OpenCL host test under a Vulkan model: refused, exit 2.
    let (code, _, err) = common::vkmm(&[
        "check",
        "tests/fixtures/litmus-opencl-host/fine-svm-finish-read.litmus",
        "--model",
        "vulkan",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 11: `clEnqueueNDRangeKernel(q, {P1});` is an OpenCL host API operation (clEnqueueNDRangeKernel), and this model has no rules for the OpenCL host side"),
        "{err}"
    );
    // A Vulkan host test under every OpenCL model: refused, exit 2.
    for model in [
        "opencl",
        "opencl-totalsc",
        "opencl-groupsync",
        "opencl-nothinair",
    ] {
        let (code, _, err) = common::vkmm(&[
            "check",
            "tests/fixtures/litmus-host/fence-barrier-host-read.litmus",
            "--model",
            model,
        ]);
        assert_eq!(code, 2, "{model}: {err}");
        assert!(
            err.contains("is a Vulkan host API operation (vkQueueSubmit), and this model has no rules for the Vulkan host side"),
            "{model}: {err}"
        );
    }
    // Tests without host threads run under both, as before.
    let (code, _, err) = common::vkmm(&["check", "examples/opencl-mp.litmus", "--model", "vulkan"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_model_without_host_rules_refuses_host_tests() {
    // A user's model declaring no `host` API refuses both.
    let path = std::env::temp_dir().join(format!("vkmm-nohost-{}.cat", std::process::id()));
    std::fs::write(&path, "\"no host\"\nacyclic po as order\n").unwrap();
    let model = path.to_str().unwrap();
    for (test, api) in [
        (
            "tests/fixtures/litmus-opencl-host/in-order-queue.litmus",
            "OpenCL",
        ),
        (
            "tests/fixtures/litmus-host/fence-barrier-host-read.litmus",
            "Vulkan",
        ),
    ] {
        let (code, _, err) = common::vkmm(&["check", test, "--model", model]);
        assert_eq!(code, 2, "{test}: {err}");
        assert!(
            err.contains(&format!("no rules for the {api} host side")),
            "{err}"
        );
    }
    let _ = std::fs::remove_file(&path);
}

/// Writes `text` to a temporary litmus file and returns vkmm's exit code and stderr.
fn bad(name: &str, text: &str) -> (i32, String) {
    let path =
        std::env::temp_dir().join(format!("vkmm-oclhost-{name}-{}.litmus", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = common::vkmm(&["check", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    (code, err)
}

/// A header, then a host thread P0 with `host` as its body and a kernel P1
/// enqueued by it (unless `host` enqueues otherwise).
fn test_text(init: &str, host: &str, kernel: &str) -> String {
    format!(
        "OPENCL t\n{{ x = 0; {init} }}\nP0@host (global int* x) {{\n{host}\n}}\nP1@wg 0, dev 0 (global int* x) {{\n{kernel}\n}}\nexists (x = 0)\n"
    )
}

/// A host test whose host thread has the buffer `x` and the host memory
/// `h`, enqueues the kernel P1 (which has both parameters), then `host`.
fn transfer_text(init: &str, host: &str, kernel: &str) -> String {
    format!(
        "OPENCL t\n{{ x = 0; h = 0; {init} }}\nP0@host (global int* x, global int* h) {{\n  clEnqueueNDRangeKernel(q, {{P1}});\n  {host}\n}}\nP1@wg 0, dev 0 (global int* x, global int* h) {{\n  {kernel}\n}}\nexists (x = 0)\n"
    )
}

const ENQ: &str = "  clEnqueueNDRangeKernel(q, {P1});";

#[test]
fn bad_input_is_a_located_error() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "hang-wait",
            test_text("", &format!("{ENQ}\n  clWaitForEvents({{e9}});"), ""),
            ":5:20: hang: this wait never returns: no command returns event `e9` (`&e9` as the last argument of an enqueue), so P0 (the host thread) waits forever",
        ),
        (
            "hang-wait-list",
            test_text("", "  clEnqueueNDRangeKernel(q, {P1}, {e9});", ""),
            ":4:36: hang: this command never starts: no command returns event `e9` (`&e9` as the last argument of an enqueue), so it never completes, nor does anything waiting on it",
        ),
        (
            "event-before-return",
            test_text(
                "",
                "  clWaitForEvents({k});\n  clEnqueueNDRangeKernel(q, {P1}, NULL, &k);",
                "",
            ),
            ":4:20: event `k` is used before the call that returns it (line 5)",
        ),
        (
            "event-twice",
            test_text(
                "",
                "  clEnqueueNDRangeKernel(q, {P1}, NULL, &k);\n  clEnqueueMarkerWithWaitList(q, NULL, &k);",
                "",
            ),
            ":5:41: event `k` is returned twice (first at line 4)",
        ),
        (
            "map-register",
            test_text("", &format!("{ENQ}\n  int r0 = 0;\n  clEnqueueMapBuffer(q, r0, CL_TRUE);"), ""),
            ":6:25: `clEnqueueMapBuffer` maps a buffer or SVM allocation: `r0` is a register, not a memory object",
        ),
        (
            "map-unknown",
            test_text("", &format!("{ENQ}\n  clEnqueueMapBuffer(q, y, CL_TRUE);"), ""),
            ":5:25: `clEnqueueMapBuffer` maps a buffer or SVM allocation: `y` is not a parameter of P0",
        ),
        (
            "map-svm-as-buffer",
            test_text("svm x fine;", &format!("{ENQ}\n  clEnqueueMapBuffer(q, x, CL_TRUE);"), ""),
            ":5:25: `clEnqueueMapBuffer` of `x`, which is fine SVM, not a buffer: use clEnqueueSVMMap",
        ),
        (
            "svm-map-of-buffer",
            test_text("", &format!("{ENQ}\n  clEnqueueSVMMap(q, CL_TRUE, x);"), ""),
            ":5:31: `clEnqueueSVMMap` of `x`, which is a buffer, not SVM: use clEnqueueMapBuffer",
        ),
        (
            "blocking-flag",
            test_text("", &format!("{ENQ}\n  clEnqueueMapBuffer(q, x, 1);"), ""),
            ":5:28: expected `CL_TRUE` or `CL_FALSE` (blocking or not), found `1`",
        ),
        (
            "api-in-kernel",
            test_text("", ENQ, "  clFinish(q);"),
            ":7:3: `clFinish` is a host API call: write it in a host thread (`P1@host`), not in a work-item",
        ),
        (
            "api-in-branch",
            test_text("", &format!("{ENQ}\n  int r0 = *x;\n  if (r0 == 1) {{ clFinish(q); }}"), ""),
            ":6:18: `clFinish` inside `if` or `while`: host API calls are at the top level of a host thread",
        ),
        (
            "unknown-call",
            test_text("", &format!("{ENQ}\n  clEnqueueCopyBuffer(q, x);"), ""),
            ":5:3: unknown host API call `clEnqueueCopyBuffer` (supported: clEnqueueNDRangeKernel,",
        ),
        (
            "read-buffer-short",
            test_text("", &format!("{ENQ}\n  clEnqueueReadBuffer(q, x);"), ""),
            ":5:27: expected `,` after the buffer, found `)`",
        ),
        (
            "read-buffer-into-register",
            transfer_text("", "int r = 0;\n  clEnqueueReadBuffer(q, x, CL_TRUE, r);", ""),
            ":6:38: `clEnqueueReadBuffer`'s host pointer: `r` is a register",
        ),
        (
            "read-buffer-of-svm",
            transfer_text("svm x fine;", "clEnqueueReadBuffer(q, x, CL_TRUE, h);", ""),
            ":5:26: `clEnqueueReadBuffer` of `x`, which is fine SVM, not a buffer",
        ),
        (
            "write-buffer-from-svm",
            transfer_text("svm h system;", "clEnqueueWriteBuffer(q, x, CL_TRUE, h);", ""),
            ":5:39: `clEnqueueWriteBuffer`'s host pointer `h` is system SVM",
        ),
        (
            "write-buffer-blocking-word",
            transfer_text("", "clEnqueueWriteBuffer(q, x, true, h);", ""),
            ":5:30: expected `CL_TRUE` or `CL_FALSE` (blocking or not), found `true`",
        ),
        (
            "kernel-reads-host-memory",
            transfer_text("", "clEnqueueWriteBuffer(q, x, CL_TRUE, h);", "int r0 = *h;"),
            ":8:3: work-item P1 accesses `h`, the host memory of a clEnqueueReadBuffer/clEnqueueWriteBuffer",
        ),
        (
            "map-of-host-memory",
            transfer_text(
                "",
                "clEnqueueWriteBuffer(q, x, CL_TRUE, h);\n  clEnqueueMapBuffer(q, h, CL_TRUE);",
                "",
            ),
            ":6:3: `clEnqueueMapBuffer` of host memory",
        ),
        (
            "host-barrier",
            test_text("", &format!("{ENQ}\n  barrier(CLK_GLOBAL_MEM_FENCE);"), ""),
            ":5:3: `barrier` is not available to a host thread",
        ),
        (
            "host-scope",
            test_text(
                "svm x fine atomics;",
                &format!("{ENQ}\n  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_device);"),
                "",
            ),
            ":5:53: `memory_scope_device` on the host: host atomics are C11 atomics at `memory_scope_all_svm_devices`",
        ),
        (
            "host-local",
            "OPENCL t\n{ x = 0; }\nP0@host (local int* x) {\n}\nexists (x = 0)\n".to_string(),
            ":3:10: a host thread's parameters are `global`",
        ),
        (
            "not-enqueued",
            test_text("", "  clFinish(q);", ""),
            ":6:1: work-item P1 is enqueued by no `clEnqueueNDRangeKernel`",
        ),
        (
            "enqueued-twice",
            test_text("", &format!("{ENQ}\n{ENQ}"), ""),
            ":5:30: work-item P1 is enqueued twice (first at line 4)",
        ),
        (
            "enqueue-host",
            test_text("", &format!("{ENQ}\n  clEnqueueNDRangeKernel(q, {{P0}});"), ""),
            ":5:30: P0 is a host thread, not a work-item",
        ),
        (
            "svm-without-host",
            "OPENCL t\n{ x = 0; svm x fine; }\nP0 (global int* x) {\n  *x = 1;\n}\nexists (x = 0)\n".to_string(),
            ":2:14: `svm x` declares shared virtual memory, which only a test with a host thread",
        ),
        (
            "svm-coarse-atomics",
            test_text("svm x coarse atomics;", ENQ, ""),
            ":2:16: coarse-grained SVM has no atomics support",
        ),
        (
            "svm-kind",
            test_text("svm x medium;", ENQ, ""),
            ":2:16: expected an SVM kind after `svm x`",
        ),
        (
            "wait-cycle",
            "OPENCL t\n{ x = 0; }\nP0@host (global int* x) {\n  clEnqueueNDRangeKernel(q0, {P2}, NULL, &k0);\n  clWaitForEvents({k1});\n  clEnqueueMarkerWithWaitList(q0, NULL, &a);\n}\nP1@host (global int* x) {\n  clWaitForEvents({a});\n  clEnqueueNDRangeKernel(q1, {P3}, NULL, &k1);\n}\nP2 (global int* x) {\n}\nP3 (global int* x) {\n}\nexists (x = 0)\n".to_string(),
            ":5:3: hang: this wait never returns: the host calls and commands at P0 line 5, P0 line 6, P1 line 9, P1 line 10 wait on each other in a cycle, so P0 (the host thread) waits forever",
        ),
        (
            "api-in-expression",
            test_text("", &format!("{ENQ}\n  int r0 = clFinish(q);"), ""),
            ":5:12: `clFinish` is a host API call: write it as a statement of its own",
        ),
        (
            "queue-two-threads",
            "OPENCL t\n{ x = 0; }\nP0@host (global int* x) {\n  clEnqueueNDRangeKernel(q, {P2});\n}\nP1@host (global int* x) {\n  clFinish(q);\n}\nP2 (global int* x) {\n}\nexists (x = 0)\n".to_string(),
            ":7:12: queue `q` is used by P0 and P1",
        ),
    ];
    for (name, text, want) in &cases {
        let (code, err) = bad(name, text);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}

// ----------------------------------------------------------------- mutations

const HOST: &str = include_str!("../../models/opencl-host.cat");
const RULES: &str = include_str!("../../models/opencl-rules.cat");

/// (what the mutation breaks, text to replace, replacement): each in
/// opencl-host.cat or opencl-rules.cat.
const MUTATIONS: &[(&str, &str, &str)] = &[
    ("3.6.4 rule 1", "let cl_rule1 = clenq", "let cl_rule1 = 0"),
    ("3.6.4 rule 2", "let cl_rule2 = clwait", "let cl_rule2 = 0"),
    ("3.6.4 rule 3", "let cl_rule3 = clcompl", "let cl_rule3 = 0"),
    (
        "3.6.4 rule 4",
        "let cl_rule4 = clhostwait",
        "let cl_rule4 = 0",
    ),
    (
        "3.6.4 rule 5",
        "let cl_rule5 = clkstart",
        "let cl_rule5 = 0",
    ),
    ("3.6.4 rule 6", "let cl_rule6 = clkend", "let cl_rule6 = 0"),
    (
        "a command's own memory operations are between its start and completion",
        "let cl_issued = ([API \\ HOST] ; po ; [M]) | ([M] ; po ; [API \\ HOST])",
        "let cl_issued = 0",
    ),
    (
        "a copy's operations are after its start",
        "let cl_issued = ([API \\ HOST] ; po ; [M]) | ",
        "let cl_issued = ",
    ),
    (
        "a copy's operations are before its completion",
        " | ([M] ; po ; [API \\ HOST])\nlet cl_gsw",
        "\nlet cl_gsw",
    ),
    (
        "the rules are global-synchronizes-with",
        "let gsw = gsw | cl_gsw",
        "let gsw = gsw",
    ),
    (
        "host calls are global memory actions",
        "let CL_ACTION = API & HOST",
        "let CL_ACTION = {}",
    ),
    (
        "CrossDevice acts as Device off fine-grained SVM with atomics",
        "let SCOPECD = SCOPECD \\ CDNARROW",
        "let SCOPECD = SCOPECD",
    ),
    (
        "coarse memory is ordered only through map and unmap",
        "let ghb = cl_memory_order(ghb)",
        "let ghb = ghb",
    ),
    (
        "a map orders only the accesses of what it maps",
        "; h ; (h & clmapinc)",
        "; h ; h",
    ),
    (
        "an unmap orders only the accesses of what it unmaps",
        "let cl_through_unmap(h) = (h & clunmapinc) ; h",
        "let cl_through_unmap(h) = h ; h",
    ),
];

fn mutant(rules: &str, host: &str) -> LoadedModel {
    common::mutant(
        "opencl.cat",
        &[("opencl-rules.cat", rules), ("opencl-host.cat", host)],
    )
}

#[test]
fn every_host_mutation_is_caught() {
    assert!(common::csv_mismatches(&dir(), &mutant(RULES, HOST)).is_empty());
    let mut survivors = Vec::new();
    for (what, from, to) in MUTATIONS {
        let m = if HOST.contains(from) {
            mutant(RULES, &HOST.replacen(from, to, 1))
        } else {
            assert!(RULES.contains(from), "mutation `{what}` no longer applies");
            mutant(&RULES.replacen(from, to, 1), HOST)
        };
        if common::csv_mismatches(&dir(), &m).is_empty() {
            survivors.push(*what);
        }
    }
    assert!(
        survivors.is_empty(),
        "mutations no test catches: {survivors:?}"
    );
}

/// `vkmm show` of an OpenCL host test says it in the OpenCL API's words:
/// the command-queue by name, each command as what was enqueued (kernel,
/// map) with its events, the work-items by device and work-group; the
/// Vulkan wording (`queue N (submissions)`, shader invocations, queue
/// families) is the Vulkan tests' only (tests/models/host.rs).
#[test]
fn pictures_draw_command_queues_in_opencl_words() {
    let show = |file: &str| common::show_dot(&format!("tests/fixtures/litmus-opencl-host/{file}"));
    let text = show("map-event-read.litmus");
    for want in [
        "label=\"host threads\"",
        "label=\"command-queue q (enqueued commands)\"",
        "(enqueued kernel (P1))\"",
        "(enqueued map; event m)\"",
        "label=\"devices (work-items)\"",
        "label=\"device 0\"",
        "label=\"work-group ",
        "start of clEnqueueMapBuffer(q, x, CL_FALSE, NULL, &m);",
    ] {
        assert!(text.contains(want), "`{want}` not in\n{text}");
    }
    for vulkan in [
        "submissions",
        "shader invocations",
        "queue family",
        "subgroup",
    ] {
        assert!(!text.contains(vulkan), "`{vulkan}` in\n{text}");
    }
    // A wait list is named by its events; each queue gets its cluster.
    let text = show("event-wait-list.litmus");
    assert!(
        text.contains("(enqueued kernel (P2); waits on events k1)\""),
        "{text}"
    );
    let text = show("bug-two-queues-no-event.litmus");
    assert_eq!(text.matches("label=\"command-queue ").count(), 2, "{text}");
}

/// User events (docs/host.md, "User events"): the verdicts of
/// `user-event-kernel` and its twin `bug-user-event-not-waited` are in the
/// CSVs; a user event nobody sets, or set only after the host waits on the
/// kernel waiting on it, is a hang; misuse is a located error.
#[test]
fn user_events_unset_hang_and_misuse_is_located() {
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "user-event-never-set",
            test_text(
                "",
                "  clCreateUserEvent(&u);\n  clEnqueueNDRangeKernel(q, {P1}, {u});",
                "",
            ),
            ":5:36: hang: this command never starts: user event `u` is never set to CL_COMPLETE (`clSetUserEventStatus(u, CL_COMPLETE);`)",
        ),
        (
            "user-event-set-after-finish",
            test_text(
                "",
                "  clCreateUserEvent(&u);\n  clEnqueueNDRangeKernel(q, {P1}, {u});\n  clFinish(q);\n  clSetUserEventStatus(u, CL_COMPLETE);",
                "",
            ),
            "hang: this wait never returns: the host calls and commands at",
        ),
        (
            "user-event-set-not-created",
            test_text(
                "",
                &format!("{ENQ}\n  clSetUserEventStatus(u, CL_COMPLETE);"),
                "",
            ),
            ":5:24: `u` is not a user event created before this call: create it with `clCreateUserEvent(&u);`",
        ),
        (
            "user-event-set-twice",
            test_text(
                "",
                &format!(
                    "{ENQ}\n  clCreateUserEvent(&u);\n  clSetUserEventStatus(u, CL_COMPLETE);\n  clSetUserEventStatus(u, CL_COMPLETE);"
                ),
                "",
            ),
            ":7:24: user event `u` is set twice",
        ),
        (
            "user-event-status",
            test_text(
                "",
                &format!("{ENQ}\n  clCreateUserEvent(&u);\n  clSetUserEventStatus(u, -1);"),
                "",
            ),
            ":6:27: expected `CL_COMPLETE`",
        ),
    ];
    for (name, text, want) in &cases {
        let (code, err) = bad(name, text);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}
