//! `vkmm gen`: tests from diy-style cycles (docs/synthesis.md, "Tests from
//! a cycle"). The expected tests and verdicts are derived by hand from the
//! cycle and the Vulkan appendix.

use crate::common;

use vkmm::analysis::generate::from_cycle;

fn rows(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.ends_with(';') && !l.contains('='))
        .map(|l| {
            l.trim_end_matches(';')
                .split('|')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" | ")
                .trim()
                .to_string()
        })
        .collect()
}

fn verdicts(text: &str, model: &str) -> (Option<bool>, Option<bool>) {
    let s = vkmm::Session::new().model(model);
    let p = s.load_text("gen.litmus", text).unwrap();
    let vkmm::Checked::Litmus(o) = s.check_program("gen", &p).unwrap() else {
        panic!("a litmus test")
    };
    (
        o.holds(vkmm::Property::Condition),
        o.holds(vkmm::Property::Races),
    )
}

/// Message passing, `PodWW Rfe PodRR Fre`: P0 writes x then y; P1 reads y
/// (from P0's write: Rfe) then x, from-reading P0's write of x (it reads
/// the initial value). Plain accesses in two workgroups: nothing orders
/// them, so the cycle's execution is allowed and the accesses race.
#[test]
fn message_passing_plain() {
    let g = from_cycle("PodWW Rfe PodRR Fre").unwrap();
    assert_eq!(g.name, "PodWW+Rfe+PodRR+Fre");
    assert_eq!(
        rows(&g.text),
        [
            "P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0",
            "st.sc0 x, 1 | ld.sc0 r0, y",
            "st.sc0 y, 2 | ld.sc0 r1, x"
        ]
    );
    assert!(
        g.text.contains("exists (P1:r0 == 2 /\\ P1:r1 == 0)"),
        "{}",
        g.text
    );
    assert_eq!(verdicts(&g.text, "vulkan"), (Some(true), Some(false)));
}

/// Message passing with a Device-scope release/acquire on the flag and
/// availability/visibility on the data (the appendix's pattern, as
/// examples/mp.litmus): the write of x is made available by `st.av.dv`,
/// the release/acquire pair synchronizes (both Device scope, each in the
/// other's scope instance), `ld.vis.dv` makes it visible, so x=1 is
/// location-ordered before the read: reading 0 would from-read it, a cycle.
/// Forbidden. The test still races: in the executions where the acquire
/// reads the initial 0 nothing orders the write and the read of x (the
/// appendix's example spins on the flag instead).
#[test]
fn message_passing_release_acquire_av_vis() {
    let g = from_cycle("PodWW Rfe.dv.rel-acq PodRR Fre.dv.av-vis").unwrap();
    assert_eq!(
        rows(&g.text),
        [
            "P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0",
            "st.av.dv.sc0 x, 1 | ld.atom.acq.dv.semsc0.sc0 r0, y",
            "st.atom.rel.dv.semsc0.sc0 y, 2 | ld.vis.dv.sc0 r1, x"
        ]
    );
    assert_eq!(verdicts(&g.text, "vulkan"), (Some(false), Some(false)));
    // Without the annotations on the data edge the read may see 0.
    let g = from_cycle("PodWW Rfe.dv.rel-acq PodRR Fre.dv").unwrap();
    assert_eq!(verdicts(&g.text, "vulkan"), (Some(true), Some(false)));
}

/// CoRR, `Rfe PosRR Fre`: P1 reads x twice, 1 then 0. Its two plain reads
/// through one reference are location-ordered by program order; the
/// second from-reads the write the first read: a cycle. Forbidden under
/// every Vulkan reading (the write and the reads race, whatever).
#[test]
fn corr_is_forbidden() {
    let g = from_cycle("Rfe PosRR Fre").unwrap();
    assert_eq!(
        rows(&g.text),
        [
            "P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0",
            "st.sc0 x, 1 | ld.sc0 r0, x",
            "| ld.sc0 r1, x"
        ]
    );
    for m in ["vulkan", "vulkan-dat3m", "vulkan-fr-asmo"] {
        assert_eq!(verdicts(&g.text, m), (Some(false), Some(false)), "{m}");
    }
}

/// Scopes place the threads: `.wg` in one workgroup, `.sg` in one subgroup.
#[test]
fn scopes_place_threads() {
    let g = from_cycle("PodWW Rfe.wg.rlx PodRR Fre.sg").unwrap();
    assert!(
        g.text.contains("P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0"),
        "{}",
        g.text
    );
    assert!(g.text.contains("st.atom.wg.sc0 y, 2"), "{}", g.text);
    let g = from_cycle("PodWW Rfe.sg PodRR Fre").unwrap();
    assert!(
        g.text.contains("P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0"),
        "{}",
        g.text
    );
}

/// Cycles that do not make a test are errors naming the edge.
#[test]
fn bad_cycles() {
    let err = |c: &str| from_cycle(c).unwrap_err();
    assert!(err("PodWW Rfx").contains("unknown edge `Rfx`"));
    assert!(
        err("PodWR Rfe PodRR Fre").contains("`PodWR` ends at a read but `Rfe` starts at a write")
    );
    assert!(err("Rfe.xx PodRR Fre").contains("unknown annotation `xx`"));
    assert!(err("PodWW PodRR").contains("no communication edge"));
    assert!(err("Rfe PodRR Fre").contains("one Pod edge"));
    let (code, _, e) = common::vkmm(&["gen", "Rfe PodRR Fre"]);
    assert_eq!(code, 2);
    assert!(e.contains("cycle `Rfe PodRR Fre`"), "{e}");
}

/// `vkmm gen --out` writes the test with each model's verdicts, and the
/// file reads back with the same verdict.
#[test]
fn command_line_writes_files() {
    let dir = std::env::temp_dir().join(format!("vkmm-gen-{}", std::process::id()));
    let (code, out, e) = common::vkmm(&[
        "gen",
        "--models",
        "vulkan,vulkan-dat3m",
        "--out",
        dir.to_str().unwrap(),
        "PosWW Rfe PosRR Fre",
    ]);
    assert_eq!(code, 0, "{out}{e}");
    let f = dir.join("PosWW+Rfe+PosRR+Fre.litmus");
    let text = std::fs::read_to_string(&f).unwrap();
    // CoWW-RR's cycle read 2 then the initial 0: P1's reads are
    // location-ordered, the second from-reads the write of 1, which is
    // location-ordered before the write of 2 the first read: forbidden under
    // both (Dat3M weakens only the read of 1, not of 0).
    assert!(text.contains("vulkan: condition No"), "{text}");
    assert!(text.contains("vulkan-dat3m: condition No"), "{text}");
    let (code, out, _) = common::vkmm(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.contains("\nNo\n"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}
