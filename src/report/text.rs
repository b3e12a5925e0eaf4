//! Plain-text reports: herd-like outcome lists (with execution counts and
//! vkmm's notes on races, bounds and limits), query answers, suite
//! summaries, comparisons and explanations.

use super::herd::witnesses;
use crate::analysis::explain::{Explanation, Verdict};
use crate::analysis::phrases::push_int;
use crate::analysis::phrases::reserve_states;
pub use crate::analysis::phrases::{count, push_state, who};
use crate::analysis::refines::{Refinement, RefinesAnswer};
use crate::analysis::termination::repetition;
pub use crate::analysis::termination::witness_line;
use crate::analysis::{Checked, Comparison, LitmusOutcome, QueryOutcome, Summary, TestOutcome};
/// How a search that stopped at a limit says where it stopped.
pub use crate::engine::stopped_at;
use crate::ir::Quantifier;
use std::fmt::Write;

/// The text report of one checked file.
pub fn checked(c: &Checked) -> String {
    match c {
        Checked::Queries(o) => queries(o),
        Checked::Litmus(o) => litmus(o),
        Checked::Termination(o) => termination(o),
    }
}

/// The text report of a termination check: the verdict and, for a program
/// that can run forever, the witness (each invocation's fate, the loop
/// iterations that repeat and what their reads see).
pub fn termination(o: &crate::analysis::termination::TerminationOutcome) -> String {
    use crate::analysis::termination::Verdict as T;
    let mut s = format!("Test {} (termination, progress {})\n", o.name, o.progress);
    match (&o.verdict, &o.witness) {
        (T::NonTerminating, Some(w)) => {
            s.push_str("NON-TERMINATING: an execution the progress model allows runs forever\n");
            for f in &w.threads {
                let _ = writeln!(
                    s,
                    "  {:<4} {:<14} {}, {}",
                    f.thread,
                    f.fate,
                    count(f.events as u64, "event", "events"),
                    if f.fair {
                        "scheduled fairly"
                    } else {
                        "not scheduled fairly"
                    }
                );
            }
            for l in &w.loops {
                let _ = writeln!(s, "  {}", repetition(l));
                for r in &l.reads {
                    let _ = writeln!(s, "    {r}");
                }
            }
        }
        (T::Terminates, _) if o.cut_paths > 0 => {
            let _ = writeln!(
                s,
                "TERMINATES WITHIN THE BOUND: no execution repeats forever within unroll {} ({} cut: a repetition needing more iterations was not examined; raise --unroll)",
                o.unroll,
                count(o.cut_paths as u64, "path", "paths"),
            );
        }
        (T::Terminates, _) => {
            s.push_str("TERMINATES: every execution the progress model allows ends\n")
        }
        _ if o.front_end_limit.is_some() => {
            let _ = writeln!(
                s,
                "UNDECIDED: {}",
                front_end_stop(o.front_end_limit.as_deref().unwrap_or_default())
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "UNDECIDED: the search at unroll {} stopped {} before finding a witness{}",
                o.unroll,
                crate::engine::stopped_at(o.stopped_by),
                o.searched_within.map_or(String::new(), |u| format!(
                    " (no execution repeats forever within unroll {u})"
                ))
            );
        }
    }
    let _ = writeln!(
        s,
        "Time {} {:.3} ms  ({}, model {}, {} at unroll {} of {})",
        o.name,
        o.time.as_secs_f64() * 1000.0,
        count(o.executions, "execution", "executions"),
        o.model,
        if o.verdict == T::Undecided {
            "stopped"
        } else {
            "decided"
        },
        o.unroll,
        o.max_unroll
    );
    s
}

/// The text report of an explained termination check: [`termination`],
/// then, for a program that can run forever, the witness execution with
/// the events that repeat forever marked, and its labelled edges.
pub fn termination_explanation(x: &crate::TerminationExplanation) -> String {
    let o = &x.outcome;
    let mut s = termination(o);
    let Some(w) = &o.witness else {
        return s;
    };
    let Some(drawn) = &w.execution else {
        return s;
    };
    let mark = |e: usize| {
        if w.loops.iter().any(|l| l.suffix_events.contains(&e)) {
            "  <- repeats forever"
        } else if w.loops.iter().any(|l| l.infix_events.contains(&e)) {
            "  <- matches the repetition"
        } else {
            ""
        }
    };
    let _ = writeln!(
        s,
        "Witness execution (a finite prefix; the marked iterations repeat forever):"
    );
    execution(&mut s, drawn, &mark, " none");
    s
}

/// A drawn execution's events (each followed by `mark` of its number) and
/// its labelled edges with the paths behind them; `no_edges` follows
/// `Key edges:` when there are none.
fn execution(
    s: &mut String,
    w: &crate::analysis::explain::Witness,
    mark: &dyn Fn(usize) -> &'static str,
    no_edges: &str,
) {
    for (i, e) in w.events.iter().enumerate() {
        let _ = writeln!(s, "  {e}{}", mark(i));
    }
    let none = if w.edges.is_empty() { no_edges } else { "" };
    let _ = writeln!(s, "Key edges:{none}");
    for e in &w.edges {
        let _ = writeln!(s, "  {} -> {}  [{}]", short(&e.from), short(&e.to), e.label);
        via(s, e, "      ");
    }
}

/// The text summary of a suite: the verdict of each litmus file checked
/// without expectation, failures, undecided checks, errors, counts and time.
pub fn summary(this: &Summary) -> String {
    use crate::analysis::suite::Status;
    let mut s = String::new();
    // Litmus files checked without expectation: their own verdict, or
    // UNDECIDED (they are counted undecided below too).
    for r in this.records.iter().filter(|r| {
        r.expected.is_none()
            && r.query.is_none()
            && r.property
                .is_some_and(|p| p != crate::analysis::Property::Termination)
            && matches!(r.status, Status::Checked | Status::Undecided)
    }) {
        let _ = writeln!(
            s,
            "{}: {} ({}, {}{}{})",
            r.file,
            match r.actual.as_str() {
                "-" => "no quantifier".to_string(),
                a => format!("condition {a}"),
            },
            count(r.states as u64, "state", "states"),
            if r.races > 0 {
                count(r.races as u64, "racing pair", "racing pairs")
            } else if r.complete {
                "race-free".to_string()
            } else {
                "no race seen".to_string()
            },
            if r.cut_paths > 0 { ", BOUND HIT" } else { "" },
            if !r.complete { ", UNDECIDED" } else { "" }
        );
    }
    for f in &this.failed {
        let _ = writeln!(s, "FAIL {}: {}", f.file, f.detail);
    }
    for f in &this.annotated_disagree {
        let _ = writeln!(s, "ANNOTATED ROW DIFFERS {}: {}", f.file, f.detail);
    }
    for f in &this.undecided {
        let _ = writeln!(s, "UNDECIDED {}: {}", f.file, f.detail);
    }
    for f in &this.undefined_behaviour {
        let _ = writeln!(s, "UNDEFINED {}: {}", f.file, f.detail);
    }
    for e in &this.errors {
        let _ = writeln!(s, "ERROR {}", e.error);
    }
    for u in &this.unsupported {
        let _ = writeln!(s, "UNSUPPORTED {}: {}", u.file, u.detail);
    }
    for group in ["checked", "annotated"] {
        let rows: Vec<_> = this
            .records
            .iter()
            .filter(|r| r.group.as_deref() == Some(group))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let n = |st: Status| rows.iter().filter(|r| r.status == st).count();
        let _ = writeln!(
            s,
            "{group} rows: {} passed, {} failed, {} undecided, {}{} unsupported, {} errors",
            n(Status::Passed),
            n(Status::Failed),
            n(Status::Undecided),
            match n(Status::Undefined) {
                0 => String::new(),
                k => format!("{k} undefined behaviour, "),
            },
            n(Status::Unsupported),
            n(Status::Error)
        );
    }
    // Files (or manifest rows) a limit stopped before their program was
    // read are counted and said so: undecided, not absent.
    let unread = match this.unread {
        0 => String::new(),
        1 if this.files == 1 => " (stopped before it was read)".to_string(),
        1 => " (1 stopped before it was read)".to_string(),
        k if k == this.files => " (all stopped before they were read)".to_string(),
        k => format!(" ({k} stopped before they were read)"),
    };
    let _ = writeln!(
        s,
        "{}{unread}, {}: {} passed, {} failed, {} undecided, {}{} in {:.1} ms",
        count((this.files + this.errors.len()) as u64, "file", "files"),
        count(this.total as u64, "check", "checks"),
        this.passed,
        this.failed.len(),
        this.undecided.len(),
        match this.undefined_behaviour.len() {
            0 => String::new(),
            k => format!("{k} undefined behaviour, "),
        },
        count(this.errors.len() as u64, "error", "errors"),
        this.time.as_secs_f64() * 1000.0
    );
    if this.annotated > 0 {
        let _ = writeln!(
            s,
            "annotated rows (never machine-checked by their authors; not counted above): {} of {} agree",
            this.annotated_agree, this.annotated
        );
    }
    s
}

fn query_line(q: &QueryOutcome) -> String {
    format!(
        "  line {:<3} {:<52} expected {:<11} got {:<11} {:<4} {:>9.3} ms  ({}, {}{})",
        q.line,
        q.query,
        q.expected.to_string(),
        q.actual.to_string(),
        match (q.passed, q.actual) {
            (true, _) => "ok",
            (false, crate::analysis::Answer::Undecided) => "UNDECIDED",
            (false, _) => "FAIL",
        },
        q.time.as_secs_f64() * 1000.0,
        count(q.executions, "execution", "executions"),
        q.model,
        q.undecided
            .as_ref()
            .map_or(String::new(), |why| format!("; {why}"))
    )
}

/// Side-by-side text of a comparison; rows whose answers differ start with `*`.
pub fn comparison(c: &Comparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Compare {} ({}): {}",
        c.file,
        c.models.join(" | "),
        crate::analysis::compare::answer(c)
    );
    let width = c.rows.iter().map(|(w, _)| w.len()).max().unwrap_or(0);
    for (what, answers) in &c.rows {
        let mark = if answers.iter().any(|a| a != &answers[0]) {
            "*"
        } else {
            " "
        };
        let cells: Vec<String> = answers
            .iter()
            .zip(&c.models)
            .map(|(a, m)| format!("{:<w$}", a, w = m.len().max(9)))
            .collect();
        let _ = writeln!(s, "{mark} {what:<width$}  {}", cells.join(" | "));
    }
    for n in &c.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    s
}

/// A racing pair's lines: the two accesses, the attribution it was seen
/// under, and where threads stopped in the execution that shows it.
fn race_pair(s: &mut String, r: &crate::analysis::RacePair) {
    let _ = writeln!(
        s,
        "  race on {}: {}  <->  {}",
        r.location, r.first, r.second
    );
    if let Some(a) = &r.attribution {
        let _ = writeln!(s, "    under the attribution {a}");
    }
    if !r.stopped_at_bound.is_empty() {
        let _ = writeln!(
            s,
            "    in the execution where {}",
            r.stopped_at_bound.join("; ")
        );
    }
}

/// The most final states a race lists in the text report (JSON lists up to
/// [`crate::analysis::litmus::RACE_STATES_LISTED`]).
const RACE_STATES_SHOWN: usize = 6;

/// Where a racing pair races: the final states of the executions in which
/// it races, out of the `all` states listed (a race may need, say, the
/// flag read 0). Nothing when it was seen only in executions stopping at
/// the bound (no final state; `stopped_at_bound` says where).
fn race_states(s: &mut String, r: &crate::analysis::RacePair, all: usize) {
    let n = r.state_count;
    if n == 0 {
        return;
    }
    if n == all {
        let _ = writeln!(
            s,
            "    in executions ending in {}",
            if all == 1 {
                "the one final state".to_string()
            } else {
                format!("each of the {all} final states")
            }
        );
        return;
    }
    if r.states.is_empty() {
        let _ = writeln!(
            s,
            "    in executions ending in {n} of the {all} final states (not listed)"
        );
        return;
    }
    let _ = writeln!(
        s,
        "    in executions ending in {n} of the {all} final state{}:",
        if all == 1 { "" } else { "s" }
    );
    for state in r.states.iter().take(RACE_STATES_SHOWN) {
        s.push_str("      ");
        push_state(s, state, |k| k);
        s.push('\n');
    }
    if n > RACE_STATES_SHOWN {
        let _ = writeln!(
            s,
            "      and {} more (--format json lists {})",
            n - RACE_STATES_SHOWN,
            if r.states_cut {
                format!("the first {}", crate::analysis::litmus::RACE_STATES_LISTED)
            } else {
                "them all".to_string()
            }
        );
    }
}

/// Appends a state's count left-aligned in 8 columns, then ` :> ` (as
/// `{count:<8} :> `).
pub(crate) fn push_count(s: &mut String, count: u64) {
    let start = s.len();
    match i64::try_from(count) {
        Ok(c) => push_int(s, c),
        Err(_) => {
            let _ = write!(s, "{count}");
        }
    }
    while s.len() - start < 8 {
        s.push(' ');
    }
    s.push_str(" :> ");
}

/// Writes the text report of `c` to `w`: the bytes of [`checked`], but a
/// litmus test's state lines are written as they are made, a block at a
/// time, instead of being held whole in one string first (a listing of a
/// few hundred thousand states is tens of megabytes of text).
pub fn write_checked(w: &mut dyn std::io::Write, c: &Checked) -> std::io::Result<()> {
    match c {
        Checked::Litmus(o) => write_litmus(w, o, STATE_BLOCK),
        _ => w.write_all(checked(c).as_bytes()),
    }
}

/// About how many bytes of state lines [`write_checked`] gathers before it
/// writes them.
const STATE_BLOCK: usize = 1 << 16;

/// [`litmus`] written to `w` in pieces of about `block` bytes.
fn write_litmus(
    w: &mut dyn std::io::Write,
    o: &LitmusOutcome,
    block: usize,
) -> std::io::Result<()> {
    let mut result = Ok(());
    let mut s = String::with_capacity(block.min(STATE_BLOCK) + (1 << 10));
    litmus_pieces(o, &mut s, block, &mut |piece| {
        if result.is_ok() {
            result = w.write_all(piece.as_bytes());
        }
    });
    result.and_then(|()| w.write_all(s.as_bytes()))
}

/// The `SUMMARY` line of a listing not built whose figures are complete
/// ([`crate::analysis::litmus::StatesSummary`]).
fn states_summary(s: &mut String, m: &crate::analysis::litmus::StatesSummary) {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let _ = write!(
        s,
        "SUMMARY (complete: the search saw every execution): {} final state{} reached by {} execution{}",
        m.states,
        plural(m.states),
        m.executions,
        if m.executions == 1 { "" } else { "s" }
    );
    if let (Some(h), Some(f)) = (m.condition_holds_in, m.condition_fails_in) {
        let _ = write!(
            s,
            "; the condition holds in {h} state{} and fails in {f}",
            plural(h)
        );
    }
    s.push('\n');
}

/// The herd-style text report of a litmus test.
pub fn litmus(o: &LitmusOutcome) -> String {
    let mut s = String::new();
    reserve_states(&mut s, &o.states, 12);
    litmus_pieces(o, &mut s, usize::MAX, &mut |_| {});
    s
}

/// Appends the text of [`litmus`] to `s`; each time a state line brings
/// `s` to `block` bytes or more, `s` is handed to `sink` and emptied (what
/// is left at the end stays in `s`).
fn litmus_pieces(o: &LitmusOutcome, s: &mut String, block: usize, sink: &mut dyn FnMut(&str)) {
    let quantifier = o.quantifier;
    let kind = match quantifier {
        Some(Quantifier::Exists) => "Allowed",
        Some(Quantifier::NotExists) => "Forbidden",
        Some(Quantifier::Forall) => "Required",
        None => "Filtered",
    };
    let _ = writeln!(s, "Test {} {kind}", o.name);
    let _ = writeln!(s, "States {}", o.states.len());
    if o.states_unlisted > 0 {
        let _ = writeln!(
            s,
            "NOT LISTED: {} final states were found; the listing stopped {} while it was built after the walk",
            o.states_unlisted,
            crate::engine::stopped_at(o.stopped_by)
        );
        if let Some(m) = &o.states_summary {
            states_summary(s, m);
        }
    }
    for (state, count) in &o.states {
        push_count(s, *count);
        push_state(s, state, |k| k);
        s.push('\n');
        if s.len() >= block {
            sink(s);
            s.clear();
        }
    }
    match (o.quantifier, o.holds(crate::analysis::Property::Condition)) {
        (Some(_), None) => s.push_str("Undecided\n"),
        (_, Some(true)) => s.push_str("Ok\n"),
        (_, Some(false)) => s.push_str("No\n"),
        (None, None) => {}
    }
    witnesses(o, s);
    if o.states_only {
        let _ = writeln!(
            s,
            "One witness per state (--property states): the counts are witnesses, not executions"
        );
    }
    if o.condition_only {
        let _ = writeln!(
            s,
            "Condition only (outcome-directed): executions whose final state could not decide the verdict were skipped; the states and counts are the witnesses evaluated, not every reachable state"
        );
    }
    if o.race_free == Some(true) && o.undefined.races {
        let _ = writeln!(
            s,
            "Data races: none among the in-bounds accesses (no verdict: undefined behaviour, below)"
        );
    } else if o.race_free == Some(true) {
        let _ = writeln!(s, "Data races: none");
    } else if o.race_free.is_none() && o.condition_only {
        let _ = writeln!(
            s,
            "Data races: not checked (the condition's verdict only; none among the witnesses)"
        );
    } else if o.race_free.is_none() && o.states_only {
        let _ = writeln!(
            s,
            "Data races: not checked (--property states evaluates one execution per state; none among those)"
        );
    } else if o.race_free.is_none() {
        let _ = writeln!(
            s,
            "Data races: undecided (none among the executions seen{}; see below)",
            o.prefix_walk
                .map_or(String::new(), |p| format!(", nor among {}", p.describe()))
        );
    } else {
        let _ = writeln!(
            s,
            "Data races: yes{}",
            if o.states_only || o.condition_only {
                " (among the witnesses; other pairs may race too)"
            } else if !o.races.is_empty() && o.races.iter().all(|r| !r.stopped_at_bound.is_empty())
            {
                " (in an execution in which some threads stop part-way: at the unrolling bound, spinning forever in a loop no value leaves, or waiting at a control barrier)"
            } else {
                ""
            }
        );
        for r in &o.races {
            race_pair(s, r);
            race_states(s, r, o.states.len() + o.states_unlisted);
        }
        if let Some(state) = o.races.iter().find_map(|r| r.states.first()) {
            let _ = writeln!(
                s,
                "  see one: vkmm explain {} --outcome '{}'",
                o.file,
                crate::analysis::explain::state_outcome(state)
            );
        }
    }
    if let Some(a) = o.attributions {
        attributions(s, a, o.stopped_early);
    }
    barrier_divergence(s, &o.barrier_divergence);
    undefined_behaviour(s, o);
    if !o.barrier_stalls.is_empty() {
        let _ = writeln!(
            s,
            "Blocked at a barrier (too few invocations reach a barrier with a quorum: no final state from those paths):"
        );
        for d in &o.barrier_stalls {
            let _ = writeln!(s, "  {d}");
        }
    }
    // Each limit is said once, on the line of what it stopped: a walk
    // cut short here; a listing dropped after a walk that ended on the
    // `NOT LISTED` line alone (the walk's figures are then whole).
    if o.truncated && !o.listing_only {
        let _ = writeln!(
            s,
            "TRUNCATED after {} model evaluations ({} executions, {} partial; stopped {}): states and counts cover only those executions",
            o.executions + o.partial_evaluations,
            o.executions,
            o.partial_evaluations,
            crate::engine::stopped_at(o.stopped_by)
        );
    }
    let _ = writeln!(
        s,
        "Time {} {:.3} ms  ({} executions, {} consistent, {} partial, model {}, unroll {}{}{})",
        o.name,
        o.time.as_secs_f64() * 1000.0,
        o.executions,
        o.consistent,
        o.partial_evaluations,
        o.model,
        o.unroll,
        if o.symmetric_threads > 0 {
            format!(
                ", symmetry: {} interchangeable threads, one execution evaluated per orbit",
                o.symmetric_threads
            )
        } else if o.rotation_order > 0 {
            format!(
                ", symmetry: threads and locations renamed by a group of order {}, one execution evaluated per orbit",
                o.rotation_order
            )
        } else {
            String::new()
        },
        if o.cut_paths > 0 {
            format!(
                ", BOUND HIT: {} cut, the answer covers only executions within the bound",
                count(o.cut_paths as u64, "thread path", "thread paths")
            )
        } else {
            String::new()
        }
    );
    if o.counts_saturated {
        let _ = writeln!(
            s,
            "Counts: some pass 2^64 - 1 and show {} (a lower bound, not the number)",
            u64::MAX
        );
    }
}

/// The text report of one checked file.
pub fn queries(o: &TestOutcome) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Test {} ({}): {}, {}, {:.3} ms",
        o.name,
        o.file,
        count(o.events as u64, "event", "events"),
        count(o.candidates, "candidate execution", "candidate executions"),
        o.time.as_secs_f64() * 1000.0
    );
    for q in &o.queries {
        let _ = writeln!(s, "{}", query_line(q));
    }
    if let Some(a) = o.attributions {
        attributions(&mut s, a, false);
    }
    barrier_divergence(&mut s, &o.barrier_divergence);
    s
}

/// The `Attributions:` line of a test leaving cooperative matrix
/// attributions open: how many were run, and why not all when not.
fn attributions(s: &mut String, a: crate::analysis::AttributionCount, stopped_early: bool) {
    if a.explored as u64 >= a.total {
        let _ = writeln!(
            s,
            "Attributions: {} (the cooperative matrix element accesses the test leaves to the implementation; the answers are their union)",
            a.explored
        );
    } else {
        let _ = writeln!(
            s,
            "Attributions: {} of {} run (the cooperative matrix element accesses the test leaves to the implementation; {}, at most {}): answers the attributions run do not settle are undecided",
            a.explored,
            a.total,
            if stopped_early {
                "the search stopped once the asked property was decided"
            } else {
                "the bound cut the list"
            },
            crate::ir::MAX_ATTRIBUTIONS
        );
    }
}

/// The `Undefined behaviour` lines, if some execution seen accesses out
/// of bounds: how many executions, whether the verdicts rest on them, each
/// access with how many executions take it, and the states they reach.
fn undefined_behaviour(s: &mut String, o: &LitmusOutcome) {
    let u = &o.undefined;
    if u.is_empty() {
        return;
    }
    let seen = if o.stopped_early || (o.truncated && !o.listing_only) || o.cut_paths > 0 {
        " seen"
    } else {
        ""
    };
    let mut rests = Vec::new();
    if u.condition {
        rests.push("the condition's verdict");
    }
    if u.races {
        rests.push("the race verdict");
    }
    let _ = writeln!(
        s,
        "Undefined behaviour: out-of-bounds access in {} of {} consistent executions{seen} (SPIR-V: \"causes undefined behavior if not in bounds\"; vkmm makes only their in-bounds accesses){}:",
        u.executions,
        o.consistent,
        if rests.is_empty() {
            "; the verdicts do not rest on them (a witness without it settles them)".to_string()
        } else {
            format!("; {} rests on them: no verdict", rests.join(" and "))
        }
    );
    for a in &u.out_of_bounds {
        let _ = writeln!(
            s,
            "  out-of-bounds access to {} at {}:{} in {}: {} ({})",
            a.variable,
            a.file.as_deref().unwrap_or(&o.file),
            a.line,
            count(a.executions, "execution", "executions"),
            a.instruction,
            who(&a.threads)
        );
    }
    for (state, n) in &u.states {
        let _ = write!(s, "  reached with it: {n:<8} :> ");
        push_state(s, state, |k| k);
        s.push('\n');
    }
}

/// The `Barrier divergence` lines, if any.
fn barrier_divergence(s: &mut String, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "Barrier divergence (undefined: an invocation passes a control barrier a member of its instance never reaches, or reaches fewer times):"
    );
    for d in lines {
        let _ = writeln!(s, "  {d}");
    }
}

/// Why an answer is undecided when a bound stopped the front end: its
/// message says what it covered and which option stopped it.
fn front_end_stop(message: &str) -> String {
    format!(
        "the front end stopped before it built the whole program, so no execution it lists is the shader's: {message}"
    )
}

/// Text report of an explanation.
pub fn explanation(x: &Explanation) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    // A verdict that nothing produces the outcome is one within the
    // unrolling bound when it cut paths.
    let within = if x.cut_paths > 0 {
        " within the unrolling bound"
    } else {
        ""
    };
    let verdict = match x.verdict {
        Verdict::Allowed => "ALLOWED".to_string(),
        Verdict::Forbidden => format!("FORBIDDEN{within}"),
        Verdict::Unreachable => {
            format!("UNREACHABLE{within} (no candidate execution produces it, consistent or not)")
        }
        Verdict::Undecided => match &x.front_end_limit {
            Some(m) => format!("UNDECIDED ({})", front_end_stop(m)),
            None => format!(
                "UNDECIDED (the search stopped {} before finding a consistent execution producing it)",
                crate::engine::stopped_at(x.coverage.stopped_by)
            ),
        },
    };
    // The test's own condition: whether it holds under the model, then
    // the verdict of the outcome that decides it (the expression of an
    // `exists`, the expression a `~exists` excludes, the negation of a
    // `forall`) and why.
    let own = x
        .outcome
        .strip_prefix("the condition of ")
        .map(|c| (c, "its expression"))
        .or_else(|| {
            x.outcome
                .strip_prefix("the negation of ")
                .map(|c| (c, "its negation"))
        });
    match (&x.condition, own) {
        (Some(c), Some((text, subject))) => {
            let subject = if c.quantifier == "~exists" {
                "the expression it excludes"
            } else {
                subject
            };
            let holds = match c.holds {
                Some(true) => "HOLDS",
                Some(false) => "FAILS",
                None => "is UNDECIDED",
            };
            let _ = writeln!(
                s,
                "Test {}: {text} {holds} under {}: {subject} is {verdict}; {}",
                x.test, x.model, c.reason
            );
        }
        _ => {
            let _ = writeln!(
                s,
                "Test {}: outcome `{}` is {verdict} under {}",
                x.test, x.outcome, x.model
            );
        }
    }
    if let Some(a) = &x.attribution {
        let _ = writeln!(s, "Attribution: {a}");
    }
    let counts = match x.verdict {
        Verdict::Allowed if x.truncated => format!(
            "{} consistent executions produce it among those seen (TRUNCATED {}: the race diagnoses cover only those)",
            x.consistent,
            crate::engine::stopped_at(x.coverage.stopped_by)
        ),
        Verdict::Allowed => format!(
            "{} {}",
            count(
                x.consistent,
                "consistent execution",
                "consistent executions"
            ),
            if x.consistent == 1 {
                "produces it"
            } else {
                "produce it"
            }
        ),
        Verdict::Forbidden if x.rejections_complete => format!(
            "{} {}, none consistent",
            count(x.candidates, "candidate execution", "candidate executions"),
            if x.candidates == 1 {
                "produces it"
            } else {
                "produce it"
            }
        ),
        Verdict::Forbidden => format!(
            "no consistent execution produces it; the rejections below are from the first {} candidates producing it (TRUNCATED {})",
            x.candidates,
            crate::engine::stopped_at(x.coverage.stopped_by)
        ),
        Verdict::Unreachable => "no candidate execution produces it".to_string(),
        Verdict::Undecided => format!(
            "no consistent execution producing it among {} evaluated (TRUNCATED {})",
            x.coverage.executions + x.coverage.partial_evaluations,
            crate::engine::stopped_at(x.coverage.stopped_by)
        ),
    };
    let _ = writeln!(
        s,
        "  {counts}{}",
        if x.cut_paths > 0 {
            format!(
                "; BOUND HIT: {} cut",
                count(x.cut_paths as u64, "thread path", "thread paths")
            )
        } else {
            String::new()
        }
    );
    if let Some(w) = &x.witness {
        let counterexample = x
            .condition
            .as_ref()
            .is_some_and(|c| c.quantifier == "forall" && c.holds == Some(false));
        let _ = writeln!(
            s,
            "{}:",
            if counterexample {
                "Counterexample execution"
            } else {
                "Witness execution"
            }
        );
        execution(&mut s, w, &|_| "", "");
    }
    for r in &x.rejections {
        let _ = writeln!(
            s,
            "Rejected by `{}` ({} executions):",
            r.axiom, r.executions
        );
        if r.cycle.is_empty() {
            let _ = writeln!(
                s,
                "  (the model's .explain file names no relation for this check)"
            );
        }
        for e in &r.cycle {
            let _ = writeln!(s, "  {}\n      --[{}]-->", e.from, e.label);
            via(&mut s, e, "          ");
        }
        if let Some(last) = r.cycle.last() {
            let _ = writeln!(s, "  {}", last.to);
        }
    }
    for d in &x.races {
        let _ = writeln!(
            s,
            "Data race on {}: {}  <->  {}",
            d.location, d.first, d.second
        );
        if !d.missing.is_empty() {
            let _ = writeln!(s, "  missing: {}", d.missing.join("; "));
        }
        for (q, a) in &d.facts {
            let _ = writeln!(s, "  {q}: {a}");
        }
    }
    test_races(&mut s, x);
    s
}

/// The whole test's races under an explanation of its own condition:
/// the executions explained may not be those that race (message passing
/// reading the payload whatever the flag: the race is where the flag
/// read 0), so the test's races, where they race and how to see one.
fn test_races(s: &mut String, x: &Explanation) {
    use std::fmt::Write;
    let Some(t) = &x.test_races else {
        return;
    };
    match t.race_free {
        Some(true) => {
            let _ = writeln!(
                s,
                "Data races: none in any consistent execution of the test"
            );
            return;
        }
        None if t.races.is_empty() => {
            let _ = writeln!(
                s,
                "Data races: undecided for the test ({})",
                t.undecided
                    .as_deref()
                    .unwrap_or("none among the executions seen")
            );
            return;
        }
        _ => {}
    }
    let explained = x.races.len();
    let _ = writeln!(
        s,
        "Data races in the test (in any consistent execution, not only those explained{}):",
        if explained > 0 { ", above" } else { "" }
    );
    if let Some(why) = &t.undecided {
        let _ = writeln!(s, "  INCOMPLETE: {why}");
    }
    for r in &t.races {
        race_pair(s, r);
        let all = r.state_count;
        if all == t.states && all > 1 {
            let _ = writeln!(
                s,
                "    in executions ending in each of the {all} final states"
            );
            continue;
        }
        if all == t.states && all == 1 {
            let _ = writeln!(s, "    in executions ending in the one final state");
            continue;
        }
        for state in r.states.iter().take(RACE_STATES_SHOWN) {
            s.push_str("    in executions ending in ");
            push_state(s, state, |k| k);
            s.push('\n');
        }
        if all > RACE_STATES_SHOWN {
            let _ = writeln!(
                s,
                "    and in {} more final states (vkmm check lists them)",
                all - RACE_STATES_SHOWN
            );
        }
    }
    if let Some(state) = t.races.iter().find_map(|r| r.states.first()) {
        let _ = writeln!(
            s,
            "  see one: explain --outcome '{}'",
            crate::analysis::explain::state_outcome(state)
        );
    }
}

/// The path behind an edge, one `role: event` line each.
fn via(s: &mut String, e: &crate::analysis::explain::Edge, indent: &str) {
    for step in &e.via {
        let _ = writeln!(s, "{indent}{}: {}", step.role, short(&step.event));
    }
}

fn short(event: &str) -> &str {
    event.split(" [").next().unwrap_or(event)
}

/// The text report of one refinement check.
pub fn refinement(r: &Refinement) -> String {
    let mut out = format!(
        "Test {}: {} refines {}: {} ({} final states under {}, {} under {}{})\n",
        r.file,
        r.implementation,
        r.specification,
        match r.answer {
            RefinesAnswer::Yes => "yes",
            RefinesAnswer::No => "NO",
            RefinesAnswer::Undecided => "UNDECIDED",
        },
        r.impl_states,
        r.implementation,
        r.spec_states,
        r.specification,
        if r.complete {
            String::new()
        } else {
            format!("; INCOMPLETE: {}", r.incomplete.join("; "))
        }
    );
    for o in &r.unconfirmed {
        out.push_str(&format!(
            "  unconfirmed: {o} is allowed by {} and not among the states seen under {}\n",
            r.implementation, r.specification
        ));
    }
    for v in &r.violations {
        out.push_str(&format!(
            "  violation: {} is allowed by {} and forbidden by {}\n",
            v.outcome, r.implementation, r.specification
        ));
        for (title, x) in [("witness", &v.witness), ("why forbidden", &v.forbidden)] {
            let Some(x) = x else { continue };
            out.push_str(&format!("  {title} ({}):\n", x.model));
            for line in explanation(x).lines() {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The closing line of `vkmm refines`: how many tests fail, refine, and are
/// undecided (never counted as refining).
pub fn refinement_summary(reports: &[Refinement], imp: &str, spec: &str) -> String {
    let n = |a: RefinesAnswer| reports.iter().filter(|r| r.answer == a).count();
    format!(
        "tests where {imp} allows an outcome {spec} forbids: {} of {}; refining: {}; undecided: {}\n",
        n(RefinesAnswer::No),
        reports.len(),
        n(RefinesAnswer::Yes),
        n(RefinesAnswer::Undecided)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_programs::{every_register, independent_reads};

    /// A listing too large to build, summed up: the report of 17 stores
    /// of 1 (P0) each read once (P1) by a thread of another workgroup,
    /// every read free to see 0 or 1: 2^17 = 131,072 final states (the
    /// 17 registers 0 or 1, the 17 locations 1), one execution each;
    /// `exists` every register 1 holds in exactly one of them. At a memory
    /// bound of 1 MiB (no counting allocator in the test binary: only the
    /// bytes the listing is about to take are counted) the walk sees
    /// every execution and the listing stops as it is built: `States 0`,
    /// NOT LISTED, and the complete SUMMARY (131,072 states, 131,072
    /// executions, the condition holding in 1 and failing in 131,071);
    /// JSON: `states_unlisted` and `states_summary`. The text and the JSON
    /// document are compared with tests/fixtures/golden/lib-states-summary
    /// {,-json}.out (times set to 0; `VKMM_UPDATE_GOLDEN=1` rewrites them).
    #[test]
    fn a_listing_not_built_is_summed_up() {
        let n = 17;
        let mut text = independent_reads("many-states", n, "st.av.dv.sc0", "ld.vis.dv.sc0");
        text.push_str(&format!("exists ({})\n", every_register(n, 1)));
        let c = crate::Session::new()
            .max_memory(Some(1 << 20))
            .check_text("many.litmus", &text)
            .expect("checks");
        let Checked::Litmus(mut o) = c else {
            panic!("a litmus outcome")
        };
        o.time = std::time::Duration::ZERO;
        let summary = o.states_summary.expect("a complete summary");
        assert_eq!(summary.states, 1 << 17);
        assert_eq!(summary.executions, 1 << 17);
        assert_eq!(summary.condition_holds_in, Some(1));
        assert_eq!(summary.condition_fails_in, Some((1 << 17) - 1));
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden");
        let reports = [
            ("lib-states-summary.out", litmus(&o)),
            (
                "lib-states-summary-json.out",
                crate::report::json::document("check", &o) + "\n",
            ),
        ];
        for (name, actual) in reports {
            let path = dir.join(name);
            if std::env::var_os("VKMM_UPDATE_GOLDEN").is_some() {
                std::fs::write(&path, &actual).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            assert_eq!(
                expected, actual,
                "{name} (after an intended change: VKMM_UPDATE_GOLDEN=1)"
            );
        }
        // Stopped before the walk saw every execution: no summary.
        let c = crate::Session::new()
            .max_memory(Some(1 << 20))
            .max_executions(1)
            .reduction(crate::engine::Reduction::ReadFactoring, false)
            .check_text("many.litmus", &text)
            .expect("checks");
        let Checked::Litmus(o) = c else {
            panic!("a litmus outcome")
        };
        assert!(o.truncated && !o.listing_only);
        assert_eq!(o.states_summary, None);
        assert!(!litmus(&o).contains("SUMMARY"));
        // The walk was cut: the TRUNCATED line says so.
        assert!(litmus(&o).contains("\nTRUNCATED after "));
    }

    /// A limit that stops only the listing, after a walk that ended, is
    /// said once, on the `NOT LISTED` line: no `TRUNCATED` line, and the
    /// walk's verdicts stay whole. 17 atomic stores of 1 (P0) each read
    /// once by an atomic load (P1, another workgroup): 2^17 = 131,072
    /// final states (each register 0 or 1), no race (every access
    /// atomic), and no register ever 2, so `~exists` every register 2
    /// holds in every execution. At 512 KiB the walk sees every execution and
    /// the listing stops as it is sorted (8 bytes a state for its order:
    /// 1 MiB; no racing pair to attribute, unlike
    /// `a_listing_not_built_is_summed_up`, so 1 MiB would just fit): the
    /// verdicts `Ok` and `Data races: none` are decided by the whole walk
    /// (`listing_only`), while the answer stays incomplete (exit 3) for
    /// want of the listing.
    #[test]
    fn a_listing_stopped_alone_is_said_once_and_keeps_the_verdicts() {
        let n = 17;
        let mut text = independent_reads("atomic-states", n, "st.atom.dv.sc0", "ld.atom.dv.sc0");
        // The condition names every register, so each is shown.
        text.push_str(&format!("~exists ({})\n", every_register(n, 2)));
        let c = crate::Session::new()
            .max_memory(Some(1 << 19))
            .check_text("atomic.litmus", &text)
            .expect("checks");
        let Checked::Litmus(o) = c else {
            panic!("a litmus outcome")
        };
        assert_eq!(o.states_unlisted, 1 << 17);
        assert!(o.truncated && o.listing_only);
        assert_eq!(o.holds(crate::analysis::Property::Condition), Some(true));
        assert_eq!(o.holds(crate::analysis::Property::Races), Some(true));
        assert!(!o.complete());
        let t = litmus(&o);
        assert!(
            t.contains("\nNOT LISTED: 131072 final states were found"),
            "{t}"
        );
        assert!(t.contains("\nSUMMARY (complete"), "{t}");
        assert!(t.contains("\nOk\n"), "{t}");
        assert!(t.contains("\nData races: none\n"), "{t}");
        assert!(!t.contains("TRUNCATED"), "{t}");
        assert!(!t.contains("Undecided"), "{t}");
        let json = crate::report::json::document("check", &o);
        assert!(json.contains("\"listing_only\": true"), "{json}");
    }

    /// The streamed report is the string report, whatever the block size
    /// (every state line its own piece, a few lines a piece, one piece),
    /// and a failing writer's error comes back.
    #[test]
    fn streamed_litmus_report_is_the_string_report() {
        // Four threads each reading a location another one writes: 16
        // states, with the counts and verdict lines around them.
        let text = "VULKAN s\n{ x=0; y=0; }\n\
            P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 | P3@sg 0, wg 3, qf 0 ;\n\
            st.atom.dv.sc0 x, 1 | st.atom.dv.sc0 y, 1 | ld.atom.dv.sc0 r0, x | ld.atom.dv.sc0 r0, y ;\n\
            | | ld.atom.dv.sc0 r1, y | ld.atom.dv.sc0 r1, x ;\n\
            exists (P2:r0 == 1 /\\ P2:r1 == 0 /\\ P3:r0 == 1 /\\ P3:r1 == 0)\n";
        let c = crate::Session::new()
            .check_text("s.litmus", text)
            .expect("checks");
        let Checked::Litmus(o) = &c else {
            panic!("a litmus outcome")
        };
        assert_eq!(o.states.len(), 16);
        let whole = checked(&c);
        for block in [1, 100, usize::MAX] {
            let mut out = Vec::new();
            write_litmus(&mut out, o, block).expect("writes");
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                whole,
                "block {block}"
            );
        }
        let mut out = Vec::new();
        write_checked(&mut out, &c).expect("writes");
        assert_eq!(String::from_utf8(out).expect("utf-8"), whole);
        struct Broken;
        impl std::io::Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = write_litmus(&mut Broken, o, 1).expect_err("the writer fails");
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe);
    }
    use crate::analysis::{FileError, Summary};
    use crate::analysis::{QueryOutcome, TestOutcome};
    use crate::ir::Expectation;
    use std::time::Duration;

    fn outcome(passed: bool) -> TestOutcome {
        TestOutcome {
            file: "f.test".into(),
            name: "f".into(),
            events: 2,
            candidates: 1,
            queries: vec![QueryOutcome {
                line: 3,
                query: "SATISFIABLE consistent[X]".into(),
                model: "vulkan".into(),
                expected: Expectation::Satisfiable,
                actual: if passed {
                    crate::analysis::Answer::Satisfiable
                } else {
                    crate::analysis::Answer::NoSolution
                },
                passed,
                executions: 1,
                time: Duration::from_micros(5),
                undecided: None,
            }],
            barrier_divergence: Vec::new(),
            time: Duration::from_micros(7),
            warnings: Vec::new(),
            attributions: None,
        }
    }

    #[test]
    fn summary_exit_codes_and_json_shape() {
        let ok = Summary::new(&[outcome(true)], vec![], Duration::ZERO);
        assert_eq!((ok.total, ok.passed, ok.exit_code()), (1, 1, 0));
        let bad = Summary::new(&[outcome(false)], vec![], Duration::ZERO);
        assert_eq!(bad.exit_code(), 1);
        assert!(
            bad.failed[0]
                .detail
                .contains("expected SATISFIABLE, got NOSOLUTION")
        );
        let err = Summary::new(
            &[outcome(false)],
            vec![FileError {
                file: "g.test".into(),
                error: "g.test:1:1: boom".into(),
            }],
            Duration::ZERO,
        );
        assert_eq!(err.exit_code(), 2);
        let v = serde_json::to_value(&err).unwrap();
        for key in ["total", "passed", "failed", "errors"] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["failed"][0]["file"], "f.test");
        assert!(summary(&err).contains("1 failed, 0 undecided, 1 error in"));
    }

    #[test]
    fn text_report_names_every_query() {
        let t = queries(&outcome(true));
        assert!(t.starts_with("Test f (f.test): 2 events, 1 candidate execution,"));
        assert!(t.contains("line 3"));
        assert!(t.contains("expected SATISFIABLE got SATISFIABLE ok"));
    }
}
