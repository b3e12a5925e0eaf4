//! Constructs real shaders from other projects use that the sweep of
//! docs/unseen-shaders.md found unread, each checked on a shader of
//! tests/fixtures/unseen-shaders/ (small real ones, copied with a header
//! naming their source, commit and licence, and shaders written here for
//! one construct) against final values derived by hand (each test says
//! how). The GLSL and HLSL ones need glslangValidator: without it they
//! fail under CI and print SKIPPED elsewhere.

use super::shader_constructs;
use crate::common;
use common::{glslang, vkmm};

const DIR: &str = "tests/fixtures/unseen-shaders";

/// The condition holds in every execution of DIR/FILE, race-free, and the
/// check says so.
fn holds(file: &str, args: &[&str], condition: &str) {
    shader_constructs::holds(&format!("{DIR}/{file}"), args, condition)
}

/// The load fails with exit 2 and an error containing each of `wanted`.
fn refused(file: &str, args: &[&str], wanted: &[&str]) {
    let path = format!("{DIR}/{file}");
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push(path.as_str());
    let (code, out, err) = vkmm(&all);
    assert_eq!(code, 2, "{file}: {out}\n{err}");
    for w in wanted {
        assert!(err.contains(w), "{file}: expected `{w}` in: {err}");
    }
}

/// naga zero-initialises workgroup memory by storing OpConstantNull of
/// the variable's type (`OpStore %w_mem %null`); `WStruct` holds 512 +
/// 1 + 64 scalars. `output = w_mem.arr` then copies 512 zeros over the
/// 7s the output starts with: output[0] and output[511] are 0 in every
/// execution (one invocation, its own size).
#[test]
fn a_null_constant_of_a_large_workgroup_struct_is_stored_whole() {
    holds(
        "workgroup-var-init.wgsl",
        &["--input", "output=7"],
        "output[0] == 0 and output[255] == 0 and output[511] == 0",
    );
}

/// wgpu's own zero-initialisation test, entry `read`: each of two
/// workgroups (one invocation each) reads all 512 cells and the atomic of
/// its zero-initialised `w_mem` and writes `u32(!is_zero)`: 0. The output
/// starts at 7, so a 0 is the shader's write. The loop runs 512 times,
/// past the 64 iterations over a constant count that go uncounted, so the
/// unrolling bound is raised above it.
#[test]
fn wgpus_zero_initialisation_test_reads_zero_in_every_workgroup() {
    holds(
        "zero_init_workgroup_mem.wgsl",
        &[
            "--unroll",
            "520",
            "--entry",
            "read",
            "--workgroups",
            "2",
            "--length",
            "output=2",
            "--input",
            "output=7",
        ],
        "output[0] == 0 and output[1] == 0",
    );
}

/// geometry.comp: the values in its comments, each from the formula
/// Vulkan's precision table gives the function.
#[test]
fn glsl_geometric_functions_compute_their_formulae() {
    if !glslang() {
        return;
    }
    holds(
        "geometry.comp",
        &[
            "--input",
            "In=0,1065353216,1073741824,1077936128,1082130432,1061997773,1058642330,-1082130432",
        ],
        "o.r[0] == 5 and o.r[1] == 6 and o.r[2] == 8 and o.r[3] == 0 and o.r[4] == 0 \
         and o.r[5] == 1 and o.r[6] == 1 and o.r[7] == 1 and o.r[8] == 0 and o.r[9] == 1 \
         and o.r[10] == 0 and o.r[11] == -1 and o.r[12] == 0 and o.r[13] == -1 \
         and o.r[14] == 0 and o.r[15] == 0 and o.r[16] == 5 and o.r[17] == 10",
    );
}

/// queries.comp with its dispatch file: the extents it gives, level count 1.
#[test]
fn glsl_image_size_queries_answer_the_extents_given() {
    if !glslang() {
        return;
    }
    holds(
        "queries.comp",
        &[],
        "o.r[0] == 3 and o.r[1] == 2 and o.r[2] == 2 and o.r[3] == 1 and o.r[4] == 4 \
         and o.r[5] == 2 and o.r[6] == 3 and o.r[7] == 4 and o.r[8] == 1",
    );
}

/// queries.wgsl with its dispatch file: textureDimensions (3, 2) and
/// (4, 5), one level, and texel (2, 1) holds 7.
#[test]
fn wgsl_texture_dimensions_answer_the_extents_given() {
    holds(
        "queries.wgsl",
        &[],
        "out[0] == 3 and out[1] == 2 and out[2] == 4 and out[3] == 5 and out[4] == 1 \
         and out[5] == 7",
    );
}

/// A query of a level other than 0 is refused at its operand: vkmm
/// models level 0 only.
#[test]
fn a_size_query_of_another_level_is_refused_at_its_operand() {
    if !glslang() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("vkmm-unseen-lod-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lod.comp");
    std::fs::write(
        &file,
        "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform usampler2D t;\n\
         layout(std430, binding = 1) buffer O { int r; } o;\n\
         void main() {\n    o.r = textureSize(t, 1).x;\n}\n",
    )
    .unwrap();
    let (code, out, err) = vkmm(&["check", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("lod.comp:6:"), "{err}");
    assert!(err.contains("Level of Detail 1"), "{err}");
}

/// level.comp: a Level of Detail read from a buffer. At level 0 the size
/// query answers the extent (2, 1) and the fetch reads texel (1, 0), 9;
/// at level 1, a level the image does not have, both are undefined
/// behaviour, reported at their lines (16 and 18), exit 3.
#[test]
fn a_level_known_at_run_time_is_level_0_or_undefined() {
    if !glslang() {
        return;
    }
    holds("level.comp", &[], "o.w == 2 and o.h == 1 and o.v == 9");
    let path = format!("{DIR}/level.comp");
    let (code, out, err) = vkmm(&["check", "--input", "p.level=1", &path]);
    assert_eq!(code, 3, "{out}{err}");
    for line in [16, 18] {
        assert!(
            out.contains(&format!("out-of-bounds access to t at {path}:{line} ")),
            "{out}"
        );
    }
}

/// level.wgsl: naga's bounds check of `textureLoad(t, c, level)` clamps
/// the level to the image's levels and asks the size at that level, so
/// with `level` 1 the load reads level 0's texel (1, 0), 9, defined.
#[test]
fn wgsl_texture_load_at_a_run_time_level_reads_level_0() {
    holds("level.wgsl", &[], "out[0] == 9");
}

/// registers.hlsl: `t0`, `u0` and `b0` are three resources; the one
/// `[numthreads]` function is the entry point. dst = src * scale =
/// (3, 5) * 10 = (30, 50). The texture register's binding is 100 + 0,
/// so `0.100` names `src` as well.
#[test]
fn hlsl_register_classes_are_separate_bindings_and_the_entry_is_found() {
    if !glslang() {
        return;
    }
    let condition = "dst[0] == 30 and dst[1] == 50";
    for src in ["src=3,5", "0.100=3,5"] {
        holds(
            "registers.hlsl",
            &[
                "--input",
                src,
                "--input",
                "Params.scale=10",
                "--length",
                "src=2",
                "--length",
                "dst=2",
            ],
            condition,
        );
    }
}

/// Two `[numthreads]` functions and no --entry: an error naming both;
/// with --entry, the one named.
#[test]
fn hlsl_with_two_compute_entry_points_asks_which() {
    if !glslang() {
        return;
    }
    refused(
        "two-entries.hlsl",
        &[],
        &[
            "2 compute entry points",
            "`Clear`",
            "`Fill`",
            "--entry NAME",
        ],
    );
    holds("two-entries.hlsl", &["--entry", "Fill"], "buf[0] == 1");
}

/// HistogramCS_GSM.hlsl as written (its entry point behind a root
/// signature attribute made by a macro of the included HistogramCS.hlsli;
/// `t0` and `u0` both used), with its dispatch file: a 2 x 1 black frame,
/// two invocations. Each zeroes its bin of the group's histogram, then,
/// after the barrier, bins its pixel (intensity 0: bin 0, InterlockedAdd
/// of 1), then after the second barrier adds its bin to g_Intensities:
/// bin 0 holds 2, bin 1 holds 0. The plain stores and loads of
/// LocalHistogram are ordered by the barriers: race-free.
#[test]
fn an_xbox_sample_histogram_checks_as_written() {
    if !glslang() {
        return;
    }
    holds(
        "xbox-histogram/HistogramCS_GSM.hlsl",
        &[],
        "g_Intensities[0] == 2 and g_Intensities[1] == 0",
    );
}

/// multiple-entry.asm.comp: SPIR-V assembly named `.asm.comp` (as
/// SPIRV-Cross names it) with a Fragment entry point before the compute
/// one: read as SPIR-V, and its GLCompute entry `main` is checked. With
/// inputs = (ivec4 (1, 2, 3, 4), uvec4 (10, 20, 30, 40)), the last store
/// to each output is input1 + input1 = (2, 4, 6, 8) and input1 + input0 =
/// (11, 22, 33, 44).
#[test]
fn spirv_assembly_named_asm_comp_is_read_and_its_compute_entry_checked() {
    holds(
        "multiple-entry.asm.comp",
        &["--input", "inputs=1,2,3,4,10,20,30,40"],
        "%outputs[0][0] == 2 and %outputs[0][3] == 8 and %outputs[1][0] == 11 \
         and %outputs[1][3] == 44",
    );
}

/// A vello-style `#import`: an error at the directive saying what it is.
#[test]
fn a_wgsl_preprocessor_directive_is_refused_at_its_line() {
    refused(
        "directive.wgsl",
        &[],
        &[
            "directive.wgsl:2:1:",
            "`#import` is a preprocessor directive",
            "WGSL has no preprocessor",
        ],
    );
}

/// specialized.comp: `--set` names a GLSL specialization constant
/// (`layout(constant_id = N)`) by name or by SpecId, as a pipeline sets
/// it; the values in its comment.
#[test]
fn glsl_specialization_constants_take_set_values() {
    if !glslang() {
        return;
    }
    holds(
        "specialized.comp",
        &[],
        "o.r[0] == 64 and o.r[1] == 63 and o.r[2] == 7",
    );
    holds(
        "specialized.comp",
        &["--set", "N=3", "--set", "3=9"],
        "o.r[0] == 3 and o.r[1] == 2 and o.r[2] == 9",
    );
    // A name that is neither a `#define` nor a specialization constant.
    refused(
        "specialized.comp",
        &["--set", "K=1"],
        &["--set K", "no spec constant", "N (SpecId 0)"],
    );
}

/// workgroup-size.comp: glslang folds `gl_WorkGroupSize.x` into the code
/// as the size the layout declares (256), so `--local-size 2` is given to
/// the compiler too: the size the shader sees is 2 and the reduction sums
/// the two inputs, 1 + 2 = 3 (its comment).
#[test]
fn glsl_sees_the_dispatch_size_in_gl_workgroupsize() {
    if !glslang() {
        return;
    }
    holds(
        "workgroup-size.comp",
        &["--local-size", "2", "--input", "In=1,2", "--length", "In=2"],
        "o.size == 2 and o.sum == 3",
    );
}

/// An HLSL `inout` struct parameter holding an array of vectors, as
/// GPUPrefixSums' scans pass theirs: glslang stores a composite of
/// `OpUndef` vectors into the parameter's copy. Invocation i fills t[k]
/// with (i + k, 10, 20, 30 + k), then writes t[0].x + t[1].w = i + 31 and
/// t[1].x + t[0].y = i + 11: (31, 11, 32, 12).
#[test]
fn an_hlsl_inout_array_parameter_is_copied_in_and_out() {
    if !glslang() {
        return;
    }
    holds(
        "inout-array.hlsl",
        &["--length", "b_out=4"],
        "b_out[0] == 31 and b_out[1] == 11 and b_out[2] == 32 and b_out[3] == 12",
    );
}

/// `--set` reaches a `#define` in a header the shader includes (and one
/// that header includes beside it), and an input named `src` is the
/// variable `src` although glslang gives `dst` the block type `src` too.
/// dst[i] = src[i] * SCALE + OFFSET over src = (2, 5): (20, 50) as
/// written, (7, 16) with SCALE = 3 and OFFSET = 1.
#[test]
fn set_reaches_a_define_in_an_included_header() {
    if !glslang() {
        return;
    }
    let args = [
        "--input", "src=2,5", "--length", "src=2", "--length", "dst=2",
    ];
    holds("set-header.hlsl", &args, "dst[0] == 20 and dst[1] == 50");
    let mut with = args.to_vec();
    with.extend(["--set", "SCALE=3", "--set", "OFFSET=1"]);
    holds("set-header.hlsl", &with, "dst[0] == 7 and dst[1] == 16");
    refused(
        "set-header.hlsl",
        &["--set", "NOPE=1"],
        &[
            "--set NOPE=1: the shader has no `#define NOPE` line to replace (nor has a header it includes)",
        ],
    );
}

/// include.comp: `#include` without `GL_GOOGLE_include_directive`, as
/// glslc accepts it; the values in its comment: (2, 1) as written, (2, 3,
/// 4, 1) with `--set N=4` at four invocations (the `#define` is in the
/// header). At four invocations with N = 2, invocations 2 and 3 store
/// past the tile's end at line 17 of the shader (its own numbering,
/// although a line is inserted after `#version`); with N = 0 the error
/// is in the header, named by its own path, not the copy `--set` wrote.
#[test]
fn glsl_include_needs_no_extension_line_and_keeps_the_shaders_lines() {
    if !glslang() {
        return;
    }
    holds("include.comp", &[], "o.r[0] == 2 and o.r[1] == 1");
    holds(
        "include.comp",
        &["--local-size", "4", "--set", "N=4"],
        "o.r[0] == 2 and o.r[1] == 3 and o.r[2] == 4 and o.r[3] == 1",
    );
    let path = format!("{DIR}/include.comp");
    let (code, out, err) = vkmm(&["check", "--local-size", "4", &path]);
    assert_eq!(code, 3, "{out}\n{err}");
    assert!(
        out.contains(
            "out-of-bounds access to tile at tests/fixtures/unseen-shaders/include.comp:17"
        ),
        "{out}"
    );
    refused(
        "include.comp",
        &["--set", "N=0"],
        &[
            "tests/fixtures/unseen-shaders/include/tile.glsl:3:1:",
            "array size",
        ],
    );
}

/// `--set` of a header's `#define` reaches the header when vkmm runs in
/// the shader's own folder too: glslang looks for a quoted include
/// beside `--stdin`, the current folder, before the include path, so the
/// compiler runs in the folder of the rewritten copies. (2, 3, 4, 1) as in
/// the test above.
#[test]
fn set_reaches_a_header_from_the_shaders_own_folder() {
    if !glslang() {
        return;
    }
    let vkmm = env!("CARGO_BIN_EXE_vkmm");
    let out = std::process::Command::new(vkmm)
        .current_dir(DIR)
        .args(["check", "--local-size", "4", "--set", "N=4", "--assert"])
        .arg("o.r[0] == 2 and o.r[1] == 3 and o.r[2] == 4 and o.r[3] == 1")
        .arg("include.comp")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("\nOk\n"), "{text}");
}

/// hlsl.comp: HLSL in a `.comp` file (no `#version`, a `[numthreads]`
/// entry point) is read as HLSL: (3, 4) doubled is (6, 8).
#[test]
fn hlsl_in_a_comp_file_is_read_as_hlsl() {
    if !glslang() {
        return;
    }
    holds(
        "hlsl.comp",
        &["--input", "values=3,4", "--length", "values=2"],
        "values[0] == 6 and values[1] == 8",
    );
}

/// Non-semantic instructions (DebugPrintf, shader debug information) are
/// removed: HLSL `printf` leaves output = (10, 11) (printf.hlsl), and the
/// assembly's debug records, one naming an id defined after it, leave the
/// store of 7 (non-semantic.spvasm).
#[test]
fn non_semantic_instructions_have_no_effect() {
    if !glslang() {
        return;
    }
    holds(
        "printf.hlsl",
        &["--length", "output=2"],
        "output[0] == 10 and output[1] == 11",
    );
    holds("non-semantic.spvasm", &[], "%out[0] == 7");
}

/// placeholder.wgsl: an identifier the host substitutes before
/// compiling is refused at its first use, naming `--set`; `--set
/// WG_SIZE=N` declares it: (2, 1) at 2, (3, 2, 1) at 3 (its comment).
/// A name the shader never uses stays an error.
#[test]
fn set_declares_a_wgsl_placeholder_the_shader_never_declares() {
    refused(
        "placeholder.wgsl",
        &[],
        &["placeholder.wgsl:8:", "`WG_SIZE`", "--set WG_SIZE=VALUE"],
    );
    holds(
        "placeholder.wgsl",
        &["--set", "WG_SIZE=2"],
        "out[0] == 2 and out[1] == 1",
    );
    holds(
        "placeholder.wgsl",
        &["--set", "WG_SIZE=3"],
        "out[0] == 3 and out[1] == 2 and out[2] == 1",
    );
    refused(
        "placeholder.wgsl",
        &["--set", "WG_SIZE=2", "--set", "UNUSED=1"],
        &["UNUSED"],
    );
}

/// big-array.comp: an array past 4096 elements is refused at its
/// declaration (line 10, column 13: `part`), naming `--set`; with
/// `--set SIZE=4` the exchange gives (6, 5).
#[test]
fn an_array_too_long_is_refused_at_its_declaration_naming_set() {
    if !glslang() {
        return;
    }
    refused(
        "big-array.comp",
        &[],
        &["big-array.comp:10:13:", "7936 elements", "--set NAME=N"],
    );
    holds(
        "big-array.comp",
        &["--set", "SIZE=4"],
        "o.r[0] == 6 and o.r[1] == 5",
    );
}

/// header-places/: a place in an included header is reported in the
/// header. The array past 4096 elements that `shared.h` declares (line 5,
/// column 13; `shared.hlsli` line 3, column 18 for HLSL) is refused at
/// that declaration, not at the shader's first use of it; the sampling
/// inside `sampling.h`'s function is refused at that header's line 8.
/// With `--set SIZE=4` (the header's `#define`) the exchange gives (6, 5).
#[test]
fn a_place_in_an_included_header_names_the_header() {
    if !glslang() {
        return;
    }
    let header = |name: &str| format!("{DIR}/header-places/{name}");
    refused(
        "header-places/big-array.comp",
        &[],
        &[
            &format!(
                "error: {}:5:13: an array of 7936 elements",
                header("shared.h")
            ),
            "--set NAME=N",
        ],
    );
    refused(
        "header-places/big-array.hlsl",
        &[],
        &[&format!(
            "error: {}:3:18: an array of 7936 elements",
            header("shared.hlsli")
        )],
    );
    refused(
        "header-places/sample.comp",
        &[],
        &[&format!(
            "error: {}:8:1: OpBranchConditional: the value of a sample (`OpImageSampleExplicitLod` at line 7)",
            header("sampling.h")
        )],
    );
    holds(
        "header-places/big-array.comp",
        &["--set", "SIZE=4"],
        "o.r[0] == 6 and o.r[1] == 5",
    );
    holds(
        "header-places/big-array.hlsl",
        &["--set", "SIZE=4", "--length", "o=2"],
        "o[0] == 6 and o[1] == 5",
    );
    // The store of oob.h's function (its line 6) is past the end of `b`
    // (1 element) for invocation 1: reported at oob.h:6, exit 3. With the
    // length 2, invocation i stores i + 1: (1, 2).
    let path = format!("{DIR}/header-places/oob.comp");
    let (code, out, err) = vkmm(&["check", "--property", "races", &path]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains(&format!(
            "out-of-bounds access to b at {}:6 ",
            header("oob.h")
        )),
        "{out}"
    );
    holds(
        "header-places/oob.comp",
        &["--length", "b=2"],
        "b.data[0] == 1 and b.data[1] == 2",
    );
}

/// override-missing.wgsl: an override without an initializer has no
/// value until the pipeline gives one (WGSL, "Override Declarations"): the
/// check is refused at its declaration (line 5), naming --set; with
/// `--set step=3` invocation i stores 3 * i.
#[test]
fn an_override_without_an_initializer_names_set() {
    refused(
        "override-missing.wgsl",
        &[],
        &[
            "override-missing.wgsl:5:",
            "`override step` has no initializer",
            "--set step=VALUE",
        ],
    );
    holds(
        "override-missing.wgsl",
        &["--set", "step=3"],
        "out[0] == 0 and out[1] == 3",
    );
}

/// joined.wgsl: a type the host declares in a text it joins to the
/// shader is named as a type, without offering a `const` for it.
#[test]
fn an_undeclared_type_is_not_offered_a_const() {
    refused(
        "joined.wgsl",
        &[],
        &["joined.wgsl:6:", "`Ray`, a type", "joins another text"],
    );
    let (code, _, err) = vkmm(&["check", &format!("{DIR}/joined.wgsl")]);
    assert_eq!(code, 2);
    assert!(!err.contains("--set Ray"), "{err}");
}

/// template.wgsl: a `{NAME}` the host replaces in the text is named at
/// its line with --set; `--set FORMAT=r32uint` puts the text in its place
/// and invocation i stores i + 1 into texel (i, 0).
#[test]
fn a_braced_placeholder_takes_its_text_from_set() {
    refused(
        "template.wgsl",
        &[],
        &[
            "template.wgsl:7:",
            "`{FORMAT}` is a placeholder",
            "--set FORMAT=TEXT",
        ],
    );
    holds(
        "template.wgsl",
        &["--set", "FORMAT=r32uint", "--extent", "img=2x1"],
        "img[0][0] == 1 and img[1][0] == 2",
    );
}

/// nameless-block.comp and .hlsl: a member of a block without an instance
/// name is named alone, as the shader uses it, in an input and a
/// condition; the block's spelling stays a name of the same cell.
#[test]
fn a_member_of_a_block_without_an_instance_name_is_named_alone() {
    if !glslang() {
        return;
    }
    for limit in ["limit=1", "Counts.limit=1"] {
        holds(
            "nameless-block.comp",
            &["--input", limit, "--length", "Counts=2"],
            "values[0] == 1 and values[1] == 0 and Counts.values[0] == 1",
        );
    }
    for count in ["params.count=1", "ubo.params.count=1"] {
        holds(
            "nameless-block.hlsl",
            &["--input", count, "--length", "o=2", "--input", "o=7"],
            "o[0] == 5 and o[1] == 7",
        );
    }
}

/// numthreads-helper.hlsl: `[numthreads]` on a function returning a value
/// names no entry point, so `main` is checked without --entry: o = (1, 0)
/// (invocation 0's id is even, invocation 1's odd).
#[test]
fn numthreads_on_a_function_returning_a_value_names_no_entry_point() {
    if !glslang() {
        return;
    }
    holds(
        "numthreads-helper.hlsl",
        &["--length", "o=2"],
        "o[0] == 1 and o[1] == 0",
    );
}

/// past-end.comp: a constant index past a runtime array's default
/// length is refused at its line, naming the buffer as inputs take it
/// and `--length`; with the length given, 3 + 4 = 7.
#[test]
fn a_constant_index_past_a_runtime_arrays_end_names_length() {
    if !glslang() {
        return;
    }
    refused(
        "past-end.comp",
        &[],
        &[
            "past-end.comp:10:1:",
            "past the end of `bw`",
            "--length bw=N",
        ],
    );
    holds(
        "past-end.comp",
        &["--length", "bw=2", "--input", "bw=3,4"],
        "o.r == 7",
    );
}

/// header-places/race.comp: invocation 0's store in race.h's `put` (its
/// line 7) races with invocation 1's load of the same cell in race.comp
/// (line 13), and nothing else races (derivation in the fixture). The
/// report places the store in the header, `race.h:7`, and the load at
/// the shader's own `line 13`, in the text, in JSON (`first_file` for
/// the header, no `second_file`), in the picture's events, and in a
/// manifest row expecting no race (its detail, text and JUnit).
#[test]
fn a_race_in_an_included_header_names_the_header() {
    if !glslang() {
        return;
    }
    let path = format!("{DIR}/header-places/race.comp");
    let header = format!("{DIR}/header-places/race.h");
    let (code, out, err) = vkmm(&["check", "--property", "races", &path]);
    assert_eq!(code, 0, "{out}{err}");
    let races: Vec<&str> = out.lines().filter(|l| l.contains("race on")).collect();
    assert_eq!(races.len(), 1, "{out}");
    assert!(
        races[0].contains(&format!(
            "race on b.data[0]: P0 (wg 0,0,0 lid 0,0,0) {header}:7: OpStore"
        )) && races[0].contains("P1 (wg 0,0,0 lid 1,0,0) line 13: %"),
        "{out}"
    );
    let (code, out, err) = vkmm(&["check", "--property", "races", "--format", "json", &path]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let race = &v["results"][0]["races"][0];
    assert_eq!(race["first_file"], serde_json::json!(header), "{out}");
    assert!(race.get("second_file").is_none(), "{out}");
    assert!(
        race["second"].as_str().unwrap().contains(" line 13: "),
        "{out}"
    );
    // A manifest row expecting none fails naming the pair, in JUnit too.
    let dir = std::env::temp_dir().join(format!("vkmm-header-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("m.csv");
    let abs = std::env::current_dir().unwrap().join(&path);
    std::fs::write(
        &csv,
        format!(
            "file,entry,local_size,workgroups,defines,set,inputs,property,expected\n\
             {},main,\"2,1,1\",\"1,1,1\",,,zero,races,race-free\n",
            abs.display()
        ),
    )
    .unwrap();
    let junit = dir.join("j.xml");
    let (code, out, err) = vkmm(&[
        "suite",
        "--manifest",
        csv.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ]);
    let xml = std::fs::read_to_string(&junit).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 1, "{out}{err}");
    let header_abs = std::env::current_dir().unwrap().join(&header);
    let pair = format!(
        "expected race-free, got racy: race on b.data[0]: P0 (wg 0,0,0 lid 0,0,0) {}:7: OpStore",
        header_abs.display()
    );
    assert!(out.contains(&pair), "{out}");
    assert!(xml.contains(&pair) && xml.contains(" line 13: "), "{xml}");
    let outcome = "b.data[0] == 1 /\\ b.data[1] == 0";
    let (code, out, err) = vkmm(&["show", &path, "--outcome", outcome]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(&format!("e0: P0 (wg 0,0,0 lid 0,0,0) {header}:7: OpStore")),
        "{out}"
    );
}

/// select.hlsl: HLSL's `select`, which glslang's HLSL front end does not
/// declare, on vectors with a vector condition, on scalars, and on
/// vectors with a vector condition of literals: o = (115, 211) (derived
/// in the fixture). The declarations vkmm adds keep the shader's lines:
/// with `o` of its default length 1, invocation 1's store is out of
/// bounds at the shader's line 21.
#[test]
fn hlsl_select_is_declared_for_glslang() {
    if !glslang() {
        return;
    }
    holds(
        "select.hlsl",
        &["--length", "o=2"],
        "o[0] == 115 and o[1] == 211",
    );
    let path = format!("{DIR}/select.hlsl");
    let (code, out, err) = vkmm(&["check", "--property", "races", &path]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains(&format!("out-of-bounds access to o at {path}:21 ")),
        "{out}"
    );
}

/// A loop in an included header is placed in the header in a
/// non-termination witness: the text names `spin.h:6-7` (not "lines
/// 6-7", which would point into spin.comp) and the JSON loop carries the
/// header as its `file`.
#[test]
fn a_spin_in_an_included_header_names_the_header() {
    if !glslang() {
        return;
    }
    let path = format!("{DIR}/header-places/spin.comp");
    let header = format!("{DIR}/header-places/spin.h");
    let (code, out, err) = vkmm(&["check", "--property", "termination", &path]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("NON-TERMINATING"), "{out}");
    assert!(
        out.contains(&format!("P0 spins forever in {header}:6-7: ")),
        "{out}"
    );
    let (code, out, err) = vkmm(&[
        "check",
        "--property",
        "termination",
        "--format",
        "json",
        &path,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let l = &v["results"][0]["witness"]["loops"][0];
    assert_eq!(l["file"], serde_json::json!(header), "{out}");
    assert_eq!(
        (l["head_line"].as_u64(), l["back_line"].as_u64()),
        (Some(6), Some(7)),
        "{out}"
    );
}

/// SPIRV-Cross's cooperative-matrix-overloads.asm.comp: each function
/// loops over the components of a matrix up to
/// OpCooperativeMatrixLengthKHR, whose value ("Number of components of a
/// cooperative matrix type accessible to the current invocation") is the
/// implementation's: refused at the loop's branch (line 114 of the file:
/// 10 header lines, then the original's line 104), naming the length
/// (line 99).
#[test]
fn a_loop_bounded_by_a_cooperative_matrix_length_is_refused_at_its_branch() {
    refused(
        "cooperative-matrix-overloads.asm.comp",
        &["--local-size", "2"],
        &[
            "cooperative-matrix-overloads.asm.comp:114:21: OpBranchConditional:",
            "(`OpCooperativeMatrixLengthKHR` at line 99), may decide which way a branch goes",
        ],
    );
}

/// naga's compare-exchange test: each invocation walks the cells, reads
/// one, and retries `atomicCompareExchangeWeak(&arr[i], old, new_)` with
/// `new_` the bits of `bitcast<f32>(old) + 1.0` until it succeeds, taking
/// the value read as the next `old`. A success adds 1.0 to the float the
/// cell's bits hold, reading the write before it in coherence, so with
/// two invocations each cell goes 0 (0.0) -> 0x3F800000 (1.0) ->
/// 0x40000000 (2.0) = 1073741824 in every execution, for both entry
/// points (the i32 one's bits are the same, positive); only atomics touch
/// the cells: race-free. Complete at the default unrolling bound: a
/// failure reads the other invocation's one write of the cell, so each
/// compare-exchange loop runs at most twice (`coherence-cuts`, its
/// compare-exchange inside the loop over the cells counted once per
/// invocation).
#[test]
fn nagas_compare_exchange_loops_end_complete() {
    for ty in ["u32", "i32"] {
        let entry = format!("test_atomic_compare_exchange_{ty}");
        let base = ["--entry", entry.as_str(), "--local-size", "2"];
        let arr = format!("arr_{ty}");
        let one = [base.as_slice(), &["--set", "SIZE=1"]].concat();
        holds(
            "atomicCompareExchange.wgsl",
            &one,
            &format!("{arr}[0] == 1073741824"),
        );
        let two = [base.as_slice(), &["--set", "SIZE=2"]].concat();
        holds(
            "atomicCompareExchange.wgsl",
            &two,
            &format!("{arr}[0] == 1073741824 and {arr}[1] == 1073741824"),
        );
    }
}
