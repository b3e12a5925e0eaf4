//! The PTX model (models/ptx.cat) on hand-derived litmus tests, and the
//! Vulkan -> PTX mapping (examples/mappings/vulkan-ptx.toml) checked by
//! `vkmm refines --mapping` (docs/mappings.md). Each verdict is derived
//! from the axioms of the PTX ISA's chapter 8 in the test's comment.

use crate::common;

use vkmm::analysis::mapping::{DiffEngine, MappingBounds, ptx_litmus, ptx_statement};
use vkmm::frontend::{Format, Options};
use vkmm::model::LoadedModel;

fn lines(t: &[&str]) -> Vec<String> {
    t.iter().map(|s| s.to_string()).collect()
}

/// Whether `model` allows the test's `exists` outcome.
fn allows(
    model: &LoadedModel,
    name: &str,
    ctas: &[usize],
    threads: &[&[&str]],
    cond: &str,
) -> bool {
    let threads: Vec<Vec<String>> = threads.iter().map(|t| lines(t)).collect();
    let text = ptx_litmus(name, ctas, &threads, &["x", "y"], Some(cond));
    let program = vkmm::frontend::parse_text(
        &format!("{name}.litmus"),
        &text,
        Format::OpenClLitmus,
        Options::default(),
    )
    .unwrap_or_else(|e| panic!("{name} does not read: {e}\n{text}"));
    let o = vkmm::analysis::check_litmus(name, &program, model, Default::default(), None)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    o.holds(vkmm::Property::Condition)
        .unwrap_or_else(|| panic!("{name}: undecided\n{text}"))
}

fn ptx() -> LoadedModel {
    vkmm::model::load("ptx").unwrap()
}

const MP_W: &[&str] = &["st.weak [x], 1", "st.release.gpu [y], 1"];
const MP_R: &[&str] = &["ld.acquire.gpu r0, [y]", "ld.weak r1, [x]"];

/// MP, release/acquire at .gpu, two CTAs: forbidden. The store to y and the
/// load of y are strong with .gpu scope, each including the other's thread
/// (one device): morally strong (8.7), so y = 1 read by r0 is observation
/// order (8.9.2). `st.release [y]` is a release pattern, `ld.acquire [y]` an
/// acquire pattern, first and last morally strong: they synchronize
/// (8.9.4.4). Base causality order: st [x] -po-> st.release -sync->
/// ld.acquire -po-> ld [x] (8.9.5), all of x's pair the same address, so
/// st [x] precedes ld [x] in causality order; Causality (8.10.6.2) forbids
/// the read of the initial value, which precedes st [x] in coherence order.
#[test]
fn message_passing_with_release_acquire_at_gpu_scope_is_forbidden() {
    assert!(!allows(
        &ptx(),
        "mp-gpu",
        &[0, 1],
        &[MP_W, MP_R],
        "1:r0=1 /\\ 1:r1=0"
    ));
}

/// MP with relaxed flag accesses: allowed. No release or acquire pattern
/// (8.8 needs a release operation or fence, an acquire operation or
/// fence), so no synchronization; causality order between the threads is
/// empty and no axiom relates st [x] to ld [x] (they are weak, of different
/// threads: not morally strong, so Sequential Consistency per Location does
/// not apply either).
#[test]
fn message_passing_with_relaxed_flag_is_allowed() {
    let w: &[&str] = &["st.weak [x], 1", "st.relaxed.gpu [y], 1"];
    let r: &[&str] = &["ld.relaxed.gpu r0, [y]", "ld.weak r1, [x]"];
    assert!(allows(
        &ptx(),
        "mp-rlx",
        &[0, 1],
        &[w, r],
        "1:r0=1 /\\ 1:r1=0"
    ));
}

/// MP with release/acquire at .cta across two CTAs: allowed. ".cta: The set
/// of all threads executing in the same CTA as the current thread" (8.5):
/// neither flag access's scope includes the other's thread, so they are not
/// morally strong; r0 = 1 is no observation order (8.9.2 needs morally
/// strong), the patterns do not synchronize, and the outcome stands as in
/// the relaxed case. The same test inside one CTA is forbidden (the
/// argument of the .gpu case).
#[test]
fn scope_narrowed_to_cta_across_ctas_is_allowed() {
    let w: &[&str] = &["st.weak [x], 1", "st.release.cta [y], 1"];
    let r: &[&str] = &["ld.acquire.cta r0, [y]", "ld.weak r1, [x]"];
    assert!(allows(
        &ptx(),
        "mp-cta-2",
        &[0, 1],
        &[w, r],
        "1:r0=1 /\\ 1:r1=0"
    ));
    assert!(!allows(
        &ptx(),
        "mp-cta-1",
        &[0, 0],
        &[w, r],
        "1:r0=1 /\\ 1:r1=0"
    ));
}

/// SB with fence.sc: forbidden (the PTX ISA's own "Store Buffering" litmus
/// test). The two fence.sc.gpu are morally strong, so Fence-SC order
/// relates them (8.9.3), say F1 before F2; F1 synchronizes with F2
/// (8.9.4.1): st [x] -po-> F1 -sync-> F2 -po-> ld [x] is base causality
/// order, and ld [x] cannot read the initial value (Causality, 8.10.6.2);
/// the other order forbids ld [y] = 0 the same way. With fence.acq_rel the
/// fences synchronize only through release/acquire patterns, which need an
/// observed write: r0 = r1 = 0 is allowed ("If each fence.sc in this
/// example were replaced by a fence.acq_rel instruction, then this outcome
/// is not guaranteed").
#[test]
fn store_buffering_with_fence_sc_is_forbidden_and_with_acq_rel_allowed() {
    let t0: &[&str] = &["st.weak [x], 1", "fence.sc.gpu", "ld.weak r0, [y]"];
    let t1: &[&str] = &["st.weak [y], 1", "fence.sc.gpu", "ld.weak r1, [x]"];
    assert!(!allows(
        &ptx(),
        "sb-sc",
        &[0, 1],
        &[t0, t1],
        "0:r0=0 /\\ 1:r1=0"
    ));
    let a0: &[&str] = &["st.weak [x], 1", "fence.acq_rel.gpu", "ld.weak r0, [y]"];
    let a1: &[&str] = &["st.weak [y], 1", "fence.acq_rel.gpu", "ld.weak r1, [x]"];
    assert!(allows(
        &ptx(),
        "sb-ar",
        &[0, 1],
        &[a0, a1],
        "0:r0=0 /\\ 1:r1=0"
    ));
}

/// The PTX ISA's atomicity litmus tests (8.10.3): two atom.inc at .sys end
/// with x == 2 (morally strong: "Atomicity is guaranteed"); one at .cta and
/// one at .gpu in different CTAs may end with x == 1 ("Atomicity is not
/// guaranteed if the operations are not morally strong"). `add 1` stands
/// for inc.
#[test]
fn atomicity_holds_only_between_morally_strong_atomics() {
    let a: &[&str] = &["atom.sys.add r0, [x], 1"];
    assert!(!allows(&ptx(), "atom-sys", &[0, 1], &[a, a], "x=1"));
    let c: &[&str] = &["atom.cta.add r0, [x], 1"];
    let g: &[&str] = &["atom.gpu.add r0, [x], 1"];
    assert!(allows(&ptx(), "atom-cta-gpu", &[0, 1], &[c, g], "x=1"));
}

/// A release pattern of the second form, "a release or acquire-release
/// operation on M followed by a strong write on M in program order" (8.8):
/// `st.release [y], 1; st.relaxed [y], 2` read by `ld.acquire [y]` = 2
/// synchronizes (the pattern's write y = 2 precedes the read in
/// observation order; first and last operations are morally strong at
/// .gpu), so the relaxed x = 1 before it precedes the read of x in
/// causality order and x = 0 is forbidden. (Vulkan's release sequence
/// goes on only through read-modify-writes, so `vulkan` allows the same
/// outcome: PTX is the stronger here.)
#[test]
fn a_release_followed_by_a_strong_write_is_a_release_pattern() {
    let w: &[&str] = &[
        "st.relaxed.gpu [x], 1",
        "st.release.gpu [y], 1",
        "st.relaxed.gpu [y], 2",
    ];
    let r: &[&str] = &["ld.acquire.gpu r0, [y]", "ld.relaxed.gpu r1, [x]"];
    assert!(!allows(
        &ptx(),
        "rel-pattern-2",
        &[0, 1],
        &[w, r],
        "1:r0=2 /\\ 1:r1=0"
    ));
}

/// MP through bar.sync in one CTA: forbidden. "A bar{.cta}.sync ...
/// synchronizes with a bar{.cta}.sync ... executed on the same barrier"
/// (8.9.4.2): st [x] -po-> bar -sync-> bar -po-> ld [x] is base causality
/// order, so Causality forbids reading the initial value.
#[test]
fn bar_sync_orders_a_weak_store_before_a_weak_load() {
    let w: &[&str] = &["st.weak [x], 1", "bar.sync 0"];
    let r: &[&str] = &["bar.sync 0", "ld.weak r0, [x]"];
    assert!(!allows(&ptx(), "bar-mp", &[0, 0], &[w, r], "1:r0=0"));
}

/// A mutation of the model that drops synchronization through release and
/// acquire patterns must let message passing through: the MP test fails
/// under it (so the forbidden verdict above rests on that rule).
#[test]
fn a_model_without_release_acquire_synchronization_allows_message_passing() {
    let text = vkmm::model::embedded("ptx.cat").unwrap();
    let rule = "let sync = sync_fence | sync_barrier | sync_pattern";
    assert!(text.contains(rule));
    let m = common::mutant(
        "ptx.cat",
        &[(
            "ptx.cat",
            &text.replace(rule, "let sync = sync_fence | sync_barrier"),
        )],
    );
    assert!(allows(
        &m,
        "mp-gpu",
        &[0, 1],
        &[MP_W, MP_R],
        "1:r0=1 /\\ 1:r1=0"
    ));
}

/// Every PTX form the dialect reads becomes its OpenCL C carrier; what it
/// does not read is an error naming the instruction.
#[test]
fn ptx_statements_and_their_errors() {
    let ok = [
        ("ld.weak r0, [x]", "int r0 = *x;"),
        ("ld r0, [x];", "int r0 = *x;"),
        (
            "ld.acquire.cta.global.u32 r0, [x]",
            "int r0 = atomic_load_explicit(x, memory_order_acquire, memory_scope_work_group);",
        ),
        (
            "st.release.sys [x], 2",
            "atomic_store_explicit(x, 2, memory_order_release, memory_scope_all_svm_devices);",
        ),
        (
            "atom.exch r1, [y], 3",
            "int r1 = atomic_exchange_explicit(y, 3, memory_order_relaxed, memory_scope_device);",
        ),
        (
            "fence.sc.gpu",
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);",
        ),
        (
            "membar.cta",
            "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_work_group);",
        ),
        ("bar.sync 0", "barrier(CLK_GLOBAL_MEM_FENCE);"),
    ];
    for (ptx, c) in ok {
        assert_eq!(ptx_statement(ptx).as_deref(), Ok(c), "{ptx}");
    }
    let bad = [
        ("ldx r0, [x]", "unknown PTX instruction `ldx`"),
        ("ld.relaxed r0, [x]", "names its scope"),
        (
            "ld.acquire.cluster r0, [x]",
            ".cluster scope is not modelled",
        ),
        ("st.acquire.gpu [x], 1", "not .acquire"),
        ("atom.gpu r0, [x], 1", "names its operation"),
        ("ld.weak r0, x", "expected an address"),
        ("bar.sync 1", "only barrier resource 0"),
        ("st.weak.gpu [x], 1", "a .weak st names no scope"),
    ];
    for (ptx, what) in bad {
        let e = ptx_statement(ptx).unwrap_err();
        assert!(e.contains(what), "{ptx}: {e}");
    }
}

/// Message passing's four Vulkan -> PTX rows at Device scope, as
/// examples/mappings/vulkan-ptx.toml writes them; `acquire` replaces the
/// acquire load's target.
pub(crate) fn vulkan_ptx_mp(acquire: &str) -> String {
    format!(
        r#"source = "vulkan"
target = "ptx"

[[instruction]]
source = "ld.atom.dv.sc0 {{reg}}, {{loc}}"
target = ["ld.relaxed.gpu {{reg}}, [{{loc}}]"]

[[instruction]]
source = "st.atom.dv.sc0 {{loc}}, {{val}}"
target = ["st.relaxed.gpu [{{loc}}], {{val}}"]

[[instruction]]
source = "ld.atom.acq.dv.sc0.semsc0.semvis {{reg}}, {{loc}}"
target = ["{acquire}"]

[[instruction]]
source = "st.atom.rel.dv.sc0.semsc0.semav {{loc}}, {{val}}"
target = ["st.release.gpu [{{loc}}], {{val}}"]
"#
    )
}

fn check_vulkan_ptx(
    path: &std::path::Path,
    events: usize,
) -> vkmm::analysis::mapping::MappingReport {
    check_vulkan_ptx_by(path, events, Default::default())
}

fn check_vulkan_ptx_by(
    path: &std::path::Path,
    events: usize,
    engine: DiffEngine,
) -> vkmm::analysis::mapping::MappingReport {
    vkmm::Session::new()
        .check_mapping(
            "ptx",
            "vulkan",
            path,
            &MappingBounds {
                threads: 2,
                events,
                locations: 2,
                deadline: None,
                engine,
            },
        )
        .unwrap()
}

/// The shipped Vulkan -> PTX mapping reads and keeps its guarantees on
/// every two-thread test of one instruction per thread (with one
/// instruction per thread only coherence of one location is at stake,
/// which Vulkan's location order and PTX's Sequential Consistency per
/// Location both keep for atomics; plain conflicting accesses race in
/// Vulkan).
#[test]
fn the_shipped_vulkan_ptx_mapping_reads_and_holds_at_one_event() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mappings/vulkan-ptx.toml");
    // The SAT search (barrier row included) and the enumeration of every
    // test, which checks racy and race-free tests alike.
    for engine in [DiffEngine::Symbolic, DiffEngine::Enumerate] {
        let r = check_vulkan_ptx_by(&path, 1, engine);
        assert!(r.complete && r.violations.is_empty(), "{}", r.summary());
        assert_eq!(r.symbolic, engine == DiffEngine::Symbolic, "{:?}", r.notes);
        if engine == DiffEngine::Enumerate {
            assert!(r.tests > r.racy && r.racy > 0, "{}", r.summary());
        }
    }
}

/// Message passing's four Vulkan rows compiled with the acquire dropped
/// (`ld.relaxed.gpu` for the acquire load): Vulkan forbids P1 reading
/// y = 2 then x = 0 after P0's relaxed x = 1 and release y = 2 when P1's
/// load of y is an acquire (release and acquire at Device scope
/// synchronize); on the compiled program no acquire pattern exists, so
/// PTX allows it (the relaxed MP test above). The check finds it, and the
/// witness reads back as allowed under ptx.
#[test]
fn vulkan_ptx_with_a_dropped_acquire_is_a_violation_with_its_witness() {
    let text = vulkan_ptx_mp("ld.relaxed.gpu {reg}, [{loc}]");
    let p = std::env::temp_dir().join(format!("vkmm-mapping-ptx-{}.toml", std::process::id()));
    std::fs::write(&p, &text).unwrap();
    let r = check_vulkan_ptx(&p, 2);
    let _ = std::fs::remove_file(&p);
    assert!(r.summary().starts_with("VIOLATIONS"), "{}", r.summary());
    let mp = r
        .violations
        .iter()
        .find(|v| {
            v.source.contains("st.atom.dv.sc0 x, 1")
                && v.source.contains("st.atom.rel.dv.sc0.semsc0.semav y, 2")
                && v.source.contains("ld.atom.acq.dv.sc0.semsc0.semvis r0, y")
                && v.outcome.contains("P1:r0 == 2")
                && v.outcome.contains("P1:r1 == 0")
        })
        .unwrap_or_else(|| panic!("no message-passing witness: {}", r.summary()));
    assert!(
        mp.target.contains("ld.relaxed.gpu r0, [y]"),
        "{}",
        mp.target
    );
    let s = vkmm::Session::new().model("ptx");
    let p = s.load_text("witness.litmus", &mp.target).unwrap();
    let o = common::litmus(s.check_program("witness", &p).unwrap());
    assert_eq!(
        o.holds(vkmm::Property::Condition),
        Some(true),
        "{}",
        mp.target
    );
}

/// A PTX row the dialect does not read is an error at its line.
#[test]
fn a_bad_ptx_row_names_its_line() {
    let text = "source = \"vulkan\"\ntarget = \"ptx\"\n[[instruction]]\nsource = \"ld.atom.dv.sc0 {reg}, {loc}\"\ntarget = [\"ld.relaxed.cluster {reg}, [{loc}]\"]\n";
    let p = std::env::temp_dir().join(format!("vkmm-mapping-ptxbad-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    let ps = p.to_str().unwrap();
    let (code, out, err) = common::vkmm(&[
        "refines",
        "--impl",
        "ptx",
        "--spec",
        "vulkan",
        "--mapping",
        ps,
    ]);
    let _ = std::fs::remove_file(&p);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&format!("{ps}:5:10:")), "{err}");
    assert!(err.contains(".cluster scope is not modelled"), "{err}");
}
