//! The constructs real compute shaders use, one small shader per group in
//! tests/fixtures/shader-constructs/ (glsl/, wgsl/, hlsl/), each checked against
//! its final state derived by hand (the comments in each shader give every
//! value and why). The sweep's result is recorded in docs/format-spirv.md
//! and docs/format-wgsl.md ("Constructs"). They need glslangValidator:
//! without it they fail under CI and print SKIPPED elsewhere.

use crate::common;
use common::{glslang, vkmm};

/// `vkmm check ARGS --assert CONDITION FILE`: (exit code, stdout, stderr).
fn check(file: &str, args: &[&str], condition: &str) -> (i32, String, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend(["--assert", condition, file]);
    vkmm(&all)
}

/// The condition holds in every execution, and the check says so.
fn holds(file: &str, args: &[&str], condition: &str) {
    let (code, out, err) = check(file, args, condition);
    assert_eq!(code, 0, "{file}: {out}\n{err}");
    assert!(out.contains("\nOk\n"), "{file}: {out}");
    assert!(out.contains("Data races: none"), "{file}: {out}");
}

#[test]
fn glsl_control_flow() {
    if !glslang() {
        return;
    }
    // switch with fallthrough and default, do-while, nested
    // break/continue, ternary: the sums in control.comp's comments.
    holds(
        "tests/fixtures/shader-constructs/glsl/control.comp",
        &[],
        "o.r[0] == 1121 and o.r[1] == 15 and o.r[2] == 24 and o.r[3] == 7",
    );
}

#[test]
fn glsl_integer_bits_and_division() {
    if !glslang() {
        return;
    }
    // x = 0xF0 = 240, y = -7: bitfieldExtract/Insert, findLSB/MSB (of a
    // negative: the highest 0 bit, GLSL.std.450 FindSMsb), bitCount,
    // shifts, unsigned / and %, signed / (truncating), arithmetic >>, ~.
    holds(
        "tests/fixtures/shader-constructs/glsl/bits.comp",
        &["--input", "In=240,-7"],
        "o.u[0] == 15 and o.u[1] == 245 and o.u[2] == 4 and o.u[3] == 7 and o.u[4] == 4 \
         and o.u[5] == 962 and o.u[6] == 34 and o.u[7] == 2 and o.i[0] == -3 and o.i[1] == 3 \
         and o.i[2] == -4 and o.i[3] == 6 and o.i[4] == 2 and o.i[5] == -7",
    );
}

#[test]
fn glsl_vectors_structs_and_shared_arrays_of_structs() {
    if !glslang() {
        return;
    }
    // v.wzyx + (v.xy, 0, 0) = (5, 5, 2, 1); sp[1] = (4, 13); 3 * 13 = 39;
    // dot((1, 2), (3, 4)) = 11.
    holds(
        "tests/fixtures/shader-constructs/glsl/aggregates.comp",
        &[],
        "o.v[0] == 5 and o.v[1] == 5 and o.v[2] == 2 and o.v[3] == 1 and o.p[0].a == 4 \
         and o.p[0].b == 13 and o.p[1].a == 39 and o.p[1].b == 11",
    );
}

#[test]
fn glsl_every_atomic_function_and_barrier() {
    if !glslang() {
        return;
    }
    // Each atomic returns the old value and leaves the new one (the
    // shader's comments); the KHR forms on shared memory: 0 + 2, + 1 = 3,
    // compare-exchange 3 -> 10 returns 3: b[0] = 8 + 300 + 10 = 318.
    holds(
        "tests/fixtures/shader-constructs/glsl/atomics.comp",
        &[],
        "o.b[0] == 318 and o.b[1] == 2 and o.b[2] == 9 and o.b[3] == 8 and o.b[4] == 15 \
         and o.b[5] == 6 and o.b[6] == 1 and o.b[7] == 4 and o.s == -5 and o.ret[0] == 5 \
         and o.ret[1] == 5 and o.ret[2] == 5 and o.ret[3] == 12 and o.ret[4] == 12 \
         and o.ret[5] == 12 and o.ret[6] == 7 and o.ret[7] == 7",
    );
}

#[test]
fn glsl_a_matrix_is_refused_at_its_line() {
    if !glslang() {
        return;
    }
    let (code, out, err) = check(
        "tests/fixtures/shader-constructs/glsl/matrix.comp",
        &[],
        "o.m == 46",
    );
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(err.contains("matrix.comp:"), "{err}");
    assert!(
        err.contains("a matrix (`OpTypeMatrix`): vkmm does not lower matrix types"),
        "{err}"
    );
}

#[test]
fn glsl_subgroup_operations() {
    if !glslang() {
        return;
    }
    // One subgroup of 4, every invocation active, v = 1, 2, 3, 4
    // (GL_KHR_shader_subgroup): the reduction is 10 everywhere, the
    // inclusive scan 1, 3, 6, 10, the exclusive one 0, 1, 3, 6.
    let sg = ["--subgroup-size", "4"];
    holds(
        "tests/fixtures/shader-constructs/glsl/subgroup-scan.comp",
        &sg,
        "o.r[0][0] == 10 and o.r[3][0] == 10 and o.r[0][1] == 1 and o.r[1][1] == 3 \
         and o.r[2][1] == 6 and o.r[3][1] == 10 and o.r[0][2] == 0 and o.r[1][2] == 1 \
         and o.r[2][2] == 3 and o.r[3][2] == 6",
    );
    // max 4, min 1: 41; broadcast from invocation 2 (v = 3) and from the
    // first active one (v = 1): 31.
    holds(
        "tests/fixtures/shader-constructs/glsl/subgroup-minmax.comp",
        &sg,
        "o.r[0][0] == 41 and o.r[3][0] == 41 and o.r[0][1] == 31 and o.r[2][1] == 31",
    );
    // elect: the lowest active invocation, 0; the ballot of even ids has
    // bits 0 and 2 (5); every v > 0 and some v == 4: 2 + 1.
    holds(
        "tests/fixtures/shader-constructs/glsl/subgroup-vote.comp",
        &sg,
        "o.r[0][0] == 1 and o.r[1][0] == 0 and o.r[2][0] == 0 and o.r[3][0] == 0 \
         and o.r[0][1] == 5 and o.r[3][1] == 5 and o.r[0][2] == 3 and o.r[3][2] == 3",
    );
}

#[test]
fn wgsl_constructs() {
    if !glslang() {
        return;
    }
    // loop/continuing/break if: 0+1+2+3 = 6; switch 1+1+10+100 = 112;
    // a pointer parameter: 5 + 4 = 9; WGSL's % and / truncate: -7 % 2 =
    // -1, -7 / 2 = -3: -13; arrayLength 3; workgroupUniformLoad sees 42
    // (its barrier orders invocation 0's store); both atomicAdds before
    // the barrier make c = 2, one compare-exchange 2 -> 5 succeeds and
    // stores the old value 2.
    holds(
        "tests/fixtures/shader-constructs/wgsl/constructs.wgsl",
        &["--length", "data=3"],
        "o.r[0] == 6 and o.r[1] == 112 and o.r[2] == 9 and o.r[3] == -13 and o.r[4] == 3 \
         and o.r[5] == 42 and o.c == 5 and data[0] == 2",
    );
}

#[test]
fn hlsl_constructs() {
    if !glslang() {
        return;
    }
    // InterlockedAdd by both after a barrier: counter = 2, and the
    // compare-exchange moves outb[0] from 0 to 2, returning 0: raw word 1
    // = 7. WaveActiveSum(1, 2) = 3. WavePrefixSum is exclusive in HLSL
    // (0, 1), but glslang compiles it to an InclusiveScan (1, 3), and vkmm
    // checks the SPIR-V: outb[2] = 31, outb[3] = 33.
    holds(
        "tests/fixtures/shader-constructs/hlsl/constructs.hlsl",
        &[
            "--entry",
            "main",
            "--subgroup-size",
            "2",
            "--length",
            "outb=4",
            "--length",
            "raw=2",
        ],
        "outb[0] == 2 and outb[2] == 31 and outb[3] == 33 and raw[1] == 7",
    );
}
