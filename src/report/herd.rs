//! herd7's own output format, for tools that parse herd7 logs (mcompare7,
//! scripts comparing verdicts): `Test`, `States`, one line per final state
//! (`0:r0=1; x=2;`, registers named by thread number as herd7 does), `Ok` /
//! `No`, `Witnesses`, `Positive: P Negative: N`, `Condition`,
//! `Observation`, `Time` in seconds.
//!
//! What herd7 has no words for is left out: execution counts per state,
//! races, bound notes. herd7 ends with `Hash=` and an MD5 digest of its own
//! normalised dump of the test, which tools such as mcompare7 use to tell
//! whether two logs ran the same test; vkmm prints its own digest there
//! ([`test_hash`]: stable, 32 hex digits like herd7's, but not herd7's
//! value). herd7's lines claim every reachable
//! final state, so one rule holds for every kind of incompleteness
//! ([`LitmusOutcome::states_incomplete`]: a limit, the unrolling bound, an
//! early stop, attributions left out, a verdict-only walk): nothing is
//! printed in this format, [`litmus`] returns `None` and the caller reports
//! [`refusal`] and ends undecided.

use crate::analysis::{LitmusOutcome, Observation, Property};
use crate::ir::Quantifier;
use std::fmt::Write;

/// A state's name in herd7's spelling: `P1:r0` becomes `1:r0`.
fn herd_name(name: &str) -> &str {
    match name.strip_prefix('P') {
        Some(rest)
            if rest
                .split(':')
                .next()
                .is_some_and(|t| t.parse::<usize>().is_ok()) =>
        {
            rest
        }
        _ => name,
    }
}

/// herd7's `Witnesses`, `Positive`/`Negative`, `Condition` and
/// `Observation` lines (vkmm's text report shares them).
pub(crate) fn witnesses(o: &LitmusOutcome, s: &mut String) {
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", o.positive, o.negative);
    if let Some(c) = &o.condition {
        let _ = writeln!(s, "Condition {c}");
    }
    let obs = match o.observation {
        Observation::Always => "Always",
        Observation::Sometimes => "Sometimes",
        Observation::Never => "Never",
    };
    let _ = writeln!(
        s,
        "Observation {} {obs} {} {}",
        o.name, o.positive, o.negative
    );
}

/// Why a litmus test's answer has no herd7 report, or `None` when it has
/// one: `undecided (WHY): herd's format has no word for it`.
pub fn refusal(o: &LitmusOutcome) -> Option<String> {
    o.states_incomplete().map(|why| {
        format!("undecided ({why}): herd's format has no word for it; see --format text")
    })
}

/// herd7's report of a litmus test; `None` when its list of final states
/// may miss some ([`refusal`] says why), since herd7's `States`,
/// `Positive`/`Negative` and `Observation` lines claim every state and
/// every execution.
/// Without the test's text there is no `Hash=` line ([`litmus_of`]).
pub fn litmus(o: &LitmusOutcome) -> Option<String> {
    litmus_of(o, None)
}

/// [`litmus`] with the `Hash=` line of `source`, the test file's text
/// ([`test_hash`]); without it (a test not read from a file) no such line.
pub fn litmus_of(o: &LitmusOutcome, source: Option<&str>) -> Option<String> {
    if o.states_incomplete().is_some() {
        return None;
    }
    let mut s = String::new();
    let kind = match o.quantifier {
        Some(Quantifier::NotExists) => "Forbidden",
        Some(Quantifier::Forall) => "Required",
        _ => "Allowed",
    };
    let _ = writeln!(s, "Test {} {kind}", o.name);
    let _ = writeln!(s, "States {}", o.states.len());
    crate::analysis::phrases::reserve_states(&mut s, &o.states, 1);
    for (state, _) in &o.states {
        crate::analysis::phrases::push_state(&mut s, state, herd_name);
        s.push('\n');
    }
    match o.holds(Property::Condition) {
        Some(true) => s.push_str("Ok\n"),
        Some(false) => s.push_str("No\n"),
        None => {}
    }
    witnesses(o, &mut s);
    // herd7: `Time NAME 0.01`, seconds with two decimals.
    let _ = writeln!(s, "Time {} {:.2}", o.name, o.time.as_secs_f64());
    if let Some(text) = source {
        let _ = writeln!(s, "Hash={}", test_hash(text));
    }
    Some(s)
}

/// The digest on the `Hash=` line: 128-bit FNV-1a over the bytes of the
/// test's text with each `\r\n` read as `\n` (so a checkout with either
/// line ending gives one digest), as 32 lower-case hex digits. Equal texts
/// give equal digests on every platform and version; any changed byte
/// changes it (no normalisation of spaces or comments, unlike herd7's).
pub fn test_hash(text: &str) -> String {
    // FNV-1a, 128 bits: offset basis and prime from the FNV specification
    // (draft-eastlake-fnv: "FNV-1a ... hash = offset_basis; for each
    // octet: hash = hash XOR octet; hash = hash * FNV_prime").
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let bytes = text.as_bytes();
    let mut h = OFFSET;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
            continue;
        }
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    format!("{h:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The digest is FNV-1a 128: the empty text is the offset basis, and
    /// one byte `a` is (basis ^ 0x61) * prime, computed by hand from the
    /// constants (the published FNV-1a-128 value of "a",
    /// d228cb696f1a8caf78912b704e4a8964); CRLF and LF texts agree, and one
    /// changed byte changes the digest.
    #[test]
    fn the_test_hash_is_fnv1a_128_over_lf_text() {
        assert_eq!(test_hash(""), "6c62272e07bb014262b821756295c58d");
        assert_eq!(test_hash("a"), "d228cb696f1a8caf78912b704e4a8964");
        assert_eq!(test_hash("x=0;\r\ny=1;\r\n"), test_hash("x=0;\ny=1;\n"));
        assert_ne!(test_hash("x=0;\n"), test_hash("x=1;\n"));
        // A lone carriage return is a byte of the text.
        assert_ne!(test_hash("a\rb"), test_hash("ab"));
    }

    #[test]
    fn registers_are_named_by_thread_number() {
        assert_eq!(herd_name("P1:r0"), "1:r0");
        assert_eq!(herd_name("P12:r3"), "12:r3");
        assert_eq!(herd_name("x"), "x");
        assert_eq!(herd_name("Px"), "Px");
        let state = crate::analysis::litmus::FinalState::from_pairs([("P1:r0", 3), ("x", -2)]);
        let mut s = String::new();
        crate::analysis::phrases::push_state(&mut s, &state, herd_name);
        assert_eq!(s, "1:r0=3; x=-2;");
    }
}
