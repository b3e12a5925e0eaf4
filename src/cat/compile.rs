//! Name resolution: turns the parsed statements into the interpreter's IR,
//! where every identifier is resolved once to a top-level slot (each `let`
//! binding gets its own slot, so shadowing is static), a local of the
//! enclosing function frame, a builtin, or a free base name the engine must
//! provide. Also records, per statement, which slots and base names it reads
//! (the input of the static/dynamic staging).

use super::ast::{BinOp, Binding, CheckKind, Expr, ExprKind, Stmt, UnOp};
use super::error::Pos;
use super::parser::Parsed;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Deepest nesting of evaluation (expression nesting plus function calls)
/// before a recursion error is reported instead of exhausting the stack.
/// Sized so that even unoptimized builds stay well within a 2 MiB thread
/// stack (about 3.3 KiB per nested call in a debug build). The interpreter
/// and the polarity analysis, which follows the evaluation's calls, share it.
pub const MAX_EVAL_DEPTH: usize = 256;

/// Builtin constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Const {
    /// `0`
    Zero,
    /// `{}` / `emptyset`
    EmptySet,
    /// `_`
    Universe,
    /// `id`
    Id,
}

/// Builtin functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Domain,
    Range,
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Domain => "domain",
            Builtin::Range => "range",
        }
    }
}

/// Resolved expressions.
#[derive(Clone, Debug)]
pub enum IExpr {
    /// A top-level binding.
    Slot(usize, Pos),
    /// A free name the engine provides (index into [`Program::base_names`]).
    Base(usize, Pos),
    /// A local of the current frame (parameter, capture or `let ... in`).
    Local(usize, Pos),
    Const(Const),
    Builtin(Builtin),
    Un(UnOp, Box<IExpr>, Pos),
    Bin(BinOp, Box<IExpr>, Vec<(Pos, IExpr)>),
    Bracket(Box<IExpr>, Pos),
    App(Box<IExpr>, Vec<IExpr>, Pos),
    Lambda(Arc<Lambda>),
    /// Evaluate the bindings (into frame locals), then the body.
    LetIn(Vec<(usize, IExpr)>, Box<IExpr>),
}

/// A function: parameters, captured locals and body, with its frame layout.
#[derive(Debug)]
pub struct Lambda {
    /// Binding name (or `fun`), for messages.
    pub name: String,
    pub pos: Pos,
    /// Frame index of each parameter (`None` for `_`).
    pub params: Vec<Option<usize>>,
    /// `(index in the defining frame, index in this frame)` of each captured local.
    pub captures: Vec<(usize, usize)>,
    /// Number of locals in this function's frame.
    pub frame: usize,
    pub body: IExpr,
}

/// A top-level expression with the size of its local frame.
#[derive(Debug)]
pub struct Code {
    pub expr: IExpr,
    pub frame: usize,
}

/// What a check reports.
#[derive(Clone, Debug)]
pub struct CheckMeta {
    pub name: String,
    pub kind: CheckKind,
    pub negated: bool,
    pub flag: bool,
    pub line: usize,
    pub file: String,
}

#[derive(Debug)]
pub enum IStmtKind {
    /// Simultaneous non-recursive bindings.
    Let(Vec<(usize, Code)>),
    /// Recursive bindings: functions are installed first, then the values are
    /// iterated to their least fixpoint.
    LetRec {
        funcs: Vec<(usize, Code)>,
        vals: Vec<(usize, Code)>,
    },
    /// A check (index into [`Program::checks`]).
    Check(usize, Code),
}

#[derive(Debug)]
pub struct IStmt {
    pub kind: IStmtKind,
    pub pos: Pos,
    /// Top-level slots read (anywhere, including inside function bodies).
    pub slots_read: Vec<usize>,
    /// Base names read (anywhere, including inside function bodies).
    pub bases_read: Vec<usize>,
}

/// A resolved model.
#[derive(Debug)]
pub struct Program {
    pub title: Option<String>,
    /// The `(*@ ... *)` comments, in the order [`Parsed`] gives them.
    pub annotations: Vec<super::ast::Annotation>,
    pub stmts: Vec<IStmt>,
    /// Name of each top-level slot.
    pub slot_names: Vec<String>,
    /// Free names, in order of first use.
    pub base_names: Vec<String>,
    /// Where each free name is first used.
    pub base_pos: Vec<Pos>,
    /// Index of each base name.
    pub base_index: HashMap<String, usize>,
    /// The slot each name is bound to at the end of the model.
    pub final_slots: HashMap<String, usize>,
    pub checks: Vec<CheckMeta>,
}

/// Locals of one function (or statement) being compiled.
#[derive(Default)]
struct Frame {
    /// Visible locals, innermost last.
    scope: Vec<(String, usize)>,
    /// Locals captured from enclosing frames: `(name, inner index, outer index)`.
    captures: Vec<(String, usize, usize)>,
    size: usize,
}

struct Compiler {
    top: HashMap<String, usize>,
    slot_names: Vec<String>,
    base_names: Vec<String>,
    base_pos: Vec<Pos>,
    base_index: HashMap<String, usize>,
    frames: Vec<Frame>,
    slots_read: BTreeSet<usize>,
    bases_read: BTreeSet<usize>,
}

/// Resolves a parsed model.
pub fn compile(parsed: Parsed) -> Program {
    let mut c = Compiler {
        top: HashMap::new(),
        slot_names: Vec::new(),
        base_names: Vec::new(),
        base_pos: Vec::new(),
        base_index: HashMap::new(),
        frames: Vec::new(),
        slots_read: BTreeSet::new(),
        bases_read: BTreeSet::new(),
    };
    let mut stmts = Vec::new();
    let mut checks = Vec::new();
    for s in parsed.stmts {
        let (kind, pos) = match s {
            Stmt::Let {
                rec: false,
                bindings,
                pos,
            } => {
                let codes: Vec<Code> = bindings.iter().map(|b| c.code(b)).collect();
                let slots = bindings.iter().map(|b| c.new_slot(&b.name));
                (IStmtKind::Let(slots.zip(codes).collect()), pos)
            }
            Stmt::Let {
                rec: true,
                bindings,
                pos,
            } => {
                let slots: Vec<usize> = bindings.iter().map(|b| c.new_slot(&b.name)).collect();
                let (mut funcs, mut vals) = (Vec::new(), Vec::new());
                for (b, s) in bindings.iter().zip(slots) {
                    let code = c.code(b);
                    if matches!(b.expr.kind, ExprKind::Fun(..)) {
                        funcs.push((s, code));
                    } else {
                        vals.push((s, code));
                    }
                }
                (IStmtKind::LetRec { funcs, vals }, pos)
            }
            Stmt::Check {
                kind,
                negated,
                flag,
                name,
                expr,
                pos,
            } => {
                let index = checks.len();
                checks.push(CheckMeta {
                    name: name.unwrap_or_else(|| format!("{}-{}", kind.keyword(), index + 1)),
                    kind,
                    negated,
                    flag,
                    line: pos.line,
                    file: pos.file.to_string(),
                });
                let code = c.code_of(&expr, "check");
                (IStmtKind::Check(index, code), pos)
            }
        };
        stmts.push(IStmt {
            kind,
            pos,
            slots_read: std::mem::take(&mut c.slots_read).into_iter().collect(),
            bases_read: std::mem::take(&mut c.bases_read).into_iter().collect(),
        });
    }
    Program {
        title: parsed.title,
        annotations: parsed.annotations,
        stmts,
        final_slots: c.top,
        slot_names: c.slot_names,
        base_names: c.base_names,
        base_pos: c.base_pos,
        base_index: c.base_index,
        checks,
    }
}

impl Compiler {
    fn new_slot(&mut self, name: &str) -> usize {
        let s = self.slot_names.len();
        self.slot_names.push(name.to_string());
        self.top.insert(name.to_string(), s);
        s
    }

    fn code(&mut self, b: &Binding) -> Code {
        self.code_of(&b.expr, &b.name)
    }

    /// Compiles a top-level expression in a fresh frame.
    fn code_of(&mut self, e: &Expr, name: &str) -> Code {
        self.frames.push(Frame::default());
        let expr = self.expr(e, name);
        let frame = self.frames.pop().map_or(0, |f| f.size);
        Code { expr, frame }
    }

    /// Finds `name` among the locals of frame `depth` or (capturing) of its
    /// enclosing frames.
    fn local(&mut self, depth: usize, name: &str) -> Option<usize> {
        let f = &self.frames[depth];
        if let Some(&(_, i)) = f.scope.iter().rev().find(|(n, _)| n == name) {
            return Some(i);
        }
        if let Some(&(_, i, _)) = f.captures.iter().find(|(n, _, _)| n == name) {
            return Some(i);
        }
        if depth == 0 {
            return None;
        }
        let outer = self.local(depth - 1, name)?;
        let f = &mut self.frames[depth];
        let inner = f.size;
        f.size += 1;
        f.captures.push((name.to_string(), inner, outer));
        Some(inner)
    }

    fn var(&mut self, name: &str, pos: &Pos) -> IExpr {
        if let Some(depth) = self.frames.len().checked_sub(1)
            && let Some(i) = self.local(depth, name)
        {
            return IExpr::Local(i, pos.clone());
        }
        if let Some(&s) = self.top.get(name) {
            self.slots_read.insert(s);
            return IExpr::Slot(s, pos.clone());
        }
        match name {
            "id" => return IExpr::Const(Const::Id),
            "emptyset" => return IExpr::Const(Const::EmptySet),
            "domain" => return IExpr::Builtin(Builtin::Domain),
            "range" => return IExpr::Builtin(Builtin::Range),
            _ => {}
        }
        let i = match self.base_index.get(name) {
            Some(&i) => i,
            None => {
                let i = self.base_names.len();
                self.base_names.push(name.to_string());
                self.base_pos.push(pos.clone());
                self.base_index.insert(name.to_string(), i);
                i
            }
        };
        self.bases_read.insert(i);
        IExpr::Base(i, pos.clone())
    }

    /// The innermost frame (`code_of` always pushes one before compiling).
    fn frame(&mut self) -> &mut Frame {
        if self.frames.is_empty() {
            self.frames.push(Frame::default());
        }
        let last = self.frames.len() - 1;
        &mut self.frames[last]
    }

    fn expr(&mut self, e: &Expr, name: &str) -> IExpr {
        match &e.kind {
            ExprKind::Var(x) => self.var(x, &e.pos),
            ExprKind::Zero => IExpr::Const(Const::Zero),
            ExprKind::EmptySet => IExpr::Const(Const::EmptySet),
            ExprKind::Universe => IExpr::Const(Const::Universe),
            ExprKind::Bin { op, first, rest } => IExpr::Bin(
                *op,
                Box::new(self.expr(first, name)),
                rest.iter()
                    .map(|(p, e)| (p.clone(), self.expr(e, name)))
                    .collect(),
            ),
            ExprKind::Un(op, x) => IExpr::Un(*op, Box::new(self.expr(x, name)), e.pos.clone()),
            ExprKind::Bracket(x) => IExpr::Bracket(Box::new(self.expr(x, name)), e.pos.clone()),
            ExprKind::App(f, args) => IExpr::App(
                Box::new(self.expr(f, name)),
                args.iter().map(|a| self.expr(a, name)).collect(),
                e.pos.clone(),
            ),
            ExprKind::Fun(params, body) => {
                let mut frame = Frame::default();
                let mut idx = Vec::new();
                for p in params {
                    match p {
                        Some(p) => {
                            frame.scope.push((p.clone(), frame.size));
                            idx.push(Some(frame.size));
                            frame.size += 1;
                        }
                        None => idx.push(None),
                    }
                }
                self.frames.push(frame);
                let body = self.expr(body, "fun");
                let frame = self.frames.pop().unwrap_or_default();
                IExpr::Lambda(Arc::new(Lambda {
                    name: name.to_string(),
                    pos: e.pos.clone(),
                    params: idx,
                    captures: frame.captures.iter().map(|c| (c.2, c.1)).collect(),
                    frame: frame.size,
                    body,
                }))
            }
            ExprKind::LetIn(bs, body) => {
                let vals: Vec<IExpr> = bs.iter().map(|b| self.expr(&b.expr, &b.name)).collect();
                let mut binds = Vec::new();
                for (b, v) in bs.iter().zip(vals) {
                    let f = self.frame();
                    let i = f.size;
                    f.size += 1;
                    binds.push((i, v));
                    f.scope.push((b.name.clone(), i));
                }
                let body = self.expr(body, name);
                let f = self.frame();
                let keep = f.scope.len() - bs.len();
                f.scope.truncate(keep);
                IExpr::LetIn(binds, Box::new(body))
            }
        }
    }
}
