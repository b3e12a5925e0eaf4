//! Shader calls (issue 16 item 1, docs/coverage.md): "Shader Call Related",
//! "Shader Call Order", the synchronizes-with rule for shader-call-ordered
//! barriers, the ShaderCallKHR scope and its shader call instance domain
//! (with the three positions the specification leaves to the
//! implementation as named variants), and Shader I/O of the ray tracing
//! storage classes. Hand-derived verdicts in tests/fixtures/litmus-shadercall (each
//! file quotes its sentence), the spelling with its located errors, and
//! mutation tests: each new clause, broken, changes a named verdict.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::analysis::Property;
use vkmm::ir::{CallKind, OpKind, Scope, ShaderStage, Stmt};
use vkmm::model::LoadedModel;

const RULES: &str = include_str!("../../models/vulkan-rules.cat");
const READINGS: &str = include_str!("../../models/vulkan-spec-readings.cat");

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-shadercall")
}

#[test]
fn litmus_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 33);
}

/// The verdict of the condition of `file` under `model`.
fn condition(file: &str, model: &LoadedModel) -> bool {
    let program = vkmm::frontend::load(&dir().join(file)).unwrap();
    vkmm::analysis::check_litmus(file, &program, model, Default::default(), None)
        .unwrap()
        .holds(Property::Condition)
        .unwrap()
}

/// The tests whose verdict depends on the position of the shader call
/// instance domain: the three position tests and the five chain tests.
const POSITION_TESTS: [&str; 8] = [
    "position-subgroup-above.litmus",
    "position-subgroup-below.litmus",
    "position-workgroup-above.litmus",
    "chain-shcall-to-workgroup.litmus",
    "chain-shcall-to-subgroup.litmus",
    "vischain-workgroup-to-shcall.litmus",
    "vischain-subgroup-to-shcall.litmus",
    "chain-workgroup-shcall-queuefamily.litmus",
];

/// "The shader call instance domain is at an implementation-dependent
/// location in the list, and is nested according to that location": the
/// default knows no position; each variant is one position. The three
/// position tests tell all four apart by which domains one operation
/// reaches; the chain tests by which availability and visibility chains
/// ("to increasingly broad memory domains", "from increasingly narrow
/// memory domains") pass through the shader call instance domain.
#[test]
fn each_position_of_the_shader_call_instance_domain_is_a_variant() {
    // whether the stale value is allowed, per test of POSITION_TESTS
    for (model, expected) in [
        ("vulkan", [true, true, true, true, true, true, true, true]),
        (
            "vulkan-shcall-wide",
            [false, true, false, true, true, true, true, false],
        ),
        (
            "vulkan-shcall-mid",
            [false, true, true, false, true, false, true, true],
        ),
        (
            "vulkan-shcall-narrow",
            [true, false, true, false, false, false, false, true],
        ),
    ] {
        let m = vkmm::model::load(model).unwrap();
        let got: Vec<bool> = POSITION_TESTS.iter().map(|t| condition(t, &m)).collect();
        assert_eq!(got, expected, "{model}");
    }
    // Every other test keeps its verdict in every position.
    for model in [
        "vulkan-shcall-wide",
        "vulkan-shcall-mid",
        "vulkan-shcall-narrow",
    ] {
        let m = vkmm::model::load(model).unwrap();
        let wrong: Vec<String> = common::csv_mismatches(&dir(), &m)
            .into_iter()
            .filter(|w| !POSITION_TESTS.iter().any(|t| w.starts_with(t)))
            .collect();
        assert!(wrong.is_empty(), "{model}: {wrong:?}");
    }
}

/// The bindings of the mid and narrow positions
/// (models/vulkan-shcall-mid.cat, -narrow.cat), appended to the readings.
const MID: &str = "\nlet SCD_BELOW_WG = _\nlet SCD_ABOVE_SG = _\n";
const NARROW: &str = "\nlet SCD_BELOW_WG = _\nlet SCD_BELOW_SG = _\n";

/// Mutations of the chains through the shader call instance domain, each
/// checked under the position where the broken clause applies: (what it
/// breaks, text to replace, replacement, position bindings, a position
/// test whose verdict it changes).
const CHAIN_MUTATIONS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "mid: an availability chain continues from the shader call instance domain into the workgroup instance domain",
        "((avsg ; sg_link) | ([SCD_BELOW_WG] ; avsc_low ; sc_link))?",
        "(avsg ; sg_link)?",
        MID,
        "chain-shcall-to-workgroup.litmus",
    ),
    (
        "narrow: an availability chain continues from the shader call instance domain into the subgroup instance domain",
        "let avsg = (chains & ([SCD_BELOW_SG] ; [AVSC] ; sc_link)?) ; [AVSG]",
        "let avsg = [AVSG]",
        NARROW,
        "chain-shcall-to-subgroup.litmus",
    ),
    (
        "mid: a visibility chain continues from the workgroup instance domain into the shader call instance domain",
        "((sg_link ; vissg) | ([SCD_BELOW_WG] ; sc_link ; vissc_low))?",
        "(sg_link ; vissg)?",
        MID,
        "vischain-workgroup-to-shcall.litmus",
    ),
    (
        "narrow: a visibility chain continues from the subgroup instance domain into the shader call instance domain",
        "let vissg = [VISSG] ; (chains & ([SCD_BELOW_SG] ; sc_link ; [VISSC])?)",
        "let vissg = [VISSG]",
        NARROW,
        "vischain-subgroup-to-shcall.litmus",
    ),
    (
        "a chain enters the shader call instance domain from the workgroup instance domain only where it is broader",
        "(avfi ; fi_link)?) | (avsc ; sc_link)",
        "(avfi ; fi_link)? ; (avsc ; sc_link)?)",
        MID,
        "chain-workgroup-shcall-queuefamily.litmus",
    ),
];

#[test]
fn every_shader_call_chain_mutation_changes_a_position_verdict() {
    let mut survivors = Vec::new();
    for (what, from, to, position, witness) in CHAIN_MUTATIONS {
        assert!(RULES.contains(from), "mutation `{what}` no longer applies");
        let readings = format!("{READINGS}{position}");
        let intact = common::vulkan_mutant(RULES, Some(&readings));
        let mutant = common::vulkan_mutant(&RULES.replacen(from, to, 1), Some(&readings));
        if condition(witness, &intact) == condition(witness, &mutant) {
            survivors.push(format!("{what} (expected {witness} to change)"));
        }
    }
    assert!(survivors.is_empty(), "surviving mutations: {survivors:#?}");
}

/// (what the mutation breaks, text to replace, replacement, a test whose
/// verdict it changes)
const MUTATIONS: &[(&str, &str, &str, &str)] = &[
    (
        "Synchronizes-With: shader-call-ordered release and acquire barriers",
        "let sw = sw | sw_shcall",
        "let sw = sw",
        "return-barriers.litmus",
    ),
    (
        "Shader call exit: the callee's instances are ordered before the caller's next one",
        "let shcall_exit = scall^-1 ; [SHCALL] ; imm(po)",
        "let shcall_exit = 0",
        "return-barriers.litmus",
    ),
    (
        "Shader call entry: the call is ordered before the created invocation's instances",
        "let shcall_entry = [SHCALL] ; scall",
        "let shcall_entry = 0",
        "entry-barriers.litmus",
    ),
    (
        "shader call order is partial: invocations one call creates are unordered",
        "let shcall_order = [RT] ; (po | shcall_entry | shcall_exit)+ ; [RT]",
        "let shcall_order = [RT] ; (po | shcall_entry | shcall_exit | scr)+ ; [RT]",
        "siblings-barriers.litmus",
    ),
    (
        "the barriers must be in each other's scope instance",
        "let sw_shcall = inscope & ([REL & F] ; shcall_order ; [ACQ & F])",
        "let sw_shcall = [REL & F] ; shcall_order ; [ACQ & F]",
        "return-barriers-subgroup.litmus",
    ),
    (
        "the shader call instance holds the shader-call-related invocations only",
        "let inscope_sc = scr &",
        "let inscope_sc = sqf &",
        "unrelated-mp-device.litmus",
    ),
    (
        "ShaderCallKHR operations are in each other's scope instance",
        "            | inscope_sc\n",
        "\n",
        "siblings-mp.litmus",
    ),
    (
        "ShaderCallKHR scope uses the shader call instance domain",
        "                   | locord_shcall_domain",
        "",
        "siblings-mp.litmus",
    ),
    (
        "Shader I/O: a caller's ray tracing data writes are visible to its callee's reads",
        "   | locord_shader_call_io\n",
        "\n",
        "callee-reads-payload.litmus",
    ),
    (
        "Shader I/O (ray tracing): only the ray tracing storage classes",
        "let ssw_shader_call_io = sloc & ([W & RTDATA] ; sgen ; [R & RTDATA])",
        "let ssw_shader_call_io = sloc & ([W] ; sgen ; [R])",
        "callee-reads-plain.litmus",
    ),
    (
        "Shader I/O (ray tracing): only to the invocations the writer contributes to generating",
        "let ssw_shader_call_io = sloc & ([W & RTDATA] ; sgen ; [R & RTDATA])",
        "let ssw_shader_call_io = sloc & ([W & RTDATA] ; (_ * _) ; [R & RTDATA])",
        "callable-data-not-called.litmus",
    ),
    (
        "Shader I/O (ray tracing): not back to the caller",
        "let ssw_shader_call_io = sloc & ([W & RTDATA] ; sgen ; [R & RTDATA])",
        "let ssw_shader_call_io = sloc & ([W & RTDATA] ; (sgen | sgen^-1) ; [R & RTDATA])",
        "return-no-io.litmus",
    ),
    (
        "the default knows no position of the shader call instance domain",
        "let SCD_ABOVE_SG = {}",
        "let SCD_ABOVE_SG = _",
        "position-subgroup-above.litmus",
    ),
    (
        "the default knows no position (below the subgroup instance domain)",
        "let SCD_BELOW_SG = {}",
        "let SCD_BELOW_SG = _",
        "position-subgroup-below.litmus",
    ),
    (
        "the default knows no position (above the workgroup instance domain)",
        "let SCD_ABOVE_WG = {}",
        "let SCD_ABOVE_WG = _",
        "position-workgroup-above.litmus",
    ),
];

#[test]
fn every_shader_call_mutation_changes_a_verdict() {
    let mut survivors = Vec::new();
    for (what, from, to, witness) in MUTATIONS {
        let model = if RULES.contains(from) {
            common::vulkan_mutant(&RULES.replacen(from, to, 1), Some(READINGS))
        } else {
            assert!(
                READINGS.contains(from),
                "mutation `{what}` no longer applies"
            );
            common::vulkan_mutant(RULES, Some(&READINGS.replacen(from, to, 1)))
        };
        let wrong = common::csv_mismatches(&dir(), &model);
        if !wrong.iter().any(|w| w.starts_with(witness)) {
            survivors.push(format!(
                "{what} (expected {witness} to change; changed: {wrong:?})"
            ));
        }
    }
    assert!(survivors.is_empty(), "surviving mutations: {survivors:#?}");
}

// ----- spelling ---------------------------------------------------------------

fn parse(text: &str) -> Result<vkmm::ir::Program, String> {
    let format = vkmm::frontend::Format::VulkanLitmus;
    vkmm::frontend::parse_text("t.litmus", text, format, Default::default())
        .map_err(|e| e.to_string())
}

#[test]
fn stages_calls_data_and_the_scope_are_spelt_in_the_litmus_dialect() {
    let p = vkmm::frontend::load(&dir().join("siblings-mp.litmus")).unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::RayGeneration));
    assert_eq!(p.stage(1), Some(ShaderStage::AnyHit));
    assert_eq!(p.stage(2), Some(ShaderStage::ClosestHit));
    let Stmt::Op(call) = &p.threads[0].code[0] else {
        panic!("an instruction")
    };
    assert_eq!(
        call.kind,
        OpKind::ShaderCall {
            callees: vec![1, 2],
            call: CallKind::TraceRay
        }
    );
    let Stmt::Op(flag) = &p.threads[1].code[2] else {
        panic!("an instruction")
    };
    assert_eq!(flag.scope, Some(Scope::ShaderCall));
    let q = vkmm::frontend::load(&dir().join("callable-data.litmus")).unwrap();
    let Stmt::Op(w) = &q.threads[0].code[0] else {
        panic!("an instruction")
    };
    assert_eq!(w.interface, Some(vkmm::ir::Interface::CallableData));
    // Printing gives the text back.
    for file in [
        "siblings-mp.litmus",
        "callable-data.litmus",
        "return-no-io.litmus",
    ] {
        let p = vkmm::frontend::load(&dir().join(file)).unwrap();
        let text = vkmm::frontend::vulkan_litmus::print::to_litmus(&p);
        let again = parse(&text).unwrap_or_else(|e| panic!("{file}: {e}\n{text}"));
        assert_eq!(again.stages, p.stages, "{file}");
        assert_eq!(
            vkmm::frontend::vulkan_litmus::print::to_litmus(&again),
            text,
            "{file}"
        );
    }
}

const HEAD: &str = "VULKAN t\n{\nx=0;\n}\n";

/// Located errors: (program body, line:col, words the message has).
#[test]
fn bad_shader_calls_are_located_errors() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace P2 | ld.sc0 r0, x ;\n",
            "6:2",
            &["`trace` names P2, which is not declared"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace P0 | ld.sc0 r0, x ;\n",
            "6:2",
            &["P0 itself"],
        ),
        (
            " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0, rchit ;\n trace P1 | ld.sc0 r0, x ;\n",
            "6:2",
            &["OpTraceRayKHR", "rgen, rchit, rmiss", "no stage"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rcall ;\n trace P1 | ld.sc0 r0, x ;\n",
            "6:2",
            &[
                "creates rint, rahit, rchit, rmiss invocations",
                "stage rcall",
            ],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rcall | P1@sg 0, wg 0, qf 0, rcall ;\n call P1 | call P0 ;\n",
            "6:12",
            &["cycle through P0"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rgen | P2@sg 0, wg 0, qf 0, rcall ;\n call P2 | call P2 | ;\n",
            "6:12",
            &["created by a shader call of P0 already"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 1, rcall ;\n call P1 | ld.sc0 r0, x ;\n",
            "6:2",
            &["not broader than the queue family instance domain"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rcall ;\n ld.sc0 r9, x | ld.sc0 r0, x ;\n beq r9, 0, L | ;\n call P1 | ;\n L: | ;\n",
            "8:2",
            &["branches", "exactly once"],
        ),
        (
            " P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;\n st.atom.shcall.sc0 x, 1 | ld.sc0 r0, x ;\n",
            "6:2",
            &["ShaderCallKHR scope in P0", "shader-call-related"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace.shcall P1 | ld.sc0 r0, x ;\n",
            "6:7",
            &["takes no attribute"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace 1 | ld.sc0 r0, x ;\n",
            "6:8",
            &["expected the thread `trace` creates"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace P1 | ld.payload.input.sc0 r0, x ;\n",
            "6:24",
            &["`input` repeats `payload`"],
        ),
        (
            " P0@sg 0, wg 0, qf 0, rgen | P1@sg 0, wg 0, qf 0, rchit ;\n trace P1 | membar.payload.acq.shcall.semsc0 ;\n",
            "6:20",
            &["`payload` only applies to memory accesses"],
        ),
    ];
    for (body, at, words) in cases {
        let text = format!("{HEAD}{body}exists (x == 0)\n");
        let e = match parse(&text) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        };
        assert!(e.contains(&format!("t.litmus:{at}")), "{e}\n{text}");
        for w in *words {
            assert!(e.contains(w), "`{w}` not in: {e}");
        }
    }
}

// ----- the Alloy `.test` spelling ------------------------------------------------

/// The `.test` files of tests/fixtures/litmus-shadercall pass their queries, and
/// each mutation of `witness` rules changes one of them.
#[test]
fn alloy_tests_pass_their_queries_and_catch_their_mutations() {
    let files = [
        "return-barriers.test",
        "return-barriers-subgroup.test",
        "payload.test",
        "payload-not-traced.test",
    ];
    let failing = |model: &LoadedModel| -> Vec<&str> {
        let models = vkmm::analysis::Models {
            chains: model.clone(),
            no_chains: model.clone(),
        };
        files
            .iter()
            .copied()
            .filter(|f| {
                !common::check_path(&dir().join(f), &models)
                    .unwrap()
                    .passed()
            })
            .collect()
    };
    assert_eq!(
        failing(&vkmm::model::load("vulkan").unwrap()),
        Vec::<&str>::new()
    );
    for (from, to, witness) in [
        (
            "let sw = sw | sw_shcall",
            "let sw = sw",
            "return-barriers.test",
        ),
        (
            "let sw_shcall = inscope & ([REL & F] ; shcall_order ; [ACQ & F])",
            "let sw_shcall = [REL & F] ; shcall_order ; [ACQ & F]",
            "return-barriers-subgroup.test",
        ),
        ("   | locord_shader_call_io\n", "\n", "payload.test"),
        (
            "let ssw_shader_call_io = sloc & ([W & RTDATA] ; sgen ; [R & RTDATA])",
            "let ssw_shader_call_io = sloc & ([W & RTDATA] ; (_ * _) ; [R & RTDATA])",
            "payload-not-traced.test",
        ),
    ] {
        assert!(RULES.contains(from), "{from}");
        let m = common::vulkan_mutant(&RULES.replacen(from, to, 1), Some(READINGS));
        assert!(failing(&m).contains(&witness), "{from} -> {to}");
    }
}

#[test]
fn bad_shader_calls_in_alloy_tests_are_located_errors() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "NEWTHREAD\nSTAGE rgen\ntrace 4\nNEWTHREAD\nSTAGE rchit\nld.sc0 x = 0\n",
            "t.test:3:7",
            "thread 4 is not declared",
        ),
        (
            "NEWTHREAD\nSTAGE rgen\ncall 1\nNEWTHREAD\nSTAGE rchit\nld.sc0 x = 0\n",
            "t.test:3:1",
            "creates rcall invocations, but thread 1 has stage rchit",
        ),
        (
            "NEWTHREAD\nSTAGE rcall\ncall 1\nNEWTHREAD\nSTAGE rcall\ncall 0\n",
            "t.test:6:1",
            "cycle",
        ),
        (
            "NEWTHREAD\nst.atom.scopeshcall.sc0 x = 1\n",
            "t.test:2:1",
            "ShaderCallKHR scope in thread 0",
        ),
        (
            "NEWTHREAD\nSTAGE rgen\ntrace\n",
            "t.test:3:6",
            "expected the thread number",
        ),
    ];
    for (body, at, words) in cases {
        let text = format!("{body}SATISFIABLE consistent[X]\n");
        let format = vkmm::frontend::Format::AlloyTest;
        let e = match vkmm::frontend::parse_text("t.test", &text, format, Default::default()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(at), "{e}\n{text}");
        assert!(e.contains(words), "`{words}` not in: {e}");
    }
}

/// `vkmm show` draws each shader call: the call to the first instruction
/// of the invocation it creates, its last instruction to the caller's next.
#[test]
fn show_draws_the_call_edges() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("show")
        .arg(dir().join("return-barriers.litmus"))
        .args(["--outcome", "P0:r0 == 1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let dot = String::from_utf8(out.stdout).unwrap();
    // e0 `call P1`, e1 the caller's acquire barrier, e3 and e4 the callee's
    // store and release barrier.
    let call_edges: Vec<&str> = dot
        .lines()
        .filter(|l| l.contains("constraint=false") && l.contains(">shcall<"))
        .map(|l| l.trim().split(" [").next().unwrap())
        .collect();
    assert_eq!(call_edges, ["e0 -> e3", "e4 -> e1"], "{dot}");
    assert!(dot.contains("shcall_calls"), "legend: {dot}");
}
