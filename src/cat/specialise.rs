//! Partial evaluation of the dynamic statements of a prepared model.
//!
//! Staging ([`super::interp`]) evaluates once per test every statement that
//! reads no dynamic name; a statement that reads one (say `ithb_all`, which
//! reads `sw`) would otherwise be re-evaluated whole for every candidate
//! execution, including its static parts (`[REL & SEMS] ; po`, `ssw`, the
//! sets a function is called with). This pass rewrites each dynamic
//! statement once per test:
//!
//! - calls of known functions are inlined (parameters bound to their
//!   arguments, captured values to their values), so that static arguments
//!   reach the function body;
//! - every subexpression that reads only static names is evaluated and
//!   replaced by a reference to its value (a new static slot, appended after
//!   the model's own slots), and in a chain of `|`, `&` or `;` the static
//!   operands are combined once (`\` folds only a static prefix: it is not
//!   associative).
//!
//! The rewritten statement computes the same value: cat is pure, `|`, `&`
//! and `;` are associative (`|` and `&` commutative). Anything the pass
//! cannot follow (a function containing a `fun`, a call it cannot resolve,
//! an expression whose static evaluation fails, which is left for the
//! run-time evaluation to report with its position) is left as it was.
//! `let rec` statements are not rewritten. The original statements remain
//! the reference: `tests.rs` evaluates both ways on generated environments.
//!
//! No crate does this: it is specific to this interpreter's IR.

use super::ast::BinOp;
use super::compile::{Code, Const, IExpr, IStmt, IStmtKind, Lambda, Program};
use super::error::Pos;
use super::value::{Cell, Func, FuncImpl};
use std::collections::HashMap;
use std::sync::Arc;

/// Deepest nesting of inlined calls.
const MAX_INLINE_DEPTH: usize = 8;
/// Largest number of calls inlined into one statement.
const MAX_INLINED_CALLS: usize = 256;

/// An operand of an operator chain: the operator's position (none for
/// the first), the rewritten operand, whether it is static.
type Operand = (Option<Pos>, IExpr, bool);

/// What a local of the frame being rewritten becomes.
#[derive(Clone)]
enum Repl {
    /// A static value (a slot reference or a constant).
    Static(IExpr),
    /// A local of the statement's frame.
    Local(usize),
}

/// What the specialiser needs of the interpreter: static expressions
/// evaluated into new static slots. The interpreter implements it (its
/// `Folder`) and hands it in, so this file names nothing of the interpreter.
pub(super) trait Fold {
    /// The value of `e` (which reads no dynamic name and no local) as a new
    /// static slot, or `None` if its evaluation fails.
    fn fold(&mut self, e: &IExpr) -> Option<usize>;
    /// Stores a value as a new static slot.
    fn push(&mut self, c: Cell) -> usize;
    /// For a static leaf whose value is empty: `Some(true)` for an empty
    /// set, `Some(false)` for an empty relation (or the polymorphic empty
    /// value); `None` otherwise.
    fn empty_leaf(&self, e: &IExpr) -> Option<bool>;
    /// The function a static slot holds.
    fn func(&self, s: usize) -> Option<Func>;
}

pub(super) struct Specialiser<'f, 'a> {
    pub prog: &'a Program,
    /// Whether each of the model's slots is computed per execution.
    pub slot_dyn: &'f [bool],
    pub base_is_dyn: &'a [bool],
    pub folder: &'f mut (dyn Fold + 'a),
    /// Functions defined by a plain `let` with no captured locals, by slot:
    /// the same closure in every execution even when their statement is
    /// dynamic (their bodies read dynamic names only when called).
    defined: &'f HashMap<usize, Arc<Lambda>>,
    inlined: usize,
}

/// Whether an expression is a leaf that costs nothing to evaluate.
fn trivial(e: &IExpr) -> bool {
    matches!(
        e,
        IExpr::Slot(..) | IExpr::Base(..) | IExpr::Const(_) | IExpr::Builtin(_)
    )
}

fn contains_lambda(e: &IExpr) -> bool {
    match e {
        IExpr::Lambda(_) => true,
        IExpr::Slot(..)
        | IExpr::Base(..)
        | IExpr::Local(..)
        | IExpr::Const(_)
        | IExpr::Builtin(_) => false,
        IExpr::Un(_, x, _) | IExpr::Bracket(x, _) => contains_lambda(x),
        IExpr::Bin(_, first, rest) => {
            contains_lambda(first) || rest.iter().any(|(_, x)| contains_lambda(x))
        }
        IExpr::App(f, args, _) => contains_lambda(f) || args.iter().any(contains_lambda),
        IExpr::LetIn(binds, body) => {
            binds.iter().any(|(_, x)| contains_lambda(x)) || contains_lambda(body)
        }
    }
}

impl<'f, 'a> Specialiser<'f, 'a> {
    /// The functions defined by a plain `let` with no captured locals, by
    /// slot (for [`Specialiser::new`]).
    pub fn functions(prog: &Program) -> HashMap<usize, Arc<Lambda>> {
        let mut defined = HashMap::new();
        for st in &prog.stmts {
            if let IStmtKind::Let(binds) = &st.kind {
                for (s, code) in binds {
                    if let IExpr::Lambda(l) = &code.expr
                        && l.captures.is_empty()
                    {
                        defined.insert(*s, Arc::clone(l));
                    }
                }
            }
        }
        defined
    }

    pub fn new(
        prog: &'a Program,
        slot_dyn: &'f [bool],
        base_is_dyn: &'a [bool],
        defined: &'f HashMap<usize, Arc<Lambda>>,
        folder: &'f mut (dyn Fold + 'a),
    ) -> Self {
        Specialiser {
            prog,
            slot_dyn,
            base_is_dyn,
            folder,
            defined,
            inlined: 0,
        }
    }

    /// The rewritten statement and whether all it computes is static
    /// (`None` when it is kept as it is).
    pub fn statement(&mut self, st: &IStmt) -> Option<(IStmt, bool)> {
        let mut all_static = true;
        let kind = match &st.kind {
            IStmtKind::Let(binds) => IStmtKind::Let(
                binds
                    .iter()
                    .map(|(s, code)| {
                        let (c, st) = self.code(code);
                        all_static &= st;
                        (*s, c)
                    })
                    .collect(),
            ),
            IStmtKind::Check(i, code) => {
                let (c, st) = self.code(code);
                all_static &= st;
                IStmtKind::Check(*i, c)
            }
            IStmtKind::LetRec { .. } => return None,
        };
        Some((
            IStmt {
                kind,
                pos: st.pos.clone(),
                slots_read: st.slots_read.clone(),
                bases_read: st.bases_read.clone(),
            },
            all_static,
        ))
    }

    fn code(&mut self, code: &Code) -> (Code, bool) {
        self.inlined = 0;
        let map: Vec<Repl> = (0..code.frame).map(Repl::Local).collect();
        let mut frame = code.frame;
        let (expr, s) = self.fold(&code.expr, &map, &mut frame, 0);
        (Code { expr, frame }, s)
    }

    /// Replaces a static expression by a reference to its value.
    fn lit(&mut self, e: IExpr) -> (IExpr, bool) {
        if trivial(&e) {
            return (e, true);
        }
        match self.folder.fold(&e) {
            Some(slot) => (IExpr::Slot(slot, self.pos_of(&e)), true),
            // Left for the run-time evaluation to report.
            None => (e, false),
        }
    }

    fn pos_of(&self, e: &IExpr) -> Pos {
        match e {
            IExpr::Slot(_, p)
            | IExpr::Base(_, p)
            | IExpr::Local(_, p)
            | IExpr::Un(_, _, p)
            | IExpr::Bracket(_, p)
            | IExpr::App(_, _, p) => p.clone(),
            IExpr::Bin(_, first, rest) => rest
                .first()
                .map_or_else(|| self.pos_of(first), |(p, _)| p.clone()),
            IExpr::Lambda(l) => l.pos.clone(),
            IExpr::LetIn(_, body) => self.pos_of(body),
            IExpr::Const(_) | IExpr::Builtin(_) => self.prog.stmts.first().map_or_else(
                || Pos {
                    file: "<model>".into(),
                    line: 1,
                    col: 1,
                },
                |s| s.pos.clone(),
            ),
        }
    }

    /// The rewritten expression and whether it is static.
    fn fold(&mut self, e: &IExpr, map: &[Repl], frame: &mut usize, depth: usize) -> (IExpr, bool) {
        match e {
            IExpr::Slot(s, _) => (e.clone(), !self.slot_dyn.get(*s).copied().unwrap_or(false)),
            IExpr::Base(b, _) => (
                e.clone(),
                !self.base_is_dyn.get(*b).copied().unwrap_or(false),
            ),
            IExpr::Local(i, p) => match map.get(*i) {
                Some(Repl::Static(x)) => (x.clone(), true),
                Some(Repl::Local(j)) => (IExpr::Local(*j, p.clone()), false),
                None => (e.clone(), false),
            },
            IExpr::Const(_) | IExpr::Builtin(_) => (e.clone(), true),
            IExpr::Lambda(_) => (e.clone(), false),
            IExpr::Un(op, x, p) => {
                let (x, s) = self.fold(x, map, frame, depth);
                let node = IExpr::Un(*op, Box::new(x), p.clone());
                if s { self.lit(node) } else { (node, false) }
            }
            IExpr::Bracket(x, p) => {
                let (x, s) = self.fold(x, map, frame, depth);
                let node = IExpr::Bracket(Box::new(x), p.clone());
                if s { self.lit(node) } else { (node, false) }
            }
            IExpr::Bin(op, first, rest) => self.bin(*op, first, rest, map, frame, depth),
            IExpr::App(f, args, p) => self.app(f, args, p, map, frame, depth),
            IExpr::LetIn(binds, body) => {
                let mut inner = map.to_vec();
                let mut kept = Vec::new();
                let mut folded = Vec::new();
                for (i, x) in binds {
                    folded.push((*i, self.fold(x, map, frame, depth)));
                }
                for (i, (x, s)) in folded {
                    if s && trivial(&x) {
                        if let Some(r) = inner.get_mut(i) {
                            *r = Repl::Static(x);
                        }
                    } else {
                        let j = match map.get(i) {
                            Some(Repl::Local(j)) => *j,
                            _ => i,
                        };
                        if let Some(r) = inner.get_mut(i) {
                            *r = Repl::Local(j);
                        }
                        kept.push((j, x));
                    }
                }
                let (body, s) = self.fold(body, &inner, frame, depth);
                if kept.is_empty() {
                    (body, s)
                } else {
                    (IExpr::LetIn(kept, Box::new(body)), false)
                }
            }
        }
    }

    fn bin(
        &mut self,
        op: BinOp,
        first: &IExpr,
        rest: &[(Pos, IExpr)],
        map: &[Repl],
        frame: &mut usize,
        depth: usize,
    ) -> (IExpr, bool) {
        let (first, first_static) = self.fold(first, map, frame, depth);
        let mut ops: Vec<Operand> = vec![(None, first, first_static)];
        for (p, x) in rest {
            let (x, s) = self.fold(x, map, frame, depth);
            ops.push((Some(p.clone()), x, s));
        }
        let build = |ops: Vec<Operand>| -> IExpr {
            let mut it = ops.into_iter();
            let (_, first, _) = it.next().expect("an operand");
            let rest = it
                .map(|(p, x, _)| {
                    let p = p.unwrap_or_else(|| Pos {
                        file: "<model>".into(),
                        line: 1,
                        col: 1,
                    });
                    (p, x)
                })
                .collect::<Vec<_>>();
            if rest.is_empty() {
                first
            } else {
                IExpr::Bin(op, Box::new(first), rest)
            }
        };
        if ops.iter().all(|o| o.2) {
            return self.lit(build(ops));
        }
        // Empty static operands: they annihilate `;`, `&` and `*` (and `\`
        // when first) and drop out of `|` (and of `\` after the first).
        let empty = |sp: &Self, o: &Operand| {
            if o.2 {
                sp.folder.empty_leaf(&o.1)
            } else {
                None
            }
        };
        let annihilator = match op {
            BinOp::Seq | BinOp::Inter | BinOp::Cart => ops.iter().find_map(|o| empty(self, o)),
            BinOp::Diff => empty(self, &ops[0]),
            BinOp::Union => None,
        };
        if let Some(is_set) = annihilator {
            let set = is_set && op != BinOp::Seq && op != BinOp::Cart;
            return (
                IExpr::Const(if set { Const::EmptySet } else { Const::Zero }),
                true,
            );
        }
        if matches!(op, BinOp::Union | BinOp::Diff) {
            let mut kept: Vec<Operand> = Vec::new();
            for (k, o) in ops.into_iter().enumerate() {
                let first = k == 0;
                if (!first || op == BinOp::Union) && empty(self, &o).is_some() {
                    continue;
                }
                kept.push(o);
            }
            ops = kept;
        }
        if matches!(op, BinOp::Union | BinOp::Inter) {
            // `x | x` is `x`, `x & x` is `x`.
            let mut kept: Vec<Operand> = Vec::new();
            for o in ops {
                if !kept.iter().any(|k| same_expr(&k.1, &o.1)) {
                    kept.push(o);
                }
            }
            ops = kept;
        }
        if ops.is_empty() {
            return (IExpr::Const(Const::Zero), true);
        }
        if ops.iter().all(|o| o.2) {
            return self.lit(build(ops));
        }
        let associative = matches!(op, BinOp::Union | BinOp::Inter | BinOp::Seq);
        let mut out: Vec<Operand> = Vec::new();
        let mut run: Vec<Operand> = Vec::new();
        let mut prefix = true;
        for o in ops {
            if o.2 && (associative || prefix) {
                run.push(o);
                continue;
            }
            prefix = false;
            self.flush(&mut run, &mut out, &build);
            out.push(o);
        }
        self.flush(&mut run, &mut out, &build);
        (build(out), false)
    }

    /// Folds a run of static operands into one (keeping the position of
    /// the run's first operator).
    fn flush(
        &mut self,
        run: &mut Vec<Operand>,
        out: &mut Vec<Operand>,
        build: &dyn Fn(Vec<Operand>) -> IExpr,
    ) {
        match run.len() {
            0 => {}
            1 => out.append(run),
            _ => {
                let pos = run[0].0.clone();
                let mut ops: Vec<_> = std::mem::take(run);
                ops[0].0 = None;
                let (x, s) = self.lit(build(ops));
                out.push((pos, x, s));
            }
        }
    }

    fn app(
        &mut self,
        f: &IExpr,
        args: &[IExpr],
        p: &Pos,
        map: &[Repl],
        frame: &mut usize,
        depth: usize,
    ) -> (IExpr, bool) {
        let folded: Vec<(IExpr, bool)> = args
            .iter()
            .map(|a| self.fold(a, map, frame, depth))
            .collect();
        let (f, f_static) = self.fold(f, map, frame, depth);
        if let IExpr::Builtin(_) = f {
            let all = folded.iter().all(|a| a.1);
            let node = IExpr::App(
                Box::new(f),
                folded.into_iter().map(|a| a.0).collect(),
                p.clone(),
            );
            return if all { self.lit(node) } else { (node, false) };
        }
        let known = match &f {
            IExpr::Slot(s, _) if f_static => self.folder.func(*s).and_then(|func| match &*func.0 {
                FuncImpl::Closure { lambda, captured } => {
                    Some((Arc::clone(lambda), captured.clone()))
                }
                FuncImpl::Builtin(_) => None,
            }),
            IExpr::Slot(s, _) => self.defined.get(s).map(|l| (Arc::clone(l), Vec::new())),
            _ => None,
        };
        if depth < MAX_INLINE_DEPTH
            && self.inlined < MAX_INLINED_CALLS
            && let Some((lambda, captured)) = known
            && lambda.params.len() == folded.len()
            && !contains_lambda(&lambda.body)
        {
            self.inlined += 1;
            let offset = *frame;
            *frame += lambda.frame;
            let mut inner: Vec<Repl> = (0..lambda.frame).map(|j| Repl::Local(offset + j)).collect();
            let mut binds = Vec::new();
            for (param, (arg, s)) in lambda.params.iter().zip(folded) {
                let Some(i) = *param else { continue };
                if s && trivial(&arg) {
                    if let Some(r) = inner.get_mut(i) {
                        *r = Repl::Static(arg);
                    }
                } else {
                    binds.push((offset + i, arg));
                }
            }
            for (&(_, i), c) in lambda.captures.iter().zip(&captured) {
                let x = match c {
                    Cell::Unset => None,
                    c => Some(IExpr::Slot(self.folder.push(c.clone()), p.clone())),
                };
                match (x, inner.get_mut(i)) {
                    (Some(x), Some(r)) => *r = Repl::Static(x),
                    _ => return (self.unfolded(f, args, p, map, frame, depth), false),
                }
            }
            let (body, s) = self.fold(&lambda.body, &inner, frame, depth + 1);
            return if binds.is_empty() {
                (body, s)
            } else {
                (IExpr::LetIn(binds, Box::new(body)), false)
            };
        }
        let node = IExpr::App(
            Box::new(f),
            folded.into_iter().map(|a| a.0).collect(),
            p.clone(),
        );
        (node, false)
    }

    /// A call kept as a call (its arguments rewritten).
    fn unfolded(
        &mut self,
        f: IExpr,
        args: &[IExpr],
        p: &Pos,
        map: &[Repl],
        frame: &mut usize,
        depth: usize,
    ) -> IExpr {
        let args = args
            .iter()
            .map(|a| self.fold(a, map, frame, depth).0)
            .collect();
        IExpr::App(Box::new(f), args, p.clone())
    }
}

/// Structural equality of expressions, ignoring positions (functions by
/// identity).
fn same_expr(a: &IExpr, b: &IExpr) -> bool {
    match (a, b) {
        (IExpr::Slot(x, _), IExpr::Slot(y, _))
        | (IExpr::Base(x, _), IExpr::Base(y, _))
        | (IExpr::Local(x, _), IExpr::Local(y, _)) => x == y,
        (IExpr::Const(x), IExpr::Const(y)) => x == y,
        (IExpr::Builtin(x), IExpr::Builtin(y)) => x == y,
        (IExpr::Un(o, x, _), IExpr::Un(p, y, _)) => o == p && same_expr(x, y),
        (IExpr::Bracket(x, _), IExpr::Bracket(y, _)) => same_expr(x, y),
        (IExpr::Bin(o, x, xs), IExpr::Bin(p, y, ys)) => {
            o == p
                && same_expr(x, y)
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|((_, x), (_, y))| same_expr(x, y))
        }
        (IExpr::App(f, xs, _), IExpr::App(g, ys, _)) => {
            same_expr(f, g)
                && xs.len() == ys.len()
                && xs.iter().zip(ys).all(|(x, y)| same_expr(x, y))
        }
        (IExpr::Lambda(x), IExpr::Lambda(y)) => Arc::ptr_eq(x, y),
        (IExpr::LetIn(xb, x), IExpr::LetIn(yb, y)) => {
            xb.len() == yb.len()
                && xb
                    .iter()
                    .zip(yb)
                    .all(|((i, x), (j, y))| i == j && same_expr(x, y))
                && same_expr(x, y)
        }
        _ => false,
    }
}

#[cfg(test)]
pub(super) mod tests;
