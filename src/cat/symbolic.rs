//! A model compiled into the relation algebra of formulas
//! ([`crate::relation::symbolic`]): the base names are matrices of literals
//! (constants where the execution space fixes them, variables where a
//! search chooses), and every binding and check of the model becomes
//! formulas over them, so that one SAT question covers every execution of
//! a bound at once (`vkmm diff`'s search).
//!
//! It walks the model's resolved form ([`Program`], the interpreter's own
//! input: one parser, one name resolution) with the interpreter's rules:
//! the same operators, the same polymorphic empty values (`0`, `{}`), the
//! same type errors. `let rec` is iterated from the empty relations until
//! an iteration builds the same formulas again (a fixpoint of the formulas
//! is one of their values under every assignment), at most the
//! interpreter's bound of rounds; one that does not settle there is
//! reported as unsupported, and the caller falls back to the enumeration.
//! Functions are closures over symbolic values, applied by evaluating
//! their body: cat has no recursion through functions, so that ends.

use super::ast::{BinOp, CheckKind, UnOp};
use super::compile::{Builtin, Const, IExpr, IStmtKind, Lambda, MAX_EVAL_DEPTH, Program};
use super::error::{CatError, CatErrorKind, Pos};
use crate::relation::symbolic::{Circuit, Lit, SymRel, SymSet};
use std::sync::Arc;

/// A symbolic value.
#[derive(Clone, Debug)]
pub enum SymValue {
    Set(SymSet),
    Rel(SymRel),
    Func(SymFunc),
    /// `0`, `{}` or a `let rec` variable at bottom: the empty set or
    /// relation as needed (`true`: a set by default).
    Empty(bool),
}

/// A function value: a closure over symbolic values, or a builtin.
#[derive(Clone, Debug)]
pub enum SymFunc {
    Closure(Arc<Lambda>, Vec<Option<SymValue>>),
    Builtin(Builtin),
}

impl SymValue {
    fn describe(&self) -> &'static str {
        match self {
            SymValue::Set(_) | SymValue::Empty(true) => "a set",
            SymValue::Rel(_) | SymValue::Empty(false) => "a relation",
            SymValue::Func(_) => "a function",
        }
    }

    /// The relation, if this is one (the empty value reads as the empty
    /// relation over `n` events).
    pub fn as_rel(&self, n: usize) -> Option<SymRel> {
        match self {
            SymValue::Rel(r) => Some(r.clone()),
            SymValue::Empty(_) => Some(SymRel::empty(n)),
            _ => None,
        }
    }
}

/// One check of the model, as a formula: `passed` holds exactly in the
/// executions where the interpreter says the check passes.
#[derive(Clone, Debug)]
pub struct SymCheck {
    pub name: String,
    pub flag: bool,
    pub passed: Lit,
}

/// The model over one universe of events.
#[derive(Clone, Debug)]
pub struct SymEvaluation {
    pub checks: Vec<SymCheck>,
    /// The value of each top-level name after the last statement.
    finals: Vec<(String, SymValue)>,
}

impl SymEvaluation {
    /// Every non-flag check passes.
    pub fn consistent(&self, c: &mut Circuit) -> Lit {
        c.and_all(self.checks.iter().filter(|k| !k.flag).map(|k| k.passed))
    }

    /// Every top-level name of the model with its value.
    pub fn finals(&self) -> impl Iterator<Item = (&str, &SymValue)> {
        self.finals.iter().map(|(n, v)| (n.as_str(), v))
    }

    /// The value of a top-level name of the model.
    pub fn lookup(&self, name: &str) -> Option<&SymValue> {
        self.finals.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// Compiles `prog` over the events of `universe` (a set of `n` slots whose
/// membership may itself be a formula: the events an execution of a bound
/// has; `_`, `id` and the complements are taken within it): `base(name)`
/// gives each free name of the model its symbolic value (`None`: unknown
/// identifier), within the universe too.
pub(crate) fn compile(
    prog: &Program,
    c: &mut Circuit,
    universe: &SymSet,
    base: &dyn Fn(&str) -> Option<SymValue>,
) -> Result<SymEvaluation, CatError> {
    let n = universe.universe();
    let id = SymRel::identity_on(universe);
    let full = SymRel::product(c, universe, universe);
    let mut bases = Vec::with_capacity(prog.base_names.len());
    for name in &prog.base_names {
        bases.push(base(name));
    }
    let mut m = Machine {
        prog,
        universe: universe.clone(),
        id,
        full,
        c,
        slots: vec![None; prog.slot_names.len()],
        bases,
    };
    let mut checks: Vec<SymCheck> = prog
        .checks
        .iter()
        .map(|k| SymCheck {
            name: k.name.clone(),
            flag: k.flag,
            passed: Lit::TRUE,
        })
        .collect();
    for st in &prog.stmts {
        match &st.kind {
            IStmtKind::Let(binds) => {
                let mut vals = Vec::new();
                for (s, code) in binds {
                    let mut fr = vec![None; code.frame];
                    vals.push((*s, m.eval(&code.expr, &mut fr, 0)?));
                }
                for (s, v) in vals {
                    m.slots[s] = Some(v);
                }
            }
            IStmtKind::LetRec { funcs, vals } => {
                for (s, code) in funcs {
                    let mut fr = vec![None; code.frame];
                    let v = m.eval(&code.expr, &mut fr, 0)?;
                    m.slots[*s] = Some(v);
                }
                for (s, _) in vals {
                    m.slots[*s] = Some(SymValue::Empty(false));
                }
                let cap = vals
                    .len()
                    .saturating_mul(n.saturating_mul(n).saturating_add(n))
                    .saturating_add(2);
                let mut settled = false;
                for _ in 0..cap {
                    let mut new = Vec::new();
                    for (_, code) in vals {
                        let mut fr = vec![None; code.frame];
                        new.push(m.eval(&code.expr, &mut fr, 0)?);
                    }
                    let same = vals
                        .iter()
                        .zip(&new)
                        .all(|((s, _), v)| m.slots[*s].as_ref().is_some_and(|o| same(o, v, n)));
                    for ((s, _), v) in vals.iter().zip(new) {
                        m.slots[*s] = Some(v);
                    }
                    if same {
                        settled = true;
                        break;
                    }
                }
                if !settled {
                    return Err(CatError::unsupported(
                        &st.pos,
                        "`let rec` whose formulas do not settle (symbolic search)",
                    ));
                }
            }
            IStmtKind::Check(idx, code) => {
                let mut fr = vec![None; code.frame];
                let v = m.eval(&code.expr, &mut fr, 0)?;
                let meta = &prog.checks[*idx];
                let ok = m.test(meta.kind, v, &st.pos)?;
                checks[*idx].passed = if meta.negated { !ok } else { ok };
            }
        }
    }
    let mut finals: Vec<(String, SymValue)> = Vec::new();
    for (name, &s) in &prog.final_slots {
        if let Some(v) = &m.slots[s] {
            finals.push((name.clone(), v.clone()));
        }
    }
    Ok(SymEvaluation { checks, finals })
}

/// The same formulas (literal by literal; functions never compare equal).
fn same(a: &SymValue, b: &SymValue, n: usize) -> bool {
    match (a, b) {
        (SymValue::Set(x), SymValue::Set(y)) => x == y,
        (SymValue::Rel(x), SymValue::Rel(y)) => x == y,
        (SymValue::Empty(_), SymValue::Empty(_)) => true,
        (SymValue::Empty(_), SymValue::Rel(r)) | (SymValue::Rel(r), SymValue::Empty(_)) => {
            *r == SymRel::empty(n)
        }
        (SymValue::Empty(_), SymValue::Set(s)) | (SymValue::Set(s), SymValue::Empty(_)) => {
            *s == SymSet::empty(n)
        }
        _ => false,
    }
}

struct Machine<'a> {
    prog: &'a Program,
    /// `_`, `id` and every pair of events of the universe.
    universe: SymSet,
    id: SymRel,
    full: SymRel,
    c: &'a mut Circuit,
    slots: Vec<Option<SymValue>>,
    bases: Vec<Option<SymValue>>,
}

type Frame = Vec<Option<SymValue>>;

impl Machine<'_> {
    fn eval(&mut self, e: &IExpr, fr: &mut Frame, depth: usize) -> Result<SymValue, CatError> {
        if depth > MAX_EVAL_DEPTH {
            return Err(CatError::eval(
                &Pos::new(&Arc::from("model"), 0, 0),
                "expression nested too deeply",
            ));
        }
        match e {
            IExpr::Slot(s, pos) => self.slots[*s].clone().ok_or_else(|| {
                CatError::eval(
                    pos,
                    format!("`{}` read before it is computed", self.prog.slot_names[*s]),
                )
            }),
            IExpr::Base(b, pos) => self.bases[*b].clone().ok_or_else(|| {
                CatError::at(
                    CatErrorKind::Unbound,
                    pos,
                    format!("unknown identifier `{}`", self.prog.base_names[*b]),
                )
            }),
            IExpr::Local(i, pos) => fr
                .get(*i)
                .cloned()
                .flatten()
                .ok_or_else(|| CatError::eval(pos, "internal error: unset local")),
            IExpr::Const(k) => Ok(match k {
                Const::Zero => SymValue::Empty(false),
                Const::EmptySet => SymValue::Empty(true),
                Const::Universe => SymValue::Set(self.universe.clone()),
                Const::Id => SymValue::Rel(self.id.clone()),
            }),
            IExpr::Builtin(b) => Ok(SymValue::Func(SymFunc::Builtin(*b))),
            IExpr::Un(op, x, pos) => {
                let v = self.eval(x, fr, depth + 1)?;
                self.unop(*op, v, pos)
            }
            IExpr::Bin(op, first, rest) => {
                let mut acc = self.eval(first, fr, depth + 1)?;
                for (pos, x) in rest {
                    let rhs = self.eval(x, fr, depth + 1)?;
                    acc = self.binop(*op, acc, rhs, pos)?;
                }
                Ok(acc)
            }
            IExpr::Bracket(x, pos) => match self.eval(x, fr, depth + 1)? {
                SymValue::Set(s) => Ok(SymValue::Rel(SymRel::identity_on(&s))),
                SymValue::Empty(_) => Ok(SymValue::Empty(false)),
                other => Err(CatError::type_error(
                    pos,
                    format!("`[...]` needs a set, found {}", other.describe()),
                )),
            },
            IExpr::App(f, args, pos) => {
                let mut argv = Vec::with_capacity(args.len());
                for a in args {
                    argv.push(self.eval(a, fr, depth + 1)?);
                }
                let fv = self.eval(f, fr, depth + 1)?;
                let SymValue::Func(func) = fv else {
                    return Err(CatError::type_error(
                        pos,
                        format!("cannot call {}: not a function", fv.describe()),
                    ));
                };
                self.call(&func, argv, pos, depth)
            }
            IExpr::Lambda(l) => {
                let mut captured = Vec::with_capacity(l.captures.len());
                for &(outer, _) in &l.captures {
                    captured.push(fr.get(outer).cloned().flatten());
                }
                Ok(SymValue::Func(SymFunc::Closure(Arc::clone(l), captured)))
            }
            IExpr::LetIn(binds, body) => {
                let mut vals = Vec::with_capacity(binds.len());
                for (i, x) in binds {
                    vals.push((*i, self.eval(x, fr, depth + 1)?));
                }
                for (i, v) in vals {
                    if let Some(slot) = fr.get_mut(i) {
                        *slot = Some(v);
                    }
                }
                self.eval(body, fr, depth + 1)
            }
        }
    }

    fn call(
        &mut self,
        func: &SymFunc,
        args: Vec<SymValue>,
        pos: &Pos,
        depth: usize,
    ) -> Result<SymValue, CatError> {
        match func {
            SymFunc::Builtin(b) => {
                let mut args = args.into_iter();
                let (Some(arg), None) = (args.next(), args.next()) else {
                    return Err(CatError::type_error(
                        pos,
                        format!("`{}` expects 1 argument", b.name()),
                    ));
                };
                match arg {
                    SymValue::Rel(r) => Ok(SymValue::Set(match b {
                        Builtin::Domain => r.domain(self.c),
                        Builtin::Range => r.range(self.c),
                    })),
                    SymValue::Empty(_) => Ok(SymValue::Empty(true)),
                    other => Err(CatError::type_error(
                        pos,
                        format!(
                            "`{}` needs a relation, found {}",
                            b.name(),
                            other.describe()
                        ),
                    )),
                }
            }
            SymFunc::Closure(lambda, captured) => {
                if args.len() != lambda.params.len() {
                    return Err(CatError::type_error(
                        pos,
                        format!(
                            "`{}` expects {} argument(s), got {}",
                            lambda.name,
                            lambda.params.len(),
                            args.len()
                        ),
                    ));
                }
                if depth >= MAX_EVAL_DEPTH {
                    return Err(CatError::eval(
                        pos,
                        format!("calls of `{}` nested too deeply", lambda.name),
                    ));
                }
                let mut fr: Frame = vec![None; lambda.frame];
                for (p, a) in lambda.params.iter().zip(args) {
                    if let Some(slot) = p.and_then(|i| fr.get_mut(i)) {
                        *slot = Some(a);
                    }
                }
                for (&(_, inner), v) in lambda.captures.iter().zip(captured) {
                    if let Some(slot) = fr.get_mut(inner) {
                        *slot = v.clone();
                    }
                }
                self.eval(&lambda.body, &mut fr, depth + 1)
            }
        }
    }

    fn unop(&mut self, op: UnOp, v: SymValue, pos: &Pos) -> Result<SymValue, CatError> {
        Ok(match (op, v) {
            (UnOp::Compl, SymValue::Set(s)) => SymValue::Set(self.universe.diff(self.c, &s)),
            (UnOp::Compl, SymValue::Rel(r)) => SymValue::Rel(self.full.diff(self.c, &r)),
            (UnOp::Compl, SymValue::Empty(true)) => SymValue::Set(self.universe.clone()),
            (UnOp::Compl, SymValue::Empty(false)) => SymValue::Rel(self.full.clone()),
            (UnOp::Plus, SymValue::Rel(r)) => SymValue::Rel(r.closure(self.c)),
            (UnOp::Star, SymValue::Rel(r)) => {
                let plus = r.closure(self.c);
                SymValue::Rel(plus.union(self.c, &self.id))
            }
            (UnOp::Opt, SymValue::Rel(r)) => SymValue::Rel(r.union(self.c, &self.id)),
            (UnOp::Inv, SymValue::Rel(r)) => SymValue::Rel(r.inverse()),
            (UnOp::Plus | UnOp::Inv, SymValue::Empty(_)) => SymValue::Empty(false),
            (UnOp::Star | UnOp::Opt, SymValue::Empty(_)) => SymValue::Rel(self.id.clone()),
            (op, other) => {
                return Err(CatError::type_error(
                    pos,
                    format!("`{}` cannot apply to {}", op.symbol(), other.describe()),
                ));
            }
        })
    }

    fn binop(
        &mut self,
        op: BinOp,
        a: SymValue,
        b: SymValue,
        pos: &Pos,
    ) -> Result<SymValue, CatError> {
        let c = &mut *self.c;
        let mismatch = |a: &SymValue, b: &SymValue| {
            CatError::type_error(
                pos,
                format!(
                    "`{}` cannot combine {} and {}",
                    op.symbol(),
                    a.describe(),
                    b.describe()
                ),
            )
        };
        match op {
            BinOp::Union | BinOp::Inter | BinOp::Diff => Ok(match (a, b) {
                (SymValue::Set(x), SymValue::Set(y)) => SymValue::Set(match op {
                    BinOp::Union => x.union(c, &y),
                    BinOp::Inter => x.inter(c, &y),
                    _ => x.diff(c, &y),
                }),
                (SymValue::Rel(x), SymValue::Rel(y)) => SymValue::Rel(match op {
                    BinOp::Union => x.union(c, &y),
                    BinOp::Inter => x.inter(c, &y),
                    _ => x.diff(c, &y),
                }),
                (SymValue::Empty(k), SymValue::Empty(_)) => SymValue::Empty(k),
                (SymValue::Empty(_), x @ (SymValue::Set(_) | SymValue::Rel(_))) => match op {
                    BinOp::Union => x,
                    _ => SymValue::Empty(matches!(x, SymValue::Set(_))),
                },
                (x @ (SymValue::Set(_) | SymValue::Rel(_)), SymValue::Empty(_)) => match op {
                    BinOp::Inter => SymValue::Empty(matches!(x, SymValue::Set(_))),
                    _ => x,
                },
                (a, b) => return Err(mismatch(&a, &b)),
            }),
            BinOp::Seq => {
                let x = need_rel(a, "left", pos)?;
                let y = need_rel(b, "right", pos)?;
                Ok(match (x, y) {
                    (Some(x), Some(y)) => SymValue::Rel(x.compose(c, &y)),
                    _ => SymValue::Empty(false),
                })
            }
            BinOp::Cart => {
                let x = need_set(a, "left", pos)?;
                let y = need_set(b, "right", pos)?;
                Ok(match (x, y) {
                    (Some(x), Some(y)) => SymValue::Rel(SymRel::product(c, &x, &y)),
                    _ => SymValue::Empty(false),
                })
            }
        }
    }

    fn test(&mut self, kind: CheckKind, v: SymValue, pos: &Pos) -> Result<Lit, CatError> {
        let c = &mut *self.c;
        Ok(match (kind, v) {
            (_, SymValue::Empty(_)) => Lit::TRUE,
            (CheckKind::Acyclic, SymValue::Rel(r)) => r.is_acyclic(c),
            (CheckKind::Irreflexive, SymValue::Rel(r)) => r.is_irreflexive(c),
            (CheckKind::Empty, SymValue::Rel(r)) => r.is_empty(c),
            (CheckKind::Empty, SymValue::Set(s)) => s.is_empty(c),
            (kind, other) => {
                return Err(CatError::type_error(
                    pos,
                    format!("`{}` cannot check {}", kind.keyword(), other.describe()),
                ));
            }
        })
    }
}

fn need_rel(v: SymValue, side: &str, pos: &Pos) -> Result<Option<SymRel>, CatError> {
    match v {
        SymValue::Rel(r) => Ok(Some(r)),
        SymValue::Empty(_) => Ok(None),
        other => Err(CatError::type_error(
            pos,
            format!(
                "`;` needs relations, found {} on the {side}",
                other.describe()
            ),
        )),
    }
}

fn need_set(v: SymValue, side: &str, pos: &Pos) -> Result<Option<SymSet>, CatError> {
    match v {
        SymValue::Set(s) => Ok(Some(s)),
        SymValue::Empty(_) => Ok(None),
        other => Err(CatError::type_error(
            pos,
            format!(
                "`*` (cartesian product) needs sets, found {} on the {side}",
                other.describe()
            ),
        )),
    }
}
