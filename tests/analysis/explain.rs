//! `vkmm explain`: forbidden outcomes with their axiom and labelled cycle,
//! allowed outcomes with a witness, race diagnoses, unreachable outcomes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use vkmm::Limits;
use vkmm::analysis::explain::{ExplainSpec, Explanation, Verdict, explain};

fn own(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-vulkan")
        .join(file)
}

fn run(path: &Path, outcome: Option<&str>) -> Explanation {
    let program = vkmm::frontend::load(path).unwrap();
    let model = vkmm::model::load("vulkan").unwrap();
    let spec = ExplainSpec::of(&model.profile).unwrap();
    let parsed = outcome.map(|o| {
        let e = vkmm::frontend::parse_outcome(&program, o).unwrap();
        (e, o.to_string())
    });
    explain(
        &program,
        &model,
        &spec,
        parsed.as_ref().map(|(e, t)| (e, t.clone())),
        Limits::default(),
    )
    .unwrap()
}

fn relations(x: &Explanation) -> Vec<Vec<String>> {
    x.rejections
        .iter()
        .map(|r| {
            let mut v: Vec<String> = r.cycle.iter().map(|e| e.relation.clone()).collect();
            v.sort();
            v
        })
        .collect()
}

#[test]
fn forbidden_message_passing_names_the_axiom_and_cycle() {
    let Some(d) = common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let x = run(
        &d.join("Kronos-Group/mp.litmus"),
        Some("P1:r0 == 1 /\\ P1:r1 == 0"),
    );
    assert_eq!(x.verdict, Verdict::Forbidden);
    assert_eq!(x.consistent, 0);
    assert_eq!(x.rejections.len(), 1);
    let r = &x.rejections[0];
    assert_eq!(r.axiom, "location-order-acyclicity");
    // write -> read through the workgroup instance domain, read -> write by from-reads
    assert_eq!(
        relations(&x),
        vec![vec![
            "fr".to_string(),
            "locord_workgroup_domain".to_string()
        ]]
    );
    // the cycle closes: each edge ends where the next starts
    closes(&r.cycle);
    assert!(
        r.cycle
            .iter()
            .any(|e| e.label.contains("workgroup instance domain"))
    );
}

#[test]
fn corr_violation_is_a_coherence_cycle() {
    let Some(d) = common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let x = run(&d.join("Kronos-Group/corr.litmus"), None);
    assert_eq!(x.verdict, Verdict::Forbidden);
    assert!(!x.rejections.is_empty());
    for rels in relations(&x) {
        assert_eq!(rels, vec!["fr", "locord_same_agent", "rf"], "{x:#?}");
    }
}

#[test]
fn missing_availability_race_is_diagnosed() {
    let x = run(
        &own("race-plain-mp.litmus"),
        Some("P1:r0 == 1 /\\ P1:r1 == 0"),
    );
    assert_eq!(x.verdict, Verdict::Allowed);
    let w = x.witness.as_ref().unwrap();
    assert_eq!(w.events.len(), 4);
    assert!(w.edges.iter().any(|e| e.relation == "rf"));
    assert_eq!(x.races.len(), 1);
    let d = &x.races[0];
    assert_eq!(d.location, "x");
    let fact = |q: &str| {
        d.facts
            .iter()
            .find(|(k, _)| k.starts_with(q))
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no fact `{q}` in {:?}", d.facts))
    };
    assert_eq!(fact("happens-before"), "no");
    assert_eq!(
        fact("availability operations covering the first access"),
        "none"
    );
    assert_eq!(
        fact("visibility operations covering the second access"),
        "none"
    );
    assert_eq!(fact("non-private"), "first: yes, second: yes");
    assert_eq!(
        d.missing,
        vec![
            "happens-before (either way)".to_string(),
            "availability operations covering the first access (MakePointerAvailable, MakeAvailable semantics, device-domain)".to_string(),
            "visibility operations covering the second access (MakePointerVisible, MakeVisible semantics, device-domain)".to_string(),
        ]
    );
}

#[test]
fn scope_mismatch_race_lacks_happens_before_but_has_av_vis() {
    let x = run(&own("scope-mismatch-race.litmus"), None);
    assert_eq!(x.verdict, Verdict::Allowed);
    let d = x
        .races
        .iter()
        .find(|d| d.location == "x")
        .expect("race on x");
    let fact = |q: &str| {
        d.facts
            .iter()
            .find(|(k, _)| k.starts_with(q))
            .unwrap()
            .1
            .clone()
    };
    assert_eq!(fact("happens-before"), "no");
    assert!(
        fact("availability operations covering the first access").contains("st.av.dv.sc0 x, 1")
    );
    assert!(
        fact("visibility operations covering the second access").contains("ld.vis.dv.sc0 r1, x")
    );
    // both domain links are there (device scope reaches the shader domain):
    // the missing link is happens-before
    assert!(fact("made available to the shader domain by").contains("st.av.dv.sc0 x, 1"));
    assert!(fact("made visible from the shader domain by").contains("ld.vis.dv.sc0 r1, x"));
    // what blocks happens-before is the scopes of the flag's release and
    // acquire: said first, with both ends
    assert_eq!(d.missing.len(), 2, "{:?}", d.missing);
    assert!(
        d.missing[0].starts_with("scope mismatch"),
        "{:?}",
        d.missing
    );
    assert_eq!(d.missing[1], "happens-before (either way)");
    let ends = fact("scope mismatch");
    assert!(
        ends.contains(
            "st.atom.rel.wg.sc0.semsc0 f, 1 -> P1 line 9: ld.atom.acq.wg.sc0.semsc0 r0, f"
        ) && ends.contains("sw_atom_atom"),
        "{ends}"
    );
    // the flag accesses are not mutually ordered either: they race too,
    // for the same reason
    let f = x
        .races
        .iter()
        .find(|d| d.location == "f")
        .expect("race on f");
    assert!(
        f.missing[0].starts_with("scope mismatch"),
        "{:?}",
        f.missing
    );
}

#[test]
fn unreachable_outcomes_are_not_called_forbidden() {
    let x = run(&own("rmw-exchange.litmus"), Some("P0:r0 == 42"));
    assert_eq!(x.verdict, Verdict::Unreachable);
    assert_eq!(x.candidates, 0);
}

#[test]
fn cli_json_and_bad_outcomes() {
    let exe = env!("CARGO_BIN_EXE_vkmm");
    let f = own("race-plain-mp.litmus");
    let out = Command::new(exe)
        .args([
            "explain",
            f.to_str().unwrap(),
            "--outcome",
            "P1:r1 == 7",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "Unreachable");
    let out = Command::new(exe)
        .args(["explain", f.to_str().unwrap(), "--outcome", "P1:r9 == 1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--outcome:1:4") && err.contains("P1:r9"),
        "{err}"
    );
    let out = Command::new(exe)
        .args(["explain", f.to_str().unwrap(), "--outcome", "P1:r1 == "])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn private_message_passing_is_missing_non_private_accesses() {
    let Some(d) = common::corpus_or_skip("khronos-alloy") else {
        return;
    };
    let x = run(&d.join("privmp.test"), None);
    assert_eq!(x.verdict, Verdict::Allowed);
    let race = x
        .races
        .iter()
        .find(|r| r.location == "x")
        .expect("race on x");
    // release/acquire gives happens-before; what fails is privacy
    assert_eq!(race.missing, vec!["non-private".to_string()]);
}

/// Explains an OpenCL test's own condition under `model`, with the built-in
/// OpenCL wording.
fn run_opencl(file: &str, model_name: &str) -> Explanation {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let program = vkmm::frontend::load(&path).unwrap();
    let model = vkmm::model::load(model_name).unwrap();
    let spec = ExplainSpec::of(&model.profile).unwrap();
    explain(&program, &model, &spec, None, Limits::default()).unwrap()
}

/// Asserts that a cycle closes: each edge ends where the next starts.
fn closes(cycle: &[vkmm::analysis::explain::Edge]) {
    for w in cycle.windows(2) {
        assert_eq!(w[0].to, w[1].from);
    }
    assert_eq!(cycle.last().unwrap().to, cycle[0].from);
}

#[test]
fn opencl_message_passing_is_a_global_coherence_cycle() {
    let x = run_opencl("examples/opencl-mp.litmus", "opencl");
    assert_eq!(x.verdict, Verdict::Forbidden);
    let r = &x.rejections[0];
    assert_eq!(r.axiom, "coherence-global");
    // *x = 1 global-happens-before the read of x, which reads the initial value
    assert_eq!(
        relations(&x),
        vec![vec!["fr".to_string(), "ghb".to_string()]]
    );
    closes(&r.cycle);
}

#[test]
fn opencl_store_buffering_is_a_scoped_sc_cycle() {
    let x = run_opencl("examples/opencl-sb-sc.litmus", "opencl");
    assert_eq!(x.verdict, Verdict::Forbidden);
    let r = &x.rejections[0];
    assert_eq!(r.axiom, "sequential-consistency");
    assert_eq!(
        relations(&x),
        vec![
            vec!["fr", "fr", "sb", "sb"]
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>()
        ]
    );
    closes(&r.cycle);
}

#[test]
fn opencl_total_sc_names_the_order_s_in_its_cycles() {
    let x = run_opencl(
        "tests/fixtures/litmus-opencl/sc-fence-before-read.litmus",
        "opencl-totalsc",
    );
    assert_eq!(x.verdict, Verdict::Forbidden);
    assert!(!x.rejections.is_empty());
    for r in &x.rejections {
        assert!(!r.cycle.is_empty(), "{} has no cycle", r.axiom);
        assert!(
            r.cycle.iter().all(|e| e.relation != "?"),
            "{}: an edge no binding labels",
            r.axiom
        );
    }
    // every candidate is rejected, some for contradicting S with sb
    assert!(
        x.rejections
            .iter()
            .any(|r| r.axiom == "sc-order-consistent" && r.cycle.iter().any(|e| e.relation == "S"))
    );
}

#[test]
fn opencl_race_diagnosis_says_happens_before_is_missing() {
    let x = run_opencl(
        "tests/fixtures/litmus-opencl/regions-local-flag-global-data.litmus",
        "opencl",
    );
    assert_eq!(x.verdict, Verdict::Allowed);
    let d = &x.races[0];
    assert_eq!(d.location, "x");
    assert_eq!(
        d.missing,
        vec!["happens-before (global or local, either way)"]
    );
    assert!(
        d.facts
            .iter()
            .any(|(q, a)| q == "inclusive scopes" && a == "no")
    );
}

#[test]
fn cli_opencl_outcomes_use_the_opencl_condition_syntax() {
    let exe = env!("CARGO_BIN_EXE_vkmm");
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/opencl-mp.litmus");
    let run = |outcome: &str| {
        Command::new(exe)
            .args(["explain", f.to_str().unwrap(), "--outcome", outcome])
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    // the flag seen and the data too: allowed
    let out = run("1:r0=1 /\\ 1:r1=1");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "Allowed");
    assert_eq!(v["model"], "opencl");
    // the stale read: forbidden, by global coherence
    let v: serde_json::Value = serde_json::from_slice(&run("1:r0=1 /\\ 1:r1=0").stdout).unwrap();
    assert_eq!(v["verdict"], "Forbidden");
    assert_eq!(v["rejections"][0]["axiom"], "coherence-global");
    // an unknown register, and trailing tokens: located errors, exit 2
    for (bad, at) in [
        ("1:r0=1 /\\ 1:zz=1", "--outcome:1:13"),
        ("1:r0=1 )", "--outcome:1:8"),
    ] {
        let out = run(bad);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(at), "{bad}: {err}");
    }
}

/// The corpus tests whose forbidden condition was once explained by a
/// one-edge self-loop (`e0 --location-ordered--> e0`, `ghb` reflexive):
/// every cycle now goes through the events involved.
#[test]
fn corpus_cycles_have_no_self_loops() {
    let cases = [
        (
            "dat3m-vulkan",
            "Manual/ticketlock-acq2rlx-1.litmus",
            "vulkan",
        ),
        ("dat3m-vulkan", "Manual/ticketlock-same-wg.litmus", "vulkan"),
        ("dat3m-opencl", "herd/3LB.litmus", "opencl"),
        (
            "dat3m-opencl",
            "portedFromC11/manual/imm-E3.4.litmus",
            "opencl",
        ),
    ];
    for (corpus, file, model_name) in cases {
        let Some(d) = common::corpus_or_skip(corpus) else {
            continue;
        };
        let program = vkmm::frontend::load(&d.join(file)).unwrap();
        let model = vkmm::model::load(model_name).unwrap();
        let spec = ExplainSpec::of(&model.profile).unwrap();
        let x = explain(&program, &model, &spec, None, Limits::default()).unwrap();
        assert_eq!(x.verdict, Verdict::Forbidden, "{file}");
        for r in &x.rejections {
            assert!(!r.cycle.is_empty(), "{file}: {} has no cycle", r.axiom);
            for e in &r.cycle {
                assert_ne!(e.from_id, e.to_id, "{file}: {}: self-loop {e:?}", r.axiom);
            }
            if !r.axiom.starts_with("visible-side-effect") {
                assert!(r.cycle.len() >= 2, "{file}: {}", r.axiom);
                closes(&r.cycle);
            }
        }
    }
}

#[test]
fn forall_explains_its_negation() {
    // release/acquire: every filtered execution reads the data, so the
    // negation is forbidden and the forall holds
    let x = run(&own("filter-acqrel-mp.litmus"), None);
    assert_eq!(x.verdict, Verdict::Forbidden);
    assert!(x.outcome.starts_with("the negation of `"), "{}", x.outcome);
    let c = x.condition.as_ref().unwrap();
    assert_eq!((c.quantifier.as_str(), c.holds), ("forall", Some(true)));
    assert!(!x.rejections.is_empty() && !x.rejections[0].cycle.is_empty());
    let text = vkmm::report::text::explanation(&x);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("HOLDS under vulkan: its negation is FORBIDDEN; every consistent execution satisfies the expression"),
        "{text}"
    );
    // relaxed: a consistent execution violates it, shown as the counterexample
    let x = run(&own("filter-relaxed-mp.litmus"), None);
    assert_eq!(x.verdict, Verdict::Allowed);
    let c = x.condition.as_ref().unwrap();
    assert_eq!(c.holds, Some(false));
    let text = vkmm::report::text::explanation(&x);
    assert!(
        text.contains(
            "FAILS under vulkan: its negation is ALLOWED; the witness below is a counterexample"
        ),
        "{text}"
    );
    assert!(text.contains("Counterexample execution:"), "{text}");
    assert!(text.contains("[reads 0, initial]"), "{text}");
}

#[test]
fn not_exists_says_whether_it_holds() {
    let x = run(&own("branch-arith-notexists.litmus"), None);
    let c = x.condition.as_ref().unwrap();
    assert_eq!((c.quantifier.as_str(), c.holds), ("~exists", Some(true)));
    // an explicit outcome is not the condition: no condition verdict
    let x = run(&own("filter-relaxed-mp.litmus"), Some("P1:r1 == 0"));
    assert!(x.condition.is_none());
}

#[test]
fn synchronizes_with_edges_name_both_ends() {
    let x = run(
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mp.test")),
        None,
    );
    let w = x.witness.as_ref().unwrap();
    let sw = w
        .edges
        .iter()
        .find(|e| e.relation == "sw_atom_atom")
        .expect("a synchronizes-with edge");
    let first = sw.via.first().expect("expanded");
    let last = sw.via.last().unwrap();
    assert_eq!(first.id, sw.from_id);
    assert!(first.role.contains("release atomic"), "{:?}", sw.via);
    assert_eq!(last.id, sw.to_id);
    assert!(last.role.contains("acquire atomic"), "{:?}", sw.via);
    // the write the acquire reads (here the release itself) is named
    assert!(sw.via.iter().any(|s| s.role.contains("release sequence")));
    let text = vkmm::report::text::explanation(&x);
    assert!(
        text.contains("      release atomic, write of its release sequence: e1"),
        "{text}"
    );
    // a location-ordered edge of a cycle names its availability and
    // visibility operations and the domain
    let Some(d) = common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let x = run(
        &d.join("Kronos-Group/mp.litmus"),
        Some("P1:r0 == 1 /\\ P1:r1 == 0"),
    );
    let locord = x.rejections[0]
        .cycle
        .iter()
        .find(|e| e.relation == "locord_workgroup_domain")
        .unwrap();
    let roles: Vec<&str> = locord.via.iter().map(|s| s.role.as_str()).collect();
    assert!(
        roles.iter().any(|r| r.contains("availability operation")),
        "{roles:?}"
    );
    assert!(
        roles
            .iter()
            .any(|r| r.contains("workgroup instance domain visibility")),
        "{roles:?}"
    );
}

#[test]
fn expand_lines_are_checked() {
    for bad in ["expand sw a | b", "expand sw a | b | ", "race-scope sw"] {
        assert!(ExplainSpec::parse("t.explain", bad).is_err(), "{bad}");
    }
    let s = ExplainSpec::parse("t.explain", "expand sw [REL] r | rf | a\npicture rf sw\n").unwrap();
    assert_eq!(s.expansions[0].roles, vec!["[REL] r", "a"]);
    assert_eq!(s.expansions[0].steps, vec!["rf"]);
    assert_eq!(s.picture, vec!["rf", "sw"]);
}
