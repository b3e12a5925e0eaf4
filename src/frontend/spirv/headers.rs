//! The Dat3M headers of a `.spvasm` file, comments at its top:
//! `; @Input: %x = {...}`, `; @Output: forall (...)`, `; @Filter: ...`,
//! `; @Config: T, S, W`.

use super::syntax::Located;

/// A nested initial value: `5`, `-1`, `{1, {2, 3}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Init {
    Num(i64),
    List(Vec<Init>),
}

/// A header condition: where its text is (character indices into the file).
#[derive(Clone, Copy, Debug)]
pub(super) struct CondText {
    /// Character index of the first character after `@Output:` / `@Filter:`.
    pub start: usize,
    /// Character index of the end of the line.
    pub end: usize,
}

/// Everything the headers say.
#[derive(Debug, Default)]
pub(super) struct Headers {
    /// `(id without %, value, line, column of the id)`.
    pub inputs: Vec<(String, Init, usize, usize)>,
    pub outputs: Vec<CondText>,
    pub filter: Option<CondText>,
    /// Invocations per subgroup, subgroups per workgroup, workgroups.
    pub config: Option<(usize, usize, usize)>,
}

/// The most invocations a `@Config` may ask for.
pub(super) const MAX_INVOCATIONS: usize = 256;

/// Reads the headers of `text`.
pub(super) fn read(text: &str) -> Result<Headers, Located> {
    let mut h = Headers::default();
    let mut offset = 0; // character index of the line start
    for (n, raw) in text.split('\n').enumerate() {
        let line = n + 1;
        let line_chars = raw.chars().count();
        let start_of_line = offset;
        offset += line_chars + 1;
        let trimmed = raw.trim_start();
        let Some(comment) = trimmed.strip_prefix(';') else {
            continue;
        };
        let Some(at) = comment.find('@') else {
            continue;
        };
        let rest = &comment[at + 1..];
        let key_len = rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len());
        let key = &rest[..key_len];
        if !matches!(key, "Input" | "Output" | "Filter" | "Config") {
            continue;
        }
        // Column (1-based, in characters) of the `@`.
        let at_byte = raw.len() - trimmed.len() + 1 + at;
        let at_col = raw[..at_byte].chars().count() + 1;
        let after_key = &rest[key_len..];
        let Some(body) = after_key.trim_start().strip_prefix(':') else {
            return Err((line, at_col, format!("expected `:` after `@{key}`")));
        };
        let body_byte = raw.len() - body.len();
        let body_col = raw[..body_byte].chars().count() + 1;
        let cond = CondText {
            start: start_of_line + body_col - 1,
            end: start_of_line + line_chars,
        };
        match key {
            "Input" => input(line, body_col, body, &mut h)?,
            "Output" => h.outputs.push(cond),
            "Filter" => {
                if h.filter.is_some() {
                    return Err((line, at_col, "a file has at most one `@Filter`".into()));
                }
                h.filter = Some(cond);
            }
            _ => {
                if h.config.is_some() {
                    return Err((line, at_col, "a file has at most one `@Config`".into()));
                }
                h.config = Some(config(line, body_col, body)?);
            }
        }
    }
    Ok(h)
}

/// `T, S, W`.
fn config(line: usize, col: usize, body: &str) -> Result<(usize, usize, usize), Located> {
    let parts: Vec<&str> = body.split(',').map(str::trim).collect();
    let nums: Option<Vec<usize>> = parts
        .iter()
        .map(|p| p.parse::<usize>().ok().filter(|&v| v > 0))
        .collect();
    match nums.as_deref() {
        Some(&[t, s, w]) => {
            let total = t.checked_mul(s).and_then(|ts| ts.checked_mul(w));
            match total {
                Some(n) if n <= MAX_INVOCATIONS => Ok((t, s, w)),
                _ => Err((
                    line,
                    col,
                    format!("@Config asks for more than {MAX_INVOCATIONS} invocations"),
                )),
            }
        }
        _ => Err((
            line,
            col,
            format!(
                "expected `@Config: T, S, W` (three positive integers: invocations per subgroup, subgroups per workgroup, workgroups), found `{}`",
                body.trim()
            ),
        )),
    }
}

/// `%id = value`.
fn input(line: usize, col: usize, body: &str, h: &mut Headers) -> Result<(), Located> {
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
            *i += 1;
        }
    };
    skip(&mut i);
    let id_col = col + i;
    if chars.get(i) != Some(&'%') {
        return Err((
            line,
            id_col,
            "expected `%id = value` after `@Input:`".into(),
        ));
    }
    i += 1;
    let start = i;
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
    {
        i += 1;
    }
    let id: String = chars[start..i].iter().collect();
    if id.is_empty() {
        return Err((line, col + i, "expected an id after `%`".into()));
    }
    skip(&mut i);
    if chars.get(i) != Some(&'=') {
        return Err((line, col + i, format!("expected `=` after `%{id}`")));
    }
    i += 1;
    let value = init_value(&chars, &mut i, line, col, 0)?;
    skip(&mut i);
    h.inputs.push((id, value, line, id_col));
    match chars.get(i) {
        None => Ok(()),
        // Several `%id = value` separated by commas.
        Some(',') => {
            let rest: String = chars[i + 1..].iter().collect();
            input(line, col + i + 1, &rest, h)
        }
        Some(_) => Err((
            line,
            col + i,
            "expected `,` or the end of the `@Input` line".into(),
        )),
    }
}

fn init_value(
    chars: &[char],
    i: &mut usize,
    line: usize,
    col: usize,
    depth: usize,
) -> Result<Init, Located> {
    while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
        *i += 1;
    }
    if depth >= crate::frontend::MAX_NESTING {
        return Err((
            line,
            col + *i,
            format!(
                "initial value nesting deeper than {} levels",
                crate::frontend::MAX_NESTING
            ),
        ));
    }
    match chars.get(*i) {
        Some('{') => {
            *i += 1;
            let mut items = Vec::new();
            loop {
                while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
                    *i += 1;
                }
                if chars.get(*i) == Some(&'}') && items.is_empty() {
                    *i += 1;
                    return Ok(Init::List(items));
                }
                items.push(init_value(chars, i, line, col, depth + 1)?);
                while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
                    *i += 1;
                }
                match chars.get(*i) {
                    Some(',') => *i += 1,
                    Some('}') => {
                        *i += 1;
                        return Ok(Init::List(items));
                    }
                    _ => return Err((line, col + *i, "expected `,` or `}`".into())),
                }
            }
        }
        Some(c) if c.is_ascii_digit() || *c == '-' => {
            let start = *i;
            *i += 1;
            while chars.get(*i).is_some_and(|c| c.is_ascii_alphanumeric()) {
                *i += 1;
            }
            let word: String = chars[start..*i].iter().collect();
            let (neg, digits) = match word.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, word.as_str()),
            };
            let v = match digits.strip_prefix("0x") {
                Some(h) => i64::from_str_radix(h, 16).ok(),
                None => digits.parse::<i64>().ok(),
            };
            match v {
                Some(v) => Ok(Init::Num(if neg { -v } else { v })),
                None => Err((
                    line,
                    col + start,
                    format!("expected an integer, found `{word}`"),
                )),
            }
        }
        _ => Err((
            line,
            col + *i,
            "expected an integer or `{` in the initial value".into(),
        )),
    }
}
