//! Recursive-descent parser from tokens to the [`ast`](super::ast), inlining
//! `include`d files (with cycle detection) and dropping `show`/`unshow`.
//!
//! Precedence, lowest to highest: `|`, `;`, `\`, `&`, infix `*` (cartesian
//! product), prefix `~`, postfix `+ * ? ^-1 ^+ ^*` and application. A `*` is
//! the infix product when the next token can start an operand, else postfix.

use super::ast::{Annotation, BinOp, Binding, CheckKind, Expr, ExprKind, Stmt, UnOp};
use super::error::{CatError, CatErrorKind, Pos};
use super::lexer::{Kw, Tok, Token, tokenize, tokenize_annotated};
use std::sync::Arc;

/// Deepest expression nesting accepted (keeps every recursive walk, and the
/// stack, bounded).
pub const MAX_DEPTH: usize = 100;
/// Deepest include nesting accepted.
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Resolves an include name to `(display name, source)`.
pub type Resolver<'r> = &'r dyn Fn(&str) -> Option<(String, String)>;

/// The result of parsing a model and everything it includes.
#[derive(Debug)]
pub struct Parsed {
    pub title: Option<String>,
    pub stmts: Vec<Stmt>,
    /// The `(*@ ... *)` comments of every file, each file's after those of
    /// the files it includes (so a later one overrides an earlier one the
    /// way an including file overrides what it includes).
    pub annotations: Vec<Annotation>,
}

/// Parses the model `source` (named `file_name`), inlining its includes.
pub fn parse_model(
    file_name: &str,
    source: &str,
    resolve: Resolver<'_>,
) -> Result<Parsed, CatError> {
    let mut out = Output::default();
    let mut stack = vec![file_name.to_string()];
    let title = parse_file(file_name, source, resolve, &mut stack, &mut out)?;
    Ok(Parsed {
        title,
        stmts: out.stmts,
        annotations: out.annotations,
    })
}

/// Parses a single expression (used by tests and diagnostics).
pub fn parse_expr(file_name: &str, source: &str) -> Result<Expr, CatError> {
    let file: Arc<str> = Arc::from(file_name);
    let toks = tokenize(&file, source)?;
    let mut stack = Vec::new();
    let no_include = |_: &str| None;
    let mut p = Parser {
        toks,
        i: 0,
        nest: 0,
        resolve: &no_include,
        stack: &mut stack,
        out: &mut Output::default(),
    };
    let e = p.expr()?;
    p.expect(&Tok::Eof, "end of expression")?;
    Ok(e)
}

fn parse_file(
    file_name: &str,
    source: &str,
    resolve: Resolver<'_>,
    stack: &mut Vec<String>,
    out: &mut Output,
) -> Result<Option<String>, CatError> {
    let file: Arc<str> = Arc::from(file_name);
    let (toks, annotations) = tokenize_annotated(&file, source)?;
    let mut p = Parser {
        toks,
        i: 0,
        nest: 0,
        resolve,
        stack,
        out: &mut *out,
    };
    let title = match &p.peek().tok {
        Tok::Str(s) => {
            let s = s.clone();
            p.bump();
            Some(s)
        }
        _ => None,
    };
    p.statements()?;
    out.annotations.extend(annotations);
    Ok(title)
}

/// What parsing a model and its includes accumulates.
#[derive(Default)]
struct Output {
    stmts: Vec<Stmt>,
    annotations: Vec<Annotation>,
}

struct Parser<'r, 'o> {
    toks: Vec<Token>,
    i: usize,
    /// Current recursion depth of expression parsing.
    nest: usize,
    resolve: Resolver<'r>,
    stack: &'o mut Vec<String>,
    out: &'o mut Output,
}

/// Whether a token can start an operand (decides infix vs postfix `*`).
fn starts_operand(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Ident(_)
            | Tok::LParen
            | Tok::LBracket
            | Tok::Tilde
            | Tok::Underscore
            | Tok::Int(_)
            | Tok::LBrace
    )
}

/// Binding strength of the binary operators (higher binds tighter).
fn precedence(op: BinOp) -> usize {
    match op {
        BinOp::Union => 0,
        BinOp::Seq => 1,
        BinOp::Diff => 2,
        BinOp::Inter => 3,
        BinOp::Cart => 4,
    }
}

impl Parser<'_, '_> {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof and `i` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    fn peek_at(&self, k: usize) -> &Token {
        &self.toks[(self.i + k).min(self.toks.len() - 1)]
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn at(&self, t: &Tok) -> bool {
        &self.peek().tok == t
    }

    fn err_expected(&self, what: &str) -> CatError {
        let t = self.peek();
        CatError::syntax(&t.pos, format!("expected {what}, found {}", t.tok))
    }

    fn expect(&mut self, t: &Tok, what: &str) -> Result<Token, CatError> {
        if self.at(t) {
            Ok(self.bump())
        } else {
            Err(self.err_expected(what))
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, Pos), CatError> {
        match &self.peek().tok {
            Tok::Ident(s) => {
                let r = (s.clone(), self.peek().pos.clone());
                self.bump();
                Ok(r)
            }
            Tok::Kw(Kw::Unsupported(w)) => Err(CatError::unsupported(&self.peek().pos, w)),
            _ => Err(self.err_expected(what)),
        }
    }

    fn enter(&mut self) -> Result<(), CatError> {
        self.nest += 1;
        if self.nest > MAX_DEPTH {
            Err(CatError::syntax(
                &self.peek().pos,
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
            ))
        } else {
            Ok(())
        }
    }

    fn leave(&mut self) {
        self.nest -= 1;
    }

    fn node(&self, kind: ExprKind, pos: Pos) -> Result<Expr, CatError> {
        let e = Expr::new(kind, pos);
        if e.depth > MAX_DEPTH {
            Err(CatError::syntax(
                &e.pos,
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
            ))
        } else {
            Ok(e)
        }
    }

    // ----------------------------------------------------------------------
    // Statements
    // ----------------------------------------------------------------------

    fn statements(&mut self) -> Result<(), CatError> {
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::Eof => return Ok(()),
                Tok::Kw(Kw::Let) => {
                    let s = self.let_stmt()?;
                    self.out.stmts.push(s);
                }
                Tok::Kw(Kw::Include) => self.include()?,
                Tok::Kw(Kw::Flag) => {
                    self.bump();
                    let s = self.check(true, t.pos)?;
                    self.out.stmts.push(s);
                }
                Tok::Tilde | Tok::Kw(Kw::Acyclic | Kw::Irreflexive | Kw::Empty) => {
                    let s = self.check(false, t.pos)?;
                    self.out.stmts.push(s);
                }
                Tok::Kw(Kw::Show | Kw::Unshow) => self.show()?,
                Tok::Kw(Kw::Unsupported(w)) => return Err(CatError::unsupported(&t.pos, w)),
                Tok::PlusPlus => return Err(CatError::unsupported(&t.pos, "++")),
                Tok::Tag(_) => return Err(CatError::unsupported(&t.pos, "'tag")),
                _ => {
                    return Err(self.err_expected(
                        "a statement (`let`, `include`, `acyclic`, `irreflexive`, `empty`, \
                         `flag`, `show`)",
                    ));
                }
            }
        }
    }

    fn let_stmt(&mut self) -> Result<Stmt, CatError> {
        let pos = self.bump().pos;
        let rec = if self.at(&Tok::Kw(Kw::Rec)) {
            self.bump();
            true
        } else {
            false
        };
        let bindings = self.bindings()?;
        // herd accepts (and ignores) an `in` after a top-level `let`.
        if self.at(&Tok::Kw(Kw::In)) {
            self.bump();
        }
        Ok(Stmt::Let { rec, bindings, pos })
    }

    fn bindings(&mut self) -> Result<Vec<Binding>, CatError> {
        let mut out = vec![self.binding()?];
        while self.at(&Tok::Kw(Kw::And)) {
            self.bump();
            out.push(self.binding()?);
        }
        Ok(out)
    }

    fn binding(&mut self) -> Result<Binding, CatError> {
        if self.at(&Tok::LParen) {
            return Err(CatError::unsupported(&self.peek().pos, "tuple pattern"));
        }
        let (name, pos) = self.ident("a name to bind")?;
        let params = if self.at(&Tok::LParen) {
            self.bump();
            let ps = self.params()?;
            Some(ps)
        } else if matches!(self.peek().tok, Tok::Ident(_) | Tok::Underscore) {
            return Err(CatError::unsupported(
                &self.peek().pos,
                "function definition without parentheses",
            ));
        } else {
            None
        };
        self.expect(&Tok::Equal, "`=`")?;
        let body = self.expr()?;
        let expr = match params {
            Some(ps) => self.node(ExprKind::Fun(ps, Box::new(body)), pos.clone())?,
            None => body,
        };
        Ok(Binding { name, pos, expr })
    }

    /// Formal parameters after `(`, up to and including `)`.
    fn params(&mut self) -> Result<Vec<Option<String>>, CatError> {
        let mut ps = Vec::new();
        if self.at(&Tok::RParen) {
            self.bump();
            return Ok(ps);
        }
        loop {
            match &self.peek().tok {
                Tok::Underscore => {
                    self.bump();
                    ps.push(None);
                }
                _ => ps.push(Some(self.ident("a parameter name")?.0)),
            }
            if self.at(&Tok::Comma) {
                self.bump();
            } else {
                self.expect(&Tok::RParen, "`,` or `)`")?;
                return Ok(ps);
            }
        }
    }

    fn include(&mut self) -> Result<(), CatError> {
        let pos = self.bump().pos;
        let name = match &self.peek().tok {
            Tok::Str(s) => s.clone(),
            _ => return Err(self.err_expected("a quoted file name after `include`")),
        };
        self.bump();
        let Some((display, source)) = (self.resolve)(&name) else {
            return Err(CatError::at(
                CatErrorKind::Include,
                &pos,
                format!("cannot find included file \"{name}\""),
            ));
        };
        if self.stack.contains(&display) {
            let mut chain = self.stack.join(" -> ");
            chain.push_str(" -> ");
            chain.push_str(&display);
            return Err(CatError::at(
                CatErrorKind::Include,
                &pos,
                format!("include cycle: {chain}"),
            ));
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(CatError::at(
                CatErrorKind::Include,
                &pos,
                format!("includes nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)"),
            ));
        }
        self.stack.push(display.clone());
        parse_file(&display, &source, self.resolve, self.stack, self.out)?;
        self.stack.pop();
        Ok(())
    }

    fn check(&mut self, flag: bool, pos: Pos) -> Result<Stmt, CatError> {
        let negated = if self.at(&Tok::Tilde) {
            self.bump();
            true
        } else {
            false
        };
        let kind = match self.peek().tok {
            Tok::Kw(Kw::Acyclic) => CheckKind::Acyclic,
            Tok::Kw(Kw::Irreflexive) => CheckKind::Irreflexive,
            Tok::Kw(Kw::Empty) => CheckKind::Empty,
            Tok::Kw(Kw::Unsupported(w)) => return Err(CatError::unsupported(&self.peek().pos, w)),
            _ => return Err(self.err_expected("`acyclic`, `irreflexive` or `empty`")),
        };
        self.bump();
        let expr = self.expr()?;
        let name = if self.at(&Tok::Kw(Kw::As)) {
            self.bump();
            Some(self.check_name()?)
        } else {
            None
        };
        Ok(Stmt::Check {
            kind,
            negated,
            flag,
            name,
            expr,
            pos,
        })
    }

    /// A check or show name: words joined by `-` with no space around it
    /// (e.g. `sc-per-loc`, `data-race`).
    fn check_name(&mut self) -> Result<String, CatError> {
        fn word(t: &Tok) -> Option<String> {
            match t {
                Tok::Ident(s) | Tok::Int(s) => Some(s.clone()),
                Tok::Kw(k) => Some(k.text().to_string()),
                _ => None,
            }
        }
        let Some(mut name) = word(&self.peek().tok) else {
            return Err(self.err_expected("a name after `as`"));
        };
        let mut end = self.bump().end;
        loop {
            let (minus, next) = (self.peek(), self.peek_at(1));
            if minus.tok != Tok::Minus || minus.start != end || next.start != minus.end {
                return Ok(name);
            }
            let Some(w) = word(&next.tok) else {
                return Ok(name);
            };
            name.push('-');
            name.push_str(&w);
            self.bump();
            end = self.bump().end;
        }
    }

    /// `show e, e', ... [as name]` / `unshow ...`: parsed and dropped.
    fn show(&mut self) -> Result<(), CatError> {
        self.bump();
        self.expr()?;
        while self.at(&Tok::Comma) {
            self.bump();
            self.expr()?;
        }
        if self.at(&Tok::Kw(Kw::As)) {
            self.bump();
            self.check_name()?;
        }
        Ok(())
    }

    // ----------------------------------------------------------------------
    // Expressions
    // ----------------------------------------------------------------------

    fn expr(&mut self) -> Result<Expr, CatError> {
        self.enter()?;
        let r = match self.peek().tok {
            Tok::Kw(Kw::Let) => self.let_in(),
            Tok::Kw(Kw::Fun) => self.lambda(),
            _ => self.binary(0),
        };
        self.leave();
        r
    }

    fn let_in(&mut self) -> Result<Expr, CatError> {
        let pos = self.bump().pos;
        if self.at(&Tok::Kw(Kw::Rec)) {
            return Err(CatError::unsupported(&pos, "let rec ... in"));
        }
        let bindings = self.bindings()?;
        self.expect(&Tok::Kw(Kw::In), "`in` (or `and`)")?;
        let body = self.expr()?;
        self.node(ExprKind::LetIn(bindings, Box::new(body)), pos)
    }

    fn lambda(&mut self) -> Result<Expr, CatError> {
        let pos = self.bump().pos;
        let params = match &self.peek().tok {
            Tok::LParen => {
                self.bump();
                self.params()?
            }
            Tok::Underscore => {
                self.bump();
                vec![None]
            }
            _ => vec![Some(self.ident("a parameter after `fun`")?.0)],
        };
        self.expect(&Tok::Arrow, "`->`")?;
        let body = self.expr()?;
        self.node(ExprKind::Fun(params, Box::new(body)), pos)
    }

    /// The binary operator at the current token, if any.
    fn peek_binop(&self) -> Option<BinOp> {
        match self.peek().tok {
            Tok::Bar => Some(BinOp::Union),
            Tok::Semi => Some(BinOp::Seq),
            Tok::Backslash => Some(BinOp::Diff),
            Tok::Amp => Some(BinOp::Inter),
            Tok::Star if starts_operand(&self.peek_at(1).tok) => Some(BinOp::Cart),
            _ => None,
        }
    }

    /// Precedence climbing over the binary operators of precedence at least
    /// `min`; a run of one operator becomes a single n-ary node.
    fn binary(&mut self, min: usize) -> Result<Expr, CatError> {
        let lhs = self.prefix()?;
        self.binary_rest(lhs, min)
    }

    /// The operators after a first operand `lhs` (kept out of `binary` so
    /// that the recursion through operands uses little stack).
    #[inline(never)]
    fn binary_rest(&mut self, mut lhs: Expr, min: usize) -> Result<Expr, CatError> {
        while let Some(op) = self.peek_binop() {
            let prec = precedence(op);
            if prec < min {
                break;
            }
            let mut rest = Vec::new();
            while self.peek_binop() == Some(op) {
                let pos = self.bump().pos;
                rest.push((pos, self.binary(prec + 1)?));
            }
            let pos = rest[0].0.clone();
            lhs = self.node(
                ExprKind::Bin {
                    op,
                    first: Box::new(lhs),
                    rest,
                },
                pos,
            )?;
        }
        Ok(lhs)
    }

    fn prefix(&mut self) -> Result<Expr, CatError> {
        if self.at(&Tok::Tilde) {
            self.complement()
        } else {
            let e = self.atom()?;
            self.postfix(e)
        }
    }

    #[inline(never)]
    fn complement(&mut self) -> Result<Expr, CatError> {
        let pos = self.bump().pos;
        self.enter()?;
        let e = self.prefix();
        self.leave();
        self.node(ExprKind::Un(UnOp::Compl, Box::new(e?)), pos)
    }

    /// Postfix operators and applications after the atom `e`.
    #[inline(never)]
    fn postfix(&mut self, mut e: Expr) -> Result<Expr, CatError> {
        loop {
            let t = self.peek().clone();
            let op = match t.tok {
                Tok::Plus => UnOp::Plus,
                Tok::Question => UnOp::Opt,
                Tok::Star if !starts_operand(&self.peek_at(1).tok) => UnOp::Star,
                Tok::Caret => {
                    self.bump();
                    match (&self.peek().tok, &self.peek_at(1).tok) {
                        (Tok::Minus, Tok::Int(one)) if one == "1" => {
                            self.bump();
                            UnOp::Inv
                        }
                        (Tok::Plus, _) => UnOp::Plus,
                        (Tok::Star, _) => UnOp::Star,
                        _ => return Err(self.err_expected("`-1`, `+` or `*` after `^`")),
                    }
                }
                Tok::LParen if matches!(e.kind, ExprKind::Var(_) | ExprKind::App(..)) => {
                    e = self.apply(e)?;
                    continue;
                }
                _ => return Ok(e),
            };
            self.bump();
            e = self.node(ExprKind::Un(op, Box::new(e)), t.pos)?;
        }
    }

    /// `e(args)`, at the `(`.
    #[inline(never)]
    fn apply(&mut self, e: Expr) -> Result<Expr, CatError> {
        self.bump();
        let args = self.args()?;
        let pos = e.pos.clone();
        self.node(ExprKind::App(Box::new(e), args), pos)
    }

    /// Call arguments after `(`, up to and including `)`.
    fn args(&mut self) -> Result<Vec<Expr>, CatError> {
        let mut args = Vec::new();
        if self.at(&Tok::RParen) {
            self.bump();
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.at(&Tok::Comma) {
                self.bump();
            } else {
                self.expect(&Tok::RParen, "`,` or `)`")?;
                return Ok(args);
            }
        }
    }

    fn atom(&mut self) -> Result<Expr, CatError> {
        let t = self.peek().clone();
        let kind = match &t.tok {
            Tok::Ident(x) => ExprKind::Var(x.clone()),
            Tok::Underscore => ExprKind::Universe,
            Tok::Int(n) if n.bytes().all(|b| b == b'0') => ExprKind::Zero,
            Tok::Int(n) => {
                return Err(CatError::syntax(
                    &t.pos,
                    format!("unexpected number `{n}` (the only numeric constant is `0`)"),
                ));
            }
            Tok::LBrace => {
                self.bump();
                if !self.at(&Tok::RBrace) {
                    return Err(CatError::unsupported(&t.pos, "explicit set {...}"));
                }
                ExprKind::EmptySet
            }
            Tok::LParen => {
                self.bump();
                if self.at(&Tok::RParen) {
                    return Err(CatError::unsupported(&t.pos, "()"));
                }
                let e = self.expr()?;
                if self.at(&Tok::Comma) {
                    return Err(CatError::unsupported(&t.pos, "tuple"));
                }
                self.expect(&Tok::RParen, "`)`")?;
                return Ok(e);
            }
            Tok::LBracket => {
                self.bump();
                let e = self.expr()?;
                self.expect(&Tok::RBracket, "`]`")?;
                return self.node(ExprKind::Bracket(Box::new(e)), t.pos);
            }
            Tok::Kw(Kw::Let | Kw::Fun) => return self.expr(),
            Tok::Kw(Kw::Unsupported(w)) => return Err(CatError::unsupported(&t.pos, w)),
            Tok::PlusPlus => return Err(CatError::unsupported(&t.pos, "++")),
            Tok::Tag(_) => return Err(CatError::unsupported(&t.pos, "'tag")),
            _ => return Err(self.err_expected("an expression")),
        };
        self.bump();
        self.node(kind, t.pos)
    }
}
