//! Integer values in SPIR-V programs (docs/format-spirv.md, "Integer
//! values"): every integer below 64 bits is kept as the signed reading of
//! its bits, operations wrap at the type's width, unsigned operations read
//! their operands zero-extended, and conditions compare at the location's
//! width. Each test is hand-derived from the SPIR-V specification's
//! instruction text, quoted next to it, and runs the value through a
//! register (a load from memory), so the lowering's code, not constant
//! folding, computes it; each has a twin condition that must be false.

use vkmm::{Checked, Session};

/// A module with 32-bit `%x` (initially `x`), 32-bit outputs `%y`, `%z`
/// and a 64-bit output `%w`, and `body` in its entry function.
fn module(x: &str, body: &str, output: &str) -> String {
    format!(
        "; @Input: %x = {x}\n; @Output: {output}\nOpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%bool = OpTypeBool\n%uint = OpTypeInt 32 0\n%int = OpTypeInt 32 1\n%ulong = OpTypeInt 64 0\n%c0 = OpConstant %uint 0\n%c1 = OpConstant %uint 1\n%c2 = OpConstant %uint 2\n%cmax = OpConstant %uint 4294967295\n%ptr = OpTypePointer StorageBuffer %uint\n%ptr64 = OpTypePointer StorageBuffer %ulong\n%x = OpVariable %ptr StorageBuffer\n%y = OpVariable %ptr StorageBuffer\n%z = OpVariable %ptr StorageBuffer\n%w = OpVariable %ptr64 StorageBuffer\n%main = OpFunction %void None %fn\n%entry = OpLabel\n%v = OpLoad %uint %x\n{body}OpReturn\nOpFunctionEnd\n"
    )
}

/// Whether the `@Output` condition holds.
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

/// `forall (right)` holds and `forall (wrong)` does not. (A condition's
/// constant is cut to the location's width too: `%y == 4294967296` is
/// `%y == 0` for a 32-bit `%y`, so the twins use values below 2^32.)
fn check(x: &str, body: &str, right: &str, wrong: &str) {
    let r = module(x, body, &format!("forall ({right})"));
    assert!(holds(&r), "expected to hold: {right}\n{r}");
    let w = module(x, body, &format!("forall ({wrong})"));
    assert!(!holds(&w), "expected not to hold: {wrong}\n{w}");
}

#[test]
fn addition_wraps_at_32_bits() {
    // OpIAdd: "The resulting value equals the low-order N bits of the
    // correct result R, where N is the component width and R is computed
    // with enough precision to avoid overflow and underflow."
    check(
        "4294967295",
        "%s = OpIAdd %uint %v %c1\nOpStore %y %s\n",
        "%y == 0",
        "%y == 1",
    );
    // OpIMul, the same sentence: 0x80000000 * 2 = 0 at 32 bits.
    check(
        "2147483648",
        "%s = OpIMul %uint %v %c2\nOpStore %y %s\n",
        "%y == 0",
        "%y == 1",
    );
    // OpISub below zero: all bits set, which is both -1 and 4294967295.
    check(
        "0",
        "%s = OpISub %uint %v %c1\nOpStore %y %s\n",
        "%y == 4294967295 and %y == -1",
        "%y == 0",
    );
    // OpShiftLeftLogical of 0xC0000000 by 1 keeps the low 32 bits.
    check(
        "3221225472",
        "%s = OpShiftLeftLogical %uint %v %c1\nOpStore %y %s\n",
        "%y == 2147483648",
        "%y == 1",
    );
}

#[test]
fn right_shifts_fill_with_zeros_or_the_sign() {
    // OpShiftRightLogical: "The most-significant bits are zero filled."
    // OpShiftRightArithmetic: "The most-significant bits are filled with
    // the sign bit from Base."
    check(
        "-1",
        "%l = OpShiftRightLogical %uint %v %c1\nOpStore %y %l\n%a = OpShiftRightArithmetic %uint %v %c1\nOpStore %z %a\n",
        "%y == 2147483647 and %z == -1",
        "%y == -1",
    );
}

#[test]
fn unsigned_division_and_comparison_read_the_bits_as_unsigned() {
    // OpUDiv: "Unsigned-integer division of Operand 1 divided by Operand 2."
    // OpSDiv: "Signed-integer division": -1 / 2 truncates to 0.
    check(
        "4294967295",
        "%u = OpUDiv %uint %v %c2\nOpStore %y %u\n%s = OpSDiv %uint %v %c2\nOpStore %z %s\n",
        "%y == 2147483647 and %z == 0",
        "%y == 0",
    );
    // OpULessThan: "Unsigned-integer comparison if Operand 1 is less than
    // Operand 2." 0xFFFFFFFF < 1 is false; OpSLessThan reads it as -1: true.
    check(
        "4294967295",
        "%u = OpULessThan %bool %v %c1\n%su = OpSelect %uint %u %c1 %c0\nOpStore %y %su\n%s = OpSLessThan %bool %v %c1\n%ss = OpSelect %uint %s %c1 %c0\nOpStore %z %ss\n",
        "%y == 0 and %z == 1",
        "%y == 1",
    );
}

#[test]
fn conversions_extend_by_signedness() {
    // OpUConvert: "Convert unsigned width ... by truncating high-order bits
    // or zero extending"; 0xFFFFFFFF becomes 4294967295 at 64 bits.
    check(
        "-1",
        "%u = OpUConvert %ulong %v\nOpStore %w %u\n",
        "%w == 4294967295",
        "%w == -1",
    );
    // OpSConvert: "sign extending"; -1 stays -1 at 64 bits.
    check(
        "-1",
        "%s = OpSConvert %ulong %v\nOpStore %w %s\n",
        "%w == -1",
        "%w == 4294967295",
    );
}

#[test]
fn constants_inputs_and_conditions_meet_at_the_width() {
    // OpConstant of an unsigned 32-bit type with all bits set, an @Input of
    // -1, and a condition in either spelling: the same value.
    check(
        "-1",
        "%e = OpIEqual %bool %v %cmax\n%s = OpSelect %uint %e %c1 %c0\nOpStore %y %s\n",
        "%y == 1 and %x == 4294967295 and %x == -1",
        "%y == 0",
    );
}

#[test]
fn a_shared_variable_starts_with_its_initializer() {
    // OpVariable: "If Initializer is present, it will be the initial value
    // of the variable's memory content." An @Input still wins.
    let text = |input: &str, cond: &str| {
        format!(
            "{input}; @Output: forall ({cond})\nOpCapability Shader\nOpMemoryModel Logical Vulkan\nOpEntryPoint GLCompute %main \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%c7 = OpConstant %uint 7\n%ptr = OpTypePointer StorageBuffer %uint\n%s = OpVariable %ptr StorageBuffer %c7\n%main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n"
        )
    };
    assert!(holds(&text("", "%s == 7")));
    assert!(!holds(&text("", "%s == 0")));
    assert!(holds(&text("; @Input: %s = 3\n", "%s == 3")));
}

#[test]
fn atomic_read_modify_writes_wrap_and_compare_at_the_width() {
    // OpAtomicIAdd: "get a New Value by integer addition of Original Value
    // and Value", the addition of OpIAdd: "the low-order N bits of the
    // correct result R"; 0xFFFFFFFF + 1 stores 0, and the instruction's
    // result is the Original Value. And 0x7FFFFFFF + 1 is 0x80000000 (the
    // signed reading -2147483648, not the 64-bit 2147483648).
    check(
        "4294967295",
        "%r = OpAtomicIAdd %uint %x %c1 %c0 %c1\nOpStore %y %r\n",
        "%x == 0 and %y == 4294967295",
        "%x == 1",
    );
    check(
        "2147483647",
        "%r = OpAtomicIAdd %uint %x %c1 %c0 %c1\nOpStore %y %r\n",
        "%x == 2147483648 and %x == -2147483648 and %y == 2147483647",
        "%x == 0",
    );
    // OpAtomicISub below zero: all bits set.
    check(
        "0",
        "%r = OpAtomicISub %uint %x %c1 %c0 %c1\n",
        "%x == 4294967295",
        "%x == 0",
    );
    // OpAtomicUMax: "get a New Value by finding the largest unsigned
    // integer of Original Value and Value": 0xFFFFFFFF beats 1 (a signed
    // reading, -1, would keep 1).
    check(
        "1",
        "%r = OpAtomicUMax %uint %x %c1 %c0 %cmax\n",
        "%x == 4294967295",
        "%x == 1",
    );
    // OpAtomicUMin: "finding the smallest unsigned integer of Original
    // Value and Value": 2 beats 0xFFFFFFFF.
    check(
        "4294967295",
        "%r = OpAtomicUMin %uint %x %c1 %c0 %c2\n",
        "%x == 2",
        "%x == 4294967295",
    );
}

#[test]
fn signed_modulo_of_runtime_values_takes_the_divisors_sign() {
    // OpSMod: "Signed remainder operation for the remainder whose sign
    // matches the sign of Operand 2": -7 mod 2 is 1 (OpSRem gives -1).
    check(
        "4294967289",
        "%s = OpSMod %uint %v %c2\nOpStore %y %s\n",
        "%y == 1",
        "%y == -1",
    );
    check(
        "4294967289",
        "%s = OpSRem %uint %v %c2\nOpStore %y %s\n",
        "%y == -1",
        "%y == 1",
    );
}
