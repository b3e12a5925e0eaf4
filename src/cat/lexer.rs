//! Tokenizer for cat source text: identifiers, keywords, strings, numbers,
//! operators, with nested `(* ... *)` comments and `//` line comments skipped.
//! Comments opening with `(*@` are kept aside as [`Annotation`]s (model
//! profile declarations, which herd7 reads as ordinary comments).

use super::ast::Annotation;
use super::error::{CatError, Pos};
use std::fmt;
use std::sync::Arc;

/// Reserved words of the cat language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    Let,
    Rec,
    And,
    In,
    As,
    Fun,
    Include,
    Acyclic,
    Irreflexive,
    Empty,
    Flag,
    Show,
    Unshow,
    /// A herd keyword whose construct is not supported (`match`, `if`...).
    Unsupported(&'static str),
}

/// herd keywords whose constructs this interpreter rejects.
const UNSUPPORTED_KEYWORDS: &[&str] = &[
    "match",
    "with",
    "if",
    "then",
    "else",
    "try",
    "enum",
    "procedure",
    "call",
    "forall",
    "do",
    "from",
    "begin",
    "end",
    "instructions",
    "default",
    "requires",
    "undefined_unless",
    "when",
    "debug",
];

impl Kw {
    fn from_word(w: &str) -> Option<Kw> {
        Some(match w {
            "let" => Kw::Let,
            "rec" => Kw::Rec,
            "and" => Kw::And,
            "in" => Kw::In,
            "as" => Kw::As,
            "fun" => Kw::Fun,
            "include" => Kw::Include,
            "acyclic" => Kw::Acyclic,
            "irreflexive" => Kw::Irreflexive,
            "empty" => Kw::Empty,
            "flag" => Kw::Flag,
            "show" => Kw::Show,
            "unshow" => Kw::Unshow,
            _ => {
                return UNSUPPORTED_KEYWORDS
                    .iter()
                    .find(|k| **k == w)
                    .map(|k| Kw::Unsupported(k));
            }
        })
    }

    /// The keyword as written.
    pub fn text(self) -> &'static str {
        match self {
            Kw::Let => "let",
            Kw::Rec => "rec",
            Kw::And => "and",
            Kw::In => "in",
            Kw::As => "as",
            Kw::Fun => "fun",
            Kw::Include => "include",
            Kw::Acyclic => "acyclic",
            Kw::Irreflexive => "irreflexive",
            Kw::Empty => "empty",
            Kw::Flag => "flag",
            Kw::Show => "show",
            Kw::Unshow => "unshow",
            Kw::Unsupported(w) => w,
        }
    }
}

/// Token kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Kw(Kw),
    Str(String),
    Int(String),
    /// `'name` (herd tags; unsupported, reported by the parser)
    Tag(String),
    /// `_`
    Underscore,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Equal,
    Bar,
    Semi,
    Backslash,
    Amp,
    Star,
    Plus,
    PlusPlus,
    Question,
    Tilde,
    Caret,
    Minus,
    Arrow,
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Tok::Ident(s) => return write!(f, "identifier `{s}`"),
            Tok::Kw(k) => return write!(f, "keyword `{}`", k.text()),
            Tok::Str(s) => return write!(f, "string \"{s}\""),
            Tok::Int(s) => return write!(f, "number `{s}`"),
            Tok::Tag(s) => return write!(f, "tag `'{s}`"),
            Tok::Eof => return write!(f, "end of file"),
            Tok::Underscore => "_",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Equal => "=",
            Tok::Bar => "|",
            Tok::Semi => ";",
            Tok::Backslash => "\\",
            Tok::Amp => "&",
            Tok::Star => "*",
            Tok::Plus => "+",
            Tok::PlusPlus => "++",
            Tok::Question => "?",
            Tok::Tilde => "~",
            Tok::Caret => "^",
            Tok::Minus => "-",
            Tok::Arrow => "->",
        };
        write!(f, "`{s}`")
    }
}

/// A token with its position and byte span.
#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset just past the last character.
    pub end: usize,
}

struct Lexer<'s> {
    src: &'s str,
    chars: Vec<(usize, char)>,
    i: usize,
    line: usize,
    col: usize,
    file: Arc<str>,
    annotations: Vec<Annotation>,
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).map(|c| c.1)
    }

    fn offset(&self) -> usize {
        self.chars.get(self.i).map_or(self.src.len(), |c| c.0)
    }

    fn bump(&mut self) {
        if let Some(&(_, c)) = self.chars.get(self.i) {
            self.i += 1;
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
    }

    fn pos(&self) -> Pos {
        Pos::new(&self.file, self.line, self.col)
    }

    /// Skips whitespace and comments.
    fn skip_trivia(&mut self) -> Result<(), CatError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_whitespace() => self.bump(),
                (Some('/'), Some('/')) => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                (Some('('), Some('*')) => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    let annotated = self.peek(0) == Some('@');
                    if annotated {
                        self.bump();
                    }
                    let (body_pos, body_start) = (self.pos(), self.offset());
                    let mut body_end = body_start;
                    let mut depth = 1usize;
                    while depth > 0 {
                        match (self.peek(0), self.peek(1)) {
                            (None, _) => {
                                return Err(CatError::syntax(&start, "unterminated comment"));
                            }
                            (Some('('), Some('*')) => {
                                depth += 1;
                                self.bump();
                                self.bump();
                            }
                            (Some('*'), Some(')')) => {
                                depth -= 1;
                                body_end = self.offset();
                                self.bump();
                                self.bump();
                            }
                            _ => self.bump(),
                        }
                    }
                    if annotated {
                        self.annotations.push(Annotation {
                            pos: body_pos,
                            text: self.src[body_start..body_end].to_string(),
                        });
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn next_token(&mut self) -> Result<Token, CatError> {
        self.skip_trivia()?;
        let pos = self.pos();
        let start = self.offset();
        let Some(c) = self.peek(0) else {
            return Ok(Token {
                tok: Tok::Eof,
                pos,
                start,
                end: start,
            });
        };
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                self.bump();
            }
            let word = &self.src[start..self.offset()];
            if word == "_" {
                Tok::Underscore
            } else if let Some(k) = Kw::from_word(word) {
                Tok::Kw(k)
            } else {
                Tok::Ident(word.to_string())
            }
        } else if c.is_ascii_digit() {
            while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
            Tok::Int(self.src[start..self.offset()].to_string())
        } else if c == '"' {
            self.bump();
            let body_start = self.offset();
            loop {
                match self.peek(0) {
                    None => return Err(CatError::syntax(&pos, "unterminated string")),
                    Some('"') => break,
                    Some(_) => self.bump(),
                }
            }
            let body = self.src[body_start..self.offset()].to_string();
            self.bump();
            Tok::Str(body)
        } else if c == '\'' {
            self.bump();
            let body_start = self.offset();
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                self.bump();
            }
            Tok::Tag(self.src[body_start..self.offset()].to_string())
        } else {
            let two = (c, self.peek(1));
            let (tok, len) = match two {
                ('+', Some('+')) => (Tok::PlusPlus, 2),
                ('-', Some('>')) => (Tok::Arrow, 2),
                ('(', _) => (Tok::LParen, 1),
                (')', _) => (Tok::RParen, 1),
                ('[', _) => (Tok::LBracket, 1),
                (']', _) => (Tok::RBracket, 1),
                ('{', _) => (Tok::LBrace, 1),
                ('}', _) => (Tok::RBrace, 1),
                (',', _) => (Tok::Comma, 1),
                ('=', _) => (Tok::Equal, 1),
                ('|', _) => (Tok::Bar, 1),
                (';', _) => (Tok::Semi, 1),
                ('\\', _) => (Tok::Backslash, 1),
                ('&', _) => (Tok::Amp, 1),
                ('*', _) => (Tok::Star, 1),
                ('+', _) => (Tok::Plus, 1),
                ('?', _) => (Tok::Question, 1),
                ('~', _) => (Tok::Tilde, 1),
                ('^', _) => (Tok::Caret, 1),
                ('-', _) => (Tok::Minus, 1),
                _ => {
                    return Err(CatError::syntax(
                        &pos,
                        format!("unexpected character `{}`", c.escape_debug()),
                    ));
                }
            };
            for _ in 0..len {
                self.bump();
            }
            tok
        };
        Ok(Token {
            tok,
            pos,
            start,
            end: self.offset(),
        })
    }
}

/// Splits `src` into tokens; the last token is always [`Tok::Eof`].
pub fn tokenize(file: &Arc<str>, src: &str) -> Result<Vec<Token>, CatError> {
    tokenize_annotated(file, src).map(|(toks, _)| toks)
}

/// [`tokenize`], also returning the `(*@ ... *)` comments in source order.
pub fn tokenize_annotated(
    file: &Arc<str>,
    src: &str,
) -> Result<(Vec<Token>, Vec<Annotation>), CatError> {
    let mut lx = Lexer {
        src,
        chars: src.char_indices().collect(),
        i: 0,
        line: 1,
        col: 1,
        file: Arc::clone(file),
        annotations: Vec::new(),
    };
    let mut out = Vec::new();
    loop {
        let t = lx.next_token()?;
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            return Ok((out, lx.annotations));
        }
    }
}
