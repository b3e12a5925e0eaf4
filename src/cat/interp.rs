//! The evaluator: expression evaluation over [`EventSet`]/[`Relation`]
//! values, `let rec` fixpoints, checks, and the two-stage execution
//! ([`Prepared`] once per test for everything static, [`Evaluation`] once per
//! candidate execution for the statements that read dynamic names).
//!
//! **Incremental evaluation** ([`Prepared::evaluate_from`],
//! [`Prepared::evaluate_only_from`], [`Prepared::evaluate_lazily_from`]):
//! the *change propagation with early cutoff* of incremental build systems
//! (Shake, Salsa, Adapton; "Build systems à la carte"), applied to one
//! candidate execution's statements given the previous one's. The
//! statements are the build rules, the dynamic base names (`rf`, `co`...)
//! the sources, each `let` slot (every binding has its own, compile.rs) a
//! target; the dependencies are exact and static (`bases_read` and
//! `slots_read`, which [`Prepared::plan_for`] already relies on). A base
//! whose value differs from the previous evaluation's is changed; a
//! statement the previous evaluation ran none of whose inputs changed
//! takes its bindings and check result from it; a statement that runs
//! marks a binding changed only when the new value differs from the old
//! one (sets and relations by content, functions by identity, so a rebuilt
//! closure is conservatively changed): that comparison is the early cutoff
//! that stops an `rf` edge of a non-atomic read at `rf & mutord`. The
//! evaluation records which statements ran (a lazy one stops early, a
//! planned one runs its plan) and the base values it read, so that a
//! statement the previous evaluation did not run is run. No crate offers
//! this for cat: the incremental-computation crates (salsa, adapton)
//! memoise queries keyed by interned inputs in a global database, while
//! here the graph is the model's compiled statement list, values are
//! bit-matrix relations compared in place, and the only state is the
//! previous evaluation, owned by the walk that made it (no database shared
//! between threads); the cat implementations (herd7, Dat3M) re-evaluate
//! the model per candidate.

use super::ast::{BinOp, CheckKind, UnOp};
use super::compile::{Builtin, Code, Const, IExpr, IStmt, IStmtKind, Lambda, Program};
use super::error::{CatError, CatErrorKind, Pos};
use super::polarity::{Staging, check_polarities};
use super::specialise::{Fold, Specialiser};
use super::value::{Cell, Env, Func, FuncImpl, Value};
use crate::relation::{EventSet, Relation};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Results of calls to one closure with given arguments, within one
/// statement's evaluation (cat functions are pure, so a call with the same
/// closure and equal arguments has the same value).
/// Entries keep their closure alive, so its address cannot be reused by
/// another closure while the memo lives.
type Memo<'a> = RefCell<Vec<(Func, Vec<V<'a>>, V<'a>)>>;

/// Equal arguments for memoisation (functions compare by identity).
fn same_value(a: &V<'_>, b: &V<'_>) -> bool {
    match (a, b) {
        (V::Set(x), V::Set(y)) => x.as_ref() == y.as_ref(),
        (V::Rel(x), V::Rel(y)) => x.as_ref() == y.as_ref(),
        (V::Diag(x), V::Diag(y)) => x.as_ref() == y.as_ref(),
        (V::Empty(x), V::Empty(y)) => x == y,
        (V::Func(x), V::Func(y)) => Arc::ptr_eq(&x.0, &y.0),
        _ => false,
    }
}

use super::compile::MAX_EVAL_DEPTH;

/// The outcome of one check on one candidate execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckResult {
    /// The name after `as`, or `<kind>-<index>` (1-based over all checks).
    pub name: String,
    pub kind: CheckKind,
    /// Written `~acyclic` etc.
    pub negated: bool,
    /// A `flag` check: never makes an execution inconsistent.
    pub flag: bool,
    /// Whether the condition held, after applying the negation. For a flag
    /// this means the flag is raised.
    pub passed: bool,
    /// Line of the check in its file.
    pub line: usize,
    /// File of the check (the model or an included file).
    pub file: String,
}

/// Whether a polymorphic empty value defaults to a set or a relation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Set,
    Rel,
}

/// A value during evaluation: borrowed from the environment where possible.
#[derive(Clone)]
enum V<'a> {
    Set(Cow<'a, EventSet>),
    Rel(Cow<'a, Relation>),
    /// `[S]`: the identity on a set, kept as the set until an operation
    /// needs the matrix (`[S] ; r` and `r ; [S]` only mask rows or columns).
    Diag(Cow<'a, EventSet>),
    Func(Func),
    /// `0`, `{}` or a `let rec` variable at bottom: empty, of either type.
    Empty(Kind),
}

impl V<'_> {
    fn describe(&self) -> &'static str {
        match self {
            V::Set(_) => "a set",
            V::Rel(_) | V::Diag(_) => "a relation",
            V::Func(_) => "a function",
            V::Empty(_) => "an empty set or relation",
        }
    }
}

fn cell_eq(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Val(x), Cell::Val(y)) => x == y,
        (Cell::Poly(_), Cell::Poly(_)) => true,
        _ => false,
    }
}

/// A value read from a stored cell, borrowing it.
fn cell_v(c: &Cell) -> Option<V<'_>> {
    Some(match c {
        Cell::Unset => return None,
        Cell::Val(Value::Set(s)) => V::Set(Cow::Borrowed(s)),
        Cell::Val(Value::Rel(r)) => V::Rel(Cow::Borrowed(r)),
        Cell::Val(Value::Func(f)) => V::Func(f.clone()),
        Cell::Poly(Value::Set(_)) => V::Empty(Kind::Set),
        Cell::Poly(_) => V::Empty(Kind::Rel),
    })
}

/// A value read from a cell that does not outlive the call (captures).
fn cell_owned<'a>(c: &Cell) -> Option<V<'a>> {
    cell_v(c).map(|v| match v {
        V::Set(s) => V::Set(Cow::Owned(s.into_owned())),
        V::Rel(r) => V::Rel(Cow::Owned(r.into_owned())),
        V::Diag(d) => V::Diag(Cow::Owned(d.into_owned())),
        V::Func(f) => V::Func(f),
        V::Empty(k) => V::Empty(k),
    })
}

/// The bounds of the request an evaluation runs in: past the deadline, or
/// with the process holding more memory than `max_memory`, an evaluation
/// stops with a [`CatErrorKind::TimeLimit`] or [`CatErrorKind::MemoryBound`]
/// error (the caller's answer is undecided, never a verdict). A single
/// execution's evaluation can otherwise run long: a `let rec` of many
/// rounds, or many operators over thousands of events. They are read on
/// the thread that evaluates, between statements, `let rec` rounds,
/// operators and function calls ([`EvalBounds::enter`]); outside them
/// nothing stops an evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EvalBounds {
    /// The instant the request must stop by.
    pub deadline: Option<web_time::Instant>,
    /// The most bytes the process may hold ([`crate::memory::over`]).
    pub max_memory: Option<usize>,
}

thread_local! {
    static BOUNDS: std::cell::Cell<Option<EvalBounds>> = const { std::cell::Cell::new(None) };
    /// Steps since the bounds were last read ([`STEPS_PER_READING`]).
    static STEPS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// How many operators and calls pass between two readings of the clock
/// and the memory count (each operator works on whole sets or relations:
/// a reading costs little beside them, and this keeps it smaller still).
const STEPS_PER_READING: u32 = 16;

/// Restores the bounds that held before [`EvalBounds::enter`] when dropped.
pub struct BoundsGuard {
    outer: Option<EvalBounds>,
}

impl Drop for BoundsGuard {
    fn drop(&mut self) {
        BOUNDS.with(|b| b.set(self.outer));
    }
}

impl EvalBounds {
    /// Sets these bounds for the evaluations run on this thread until the
    /// guard is dropped.
    pub fn enter(self) -> BoundsGuard {
        let outer = BOUNDS.with(|b| b.replace(Some(self)));
        BoundsGuard { outer }
    }
}

/// Whether the bounds set on this thread are passed, read now: the error
/// to stop with, at `pos`.
#[cold]
fn bounds_passed(pos: &Pos) -> Option<CatError> {
    let b = BOUNDS.with(std::cell::Cell::get)?;
    if b.deadline.is_some_and(|d| web_time::Instant::now() >= d) {
        return Some(CatError::at(
            CatErrorKind::TimeLimit,
            pos,
            "stopped at the time limit (--timeout) while the model was evaluated",
        ));
    }
    if crate::memory::over(b.max_memory) {
        return Some(CatError::at(
            CatErrorKind::MemoryBound,
            pos,
            "stopped at the memory bound (--max-memory) while the model was evaluated",
        ));
    }
    None
}

/// [`bounds_passed`] every [`STEPS_PER_READING`] calls (an operator, a
/// call); `every_time`: read now (a statement, a `let rec` round).
#[inline]
fn within_bounds(pos: &Pos, every_time: bool) -> Result<(), CatError> {
    let read = every_time
        || STEPS.with(|s| {
            let n = s.get().wrapping_add(1);
            s.set(n);
            n.is_multiple_of(STEPS_PER_READING)
        });
    match read.then(|| bounds_passed(pos)).flatten() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs one relation operation with the bounds set on this thread read
/// every [`crate::relation::ROWS_PER_POLL`] rows of a relation over more
/// than 64 events ([`bounds_passed`]): one transitive closure or
/// composition over thousands of events can run long between two
/// operators. The error to stop with, at `pos`, once they are passed.
fn polled(
    pos: &Pos,
    op: impl FnOnce(&mut dyn FnMut() -> bool) -> Option<Relation>,
) -> Result<Relation, CatError> {
    let mut passed = None;
    let r = op(&mut || {
        passed = bounds_passed(pos);
        passed.is_some()
    });
    match (r, passed) {
        (Some(r), _) => Ok(r),
        (None, Some(e)) => Err(e),
        (None, None) => unreachable!("an operation is stopped only when the bounds are passed"),
    }
}

type Frame<'a> = Vec<Option<V<'a>>>;

fn new_frame<'a>(n: usize) -> Frame<'a> {
    (0..n).map(|_| None).collect()
}

/// Marks a static slot in `Shared::dyn_pos`.
const NOT_DYN: usize = usize::MAX;

/// Everything an evaluation reads.
struct Machine<'a> {
    prog: &'a Program,
    universe: usize,
    statics: &'a [Cell],
    dynamics: &'a [Cell],
    /// Position of each dynamic slot in `dynamics` (`NOT_DYN` for static ones);
    /// empty during preparation.
    dyn_pos: &'a [usize],
    static_bases: &'a [Option<Value>],
    dyn_bases: &'a [Option<&'a Value>],
    base_is_dyn: &'a [bool],
    full_set: &'a EventSet,
    id_rel: &'a Relation,
    memo: Memo<'a>,
}

#[cold]
fn arity_error(lambda: &Lambda, got: usize, pos: &Pos) -> CatError {
    CatError::type_error(
        pos,
        format!(
            "`{}` expects {} argument(s), got {got}",
            lambda.name,
            lambda.params.len()
        ),
    )
}

#[cold]
fn depth_error(lambda: &Lambda, pos: &Pos) -> CatError {
    CatError::eval(
        pos,
        format!(
            "recursion too deep in call to `{}` (more than {MAX_EVAL_DEPTH} nested evaluations)",
            lambda.name
        ),
    )
}

#[cold]
fn internal(pos: &Pos, what: &str) -> CatError {
    CatError::eval(pos, format!("internal interpreter error: {what}"))
}

impl<'a> Machine<'a> {
    fn run(&self, code: &Code) -> Result<V<'a>, CatError> {
        let mut frame = new_frame(code.frame);
        self.eval(&code.expr, &mut frame, 0)
    }

    fn empty_value(&self, k: Kind) -> Value {
        match k {
            Kind::Set => Value::Set(EventSet::empty(self.universe)),
            Kind::Rel => Value::Rel(Relation::empty(self.universe)),
        }
    }

    /// Turns an evaluation result into a stored cell.
    fn cell(&self, v: V<'_>) -> Cell {
        match v {
            V::Set(s) => Cell::Val(Value::Set(s.into_owned())),
            V::Rel(r) => Cell::Val(Value::Rel(r.into_owned())),
            V::Diag(d) => Cell::Val(Value::Rel(Relation::identity_on(&d))),
            V::Func(f) => Cell::Val(Value::Func(f)),
            V::Empty(k) => Cell::Poly(self.empty_value(k)),
        }
    }

    fn slot(&self, s: usize, pos: &Pos) -> Result<V<'a>, CatError> {
        let cell = match self.dyn_pos.get(s) {
            Some(&p) if p != NOT_DYN => self.dynamics.get(p),
            _ => self.statics.get(s),
        };
        cell.and_then(cell_v).ok_or_else(|| {
            let name = self.prog.slot_names.get(s).map_or("?", String::as_str);
            internal(pos, &format!("`{name}` read before it is computed"))
        })
    }

    fn base(&self, b: usize, pos: &Pos) -> Result<V<'a>, CatError> {
        let dynamic = self.base_is_dyn.get(b).copied().unwrap_or(false);
        let v = if dynamic {
            self.dyn_bases.get(b).copied().flatten()
        } else {
            self.static_bases.get(b).and_then(Option::as_ref)
        };
        let name = self.prog.base_names.get(b).map_or("?", String::as_str);
        let Some(v) = v else {
            let msg = if dynamic {
                format!(
                    "unknown identifier `{name}` (a dynamic name not provided for this execution)"
                )
            } else {
                format!("unknown identifier `{name}`")
            };
            return Err(CatError::at(CatErrorKind::Unbound, pos, msg));
        };
        let size = match v {
            Value::Set(s) => s.universe(),
            Value::Rel(r) => r.universe(),
            Value::Func(_) => self.universe,
        };
        if size != self.universe {
            return Err(CatError::eval(
                pos,
                format!(
                    "`{name}` is over {size} events but the environment has {} events",
                    self.universe
                ),
            ));
        }
        Ok(match v {
            Value::Set(s) => V::Set(Cow::Borrowed(s)),
            Value::Rel(r) => V::Rel(Cow::Borrowed(r)),
            Value::Func(f) => V::Func(f.clone()),
        })
    }

    /// Evaluates `e`. Kept small (each form has its own function) so that
    /// deep recursion uses little stack, even in debug builds.
    fn eval(&self, e: &IExpr, fr: &mut Frame<'a>, depth: usize) -> Result<V<'a>, CatError> {
        match e {
            IExpr::Slot(s, pos) => self.slot(*s, pos),
            IExpr::Base(b, pos) => self.base(*b, pos),
            IExpr::Local(i, pos) => fr
                .get(*i)
                .and_then(Clone::clone)
                .ok_or_else(|| internal(pos, "unset local")),
            IExpr::Const(c) => Ok(self.constant(*c)),
            IExpr::Builtin(b) => Ok(V::Func(Func(Arc::new(FuncImpl::Builtin(*b))))),
            IExpr::Un(op, x, pos) => self.eval_un(*op, x, pos, fr, depth),
            IExpr::Bin(op, first, rest) => self.eval_bin(*op, first, rest, fr, depth),
            IExpr::Bracket(x, pos) => self.eval_bracket(x, pos, fr, depth),
            IExpr::App(f, args, pos) => self.eval_app(f, args, pos, fr, depth),
            IExpr::Lambda(l) => self.closure(l, fr),
            IExpr::LetIn(binds, body) => self.eval_let_in(binds, body, fr, depth),
        }
    }

    fn constant(&self, c: Const) -> V<'a> {
        match c {
            Const::Zero => V::Empty(Kind::Rel),
            Const::EmptySet => V::Empty(Kind::Set),
            Const::Universe => V::Set(Cow::Borrowed(self.full_set)),
            Const::Id => V::Rel(Cow::Borrowed(self.id_rel)),
        }
    }

    #[inline(never)]
    fn eval_un(
        &self,
        op: UnOp,
        x: &IExpr,
        pos: &Pos,
        fr: &mut Frame<'a>,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        let v = self.eval(x, fr, depth + 1)?;
        self.unop(op, v, pos)
    }

    #[inline(never)]
    fn eval_bin(
        &self,
        op: BinOp,
        first: &IExpr,
        rest: &[(Pos, IExpr)],
        fr: &mut Frame<'a>,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        let mut acc = self.eval(first, fr, depth + 1)?;
        for (pos, e) in rest {
            within_bounds(pos, false)?;
            let rhs = self.eval(e, fr, depth + 1)?;
            acc = self.binop(op, acc, rhs, pos)?;
        }
        Ok(acc)
    }

    #[inline(never)]
    fn eval_bracket(
        &self,
        x: &IExpr,
        pos: &Pos,
        fr: &mut Frame<'a>,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        match self.eval(x, fr, depth + 1)? {
            V::Set(s) => Ok(V::Diag(s)),
            V::Empty(_) => Ok(V::Empty(Kind::Rel)),
            other => Err(CatError::type_error(
                pos,
                format!("`[...]` needs a set, found {}", other.describe()),
            )),
        }
    }

    #[inline(never)]
    fn eval_app(
        &self,
        f: &IExpr,
        args: &[IExpr],
        pos: &Pos,
        fr: &mut Frame<'a>,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        let mut argv = Vec::with_capacity(args.len());
        for a in args {
            argv.push(self.eval(a, fr, depth + 1)?);
        }
        if let IExpr::Builtin(b) = f {
            return self.builtin(*b, argv, pos);
        }
        let fv = self.eval(f, fr, depth + 1)?;
        let V::Func(func) = fv else {
            return Err(self.not_a_function(f, &fv, pos));
        };
        self.call(&func, argv, pos, depth)
    }

    #[cold]
    fn not_a_function(&self, f: &IExpr, fv: &V<'_>, pos: &Pos) -> CatError {
        let what = match f {
            IExpr::Slot(s, _) => self.prog.slot_names.get(*s).map(String::as_str),
            IExpr::Base(b, _) => self.prog.base_names.get(*b).map(String::as_str),
            _ => None,
        };
        let msg = match what {
            Some(n) => format!("`{n}` is {}, not a function", fv.describe()),
            None => format!("cannot call {}: not a function", fv.describe()),
        };
        CatError::type_error(pos, msg)
    }

    fn closure(&self, l: &Arc<Lambda>, fr: &Frame<'a>) -> Result<V<'a>, CatError> {
        let mut captured = Vec::with_capacity(l.captures.len());
        for &(outer, _) in &l.captures {
            match fr.get(outer) {
                Some(Some(v)) => captured.push(self.cell(v.clone())),
                _ => return Err(internal(&l.pos, "unset captured local")),
            }
        }
        Ok(V::Func(Func(Arc::new(FuncImpl::Closure {
            lambda: Arc::clone(l),
            captured,
        }))))
    }

    #[inline(never)]
    fn eval_let_in(
        &self,
        binds: &[(usize, IExpr)],
        body: &IExpr,
        fr: &mut Frame<'a>,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        let mut vals = Vec::with_capacity(binds.len());
        for (i, e) in binds {
            vals.push((*i, self.eval(e, fr, depth + 1)?));
        }
        for (i, v) in vals {
            if let Some(slot) = fr.get_mut(i) {
                *slot = Some(v);
            }
        }
        self.eval(body, fr, depth + 1)
    }

    #[inline(never)]
    fn call(
        &self,
        func: &Func,
        args: Vec<V<'a>>,
        pos: &Pos,
        depth: usize,
    ) -> Result<V<'a>, CatError> {
        within_bounds(pos, false)?;
        match &*func.0 {
            FuncImpl::Builtin(b) => self.builtin(*b, args, pos),
            FuncImpl::Closure { lambda, captured } => {
                if args.len() != lambda.params.len() {
                    return Err(arity_error(lambda, args.len(), pos));
                }
                if let Some((_, _, v)) = self.memo.borrow().iter().find(|(k, a, _)| {
                    Arc::ptr_eq(&k.0, &func.0)
                        && a.len() == args.len()
                        && a.iter().zip(&args).all(|(x, y)| same_value(x, y))
                }) {
                    return Ok(v.clone());
                }
                let memo_args = args.clone();
                if depth >= MAX_EVAL_DEPTH {
                    return Err(depth_error(lambda, pos));
                }
                let mut fr = new_frame(lambda.frame);
                for (p, a) in lambda.params.iter().zip(args) {
                    if let Some(slot) = p.and_then(|i| fr.get_mut(i)) {
                        *slot = Some(a);
                    }
                }
                for (&(_, inner), c) in lambda.captures.iter().zip(captured) {
                    if let Some(slot) = fr.get_mut(inner) {
                        *slot = cell_owned(c);
                    }
                }
                let v = self.eval(&lambda.body, &mut fr, depth + 1)?;
                self.memo
                    .borrow_mut()
                    .push((func.clone(), memo_args, v.clone()));
                Ok(v)
            }
        }
    }

    fn builtin(&self, b: Builtin, args: Vec<V<'a>>, pos: &Pos) -> Result<V<'a>, CatError> {
        let mut args = args.into_iter();
        let (Some(arg), None) = (args.next(), args.next()) else {
            return Err(CatError::type_error(
                pos,
                format!("`{}` expects 1 argument", b.name()),
            ));
        };
        match arg {
            V::Rel(r) => Ok(V::Set(Cow::Owned(match b {
                Builtin::Domain => r.domain(),
                Builtin::Range => r.range(),
            }))),
            V::Diag(d) => Ok(V::Set(d)),
            V::Empty(_) => Ok(V::Empty(Kind::Set)),
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

    fn unop(&self, op: UnOp, v: V<'a>, pos: &Pos) -> Result<V<'a>, CatError> {
        let n = self.universe;
        let v = match (op, v) {
            // The identity on a set is its own inverse and transitive closure.
            (UnOp::Plus | UnOp::Inv, d @ V::Diag(_)) => return Ok(d),
            (UnOp::Star | UnOp::Opt, V::Diag(_)) => return Ok(V::Rel(Cow::Borrowed(self.id_rel))),
            (_, v) => materialize(v),
        };
        Ok(match (op, v) {
            (UnOp::Compl, V::Set(s)) => V::Set(Cow::Owned(s.complement())),
            (UnOp::Compl, V::Rel(r)) => V::Rel(Cow::Owned(r.complement())),
            (UnOp::Compl, V::Empty(Kind::Set)) => V::Set(Cow::Borrowed(self.full_set)),
            (UnOp::Compl, V::Empty(Kind::Rel)) => V::Rel(Cow::Owned(Relation::full(n))),
            (UnOp::Plus, V::Rel(r)) => V::Rel(Cow::Owned(polled(pos, |stop| {
                r.transitive_closure_until(stop)
            })?)),
            (UnOp::Star, V::Rel(r)) => V::Rel(Cow::Owned(polled(pos, |stop| {
                r.reflexive_transitive_closure_until(stop)
            })?)),
            (UnOp::Opt, V::Rel(r)) => V::Rel(Cow::Owned(r.reflexive_closure())),
            (UnOp::Inv, V::Rel(r)) => V::Rel(Cow::Owned(r.inverse())),
            (UnOp::Plus | UnOp::Inv, V::Empty(_)) => V::Empty(Kind::Rel),
            (UnOp::Star | UnOp::Opt, V::Empty(_)) => V::Rel(Cow::Borrowed(self.id_rel)),
            (UnOp::Compl, other) => {
                return Err(CatError::type_error(
                    pos,
                    format!("`~` needs a set or a relation, found {}", other.describe()),
                ));
            }
            (op, other) => {
                let hint = if matches!(other, V::Set(_)) {
                    " (lift a set S to a relation with [S])"
                } else {
                    ""
                };
                return Err(CatError::type_error(
                    pos,
                    format!(
                        "`{}` needs a relation, found {}{hint}",
                        op.symbol(),
                        other.describe()
                    ),
                ));
            }
        })
    }

    fn binop(&self, op: BinOp, a: V<'a>, b: V<'a>, pos: &Pos) -> Result<V<'a>, CatError> {
        let sym = op.symbol();
        match op {
            BinOp::Union | BinOp::Inter | BinOp::Diff => {
                let mismatch = |a: &V<'_>, b: &V<'_>| {
                    CatError::type_error(
                        pos,
                        format!(
                            "`{sym}` needs two sets or two relations, found {} and {}",
                            a.describe(),
                            b.describe()
                        ),
                    )
                };
                let (a, b) = match (a, b) {
                    (V::Diag(x), V::Diag(y)) => {
                        return Ok(V::Diag(Cow::Owned(set_op(op, x, y))));
                    }
                    (V::Diag(d), V::Rel(r)) | (V::Rel(r), V::Diag(d)) if op == BinOp::Inter => {
                        return Ok(V::Diag(Cow::Owned(r.reflexive_on(&d))));
                    }
                    (a, b) => (materialize(a), materialize(b)),
                };
                Ok(match (a, b) {
                    (V::Set(x), V::Set(y)) => V::Set(Cow::Owned(set_op(op, x, y))),
                    (V::Rel(x), V::Rel(y)) => V::Rel(Cow::Owned(set_op(op, x, y))),
                    (a @ V::Func(_), b) | (a, b @ V::Func(_)) => return Err(mismatch(&a, &b)),
                    (V::Empty(k), V::Empty(_)) => V::Empty(k),
                    (V::Empty(_), x) => match op {
                        BinOp::Union => x,
                        _ => V::Empty(kind_of(&x)),
                    },
                    (x, V::Empty(_)) => match op {
                        BinOp::Inter => V::Empty(kind_of(&x)),
                        _ => x,
                    },
                    (a, b) => return Err(mismatch(&a, &b)),
                })
            }
            BinOp::Seq => match (a, b) {
                (V::Diag(x), V::Diag(y)) => Ok(V::Diag(Cow::Owned(set_op(BinOp::Inter, x, y)))),
                (V::Diag(d), V::Rel(r)) => Ok(V::Rel(Cow::Owned(match r {
                    Cow::Owned(mut r) => {
                        r.restrict_domain_in_place(&d);
                        r
                    }
                    Cow::Borrowed(r) => r.restrict_domain(&d),
                }))),
                (V::Rel(r), V::Diag(d)) => {
                    let mut r = r.into_owned();
                    r.restrict_range_in_place(&d);
                    Ok(V::Rel(Cow::Owned(r)))
                }
                (a, b) => self.seq(a, b, sym, pos),
            },
            BinOp::Cart => {
                let x = self.need_set(a, "left", pos)?;
                let y = self.need_set(b, "right", pos)?;
                Ok(match (x, y) {
                    (Some(x), Some(y)) => V::Rel(Cow::Owned(Relation::product(&x, &y))),
                    _ => V::Empty(Kind::Rel),
                })
            }
        }
    }

    /// `a ; b` on relations (or the empty value).
    fn seq(&self, a: V<'a>, b: V<'a>, sym: &str, pos: &Pos) -> Result<V<'a>, CatError> {
        {
            {
                let (x, y) = (
                    self.need_rel(a, sym, "left", pos)?,
                    self.need_rel(b, sym, "right", pos)?,
                );
                Ok(match (x, y) {
                    (Some(x), Some(y)) => {
                        V::Rel(Cow::Owned(polled(pos, |stop| x.compose_until(&y, stop))?))
                    }
                    _ => V::Empty(Kind::Rel),
                })
            }
        }
    }

    /// A relation operand (`None` for the polymorphic empty value).
    fn need_rel(
        &self,
        v: V<'a>,
        sym: &str,
        side: &str,
        pos: &Pos,
    ) -> Result<Option<Cow<'a, Relation>>, CatError> {
        match v {
            V::Rel(r) => Ok(Some(r)),
            V::Diag(d) => Ok(Some(Cow::Owned(Relation::identity_on(&d)))),
            V::Empty(_) => Ok(None),
            V::Set(_) => Err(CatError::type_error(
                pos,
                format!(
                    "`{sym}` needs relations, found a set on the {side} \
                     (lift a set S to a relation with [S])"
                ),
            )),
            V::Func(_) => Err(CatError::type_error(
                pos,
                format!("`{sym}` needs relations, found a function on the {side}"),
            )),
        }
    }

    /// A set operand of `*` (`None` for the polymorphic empty value).
    fn need_set(
        &self,
        v: V<'a>,
        side: &str,
        pos: &Pos,
    ) -> Result<Option<Cow<'a, EventSet>>, CatError> {
        match v {
            V::Set(s) => Ok(Some(s)),
            V::Empty(_) => Ok(None),
            other => Err(CatError::type_error(
                pos,
                format!(
                    "`*` (cartesian product) needs sets, found {} on the {side}",
                    other.describe()
                ),
            )),
        }
    }

    fn test(&self, kind: CheckKind, v: V<'a>, pos: &Pos) -> Result<bool, CatError> {
        match (kind, v) {
            (_, V::Empty(_)) => Ok(true),
            // The identity on S is acyclic / irreflexive / empty iff S is empty.
            (_, V::Diag(d)) => Ok(d.is_empty()),
            (CheckKind::Acyclic, V::Rel(r)) => Ok(r.is_acyclic()),
            (CheckKind::Irreflexive, V::Rel(r)) => Ok(r.is_irreflexive()),
            (CheckKind::Empty, V::Rel(r)) => Ok(r.is_empty()),
            (CheckKind::Empty, V::Set(s)) => Ok(s.is_empty()),
            (CheckKind::Empty, other) => Err(CatError::type_error(
                pos,
                format!(
                    "`empty` needs a set or a relation, found {}",
                    other.describe()
                ),
            )),
            (kind, other) => Err(CatError::type_error(
                pos,
                format!(
                    "`{}` needs a relation, found {}",
                    kind.keyword(),
                    other.describe()
                ),
            )),
        }
    }
}

/// `[S]` as a matrix (other values unchanged).
fn materialize(v: V<'_>) -> V<'_> {
    match v {
        V::Diag(d) => V::Rel(Cow::Owned(Relation::identity_on(&d))),
        v => v,
    }
}

/// The in-place operations `set_op` needs, for sets and relations alike.
trait InPlace: Clone {
    fn union_with(&mut self, other: &Self);
    fn inter_with(&mut self, other: &Self);
    fn diff_with(&mut self, other: &Self);
}

impl InPlace for EventSet {
    fn union_with(&mut self, other: &Self) {
        EventSet::union_with(self, other);
    }
    fn inter_with(&mut self, other: &Self) {
        EventSet::inter_with(self, other);
    }
    fn diff_with(&mut self, other: &Self) {
        EventSet::diff_with(self, other);
    }
}

impl InPlace for Relation {
    fn union_with(&mut self, other: &Self) {
        Relation::union_with(self, other);
    }
    fn inter_with(&mut self, other: &Self) {
        Relation::inter_with(self, other);
    }
    fn diff_with(&mut self, other: &Self) {
        Relation::diff_with(self, other);
    }
}

/// `x | y`, `x & y` or `x \ y` on sets or relations, in place when an
/// operand is owned (the owned right operand of `|` or `&`, which
/// commute), else on a copy of `x`.
fn set_op<T: InPlace>(op: BinOp, x: Cow<'_, T>, y: Cow<'_, T>) -> T {
    let (mut acc, other) = match (op, x, y) {
        (BinOp::Union | BinOp::Inter, Cow::Borrowed(x), Cow::Owned(y)) => (y, Cow::Borrowed(x)),
        (_, x, y) => (x.into_owned(), y),
    };
    match op {
        BinOp::Union => acc.union_with(&other),
        BinOp::Inter => acc.inter_with(&other),
        _ => acc.diff_with(&other),
    }
    acc
}

fn kind_of(v: &V<'_>) -> Kind {
    match v {
        V::Set(_) | V::Empty(Kind::Set) => Kind::Set,
        _ => Kind::Rel,
    }
}

/// What statement execution needs besides the store being written.
struct Shared<'a> {
    prog: &'a Program,
    universe: usize,
    /// `None` while preparing (the written store holds the static slots).
    statics: Option<&'a [Cell]>,
    dyn_pos: &'a [usize],
    static_bases: &'a [Option<Value>],
    dyn_bases: &'a [Option<&'a Value>],
    base_is_dyn: &'a [bool],
    full_set: &'a EventSet,
    id_rel: &'a Relation,
}

impl<'a> Shared<'a> {
    fn machine<'b>(&'b self, written: &'b [Cell]) -> Machine<'b>
    where
        'a: 'b,
    {
        let (statics, dynamics, dyn_pos) = match self.statics {
            Some(s) => (s, written, self.dyn_pos),
            None => (written, &[][..], &[][..]),
        };
        Machine {
            prog: self.prog,
            universe: self.universe,
            statics,
            dynamics,
            dyn_pos,
            static_bases: self.static_bases,
            dyn_bases: self.dyn_bases,
            base_is_dyn: self.base_is_dyn,
            full_set: self.full_set,
            id_rel: self.id_rel,
            memo: RefCell::new(Vec::new()),
        }
    }

    /// Index in the written store of slot `s`.
    fn index(&self, s: usize) -> usize {
        match self.statics {
            Some(_) => self.dyn_pos.get(s).copied().unwrap_or(NOT_DYN),
            None => s,
        }
    }

    fn write(&self, store: &mut [Cell], s: usize, c: Cell) {
        if let Some(slot) = store.get_mut(self.index(s)) {
            *slot = c;
        }
    }

    fn read<'s>(&self, store: &'s [Cell], s: usize) -> Option<&'s Cell> {
        store.get(self.index(s))
    }

    fn exec(
        &self,
        st: &IStmt,
        store: &mut [Cell],
        checks: &mut [CheckResult],
    ) -> Result<(), CatError> {
        within_bounds(&st.pos, true)?;
        match &st.kind {
            IStmtKind::Let(binds) => self.bind_all(binds, store),
            IStmtKind::LetRec { funcs, vals } => {
                self.bind_all(funcs, store)?;
                let n = self.universe;
                for (s, _) in vals {
                    self.write(store, *s, Cell::Poly(Value::Rel(Relation::empty(n))));
                }
                // A monotone system grows by at least one pair per round.
                let cap = vals
                    .len()
                    .saturating_mul(n.saturating_mul(n).saturating_add(n))
                    .saturating_add(2);
                for _ in 0..cap {
                    within_bounds(&st.pos, true)?;
                    let new = {
                        let m = self.machine(store);
                        let mut new = Vec::with_capacity(vals.len());
                        for (_, code) in vals {
                            let v = m.run(code)?;
                            new.push(m.cell(v));
                        }
                        new
                    };
                    let changed = vals
                        .iter()
                        .zip(&new)
                        .any(|((s, _), c)| !self.read(store, *s).is_some_and(|o| cell_eq(o, c)));
                    for ((s, _), c) in vals.iter().zip(new) {
                        self.write(store, *s, c);
                    }
                    if !changed {
                        return Ok(());
                    }
                }
                Err(CatError::eval(
                    &st.pos,
                    format!(
                        "`let rec` did not reach a fixpoint after {cap} iterations \
                         (is the definition monotone?)"
                    ),
                ))
            }
            IStmtKind::Check(idx, code) => {
                let m = self.machine(store);
                let Some(meta) = self.prog.checks.get(*idx) else {
                    return Err(internal(&st.pos, "unknown check"));
                };
                let v = m.run(code)?;
                let ok = m.test(meta.kind, v, &st.pos)?;
                if let Some(r) = checks.get_mut(*idx) {
                    r.passed = ok != meta.negated;
                }
                Ok(())
            }
        }
    }

    fn bind_all(&self, binds: &[(usize, Code)], store: &mut [Cell]) -> Result<(), CatError> {
        let mut out = Vec::with_capacity(binds.len());
        {
            let m = self.machine(store);
            for (s, code) in binds {
                let v = m.run(code)?;
                out.push((*s, m.cell(v)));
            }
        }
        for (s, c) in out {
            self.write(store, s, c);
        }
        Ok(())
    }
}

/// Evaluates static expressions for [`super::specialise`] and keeps their
/// values as new static slots (appended after the model's slots).
pub(super) struct Folder<'a> {
    prog: &'a Program,
    universe: usize,
    statics: Vec<Cell>,
    static_bases: &'a [Option<Value>],
    base_is_dyn: &'a [bool],
    full_set: &'a EventSet,
    id_rel: &'a Relation,
    /// The folded slots by the hash of their set or relation: equal values
    /// share one slot, so that equal subexpressions (say the bodies of two
    /// calls whose arguments are different names with equal values) are
    /// recognised as equal and evaluated once.
    interned: HashMap<u64, Vec<usize>>,
}

impl Fold for Folder<'_> {
    /// The value of `e` (which reads no dynamic name and no local) as a
    /// new static slot, or `None` if its evaluation fails.
    fn fold(&mut self, e: &IExpr) -> Option<usize> {
        let cell = {
            let m = Machine {
                prog: self.prog,
                universe: self.universe,
                statics: &self.statics,
                dynamics: &[],
                dyn_pos: &[],
                static_bases: self.static_bases,
                dyn_bases: &[],
                base_is_dyn: self.base_is_dyn,
                full_set: self.full_set,
                id_rel: self.id_rel,
                memo: RefCell::new(Vec::new()),
            };
            let mut frame = Vec::new();
            let v = m.eval(e, &mut frame, 0).ok()?;
            m.cell(v)
        };
        Some(self.push(cell))
    }

    /// Stores a value as a new static slot.
    fn push(&mut self, c: Cell) -> usize {
        let key = match &c {
            Cell::Val(Value::Set(x)) => Some(hash_of(&(0u8, x))),
            Cell::Val(Value::Rel(r)) => Some(hash_of(&(1u8, r))),
            Cell::Poly(Value::Set(x)) => Some(hash_of(&(2u8, x))),
            Cell::Poly(Value::Rel(r)) => Some(hash_of(&(3u8, r))),
            _ => None,
        };
        if let Some(k) = key {
            let same = |i: &usize| match (self.statics.get(*i), &c) {
                (Some(Cell::Val(a)), Cell::Val(b)) | (Some(Cell::Poly(a)), Cell::Poly(b)) => a == b,
                _ => false,
            };
            if let Some(&i) = self
                .interned
                .get(&k)
                .and_then(|v| v.iter().find(|i| same(i)))
            {
                return i;
            }
            self.interned.entry(k).or_default().push(self.statics.len());
        }
        self.statics.push(c);
        self.statics.len() - 1
    }

    /// For a static leaf whose value is empty: `Some(true)` for an empty
    /// set, `Some(false)` for an empty relation (or the polymorphic empty
    /// value); `None` otherwise.
    fn empty_leaf(&self, e: &IExpr) -> Option<bool> {
        let value = match e {
            IExpr::Const(Const::Zero) => return Some(false),
            IExpr::Const(Const::EmptySet) => return Some(true),
            IExpr::Slot(s, _) => match self.statics.get(*s)? {
                Cell::Poly(_) => return Some(false),
                Cell::Val(v) => v,
                Cell::Unset => return None,
            },
            IExpr::Base(b, _) if !self.base_is_dyn.get(*b).copied().unwrap_or(true) => {
                self.static_bases.get(*b)?.as_ref()?
            }
            _ => return None,
        };
        match value {
            Value::Set(x) if x.is_empty() => Some(true),
            Value::Rel(r) if r.is_empty() => Some(false),
            _ => None,
        }
    }

    /// The function a static slot holds.
    fn func(&self, s: usize) -> Option<Func> {
        match self.statics.get(s) {
            Some(Cell::Val(Value::Func(f))) => Some(f.clone()),
            _ => None,
        }
    }
}

/// Fx-hashed: a folded relation over thousands of events is hundreds of
/// kilobytes, hashed once per fold, where SipHash showed in profiles (a
/// hash only picks the candidates `Folder::push` then compares).
fn hash_of<T: std::hash::Hash>(x: &T) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(x)
}

/// Whether a dynamic base has the same value as in the previous evaluation
/// (sets and relations by content, functions by identity).
fn same_base(new: Option<&Value>, old: Option<&Value>) -> bool {
    match (new, old) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Whether a slot recomputed holds the value it held in the previous
/// evaluation: sets and relations by content (a polymorphic empty value
/// only equals one of the same default kind), functions by identity (a
/// closure built again is a new function: conservatively "changed").
fn same_cell(new: &Cell, old: &Cell) -> bool {
    match (new, old) {
        (Cell::Val(a), Cell::Val(b)) | (Cell::Poly(a), Cell::Poly(b)) => a == b,
        _ => false,
    }
}

/// Frees the store positions `drops` lists for the `j`-th statement of a
/// stage (nothing when `drops` is empty).
fn free(store: &mut [Cell], drops: &[Vec<usize>], j: usize) {
    for &k in drops.get(j).into_iter().flatten() {
        if let Some(c) = store.get_mut(k) {
            *c = Cell::Unset;
        }
    }
}

/// The slots a statement defines.
fn defined_slots(st: &IStmt) -> Vec<usize> {
    match &st.kind {
        IStmtKind::Let(b) => b.iter().map(|x| x.0).collect(),
        IStmtKind::LetRec { funcs, vals } => funcs.iter().chain(vals).map(|x| x.0).collect(),
        IStmtKind::Check(..) => Vec::new(),
    }
}

/// Whether the value of `e` may be a function: a set or relation operator,
/// a constant and a base name (the engine binds sets and relations) are
/// not. `slot_func` says it of the slots bound so far.
fn may_be_function(e: &IExpr, slot_func: &[bool]) -> bool {
    match e {
        IExpr::Slot(s, _) => slot_func.get(*s).copied().unwrap_or(true),
        IExpr::Un(..) | IExpr::Bin(..) | IExpr::Const(_) | IExpr::Base(..) => false,
        IExpr::Bracket(x, _) => may_be_function(x, slot_func),
        IExpr::LetIn(_, body) => may_be_function(body, slot_func),
        IExpr::Local(..) | IExpr::Builtin(_) | IExpr::App(..) | IExpr::Lambda(_) => true,
    }
}

/// The slots each statement uses (indexed like `prog.stmts`): those it
/// reads and, for each slot it reads that may hold a function, the slots
/// the statement binding it uses. A closure's body reads top-level slots
/// when it is called, so a slot read in a function's body is in use
/// wherever the function is.
fn slot_uses(prog: &Program) -> Vec<Vec<usize>> {
    let n_slots = prog.slot_names.len();
    let mut definer: Vec<Option<usize>> = vec![None; n_slots];
    let mut slot_func = vec![true; n_slots];
    let mut uses: Vec<Vec<usize>> = Vec::with_capacity(prog.stmts.len());
    for (i, st) in prog.stmts.iter().enumerate() {
        let mut mine: std::collections::BTreeSet<usize> = st.slots_read.iter().copied().collect();
        for &s in &st.slots_read {
            if slot_func.get(s).copied().unwrap_or(true)
                && let Some(d) = definer.get(s).copied().flatten()
                && d != i
                && let Some(theirs) = uses.get(d)
            {
                mine.extend(theirs.iter().copied());
            }
        }
        match &st.kind {
            IStmtKind::Let(binds) => {
                let kinds: Vec<bool> = binds
                    .iter()
                    .map(|(_, c)| may_be_function(&c.expr, &slot_func))
                    .collect();
                for ((s, _), f) in binds.iter().zip(kinds) {
                    if let Some(k) = slot_func.get_mut(*s) {
                        *k = f;
                    }
                }
            }
            IStmtKind::LetRec { funcs, vals } => {
                for (s, _) in funcs {
                    if let Some(k) = slot_func.get_mut(*s) {
                        *k = true;
                    }
                }
                for (s, c) in vals {
                    let f = may_be_function(&c.expr, &slot_func);
                    if let Some(k) = slot_func.get_mut(*s) {
                        *k = f;
                    }
                }
            }
            IStmtKind::Check(..) => {}
        }
        for s in defined_slots(st) {
            if let Some(d) = definer.get_mut(s) {
                *d = Some(i);
            }
        }
        uses.push(mine.into_iter().collect());
    }
    uses
}

struct PreparedInner {
    prog: Arc<Program>,
    /// The model's polarity analyses so far (shared with the model).
    polarities: Arc<super::polarity::Cache>,
    universe: usize,
    /// Position of each dynamic slot in an evaluation's store, `NOT_DYN` for static ones.
    dyn_pos: Vec<usize>,
    n_dyn: usize,
    base_is_dyn: Vec<bool>,
    statics: Vec<Cell>,
    static_bases: Vec<Option<Value>>,
    dyn_stmts: Vec<usize>,
    /// The slots each statement defines (indexed like `prog.stmts`).
    defined: Vec<Vec<usize>>,
    /// The slots each statement uses ([`slot_uses`]).
    uses: Vec<Vec<usize>>,
    /// The staging without the partial evaluation (statements and slots
    /// that read a dynamic name, transitively): the polarity analysis is
    /// a property of the model, not of one test's partial evaluation.
    written_dyn_stmts: Vec<bool>,
    written_dyn_slots: Vec<bool>,
    /// The dynamic statements rewritten by [`super::specialise`] (indexed
    /// like `prog.stmts`; `None`: run the original).
    specialised: Vec<Option<IStmt>>,
    /// All checks, with the results of the static ones.
    checks: Vec<CheckResult>,
    full_set: EventSet,
    id_rel: Relation,
}

/// The stages of a lazy evaluation: see [`Prepared::lazy_stages`].
#[derive(Clone, Debug)]
pub struct LazyStages {
    /// Statements to run, and the non-flag check whose failure ends the
    /// evaluation after them. Empty: a static check fails, nothing runs.
    stages: Vec<(Vec<usize>, Option<usize>)>,
    /// Per stage and statement, the store positions of the dynamic slots
    /// whose last use that statement is (none of the names the question
    /// reads): freed once it has run. See [`LazyStages::dropping`].
    drops: Vec<Vec<Vec<usize>>>,
    /// Whether an evaluation frees the slots of `drops`.
    dropping: bool,
}

/// The dynamic slots a lazy evaluation holds at most, in bytes of
/// relations over the universe, before it frees each slot after its last
/// use ([`LazyStages::dropping`]): below it every slot is kept, so that an
/// incremental evaluation can take any of them from the previous one.
const DROP_FROM_BYTES: usize = 16 << 20;

impl LazyStages {
    /// The same stages, freeing (`true`) or keeping (`false`) each dynamic
    /// slot after its last use. [`Prepared::lazy_stages`] frees them when
    /// the slots of the stages would hold more than 16 MiB of relations
    /// over the universe (a few hundred events and more): a model's
    /// bindings over thousands of events take hundreds of megabytes when
    /// all kept, and the checks, flags and names the question reads are
    /// the same either way. What is lost: an incremental evaluation from
    /// one that freed a slot runs the slot's statement again where the
    /// previous one could have been taken.
    pub fn dropping(mut self, on: bool) -> LazyStages {
        self.dropping = on;
        self
    }

    /// Whether an evaluation with these stages frees slots after their
    /// last use.
    pub fn drops_slots(&self) -> bool {
        self.dropping
    }
}

/// A model with everything static evaluated for one test (stage 1).
///
/// Cheap to clone, `Send + Sync`: evaluate candidate executions in parallel.
#[derive(Clone)]
pub struct Prepared {
    inner: Arc<PreparedInner>,
}

/// Stage 1: see [`Model::prepare`](super::Model::prepare).
pub(crate) fn prepare(
    prog: &Arc<Program>,
    polarities: &Arc<super::polarity::Cache>,
    base: &Env,
    dynamic: &[&str],
    specialise: bool,
) -> Result<Prepared, CatError> {
    let n = base.universe();
    let base_is_dyn: Vec<bool> = prog
        .base_names
        .iter()
        .map(|b| dynamic.contains(&b.as_str()))
        .collect();
    let static_bases: Vec<Option<Value>> = prog
        .base_names
        .iter()
        .zip(&base_is_dyn)
        .map(|(b, &d)| if d { None } else { base.get(b).cloned() })
        .collect();
    let n_slots = prog.slot_names.len();
    let mut is_dyn = vec![false; n_slots];
    let mut written_dyn_slots = vec![false; n_slots];
    let mut written_dyn_stmts = vec![false; prog.stmts.len()];
    let mut checks: Vec<CheckResult> = prog
        .checks
        .iter()
        .map(|m| CheckResult {
            name: m.name.clone(),
            kind: m.kind,
            negated: m.negated,
            flag: m.flag,
            passed: false,
            line: m.line,
            file: m.file.clone(),
        })
        .collect();
    let full_set = EventSet::full(n);
    let id_rel = Relation::identity(n);
    let mut dyn_stmts = Vec::new();
    let mut specialised: Vec<Option<IStmt>> = (0..prog.stmts.len()).map(|_| None).collect();
    let defined = Specialiser::functions(prog);
    let mut folder = Folder {
        prog,
        universe: n,
        statics: vec![Cell::Unset; n_slots],
        static_bases: &static_bases,
        base_is_dyn: &base_is_dyn,
        full_set: &full_set,
        id_rel: &id_rel,
        interned: HashMap::new(),
    };
    for (i, st) in prog.stmts.iter().enumerate() {
        let reads_dyn_base = st.bases_read.iter().any(|&b| base_is_dyn[b]);
        if reads_dyn_base || st.slots_read.iter().any(|&s| written_dyn_slots[s]) {
            written_dyn_stmts[i] = true;
            for s in defined_slots(st) {
                written_dyn_slots[s] = true;
            }
        }
        let dynamic = reads_dyn_base || st.slots_read.iter().any(|&s| is_dyn[s]);
        let mut run = st;
        if dynamic {
            let rewritten = if specialise {
                Specialiser::new(prog, &is_dyn, &base_is_dyn, &defined, &mut folder).statement(st)
            } else {
                None
            };
            match rewritten {
                // Every value of the statement is known from the static
                // names alone: it is static after all.
                Some((sp, true)) => {
                    specialised[i] = Some(sp);
                }
                other => {
                    specialised[i] = other.map(|(sp, _)| sp);
                    for s in defined_slots(st) {
                        is_dyn[s] = true;
                    }
                    dyn_stmts.push(i);
                    continue;
                }
            }
            if let Some(sp) = &specialised[i] {
                run = sp;
            }
        }
        let shared = Shared {
            prog,
            universe: n,
            statics: None,
            dyn_pos: &[],
            static_bases: &static_bases,
            dyn_bases: &[],
            base_is_dyn: &base_is_dyn,
            full_set: &full_set,
            id_rel: &id_rel,
        };
        shared.exec(run, &mut folder.statics, &mut checks)?;
    }
    let statics = folder.statics;
    let mut n_dyn = 0;
    let dyn_pos = is_dyn
        .iter()
        .map(|&d| {
            if d {
                n_dyn += 1;
                n_dyn - 1
            } else {
                NOT_DYN
            }
        })
        .collect();
    Ok(Prepared {
        inner: Arc::new(PreparedInner {
            prog: Arc::clone(prog),
            polarities: Arc::clone(polarities),
            universe: n,
            dyn_pos,
            n_dyn,
            base_is_dyn,
            statics,
            static_bases,
            dyn_stmts,
            defined: prog.stmts.iter().map(defined_slots).collect(),
            uses: slot_uses(prog),
            written_dyn_stmts,
            written_dyn_slots,
            specialised,
            checks,
            full_set,
            id_rel,
        }),
    })
}

impl Prepared {
    /// Stage 2, once per candidate execution: `dynamic` provides the dynamic
    /// base names (e.g. `rf`, `co`). Evaluates only the statements that depend
    /// on them; static check results are reused.
    pub fn evaluate(&self, dynamic: &Env) -> Result<Evaluation, CatError> {
        self.run(dynamic, &self.inner.dyn_stmts, None)
    }

    /// [`Prepared::evaluate`] from a previous evaluation (see
    /// [`Prepared::evaluate_lazily_from`]).
    pub fn evaluate_from(
        &self,
        dynamic: &Env,
        previous: Option<&Evaluation>,
    ) -> Result<Evaluation, CatError> {
        self.run(dynamic, &self.inner.dyn_stmts, Some(previous))
    }

    fn run(
        &self,
        dynamic: &Env,
        stmts: &[usize],
        previous: Option<Option<&Evaluation>>,
    ) -> Result<Evaluation, CatError> {
        self.run_stages(dynamic, std::iter::once((stmts, None, &[][..])), previous)
    }

    /// Runs `stages` in turn, each a list of statements (in model order),
    /// optionally the non-flag check it ends with (when that check fails the
    /// remaining stages are not run), and per statement the store positions
    /// to free once it has run (empty: nothing freed; else one list per
    /// statement, from [`Prepared::drops_after`]).
    ///
    /// `previous`: `None` from scratch, recording nothing for a next
    /// evaluation; `Some(p)`: recording the dynamic base values (so that the
    /// result can be the previous evaluation of a next one) and, when `p` is
    /// an evaluation of the same preparation that recorded them, reusing
    /// what `p` computed (see the module documentation): a statement `p`
    /// ran whose bases and slots read are all unchanged is not run, its
    /// slots and check result are `p`'s (where `p` freed one of the slots,
    /// the statement runs again: its value is `p`'s, from the same
    /// inputs); a statement that runs marks each slot it defines changed
    /// unless the new value equals `p`'s.
    fn run_stages<'s>(
        &self,
        dynamic: &Env,
        stages: impl Iterator<Item = (&'s [usize], Option<usize>, &'s [Vec<usize>])>,
        previous: Option<Option<&Evaluation>>,
    ) -> Result<Evaluation, CatError> {
        let inner = &*self.inner;
        let prog = &*inner.prog;
        let dyn_bases: Vec<Option<&Value>> = prog
            .base_names
            .iter()
            .zip(&inner.base_is_dyn)
            .map(|(b, &d)| if d { dynamic.get(b) } else { None })
            .collect();
        let mut store = vec![Cell::Unset; inner.n_dyn];
        let mut checks = inner.checks.clone();
        let mut ran = vec![false; prog.stmts.len()];
        let mut reused = 0;
        let bases: Option<Vec<Option<Value>>> =
            previous.map(|_| dyn_bases.iter().map(|v| v.map(|v| (*v).clone())).collect());
        // The previous evaluation, when it can serve: of this preparation,
        // with its dynamic base values recorded.
        let prev = previous.flatten().and_then(|p| {
            let pb = p.bases.as_ref()?;
            Arc::ptr_eq(&p.prepared, &self.inner).then_some((p, pb))
        });
        // The dynamic bases whose values differ from the previous ones, and
        // (as statements run) the slots whose values do.
        let changed_base: Vec<bool> = match prev {
            Some((_, pb)) => dyn_bases
                .iter()
                .zip(pb)
                .map(|(new, old)| !same_base(*new, old.as_ref()))
                .collect(),
            None => Vec::new(),
        };
        let mut changed_slot = vec![false; prog.slot_names.len()];
        let shared = Shared {
            prog,
            universe: inner.universe,
            statics: Some(&inner.statics),
            dyn_pos: &inner.dyn_pos,
            static_bases: &inner.static_bases,
            dyn_bases: &dyn_bases,
            base_is_dyn: &inner.base_is_dyn,
            full_set: &inner.full_set,
            id_rel: &inner.id_rel,
        };
        for (stmts, ends_with, drops) in stages {
            for (j, &i) in stmts.iter().enumerate() {
                ran[i] = true;
                let defined = &inner.defined[i];
                // Inputs unchanged but a slot freed by `p`: run again, the
                // values are `p`'s.
                let mut same_as_before = false;
                if let Some((p, _)) = prev {
                    // The statement as written reads what its rewriting
                    // reads, and the folded slots it may read are static.
                    let st = &prog.stmts[i];
                    let unchanged = p.ran[i]
                        && !st.bases_read.iter().any(|&b| changed_base[b])
                        && !st.slots_read.iter().any(|&s| changed_slot[s]);
                    let held = || {
                        defined.iter().all(|&s| {
                            p.store
                                .get(shared.index(s))
                                .is_some_and(|c| !matches!(c, Cell::Unset))
                        })
                    };
                    if unchanged && held() {
                        reused += 1;
                        for &s in defined {
                            let k = shared.index(s);
                            store[k] = p.store[k].clone();
                        }
                        if let IStmtKind::Check(c, _) = st.kind {
                            checks[c].passed = p.checks[c].passed;
                        }
                        free(&mut store, drops, j);
                        continue;
                    }
                    same_as_before = unchanged;
                }
                let st = match inner.specialised.get(i) {
                    Some(Some(st)) => st,
                    _ => &prog.stmts[i],
                };
                shared.exec(st, &mut store, &mut checks)?;
                if let Some((p, _)) = prev {
                    for &s in defined {
                        let k = shared.index(s);
                        changed_slot[s] = !same_as_before && !same_cell(&store[k], &p.store[k]);
                    }
                }
                free(&mut store, drops, j);
            }
            if ends_with.is_some_and(|c| !checks[c].passed) {
                break;
            }
        }
        Ok(Evaluation {
            checks,
            store,
            prepared: Arc::clone(&self.inner),
            ran,
            bases,
            reused,
        })
    }

    /// The dynamic statements the checks marked in `wanted` (indexed like
    /// `Evaluation::checks`) need: those checks and, transitively, the
    /// bindings of every slot they read. For [`Prepared::evaluate_only`].
    pub fn plan_for(&self, wanted: &[bool]) -> Vec<usize> {
        self.plan_with_slots(wanted, &[])
    }

    /// [`Prepared::plan_for`], also computing the final bindings of the
    /// slots `slots` (and what they read).
    fn plan_with_slots(&self, wanted: &[bool], slots: &[usize]) -> Vec<usize> {
        let inner = &*self.inner;
        let prog = &*inner.prog;
        let mut needed_slot = vec![false; prog.slot_names.len()];
        for &s in slots {
            needed_slot[s] = true;
        }
        let mut plan = Vec::new();
        for &i in inner.dyn_stmts.iter().rev() {
            let st = &prog.stmts[i];
            let take = match &st.kind {
                IStmtKind::Check(c, _) => wanted.get(*c).copied().unwrap_or(false),
                _ => defined_slots(st).iter().any(|&s| needed_slot[s]),
            };
            if take {
                for &s in &st.slots_read {
                    needed_slot[s] = true;
                }
                plan.push(i);
            }
        }
        plan.reverse();
        plan
    }

    /// [`Prepared::evaluate`] running only the statements of `plan` (from
    /// [`Prepared::plan_for`]): the checks outside the plan are left as
    /// not passed and must not be read.
    pub fn evaluate_only(&self, dynamic: &Env, plan: &[usize]) -> Result<Evaluation, CatError> {
        self.run(dynamic, plan, None)
    }

    /// [`Prepared::evaluate_only`] from a previous evaluation (see
    /// [`Prepared::evaluate_lazily_from`]).
    pub fn evaluate_only_from(
        &self,
        dynamic: &Env,
        plan: &[usize],
        previous: Option<&Evaluation>,
    ) -> Result<Evaluation, CatError> {
        self.run(dynamic, plan, Some(previous))
    }

    /// The stages of a lazy evaluation ([`Prepared::evaluate_lazily`]) for
    /// a question that looks only at whether a candidate is consistent and,
    /// for a consistent one, at the flags and the final bindings of
    /// `names` (names the model does not bind are ignored).
    ///
    /// Each non-flag check evaluated per candidate gets a stage: the
    /// statements it needs that no earlier stage ran, then the check; the
    /// checks are taken cheapest first (fewest statements still to run),
    /// so an inconsistent candidate is usually rejected by the cheapest
    /// check that fails. A last stage runs what the flags and `names` need
    /// that no check did. Statements no stage needs (bindings only an
    /// explanation reads) are never run. Every `let` has a slot of its own
    /// (compile.rs), so running a later stage's statements after an
    /// earlier stage's, out of model order, reads the same values.
    ///
    /// `None` when a name of `names` is neither bound by the model nor a
    /// base name: the question's own error about it comes from a full
    /// evaluation.
    pub fn lazy_stages(&self, names: &[&str]) -> Option<LazyStages> {
        let inner = &*self.inner;
        let prog = &*inner.prog;
        if names
            .iter()
            .any(|n| !prog.final_slots.contains_key(*n) && !prog.base_index.contains_key(*n))
        {
            return None;
        }
        let n_checks = inner.checks.len();
        // A static check that fails makes every candidate inconsistent.
        if inner
            .checks
            .iter()
            .enumerate()
            .any(|(c, r)| !r.flag && !r.passed && !self.is_dynamic_check(c))
        {
            return Some(LazyStages {
                stages: Vec::new(),
                drops: Vec::new(),
                dropping: false,
            });
        }
        let mut done = vec![false; prog.stmts.len()];
        let mut stages = Vec::new();
        let mut open: Vec<usize> = (0..n_checks)
            .filter(|&c| !inner.checks[c].flag && self.is_dynamic_check(c))
            .collect();
        let plans: Vec<Vec<usize>> = (0..n_checks)
            .map(|c| {
                let mut wanted = vec![false; n_checks];
                wanted[c] = true;
                self.plan_for(&wanted)
            })
            .collect();
        while !open.is_empty() {
            let cost = |c: usize| plans[c].iter().filter(|&&i| !done[i]).count();
            let (k, &c) = open
                .iter()
                .enumerate()
                .min_by_key(|&(_, &c)| cost(c))
                .expect("open is not empty");
            open.remove(k);
            let stage: Vec<usize> = plans[c].iter().copied().filter(|&i| !done[i]).collect();
            for &i in &stage {
                done[i] = true;
            }
            stages.push((stage, Some(c)));
        }
        let flags: Vec<bool> = inner.checks.iter().map(|r| r.flag).collect();
        let slots: Vec<usize> = names
            .iter()
            .filter_map(|n| prog.final_slots.get(*n).copied())
            .collect();
        let rest: Vec<usize> = self
            .plan_with_slots(&flags, &slots)
            .into_iter()
            .filter(|&i| !done[i])
            .collect();
        stages.push((rest, None));
        let drops = self.drops_after(&stages, &slots);
        let held: usize = stages.iter().map(|(st, _)| st.len()).sum();
        let dropping = held.saturating_mul(Relation::bytes_for(inner.universe)) > DROP_FROM_BYTES;
        Some(LazyStages {
            stages,
            drops,
            dropping,
        })
    }

    /// For `stages` run in turn, per stage and statement: the store
    /// positions of the dynamic slots no later statement uses ([`slot_uses`])
    /// and that are not among `kept` (the final bindings the question
    /// reads), to be freed once the statement has run. A slot bound and
    /// never used is freed after its binding.
    fn drops_after(
        &self,
        stages: &[(Vec<usize>, Option<usize>)],
        kept: &[usize],
    ) -> Vec<Vec<Vec<usize>>> {
        let inner = &*self.inner;
        let mut last: HashMap<usize, (usize, usize)> = HashMap::new();
        for (k, (stmts, _)) in stages.iter().enumerate() {
            for (j, &i) in stmts.iter().enumerate() {
                let used = inner.uses.get(i).into_iter().flatten();
                let defined = inner.defined.get(i).into_iter().flatten();
                for &s in used.chain(defined) {
                    if inner.dyn_pos.get(s).is_some_and(|&d| d != NOT_DYN) {
                        last.insert(s, (k, j));
                    }
                }
            }
        }
        let mut drops: Vec<Vec<Vec<usize>>> = stages
            .iter()
            .map(|(stmts, _)| vec![Vec::new(); stmts.len()])
            .collect();
        let mut dead: Vec<(usize, (usize, usize))> = last
            .into_iter()
            .filter(|(s, _)| !kept.contains(s))
            .collect();
        dead.sort_unstable();
        for (s, (k, j)) in dead {
            drops[k][j].push(inner.dyn_pos[s]);
        }
        drops
    }

    /// Whether check `c` is evaluated per candidate (not by `prepare`).
    fn is_dynamic_check(&self, c: usize) -> bool {
        let inner = &*self.inner;
        inner
            .dyn_stmts
            .iter()
            .any(|&i| matches!(&inner.prog.stmts[i].kind, IStmtKind::Check(k, _) if *k == c))
    }

    /// [`Prepared::evaluate`] for a question that reads only consistency,
    /// and the flags and bindings of [`Prepared::lazy_stages`] of a
    /// consistent candidate: the stages run in turn and stop at the first
    /// check that fails. The evaluation of an inconsistent candidate is
    /// then partial: checks after the failing one read as not passed,
    /// flags as not raised, bindings as absent.
    pub fn evaluate_lazily(
        &self,
        dynamic: &Env,
        stages: &LazyStages,
    ) -> Result<Evaluation, CatError> {
        self.lazily(dynamic, stages, None)
    }

    /// [`Prepared::evaluate_lazily`] from a previous evaluation: the same
    /// results (checks, flags, bindings, and the same first failing check
    /// ending the stages), computed by re-running only the statements whose
    /// inputs differ from those of `previous` (an evaluation of this
    /// preparation by one of the `_from` methods, lazy, planned or full;
    /// another evaluation, or `None`, means from scratch). The result
    /// records what the next evaluation needs to start from it.
    pub fn evaluate_lazily_from(
        &self,
        dynamic: &Env,
        stages: &LazyStages,
        previous: Option<&Evaluation>,
    ) -> Result<Evaluation, CatError> {
        self.lazily(dynamic, stages, Some(previous))
    }

    fn lazily(
        &self,
        dynamic: &Env,
        stages: &LazyStages,
        previous: Option<Option<&Evaluation>>,
    ) -> Result<Evaluation, CatError> {
        if stages.stages.is_empty() {
            // A static check failed: nothing to run, the candidate is
            // inconsistent (the static results are in the evaluation).
            return self.run_stages(dynamic, std::iter::empty(), previous);
        }
        let drops = stages.drops.iter().map(|d| d.as_slice());
        let drops: Box<dyn Iterator<Item = &[Vec<usize>]>> = if stages.dropping {
            Box::new(drops)
        } else {
            Box::new(std::iter::repeat(&[][..]))
        };
        self.run_stages(
            dynamic,
            stages
                .stages
                .iter()
                .zip(drops)
                .map(|((s, c), d)| (s.as_slice(), *c, d)),
            previous,
        )
    }

    /// The bytes the preparation holds in sets and relations: the static
    /// bindings, the values folded from static subexpressions and the
    /// static base values it reads ([`Value::bytes`]).
    pub fn bytes(&self) -> usize {
        let inner = &*self.inner;
        let statics: usize = inner
            .statics
            .iter()
            .filter_map(Cell::value)
            .map(Value::bytes)
            .sum();
        let bases: usize = inner.static_bases.iter().flatten().map(Value::bytes).sum();
        statics + bases
    }

    /// Number of events of the test.
    pub fn universe(&self) -> usize {
        self.inner.universe
    }

    /// Number of statements (bindings and checks) re-evaluated per candidate
    /// execution; everything else was evaluated once by `prepare`.
    pub fn dynamic_statements(&self) -> usize {
        self.inner.dyn_stmts.len()
    }

    /// For each check of the model, in the order of `Evaluation::checks`: whether the check can be
    /// decided early when `growing` names are bound to subsets of their final values — i.e. it is a
    /// non-flag, non-negated acyclic/irreflexive/empty check whose expression is monotone
    /// (non-decreasing) in every name of `growing` (all other dynamic names being fixed).
    ///
    /// For such a check, a failure under any subsets of the final values of
    /// the growing names implies a failure under the final values, so a
    /// search that assigns those names incrementally may prune as soon as the
    /// check fails. The rules of the (conservative) polarity analysis are
    /// documented in the `polarity` module: every set/relation operator is
    /// monotone in its operands except the complement `~` (antitone) and the
    /// right operand of `\` (antitone); `let` and `let ... in` bindings,
    /// function calls (bodies analysed with the arguments' polarities) and
    /// `let rec` least fixpoints propagate polarities; anything the analysis
    /// cannot follow makes the check "not monotone" (`false`), which is
    /// always sound. Checks evaluated statically by `prepare` are constant,
    /// hence monotone. A name of `growing` the model never reads is
    /// irrelevant.
    pub fn monotone_checks(&self, growing: &[&str]) -> Vec<bool> {
        let inner = &*self.inner;
        let prog = &*inner.prog;
        // On the model as written (not as partially evaluated for this
        // test): the same answer for every test, and the rewritten
        // statements compute the same functions of the dynamic names.
        let stage = Staging {
            prog,
            static_slots: (0..prog.slot_names.len())
                .map(|s| match inner.written_dyn_slots.get(s) {
                    Some(false) => inner.statics.get(s),
                    _ => None,
                })
                .collect(),
            dynamic_stmts: inner.written_dyn_stmts.clone(),
        };
        let key = stage.key(growing);
        if let Some(hit) = inner
            .polarities
            .lock()
            .ok()
            .and_then(|cache| cache.get(&key).cloned())
        {
            return hit;
        }
        let mut out: Vec<bool> = prog.checks.iter().map(|c| !c.flag && !c.negated).collect();
        for name in growing {
            if !out.contains(&true) {
                break;
            }
            let pols = check_polarities(&stage, name);
            for (o, p) in out.iter_mut().zip(pols) {
                *o = *o && p.is_monotone();
            }
        }
        if let Ok(mut cache) = inner.polarities.lock() {
            cache.insert(key, out.clone());
        }
        out
    }

    /// Whether the final binding of `name` was computed statically (by
    /// `prepare`): `Some(true)` if static, `Some(false)` if recomputed per
    /// execution, `None` if the model binds no such name.
    pub fn is_static(&self, name: &str) -> Option<bool> {
        let s = *self.inner.prog.final_slots.get(name)?;
        Some(self.inner.dyn_pos.get(s) == Some(&NOT_DYN))
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("universe", &self.inner.universe)
            .field("dynamic_statements", &self.inner.dyn_stmts.len())
            .finish_non_exhaustive()
    }
}

/// The results of running a model on one candidate execution.
pub struct Evaluation {
    /// Every check, in model order.
    pub checks: Vec<CheckResult>,
    store: Vec<Cell>,
    prepared: Arc<PreparedInner>,
    /// Which statements ran (or were reused), indexed like `prog.stmts`.
    ran: Vec<bool>,
    /// The dynamic base values read (indexed like `prog.base_names`), when
    /// evaluated by a `_from` method: what a next evaluation compares with.
    bases: Option<Vec<Option<Value>>>,
    /// Statements taken from the previous evaluation instead of run.
    reused: usize,
}

impl Evaluation {
    /// How many statements this evaluation took from the previous one
    /// instead of running them (0 from scratch).
    pub fn reused(&self) -> usize {
        self.reused
    }

    /// How many dynamic statements ran or were reused.
    pub fn statements(&self) -> usize {
        self.ran.iter().filter(|&&r| r).count()
    }

    /// `true` iff every non-flag check passed.
    pub fn consistent(&self) -> bool {
        self.checks.iter().all(|c| c.flag || c.passed)
    }

    /// The flags raised (flag checks whose condition held).
    pub fn flags(&self) -> impl Iterator<Item = &CheckResult> {
        self.checks.iter().filter(|c| c.flag && c.passed)
    }

    /// The value `name` is bound to at the end of the model: its last `let`
    /// binding (static or dynamic), or else the static base value the model
    /// read under that name. Dynamic base names are not recorded.
    pub fn lookup(&self, name: &str) -> Option<&Value> {
        let p = &*self.prepared;
        if let Some(&s) = p.prog.final_slots.get(name) {
            let cell = match p.dyn_pos.get(s) {
                Some(&i) if i != NOT_DYN => self.store.get(i),
                _ => p.statics.get(s),
            };
            return cell.and_then(Cell::value);
        }
        let b = *p.prog.base_index.get(name)?;
        p.static_bases.get(b)?.as_ref()
    }
}

impl std::fmt::Debug for Evaluation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluation")
            .field("checks", &self.checks)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod bounds_tests {
    use super::*;
    use crate::cat::Model;

    /// A `let rec` that grows by one step of `r` per round: on a chain of
    /// n events, n rounds.
    const CHAIN: &str = "let rec c = r | (c ; r)\nacyclic c as chain";

    fn chain(n: usize) -> Env {
        let mut env = Env::new(n);
        env.rel("r", Relation::from_pairs(n, (1..n).map(|i| (i - 1, i))));
        env
    }

    /// With the deadline passed, preparing (the static fixpoint) and
    /// evaluating stop with the time limit, never a verdict; without
    /// bounds the same model is answered (the chain is acyclic). Outside
    /// the guard nothing stops.
    #[test]
    fn an_evaluation_stops_at_the_deadline() {
        let m = Model::parse("t.cat", CHAIN, &|_| None).unwrap();
        let env = chain(64);
        assert!(
            m.prepare(&env, &[])
                .unwrap()
                .evaluate(&env)
                .unwrap()
                .consistent()
        );
        let past = EvalBounds {
            deadline: Some(web_time::Instant::now()),
            max_memory: None,
        };
        {
            let _bounds = past.enter();
            let e = m.prepare(&env, &[]).unwrap_err();
            assert_eq!(e.kind, CatErrorKind::TimeLimit, "{e}");
            assert!(e.message.contains("--timeout"), "{e}");
        }
        // The dynamic statements stop too: `r` dynamic, prepared first.
        let p = m.prepare(&env, &["r"]).unwrap();
        {
            let _bounds = past.enter();
            let e = p.evaluate(&env).unwrap_err();
            assert_eq!(e.kind, CatErrorKind::TimeLimit, "{e}");
        }
        assert!(p.evaluate(&env).unwrap().consistent());
    }

    /// One transitive closure over 10,000 events stops at the deadline
    /// part-way: the closure of a chain of 10,000 events (each event
    /// reaching every later one: about 50 million row unions of 157 words,
    /// seconds of work) under a deadline 100 ms away ends with the time
    /// limit well before the closure could have finished, not after it.
    #[test]
    fn one_closure_over_many_events_stops_at_the_deadline() {
        let m = Model::parse("t.cat", "let c = r+\nacyclic c as chain", &|_| None).unwrap();
        let env = chain(10_000);
        let soon = EvalBounds {
            deadline: Some(web_time::Instant::now() + std::time::Duration::from_millis(100)),
            max_memory: None,
        };
        let start = std::time::Instant::now();
        let e = {
            let _bounds = soon.enter();
            m.prepare(&env, &[]).unwrap_err()
        };
        assert_eq!(e.kind, CatErrorKind::TimeLimit, "{e}");
        // Inside the closure (line 1), not at the next statement (line 2),
        // which a closure run to its end would reach past the deadline.
        assert_eq!(e.line, 1, "{e}");
        assert!(
            start.elapsed() < std::time::Duration::from_millis(600),
            "stopped after {:?}",
            start.elapsed()
        );
    }
}
