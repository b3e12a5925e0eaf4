//! The parts of the Vulkan memory model appendix issue 16 added (docs/coverage.md):
//! scopes and semantics that were unspellable (Invocation, CrossDevice, the
//! texel and tensor-element flags), and the sections after them. vkmm's own
//! tests in tests/fixtures/litmus-appendix (the two CSVs, verdicts derived by hand
//! from the sentence each file quotes) and the `.test` rule tests in
//! tests/fixtures/litmus they name; the spelling of each construct in both Vulkan
//! dialects with its located errors; and mutation tests: each new rule of
//! the models, broken, changes the verdict of a named test.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::ir::{AccessKind, Program, Scope, Stmt};
use vkmm::model::LoadedModel;

const RULES: &str = include_str!("../../models/vulkan-rules.cat");
const READINGS: &str = include_str!("../../models/vulkan-spec-readings.cat");

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-appendix")
}

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus")
}

/// The CSV rows (and `.test` files among `tests`) whose verdict under
/// `model` differs from the expected one.
fn wrong(model: &LoadedModel, tests: &[&str]) -> Vec<String> {
    let mut out = common::csv_mismatches(&dir(), model);
    let models = vkmm::analysis::Models {
        chains: model.clone(),
        no_chains: model.clone(),
    };
    for t in tests {
        let o = common::check_path(&rules_dir().join(t), &models).unwrap();
        if !o.passed() {
            out.push(format!("{t} (queries)"));
        }
    }
    out
}

#[test]
fn litmus_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 16);
}

/// The model `vulkan` with its rules and readings replaced.
fn mutant(rules: &str, readings: &str) -> LoadedModel {
    common::vulkan_mutant(rules, Some(readings))
}

/// (what the mutation breaks, text to replace, replacement, a test whose
/// verdict it changes: a file of tests/fixtures/litmus-appendix or a `.test` of
/// tests/fixtures/litmus)
const MUTATIONS: &[(&str, &str, &str, &str)] = &[
    (
        "Invocation scope performs no availability/visibility operations",
        "let invocation_avvis = {}",
        "let invocation_avvis = SCOPEINV",
        "avvis-invocation-scope.test",
    ),
    (
        "the Invocation scope instance is one invocation",
        "            | (sthd & (INVSCOPE * INVSCOPE))",
        "            | (ssg & (INVSCOPE * INVSCOPE))",
        "inv-atomics.litmus",
    ),
    (
        "CrossDevice availability/visibility includes the shader domain",
        "let DEVSCOPE = SCOPEDEV | SCOPECD",
        "let DEVSCOPE = SCOPEDEV",
        "cd-mp.litmus",
    ),
    (
        "Output accesses are ordered across a control barrier (tessellation)",
        "   | locord_tess_output\n",
        "\n",
        "tess-output-barrier.litmus",
    ),
    (
        "the tessellation rule is for TessellationControl invocations",
        "let TESSOUT = M & OUTPUT & TESC & TESS_BARRIER_ORDERS",
        "let TESSOUT = M & OUTPUT",
        "tess-output-no-stage.litmus",
    ),
    (
        "the tessellation rule is for the Output storage class",
        "let TESSOUT = M & OUTPUT & TESC & TESS_BARRIER_ORDERS",
        "let TESSOUT = M & TESC & TESS_BARRIER_ORDERS",
        "tess-output-not-output.litmus",
    ),
    (
        "the barrier is one dynamic instance in one execution-scope instance",
        "[EXECWG] ; scbarinst ; [EXECWG]",
        "[EXECWG] ; (CBAR * CBAR) ; [EXECWG]",
        "tess-output-other-workgroup.litmus",
    ),
    (
        "the barrier's execution scope is Workgroup",
        "[TESSOUT] ; po ; [EXECWG] ; scbarinst ; [EXECWG] ; po ; [TESSOUT]",
        "[TESSOUT] ; po ; [CBAR] ; scbarinst ; [CBAR] ; po ; [TESSOUT]",
        "tess-output-subgroup-barrier.test",
    ),
    (
        "the specification's reading applies the rule to every TessellationControl invocation",
        "let TESS_BARRIER_ORDERS = TESC",
        "let TESS_BARRIER_ORDERS = {}",
        "tess-output-barrier.test",
    ),
    (
        "Output writes are visible to the Input reads of the invocations they generate",
        "   | locord_shader_io\n",
        "\n",
        "shader-io.litmus",
    ),
    (
        "Shader I/O: only for readers in a stage other than Vertex",
        "[(R & INPUT) \\ VERT]",
        "[R & INPUT]",
        "shader-io-vertex-reader.test",
    ),
    (
        "Shader I/O: only writes to Output variables",
        "([W & OUTPUT] ; sgen ;",
        "([W] ; sgen ;",
        "shader-io-not-output.litmus",
    ),
    (
        "Shader I/O: only reads from Input variables",
        "[(R & INPUT) \\ VERT]",
        "[R \\ VERT]",
        "shader-io-not-input.litmus",
    ),
    (
        "Shader I/O: only from the invocations that contribute to generating the reader",
        "([W & OUTPUT] ; sgen ;",
        "([W & OUTPUT] ; (_ * _) ;",
        "shader-io-no-gen.litmus",
    ),
    (
        "every memory operation must happen-before the deallocation",
        "let dr = dr | dr_dealloc | dr_dealloc^-1",
        "let dr = dr",
        "dealloc-use-after-free.litmus",
    ),
    (
        "an access after the free is no excuse (happens-before, not either way)",
        "let dr_dealloc = ([M] ; sloc ; [DEALLOC]) \\ hb",
        "let dr_dealloc = ([M] ; sloc ; [DEALLOC]) \\ (hb | hb^-1)",
        "dealloc-use-after-free.test",
    ),
    (
        "synchronization orders an access before the deallocation",
        "let dr_dealloc = ([M] ; sloc ; [DEALLOC]) \\ hb",
        "let dr_dealloc = ([M] ; sloc ; [DEALLOC]) \\ po",
        "dealloc-after-sync.litmus",
    ),
    (
        "a deallocation concerns the memory it frees only",
        "let dr_dealloc = ([M] ; sloc ; [DEALLOC]) \\ hb",
        "let dr_dealloc = (M * DEALLOC) \\ hb",
        "dealloc-other-location.litmus",
    ),
];

/// The `.test` files the mutations name.
fn mutation_tests() -> Vec<&'static str> {
    MUTATIONS
        .iter()
        .map(|m| m.3)
        .filter(|t| t.ends_with(".test"))
        .collect()
}

#[test]
fn every_appendix_mutation_changes_a_verdict() {
    let tests = mutation_tests();
    assert_eq!(
        wrong(&mutant(RULES, READINGS), &tests),
        Vec::<String>::new()
    );
    let mut survivors = Vec::new();
    for (what, from, to, witness) in MUTATIONS {
        let model = if RULES.contains(from) {
            mutant(&RULES.replacen(from, to, 1), READINGS)
        } else {
            assert!(
                READINGS.contains(from),
                "mutation `{what}` no longer applies"
            );
            mutant(RULES, &READINGS.replacen(from, to, 1))
        };
        let wrong = wrong(&model, &tests);
        if !wrong.iter().any(|w| w.starts_with(witness)) {
            survivors.push(format!(
                "{what} (expected {witness} to change; changed: {wrong:?})"
            ));
        }
    }
    assert!(survivors.is_empty(), "{survivors:#?}");
}

// ----- spelling in both dialects --------------------------------------------

fn parse(name: &str, text: &str) -> Result<Program, String> {
    let format = if name.ends_with(".test") {
        vkmm::frontend::Format::AlloyTest
    } else {
        vkmm::frontend::Format::VulkanLitmus
    };
    vkmm::frontend::parse_text(name, text, format, Default::default()).map_err(|e| e.to_string())
}

fn instructions(p: &Program, t: usize) -> Vec<&vkmm::ir::Instruction> {
    p.threads[t]
        .code
        .iter()
        .filter_map(|s| match s {
            Stmt::Op(i) => Some(i),
            _ => None,
        })
        .collect()
}

const HEAD: &str = "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0 ;\n";

fn litmus(rows: &str) -> String {
    format!("{HEAD}{rows}")
}

#[test]
fn invocation_and_crossdevice_scopes_are_spelt_in_both_dialects() {
    let p = parse(
        "t.litmus",
        &litmus(" st.atom.inv.sc0 x, 1 ;\n ld.atom.cd.sc0 r0, x ;\n"),
    )
    .unwrap();
    let i = instructions(&p, 0);
    assert_eq!(
        (i[0].scope, i[1].scope),
        (Some(Scope::Invocation), Some(Scope::CrossDevice))
    );
    let p = parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.atom.scopeinv.sc0 x = 1\nld.atom.scopecd.sc0 x\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    let i = instructions(&p, 0);
    assert_eq!(
        (i[0].scope, i[1].scope),
        (Some(Scope::Invocation), Some(Scope::CrossDevice))
    );
    // printing gives the same tokens back
    let printed = vkmm::frontend::vulkan_litmus::print::to_litmus(&p);
    assert!(
        printed.contains("st.atom.inv.sc0 x,") && printed.contains("ld.atom.cd.sc0"),
        "{printed}"
    );
}

#[test]
fn texel_and_element_flags_are_the_pointer_flags_of_image_and_tensor_accesses() {
    let p = parse(
        "t.litmus",
        &litmus(
            " st.avtexel.wg.sc2 x, 1 ;\n ld.vistexel.wg.sc2 r0, x ;\n ld.nonprivtexel.sc2 r1, x ;\n st.avelem.wg.sc0 x, 2 ;\n ld.viselem.wg.sc0 r2, x ;\n ld.nonprivelem.sc0 r3, x ;\n ld.nonpriv.sc0 r4, x ;\n",
        ),
    )
    .unwrap();
    let i = instructions(&p, 0);
    let kinds: Vec<AccessKind> = i.iter().map(|i| i.access_kind).collect();
    use AccessKind::*;
    assert_eq!(
        kinds,
        [
            Texel, Texel, Texel, ElementArm, ElementArm, ElementArm, Pointer
        ]
    );
    assert!(i[0].make_pointer_available && i[0].non_private && !i[0].make_pointer_visible);
    assert!(i[1].make_pointer_visible && i[1].non_private && !i[1].make_pointer_available);
    assert!(i[2].non_private && !i[2].make_pointer_visible);
    assert!(i[3].make_pointer_available && i[4].make_pointer_visible && i[5].non_private);
    // the printer spells them back and the round trip is exact
    let printed = vkmm::frontend::vulkan_litmus::print::try_to_litmus(&p).unwrap();
    for tok in [
        "st.avtexel.wg.sc2",
        "ld.vistexel.wg.sc2",
        "ld.nonprivtexel.sc2",
        "st.avelem.wg.sc0",
        "ld.viselem.wg.sc0",
        "ld.nonprivelem.sc0",
        "ld.nonpriv.sc0",
    ] {
        assert!(printed.contains(tok), "{tok} in {printed}");
    }
    // the .test dialect
    let p = parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.avtexel.scopewg.sc2 x = 1\nld.viselem.scopewg.sc0 x\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    let i = instructions(&p, 0);
    assert_eq!((i[0].access_kind, i[1].access_kind), (Texel, ElementArm));
}

#[test]
fn mixed_or_atomic_texel_flags_are_located_errors() {
    let e = parse("t.litmus", &litmus(" st.avtexel.nonpriv.wg.sc2 x, 1 ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:13:")
            && e.contains(
                "`nonpriv` is a pointer flag but `avtexel` made this a image (texel) access"
            ),
        "{e}"
    );
    let e = parse("t.litmus", &litmus(" ld.vis.viselem.wg.sc0 r0, x ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:9:") && e.contains("`viselem` repeats")
            || e.contains("`viselem` is a tensor (element) flag"),
        "{e}"
    );
    let e = parse("t.litmus", &litmus(" st.atom.avtexel.wg.sc2 x, 1 ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:10:") && e.contains("atomics access memory through a pointer"),
        "{e}"
    );
    let e = parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nst.avelem.avtexel.scopewg.sc2 x = 1\nSATISFIABLE consistent[X]\n",
    )
    .unwrap_err();
    assert!(e.starts_with("t.test:4:11:"), "{e}");
}

#[test]
fn op_memory_named_barrier_is_refused_with_the_sentence_and_the_spelling() {
    let text = "OpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c2 = OpConstant %uint 2\n%c264 = OpConstant %uint 264\n%nb = OpTypeNamedBarrier\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%b = OpNamedBarrierInitialize %nb %c2\nOpMemoryNamedBarrier %b %c2 %c264\nOpReturn\nOpFunctionEnd\n";
    let e = vkmm::frontend::parse_text(
        "t.spvasm",
        text,
        vkmm::frontend::Format::Spirv,
        Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("t.spvasm:1"), "{e}");
    assert!(
        e.contains("Named") && e.contains("are memory barrier instructions in SPIR-V"),
        "{e}"
    );
}

// ----- tessellation output ordering ------------------------------------------

#[test]
fn the_legacy_only_reading_of_tessellation_output_ordering_is_a_variant() {
    // vulkan-tess-vmm: the control-barrier rule is legacy SPIR-V's only; a
    // barrier without semantics then orders nothing, while OutputMemory
    // semantics with availability/visibility still do.
    let model = vkmm::model::load("vulkan-tess-vmm").unwrap();
    for (file, property, holds) in [
        (
            "tess-output-barrier.litmus",
            vkmm::analysis::Property::Condition,
            true,
        ),
        (
            "tess-output-barrier.litmus",
            vkmm::analysis::Property::Races,
            false,
        ),
        (
            "tess-output-semantics.litmus",
            vkmm::analysis::Property::Condition,
            false,
        ),
        (
            "tess-output-semantics.litmus",
            vkmm::analysis::Property::Races,
            true,
        ),
    ] {
        let program = vkmm::frontend::load(&dir().join(file)).unwrap();
        let o = vkmm::analysis::check_litmus(file, &program, &model, vkmm::Limits::default(), None)
            .unwrap();
        assert_eq!(o.holds(property), Some(holds), "{file} {property:?}");
    }
}

#[test]
fn stages_and_output_are_spelt_in_both_dialects() {
    use vkmm::ir::{Interface, ShaderStage};
    let p = parse(
        "t.litmus",
        "VULKAN t\n{ x=0; }\n P0@sg 0, wg 0, qf 0, tesc | P1@sg 0, wg 0, qf 0 ;\n st.output.sc3 x, 1 | ld.sc3 r0, x ;\n",
    )
    .unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::TessellationControl));
    assert_eq!(p.stage(1), None);
    assert_eq!(instructions(&p, 0)[0].interface, Some(Interface::Output));
    assert_eq!(instructions(&p, 1)[0].interface, None);
    let printed = vkmm::frontend::vulkan_litmus::print::try_to_litmus(&p).unwrap();
    assert!(
        printed.contains("qf 0, tesc") && printed.contains("st.output.sc3 x, 1"),
        "{printed}"
    );
    let p = parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nSTAGE tesc\nst.output.sc3 x = 1\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::TessellationControl));
    assert_eq!(instructions(&p, 0)[0].interface, Some(Interface::Output));
    // errors, located
    let e = parse("t.test", "STAGE tesc\nNEWTHREAD\n").unwrap_err();
    assert!(
        e.starts_with("t.test:1:1:") && e.contains("after NEWTHREAD"),
        "{e}"
    );
    let e = parse("t.test", "NEWTHREAD\nSTAGE foo\n").unwrap_err();
    assert!(
        e.starts_with("t.test:2:7:") && e.contains("one of vert, tesc, tese, geom"),
        "{e}"
    );
    let e = parse("t.litmus", &litmus(" membar.acq.output.wg.semsc0 ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:13:") && e.contains("`output` only applies to memory accesses"),
        "{e}"
    );
}

// ----- shader I/O ----------------------------------------------------------------

#[test]
fn stages_inputs_and_generation_are_spelt_in_both_dialects() {
    use vkmm::ir::{Interface, ShaderStage};
    let p = parse(
        "t.litmus",
        "VULKAN t\n{ x=0; }\n{ ssw 1 0; gen 0 1; }\n P0@sg 0, wg 0, qf 0, vert | P1@sg 0, wg 1, qf 0, geom ;\n st.output.sc3 x, 1 | ld.input.sc3 r0, x ;\n",
    )
    .unwrap();
    assert_eq!(
        (p.stage(0), p.stage(1)),
        (Some(ShaderStage::Vertex), Some(ShaderStage::Geometry))
    );
    assert_eq!(
        (p.generates.clone(), p.ssw.clone()),
        (vec![(0, 1)], vec![(1, 0)])
    );
    assert_eq!(instructions(&p, 1)[0].interface, Some(Interface::Input));
    let printed = vkmm::frontend::vulkan_litmus::print::try_to_litmus(&p).unwrap();
    assert!(
        printed.contains("gen 0 1;") && printed.contains("ld.input.sc3 r0, x"),
        "{printed}"
    );
    let p = parse(
        "t.test",
        "NEWWG\nNEWSG\nNEWTHREAD\nSTAGE tese\nst.output.sc3 x = 1\nNEWTHREAD\nld.input.sc3 x\nGENERATES 0 1\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::TessellationEvaluation));
    assert_eq!(p.generates, vec![(0, 1)]);
    // errors, located
    let e = parse("t.litmus", &litmus(" st.input.sc3 x, 1 ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:5:") && e.contains("Input variables are read-only"),
        "{e}"
    );
    let e = parse("t.litmus", &litmus(" ld.input.output.sc3 r0, x ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:11:") && e.contains("a variable is in one storage class"),
        "{e}"
    );
    let e = parse(
        "t.litmus",
        "VULKAN t\n{ x=0; }\n{ gen 0 3; }\n P0@sg 0, wg 0, qf 0 ;\n ld.sc0 r0, x ;\n",
    )
    .unwrap_err();
    assert!(
        e.starts_with("t.litmus:3:9:") && e.contains("gen names thread P3"),
        "{e}"
    );
    let e = parse("t.test", "NEWTHREAD\nld.sc0 x\nGENERATES 0 2\n").unwrap_err();
    assert!(
        e.contains("GENERATES names thread 2, which is not declared"),
        "{e}"
    );
}

// ----- deallocation --------------------------------------------------------------

#[test]
fn free_is_spelt_in_both_dialects_and_names_the_pair() {
    let p = parse("t.litmus", &litmus(" free.sc0 x ;\n ld.sc0 r0, x ;\n")).unwrap();
    let i = instructions(&p, 0);
    assert_eq!(i[0].kind, vkmm::ir::OpKind::Deallocate);
    assert_eq!(p.location_of(i[0]), Some(0));
    let printed = vkmm::frontend::vulkan_litmus::print::try_to_litmus(&p).unwrap();
    assert!(printed.contains("free.sc0 x"), "{printed}");
    let p = parse(
        "t.test",
        "NEWTHREAD\nfree.sc0 x\nSATISFIABLE consistent[X]\n",
    )
    .unwrap();
    assert_eq!(instructions(&p, 0)[0].kind, vkmm::ir::OpKind::Deallocate);
    // the report names the access and the deallocation
    let model = vkmm::model::load("vulkan").unwrap();
    let program = vkmm::frontend::load(&dir().join("dealloc-use-after-free.litmus")).unwrap();
    let o =
        vkmm::analysis::check_litmus("u", &program, &model, vkmm::Limits::default(), None).unwrap();
    let text = vkmm::report::text::litmus(&o);
    assert!(
        text.contains("race on x: P0 line 9: free.sc0 x  <->  P0 line 10: ld.sc0 r0, x"),
        "{text}"
    );
    // errors, located
    let e = parse("t.litmus", &litmus(" free x ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:2:") && e.contains("`free` names the storage class"),
        "{e}"
    );
    let e = parse("t.litmus", &litmus(" free.wg.sc0 x ;\n")).unwrap_err();
    assert!(
        e.starts_with("t.litmus:4:7:") && e.contains("`free` takes only a storage class"),
        "{e}"
    );
    let e = parse("t.test", "NEWTHREAD\nfree.sc0 x = 1\n").unwrap_err();
    assert!(
        e.starts_with("t.test:2:12:") && e.contains("`free` takes no value"),
        "{e}"
    );
}

#[test]
fn cooperative_matrix_and_shader_call_instructions_are_refused_with_the_sentence() {
    for (op, fragment) in [
        (
            // Loads are lowered now (docs/format-spirv.md, "Cooperative
            // matrices"); a result type that is no matrix is refused.
            "%m = OpCooperativeMatrixLoadKHR %uint %x %c0",
            "OpCooperativeMatrixLoadKHR: expected a cooperative matrix (OpTypeCooperativeMatrixKHR)",
        ),
        (
            "OpExecuteCallableKHR %c0 %x",
            // Shader calls are lowered now (docs/format-spirv.md, "Shader
            // calls"); a StorageBuffer operand is refused with the SPIR-V
            // sentence's storage classes.
            "OpExecuteCallableKHR: expected a pointer to a variable of storage class CallableDataKHR or IncomingCallableDataKHR",
        ),
    ] {
        let text = format!(
            "OpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c0 = OpConstant %uint 0\n%ptr = OpTypePointer StorageBuffer %uint\n%x = OpVariable %ptr StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n{op}\nOpReturn\nOpFunctionEnd\n"
        );
        let e = vkmm::frontend::parse_text(
            "t.spvasm",
            &text,
            vkmm::frontend::Format::Spirv,
            Default::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("t.spvasm:12:"), "{e}");
        assert!(e.contains(fragment), "{e}");
    }
}
