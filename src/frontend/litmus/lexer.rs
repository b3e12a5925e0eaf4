//! The one tokenizer of the herd litmus skeleton, shared by the Vulkan and
//! OpenCL dialects (and by `--outcome` text).
//!
//! It works over a [`Src`] (the text as characters, with line starts) and
//! reports every position as a character index, turned into a 1-based line
//! and column by [`Src::line_col`] only when an error is reported. What the
//! dialects lex differently is a [`LexOptions`] value: the punctuation they
//! know, which comments they skip, and what an integer token is.

/// An error at a character index.
pub(crate) type PErr = (usize, String);
pub(crate) type R<T> = Result<T, PErr>;

/// A text as characters, with the index where each line starts.
pub(crate) struct Src {
    pub(crate) chars: Vec<char>,
    line_starts: Vec<usize>,
}

impl Src {
    pub(crate) fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut line_starts = vec![0];
        for (i, c) in chars.iter().enumerate() {
            if *c == '\n' {
                line_starts.push(i + 1);
            }
        }
        Src { chars, line_starts }
    }

    /// 1-based line and column of a character index.
    pub(crate) fn line_col(&self, at: usize) -> (usize, usize) {
        let idx = self.line_starts.partition_point(|&s| s <= at).max(1) - 1;
        (idx + 1, at - self.line_starts[idx] + 1)
    }

    pub(crate) fn line(&self, at: usize) -> usize {
        self.line_col(at).0
    }

    pub(crate) fn text(&self, start: usize, end: usize) -> String {
        let end = end.min(self.chars.len());
        self.chars[start.min(end)..end].iter().collect()
    }

    pub(crate) fn get(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    /// A located error for the file `file`.
    pub(crate) fn error(&self, file: &str, (at, message): PErr) -> super::super::FrontendError {
        let (line, column) = self.line_col(at);
        super::super::FrontendError {
            file: file.to_string(),
            line,
            column,
            message,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*`
    Ident(String),
    /// A run of decimal digits (with [`LexOptions::alnum_integers`], of
    /// letters, digits and `_` starting with a digit).
    Int(String),
    /// A decimal float (with [`LexOptions::float_literals`]): digits with a
    /// fraction `.5` or an exponent `e-3` or both (`1.5`, `2e10`).
    Float(String),
    Punct(&'static str),
    /// A character no punctuation of the dialect starts with.
    Other(char),
    Eof,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub(crate) tok: Tok,
    /// Character index of the token's first character.
    pub(crate) at: usize,
}

impl Token {
    pub(crate) fn is_punct(&self, p: &str) -> bool {
        matches!(&self.tok, Tok::Punct(q) if *q == p)
    }
    pub(crate) fn is_ident(&self, s: &str) -> bool {
        matches!(&self.tok, Tok::Ident(i) if i == s)
    }
    /// How the token reads in a message.
    pub(crate) fn show(&self) -> String {
        match &self.tok {
            Tok::Ident(s) | Tok::Int(s) | Tok::Float(s) => format!("`{s}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Other(c) => format!("`{c}`"),
            Tok::Eof => "the end of the input".to_string(),
        }
    }
}

/// `(* ... *)` comments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParenStar {
    /// Skipped everywhere, not nested (the Vulkan dialect).
    Flat,
    /// Nested, and recognised only outside braces and parentheses: inside
    /// C code `(*x` is a dereference (the OpenCL dialect).
    NestedOutsideCode,
}

/// What a dialect lexes differently.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LexOptions {
    /// Two-character punctuation, tried first.
    pub(crate) punct2: &'static [&'static str],
    pub(crate) punct1: &'static [&'static str],
    pub(crate) paren_star: ParenStar,
    /// C comments `// ...` and `/* ... */`.
    pub(crate) c_comments: bool,
    /// An integer token runs over letters and `_` too (`0x1f`, `1u`), so a
    /// dialect can reject it as one bad integer.
    pub(crate) alnum_integers: bool,
    /// Digits with a fraction or an exponent are one [`Tok::Float`] (a
    /// shader's float cells compared with their values).
    pub(crate) float_literals: bool,
}

/// The Vulkan dialect (Dat3M `litmus/VULKAN`).
pub(crate) const VULKAN: LexOptions = LexOptions {
    punct2: &["==", "!=", "<=", ">=", "/\\", "\\/", "=>"],
    punct1: &[
        "{", "}", ";", ":", "=", "(", ")", "[", "]", "~", ",", "-", ".", "@", "|", "&", "<", ">",
        "!", "\"", "*",
    ],
    paren_star: ParenStar::Flat,
    c_comments: false,
    alnum_integers: false,
    float_literals: false,
};

/// The condition headers of SPIR-V assembly (`@Output`, `@Filter`).
pub(crate) const SPIRV: LexOptions = LexOptions {
    punct2: &["==", "!=", "<=", ">=", "/\\", "\\/", "=>"],
    punct1: &[
        "(", ")", "[", "]", "~", ",", "-", "%", "<", ">", "!", "=", ":", ";",
    ],
    paren_star: ParenStar::Flat,
    c_comments: false,
    alnum_integers: false,
    float_literals: true,
};

/// herd's C-style OpenCL dialect.
pub(crate) const OPENCL: LexOptions = LexOptions {
    punct2: &[
        "==", "!=", "<=", ">=", "&&", "||", "/\\", "\\/", "=>", "++", "--", "+=", "-=",
    ],
    punct1: &[
        "{", "}", "(", ")", "[", "]", ";", ",", ":", "=", "*", "+", "-", "&", "|", "^", "!", "~",
        "<", ">", "@", ".", "/", "%",
    ],
    paren_star: ParenStar::NestedOutsideCode,
    c_comments: true,
    alnum_integers: true,
    float_literals: false,
};

/// A tokenizer over the characters `pos..end` of a [`Src`].
#[derive(Clone)]
pub(crate) struct Lexer<'s> {
    src: &'s Src,
    options: LexOptions,
    start: usize,
    pub(crate) pos: usize,
    end: usize,
    /// Open braces and parentheses so far (for [`ParenStar::NestedOutsideCode`]).
    open: usize,
}

impl<'s> Lexer<'s> {
    pub(crate) fn new(src: &'s Src, options: LexOptions, pos: usize, end: usize) -> Self {
        Lexer {
            src,
            options,
            start: pos,
            pos,
            end,
            open: 0,
        }
    }

    /// The text lexed.
    pub(crate) fn src(&self) -> &'s Src {
        self.src
    }

    /// A lexer with the same options over `pos..end`.
    pub(crate) fn range(&self, pos: usize, end: usize) -> Lexer<'s> {
        Lexer::new(self.src, self.options, pos, end)
    }

    /// The token after the next one.
    pub(crate) fn peek2(&self) -> R<Token> {
        let mut l = self.clone();
        l.next()?;
        l.next()
    }

    /// Where "the end of the input" is reported: just after the last
    /// non-blank character of the range.
    pub(crate) fn end_position(&self) -> usize {
        let mut e = self.pos.min(self.end);
        while e > self.start && self.src.get(e - 1).is_some_and(char::is_whitespace) {
            e -= 1;
        }
        e
    }

    fn char_at(&self, i: usize) -> Option<char> {
        if i < self.end { self.src.get(i) } else { None }
    }

    /// The index just after the comment opened at `open` by `(*`, if the
    /// dialect skips `(* ... *)` here.
    fn paren_star_end(&self, open: usize) -> R<usize> {
        let nested = self.options.paren_star == ParenStar::NestedOutsideCode;
        let mut depth = 0usize;
        let mut i = open;
        loop {
            match (self.char_at(i), self.char_at(i + 1)) {
                (Some('('), Some('*')) if nested || i == open => {
                    depth += 1;
                    i += 2;
                }
                (Some('*'), Some(')')) => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        return Ok(i);
                    }
                }
                (Some(_), _) => i += 1,
                (None, _) => {
                    return Err((
                        open,
                        "unterminated comment: expected `*)` to close this `(*`".into(),
                    ));
                }
            }
        }
    }

    /// Skips whitespace and the dialect's comments.
    pub(crate) fn skip_ws(&mut self) -> R<()> {
        loop {
            let (c, d) = (self.char_at(self.pos), self.char_at(self.pos + 1));
            match (c, d) {
                (Some(c), _) if c.is_whitespace() => self.pos += 1,
                (Some('('), Some('*'))
                    if self.options.paren_star == ParenStar::Flat || self.open == 0 =>
                {
                    self.pos = self.paren_star_end(self.pos)?;
                }
                (Some('/'), Some('/')) if self.options.c_comments => {
                    while self.char_at(self.pos).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                (Some('/'), Some('*')) if self.options.c_comments => {
                    let open = self.pos;
                    let mut i = self.pos + 2;
                    loop {
                        match (self.char_at(i), self.char_at(i + 1)) {
                            (Some('*'), Some('/')) => break,
                            (Some(_), _) => i += 1,
                            (None, _) => {
                                return Err((
                                    open,
                                    "unterminated comment: expected `*/` to close this `/*`".into(),
                                ));
                            }
                        }
                    }
                    self.pos = i + 2;
                }
                _ => return Ok(()),
            }
        }
    }

    /// Where a float literal whose digits end at `digits_end` ends: past
    /// a fraction (`.` and digits) and an exponent (`e`, a sign, digits),
    /// `None` when it has neither (an integer).
    fn float_end(&self, digits_end: usize) -> Option<usize> {
        let digits_from = |k: usize| {
            let mut i = k;
            while self.char_at(i).is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            }
            i
        };
        let mut end = digits_end;
        if self.char_at(end) == Some('.') && digits_from(end + 1) > end + 1 {
            end = digits_from(end + 1);
        }
        if matches!(self.char_at(end), Some('e' | 'E')) {
            let sign = usize::from(matches!(self.char_at(end + 1), Some('+' | '-')));
            let exp = end + 1 + sign;
            if digits_from(exp) > exp {
                end = digits_from(exp);
            }
        }
        (end > digits_end).then_some(end)
    }

    pub(crate) fn next(&mut self) -> R<Token> {
        self.skip_ws()?;
        let at = self.pos;
        let Some(c) = self.char_at(at) else {
            return Ok(Token {
                tok: Tok::Eof,
                at: self.end_position(),
            });
        };
        let run = |lx: &Self, ok: &dyn Fn(char) -> bool| {
            let mut i = at;
            while lx.char_at(i).is_some_and(ok) {
                i += 1;
            }
            i
        };
        let (tok, end) = if c.is_ascii_alphabetic() || c == '_' {
            let end = run(self, &|c| c.is_ascii_alphanumeric() || c == '_');
            (Tok::Ident(self.src.text(at, end)), end)
        } else if c.is_ascii_digit() {
            let end = if self.options.alnum_integers {
                run(self, &|c| c.is_ascii_alphanumeric() || c == '_')
            } else {
                run(self, &|c| c.is_ascii_digit())
            };
            match self.float_end(end).filter(|_| self.options.float_literals) {
                Some(end) => (Tok::Float(self.src.text(at, end)), end),
                None => (Tok::Int(self.src.text(at, end)), end),
            }
        } else {
            let two: String = [Some(c), self.char_at(at + 1)]
                .into_iter()
                .flatten()
                .collect();
            if let Some(p) = self.options.punct2.iter().find(|p| **p == two) {
                (Tok::Punct(p), at + 2)
            } else if let Some(p) = self.options.punct1.iter().find(|p| p.starts_with(c)) {
                match *p {
                    "{" | "(" => self.open += 1,
                    "}" | ")" => self.open = self.open.saturating_sub(1),
                    _ => {}
                }
                (Tok::Punct(p), at + 1)
            } else {
                (Tok::Other(c), at + 1)
            }
        };
        self.pos = end;
        Ok(Token { tok, at })
    }

    pub(crate) fn peek(&self) -> R<Token> {
        self.clone().next()
    }

    /// Consumes the punctuation `p` or fails with "expected `p` {context}".
    pub(crate) fn expect(&mut self, p: &str, context: &str) -> R<Token> {
        let t = self.next()?;
        if t.is_punct(p) {
            Ok(t)
        } else {
            Err((
                t.at,
                format!("expected `{p}` {context}, found {}", t.show()),
            ))
        }
    }

    /// Consumes the end of the range or fails with "unexpected ... {context}".
    pub(crate) fn expect_end(&mut self, context: &str) -> R<()> {
        self.end_or(|t| format!("unexpected {} {context}", t.show()))
    }

    /// Consumes the end of the range or fails with `message` of the token found.
    pub(crate) fn end_or(&mut self, message: impl FnOnce(&Token) -> String) -> R<()> {
        let t = self.next()?;
        match t.tok {
            Tok::Eof => Ok(()),
            _ => Err((t.at, message(&t))),
        }
    }

    /// Consumes an identifier; `what` names it in the error.
    pub(crate) fn ident(&mut self, what: &str) -> R<(String, usize)> {
        let t = self.next()?;
        match t.tok {
            Tok::Ident(s) => Ok((s, t.at)),
            _ => Err((t.at, format!("expected {what}, found {}", t.show()))),
        }
    }

    /// Consumes an integer with an optional `-` sign; returns it and where
    /// it starts.
    pub(crate) fn integer(&mut self, what: &str) -> R<(i64, usize)> {
        let first = self.next()?;
        let (neg, t) = if first.is_punct("-") {
            (true, self.next()?)
        } else {
            (false, first.clone())
        };
        match &t.tok {
            Tok::Int(digits) if !digits.bytes().all(|b| b.is_ascii_digit()) => Err((
                t.at,
                format!(
                    "`{digits}` is not a decimal integer (hexadecimal and suffixed constants are not supported)"
                ),
            )),
            Tok::Int(digits) => {
                let text = if neg {
                    format!("-{digits}")
                } else {
                    digits.clone()
                };
                let v = text
                    .parse::<i64>()
                    .map_err(|_| (first.at, format!("integer `{text}` is out of range")))?;
                Ok((v, first.at))
            }
            _ => Err((t.at, format!("expected {what}, found {}", t.show()))),
        }
    }
}

/// `P3` -> Some(3).
pub(crate) fn thread_name(s: &str) -> Option<usize> {
    let digits = s.strip_prefix('P')?;
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A thread named by `Pn` or `n`.
pub(crate) fn thread_of(t: &Token) -> Option<usize> {
    match &t.tok {
        Tok::Ident(s) => thread_name(s),
        Tok::Int(d) => d.parse().ok(),
        _ => None,
    }
}
