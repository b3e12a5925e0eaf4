//! The final section of a herd litmus test and its condition grammar,
//! parsed once for both dialects (see the grammar in the module docs of
//! [`super`]). Names resolve against the test's [`Symbols`].

use super::lexer::{Lexer, PErr, R, Src, Tok, Token, thread_of};
use crate::ir::{Cmp, CondExpr, Condition, Quantifier, Symbols, Term};

/// How deeply parentheses, negations and implications may nest.
pub(crate) use crate::frontend::MAX_NESTING;

/// A chain `a /\ b /\ ...` is folded to the left (`(a /\ b) /\ ...`) while
/// that keeps the tree at most this tall; a longer chain is folded into a
/// balanced tree, so that a long flat chain makes a shallow tree (every
/// consumer of a [`CondExpr`] recurses over it).
pub(crate) const MAX_LEFT_FOLD_HEIGHT: usize = 256;

/// How a dialect writes conditions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CondSyntax {
    /// `!` negates, besides `~` and `not` (C style: the OpenCL dialect).
    pub(crate) bang_negation: bool,
    /// A location may be an instance of a per-workgroup variable,
    /// `y@wg0` or `y@dev1.wg0` (the OpenCL dialect).
    pub(crate) instance_names: bool,
    /// How [`Condition::text`] is written.
    pub(crate) text: TextStyle,
    /// The SPIR-V headers' spelling (Dat3M `@Output`): `and`, `or` for
    /// `/\`, `\/`, and locations `%id` with indices into the variable's
    /// layout, `%x[0][2]`.
    pub(crate) spirv: bool,
}

/// How [`Condition::text`] reproduces the clauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextStyle {
    /// The source text, whitespace runs made one space.
    Source,
    /// The tokens, separated by one space.
    Tokens,
}

/// What the final section declares.
#[derive(Debug, Default)]
pub(crate) struct Final {
    pub(crate) condition: Option<Condition>,
    /// `locations [...]`, as location indices.
    pub(crate) shown_locations: Vec<usize>,
}

/// Parses the final section from the lexer's position to its end.
pub(crate) fn final_section(
    lx: &mut Lexer<'_>,
    syntax: &CondSyntax,
    symbols: &Symbols,
) -> R<Final> {
    let mut out = Final::default();
    let mut quantified: Option<(Quantifier, CondExpr, usize, usize)> = None;
    let mut filter: Option<(CondExpr, usize, usize)> = None;
    let mut locations_seen = false;
    loop {
        let t = lx.next()?;
        match &t.tok {
            Tok::Eof => break,
            Tok::Punct(";") => continue,
            Tok::Ident(s) if s == "locations" => {
                if locations_seen {
                    return Err((t.at, "`locations` given twice".into()));
                }
                locations_seen = true;
                locations_list(lx, syntax, symbols, &mut out.shown_locations)?;
            }
            Tok::Ident(s) if s == "filter" => {
                if filter.is_some() {
                    return Err((t.at, "a test has at most one `filter`".into()));
                }
                let e = expression(lx, syntax, symbols)?;
                filter = Some((e, t.at, lx.pos));
            }
            _ => {
                let q = if t.is_ident("exists") {
                    Quantifier::Exists
                } else if t.is_ident("forall") {
                    Quantifier::Forall
                } else if t.is_punct("~") || t.is_ident("not") {
                    let e = lx.next()?;
                    if !e.is_ident("exists") {
                        return Err((
                            e.at,
                            format!("expected `exists` after {}, found {}", t.show(), e.show()),
                        ));
                    }
                    Quantifier::NotExists
                } else {
                    let note = if t.is_ident("final") || t.is_ident("observed") {
                        " (herd's `final ... with` and `observed` forms are not supported)"
                    } else {
                        ""
                    };
                    return Err((
                        t.at,
                        format!(
                            "expected `exists`, `~exists`, `forall`, `filter` or `locations`, found {}{note}",
                            t.show()
                        ),
                    ));
                };
                if quantified.is_some() {
                    return Err((
                        t.at,
                        "a test has one final condition (`exists`, `~exists` or `forall`)".into(),
                    ));
                }
                let e = expression(lx, syntax, symbols)?;
                quantified = Some((q, e, t.at, lx.pos));
            }
        }
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    spans.extend(quantified.as_ref().map(|q| (q.2, q.3)));
    spans.extend(filter.as_ref().map(|f| (f.1, f.2)));
    spans.sort();
    let text = spans
        .iter()
        .map(|&(a, b)| clause_text(lx, syntax.text, a, b))
        .collect::<Vec<_>>()
        .join(" ");
    out.condition = match (quantified, filter) {
        (None, None) => None,
        (q, f) => Some(Condition {
            quantifier: q.as_ref().map(|q| q.0),
            expr: q.map(|q| q.1).unwrap_or(CondExpr::True),
            filter: f.map(|f| f.0),
            text,
        }),
    };
    Ok(out)
}

/// The text of the clause at `a..b`.
fn clause_text(lx: &Lexer<'_>, style: TextStyle, a: usize, b: usize) -> String {
    let src = lx.src();
    match style {
        TextStyle::Source => src
            .text(a, b)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        TextStyle::Tokens => {
            let mut l = lx.range(a, b);
            let mut words = Vec::new();
            while let Ok(t) = l.next() {
                words.push(match t.tok {
                    Tok::Eof => break,
                    Tok::Ident(s) | Tok::Float(s) => s,
                    Tok::Int(d) => d.parse::<i64>().map(|v| v.to_string()).unwrap_or(d),
                    Tok::Punct(p) => p.to_string(),
                    Tok::Other(c) => c.to_string(),
                });
            }
            words.join(" ")
        }
    }
}

fn locations_list(
    lx: &mut Lexer<'_>,
    syntax: &CondSyntax,
    symbols: &Symbols,
    out: &mut Vec<usize>,
) -> R<()> {
    let open = lx.expect("[", "after `locations`")?;
    loop {
        let t = lx.peek()?;
        match &t.tok {
            Tok::Punct("]") => {
                lx.next()?;
                return Ok(());
            }
            Tok::Punct(";") => {
                lx.next()?;
            }
            Tok::Eof => {
                return Err((open.at, "unterminated `locations [`: expected `]`".into()));
            }
            Tok::Ident(_) if !lx.peek2()?.is_punct(":") => {
                let (name, at) = location_name(lx, syntax)?;
                // The bare name of a per-workgroup variable shows every instance.
                for &loc in resolve(symbols, &name, at)? {
                    if !out.contains(&loc) {
                        out.push(loc);
                    }
                }
            }
            _ => {
                return Err((
                    t.at,
                    format!(
                        "expected a location name in `locations [...]` (registers are always shown), found {}",
                        t.show()
                    ),
                ));
            }
        }
    }
}

/// A condition expression (the outcome of `--outcome`, or the body of a
/// clause).
pub(crate) fn expression(
    lx: &mut Lexer<'_>,
    syntax: &CondSyntax,
    symbols: &Symbols,
) -> R<CondExpr> {
    let mut p = CondParser {
        lx,
        syntax,
        symbols,
    };
    Ok(p.disjunction(0)?.0)
}

/// An expression with the height of its tree.
type Sized = (CondExpr, usize);

struct CondParser<'a, 'l, 's> {
    lx: &'a mut Lexer<'s>,
    syntax: &'l CondSyntax,
    symbols: &'l Symbols,
}

/// One side of a comparison as read: a term, or a float literal with
/// where it starts (its bits are known once the other side is).
enum Operand {
    Term(Term),
    Float(String, usize),
}

/// Folds a chain of operands of one associative operator.
fn fold(mut items: Vec<Sized>, op: fn(Box<CondExpr>, Box<CondExpr>) -> CondExpr) -> Sized {
    let left_height = items
        .iter()
        .skip(1)
        .fold(items[0].1, |h, (_, hi)| 1 + h.max(*hi));
    if left_height <= MAX_LEFT_FOLD_HEIGHT {
        let mut it = items.into_iter();
        let first = it.next().map(|x| x.0).unwrap_or(CondExpr::True);
        let e = it.fold(first, |acc, (e, _)| op(Box::new(acc), Box::new(e)));
        return (e, left_height);
    }
    // Balanced: pair neighbours until one is left (no recursion).
    while items.len() > 1 {
        let mut next = Vec::with_capacity(items.len().div_ceil(2));
        let mut it = items.into_iter();
        while let Some((a, ha)) = it.next() {
            match it.next() {
                Some((b, hb)) => next.push((op(Box::new(a), Box::new(b)), 1 + ha.max(hb))),
                None => next.push((a, ha)),
            }
        }
        items = next;
    }
    items.pop().unwrap_or((CondExpr::True, 0))
}

impl CondParser<'_, '_, '_> {
    fn peek(&self) -> R<Token> {
        self.lx.peek()
    }

    /// `conj ('\/' conj)*`
    fn disjunction(&mut self, depth: usize) -> R<Sized> {
        self.chain(depth, "\\/", Self::conjunction, CondExpr::Or)
    }

    /// `impl ('/\' impl)*`
    fn conjunction(&mut self, depth: usize) -> R<Sized> {
        self.chain(depth, "/\\", Self::implication, CondExpr::And)
    }

    /// `operand (op operand)*`, read in a loop and folded by [`fold`].
    fn chain(
        &mut self,
        depth: usize,
        op: &str,
        operand: fn(&mut Self, usize) -> R<Sized>,
        node: fn(Box<CondExpr>, Box<CondExpr>) -> CondExpr,
    ) -> R<Sized> {
        let word = match op {
            "\\/" => "or",
            _ => "and",
        };
        let mut items = vec![operand(self, depth)?];
        while self.peek()?.is_punct(op) || (self.syntax.spirv && self.peek()?.is_ident(word)) {
            self.lx.next()?;
            items.push(operand(self, depth)?);
        }
        Ok(fold(items, node))
    }

    /// `unary ('=>' impl)?`: herd's implication, right-associative and
    /// binding tighter than `/\`; `a => b` means `~a \/ b`.
    fn implication(&mut self, depth: usize) -> R<Sized> {
        let (a, ha) = self.unary(depth)?;
        if !self.peek()?.is_punct("=>") {
            return Ok((a, ha));
        }
        self.lx.next()?;
        let (b, hb) = self.implication_rhs(depth + 1)?;
        let not_a = CondExpr::Not(Box::new(a));
        Ok((CondExpr::Or(Box::new(not_a), Box::new(b)), 2 + ha.max(hb)))
    }

    fn implication_rhs(&mut self, depth: usize) -> R<Sized> {
        self.check_depth(depth)?;
        self.implication(depth)
    }

    fn check_depth(&self, depth: usize) -> R<()> {
        if depth >= MAX_NESTING {
            let t = self.peek()?;
            return Err((
                t.at,
                format!("condition nesting deeper than {MAX_NESTING} levels"),
            ));
        }
        Ok(())
    }

    fn unary(&mut self, depth: usize) -> R<Sized> {
        self.check_depth(depth)?;
        let t = self.peek()?;
        if t.is_punct("~") || t.is_ident("not") || (self.syntax.bang_negation && t.is_punct("!")) {
            self.lx.next()?;
            let (e, h) = self.unary(depth + 1)?;
            return Ok((CondExpr::Not(Box::new(e)), h + 1));
        }
        if t.is_punct("(") {
            self.lx.next()?;
            let e = self.disjunction(depth + 1)?;
            let close = self.lx.next()?;
            if !close.is_punct(")") {
                let (line, col) = self.lx.src().line_col(t.at);
                return Err((
                    close.at,
                    format!(
                        "expected `)` to close the `(` at {line}:{col}, found {}",
                        close.show()
                    ),
                ));
            }
            return Ok(e);
        }
        if t.is_ident("true") || t.is_ident("false") {
            self.lx.next()?;
            let e = if t.is_ident("true") {
                CondExpr::True
            } else {
                CondExpr::False
            };
            return Ok((e, 1));
        }
        let a = self.operand()?;
        let op = self.lx.next()?;
        // Dat3M's litmus assertions (LitmusAssertions.g4,
        // `assertionCompare`): `==` / `=`, `!=`, `>=`, `<=`, `<`, `>`.
        enum Op {
            Eq,
            Ne,
            Cmp(Cmp),
        }
        let kind = if op.is_punct("==") || op.is_punct("=") {
            Op::Eq
        } else if op.is_punct("!=") {
            Op::Ne
        } else if let Some(c) = [
            ("<", Cmp::Lt),
            ("<=", Cmp::Le),
            (">", Cmp::Gt),
            (">=", Cmp::Ge),
        ]
        .iter()
        .find(|(p, _)| op.is_punct(p))
        .map(|(_, c)| *c)
        {
            Op::Cmp(c)
        } else {
            return Err((
                op.at,
                format!(
                    "expected a comparison (==, =, !=, <, <=, > or >=), found {}",
                    op.show()
                ),
            ));
        };
        let b = self.operand()?;
        let (a, b) = self.floats_at_kinds(a, b, matches!(kind, Op::Cmp(_)))?;
        let e = match kind {
            Op::Eq => CondExpr::Eq(a, b),
            Op::Ne => CondExpr::Ne(a, b),
            Op::Cmp(c) => CondExpr::Cmp(c, a, b),
        };
        Ok((e, 1))
    }

    /// A term, or a float literal (`1.5`, `-0.0`, `2e-3`, `inf`, `-inf`:
    /// SPIR-V conditions only), whose bits depend on the location it is
    /// compared with ([`CondParser::floats_at_kinds`]).
    fn operand(&mut self) -> R<Operand> {
        if self.syntax.spirv {
            let t = self.peek()?;
            let (neg, lit) = if t.is_punct("-") {
                (true, self.lx.peek2()?)
            } else {
                (false, t.clone())
            };
            let text = match &lit.tok {
                Tok::Float(f) => Some(f.clone()),
                Tok::Ident(i) if i == "inf" && source_cell(self.lx, self.symbols).is_none() => {
                    Some(i.clone())
                }
                _ => None,
            };
            if let Some(text) = text {
                self.lx.next()?;
                if neg {
                    self.lx.next()?;
                }
                let text = if neg { format!("-{text}") } else { text };
                return Ok(Operand::Float(text, t.at));
            }
        }
        self.term().map(Operand::Term)
    }

    /// The two sides of a comparison as terms: a float literal becomes the
    /// bits of its value at the width of the float location on the other
    /// side (`%out[0] == 1.5`: a 32-bit float's bits). A float literal
    /// compared with anything else, and an order (`<`, ...) on a float
    /// location (its bits do not order as its values), are errors.
    fn floats_at_kinds(&self, a: Operand, b: Operand, order: bool) -> R<(Term, Term)> {
        use crate::ir::ValueKind;
        let kind_of = |t: &Term| match t {
            Term::Loc(l) => self.symbols.kinds.get(l).copied(),
            _ => None,
        };
        if order {
            for o in [&a, &b] {
                if let Operand::Term(t) = o
                    && let Some(k @ ValueKind::Float(_)) = kind_of(t)
                {
                    return Err((
                        self.lx.pos,
                        format!(
                            "an order (`<`, `<=`, `>`, `>=`) on a float location ({}): vkmm compares float values with `==` and `!=` only",
                            k.name()
                        ),
                    ));
                }
            }
        }
        let resolve = |lit: &str, at: usize, other: &Term| -> R<Term> {
            match (other, kind_of(other)) {
                (Term::Loc(_), Some(k)) => k.float_bits(lit).map(Term::Const).map_err(|m| (at, m)),
                (Term::Loc(_), None) => Err((
                    at,
                    format!("`{lit}` is a float, but the location holds an integer"),
                )),
                _ => Err((
                    at,
                    format!("`{lit}` is a float: a float literal compares with a float location"),
                )),
            }
        };
        match (a, b) {
            (Operand::Term(a), Operand::Term(b)) => Ok((a, b)),
            (Operand::Float(lit, at), Operand::Term(b)) => Ok((resolve(&lit, at, &b)?, b)),
            (Operand::Term(a), Operand::Float(lit, at)) => {
                let b = resolve(&lit, at, &a)?;
                Ok((a, b))
            }
            (Operand::Float(lit, at), Operand::Float(..)) => Err((
                at,
                format!("`{lit}` is a float: a float literal compares with a float location"),
            )),
        }
    }

    /// `P0:r1`, `0:r1`, a location (`x`, `[x]`, `y@wg0`), or an integer.
    fn term(&mut self) -> R<Term> {
        let t = self.peek()?;
        if let Some(thread) =
            thread_of(&t).filter(|_| self.lx.peek2().is_ok_and(|c| c.is_punct(":")))
        {
            self.lx.next()?;
            self.lx.next()?;
            let (reg, reg_at) = self.lx.ident("a register name")?;
            let threads = &self.symbols.threads;
            if thread >= threads.len() {
                let declared = match threads.len() {
                    0 => "no thread".to_string(),
                    1 => "only P0".to_string(),
                    n => format!("P0..P{}", n - 1),
                };
                return Err((
                    t.at,
                    format!(
                        "the condition names thread P{thread}, but the test declares {declared}"
                    ),
                ));
            }
            if !self.symbols.has_register(thread, &reg) {
                return Err((
                    reg_at,
                    format!(
                        "P{thread} has no register `{reg}`: P{thread}:{reg} is neither declared, initialised nor written by thread P{thread}"
                    ),
                ));
            }
            return Ok(Term::Reg { thread, reg });
        }
        match &t.tok {
            Tok::Punct("%") if self.syntax.spirv => {
                let name = spirv_cell(self.lx)?;
                // A cell cut into chunks by a mixed-size access
                // (docs/format-spirv.md, "Byte offsets"): its bytes.
                if let Some(entry) = self.symbols.entry(&name)
                    && !entry.bytes.is_empty()
                {
                    return sized_term(self.lx, entry, t.at);
                }
                single(self.symbols, &name, t.at).map(Term::Loc)
            }
            Tok::Int(_) | Tok::Punct("-") => Ok(Term::Const(self.lx.integer("an integer")?.0)),
            Tok::Punct("[") => {
                self.lx.next()?;
                let (name, at) = location_name(self.lx, self.syntax)?;
                self.lx.expect("]", "to close the location `[...]`")?;
                single(self.symbols, &name, at).map(Term::Loc)
            }
            Tok::Ident(_) if self.syntax.spirv && source_cell(self.lx, self.symbols).is_some() => {
                let (after, name) = source_cell(self.lx, self.symbols).expect("checked above");
                *self.lx = after;
                if let Some(entry) = self.symbols.entry(&name)
                    && !entry.bytes.is_empty()
                {
                    return sized_term(self.lx, entry, t.at);
                }
                single(self.symbols, &name, t.at).map(Term::Loc)
            }
            // A shader's cell spelled with steps (`buf.nothing`,
            // `out[9]`) that no location answers to: named whole.
            Tok::Ident(_)
                if self.syntax.spirv
                    && spelled_cell(self.lx).is_some_and(|n| n.contains(['.', '[', '@'])) =>
            {
                let name = spelled_cell(self.lx).expect("checked above");
                Err(unknown_location(&name, t.at))
            }
            Tok::Ident(_) => {
                let (name, at) = location_name(self.lx, self.syntax)?;
                if let Some(entry) = self.symbols.entry(&name)
                    && !entry.bytes.is_empty()
                {
                    return sized_term(self.lx, entry, at);
                }
                single(self.symbols, &name, at).map(Term::Loc)
            }
            _ => Err((
                t.at,
                format!(
                    "expected a register `P0:r0`, a location or an integer, found {}",
                    t.show()
                ),
            )),
        }
    }
}

/// A location name: `x`, or with [`CondSyntax::instance_names`] `y@wg0`,
/// `y@dev1.wg0`, an array element `y[1]` and its instance `y[1]@wg0`.
fn location_name(lx: &mut Lexer<'_>, syntax: &CondSyntax) -> R<(String, usize)> {
    let (mut name, at) = lx.ident("a location name")?;
    // An array element `y[1]` (the OpenCL dialect's arrays).
    if syntax.instance_names && lx.peek()?.is_punct("[") {
        lx.next()?;
        let (i, i_at) = lx.integer("an index")?;
        if i < 0 {
            return Err((i_at, format!("negative index {i}")));
        }
        lx.expect("]", "to close the index `[...]`")?;
        name.push_str(&format!("[{i}]"));
    }
    if syntax.instance_names && lx.peek()?.is_punct("@") {
        lx.next()?;
        name.push('@');
        name.push_str(&lx.ident("a workgroup such as `wg0` after `@`")?.0);
        if lx.peek()?.is_punct(".") {
            lx.next()?;
            name.push('.');
            name.push_str(&lx.ident("a workgroup such as `wg0` after `.`")?.0);
        }
    }
    Ok((name, at))
}

/// A shader's cell as its source spells it (`out[0]`, `buf.data[3]`,
/// `count@wg1`: the names a compiled shader's locations take, beside the
/// module's `%` names): the longest name made of an identifier and
/// adjacent `.field`, `[i]` and `@instance` steps that the symbols know,
/// and the lexer past it; `None` when no such prefix is a name.
fn source_cell<'s>(lx: &Lexer<'s>, symbols: &Symbols) -> Option<(Lexer<'s>, String)> {
    longest_cell(lx, |name| symbols.lookup(name).is_some())
}

/// The whole name a shader's cell is spelled with here (an identifier and
/// every adjacent `.field`, `[i]` and `@instance` step), known or not: what
/// an error about an unknown cell names.
fn spelled_cell(lx: &Lexer<'_>) -> Option<String> {
    longest_cell(lx, |_| true).map(|(_, name)| name)
}

/// The longest name made of an identifier and adjacent `.field`, `[i]` and
/// `@instance` steps for which `known` holds, and the lexer past it.
fn longest_cell<'s>(lx: &Lexer<'s>, known: impl Fn(&str) -> bool) -> Option<(Lexer<'s>, String)> {
    let mut l = lx.clone();
    let (mut name, _) = l.ident("a location name").ok()?;
    let mut best = known(&name).then(|| (l.clone(), name.clone()));
    loop {
        let next = l.peek().ok()?;
        if next.at != l.pos {
            break;
        }
        if is_char(&next, '.') || is_char(&next, '@') {
            let mut k = l.clone();
            k.next().ok()?;
            match k.next() {
                Ok(t) if t.at == next.at + 1 => match &t.tok {
                    Tok::Ident(s) => {
                        name.push(if is_char(&next, '.') { '.' } else { '@' });
                        name.push_str(s);
                    }
                    _ => break,
                },
                _ => break,
            }
            l = k;
        } else if next.is_punct("[") {
            let mut k = l.clone();
            k.next().ok()?;
            let Ok((i, _)) = k.integer("an index") else {
                break;
            };
            if i < 0 || !k.peek().is_ok_and(|t| t.is_punct("]")) {
                break;
            }
            k.next().ok()?;
            name.push_str(&format!("[{i}]"));
            l = k;
        } else {
            break;
        }
        if known(&name) {
            best = Some((l.clone(), name.clone()));
        }
    }
    best
}

/// Whether `t` is the character `c`, as punctuation or as a character
/// the dialect has no punctuation for (SPIR-V conditions: `@`, `.`).
fn is_char(t: &Token, c: char) -> bool {
    match &t.tok {
        Tok::Punct(p) => p.len() == 1 && p.starts_with(c),
        Tok::Other(o) => *o == c,
        _ => false,
    }
}

/// A SPIR-V location `%id` or `%id[i][j]...`, as the name its front end
/// gives the cell (`%id[i][j]`, no spaces), and a workgroup's instance
/// of it (`%id[i]@wg1`).
fn spirv_cell(lx: &mut Lexer<'_>) -> R<String> {
    let pct = lx.next()?;
    let t = lx.next()?;
    let mut name = match &t.tok {
        Tok::Ident(s) | Tok::Int(s) if t.at == pct.at + 1 => format!("%{s}"),
        _ => {
            return Err((
                t.at,
                format!(
                    "expected an id after `%` (such as `%x`), found {}",
                    t.show()
                ),
            ));
        }
    };
    // An id may run on over letters after digits (`%1abc`).
    while let Ok(next) = lx.peek() {
        match &next.tok {
            Tok::Ident(s) | Tok::Int(s) if next.at == lx.pos => {
                name.push_str(s);
                lx.next()?;
            }
            _ => break,
        }
    }
    // Index steps; a `[` that opens a byte range (`%w[0][1..2]`: digits,
    // then `..`) ends the name, and the range is the sized cell's to read.
    while lx.peek()?.is_punct("[") && !opens_byte_range(lx) {
        lx.next()?;
        let (i, at) = lx.integer("an index")?;
        if i < 0 {
            return Err((at, format!("negative index {i}")));
        }
        lx.expect("]", "to close the index `[...]`")?;
        name.push_str(&format!("[{i}]"));
    }
    if let Ok(at) = lx.peek()
        && is_char(&at, '@')
        && at.at == lx.pos
    {
        lx.next()?;
        let (instance, _) = lx.ident("a workgroup such as `wg0` after `@`")?;
        name.push('@');
        name.push_str(&instance);
    }
    Ok(name)
}

/// Whether the `[` next in `lx` opens a byte range `[a..b]` (an integer,
/// then `.`), not an index.
fn opens_byte_range(lx: &Lexer<'_>) -> bool {
    let mut l = lx.clone();
    l.next().is_ok() && l.integer("an index").is_ok() && l.peek().is_ok_and(|t| is_char(&t, '.'))
}

/// The locations a name denotes.
fn resolve<'s>(symbols: &'s Symbols, name: &str, at: usize) -> R<&'s [usize]> {
    symbols
        .lookup(name)
        .ok_or_else(|| unknown_location(name, at))
}

/// The error for a name no location answers to.
fn unknown_location(name: &str, at: usize) -> (usize, String) {
    (
        at,
        format!(
            "unknown location `{name}`: it is neither in the initial state nor accessed by any thread"
        ),
    )
}

/// A sized variable in a condition, `x` or a byte range `x[a..b]`
/// (docs/format-vulkan-litmus.md, "Memory locations as bytes"): its bytes
/// assembled from the chunks holding them. A variable kept whole is the
/// location itself.
fn sized_term(lx: &mut Lexer<'_>, entry: &crate::ir::LocationName, at: usize) -> R<Term> {
    use crate::ir::{BytePart, ByteRange};
    let name = &entry.name;
    let size = entry.bytes.last().map_or(0, |c| c.end);
    let range = if lx.peek()?.is_punct("[") {
        lx.next()?;
        let (start, start_at) = lx.integer("the first byte of the range (`x[0..4]`)")?;
        for _ in 0..2 {
            let dot = lx.next()?;
            if !is_char(&dot, '.') {
                return Err((
                    dot.at,
                    format!("expected `.` in `[start..end]`, found {}", dot.show()),
                ));
            }
        }
        let (end, _) = lx.integer("the end of the range (`x[0..4]`: bytes 0 to 3)")?;
        lx.expect("]", "to close the byte range")?;
        if start < 0 || end <= start || end > i64::from(size) {
            return Err((
                start_at,
                format!(
                    "`{name}[{start}..{end}]` is not a range of `{name}`, which has {size} bytes: write `[start..end]`, end excluded, with 0 <= start < end <= {size}"
                ),
            ));
        }
        Some(ByteRange::new(start as u32, end as u32))
    } else {
        None
    };
    let r = range.unwrap_or(ByteRange::new(0, size));
    if r.len() > crate::ir::bytes::MAX_ACCESS_BYTES {
        return Err((
            at,
            format!(
                "`{name}` has {} bytes: a condition compares at most {} (a 64-bit value); name a range such as `{name}[0..8]`",
                r.len(),
                crate::ir::bytes::MAX_ACCESS_BYTES
            ),
        ));
    }
    if range.is_none() && entry.locations.len() == 1 {
        return Ok(Term::Loc(entry.locations[0]));
    }
    let parts: Vec<BytePart> = entry
        .bytes
        .iter()
        .zip(&entry.locations)
        .filter(|(c, _)| c.overlaps(r))
        .map(|(c, &loc)| {
            let from = c.start.max(r.start);
            BytePart {
                loc,
                off: from - c.start,
                len: c.end.min(r.end) - from,
            }
        })
        .collect();
    let name = match range {
        Some(r) => format!("{name}{r}"),
        None => name.clone(),
    };
    Ok(Term::Bytes { name, parts })
}

/// The one location a name denotes.
fn single(symbols: &Symbols, name: &str, at: usize) -> R<usize> {
    match resolve(symbols, name, at)? {
        [l] => Ok(*l),
        many => {
            let names: Vec<&str> = many
                .iter()
                .filter_map(|l| {
                    symbols
                        .names
                        .iter()
                        .find(|n| n.locations == [*l])
                        .map(|n| n.name.as_str())
                })
                .collect();
            Err((
                at,
                format!(
                    "`{name}` is local memory with one instance per workgroup ({}); name one",
                    names.join(", ")
                ),
            ))
        }
    }
}

/// Parses `outcome` (a whole text) as one condition expression.
pub(crate) fn whole_expression(
    src: &Src,
    lex: super::lexer::LexOptions,
    syntax: &CondSyntax,
    symbols: &Symbols,
) -> Result<CondExpr, PErr> {
    let mut lx = Lexer::new(src, lex, 0, src.chars.len());
    let e = expression(&mut lx, syntax, symbols)?;
    lx.end_or(|t| format!("expected the end of the outcome, found {}", t.show()))?;
    Ok(e)
}
