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

/// The most combinations of term values [`CondExpr::eval_over`] evaluates
/// one by one (beyond it, sub-expression by sub-expression).
const EXACT_COMBINATIONS: usize = 4096;

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

    /// The expression's value for every choice of each term's value among
    /// `values(term)` (`None`: any value): `Some(b)` when it is `b` for
    /// every choice, `None` when it may differ or a term's values are not
    /// known. Exact when the combinations are few; otherwise the parts are
    /// judged apart, a term met in two parts chosen independently, which
    /// can only turn a known value into `None` (a sound over-approximation).
    pub fn eval_over(&self, values: &dyn Fn(&Term) -> Option<Vec<i64>>) -> Option<bool> {
        // Exact when the combinations of the distinct terms' values are
        // few: evaluated for each (a term met twice takes one value).
        let mut terms = Vec::new();
        self.terms(&mut terms);
        let mut distinct: Vec<&Term> = Vec::new();
        for t in terms {
            if !distinct.contains(&t) {
                distinct.push(t);
            }
        }
        let sets: Option<Vec<Vec<i64>>> = distinct.iter().map(|t| values(t)).collect();
        if let Some(sets) = sets {
            let few = sets.iter().try_fold(1usize, |n, s| {
                n.checked_mul(s.len()).filter(|&n| n <= EXACT_COMBINATIONS)
            });
            if few.is_some_and(|n| n > 0) {
                let mut at = vec![0usize; sets.len()];
                let mut result: Option<bool> = None;
                loop {
                    let value = |t: &Term| {
                        let i = distinct.iter().position(|d| *d == t).unwrap_or(0);
                        sets.get(i).map_or(0, |s| s[at[i]])
                    };
                    let v = self.eval(&value);
                    if result.is_some_and(|r| r != v) {
                        return None;
                    }
                    result = Some(v);
                    // The next combination (an odometer over the sets).
                    let mut k = 0;
                    loop {
                        if k == at.len() {
                            return result;
                        }
                        at[k] += 1;
                        if at[k] < sets[k].len() {
                            break;
                        }
                        at[k] = 0;
                        k += 1;
                    }
                }
            }
        }
        let compare = |a: &Term, b: &Term, f: &dyn Fn(i64, i64) -> bool| -> Option<bool> {
            let (xs, ys) = (values(a)?, values(b)?);
            let (mut yes, mut no) = (false, false);
            for &x in &xs {
                for &y in &ys {
                    if f(x, y) {
                        yes = true;
                    } else {
                        no = true;
                    }
                    if yes && no {
                        return None;
                    }
                }
            }
            // No value at all: nothing is known.
            (yes || no).then_some(yes)
        };
        match self {
            CondExpr::True => Some(true),
            CondExpr::False => Some(false),
            CondExpr::Eq(a, b) => compare(a, b, &|x, y| x == y),
            CondExpr::Ne(a, b) => compare(a, b, &|x, y| x != y),
            CondExpr::Cmp(o, a, b) => compare(a, b, &|x, y| o.holds(x, y)),
            CondExpr::Not(e) => e.eval_over(values).map(|v| !v),
            CondExpr::And(a, b) => match (a.eval_over(values), b.eval_over(values)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            CondExpr::Or(a, b) => match (a.eval_over(values), b.eval_over(values)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
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
