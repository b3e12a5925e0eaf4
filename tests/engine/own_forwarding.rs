//! Two levers for compare-exchange loops whose expected value lives in a
//! work-item's own plain memory (the dat3m-opencl `TSan.litmus` shape,
//! MODELS.md "Own reads of derived stores" and "Write-write coherence"):
//!
//! - own forwarding (`Reduction::OwnForwarding`, `--no-own-forwarding`): a
//!   read of a location only its own thread writes, whose latest own write
//!   there is a derived store (a value computed per candidate execution),
//!   takes that store's term, and such reads keep only that write as their
//!   reads-from choice;
//! - `co-write-write-coherence sc0 sc1` (opencl-rules.cat): no coherence
//!   order putting a work-item's later write to a global or local location
//!   before one sequenced before it is listed (with `--no-order-pruning`
//!   they are all listed).
//!
//! Hand-derived states (tests/fixtures/litmus-opencl/own-forward-*.litmus,
//! co-*.litmus quote the sentences), the same answers with each lever off
//! and under the reference enumeration (on those files, the OpenCL corpus
//! and generated programs), and TSan listed completely at the default
//! limits.

use crate::common;

use proptest::prelude::*;
use std::path::Path;
use vkmm::Session;
use vkmm::analysis::Checked;
use vkmm::frontend::LocalMemory;

fn own(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/litmus-opencl")
        .join(file)
        .display()
        .to_string()
}

/// The four searches compared: default, each lever off, the reference.
fn sessions() -> Vec<(&'static str, Session)> {
    vec![
        ("default", Session::new()),
        (
            "no own forwarding",
            Session::new().reduction(vkmm::Reduction::OwnForwarding, false),
        ),
        (
            "no order pruning",
            Session::new().reduction(vkmm::Reduction::OrderPruning, false),
        ),
        (
            "reference",
            Session::new().limits(Session::new().current_limits().reference()),
        ),
    ]
}

/// The final states (each as `name=value` pairs) with their counts.
fn states(c: Checked) -> Vec<(String, u64)> {
    let o = common::litmus(c);
    assert!(!o.truncated && o.cut_paths == 0, "complete: {o:?}");
    o.states
        .iter()
        .map(|(s, n)| {
            let s: Vec<String> = s.iter().map(|(k, v)| format!("{k}={v}")).collect();
            (s.join(" "), *n)
        })
        .collect()
}

fn expect_file(file: &str, expected: &[(&str, u64)]) {
    let expected: Vec<(String, u64)> = expected.iter().map(|(s, n)| (s.to_string(), *n)).collect();
    for (name, s) in sessions() {
        let got = states(s.check_file(own(file)).unwrap());
        assert_eq!(got, expected, "{file}, {name}");
    }
}

#[test]
fn a_compare_exchange_compares_the_value_its_thread_stored() {
    let three = [
        ("P0:ok=0 x=1 y=1", 1),
        ("P0:ok=1 x=1 y=0", 1),
        ("P0:ok=1 x=5 y=1", 1),
    ];
    expect_file("own-forward-cas.litmus", &three);
    expect_file("own-forward-twice.litmus", &three);
}

#[test]
fn sequenced_writes_are_in_that_order_in_co() {
    let pairs = |extra: bool| {
        let mut v = vec![
            ("P1:r0=0 P1:r1=0", 1),
            ("P1:r0=0 P1:r1=1", 1),
            ("P1:r0=0 P1:r1=2", 1),
            ("P1:r0=1 P1:r1=1", 1),
            ("P1:r0=1 P1:r1=2", 1),
            ("P1:r0=2 P1:r1=2", 1),
        ];
        if extra {
            // Both orders of the unsequenced writes: twice each state the
            // order 1-then-2 gives, once 2-then-1's own.
            v = vec![
                ("P1:r0=0 P1:r1=0", 2),
                ("P1:r0=0 P1:r1=1", 2),
                ("P1:r0=0 P1:r1=2", 2),
                ("P1:r0=1 P1:r1=1", 2),
                ("P1:r0=1 P1:r1=2", 1),
                ("P1:r0=2 P1:r1=1", 1),
                ("P1:r0=2 P1:r1=2", 2),
            ];
        }
        v
    };
    expect_file("co-sequenced.litmus", &pairs(false));
    expect_file("co-unsequenced.litmus", &pairs(true));
}

/// The declaration holds for global and local objects only: accesses in
/// another storage class (a Vulkan-dialect file under `--model opencl`) are
/// no global or local actions, so happens-before does not order them and
/// write-write coherence leaves their modification order free, while RMW
/// atomicity ("Atomic read-modify-write operations should always read the
/// last value (in the modification order) stored before the write
/// associated with the read-modify-write operation", no happens-before in
/// it) still reads it: with P0's 2 before its 1, P1's fetch-add reads 1
/// and writes 11 last (P1:r0 = 1, x = 11). In the global class (`sc0`)
/// that order is the one write-write coherence forbids: three states.
const OTHER_CLASS: &str = "VULKAN co-other-class
{ x=0; }
 P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 0, qf 0 ;
 st.atom.dv.sc2 x, 1 | rmw.atom.dv.sc2.add r0, x, 10 ;
 st.atom.dv.sc2 x, 2 | ;
exists (P1:r0 == 1 /\\ x == 11)
";

#[test]
fn other_storage_classes_keep_every_order() {
    let global = OTHER_CLASS.replace("sc2", "sc0");
    for ((name, s), (_, t)) in sessions().into_iter().zip(sessions()) {
        let run = |s: Session, text: &str| {
            common::litmus(
                s.model("opencl")
                    .check_text("co-other-class.litmus", text)
                    .unwrap(),
            )
        };
        let o = run(s, OTHER_CLASS);
        assert_eq!(o.states.len(), 4, "{name}: {:?}", o.states);
        assert_eq!(o.condition_holds, Some(true), "{name}");
        let g = run(t, &global);
        assert_eq!(g.states.len(), 3, "{name}: {:?}", g.states);
        assert_eq!(g.condition_holds, Some(false), "{name}");
    }
}

#[test]
fn the_opencl_models_declare_it_for_global_and_local_objects() {
    let declares = |name: &str| {
        let m = vkmm::model::load(name).unwrap();
        vkmm::model::profile::declares_co_write_write_coherence(&m.cat)
    };
    for m in common::OPENCL_MODELS {
        assert_eq!(declares(m), 0b11, "{m}");
    }
    assert_eq!(declares("vulkan"), 0);
}

/// The file: complete at the default limits (it stopped at the
/// execution limit before), with the full listing's states and counts
/// (`--max-executions 100000000` before these levers: 900 executions, 210
/// consistent, the same seven states). No path is cut: a failing
/// compare-exchange reads a later write of the other writer, which writes
/// twice, so the paths failing more often are no execution's
/// (`coherence-cuts`; without it the bound cuts them).
#[test]
fn tsan_is_listed_completely_at_the_default_limits() {
    let Some(dir) = common::corpus_or_skip("dat3m-opencl") else {
        return;
    };
    let o = common::litmus(
        Session::new()
            .check_file(dir.join("portedFromC11/manual/TSan.litmus"))
            .unwrap(),
    );
    assert!(!o.truncated && o.stopped_by.is_none(), "{o:?}");
    assert_eq!(o.cut_paths, 0);
    assert_eq!(o.consistent, 210);
    let counts: Vec<u64> = o.states.iter().map(|(_, n)| *n).collect();
    assert_eq!(counts, [66, 42, 42, 20, 10, 10, 20]);
    assert!(
        o.executions + o.partial_evaluations < 50_000,
        "{} + {}",
        o.executions,
        o.partial_evaluations
    );
}

/// The answers of a complete search (`None`: truncated, stopped or cut).
fn answers(c: &Checked) -> Option<String> {
    if let Checked::Litmus(o) = c
        && o.cut_paths > 0
    {
        return None;
    }
    common::answers_of(c, true)
}

/// The four searches on one program text agree where they are complete
/// (`local`: OpenCL `local` variables shared, as the corpus reads them).
fn agree(text: &str, max_executions: u64, local: LocalMemory) -> Vec<String> {
    let mut out = Vec::new();
    let mut base: Option<(String, String)> = None;
    for (name, s) in sessions() {
        let a = match s
            .max_executions(max_executions)
            .unroll(1)
            .local_memory(local)
            .timeout(Some(std::time::Duration::from_secs(5)))
            .check_text("generated.litmus", text)
        {
            Ok(c) => answers(&c),
            Err(e) => Some(format!("error {e}")),
        };
        let Some(a) = a else { continue };
        match &base {
            None => base = Some((name.to_string(), a)),
            Some((b, x)) if *x != a => out.push(format!("{b}:\n{x}\n{name}:\n{a}")),
            Some(_) => {}
        }
    }
    out
}

#[test]
#[cfg_attr(
    not(feature = "slow-tests"),
    ignore = "full tier: --features slow-tests"
)]
fn the_opencl_corpus_and_own_tests_agree() {
    let mut files = Vec::new();
    if let Some(dir) = common::corpus_or_skip("dat3m-opencl") {
        common::litmus_files_below(&dir, &|p| p.ends_with("TSan.litmus"), &mut files);
    }
    for d in [
        "tests/fixtures/litmus-opencl",
        "tests/fixtures/litmus-opencl-rest",
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(d);
        common::litmus_files_below(&dir, &|_| false, &mut files);
    }
    assert!(files.len() > 40);
    let mut diffs = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for d in agree(&text, 20_000, LocalMemory::Shared) {
            diffs.push(format!("{}: {d}", f.display()));
        }
    }
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// One statement of a generated work-item: `t` its thread, `k` its index.
#[derive(Clone, Debug)]
enum Item {
    /// `atomic_store(x, v)`
    Store(i64),
    /// `int rk = atomic_load(x)`
    Load,
    /// `*e = atomic_load(x)` (a derived store)
    Save(bool),
    /// `*e = v`
    Plain(bool, i64),
    /// `int rk = *e`
    Read(bool),
    /// `int rk = atomic_compare_exchange_strong(x, e, v)`
    Cas(bool, i64),
    /// `while (!atomic_compare_exchange_strong(x, e, v)) {}`
    CasLoop(bool, i64),
}

fn item() -> impl Strategy<Value = Item> {
    // `bool`: the shared location e0 (true, for threads other than P0) or
    // the thread's own e<t>.
    let shared = prop::bool::weighted(0.2);
    prop_oneof![
        (0..3i64).prop_map(Item::Store),
        Just(Item::Load),
        shared.prop_map(Item::Save),
        (shared, 0..3i64).prop_map(|(s, v)| Item::Plain(s, v)),
        shared.prop_map(Item::Read),
        (shared, 0..3i64).prop_map(|(s, v)| Item::Cas(s, v)),
        (shared, 1..3i64).prop_map(|(s, v)| Item::CasLoop(s, v)),
    ]
}

fn program_text(threads: &[Vec<Item>]) -> String {
    let mut text = String::from("OPENCL generated\n{ [x]=0; [e0]=0; [e1]=0; [e2]=0; }\n");
    for (t, items) in threads.iter().enumerate() {
        text.push_str(&format!(
            "P{t}@wg 0, dev 0 (global atomic_int* x, global int* e0, global int* e1, global int* e2) {{\n"
        ));
        for (k, it) in items.iter().enumerate() {
            let e = |shared: &bool| {
                if *shared {
                    "e0".to_string()
                } else {
                    format!("e{t}")
                }
            };
            let relaxed = "memory_order_relaxed";
            let line = match it {
                Item::Store(v) => format!("atomic_store_explicit(x, {v}, {relaxed});"),
                Item::Load => format!("int r{k} = atomic_load_explicit(x, {relaxed});"),
                Item::Save(s) => format!("*{} = atomic_load_explicit(x, {relaxed});", e(s)),
                Item::Plain(s, v) => format!("*{} = {v};", e(s)),
                Item::Read(s) => format!("int r{k} = *{};", e(s)),
                Item::Cas(s, v) => format!(
                    "int r{k} = atomic_compare_exchange_strong_explicit(x, {}, {v}, {relaxed}, {relaxed});",
                    e(s)
                ),
                Item::CasLoop(s, v) => format!(
                    "while (atomic_compare_exchange_strong_explicit(x, {}, {v}, {relaxed}, {relaxed}) == 0) {{}}",
                    e(s)
                ),
            };
            text.push_str(&format!("  {line}\n"));
        }
        text.push_str("}\n");
    }
    text.push_str("exists (x=1 /\\ e0=1 /\\ e1=0 /\\ e2=0)\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig { rng_seed: common::seed(), cases: common::cases(64), failure_persistence: crate::common::regressions("own_forwarding"), ..ProptestConfig::default() })]

    /// Programs of two or three work-items mixing atomic accesses to `x`,
    /// stores of loaded values to plain memory, reads of it back and
    /// compare-exchanges (loops too) with expected values there.
    #[test]
    fn generated_programs_agree(
        threads in prop::collection::vec(prop::collection::vec(item(), 1..4), 2..4)
    ) {
        let text = program_text(&threads);
        let diffs = agree(&text, 5_000, LocalMemory::PerWorkgroup);
        prop_assert!(diffs.is_empty(), "{}\n{}", diffs.join("\n"), text);
    }
}
