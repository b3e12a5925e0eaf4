//! Differential tests of counters (`Reduction::Counters`, `--no counters`):
//! an increment of a location every write of which is an atomic add of one
//! constant outside every loop never reads the value only the last
//! increment writes, so the paths that fix an increment's read to it are
//! not walked (`engine::trace::counters` has the argument).
//!
//! No execution takes those paths (the value an increment reads is the
//! initial value plus one constant per distinct other increment before
//! it), so the executions are the same ones: the final states with their
//! counts, the consistent executions, the races, the condition's verdict,
//! the barrier findings. What may differ is the walk: fewer candidates,
//! and fewer paths cut by the unrolling bound where a loop follows a
//! ticket past the last. A path cut leaves a bounded answer undecided
//! (races "undecided"), so where the reduction cuts fewer paths the
//! reference's undecided verdicts may be decided with it; a verdict the
//! reference decides must be the same, and the reduction never cuts more.
//!
//! The corpus-wide comparison runs as the `counters` row of
//! [`crate::table`]; the generated programs are counters' own.

use crate::common;
use crate::path_drops;

use proptest::prelude::*;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};

pub(crate) fn session(on: bool) -> Session {
    path_drops::session(vkmm::Reduction::Counters, on)
}

pub(crate) use path_drops::skipped;

fn compare(name: &str, off: &LitmusOutcome, on: &LitmusOutcome) -> Vec<String> {
    path_drops::compare("counters", name, off, on)
}

pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    path_drops::compare_file(vkmm::Reduction::Counters, "counters", path)
}

/// P0 takes a ticket from the counter `c` and, only with ticket 2, loops
/// storing `z` until it reads `y` = 1, which nothing writes; P1 takes one
/// ticket. By hand: two increments of 1 from 0 read 0 and 1 (one reads
/// the initial value, the other the first one's write), so P0 never loops
/// and both executions end: one final state (c = 2, z = 0, y = 0) in both
/// executions, no race (only atomics). Without counters P0 also has the
/// path reading 2, whose loop the bound cuts (one path cut, races
/// undecided: the cut path could race beyond the bound); with them that
/// path is not walked, and the answer is complete.
#[test]
fn a_ticket_past_the_last_is_not_walked() {
    let text = "VULKAN counter-top\n{ c=0; y=0; z=0; }\n P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n bne r0, 2, LC01 | ;\n LC00: | ;\n st.atom.dv.sc0 z, 1 | ;\n ld.atom.dv.sc0 r1, y | ;\n beq r1, 0, LC00 | ;\n LC01: | ;\nexists (0==0)\n";
    let run = |on: bool| common::litmus(session(on).check_text("t.litmus", text).unwrap());
    let (off, on) = (run(false), run(true));
    assert_eq!(on.cut_paths, 0);
    assert_eq!(off.cut_paths, 1);
    assert_eq!(on.race_free, Some(true));
    assert_eq!(off.race_free, None);
    assert_eq!(on.states, off.states);
    assert_eq!(on.states.len(), 1, "{:?}", on.states);
    assert_eq!((on.consistent, off.consistent), (2, 2));
    assert!(compare("counter-top", &off, &on).is_empty());
}

// ------------------------------------------------------------ generated programs

/// One generated instruction of a thread: an increment of the counter `c`,
/// a branch on the thread's latest ticket around a store to `x` or a wait
/// for `y`, a store or a load of `x` or `y`, or a plain store to `c` (which
/// makes `c` no counter).
#[derive(Clone, Debug)]
enum Op {
    Increment,
    /// With the latest ticket equal to the value: store `x` (`false`) or
    /// wait until `y` is 1 (`true`); an increment where no ticket was
    /// taken yet.
    IfTicket(i64, bool),
    Store(usize, i64),
    Load(usize),
    StoreCounter(i64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Increment),
        3 => (0..4i64, any::<bool>()).prop_map(|(v, wait)| Op::IfTicket(v, wait)),
        2 => (0..2usize, 1..3i64).prop_map(|(l, v)| Op::Store(l, v)),
        1 => (0..2usize).prop_map(Op::Load),
        1 => (1..3i64).prop_map(Op::StoreCounter),
    ]
}

/// The text of a program: thread `t` runs `ops`, incrementing by `step`.
fn program_text(step: i64, threads: &[Vec<Op>]) -> String {
    let locs = ["x", "y"];
    let header: Vec<String> = (0..threads.len())
        .map(|i| format!("P{i}@sg 0, wg {i}, qf 0"))
        .collect();
    let code: Vec<Vec<String>> = threads
        .iter()
        .enumerate()
        .map(|(t, ops)| {
            let mut lines = Vec::new();
            let mut ticket: Option<usize> = None;
            for (k, o) in ops.iter().enumerate() {
                match o {
                    Op::IfTicket(v, wait) if ticket.is_some() => {
                        let r = ticket.unwrap();
                        let end = format!("LC{t}{k}1");
                        lines.push(format!("bne r{r}, {}, {end}", v * step));
                        if *wait {
                            let head = format!("LC{t}{k}0");
                            lines.push(format!("{head}:"));
                            lines.push(format!("ld.atom.dv.sc0 r{k}, y"));
                            lines.push(format!("beq r{k}, 0, {head}"));
                        } else {
                            lines.push("st.atom.dv.sc0 x, 1".to_string());
                        }
                        lines.push(format!("{end}:"));
                    }
                    Op::Increment | Op::IfTicket(..) => {
                        lines.push(format!("rmw.atom.dv.sc0.add r{k}, c, {step}"));
                        ticket = Some(k);
                    }
                    Op::Store(l, v) => lines.push(format!("st.atom.dv.sc0 {}, {v}", locs[*l])),
                    Op::Load(l) => lines.push(format!("ld.atom.dv.sc0 r{k}, {}", locs[*l])),
                    Op::StoreCounter(v) => lines.push(format!("st.atom.dv.sc0 c, {v}")),
                }
            }
            lines
        })
        .collect();
    common::vulkan_litmus("c=0; x=0; y=0;", &header, &code, "exists (x == 1)")
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(96), failure_persistence: crate::common::regressions("differential-counters"), ..ProptestConfig::default() })]
    #[test]
    fn generated_programs_agree(
        step in prop_oneof![Just(1i64), Just(2), Just(-1)],
        threads in prop::collection::vec(prop::collection::vec(op(), 1..4), 2..4)
    ) {
        let text = program_text(step, &threads);
        let run = |on| session(on).unroll(1).check_text("gen.litmus", &text);
        match (run(false), run(true)) {
            (Ok(Checked::Litmus(a)), Ok(Checked::Litmus(b))) => {
                let diffs = compare("gen", &a, &b);
                prop_assert!(diffs.is_empty(), "{}\n{}", text, diffs.join("\n"));
            }
            // every generated program is well formed
            (a, b) => prop_assert!(
                false,
                "{}\n{:?} / {:?}",
                text,
                a.map(|c| common::search_summary(&c)).map_err(|e| e.to_string()),
                b.map(|c| common::search_summary(&c)).map_err(|e| e.to_string())
            ),
        }
    }
}
