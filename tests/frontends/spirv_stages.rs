//! Graphics shader stages in SPIR-V (issue 16, docs/format-spirv.md
//! "Shader stages, Input and Output"): `OpEntryPoint Vertex`,
//! `TessellationControl`, `TessellationEvaluation`, `Geometry` lowered to
//! the IR's stages, `Output` variables per invocation (per patch in a
//! TessellationControl shader), `Input` variables bound to the Output
//! variable of the same Location in the invocations `@Generates` names,
//! and the legacy mode of modules whose `OpMemoryModel` is not `Vulkan`.
//! Hand-derived verdicts in tests/fixtures/litmus-spirv-stages (each file quotes
//! its sentences), twins of tests/fixtures/litmus-appendix where SPIR-V can say the
//! same, and the located errors.

use crate::common;

use std::path::{Path, PathBuf};
use vkmm::analysis::Property;
use vkmm::ir::{Interface, ShaderStage, Stmt};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-spirv-stages")
}

#[test]
fn spirv_stage_verdicts_match_the_hand_derived_ones() {
    common::assert_csv_verdicts(&dir(), 20);
}

/// Each SPIR-V twin and the Vulkan litmus test it spells give the same
/// verdicts (condition, race-free).
#[test]
fn each_spirv_test_agrees_with_its_litmus_twin() {
    let litmus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus-appendix");
    for name in [
        "tess-output-barrier",
        "tess-output-no-stage",
        "tess-output-not-output",
        "tess-output-semantics",
        "shader-io",
        "shader-io-vertex-reader",
        "shader-io-last-write",
    ] {
        let a = common::vulkan_verdicts(&dir().join(format!("{name}.spvasm")));
        let b = common::vulkan_verdicts(&litmus.join(format!("{name}.litmus")));
        assert_eq!(a, b, "{name}");
    }
}

fn ops(p: &vkmm::ir::Program, t: usize) -> Vec<vkmm::ir::Instruction> {
    p.threads[t]
        .code
        .iter()
        .filter_map(|s| match s {
            Stmt::Op(i) if i.is_memory_access() => Some(i.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn execution_models_and_interface_variables_become_the_litmus_ir() {
    let p = vkmm::frontend::load(&dir().join("shader-io.spvasm")).unwrap();
    assert_eq!(p.stage(0), Some(ShaderStage::Vertex));
    assert_eq!(p.stage(1), Some(ShaderStage::TessellationEvaluation));
    assert_eq!(p.generates, vec![(0, 1)]);
    assert!(!p.legacy);
    let (w, r) = (ops(&p, 0), ops(&p, 1));
    assert_eq!(w[0].interface, Some(Interface::Output));
    assert_eq!(r[0].interface, Some(Interface::Input));
    // The Input variable of Location 0 is P0's Output variable of
    // Location 0: one location.
    assert_eq!(r[0].reference, w[0].reference);
    assert_eq!(p.locations[w[0].reference.unwrap()], "%o@P0");
    // Without @Generates the Input variable stays in registers.
    let p = vkmm::frontend::load(&dir().join("shader-io-no-gen.spvasm")).unwrap();
    assert!(p.generates.is_empty());
    assert_eq!(ops(&p, 1)[0].interface, None);
    // TessellationControl invocations of one workgroup share the patch's
    // Output variable (one instance); two workgroups have one each.
    let names = |file: &str| {
        let p = vkmm::frontend::load(&dir().join(file)).unwrap();
        let mut v: Vec<String> = p
            .locations
            .iter()
            .filter(|l| l.starts_with("%o"))
            .cloned()
            .collect();
        v.sort();
        (p, v)
    };
    let (p, v) = names("tess-output-barrier.spvasm");
    assert_eq!(p.stage(0), Some(ShaderStage::TessellationControl));
    assert_eq!(p.stage(1), Some(ShaderStage::TessellationControl));
    assert_eq!(v, ["%o[0]", "%o[1]"]);
    let (_, v) = names("tess-output-other-patch.spvasm");
    assert_eq!(v, ["%o[0]@wg0", "%o[0]@wg1", "%o[1]@wg0", "%o[1]@wg1"]);
    // A compute program keeps one Output instance for all (Dat3M's reading).
    let (p, v) = names("tess-output-no-stage.spvasm");
    assert_eq!(p.stage(0), None);
    assert_eq!(v, ["%o[0]", "%o[1]"]);
}

fn holds(file: &str, model: &vkmm::model::LoadedModel, property: Property) -> bool {
    let program = vkmm::frontend::load(&dir().join(file)).unwrap();
    vkmm::analysis::check_litmus(file, &program, model, Default::default(), None)
        .unwrap()
        .holds(property)
        .unwrap()
}

/// The appendix, "Tessellation Output Ordering": "For SPIR-V that uses the
/// Vulkan Memory Model, the OutputMemory storage class is used to
/// synchronize accesses to tessellation control output variables. For
/// legacy SPIR-V that does not enable the Vulkan Memory Model via
/// OpMemoryModel, tessellation outputs can be ordered using a control
/// barrier with no particular memory scope or semantics, as defined
/// below." The default reads the rule's own sentence for every program;
/// `vulkan-tess-vmm` gives it to legacy programs only.
#[test]
fn the_legacy_mode_is_per_program() {
    let legacy = vkmm::frontend::load(&dir().join("tess-output-legacy.spvasm")).unwrap();
    assert!(legacy.legacy);
    let vmm = vkmm::frontend::load(&dir().join("tess-output-barrier.spvasm")).unwrap();
    assert!(!vmm.legacy);
    let default = vkmm::model::load("vulkan").unwrap();
    let variant = vkmm::model::load("vulkan-tess-vmm").unwrap();
    for (file, model, condition, race_free) in [
        ("tess-output-barrier.spvasm", &default, false, true),
        ("tess-output-legacy.spvasm", &default, false, true),
        ("tess-output-barrier.spvasm", &variant, true, false),
        ("tess-output-legacy.spvasm", &variant, false, true),
        ("tess-output-semantics.spvasm", &variant, false, true),
    ] {
        assert_eq!(
            (
                holds(file, model, Property::Condition),
                holds(file, model, Property::Races)
            ),
            (condition, race_free),
            "{file} under {}",
            model.name
        );
    }
}

/// Mutations of the variant's legacy clause: each changes a verdict.
#[test]
fn every_legacy_mutation_changes_a_verdict() {
    let text = vkmm::model::embedded("vulkan-tess-vmm.cat").unwrap();
    let clause = "let TESS_BARRIER_ORDERS = TESC & LEGACY";
    assert!(text.contains(clause));
    for (to, witness) in [
        // the rule for no program: the legacy program races
        ("let TESS_BARRIER_ORDERS = {}", "tess-output-legacy.spvasm"),
        // the rule for every program: the Vulkan memory model one does not
        (
            "let TESS_BARRIER_ORDERS = TESC",
            "tess-output-barrier.spvasm",
        ),
        // LEGACY read as its complement
        (
            "let TESS_BARRIER_ORDERS = TESC \\ LEGACY",
            "tess-output-legacy.spvasm",
        ),
    ] {
        let mutated = text.replacen(clause, to, 1);
        let model = common::mutant("vulkan-tess-vmm.cat", &[("vulkan-tess-vmm.cat", &mutated)]);
        let variant = vkmm::model::load("vulkan-tess-vmm").unwrap();
        assert_ne!(
            holds(witness, &model, Property::Races),
            holds(witness, &variant, Property::Races),
            "{to}: {witness}"
        );
    }
}

// ----- located errors -------------------------------------------------------

fn shader_io_text() -> String {
    std::fs::read_to_string(dir().join("shader-io.spvasm")).unwrap()
}

fn err(text: &str) -> String {
    common::parse_spvasm(text).unwrap_err()
}

#[test]
fn an_execution_model_without_a_stage_is_refused_at_its_entry_point() {
    let t = shader_io_text().replace("OpEntryPoint Vertex", "OpEntryPoint Fragment");
    let e = err(&t);
    assert!(
        e.starts_with("t.spvasm:20:23: execution model Fragment has no shader stage in vkmm"),
        "{e}"
    );
    assert!(e.contains("\"Fragment: Fragment shading stage.\""), "{e}");
    let t = shader_io_text().replace(
        "OpEntryPoint TessellationEvaluation",
        "OpEntryPoint MeshEXT",
    );
    let e = err(&t);
    assert!(
        e.starts_with("t.spvasm:21:22: execution model MeshEXT has no shader stage"),
        "{e}"
    );
}

#[test]
fn input_variables_need_a_corresponding_output_variable() {
    let t = shader_io_text().replace("OpDecorate %i Location 0\n", "");
    let e = err(&t);
    assert!(
        e.starts_with("t.spvasm:31:6: the Input variable `%i` of P1, which @Generates gives generating invocations, has no `Location` decoration"),
        "{e}"
    );
    let t = shader_io_text().replace("OpDecorate %i Location 0", "OpDecorate %i Location 3");
    let e = err(&t);
    assert!(
        e.starts_with("t.spvasm:32:6: no Output variable has Location 3"),
        "{e}"
    );
    let t = shader_io_text()
        .replace(
            "%pin = OpTypePointer Input %uint",
            "%v2 = OpTypeVector %uint 2\n%pin = OpTypePointer Input %v2",
        )
        .replace(
            "%v = OpLoad %uint %i",
            "%vv = OpLoad %v2 %i\n%v = OpCompositeExtract %uint %vv 0",
        );
    let e = err(&t);
    assert!(
        e.contains("the Input variable `%i` does not have the layout of the Output variable `%o` with the same Location 0"),
        "{e}"
    );
}

#[test]
fn generates_lines_are_checked() {
    for (line, message) in [
        (
            "; @Generates: P0 -> P2",
            "t.spvasm:13:3: `@Generates` names P2, but there are 2 invocations (P0 to P1)",
        ),
        (
            "; @Generates: P1 -> P1",
            "t.spvasm:13:3: P1 contributes to generating itself",
        ),
        (
            "; @Generates: P0 -> P1\n; @Generates: P0 -> P1",
            "t.spvasm:14:3: `@Generates` says twice that P0 contributes to generating P1",
        ),
        (
            "; @Generates: P0 => P1",
            "t.spvasm:13:18: expected `->` and the invocations it contributes to generating",
        ),
        (
            "; @Generates: P0 -> P1, P1",
            "t.spvasm:13:25: `@Generates` names P1 twice",
        ),
    ] {
        let t = shader_io_text().replace("; @Generates: P0 -> P1", line);
        let e = err(&t);
        assert!(e.starts_with(message), "{line}: {e}");
    }
}

#[test]
fn invocations_generated_by_distinct_output_instances_are_refused() {
    // Two Vertex invocations generating one: their Output variables are
    // two instances, and vkmm binds an Input variable to one.
    let t = shader_io_text()
        .replace("; @Shaders: %w, %rd", "; @Shaders: %w, %w, %rd")
        .replace(
            "; @Generates: P0 -> P1",
            "; @Generates: P0 -> P2\n; @Generates: P1 -> P2",
        );
    let e = err(&t);
    assert!(
        e.contains("P2 is generated by P0 and P1, which have distinct instances of `%o`"),
        "{e}"
    );
}

/// The condition verdicts of the folder hold under the CLI's suite too.
#[test]
fn the_cli_checks_the_folder() {
    let (code, out, err) = common::vkmm(&[
        "suite",
        dir().to_str().unwrap(),
        "--expected",
        dir().join("expected-condition.csv").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
}
