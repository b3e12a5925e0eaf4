//! Shaders as compilers emit them (src/frontend/spirv/lower/known.rs,
//! docs/format-spirv.md "Values known per invocation"): glslang passes
//! every argument through a Function variable and a pointer parameter,
//! returns values through calls, and lowers every `if` of a per-invocation
//! condition to blocks one invocation never runs. The lowering folds the
//! values that are constant per invocation through all of that, so an
//! image coordinate computed from the invocation id in a helper function
//! is a texel, not a branch over every texel of a large image.
//!
//! Each shader is GLSL compiled by glslangValidator (the tests print a
//! SKIPPED line and pass when it is not installed); each verdict is
//! derived by hand in the comment above it.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vkmm-known-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `shader` (with `dispatch` beside it as its dispatch file) and
/// runs `vkmm check ARGS shader`: exit code and stdout + stderr.
fn check(name: &str, shader: &str, dispatch: &str, args: &[&str]) -> (Option<i32>, String) {
    let d = scratch(name);
    let path = d.join(format!("{name}.comp"));
    std::fs::write(&path, shader).unwrap();
    std::fs::write(d.join(format!("{name}.comp.dispatch.toml")), dispatch).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .arg("check")
        .args(args)
        .arg(&path)
        .env_remove("VKMM_GLSLANG")
        .output()
        .expect("vkmm runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
    (o.status.code(), text)
}

/// A 128 x 128 image: 16384 texels, past the 4096 cells a coordinate
/// known only at run time may range over.
const BIG: &str = "local_size = [2, 1, 1]\n[inputs]\nimg = { extent = [128, 128] }\n";

/// The coordinate is `pick(id, row)`: computed in a function whose
/// arguments glslang stores to Function variables and passes by pointer,
/// returned through `OpReturnValue`, stored to a local variable, and
/// handed to `put`, which stores the texel through two more pointer
/// parameters. Per invocation it is a constant: invocation k writes texel
/// (k * 3, row) with row = 5. With `SAME`, both write (0, 5).
const THROUGH_CALLS: &str = r#"#version 450
layout(local_size_x = 2) in;
layout(r32ui, binding = 0) uniform uimage2D img;

ivec2 pick(uint id, int row) {
    int x = int(id) * 3;
#ifdef SAME
    x = 0;
#endif
    return ivec2(x, row);
}

void put(ivec2 at, uint v) {
    imageStore(img, at, uvec4(v));
}

void main() {
    ivec2 c = pick(gl_LocalInvocationID.x, 5);
    put(c, 1u);
}
"#;

/// Invocations 0 and 1 write texels (0, 5) and (3, 5): different
/// locations, no conflict, so no data race. With `SAME` both write (0, 5),
/// two plain writes of the same location by two invocations with no
/// synchronisation between them: racy. Before the values were followed
/// through the calls, both were an error (a runtime coordinate into
/// 16384 texels).
#[test]
fn a_coordinate_computed_through_calls_is_a_texel() {
    if !common::glslang() {
        return;
    }
    let (code, out) = check("calls", THROUGH_CALLS, BIG, &["--property", "races"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Data races: none"), "{out}");
    let (code, out) = check(
        "calls-same",
        THROUGH_CALLS,
        BIG,
        &["--property", "races", "-D", "SAME"],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert!(out.contains("race on img[0][5]"), "{out}");
}

/// Only invocation 7 takes the branch, and the dispatch has invocations 0
/// and 1: for both, the block is never run. Its coordinate depends on a
/// value loaded from the buffer (known only at run time), into the large
/// image. Invocation k then writes texel (k, 0): no conflict, no race.
const UNREACHED: &str = r#"#version 450
layout(local_size_x = 2) in;
layout(r32ui, binding = 0) uniform uimage2D img;
layout(std430, binding = 1) buffer B { int v[]; } b;

void main() {
    uint id = gl_LocalInvocationID.x;
    if (id == 7u) {
        imageStore(img, ivec2(b.v[0], 1), uvec4(2u));
    }
    imageStore(img, ivec2(int(id), 0), uvec4(1u));
}
"#;

/// The blocks no path of an invocation reaches are not lowered for it:
/// the runtime coordinate of the branch only invocation 7 would take
/// (none here) is no error. Each invocation writes its own texel (k, 0):
/// race-free.
#[test]
fn a_branch_no_invocation_takes_is_not_lowered() {
    if !common::glslang() {
        return;
    }
    let (code, out) = check("unreached", UNREACHED, BIG, &["--property", "races"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Data races: none"), "{out}");
}

/// An array of two images: `imgs[0]` large (16384 texels), `imgs[1]` four
/// texels. The loop counter `i` is a register (loops are not unrolled
/// when lowering), so the coordinate is known only at run time, but the
/// element is the constant 1: the access ranges over the four texels of
/// `imgs[1]`, not the 16388 of the array. Invocation k writes
/// (k + i, 0) for i = 0, 1: invocation 0 writes texels 0 and 1,
/// invocation 1 writes 1 and 2, so both write texel (1, 0) with no
/// synchronisation: racy, on `%imgs[1][1][0]`.
const ELEMENT: &str = r#"#version 450
layout(local_size_x = 2) in;
layout(r32ui, binding = 0) uniform uimage2D imgs[2];

void main() {
    for (int i = 0; i < 2; i++) {
        imageStore(imgs[1], ivec2(int(gl_LocalInvocationID.x) + i, 0), uvec4(1u));
    }
}
"#;

const ELEMENT_DISPATCH: &str = "local_size = [2, 1, 1]\n[inputs]\n\"imgs[0]\" = { extent = [128, 128] }\n\"imgs[1]\" = { extent = [4, 1] }\n";

#[test]
fn a_runtime_coordinate_ranges_over_its_element_only() {
    if !common::glslang() {
        return;
    }
    let (code, out) = check(
        "element",
        ELEMENT,
        ELEMENT_DISPATCH,
        &["--property", "races"],
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Data races: yes"), "{out}");
    assert!(out.contains("race on imgs[1][1][0]"), "{out}");
    // A coordinate that could reach past 4096 texels of one image is
    // still refused, naming the instruction.
    // Here both coordinates are the counter's, each up to 127.
    let both = ELEMENT.replace(", 0), uvec4", ", i), uvec4");
    let big = "local_size = [2, 1, 1]\n[inputs]\n\"imgs[0]\" = { extent = [4, 1] }\n\"imgs[1]\" = { extent = [128, 128] }\n";
    let (code, out) = check("element-big", &both, big, &["--property", "races"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("unsupported construct `OpImageWrite`")
            && out.contains("16384 texel channels"),
        "{out}"
    );
}

/// What one path stores is not what the join knows. `x` is 0, then 1 on
/// the path where the buffer's value (arbitrary) is 1: after the `if`,
/// `x` is 0 or 1. Invocation 0 writes texel (x, 0), invocation 1 writes
/// (1, 0): where the buffer holds 1 both write (1, 0) with no
/// synchronisation, so the shader is racy. Folding `x` to the 0 of the
/// path that skips the `if` would find no race.
const JOIN: &str = r#"#version 450
layout(local_size_x = 2) in;
layout(r32ui, binding = 0) uniform uimage2D img;
layout(std430, binding = 1) buffer B { int v[]; } b;

void main() {
    int x = 0;
    if (gl_LocalInvocationID.x == 0u) {
        if (b.v[0] == 1) {
            x = 1;
        }
        imageStore(img, ivec2(x, 0), uvec4(1u));
    } else {
        imageStore(img, ivec2(1, 0), uvec4(2u));
    }
}
"#;

/// A loop's body runs again after its first pass: `x` is 0 on the first
/// iteration and 1 on the second, so invocation 0 writes texels (0, 0)
/// and (1, 0); invocation 1 writes (1, 0): racy. Folding `x` to the 0 it
/// holds on entering the loop would have invocation 0 write (0, 0) twice
/// and find no race.
const LOOP: &str = r#"#version 450
layout(local_size_x = 2) in;
layout(r32ui, binding = 0) uniform uimage2D img;

void main() {
    int x = 0;
    if (gl_LocalInvocationID.x == 0u) {
        for (int i = 0; i < 2; i++) {
            imageStore(img, ivec2(x, 0), uvec4(1u));
            x = 1;
        }
    } else {
        imageStore(img, ivec2(1, 0), uvec4(2u));
    }
}
"#;

const SMALL: &str =
    "local_size = [2, 1, 1]\n[inputs]\nimg = { extent = [4, 1] }\nb = \"arbitrary\"\n";

#[test]
fn a_value_known_on_one_path_only_stays_a_register() {
    if !common::glslang() {
        return;
    }
    for (name, shader) in [("join", JOIN), ("loop", LOOP)] {
        let dispatch = if name == "loop" {
            "local_size = [2, 1, 1]\n[inputs]\nimg = { extent = [4, 1] }\n"
        } else {
            SMALL
        };
        let (code, out) = check(name, shader, dispatch, &["--property", "races"]);
        assert_eq!(code, Some(0), "{name}: {out}");
        assert!(out.contains("race on img[1][0]"), "{name}: {out}");
    }
}

/// A buffer of 100 x 50 = 5000 cells: more than 4096, so its cells get
/// locations as accesses reach them (docs/format-spirv.md, "Large
/// variables"). Invocation k stores 1 to `%out[0][k]`. The condition also
/// names `%out[99][49]`, which no access reaches: it keeps its initial
/// value 0. So `%out[0][0] == 1 and %out[0][1] == 1 and %out[99][49] ==
/// 0` holds in every execution (each cell has one store, which is the
/// last write of it), and `%out[99][49] == 1` holds in none.
const LARGE: &str = "; @Input: %out = ZEROS
; @Output: forall (%out[0][0] == 1 and %out[0][1] == 1 and %out[99][49] == 0)
; @Config: 2, 1, 1
OpCapability Shader
OpCapability VulkanMemoryModel
OpMemoryModel Logical Vulkan
OpEntryPoint GLCompute %main \"main\" %ids
OpDecorate %ids BuiltIn GlobalInvocationId
OpDecorate %row ArrayStride 4
OpDecorate %arr ArrayStride 200
%void = OpTypeVoid
%func = OpTypeFunction %void
%uint = OpTypeInt 32 0
%c0 = OpConstant %uint 0
%c1 = OpConstant %uint 1
%c50 = OpConstant %uint 50
%c100 = OpConstant %uint 100
%v3uint = OpTypeVector %uint 3
%row = OpTypeArray %uint %c50
%arr = OpTypeArray %row %c100
%ptr_in_v3 = OpTypePointer Input %v3uint
%ptr_in_uint = OpTypePointer Input %uint
%ptr_sb_arr = OpTypePointer StorageBuffer %arr
%ptr_sb_uint = OpTypePointer StorageBuffer %uint
%ids = OpVariable %ptr_in_v3 Input
%out = OpVariable %ptr_sb_arr StorageBuffer
%main = OpFunction %void None %func
%entry = OpLabel
%id_ptr = OpAccessChain %ptr_in_uint %ids %c0
%id = OpLoad %uint %id_ptr
%p = OpAccessChain %ptr_sb_uint %out %c0 %id
OpStore %p %c1
OpReturn
OpFunctionEnd
";

/// `LARGE` with its `@Input`: every cell 0 (`{{0, ...}, ...}`).
fn large() -> String {
    let row = format!("{{{}}}", vec!["0"; 50].join(", "));
    LARGE.replace("ZEROS", &format!("{{{}}}", vec![row; 100].join(", ")))
}

#[test]
fn a_condition_names_a_cell_of_a_large_buffer_no_access_reaches() {
    let session = vkmm::Session::new().timeout(Some(std::time::Duration::from_secs(10)));
    let program = session.load_text("large.spvasm", &large()).unwrap();
    // The two cells the stores reach and the one the condition names.
    let named: Vec<_> = program
        .locations
        .iter()
        .filter(|l| l.starts_with("%out["))
        .cloned()
        .collect();
    let mut named = named;
    named.sort();
    assert_eq!(
        named,
        ["%out[0][0]", "%out[0][1]", "%out[99][49]"],
        "{named:?}"
    );
    let holds = |text: &str| match session.check_text("large.spvasm", text).unwrap() {
        vkmm::analysis::Checked::Litmus(o) => o.condition_holds,
        _ => panic!("a litmus result"),
    };
    assert_eq!(holds(&large()), Some(true));
    let fails = large().replace("%out[99][49] == 0", "%out[99][49] == 1");
    assert_eq!(holds(&fails), Some(false));
}

/// A manifest row's assertion names a cell no access reaches, as the
/// header's condition does: `vkmm suite --manifest` scores the row (the
/// assertion holds: the stores leave `out[99][49]` at 0) instead of an
/// unknown location.
#[test]
fn a_manifest_assertion_names_a_cell_no_access_reaches() {
    let d = scratch("manifest");
    let shader = large()
        .lines()
        .filter(|l| !l.starts_with("; @Output"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(d.join("large.spvasm"), shader + "\n").unwrap();
    let header = "file,language,source_repo,source_path,commit,licence,entry,local_size,workgroups,defines,set,inputs,property,expected,confidence,reasoning";
    let row = "large.spvasm,SPIR-V,-,-,-,-,main,\"2,1,1\",\"1,1,1\",,,zero,assertion: out[99][49] == 0 and out[0][1] == 1,holds,high,hand-derived";
    std::fs::write(d.join("m.csv"), format!("{header}\n{row}\n")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vkmm"))
        .args(["suite", "--manifest"])
        .arg(d.join("m.csv"))
        .output()
        .expect("vkmm runs");
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&d);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 passed, 0 failed, 0 undecided, 0 errors"),
        "{out}"
    );
}
