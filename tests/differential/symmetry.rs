//! Differential tests of symmetry reduction (`Reduction::Symmetry`,
//! `--no-symmetry`; issue 11): among interchangeable threads (identical
//! code and paths, the same place in the scope tree, no register shown)
//! the outcome listing walks one execution per orbit of their permutations
//! and counts it for its orbit (`engine::symmetry`).
//!
//! The answers must be those of the full walk: the final states with their
//! execution counts, the condition's verdict, the positive and negative
//! counts, the number of consistent executions, whether the program is
//! race-free and the set of racing pairs (in any order: the images of a
//! pair are recorded when the pair is met). Only the numbers of candidates
//! and partial evaluations may differ. A search stopped by a limit is left
//! out (under a budget the two walks see different executions).
//!
//! Compared on the repository's own tests, the examples, the corpora, the
//! scaling families and generated programs whose threads are copies of a
//! few generated threads (so that classes exist), in one workgroup or one
//! per thread.
//!
//! The corpus-wide comparison runs as the `symmetry` row of [`crate::table`].

use crate::common;

use common::listing_answers as answers_of;
use proptest::prelude::*;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::{Checked, LitmusOutcome};

const MAX_EXECUTIONS: u64 = 20_000;

pub(crate) fn session(on: bool) -> Session {
    Session::new()
        .max_executions(MAX_EXECUTIONS)
        .reduction(vkmm::Reduction::Symmetry, on)
}

pub(crate) fn skipped(path: &Path) -> bool {
    path.display().to_string().contains("xf-barrier")
}

fn answers(c: &Checked) -> Option<String> {
    match c {
        Checked::Litmus(o) => answers_of(o),
        other => common::answers_of(other, true),
    }
}

/// The differences between the two settings on one file.
pub(crate) fn compare_file(path: &Path) -> Vec<String> {
    common::differing_answers(
        path,
        ("full", "symmetric"),
        (
            session(false).check_file(path),
            session(true).check_file(path),
        ),
        &answers,
    )
}

/// The reduction is not idle on the files above: the scaling families'
/// locks have classes (each of their threads runs the same code in its own
/// workgroup, and the condition names only memory).
#[test]
fn the_scaling_locks_are_reduced() {
    for name in ["ticketlock-3", "taslock-3"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/litmus-scaling")
            .join(format!("{name}.litmus"));
        let run = |on: bool| common::litmus(session(on).check_file(&path).unwrap());
        let (full, symmetric) = (run(false), run(true));
        assert_eq!(full.symmetric_threads, 0, "{name}");
        assert_eq!(symmetric.symmetric_threads, 3, "{name}");
        assert_eq!(answers_of(&full), answers_of(&symmetric), "{name}");
        // One holder order per permutation of the three threads: 3! = 6
        // consistent executions, one of them evaluated per orbit.
        assert_eq!(symmetric.consistent, 6, "{name}");
        assert!(
            symmetric.executions * 3 <= full.executions,
            "{name}: {} against {}",
            symmetric.executions,
            full.executions
        );
    }
}

/// Three threads, each in its own workgroup, take a number with a relaxed
/// device-scope fetch-add on `c`; the two that do not get 0 store to `x`
/// with a plain store. The appendix, Data Race: two accesses "conflict if
/// they access the same memory location and at least one of them is a
/// write", and a program has a data race when two conflicting accesses in
/// different invocations are not ordered by happens-before; nothing
/// orders the stores (relaxed atomics: no release or acquire, hence no
/// synchronizes-with). The fetch-adds give 0, 1 and 2 in any assignment,
/// so every pair of threads is the storing pair of some execution: the
/// races are P0/P1, P0/P2 and P1/P2 on `x` (none on `c`: atomics). With
/// symmetry the walk builds one combination of paths (P0 gets 0: only
/// P1/P2 race in it); the other pairs are its images (a mutation
/// recording only the pair met lists P1/P2 alone).
#[test]
fn every_image_of_a_racing_pair_is_reported() {
    let text = "VULKAN three-stores\n{ x=0; c=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n\
        rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n\
        beq r0, 0, L | beq r0, 0, L | beq r0, 0, L ;\n\
        st.sc0 x, 1 | st.sc0 x, 1 | st.sc0 x, 1 ;\n\
        L: | L: | L: ;\n\
        exists (x == 1)\n";
    let run =
        |on: bool| common::litmus(session(on).check_text("three-stores.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 3);
    assert_eq!(symmetric.race_free, Some(false));
    let pairs = |o: &LitmusOutcome| {
        let mut p: Vec<String> = o
            .races
            .iter()
            .map(|r| format!("{} / {}", &r.first[..2], &r.second[..2]))
            .collect();
        p.sort();
        p
    };
    assert_eq!(pairs(&symmetric), ["P0 / P1", "P0 / P2", "P1 / P2"]);
    assert_eq!(pairs(&full), pairs(&symmetric));
    assert_eq!(full.states, symmetric.states);
}

/// Three threads, each in its own workgroup, take a number with a relaxed
/// fetch-add on `c`; the one that gets 0 then waits for `f == 1`, which
/// nobody writes, and the others store to `x` with a plain store. The
/// thread with 0 spins forever (its store never runs); the other two
/// complete and race on `x` (the appendix, Data Race: conflicting accesses
/// in different invocations that happens-before does not order; relaxed
/// atomics give no synchronizes-with). No complete execution exists, so
/// the races come from the executions in which the spinning thread stops
/// at its loop, and each racing pair's witness names the third thread as
/// the one spinning: P0/P1 with P2 spinning, P0/P2 with P1, P1/P2 with
/// P0. With symmetry one of them is met and the others are images: their
/// stops must be renamed with them (a mutation keeping the stops of the
/// pair met names the wrong thread).
#[test]
fn races_stopping_at_the_bound_name_their_image() {
    let text = "VULKAN spinner\n{ x=0; c=0; f=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n\
        rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n\
        bne r0, 0, S | bne r0, 0, S | bne r0, 0, S ;\n\
        W: | W: | W: ;\n\
        ld.atom.acq.dv.sc0.semsc0 r2, f | ld.atom.acq.dv.sc0.semsc0 r2, f | ld.atom.acq.dv.sc0.semsc0 r2, f ;\n\
        bne r2, 1, W | bne r2, 1, W | bne r2, 1, W ;\n\
        S: | S: | S: ;\n\
        st.sc0 x, 1 | st.sc0 x, 1 | st.sc0 x, 1 ;\n\
        exists (x == 1)\n";
    let run = |on: bool| common::litmus(session(on).check_text("spinner.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 3);
    assert_eq!(symmetric.race_free, Some(false));
    let races = |o: &LitmusOutcome| {
        let mut p: Vec<String> = o
            .races
            .iter()
            .map(|r| {
                let spinning: Vec<&str> = r.stopped_at_bound.iter().map(|s| &s[..2]).collect();
                format!("{} / {} {spinning:?}", &r.first[..2], &r.second[..2])
            })
            .collect();
        p.sort();
        p
    };
    assert_eq!(
        races(&symmetric),
        ["P0 / P1 [\"P2\"]", "P0 / P2 [\"P1\"]", "P1 / P2 [\"P0\"]"]
    );
    assert_eq!(races(&full), races(&symmetric));
}

/// Threads whose registers the condition names stay as they are: in
/// message passing with two identical readers, naming one reader's
/// registers leaves the other alone in its class (no reduction: a class
/// needs two); the states keep the named reader's values.
#[test]
fn threads_whose_registers_are_shown_are_not_permuted() {
    let text = "VULKAN mp-two-readers\n{ x=0; y=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n\
        st.sc0 x, 1 | ld.sc0 r0, y | ld.sc0 r0, y ;\n\
        st.sc0 y, 1 | ld.sc0 r1, x | ld.sc0 r1, x ;\n\
        exists (P1:r0 == 1 /\\ P1:r1 == 0)\n";
    let run = |on: bool| common::litmus(session(on).check_text("mp-two.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 0);
    assert_eq!(answers_of(&full), answers_of(&symmetric));
    // Naming only memory: the readers form a class.
    let memory = text.replace("exists (P1:r0 == 1 /\\ P1:r1 == 0)", "exists (x == 1)");
    let run = |on: bool| common::litmus(session(on).check_text("mp-two.litmus", &memory).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 2);
    assert_eq!(answers_of(&full), answers_of(&symmetric));
}

/// Workgroup membership must be kept: P0 and P1 share a workgroup, P2 is
/// alone; exchanging P1 and P2 would move P1 out of P0's workgroup. Only
/// P0 and P1 are interchangeable (every other thread, P2, is outside the
/// workgroup of both).
#[test]
fn the_scope_tree_limits_the_classes() {
    let text = "VULKAN wg-classes\n{ x=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 0, wg 1, qf 0 ;\n\
        rmw.atom.wg.sc0.add r0, x, 1 | rmw.atom.wg.sc0.add r0, x, 1 | rmw.atom.wg.sc0.add r0, x, 1 ;\n\
        exists (x == 2)\n";
    let run = |on: bool| common::litmus(session(on).check_text("wg-classes.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 2);
    assert_eq!(answers_of(&full), answers_of(&symmetric));
}

/// One generated instruction of a thread.
#[derive(Clone, Debug)]
enum Item {
    Load {
        loc: usize,
        atomic: bool,
    },
    Store {
        loc: usize,
        value: i64,
        atomic: bool,
    },
    FetchAdd {
        loc: usize,
    },
    Exchange {
        loc: usize,
        value: i64,
    },
    /// Skip the next line when the register read last holds `value`.
    Branch {
        value: i64,
    },
    /// Spin until the last read location holds `value` (an await).
    Await {
        loc: usize,
        value: i64,
    },
}

const LOCS: [&str; 2] = ["x", "y"];

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (0..2usize, any::<bool>()).prop_map(|(loc, atomic)| Item::Load { loc, atomic }),
        (0..2usize, 1..3i64, any::<bool>()).prop_map(|(loc, value, atomic)| Item::Store {
            loc,
            value,
            atomic
        }),
        (0..2usize).prop_map(|loc| Item::FetchAdd { loc }),
        (0..2usize, 0..2i64).prop_map(|(loc, value)| Item::Exchange { loc, value }),
        (0..2i64).prop_map(|value| Item::Branch { value }),
        (0..2usize, 1..2i64).prop_map(|(loc, value)| Item::Await { loc, value }),
    ]
}

fn thread_code(items: &[Item]) -> Vec<String> {
    let mut code = Vec::new();
    for (k, it) in items.iter().enumerate() {
        let r = format!("r{k}");
        match it {
            Item::Load { loc, atomic: true } => {
                code.push(format!("ld.atom.acq.dv.sc0.semsc0 {r}, {}", LOCS[*loc]))
            }
            Item::Load { loc, .. } => code.push(format!("ld.sc0 {r}, {}", LOCS[*loc])),
            Item::Store {
                loc,
                value,
                atomic: true,
            } => code.push(format!("st.atom.rel.dv.sc0.semsc0 {}, {value}", LOCS[*loc])),
            Item::Store { loc, value, .. } => code.push(format!("st.sc0 {}, {value}", LOCS[*loc])),
            Item::FetchAdd { loc } => code.push(format!(
                "rmw.atom.acq_rel.dv.sc0.semsc0.add {r}, {}, 1",
                LOCS[*loc]
            )),
            Item::Exchange { loc, value } => {
                code.push(format!("rmw.atom.dv.sc0 {r}, {}, {value}", LOCS[*loc]))
            }
            Item::Branch { .. } if k == 0 => {}
            Item::Branch { value } => {
                let last = k - 1;
                code.push(format!("beq r{last}, {value}, L{k}"));
                code.push("st.sc0 y, 3".to_string());
                code.push(format!("L{k}:"));
            }
            Item::Await { loc, value } => {
                code.push(format!("W{k}:"));
                code.push(format!("ld.atom.acq.dv.sc0.semsc0 {r}, {}", LOCS[*loc]));
                code.push(format!("bne {r}, {value}, W{k}"));
            }
        }
    }
    code
}

/// Threads `copies[i]` copies of `kinds[i]`; one workgroup for all (`one`)
/// or one each; the condition names memory only.
fn program_text(kinds: &[Vec<Item>], copies: &[usize], one: bool, cond: (usize, i64)) -> String {
    let mut text = String::from("VULKAN generated\n{\nx=0; y=0;\n}\n");
    let mut table = Vec::new();
    for (kind, &n) in kinds.iter().zip(copies) {
        for _ in 0..n {
            let wg = if one { 0 } else { table.len() };
            table.push((wg, thread_code(kind)));
        }
    }
    text.push_str(&common::vulkan_thread_table(&table));
    text.push_str(&format!("exists ({} == {})\n", LOCS[cond.0], cond.1));
    text
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: crate::common::seed(), cases: crate::common::cases(96), failure_persistence: crate::common::regressions("differential-symmetry"), ..ProptestConfig::default() })]

    /// Generated programs with classes (two or three copies of a thread,
    /// maybe beside one other thread): the same answers with and without
    /// the reduction, and the same as the reference enumeration.
    #[test]
    fn generated_programs_agree(
        kinds in prop::collection::vec(prop::collection::vec(item(), 1..4), 1..3),
        first in 2..4usize,
        one in any::<bool>(),
        cond in (0..2usize, 0..4i64),
    ) {
        let copies: Vec<usize> = (0..kinds.len()).map(|i| if i == 0 { first } else { 1 }).collect();
        let text = program_text(&kinds, &copies, one, cond);
        // A guard on time besides the execution limit: a rare generated
        // program ran for minutes in a phase the execution limit does not
        // bound. A walk stopped by either is incomplete, and only complete
        // answers are compared below.
        let guard = Some(std::time::Duration::from_secs(60));
        let run = |s: Session| s.timeout(guard).check_text("generated.litmus", &text);
        let (full, symmetric) = (run(session(false)), run(session(true)));
        match (full, symmetric) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (common::litmus(a), common::litmus(b));
                prop_assert!(b.symmetric_threads >= first || b.truncated, "{text}");
                // (The full walk may stop at the execution limit where the
                // reduced one does not: only complete answers compare.)
                if let (Some(x), Some(y)) = (answers_of(&a), answers_of(&b)) {
                    prop_assert_eq!(x, y, "{}", text);
                }
                let limits = session(false).current_limits().reference();
                let reference = Session::new().limits(limits);
                // (The reference unrolls the awaits: only its complete
                // answers compare.)
                if let Ok(r) = run(reference) {
                    let r = common::litmus(r);
                    if let (Some(x), Some(y)) = (answers_of(&r).filter(|_| r.cut_paths == 0), answers_of(&b)) {
                        prop_assert_eq!(x, y, "{}", text);
                    }
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{text}: {:?} / {:?}", a.err(), b.err()),
        }
    }
}

/// Three threads of one workgroup each add 1 to `c` with a relaxed atomic
/// fetch-add, meet at a workgroup control barrier, then read `c` with a
/// plain load. Every thread passes the one barrier on its only path, so no
/// combination can diverge and the threads form a class (the condition
/// names only memory). Each of the 3! orders of the fetch-adds is an
/// execution (an RMW reads its immediate predecessor in the order: 4.6
/// atomicity), so `c` ends at 3 in every one; the answers are the full
/// walk's, with one candidate evaluated per orbit of the three threads.
/// (A mutation keeping barriers out of the reduction leaves
/// `symmetric_threads` at 0.)
#[test]
fn a_barrier_every_thread_passes_keeps_the_reduction() {
    let text = "VULKAN counter-barrier\n{ c=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 0, wg 0, qf 0 ;\n\
        rmw.atom.wg.sc0.add r0, c, 1 | rmw.atom.wg.sc0.add r0, c, 1 | rmw.atom.wg.sc0.add r0, c, 1 ;\n\
        cbar.acq_rel.wg.semsc0 0 | cbar.acq_rel.wg.semsc0 0 | cbar.acq_rel.wg.semsc0 0 ;\n\
        ld.sc0 r1, c | ld.sc0 r1, c | ld.sc0 r1, c ;\n\
        exists (c == 3)\n";
    let run = |on: bool| common::litmus(session(on).check_text("cbar.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(full.symmetric_threads, 0);
    assert_eq!(symmetric.symmetric_threads, 3);
    assert_eq!(answers_of(&full), answers_of(&symmetric));
    assert_eq!(symmetric.states.len(), 1);
    assert!(symmetric.barrier_divergence.is_empty());
    assert!(
        symmetric.executions * 3 <= full.executions,
        "{} against {}",
        symmetric.executions,
        full.executions
    );
}

/// The same threads with the barrier inside a branch: the thread whose
/// fetch-add reads 0 skips it, so the barrier diverges in every execution,
/// and the report names each thread that passes it with the one that never
/// reaches it. Those names differ between the members of an orbit, so the
/// walk is not reduced, and the six descriptions (two passing threads for
/// each of three skipping ones) are those of the full walk.
#[test]
fn a_barrier_some_path_skips_is_not_reduced() {
    let text = "VULKAN counter-barrier-divergent\n{ c=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 | P2@sg 0, wg 0, qf 0 ;\n\
        rmw.atom.wg.sc0.add r0, c, 1 | rmw.atom.wg.sc0.add r0, c, 1 | rmw.atom.wg.sc0.add r0, c, 1 ;\n\
        beq r0, 0, L | beq r0, 0, L | beq r0, 0, L ;\n\
        cbar.acq_rel.wg.semsc0 0 | cbar.acq_rel.wg.semsc0 0 | cbar.acq_rel.wg.semsc0 0 ;\n\
        L: | L: | L: ;\n\
        exists (c == 3)\n";
    let run = |on: bool| common::litmus(session(on).check_text("cbar2.litmus", text).unwrap());
    let (full, symmetric) = (run(false), run(true));
    assert_eq!(symmetric.symmetric_threads, 0);
    let mut divergent = symmetric.barrier_divergence.clone();
    divergent.sort();
    assert_eq!(divergent.len(), 6, "{divergent:?}");
    let mut expected = full.barrier_divergence.clone();
    expected.sort();
    assert_eq!(divergent, expected);
}
