//! The host side (docs/host.md): host threads, queue submissions, mapped
//! memory and the API operations. The litmus tests in tests/fixtures/litmus-host
//! each quote the appendix sentence they exercise and carry a hand-derived
//! verdict (expected-condition.csv, expected-races.csv); the classic bugs'
//! race diagnoses name the missing call; bad input is a located error
//! (exit 2); each host rule of models/vulkan-host.cat (and the host lines
//! of vulkan-rules.cat) is mutated and must be caught.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::Limits;
use vkmm::analysis::{Property, check_litmus, expected};
use vkmm::ir::{OpKind, Program, Scope, Stmt};
use vkmm::model::LoadedModel;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-host")
}

fn load(file: &str) -> Program {
    vkmm::frontend::load(&dir().join(file)).unwrap_or_else(|e| panic!("{e}"))
}

/// Whether `property` holds for `program` under `model`.
fn holds(file: &str, program: &Program, model: &LoadedModel, property: Property) -> bool {
    let o = check_litmus(file, program, model, Limits::default(), None)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    o.holds(property)
        .unwrap_or_else(|| panic!("{file}: undecided"))
}

/// The rows of both CSVs: (file, property, hand-derived verdict).
fn rows() -> Vec<(String, Property, bool)> {
    let mut out = Vec::new();
    for (csv, property) in [
        ("expected-condition.csv", Property::Condition),
        ("expected-races.csv", Property::Races),
    ] {
        let text = std::fs::read_to_string(dir().join(csv)).unwrap();
        for row in expected::parse(csv, &text, &dir()).unwrap() {
            let file = row.path.file_name().unwrap().to_str().unwrap().to_string();
            out.push((file, property, row.holds));
        }
    }
    out
}

/// The host-device atomic counter with a CrossDevice device atomic (the
/// dialect has no CrossDevice token yet): both RMWs are then
/// potentially-mutually-ordered, and only the AsciiDoc reading's bullet
/// makes them mutually ordered.
fn crossdevice_counter() -> Program {
    let mut p = load("host-device-atomic-counter.litmus");
    for s in &mut p.threads[2].code {
        if let Stmt::Op(i) = s
            && i.kind == OpKind::Rmw
        {
            i.scope = Some(Scope::CrossDevice);
        }
    }
    p
}

/// The rows that fail under `model`; with `variant`, also the CrossDevice
/// counter's expected race verdict (race-free only under the variant).
fn failures(model: &LoadedModel, variant: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (file, property, want) in rows() {
        if holds(&file, &load(&file), model, property) != want {
            out.push(format!("{file} ({property:?}): expected {want}"));
        }
    }
    let race_free = holds(
        "crossdevice",
        &crossdevice_counter(),
        model,
        Property::Races,
    );
    if race_free != variant {
        out.push(format!("crossdevice counter: race-free {race_free}"));
    }
    out
}

#[test]
fn host_tests_give_their_hand_derived_verdicts() {
    let rows = rows();
    assert!(rows.len() >= 40, "expected the host rule tests");
    for model in ["vulkan", "vulkan-nochains"] {
        let m = vkmm::model::load(model).unwrap();
        let f = failures(&m, false);
        assert!(f.is_empty(), "{model}:\n{}", f.join("\n"));
    }
}

#[test]
fn host_device_atomics_variant_differs_exactly_on_crossdevice_atomics() {
    // "A is a device operation, B is a host operation, and the
    // implementation supports concurrent host- and device-atomics" (the
    // AsciiDoc rendering only): mutually ordered, so no race.
    let m = vkmm::model::load("vulkan-host-device-atomics").unwrap();
    let f = failures(&m, true);
    assert!(f.is_empty(), "{}", f.join("\n"));
    // Device scope: not potentially-mutually-ordered under either reading.
    let p = load("host-device-atomic-counter.litmus");
    assert!(!holds("counter", &p, &m, Property::Races));
}

/// The `missing:` line of the race diagnosis of `file`'s condition.
fn missing(file: &str) -> String {
    common::missing_line(&format!("tests/fixtures/litmus-host/{file}"))
}

#[test]
fn classic_bugs_name_the_missing_call() {
    for (file, names) in [
        ("bug-no-fence-wait.litmus", &["happens-before", "fence"][..]),
        (
            "bug-no-host-read-access.litmus",
            &["device -> host", "HOST_READ"][..],
        ),
        (
            "bug-noncoherent-no-invalidate.litmus",
            &["vkInvalidateMappedMemoryRanges"][..],
        ),
        (
            "bug-noncoherent-no-flush.litmus",
            &["vkFlushMappedMemoryRanges"][..],
        ),
        (
            "bug-host-write-after-submit.litmus",
            &["host -> device", "vkQueueSubmit after the host write"][..],
        ),
        (
            "bug-event-no-host-write-access.litmus",
            &["host -> device", "HOST_WRITE"][..],
        ),
        ("bug-two-queues-no-semaphore.litmus", &["semaphore"][..]),
        ("bug-timeline-lower-value.litmus", &["semaphore"][..]),
        (
            "bug-copy-after-dispatch-no-barrier.litmus",
            &["happens-before", "pipeline barrier"][..],
        ),
        (
            "bug-fill-barrier-no-transfer-write.litmus",
            &["made available", "TRANSFER_WRITE"][..],
        ),
        ("bug-copy-host-read-no-host-read.litmus", &["HOST_READ"][..]),
        // The barrier has HOST_READ (the domain operation is there) but
        // not TRANSFER_WRITE: the copy's write is made available only by
        // the fence signal, after the domain operation, so the link that
        // fails is X -> AV -> DOM ("An availability operation with source
        // scope of all writes in the first access scope of the dependency").
        (
            "bug-copy-host-read-no-transfer-write.litmus",
            &[
                "made available before the memory domain operation",
                "TRANSFER_WRITE",
                "comes too late",
            ][..],
        ),
        // The write is made available; the only visibility operation
        // covering the read is vkQueueSubmit's, before the write ("A
        // visibility operation with source scope of the device domain and
        // destination scope of the second access scope of the dependency").
        (
            "bug-barrier-no-shader-read.litmus",
            &["made visible", "after the write", "SHADER_READ"][..],
        ),
        (
            "bug-copy-barrier-no-transfer-read.litmus",
            &["made visible", "after the write", "TRANSFER_READ"][..],
        ),
        // An execution-only barrier misses both operations.
        (
            "bug-barrier-execution-only.litmus",
            &["made available", "made visible"][..],
        ),
        (
            "bug-copy-host-read-no-fence-wait.litmus",
            &["fence wait"][..],
        ),
    ] {
        let m = missing(file);
        for n in names {
            assert!(m.contains(n), "{file}: `{n}` not in `{m}`");
        }
    }
    // Only the missing link is named: without a flush, vkQueueSubmit's
    // domain operation is there (after the host write), the flush is not.
    let m = missing("bug-noncoherent-no-flush.litmus");
    assert!(!m.contains("host -> device"), "{m}");
    // Likewise only the availability operation before the domain
    // operation, not the domain operation itself.
    let m = missing("bug-copy-host-read-no-transfer-write.litmus");
    assert!(!m.contains("device -> host between them"), "{m}");
    // A correct test is race-free: no race diagnosed, and explain says so.
    let (_, out, _) = common::vkmm(&[
        "explain",
        "tests/fixtures/litmus-host/fence-barrier-host-read.litmus",
    ]);
    assert!(!out.contains("race on"), "{out}");
    assert!(out.contains("Data races: none"), "{out}");
}

#[test]
fn explanation_names_the_api_operations_and_their_lines() {
    let (code, out, _) = common::vkmm(&[
        "explain",
        "tests/fixtures/litmus-host/fence-barrier-host-read.litmus",
        "--outcome",
        "P0:r0 == 0",
    ]);
    assert_eq!(code, 0);
    // Forbidden through location order via the host domain.
    assert!(out.contains("FORBIDDEN"), "{out}");
    assert!(
        out.contains("device domain -> host domain"),
        "the edge names the bullet: {out}"
    );
    assert!(
        out.contains("line 18: barrier COMPUTE:SHADER_WRITE -> HOST:HOST_READ"),
        "the barrier and its line: {out}"
    );
}

/// Writes `text` to a temporary litmus file and returns vkmm's exit code and stderr.
fn bad(name: &str, text: &str) -> (i32, String) {
    let path = std::env::temp_dir().join(format!("vkmm-host-{name}-{}.litmus", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = common::vkmm(&["check", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    (code, err)
}

const HEAD: &str = "VULKAN t\n{\nx=0;\nmapped x coherent;\nmapped y noncoherent;\nz=0;\n}\n";

#[test]
fn bad_input_is_a_located_error() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "hang-fence",
            " P0@host      | P1@queue 0  | P2@sg 0, wg 0, qf 0 ;\n submit P1    | dispatch P2 | st.sc0 x, 1 ;\n wait fence f |             | ;\n",
            ":10:2: hang: this wait never returns: nothing signals fence `f`, so P0 (the host thread) waits forever",
        ),
        (
            "hang-timeline",
            " P0@host   | P1@queue 0           | P2@queue 0           ;\n submit P1 | signal timeline t, 1 | wait timeline t, 2 ;\n submit P2 | | ;\n",
            ":9:37: hang: this wait never returns: no signal of timeline `t` reaches value 2 (the highest signalled value is 1), so P2 (the queue) waits forever",
        ),
        (
            "stage-access",
            " P0@host   | P1@queue 0 ;\n submit P1 | barrier COMPUTE:HOST_READ -> HOST:HOST_READ ;\n",
            ":9:30: access type HOST_READ cannot be performed by the source stages of this barrier (COMPUTE): it needs HOST",
        ),
        (
            "stage-access-dst",
            " P0@host   | P1@queue 0 ;\n submit P1 | barrier COMPUTE:SHADER_WRITE -> HOST:SHADER_READ ;\n",
            ":9:51: access type SHADER_READ cannot be performed by the destination stages of this barrier (HOST): it needs COMPUTE or ALL_COMMANDS",
        ),
        (
            "top-of-pipe",
            " P0@host   | P1@queue 0 ;\n submit P1 | barrier TOP_OF_PIPE:MEMORY_WRITE -> HOST:HOST_READ ;\n",
            ":9:34: access type MEMORY_WRITE cannot be performed by the source stages",
        ),
        (
            "invalidate-unmapped",
            " P0@host      ;\n invalidate z ;\n",
            ":9:13: `invalidate z`: location `z` is not mapped memory",
        ),
        (
            "host-unmapped",
            " P0@host  ;\n ld r0, z ;\n",
            ":9:9: host thread P0 accesses `z`, which is not mapped memory",
        ),
        (
            "never-submitted",
            " P0@host  | P1@queue 0  | P2@sg 0, wg 0, qf 0 ;\n ld r0, x | dispatch P2 | st.sc0 x, 1 ;\n",
            ":9:13: submission P1 is never submitted: add `submit P1` to a host thread",
        ),
        (
            "api-in-invocation",
            " P0@sg 0, wg 0, qf 0 ;\n submit P0 ;\n",
            ":9:2: `submit` is an API operation",
        ),
        (
            "host-fence-signal",
            " P0@host        ;\n signal fence f ;\n",
            ":9:2: a fence is signalled by a queue submission",
        ),
        (
            "shader-op-on-host",
            " P0@host ;\n membar.acq.dv.semsc0 ;\n",
            ":9:2: `membar` is a shader instruction",
        ),
        (
            "dispatch-twice",
            " P0@host   | P1@queue 0  | P2@sg 0, wg 0, qf 0 ;\n submit P1 | dispatch P2 | st.sc0 x, 1 ;\n           | dispatch P2 | ;\n",
            ":10:23: invocation P2 is dispatched twice (first at line 9)",
        ),
        (
            "binary-waited-twice",
            " P0@host   | P1@queue 0   | P2@queue 0 ;\n submit P1 | signal sem s | wait sem s ;\n submit P2 | wait sem s   | ;\n",
            "binary semaphore `s` is waited on twice",
        ),
    ];
    for (name, rows, want) in cases {
        let (code, err) = bad(name, &format!("{HEAD}{rows}"));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}

// ----------------------------------------------------------------- mutations

const RULES: &str = include_str!("../../models/vulkan-rules.cat");
const HOST: &str = include_str!("../../models/vulkan-host.cat");

/// (what the mutation breaks, text to replace, replacement): each in
/// vulkan-host.cat or vulkan-rules.cat.
const MUTATIONS: &[(&str, &str, &str)] = &[
    (
        "device -> host needs a domain operation",
        "(av_device ; hbr ; [DOMDH] ; hb ; vis_host)",
        "(av_device ; hbr ; vis_host)",
    ),
    (
        "a host read needs a host-domain visibility operation",
        "(av_device ; hbr ; [DOMDH] ; hb ; vis_host)",
        "(av_device ; hbr ; [DOMDH] ; hb ; [HOSTR])",
    ),
    (
        "a host write needs a host-domain availability operation",
        "let av_host = [HOSTW] ; (hbr & apiinc) ; [AVHOST]",
        "let av_host = [HOSTW]",
    ),
    (
        "host -> device needs a domain operation",
        "(av_host ; hb ; [DOMHD] ; hbr ; vis_device)",
        "(av_host ; hb ; vis_device)",
    ),
    (
        "API availability includes its first access scope only",
        "(hb & apiinc) ; [APIAV]",
        "hb ; [APIAV]",
    ),
    (
        "API visibility includes its second access scope only",
        "[APIVIS] ; (hb & apiinc)",
        "[APIVIS] ; hb",
    ),
    (
        "one API operation performs its operations in the order listed",
        "let av_to_vis = hbr",
        "let av_to_vis = hb",
    ),
    ("host inter-thread-happens-before", "  | host_ithb", ""),
    (
        "host and device atomics are not mutually ordered",
        "let agents_mo = (HOST * HOST) | (DEVEV * DEVEV) | host_device_atomics",
        "let agents_mo = _ * _",
    ),
];

fn mutant(rules: &str, host: &str) -> LoadedModel {
    common::mutant(
        "vulkan.cat",
        &[("vulkan-rules.cat", rules), ("vulkan-host.cat", host)],
    )
}

#[test]
fn every_host_mutation_is_caught() {
    assert!(failures(&mutant(RULES, HOST), false).is_empty());
    let mut survivors = Vec::new();
    for (what, from, to) in MUTATIONS {
        let m = if HOST.contains(from) {
            mutant(RULES, &HOST.replacen(from, to, 1))
        } else {
            assert!(RULES.contains(from), "mutation `{what}` no longer applies");
            mutant(&RULES.replacen(from, to, 1), HOST)
        };
        if failures(&m, false).is_empty() {
            survivors.push(*what);
        }
    }
    assert!(
        survivors.is_empty(),
        "mutations no test catches: {survivors:?}"
    );
}

/// The DOT text `vkmm show` draws for `file` of tests/fixtures/litmus-host.
fn picture(file: &str) -> String {
    common::show_dot(&format!("tests/fixtures/litmus-host/{file}"))
}

#[test]
fn pictures_draw_host_threads_and_queues_as_clusters() {
    let text = picture("fence-barrier-host-read.litmus");
    for want in [
        "label=\"host threads\"",
        "label=\"queue 0 (submissions)\"",
        "label=\"device (shader invocations)\"",
        "submit P1 [vkQueueSubmit]",
        "wait fence f [vkWaitForFences]",
        "[vkCmdPipelineBarrier]",
        "dispatch P2 [vkCmdDispatch]",
    ] {
        assert!(text.contains(want), "`{want}` not in\n{text}");
    }
    // The host thread's cluster is not nested in a workgroup's.
    let host = text.find("host threads").unwrap();
    let wg = text.find("label=\"workgroup").unwrap();
    assert!(host < wg, "{text}");
    assert!(!text[..wg].contains("workgroup"), "{text}");
}

/// Several signals of one fence or binary semaphore (docs/host.md,
/// "Reuse"): the two tests give their verdicts through the CSVs (the second
/// wait answered by the second signal); each twin below differs from them
/// in the one call the reuse rule is about and is a located error.
#[test]
fn reused_fences_and_semaphores_need_their_unsignal_operations() {
    let fence = std::fs::read_to_string(dir().join("fence-reset-resubmit.litmus")).unwrap();
    let sem = std::fs::read_to_string(dir().join("sem-resignal-after-wait.litmus")).unwrap();
    let cases: &[(&str, String, &str)] = &[
        (
            // vkQueueSubmit: "If fence is not VK_NULL_HANDLE, fence must be unsignaled"
            "fence-no-reset",
            fence.replacen(" reset fence f |", "               |", 1),
            ":19:66: fence `f` is signalled again (first at P1 line 19) with no `reset fence f` before this batch's submit",
        ),
        (
            // vkResetFences: "must not be currently associated with any
            // queue command that has not yet completed execution"
            "fence-reset-before-wait",
            fence
                .replacen(" wait fence f | barrier", " reset fence f | barrier", 1)
                .replacen(" reset fence f | signal", " wait fence f  | signal", 1),
            ":18:2: `reset fence f` while its signal (P1 line 19) may not have completed: wait on the fence first",
        ),
        (
            "fence-wait-after-last-reset",
            fence
                .replacen(" ld r0, y     |", " reset fence f |", 1)
                .replacen("exists", " wait fence f |  |  |  |  ;\nexists", 1),
            ":23:2: hang: this wait never returns: no batch signalling fence `f` is submitted before it after its last reset",
        ),
        (
            // "must be unsignaled when the semaphore signal operation it
            // defines is executed on the device": the host's fence wait
            // is what orders P2's wait before P3's signal.
            "sem-resignal-unordered",
            sem.replacen(" wait fence f |", "              |", 1),
            ":18:49: binary semaphore `s` is signalled again, but the wait that unsignals its earlier signal (P2 line 17) is not before this signal",
        ),
        (
            "sem-signal-while-pending",
            sem.replacen(
                " wait fence f |              |",
                " wait fence f | signal sem s |",
                1,
            ),
            ":19:17: binary semaphore `s` is signalled again while its signal (P1 line 18) is pending",
        ),
        (
            // "Such semaphore wait operations set the semaphores ... to the
            // unsignaled state": a third wait has no signal left.
            "sem-wait-without-pending-signal",
            sem.replacen(
                " wait fence f |              | signal fence f |              |            ",
                " wait fence f |              | signal fence f |              | wait sem s ",
                1,
            ),
            ":19:64: hang: this wait never returns: no signal of binary semaphore `s` is pending when this batch is submitted",
        ),
    ];
    for (name, text, want) in cases {
        assert_ne!(text, &fence, "{name}: the twin differs");
        assert_ne!(text, &sem, "{name}: the twin differs");
        let (code, err) = bad(name, text);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
    // The reset is a host command: not in a submission, not of a semaphore.
    for (name, rows, want) in [
        (
            "reset-in-submission",
            " P0@host   | P1@queue 0    ;\n submit P1 | reset fence f ;\n",
            ":9:20: a fence is reset by the host (vkResetFences), not by a queue submission",
        ),
        (
            "reset-semaphore",
            " P0@host     ;\n reset sem s ;\n",
            ":9:8: expected `fence` or `event` after `reset`",
        ),
    ] {
        let (code, err) = bad(name, &format!("{HEAD}{rows}"));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}

/// A reset event (vkResetEvent on the host, vkCmdResetEvent in a
/// submission): the two tests give their verdicts through the CSVs; each
/// twin below moves or removes the one call the rule is about and is a
/// located error. vkResetEvent: "When vkResetEvent is executed on the host,
/// it defines an event unsignal operation which resets the event to the
/// unsignaled state."
#[test]
fn reset_events_number_their_sets_and_misuse_is_located() {
    let host = std::fs::read_to_string(dir().join("event-reset-host-reuse.litmus")).unwrap();
    let cmd = std::fs::read_to_string(dir().join("event-cmd-reset.litmus")).unwrap();
    let cases: &[(&str, String, &str)] = &[
        (
            // Without the reset the second set finds the event set.
            "event-no-reset",
            host.replacen(" reset event e |", "               |", 1),
            ":19:89: event `e` is set twice (first at line 19) with no `reset event e` between",
        ),
        (
            // The reset before the host waits on the first set: the set
            // may come after the reset (and the first wait then hangs or
            // returns on either set).
            "event-reset-before-wait",
            host.replacen(" wait event e  | barrier", " reset event e | barrier", 1)
                .replacen(" reset event e | set", " wait event e  | set", 1),
            ":18:2: `reset event e` may execute before its set (P1 line 19)",
        ),
        (
            // vkResetEvent valid usage: "There must be an execution
            // dependency between vkResetEvent and the execution of any
            // vkCmdWaitEvents that includes event in its pEvents
            // parameter": here the host resets while a queue's wait on the
            // first set may not have returned.
            "event-reset-while-device-waits",
            host.replacen(
                " submit P3     |                                                |",
                &format!(" submit P3     | {:<47}|", "wait event e"),
                1,
            ),
            ":19:2: `reset event e` may execute before the wait at P1 line 20 returns (vkResetEvent: \"There must be an execution dependency between vkResetEvent and the execution of any vkCmdWaitEvents",
        ),
        (
            // A wait after the last reset with no set after it.
            "event-wait-after-last-reset",
            host.replacen(
                "| set event e                                    |                     ;",
                "|                                                |                     ;",
                1,
            ),
            ":21:2: hang: this wait never returns: nothing sets event `e` after its last reset",
        ),
        (
            // vkCmdResetEvent's unsignal may not have executed when the
            // host polls: without the fence wait the host may see the
            // first set.
            "event-poll-before-cmd-reset",
            cmd.replacen(" wait fence f |", "              |", 1),
            ":19:2: this may execute before `reset event e` at P1 line 19",
        ),
    ];
    for (name, text, want) in cases {
        assert_ne!(text, &host, "{name}: the twin differs");
        assert_ne!(text, &cmd, "{name}: the twin differs");
        let (code, err) = bad(name, text);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}

/// The condition and race-freedom verdicts of `text` (a twin of a test of
/// tests/fixtures/litmus-host) under `vulkan`.
fn verdicts(name: &str, text: &str) -> (bool, bool) {
    let path = std::env::temp_dir().join(format!("vkmm-host-{name}-{}.litmus", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let p = vkmm::frontend::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let _ = std::fs::remove_file(&path);
    let m = vkmm::model::load("vulkan").unwrap();
    (
        holds(name, &p, &m, Property::Condition),
        holds(name, &p, &m, Property::Races),
    )
}

/// Transfer commands (docs/host.md, "Transfer commands"): the CSVs hold
/// the tests and their mask twins; here the stage twins, each differing
/// from a test in the one mask or command named. (condition holds,
/// race-free) per twin.
#[test]
fn transfer_commands_are_ordered_by_their_stage_and_access_masks() {
    let copy = std::fs::read_to_string(dir().join("copy-after-dispatch-barrier.litmus")).unwrap();
    let fill = std::fs::read_to_string(dir().join("fill-barrier-dispatch.litmus")).unwrap();
    let copy_dst = "-> TRANSFER:TRANSFER_READ |";
    let fill_src = "| barrier TRANSFER:TRANSFER_WRITE ->";
    let cases: &[(&str, String, (bool, bool))] = &[
        // "VK_PIPELINE_STAGE_2_COPY_BIT specifies the execution of all
        // copy commands"; ALL_TRANSFER is TRANSFER.
        (
            "copy-stage",
            copy.replacen(copy_dst, "-> COPY:TRANSFER_READ |", 1),
            (false, true),
        ),
        (
            "all-transfer-stage",
            copy.replacen(copy_dst, "-> ALL_TRANSFER:TRANSFER_READ |", 1),
            (false, true),
        ),
        // MEMORY_READ "is treated as equivalent to setting all READ
        // access flags that are valid where it is used".
        (
            "all-commands-memory-read",
            copy.replacen(copy_dst, "-> ALL_COMMANDS:MEMORY_READ |", 1),
            (false, true),
        ),
        // The copy is not in the compute stage: outside the second
        // synchronization scope.
        (
            "compute-stage-for-copy",
            copy.replacen(copy_dst, "-> COMPUTE:MEMORY_READ |", 1),
            (true, false),
        ),
        // vkCmdUpdateBuffer is a transfer write as vkCmdFillBuffer.
        (
            "update",
            fill.replacen("fill x, 1", "update x, 1", 1),
            (false, true),
        ),
        (
            "update-no-transfer-write",
            fill.replacen("fill x, 1", "update x, 1", 1).replacen(
                fill_src,
                "| barrier TRANSFER:NONE ->",
                1,
            ),
            (true, false),
        ),
        // "VK_PIPELINE_STAGE_2_CLEAR_BIT specifies the execution of clear
        // commands": a fill is a clear command, not a copy command.
        (
            "clear-stage",
            fill.replacen(fill_src, "| barrier CLEAR:TRANSFER_WRITE ->", 1),
            (false, true),
        ),
        (
            "copy-stage-for-fill",
            fill.replacen(fill_src, "| barrier COPY:TRANSFER_WRITE ->", 1),
            (true, false),
        ),
    ];
    for (name, text, want) in cases {
        assert!(text != &copy && text != &fill, "{name}: the twin differs");
        assert_eq!(
            verdicts(name, text),
            *want,
            "{name}: (condition, race-free)"
        );
    }
    // Two transfer commands: submission order orders nothing; a barrier
    // between them with both transfer access bits does.
    let two = |barrier: &str| {
        format!(
            "VULKAN t\n{{\nx=0;\ny=0;\n}}\n P0@host   | P1@queue 0 ;\n submit P1 | fill x, 1  ;\n           | {barrier} ;\n           | copy x -> y ;\nexists (y == 0)\n"
        )
    };
    assert_eq!(
        verdicts(
            "fill-copy",
            &two("barrier TRANSFER:TRANSFER_WRITE -> TRANSFER:TRANSFER_READ")
        ),
        (false, true)
    );
    assert_eq!(
        verdicts(
            "fill-copy-execution-only",
            &two("barrier TRANSFER:NONE -> TRANSFER:NONE")
        ),
        (true, false)
    );
    // Bad transfer commands are located errors.
    for (name, rows, want) in [
        (
            "copy-overlap",
            " P0@host   | P1@queue 0  ;\n submit P1 | copy z -> z ;\n",
            ":9:24: `copy z -> z` reads and writes one location",
        ),
        (
            "copy-no-arrow",
            " P0@host   | P1@queue 0 ;\n submit P1 | copy z, x  ;\n",
            ":9:20: expected `->` between the copy's source and destination",
        ),
        (
            "fill-no-value",
            " P0@host   | P1@queue 0 ;\n submit P1 | fill z     ;\n",
            ":9:20: expected `,` after the destination",
        ),
        (
            "copy-on-host",
            " P0@host     ;\n copy x -> z ;\n",
            ":9:2: `copy` is a command: write it in a queue submission",
        ),
        (
            "transfer-read-at-clear",
            " P0@host   | P1@queue 0 ;\n submit P1 | barrier CLEAR:TRANSFER_READ -> HOST:HOST_READ ;\n",
            ":9:28: access type TRANSFER_READ cannot be performed by the source stages of this barrier (CLEAR): it needs TRANSFER or COPY or ALL_COMMANDS",
        ),
        (
            "copy-in-invocation",
            " P0@sg 0, wg 0, qf 0 ;\n copy x -> z ;\n",
            ":9:2: `copy` is an API operation",
        ),
    ] {
        let (code, err) = bad(name, &format!("{HEAD}{rows}"));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(want), "{name}: expected `{want}` in\n{err}");
    }
}

/// A transfer thread is drawn in its queue's cluster, its events labelled
/// with the command's line, not as a shader invocation.
#[test]
fn pictures_draw_transfer_threads_in_their_queue() {
    let text = picture("copy-host-read.litmus");
    for want in [
        "label=\"queue 0 (submissions)\"",
        "copy x -> y [vkCmdCopyBuffer]",
        "P2 line 16: copy x -> y [reads 1, initial]",
        "P2 line 16: copy x -> y [writes 1]",
    ] {
        assert!(text.contains(want), "`{want}` not in\n{text}");
    }
    assert!(!text.contains("shader invocations"), "{text}");
}
