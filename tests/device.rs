//! Device runs (issue 18, docs/device.md).
//!
//! - The translation: every shader vkmm builds for the smoke suite, the
//!   bundled examples and the corpora's expressible files passes
//!   `spirv-val --target-env vulkan1.2` (skipped, saying so, without it).
//! - Plans: what cannot run is refused with its reason (hand-written tests).
//! - Classification without a device: a forbidden state fed to the
//!   classifier is a finding with its explanation; an allowed one is not.
//! - On a device (lavapipe in CI; skipped, saying so, without a Vulkan
//!   loader or device): the smoke suite (message passing, store buffering,
//!   read-read coherence, a workgroup barrier, a device-scope lock) shows no
//!   forbidden outcome and shows the outcomes of running its threads one
//!   after the other; a deliberately broken translation (plain loads read
//!   the initial value) produces a forbidden outcome, reported as a finding
//!   with the model's explanation.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use vkmm::Session;
use vkmm::device::classify::{Judgement, classify, run_program};
use vkmm::device::harness::{Params, Preset};
use vkmm::device::spirv::{Breakage, ShaderOptions, shader};
use vkmm::device::vk::{DeviceError, Gpu};
use vkmm::device::{Reason, plan};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn smoke() -> Vec<PathBuf> {
    let mut v = common::files_with_ext(&root().join("tests/fixtures/device-smoke"), "litmus");
    v.push(root().join("examples/mp.litmus"));
    v
}

fn load(path: &Path) -> vkmm::ir::Program {
    Session::new()
        .load_file(path)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn load_text(text: &str) -> vkmm::ir::Program {
    Session::new()
        .load_text("t.litmus", text)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Validates SPIR-V words with spirv-val; `None` when spirv-val is missing.
fn spirv_val(words: &[u32], name: &str) -> Option<Result<(), String>> {
    let dir = std::env::temp_dir().join(format!("vkmm-device-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{}.spv", name.replace(['/', '.'], "_")));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&file, bytes).unwrap();
    let out = std::process::Command::new("spirv-val")
        .arg("--target-env")
        .arg("vulkan1.2")
        .arg(&file)
        .output()
        .ok()?;
    let _ = std::fs::remove_file(&file);
    Some(if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    })
}

#[test]
fn shaders_of_the_smoke_suite_pass_spirv_val() {
    for f in smoke() {
        let p = plan(&load(&f)).unwrap_or_else(|u| panic!("{}: {u}", f.display()));
        for breakage in [None, Some(Breakage::PlainLoadsReadInitial)] {
            let words = shader(
                &p,
                &ShaderOptions {
                    breakage,
                    ..ShaderOptions::default()
                },
            );
            match spirv_val(&words, &f.display().to_string()) {
                None => {
                    common::skip("spirv-val is not installed (Debian `spirv-tools`)");
                    return;
                }
                Some(r) => r.unwrap_or_else(|e| panic!("{}: spirv-val: {e}", f.display())),
            }
        }
    }
}

/// Every expressible file of the examples and corpora translates to valid
/// SPIR-V; the refusals are counted by reason (docs/device.md).
#[test]
fn shaders_of_the_corpora_pass_spirv_val() {
    let mut files = Vec::new();
    common::litmus_files_below(&root().join("examples"), &|_| false, &mut files);
    files.extend(common::files_with_ext(&root().join("examples"), "test"));
    for sub in ["dat3m-vulkan", "khronos-alloy"] {
        if let Some(dir) = common::corpus_or_skip(sub) {
            common::litmus_files_below(&dir, &|_| false, &mut files);
            files.extend(common::files_with_ext(&dir, "test"));
        }
    }
    files.sort();
    files.dedup();
    let mut ran = 0;
    let mut refused: BTreeMap<Reason, usize> = BTreeMap::new();
    for f in &files {
        let Ok(program) = Session::new().load_file(f) else {
            continue;
        };
        match plan(&program) {
            Ok(p) => {
                let words = shader(&p, &ShaderOptions::default());
                match spirv_val(&words, &f.display().to_string()) {
                    None => {
                        common::skip("spirv-val is not installed (Debian `spirv-tools`)");
                        return;
                    }
                    Some(r) => r.unwrap_or_else(|e| panic!("{}: spirv-val: {e}", f.display())),
                }
                ran += 1;
            }
            Err(u) => *refused.entry(u.reason).or_insert(0) += 1,
        }
    }
    eprintln!(
        "{ran} of {} files translate; refused: {refused:?}",
        files.len()
    );
    assert!(ran > 0);
}

fn refusal(text: &str) -> Reason {
    match plan(&load_text(text)) {
        Ok(_) => panic!("planned, expected a refusal:\n{text}"),
        Err(u) => {
            assert!(!u.detail.is_empty());
            u.reason
        }
    }
}

#[test]
fn what_one_dispatch_cannot_express_is_refused_with_its_reason() {
    // Two queue families: one dispatch runs on one queue.
    assert_eq!(
        refusal(
            "VULKAN qf\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 1 ;\n st.atom.dv.sc0 x, 1 | ld.atom.dv.sc0 r0, x ;\nexists (P1:r0 == 1)\n"
        ),
        Reason::QueueFamilies
    );
    // avdevice is an API-level operation (a pipeline barrier).
    assert_eq!(
        refusal(
            "VULKAN av\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.sc0 x, 1 | ld.sc0 r0, x ;\n avdevice | ;\nexists (P1:r0 == 1)\n"
        ),
        Reason::ApiAvailability
    );
    // Two threads of one workgroup whose barriers differ in semantics.
    assert_eq!(
        refusal(
            "VULKAN bar\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n cbar.rel.wg.semsc0 0 | cbar.acq.wg.semsc0 0 ;\nexists (0 == 0)\n"
        ),
        Reason::Barrier
    );
    // A barrier in a thread with a loop.
    assert_eq!(
        refusal(
            "VULKAN barloop\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n L: | cbar.wg 0 ;\n cbar.wg 0 | ;\n ld.atom.wg.sc0 r0, x | ;\n beq r0, 1, L | ;\nexists (0 == 0)\n"
        ),
        Reason::Barrier
    );
    // The same threads with the same barrier plan fine.
    let ok = plan(&load_text(
        "VULKAN bar\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 1, wg 0, qf 0 ;\n cbar.acq_rel.wg.semsc0 0 | cbar.acq_rel.wg.semsc0 0 ;\nexists (0 == 0)\n",
    ))
    .unwrap();
    assert_eq!(ok.roles.len(), 1);
    assert_eq!(ok.roles[0].subgroups, 2);
    assert_eq!(ok.roles[0].barriers.len(), 1);
    assert!(ok.needs_subgroups);
}

#[test]
fn storage_classes_map_to_storage_buffer_or_workgroup_memory() {
    use vkmm::device::{UNIFORM_MEMORY, VkClass, WORKGROUP_MEMORY};
    // sc1 used by one workgroup only: Workgroup memory, semsc1 is
    // WorkgroupMemory, no strengthening note.
    let p = plan(&load(
        &root().join("tests/fixtures/device-smoke/wg-mp.litmus"),
    ))
    .unwrap();
    assert_eq!(p.location_class, vec![VkClass::Workgroup; 2]);
    assert_eq!(p.class_bits.get(&1), Some(&WORKGROUP_MEMORY));
    assert!(p.notes.is_empty(), "{:?}", p.notes);
    assert_eq!(p.workgroup_words(64), 128);
    // sc1 across workgroups (Dat3M test10's shape): StorageBuffer, which
    // sc0 shares: the note says the device program is stronger.
    let p = plan(&load_text(
        "VULKAN cross\n{ a=0; b=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.av.dv.sc0 a, 1 | ld.atom.acq.dv.sc1.semsc0 r0, b ;\n st.atom.rel.dv.sc1.semsc0 b, 1 | ld.vis.dv.sc0 r1, a ;\nexists (P1:r0 == 1)\n",
    ))
    .unwrap();
    assert_eq!(p.location_class, vec![VkClass::StorageBuffer; 2]);
    assert_eq!(p.class_bits.get(&1), Some(&UNIFORM_MEMORY));
    assert_eq!(p.notes.len(), 1);
    // A class only semantics name orders nothing the test accesses.
    let p = plan(&load_text(
        "VULKAN named\n{ x=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n st.atom.rel.dv.sc0.semsc1 x, 1 | ld.atom.acq.dv.sc0.semsc1 r0, x ;\nexists (P1:r0 == 1)\n",
    ))
    .unwrap();
    assert_eq!(p.class_bits.get(&0), Some(&UNIFORM_MEMORY));
    assert_eq!(p.class_bits.get(&1), Some(&WORKGROUP_MEMORY));
    assert!(p.notes.is_empty());
}

#[test]
fn alloy_tests_become_litmus_programs_over_their_read_values() {
    let p = plan(&load(&root().join("examples/mp.test"))).unwrap();
    // Every read gets a register the final states show.
    let keys: Vec<String> = (0..p.registers.len()).map(|k| p.register_key(k)).collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(p.condition.as_deref().unwrap().contains("== 1"));
}

/// `vkmm run` and `vkmm check` give a `.test` the same race verdict: the
/// device's classifier judges races on the executions where every read
/// returns the value the file pins, as the queries do. Expected verdicts are
/// the files' own `consistent[X] && #dr>0` lines (the Khronos Alloy model's
/// authors' answers under the default model), so the test reads them, not
/// vkmm's. The registers are named after the locations the reads read.
#[test]
fn run_judges_races_of_alloy_tests_as_their_queries_do() {
    let dir = common::corpus("khronos-alloy").expect("../shared/corpus/khronos-alloy");
    let mut files = common::files_with_ext(&dir, "test");
    files.push(root().join("examples/mp.test"));
    let session = Session::new();
    let (mut judged, mut wrong) = (0, Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let expected = text.lines().find_map(|l| match l.trim() {
            "SATISFIABLE consistent[X] && #dr>0" => Some(true),
            "NOSOLUTION consistent[X] && #dr>0" => Some(false),
            _ => None,
        });
        let Some(expected) = expected else { continue };
        let Ok(p) = plan(&load(f)) else { continue };
        let c = classify(&session, &f.display().to_string(), &p, &BTreeMap::new()).unwrap();
        if !c.model_complete {
            continue;
        }
        judged += 1;
        if c.racy != expected {
            wrong.push(format!(
                "{}: racy {} expected {expected}",
                f.display(),
                c.racy
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert!(judged >= 40, "only {judged} files judged");
    let p = plan(&load(&root().join("examples/mp.test"))).unwrap();
    let keys: Vec<String> = (0..p.registers.len()).map(|k| p.register_key(k)).collect();
    assert_eq!(keys, ["P1:x", "P1:y"]);
}

/// A forbidden state fed to the classifier (no device needed): a finding,
/// explained; the allowed states are not.
#[test]
fn a_forbidden_observation_is_a_finding_with_an_explanation() {
    let p = plan(&load(&root().join("tests/fixtures/device-smoke/mp.litmus"))).unwrap();
    let state = |r0: i64, r1: i64| {
        vkmm::analysis::litmus::FinalState::from_pairs([
            ("P1:r0", r0),
            ("P1:r1", r1),
            ("x", 1),
            ("flag", 1),
        ])
    };
    let mut seen = BTreeMap::new();
    seen.insert(state(1, 1), 10);
    seen.insert(state(1, 0), 3);
    let c = classify(&Session::new(), "mp", &p, &seen).unwrap();
    assert_eq!(c.findings, 1);
    let bad = c
        .histogram
        .iter()
        .find(|o| o.judgement == Judgement::Forbidden)
        .unwrap();
    assert_eq!(bad.count, 3);
    assert_eq!(bad.values.0, state(1, 0));
    let x = bad.explanation.as_deref().unwrap();
    assert!(x.contains("FORBIDDEN"), "{x}");
    let good = c
        .histogram
        .iter()
        .find(|o| o.values.0 == state(1, 1))
        .unwrap();
    assert_eq!(good.judgement, Judgement::Allowed);
    // 0,0 and 0,1 are allowed and were not seen.
    assert_eq!(c.allowed_unseen.len(), 2);
    assert!(!c.racy);
}

/// A state no execution within the unrolling bound produces is no
/// finding while the bound cut paths: one thread increments `x` in a loop
/// until it reads 2, so `x = 3` takes three iterations. At `--unroll 1`
/// the model's search cuts that path and sees no execution ending in it
/// (explain: unreachable within the bound), and the classifier says
/// undecided; at the default bound the state is allowed.
#[test]
fn a_state_the_unrolling_bound_hides_is_undecided_not_forbidden() {
    let text = "VULKAN count\n{\nx=0;\n}\n P0@sg 0, wg 0, qf 0 ;\n L0: ;\n ld.atom.dv.sc0 r0, x ;\n add r1, r0, 1 ;\n st.atom.dv.sc0 x, r1 ;\n bne r0, 2, L0 ;\nexists (x == 3)\n";
    let p = plan(&Session::new().load_text("count.litmus", text).unwrap()).unwrap();
    let state =
        vkmm::analysis::litmus::FinalState::from_pairs([("P0:r0", 2), ("P0:r1", 3), ("x", 3)]);
    let seen = BTreeMap::from([(state.clone(), 5)]);
    let judged = |session: &Session| {
        let c = classify(session, "count", &p, &seen).unwrap();
        let o = c.histogram.iter().find(|o| o.values.0 == state).unwrap();
        (o.judgement, c.findings, c.model_complete)
    };
    assert_eq!(
        judged(&Session::new().unroll(1)),
        (Judgement::Undecided, 0, false)
    );
    assert_eq!(judged(&Session::new()), (Judgement::Allowed, 0, true));
}

/// The device, or `None` after [`common::skip`] (a failure under CI,
/// which installs lavapipe) when there is none.
fn gpu() -> Option<Gpu> {
    match Gpu::open(None) {
        Ok(g) => Some(g),
        Err(e @ (DeviceError::NoLoader(_) | DeviceError::NoDevice(_))) => {
            common::skip(&e.to_string());
            None
        }
        Err(e) => panic!("{e}"),
    }
}

fn small() -> Params {
    Params {
        iterations: 10,
        ..Params::preset(Preset::Light)
    }
}

/// The final states of running the threads one after the other (both
/// orders), hand-derived per file: registers then locations, as the
/// model's states name them.
fn sequential(file: &str) -> Vec<Vec<(&'static str, i64)>> {
    match file {
        // P0 then P1: 1,1; P1 then P0: 0,0.
        "mp.litmus" => vec![
            vec![("P1:r0", 1), ("P1:r1", 1), ("x", 1), ("flag", 1)],
            vec![("P1:r0", 0), ("P1:r1", 0), ("x", 1), ("flag", 1)],
        ],
        // P0 then P1: P0 reads 0, P1 reads 1; the other order mirrors it.
        "sb.litmus" => vec![
            vec![("P0:r0", 0), ("P1:r1", 1), ("x", 1), ("y", 1)],
            vec![("P0:r0", 1), ("P1:r1", 0), ("x", 1), ("y", 1)],
        ],
        "corr.litmus" => vec![
            vec![("P1:r0", 1), ("P1:r1", 1), ("x", 1)],
            vec![("P1:r0", 0), ("P1:r1", 0), ("x", 1)],
        ],
        // Two subgroups through Workgroup memory: as mp.litmus, but only
        // one of the two is required (see `one_order_only`).
        "wg-mp.litmus" => vec![
            vec![("P1:r0", 1), ("P1:r1", 1), ("x", 1), ("flag", 1)],
            vec![("P1:r0", 0), ("P1:r1", 0), ("x", 1), ("flag", 1)],
        ],
        // Both threads meet at the barrier: P1 reads 1.
        "wg-barrier.litmus" => vec![vec![("P1:r0", 1), ("x", 1)]],
        // The first holder reads 0, the second 1; the counter ends at 2.
        "lock.litmus" => vec![
            vec![
                ("P0:r0", 0),
                ("P0:r1", 0),
                ("P1:r0", 0),
                ("P1:r1", 1),
                ("l", 0),
                ("c", 2),
            ],
            vec![
                ("P0:r0", 0),
                ("P0:r1", 1),
                ("P1:r0", 0),
                ("P1:r1", 0),
                ("l", 0),
                ("c", 2),
            ],
        ],
        // P1 spins until P0 ran: the payload arrives.
        "examples/mp.litmus" => vec![vec![("P1:r0", 1), ("P1:r1", 1), ("x", 1), ("flag", 1)]],
        other => panic!("no sequential outcomes written for {other}"),
    }
}

#[test]
fn smoke_suite_on_the_device_shows_no_forbidden_outcome_and_the_sequential_ones() {
    // Which of two subgroups of one workgroup runs first is the compiler's
    // and scheduler's choice (lavapipe runs the switch's cases of one
    // workgroup in a fixed order; placement shuffling cannot change it), and
    // Vulkan promises neither order: for wg-mp one sequential outcome must
    // show, not both. Threads in different workgroups show both orders
    // because the roles of workgroups are shuffled.
    let one_order_only = ["wg-mp.litmus"];
    let Some(gpu) = gpu() else { return };
    let session = Session::new();
    for f in smoke() {
        let name = f.display().to_string();
        let key = if name.contains("examples") {
            "examples/mp.litmus".to_string()
        } else {
            f.file_name().unwrap().to_string_lossy().into_owned()
        };
        let r = run_program(&session, &gpu, &name, &load(&f), &small(), None, false)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|s| panic!("{name}: skipped: {}", s.detail));
        let report = vkmm::device::classify::text(&r);
        assert_eq!(r.classified.findings, 0, "{report}");
        assert!(r.instances > 0, "{report}");
        let seen = |want: &Vec<(&str, i64)>| {
            let want: Vec<(String, i64)> = want.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            r.classified
                .histogram
                .iter()
                .any(|o| o.values.0.to_pairs() == want && o.judgement == Judgement::Allowed)
        };
        let wants = sequential(&key);
        if one_order_only.contains(&key.as_str()) {
            assert!(
                wants.iter().any(seen),
                "{name}: no sequential outcome observed:\n{report}"
            );
        } else {
            for want in &wants {
                assert!(
                    seen(want),
                    "{name}: the sequential outcome {want:?} was not observed:\n{report}"
                );
            }
        }
        // The model is chosen from the device's features.
        assert_eq!(r.classified.model, gpu.info.features.model());
    }
}

#[test]
fn a_broken_translation_is_caught_as_a_finding_with_an_explanation() {
    let Some(gpu) = gpu() else { return };
    // P1 spins on the flag, then reads the payload with a plain load; the
    // broken shader's plain loads return the initial value 0, so every
    // instance that leaves the loop ends with r0 == 1 and r1 == 0, which
    // the model forbids (the release/acquire pair synchronizes and ld.vis
    // sees st.av's value: `forall (P1:r1 == 1)` in the file).
    let f = root().join("examples/mp.litmus");
    let r = run_program(
        &Session::new(),
        &gpu,
        "examples/mp.litmus",
        &load(&f),
        &small(),
        Some(Breakage::PlainLoadsReadInitial),
        false,
    )
    .unwrap()
    .unwrap();
    let report = vkmm::device::classify::text(&r);
    eprintln!("{report}");
    assert!(r.classified.findings >= 1, "{report}");
    let bad = r
        .classified
        .histogram
        .iter()
        .find(|o| o.judgement == Judgement::Forbidden)
        .unwrap_or_else(|| panic!("{report}"));
    assert!(bad.values.0.get("P1:r1") == Some(0), "{report}");
    let x = bad.explanation.as_deref().unwrap();
    assert!(x.contains("FORBIDDEN"), "{x}");
    assert!(report.contains("finding:"), "{report}");
    // Nothing the correct translation shows is judged forbidden.
    assert!(
        r.classified
            .histogram
            .iter()
            .all(|o| o.judgement != Judgement::Forbidden || o.values.0.get("P1:r1") == Some(0))
    );
}

fn vkmm(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"));
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

#[test]
fn without_a_device_run_and_devices_say_so_and_exit_2() {
    // A loader that finds no driver (the loader reads both variables).
    let none = [
        ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
    ];
    for args in [
        &["run", "tests/fixtures/device-smoke/sb.litmus"][..],
        &["devices"][..],
    ] {
        let out = vkmm(args, &none);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("no Vulkan loader") || err.contains("found no device"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn run_reports_bad_input_at_its_location_and_json_carries_the_device() {
    if gpu().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("vkmm-device-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.litmus");
    std::fs::write(
        &bad,
        "VULKAN bad\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n st.atom.dv.sc0 x, ;\nexists (x == 1)\n",
    )
    .unwrap();
    let out = vkmm(&["run", bad.to_str().unwrap()], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.litmus:4:19"), "{err}");

    let out = vkmm(
        &[
            "run",
            "tests/fixtures/device-smoke/corr.litmus",
            "examples/spin-wait.litmus",
            "--iterations",
            "2",
            "--preset",
            "none",
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["command"], "run");
    assert!(
        doc["device"]["name"]
            .as_str()
            .is_some_and(|n| !n.is_empty())
    );
    assert!(
        doc["device"]["features"]["vulkan_memory_model"]
            .as_bool()
            .unwrap()
    );
    assert_eq!(doc["parameters"]["iterations"], 2);
    let run = &doc["runs"][0];
    assert_eq!(run["iterations"], 2);
    let counted: u64 = run["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["count"].as_u64().unwrap())
        .sum();
    assert_eq!(counted, run["instances"].as_u64().unwrap());
    assert!(run["histogram"][0]["values"]["P1:r0"].is_i64());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The placement tables (no device needed): for every preset and seed,
/// each instance has all its threads; threads the test puts in different
/// workgroups are in different real workgroups, in one workgroup in the
/// same one; threads in one litmus subgroup share a real subgroup, threads
/// in different litmus subgroups do not; no invocation runs two threads;
/// every instance's locations are distinct words.
#[test]
fn placement_respects_the_scope_tree_and_shuffles() {
    use vkmm::device::harness::{Rng, layout};
    use vkmm::device::spirv::{ROLE_IDLE, ROLE_STRESS};
    // Two workgroups; in wg 0 two subgroups, one with two threads.
    let text = "VULKAN place\n{ x=0; y=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 1, wg 0, qf 0 | P3@sg 0, wg 1, qf 0 ;\n st.atom.wg.sc0 x, 1 | st.atom.wg.sc0 y, 1 | ld.atom.wg.sc0 r0, x | ld.atom.dv.sc0 r1, z ;\nexists (P2:r0 == 1)\n";
    let p = plan(&load_text(text)).unwrap();
    let sg = 8u32;
    let mut first_places = Vec::new();
    for preset in [Preset::None, Preset::Light, Preset::Heavy] {
        for seed in 1..4 {
            let params = Params {
                seed,
                ..Params::preset(preset)
            };
            let mut rng = Rng::new(seed);
            let l = layout(&p, &params, sg, &mut rng);
            let s = params.workgroup_size as usize;
            assert!(l.instances > 0);
            assert_eq!(l.role.len(), l.workgroups as usize);
            assert_eq!(
                l.role.iter().filter(|r| **r == ROLE_STRESS).count(),
                params.stress_workgroups as usize
            );
            assert!(!l.role.contains(&ROLE_IDLE));
            // where[instance][thread] = (workgroup, position)
            let nt = p.threads.len();
            let mut at = vec![vec![None; nt]; l.instances];
            for (k, &e) in l.place.iter().enumerate() {
                if e == 0 {
                    continue;
                }
                let (i, t) = ((e as usize - 1) / nt, (e as usize - 1) % nt);
                assert!(at[i][t].is_none(), "instance {i} thread {t} placed twice");
                at[i][t] = Some((k / s, k % s));
                // the workgroup plays the thread's role
                assert_eq!(l.role[k / s], p.threads[t].role as u32);
            }
            for inst in &at {
                let w: Vec<(usize, usize)> = inst.iter().map(|x| x.unwrap()).collect();
                let sub = |t: usize| w[t].1 / sg as usize;
                assert_eq!(w[0].0, w[1].0);
                assert_eq!(w[0].0, w[2].0);
                assert_ne!(w[0].0, w[3].0);
                assert_eq!(sub(0), sub(1));
                assert_ne!(w[0].1, w[1].1);
                assert_ne!(sub(0), sub(2));
            }
            let nl = p.program.locations.len();
            // The MEM words of the final values (all StorageBuffer here:
            // the first copy is the same word).
            let mut words: Vec<u32> = (0..l.instances)
                .flat_map(|i| l.addr[i * 2 * nl + nl..(i + 1) * 2 * nl].to_vec())
                .collect();
            for i in 0..l.instances {
                assert_eq!(
                    l.addr[i * 2 * nl..i * 2 * nl + nl],
                    l.addr[i * 2 * nl + nl..(i + 1) * 2 * nl]
                );
            }
            words.sort();
            words.dedup();
            assert_eq!(words.len(), l.instances * nl);
            assert!(words.iter().all(|&w| (w as usize) < l.mem_words));
            if preset == Preset::Light {
                first_places.push(l.place.clone());
            }
        }
    }
    // Shuffling: different seeds place differently.
    assert_ne!(first_places[0], first_places[1]);
}

/// The reproduction of the lavapipe problem (docs/device.md, "Lavapipe and
/// threads with branches"): P1, in the second subgroup of workgroup 0,
/// has an `if` (a forward branch) and an acquire load; before the fix
/// every one of its instances was cut on lavapipe. The `if` body runs
/// when r0 == 0 and then reads x, 2 or 1 (never 0).
const IF_IN_SECOND_SUBGROUP: &str = "VULKAN if-in-second-subgroup
{ x=2; y=0; }
P0@sg 0, wg 0, qf 0            | P1@sg 1, wg 0, qf 0 ;
st.atom.wg.sc0 x, 1            | ld.atom.acq.wg.sc0.semsc0 r0, y ;
st.atom.rel.wg.sc0.semsc0 y, 1 | LC00: ;
                               | bne r0, 0, LC01 ;
                               | ld.atom.wg.sc0 r1, x ;
                               | LC01: ;
exists (P1:r0 == 1 /\\ P1:r1 == 0)
";

/// How many loops (`OpLoopMerge`) a plan's shader has.
fn loops_in_shader(program: &vkmm::ir::Program) -> usize {
    let p = plan(program).unwrap_or_else(|u| panic!("{u}"));
    let m = vkmm::device::spirv::module(&p, &ShaderOptions::default());
    m.functions
        .iter()
        .flat_map(|f| &f.blocks)
        .flat_map(|b| &b.instructions)
        .filter(|i| i.class.opcode == rspirv::spirv::Op::LoopMerge)
        .count()
}

#[test]
fn a_thread_with_only_forward_branches_runs_without_a_loop() {
    // The harness's loops: the stress loop and one start-barrier loop per
    // role (litmus workgroup). A thread whose jumps all go forward adds
    // none; a thread with a backward jump adds its statement loop
    // (examples/mp.litmus: two roles, P1 spins).
    assert_eq!(loops_in_shader(&load_text(IF_IN_SECOND_SUBGROUP)), 2);
    assert_eq!(
        loops_in_shader(&load(&root().join("examples/opencl-mp.litmus"))),
        2
    );
    // examples/mp.litmus: P1's role also gets the switch-point padding
    // loop after its results (docs/device.md, "Spin loops within one
    // workgroup").
    assert_eq!(
        loops_in_shader(&load(&root().join("examples/mp.litmus"))),
        1 + 2 + 1 + 1
    );
}

#[test]
fn threads_with_an_if_outside_the_first_subgroup_complete_their_instances() {
    let Some(gpu) = gpu() else { return };
    let session = Session::new();
    let mp = root().join("examples/opencl-mp.litmus");
    for (name, program) in [
        ("if-in-second-subgroup", load_text(IF_IN_SECOND_SUBGROUP)),
        ("examples/opencl-mp.litmus", load(&mp)),
    ] {
        let r = run_program(&session, &gpu, name, &program, &small(), None, false)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|s| panic!("{name}: skipped: {}", s.detail));
        let report = vkmm::device::classify::text(&r);
        // Every instance completes: no spin loop waits on anything.
        assert!(r.instances > 0, "{report}");
        assert_eq!(r.cut, 0, "{report}");
        assert_eq!(
            r.instances,
            r.iterations * r.instances_per_iteration as u64,
            "{report}"
        );
        assert_eq!(r.classified.findings, 0, "{report}");
        // P1's code after its branch ran: in the reproduction the `if`
        // body read x (2 or 1) whenever r0 == 0; in opencl-mp r1 is -1
        // (body skipped) or 1 (body ran); 0 would be a register never written.
        let has =
            |o: &vkmm::device::classify::Observation, k: &str, v: i64| o.values.0.get(k) == Some(v);
        assert!(
            r.classified.histogram.iter().all(|o| !has(o, "P1:r1", 0)),
            "{report}"
        );
        assert!(
            r.classified
                .histogram
                .iter()
                .all(|o| o.judgement != Judgement::Forbidden),
            "{report}"
        );
    }
}

/// A spin loop waiting on a partner in another subgroup of the same
/// workgroup (docs/device.md, "Spin loops within one workgroup"): before
/// the switch-point padding every instance was cut on lavapipe.
const SPIN_IN_SECOND_SUBGROUP: &str = "VULKAN spin-in-second-subgroup
{ x=0; flag=0; }
P0@sg 0, wg 0, qf 0               | P1@sg 1, wg 0, qf 0 ;
st.atom.wg.sc0 x, 1               | LOOP: ;
st.atom.rel.wg.sc0.semsc0 flag, 1 | ld.atom.acq.wg.sc0.semsc0 r0, flag ;
                                  | beq r0, 0, LOOP ;
                                  | ld.atom.wg.sc0 r1, x ;
exists (P1:r1 == 0)
";

/// The same in OpenCL: a `while` loop on an atomic flag in one work-group
/// (threads without `sg` in one work-group are in different sub-groups).
const OPENCL_SPIN_IN_ONE_WORKGROUP: &str = "OPENCL opencl-spin
{ [x]=0; [y]=0; }
P0@wg 0, dev 0 (global int* x, global atomic_int* y) {
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_release, memory_scope_work_group);
}
P1@wg 0, dev 0 (global int* x, global atomic_int* y) {
  int r0 = 0;
  while (r0 == 0) { r0 = atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group); }
  int r1 = *x;
}
exists (1:r1=0)
";

#[test]
fn spin_loops_waiting_on_another_subgroup_of_the_workgroup_complete() {
    let Some(gpu) = gpu() else { return };
    let session = Session::new();
    for (name, text) in [
        ("spin-in-second-subgroup", SPIN_IN_SECOND_SUBGROUP),
        ("opencl-spin", OPENCL_SPIN_IN_ONE_WORKGROUP),
    ] {
        let program = load_text(text);
        let r = run_program(&session, &gpu, name, &program, &small(), None, false)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .unwrap_or_else(|s| panic!("{name}: skipped: {}", s.detail));
        let report = vkmm::device::classify::text(&r);
        assert!(r.instances > 0, "{report}");
        assert_eq!(r.classified.findings, 0, "{report}");
        // None forbidden, and the loop's exit: every counted instance left
        // it with the flag read as 1 and then read the payload 1 (acquire
        // after release).
        for o in &r.classified.histogram {
            assert_ne!(o.judgement, Judgement::Forbidden, "{report}");
            assert!(o.values.0.get("P1:r0") == Some(1), "{report}");
            assert!(o.values.0.get("P1:r1") == Some(1), "{report}");
        }
    }
}
