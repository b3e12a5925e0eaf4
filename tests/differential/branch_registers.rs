//! Differential tests of branch registers (`Reduction::BranchRegisters`,
//! `--no branch-registers`): the run that finds the statements each
//! thread can run, and so the writes another thread can run and the own
//! locations of the latest-own-write filter (`engine::trace::reach`),
//! tracks only the registers whose values can decide a branch, and at
//! each label only those of them still read from there. The claim is that
//! the own locations are the ones the run over every register finds (the
//! oracle), and so is every answer.
//!
//! Compared on the repository's own tests, the examples and the corpora
//! (the `branch-registers` row of [`crate::table`]: the own locations and
//! the whole search), on generated programs, on the barrier-prefix
//! fixtures at one and two workgroups, and on hand-written programs where
//! a value reaches a branch only through registers no branch reads.

use crate::common;

use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;
use vkmm::Reduction;
use vkmm::Session;
use vkmm::analysis::{Checked, Property};
use vkmm::testing::engine::trace::own_sets;
use vkmm::testing::engine::{Limits, PathPlan};

/// Per thread, the own locations of `program` under the Vulkan model,
/// found tracking only the branch registers (`on`) or every register.
fn own(program: &vkmm::ir::Program, on: bool) -> Vec<BTreeSet<usize>> {
    let mut limits = Limits::default()
        .for_model(&common::models().chains)
        .with(Reduction::BranchRegisters, on);
    limits.bounds.timeout = Some(Duration::from_secs(10));
    let plan = PathPlan::of(&limits);
    assert!(plan.own_write_filter, "the filter applies");
    assert_eq!(plan.branch_registers, on);
    own_sets(program, &limits, plan)
        .into_iter()
        .map(|s| s.into_iter().collect())
        .collect()
}

fn session(on: bool) -> Session {
    Session::new()
        .max_executions(20_000)
        .timeout(Some(Duration::from_secs(10)))
        .reduction(Reduction::BranchRegisters, on)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

/// The differences on one file: its own locations, then the whole search.
pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(program) = Session::new().load_file(path) {
        let (every, branching) = (own(&program, false), own(&program, true));
        if every != branching {
            out.push(format!(
                "{}: own locations differ: every register {every:?}, branch registers {branching:?}",
                path.display()
            ));
        }
    }
    out.extend(common::same_search(
        path,
        ("every register", &session(false)),
        ("branch registers", &session(true)),
    ));
    out
}

/// The race verdict of a search no limit stopped or truncated.
fn race_verdict(c: &Checked) -> Option<Option<bool>> {
    match c {
        Checked::Litmus(o) if !o.truncated && o.stopped_by.is_none() => Some(o.race_free),
        _ => None,
    }
}

/// The shaders of tests/fixtures/barrier-prefixes at one and two
/// workgroups: the same own locations and the same race verdicts.
#[test]
fn the_barrier_prefix_fixtures() {
    let mut diffs = Vec::new();
    for (file, shader) in crate::barrier_prefixes::fixtures() {
        let name = format!("{} x{:?}", file.display(), shader.workgroups);
        let program = Session::new()
            .shader(shader.clone())
            .load_file(&file)
            .unwrap();
        let (every, branching) = (own(&program, false), own(&program, true));
        if every != branching {
            diffs.push(format!(
                "{name}: own locations: every register {every:?}, branch registers {branching:?}"
            ));
        }
        let run = |on: bool| {
            session(on)
                .decide(Some(Property::Races))
                .shader(shader.clone())
                .check_file(&file)
                .unwrap()
        };
        let (a, b) = (race_verdict(&run(false)), race_verdict(&run(true)));
        assert!(a.is_some(), "{name}: decided");
        if a != b {
            diffs.push(format!(
                "{name}: race-free every register {a:?}, branch registers {b:?}"
            ));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// P0 starts with `r0 = 1` and computes `r1 = r0 + 1`, then, past a
/// label, `r2 = r1 + 1` and stores to `x` only where `r2 != 3`: never, so
/// `x` is P1's own (P1 stores 1 there and reads it back). No branch reads
/// `r0` or `r1`: their values reach the branch only through `r2`, and
/// `r1` is live across the label. A run that forgot either (a register no
/// branch compares, or one not read at the label itself) would take `r2`
/// as unknown, follow the branch both ways and count P0 as a writer of
/// `x`.
#[test]
fn a_value_reaching_a_branch_through_other_registers_is_kept() {
    let text = "VULKAN through-registers\n{ x=0; P0:r0=1; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;\n\
        add r1, r0, 1 | st.sc0 x, 1 ;\n\
        L9: | ld.sc0 r0, x ;\n\
        add r2, r1, 1 | ;\n\
        beq r2, 3, L0 | ;\n\
        st.sc0 x, 2 | ;\n\
        L0: | ;\n\
        exists (P1:r0 == 0)\n";
    let program = Session::new()
        .load_text("through-registers.litmus", text)
        .unwrap();
    let x = program.locations.iter().position(|l| l == "x").unwrap();
    let (every, branching) = (own(&program, false), own(&program, true));
    assert_eq!(every, branching);
    assert!(branching[1].contains(&x), "{branching:?}");
    // The store is what keeps `x` from being own once it can run.
    let reachable = text.replace("beq r2, 3, L0", "beq r2, 4, L0");
    let program = Session::new()
        .load_text("through-registers.litmus", &reachable)
        .unwrap();
    assert!(!own(&program, true)[1].contains(&x));
    // And the filter's answer: P1 reads its own store.
    let o = common::litmus(session(true).check_text("t.litmus", text).unwrap());
    assert_eq!(o.condition_holds, Some(false), "{o:?}");
}

/// A runtime index computed from the invocation id through registers no
/// branch compares (`j * 2`, then `c = j * 2 + 1`; the index's chain of
/// branches tests `c`), carried round a loop: invocation 0 can write only
/// `buf[1]` and `buf[7]`, invocation 1 `buf[3]`, invocation 2 `buf[5]`.
/// So those four cells are each one invocation's own, the even ones
/// (written by nobody) every invocation's. A run that forgot `j` or
/// `j * 2` would count every invocation a writer of every cell: no cell would be
/// own to exactly one invocation.
const INDEX_THROUGH_REGISTERS: &str = "
@group(0) @binding(0) var<storage, read_write> buf: array<u32, 8>;

@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) i: u32) {
    var j = i;
    var k = 0u;
    loop {
        let c = j * 2u + 1u;
        if (c < 8u) { buf[c] += 1u; }
        j += 3u;
        k += 1u;
        if (k == 2u) { break; }
    }
}
";

#[test]
fn an_index_computed_through_other_registers_keeps_its_cells_own() {
    let program = Session::new()
        .load_text("index.wgsl", INDEX_THROUGH_REGISTERS)
        .unwrap();
    let (every, branching) = (own(&program, false), own(&program, true));
    assert_eq!(every, branching);
    assert_eq!(branching.len(), 3);
    let own_to_one: Vec<(usize, &str)> = (0..program.locations.len())
        .filter_map(|l| {
            let owners: Vec<usize> = (0..3).filter(|&t| branching[t].contains(&l)).collect();
            (owners.len() == 1).then(|| (owners[0], program.locations[l].as_str()))
        })
        .collect();
    assert_eq!(
        own_to_one.len(),
        4,
        "{own_to_one:?} of {:?}",
        program.locations
    );
    for t in 0..3 {
        assert!(own_to_one.iter().any(|&(o, _)| o == t), "{own_to_one:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(128), failure_persistence: crate::common::regressions("differential-branch-registers"), ..ProptestConfig::default() })]

    /// The same own locations and the same search.
    #[test]
    fn generated_programs_agree(text in crate::symbolic::program()) {
        let program = Session::new().load_text("generated.litmus", &text).unwrap();
        prop_assert_eq!(own(&program, false), own(&program, true), "own locations\n{}", text);
        let limit = |s: Session| s.max_executions(5_000).timeout(Some(Duration::from_secs(3)));
        let run = |on: bool| limit(session(on)).check_text("generated.litmus", &text).unwrap();
        prop_assert_eq!(
            common::search_summary(&run(false)),
            common::search_summary(&run(true)),
            "every register / branch registers\n{}",
            text
        );
    }
}
