//! Fraiging against brute force on small circuits: every assignment of the
//! inputs is tried, so "equal under the facts" is known exactly.

use super::*;
use proptest::prelude::*;

/// Every assignment of `inputs` satisfying `facts`, as the node values.
fn models(c: &Circuit, inputs: &[Lit], facts: &[Lit]) -> Vec<Values> {
    (0u32..1 << inputs.len())
        .map(|bits| {
            c.simulate(|l| {
                let i = inputs.iter().position(|&x| x == l).unwrap_or(0);
                bits >> i & 1 == 1
            })
        })
        .filter(|v| facts.iter().all(|&f| v.of(f)))
        .collect()
}

/// The solver holding `facts`, and the signatures of every assignment
/// satisfying them (exhaustive: nodes equal under the facts have one
/// signature).
fn setup(c: &Circuit, inputs: &[Lit], facts: &[Lit]) -> (Solver, Signatures, Vec<Values>) {
    let mut solver = Solver::new();
    for &f in facts {
        solver.assert(c, f);
    }
    let all = models(c, inputs, facts);
    let mut sigs = Signatures::new(c.len());
    for v in &all {
        sigs.add(v);
    }
    (solver, sigs, all)
}

/// Hand-built: `a & (b | c)` and `(a & b) | (a & c)` are equal everywhere
/// (distributivity: different gates, one function); `d & e` and `d` are
/// equal under the fact `d -> e` only, and `a & b & c` is false under the
/// fact that not all of `a`, `b`, `c` hold. Fraiging merges each
/// pair, so the rebuilt `iff`s fold to the constant true and the rebuilt
/// `a & b & c` to false: the roots show the merges without reading the
/// fraig's tables.
#[test]
fn equal_nodes_are_merged_under_the_facts() {
    let mut c = Circuit::new();
    let inputs: Vec<Lit> = (0..5).map(|_| c.input()).collect();
    let [a, b, cc, d, e] = inputs[..] else {
        unreachable!()
    };
    let bc = c.or(b, cc);
    let left = c.and(a, bc);
    let ab = c.and(a, b);
    let ac = c.and(a, cc);
    let right = c.or(ab, ac);
    let de = c.and(d, e);
    let abc = c.and(ab, cc);
    let r1 = c.iff(left, right);
    let r2 = c.iff(de, d);
    let f1 = c.implies(d, e);
    let f2 = !abc;
    let facts = [f1, f2];
    let from = 1 + inputs.len();
    let (mut solver, sigs, all) = setup(&c, &inputs, &facts);
    let roots = [r1, r2, abc, left];
    let (out, stats) = fraig(&mut c, &mut solver, &roots, from, &sigs, 1_000, None).unwrap();
    assert_eq!(out[0], Lit::TRUE, "{stats:?}");
    assert_eq!(out[1], Lit::TRUE, "{stats:?}");
    assert_eq!(out[2], Lit::FALSE, "{stats:?}");
    assert!(stats.proved > 0, "{stats:?}");
    // Not a constant: kept, with its value on every model.
    let after = models(&c, &inputs, &facts);
    assert_eq!(all.len(), after.len());
    for v in &after {
        assert_eq!(v.of(out[3]), v.of(left));
    }
}

/// With sides, the nodes both sides read are kept: `a & b` (the fact `a ->
/// b` makes it `a`) is read by `(a & b) & c` and by `(c & a) & (a & b)`,
/// and stays itself, while the unsided fraiging merges it into `a`; the
/// two sides, equal everywhere, are merged either way, so the `iff` of the
/// two folds to true.
#[test]
fn with_sides_the_shared_nodes_are_kept() {
    let mut c = Circuit::new();
    let inputs: Vec<Lit> = (0..3).map(|_| c.input()).collect();
    let [a, b, cc] = inputs[..] else {
        unreachable!()
    };
    let s = c.and(a, b);
    let left = c.and(s, cc);
    let ca = c.and(cc, a);
    let right = c.and(ca, s);
    let r = c.iff(left, right);
    let facts = [c.implies(a, b)];
    let from = 1 + inputs.len();
    let sides: (&[Lit], &[Lit]) = (&[left], &[right]);
    let (mut solver, sigs, _) = setup(&c, &inputs, &facts);
    let (out, stats) = fraig(
        &mut c,
        &mut solver,
        &[r, s],
        from,
        &sigs,
        1_000,
        Some(sides),
    )
    .unwrap();
    assert_eq!(out[0], Lit::TRUE, "{stats:?}");
    assert_eq!(out[1], s, "{stats:?}");
    let (mut solver, sigs, _) = setup(&c, &inputs, &facts);
    let (out, stats) = fraig(&mut c, &mut solver, &[r, s], from, &sigs, 1_000, None).unwrap();
    assert_eq!(out[0], Lit::TRUE, "{stats:?}");
    assert_eq!(out[1], a, "{stats:?}");
}

/// Without the facts, `d & e` and `d` differ (`d` true, `e` false): `d &
/// e` is kept, and the `iff` comparing them is not the constant true.
/// (Its gates `d & e & d` and `!(d & e) & !d` are merged into `d & e` and
/// `!d`, which they equal everywhere.)
#[test]
fn nodes_equal_only_under_other_facts_are_kept() {
    let mut c = Circuit::new();
    let inputs: Vec<Lit> = (0..2).map(|_| c.input()).collect();
    let (d, e) = (inputs[0], inputs[1]);
    let de = c.and(d, e);
    let r = c.iff(de, d);
    let (mut solver, sigs, all) = setup(&c, &inputs, &[]);
    let from = 1 + inputs.len();
    let (out, stats) = fraig(&mut c, &mut solver, &[de, r], from, &sigs, 1_000, None).unwrap();
    assert_eq!(out[0], de, "{stats:?}");
    assert_ne!(out[1], Lit::TRUE, "{stats:?}");
    assert_eq!(stats.proved, 2, "{stats:?}");
    let after = models(&c, &inputs, &[]);
    for (v, w) in after.iter().zip(&all) {
        assert_eq!(v.of(out[1]), w.of(r));
    }
}

/// A random circuit: `inputs` inputs, then `ops` gates, each the AND of two
/// earlier literals (either polarity), as `(i, j, negate i, negate j)`.
fn circuit(inputs: usize, ops: &[(usize, usize, bool, bool)]) -> (Circuit, Vec<Lit>, Vec<Lit>) {
    let mut c = Circuit::new();
    let ins: Vec<Lit> = (0..inputs).map(|_| c.input()).collect();
    let mut all = ins.clone();
    for &(i, j, ni, nj) in ops {
        let x = all[i % all.len()];
        let y = all[j % all.len()];
        let x = if ni { !x } else { x };
        let y = if nj { !y } else { y };
        let g = c.and(x, y);
        all.push(g);
    }
    (c, ins, all)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On random circuits under a random fact: every rebuilt root has its
    /// original's value under every assignment satisfying the fact
    /// (merging keeps every answer), and two nodes equal (or opposite)
    /// under the fact are rebuilt as one literal (or its negation): with
    /// signatures of every satisfying assignment, no equal pair is left
    /// out.
    #[test]
    fn fraiging_keeps_values_and_merges_every_equal_pair(
        ops in proptest::collection::vec((0usize..64, 0usize..64, any::<bool>(), any::<bool>()), 1..40),
        fact in 0usize..64,
        fact_neg in any::<bool>(),
    ) {
        let (mut c, inputs, all) = circuit(5, &ops);
        let f = all[fact % all.len()];
        let f = if fact_neg { !f } else { f };
        let facts = [f];
        let (mut solver, sigs, before) = setup(&c, &inputs, &facts);
        prop_assume!(!before.is_empty());
        // Inputs may be merged too (one the fact makes constant).
        let from = 1;
        let roots: Vec<Lit> = all.clone();
        let (out, _) = fraig(&mut c, &mut solver, &roots, from, &sigs, 100_000, None).unwrap();
        let after = models(&c, &inputs, &facts);
        prop_assert_eq!(before.len(), after.len());
        for v in &after {
            for (r, o) in roots.iter().zip(&out) {
                prop_assert_eq!(v.of(*r), v.of(*o));
            }
        }
        for (i, (ri, oi)) in roots.iter().zip(&out).enumerate() {
            for (rj, oj) in roots.iter().zip(&out).skip(i + 1) {
                if after.iter().all(|v| v.of(*ri) == v.of(*rj)) {
                    prop_assert_eq!(oi, oj);
                } else if after.iter().all(|v| v.of(*ri) != v.of(*rj)) {
                    prop_assert_eq!(*oi, !*oj);
                }
            }
        }
    }
}
