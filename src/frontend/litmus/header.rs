//! The header of a herd litmus test: the architecture word, the test name,
//! and the commentary before the body.

use super::lexer::{LexOptions, Lexer, R, Src, Tok, thread_name};

/// The first line of a test and where its body starts.
pub(crate) struct Header {
    /// The architecture word (`VULKAN`, `OPENCL`, any case).
    pub(crate) arch: String,
    /// Where the architecture word starts (`None`: the text is blank).
    pub(crate) arch_at: Option<usize>,
    /// The test name: the word after the architecture, or the file's stem.
    pub(crate) name: String,
    /// Where the commentary after the name starts.
    rest: usize,
}

impl Header {
    /// Where the body starts: the `{` of the initial state, or the first
    /// thread (`P0...`) of a test without one. The commentary before it is
    /// skipped: `"..."` strings (over several lines, as herd's doc strings),
    /// `(* ... *)` comments, and stray words without `;|}=@:` (Dat3M skips
    /// them; `Kronos-Group/corr.litmus` nests quotes in its comment).
    pub(crate) fn body(&self, src: &Src, lex: LexOptions) -> R<usize> {
        preamble(src, lex, self.rest)
    }
}

/// Reads `ARCH [name]` on the first non-blank line.
pub(crate) fn header(file: &str, src: &Src) -> Header {
    let chars = &src.chars;
    let mut i = 0;
    while chars.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    let arch_start = i;
    while chars.get(i).is_some_and(|c| !c.is_whitespace()) {
        i += 1;
    }
    let arch = src.text(arch_start, i);
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    let start = i;
    while chars
        .get(i)
        .is_some_and(|c| !c.is_whitespace() && *c != '"' && *c != '{')
    {
        i += 1;
    }
    let name = if i > start {
        src.text(start, i)
    } else {
        std::path::Path::new(file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or(file)
            .to_string()
    };
    Header {
        arch_at: (arch_start < chars.len()).then_some(arch_start),
        arch,
        name,
        rest: i,
    }
}

/// Skips the commentary from `i`; returns where the body starts.
fn preamble(src: &Src, lex: LexOptions, mut i: usize) -> R<usize> {
    loop {
        let mut lx = Lexer::new(src, lex, i, src.chars.len());
        lx.skip_ws()?;
        i = lx.pos;
        match src.get(i) {
            None => {
                return Err((
                    lx.end_position(),
                    "expected the initial state `{ ... }` after the header".into(),
                ));
            }
            Some('{') => return Ok(i),
            Some('"') => {
                let close = (i + 1..src.chars.len()).find(|&j| src.chars[j] == '"');
                match close {
                    Some(j) => i = j + 1,
                    None => {
                        return Err((i, "unterminated string: expected a closing `\"`".into()));
                    }
                }
            }
            Some(_) => {
                if let Ok(t) = lx.peek()
                    && matches!(&t.tok, Tok::Ident(w) if thread_name(w).is_some())
                {
                    return Ok(i);
                }
                let start = i;
                while src
                    .get(i)
                    .is_some_and(|c| !c.is_whitespace() && c != '"' && c != '{')
                {
                    i += 1;
                }
                let word = src.text(start, i);
                if word.contains([';', '|', '}', '=', '@', ':']) {
                    return Err((
                        start,
                        format!(
                            "expected `{{` to open the initial state, found `{word}` (comments after the header go in double quotes)"
                        ),
                    ));
                }
            }
        }
    }
}
