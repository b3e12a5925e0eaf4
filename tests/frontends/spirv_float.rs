//! Floating point in SPIR-V programs (docs/format-spirv.md, "Floating
//! point"): a float is kept as its bits (a 32-bit float as the signed
//! reading of its 32 bits), stored and loaded as they are, so conditions
//! compare bits. Each expectation is derived by hand from IEEE-754 and
//! the quoted SPIR-V / Vulkan text; the input goes through a load (a
//! register), so the lowering's runtime arithmetic computes it, and each
//! check has a twin condition that must be false.

use crate::common;

use vkmm::{Checked, Session};

/// A module with 32-bit `%x` (initially `x`: a float's bits), 32-bit
/// outputs `%y`, `%z`, and `body` in its entry function after
/// `%v = OpLoad %uint %x` and `%f = OpBitcast %float %v`.
fn module(x: &str, body: &str, output: &str) -> String {
    format!(
        "; @Input: %x = {x}\n; @Output: {output}\nOpCapability Shader\nOpCapability Float16\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%v2bool = OpTypeVector %bool 2\n%uint = OpTypeInt 32 0\n%float = OpTypeFloat 32\n%half = OpTypeFloat 16\n%v2float = OpTypeVector %float 2\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%c2 = OpConstant %uint 2\n%c4 = OpConstant %uint 4\n%c5 = OpConstant %uint 5\n%st = OpTypeStruct %uint %uint\n%h = OpConstant %float 0.5\n%f1 = OpConstant %float 1\n%f02 = OpConstant %float 0.2\n%ptr = OpTypePointer StorageBuffer %uint\n%x = OpVariable %ptr StorageBuffer\n%y = OpVariable %ptr StorageBuffer\n%z = OpVariable %ptr StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpLoad %uint %x\n%f = OpBitcast %float %v\n{body}OpReturn\nOpFunctionEnd\n"
    )
}

/// Whether the `@Output` condition of `text` holds.
fn holds(text: &str) -> bool {
    match Session::new().check_text("t.spvasm", text) {
        Ok(Checked::Litmus(o)) => {
            let report = vkmm::report::text::litmus(&o);
            if report.lines().any(|l| l == "Ok") {
                true
            } else if report.lines().any(|l| l == "No") {
                false
            } else {
                panic!("no verdict:\n{report}\n{text}")
            }
        }
        other => panic!("{other:?}\n{text}"),
    }
}

fn check(x: &str, body: &str, right: &str, wrong: &str) {
    let r = module(x, body, &format!("forall ({right})"));
    assert!(holds(&r), "expected to hold: {right}\n{r}");
    let w = module(x, body, &format!("forall ({wrong})"));
    assert!(!holds(&w), "expected not to hold: {wrong}\n{w}");
}

/// 0.1f = 0x3DCCCCCD.
const TENTH: &str = "1036831949";

#[test]
fn addition_is_correctly_rounded() {
    // Vulkan, "Precision and Operation of SPIR-V Instructions": OpFAdd
    // "Correctly rounded." 0.1f + 0.2f (0x3E4CCCCD) is exactly
    // 0.300000004470348358154296875, between 0x3E999999
    // (0.2999999821186065673828125) and 0x3E99999A
    // (0.300000011920928955078125), nearer the second: 1050253722.
    check(
        TENTH,
        "%s = OpFAdd %float %f %f02\n%b = OpBitcast %uint %s\nOpStore %y %b\n",
        "%y == 1050253722",
        "%y == 1050253721",
    );
    // OpFMul: 0.1f * 10 is 1.00000001490116119384765625 exactly, within
    // half an ulp (2^-24) of 1.0: 0x3F800000 = 1065353216.
    check(
        TENTH,
        "%ten = OpConvertUToF %float %c1\n%t2 = OpFAdd %float %ten %ten\n%t4 = OpFAdd %float %t2 %t2\n%t8 = OpFAdd %float %t4 %t4\n%t10 = OpFAdd %float %t8 %t2\n%m = OpFMul %float %f %t10\n%b = OpBitcast %uint %m\nOpStore %y %b\n",
        "%y == 1065353216",
        "%y == 1065353217",
    );
}

#[test]
fn half_precision_rounds_to_nearest_even() {
    // OpFConvert to 16 bits: "conversions between types | Correctly
    // rounded." 1 + 2^-11 (0x3F801000) is halfway between 1.0 and
    // 1 + 2^-10; even wins: back in 32 bits, 1.0 (0x3F800000).
    check(
        "1065357312",
        "%h = OpFConvert %half %f\n%g = OpFConvert %float %h\n%b = OpBitcast %uint %g\nOpStore %y %b\n",
        "%y == 1065353216",
        "%y == 1065357312",
    );
    // OpQuantizeToF16 of 1/3 (0x3EAAAAAB) keeps 11 significant bits:
    // 0.333251953125 = 0x3EAAA000 = 1051369472. Of 2^-20 (0x35800000,
    // below the smallest normal half 2^-14): "the result may be either
    // +0 or -0"; vkmm gives the zero of the value's sign.
    check(
        "1051372203",
        "%q = OpQuantizeToF16 %float %f\n%b = OpBitcast %uint %q\nOpStore %y %b\n",
        "%y == 1051369472",
        "%y == 1051372203",
    );
    check(
        "897581056",
        "%q = OpQuantizeToF16 %float %f\n%b = OpBitcast %uint %q\nOpStore %y %b\n",
        "%y == 0",
        "%y == 897581056",
    );
}

#[test]
fn conversion_to_unsigned_of_out_of_range_values() {
    // OpConvertFToU rounds toward 0: 3.75 (0x40700000) gives 3. A
    // negative value or a NaN has no unsigned result (SPIR-V leaves it
    // undefined); vkmm gives one value an implementation may give:
    // saturation, NaN to 0 (docs/format-spirv.md, "Floating point").
    check(
        "1081081856",
        "%u = OpConvertFToU %uint %f\nOpStore %y %u\n",
        "%y == 3",
        "%y == 4",
    );
    // -1.5 = 0xBFC00000 = 3217031168.
    check(
        "3217031168",
        "%u = OpConvertFToU %uint %f\nOpStore %y %u\n",
        "%y == 0",
        "%y == 4294967295",
    );
    // NaN = 0x7FC00000 = 2143289344.
    check(
        "2143289344",
        "%u = OpConvertFToU %uint %f\nOpStore %y %u\n",
        "%y == 0",
        "%y == 2143289344",
    );
}

#[test]
fn ordered_and_unordered_comparisons_of_nan() {
    // OpFOrdLessThan: "Floating-point comparison if operands are ordered
    // and Operand 1 is less than Operand 2"; OpFUnordLessThan: "...
    // if operands are unordered or Operand 1 is less than Operand 2".
    // With a NaN: false, true; OpIsNan true.
    let body = "%o = OpFOrdLessThan %bool %f %f1\n%u = OpFUnordLessThan %bool %f %f1\n%n = OpIsNan %bool %f\n%so = OpSelect %uint %o %c1 %c0\n%su = OpSelect %uint %u %c1 %c0\n%sn = OpSelect %uint %n %c1 %c0\n%s2 = OpIAdd %uint %su %sn\n%s = OpIAdd %uint %s2 %so\nOpStore %y %s\nOpStore %z %so\n";
    check("2143289344", body, "%y == 2 and %z == 0", "%y == 3");
    // 0.1 < 1: both true, not NaN.
    check(TENTH, body, "%y == 2 and %z == 1", "%y == 3");
}

#[test]
fn all_and_any_of_a_vector_of_runtime_booleans() {
    // OpAll: "Result is true if all components of Vector are true";
    // OpAny: "if any component of Vector is true". The vector is
    // (x > 0.5, x < 1.0): for 0.1, (false, true).
    let body = "%a = OpFOrdGreaterThan %bool %f %h\n%b = OpFOrdLessThan %bool %f %f1\n%vb = OpCompositeConstruct %v2bool %a %b\n%all = OpAll %bool %vb\n%any = OpAny %bool %vb\n%ya = OpSelect %uint %all %c1 %c0\n%yb = OpSelect %uint %any %c1 %c0\nOpStore %y %ya\nOpStore %z %yb\n";
    check(TENTH, body, "%y == 0 and %z == 1", "%y == 1 or %z == 0");
    // 0.75 (0x3F400000): (true, true).
    check("1061158912", body, "%y == 1 and %z == 1", "%y == 0");
}

#[test]
fn glsl_functions_on_runtime_floats() {
    // GLSL.std.450 Floor of 2.5 (0x40200000) is 2.0 (0x40000000);
    // Sqrt of it is 1.5811388..., rounded to 0x3FCA62C2 (1070228162:
    // 1.58113884925842285156 is the nearest float to sqrt(2.5) =
    // 1.58113883008418966599, the next one down 1.58113873004913330078
    // is farther).
    let ext = |f: &str| {
        format!("%r = OpExtInst %float %glsl {f} %f\n%b = OpBitcast %uint %r\nOpStore %y %b\n")
    };
    let with_glsl = |t: String| {
        t.replace(
            "OpMemoryModel",
            "%glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel",
        )
    };
    let floor = with_glsl(module(
        "1075838976",
        &ext("Floor"),
        "forall (%y == 1073741824)",
    ));
    assert!(holds(&floor), "{floor}");
    let sqrt = with_glsl(module(
        "1075838976",
        &ext("Sqrt"),
        "forall (%y == 1070228162)",
    ));
    assert!(holds(&sqrt), "{sqrt}");
    let wrong = with_glsl(module(
        "1075838976",
        &ext("Sqrt"),
        "forall (%y == 1070228161)",
    ));
    assert!(!holds(&wrong), "{wrong}");
}

#[test]
fn spec_constant_op_sizes_an_array() {
    // glslang's `float arr[MAX_LOD_LEVEL + 1]`: OpSpecConstantOp IAdd of
    // the spec constant (default 3) and 1 is the length 4, so `%a[3]`
    // exists; `@Input: %M = 4` makes it 5 (`%a[4]`).
    let text = |input: &str, idx: u32, output: &str| {
        format!(
            "{input}; @Output: {output}\nOpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\nOpDecorate %arr ArrayStride 4\nOpDecorate %M SpecId 0\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c1 = OpConstant %uint 1\n%c7 = OpConstant %uint 7\n%ci = OpConstant %uint {idx}\n%M = OpSpecConstant %uint 3\n%n = OpSpecConstantOp %uint IAdd %M %c1\n%arr = OpTypeArray %uint %n\n%pa = OpTypePointer StorageBuffer %arr\n%pu = OpTypePointer StorageBuffer %uint\n%a = OpVariable %pa StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %a %ci\nOpStore %p %c7\nOpReturn\nOpFunctionEnd\n"
        )
    };
    assert!(holds(&text("", 3, "forall (%a[3] == 7)")));
    assert!(!holds(&text("", 3, "forall (%a[3] == 0)")));
    assert!(holds(&text("; @Input: %M = 4\n", 4, "forall (%a[4] == 7)")));
}

#[test]
fn float_atomic_adds_both_land() {
    // OpAtomicFAddEXT (SPV_EXT_shader_atomic_float_add): two invocations
    // each add 1.5 (0x3FC00000) to 0.0 (the @Input: a buffer without one
    // starts undefined): every execution ends with 3.0 (0x40400000 =
    // 1077936128), both additions exact; never 1.5 (a lost update).
    let text = |output: &str| {
        format!(
            "; @Config: 2, 1, 1\n; @Input: %s = 0\n; @Output: {output}\nOpCapability Shader\nOpCapability AtomicFloat32AddEXT\nOpExtension \"SPV_EXT_shader_atomic_float_add\"\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%float = OpTypeFloat 32\n%dev = OpConstant %uint 1\n%relaxed = OpConstant %uint 0\n%add = OpConstant %float 1.5\n%pf = OpTypePointer StorageBuffer %float\n%s = OpVariable %pf StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%old = OpAtomicFAddEXT %float %s %dev %relaxed %add\nOpReturn\nOpFunctionEnd\n"
        )
    };
    assert!(holds(&text("forall (%s == 1077936128)")));
    assert!(!holds(&text("exists (%s == 1069547520)")));
}

#[test]
fn glsl_float_math_and_message_passing() {
    // tests/fixtures/spirv-float/math.comp derives each stored value in its
    // header (0.1f + 0.2f, floor/sqrt, uint(-0.1f) = 0 (truncation
    // toward zero of -0.1 is -0, which is representable), all/any,
    // packHalf2x16(0.1, 1.0) = 0x3C002E66, mix/clamp = 0x3F0CCCCD,
    // the spec constant array length 4, the runtime array length 3 of
    // its @Input).
    if !common::glslang() {
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spirv-float");
    let verdict = |file: &str| match Session::new().check_file(dir.join(file)) {
        Ok(Checked::Litmus(o)) => vkmm::report::text::litmus(&o),
        other => panic!("{other:?}"),
    };
    let math = verdict("math.comp");
    assert!(math.lines().any(|l| l == "Ok"), "{math}");
    // Message passing of a float (1.5 = 0x3FC00000 = 1069547520) through
    // a buffer, released and acquired: the reader that sees the flag
    // sees 1.5, the other outcome leaves 0. The listing shows a float
    // cell as its value, with a `.` (never as its bits).
    let mp = verdict("mp-float.comp");
    assert!(mp.contains("buf.seen=1.5;"), "{mp}");
    assert!(mp.contains("buf.seen=0.0;"), "{mp}");
    assert!(mp.contains("Data races: none"), "{mp}");
}

#[test]
fn bit_field_and_count_instructions_on_runtime_values() {
    // x = 0xF0 (240). OpBitFieldUExtract(x, 4, 4): "The resulting value
    // ... is the bits of Base from Offset through Offset + Count - 1,
    // zero-extended": 0xF = 15; OpBitFieldSExtract sign-extends it: -1.
    let body = "%u = OpBitFieldUExtract %uint %v %c4 %c4\n%s = OpBitFieldSExtract %uint %v %c4 %c4\nOpStore %y %u\nOpStore %z %s\n";
    check("240", body, "%y == 15 and %z == -1", "%y == 0");
    // OpBitFieldInsert(x, 5, 0, 4): bits 0..3 of 5 replace x's: 0xF5.
    // OpBitCount(x) = 4.
    let body = "%i = OpBitFieldInsert %uint %v %c5 %c0 %c4\n%n = OpBitCount %uint %v\nOpStore %y %i\nOpStore %z %n\n";
    check("240", body, "%y == 245 and %z == 4", "%y == 240");
    // OpBitReverse(1) = 0x80000000; OpUMulExtended(0xFFFFFFFF, 2): low
    // 0xFFFFFFFE, high 1 (the unsigned product 0x1_FFFFFFFE).
    let body = "%r = OpBitReverse %uint %c1\n%m = OpUMulExtended %st %v %c2\n%lo = OpCompositeExtract %uint %m 0\n%hi = OpCompositeExtract %uint %m 1\n%t = OpIAdd %uint %hi %r\nOpStore %y %lo\nOpStore %z %t\n";
    check(
        "4294967295",
        body,
        "%y == 4294967294 and %z == 2147483649",
        "%z == 2147483648",
    );
}

#[test]
fn float_storage_image_texels_are_their_bits() {
    // An Rg32f 1D storage image of 2 texels (@Input: texel 0 = (0.5, 2),
    // texel 1 = (0, 0)). OpImageWrite of (1.5, 0.25) to texel 1, then
    // OpImageRead of it as a vec4: (1.5, 0.25, 0, 1.0), "missing
    // components are substituted by the components of (0,0,0,1)", the 1
    // a float's 1.0 (0x3F800000). 1.5 = 0x3FC00000 = 1069547520.
    let text = |output: &str| {
        format!(
            "; @Input: %img = {{{{1056964608, 1073741824}}, {{0, 0}}}}\n; @Output: {output}\nOpCapability Shader\nOpCapability Image1D\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n%float = OpTypeFloat 32\n%v4float = OpTypeVector %float 4\n%i1 = OpConstant %int 1\n%a = OpConstant %float 1.5\n%b = OpConstant %float 0.25\n%z = OpConstant %float 0\n%texel = OpConstantComposite %v4float %a %b %z %z\n%im = OpTypeImage %float 1D 0 0 0 2 Rg32f\n%pim = OpTypePointer UniformConstant %im\n%img = OpVariable %pim UniformConstant\n%pf = OpTypePointer StorageBuffer %float\n%y = OpVariable %pf StorageBuffer\n%w = OpVariable %pf StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%h = OpLoad %im %img\nOpImageWrite %h %i1 %texel\n%r = OpImageRead %v4float %h %i1\n%r0 = OpCompositeExtract %float %r 0\n%r3 = OpCompositeExtract %float %r 3\nOpStore %y %r0\nOpStore %w %r3\nOpReturn\nOpFunctionEnd\n"
        )
    };
    assert!(holds(&text(
        "forall (%y == 1069547520 and %w == 1065353216 and %img[1][1] == 1048576000 and %img[0][0] == 1056964608)"
    )));
    assert!(!holds(&text("forall (%w == 1)")));
}

#[test]
fn converted_image_formats_store_their_own_encoding() {
    // Rgba16f: each channel a 16-bit float cell. Texel 0 is (1.0, 1/3 as
    // a half, 0, 0) = (0x3C00, 0x3555, 0, 0); a read widens exactly: 1.0
    // (1065353216) and 0.333251953125 (0x3EAAA000 = 1051369472). A write
    // of (0.1, 1.0, ...) to texel 1 rounds 0.1f to the nearest half,
    // 0x2E66 (11878). Rgba8 (unorm): texel 0 is (255, 0, 128, 0): a read
    // gives 255 / 255 = 1.0; a write of 0.5 stores round(0.5 * 255) =
    // round(127.5) = 128.
    let text = |output: &str| {
        format!(
            "; @Input: %img = {{{{15360, 13653, 0, 0}}, {{0, 0, 0, 0}}}}, %img8 = {{{{255, 0, 128, 0}}}}\n; @Output: {output}\nOpCapability Shader\nOpCapability Image1D\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n%float = OpTypeFloat 32\n%v4float = OpTypeVector %float 4\n%i0 = OpConstant %int 0\n%i1 = OpConstant %int 1\n%a = OpConstant %float 0.1\n%one = OpConstant %float 1\n%half = OpConstant %float 0.5\n%texel = OpConstantComposite %v4float %a %one %half %half\n%im = OpTypeImage %float 1D 0 0 0 2 Rgba16f\n%im8 = OpTypeImage %float 1D 0 0 0 2 Rgba8\n%pim = OpTypePointer UniformConstant %im\n%pim8 = OpTypePointer UniformConstant %im8\n%img = OpVariable %pim UniformConstant\n%img8 = OpVariable %pim8 UniformConstant\n%pf = OpTypePointer StorageBuffer %float\n%y = OpVariable %pf StorageBuffer\n%w = OpVariable %pf StorageBuffer\n%u = OpVariable %pf StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%h = OpLoad %im %img\n%r = OpImageRead %v4float %h %i0\n%r0 = OpCompositeExtract %float %r 0\n%r1 = OpCompositeExtract %float %r 1\nOpStore %y %r0\nOpStore %w %r1\nOpImageWrite %h %i1 %texel\n%h8 = OpLoad %im8 %img8\n%s = OpImageRead %v4float %h8 %i0\n%s0 = OpCompositeExtract %float %s 0\nOpStore %u %s0\nOpImageWrite %h8 %i0 %texel\nOpReturn\nOpFunctionEnd\n"
        )
    };
    assert!(holds(&text(
        "forall (%y == 1065353216 and %w == 1051369472 and %img[1][0] == 11878 and %img[1][1] == 15360 and %u == 1065353216 and %img8[0][2] == 128)"
    )));
    assert!(!holds(&text("forall (%img[1][0] == 1036831949)")));
}
