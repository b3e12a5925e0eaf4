//! The constructs real compute shaders use, one small shader per group in
//! tests/fixtures/shader-constructs/ (glsl/, wgsl/, hlsl/), each checked against
//! its final state derived by hand (the comments in each shader give every
//! value and why). The sweep's result is recorded in docs/format-glsl.md,
//! docs/format-wgsl.md and docs/format-hlsl.md ("Constructs"). They need glslangValidator:
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

/// The condition holds in every execution, race-free, and the check says so.
pub(crate) fn holds(file: &str, args: &[&str], condition: &str) {
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
fn glsl_bit_operations_of_values_read_from_memory() {
    if !glslang() {
        return;
    }
    let file = "tests/fixtures/shader-constructs/glsl/bits-memory.comp";
    // x = 240 (0xF0), y = -1, v = (0, 3), offset 2, count 4:
    // findMSB(-1) = -1 (GLSL.std.450 FindSMsb: "For a Value of 0 or -1,
    // -1 will be returned"); findLSB(-1) = 0; bitCount(-1) = 32;
    // bitfieldReverse(0xF0) = 0x0F000000 = 251658240; findMSB of
    // (0, 3) = (-1, 1); bitfieldExtract(0xF0, 2, 4) = 0x3C & 0xF = 12;
    // signed, of -1: the four 1 bits sign-extended, -1;
    // bitfieldInsert(0xF0, 0, 2, 4) clears bits 2..5: 0xC0 = 192;
    // findMSB(0xF0) = 7; bitCount of (0, 3) = (0, 2): 20; a count of 0
    // extracts 0.
    holds(
        file,
        &["--input", "In=240,-1,0,3,2,4"],
        "o.r[0] == -1 and o.r[1] == 0 and o.r[2] == 32 and o.r[3] == 251658240 \
         and o.r[4] == -1 and o.r[5] == 1 and o.r[6] == 12 and o.r[7] == -1 \
         and o.r[8] == 192 and o.r[9] == 7 and o.r[10] == 20 and o.r[11] == 0",
    );
    // x = 1, y = -8 (...11111000), v = (0, 3), offset 31, count 1:
    // findMSB(-8) = 2 (the highest 0 bit), findLSB(-8) = 3,
    // bitCount(-8) = 29, bitfieldReverse(1) = 0x80000000 (as int,
    // -2147483648); bit 31 of 1 is 0; of -8 it is 1, sign-extended -1;
    // inserting a 0 at bit 31 leaves 1; findMSB(1) = 0.
    holds(
        file,
        &["--input", "In=1,-8,0,3,31,1"],
        "o.r[0] == 2 and o.r[1] == 3 and o.r[2] == 29 and o.r[3] == -2147483648 \
         and o.r[6] == 0 and o.r[7] == -1 and o.r[8] == 1 and o.r[9] == 0",
    );
    // With x arbitrary (every value that can matter), findMSB(x) is
    // never below -1 nor above 31 (a 32-bit scan, whatever the value).
    holds(
        file,
        &["--input", "In=0,0,0,0,0,0", "--input", "In.x=arbitrary"],
        "o.r[9] >= -1 and o.r[9] <= 31",
    );
}

/// The cells of `values` as an input lists them, separated by commas: a
/// float as its bits (1.0 is 1065353216, read signed), an integer as it
/// is.
fn cells(values: &[Cell]) -> String {
    values
        .iter()
        .map(|v| match v {
            Cell::F(x) => (x.to_bits() as i32).to_string(),
            Cell::I(n) => n.to_string(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

enum Cell {
    F(f32),
    I(i64),
}

/// Floats, one cell each.
fn fs(values: &[f32]) -> Vec<Cell> {
    values.iter().map(|&x| Cell::F(x)).collect()
}

#[test]
fn glsl_matrices_in_buffers_registers_and_arithmetic() {
    if !glslang() {
        return;
    }
    // mats.a = columns (1, 2), (3, 4); mats.b (row-major mat3x2) =
    // columns (5, 6), (7, 8), (9, 10); i = 2, j = 1 (integers). Each
    // value's derivation is beside it in matrix.comp: 31, 42, 2143,
    // 2358, 10, 78, 9, 23, 15, 109, 1012, 1; then the words that show
    // the layouts' byte offsets: row-major b's word 5 is b[1][0] = 7.0,
    // word 10 is b[2][1] = 10.0; row-major t's word 17 is t[1][0] =
    // 2.0; column-major p's word 26 is p[1][2] = 15.0 (0x41700000).
    let mut mats = fs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
    mats.extend([Cell::I(2), Cell::I(1)]);
    let input = format!("Mats={}", cells(&mats));
    holds(
        "tests/fixtures/shader-constructs/glsl/matrix.comp",
        &["--input", &input],
        "o.r[0] == 31 and o.r[1] == 42 and o.r[2] == 2143 and o.r[3] == 2358 \
         and o.r[4] == 10 and o.r[5] == 78 and o.r[6] == 9 and o.r[7] == 23 and o.r[8] == 15 \
         and o.r[9] == 109 and o.r[10] == 1012 and o.r[11] == 1 and o.r[12] == 1088421888 \
         and o.r[13] == 1092616192 and o.r[14] == 1073741824 and o.r[15] == 1097859072 \
         and o.t[1][0] == 1073741824 and o.p[0][2] == 1094713344",
    );
}

#[test]
fn glsl_arrays_of_matrices_in_a_uniform_block_and_push_constants() {
    if !glslang() {
        return;
    }
    // u's cells the floats 1 to 30 in column order, pc.pm the columns
    // (1, 2), (3, 4), pc.k = 1: the values by hand beside each line of
    // matrix-arrays.comp (17, 15, 3, 30), and the 16-byte rows of the
    // block that show std140's strides: 17.0 at row 5, 30.0 at row 11.
    let values: Vec<f32> = (1..=30).map(|i| i as f32).collect();
    let u = format!("u={}", cells(&fs(&values)));
    let mut p = fs(&[1.0, 2.0, 3.0, 4.0]);
    p.push(Cell::I(1));
    let pc = format!("pc={}", cells(&p));
    holds(
        "tests/fixtures/shader-constructs/glsl/matrix-arrays.comp",
        &["--input", &u, "--input", &pc],
        "o.r[0] == 17 and o.r[1] == 15 and o.r[2] == 3 and o.r[3] == 30 \
         and o.r[4] == 1099431936 and o.r[5] == 1106247680",
    );
}

#[test]
fn wgsl_matrices() {
    if !glslang() {
        return;
    }
    // m.a = columns (1, 2), (3, 4); m.b (mat2x3) = columns (5, 6, 0),
    // (7, 8, 0); k = 1. The values by hand beside each line of
    // matrix.wgsl.
    let mut m = fs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 7.0, 8.0, 0.0]);
    m.push(Cell::I(1));
    let input = format!("m={}", cells(&m));
    holds(
        "tests/fixtures/shader-constructs/wgsl/matrix.wgsl",
        &["--input", &input],
        "o.r[0] == 3142 and o.r[1] == 2143 and o.r[2] == 2243 and o.r[3] == 78 \
         and o.r[4] == 64 and o.r[5] == 12 and o.r[6] == 9 and o.r[7] == 57",
    );
}

#[test]
fn hlsl_matrices() {
    if !glslang() {
        return;
    }
    // mats[0].a (float2x3) = rows (1, 2, 3), (4, 5, 6); mats[0].b
    // (row_major float2x2) = rows (1, 2), (3, 4): glslang turns HLSL's
    // rows into SPIR-V's columns, so the cells are listed row by row.
    // The values by hand beside each line of matrix.hlsl: 615, 63, 933,
    // 68, 63, 9, and the words 1 (4.0) and 7 (2.0) of the layouts.
    let input = format!(
        "mats={}",
        cells(&fs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0]))
    );
    holds(
        "tests/fixtures/shader-constructs/hlsl/matrix.hlsl",
        &["--entry", "main", "--input", &input, "--length", "outb=8"],
        "outb[0] == 615 and outb[1] == 63 and outb[2] == 933 and outb[3] == 68 \
         and outb[4] == 63 and outb[5] == 9 and outb[6] == 1082130432 \
         and outb[7] == 1073741824",
    );
}

/// a = [2 1; 1 1], b = [1 2 3; 0 1 4; 5 6 0], c = [2 1 0 0; 1 1 0 1;
/// 0 1 1 0; 1 0 0 1] (rows), as cells: column by column (`columns`) or
/// row by row (HLSL's order).
fn determinant_cells(columns: bool) -> String {
    let a = [[2.0, 1.0], [1.0, 1.0]];
    let b = [[1.0, 2.0, 3.0], [0.0, 1.0, 4.0], [5.0, 6.0, 0.0]];
    let c = [
        [2.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 0.0],
        [1.0, 0.0, 0.0, 1.0],
    ];
    fn order<const N: usize>(m: &[[f32; N]; N], columns: bool, out: &mut Vec<f32>) {
        let cell = |i: usize, j: usize| if columns { m[j][i] } else { m[i][j] };
        out.extend((0..N).flat_map(|i| (0..N).map(move |j| cell(i, j))));
    }
    let mut all = Vec::new();
    order(&a, columns, &mut all);
    order(&b, columns, &mut all);
    order(&c, columns, &mut all);
    cells(&fs(&all))
}

#[test]
fn glsl_determinant_and_inverse() {
    if !glslang() {
        return;
    }
    // The values by hand beside each line of determinant.comp: the
    // determinants 1, 1, 2 (cofactor expansion along the first column),
    // entries of the inverses (the adjugates over them; c's doubled).
    let input = format!("m={}", determinant_cells(true));
    holds(
        "tests/fixtures/shader-constructs/glsl/determinant.comp",
        &["--input", &input],
        "o.r[0] == 1 and o.r[1] == 1 and o.r[2] == 2 and o.r[3] == -1 and o.r[4] == 2 \
         and o.r[5] == -24 and o.r[6] == 18 and o.r[7] == -4 and o.r[8] == -5 \
         and o.r[9] == -1 and o.r[10] == -2 and o.r[11] == -2 and o.r[12] == 1",
    );
}

#[test]
fn wgsl_and_hlsl_determinant() {
    if !glslang() {
        return;
    }
    // The same three matrices: determinants 1, 1, 2 (determinant.wgsl,
    // determinant.hlsl; HLSL lists its cells row by row).
    let input = format!("m={}", determinant_cells(true));
    holds(
        "tests/fixtures/shader-constructs/wgsl/determinant.wgsl",
        &["--input", &input],
        "o[0] == 1 and o[1] == 1 and o[2] == 2",
    );
    let input = format!("mats={}", determinant_cells(false));
    holds(
        "tests/fixtures/shader-constructs/hlsl/determinant.hlsl",
        &["--entry", "main", "--input", &input, "--length", "outb=3"],
        "outb[0] == 1 and outb[1] == 1 and outb[2] == 2",
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

#[test]
fn a_malformed_matrix_is_an_error_at_its_operand() {
    // SPIR-V, OpTypeMatrix: "Column Type ... must be vector type" (of
    // floats: the Matrix capability's), "Column Count ... must be at
    // least 2"; MatrixStride is a stride in bytes.
    let dir = std::env::temp_dir().join(format!("vkmm-matrix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n";
    let tail = "%main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let types = "%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n%int = OpTypeInt 32 1\n%v2f = OpTypeVector %float 2\n%v2i = OpTypeVector %int 2\n";
    let cases = [
        (
            "int-columns",
            format!("{head}{types}%m = OpTypeMatrix %v2i 2\n{tail}"),
            ":11:19: OpTypeMatrix: 'Column Type' must be a vector of floats",
        ),
        (
            "one-column",
            format!("{head}{types}%m = OpTypeMatrix %v2f 1\n{tail}"),
            ":11:24: OpTypeMatrix: 'Column Count' must be 2 to 64",
        ),
        (
            "stride-0",
            format!(
                "{head}OpMemberDecorate %S 0 Offset 0\nOpMemberDecorate %S 0 MatrixStride 0\n{types}%m = OpTypeMatrix %v2f 2\n%S = OpTypeStruct %m\n{tail}"
            ),
            ":6:36: MatrixStride: expected a stride from 1 to 65536 bytes",
        ),
    ];
    for (name, text, expected) in cases {
        let file = dir.join(format!("{name}.spvasm"));
        std::fs::write(&file, text).unwrap();
        let (code, out, err) = vkmm(&["check", &file.display().to_string()]);
        assert_eq!(code, 2, "{name}: {out}\n{err}");
        assert!(err.contains(expected), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// GLSL.std.450 Determinant and MatrixInverse: "x must be a square matrix"
/// (the extended instruction set's operand rule): a vector, or a matrix of
/// 3 columns of 2 rows, is an error at the operand, naming the
/// instruction and what it expected, exit 2, never a panic.
#[test]
fn a_determinant_or_inverse_of_a_non_square_operand_is_an_error_at_it() {
    let dir = std::env::temp_dir().join(format!("vkmm-determinant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let module = |constants: &str, call: &str| {
        format!(
            "OpCapability Shader\n%std = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\n\
             OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
             %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
             %v2f = OpTypeVector %float 2\n%m32 = OpTypeMatrix %v2f 3\n%one = OpConstant %float 1\n\
             {constants}\n%main = OpFunction %void None %fn\n%entry = OpLabel\n{call}\nOpReturn\nOpFunctionEnd\n"
        )
    };
    let vector = "%x = OpConstantComposite %v2f %one %one";
    let three_by_two =
        "%c = OpConstantComposite %v2f %one %one\n%x = OpConstantComposite %m32 %c %c %c";
    let cases = [
        (
            "det-vector",
            module(vector, "%d = OpExtInst %float %std Determinant %x"),
            ":15:40: `Determinant`: expected a square matrix of 2, 3 or 4 columns",
        ),
        (
            "det-3x2",
            module(three_by_two, "%d = OpExtInst %float %std Determinant %x"),
            ":16:40: `Determinant`: expected a square matrix of 2, 3 or 4 columns",
        ),
        (
            "inverse-3x2",
            module(three_by_two, "%i = OpExtInst %m32 %std MatrixInverse %x"),
            ":16:40: `MatrixInverse`: expected a square matrix of 2, 3 or 4 columns",
        ),
    ];
    for (name, text, expected) in cases {
        let file = dir.join(format!("{name}.spvasm"));
        std::fs::write(&file, text).unwrap();
        let (code, out, err) = vkmm(&["check", &file.display().to_string()]);
        assert_eq!(code, 2, "{name}: {out}\n{err}");
        assert!(err.contains(expected), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
