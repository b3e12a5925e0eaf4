//! `vkmm refines` and the POPS models (docs/interlock.md, "POPS"): the
//! correct lowering refines the specification on every interlock test, and
//! each hazard variant is caught exactly on the tests whose
//! specification verdict needs the guarantee the hazard breaks (derived by
//! hand, per variant, in the comments below).

use std::path::{Path, PathBuf};
use vkmm::Session;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-interlock")
}

/// The files of tests/fixtures/litmus-interlock a variant violates the spec on.
fn violated(session: &Session, imp: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        // the six-invocation benchmark test: each variant's violations are
        // those of the two-pixel counters above, and it takes seconds
        .filter(|p| !p.ends_with("two-pixels-six.litmus"))
        // AMD POPS has no shading-rate interlock: refused (the test below)
        .filter(|p| !shading_rate(p))
        .collect();
    files.sort();
    for f in files {
        let p = session.load_file(&f).unwrap();
        let name = f.file_stem().unwrap().to_str().unwrap().to_string();
        let r = session.refines(&name, &p, imp, "vulkan").unwrap();
        assert!(r.complete, "{name}");
        for v in r.violations.iter().take(vkmm::analysis::refines::EXPLAINED) {
            // each explained violation: a witness under the implementation,
            // and the specification's rejection
            let w = v.witness.as_ref().unwrap();
            let f = v.forbidden.as_ref().unwrap();
            assert_eq!(w.model, imp);
            assert_eq!(f.model, "vulkan");
        }
        if !r.violations.is_empty() {
            out.push(name);
        }
    }
    out.sort();
    out
}

fn shading_rate(p: &Path) -> bool {
    std::fs::read_to_string(p)
        .unwrap()
        .contains("interlock shadingrate")
}

#[test]
fn every_pops_model_refuses_shading_rate_interlock() {
    // amd-pops.rst, "Variable-rate shading interaction": "There's no
    // synchronization between coarse fragment shader invocations if they
    // don't cover common fine pixels, so the
    // fragmentShaderShadingRateInterlock Vulkan device feature is not
    // available."
    let session = Session::new();
    let files: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus") && shading_rate(p))
        .collect();
    assert_eq!(files.len(), 3);
    for imp in [
        "pops",
        "pops-done-early",
        "pops-noncoherent",
        "pops-gfx9-offbyone",
        "pops-intrawave",
    ] {
        for f in &files {
            let p = session.load_file(f).unwrap();
            let e = session
                .refines("t", &p, imp, "vulkan")
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("which AMD POPS does not support")
                    && e.contains("fragmentShaderShadingRateInterlock"),
                "{imp} {}: {e}",
                f.display()
            );
        }
        // the specification's model runs them
        let p = session.load_file(&files[0]).unwrap();
        assert!(session.refines("t", &p, "vulkan", "vulkan").is_ok());
    }
}

/// The tests whose specification verdicts rely on End -> Begin in the
/// interlock order (every test with a critical section whose outcome set
/// the order narrows).
const NEEDS_INTERLOCK_ORDER: &[&str] = &[
    "counter-ordered",
    "counter-ordered-qf",
    "counter-same-wave",
    "linked-list-append",
    "mixed-scope-qf-fi",
    "oit-blend",
    "oit-blend-unordered",
    "pixel-coarse-fine",
    "pixel-disjoint-samples",
    "sample-common",
    "unordered-any-order",
    "unordered-exclusive",
];

#[test]
fn the_correct_lowering_refines_the_specification() {
    assert_eq!(violated(&Session::new(), "pops"), Vec::<String>::new());
}

#[test]
fn done_before_the_counters_drain_breaks_every_ordered_section() {
    // no End -> Begin ordering at all: every test that needs it
    assert_eq!(
        violated(&Session::new(), "pops-done-early"),
        NEEDS_INTERLOCK_ORDER
    );
}

#[test]
fn non_coherent_accesses_break_cross_workgroup_interlock_data() {
    // FragmentInterlock-scope availability/visibility kept in the compute
    // unit: every test passing data through the fragment interlock domain
    // between workgroups; not counter-ordered-qf (QueueFamily scope),
    // counter-same-wave and fi-same-workgroup-overlap (one workgroup); and
    // fi-atomic-overlap, whose datum goes through that domain too.
    let want: Vec<&str> = NEEDS_INTERLOCK_ORDER
        .iter()
        .copied()
        .filter(|t| !["counter-ordered-qf", "counter-same-wave"].contains(t))
        .chain(["fi-atomic-overlap"])
        .collect();
    let mut want: Vec<String> = want.into_iter().map(String::from).collect();
    want.sort();
    assert_eq!(violated(&Session::new(), "pops-noncoherent"), want);
}

#[test]
fn the_gfx9_off_by_one_breaks_the_immediate_predecessor_of_another_wave() {
    // every ordered pair is some wave's immediate predecessor; only
    // counter-same-wave keeps its order (one wave: intrawave layers)
    let want: Vec<&str> = NEEDS_INTERLOCK_ORDER
        .iter()
        .copied()
        .filter(|t| *t != "counter-same-wave")
        .collect();
    assert_eq!(violated(&Session::new(), "pops-gfx9-offbyone"), want);
}

#[test]
fn unresolved_intrawave_collisions_break_only_same_wave_sections() {
    assert_eq!(
        violated(&Session::new(), "pops-intrawave"),
        ["counter-same-wave"]
    );
}

#[test]
fn the_command_reports_violations_with_exit_1() {
    let bin = env!("CARGO_BIN_EXE_vkmm");
    let f = dir().join("counter-ordered.litmus");
    let out = std::process::Command::new(bin)
        .args(["refines", "--impl", "pops-done-early", "--spec", "vulkan"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "pops-done-early refines vulkan: NO",
        "violation: P0:r0 == 0 /\\ P1:r2 == 0 /\\ x == 1 is allowed by pops-done-early and forbidden by vulkan",
        "witness (pops-done-early)",
        "why forbidden (vulkan)",
        "interlock order (End -> Begin)",
    ] {
        assert!(s.contains(needle), "missing `{needle}` in\n{s}");
    }
    let out = std::process::Command::new(bin)
        .args(["refines", "--impl", "pops"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
