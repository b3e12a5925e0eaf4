//! Binary SPIR-V modules (`.spv`): decoded by the `rspirv` crate's binary
//! parser, instruction by instruction in the order of the file, and
//! rendered as the assembly text the `.spvasm` front end reads (one
//! instruction per line), so one lowering serves both. docs/format-spirv.md
//! ("Binary modules") describes the choices:
//!
//! - ids are named by their `OpName` when that name is usable as an id
//!   (letters, digits, `_`, `.`; not all digits) and no other id has it;
//!   every other id is its number (`%42`);
//! - a binary has no comments, so the Dat3M headers (`; @Input`,
//!   `; @Output`, `; @Filter`, `; @Config`) come from a text file beside
//!   it, the module's name plus `.headers` (`mp.spv.headers`);
//! - positions: an error in the module is reported at line N = the Nth
//!   instruction (the line `spirv-dis --no-header` prints it on), with the
//!   instruction as vkmm renders it; an error in the headers at its line in
//!   the headers file.
//!
//! The parser walks the module without checking the order of its sections
//! (rspirv's `dr::Loader` refuses instructions out of place, e.g. clspv's
//! reflection after the functions; the text front end accepts them).

use super::syntax::Located;
use rspirv::binary::{Consumer, ParseAction};
use rspirv::dr::{Instruction, ModuleHeader, Operand};
use std::collections::HashMap;

/// Collects the instructions of a module in file order.
#[derive(Default)]
struct Collect {
    insts: Vec<Instruction>,
}

impl Consumer for Collect {
    fn initialize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn finalize(&mut self) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_header(&mut self, _: ModuleHeader) -> ParseAction {
        ParseAction::Continue
    }
    fn consume_instruction(&mut self, inst: Instruction) -> ParseAction {
        self.insts.push(inst);
        ParseAction::Continue
    }
}

/// The most bytes vkmm reads as one module (a litmus-sized shader is a few
/// kilobytes).
const MAX_BYTES: usize = 16 << 20;

/// Decodes a binary module into assembly text, one instruction per line
/// (line N is the Nth instruction). An error has line 0 when it is about
/// the whole file (not SPIR-V, truncated), else the instruction's number.
pub(super) fn disassemble(bytes: &[u8]) -> Result<String, Located> {
    if bytes.len() > MAX_BYTES {
        return Err((
            0,
            0,
            format!("module of {} bytes: vkmm reads at most 16 MiB", bytes.len()),
        ));
    }
    if bytes.len() < 20 {
        return Err((
            0,
            0,
            format!(
                "not a SPIR-V binary: too short ({} bytes): a module starts with a 5-word (20-byte) header",
                bytes.len()
            ),
        ));
    }
    if !bytes.len().is_multiple_of(4) {
        return Err((
            0,
            0,
            format!(
                "not a SPIR-V binary: expected a whole number of 32-bit words after a 5-word header, found {} bytes",
                bytes.len()
            ),
        ));
    }
    let magic = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    if magic != spirv::MAGIC_NUMBER {
        let hint = if magic.swap_bytes() == spirv::MAGIC_NUMBER {
            " (a big-endian module: vkmm reads little-endian ones)"
        } else {
            ""
        };
        return Err((
            0,
            0,
            format!(
                "not a SPIR-V binary: expected the magic number 0x07230203, found 0x{magic:08x}{hint}"
            ),
        ));
    }
    // Every instruction must fit in the file before rspirv reads it (its
    // string decoder indexes past the end of a file whose last
    // instruction claims more words than are left).
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let (mut at, mut n) = (5, 1);
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 {
            return Err((
                n,
                1,
                "cannot decode the module: an instruction of 0 words".into(),
            ));
        }
        if at + count > words.len() {
            return Err((
                n,
                1,
                format!(
                    "cannot decode the module: the instruction claims {count} words, the file has {} left",
                    words.len() - at
                ),
            ));
        }
        at += count;
        n += 1;
    }
    let mut c = Collect::default();
    if let Err(e) = rspirv::binary::parse_bytes(bytes, &mut c) {
        // The instructions read so far are complete: the bad one is next.
        return Err((
            c.insts.len() + 1,
            1,
            format!("cannot decode the module: {e}"),
        ));
    }
    Ok(render(&c.insts))
}

/// The text of every instruction, one per line.
fn render(insts: &[Instruction]) -> String {
    let names = names(insts);
    let id = |w: u32| match names.get(&w) {
        Some(n) => format!("%{n}"),
        None => format!("%{w}"),
    };
    // Integer types (width, signed), the type of every result, and the
    // extended instruction sets.
    let mut ints: HashMap<u32, (u32, bool)> = HashMap::new();
    let mut floats: HashMap<u32, u8> = HashMap::new();
    let mut type_of: HashMap<u32, u32> = HashMap::new();
    let mut sets: HashMap<u32, String> = HashMap::new();
    let mut out = String::new();
    for inst in insts {
        let op = inst.class.opcode;
        if let (spirv::Op::TypeInt, Some(r)) = (op, inst.result_id)
            && let [Operand::LiteralBit32(w), Operand::LiteralBit32(s)] = inst.operands.as_slice()
        {
            ints.insert(r, (*w, *s != 0));
        }
        if let (spirv::Op::TypeFloat, Some(r), Some(Operand::LiteralBit32(w))) =
            (op, inst.result_id, inst.operands.first())
            && matches!(w, 16 | 32 | 64)
        {
            floats.insert(r, *w as u8);
        }
        if let (spirv::Op::ExtInstImport, Some(r), Some(Operand::LiteralString(s))) =
            (op, inst.result_id, inst.operands.first())
        {
            sets.insert(r, s.clone());
        }
        if let (Some(r), Some(t)) = (inst.result_id, inst.result_type) {
            type_of.insert(r, t);
        }
        // The integer type the literals of this instruction are values of.
        let literal_type = match op {
            spirv::Op::Constant | spirv::Op::SpecConstant => inst.result_type,
            spirv::Op::Switch => match inst.operands.first() {
                Some(Operand::IdRef(sel)) => type_of.get(sel).copied(),
                _ => None,
            },
            _ => None,
        }
        .and_then(|t| ints.get(&t).copied());
        // A float constant's literal is its bits: written as the exact
        // hexadecimal float the text reader takes back (`numeric::parse_float`).
        let float_type = match op {
            spirv::Op::Constant | spirv::Op::SpecConstant => {
                inst.result_type.and_then(|t| floats.get(&t).copied())
            }
            _ => None,
        };
        let mut line = String::new();
        if let Some(r) = inst.result_id {
            line.push_str(&id(r));
            line.push_str(" = ");
        }
        line.push_str("Op");
        line.push_str(inst.class.opname);
        if let Some(t) = inst.result_type {
            line.push(' ');
            line.push_str(&id(t));
        }
        let set = match (op, inst.operands.first()) {
            (spirv::Op::ExtInst, Some(Operand::IdRef(s))) => sets.get(s).map(String::as_str),
            _ => None,
        };
        for operand in &inst.operands {
            line.push(' ');
            match (float_type, operand) {
                (Some(w), Operand::LiteralBit32(v)) => {
                    line.push_str(&crate::ir::numeric::hex_float(i64::from(*v), w));
                }
                (Some(w), Operand::LiteralBit64(v)) => {
                    line.push_str(&crate::ir::numeric::hex_float(*v as i64, w));
                }
                _ => line.push_str(&operand_text(operand, &id, literal_type, set)),
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The `OpName` of each id that has a usable one: a valid id in the text
/// syntax, not all digits (those are numbers), given to one id only.
fn names(insts: &[Instruction]) -> HashMap<u32, String> {
    let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
    for inst in insts {
        if inst.class.opcode != spirv::Op::Name {
            continue;
        }
        if let [Operand::IdRef(target), Operand::LiteralString(name)] = inst.operands.as_slice() {
            let usable = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && !name.chars().all(|c| c.is_ascii_digit());
            if usable {
                let ids = by_name.entry(name.clone()).or_default();
                if !ids.contains(target) {
                    ids.push(*target);
                }
            }
        }
    }
    let mut out = HashMap::new();
    for (name, ids) in by_name {
        if let [one] = ids.as_slice()
            && !out.contains_key(one)
        {
            out.insert(*one, name);
        }
    }
    out
}

/// A literal of an integer type of `width` bits, signed or not, as the
/// text writes it (negative numbers for signed types).
fn literal(bits: u64, ty: Option<(u32, bool)>) -> String {
    match ty {
        Some((w, true)) if (1..64).contains(&w) && bits >> (w - 1) & 1 == 1 => {
            let v = (bits as i128) - (1i128 << w);
            v.to_string()
        }
        Some((64, true)) => (bits as i64).to_string(),
        _ => bits.to_string(),
    }
}

/// A mask operand: its set bits by name (`MakePointerAvailable|NonPrivatePointer`),
/// `None` when none is set, the number when a bit has no name.
macro_rules! mask {
    ($v:expr) => {{
        let v = $v;
        let mut named = 0;
        let mut names = Vec::new();
        for (n, f) in v.iter_names() {
            named |= f.bits();
            names.push(camel(n));
        }
        if v.bits() & !named != 0 {
            v.bits().to_string()
        } else if names.is_empty() {
            "None".to_string()
        } else {
            names.join("|")
        }
    }};
}

/// `MAKE_POINTER_AVAILABLE` → `MakePointerAvailable`.
fn camel(screaming: &str) -> String {
    screaming
        .split('_')
        .map(|part| {
            let mut cs = part.chars();
            match cs.next() {
                Some(first) => first.to_string() + &cs.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect()
}

fn operand_text(
    operand: &Operand,
    id: &dyn Fn(u32) -> String,
    literal_type: Option<(u32, bool)>,
    set: Option<&str>,
) -> String {
    match operand {
        Operand::IdRef(w) | Operand::IdScope(w) | Operand::IdMemorySemantics(w) => id(*w),
        Operand::LiteralBit32(v) => literal(u64::from(*v), literal_type),
        Operand::LiteralBit64(v) => literal(*v, literal_type),
        Operand::LiteralExtInstInteger(n) => {
            let table = set.and_then(|s| {
                rspirv::grammar::ext_inst_table(s).or_else(|| {
                    // clspv's sets carry a version: `NonSemantic.ClspvReflection.5`.
                    let base = s.rsplit_once('.').map(|(b, _)| b)?;
                    rspirv::grammar::ext_inst_table(base)
                })
            });
            match table.and_then(|t| t.lookup_opcode(*n)) {
                Some(g) => g.opname.to_string(),
                None => n.to_string(),
            }
        }
        Operand::LiteralSpecConstantOpInteger(op) => format!("{op:?}"),
        Operand::LiteralString(s) => {
            let mut q = String::from("\"");
            // One instruction per line: a line break in a string (glslang
            // puts the source text in `OpSource`) is written as the escape `\n`.
            for c in s.chars() {
                match c {
                    '"' | '\\' => {
                        q.push('\\');
                        q.push(c);
                    }
                    '\n' => q.push_str("\\n"),
                    '\r' => q.push_str("\\r"),
                    _ => q.push(c),
                }
            }
            q.push('"');
            q
        }
        Operand::MemoryAccess(v) => mask!(v),
        Operand::FunctionControl(v) => mask!(v),
        Operand::SelectionControl(v) => mask!(v),
        Operand::LoopControl(v) => mask!(v),
        Operand::MemorySemantics(v) => mask!(v),
        Operand::ImageOperands(v) => mask!(v),
        Operand::TensorOperands(v) => mask!(v),
        Operand::FPFastMathMode(v) => mask!(v),
        // Enumerants: rspirv prints their grammar names.
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_follow_the_type() {
        assert_eq!(literal(0xffff_ffff, Some((32, true))), "-1");
        assert_eq!(literal(0xffff_ffff, Some((32, false))), "4294967295");
        assert_eq!(literal(u64::MAX, Some((64, true))), "-1");
        assert_eq!(literal(5, Some((32, true))), "5");
        assert_eq!(literal(7, None), "7");
    }

    #[test]
    fn masks_read_as_the_text_writes_them() {
        let m =
            spirv::MemoryAccess::MAKE_POINTER_AVAILABLE | spirv::MemoryAccess::NON_PRIVATE_POINTER;
        assert_eq!(mask!(&m), "MakePointerAvailable|NonPrivatePointer");
        assert_eq!(mask!(&spirv::FunctionControl::NONE), "None");
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        assert!(
            disassemble(b"hello")
                .unwrap_err()
                .2
                .contains("not a SPIR-V binary")
        );
        let mut words = vec![0x0723_0203u32, 0x0001_0000, 0, 10, 0];
        // An instruction claiming more words than the file has.
        words.push(0x0009_0011);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(disassemble(&bytes).is_err());
        // Every truncation: never a panic.
        for n in 0..bytes.len() {
            let _ = disassemble(&bytes[..n]);
        }
    }
}
