//! `vkmm refines --mapping`: compiler mappings checked on every test of a
//! bound (docs/mappings.md). The verdicts are derived by hand from the
//! OpenCL and Vulkan memory models, as each test says.

use crate::common;

use vkmm::analysis::mapping::{DiffEngine, MappingBounds, MappingReport};

/// The four OpenCL -> Vulkan rows of message passing at Device scope, as
/// examples/mappings/opencl-vulkan.toml writes them; `acquire` replaces the
/// acquire load's target.
pub(crate) fn mp_mapping(acquire: &str) -> String {
    format!(
        r#"source = "opencl"
target = "vulkan"

[[instruction]]
source = "int {{reg}} = atomic_load_explicit({{loc}}, memory_order_relaxed, memory_scope_device);"
target = ["ld.atom.dv.sc0 {{reg}}, {{loc}}"]

[[instruction]]
source = "atomic_store_explicit({{loc}}, {{val}}, memory_order_relaxed, memory_scope_device);"
target = ["st.atom.dv.sc0 {{loc}}, {{val}}"]

[[instruction]]
source = "int {{reg}} = atomic_load_explicit({{loc}}, memory_order_acquire, memory_scope_device);"
target = ["{acquire}"]

[[instruction]]
source = "atomic_store_explicit({{loc}}, {{val}}, memory_order_release, memory_scope_device);"
target = ["st.atom.rel.dv.semsc0.semav.sc0 {{loc}}, {{val}}"]
"#
    )
}

fn write(tag: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("vkmm-mapping-{tag}-{}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

fn check(tag: &str, text: &str) -> MappingReport {
    let p = write(tag, text);
    let r = vkmm::Session::new()
        .check_mapping(
            "vulkan",
            "opencl",
            &p,
            &MappingBounds {
                threads: 2,
                events: 2,
                locations: 2,
                deadline: None,
                // Every test walked (the SAT search: `mapping_sat.rs`).
                engine: vkmm::analysis::mapping::DiffEngine::Enumerate,
            },
        )
        .unwrap();
    let _ = std::fs::remove_file(&p);
    r
}

/// The rows as documented: relaxed atomics map to relaxed atomics, an
/// acquire load to an acquire with MakeVisible, a release store to a
/// release with MakeAvailable, all at Device scope and in one storage class.
/// Every race-free two-thread test of at most two of these per thread
/// keeps its OpenCL guarantees: OpenCL's only synchronisation here is a
/// release store read by an acquire load ("synchronizes-with"), and
/// Vulkan's release/acquire pair with the same scopes synchronises the
/// same way ("A and B are in the instance of each other's memory scopes");
/// relaxed atomics are coherent in both.
#[test]
fn documented_rows_keep_their_guarantees_up_to_two_by_two() {
    let r = check(
        "ok",
        &mp_mapping("ld.atom.acq.dv.semsc0.semvis.sc0 {reg}, {loc}"),
    );
    assert!(r.complete, "{}", r.summary());
    assert!(r.violations.is_empty(), "{}", r.summary());
    assert!(r.tests > 100, "{}", r.summary());
    assert!(
        r.summary().starts_with("no violation up to the bound"),
        "{}",
        r.summary()
    );
}

/// A mapping that drops the acquire (the acquire load compiled to a relaxed
/// one) breaks message passing: P0 stores x then releases y; P1 acquires
/// y = 1 then reads x. OpenCL: the release synchronises with the acquire,
/// so x = 1 happens before the read, which cannot read 0. Vulkan on the
/// compiled test: a relaxed load synchronises with nothing, so P1 may read
/// y = 1 and x = 0. The check must find that outcome.
#[test]
fn a_dropped_acquire_is_a_violation_with_its_witness() {
    let r = check("bad", &mp_mapping("ld.atom.dv.sc0 {reg}, {loc}"));
    assert!(!r.violations.is_empty(), "{}", r.summary());
    assert!(r.summary().starts_with("VIOLATIONS"), "{}", r.summary());
    let mp = r.violations.iter().find(|v| {
        v.source
            .contains("atomic_store_explicit(x, 1, memory_order_relaxed")
            && v.source
                .contains("atomic_store_explicit(y, 2, memory_order_release")
            && v.source
                .contains("atomic_load_explicit(y, memory_order_acquire")
            && v.outcome.contains("P1:r0 == 2")
            && v.outcome.contains("P1:r1 == 0")
    });
    let Some(mp) = mp else {
        panic!(
            "no message-passing witness among {:#?}",
            r.violations.iter().map(|v| &v.source).collect::<Vec<_>>()
        )
    };
    // The witness reads back: the compiled test with its exists clause is
    // allowed by vulkan.
    let s = vkmm::Session::new().model("vulkan");
    let p = s.load_text("witness.litmus", &mp.target).unwrap();
    let o = common::litmus(s.check_program("witness", &p).unwrap());
    assert_eq!(
        o.holds(vkmm::Property::Condition),
        Some(true),
        "{}",
        mp.target
    );
}

/// Bad mapping files: each error names file, line and column and what was
/// expected; the command exits 2.
#[test]
fn bad_mapping_files_name_their_line() {
    let cases: &[(&str, &str, &str)] = &[
        // An instruction the target dialect does not have.
        (
            "source = \"opencl\"\ntarget = \"vulkan\"\n[[instruction]]\nsource = \"*{loc} = {val};\"\ntarget = [\"stx.sc0 {loc}, {val}\"]\n",
            ":5:10:",
            "does not read in the vulkan dialect",
        ),
        // A source construct the dialect does not have.
        (
            "source = \"opencl\"\ntarget = \"vulkan\"\n[[instruction]]\nsource = \"atomic_frob({loc}, {val});\"\ntarget = [\"st.sc0 {loc}, {val}\"]\n",
            ":4:10:",
            "does not read in the opencl dialect",
        ),
        (
            "source = \"opencl\"\ntarget = \"vulkan\"\n[[instruction]]\nsource = \"*{loc} = {value};\"\ntarget = [\"st.sc0 {loc}, {val}\"]\n",
            ":4:10:",
            "unknown placeholder `{value}`",
        ),
        (
            "source = \"wgsl\"\ntarget = \"vulkan\"\n",
            ":1:10:",
            "unknown dialect `wgsl`",
        ),
        (
            "source = \"opencl\"\ntarget = \"vulkan\"\n[[instruction]]\nsource = \"*{loc} = {val};\"\ntarget = [\"st.sc0 {loc}, {reg}\"]\n",
            ":5:11:",
            "names {reg}, which the source instruction",
        ),
        ("source = \"opencl\"\ntarget = \n", ":2:", ""),
    ];
    for (i, (text, at, what)) in cases.iter().enumerate() {
        let p = write(&format!("err{i}"), text);
        let ps = p.to_str().unwrap();
        let (code, out, err) = common::vkmm(&[
            "refines",
            "--impl",
            "vulkan",
            "--spec",
            "opencl",
            "--mapping",
            ps,
        ]);
        assert_eq!(code, 2, "case {i}: {out}{err}");
        assert!(err.contains(&format!("{ps}{at}")), "case {i}: {err}");
        assert!(err.contains(what), "case {i}: {err}");
        let _ = std::fs::remove_file(&p);
    }
}

/// The shipped OpenCL -> Vulkan mapping reads (every row's source and
/// target through their front ends) and keeps its guarantees on every
/// two-thread test of one instruction per thread: with one instruction per
/// thread nothing is ordered in either model beyond coherence of a single
/// location, which both models keep (OpenCL 3.6 "the modification order of
/// each atomic object", Vulkan's location-ordered).
#[test]
fn the_shipped_opencl_vulkan_mapping_reads_and_holds_at_one_event() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/mappings/opencl-vulkan.toml");
    // The SAT search (barrier row included) and the enumeration of every
    // test, which checks racy and race-free tests alike.
    for engine in [DiffEngine::Symbolic, DiffEngine::Enumerate] {
        let r = vkmm::Session::new()
            .check_mapping(
                "vulkan",
                "opencl",
                &path,
                &MappingBounds {
                    threads: 2,
                    events: 1,
                    locations: 1,
                    deadline: None,
                    engine,
                },
            )
            .unwrap();
        assert!(r.complete && r.violations.is_empty(), "{}", r.summary());
        assert_eq!(r.symbolic, engine == DiffEngine::Symbolic, "{:?}", r.notes);
        if engine == DiffEngine::Enumerate {
            assert!(r.tests > r.racy && r.racy > 0, "{}", r.summary());
        }
    }
}
