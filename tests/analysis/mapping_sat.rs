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

/// The shipped mapping `file` without its control-barrier row (which the
/// SAT search does not take).
fn without_barriers(file: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let mut parts = text.split("[[instruction]]");
    let head = parts.next().unwrap_or_default().to_string();
    let rows: Vec<&str> = parts
        .filter(|r| !r.contains("cbar") && !r.contains("barrier("))
        .collect();
    assert!(!rows.is_empty());
    format!("{head}[[instruction]]{}", rows.join("[[instruction]]"))
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

/// The shipped mappings' rows but the control barrier (fences, plain
/// accesses, read-modify-writes, both scopes) at one instruction per
/// thread; the full tier at two (the enumeration walks about 25,000
/// source tests each).
#[test]
fn the_sat_search_agrees_with_the_enumeration_on_the_shipped_rows() {
    let events = if cfg!(feature = "slow-tests") { 2 } else { 1 };
    let ocl = without_barriers("examples/mappings/opencl-vulkan.toml");
    assert_eq!(agree("ocl-rows", &ocl, "vulkan", "opencl", events), 0);
    let ptx = without_barriers("examples/mappings/vulkan-ptx.toml");
    assert_eq!(agree("ptx-rows", &ptx, "ptx", "vulkan", events), 0);
}

/// A mapping with a control barrier is checked by the enumeration, and
/// the answer says so.
#[test]
fn a_control_barrier_row_falls_back_to_the_enumeration_with_a_note() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/mappings/vulkan-ptx.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let r = check("cbar", &text, "ptx", "vulkan", 1, DiffEngine::Symbolic);
    assert!(!r.symbolic, "{}", r.summary());
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("control barriers")
                && n.contains("checking every test of the bound")),
        "{:?}",
        r.notes
    );
    let e = check("cbar", &text, "ptx", "vulkan", 1, DiffEngine::Enumerate);
    assert_eq!((r.tests, r.racy, r.complete), (e.tests, e.racy, e.complete));
}
