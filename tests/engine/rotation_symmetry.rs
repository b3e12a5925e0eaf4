//! Symmetry reduction with renaming of locations (`engine::rotation`,
//! issue 11): programs whose threads are copies of one another up to a
//! renaming of locations, with every thread's registers shown, are walked
//! one combination of paths per orbit of the group; the listing records
//! each execution's image states (registers `P_t:r -> P_pi(t):r`,
//! locations `x -> lambda(x)`) and evaluates the condition on each.
//!
//! The answers must be the full walk's (`--no-symmetry`): states with
//! their counts, the verdict, positive/negative/consistent counts, races.
//! Compared on hand-derived tests, the scaling families at small N and
//! generated programs made symmetric by construction (one generated
//! thread copied with its locations rotated).

use crate::common;

use common::listing_answers as answers_of;
use proptest::prelude::*;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::LitmusOutcome;

fn session(on: bool) -> Session {
    Session::new()
        .max_executions(200_000)
        .reduction(vkmm::Reduction::Symmetry, on)
}

fn run(on: bool, name: &str, text: &str) -> LitmusOutcome {
    common::litmus(session(on).check_text(name, text).unwrap())
}

/// Three threads, one per workgroup, take a ticket with a device-scope
/// fetch-add on `c`; the one whose ticket is 0 stores nothing, the others
/// store 1 to their own `x_t`. Renaming `P0 -> P1 -> P2 -> P0` with
/// `x0 -> x1 -> x2 -> x0` maps the program onto itself.
///
/// By hand: the appendix (Vulkan memory model, Location-Coherence): "If A
/// is a write and B is a read-modify-write and B reads the value written
/// by A, then B comes immediately after A in A's scoped modification
/// order", so no two adds read the same write: they read 0, 1 and 2, one
/// each, in any of the 3! = 6 assignments; each
/// assignment is one execution (the stores go to distinct locations, one
/// writer each). In each, the thread with ticket 0 leaves its `x` at 0
/// and the others' are 1. The condition asks P0 for ticket 0, P1 for 1,
/// P2 for 2 (and `x0 == 0`, `x1 == x2 == 1`): exactly one execution of
/// the six. So: `exists` holds, Positive 1, Negative 5, six states, one
/// execution each, no race (the stores are to distinct locations; the
/// adds are atomic).
///
/// The reduced walk builds two of the six combinations of paths (one per
/// orbit of the rotation, of size 3); the witness is the image of one of
/// them. Evaluating the condition on the walked execution alone gives 0
/// or 3 positives, never 1; a location left unrenamed in the image gives
/// states with two `x` at 0.
const TICKETS: &str = "VULKAN tickets-ring\n{ c=0; x0=0; x1=0; x2=0; }\n\
    P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n\
    rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n\
    beq r0, 0, L | beq r0, 0, L | beq r0, 0, L ;\n\
    st.atom.dv.sc0 x0, 1 | st.atom.dv.sc0 x1, 1 | st.atom.dv.sc0 x2, 1 ;\n\
    L: | L: | L: ;\n\
    exists (P0:r0 == 0 /\\ P1:r0 == 1 /\\ P2:r0 == 2 /\\ x0 == 0 /\\ x1 == 1 /\\ x2 == 1)\n";

#[test]
fn the_condition_is_evaluated_on_every_image() {
    for on in [true, false] {
        let o = run(on, "tickets-ring.litmus", TICKETS);
        assert_eq!(o.rotation_order, if on { 3 } else { 0 });
        assert_eq!(o.condition_holds, Some(true), "symmetry {on}");
        assert_eq!(
            (o.positive, o.negative, o.consistent),
            (1, 5, 6),
            "symmetry {on}"
        );
        assert_eq!(o.states.len(), 6, "symmetry {on}");
        assert_eq!(o.race_free, Some(true), "symmetry {on}");
        if on {
            // Two combinations of paths walked (one per orbit): 2 of 6.
            assert_eq!(o.executions, 2);
        }
    }
    assert_eq!(
        answers_of(&run(false, "t.litmus", TICKETS)),
        answers_of(&run(true, "t.litmus", TICKETS))
    );
    // The registers alone: the same single witness of six. The two orbits
    // are {(0,1,2), (2,0,1), (1,2,0)} and {(0,2,1), (1,0,2), (2,1,0)}
    // (tickets of P0, P1, P2); the condition evaluated on the walked
    // execution's registers for all its images gives 3 or 0, not 1.
    let registers = TICKETS.replace(" /\\ x0 == 0 /\\ x1 == 1 /\\ x2 == 1", "");
    assert_ne!(registers, TICKETS);
    for on in [true, false] {
        let o = run(on, "tickets-regs.litmus", &registers);
        assert_eq!(o.rotation_order, if on { 3 } else { 0 });
        assert_eq!((o.positive, o.negative), (1, 5), "symmetry {on}");
        assert_eq!(o.states.len(), 6, "symmetry {on}");
    }
}

/// The same ring with `x1` starting at 5: the rotations are no
/// automorphisms (they map `x0`'s initial 0 to `x1`'s 5); the exchange of
/// P0 and P2 with `x0` and `x2` (fixing `x1`) is one, of order 2, and is
/// the group used. The answers are still the full walk's. By hand: six
/// executions; P1 stores 1 to `x1` unless its ticket is 0 (then `x1`
/// stays 5); the condition (P0 ticket 0, so P1 and P2 store: `x1 == 1`)
/// holds in one. (A mutation accepting the rotation maps the state in
/// which `x1` stays 5 onto one in which `x2` does: other states.)
#[test]
fn initial_values_must_be_invariant() {
    let text = TICKETS.replace("x1=0;", "x1=5;");
    let o = run(true, "t.litmus", &text);
    assert_eq!(o.rotation_order, 2);
    assert_eq!((o.positive, o.negative), (1, 5));
    assert_eq!(answers_of(&o), answers_of(&run(false, "t.litmus", &text)));
}

/// Two of the ticket threads store to the same `x0` and race there when
/// both store (plain stores, no happens-before between them: the
/// appendix, Data Race). With the ring renamed, the pair's images are
/// recorded too: the same racing pairs as the full walk.
#[test]
fn racing_pairs_are_mapped_to_their_images() {
    let text = "VULKAN racing-ring\n{ c=0; x0=0; x1=0; x2=0; }\n\
        P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 | P2@sg 0, wg 2, qf 0 ;\n\
        rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 | rmw.atom.dv.sc0.add r0, c, 1 ;\n\
        beq r0, 0, L | beq r0, 0, L | beq r0, 0, L ;\n\
        st.sc0 x0, 1 | st.sc0 x1, 1 | st.sc0 x2, 1 ;\n\
        st.sc0 x1, 2 | st.sc0 x2, 2 | st.sc0 x0, 2 ;\n\
        L: | L: | L: ;\n\
        exists (P0:r0 == 1 /\\ P1:r0 == 2 /\\ P2:r0 == 0 /\\ x0 == 1 /\\ x1 == 2 /\\ x2 == 0)\n";
    let (full, reduced) = (run(false, "r.litmus", text), run(true, "r.litmus", text));
    assert_eq!(reduced.rotation_order, 3);
    assert_eq!(reduced.race_free, Some(false));
    assert_eq!(full.races.len(), reduced.races.len());
    assert_eq!(answers_of(&full), answers_of(&reduced));
}

/// The scaling families that are symmetric up to renaming locations:
/// reduced by the rotation, with the full walk's answers.
#[test]
fn the_scaling_rings_are_reduced_and_agree() {
    for (name, order) in [("barrier-flags-3", 3), ("barrier-flags-4", 4)] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/litmus-scaling")
            .join(format!("{name}.litmus"));
        if !path.exists() {
            continue;
        }
        let check = |on: bool| common::litmus(session(on).check_file(&path).unwrap());
        let (full, reduced) = (check(false), check(true));
        assert_eq!(reduced.rotation_order, order, "{name}");
        assert_eq!(answers_of(&full), answers_of(&reduced), "{name}");
        assert!(
            reduced.executions * order as u64 <= full.executions,
            "{name}"
        );
    }
}

/// Generated thread code over the ring's locations: `Ln` is the thread's
/// own location plus `n`, renamed per thread.
#[derive(Clone, Debug)]
enum Item {
    Load { off: usize },
    Store { off: usize, value: i64 },
    FetchAdd { shared: bool, off: usize },
    Branch { value: i64 },
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (0..3usize).prop_map(|off| Item::Load { off }),
        (0..3usize, 1..3i64).prop_map(|(off, value)| Item::Store { off, value }),
        (any::<bool>(), 0..3usize).prop_map(|(shared, off)| Item::FetchAdd { shared, off }),
        (0..2i64).prop_map(|value| Item::Branch { value }),
    ]
}

/// Thread `t` of `n`: the items with location `off` read as `x_{t+off}`.
fn code(items: &[Item], t: usize, n: usize) -> Vec<String> {
    let x = |off: usize| format!("x{}", (t + off) % n);
    let mut out = Vec::new();
    for (k, it) in items.iter().enumerate() {
        match it {
            Item::Load { off } => out.push(format!("ld.atom.acq.dv.sc0.semsc0 r{k}, {}", x(*off))),
            Item::Store { off, value } => {
                out.push(format!("st.atom.rel.dv.sc0.semsc0 {}, {value}", x(*off)))
            }
            Item::FetchAdd { shared: true, .. } => {
                out.push(format!("rmw.atom.acq_rel.dv.sc0.semsc0.add r{k}, c, 1"))
            }
            Item::FetchAdd { off, .. } => out.push(format!(
                "rmw.atom.acq_rel.dv.sc0.semsc0.add r{k}, {}, 1",
                x(*off)
            )),
            Item::Branch { .. } if k == 0 => out.push(format!("ld.sc0 r{k}, c")),
            Item::Branch { value } => {
                out.push(format!("beq r{}, {value}, L{k}", k - 1));
                out.push(format!("st.sc0 {}, 3", x(0)));
                out.push(format!("L{k}:"));
            }
        }
    }
    out
}

/// `n` copies of `items`, thread `t` with locations rotated by `t`, one
/// workgroup each; the condition names one register of every thread and
/// every `x` (asymmetric values).
fn ring_text(items: &[Item], n: usize, values: &[i64]) -> String {
    let mut text = String::from("VULKAN generated-ring\n{\nc=0;");
    for t in 0..n {
        text.push_str(&format!(" x{t}=0;"));
    }
    text.push_str("\n}\n");
    let table: Vec<(usize, Vec<String>)> = (0..n).map(|t| (t, code(items, t, n))).collect();
    text.push_str(&common::vulkan_thread_table(&table));
    let mut terms: Vec<String> = (0..n)
        .map(|t| format!("P{t}:r0 == {}", values[t % values.len()]))
        .collect();
    terms.extend((0..n).map(|t| format!("x{t} == {}", values[(t + 1) % values.len()])));
    text.push_str(&format!("exists ({})\n", terms.join(" \\/ ")));
    text
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: common::seed(), cases: common::cases(64), failure_persistence: crate::common::regressions("rotation_symmetry"), ..ProptestConfig::default() })]

    /// Generated rings: reduced and full walks give the same answers.
    #[test]
    fn generated_rings_agree(
        items in prop::collection::vec(item(), 1..4),
        n in 2..5usize,
        values in prop::collection::vec(0..3i64, 1..4),
    ) {
        let text = ring_text(&items, n, &values);
        let check = |on: bool| session(on).check_text("ring.litmus", &text);
        match (check(false), check(true)) {
            (Ok(a), Ok(b)) => {
                let (a, b) = (common::litmus(a), common::litmus(b));
                if let (Some(x), Some(y)) = (answers_of(&a), answers_of(&b)) {
                    prop_assert_eq!(x, y, "{}", text);
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{text}: {:?} / {:?}", a.err(), b.err()),
        }
    }
}
