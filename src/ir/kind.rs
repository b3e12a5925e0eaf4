//! What a memory location's bits mean to the person reading a final state:
//! a signed or unsigned integer, or an IEEE-754 float, of a width.
//!
//! Every value in vkmm is an `i64` holding the location's bits (the signed
//! reading of the low `width` bits: docs/format-spirv.md, "Floating
//! point"); races, orders and conditions work on those bits. A shader's
//! front end knows each cell's scalar type, and reports show the value as
//! that type does: a `uint` holding all ones is `4294967295`, not `-1`;
//! a `float` holding 1.5 is `1.5`, not `1069547520`. Litmus tests name no
//! types: their locations are signed integers, as herd prints them.

use super::numeric;

/// How a location's value is read and written in reports and conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueKind {
    /// A two's-complement integer of this many bits.
    Signed(u8),
    /// An unsigned integer of this many bits.
    Unsigned(u8),
    /// An IEEE-754 binary float of 16, 32 or 64 bits.
    Float(u8),
}

impl ValueKind {
    /// The type's name as reports and the JSON write it (`i32`, `u8`,
    /// `f32`).
    pub fn name(self) -> String {
        match self {
            ValueKind::Signed(w) => format!("i{w}"),
            ValueKind::Unsigned(w) => format!("u{w}"),
            ValueKind::Float(w) => format!("f{w}"),
        }
    }

    /// Appends the value whose bits `v` holds, as the kind reads it. A
    /// float is written in the shortest decimal that reads back to its
    /// bits, always with a `.` or an exponent (`1.5`, `1.0`, `-0.0`,
    /// `1e-7`) so that it never reads as an integer; an infinity as `inf`
    /// or `-inf`; a NaN as its bits, a decimal integer (NaNs differ by
    /// their payloads and a condition names one by its bits).
    pub fn push(self, s: &mut String, v: i64) {
        use std::fmt::Write;
        match self {
            ValueKind::Signed(w) => {
                let _ = write!(s, "{}", numeric::sext(v as u64, w));
            }
            ValueKind::Unsigned(w) => {
                let _ = write!(s, "{}", numeric::zext(v, w));
            }
            ValueKind::Float(w) => {
                let x = numeric::to_f64(v, w);
                if x.is_nan() {
                    let _ = write!(s, "{}", numeric::sext(v as u64, w));
                } else if x.is_infinite() {
                    s.push_str(if x < 0.0 { "-inf" } else { "inf" });
                } else if w == 64 {
                    let _ = write!(s, "{x:?}");
                } else {
                    // Exact in f32 (a half widens exactly); the shortest
                    // f32 text reads back to the same value, hence to the
                    // same half.
                    let _ = write!(s, "{:?}", x as f32);
                }
            }
        }
    }

    /// The value as `kind` reads it, `None` being a signed integer (a
    /// location whose type no front end gave).
    pub fn show_as(kind: Option<ValueKind>, v: i64) -> String {
        kind.map_or_else(|| v.to_string(), |k| k.show(v))
    }

    /// The value as [`ValueKind::push`] writes it.
    pub fn show(self, v: i64) -> String {
        let mut s = String::new();
        self.push(&mut s, v);
        s
    }

    /// The value as a JSON number where it is one (an integer, a finite
    /// float); infinities and NaNs as the text [`ValueKind::push`] writes.
    pub fn json(self, v: i64) -> serde_json::Value {
        match self {
            ValueKind::Signed(w) => numeric::sext(v as u64, w).into(),
            ValueKind::Unsigned(w) => numeric::zext(v, w).into(),
            ValueKind::Float(_) => {
                // The shortest text of the value at its width, read as an
                // f64: `1.1f` is 1.1 in the JSON, not 1.100000023841858.
                // An infinity or a NaN (no JSON number) stays that text.
                let text = self.show(v);
                match text
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                {
                    Some(n) => serde_json::Value::Number(n),
                    None => text.into(),
                }
            }
        }
    }

    /// The bits of the float literal `text` (`1.5`, `-0.0`, `1e-3`, `inf`,
    /// `-inf`) at this kind's width: `Err` names what is wrong (the kind is
    /// not a float, or the text is not a float).
    pub fn float_bits(self, text: &str) -> Result<i64, String> {
        match self {
            ValueKind::Float(w) => numeric::parse_float(text, w)
                .ok_or_else(|| format!("`{text}` is not a float literal")),
            k => Err(format!(
                "`{text}` is a float, but the location holds an integer ({})",
                k.name()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ValueKind::*;
    use super::*;

    fn bits32(x: f32) -> i64 {
        numeric::sext(u64::from(x.to_bits()), 32)
    }

    #[test]
    fn integers_read_at_their_width_and_sign() {
        assert_eq!(Signed(32).show(-1), "-1");
        assert_eq!(Unsigned(32).show(-1), "4294967295");
        assert_eq!(Unsigned(8).show(-1), "255");
        assert_eq!(Signed(8).show(255), "-1");
        assert_eq!(Unsigned(64).show(-1), "18446744073709551615");
    }

    #[test]
    fn floats_read_as_the_shortest_decimal_that_gives_their_bits_back() {
        assert_eq!(Float(32).show(bits32(1.5)), "1.5");
        assert_eq!(Float(32).show(bits32(1.0)), "1.0");
        assert_eq!(Float(32).show(bits32(-0.0)), "-0.0");
        assert_eq!(Float(32).show(bits32(0.1)), "0.1");
        assert_eq!(Float(32).show(bits32(f32::INFINITY)), "inf");
        assert_eq!(Float(32).show(bits32(f32::NEG_INFINITY)), "-inf");
        // A NaN is its bits.
        assert_eq!(Float(32).show(0x7fc0_0000), "2143289344");
        assert_eq!(Float(64).show(0.1f64.to_bits() as i64), "0.1");
        // binary16 0x3555 is 0.333251953125.
        let h = 0x3555;
        let text = Float(16).show(h);
        assert_eq!(Float(16).float_bits(&text), Ok(h));
        for x in [1.5f32, 0.1, -3.25e-20, 1e30, f32::MIN_POSITIVE, 1e-45] {
            let b = bits32(x);
            assert_eq!(Float(32).float_bits(&Float(32).show(b)), Ok(b), "{x}");
        }
    }

    #[test]
    fn a_float_literal_needs_a_float_location() {
        assert_eq!(Float(32).float_bits("1.5"), Ok(bits32(1.5)));
        assert_eq!(Float(32).float_bits("-inf"), Ok(bits32(f32::NEG_INFINITY)));
        assert!(Unsigned(32).float_bits("1.5").unwrap_err().contains("u32"));
    }

    #[test]
    fn json_numbers_are_the_values() {
        assert_eq!(Unsigned(32).json(-1), serde_json::json!(4294967295u64));
        assert_eq!(Float(32).json(bits32(1.1)), serde_json::json!(1.1));
        assert_eq!(
            Float(32).json(bits32(f32::INFINITY)),
            serde_json::json!("inf")
        );
    }
}
