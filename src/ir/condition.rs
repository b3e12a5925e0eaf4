//! Herd-style final conditions: `exists`, `~exists`, `forall` over the final
//! values of registers and locations, and `filter`.

use std::fmt;

/// How a final condition quantifies over executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Quantifier {
    /// Some consistent execution satisfies the expression.
    Exists,
    /// No consistent execution satisfies it (`~exists`).
    NotExists,
    /// Every consistent execution satisfies it.
    Forall,
}

impl fmt::Display for Quantifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        })
    }
}

/// A value in a condition.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Term {
    /// Final value of register `reg` of thread `thread` (index into `Program::threads`).
    Reg {
        thread: usize,
        reg: String,
    },
    /// Final value of a location (index into `Program::locations`).
    Loc(usize),
    Const(i64),
    /// Bytes of a sized variable read as one integer (`x` of a variable
    /// accessed in parts, `x[a..b]`; docs/format-vulkan-litmus.md, "Memory
    /// locations as bytes"): `name` as the condition writes it, `parts` in
    /// increasing address order, assembled little-endian, the last part
    /// read signed ([`Term::bytes_value`]).
    Bytes {
        name: String,
        parts: Vec<BytePart>,
    },
}

/// `len` bytes at byte `off` of the final value of location `loc` (a chunk
/// of a sized variable, src/ir/bytes.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BytePart {
    pub loc: usize,
    pub off: u32,
    pub len: u32,
}

impl Term {
    /// The value of the bytes `parts` given the final value of each
    /// location: each part cut from its location's value, then assembled
    /// little-endian (two's complement, the top part signed).
    pub fn bytes_value(parts: &[BytePart], location: &dyn Fn(usize) -> i64) -> i64 {
        let mut at = 0;
        let pieces: Vec<(u32, u32, i64)> = parts
            .iter()
            .map(|p| {
                let piece = (
                    at,
                    p.len,
                    super::bytes::piece_of(location(p.loc), p.off, p.len),
                );
                at += p.len;
                piece
            })
            .collect();
        super::bytes::assemble(&pieces)
    }

    /// The locations whose final values the term reads.
    pub fn locations(&self) -> Vec<usize> {
        match self {
            Term::Loc(l) => vec![*l],
            Term::Bytes { parts, .. } => parts.iter().map(|p| p.loc).collect(),
            Term::Reg { .. } | Term::Const(_) => Vec::new(),
        }
    }
}

/// A boolean expression over final values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CondExpr {
    True,
    False,
    Eq(Term, Term),
    Ne(Term, Term),
    /// `a < b`, `a <= b`, `a > b`, `a >= b` (the parser gives `Eq` and
    /// `Ne` their own variants), on signed values, as Dat3M's litmus
    /// assertions have them (`LitmusAssertions.g4`, `assertionCompare`).
    Cmp(super::Cmp, Term, Term),
    Not(Box<CondExpr>),
    And(Box<CondExpr>, Box<CondExpr>),
    Or(Box<CondExpr>, Box<CondExpr>),
}

impl CondExpr {
    /// Evaluates the expression given the value of each term.
    pub fn eval(&self, value: &dyn Fn(&Term) -> i64) -> bool {
        match self {
            CondExpr::True => true,
            CondExpr::False => false,
            CondExpr::Eq(a, b) => value(a) == value(b),
            CondExpr::Ne(a, b) => value(a) != value(b),
            CondExpr::Cmp(o, a, b) => o.holds(value(a), value(b)),
            CondExpr::Not(e) => !e.eval(value),
            CondExpr::And(a, b) => a.eval(value) && b.eval(value),
            CondExpr::Or(a, b) => a.eval(value) || b.eval(value),
        }
    }

    /// Every term the expression mentions.
    pub fn terms<'a>(&'a self, out: &mut Vec<&'a Term>) {
        match self {
            CondExpr::True | CondExpr::False => {}
            CondExpr::Eq(a, b) | CondExpr::Ne(a, b) | CondExpr::Cmp(_, a, b) => {
                out.push(a);
                out.push(b);
            }
            CondExpr::Not(e) => e.terms(out),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                a.terms(out);
                b.terms(out);
            }
        }
    }
}

/// The final condition of a litmus test.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Condition {
    /// `None` when the test only has a `filter` (race-checking tests).
    pub quantifier: Option<Quantifier>,
    pub expr: CondExpr,
    /// Only executions satisfying the filter are considered.
    pub filter: Option<CondExpr>,
    /// The condition as written, for reports.
    pub text: String,
}
