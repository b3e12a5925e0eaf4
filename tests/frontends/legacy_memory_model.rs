//! The GLSL450 memory model (docs/format-spirv.md, "The GLSL450 memory
//! model"): modules declaring `OpMemoryModel ... GLSL450` read as GLSL
//! compilers and drivers read them (`--legacy-memory-model coherent`, the
//! default) and literally (`strict`). The shaders are under
//! `tests/fixtures/legacy-memory-model/`; each file's comment derives its verdicts
//! by hand under both readings. The GLSL ones need `glslangValidator` and
//! print a SKIPPED line without it; the SPIR-V ones always run.

use crate::common;
use common::glslang;

use std::path::Path;
use std::process::Command;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/legacy-memory-model")
        .join(name)
        .display()
        .to_string()
}

/// `vkmm check [--legacy-memory-model READING] FILE`: (exit code, stdout,
/// stderr).
fn check(file: &str, reading: Option<&str>) -> (Option<i32>, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vkmm"));
    c.arg("check");
    if let Some(r) = reading {
        c.args(["--legacy-memory-model", r]);
    }
    let o = c.arg(file).env_remove("VKMM_GLSLANG").output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The verdict of `file` under `reading`: its condition holds in every
/// execution and there is no race, or (`racy`) some execution breaks the
/// condition and a race on `race` is reported.
fn verdict(file: &str, reading: Option<&str>, racy: Option<&str>) {
    let (code, stdout, stderr) = check(file, reading);
    assert_eq!(code, Some(0), "{file} {reading:?}: {stdout}{stderr}");
    match racy {
        None => {
            assert!(stdout.contains(" Always "), "{file} {reading:?}: {stdout}");
            assert!(
                stdout.contains("Data races: none"),
                "{file} {reading:?}: {stdout}"
            );
        }
        Some(loc) => {
            assert!(
                stdout.contains(" Sometimes "),
                "{file} {reading:?}: {stdout}"
            );
            assert!(
                stdout.contains(&format!("race on {loc}:")),
                "{file} {reading:?}: {stdout}"
            );
        }
    }
    // The lint says which reading applied, at line 1 of a GLSL shader.
    let named = match reading {
        Some("strict") => "read literally (`--legacy-memory-model strict`)",
        _ => "vkmm reads it as GLSL compilers and drivers do (`--legacy-memory-model coherent`)",
    };
    assert!(
        stderr.contains("warning: the module uses the GLSL450 memory model")
            && stderr.contains(named),
        "{file} {reading:?}: {stderr}"
    );
}

#[test]
fn a_shared_clear_before_barrier_then_atomics_is_race_free_unless_strict() {
    if !glslang() {
        return;
    }
    let f = fixture("shared-then-atomic.comp");
    verdict(&f, None, None);
    verdict(&f, Some("coherent"), None);
    verdict(&f, Some("strict"), Some("counter"));
    let (_, _, stderr) = check(&f, None);
    assert!(
        stderr.contains("shared-then-atomic.comp:1:1: warning:"),
        "{stderr}"
    );
}

#[test]
fn message_passing_through_a_coherent_buffer_with_fences_is_race_free_unless_strict() {
    if !glslang() {
        return;
    }
    verdict(&fixture("mp-coherent.comp"), None, None);
    verdict(
        &fixture("mp-coherent.comp"),
        Some("strict"),
        Some("buf.data"),
    );
}

#[test]
fn message_passing_through_a_plain_buffer_races_under_both_readings() {
    if !glslang() {
        return;
    }
    verdict(&fixture("mp-plain.comp"), None, Some("buf.data"));
    verdict(&fixture("mp-plain.comp"), Some("strict"), Some("buf.data"));
}

#[test]
fn a_glsl_volatile_buffer_is_coherent() {
    if !glslang() {
        return;
    }
    verdict(&fixture("mp-volatile.comp"), None, None);
    verdict(
        &fixture("mp-volatile.comp"),
        Some("strict"),
        Some("buf.data"),
    );
}

#[test]
fn the_volatile_decoration_alone_is_not_coherence() {
    let f = fixture("mp-volatile-only.spvasm");
    verdict(&f, None, Some("%buf[0]"));
    verdict(&f, Some("strict"), Some("%buf[0]"));
    let text = std::fs::read_to_string(&f).unwrap();
    let dir = std::env::temp_dir().join(format!("vkmm-legacy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The data member decorated Coherent: mp-coherent.comp's verdicts.
    let member = text.replace(
        "OpMemberDecorate %Buf 0 Volatile",
        "OpMemberDecorate %Buf 0 Coherent",
    );
    assert_ne!(member, text);
    let m = dir.join("member.spvasm");
    std::fs::write(&m, member).unwrap();
    verdict(&m.display().to_string(), None, None);
    verdict(&m.display().to_string(), Some("strict"), Some("%buf[0]"));
    // The variable decorated Coherent: the same.
    let variable = text.replace(
        "OpDecorate %buf Binding 0\n",
        "OpDecorate %buf Binding 0\nOpDecorate %buf Coherent\n",
    );
    assert_ne!(variable, text);
    let v = dir.join("variable.spvasm");
    std::fs::write(&v, variable).unwrap();
    verdict(&v.display().to_string(), None, None);
    verdict(&v.display().to_string(), Some("strict"), Some("%buf[0]"));
    // Under the Simple memory model, the same reading as GLSL450.
    let simple = std::fs::read_to_string(&m).unwrap().replace(
        "OpMemoryModel Logical GLSL450",
        "OpMemoryModel Logical Simple",
    );
    let s = dir.join("simple.spvasm");
    std::fs::write(&s, simple).unwrap();
    let (code, stdout, stderr) = check(&s.display().to_string(), None);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Data races: none"), "{stdout}");
    assert!(
        stderr.contains("the module uses the Simple memory model"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wgsl_workgroup_barrier_publishes_workgroup_memory_unless_strict() {
    let f = fixture("workgroup-barrier.spv");
    verdict(&f, None, None);
    verdict(&f, Some("strict"), Some("%x"));
    // The reader takes 1 in every execution by default; 0 appears strictly.
    let (_, stdout, _) = check(&f, None);
    assert!(stdout.contains(":> %out[0][1]=1;"), "{stdout}");
    assert!(!stdout.contains("%out[0][1]=0;"), "{stdout}");
    let (_, stdout, _) = check(&f, Some("strict"));
    assert!(stdout.contains("%out[0][1]=0;"), "{stdout}");
}

#[test]
fn an_unknown_reading_is_refused() {
    let (code, _, stderr) = check(&fixture("mp-volatile-only.spvasm"), Some("loose"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "unknown legacy memory-model reading `loose`: expected `coherent`, `strict` or `wgsl`"
        ),
        "{stderr}"
    );
}

/// A WGSL shader is read as the WGSL specification maps WGSL to the
/// Vulkan memory model (14.5.5: plain storage and workgroup accesses are
/// "non-private and correspond to read operations with NonPrivatePointer |
/// MakePointerVisible memory operands with the Workgroup scope", writes
/// with MakePointerAvailable), not as naga's GLSL450 module without
/// `Coherent` reads literally. Message passing of a plain storage write
/// through `storageBarrier()` ("AcquireRelease memory semantics and
/// UniformMemory semantics", Workgroup execution scope) in one workgroup:
/// the write happens before the read and is visible to it, so `out[0]` is
/// 1 in every execution and nothing races. `strict` reads naga's module
/// literally: every plain access private, 0 possible, a race on `%data`.
#[test]
fn a_wgsl_storage_barrier_publishes_storage_memory_in_its_workgroup() {
    let f = "examples/mappings/wgsl/storage-barrier-mp.wgsl";
    let (code, stdout, stderr) = check(f, None);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("Observation storage-barrier-mp Always 1 0"),
        "{stdout}"
    );
    assert!(stdout.contains("Data races: none"), "{stdout}");
    assert!(
        stderr.contains(
            "vkmm reads it as the WGSL specification maps WGSL to the Vulkan memory model (14.5)"
        ),
        "{stderr}"
    );
    // `coherent` asked of a WGSL shader is WGSL's reading.
    let (_, coherent, _) = check(f, Some("coherent"));
    let untimed = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("Time "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(untimed(&coherent), untimed(&stdout));
    let (code, stdout, stderr) = check(f, Some("strict"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(" Sometimes "), "{stdout}");
    assert!(stdout.contains("race on data[0]:"), "{stdout}");
}

/// The WGSL reading's availability and visibility are at Workgroup scope,
/// and `storageBarrier()` synchronises one workgroup: the same message
/// passing between two workgroups (one invocation each) still races on
/// `data` and may read 0 (the barrier's execution scope holds neither
/// pair of invocations, so no synchronizes-with orders the write before
/// the read).
#[test]
fn a_wgsl_storage_barrier_does_not_publish_across_workgroups() {
    let dir = std::env::temp_dir().join(format!("vkmm-wgsl-reading-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("across.wgsl");
    std::fs::write(
        &f,
        "@group(0) @binding(0) var<storage, read_write> data: array<u32, 1>;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<u32, 1>;\n\
         @compute @workgroup_size(1)\n\
         fn main(@builtin(workgroup_id) w: vec3<u32>) {\n\
         \x20   if w.x == 0u { data[0] = 1u; }\n\
         \x20   storageBarrier();\n\
         \x20   if w.x == 1u { out[0] = data[0]; }\n\
         }\n\
         // @Config: 1, 1, 2\n\
         // @Output: forall (%out[0][0] == 1)\n",
    )
    .unwrap();
    let (code, stdout, stderr) = check(&f.display().to_string(), None);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(" Sometimes "), "{stdout}");
    assert!(stdout.contains("race on data[0]:"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
