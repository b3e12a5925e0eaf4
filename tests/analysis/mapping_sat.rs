//! `vkmm refines --mapping`'s SAT search against its oracle, the
//! enumeration of every test of the bound (docs/mappings.md): on mappings
//! with and without violations, OpenCL -> Vulkan and Vulkan -> PTX, both
//! searches give the same answer and the same violations, and each
//! violation the SAT search reports reads back under both models (the
//! implementation allows the compiled test's outcome, the specification
//! forbids it on the source).

use crate::common;
use crate::mapping::mp_mapping;
use crate::mapping_ptx::vulkan_ptx_mp;

use std::collections::BTreeSet;
use vkmm::analysis::mapping::{DiffEngine, MappingBounds, MappingReport};

/// The shipped mapping `file`.
fn shipped(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(path).unwrap()
}

fn check(
    tag: &str,
    text: &str,
    imp: &str,
    spec: &str,
    events: usize,
    engine: DiffEngine,
) -> MappingReport {
    let p = std::env::temp_dir().join(format!(
        "vkmm-mapping-sat-{tag}-{}.toml",
        std::process::id()
    ));
    std::fs::write(&p, text).unwrap();
    let r = vkmm::Session::new()
        .check_mapping(
            imp,
            spec,
            &p,
            &MappingBounds {
                threads: 2,
                events,
                locations: 2,
                deadline: None,
                engine,
            },
        )
        .unwrap();
    let _ = std::fs::remove_file(&p);
    r
}

/// The violations as (source test without its name line, outcome).
fn found(r: &MappingReport) -> BTreeSet<(String, String)> {
    r.violations
        .iter()
        .map(|v| {
            let body = v.source.split_once('\n').map_or("", |x| x.1);
            (body.to_string(), v.outcome.clone())
        })
        .collect()
}

/// The outcome `P1:r0 == 2 /\ x == 1` as the source dialect's `exists`.
fn exists(source: &str, outcome: &str) -> String {
    if source.starts_with("OPENCL") {
        let c: Vec<String> = outcome
            .split(" /\\ ")
            .map(|c| c.trim_start_matches('P').replace(" == ", "="))
            .collect();
        format!("{source}exists ({})\n", c.join(" /\\ "))
    } else {
        format!("{source}exists ({outcome})\n")
    }
}

/// Whether `model` allows the `exists` outcome of `text`.
fn allows(model: &str, text: &str) -> Option<bool> {
    let s = vkmm::Session::new().model(model);
    let p = s
        .load_text("witness.litmus", text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    common::litmus(s.check_program("witness", &p).unwrap()).holds(vkmm::Property::Condition)
}

/// Both searches on `text`: the same answer and violations; the SAT
/// search checks no more tests than the enumeration, and each of its
/// violations reads back. The number of violations.
fn agree(tag: &str, text: &str, imp: &str, spec: &str, events: usize) -> usize {
    let e = check(tag, text, imp, spec, events, DiffEngine::Enumerate);
    let s = check(tag, text, imp, spec, events, DiffEngine::Symbolic);
    assert!(!e.symbolic && s.symbolic, "{tag}: {:?}", s.notes);
    assert!(
        e.complete && s.complete,
        "{tag}: {} / {}",
        e.summary(),
        s.summary()
    );
    assert_eq!(
        found(&e),
        found(&s),
        "{tag}: {} / {}",
        e.summary(),
        s.summary()
    );
    assert_eq!(e.violating_tests, s.violating_tests, "{tag}");
    assert!(
        s.tests <= e.tests,
        "{tag}: {} / {}",
        e.summary(),
        s.summary()
    );
    for v in &s.violations {
        assert_eq!(allows(imp, &v.target), Some(true), "{tag}: {}", v.target);
        let src = exists(&v.source, &v.outcome);
        assert_eq!(allows(spec, &src), Some(false), "{tag}: {src}");
    }
    s.violations.len()
}

/// Message passing's rows with the documented acquire keep their
/// guarantees (derived in `mapping.rs`); with the acquire compiled to a
/// relaxed load they do not (message passing and load buffering through
/// the missing synchronisation): both searches say so, with the same
/// witnesses.
#[test]
fn the_sat_search_agrees_with_the_enumeration_opencl_vulkan() {
    let good = mp_mapping("ld.atom.acq.dv.semsc0.semvis.sc0 {reg}, {loc}");
    assert_eq!(agree("ocl-good", &good, "vulkan", "opencl", 2), 0);
    let bad = mp_mapping("ld.atom.dv.sc0 {reg}, {loc}");
    assert!(agree("ocl-bad", &bad, "vulkan", "opencl", 2) > 0);
}

/// The same for Vulkan -> PTX (the dropped acquire: `mapping_ptx.rs`).
#[test]
fn the_sat_search_agrees_with_the_enumeration_vulkan_ptx() {
    let good = vulkan_ptx_mp("ld.acquire.gpu {reg}, [{loc}]");
    assert_eq!(agree("ptx-good", &good, "ptx", "vulkan", 2), 0);
    let bad = vulkan_ptx_mp("ld.relaxed.gpu {reg}, [{loc}]");
    assert!(agree("ptx-bad", &bad, "ptx", "vulkan", 2) > 0);
}

/// The shipped mappings' rows (fences, plain accesses,
/// read-modify-writes, both scopes, the control barrier) at one
/// instruction per thread; the full tier at two (the enumeration walks
/// about 30,000 source tests each).
#[test]
fn the_sat_search_agrees_with_the_enumeration_on_the_shipped_rows() {
    let events = if cfg!(feature = "slow-tests") { 2 } else { 1 };
    let ocl = shipped("examples/mappings/opencl-vulkan.toml");
    assert_eq!(agree("ocl-rows", &ocl, "vulkan", "opencl", events), 0);
    let ptx = shipped("examples/mappings/vulkan-ptx.toml");
    assert_eq!(agree("ptx-rows", &ptx, "ptx", "vulkan", events), 0);
}

/// A mapping the SAT search does not take (a row whose target has two
/// accesses, which the shared reads-from cannot pair with the source's
/// one) is checked by the enumeration, and the answer says so.
#[test]
fn a_row_the_sat_search_does_not_pair_falls_back_to_the_enumeration_with_a_note() {
    let text = r#"
source = "vulkan"
target = "ptx"
[[instruction]]
source = "ld.nonpriv.sc0 {reg}, {loc}"
target = ["ld.weak {reg}, [{loc}]"]
[[instruction]]
source = "st.nonpriv.sc0 {loc}, {val}"
target = ["st.weak [{loc}], {val}", "st.weak [{loc}], {val}"]
"#;
    let r = check("twice", text, "ptx", "vulkan", 1, DiffEngine::Symbolic);
    assert!(!r.symbolic, "{}", r.summary());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("exactly one access")
                && n.contains("checking every test of the bound")),
        "{:?}",
        r.notes
    );
    let e = check("twice", text, "ptx", "vulkan", 1, DiffEngine::Enumerate);
    assert_eq!((r.tests, r.racy, r.complete), (e.tests, e.racy, e.complete));
}

/// Rows with control barriers, `barrier` the barrier row's target: plain
/// accesses and OpenCL's work-group barrier to Vulkan.
fn ocl_barrier_rows(barrier: &str) -> String {
    format!(
        r#"
source = "opencl"
target = "vulkan"
[[instruction]]
source = "int {{reg}} = *{{loc}};"
target = ["ld.nonpriv.sc0 {{reg}}, {{loc}}"]
[[instruction]]
source = "*{{loc}} = {{val}};"
target = ["st.nonpriv.sc0 {{loc}}, {{val}}"]
[[instruction]]
source = "barrier(CLK_GLOBAL_MEM_FENCE);"
target = [{barrier}]
"#
    )
}

/// Control barriers in the SAT search against the enumeration. OpenCL's
/// `barrier` (one instance number for every barrier, the pass counted) to
/// Vulkan's `cbar.wg {id}` (numbered in order) with its fences, as
/// clspv compiles it; the same with the acquire fence dropped, which
/// breaks message passing through the barrier (`*x = 1; barrier` against
/// `barrier; r0 = *x`: OpenCL's barrier synchronizes the two, r0 is 1 and
/// the test race-free; the compiled test has no acquire barrier after the
/// control barrier, so the Vulkan appendix's rule ("A is a release
/// barrier, B is an acquire barrier") gives no synchronizes-with and r0
/// may be 0). And Vulkan's control barrier to PTX's `bar.sync 0` (one
/// barrier resource, the pass counted) at three instructions per thread,
/// threads reaching different numbers of barriers. Both searches give the
/// same violations (`agree`), and the SAT search takes the barriers.
#[test]
fn the_sat_search_agrees_with_the_enumeration_on_control_barriers() {
    let fences = r#""membar.rel.wg.semsc0.semav", "cbar.wg {id}", "membar.acq.wg.semsc0.semvis""#;
    let good = ocl_barrier_rows(fences);
    assert_eq!(agree("ocl-bar", &good, "vulkan", "opencl", 2), 0);
    let bad = ocl_barrier_rows(r#""membar.rel.wg.semsc0.semav", "cbar.wg {id}""#);
    assert!(agree("ocl-bar-noacq", &bad, "vulkan", "opencl", 2) > 0);
    let ptx = r#"
source = "vulkan"
target = "ptx"
[[instruction]]
source = "ld.nonpriv.sc0 {reg}, {loc}"
target = ["ld.weak {reg}, [{loc}]"]
[[instruction]]
source = "st.nonpriv.sc0 {loc}, {val}"
target = ["st.weak [{loc}], {val}"]
[[instruction]]
source = "cbar.wg {id}"
target = ["bar.sync 0"]
"#;
    let events = if cfg!(feature = "slow-tests") { 3 } else { 2 };
    assert_eq!(agree("ptx-bar", ptx, "ptx", "vulkan", events), 0);
}
