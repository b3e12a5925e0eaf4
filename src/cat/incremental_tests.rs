//! Incremental evaluation ([`Prepared::evaluate_lazily_from`] and the plan
//! and full forms) against evaluation from scratch: on random sequences of
//! neighbouring environments (a few pairs of `rf`/`co`/`asmo`/`RFINIT`
//! flipped between steps, sometimes none), each step evaluated from the
//! previous step's evaluation and from scratch, in a random form (full,
//! lazy, a plan of random checks), must give the same check results
//! (flags included), the same statements run and the same final binding of
//! every name. Lazy evaluations that stopped at a failing check followed by
//! ones that go further, and plans followed by full evaluations, come from
//! the random forms. Models: every built-in one (the Vulkan and OpenCL
//! models among them) and random ones with `let rec`, functions (one of
//! them reading `rf` in its body, so that it is rebuilt when `rf`
//! changes), flags and negated checks.

use super::specialise::tests::{built_in_statics, fill, value_eq};
use super::{Env, Evaluation, Model, Prepared};
use proptest::prelude::*;

fn no_include(_: &str) -> Option<(String, String)> {
    None
}

/// How one step is evaluated: 0 full, 1 lazy, 2 a plan of the checks
/// whose bit is set in the mask.
#[derive(Clone, Copy, Debug)]
struct Form(u8, u64);

fn form() -> impl Strategy<Value = Form> {
    (0..3u8, any::<u64>()).prop_map(|(k, m)| Form(k, m))
}

fn run(
    p: &Prepared,
    names: &[&str],
    env: &Env,
    form: Form,
    previous: Option<Option<&Evaluation>>,
) -> Option<Evaluation> {
    let r = match form.0 {
        1 => {
            let stages = p.lazy_stages(names)?;
            match previous {
                Some(prev) => p.evaluate_lazily_from(env, &stages, prev),
                None => p.evaluate_lazily(env, &stages),
            }
        }
        2 => {
            let n = p.evaluate(env).map_or(0, |e| e.checks.len());
            let wanted: Vec<bool> = (0..n).map(|c| form.1 >> (c % 64) & 1 == 1).collect();
            let plan = p.plan_for(&wanted);
            match previous {
                Some(prev) => p.evaluate_only_from(env, &plan, prev),
                None => p.evaluate_only(env, &plan),
            }
        }
        _ => match previous {
            Some(prev) => p.evaluate_from(env, prev),
            None => p.evaluate(env),
        },
    };
    r.ok()
}

/// Evaluates `steps` in turn incrementally and from scratch and asserts
/// that both agree at every step; returns how many statements were reused
/// over the sequence.
fn agree_along(
    model: &Model,
    p: &Prepared,
    dyn_names: &[String],
    n: usize,
    steps: &[(Vec<bool>, Form)],
) -> usize {
    let names: Vec<&str> = model.prog.final_slots.keys().map(String::as_str).collect();
    let mut last: Option<Evaluation> = None;
    let mut reused = 0;
    for (i, (bits, form)) in steps.iter().enumerate() {
        let mut env = Env::new(n);
        fill(&mut env, dyn_names, n, bits);
        let scratch = run(p, &names, &env, *form, None);
        let incr = run(p, &names, &env, *form, Some(last.as_ref()));
        match (&scratch, &incr) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                assert_eq!(a.checks, b.checks, "step {i} ({form:?}): checks");
                assert_eq!(a.statements(), b.statements(), "step {i}: statements run");
                let fa: Vec<_> = a.flags().collect();
                let fb: Vec<_> = b.flags().collect();
                assert_eq!(fa, fb, "step {i}: flags");
                for name in &names {
                    assert!(
                        value_eq(a.lookup(name), b.lookup(name)),
                        "step {i} ({form:?}): `{name}`: {:?} / {:?}",
                        a.lookup(name),
                        b.lookup(name)
                    );
                }
                reused += b.reused();
            }
            (a, b) => panic!("step {i}: from scratch {a:?}, incremental {b:?}"),
        }
        // An error (or a form the model has no stages for) ends the chain:
        // the next step starts from scratch, as in the driver.
        last = incr;
    }
    reused
}

/// Neighbouring environments: each step flips the bits at a few positions
/// of the previous step's (none at all now and then).
fn walk(len: usize) -> impl Strategy<Value = Vec<(Vec<bool>, Form)>> {
    (
        prop::collection::vec(prop::bool::weighted(0.3), len),
        prop::collection::vec((prop::collection::vec(0..len, 0..4), form()), 2..8),
    )
        .prop_map(|(start, moves)| {
            let mut bits = start;
            moves
                .into_iter()
                .map(|(flips, f)| {
                    for k in flips {
                        bits[k] = !bits[k];
                    }
                    (bits.clone(), f)
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn built_in_models_incremental_as_from_scratch(
        k in 0..crate::model::BUILTIN.len(),
        n in 2..6usize,
        statics in prop::collection::vec(prop::bool::weighted(0.3), 1..200),
        steps in walk(60),
    ) {
        let model = crate::model::load(crate::model::BUILTIN[k].0).expect("loads").cat;
        let (names, s) = built_in_statics(&model, n, &statics);
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        if let Ok(p) = model.prepare(&s, &names) {
            agree_along(&model, &p, &dyn_names, n, &steps);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_models_incremental_as_from_scratch(
        src in super::polarity::tests::random_model(),
        n in 1..5usize,
        statics in prop::collection::vec(any::<bool>(), 1..40),
        steps in walk(40),
    ) {
        // A function reading `rf` in its body (rebuilt whenever `rf`
        // changes: a new closure, "changed") and a flag reading it.
        let src = format!(
            "{src}\nlet viarf(r) = r ; rf\nlet w = viarf(po) | x\nflag ~empty w & asmo as f\n\
             ~irreflexive (w ; y)"
        );
        let model = Model::parse("t.cat", &src, &no_include).expect("parses");
        let s = super::polarity::tests::static_env(&model, n, &statics);
        let names = ["rf", "asmo", "co", "RFINIT"];
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        if let Ok(p) = model.prepare(&s, &names) {
            agree_along(&model, &p, &dyn_names, n, &steps);
        }
    }
}

/// The early cutoff does cut: on the Vulkan model, a second evaluation of
/// the same environment reuses every statement, and one that changes only
/// `asmo` (read by few statements) reuses most of them.
#[test]
fn unchanged_inputs_are_reused() {
    let model = crate::model::load("vulkan").expect("loads").cat;
    let n = 4;
    let (names, s) = built_in_statics(&model, n, &[false, true, false, false, true]);
    let p = model.prepare(&s, &names).expect("prepares");
    let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
    let mut d = Env::new(n);
    fill(&mut d, &dyn_names, n, &[false, true, false]);
    let first = p.evaluate_from(&d, None).expect("evaluates");
    assert_eq!(first.reused(), 0);
    let again = p.evaluate_from(&d, Some(&first)).expect("evaluates");
    assert_eq!(again.reused(), again.statements());
    assert!(again.statements() > 0);
    // Evaluated without recording: cannot serve as a previous evaluation.
    let plain = p.evaluate(&d).expect("evaluates");
    assert_eq!(
        p.evaluate_from(&d, Some(&plain))
            .expect("evaluates")
            .reused(),
        0
    );
}

/// Lazy evaluations that free each dynamic slot after its last use
/// (`LazyStages::dropping(true)`) against the oracle that keeps every slot
/// (`dropping(false)`), on random sequences of neighbouring environments:
/// each step is evaluated from scratch keeping every slot, from scratch
/// freeing, and from the previous step's evaluation in a random one of
/// the two (so that an evaluation starts from one that freed slots it
/// could otherwise have taken, and the other way round). All three give
/// the same check results (flags included), the same statements run and
/// the same final bindings of the names the question reads (`kept`, a
/// random subset of the model's names).
fn drops_agree_along(
    model: &Model,
    p: &Prepared,
    dyn_names: &[String],
    n: usize,
    steps: &[(Vec<bool>, Form)],
    mask: u64,
) {
    let all: Vec<&str> = {
        let mut v: Vec<&str> = model.prog.final_slots.keys().map(String::as_str).collect();
        v.sort_unstable();
        v
    };
    let kept: Vec<&str> = all
        .iter()
        .enumerate()
        .filter(|(k, _)| mask >> (k % 64) & 1 == 1)
        .map(|(_, name)| *name)
        .collect();
    let Some(stages) = p.lazy_stages(&kept) else {
        return;
    };
    let keep = stages.clone().dropping(false);
    let free = stages.dropping(true);
    let mut last: Option<Evaluation> = None;
    for (i, (bits, form)) in steps.iter().enumerate() {
        let mut env = Env::new(n);
        fill(&mut env, dyn_names, n, bits);
        let oracle = p.evaluate_lazily(&env, &keep).ok();
        let freed = p.evaluate_lazily(&env, &free).ok();
        let chained = if form.1 & 1 == 1 { &free } else { &keep };
        let incr = p.evaluate_lazily_from(&env, chained, last.as_ref()).ok();
        for (what, other) in [("freeing", &freed), ("incremental", &incr)] {
            match (&oracle, other) {
                (None, None) => {}
                (Some(a), Some(b)) => {
                    assert_eq!(a.checks, b.checks, "step {i} {what}: checks");
                    assert_eq!(a.statements(), b.statements(), "step {i} {what}: run");
                    if a.consistent() {
                        for name in &kept {
                            assert!(
                                value_eq(a.lookup(name), b.lookup(name)),
                                "step {i} {what}: `{name}`: {:?} / {:?}",
                                a.lookup(name),
                                b.lookup(name)
                            );
                        }
                    }
                }
                (a, b) => panic!("step {i} {what}: keeping {a:?}, {b:?}"),
            }
        }
        last = incr;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn built_in_models_freeing_slots_as_keeping_them(
        k in 0..crate::model::BUILTIN.len(),
        n in 2..6usize,
        statics in prop::collection::vec(prop::bool::weighted(0.3), 1..200),
        steps in walk(60),
        mask in any::<u64>(),
    ) {
        let model = crate::model::load(crate::model::BUILTIN[k].0).expect("loads").cat;
        let (names, s) = built_in_statics(&model, n, &statics);
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        if let Ok(p) = model.prepare(&s, &names) {
            drops_agree_along(&model, &p, &dyn_names, n, &steps, mask);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_models_freeing_slots_as_keeping_them(
        src in super::polarity::tests::random_model(),
        n in 1..5usize,
        statics in prop::collection::vec(any::<bool>(), 1..40),
        steps in walk(40),
        mask in any::<u64>(),
    ) {
        // Functions whose bodies read dynamic slots, called after those
        // slots' last direct read: the slots stay held while a function
        // that reads them may be called.
        let src = format!(
            "{src}\nlet viarf(r) = r ; rf\nlet d2 = rf ; rf\nlet late(r) = r & d2\n\
             let twice = late\nlet w = viarf(po) | x\nflag ~empty w & asmo as f\n\
             ~irreflexive (w ; y)\nlet v = twice(po | rf)\nempty v & asmo as late_check"
        );
        let model = Model::parse("t.cat", &src, &no_include).expect("parses");
        let s = super::polarity::tests::static_env(&model, n, &statics);
        let names = ["rf", "asmo", "co", "RFINIT"];
        let dyn_names: Vec<String> = names.iter().map(|x| x.to_string()).collect();
        if let Ok(p) = model.prepare(&s, &names) {
            drops_agree_along(&model, &p, &dyn_names, n, &steps, mask);
        }
    }
}

/// What freeing frees: a binding used only by an earlier one is gone after
/// a lazy evaluation that frees slots, one a function reads in its body
/// is held until the function's last call, and the names the question
/// reads stay. Small universes keep every slot by default.
#[test]
fn freeing_drops_dead_bindings_and_keeps_what_functions_read() {
    // Stages: `irr` (3 statements) first, then `never`: c, e, irr, b, f,
    // g, never. `b` is read directly only by `f`'s binding, but `g` calls
    // `f`: freed after `f`'s binding, `g` would read it unbound.
    let src = "let b = d ; d\nlet f(r) = r ; b\nlet c = d | d\nlet g = f(c)\n\
               empty g & ~g as never\nlet e = c & d\nirreflexive e as irr\n";
    let model = Model::parse("t.cat", src, &no_include).expect("parses");
    let n = 3;
    let p = model.prepare(&Env::new(n), &["d"]).expect("prepares");
    let stages = p.lazy_stages(&["e"]).expect("e is bound");
    assert!(!stages.drops_slots(), "3 events: every slot kept");
    let mut dy = Env::new(n);
    dy.rel(
        "d",
        crate::relation::Relation::from_pairs(n, [(0, 1), (1, 2)]),
    );
    let keep = p.evaluate_lazily(&dy, &stages).expect("evaluates");
    let free = p
        .evaluate_lazily(&dy, &stages.clone().dropping(true))
        .expect("evaluates: `b` is held until `g` calls `f`");
    assert!(keep.consistent() && free.consistent());
    assert_eq!(keep.checks, free.checks);
    // e = (d | d) & d = d, irreflexive; b = d ; d = {(0, 2)}.
    assert_eq!(free.lookup("e"), keep.lookup("e"));
    assert_eq!(free.lookup("e"), dy.get("d"));
    for name in ["b", "c", "g"] {
        assert!(keep.lookup(name).is_some(), "{name} kept");
        assert!(free.lookup(name).is_none(), "{name} freed");
    }
}
