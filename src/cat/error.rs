//! Error values of the cat front end and interpreter: [`CatError`] (with its
//! source position) and [`Pos`], the position every AST/IR node carries.

use std::fmt;
use std::sync::Arc;

/// A position in a cat source file (1-based line and column, columns counted
/// in characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    /// Display name of the file.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
}

impl Pos {
    /// A position in `file`.
    pub fn new(file: &Arc<str>, line: usize, col: usize) -> Pos {
        Pos {
            file: Arc::clone(file),
            line,
            col,
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// What went wrong, coarsely (the message says precisely).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CatErrorKind {
    /// Malformed source: bad character, unexpected token, unterminated comment...
    Syntax,
    /// A construct of herd's cat language this interpreter does not implement.
    Unsupported,
    /// An `include` that cannot be resolved, or an include cycle.
    Include,
    /// A malformed `(*@ ... *)` model profile declaration, or one naming a
    /// file that cannot be found or a binding the model lacks.
    Profile,
    /// An identifier with no binding at evaluation time.
    Unbound,
    /// An operator or function applied to a value of the wrong kind.
    Type,
    /// Any other evaluation failure (non-terminating `let rec`, recursion too
    /// deep, universe mismatch...).
    Eval,
    /// The evaluation stopped because the request's deadline passed
    /// ([`super::EvalBounds`]): not a fault of the model; the answer is
    /// undecided.
    TimeLimit,
    /// The evaluation stopped because the process held more memory than
    /// the request's bound ([`super::EvalBounds`]): the answer is
    /// undecided.
    MemoryBound,
}

/// An error of the cat front end or interpreter, with the position it refers to.
///
/// Displayed as `file:line:col: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {message}")]
pub struct CatError {
    /// Coarse classification.
    pub kind: CatErrorKind,
    /// Display name of the file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// What was expected / what went wrong.
    pub message: String,
}

impl CatError {
    /// An error at `pos`.
    pub fn at(kind: CatErrorKind, pos: &Pos, message: impl Into<String>) -> CatError {
        CatError {
            kind,
            file: pos.file.to_string(),
            line: pos.line,
            col: pos.col,
            message: message.into(),
        }
    }

    /// A syntax error at `pos`.
    pub fn syntax(pos: &Pos, message: impl Into<String>) -> CatError {
        Self::at(CatErrorKind::Syntax, pos, message)
    }

    /// An "unsupported cat construct" error at `pos`.
    pub fn unsupported(pos: &Pos, construct: &str) -> CatError {
        Self::at(
            CatErrorKind::Unsupported,
            pos,
            format!("unsupported cat construct `{construct}`"),
        )
    }

    /// A type error at `pos`.
    pub fn type_error(pos: &Pos, message: impl Into<String>) -> CatError {
        Self::at(CatErrorKind::Type, pos, message)
    }

    /// An evaluation error at `pos`.
    pub fn eval(pos: &Pos, message: impl Into<String>) -> CatError {
        Self::at(CatErrorKind::Eval, pos, message)
    }
}
