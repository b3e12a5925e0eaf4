//! herd7's own output format, for tools that parse herd7 logs (mcompare7,
//! scripts comparing verdicts): `Test`, `States`, one line per final state
//! (`0:r0=1; x=2;`, registers named by thread number as herd7 does), `Ok` /
//! `No`, `Witnesses`, `Positive: P Negative: N`, `Condition`,
//! `Observation`, `Time` in seconds.
//!
//! What herd7 has no words for is left out: execution counts per state,
//! races, bound notes. herd7's `Hash=` line (a digest of herd7's own
//! normalised test text) is not printed. herd7's lines claim every reachable
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
pub fn litmus(o: &LitmusOutcome) -> Option<String> {
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
    let _ = writeln!(s, "Time {} {:.2}", o.name, o.time.as_secs_f64());
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

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
