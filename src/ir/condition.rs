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
}

/// A boolean expression over final values.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CondExpr {
    True,
    False,
    Eq(Term, Term),
    Ne(Term, Term),
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
            CondExpr::Not(e) => !e.eval(value),
            CondExpr::And(a, b) => a.eval(value) && b.eval(value),
            CondExpr::Or(a, b) => a.eval(value) || b.eval(value),
        }
    }

    /// Every term the expression mentions.
    pub fn terms<'a>(&'a self, out: &mut Vec<&'a Term>) {
        match self {
            CondExpr::True | CondExpr::False => {}
            CondExpr::Eq(a, b) | CondExpr::Ne(a, b) => {
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
