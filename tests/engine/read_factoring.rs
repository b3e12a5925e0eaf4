//! Factored observation reads (`Reduction::ReadFactoring`,
//! `--no-read-factoring`; the `location-local-reads` declaration of
//! models/vulkan-rules.cat; `engine::candidates`, "Factored observation
//! reads"; issue 11): under each choice of everything else, the
//! reads-from choices of the plain loads whose value is only shown are
//! searched location by location, and the product of the consistent
//! choices is handed to the outcome listing with one evaluation.
//!
//! - hand-derived verdicts (tests/fixtures/litmus-obsreads, the spec sentences
//!   quoted in each file): two loads of one location in one invocation
//!   (CoRR: a location's loads are searched together), loads across
//!   invocations and locations (the product), an acquire load whose
//!   choice creates synchronizes-with (not factored), a load whose value
//!   is stored (not factored); a filter and a condition on the loads'
//!   registers and on a location with two possible final values (judged
//!   per combination, the final memory shared by the combinations);
//! - the lever is on where it should be: fewer candidates evaluated on
//!   those files, and the 6-thread xf-barrier listings complete at the
//!   default limits;
//! - the same answers with and without the lever (states with their
//!   counts, verdict, positive/negative/consistent counts, race-freedom,
//!   racing pairs) on every own test, the examples and the dat3m-vulkan,
//!   khronos-alloy and dat3m-opencl corpora, on generated programs with
//!   several observation loads per location across invocations (with a
//!   filter on a register and a condition on a location), and with the
//!   parallel walk;
//! - the `factored` statistic (JSON `factored`): the candidates evaluated
//!   once for a product, and the combinations they stood for.

use crate::common;

use common::listing_answers as answers_of;
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use vkmm::Session;
use vkmm::analysis::litmus::Factored;
use vkmm::analysis::{Checked, LitmusOutcome};

const MAX_EXECUTIONS: u64 = 20_000;

fn session(on: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::ReadFactoring, on)
}

fn own(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-obsreads")
        .join(file)
}

fn run(path: &Path, on: bool) -> LitmusOutcome {
    common::litmus(session(on).check_file(path).unwrap())
}

/// The states as "count: r=v; ..." lines, sorted.
fn states(o: &LitmusOutcome) -> Vec<String> {
    let mut s: Vec<String> = o
        .states
        .iter()
        .map(|(st, n)| {
            let regs: Vec<String> = st.iter().map(|(r, v)| format!("{r}={v}")).collect();
            format!("{n}: {}", regs.join("; "))
        })
        .collect();
    s.sort();
    s
}

fn answers(c: &Checked) -> Option<String> {
    match c {
        Checked::Litmus(o) => answers_of(o),
        other => common::answers_of(other, true),
    }
}

/// The file checked with and without the lever: the hand-derived states
/// (sorted "count: register=value" lines) and verdict for both, the same
/// answers; the two listings, for the numbers of candidates.
fn hand_derived(file: &str, expected: &[&str], holds: bool) -> (LitmusOutcome, LitmusOutcome) {
    let path = own(file);
    let (on, off) = (run(&path, true), run(&path, false));
    for o in [&on, &off] {
        assert_eq!(states(o), expected, "{file}");
        assert_eq!(o.condition_holds, Some(holds), "{file}");
    }
    assert_eq!(answers_of(&on), answers_of(&off), "{file}");
    (on, off)
}

/// Hand-derived (corr-one-thread.litmus): r0 = 1, r1 = 0 closes the
/// cycle W rf r0 locord r1 fr W; the other three states, one execution
/// each. Each load alone may read either value: searching them one by one
/// (a mutation grouping per read instead of per location) lists (1, 0).
/// With the lever one candidate is evaluated, without it four.
#[test]
fn two_loads_of_one_location_are_searched_together() {
    let (on, off) = hand_derived(
        "corr-one-thread.litmus",
        &[
            "1: P1:r0=0; P1:r1=0",
            "1: P1:r0=0; P1:r1=1",
            "1: P1:r0=1; P1:r1=1",
        ],
        false,
    );
    assert_eq!((on.consistent, on.race_free), (3, Some(false)));
    assert_eq!((on.executions, off.executions), (1, 4));
}

/// Hand-derived (reads-across-threads.litmus): nothing orders the loads of
/// P1 and P2 against P0's stores: all 16 combinations, one execution each,
/// the condition's one of them. One candidate evaluated with the lever
/// (two locations, each with two loads of two choices: 4 x 4).
#[test]
fn loads_across_invocations_multiply() {
    let all: Vec<String> = (0..16)
        .map(|k: u32| {
            let b = |i: u32| (k >> (3 - i)) & 1;
            format!(
                "1: P1:r0={}; P1:r1={}; P2:r0={}; P2:r1={}",
                b(0),
                b(1),
                b(2),
                b(3)
            )
        })
        .collect();
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let (on, off) = hand_derived("reads-across-threads.litmus", &all, true);
    assert_eq!((on.positive, on.negative), (1, 15));
    assert_eq!((on.executions, off.executions), (1, 16));
}

/// Hand-derived (mp-acquire-not-factored.litmus): the acquire load's
/// choice of the release store creates synchronizes-with, which makes the
/// store of x visible to the load of x: (1, 0) is forbidden. Factoring the
/// acquire load too (a mutation dropping the atomic condition of
/// `observation_reads`) would find r0 = 1 and r1 = 0 each consistent on
/// its own location and list (1, 0).
#[test]
fn an_acquire_load_is_not_factored() {
    let (on, off) = hand_derived(
        "mp-acquire-not-factored.litmus",
        &[
            "1: P1:r0=0; P1:r1=0",
            "1: P1:r0=0; P1:r1=1",
            "1: P1:r0=1; P1:r1=1",
        ],
        false,
    );
    assert_eq!(on.race_free, Some(false));
    // (The acquire load has two choices; the load of x is factored under
    // each: two candidates instead of four.)
    assert_eq!((on.executions, off.executions), (2, 4));
}

/// Hand-derived (rounds-mixed.litmus): six states, (1, 0, _) forbidden,
/// races on x and y. Two locations of one observation read each, decided
/// round by round (`Dfs::rounds`): under r0 = 0 both rounds are
/// consistent (one evaluation each), under r0 = 1 the first round fails
/// (x's initial value), x and y alone decide it, and the second round is
/// consistent: 2 + 4 evaluations and the two pruning questions, 8 in all,
/// where deciding each location alone took 10. A mutation recording no
/// choice when a round fails loses (1, 1, 0); one recording every choice
/// lists (1, 0, _).
#[test]
fn single_loads_are_decided_round_by_round() {
    let (on, off) = hand_derived(
        "rounds-mixed.litmus",
        &[
            "1: P1:r0=0; P1:r1=0; P1:r2=0",
            "1: P1:r0=0; P1:r1=0; P1:r2=2",
            "1: P1:r0=0; P1:r1=1; P1:r2=0",
            "1: P1:r0=0; P1:r1=1; P1:r2=2",
            "1: P1:r0=1; P1:r1=1; P1:r2=0",
            "1: P1:r0=1; P1:r1=1; P1:r2=2",
        ],
        false,
    );
    assert_eq!((on.race_free, on.races.len()), (Some(false), 2));
    assert_eq!((on.executions, off.executions), (2, 8));
    assert_eq!(on.partial_evaluations, 8);
}

/// tests/fixtures/litmus-scaling/barrier-flags-3.litmus: after the barrier each
/// thread's load of its neighbour's x is an observation read, the only
/// one of its location, with two choices: the initial value
/// (inconsistent: the store happens-before the load) and the store. Per
/// execution the round of the initial values fails and each is refuted
/// alone (3), and the round of the stores decides all three at once: 5
/// evaluations per execution, 6 executions; deciding each location alone
/// took 2 x 3 = 6 per execution. Counted without symmetry reduction; with
/// it (the default) the rotation of the three threads with their `x`
/// renamed walks one combination of paths per orbit of 3: 2 executions
/// evaluated, 10 partial evaluations, still 6 consistent.
#[test]
fn a_barrier_s_loads_take_one_round() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-scaling/barrier-flags-3.litmus");
    let o = common::litmus(
        session(true)
            .reduction(vkmm::Reduction::Symmetry, false)
            .check_file(&path)
            .unwrap(),
    );
    assert_eq!((o.executions, o.consistent), (6, 6));
    assert_eq!(o.partial_evaluations, 6 * 5);
    assert_eq!(o.condition_holds, Some(true));
    assert_eq!(o.race_free, Some(true));
    let rotated = run(&path, true);
    assert_eq!((rotated.executions, rotated.consistent), (2, 6));
    assert_eq!(rotated.partial_evaluations, 2 * 5);
    assert_eq!(rotated.states, o.states);
    assert_eq!(rotated.race_free, Some(true));
}

/// Hand-derived (value-stored-not-factored.litmus): P1 stores what it
/// read to y; (0, 0) twice, (1, 0), (1, 1). Factoring P1's load (a
/// mutation dropping the "value unused" condition) keeps the value its
/// first choice stored for every combination and lists (1, 0) twice and
/// (0, 0) twice, no (1, 1).
#[test]
fn a_load_whose_value_is_stored_is_not_factored() {
    hand_derived(
        "value-stored-not-factored.litmus",
        &[
            "1: P1:r0=1; P2:r1=0",
            "1: P1:r0=1; P2:r1=1",
            "2: P1:r0=0; P2:r1=0",
        ],
        false,
    );
}

/// Hand-derived (filter-two-final-values.litmus, the spec sentences in
/// the file): P2's load of x may read 0, 1 or 2, and x ends at 1 or 2
/// (two unordered stores); the filter keeps P2:r0 != 0: four states, one
/// execution each, the condition in one. With the lever one candidate is
/// evaluated for the three choices of the load; the listing judges the
/// filter and the condition per combination and takes the final memory
/// (both values) from the candidate once. Mutations checked: recording
/// every combination with the representative's registers (its first
/// choice) fails here and in every other test of this file; recording one
/// final value only lists two states; keying the states without their
/// last value (x) merges them into two of count 2.
#[test]
fn a_filter_and_two_final_values_under_factored_reads() {
    let (on, off) = hand_derived(
        "filter-two-final-values.litmus",
        &[
            "1: P2:r0=1; x=1",
            "1: P2:r0=1; x=2",
            "1: P2:r0=2; x=1",
            "1: P2:r0=2; x=2",
        ],
        true,
    );
    assert_eq!((on.positive, on.negative, on.consistent), (1, 3, 4));
    assert_eq!((on.race_free, on.races.len()), (Some(false), 3));
    assert_eq!((on.executions, off.executions), (1, 3));
    assert_eq!(
        on.factored,
        Factored {
            candidates: 1,
            combinations: 3
        }
    );
    assert_eq!(off.factored, Factored::default());
}

/// The 6-thread xf-barrier listing whose loads read one of two stores:
/// complete at the default limits (it stopped at 200,000 evaluations
/// without the lever), 2^16 states, one execution each; the parallel walk
/// agrees.
#[test]
fn the_xf_barrier_listing_completes() {
    let Some(dir) = common::corpus_or_skip("dat3m-vulkan") else {
        return;
    };
    let path = dir.join("Manual/xf-barrier-load-rlx-1.litmus");
    let o = common::litmus(Session::new().check_file(&path).unwrap());
    assert!(!o.truncated && o.stopped_by.is_none());
    assert_eq!(o.states.len(), 1 << 16);
    assert_eq!(o.consistent, 1 << 16);
    assert_eq!(o.race_free, Some(false));
    // One candidate evaluated stood for the 2^16 combinations.
    assert_eq!(o.executions, 1);
    assert_eq!(
        o.factored,
        Factored {
            candidates: 1,
            combinations: 1 << 16
        }
    );
    let parallel = common::litmus(Session::new().threads(2).check_file(&path).unwrap());
    assert_eq!(answers_of(&o), answers_of(&parallel));
}

/// The reference enumeration (`--engine reference`) turns the lever off.
#[test]
fn the_reference_does_not_factor() {
    let limits = Session::new().current_limits();
    assert!(limits.has(vkmm::Reduction::ReadFactoring));
    assert!(!limits.reference().has(vkmm::Reduction::ReadFactoring));
    let (code, out, err) = common::vkmm(&[
        "check",
        "--no-read-factoring",
        own("corr-one-thread.litmus").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("(4 executions"), "{out}");
}

fn skipped(path: &Path) -> bool {
    // (Without the lever these stop at the execution limit: nothing to
    // compare, and minutes spent.)
    path.display().to_string().contains("xf-barrier")
}

fn compare_file(path: &Path) -> Vec<String> {
    common::differing_answers(
        path,
        ("every combination", "factored"),
        (
            session(false).check_file(path),
            session(true).check_file(path),
        ),
        &answers,
    )
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn factoring_gives_the_same_answers() {
    common::assert_no_differences_everywhere(&compare_file, &skipped);
}

/// The parallel walk with the lever agrees with the sequential one on the
/// hand-derived files (a split read among the factored loads: only the
/// first part lists the product).
#[test]
fn the_parallel_walk_agrees() {
    for f in [
        "corr-one-thread.litmus",
        "reads-across-threads.litmus",
        "mp-acquire-not-factored.litmus",
        "value-stored-not-factored.litmus",
    ] {
        let path = own(f);
        let seq = run(&path, true);
        let par = common::litmus(session(true).threads(2).check_file(&path).unwrap());
        assert_eq!(answers_of(&seq), answers_of(&par), "{f}");
    }
}

/// One generated instruction.
#[derive(Clone, Debug)]
enum Item {
    /// A plain load (an observation read when nothing uses its value).
    Load { loc: usize },
    /// An acquire load.
    Acquire { loc: usize },
    Store {
        loc: usize,
        value: i64,
        atomic: bool,
    },
    /// Store the value of the last load (its value then is used).
    StoreLast { loc: usize },
    /// Skip the next line when the last load read `value`.
    Branch { value: i64 },
    /// A workgroup control barrier with acquire-release semantics.
    Barrier,
}

const LOCS: [&str; 4] = ["x", "y", "z", "w"];

/// An instruction on the first `locs` locations of [`LOCS`].
fn item(locs: usize) -> impl Strategy<Value = Item> {
    prop_oneof![
        3 => (0..locs).prop_map(|loc| Item::Load { loc }),
        1 => (0..locs).prop_map(|loc| Item::Acquire { loc }),
        2 => (0..locs, 1..3i64, any::<bool>())
            .prop_map(|(loc, value, atomic)| Item::Store { loc, value, atomic }),
        1 => (0..locs).prop_map(|loc| Item::StoreLast { loc }),
        1 => (0..2i64).prop_map(|value| Item::Branch { value }),
        1 => Just(Item::Barrier),
    ]
}

/// A thread's code and the registers its loads write.
fn thread_code(t: usize, items: &[Item], tail: &[usize]) -> (Vec<String>, Vec<String>) {
    let mut code = Vec::new();
    let mut regs = Vec::new();
    let mut last: Option<String> = None;
    for (k, it) in items.iter().enumerate() {
        let r = format!("r{k}");
        match it {
            Item::Load { loc } => {
                code.push(format!("ld.sc0 {r}, {}", LOCS[*loc]));
                regs.push(format!("P{t}:{r}"));
                last = Some(r);
            }
            Item::Acquire { loc } => {
                code.push(format!("ld.atom.acq.wg.sc0.semsc0 {r}, {}", LOCS[*loc]));
                regs.push(format!("P{t}:{r}"));
                last = Some(r);
            }
            Item::Store {
                loc,
                value,
                atomic: true,
            } => code.push(format!("st.atom.rel.wg.sc0.semsc0 {}, {value}", LOCS[*loc])),
            Item::Store { loc, value, .. } => code.push(format!("st.sc0 {}, {value}", LOCS[*loc])),
            Item::StoreLast { loc } => {
                if let Some(l) = &last {
                    code.push(format!("st.sc0 {}, {l}", LOCS[*loc]));
                }
            }
            Item::Branch { value } => {
                if let Some(l) = &last {
                    code.push(format!("beq {l}, {value}, L{k}"));
                    code.push("st.sc0 y, 3".to_string());
                    code.push(format!("L{k}:"));
                }
            }
            Item::Barrier => code.push(format!("cbar.acq_rel.wg.semsc0 {k}")),
        }
    }
    // Observation loads at the end (several per location).
    for (j, &loc) in tail.iter().enumerate() {
        let r = format!("t{j}");
        code.push(format!("ld.sc0 {r}, {}", LOCS[loc]));
        regs.push(format!("P{t}:{r}"));
    }
    (code, regs)
}

/// The test's text over the first `locs` locations of [`LOCS`];
/// `filter`: a filter on that shown register (modulo their number);
/// `location`: the condition also asks `x == 1`.
fn program_text(
    threads: &[(Vec<Item>, Vec<usize>)],
    one: bool,
    locs: usize,
    filter: Option<usize>,
    location: bool,
) -> String {
    let init: Vec<String> = LOCS[..locs].iter().map(|l| format!("{l}=0;")).collect();
    let mut text = format!("VULKAN generated\n{{\n{}\n}}\n", init.join(" "));
    let mut table = Vec::new();
    let mut shown = Vec::new();
    for (t, (items, tail)) in threads.iter().enumerate() {
        let (code, regs) = thread_code(t, items, tail);
        table.push((if one { 0 } else { t }, code));
        shown.extend(regs);
    }
    text.push_str(&common::vulkan_thread_table(&table));
    if let Some(k) = filter.filter(|_| !shown.is_empty()) {
        text.push_str(&format!("filter ({} != 0)\n", shown[k % shown.len()]));
    }
    let mut cond: Vec<String> = shown.iter().map(|r| format!("{r} == 1")).collect();
    if location {
        cond.push("x == 1".to_string());
    }
    if cond.is_empty() {
        text.push_str("exists (x == 1)\n");
    } else {
        text.push_str(&format!("exists ({})\n", cond.join(" /\\ ")));
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: common::seed(), cases: common::cases(128), failure_persistence: crate::common::regressions("read_factoring"), ..ProptestConfig::default() })]

    /// Generated programs (two or three invocations, one workgroup or one
    /// each, every load's register shown, plain loads at the end of each
    /// thread, sometimes a filter on one of them and the condition on x
    /// too): the same answers with and without the lever, and the same
    /// as the reference enumeration where that completes.
    #[test]
    fn generated_programs_agree(
        threads in prop::collection::vec(
            (prop::collection::vec(item(2), 0..4), prop::collection::vec(0..2usize, 0..3)),
            2..4,
        ),
        one in any::<bool>(),
        filter in proptest::option::of(0..8usize),
        location in any::<bool>(),
    ) {
        agree(&program_text(&threads, one, 2, filter, location))?;
    }

    /// The same on four locations, so that several locations have one
    /// observation read each (decided round by round: `Dfs::rounds`).
    #[test]
    fn generated_single_loads_agree(
        threads in prop::collection::vec(
            (prop::collection::vec(item(4), 0..4), prop::collection::vec(0..4usize, 1..3)),
            2..4,
        ),
        one in any::<bool>(),
    ) {
        agree(&program_text(&threads, one, 4, None, false))?;
    }
}

/// The generated program `text` gives the same answers with and without
/// the lever, as the reference where that completes, and with the
/// parallel walk.
fn agree(text: &str) -> Result<(), TestCaseError> {
    let run = |s: Session| s.check_text("generated.litmus", text);
    match (run(session(false)), run(session(true))) {
        (Ok(a), Ok(b)) => {
            let (a, b) = (common::litmus(a), common::litmus(b));
            if let (Some(x), Some(y)) = (answers_of(&a), answers_of(&b)) {
                prop_assert_eq!(x, y, "{}", text);
            }
            let reference = Session::new().limits(session(false).current_limits().reference());
            if let Ok(r) = run(reference) {
                let r = common::litmus(r);
                if let (Some(x), Some(y)) =
                    (answers_of(&r).filter(|_| r.cut_paths == 0), answers_of(&b))
                {
                    prop_assert_eq!(x, y, "{}", text);
                }
            }
            let par = common::litmus(run(session(true).threads(2)).unwrap());
            if let (Some(x), Some(y)) = (answers_of(&par), answers_of(&b)) {
                prop_assert_eq!(x, y, "{}", text);
            }
        }
        (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
        (a, b) => prop_assert!(false, "{text}: {:?} / {:?}", a.err(), b.err()),
    }
    Ok(())
}
