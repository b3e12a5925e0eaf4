//! A condition on a shader's final memory given from outside the shader:
//! `vkmm check --assert CONDITION`, and a shader manifest's `assertion:`
//! property. Both read the same words, so a user writes the same thing in
//! both places:
//!
//! - the manifest's spelling, `EXPR in every execution` (also `in some
//!   execution`, `in no execution`; without the words, every execution),
//!   its variables named as in the shader (`out[0] == 2`);
//! - the spelling of Dat3M's `@Output` headers, `forall (EXPR)`,
//!   `exists (EXPR)`, `not exists (EXPR)` (`~exists`, `!exists`).
//!
//! A name gets the `%` SPIR-V conditions name variables with
//! (`out[0]` is `%out[0]`, docs/format-spirv.md "Conditions"); a name
//! written with `%` (an id, `%17[0]`) stays as it is.

use crate::ir::Quantifier;

/// A condition as the user wrote it and where it comes from (the option
/// or manifest column, for errors).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Asserted {
    /// The condition as written.
    pub text: String,
    /// Where it was written (`--assert`, `the manifest's assertion`).
    pub origin: String,
}

/// A condition read: its quantifier and its expression in the spelling of
/// SPIR-V conditions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assertion {
    /// The text as written.
    pub written: String,
    pub quantifier: Quantifier,
    /// The expression, names with `%`.
    pub expr: String,
    /// For each character of `expr`, its column (from 1) in the text as
    /// written; an inserted `%` has the column of the name it starts.
    columns: Vec<usize>,
    /// The column just past the expression in the text as written.
    end: usize,
}

impl Assertion {
    /// The column in the text as written of character `at` of `expr`.
    pub fn column(&self, at: usize) -> usize {
        self.columns.get(at).copied().unwrap_or(self.end)
    }

    /// The condition in vkmm's words, for reports: `forall (%out[0] == 2)`.
    pub fn text(&self) -> String {
        let q = match self.quantifier {
            Quantifier::Forall => "forall",
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
        };
        format!("{q} ({})", self.expr)
    }
}

/// The quantifier words a condition may open with.
const OPENINGS: [(&str, Quantifier); 6] = [
    ("forall", Quantifier::Forall),
    ("exists", Quantifier::Exists),
    ("not exists", Quantifier::NotExists),
    ("~exists", Quantifier::NotExists),
    ("~ exists", Quantifier::NotExists),
    ("!exists", Quantifier::NotExists),
];

/// The words a condition may close with.
const CLOSINGS: [(&str, Quantifier); 3] = [
    ("in every execution", Quantifier::Forall),
    ("in some execution", Quantifier::Exists),
    ("in no execution", Quantifier::NotExists),
];

/// Reads a condition in either spelling (see the module documentation),
/// each name as written (`out[0]` is `%out[0]`).
pub fn read(words: &str) -> Assertion {
    read_with(words, &|_| None)
}

/// [`read`], each name (with its `.field` and `[i]` steps, without `%`)
/// spelled as `rename` says where it knows it.
pub fn read_with(words: &str, rename: &dyn Fn(&str) -> Option<String>) -> Assertion {
    let chars: Vec<char> = words.chars().collect();
    let mut start = 0;
    let mut end = chars.len();
    let text = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
    while start < end && chars[start].is_whitespace() {
        start += 1;
    }
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    let mut quantifier = Quantifier::Forall;
    let rest = text(start, end);
    let opening = OPENINGS.iter().find(|(w, _)| {
        rest.strip_prefix(w)
            .is_some_and(|r| r.starts_with(|c: char| c.is_whitespace() || c == '('))
    });
    if let Some((w, q)) = opening {
        quantifier = *q;
        start += w.chars().count();
        while start < end && chars[start].is_whitespace() {
            start += 1;
        }
        // `exists (EXPR)`: the parentheses around the whole expression go.
        if chars.get(start) == Some(&'(') && end > start + 1 && chars[end - 1] == ')' {
            let mut depth = 0;
            let mut closes_at_end = true;
            for (k, &c) in chars.iter().enumerate().take(end).skip(start) {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                if depth == 0 && k < end - 1 {
                    closes_at_end = false;
                    break;
                }
            }
            if closes_at_end {
                start += 1;
                end -= 1;
            }
        }
    } else if let Some((w, q)) = CLOSINGS.iter().find(|(w, _)| rest.ends_with(w)) {
        quantifier = *q;
        end -= w.chars().count();
    }
    while start < end && chars[start].is_whitespace() {
        start += 1;
    }
    while end > start && chars[end - 1].is_whitespace() {
        end -= 1;
    }
    // Names: a word that starts after no name character, `.` or `@` (a
    // field, a workgroup instance `@wg1`, a thread's register `P0:r0`), with its steps (`.field`,
    // `[i]`), other than the condition's own words and a thread's name
    // (`P0:`); or such a name written with `%`. `rename` gives the cell
    // the name means in the shader (`out[0]` of naga's wrapped array is
    // `%out[0][0]`); a name it does not know gets `%` and stays.
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut expr = String::new();
    let mut columns = Vec::new();
    let mut i = start;
    while i < end {
        let c = chars[i];
        let prev = (i > start).then(|| chars[i - 1]);
        let after_name =
            prev.is_some_and(|p| ident(p) || p == '.' || p == '@' || p == '%' || p == ':');
        let percent = c == '%' && i + 1 < end && ident(chars[i + 1]) && !after_name;
        let starts_word = (c.is_ascii_alphabetic() || c == '_') && !after_name;
        // `SET.BINDING` (`0.2.data[3]`): no constant of a condition has a
        // `.`, so digits, `.`, digits begin a name.
        let digits_from = |k: usize| (k..end).take_while(|&k| chars[k].is_ascii_digit()).count();
        // A float literal (`1.5`, `0.0`) has the same shape: `SET.BINDING`
        // alone, with no step after it, is a float (a whole variable is
        // named by its name).
        let binding = c.is_ascii_digit() && !after_name && {
            let a = digits_from(i);
            chars.get(i + a) == Some(&'.') && i + a + 1 < end && {
                let b = digits_from(i + a + 1);
                b > 0 && {
                    let after = i + a + 1 + b;
                    after < end
                        && (chars[after] == '['
                            || chars[after] == '.'
                                && chars
                                    .get(after + 1)
                                    .is_some_and(|&c| c.is_ascii_alphabetic() || c == '_'))
                }
            }
        };
        if percent || starts_word || binding {
            let from = if percent { i + 1 } else { i };
            let mut j = from;
            if binding {
                j += digits_from(j);
                j += 1 + digits_from(j + 1);
            }
            while j < end && ident(chars[j]) {
                j += 1;
            }
            let word = text(from, j);
            let keyword = !percent
                && (matches!(
                    word.as_str(),
                    "and" | "or" | "not" | "true" | "false" | "inf"
                ) || chars.get(j) == Some(&':'));
            if keyword {
                expr.extend(&chars[i..j]);
                columns.extend(i + 1..=j);
                i = j;
                continue;
            }
            // The steps after the word.
            loop {
                if j + 1 < end
                    && chars[j] == '.'
                    && (chars[j + 1].is_ascii_alphabetic() || chars[j + 1] == '_')
                {
                    j += 1;
                    while j < end && ident(chars[j]) {
                        j += 1;
                    }
                } else if j < end && chars[j] == '[' {
                    let mut k = j + 1;
                    while k < end && chars[k].is_ascii_digit() {
                        k += 1;
                    }
                    if k > j + 1 && k < end && chars[k] == ']' {
                        j = k + 1;
                    } else {
                        break;
                    }
                } else {
                    break;
                }
            }
            let name = text(from, j);
            let spelled = rename(&name).unwrap_or_else(|| format!("%{name}"));
            for ch in spelled.chars() {
                expr.push(ch);
                columns.push(i + 1);
            }
            i = j;
            continue;
        }
        expr.push(c);
        columns.push(i + 1);
        i += 1;
    }
    Assertion {
        written: words.to_string(),
        quantifier,
        expr,
        columns,
        end: end + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_read_the_same() {
        let a = read(" output[0] == 2 in every execution");
        assert_eq!(a.quantifier, Quantifier::Forall);
        assert_eq!(a.expr, "%output[0] == 2");
        assert_eq!(a.text(), "forall (%output[0] == 2)");
        let b = read("forall (output[0] == 2)");
        assert_eq!(b.quantifier, Quantifier::Forall);
        assert_eq!(b.expr, "%output[0] == 2");
        assert_eq!(
            read("exists (a == 1) or (b == 2)").expr,
            "(%a == 1) or (%b == 2)"
        );
        assert_eq!(
            read("a == 1 and b_2 != 0x10").expr,
            "%a == 1 and %b_2 != 0x10"
        );
        assert_eq!(read("%17[0] == 1").expr, "%17[0] == 1");
        assert_eq!(read("s.f == 1").expr, "%s.f == 1");
        // A variable by SET.BINDING with a step is a name; a constant
        // stays one, and so does a bare `1.0` (a float literal).
        assert_eq!(
            read("0.2.data[3] == 10 and 0.1[2] != 7 and 1.0 != 7").expr,
            "%0.2.data[3] == 10 and %0.1[2] != 7 and 1.0 != 7"
        );
        assert_eq!(read("x == 10.").expr, "%x == 10.");
        let e = read("exists (buf[3] == 2)");
        assert_eq!(e.quantifier, Quantifier::Exists);
        assert_eq!(e.expr, "%buf[3] == 2");
        assert_eq!(
            read("x == 1 in some execution").quantifier,
            Quantifier::Exists
        );
        for no in [
            "x == 1 in no execution",
            "not exists (x == 1)",
            "~exists x == 1",
        ] {
            let n = read(no);
            assert_eq!(n.quantifier, Quantifier::NotExists, "{no}");
            assert_eq!(n.expr, "%x == 1", "{no}");
        }
        // A name that merely starts like a quantifier is a name.
        assert_eq!(read("existsx == 1").expr, "%existsx == 1");
        // Threads' registers and workgroup instances keep their spelling.
        assert_eq!(read("P0:r0 == 1").expr, "P0:r0 == 1");
        assert_eq!(read("%v[1]@wg1 == 2").expr, "%v[1]@wg1 == 2");
    }

    #[test]
    fn names_are_spelled_as_the_shader_means_them() {
        let rename = |n: &str| match n {
            "out[0]" => Some("%out[0][0]".to_string()),
            "Buf.count" => Some("%12[1]".to_string()),
            _ => None,
        };
        let a = read_with(
            "out[0] == 2 and Buf.count != %out[0] in every execution",
            &rename,
        );
        assert_eq!(a.expr, "%out[0][0] == 2 and %12[1] != %out[0][0]");
        assert_eq!(a.column(0), 1);
        assert_eq!(a.column(9), 1);
        assert_eq!(a.column(11), 8);
        assert_eq!(read_with("other[1] == 0", &rename).expr, "%other[1] == 0");
    }

    #[test]
    fn columns_point_into_the_text_as_written() {
        // `  out[0] === 2`: the expression's characters map back to where
        // the user typed them; the inserted `%` to the name it starts.
        let a = read("  out[0] === 2");
        assert_eq!(a.expr, "%out[0] === 2");
        assert_eq!(a.column(0), 3);
        assert_eq!(a.column(1), 3);
        // `%out[0]` is the name at column 3; then ` ===` at 9, 10, 11.
        assert_eq!(a.column(6), 3);
        assert_eq!(a.column(8), 10);
        assert_eq!(a.column(9), 11);
        assert_eq!(a.column(a.expr.chars().count()), 15);
        let b = read("exists (x == )");
        assert_eq!(b.expr, "%x ==");
        assert_eq!(b.column(b.expr.chars().count()), 13);
    }
}
