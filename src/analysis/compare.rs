//! One test under several models, side by side: for litmus tests the
//! reachable final states, the condition verdict and race freedom; for
//! `.test` files each query's answer. A model that refuses the test (the
//! Vulkan models and sequentially consistent operations) gets `n/a` and a
//! note saying why.

use super::litmus::{LitmusOutcome, Property, check_litmus};
use super::models::Models;
use super::queries::{Answer, check_program};
use crate::engine::driver::CheckError;
use crate::engine::{LimitKind, Limits};
use crate::ir::Program;
use crate::model::LoadedModel;
use serde::Serialize;

/// One test run under several models.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Comparison {
    pub file: String,
    pub models: Vec<String>,
    /// (what: a final state, a verdict or a query; one answer per model)
    pub rows: Vec<(String, Vec<String>)>,
    /// Whether some row's answers differ, decided answers only: a state a
    /// partial listing did not show (`unseen`) and an `undecided` verdict
    /// differ from nothing, so truncated searches never prove a difference.
    pub differs: bool,
    /// Whether every model's answer is complete (every final state listed,
    /// every verdict decided). Two answers are `same` only then; otherwise,
    /// without a proven difference, the comparison is undecided.
    pub complete: bool,
    pub notes: Vec<String>,
    /// The front end's warnings about the file.
    pub warnings: Vec<crate::frontend::FrontendWarning>,
}

/// Runs `program` under every model of `models`.
pub fn compare(
    file: &str,
    program: &Program,
    models: &[LoadedModel],
    limits: Limits,
) -> Result<Comparison, CheckError> {
    let start = web_time::Instant::now();
    let mut cmp = Comparison {
        file: file.to_string(),
        models: models.iter().map(|m| m.name.clone()).collect(),
        complete: true,
        warnings: program.warnings.clone(),
        ..Default::default()
    };
    if !program.queries.is_empty() {
        for model in models {
            let ms = Models {
                chains: model.clone(),
                no_chains: model.clone(),
            };
            let o = check_program(file, program, &ms, limits)?;
            for (i, q) in o.queries.iter().enumerate() {
                if cmp.rows.len() <= i {
                    cmp.rows
                        .push((format!("line {}: {}", q.line, q.query), Vec::new()));
                }
                cmp.rows[i].1.push(q.actual.to_string());
                if q.actual == Answer::Undecided {
                    cmp.complete = false;
                }
            }
        }
    } else {
        let mut outcomes = Vec::new();
        let mut refused = Vec::new();
        for model in models {
            match check_litmus(file, program, model, limits, None) {
                Ok(o) => outcomes.push(Some(o)),
                Err(CheckError::Unsupported(why)) => {
                    refused.push(format!("{}: not supported: {why}", model.name));
                    outcomes.push(None);
                }
                Err(e) => return Err(e),
            }
        }
        // The state rows are built under the request's time limit and
        // memory bound, as a listing is: a comparison stopped there shows
        // no state row (a partial set of rows could show a state one
        // model lists as missing from another), and is undecided.
        let bounds = limits.bounds;
        let mut stop = || {
            if bounds.expired(start) {
                Some(LimitKind::Timeout)
            } else if crate::memory::over(bounds.max_memory) {
                Some(LimitKind::MaxMemory)
            } else {
                None
            }
        };
        match state_rows(&outcomes, &mut stop) {
            Ok(rows) => cmp.rows = rows,
            Err(kind) => {
                cmp.complete = false;
                cmp.notes.push(format!(
                    "the final states were not compared: the comparison stopped {}",
                    crate::engine::stopped_at(Some(kind))
                ));
            }
        }
        let cells = |f: &dyn Fn(&LitmusOutcome) -> String| -> Vec<String> {
            outcomes
                .iter()
                .map(|o| o.as_ref().map_or_else(|| "n/a".to_string(), f))
                .collect()
        };
        cmp.rows.push((
            "condition holds".into(),
            cells(&|o| match o.holds(Property::Condition) {
                Some(true) => "Ok".into(),
                Some(false) => "No".into(),
                None if o.quantifier.is_some() => UNDECIDED.into(),
                None => "-".into(),
            }),
        ));
        cmp.rows.push((
            "race-free".into(),
            cells(&|o| match o.holds(Property::Races) {
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
                None => UNDECIDED.into(),
            }),
        ));
        cmp.complete &= outcomes
            .iter()
            .flatten()
            .all(|o| o.states_incomplete().is_none());
        refused.append(&mut cmp.notes);
        cmp.notes = refused;
        for o in outcomes.iter().flatten() {
            if let Some((mark, why, what)) = listing_coverage(o) {
                cmp.notes
                    .push(format!("{}: {mark} ({why}): its states {what}", o.model));
            }
        }
    }
    let decided = |x: &&String| !matches!(x.as_str(), UNSEEN | UNDECIDED | "UNDECIDED");
    cmp.complete &= cmp.rows.iter().all(|(_, c)| c.iter().all(|x| decided(&x)));
    cmp.differs = cmp.rows.iter().any(|(_, c)| {
        let mut known = c.iter().filter(decided);
        known.next().is_some_and(|first| known.any(|x| x != first))
    });
    Ok(cmp)
}

/// What a listing of final states that is not whole covers: its mark
/// (`INCOMPLETE`, `NOT LISTED`), why it is not whole (the limit or bound,
/// [`LitmusOutcome::states_incomplete`](LitmusOutcome::states_incomplete)),
/// and what the listed states are, as a predicate of them (`cover only
/// the executions seen`); `None` for a whole listing. A listing stopped
/// after a walk that saw every execution is not partial but absent, and
/// the walk's verdicts stand; a walk the unrolling bound cut saw the
/// executions within the bound, not only some of them.
pub fn listing_coverage(o: &LitmusOutcome) -> Option<(&'static str, String, &'static str)> {
    let why = o.states_incomplete()?;
    let (mark, what) = if o.front_end_limit.is_some() {
        (
            "INCOMPLETE",
            "are those of the part of the program the front end built",
        )
    } else if o.states_unlisted > 0 && o.listing_only {
        (
            "NOT LISTED",
            "are not shown, though the search saw every execution and its verdicts stand",
        )
    } else if o.states_unlisted > 0 {
        (
            "NOT LISTED",
            "are not shown, and the search stopped before it saw every execution",
        )
    } else if o.truncated && !o.stopped_early {
        ("INCOMPLETE", "cover only the executions seen")
    } else if o.stopped_early || o.condition_only {
        (
            "INCOMPLETE",
            "cover only the executions seen before the verdict was decided",
        )
    } else if o.cut_paths > 0 {
        (
            "INCOMPLETE",
            "cover only the executions within the unrolling bound",
        )
    } else {
        (
            "INCOMPLETE",
            "cover only the executions of the attributions run",
        )
    };
    Some((mark, why, what))
}

/// A row of the comparison: what (a final state, a verdict or a query),
/// and one answer per model.
type Row = (String, Vec<String>);

/// Every final state some model lists, once, sorted by its text, with a
/// cell per model: `allowed` where the model lists it, [`UNSEEN`] where
/// its listing is partial, `-` where it is whole and lacks the state, and
/// `n/a` for a model that refused the test. `stop` is asked every
/// [`ROWS_UNCHECKED`] states; what it returns ends the work.
fn state_rows(
    outcomes: &[Option<LitmusOutcome>],
    stop: &mut dyn FnMut() -> Option<LimitKind>,
) -> Result<Vec<Row>, LimitKind> {
    let fmt = |s: &super::litmus::FinalState| {
        let mut t = String::new();
        super::phrases::push_state(&mut t, s, |k| k);
        t
    };
    let mut asked = 0usize;
    let mut ask = || -> Result<(), LimitKind> {
        asked += 1;
        match asked % ROWS_UNCHECKED == 1 {
            true => stop().map_or(Ok(()), Err),
            false => Ok(()),
        }
    };
    // Each state once, by its text, with the models listing it: one pass
    // over each listing (a listing may hold hundreds of thousands of
    // states; looking each one up in the others' would be quadratic).
    let mut listed: std::collections::BTreeMap<String, Vec<bool>> = Default::default();
    for (i, o) in outcomes.iter().enumerate() {
        for (st, _) in o.iter().flat_map(|o| &o.states) {
            ask()?;
            listed
                .entry(fmt(st))
                .or_insert_with(|| vec![false; outcomes.len()])[i] = true;
        }
    }
    let partial: Vec<bool> = outcomes
        .iter()
        .map(|o| o.as_ref().is_some_and(|o| o.states_incomplete().is_some()))
        .collect();
    let mut rows = Vec::with_capacity(listed.len());
    for (st, by) in listed {
        ask()?;
        let row = outcomes
            .iter()
            .enumerate()
            .map(|(i, o)| match o {
                None => "n/a".to_string(),
                Some(_) if by[i] => "allowed".into(),
                Some(_) if partial[i] => UNSEEN.into(),
                Some(_) => "-".into(),
            })
            .collect();
        rows.push((st, row));
    }
    Ok(rows)
}

/// How many states the comparison handles between two looks at the
/// time limit and the memory bound (the first is looked at too).
const ROWS_UNCHECKED: usize = 4096;

/// A state cell for a model whose listing is partial and lacks the state:
/// the state may be reachable among the executions not seen.
pub const UNSEEN: &str = "unseen";

/// A verdict cell a limit or the unrolling bound left undecided.
pub const UNDECIDED: &str = "undecided";

/// A comparison's answer in one word: `DIFFERS` (some decided answers
/// differ), `same` (every answer complete and equal), else `UNDECIDED`.
pub fn answer(c: &Comparison) -> &'static str {
    if c.differs {
        "DIFFERS"
    } else if c.complete {
        "same"
    } else {
        "UNDECIDED"
    }
}

/// The closing line of `vkmm compare`: tests whose answers differ, are the
/// same, and are undecided (never counted as the same).
pub fn summary_line(reports: &[Comparison], models: &[String]) -> String {
    let n = |a: &str| reports.iter().filter(|r| answer(r) == a).count();
    format!(
        "tests whose answers differ between {}: {} of {}; the same: {}; undecided: {}\n",
        models.join(" and "),
        n("DIFFERS"),
        reports.len(),
        n("same"),
        n("UNDECIDED")
    )
}

#[cfg(test)]
mod tests {
    use crate::analysis::test_programs::{every_register, independent_reads};

    /// Each kind of incomplete listing is worded for what it leaves. 17
    /// atomic stores of 1 (P0) each read once by an atomic load (P1,
    /// another workgroup): 2^17 = 131,072 final states, no race (every
    /// access atomic), no register ever 2, so `~exists` every register 2
    /// holds (as in report::text's test of a listing stopped alone). At
    /// 512 KiB each model's walk sees every execution and only its
    /// listing stops (8 bytes a state to sort it: 1 MiB): the verdict
    /// rows are decided (`Ok`, `yes`), the states absent, not partial.
    /// With two such loads, `--max-executions 1` and the factoring off,
    /// the walk itself stops after one of the four executions: its
    /// states cover only the executions seen.
    #[test]
    fn each_incomplete_listing_is_worded_for_what_it_leaves() {
        let n = 17;
        let mut text = independent_reads("atomic-states", n, "st.atom.dv.sc0", "ld.atom.dv.sc0");
        text.push_str(&format!("~exists ({})\n", every_register(n, 2)));
        let session = crate::Session::new().max_memory(Some(1 << 19));
        let program = session.load_text("atomic.litmus", &text).expect("reads");
        let c = session
            .compare("atomic.litmus", &program, &["vulkan", "vulkan-nochains"])
            .expect("compares");
        let unlisted = |m: &str| {
            format!(
                "{m}: NOT LISTED (131072 final states were found but not listed: the listing stopped at the memory bound (--max-memory)): its states are not shown, though the search saw every execution and its verdicts stand"
            )
        };
        assert_eq!(c.models.len(), 2);
        for m in &c.models {
            assert!(c.notes.contains(&unlisted(m)), "{:?}", c.notes);
        }
        assert!(
            !c.notes.iter().any(|n| n.contains("executions seen")),
            "{:?}",
            c.notes
        );
        let row = |what: &str| {
            c.rows
                .iter()
                .find(|(w, _)| w == what)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(row("condition holds"), Some(vec!["Ok".into(), "Ok".into()]));
        assert_eq!(row("race-free"), Some(vec!["yes".into(), "yes".into()]));
        assert_eq!(super::answer(&c), "UNDECIDED");

        let mut text = independent_reads("two", 2, "st.atom.dv.sc0", "ld.atom.dv.sc0");
        text.push_str(&format!("~exists ({})\n", every_register(2, 2)));
        let session = crate::Session::new()
            .max_executions(1)
            .reduction(crate::engine::Reduction::ReadFactoring, false);
        let program = session.load_text("two.litmus", &text).expect("reads");
        let c = session
            .compare("two.litmus", &program, &["vulkan", "vulkan-nochains"])
            .expect("compares");
        assert!(
            c.notes.contains(
                &format!("{}: INCOMPLETE (the search stopped at the execution limit): its states cover only the executions seen", c.models[0])
            ),
            "{:?}",
            c.notes
        );
        assert_eq!(super::answer(&c), "UNDECIDED");
    }

    /// Two listings of many states compared state by state, each state
    /// once: 14 stores of 1 (P0) each read once (P1, another workgroup),
    /// every read free to see 0 or 1, so 2^14 = 16,384 final states (the
    /// 14 registers 0 or 1) under both models, one row each, sorted by
    /// text, `allowed` in both columns; then the condition row (`exists`
    /// every register 1: a witness under both, `Ok`) and the race row
    /// (non-atomic accesses of two workgroups race under both, `no`). Every
    /// listing is whole, so the answer is `same`. Looking each state up in
    /// the other listings by a scan would compare 2^28 pairs of texts.
    #[test]
    fn listings_of_many_states_are_compared_state_by_state() {
        let n = 14;
        let mut text = independent_reads("many", n, "st.av.dv.sc0", "ld.vis.dv.sc0");
        text.push_str(&format!("exists ({})\n", every_register(n, 1)));
        let session = crate::Session::new().threads(1);
        let program = session.load_text("many.litmus", &text).expect("reads");
        let c = session
            .compare("many.litmus", &program, &["vulkan", "vulkan-nochains"])
            .expect("compares");
        let states = 1 << n;
        assert_eq!(c.rows.len(), states + 2);
        assert!(c.rows[..states].windows(2).all(|w| w[0].0 < w[1].0));
        assert!(
            c.rows[..states]
                .iter()
                .all(|(_, cells)| cells == &["allowed", "allowed"])
        );
        assert_eq!(c.rows[states].1, ["Ok", "Ok"]);
        assert_eq!(c.rows[states + 1].1, ["no", "no"]);
        assert!(c.complete && !c.differs);
        assert_eq!(super::answer(&c), "same");
        // The same listings with a limit reached part-way (at the third
        // look: after 8,192 of the 16,384 first model's states): no state
        // row at all, rather than the first model's states beside no
        // second column to match them. Asked at the first state and then
        // every 4,096: 4 looks per listing, 4 more over the rows.
        let outcomes: Vec<_> = ["vulkan", "vulkan-nochains"]
            .iter()
            .map(|m| {
                match session
                    .clone()
                    .model(*m)
                    .check_program("many.litmus", &program)
                {
                    Ok(crate::Checked::Litmus(o)) => Some(*o),
                    other => panic!("a litmus outcome: {other:?}"),
                }
            })
            .collect();
        let mut looks = 0;
        let mut stop = || {
            looks += 1;
            (looks == 3).then_some(crate::engine::LimitKind::Timeout)
        };
        assert_eq!(
            super::state_rows(&outcomes, &mut stop),
            Err(crate::engine::LimitKind::Timeout)
        );
        let mut looks = 0;
        let mut count = || {
            looks += 1;
            None
        };
        assert_eq!(
            super::state_rows(&outcomes, &mut count).unwrap().len(),
            states
        );
        assert_eq!(looks, 12);
    }
}
