//! The partial evaluation against the plain staging: on random
//! environments, every built-in model and random models give the same
//! check results and the same final value of every binding, with and
//! without [`super`]'s rewriting (also when only the statements a plan
//! needs are run).

use crate::cat::polarity::tests::{random_model, static_env};
use crate::cat::{Env, Model, Value};
use crate::relation::{EventSet, Relation};
use proptest::prelude::*;

fn no_include(_: &str) -> Option<(String, String)> {
    None
}

/// Random contents for every name of `names` over `n` events from `bits`
/// (cycled); a name whose first bit is set is empty (the partial
/// evaluation's annihilation rules need empty static names).
pub(in crate::cat) fn fill(env: &mut Env, names: &[String], n: usize, bits: &[bool]) {
    let mut k = 0;
    let mut next = || {
        let b = bits.get(k % bits.len().max(1)).copied().unwrap_or(false);
        k += 1;
        b
    };
    for name in names {
        let empty = next();
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            let s = EventSet::from_iter(n, (0..n).filter(|_| !empty && next()));
            env.set(name, s);
        } else {
            let pairs: Vec<(usize, usize)> =
                (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect();
            let r = Relation::from_pairs(n, pairs.into_iter().filter(|_| !empty && next()));
            env.rel(name, r);
        }
    }
}

pub(in crate::cat) fn value_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        // Closures compare by identity; both stagings create their own.
        (Some(Value::Func(_)), Some(Value::Func(_))) => true,
        (a, b) => a == b,
    }
}

/// Asserts that both stagings of `model` agree on `statics` + `dynamic`.
fn agree(model: &Model, statics: &Env, dynamic_names: &[&str], dynamic: &Env) {
    let (a, b) = match (
        model.prepare(statics, dynamic_names),
        model.prepare_unspecialised(statics, dynamic_names),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(_), Err(_)) => return,
        (a, b) => panic!("prepare: {:?} / {:?}", a.err(), b.err()),
    };
    let (x, y) = match (a.evaluate(dynamic), b.evaluate(dynamic)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(_), Err(_)) => return,
        (x, y) => panic!("evaluate: {:?} / {:?}", x.err(), y.err()),
    };
    let passed = |e: &crate::cat::Evaluation| e.checks.iter().map(|c| c.passed).collect::<Vec<_>>();
    assert_eq!(passed(&x), passed(&y), "check results");
    for name in model.prog.final_slots.keys() {
        assert!(
            value_eq(x.lookup(name), y.lookup(name)),
            "`{name}`: {:?} / {:?}",
            x.lookup(name),
            y.lookup(name)
        );
    }
    // Only the statements the checks need.
    let wanted = vec![true; x.checks.len()];
    let (px, py) = (a.plan_for(&wanted), b.plan_for(&wanted));
    let (x, y) = (
        a.evaluate_only(dynamic, &px).expect("as whole"),
        b.evaluate_only(dynamic, &py).expect("as whole"),
    );
    assert_eq!(passed(&x), passed(&y), "check results of the plans");
}

/// The engine's dynamic names a built-in model reads.
fn engine_dynamic(model: &Model) -> Vec<&'static str> {
    let free = model.free_names();
    crate::engine::names::DYNAMIC_NAMES
        .iter()
        .copied()
        .filter(|d| free.iter().any(|f| f == d))
        .collect()
}

/// The engine's dynamic names a built-in model reads, and an environment
/// of random contents ([`fill`]) for the other names it reads.
pub(in crate::cat) fn built_in_statics(
    model: &Model,
    n: usize,
    bits: &[bool],
) -> (Vec<&'static str>, Env) {
    let names = engine_dynamic(model);
    let mut s = Env::new(n);
    let static_names: Vec<String> = model
        .free_names()
        .into_iter()
        .filter(|f| !names.contains(&f.as_str()))
        .collect();
    fill(&mut s, &static_names, n, bits);
    (names, s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn built_in_models_agree(
        k in 0..crate::model::BUILTIN.len(),
        n in 2..7usize,
        statics in prop::collection::vec(prop::bool::weighted(0.3), 1..200),
        dynamic in prop::collection::vec(prop::bool::weighted(0.3), 1..60),
    ) {
        let model = crate::model::load(crate::model::BUILTIN[k].0).expect("loads").cat;
        let (names, s) = built_in_statics(&model, n, &statics);
        let mut d = Env::new(n);
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        fill(&mut d, &dyn_names, n, &dynamic);
        agree(&model, &s, &names, &d);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_models_agree(
        src in random_model(),
        n in 1..6usize,
        statics in prop::collection::vec(any::<bool>(), 1..40),
        dynamic in prop::collection::vec(prop::bool::weighted(0.4), 1..40),
    ) {
        let model = Model::parse("t.cat", &src, &no_include).expect("parses");
        let s = static_env(&model, n, &statics);
        let names = ["rf", "asmo", "co", "RFINIT"];
        let mut d = Env::new(n);
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        fill(&mut d, &dyn_names, n, &dynamic);
        agree(&model, &s, &names, &d);
    }
}

#[test]
fn static_parts_are_folded_and_empty_operands_annihilate() {
    // `x` reads the dynamic `rf`, but `[E]` is empty in this test: `x` is
    // known without `rf`, so it is static after the partial evaluation,
    // and so is the check that reads only `x`.
    let src =
        "let f(s) = [s] ; rf\nlet x = f(E) | (po ; [E])\nacyclic x as ax\nacyclic rf | po as arf";
    let model = Model::parse("t.cat", src, &no_include).expect("parses");
    let mut s = Env::new(3);
    s.set("E", EventSet::empty(3));
    s.rel("po", Relation::from_pairs(3, [(0, 1), (1, 2)]));
    let p = model.prepare(&s, &["rf"]).expect("prepares");
    assert_eq!(p.is_static("x"), Some(true));
    // f's definition and the check of rf | po remain per execution.
    assert_eq!(p.dynamic_statements(), 2);
    let plain = model.prepare_unspecialised(&s, &["rf"]).expect("prepares");
    assert_eq!(plain.is_static("x"), Some(false));
    assert_eq!(plain.dynamic_statements(), 4);
    // With E non-empty, x depends on rf.
    s.set("E", EventSet::from_iter(3, [0]));
    let p = model.prepare(&s, &["rf"]).expect("prepares");
    assert_eq!(p.is_static("x"), Some(false));
}
