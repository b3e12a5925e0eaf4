//! GLSL compute shaders (`.comp`, docs/format-glsl.md): compiled by
//! `glslangValidator`, then lowered as a binary module. The bundled
//! examples are checked through the CLI with their expected verdicts; the
//! tests that need the compiler print a SKIPPED line and pass when it is
//! not installed (Debian `glslang-tools`). A missing compiler and a
//! crashing one are simulated through `VKMM_GLSLANG`, so those tests always
//! run.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

fn vkmm(args: &[&str], glslang: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vkmm"));
    c.args(args);
    if let Some(g) = glslang {
        c.env("VKMM_GLSLANG", g);
    } else {
        c.env_remove("VKMM_GLSLANG");
    }
    c.output().expect("vkmm runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vkmm-glsl-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn glslang() -> bool {
    common::glslang()
}

fn out(o: &Output) -> (Option<i32>, String, String) {
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn message_passing_with_release_acquire_is_forbidden_to_see_stale_data() {
    if !glslang() {
        return;
    }
    let (code, stdout, stderr) = out(&vkmm(&["check", &root("examples/glsl/mp.comp")], None));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("Observation mp Always 2 0"), "{stdout}");
    assert!(!stdout.contains("buf.seen=1; buf.got=0;"), "{stdout}");
    assert!(stdout.contains("Data races: none"), "{stdout}");
    // Relaxed atomics instead: the stale read appears, and the data races.
    let text = std::fs::read_to_string(root("examples/glsl/mp.comp"))
        .unwrap()
        .replace(
            "gl_SemanticsRelease | gl_SemanticsMakeAvailable",
            "gl_SemanticsRelaxed",
        )
        .replace(
            "gl_SemanticsAcquire | gl_SemanticsMakeVisible",
            "gl_SemanticsRelaxed",
        )
        .replace("gl_StorageSemanticsBuffer", "0");
    let d = scratch("mp");
    std::fs::write(d.join("mp-relaxed.comp"), text).unwrap();
    let (code, stdout, _) = out(&vkmm(
        &["check", &d.join("mp-relaxed.comp").display().to_string()],
        None,
    ));
    assert_eq!(code, Some(0));
    assert!(stdout.contains("buf.seen=1; buf.got=0;"), "{stdout}");
    assert!(stdout.contains("race on buf.data:"), "{stdout}");
    // Events at the shader's lines (`buf.data = 1;` is line 21,
    // `buf.got = buf.data;` line 29), invocations by their ids.
    assert!(
        stdout.contains("P0 (wg 0,0,0 lid 0,0,0) line 21: OpStore"),
        "{stdout}"
    );
    assert!(
        stdout.contains("P1 (wg 0,0,0 lid 1,0,0) line 29: %"),
        "{stdout}"
    );
    // The bundled binary is this shader compiled: the same answer, its
    // cells under the module's names (`%buf[2]` for `buf.seen`), so the
    // states compare by their values.
    let (_, binary, _) = out(&vkmm(&["check", &root("examples/spirv/mp.spv")], None));
    let states = |s: &str| {
        s.lines()
            .filter(|l| l.contains(":>") || l.starts_with("Observation"))
            .map(|l| {
                l.split(' ')
                    .map(|w| w.split_once('=').map_or(w, |(_, v)| v))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect::<Vec<_>>()
    };
    let (_, glsl, _) = out(&vkmm(&["check", &root("examples/glsl/mp.comp")], None));
    assert_eq!(states(&glsl), states(&binary));
}

#[test]
fn a_workgroup_barrier_publishes_the_data() {
    if !glslang() {
        return;
    }
    let (code, stdout, stderr) = out(&vkmm(
        &["check", &root("examples/glsl/mp-barrier.comp")],
        None,
    ));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("Observation mp-barrier Always 1 0"),
        "{stdout}"
    );
    assert!(stdout.contains("Data races: none"), "{stdout}");
    // Without the barrier's memory semantics it only synchronizes
    // execution: the reader may see 0, and the accesses race.
    let text = std::fs::read_to_string(root("examples/glsl/mp-barrier.comp"))
        .unwrap()
        .replace(
            "gl_StorageSemanticsBuffer,\n                 gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable |\n                 gl_SemanticsMakeVisible",
            "0, gl_SemanticsRelaxed",
        );
    assert!(text.contains("0, gl_SemanticsRelaxed"));
    let d = scratch("barrier");
    std::fs::write(d.join("b.comp"), text).unwrap();
    let (_, stdout, _) = out(&vkmm(
        &["check", &d.join("b.comp").display().to_string()],
        None,
    ));
    assert!(stdout.contains("buf.got=0;"), "{stdout}");
    assert!(stdout.contains("race on buf.data:"), "{stdout}");
}

#[test]
fn the_spin_lock_keeps_the_counter_at_two() {
    if !glslang() {
        return;
    }
    // The compare-exchange loop runs as an await (a failed compare-exchange
    // writes nothing: MODELS.md, "Read-modify-write spin loops"), so the
    // answer is complete: every execution ends with the counter at 2,
    // without a race. The same file with the reduction off is bounded.
    let (code, stdout, stderr) = out(&vkmm(
        &["check", &root("examples/glsl/spinlock.comp")],
        None,
    ));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains("BOUND HIT"), "{stdout}");
    assert!(stdout.contains("Data races: none"), "{stdout}");
    let (code, stdout, _) = out(&vkmm(
        &[
            "check",
            "--no-spin-reduction",
            &root("examples/glsl/spinlock.comp"),
        ],
        None,
    ));
    assert_eq!(code, Some(3), "{stdout}");
    assert!(stdout.contains("BOUND HIT"), "{stdout}");
    let (_, stdout, _) = out(&vkmm(
        &["check", &root("examples/glsl/spinlock.comp")],
        None,
    ));
    let states: Vec<&str> = stdout.lines().filter(|l| l.contains(":>")).collect();
    assert_eq!(states.len(), 1, "{stdout}");
    assert!(states[0].ends_with("buf.counter=2;"), "{stdout}");
    assert!(!stdout.contains("race on"), "{stdout}");
    // Relaxed lock operations: an increment is lost, decided (a
    // counterexample of the forall), with races on the counter.
    let text = std::fs::read_to_string(root("examples/glsl/spinlock.comp"))
        .unwrap()
        .replace(
            "gl_SemanticsAcquire | gl_SemanticsMakeVisible",
            "gl_SemanticsRelaxed",
        )
        .replace(
            "gl_SemanticsRelease | gl_SemanticsMakeAvailable",
            "gl_SemanticsRelaxed",
        );
    let d = scratch("spin");
    std::fs::write(d.join("s.comp"), text).unwrap();
    let (code, stdout, _) = out(&vkmm(
        &["check", &d.join("s.comp").display().to_string()],
        None,
    ));
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("buf.counter=1;"), "{stdout}");
    assert!(stdout.contains("race on buf.counter:"), "{stdout}");
}

#[test]
fn compile_errors_and_header_errors_are_at_the_shader_line() {
    if !glslang() {
        return;
    }
    let d = scratch("errors");
    let f = d.join("e.comp");
    std::fs::write(&f, "#version 450\nvoid main() {\n  x = 1;\n}\n").unwrap();
    let (code, _, stderr) = out(&vkmm(&["check", &f.display().to_string()], None));
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("e.comp:3:1: glslangValidator: 'x' : undeclared identifier"),
        "{stderr}"
    );
    // A header naming a location that does not exist: its line and column.
    let shader = std::fs::read_to_string(root("examples/glsl/mp.comp"))
        .unwrap()
        .replace("buf.got == 1)", "buf.nothing == 1)");
    std::fs::write(&f, shader).unwrap();
    let (code, _, stderr) = out(&vkmm(&["check", &f.display().to_string()], None));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("e.comp:9:38:"), "{stderr}");
    // Named whole, as spelled (not its known prefix `buf`).
    assert!(
        stderr.contains("unknown location `buf.nothing`"),
        "{stderr}"
    );
    // A construct vkmm does not lower: at the line of the shader it came
    // from (the compiler's OpLine), naming the instruction.
    // (GLSL.std.450 Modf of a runtime float.)
    let float = "#version 450\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { uint x; } b;\nvoid main() {\n  float f = float(b.x); float i;\n  b.x = uint(modf(f, i));\n}\n";
    std::fs::write(&f, float).unwrap();
    let (code, _, stderr) = out(&vkmm(&["check", &f.display().to_string()], None));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("unsupported construct"), "{stderr}");
    assert!(
        stderr.contains("e.comp:5:") || stderr.contains("e.comp:6:"),
        "{stderr}"
    );
    // The GLSL450 memory model: `coherent` does nothing, and vkmm says so.
    let legacy = "#version 450\n// @Config: 1, 1, 1\nlayout(local_size_x = 1) in;\nlayout(binding = 0) coherent buffer B { uint x; } b;\nvoid main() { b.x = 1u; }\n";
    std::fs::write(&f, legacy).unwrap();
    let (code, _, stderr) = out(&vkmm(&["check", &f.display().to_string()], None));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("e.comp:1:1: warning: the module uses the GLSL450 memory model"),
        "{stderr}"
    );
}

#[test]
fn glslang_12_crash_is_reported_as_a_crash() {
    if !glslang() {
        return;
    }
    // Debian's glslang 12 segfaults on this shader (semantics from a
    // function parameter); a fixed compiler compiles it. Either way vkmm
    // answers with an exit code, never a hang or a panic.
    let d = scratch("crash");
    let f = d.join("c.comp");
    std::fs::write(
        &f,
        "#version 450\n#pragma use_vulkan_memory_model\n#extension GL_KHR_memory_scope_semantics : require\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { uint x; } b;\nvoid st(int sem) {\n  atomicStore(b.x, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, sem);\n}\nvoid main() { st(gl_SemanticsRelease); }\n",
    )
    .unwrap();
    let (code, _, stderr) = out(&vkmm(&["check", &f.display().to_string()], None));
    println!("glslangValidator on c.comp: exit {code:?}: {stderr}");
    assert!(matches!(code, Some(0 | 2 | 3)), "{stderr}");
    if stderr.contains("crashed") {
        assert!(stderr.contains("signal 11, SIGSEGV"), "{stderr}");
    }
}

#[cfg(unix)]
#[test]
fn a_crashing_compiler_names_the_tool_and_the_signal() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("fake");
    let tool = d.join("fake-glslang");
    std::fs::write(&tool, "#!/bin/sh\ncat >/dev/null\nkill -SEGV $$\n").unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tool = tool.display().to_string();
    let (code, _, stderr) = out(&vkmm(
        &["check", &root("examples/glsl/mp.comp")],
        Some(&tool),
    ));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("mp.comp: `"), "{stderr}");
    assert!(stderr.contains("fake-glslang` crashed"), "{stderr}");
    assert!(stderr.contains("signal 11, SIGSEGV"), "{stderr}");
}

#[test]
fn a_missing_compiler_says_how_to_install_it() {
    let (code, _, stderr) = out(&vkmm(
        &["check", &root("examples/glsl/mp.comp")],
        Some("/nonexistent/glslangValidator"),
    ));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is not installed"), "{stderr}");
    assert!(stderr.contains("apt-get install glslang-tools"), "{stderr}");
}
