//! Numeric operations beyond the integer arithmetic of the litmus dialects:
//! IEEE-754 floating point of 16, 32 and 64 bits, conversions, and the
//! integer bit operations of SPIR-V (bit reversal, counts, the high half
//! of a product, carries).
//!
//! Every value is an `i64` holding the bits of the value at its width,
//! read as a signed integer (as integers below 64 bits are:
//! docs/format-spirv.md, "Integer values"): a 32-bit float 1.0 is
//! `0x3F80_0000` = 1065353216, -1.0 is `0xBF80_0000` read signed,
//! -1082130432. So a float is stored in memory, compared for equality by a
//! condition and bit-cast to an integer as the bits it is, and the engine
//! computes with floats as with any other register arithmetic
//! ([`super::ArithOp::Num`]).
//!
//! Rounding: the Vulkan environment for SPIR-V ("Precision and Operation of
//! SPIR-V Instructions") requires OpFAdd, OpFSub, OpFMul "Correctly
//! rounded." and "conversions between types | Correctly rounded.": these
//! are the round-to-nearest-even results. It leaves OpFDiv at "2.5 ULP"
//! and the GLSL.std.450 functions at their table's bounds ("GLSL.std.450
//! extended instructions not listed above and not defined in terms of the
//! above have undefined precision"): vkmm gives the correctly rounded
//! result of the host's `f64` computation rounded to the width, one of
//! the results an implementation may give, not every one.

use super::query::Cmp;

/// A floating-point operation of two operands at a width (16, 32 or 64).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FBin {
    Add,
    Sub,
    Mul,
    Div,
    /// OpFRem: the remainder with the sign of the dividend.
    Rem,
    /// OpFMod: the remainder with the sign of the divisor.
    Mod,
    /// GLSL.std.450 FMin: "Result is y if y < x; otherwise result is x".
    Min,
    /// GLSL.std.450 FMax: "Result is y if x < y; otherwise result is x".
    Max,
    /// NMin / NMax: a NaN operand gives the other operand.
    NMin,
    NMax,
    Pow,
    Atan2,
    /// Step(edge, x): 0.0 if x < edge, else 1.0.
    Step,
    /// Ldexp(x, exp): the second operand is an integer.
    Ldexp,
}

/// A floating-point operation of one operand at a width (the second
/// operand of the assignment is unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FUn {
    Neg,
    Abs,
    Sign,
    Floor,
    Ceil,
    Trunc,
    /// GLSL Round: halves away from zero ("a direction chosen by the
    /// implementation").
    Round,
    RoundEven,
    Fract,
    Sqrt,
    InverseSqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Radians,
    Degrees,
    /// 1 if NaN, else 0 (a boolean result).
    IsNan,
    /// 1 if infinite, else 0.
    IsInf,
    /// OpQuantizeToF16 (32-bit only).
    QuantizeToF16,
}

/// A conversion (widths in bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Conv {
    /// OpConvertFToS: round toward zero.
    FToS {
        from: u8,
        to: u8,
    },
    /// OpConvertFToU: round toward zero.
    FToU {
        from: u8,
        to: u8,
    },
    SToF {
        from: u8,
        to: u8,
    },
    UToF {
        from: u8,
        to: u8,
    },
    FConvert {
        from: u8,
        to: u8,
    },
    /// PackHalf2x16 of the two 32-bit float operands (a: low half).
    PackHalf2x16,
    /// One half of UnpackHalf2x16 (`high`: bits 16..32) as a 32-bit float.
    UnpackHalf {
        high: bool,
    },
    /// A 32-bit float to a normalised integer field of `bits` bits (the
    /// field's bits read signed, as every integer narrower than 64 bits):
    /// Pack{Unorm,Snorm}{4x8,2x16} per component, normalised image texels.
    ToNorm {
        signed: bool,
        bits: u8,
    },
    /// The low `bits` bits of the operand, a normalised field, to a 32-bit float.
    FromNorm {
        signed: bool,
        bits: u8,
    },
}

/// An integer operation at a width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum IntOp {
    BitReverse,
    BitCount,
    /// Index of the least significant set bit, -1 for 0.
    FindLsb,
    /// Most significant bit differing from the sign bit, -1 for 0 and -1.
    FindSMsb,
    /// Most significant set bit (unsigned), -1 for 0.
    FindUMsb,
    /// The high half of the full product (UMulExtended / SMulExtended).
    MulHi {
        signed: bool,
    },
    /// The carry of an unsigned addition (IAddCarry), 0 or 1.
    Carry,
    /// The borrow of an unsigned subtraction (ISubBorrow), 0 or 1.
    Borrow,
    /// What an atomic read-modify-write of the width writes from the
    /// value read and its operand ([`super::RmwOp::apply_at`]): the
    /// derived write of an RMW whose read stays symbolic.
    Rmw(super::RmwOp),
}

/// A numeric operation of [`super::ArithOp::Num`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum NumOp {
    FBin(FBin, u8),
    FUn(FUn, u8),
    /// A float comparison (0/1): `ordered` gives false when either operand
    /// is a NaN (OpFOrd*), unordered gives true (OpFUnord*).
    FCmp {
        cmp: Cmp,
        ordered: bool,
        width: u8,
    },
    Conv(Conv),
    Int(IntOp, u8),
}

/// The signed reading of the low `width` bits of `bits`.
pub fn sext(bits: u64, width: u8) -> i64 {
    let w = u32::from(width).clamp(1, 64);
    let shift = 64 - w;
    ((bits << shift) as i64) >> shift
}

/// The low `width` bits of `v`, zero-extended.
pub fn zext(v: i64, width: u8) -> u64 {
    let w = u32::from(width).clamp(1, 64);
    (v as u64) & (u64::MAX >> (64 - w))
}

/// Precision (significand bits with the hidden one), minimum normal
/// exponent and bias of a width.
fn format(width: u8) -> (u32, i32, i32) {
    match width {
        16 => (11, -14, 15),
        32 => (24, -126, 127),
        _ => (53, -1022, 1023),
    }
}

/// The value of a float of `width` bits.
pub fn to_f64(v: i64, width: u8) -> f64 {
    match width {
        16 => {
            let b = zext(v, 16);
            let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
            let e = ((b >> 10) & 0x1f) as i32;
            let f = (b & 0x3ff) as f64;
            sign * match e {
                0 => f * 2f64.powi(-24),
                31 if f == 0.0 => f64::INFINITY,
                31 => f64::NAN,
                _ => (1.0 + f / 1024.0) * 2f64.powi(e - 15),
            }
        }
        32 => f64::from(f32::from_bits(zext(v, 32) as u32)),
        _ => f64::from_bits(v as u64),
    }
}

/// `m * 2^e2` (negative if `neg`) rounded to nearest, ties to even, as the
/// bits of a float of `width` bits (infinity past the largest finite).
pub fn round_to(neg: bool, m: u128, e2: i32, width: u8) -> i64 {
    let (p, emin, bias) = format(width);
    let w = u32::from(width);
    let sign = u64::from(neg) << (w - 1);
    let frac_bits = p - 1;
    let exp_all = (1u64 << (w - p)) - 1;
    if m == 0 {
        return sext(sign, width);
    }
    let top = 127 - m.leading_zeros() as i32;
    let e = e2 + top;
    // The weight of the last significand bit.
    let lsb = (e - frac_bits as i32).max(emin - frac_bits as i32);
    let shift = lsb - e2;
    let mant: u128 = if shift <= 0 {
        m << (-shift).min(127)
    } else if shift >= 128 {
        0
    } else {
        let q = m >> shift;
        let rem = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    };
    let (mant, lsb) = if mant >> p != 0 {
        (mant >> 1, lsb + 1)
    } else {
        (mant, lsb)
    };
    let bits = if mant >> frac_bits != 0 {
        let biased = (lsb + frac_bits as i32 + bias) as u64;
        if biased >= exp_all {
            exp_all << frac_bits
        } else {
            (biased << frac_bits) | (mant as u64 & ((1u64 << frac_bits) - 1))
        }
    } else {
        mant as u64
    };
    sext(sign | bits, width)
}

/// `x` rounded to nearest even as a float of `width` bits.
pub fn from_f64(x: f64, width: u8) -> i64 {
    match width {
        64 => x.to_bits() as i64,
        32 => sext(u64::from((x as f32).to_bits()), 32),
        _ => {
            if x.is_nan() {
                let neg = x.is_sign_negative();
                return sext((u64::from(neg) << 15) | 0x7e00, 16);
            }
            if x.is_infinite() {
                return sext((u64::from(x < 0.0) << 15) | 0x7c00, 16);
            }
            let b = x.to_bits();
            let neg = b >> 63 == 1;
            let e = ((b >> 52) & 0x7ff) as i32;
            let f = b & ((1u64 << 52) - 1);
            let (m, e2) = if e == 0 {
                (f, -1074)
            } else {
                (f | (1u64 << 52), e - 1075)
            };
            round_to(neg, u128::from(m), e2, width)
        }
    }
}

/// The bits of a float literal of `width` bits: decimal (`0.1`, `1e-3`,
/// `-2`), or hexadecimal (`0x1.8p+1`, as spirv-dis writes them, where an
/// exponent one past the largest with a leading `1` is an infinity
/// (`0x1p+128`) or a NaN whose fraction follows (`0x1.8p+128`)).
pub fn parse_float(text: &str, width: u8) -> Option<i64> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let (mant, exp) = match hex.find(['p', 'P']) {
            Some(k) => (&hex[..k], hex[k + 1..].parse::<i32>().ok()?),
            None => (hex, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        if (int.is_empty() && frac.is_empty()) || int.len() + frac.len() > 30 {
            return None;
        }
        let mut m: u128 = 0;
        for c in int.chars().chain(frac.chars()) {
            m = m * 16 + u128::from(c.to_digit(16)?);
        }
        let e2 = exp.checked_sub(4 * frac.len() as i32)?;
        let (p, _, bias) = format(width);
        let emax = bias;
        if int == "1" && exp == emax + 1 {
            // Infinity or NaN: the fraction digits are the payload.
            let w = u32::from(width);
            let frac_bits = p - 1;
            let f = if frac.is_empty() {
                0
            } else {
                let fm = m - (1u128 << (4 * frac.len()));
                let have = 4 * frac.len() as u32;
                if have >= frac_bits {
                    (fm >> (have - frac_bits)) as u64
                } else {
                    (fm << (frac_bits - have)) as u64
                }
            };
            let exp_all = (1u64 << (w - p)) - 1;
            let bits = (u64::from(neg) << (w - 1)) | (exp_all << frac_bits) | f;
            return Some(sext(bits, width));
        }
        return Some(round_to(neg, m, e2, width));
    }
    match body {
        "inf" | "Inf" | "infinity" => {
            return Some(from_f64(
                if neg { -1.0 } else { 1.0 } * f64::INFINITY,
                width,
            ));
        }
        "nan" | "NaN" => return Some(from_f64(f64::NAN, width)),
        _ => {}
    }
    if !body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    if width == 32 {
        // Decimal straight to f32: one rounding.
        let x: f32 = text.parse().ok()?;
        return Some(sext(u64::from(x.to_bits()), 32));
    }
    let x: f64 = text.parse().ok()?;
    Some(from_f64(x, width))
}

/// A float's bits as spirv-dis writes them (hexadecimal, exact; see
/// [`parse_float`]).
pub fn hex_float(v: i64, width: u8) -> String {
    let (p, emin, bias) = format(width);
    let w = u32::from(width);
    let b = zext(v, width);
    let frac_bits = p - 1;
    let neg = if b >> (w - 1) & 1 == 1 { "-" } else { "" };
    let e = ((b >> frac_bits) & ((1u64 << (w - p)) - 1)) as i32;
    let f = b & ((1u64 << frac_bits) - 1);
    // The fraction as hex digits, left-aligned to a multiple of 4 bits.
    let digits = frac_bits.div_ceil(4);
    let fhex = format!(
        "{:0width$x}",
        f << (4 * digits - frac_bits),
        width = digits as usize
    );
    let exp_all = (1i32 << (w - p)) - 1;
    if e == 0 && f == 0 {
        format!("{neg}0x0p+0")
    } else if e == 0 {
        format!("{neg}0x0.{fhex}p{emin:+}")
    } else if e == exp_all {
        format!("{neg}0x1.{fhex}p{:+}", bias + 1)
    } else {
        format!("{neg}0x1.{fhex}p{:+}", e - bias)
    }
}

impl NumOp {
    /// The result of the operation on `a` and `b`.
    pub fn apply(self, a: i64, b: i64) -> i64 {
        match self {
            NumOp::FBin(op, w) => fbin(op, w, a, b),
            NumOp::FUn(op, w) => fun(op, w, a),
            NumOp::FCmp {
                cmp,
                ordered,
                width,
            } => {
                let (x, y) = (to_f64(a, width), to_f64(b, width));
                let r = if x.is_nan() || y.is_nan() {
                    !ordered
                } else {
                    match cmp {
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Gt => x > y,
                        Cmp::Ge => x >= y,
                    }
                };
                i64::from(r)
            }
            NumOp::Conv(c) => conv(c, a, b),
            NumOp::Int(op, w) => int(op, w, a, b),
        }
    }

    /// The mnemonic printed for the operation.
    pub fn name(self) -> String {
        match self {
            NumOp::FBin(op, w) => format!("f{op:?}{w}").to_lowercase(),
            NumOp::FUn(op, w) => format!("f{op:?}{w}").to_lowercase(),
            NumOp::FCmp {
                cmp,
                ordered,
                width,
            } => format!("f{}{cmp:?}{width}", if ordered { "ord" } else { "unord" }).to_lowercase(),
            NumOp::Conv(c) => format!("{c:?}").to_lowercase(),
            NumOp::Int(op, w) => format!("{op:?}{w}").to_lowercase(),
        }
    }
}

fn fbin(op: FBin, w: u8, a: i64, b: i64) -> i64 {
    let (x, y) = (to_f64(a, w), to_f64(b, w));
    let r = match op {
        FBin::Add => x + y,
        FBin::Sub => x - y,
        FBin::Mul => x * y,
        FBin::Div => x / y,
        FBin::Rem => x % y,
        FBin::Mod => {
            let r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r
            }
        }
        FBin::Min => return if y < x { b } else { a },
        FBin::Max => return if x < y { b } else { a },
        FBin::NMin => x.min(y),
        FBin::NMax => x.max(y),
        FBin::Pow => x.powf(y),
        FBin::Atan2 => x.atan2(y),
        FBin::Step => {
            if y < x {
                0.0
            } else {
                1.0
            }
        }
        FBin::Ldexp => x * 2f64.powi(b.clamp(-1100, 1100) as i32),
    };
    from_f64(r, w)
}

fn fun(op: FUn, w: u8, a: i64) -> i64 {
    let x = to_f64(a, w);
    let r = match op {
        // Sign bit flips, NaN included.
        FUn::Neg => return sext(zext(a, w) ^ (1u64 << (w - 1)), w),
        FUn::Abs => return sext(zext(a, w) & !(1u64 << (w - 1)), w),
        FUn::Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        FUn::Floor => x.floor(),
        FUn::Ceil => x.ceil(),
        FUn::Trunc => x.trunc(),
        FUn::Round => x.round(),
        FUn::RoundEven => x.round_ties_even(),
        FUn::Fract => x - x.floor(),
        FUn::Sqrt => x.sqrt(),
        FUn::InverseSqrt => 1.0 / x.sqrt(),
        FUn::Exp => x.exp(),
        FUn::Exp2 => x.exp2(),
        FUn::Log => x.ln(),
        FUn::Log2 => x.log2(),
        FUn::Sin => x.sin(),
        FUn::Cos => x.cos(),
        FUn::Tan => x.tan(),
        FUn::Asin => x.asin(),
        FUn::Acos => x.acos(),
        FUn::Atan => x.atan(),
        FUn::Sinh => x.sinh(),
        FUn::Cosh => x.cosh(),
        FUn::Tanh => x.tanh(),
        FUn::Asinh => x.asinh(),
        FUn::Acosh => x.acosh(),
        FUn::Atanh => x.atanh(),
        FUn::Radians => x.to_radians(),
        FUn::Degrees => x.to_degrees(),
        FUn::IsNan => return i64::from(x.is_nan()),
        FUn::IsInf => return i64::from(x.is_infinite()),
        FUn::QuantizeToF16 => {
            // OpQuantizeToF16: "If Value is positive with a magnitude too
            // large to represent as a 16-bit floating-point value, the
            // result is positive infinity" (negative alike); "If the
            // magnitude of Value is too small to represent as a normalized
            // 16-bit floating-point value, the result may be either +0 or
            // -0": vkmm gives the zero of the value's sign.
            let h = from_f64(x, 16);
            let hv = to_f64(h, 16);
            if hv != 0.0 && hv.abs() < 2f64.powi(-14) {
                if x.is_sign_negative() { -0.0 } else { 0.0 }
            } else {
                hv
            }
        }
    };
    from_f64(r, w)
}

/// Float to integer, rounding toward zero, saturating at the type's
/// range, NaN to 0 (SPIR-V leaves values outside the range undefined:
/// vkmm picks these).
fn f_to_int(x: f64, signed: bool, to: u8) -> i64 {
    let t = x.trunc();
    if t.is_nan() {
        return 0;
    }
    let bits = u32::from(to).clamp(1, 64);
    if signed {
        let (lo, hi) = if bits == 64 {
            (i64::MIN, i64::MAX)
        } else {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        };
        if t <= lo as f64 {
            lo
        } else if t >= hi as f64 {
            hi
        } else {
            t as i64
        }
    } else {
        let hi = u64::MAX >> (64 - bits);
        let u = if t <= 0.0 {
            0
        } else if t >= hi as f64 {
            hi
        } else {
            t as u64
        };
        sext(u, to)
    }
}

fn conv(c: Conv, a: i64, b: i64) -> i64 {
    match c {
        Conv::FToS { from, to } => f_to_int(to_f64(a, from), true, to),
        Conv::FToU { from, to } => f_to_int(to_f64(a, from), false, to),
        Conv::SToF { from, to } => {
            let v = sext(a as u64, from);
            match to {
                32 => sext(u64::from((v as f32).to_bits()), 32),
                64 => (v as f64).to_bits() as i64,
                _ => round_to(v < 0, u128::from(v.unsigned_abs()), 0, to),
            }
        }
        Conv::UToF { from, to } => {
            let u = zext(a, from);
            match to {
                32 => sext(u64::from((u as f32).to_bits()), 32),
                64 => (u as f64).to_bits() as i64,
                _ => round_to(false, u128::from(u), 0, to),
            }
        }
        Conv::FConvert { from, to } => from_f64(to_f64(a, from), to),
        Conv::PackHalf2x16 => {
            let lo = zext(from_f64(to_f64(a, 32), 16), 16);
            let hi = zext(from_f64(to_f64(b, 32), 16), 16);
            sext(lo | (hi << 16), 32)
        }
        Conv::UnpackHalf { high } => {
            let h = (zext(a, 32) >> if high { 16 } else { 0 }) & 0xffff;
            from_f64(to_f64(h as i64, 16), 32)
        }
        Conv::ToNorm { signed, bits } => {
            // GLSL.std.450 PackUnorm4x8: "round(clamp(c, 0, +1) * 255.0)";
            // PackSnorm4x8: "round(clamp(c, -1, +1) * 127.0)".
            let x = to_f64(a, 32);
            let x = if x.is_nan() { 0.0 } else { x };
            let v = if signed {
                let scale = ((1i64 << (bits - 1)) - 1) as f64;
                (x.clamp(-1.0, 1.0) * scale).round() as i64
            } else {
                let scale = ((1i64 << bits) - 1) as f64;
                (x.clamp(0.0, 1.0) * scale).round() as i64
            };
            sext(zext(v, bits), bits)
        }
        Conv::FromNorm { signed, bits } => {
            // UnpackUnorm4x8: "f / 255.0"; UnpackSnorm4x8:
            // "clamp(f / 127.0, -1, +1)".
            let r = if signed {
                let f = sext(a as u64, bits) as f64;
                (f / ((1i64 << (bits - 1)) - 1) as f64).clamp(-1.0, 1.0)
            } else {
                zext(a, bits) as f64 / ((1i64 << bits) - 1) as f64
            };
            from_f64(r, 32)
        }
    }
}

fn int(op: IntOp, w: u8, a: i64, b: i64) -> i64 {
    let bits = u32::from(w).clamp(1, 64);
    let ua = zext(a, w);
    match op {
        IntOp::Rmw(rmw) => rmw.apply_at(a, b, Some(w)),
        IntOp::BitReverse => sext(ua.reverse_bits() >> (64 - bits), w),
        IntOp::BitCount => i64::from(ua.count_ones()),
        IntOp::FindLsb => {
            if ua == 0 {
                -1
            } else {
                i64::from(ua.trailing_zeros())
            }
        }
        IntOp::FindUMsb => {
            if ua == 0 {
                -1
            } else {
                63 - i64::from(ua.leading_zeros())
            }
        }
        IntOp::FindSMsb => {
            let s = sext(ua, w);
            let x = zext(if s < 0 { !s } else { s }, w);
            if x == 0 {
                -1
            } else {
                63 - i64::from(x.leading_zeros())
            }
        }
        IntOp::MulHi { signed } => {
            let p = if signed {
                i128::from(sext(ua, w)) * i128::from(sext(zext(b, w), w))
            } else {
                (u128::from(ua) * u128::from(zext(b, w))) as i128
            };
            sext((p >> bits) as u64, w)
        }
        IntOp::Carry => i64::from((u128::from(ua) + u128::from(zext(b, w))) >> bits != 0),
        IntOp::Borrow => i64::from(ua < zext(b, w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_bits(x: f32) -> i64 {
        sext(u64::from(x.to_bits()), 32)
    }

    #[test]
    fn add_rounds_to_nearest_even() {
        // 0.1f = 0x3DCCCCCD, 0.2f = 0x3E4CCCCD; their exact sum
        // 0.300000004470348358154296875 lies between 0x3E99999A
        // (0.300000011920928955078125) and 0x3E999999
        // (0.2999999821186065673828125), nearer the first.
        let a = parse_float("0.1", 32).unwrap();
        let b = parse_float("0.2", 32).unwrap();
        assert_eq!((a, b), (0x3DCC_CCCD, 0x3E4C_CCCD));
        assert_eq!(NumOp::FBin(FBin::Add, 32).apply(a, b), 0x3E99_999A);
    }

    #[test]
    fn f16_rounding_and_specials() {
        // 1 + 2^-11 is halfway between 1.0 (0x3C00) and 1 + 2^-10: even wins.
        assert_eq!(from_f64(1.0 + 2f64.powi(-11), 16), 0x3C00);
        // 1 + 3 * 2^-11 is halfway between odd 0x3C01 and even 0x3C02.
        assert_eq!(from_f64(1.0 + 3.0 * 2f64.powi(-11), 16), 0x3C02);
        assert_eq!(from_f64(65504.0, 16), 0x7BFF);
        assert_eq!(zext(from_f64(65520.0, 16), 16), 0x7C00);
        assert_eq!(from_f64(2f64.powi(-24), 16), 1);
        assert_eq!(to_f64(0x3555, 16), 0.333251953125);
        // Quantize: 2^-20 is an f16 subnormal, so 0; 1/3 keeps 11 bits.
        let q = |x: f32| NumOp::FUn(FUn::QuantizeToF16, 32).apply(f32_bits(x), 0);
        assert_eq!(q(2f32.powi(-20)), 0);
        assert_eq!(q(-2f32.powi(-20)), f32_bits(-0.0));
        assert_eq!(q(1.0 / 3.0), f32_bits(f32::from_bits(0x3EAA_A000)));
        assert_eq!(q(1e6), f32_bits(f32::INFINITY));
    }

    #[test]
    fn literals_round_trip_through_hex() {
        for (bits, w) in [
            (0x3F80_0000, 32),
            (f32_bits(-0.0), 32),
            (0x7F80_0000, 32),
            (0x7FC0_0000, 32),
            (1, 32),
            (0x3C00, 16),
            (sext(0xFC00, 16), 16),
            (0x3FF0_0000_0000_0000, 64),
            (0x7FF8_0000_0000_0001, 64),
        ] {
            let text = hex_float(bits, w);
            assert_eq!(parse_float(&text, w), Some(bits), "{text}");
        }
        assert_eq!(parse_float("0x1.8p+1", 32), Some(f32_bits(3.0)));
        assert_eq!(parse_float("-2", 32), Some(f32_bits(-2.0)));
    }

    #[test]
    fn conversions_and_comparisons() {
        let c = |c: Conv, a: i64| NumOp::Conv(c).apply(a, 0);
        let ftou = Conv::FToU { from: 32, to: 32 };
        assert_eq!(c(ftou, f32_bits(3.9)), 3);
        // Out of range: saturation, NaN to 0 (vkmm's pick).
        assert_eq!(c(ftou, f32_bits(-1.0)), 0);
        assert_eq!(c(ftou, f32_bits(f32::NAN)), 0);
        assert_eq!(c(ftou, f32_bits(5e9)), -1);
        assert_eq!(c(Conv::FToS { from: 32, to: 32 }, f32_bits(-2.5)), -2);
        // 2^24 + 1 rounds to even, 2^24.
        assert_eq!(
            c(Conv::SToF { from: 32, to: 32 }, 16_777_217),
            f32_bits(16_777_216.0)
        );
        assert_eq!(
            c(Conv::UToF { from: 32, to: 32 }, -1),
            f32_bits(4_294_967_296.0)
        );
        let nan = f32_bits(f32::NAN);
        let one = f32_bits(1.0);
        let lt = |ordered| NumOp::FCmp {
            cmp: Cmp::Lt,
            ordered,
            width: 32,
        };
        assert_eq!(lt(true).apply(nan, one), 0);
        assert_eq!(lt(false).apply(nan, one), 1);
        assert_eq!(lt(true).apply(f32_bits(-1.0), one), 1);
        assert_eq!(c(Conv::PackHalf2x16, one) & 0xffff, 0x3C00);
        // round(127.5) = 128 = 0x80, read signed at 8 bits; -127 = 0x81.
        assert_eq!(
            c(
                Conv::ToNorm {
                    signed: false,
                    bits: 8
                },
                f32_bits(0.5)
            ),
            -128
        );
        assert_eq!(
            c(
                Conv::ToNorm {
                    signed: true,
                    bits: 8
                },
                f32_bits(-1.0)
            ),
            -127
        );
        assert_eq!(
            c(
                Conv::FromNorm {
                    signed: true,
                    bits: 8
                },
                0x81
            ),
            f32_bits(-1.0)
        );
    }

    #[test]
    fn integer_bit_operations() {
        let i = |op, a| NumOp::Int(op, 32).apply(a, 0);
        assert_eq!(i(IntOp::BitReverse, 1), i64::from(i32::MIN));
        assert_eq!(i(IntOp::BitCount, -1), 32);
        assert_eq!(i(IntOp::FindLsb, 8), 3);
        assert_eq!(i(IntOp::FindUMsb, -1), 31);
        assert_eq!(i(IntOp::FindSMsb, -1), -1);
        assert_eq!(i(IntOp::FindSMsb, -2), 0);
        assert_eq!(
            NumOp::Int(IntOp::MulHi { signed: false }, 32).apply(-1, -1),
            -2
        );
        assert_eq!(
            NumOp::Int(IntOp::MulHi { signed: true }, 32).apply(-1, -1),
            0
        );
        assert_eq!(NumOp::Int(IntOp::Carry, 32).apply(-1, 1), 1);
        assert_eq!(NumOp::Int(IntOp::Borrow, 32).apply(0, 1), 1);
    }
}
