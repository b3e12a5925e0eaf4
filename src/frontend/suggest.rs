//! "Did you mean" suggestions for unknown words.
//!
//! The Levenshtein distance over characters, with a swap of two adjacent
//! characters counting as one edit (the "optimal string alignment"
//! variant: `rle` is one edit from `rel`). The inputs are single tokens
//! (tens of characters) compared against short lists of valid words, so
//! the quadratic dynamic programme is trivial and needs no crate.

/// The edit distance (insertions, deletions, substitutions, adjacent
/// swaps) between `a` and `b`.
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: i-2, i-1, i.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        for j in 0..b.len() {
            let mut d = (prev[j] + usize::from(a[i] != b[j]))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate nearest to `word`, if it is near enough to be a likely
/// typo: at most a third of the word's length away (at most 3 edits; no
/// guess for words under three characters). Ties go to the first candidate.
pub(crate) fn nearest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // Guard against pathological tokens: a typo is short.
    let len = word.chars().count();
    if len > 64 {
        return None;
    }
    // Words of one or two characters have too many neighbours to guess.
    let limit = (len / 3).min(3);
    if limit == 0 {
        return None;
    }
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `" (did you mean `x`?)"` when a candidate is near `word`, else "".
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    match nearest(word, candidates) {
        Some(c) => format!(" (did you mean `{c}`?)"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("rle", "rel"), 1);
        assert_eq!(distance("ab", "ba"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("atomic_lod_explicit", "atomic_load_explicit"), 1);
    }

    #[test]
    fn suggestions() {
        let tokens = ["acq", "rel", "atom", "wg", "dv"];
        assert_eq!(nearest("rle", tokens), Some("rel"));
        assert_eq!(nearest("xyzzy", tokens), None);
        assert_eq!(
            did_you_mean(
                "atomic_lod_explicit",
                ["atomic_load_explicit", "atomic_store"]
            ),
            " (did you mean `atomic_load_explicit`?)"
        );
    }
}
