//! Sampling in compute shaders (docs/format-spirv.md, "Sampling"): a sample
//! is a set of non-atomic reads of every texel of the image it samples, and
//! its value is one vkmm does not compute, refused where it decides a
//! branch, an address or a write, and left out of the final states.
//! Each fixture under tests/fixtures/sampling/ derives its verdict by hand
//! in its header comment; the `.toml` beside it is its dispatch file.

use crate::common;
use common::{glslang, vkmm};

const DIR: &str = "tests/fixtures/sampling";

/// `vkmm check [--dispatch TOML] FILE`: exit code, stdout, stderr.
fn check(file: &str, dispatch: Option<&str>) -> (i32, String, String) {
    let path = format!("{DIR}/{file}");
    match dispatch {
        Some(d) => vkmm(&["check", "--dispatch", &format!("{DIR}/{d}"), &path]),
        None => vkmm(&["check", &path]),
    }
}

/// The race lines of a report.
fn races(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.trim_start().starts_with("race on"))
        .collect()
}

/// The racy fixture in `file`: a race on the stored texel between the
/// store at `store_line` and the sample at `sample_line`, named by its
/// sampling instruction; the sampled result left out of the final states.
fn assert_store_sample_race(file: &str, toml: &str, store_line: usize, sample_line: usize) {
    let (code, out, err) = check(file, Some(toml));
    assert_eq!(code, 0, "{file}: {out}{err}");
    assert!(out.contains("Data races: yes"), "{file}: {out}");
    let r = races(&out);
    assert!(
        r.iter().any(|l| l.contains("[1][0]:")
            && l.contains(&format!("line {store_line}: OpImageWrite"))
            && l.contains(&format!("line {sample_line}: "))
            && l.contains("OpImageSampleExplicitLod")),
        "{file}: {r:?}"
    );
    // Texel (0, 0) is never written: no race names it.
    assert!(!r.iter().any(|l| l.contains("[0][0]:")), "{file}: {r:?}");
    // The result of the sample is not shown with the 0 its registers hold.
    assert!(
        err.contains("the final states leave out result"),
        "{file}: {err}"
    );
    assert!(
        !out.contains("result[1]=") && !out.contains("result.v="),
        "{file}: {out}"
    );
}

#[test]
fn a_sample_races_with_an_unordered_store_to_a_texel_it_may_read() {
    if !glslang() {
        return;
    }
    assert_store_sample_race("store-then-sample.comp", "store-then-sample.toml", 18, 20);
    assert_store_sample_race(
        "store-then-sample.hlsl",
        "store-then-sample.hlsl.toml",
        14,
        16,
    );
    // WGSL cannot bind one texture for writing and for sampling: naga
    // refuses the module at the second binding.
    let (code, out, err) = check("store-then-sample.wgsl", None);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("store-then-sample.wgsl:7:") && err.contains("conflict"),
        "{err}"
    );
}

#[test]
fn a_barrier_orders_the_store_before_the_sample() {
    if !glslang() {
        return;
    }
    let (code, out, err) = check(
        "store-barrier-sample.comp",
        Some("store-barrier-sample.toml"),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Data races: none"), "{out}");
    // Without the acquiring memoryBarrierImage() after barrier(), the
    // reader has no acquire on ImageMemory: the race of the fixture
    // without a barrier.
    let source = std::fs::read_to_string(format!("{DIR}/store-barrier-sample.comp")).unwrap();
    let cut = source.replacen(
        "    barrier();\n    memoryBarrierImage();\n",
        "    barrier();\n",
        1,
    );
    assert_ne!(cut, source);
    let dir = std::env::temp_dir().join(format!("vkmm-sampling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let comp = dir.join("no-acquire.comp");
    std::fs::write(&comp, cut).unwrap();
    let (code, out, err) = vkmm(&[
        "check",
        "--dispatch",
        &format!("{DIR}/store-barrier-sample.toml"),
        comp.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert!(out.contains("race on img[1][0]"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sampling_a_read_only_texture_is_race_free() {
    if !glslang() {
        return;
    }
    for (file, toml) in [
        ("read-only.comp", "read-only.toml"),
        ("read-only.wgsl", "read-only.wgsl.toml"),
        ("read-only.hlsl", "read-only.hlsl.toml"),
    ] {
        let (code, out, err) = check(file, Some(toml));
        assert_eq!(code, 0, "{file}: {out}{err}");
        assert!(out.contains("Data races: none"), "{file}: {out}");
        assert!(
            err.contains("the final states leave out result"),
            "{file}: {err}"
        );
    }
}

#[test]
fn a_sample_of_an_image_nothing_writes_makes_no_reads() {
    if !glslang() {
        return;
    }
    // 128 x 128 texels: past the 4096 texel channels a sample may read.
    // Nothing writes `tex` in read-only.comp, so its samples read nothing
    // (no write can race with them) and the size does not matter.
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "tex=128x128",
        "--extent",
        "shadow=2x2",
        &format!("{DIR}/read-only.comp"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Data races: none"), "{out}");
    // store-then-sample.comp writes the image it samples: each sample reads
    // every texel, so the extent is refused, naming the bound.
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "img=128x128",
        &format!("{DIR}/store-then-sample.comp"),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("store-then-sample.comp:20:")
            && err.contains("which has 16384 texel channels")
            && err.contains("stops at 4096"),
        "{err}"
    );
}

#[test]
fn a_sample_deciding_a_branch_is_refused_at_the_branch() {
    if !glslang() {
        return;
    }
    for (file, branch, sample) in [
        ("sample-decides-branch.comp", 11, 10),
        ("sample-decides-branch.wgsl", 9, 8),
        ("sample-decides-branch.hlsl", 9, 8),
    ] {
        let (code, out, err) = check(file, None);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(err.contains(&format!("{file}:{branch}:")), "{file}: {err}");
        assert!(err.contains("OpBranchConditional"), "{file}: {err}");
        assert!(
            err.contains(&format!("OpImageSampleExplicitLod` at line {sample})"))
                && err.contains("which way a branch goes"),
            "{file}: {err}"
        );
    }
}

/// A module where workgroup 0 writes texel (1, 0) of `%img` (a storage
/// image on the binding of the combined image sampler `%tex`) and
/// workgroup 1 runs `sample` (which defines `%t`) and stores `extract`
/// (which defines `%t0`, a float) to `%buf[0][1]`.
fn module(sample: &str, extract: &str, output: &str) -> String {
    format!(
        "; @Config: 1, 1, 2
; @Input: %buf = {{{{0, 0}}}}, %img = {{{{0}}, {{0}}}}
{output}OpCapability Shader
OpCapability SparseResidency
OpCapability ImageQuery
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\" %wid
OpDecorate %wid BuiltIn WorkgroupId
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
OpDecorate %img DescriptorSet 0
OpDecorate %img Binding 1
OpDecorate %tex DescriptorSet 0
OpDecorate %tex Binding 1
OpDecorate %arr2 ArrayStride 4
OpMemberDecorate %B 0 Offset 0
OpDecorate %B Block
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%float = OpTypeFloat 32
%v2int = OpTypeVector %int 2
%v2float = OpTypeVector %float 2
%v3float = OpTypeVector %float 3
%v3uint = OpTypeVector %uint 3
%v4float = OpTypeVector %float 4
%sparse4 = OpTypeStruct %int %v4float
%sparse1 = OpTypeStruct %int %float
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c2 = OpConstant %uint 2
%i0 = OpConstant %int 0
%i1 = OpConstant %int 1
%f0 = OpConstant %float 0
%f1 = OpConstant %float 1
%fh = OpConstant %float 0.5
%arr2 = OpTypeArray %float %c2
%B = OpTypeStruct %arr2
%pB = OpTypePointer StorageBuffer %B
%pf = OpTypePointer StorageBuffer %float
%buf = OpVariable %pB StorageBuffer
%imgT = OpTypeImage %float 2D 0 0 0 2 R32f
%pimg = OpTypePointer UniformConstant %imgT
%img = OpVariable %pimg UniformConstant
%texT = OpTypeImage %float 2D 0 0 0 1 Unknown
%siT = OpTypeSampledImage %texT
%ptex = OpTypePointer UniformConstant %siT
%tex = OpVariable %ptex UniformConstant
%pin = OpTypePointer Input %v3uint
%wid = OpVariable %pin Input
%pinu = OpTypePointer Input %uint
%v1 = OpConstantComposite %v4float %f1 %f0 %f0 %f0
%at = OpConstantComposite %v2int %i1 %i0
%uv = OpConstantComposite %v2float %fh %fh
%uvw = OpConstantComposite %v3float %fh %fh %f1
%main = OpFunction %void None %fn
%l0 = OpLabel
%out = OpAccessChain %pf %buf %c0 %c1
%pid = OpAccessChain %pinu %wid %c0
%id = OpLoad %uint %pid
%first = OpIEqual %bool %id %c0
OpSelectionMerge %join None
OpBranchConditional %first %p0 %p1
%p0 = OpLabel
%i = OpLoad %imgT %img
OpImageWrite %i %at %v1
OpBranch %join
%p1 = OpLabel
%si = OpLoad %siT %tex
{sample}
{extract}
OpStore %out %t0
OpBranch %join
%join = OpLabel
OpReturn
OpFunctionEnd
"
    )
}

/// Every sampling instruction of SPIR-V: the instruction, its extraction
/// of a float, and whether it reads texels.
const FORMS: &[(&str, &str, bool)] = &[
    (
        "%t = OpImageSampleImplicitLod %v4float %si %uv",
        "%t0 = OpCompositeExtract %float %t 0",
        true,
    ),
    (
        "%t = OpImageSampleExplicitLod %v4float %si %uv Lod %f0",
        "%t0 = OpCompositeExtract %float %t 0",
        true,
    ),
    (
        "%t = OpImageSampleExplicitLod %v4float %si %uv Grad %uv %uv",
        "%t0 = OpCompositeExtract %float %t 0",
        true,
    ),
    (
        "%t = OpImageSampleDrefImplicitLod %float %si %uv %fh",
        "%t0 = OpCopyObject %float %t",
        true,
    ),
    (
        "%t = OpImageSampleDrefExplicitLod %float %si %uv %fh Lod %f1",
        "%t0 = OpCopyObject %float %t",
        true,
    ),
    (
        "%t = OpImageSampleProjImplicitLod %v4float %si %uvw",
        "%t0 = OpCompositeExtract %float %t 0",
        true,
    ),
    (
        "%t = OpImageSampleProjExplicitLod %v4float %si %uvw Lod %f0",
        "%t0 = OpCompositeExtract %float %t 0",
        true,
    ),
    (
        "%t = OpImageSampleProjDrefImplicitLod %float %si %uvw %fh",
        "%t0 = OpCopyObject %float %t",
        true,
    ),
    (
        "%t = OpImageSampleProjDrefExplicitLod %float %si %uvw %fh Lod %f0",
        "%t0 = OpCopyObject %float %t",
        true,
    ),
    (
        "%t = OpImageGather %v4float %si %uv %i0",
        "%t0 = OpCompositeExtract %float %t 3",
        true,
    ),
    (
        "%t = OpImageDrefGather %v4float %si %uv %fh",
        "%t0 = OpCompositeExtract %float %t 3",
        true,
    ),
    (
        "%t = OpImageSparseSampleImplicitLod %sparse4 %si %uv",
        "%t0 = OpCompositeExtract %float %t 1 0",
        true,
    ),
    (
        "%t = OpImageSparseSampleExplicitLod %sparse4 %si %uv Lod %f0",
        "%t0 = OpCompositeExtract %float %t 1 0",
        true,
    ),
    (
        "%t = OpImageSparseSampleDrefImplicitLod %sparse1 %si %uv %fh",
        "%t0 = OpCompositeExtract %float %t 1",
        true,
    ),
    (
        "%t = OpImageSparseSampleDrefExplicitLod %sparse1 %si %uv %fh Lod %f0",
        "%t0 = OpCompositeExtract %float %t 1",
        true,
    ),
    (
        "%t = OpImageSparseSampleProjImplicitLod %sparse4 %si %uvw",
        "%t0 = OpCompositeExtract %float %t 1 0",
        true,
    ),
    (
        "%t = OpImageSparseSampleProjExplicitLod %sparse4 %si %uvw Lod %f0",
        "%t0 = OpCompositeExtract %float %t 1 0",
        true,
    ),
    (
        "%t = OpImageSparseSampleProjDrefImplicitLod %sparse1 %si %uvw %fh",
        "%t0 = OpCompositeExtract %float %t 1",
        true,
    ),
    (
        "%t = OpImageSparseSampleProjDrefExplicitLod %sparse1 %si %uvw %fh Lod %f0",
        "%t0 = OpCompositeExtract %float %t 1",
        true,
    ),
    (
        "%t = OpImageSparseGather %sparse4 %si %uv %i0",
        "%t0 = OpCompositeExtract %float %t 1 2",
        true,
    ),
    (
        "%t = OpImageSparseDrefGather %sparse4 %si %uv %fh",
        "%t0 = OpCompositeExtract %float %t 1 2",
        true,
    ),
    (
        "%t = OpImageQueryLod %v2float %si %uv",
        "%t0 = OpCompositeExtract %float %t 1",
        false,
    ),
];

/// Writes `text` to a fresh `.spvasm` and checks it.
fn check_text(name: &str, text: &str) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("vkmm-sampling-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.spvasm"));
    std::fs::write(&path, text).unwrap();
    let r = vkmm(&["check", path.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// Checks `text` as `name`: refused (exit 2) with every one of `wanted` in
/// the error.
fn refused(name: &str, text: &str, wanted: &[&str]) {
    let (code, out, err) = check_text(name, text);
    assert_eq!(code, 2, "{name}: {out}{err}");
    for w in wanted {
        assert!(err.contains(w), "{name}: no `{w}` in {err}");
    }
}

#[test]
fn every_sampling_instruction_reads_every_texel_and_its_value_is_not_shown() {
    for (k, (sample, extract, reads)) in FORMS.iter().enumerate() {
        let (code, out, err) = check_text(&format!("form{k}"), &module(sample, extract, ""));
        assert_eq!(code, 0, "{sample}: {out}{err}");
        let r = races(&out);
        if *reads {
            // The write of texel (1, 0) and the sample, unordered.
            assert!(
                r.iter().any(|l| l.contains("race on %img[1][0]")
                    && l.contains("OpImageWrite")
                    && l.contains(sample.split_whitespace().nth(2).unwrap())),
                "{sample}: {out}"
            );
            // The sample reads texel (0, 0) too (no one writes it: no race).
            assert_eq!(r.len(), 1, "{sample}: {r:?}");
        } else {
            // OpImageQueryLod reads no texel.
            assert!(out.contains("Data races: none"), "{sample}: {out}");
        }
        assert!(
            err.contains("the final states leave out %buf[0][1]"),
            "{sample}: {err}"
        );
        assert!(!out.contains("%buf[0][1]="), "{sample}: {out}");
    }
}

#[test]
fn a_condition_on_a_sampled_value_is_refused() {
    let (sample, extract, _) = FORMS[1];
    let text = module(sample, extract, "; @Output: forall (%buf[0][1] == 0)\n");
    refused(
        "condition",
        &text,
        &["reads `%buf[0][1]`, which may hold the value of a sample"],
    );
    // A condition on a cell of the same buffer that no access chain storing
    // a sampled value names is decided as before.
    let text = module(sample, extract, "; @Output: forall (%buf[0][0] == 0)\n");
    let (code, out, err) = check_text("other-cell", &text);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation other-cell Always"), "{out}");
    // Through a runtime index, the whole array may hold it.
    let runtime = module(
        sample,
        &format!("{extract}\n%o = OpAccessChain %pf %buf %c0 %id\nOpStore %o %t0"),
        "; @Output: forall (%buf[0][0] == 0)\n",
    );
    refused("runtime-index", &runtime, &["reads `%buf[0][0]`"]);
    // A condition on memory no sampled value reaches is decided as before:
    // the texel workgroup 0 writes.
    let text = module(
        sample,
        extract,
        "; @Output: forall (%img[1][0] == 1065353216)\n",
    );
    let (code, out, err) = check_text("other-variable", &text);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation other-variable Always"), "{out}");
}

#[test]
fn a_sampled_value_is_refused_where_it_decides_an_address_or_a_write() {
    let (sample, extract, _) = FORMS[1];
    // An index: through a conversion to an integer.
    let index = module(
        sample,
        &format!(
            "{extract}\n%n = OpConvertFToU %uint %t0\n%o = OpAccessChain %pf %buf %c0 %n\nOpStore %o %f1"
        ),
        "",
    );
    refused(
        "index",
        &index,
        &[
            "OpAccessChain: the value of a sample (`OpImageSampleExplicitLod`",
            "the location an access reaches",
        ],
    );
    // Through memory: stored, loaded back, then a branch on it whose arm
    // stores.
    let through = module(
        sample,
        &format!(
            "{extract}\nOpStore %out %t0\n%back = OpLoad %float %out\n%big = OpFOrdGreaterThan %bool %back %fh\nOpSelectionMerge %m None\nOpBranchConditional %big %a %m\n%a = OpLabel\nOpStore %out %f1\nOpBranch %m\n%m = OpLabel"
        ),
        "",
    );
    refused(
        "through",
        &through,
        &["OpBranchConditional: the value of a sample"],
    );
    // The same branch on a value no sample reaches is fine.
    let other = through.replace(
        "%back = OpLoad %float %out",
        "%back0 = OpLoad %uint %pid\n%back = OpConvertUToF %float %back0",
    );
    let (code, out, err) = check_text("other", &other);
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn sampling_operands_that_make_no_sense_are_located_errors() {
    for (sample, why) in [
        (
            "%t = OpImageSampleExplicitLod %v4float %si %uv None",
            "Either Lod or Grad image operands must be present",
        ),
        (
            "%t = OpImageSampleExplicitLod %v4float %si %uv Lod|MakeTexelVisible|NonPrivateTexel %f0 %c1",
            "MakeTexelVisible is \"Only valid with OpImageRead",
        ),
    ] {
        refused(
            "operands",
            &module(sample, "%t0 = OpCompositeExtract %float %t 0", ""),
            &[why],
        );
    }
    // A sample of something not a sampled image.
    refused(
        "not-sampled",
        &module(
            "%im = OpLoad %imgT %img\n%t = OpImageSampleExplicitLod %v4float %im %uv Lod %f0",
            "%t0 = OpCompositeExtract %float %t 0",
            "",
        ),
        &["\"Sampled Image must be an object whose type is OpTypeSampledImage\""],
    );
}

/// `explain --outcome` names a final state: one that reads a cell that may
/// hold a sampled value is refused as the shader's own condition is, at the
/// outcome, exit 2.
#[test]
fn an_outcome_reading_a_sampled_value_is_refused() {
    if !glslang() {
        return;
    }
    let explain = |outcome: &str| {
        vkmm(&[
            "explain",
            "--dispatch",
            &format!("{DIR}/read-only.toml"),
            &format!("{DIR}/read-only.comp"),
            "--outcome",
            outcome,
        ])
    };
    let (code, out, err) = explain("result.v[0][0] == 0");
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("--outcome:1:1: the outcome `result.v[0][0] == 0` reads `result.v[0][0]`, which may hold the value of a sample"),
        "{err}"
    );
}

/// A branch on a sampled value whose selection construct only computes
/// values (docs/format-spirv.md, "Sampling"): accepted, and what it decides
/// is a sampled value in turn (the merge block's `OpPhi`, a Function
/// variable an arm stores to), refused where that decides an address or a
/// branch with accesses. Arms that return, or access memory with events,
/// keep the branch refused.
#[test]
fn a_branch_whose_arms_only_compute_values_may_depend_on_a_sample() {
    let (sample, extract, _) = FORMS[1];
    let branch = |arm: &str, after: &str| {
        module(
            sample,
            &format!(
                "{extract}\n%big = OpFOrdGreaterThan %bool %t0 %fh\nOpSelectionMerge %m None\nOpBranchConditional %big %a %m\n%a = OpLabel\n%two = OpFMul %float %t0 %fh\n{arm}OpBranch %m\n%m = OpLabel\n%w = OpPhi %float %two %a %f0 %p1\n{after}"
            ),
            "",
        )
    };
    // The phi stored: race-free, the cell left out of the final states.
    let (code, out, err) = check_text("phi-stored", &branch("", "OpStore %out %w"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("the final states leave out %buf[0][1]"),
        "{err}"
    );
    // The phi as an index, its operands constants (the branch alone makes
    // it depend on the sample): refused at the access chain.
    refused(
        "phi-index",
        &branch(
            "",
            "%n = OpConvertFToU %uint %w\n%o = OpAccessChain %pf %buf %c0 %n\nOpStore %o %f1",
        )
        .replace("OpPhi %float %two %a", "OpPhi %float %f1 %a"),
        &[
            "OpAccessChain: the value of a sample",
            "the location an access reaches",
        ],
    );
    // An arm that stores to the buffer: the branch decides an access.
    refused(
        "arm-stores",
        &branch("OpStore %out %f1\n", ""),
        &["OpBranchConditional: the value of a sample"],
    );
    // An arm that leaves the function.
    let returns = branch("", "").replace(
        "%two = OpFMul %float %t0 %fh\nOpBranch %m",
        "%two = OpFMul %float %t0 %fh\nOpReturn",
    );
    refused(
        "arm-returns",
        &returns.replace("%w = OpPhi %float %two %a %f0 %p1\n", ""),
        &["OpBranchConditional: the value of a sample"],
    );
}

/// The GLSL and WGSL shapes of a value-only branch: the compilers keep the
/// chosen value in a Function variable (tests/fixtures/sampling/
/// value-only-branch.*, verdicts in their headers); a second branch on that
/// variable whose arm stores is refused, naming the sample's line.
#[test]
fn value_only_branches_from_glsl_and_wgsl() {
    if !glslang() {
        return;
    }
    for file in ["value-only-branch.comp", "value-only-branch.wgsl"] {
        let (code, out, err) = vkmm(&["check", "--extent", "tex=2x2", &format!("{DIR}/{file}")]);
        assert_eq!(code, 0, "{file}: {out}{err}");
        assert!(out.contains("Data races: none"), "{file}: {out}");
        assert!(
            err.contains("the final states leave out result"),
            "{file}: {err}"
        );
    }
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "tex=2x2",
        &format!("{DIR}/value-decides-branch.comp"),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("value-decides-branch.comp:18:1: OpBranchConditional: the value of a sample (`OpImageSampleExplicitLod` at line 11)"),
        "{err}"
    );
}

/// Sparse reads and fetches (tests/fixtures/sampling/sparse-*.comp,
/// verdicts in their headers): the texel is read and computed as by the
/// non-sparse instruction (a race with an unordered store, the value read
/// in the final states), the Residency Code is not computed (the cell
/// holding what it says left out; refused where it decides a branch).
#[test]
fn sparse_reads_compute_the_texel_and_not_the_residency_code() {
    if !glslang() {
        return;
    }
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "img=2x1",
        "--extent",
        "tex=1x1",
        &format!("{DIR}/sparse-read.comp"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let found = races(&out);
    assert_eq!(found.len(), 1, "{out}");
    assert!(
        found[0].contains("race on img[1][0]")
            && found[0].contains("line 17: OpImageWrite")
            && found[0].contains("line 19: %40 = OpImageSparseRead"),
        "{out}"
    );
    assert!(out.contains("result.v[1]=5;"), "{out}");
    assert!(out.contains("result.v[1]=0;"), "{out}");
    assert!(
        err.contains("the final states leave out result.ok[1]"),
        "{err}"
    );
    // Every channel of a four-channel texel, the code apart from them.
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "img=1x1",
        &format!("{DIR}/sparse-rgba.comp"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("States 1\n"), "{out}");
    assert!(out.contains("result.v=5678;"), "{out}");
    let (code, out, err) = vkmm(&[
        "check",
        "--extent",
        "img=1x1",
        &format!("{DIR}/sparse-code-decides-branch.comp"),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("sparse-code-decides-branch.comp:13:1: OpBranchConditional: the Residency Code of a sparse read (`OpImageSparseRead` at line 12)"),
        "{err}"
    );
}

/// Vendors' image processing (SPV_QCOM_image_processing and its second
/// version: box filters, weighted sampling, block matching) filters texels
/// by rules the vendor's extension defines and no Vulkan memory-model text
/// covers: refused at the instruction, naming it and what vkmm lowers
/// instead, never skipped.
#[test]
fn vendors_image_processing_is_refused_naming_the_instruction() {
    let forms = [
        "%t = OpImageBoxFilterQCOM %v4float %si %uv %uv",
        "%t = OpImageSampleWeightedQCOM %v4float %si %uv %si",
        "%t = OpImageBlockMatchSADQCOM %v4float %si %at %si %at %at",
        "%t = OpImageBlockMatchSSDQCOM %v4float %si %at %si %at %at",
    ];
    for (k, sample) in forms.iter().enumerate() {
        let name = sample.split_whitespace().nth(2).unwrap();
        let text = module(sample, "%t0 = OpCompositeExtract %float %t 0", "")
            .replace(
                "OpCapability ImageQuery\n",
                "OpCapability ImageQuery\nOpCapability TextureBoxFilterQCOM\nOpCapability TextureSampleWeightedQCOM\nOpCapability TextureBlockMatchQCOM\nOpExtension \"SPV_QCOM_image_processing\"\n",
            );
        refused(
            &format!("qcom{k}"),
            &text,
            &[
                &format!("unsupported construct `{name}`"),
                "vendors' image processing is not modelled",
            ],
        );
        // Located at the instruction's line.
        let line = text.lines().position(|l| l == *sample).unwrap() + 1;
        let (_, _, err) = check_text(&format!("qcom-line{k}"), &text);
        assert!(err.contains(&format!(".spvasm:{line}:")), "{name}: {err}");
    }
}
