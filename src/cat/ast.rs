//! Abstract syntax of the supported cat subset, as produced by the parser
//! (includes already inlined, `show`/`unshow` dropped), with a fully
//! parenthesized [`Display`](std::fmt::Display) used by tests and diagnostics.

use super::error::Pos;
use std::fmt;

/// A `(*@ ... *)` comment: text herd7 ignores and vkmm reads as model
/// profile declarations (`crate::model::profile`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// Where the text starts (just after `(*@`).
    pub pos: Pos,
    /// The text between `(*@` and `*)`.
    pub text: String,
}

/// Infix operators, from lowest to highest precedence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `|`
    Union,
    /// `;`
    Seq,
    /// `\`
    Diff,
    /// `&`
    Inter,
    /// `*` (cartesian product of two sets)
    Cart,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Union => "|",
            BinOp::Seq => ";",
            BinOp::Diff => "\\",
            BinOp::Inter => "&",
            BinOp::Cart => "*",
        }
    }
}

/// Prefix and postfix operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// prefix `~`
    Compl,
    /// postfix `+` / `^+`
    Plus,
    /// postfix `*` / `^*`
    Star,
    /// postfix `?`
    Opt,
    /// postfix `^-1`
    Inv,
}

impl UnOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Compl => "~",
            UnOp::Plus => "+",
            UnOp::Star => "*",
            UnOp::Opt => "?",
            UnOp::Inv => "^-1",
        }
    }
}

/// An expression with the position of its operator (or of itself, for atoms).
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub pos: Pos,
    /// Nesting depth of the tree rooted here (1 for atoms); bounded by the
    /// parser so that every recursive walk stays shallow.
    pub depth: usize,
}

/// Expression forms.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A name (bound by `let`, a parameter, a builtin or a base name).
    Var(String),
    /// `0`: the empty relation (coerced to the empty set where a set is needed).
    Zero,
    /// `{}`: the empty set (coerced to the empty relation where a relation is needed).
    EmptySet,
    /// `_`: every event.
    Universe,
    /// A left-associative chain `first op e1 op e2 ...` of one operator; each
    /// later operand carries the position of the operator before it.
    Bin {
        op: BinOp,
        first: Box<Expr>,
        rest: Vec<(Pos, Expr)>,
    },
    /// A prefix or postfix operator; the node's position is the operator's.
    Un(UnOp, Box<Expr>),
    /// `[e]`: identity on a set.
    Bracket(Box<Expr>),
    /// `f(e1, ..., en)`
    App(Box<Expr>, Vec<Expr>),
    /// `fun x -> e`, `fun (x, y) -> e`; a `_` parameter is `None`.
    Fun(Vec<Option<String>>, Box<Expr>),
    /// `let x = e and y = e' in body` (non-recursive).
    LetIn(Vec<Binding>, Box<Expr>),
}

impl Expr {
    /// Builds a node, computing its depth from its children.
    pub fn new(kind: ExprKind, pos: Pos) -> Expr {
        let child = match &kind {
            ExprKind::Var(_) | ExprKind::Zero | ExprKind::EmptySet | ExprKind::Universe => 0,
            ExprKind::Bin { first, rest, .. } => rest
                .iter()
                .map(|(_, e)| e.depth)
                .fold(first.depth, usize::max),
            ExprKind::Un(_, e) | ExprKind::Bracket(e) | ExprKind::Fun(_, e) => e.depth,
            ExprKind::App(f, args) => args.iter().map(|e| e.depth).fold(f.depth, usize::max),
            ExprKind::LetIn(bs, body) => {
                bs.iter().map(|b| b.expr.depth).fold(body.depth, usize::max)
            }
        };
        Expr {
            kind,
            pos,
            depth: child + 1,
        }
    }
}

/// `name = expr` or `name(params) = expr` (the latter with `expr` a [`ExprKind::Fun`]).
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub pos: Pos,
    pub expr: Expr,
}

/// The three kinds of checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckKind {
    /// `acyclic e`: the relation has no cycle.
    Acyclic,
    /// `irreflexive e`: no event is related to itself.
    Irreflexive,
    /// `empty e`: the set or relation is empty.
    Empty,
}

impl CheckKind {
    /// The keyword as written.
    pub fn keyword(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

/// A top-level statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [rec] b1 and b2 ...`
    Let {
        rec: bool,
        bindings: Vec<Binding>,
        pos: Pos,
    },
    /// `[flag] [~]acyclic|irreflexive|empty e [as name]`
    Check {
        kind: CheckKind,
        negated: bool,
        flag: bool,
        name: Option<String>,
        expr: Expr,
        pos: Pos,
    },
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Var(x) => write!(f, "{x}"),
            ExprKind::Zero => write!(f, "0"),
            ExprKind::EmptySet => write!(f, "{{}}"),
            ExprKind::Universe => write!(f, "_"),
            ExprKind::Bin { op, first, rest } => {
                write!(f, "({first}")?;
                for (_, e) in rest {
                    write!(f, " {} {e}", op.symbol())?;
                }
                write!(f, ")")
            }
            ExprKind::Un(UnOp::Compl, e) => write!(f, "(~{e})"),
            ExprKind::Un(op, e) => write!(f, "({e}{})", op.symbol()),
            ExprKind::Bracket(e) => write!(f, "[{e}]"),
            ExprKind::App(g, args) => {
                write!(f, "{g}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            ExprKind::Fun(params, body) => {
                write!(f, "(fun (")?;
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}", p.as_deref().unwrap_or("_"))?;
                }
                write!(f, ") -> {body})")
            }
            ExprKind::LetIn(bs, body) => {
                write!(f, "(let ")?;
                for (i, b) in bs.iter().enumerate() {
                    if i > 0 {
                        write!(f, " and ")?;
                    }
                    write!(f, "{} = {}", b.name, b.expr)?;
                }
                write!(f, " in {body})")
            }
        }
    }
}
