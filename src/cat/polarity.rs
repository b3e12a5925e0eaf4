//! Polarity (monotonicity) analysis of checks, for sound pruning.
//!
//! The engine assigns the dynamic base names (e.g. `rf`, `RFINIT`)
//! incrementally. A check `acyclic e`, `irreflexive e` or `empty e` that
//! fails while those *growing* names are bound to subsets of their final
//! values fails for every completion when `e` is monotone (non-decreasing) in
//! each of them: a cycle, a reflexive pair or an element of `e` stays in any
//! superset. (Monotone in each name separately implies monotone when they
//! grow together.) The analysis runs once per growing name `g`, over the
//! resolved program, all other dynamic names being fixed.
//!
//! Every expression gets a [`Polarity`] with respect to `g`: `Const` (does
//! not depend on `g`), `Mono` (non-decreasing), `Anti` (non-increasing) or
//! `Unknown`. Combining two operands is a join: `Const ⊔ x = x`,
//! `Mono ⊔ Mono = Mono`, `Anti ⊔ Anti = Anti`, `Mono ⊔ Anti = Unknown`,
//! `Unknown ⊔ x = Unknown`. The rules:
//!
//! - the base name `g`: `Mono`; every other base name (static, or dynamic
//!   but not growing), the constants `0`, `{}`, `_`, `id`: `Const`;
//! - `a | b`, `a & b`, `a ; b`, `A * B` (cartesian product): the join of the
//!   operands' polarities;
//! - `[S]`, `r^-1`, `r+`, `r*`, `r?`, `domain(r)`, `range(r)`: the operand's;
//! - `~a`: flipped (`Mono` and `Anti` swap, `Const` and `Unknown` stay);
//! - `a \ b`: polarity(a) joined with the *flipped* polarity(b);
//! - a name bound by `let` (top level or `let ... in`, or a captured local):
//!   the polarity of its expression. A top-level binding that `prepare`
//!   evaluated statically is `Const` (it depends on no dynamic name);
//! - `let rec x1 = e1 and ... xn = en` (least fixpoint, iterated from the
//!   empty value): `Const` if every `ei` is `Const` when the `xj` are
//!   `Const` (every iterate, hence the limit, is then independent of `g`);
//!   otherwise `Mono` if every `ei` is `Const` or `Mono` when the `xj` are
//!   treated as `Mono` — then each `ei` is jointly monotone in the `xj` and
//!   `g`, so the iteration reaches the least fixpoint, and least fixpoints of
//!   monotone functions are monotone; otherwise `Unknown`;
//! - a function application `f(a1, ..., an)` where `f` evaluates to a known
//!   function (a `let f(x) = ...` binding, a `fun`, possibly passed as an
//!   argument or captured): the polarity of its body, analysed with each
//!   parameter bound to the abstract value of its argument and each captured
//!   local to the abstract value it had when the closure was created;
//! - `Unknown` whenever the analysis cannot tell: applying something that is
//!   not a known function, an arity mismatch, a recursive call (a function
//!   called again while its own body is being analysed), nesting deeper than
//!   [`MAX_EVAL_DEPTH`], a `let rec` value that is a function, or any
//!   operator applied to a function (a run-time type error anyway).
//!
//! A check can be decided early iff it is not a `flag`, not negated, and its
//! expression is `Const` or `Mono` for every growing name. `Unknown` is
//! always a sound answer: it only disables pruning.

use super::ast::{BinOp, UnOp};
use super::compile::MAX_EVAL_DEPTH;
use super::compile::{Code, IExpr, IStmtKind, Lambda, Program};
use super::value::{Cell, FuncImpl, Value};
use std::rc::Rc;
use std::sync::Arc;

#[cfg(test)]
pub(super) mod tests;

/// How an expression varies when one growing name grows (see the module
/// documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Polarity {
    /// Does not depend on the name.
    Const,
    /// Non-decreasing in the name.
    Mono,
    /// Non-increasing in the name.
    Anti,
    /// Anything (the sound default).
    Unknown,
}

impl Polarity {
    /// The polarity of a monotone combination of two operands.
    pub(crate) fn join(self, other: Polarity) -> Polarity {
        match (self, other) {
            (Polarity::Const, x) | (x, Polarity::Const) => x,
            (a, b) if a == b => a,
            _ => Polarity::Unknown,
        }
    }

    /// The polarity of the complement.
    pub(crate) fn flip(self) -> Polarity {
        match self {
            Polarity::Mono => Polarity::Anti,
            Polarity::Anti => Polarity::Mono,
            other => other,
        }
    }

    /// `Const` or `Mono`: non-decreasing.
    pub(crate) fn is_monotone(self) -> bool {
        matches!(self, Polarity::Const | Polarity::Mono)
    }
}

/// An abstract value: data (a set or relation) with its polarity, or a known
/// function.
#[derive(Clone)]
enum Abs {
    Data(Polarity),
    Func(Rc<AbsFunc>),
}

const UNKNOWN: Abs = Abs::Data(Polarity::Unknown);
const CONST: Abs = Abs::Data(Polarity::Const);

enum AbsFunc {
    /// `domain` or `range`: both preserve their argument's polarity.
    Builtin,
    Closure {
        lambda: Arc<Lambda>,
        /// Abstract values of the captured locals, in `lambda.captures` order.
        captured: Vec<Abs>,
    },
}

impl Abs {
    /// The polarity of a value used as data (a function there is a type
    /// error: `Unknown`).
    fn pol(&self) -> Polarity {
        match self {
            Abs::Data(p) => *p,
            Abs::Func(_) => Polarity::Unknown,
        }
    }

    /// The abstract value of a value computed statically: data is `Const`.
    fn of_value(v: &Value) -> Abs {
        match v {
            Value::Set(_) | Value::Rel(_) => CONST,
            Value::Func(f) => Abs::Func(Rc::new(match &*f.0 {
                FuncImpl::Builtin(_) => AbsFunc::Builtin,
                FuncImpl::Closure { lambda, captured } => AbsFunc::Closure {
                    lambda: Arc::clone(lambda),
                    captured: captured
                        .iter()
                        .map(|c| c.value().map_or(UNKNOWN, Abs::of_value))
                        .collect(),
                },
            })),
        }
    }
}

/// What the analysis needs to know about the staging of a prepared model.
pub(crate) struct Staging<'a> {
    pub prog: &'a Program,
    /// For each slot: its value if `prepare` computed it statically.
    pub static_slots: Vec<Option<&'a Cell>>,
    /// For each statement: whether it is re-run per candidate execution.
    pub dynamic_stmts: Vec<bool>,
}

/// What the analysis reads of a static value: whether it is set, data (all
/// data is `Const`) or a function, and which (a closure by its compiled
/// body, which one parse of the model shares, and its captured values).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum StaticShape {
    Unset,
    Data,
    Builtin,
    Closure(usize, Vec<StaticShape>),
}

impl StaticShape {
    fn of(cell: Option<&Cell>) -> StaticShape {
        match cell.and_then(Cell::value) {
            None => StaticShape::Unset,
            Some(Value::Set(_) | Value::Rel(_)) => StaticShape::Data,
            Some(Value::Func(f)) => match &*f.0 {
                FuncImpl::Builtin(_) => StaticShape::Builtin,
                FuncImpl::Closure { lambda, captured } => StaticShape::Closure(
                    Arc::as_ptr(lambda) as usize,
                    captured.iter().map(|c| StaticShape::of(Some(c))).collect(),
                ),
            },
        }
    }
}

/// Everything [`check_polarities`] reads besides the program: the names
/// that grow, which statements are dynamic and the shapes of the static
/// values. Two stagings with the same key get the same polarities.
pub(crate) type CacheKey = (Vec<String>, Vec<bool>, Vec<StaticShape>);

/// The polarity analyses already run on one model
/// ([`Prepared::monotone_checks`](super::interp::Prepared::monotone_checks)),
/// keyed by the names that grow and the shape of the statically computed
/// values the analysis reads: every test that binds the same kinds of
/// static values gets the same answer, so a search over many tests
/// (suites, synthesis) runs the analysis once per model.
pub(crate) type Cache = std::sync::Mutex<std::collections::HashMap<CacheKey, Vec<bool>>>;

impl Staging<'_> {
    /// The key of the analyses of `growing` on this staging.
    pub(crate) fn key(&self, growing: &[&str]) -> CacheKey {
        (
            growing.iter().map(|g| g.to_string()).collect(),
            self.dynamic_stmts.clone(),
            self.static_slots
                .iter()
                .map(|c| StaticShape::of(*c))
                .collect(),
        )
    }
}

/// The polarity of every check's expression (in [`Program::checks`] order)
/// with respect to the base name `growing`.
pub(crate) fn check_polarities(stage: &Staging<'_>, growing: &str) -> Vec<Polarity> {
    let prog = stage.prog;
    let mut out = vec![Polarity::Unknown; prog.checks.len()];
    let Some(&g) = prog.base_index.get(growing) else {
        // The model never reads the name: nothing depends on it.
        return vec![Polarity::Const; prog.checks.len()];
    };
    let mut a = Analyzer {
        growing: g,
        slots: vec![None; prog.slot_names.len()],
        active: Vec::new(),
    };
    for (i, st) in prog.stmts.iter().enumerate() {
        let dynamic = stage.dynamic_stmts.get(i).copied().unwrap_or(true);
        match &st.kind {
            IStmtKind::Check(idx, code) => {
                let p = if dynamic {
                    let mut frame = vec![None; code.frame];
                    a.eval(&code.expr, &mut frame, 0).pol()
                } else {
                    Polarity::Const
                };
                if let Some(o) = out.get_mut(*idx) {
                    *o = p;
                }
            }
            _ if !dynamic => {
                for s in defined(&st.kind) {
                    let v = stage
                        .static_slots
                        .get(s)
                        .copied()
                        .flatten()
                        .and_then(Cell::value)
                        .map_or(UNKNOWN, Abs::of_value);
                    a.set(s, v);
                }
            }
            IStmtKind::Let(binds) => {
                let vals: Vec<Abs> = binds.iter().map(|(_, c)| a.run(c)).collect();
                for ((s, _), v) in binds.iter().zip(vals) {
                    a.set(*s, v);
                }
            }
            IStmtKind::LetRec { funcs, vals } => {
                for (s, c) in funcs {
                    let v = a.run(c);
                    a.set(*s, v);
                }
                let p = a.fixpoint(vals);
                for (s, _) in vals {
                    a.set(*s, Abs::Data(p));
                }
            }
        }
    }
    out
}

/// The slots a statement defines.
fn defined(kind: &IStmtKind) -> Vec<usize> {
    match kind {
        IStmtKind::Let(b) => b.iter().map(|x| x.0).collect(),
        IStmtKind::LetRec { funcs, vals } => funcs.iter().chain(vals).map(|x| x.0).collect(),
        IStmtKind::Check(..) => Vec::new(),
    }
}

type Frame = Vec<Option<Abs>>;

struct Analyzer {
    /// Index of the growing base name.
    growing: usize,
    /// Abstract value of each top-level slot defined so far.
    slots: Vec<Option<Abs>>,
    /// Functions whose bodies are being analysed (recursion guard).
    active: Vec<*const Lambda>,
}

impl Analyzer {
    fn set(&mut self, s: usize, v: Abs) {
        if let Some(slot) = self.slots.get_mut(s) {
            *slot = Some(v);
        }
    }

    fn run(&mut self, code: &Code) -> Abs {
        let mut frame = vec![None; code.frame];
        self.eval(&code.expr, &mut frame, 0)
    }

    /// The polarity of the values of a `let rec` group (see the module
    /// documentation).
    fn fixpoint(&mut self, vals: &[(usize, Code)]) -> Polarity {
        for (assumed, accept) in [
            (Polarity::Const, Polarity::Const),
            (Polarity::Mono, Polarity::Mono),
        ] {
            for (s, _) in vals {
                self.set(*s, Abs::Data(assumed));
            }
            let ok = vals.iter().all(|(_, c)| match self.run(c) {
                Abs::Data(p) => p.join(accept) == accept,
                Abs::Func(_) => false,
            });
            if ok {
                return accept;
            }
        }
        Polarity::Unknown
    }

    fn eval(&mut self, e: &IExpr, fr: &mut Frame, depth: usize) -> Abs {
        if depth > MAX_EVAL_DEPTH {
            return UNKNOWN;
        }
        match e {
            IExpr::Slot(s, _) => self.slots.get(*s).cloned().flatten().unwrap_or(UNKNOWN),
            IExpr::Base(b, _) => Abs::Data(if *b == self.growing {
                Polarity::Mono
            } else {
                Polarity::Const
            }),
            IExpr::Local(i, _) => fr.get(*i).cloned().flatten().unwrap_or(UNKNOWN),
            IExpr::Const(_) => CONST,
            IExpr::Builtin(_) => Abs::Func(Rc::new(AbsFunc::Builtin)),
            IExpr::Un(op, x, _) => {
                let p = self.eval(x, fr, depth + 1).pol();
                Abs::Data(match op {
                    UnOp::Compl => p.flip(),
                    UnOp::Plus | UnOp::Star | UnOp::Opt | UnOp::Inv => p,
                })
            }
            IExpr::Bin(op, first, rest) => {
                let mut p = self.eval(first, fr, depth + 1).pol();
                for (_, x) in rest {
                    let q = self.eval(x, fr, depth + 1).pol();
                    p = p.join(match op {
                        BinOp::Diff => q.flip(),
                        BinOp::Union | BinOp::Inter | BinOp::Seq | BinOp::Cart => q,
                    });
                }
                Abs::Data(p)
            }
            IExpr::Bracket(x, _) => Abs::Data(self.eval(x, fr, depth + 1).pol()),
            IExpr::App(f, args, _) => {
                let argv: Vec<Abs> = args.iter().map(|a| self.eval(a, fr, depth + 1)).collect();
                let fv = self.eval(f, fr, depth + 1);
                match fv {
                    Abs::Func(func) => self.call(&func, argv, depth + 1),
                    Abs::Data(_) => UNKNOWN,
                }
            }
            IExpr::Lambda(l) => {
                let captured = l
                    .captures
                    .iter()
                    .map(|&(outer, _)| fr.get(outer).cloned().flatten().unwrap_or(UNKNOWN))
                    .collect();
                Abs::Func(Rc::new(AbsFunc::Closure {
                    lambda: Arc::clone(l),
                    captured,
                }))
            }
            IExpr::LetIn(binds, body) => {
                let vals: Vec<(usize, Abs)> = binds
                    .iter()
                    .map(|(i, x)| (*i, self.eval(x, fr, depth + 1)))
                    .collect();
                for (i, v) in vals {
                    if let Some(slot) = fr.get_mut(i) {
                        *slot = Some(v);
                    }
                }
                self.eval(body, fr, depth + 1)
            }
        }
    }

    fn call(&mut self, func: &AbsFunc, args: Vec<Abs>, depth: usize) -> Abs {
        match func {
            AbsFunc::Builtin => match args.as_slice() {
                [a] => Abs::Data(a.pol()),
                _ => UNKNOWN,
            },
            AbsFunc::Closure { lambda, captured } => {
                let key = Arc::as_ptr(lambda);
                if args.len() != lambda.params.len()
                    || depth > MAX_EVAL_DEPTH
                    || self.active.contains(&key)
                {
                    return UNKNOWN;
                }
                let mut fr: Frame = vec![None; lambda.frame];
                for (p, a) in lambda.params.iter().zip(args) {
                    if let Some(slot) = p.and_then(|i| fr.get_mut(i)) {
                        *slot = Some(a);
                    }
                }
                for (&(_, inner), c) in lambda.captures.iter().zip(captured) {
                    if let Some(slot) = fr.get_mut(inner) {
                        *slot = Some(c.clone());
                    }
                }
                self.active.push(key);
                let v = self.eval(&lambda.body, &mut fr, depth + 1);
                self.active.pop();
                v
            }
        }
    }
}
