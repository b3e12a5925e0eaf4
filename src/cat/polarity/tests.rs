//! Tests of the polarity analysis: one hand-written model per rule, property
//! tests (a check reported monotone that fails under subsets of the growing
//! names' values also fails under the full values) on random models and on
//! the shipped Vulkan model, and the Vulkan model's acyclicity axiom.

use crate::cat::{Env, Evaluation, Model, Prepared, Value};
use crate::relation::{EventSet, Relation};
use proptest::prelude::*;

/// The dynamic names of the engine.
const DYNAMIC: &[&str] = &["rf", "asmo", "co", "RFINIT"];

fn no_include(_: &str) -> Option<(String, String)> {
    None
}

/// A 3-event static environment: W = {0}, R = {1, 2}, po = 0->1->2.
fn base3() -> Env {
    let mut e = Env::new(3);
    e.set("W", EventSet::from_iter(3, [0]));
    e.set("R", EventSet::from_iter(3, [1, 2]));
    e.rel("po", Relation::from_pairs(3, [(0, 1), (0, 2), (1, 2)]));
    e
}

fn prepared(src: &str) -> Prepared {
    let m = Model::parse("t.cat", src, &no_include).unwrap_or_else(|e| panic!("{src}: {e}"));
    m.prepare(&base3(), DYNAMIC)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// `monotone_checks(growing)` of the model `src`.
fn mono_in(src: &str, growing: &[&str]) -> Vec<bool> {
    prepared(src).monotone_checks(growing)
}

/// Whether the single check of `src` is monotone in `rf`.
fn mono_rf(src: &str) -> bool {
    let v = mono_in(src, &["rf"]);
    assert_eq!(v.len(), 1, "{src}");
    v[0]
}

// ---------------------------------------------------------------------------
// One rule at a time
// ---------------------------------------------------------------------------

#[test]
fn base_names() {
    assert!(mono_rf("acyclic rf"));
    assert!(mono_rf("acyclic po"));
    assert!(mono_rf("acyclic asmo"), "fixed dynamic names are constant");
    assert!(mono_in("empty RFINIT", &["RFINIT"])[0]);
    assert!(mono_rf("acyclic rf | po"));
    assert!(mono_rf("empty 0 | {} | rf"));
    assert!(mono_rf("acyclic _ * _"), "constant, hence monotone");
}

#[test]
fn monotone_operators() {
    for e in [
        "rf | po",
        "po | rf | asmo",
        "rf & po",
        "rf ; po",
        "po ; rf ; po",
        "rf^-1",
        "rf+",
        "rf*",
        "rf?",
        "[domain(rf)]",
        "[range(rf)] ; po",
        "domain(rf) * range(rf)",
        "[RFINIT] ; po",
        "rf \\ po",
        "rf \\ po \\ asmo",
        "(rf | po)+ ; [W]",
    ] {
        assert!(mono_rf(&format!("acyclic {e}")), "acyclic {e}");
        assert!(mono_rf(&format!("irreflexive {e}")), "irreflexive {e}");
        assert!(mono_rf(&format!("empty {e}")), "empty {e}");
    }
    assert!(mono_rf("empty domain(rf)"));
    assert!(mono_rf("empty W & range(rf)"));
}

#[test]
fn antitone_positions() {
    for e in [
        "po \\ rf",
        "~rf",
        "po \\ (rf | asmo)",
        "(po \\ rf)+",
        "[~domain(rf)]",
        "po \\ asmo \\ rf",
        "(rf | po) \\ rf",
        "rf | ~rf",
        "~rf ; rf",
        "[W \\ range(rf)] ; po",
    ] {
        assert!(!mono_rf(&format!("acyclic {e}")), "acyclic {e}");
        assert!(!mono_rf(&format!("empty {e}")), "empty {e}");
    }
    assert!(!mono_rf("empty W \\ domain(rf)"));
}

#[test]
fn double_flips() {
    assert!(mono_rf("acyclic ~(~rf)"));
    assert!(mono_rf("acyclic po \\ (po \\ rf)"));
    assert!(mono_rf("acyclic ~(po \\ rf)"));
    assert!(mono_rf("acyclic po \\ ~rf"));
    assert!(!mono_rf("acyclic ~(~(~rf))"));
    assert!(mono_rf("empty [~(W \\ domain(rf))]"));
}

#[test]
fn several_growing_names() {
    let src = "empty (rf ; [RFINIT]) \\ id";
    assert_eq!(mono_in(src, &["rf", "RFINIT"]), [true]);
    assert_eq!(mono_in(src, &["rf"]), [true]);
    assert_eq!(mono_in(src, &["RFINIT"]), [true]);
    let src = "acyclic rf \\ [RFINIT]";
    assert_eq!(mono_in(src, &["rf"]), [true]);
    assert_eq!(mono_in(src, &["RFINIT"]), [false]);
    assert_eq!(mono_in(src, &["rf", "RFINIT"]), [false]);
    assert_eq!(mono_in(src, &[]), [true], "nothing grows");
    assert_eq!(mono_in("acyclic po \\ rf", &["nothere"]), [true]);
    assert_eq!(
        mono_in("acyclic po \\ rf", &["nothere", "rf"]),
        [false],
        "a name the model never reads does not matter"
    );
}

#[test]
fn let_chains() {
    let src = "let a = rf | po\n\
               let b = a ; a\n\
               let c = b \\ id\n\
               let d = po \\ c\n\
               let e = ~d\n\
               acyclic c as c1\n\
               acyclic d as c2\n\
               acyclic e as c3\n\
               acyclic a & d as c4\n\
               acyclic po as c5";
    assert_eq!(mono_in(src, &["rf"]), [true, false, true, false, true]);
    // simultaneous bindings, and shadowing (each binding is its own slot)
    let src = "let x = rf and y = po \\ rf\n\
               acyclic x\n\
               acyclic y\n\
               let x = po \\ x\n\
               acyclic x\n\
               let x = ~x\n\
               acyclic x";
    assert_eq!(mono_in(src, &["rf"]), [true, false, false, true]);
    // a model that rebinds a growing name: later reads see the binding
    let src = "let rf = po \\ rf\nacyclic rf";
    assert_eq!(mono_in(src, &["rf"]), [false]);
}

#[test]
fn let_in() {
    assert!(mono_rf("acyclic (let x = rf ; rf in x | po)"));
    assert!(!mono_rf("acyclic (let x = rf in po \\ x)"));
    assert!(mono_rf("acyclic (let x = po \\ rf in ~x)"));
    assert!(mono_rf("acyclic (let x = po \\ rf and y = rf in y \\ x)"));
    assert!(mono_rf(
        "acyclic (let x = po \\ rf in let y = ~x in y | rf)"
    ));
}

#[test]
fn functions() {
    let src = "let f(r) = r ; r\n\
               let g(r) = po \\ r\n\
               let two(a, b) = a \\ b\n\
               acyclic f(rf) as c1\n\
               acyclic g(rf) as c2\n\
               acyclic g(g(rf)) as c3\n\
               acyclic f(g(rf)) as c4\n\
               acyclic two(rf, po) as c5\n\
               acyclic two(po, rf) as c6\n\
               acyclic two(rf, g(rf)) as c7\n\
               acyclic f(po) as c8\n\
               acyclic domain(rf) * range(g(g(rf))) as c9";
    assert_eq!(
        mono_in(src, &["rf"]),
        [true, false, true, false, true, false, true, true, true]
    );
}

#[test]
fn functions_reading_growing_names() {
    // a function whose body reads rf directly
    let src = "let f(r) = r | rf\nlet g(r) = r \\ rf\n\
               acyclic f(po)\nacyclic g(po)\nacyclic g(po \\ rf)";
    assert_eq!(mono_in(src, &["rf"]), [true, false, false]);
}

#[test]
fn higher_order_functions_and_closures() {
    let src = "let app(h, x) = h(x)\n\
               let sq(r) = r ; r\n\
               let neg(r) = ~r\n\
               let mk(r) = fun s -> s | r\n\
               let h1 = mk(rf)\n\
               let h2 = mk(~rf)\n\
               acyclic app(sq, rf) as c1\n\
               acyclic app(neg, rf) as c2\n\
               acyclic app(neg, app(neg, rf)) as c3\n\
               acyclic h1(po) as c4\n\
               acyclic h2(po) as c5\n\
               acyclic h1(~rf) as c6\n\
               acyclic (let k = fun z -> z ; rf in k(po)) as c7\n\
               acyclic app(domain, rf) * _ as c8";
    assert_eq!(
        mono_in(src, &["rf"]),
        [true, false, true, true, false, false, true, true]
    );
}

#[test]
fn calls_that_cannot_be_analysed_are_not_monotone() {
    // a recursive function
    assert!(!mono_rf("let rec f(r) = r | f(r)\nacyclic f(rf)"));
    // arity mismatch, calling data
    assert!(!mono_rf("let f(a, b) = a | b\nacyclic f(rf)"));
    assert!(!mono_rf("acyclic po(rf)"));
    assert!(!mono_rf("let x = rf\nacyclic x(po)"));
    // a function used as data
    assert!(!mono_rf("let f(r) = r\nacyclic f | rf"));
}

#[test]
fn immediate_part() {
    let imm = "let imm(r) = r \\ (r ; r+)\n";
    assert!(!mono_rf(&format!("{imm}acyclic imm(rf)")));
    // asmo is dynamic but fixed: constant
    assert!(mono_rf(&format!("{imm}acyclic imm(asmo)")));
    assert!(mono_rf(&format!("{imm}acyclic imm(asmo) | rf")));
    assert!(mono_rf(&format!(
        "{imm}let rs = [W] ; (imm(asmo) ; [R])*\nacyclic rs ; rf"
    )));
    assert_eq!(
        mono_in(&format!("{imm}acyclic imm(asmo) | rf"), &["rf", "asmo"]),
        [false]
    );
    // static: imm(po) is computed by prepare
    assert!(mono_rf(&format!(
        "{imm}let ipo = imm(po)\nacyclic ipo | rf"
    )));
}

#[test]
fn let_rec() {
    assert!(mono_rf("let rec x = rf | (x ; x)\nacyclic x"));
    assert!(mono_rf("let rec x = rf | (x ; po)\nacyclic x \\ id"));
    assert!(!mono_rf("let rec x = rf | (x ; po)\nacyclic po \\ x"));
    // mutual recursion
    assert!(mono_rf(
        "let rec a = rf | (b ; po) and b = a ; asmo\nacyclic a | b"
    ));
    // not monotone in the recursive name: unknown, even though rf is positive
    assert!(!mono_rf("let rec x = rf | (po \\ x)\nacyclic x"));
    assert!(!mono_rf("let rec x = rf \\ x\nacyclic x"));
    // antitone in rf
    assert!(!mono_rf("let rec x = (po \\ rf) | (x ; x)\nacyclic x"));
    // independent of rf (even non-monotone in x): constant
    assert!(mono_rf("let rec x = asmo \\ (x ; po)\nacyclic x | rf"));
    assert!(mono_rf("let rec x = asmo \\ (x ; po)\nacyclic rf \\ x"));
    // a recursive function next to a recursive value
    assert!(mono_rf("let rec f(r) = r ; x and x = rf | po\nacyclic x"));
    // f is not recursive: its call reads x (assumed monotone)
    assert!(mono_rf(
        "let rec f(r) = r ; x and x = rf | f(po)\nacyclic x"
    ));
    assert!(!mono_rf(
        "let rec f(r) = r | f(r) and x = rf | f(po)\nacyclic x"
    ));
    // static let rec (computed by prepare)
    assert!(mono_rf("let rec x = po | (x ; x)\nacyclic po \\ x"));
}

#[test]
fn flags_and_negated_checks() {
    let src = "flag ~empty rf as f1\n\
               flag acyclic rf as f2\n\
               ~acyclic rf as n1\n\
               ~empty po \\ rf as n2\n\
               flag ~empty po as f3\n\
               ~irreflexive po as n3\n\
               acyclic rf as a1\n\
               irreflexive rf as a2\n\
               empty rf as a3";
    assert_eq!(
        mono_in(src, &["rf"]),
        [false, false, false, false, false, false, true, true, true]
    );
    assert_eq!(
        mono_in(src, &[]),
        [false, false, false, false, false, false, true, true, true]
    );
}

#[test]
fn one_answer_per_check_in_evaluation_order() {
    let src = "acyclic po as s1\nlet x = rf\nempty x \\ x as d1\nirreflexive po \\ x as d2";
    let p = prepared(src);
    let m = p.monotone_checks(&["rf"]);
    let mut env = Env::new(3);
    env.rel("rf", Relation::empty(3));
    env.rel("asmo", Relation::empty(3));
    env.set("RFINIT", EventSet::empty(3));
    let ev = p.evaluate(&env).expect("evaluates");
    assert_eq!(m.len(), ev.checks.len());
    let names: Vec<&str> = ev.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["s1", "d1", "d2"]);
    // x \ x is (mono joined with anti) unknown: the analysis is syntactic
    assert_eq!(m, [true, false, false]);
}

#[test]
fn deep_nesting_stays_in_bounds() {
    // long call chains and deep expressions do not overflow the stack
    let mut src = String::from("let f0(r) = r\n");
    for i in 1..400 {
        src.push_str(&format!("let f{i}(r) = f{}(r) ; r\n", i - 1));
    }
    src.push_str("acyclic f399(rf)\nacyclic f3(rf)");
    let m = Model::parse("t.cat", &src, &no_include).expect("parses");
    let p = m.prepare(&base3(), DYNAMIC).expect("prepares");
    std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            // too deep to analyse: unknown (the interpreter would fail too)
            assert_eq!(p.monotone_checks(&["rf"]), [false, true]);
        })
        .expect("spawn")
        .join()
        .expect("no stack overflow");
}

// ---------------------------------------------------------------------------
// The Vulkan model
// ---------------------------------------------------------------------------

/// A static environment for `model` over `n` events: every free name that
/// is not dynamic, sets for capitalised names and relations otherwise, with
/// contents drawn from `bits` (cycled). Relations only hold pairs `a -> b`
/// with `a < b`, so that acyclicity does not fail on the static part alone.
pub(in crate::cat) fn static_env(model: &Model, n: usize, bits: &[bool]) -> Env {
    let mut k = 0;
    let mut next = || {
        let b = bits.get(k % bits.len().max(1)).copied().unwrap_or(false);
        k += 1;
        b
    };
    let mut env = Env::new(n);
    for name in model.free_names() {
        if DYNAMIC.contains(&name.as_str()) {
            continue;
        }
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let s = EventSet::from_iter(n, (0..n).filter(|_| next()));
            env.set(&name, s);
        } else {
            let pairs: Vec<(usize, usize)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect();
            let r = Relation::from_pairs(n, pairs.into_iter().filter(|_| next()));
            env.rel(&name, r);
        }
    }
    env
}

fn vulkan_checks(name: &str, growing: &[&str]) -> Vec<(String, bool)> {
    let model = crate::model::load(name).expect("built-in model loads").cat;
    let env = static_env(&model, 3, &[true, false, false]);
    let p = model.prepare(&env, DYNAMIC).expect("prepares");
    let m = p.monotone_checks(growing);
    let names = model.check_names();
    assert_eq!(names.len(), m.len());
    names.into_iter().map(String::from).zip(m).collect()
}

#[test]
fn vulkan_acyclicity_is_monotone_in_rf_and_rfinit() {
    for model in ["vulkan", "vulkan-nochains"] {
        let checks = vulkan_checks(model, &["rf", "RFINIT"]);
        let get = |n: &str| {
            checks
                .iter()
                .find(|(c, _)| c == n)
                .unwrap_or_else(|| panic!("{model} has no check {n}: {checks:?}"))
                .1
        };
        assert!(get("location-order-acyclicity"), "{model}: {checks:?}");
        assert!(!get("data-race"), "a flag is never used for pruning");
        // each name alone, too
        for g in ["rf", "RFINIT"] {
            let one = vulkan_checks(model, &[g]);
            assert!(
                one.iter()
                    .any(|(c, m)| c == "location-order-acyclicity" && *m)
            );
        }
        // with asmo growing, imm(asmo) (in the release sequences) is not monotone
        let with_asmo = vulkan_checks(model, &["rf", "RFINIT", "asmo"]);
        assert!(
            with_asmo
                .iter()
                .any(|(c, m)| c == "location-order-acyclicity" && !*m)
        );
    }
}

/// Pairs of `0..n` selected by `bits` (cycled from `offset`); only pairs
/// `a -> b` with `a < b` if `forward`.
fn rel_of(n: usize, bits: &[bool], offset: usize, forward: bool) -> Relation {
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|a| (0..n).map(move |b| (a, b)))
        .filter(|&(a, b)| !forward || a < b)
        .collect();
    Relation::from_pairs(
        n,
        pairs
            .into_iter()
            .enumerate()
            .filter(|(i, _)| bits.get((i + offset) % bits.len().max(1)) == Some(&true))
            .map(|(_, p)| p),
    )
}

/// A random sub-relation of `r`: the pairs whose `keep` bit is set.
fn sub_rel(r: &Relation, keep: &[bool]) -> Relation {
    let n = r.universe();
    Relation::from_pairs(
        n,
        r.pairs()
            .enumerate()
            .filter(|(i, _)| keep.get(i % keep.len().max(1)) == Some(&true))
            .map(|(_, p)| p),
    )
}

fn sub_set(s: &EventSet, keep: &[bool]) -> EventSet {
    EventSet::from_iter(
        s.universe(),
        s.iter()
            .enumerate()
            .filter(|(i, _)| keep.get(i % keep.len().max(1)) == Some(&true))
            .map(|(_, e)| e),
    )
}

/// The dynamic environment of one candidate.
fn dyn_env(n: usize, rf: &Relation, rfinit: &EventSet, asmo: &Relation) -> Env {
    let mut env = Env::new(n);
    env.rel("rf", rf.clone());
    env.rel("asmo", asmo.clone());
    env.rel("co", asmo.clone());
    env.set("RFINIT", rfinit.clone());
    env
}

/// One random candidate and one random partial assignment below it.
#[derive(Debug, Clone)]
struct Growth {
    n: usize,
    statics: Vec<bool>,
    rf: Vec<bool>,
    rfinit: Vec<bool>,
    asmo: Vec<bool>,
    keep_rf: Vec<bool>,
    keep_rfinit: Vec<bool>,
}

fn growth(max_n: usize) -> impl Strategy<Value = Growth> {
    let bits = |k| prop::collection::vec(any::<bool>(), k..k + 17);
    // sparse static relations, so that not every check fails already
    let sparse = prop::collection::vec(prop::bool::weighted(0.15), 7..40);
    (
        1..=max_n,
        sparse,
        bits(3),
        bits(2),
        bits(5),
        bits(3),
        bits(2),
    )
        .prop_map(
            |(n, statics, rf, rfinit, asmo, keep_rf, keep_rfinit)| Growth {
                n,
                statics,
                rf,
                rfinit,
                asmo,
                keep_rf,
                keep_rfinit,
            },
        )
}

/// Evaluates `p` on the full candidate of `g` and on its partial assignment
/// (only the names of `growing` shrunk); `None` if either fails to evaluate.
fn both(p: &Prepared, g: &Growth, growing: &[&str]) -> Option<(Evaluation, Evaluation)> {
    let n = g.n;
    let rf = rel_of(n, &g.rf, 0, false);
    let rfinit = EventSet::from_iter(
        n,
        (0..n).filter(|&e| g.rfinit.get(e % g.rfinit.len()) == Some(&true)),
    );
    let asmo = rel_of(n, &g.asmo, 1, true);
    let small_rf = if growing.contains(&"rf") {
        sub_rel(&rf, &g.keep_rf)
    } else {
        rf.clone()
    };
    let small_rfinit = if growing.contains(&"RFINIT") {
        sub_set(&rfinit, &g.keep_rfinit)
    } else {
        rfinit.clone()
    };
    let full = p.evaluate(&dyn_env(n, &rf, &rfinit, &asmo)).ok()?;
    let part = p
        .evaluate(&dyn_env(n, &small_rf, &small_rfinit, &asmo))
        .ok()?;
    Some((full, part))
}

/// The property itself: a check reported monotone that fails on the partial
/// assignment fails on the full one. Returns how many checks it exercised
/// (reported monotone and failing on the partial assignment).
fn assert_sound(p: &Prepared, g: &Growth, growing: &[&str], what: &str) -> usize {
    let mono = p.monotone_checks(growing);
    let Some((full, part)) = both(p, g, growing) else {
        return 0;
    };
    let mut exercised = 0;
    for ((m, f), s) in mono.iter().zip(&full.checks).zip(&part.checks) {
        if *m && !s.passed {
            exercised += 1;
            assert!(
                !f.passed,
                "{what}: check {} reported monotone in {growing:?} fails on a partial \
                 assignment but passes on its completion ({g:?})",
                f.name
            );
        }
    }
    exercised
}

const GROWINGS: &[&[&str]] = &[&["rf"], &["RFINIT"], &["rf", "RFINIT"]];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn vulkan_pruning_is_sound(g in growth(4), k in 0..GROWINGS.len()) {
        let model = crate::model::load("vulkan").expect("loads").cat;
        let env = static_env(&model, g.n, &g.statics);
        let p = model.prepare(&env, DYNAMIC).expect("prepares");
        assert_sound(&p, &g, GROWINGS[k], "vulkan");
    }
}

// ---------------------------------------------------------------------------
// Random models
// ---------------------------------------------------------------------------

/// Random relation expressions over `leaves`, with every operator, calls of
/// monotone, antitone and non-monotone functions, `let ... in` and closures.
pub(in crate::cat) fn rel_expr(leaves: Vec<&'static str>) -> impl Strategy<Value = String> {
    let sets = prop::sample::select(vec!["RFINIT", "W", "R", "_", "{}"]).prop_map(String::from);
    prop::sample::select(leaves)
        .prop_map(String::from)
        .prop_recursive(4, 24, 2, move |inner| {
            let set_e = prop_oneof![
                sets.clone(),
                (sets.clone(), sets.clone(), 0..3usize)
                    .prop_map(|(a, b, k)| format!("({a}) {} ({b})", ["|", "&", "\\"][k])),
                inner.clone().prop_map(|r| format!("domain({r})")),
                inner.clone().prop_map(|r| format!("range({r})")),
                sets.clone().prop_map(|a| format!("~({a})")),
            ];
            prop_oneof![
                4 => (inner.clone(), inner.clone(), 0..5usize)
                    .prop_map(|(a, b, k)| format!("({a}) {} ({b})", ["|", ";", "\\", "&", "|"][k])),
                2 => (inner.clone(), 0..4usize)
                    .prop_map(|(a, k)| format!("({a}){}", ["+", "*", "?", "^-1"][k])),
                1 => inner.clone().prop_map(|a| format!("~({a})")),
                1 => set_e.clone().prop_map(|s| format!("[{s}]")),
                1 => (set_e.clone(), set_e).prop_map(|(a, b)| format!("({a}) * ({b})")),
                2 => (inner.clone(), 0..5usize).prop_map(|(a, k)| match k {
                    0 => format!("sq({a})"),
                    1 => format!("neg({a})"),
                    2 => format!("imm({a})"),
                    3 => format!("app(sq, {a})"),
                    _ => format!("app(neg, {a})"),
                }),
                1 => (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| format!("(let t = {a} in t ; ({b}))")),
                1 => (inner.clone(), inner)
                    .prop_map(|(a, b)| format!("(let h = fun z -> z \\ ({a}) in h({b}))")),
            ]
        })
}

/// Random models: a few bindings (plain, recursive) and checks of every
/// kind, some negated or flags.
pub(in crate::cat) fn random_model() -> impl Strategy<Value = String> {
    let plain = rel_expr(vec!["rf", "po", "asmo", "id", "0", "[RFINIT]"]);
    let with_x = rel_expr(vec!["rf", "po", "asmo", "id", "x"]);
    let with_y = rel_expr(vec!["rf", "po", "x", "y", "[RFINIT]"]);
    let checked = rel_expr(vec!["rf", "po", "asmo", "x", "y", "z", "[RFINIT]"]);
    // parenthesized: `e*` followed by `~acyclic` would read as a product
    let check = (checked, 0..8usize).prop_map(|(e, k)| match k {
        0 | 1 => format!("acyclic ({e})"),
        2 => format!("irreflexive ({e})"),
        3 => format!("empty ({e})"),
        4 => format!("empty domain({e}) & RFINIT"),
        5 => format!("~acyclic ({e})"),
        6 => format!("flag ~empty ({e})"),
        _ => format!("empty ({e}) \\ id"),
    });
    (
        plain,
        with_x,
        with_y,
        0..3usize,
        prop::collection::vec(check, 1..5),
    )
        .prop_map(|(a, b, c, k, checks)| {
            let z = match k {
                0 => format!("let z = ({c})"),
                1 => format!("let rec z = ({c}) | (z ; z)"),
                _ => "let rec z = (rf | po) \\ (z ; z)".to_string(),
            };
            format!(
                "let sq(r) = r ; r\n\
                 let neg(r) = po \\ r\n\
                 let imm(r) = r \\ (r ; r+)\n\
                 let app(f, r) = f(r)\n\
                 let x = ({a})\n\
                 let rec y = ({b}) | (y ; y)\n\
                 {z}\n\
                 {}",
                checks.join("\n")
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_model_pruning_is_sound(
        src in random_model(),
        g in growth(4),
        k in 0..GROWINGS.len(),
    ) {
        let model = Model::parse("t.cat", &src, &no_include);
        prop_assert!(model.is_ok(), "{}: {:?}", src, model.err());
        let model = model.unwrap();
        let n = g.n;
        let mut env = Env::new(n);
        env.rel("po", rel_of(n, &g.statics, 0, false));
        env.set("W", EventSet::from_iter(n, (0..n).filter(|e| e % 2 == 0)));
        env.set("R", EventSet::from_iter(n, (0..n).filter(|e| e % 2 == 1)));
        let p = model.prepare(&env, DYNAMIC);
        prop_assert!(p.is_ok(), "{}: {:?}", src, p.err());
        assert_sound(&p.unwrap(), &g, GROWINGS[k], &src);
    }
}

/// The random models do exercise the property: some checks are reported
/// monotone and fail on the partial assignment, and some are not monotone.
#[test]
fn random_models_exercise_the_property() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha),
    );
    let (mut exercised, mut monotone, mut other) = (0, 0, 0);
    for _ in 0..200 {
        let src = random_model()
            .new_tree(&mut runner)
            .expect("tree")
            .current();
        let g = growth(4).new_tree(&mut runner).expect("tree").current();
        let model = Model::parse("t.cat", &src, &no_include).expect("parses");
        let n = g.n;
        let mut env = Env::new(n);
        env.rel("po", rel_of(n, &g.statics, 0, false));
        env.set("W", EventSet::from_iter(n, (0..n).filter(|e| e % 2 == 0)));
        env.set("R", EventSet::from_iter(n, (0..n).filter(|e| e % 2 == 1)));
        let p = model.prepare(&env, DYNAMIC).expect("prepares");
        for m in p.monotone_checks(&["rf", "RFINIT"]) {
            if m {
                monotone += 1;
            } else {
                other += 1;
            }
        }
        exercised += assert_sound(&p, &g, &["rf", "RFINIT"], &src);
    }
    assert!(exercised >= 20, "only {exercised} checks exercised");
    assert!(
        monotone >= 50 && other >= 50,
        "{monotone} monotone, {other} not"
    );
}

#[test]
fn values_are_relations_where_expected() {
    // the helpers build what the models expect
    let model = crate::model::load("vulkan").expect("loads").cat;
    let env = static_env(&model, 2, &[true]);
    assert!(matches!(env.get("po"), Some(Value::Rel(_))));
    assert!(matches!(env.get("DSC0"), Some(Value::Set(_))));
    assert!(env.get("rf").is_none());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The analyses a model keeps ([`Prepared::monotone_checks`] serves a
    /// repeated question from the model's cache) answer what a fresh
    /// analysis on a newly parsed model answers: across tests of other
    /// sizes and contents, and across questions about other growing names
    /// asked of the same model in turn.
    #[test]
    fn kept_polarities_equal_a_fresh_analysis(
        src in random_model(),
        first in (1..5usize, proptest::collection::vec(any::<bool>(), 1..12), 0..GROWINGS.len()),
        second in (1..5usize, proptest::collection::vec(any::<bool>(), 1..12), 0..GROWINGS.len()),
    ) {
        let parse = || Model::parse("t.cat", &src, &no_include).unwrap();
        let kept = parse();
        for (n, bits, k) in [first, second] {
            let env = static_env(&kept, n, &bits);
            let (Ok(a), Ok(b)) = (kept.prepare(&env, DYNAMIC), parse().prepare(&env, DYNAMIC)) else {
                continue;
            };
            prop_assert_eq!(a.monotone_checks(GROWINGS[k]), b.monotone_checks(GROWINGS[k]), "{}", src);
        }
    }
}

/// The built-in Vulkan model asked twice on different tests gives the
/// answer of a fresh analysis each time, and the second answer comes from
/// the model's cache (one entry per question).
#[test]
fn the_vulkan_model_keeps_one_analysis_per_question() {
    let fresh = || {
        crate::model::load("vulkan")
            .expect("built-in model loads")
            .cat
    };
    let kept = fresh();
    for (n, bits) in [(3, [true, false, false]), (4, [false, true, true])] {
        let env = static_env(&kept, n, &bits);
        let a = kept.prepare(&env, DYNAMIC).expect("prepares");
        let b = fresh().prepare(&env, DYNAMIC).expect("prepares");
        assert_eq!(
            a.monotone_checks(&["rf", "RFINIT"]),
            b.monotone_checks(&["rf", "RFINIT"])
        );
    }
    assert_eq!(kept.kept_polarity_analyses(), 1);
}
