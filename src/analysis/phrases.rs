//! The phrases analysis records carry in their text (a suite record's
//! detail, a comparison's state cells) and the text reports print the same
//! way ([`crate::report::text`] uses them): counted nouns, lists of
//! invocations, final states, where an event is. The phrases of a
//! non-termination witness live beside it ([`super::termination`]).

use super::states::FinalState;
use crate::engine::EventInfo;
use crate::ir::Program;
use std::fmt::Write;

/// `1 file`, `2 files`.
pub fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `by P0 (...), P1 (...)`: the first three invocations of a list, and how
/// many more.
pub fn who(threads: &[String]) -> String {
    let mut w = format!("by {}", threads[..threads.len().min(3)].join(", "));
    if threads.len() > 3 {
        w.push_str(&format!(" and {} more", threads.len() - 3));
    }
    w
}

/// Appends a final state's cells, `name=value;` separated by one space,
/// each name spelt by `name` (no allocation per cell or per state: a
/// listing may have hundreds of thousands of states).
pub fn push_state(s: &mut String, state: &FinalState, name: fn(&str) -> &str) {
    for (i, (k, v)) in state.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(name(k));
        s.push('=');
        match state.kind(i) {
            Some(kind) => kind.push(s, v),
            None => push_int(s, v),
        }
        s.push(';');
    }
}

/// Appends `v` in decimal (a single digit without the formatter).
pub(crate) fn push_int(s: &mut String, v: i64) {
    match u8::try_from(v) {
        Ok(d @ 0..=9) => s.push(char::from(b'0' + d)),
        _ => {
            let _ = write!(s, "{v}");
        }
    }
}

/// `P0 (label) line 5: text`: where an event's instruction is, for a
/// reader (`P0 HEADER:5: text` in a header the shader includes).
pub fn describe(program: &Program, e: &EventInfo) -> String {
    let t = &program.threads[e.thread];
    let ins = e.instruction(program);
    match program
        .symbols
        .threads
        .get(e.thread)
        .and_then(|s| s.label.as_deref())
    {
        Some(label) => format!(
            "P{} ({label}) {}: {}",
            t.id,
            ins.source.place(),
            ins.source.text
        ),
        None => format!("P{} {}: {}", t.id, ins.source.place(), ins.source.text),
    }
}

/// Reserves room in `s` for the lines of `states`, each about as long as
/// the first's cells and `extra` more bytes.
pub fn reserve_states(s: &mut String, states: &[(FinalState, u64)], extra: usize) {
    if let Some((first, _)) = states.first() {
        let line: usize = first.iter().map(|(k, v)| k.len() + 3 + digits(v)).sum();
        s.reserve(states.len().saturating_mul(line + extra));
    }
}

/// How many characters `v` prints as.
fn digits(v: i64) -> usize {
    let sign = usize::from(v < 0);
    sign + v
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |d| d as usize + 1)
}
