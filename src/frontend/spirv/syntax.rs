//! SPIR-V assembly text, line by line: `%id = OpName operands...` or
//! `OpName operands...`, `;` comments. Every opcode name and its operands
//! are checked against the SPIR-V grammar tables of the `rspirv` crate
//! (generated from Khronos' `spirv.core.grammar.json`): the opcode must
//! exist, produce a result exactly when the grammar says so, and each
//! operand must be of the grammar's kind (an id, a number, a string, or an
//! enumerant word) in the grammar's number.

use rspirv::grammar::{INSTRUCTION_TABLE, Instruction as Grammar, OperandKind, OperandQuantifier};
use std::collections::HashMap;
use std::sync::OnceLock;

/// An error at a 1-based line and column.
pub(super) type Located = (usize, usize, String);

/// One operand as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    /// `%name` (without the `%`).
    Id(String),
    /// An integer literal (decimal or `0x` hexadecimal, maybe negative).
    Int(i128),
    /// A floating-point literal (kept as written).
    Float(String),
    /// A quoted string (escapes resolved).
    Str(String),
    /// An enumerant or mask word (`StorageBuffer`, `Aligned`, `A|B`).
    Word(String),
}

/// An operand with its column.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Operand {
    pub tok: Tok,
    pub col: usize,
}

impl Operand {
    pub fn show(&self) -> String {
        match &self.tok {
            Tok::Id(s) => format!("`%{s}`"),
            Tok::Int(n) => format!("`{n}`"),
            Tok::Float(s) | Tok::Word(s) => format!("`{s}`"),
            Tok::Str(s) => format!("the string {s:?}"),
        }
    }
}

/// One instruction.
#[derive(Clone, Debug)]
pub(super) struct Inst {
    pub line: usize,
    /// Column of the opcode.
    pub col: usize,
    /// The opcode name as written (`OpLoad`).
    pub name: String,
    pub op: spirv::Op,
    /// `%id =` (without the `%`) and its column.
    pub result: Option<(String, usize)>,
    /// The operands after `=`, result type first when the opcode has one.
    pub operands: Vec<Operand>,
    /// The whole line, trimmed of its comment (shared by every statement
    /// the instruction lowers to).
    pub text: crate::ir::SpanText,
}

/// The atomic instructions vkmm lowers (`lower.rs`, `Gen::atomic`): every
/// one but `OpAtomicStore` reads its pointer's memory.
pub(super) fn is_atomic(op: spirv::Op) -> bool {
    use spirv::Op;
    matches!(
        op,
        Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicSMin
            | Op::AtomicUMin
            | Op::AtomicSMax
            | Op::AtomicUMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor
            | Op::AtomicFAddEXT
            | Op::AtomicFMinEXT
            | Op::AtomicFMaxEXT
    )
}

impl Inst {
    /// The id operand at `i`.
    pub fn id(&self, i: usize) -> Result<&str, Located> {
        match self.operands.get(i) {
            Some(Operand {
                tok: Tok::Id(s), ..
            }) => Ok(s),
            Some(o) => Err((
                self.line,
                o.col,
                format!("{}: expected an id, found {}", self.name, o.show()),
            )),
            None => Err(self.missing(i)),
        }
    }

    /// The integer literal operand at `i`.
    pub fn int(&self, i: usize) -> Result<i128, Located> {
        match self.operands.get(i) {
            Some(Operand {
                tok: Tok::Int(n), ..
            }) => Ok(*n),
            Some(o) => Err((
                self.line,
                o.col,
                format!(
                    "{}: expected an integer literal, found {}",
                    self.name,
                    o.show()
                ),
            )),
            None => Err(self.missing(i)),
        }
    }

    /// The word operand at `i`.
    pub fn word(&self, i: usize) -> Result<&str, Located> {
        match self.operands.get(i) {
            Some(Operand {
                tok: Tok::Word(s), ..
            }) => Ok(s),
            Some(o) => Err((
                self.line,
                o.col,
                format!("{}: expected a word, found {}", self.name, o.show()),
            )),
            None => Err(self.missing(i)),
        }
    }

    /// The result id.
    pub fn result_id(&self) -> Result<&str, Located> {
        self.result
            .as_ref()
            .map(|(s, _)| s.as_str())
            .ok_or_else(|| {
                (
                    self.line,
                    self.col,
                    format!("{} has no result id", self.name),
                )
            })
    }

    fn missing(&self, i: usize) -> Located {
        (
            self.line,
            self.col,
            format!("{}: missing operand {}", self.name, i + 1),
        )
    }

    /// An error at the operand `i` (or the opcode when there is none).
    pub fn err_at(&self, i: usize, message: String) -> Located {
        let col = self.operands.get(i).map_or(self.col, |o| o.col);
        (self.line, col, message)
    }

    /// An error at the opcode.
    pub fn err(&self, message: String) -> Located {
        (self.line, self.col, message)
    }
}

/// The grammar of each opcode, by name (`OpLoad`).
fn table() -> &'static HashMap<String, &'static Grammar<'static>> {
    static TABLE: OnceLock<HashMap<String, &'static Grammar<'static>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        INSTRUCTION_TABLE
            .iter()
            .map(|g| (format!("Op{}", g.opname), g))
            .collect()
    })
}

/// Lexes one line into tokens with their 1-based columns (the comment
/// dropped). `=` comes back as a word `=`.
fn lex_line(line_no: usize, line: &str) -> Result<Vec<(Tok, usize)>, Located> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == ';' {
            break;
        }
        if c == '=' {
            out.push((Tok::Word("=".into()), col));
            i += 1;
            continue;
        }
        if c == '"' {
            let mut s = String::new();
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => {
                        return Err((
                            line_no,
                            col,
                            "unterminated string: expected a closing `\"`".into(),
                        ));
                    }
                    Some('"') => break,
                    Some('\\') => {
                        if let Some(&e) = chars.get(j + 1) {
                            s.push(e);
                        }
                        j += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        j += 1;
                    }
                }
            }
            out.push((Tok::Str(s), col));
            i = j + 1;
            continue;
        }
        let mut j = i;
        while j < chars.len()
            && !chars[j].is_whitespace()
            && chars[j] != ';'
            && chars[j] != '='
            && chars[j] != '"'
        {
            j += 1;
        }
        let word: String = chars[i..j].iter().collect();
        i = j;
        if let Some(name) = word.strip_prefix('%') {
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return Err((
                    line_no,
                    col,
                    format!("bad id `{word}`: expected `%` and letters, digits, `_` or `.`"),
                ));
            }
            out.push((Tok::Id(name.to_string()), col));
        } else if matches!(word.as_str(), "1D" | "2D" | "3D") {
            // The Dim enumerants spirv-as spells with a leading digit
            // (`OpTypeImage %uint 2D ...`), not numbers.
            out.push((Tok::Word(word), col));
        } else if word.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
            out.push((
                number(&word).ok_or_else(|| (line_no, col, format!("bad number `{word}`")))?,
                col,
            ));
        } else if word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|' || c == '.')
        {
            out.push((Tok::Word(word), col));
        } else {
            return Err((
                line_no,
                col,
                format!(
                    "unexpected `{word}`: expected an id `%name`, a number, a string or a word"
                ),
            ));
        }
    }
    Ok(out)
}

/// An integer (decimal or hexadecimal) or a float literal.
fn number(word: &str) -> Option<Tok> {
    let (neg, digits) = match word.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, word.strip_prefix('+').unwrap_or(word)),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from_str_radix(hex, 16).ok()
    } else {
        digits.parse::<i128>().ok()
    };
    if let Some(v) = value {
        return Some(Tok::Int(if neg { -v } else { v }));
    }
    let float_like = digits
        .chars()
        .all(|c| c.is_ascii_hexdigit() || matches!(c, '.' | 'x' | 'X' | 'p' | 'P' | '+' | '-'));
    float_like.then(|| Tok::Float(word.to_string()))
}

/// Whether a token can stand for an operand of `kind`.
fn fits(kind: OperandKind, tok: &Tok) -> bool {
    use OperandKind as K;
    match kind {
        K::IdResultType | K::IdResult | K::IdMemorySemantics | K::IdScope | K::IdRef => {
            matches!(tok, Tok::Id(_))
        }
        K::LiteralInteger | K::LiteralSpecConstantOpInteger => {
            matches!(tok, Tok::Int(_) | Tok::Word(_))
        }
        K::LiteralExtInstInteger => matches!(tok, Tok::Int(_) | Tok::Word(_)),
        K::LiteralContextDependentNumber | K::LiteralFloat => {
            matches!(tok, Tok::Int(_) | Tok::Float(_))
        }
        K::LiteralString => matches!(tok, Tok::Str(_)),
        K::PairLiteralIntegerIdRef | K::PairIdRefLiteralInteger | K::PairIdRefIdRef => true,
        _ => matches!(tok, Tok::Word(_) | Tok::Int(_)),
    }
}

/// Enumerants of these kinds may carry parameters (`ArrayStride 4`,
/// `Aligned 4`, `LocalSize 1 1 1`): the tokens after such a word that no
/// later operand of the grammar claims are its parameters.
fn takes_parameters(kind: OperandKind) -> bool {
    use OperandKind as K;
    matches!(
        kind,
        K::Decoration
            | K::ExecutionMode
            | K::MemoryAccess
            | K::LoopControl
            | K::ImageOperands
            | K::TensorOperands
    )
}

/// What an operand kind is called in messages.
fn describe(kind: OperandKind) -> String {
    use OperandKind as K;
    match kind {
        K::IdResultType => "a result type id".into(),
        K::IdRef => "an id".into(),
        K::IdScope => "a scope id".into(),
        K::IdMemorySemantics => "a memory semantics id".into(),
        K::LiteralString => "a string".into(),
        K::LiteralInteger | K::LiteralExtInstInteger | K::LiteralSpecConstantOpInteger => {
            "an integer literal".into()
        }
        K::LiteralContextDependentNumber | K::LiteralFloat => "a number".into(),
        K::PairLiteralIntegerIdRef => "a literal and an id".into(),
        K::PairIdRefLiteralInteger => "an id and a literal".into(),
        K::PairIdRefIdRef => "two ids".into(),
        other => format!("a {other:?} word"),
    }
}

/// Checks the operands of `name` against its grammar.
fn check_operands(
    line: usize,
    name: &str,
    op_col: usize,
    g: &Grammar<'static>,
    ops: &[(Tok, usize)],
) -> Result<(), Located> {
    let kinds: Vec<_> = g
        .operands
        .iter()
        .filter(|o| o.kind != OperandKind::IdResult)
        .collect();
    let mut i = 0;
    for (k, lo) in kinds.iter().enumerate() {
        let pair = matches!(
            lo.kind,
            OperandKind::PairLiteralIntegerIdRef
                | OperandKind::PairIdRefLiteralInteger
                | OperandKind::PairIdRefIdRef
        );
        let take_one = |i: &mut usize| -> Result<bool, Located> {
            let Some((tok, col)) = ops.get(*i) else {
                return Ok(false);
            };
            if pair {
                let (first, second) = match lo.kind {
                    OperandKind::PairLiteralIntegerIdRef => {
                        (OperandKind::LiteralInteger, OperandKind::IdRef)
                    }
                    OperandKind::PairIdRefLiteralInteger => {
                        (OperandKind::IdRef, OperandKind::LiteralInteger)
                    }
                    _ => (OperandKind::IdRef, OperandKind::IdRef),
                };
                if !fits(first, tok) {
                    return Err((
                        line,
                        *col,
                        format!(
                            "{name}: expected {}, found {}",
                            describe(lo.kind),
                            show(tok)
                        ),
                    ));
                }
                match ops.get(*i + 1) {
                    Some((t2, _)) if fits(second, t2) => {}
                    Some((t2, c2)) => {
                        return Err((
                            line,
                            *c2,
                            format!(
                                "{name}: expected {} to complete the pair, found {}",
                                describe(second),
                                show(t2)
                            ),
                        ));
                    }
                    None => {
                        return Err((
                            line,
                            *col,
                            format!(
                                "{name}: an operand pair is missing its second half ({})",
                                describe(second)
                            ),
                        ));
                    }
                }
                *i += 2;
                return Ok(true);
            }
            if !fits(lo.kind, tok) {
                return Ok(false);
            }
            *i += 1;
            // The operands after OpSpecConstantOp's opcode are that
            // opcode's (`Module::spec_op` reads them).
            if (takes_parameters(lo.kind) || lo.kind == OperandKind::LiteralSpecConstantOpInteger)
                && k + 1 == kinds.len()
            {
                *i = ops.len();
            }
            Ok(true)
        };
        match lo.quantifier {
            OperandQuantifier::One => {
                let start = i;
                if !take_one(&mut i)? {
                    let (message, col) = match ops.get(start) {
                        Some((tok, col)) => (
                            format!(
                                "{name}: expected {} as operand {}, found {}",
                                describe(lo.kind),
                                start + 1,
                                show(tok)
                            ),
                            *col,
                        ),
                        None => (
                            format!(
                                "{name}: too few operands: expected {} as operand {} ({} operands at least)",
                                describe(lo.kind),
                                start + 1,
                                kinds
                                    .iter()
                                    .filter(|o| o.quantifier == OperandQuantifier::One)
                                    .count()
                            ),
                            op_col,
                        ),
                    };
                    return Err((line, col, message));
                }
            }
            OperandQuantifier::ZeroOrOne => {
                take_one(&mut i)?;
            }
            OperandQuantifier::ZeroOrMore => while i < ops.len() && take_one(&mut i)? {},
        }
    }
    if let Some((tok, col)) = ops.get(i) {
        return Err((
            line,
            *col,
            format!(
                "{name}: too many operands: unexpected {} (operand {})",
                show(tok),
                i + 1
            ),
        ));
    }
    Ok(())
}

fn show(tok: &Tok) -> String {
    Operand {
        tok: tok.clone(),
        col: 0,
    }
    .show()
}

/// Parses the instructions of a module.
pub(super) fn parse(text: &str) -> Result<Vec<Inst>, Located> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        if n % 4096 == 4095
            && let Some(why) = crate::frontend::clock::bound_reached()
        {
            return Err((line, 1, why.into()));
        }
        let toks = lex_line(line, raw)?;
        if toks.is_empty() {
            continue;
        }
        let (result, rest) = match toks.as_slice() {
            [(Tok::Id(id), c), (Tok::Word(eq), _), rest @ ..] if eq == "=" => {
                (Some((id.clone(), *c)), rest)
            }
            [(Tok::Id(_), c), ..] => {
                return Err((line, *c, "expected `=` after the result id".into()));
            }
            _ => (None, toks.as_slice()),
        };
        let Some((Tok::Word(name), op_col)) = rest.first() else {
            let col = rest.first().map_or(raw.len() + 1, |t| t.1);
            return Err((line, col, "expected an opcode such as `OpLoad`".into()));
        };
        let Some(&g) = table().get(name.as_str()) else {
            let hint =
                crate::frontend::suggest::did_you_mean(name, table().keys().map(String::as_str));
            return Err((line, *op_col, format!("unknown opcode `{name}`{hint}")));
        };
        let has_result = g.operands.iter().any(|o| o.kind == OperandKind::IdResult);
        match (&result, has_result) {
            (None, true) => {
                return Err((
                    line,
                    *op_col,
                    format!("{name} produces a result: expected `%id = {name} ...`"),
                ));
            }
            (Some((_, c)), false) => return Err((line, *c, format!("{name} has no result id"))),
            _ => {}
        }
        let ops = &rest[1..];
        check_operands(line, name, *op_col, g, ops)?;
        let code = raw.split(';').next().unwrap_or("").trim().to_string();
        // A full buffer of instructions moves into one twice as large, the
        // old instructions copied at once (tens of mebibytes for a module
        // of hundreds of thousands): the bound must leave room for them.
        if out.len() == out.capacity()
            && let Some(why) =
                crate::frontend::clock::room_to_grow(out.capacity() * std::mem::size_of::<Inst>())
        {
            return Err((line, 1, why.into()));
        }
        out.push(Inst {
            line,
            col: *op_col,
            name: name.clone(),
            op: g.opcode,
            result,
            operands: ops
                .iter()
                .map(|(tok, col)| Operand {
                    tok: tok.clone(),
                    col: *col,
                })
                .collect(),
            text: code.into(),
        });
    }
    Ok(out)
}
