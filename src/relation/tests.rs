//! Unit tests and property tests for [`EventSet`] and [`Relation`]: every
//! operation is compared against a naive reference model built on
//! `BTreeSet<(usize, usize)>` / `BTreeSet<usize>`.

use super::{EventSet, Relation};
use proptest::prelude::*;
use std::collections::{BTreeSet, VecDeque};

type RefRel = BTreeSet<(usize, usize)>;
type RefSet = BTreeSet<usize>;

// ---------------------------------------------------------------------------
// Reference model
// ---------------------------------------------------------------------------

fn rel(n: usize, r: &RefRel) -> Relation {
    Relation::from_pairs(n, r.iter().copied())
}

fn set(n: usize, s: &RefSet) -> EventSet {
    EventSet::from_iter(n, s.iter().copied())
}

fn ref_of(r: &Relation) -> RefRel {
    r.pairs().collect()
}

fn ref_of_set(s: &EventSet) -> RefSet {
    s.iter().collect()
}

fn all_pairs(n: usize) -> RefRel {
    (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).collect()
}

/// The successors of `a` in the reference relation `r`.
fn ref_succ(r: &RefRel, a: usize) -> impl Iterator<Item = usize> + '_ {
    r.range((a, 0)..=(a, usize::MAX)).map(|p| p.1)
}

fn ref_compose(r: &RefRel, s: &RefRel) -> RefRel {
    let mut out = RefRel::new();
    for &(a, b) in r {
        for c in ref_succ(s, b) {
            out.insert((a, c));
        }
    }
    out
}

fn ref_inverse(r: &RefRel) -> RefRel {
    r.iter().map(|&(a, b)| (b, a)).collect()
}

fn ref_identity_on(s: &RefSet) -> RefRel {
    s.iter().map(|&e| (e, e)).collect()
}

/// Transitive closure: `(a, b)` iff `b` is reachable from `a` in one or more steps.
fn ref_transitive_closure(n: usize, r: &RefRel) -> RefRel {
    let mut out = RefRel::new();
    for a in 0..n {
        let mut seen = RefSet::new();
        let mut todo: Vec<usize> = ref_succ(r, a).collect();
        while let Some(b) = todo.pop() {
            if seen.insert(b) {
                todo.extend(ref_succ(r, b));
            }
        }
        out.extend(seen.into_iter().map(|b| (a, b)));
    }
    out
}

fn ref_reflexive_closure(n: usize, r: &RefRel) -> RefRel {
    let mut out = r.clone();
    out.extend((0..n).map(|e| (e, e)));
    out
}

fn ref_is_acyclic(n: usize, r: &RefRel) -> bool {
    ref_transitive_closure(n, r).iter().all(|&(a, b)| a != b)
}

/// Length of a shortest cycle: the least `k` with a reflexive pair in `r^k`.
fn ref_shortest_cycle(n: usize, r: &RefRel) -> Option<usize> {
    let mut cur = r.clone();
    for k in 1..=n {
        if cur.iter().any(|&(a, b)| a == b) {
            return Some(k);
        }
        if cur.is_empty() {
            return None;
        }
        cur = ref_compose(&cur, r);
    }
    None
}

/// Checks that `got` is exactly `want`, both observably and structurally
/// (padding bits must be clear, so equality with a freshly built relation holds).
fn assert_rel(n: usize, got: &Relation, want: &RefRel) {
    assert_eq!(got.universe(), n);
    assert_eq!(&ref_of(got), want);
    assert_eq!(got, &rel(n, want));
    assert_eq!(got.count(), want.len());
    assert_eq!(got.is_empty(), want.is_empty());
}

fn assert_set(n: usize, got: &EventSet, want: &RefSet) {
    assert_eq!(got.universe(), n);
    assert_eq!(&ref_of_set(got), want);
    assert_eq!(got, &set(n, want));
    assert_eq!(got.count(), want.len());
    assert_eq!(got.is_empty(), want.is_empty());
}

// ---------------------------------------------------------------------------
// Unit tests
// ---------------------------------------------------------------------------

#[test]
fn empty_universe() {
    let r = Relation::empty(0);
    assert!(r.is_empty());
    assert_eq!(r.count(), 0);
    assert!(r.is_acyclic());
    assert!(r.is_irreflexive());
    assert!(r.is_transitive());
    assert_eq!(r.find_cycle(), None);
    assert_eq!(Relation::full(0), r);
    assert_eq!(Relation::identity(0), r);
    assert_eq!(r.complement(), r);
    assert_eq!(r.transitive_closure(), r);
    assert!(r.domain().is_empty());
    assert!(r.range().is_empty());
    let s = EventSet::full(0);
    assert!(s.is_empty());
    assert_eq!(s.complement(), s);
}

#[test]
fn word_boundaries() {
    for n in [1, 63, 64, 65, 127, 128, 129] {
        let full = Relation::full(n);
        assert_eq!(full.count(), n * n, "n = {n}");
        assert_eq!(Relation::identity(n).count(), n);
        assert_eq!(full.complement(), Relation::empty(n));
        assert_eq!(Relation::empty(n).complement(), full);
        assert_eq!(EventSet::full(n).count(), n);
        assert_eq!(EventSet::empty(n).complement(), EventSet::full(n));
        let last = n - 1;
        let mut r = Relation::empty(n);
        r.insert(last, last);
        assert!(r.contains(last, last));
        assert!(!r.contains(last, n));
        assert!(!r.contains(n, last));
        assert_eq!(r.find_cycle(), Some(vec![last]));
        r.remove(last, last);
        assert!(r.is_empty());
    }
}

#[test]
fn chain_closure_and_immediate() {
    let n = 70;
    let chain = Relation::from_pairs(n, (0..n - 1).map(|i| (i, i + 1)));
    let tc = chain.transitive_closure();
    assert_eq!(tc.count(), n * (n - 1) / 2);
    assert!(tc.contains(0, 69));
    assert!(!tc.contains(69, 0));
    assert!(tc.is_transitive());
    assert!(!chain.is_transitive());
    assert_eq!(tc.immediate(), chain);
    assert!(chain.is_acyclic());
    let mut cyc = chain.clone();
    cyc.insert(69, 0);
    assert!(!cyc.is_acyclic());
    assert_eq!(cyc.find_cycle().map(|c| c.len()), Some(70));
    assert_eq!(cyc.transitive_closure(), Relation::full(n));
}

#[test]
fn find_cycle_prefers_shortest() {
    let r = Relation::from_pairs(6, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 4)]);
    let c = r.find_cycle().expect("cyclic");
    assert_eq!(c.len(), 2);
    assert!(c.contains(&4) && c.contains(&5));
}

#[test]
fn successors_predecessors() {
    let r = Relation::from_pairs(66, [(0, 65), (1, 65), (65, 0)]);
    assert_eq!(r.successors(0), EventSet::from_iter(66, [65]));
    assert_eq!(r.predecessors(65), EventSet::from_iter(66, [0, 1]));
    assert_eq!(r.predecessors(3), EventSet::empty(66));
}

#[test]
fn product_and_identity() {
    let s = EventSet::from_iter(5, [0, 2]);
    let t = EventSet::from_iter(5, [1, 4]);
    let p = Relation::product(&s, &t);
    assert_eq!(ref_of(&p), RefRel::from([(0, 1), (0, 4), (2, 1), (2, 4)]));
    assert_eq!(p.domain(), s);
    assert_eq!(p.range(), t);
    assert_eq!(
        ref_of(&Relation::identity_on(&s)),
        RefRel::from([(0, 0), (2, 2)])
    );
}

#[test]
fn set_basics() {
    let mut s = EventSet::empty(130);
    s.insert(0);
    s.insert(64);
    s.insert(129);
    assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 64, 129]);
    assert!(s.contains(64));
    assert!(!s.contains(130));
    s.remove(64);
    assert_eq!(s.count(), 2);
    assert_eq!(s.complement().count(), 128);
    assert!(s.is_subset(&EventSet::full(130)));
    assert!(!EventSet::full(130).is_subset(&s));
}

// ---------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------

/// A random relation over `0..n`: sparse, DAG-shaped, or dense.
fn arb_rel(n: usize) -> BoxedStrategy<RefRel> {
    if n == 0 {
        return Just(RefRel::new()).boxed();
    }
    let sparse = prop::collection::vec((0..n, 0..n), 0..=(2 * n).min(n * n))
        .prop_map(|v| v.into_iter().collect::<RefRel>());
    let dag = prop::collection::vec((0..n, 0..n), 0..=(3 * n)).prop_map(|v| {
        v.into_iter()
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect::<RefRel>()
    });
    // A DAG plus a few arbitrary edges: often cyclic with long cycles.
    let dag_plus =
        (dag.clone(), prop::collection::vec((0..n, 0..n), 0..3)).prop_map(|(mut d, extra)| {
            d.extend(extra);
            d
        });
    let dense = prop::collection::vec(prop::bool::weighted(0.4), n * n).prop_map(move |bits| {
        bits.iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| (i / n, i % n))
            .collect::<RefRel>()
    });
    prop_oneof![3 => sparse, 3 => dag, 2 => dag_plus, 1 => dense].boxed()
}

fn arb_set(n: usize) -> BoxedStrategy<RefSet> {
    prop::collection::vec(any::<bool>(), n)
        .prop_map(|bits| {
            bits.iter()
                .enumerate()
                .filter(|(_, b)| **b)
                .map(|(i, _)| i)
                .collect()
        })
        .boxed()
}

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    r: RefRel,
    s: RefRel,
    a: RefSet,
    b: RefSet,
}

fn arb_case() -> impl Strategy<Value = Case> {
    prop_oneof![0usize..=70, 60usize..=70].prop_flat_map(|n| {
        (arb_rel(n), arb_rel(n), arb_set(n), arb_set(n)).prop_map(move |(r, s, a, b)| Case {
            n,
            r,
            s,
            a,
            b,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn prop_set_ops(c in arb_case()) {
        let (n, a, b) = (c.n, &c.a, &c.b);
        let (sa, sb) = (set(n, a), set(n, b));
        assert_set(n, &sa, a);
        assert_set(n, &sa.union(&sb), &a.union(b).copied().collect());
        assert_set(n, &sa.inter(&sb), &a.intersection(b).copied().collect());
        assert_set(n, &sa.diff(&sb), &a.difference(b).copied().collect());
        let comp: RefSet = (0..n).filter(|e| !a.contains(e)).collect();
        assert_set(n, &sa.complement(), &comp);
        prop_assert_eq!(sa.is_subset(&sb), a.is_subset(b));
        prop_assert!(sa.inter(&sb).is_subset(&sa));
        for e in 0..n + 2 {
            prop_assert_eq!(sa.contains(e), a.contains(&e));
        }
        let mut m = sa.clone();
        for &e in b {
            m.insert(e);
        }
        assert_set(n, &m, &a.union(b).copied().collect());
        for &e in b {
            m.remove(e);
        }
        assert_set(n, &m, &a.difference(b).copied().collect());
    }

    #[test]
    fn prop_boolean_ops(c in arb_case()) {
        let n = c.n;
        let (r, s) = (rel(n, &c.r), rel(n, &c.s));
        assert_rel(n, &r, &c.r);
        assert_rel(n, &r.union(&s), &c.r.union(&c.s).copied().collect());
        assert_rel(n, &r.inter(&s), &c.r.intersection(&c.s).copied().collect());
        assert_rel(n, &r.diff(&s), &c.r.difference(&c.s).copied().collect());
        assert_rel(n, &r.complement(), &all_pairs(n).difference(&c.r).copied().collect());
        assert_rel(n, &r.complement().complement(), &c.r);
        let mut u = r.clone();
        u.union_with(&s);
        assert_rel(n, &u, &c.r.union(&c.s).copied().collect());
        prop_assert_eq!(r.is_subset(&s), c.r.is_subset(&c.s));
        prop_assert!(r.inter(&s).is_subset(&r));
        prop_assert!(r.is_subset(&r.union(&s)));
        for a in 0..n + 1 {
            for b in 0..n + 1 {
                prop_assert_eq!(r.contains(a, b), c.r.contains(&(a, b)));
            }
        }
        let mut m = r.clone();
        for &(a, b) in &c.s {
            m.remove(a, b);
        }
        assert_rel(n, &m, &c.r.difference(&c.s).copied().collect());
    }

    #[test]
    fn prop_compose_inverse(c in arb_case()) {
        let n = c.n;
        let (r, s) = (rel(n, &c.r), rel(n, &c.s));
        assert_rel(n, &r.compose(&s), &ref_compose(&c.r, &c.s));
        assert_rel(n, &r.inverse(), &ref_inverse(&c.r));
        assert_rel(n, &r.inverse().inverse(), &c.r);
        let id = Relation::identity(n);
        assert_rel(n, &r.compose(&id), &c.r);
        assert_rel(n, &id.compose(&r), &c.r);
    }

    #[test]
    fn prop_closures(c in arb_case()) {
        let n = c.n;
        let r = rel(n, &c.r);
        let tc = ref_transitive_closure(n, &c.r);
        assert_rel(n, &r.transitive_closure(), &tc);
        assert_rel(n, &r.reflexive_closure(), &ref_reflexive_closure(n, &c.r));
        assert_rel(n, &r.reflexive_transitive_closure(), &ref_reflexive_closure(n, &tc));
        prop_assert!(r.transitive_closure().is_transitive());
    }

    #[test]
    fn prop_sets_and_relations(c in arb_case()) {
        let n = c.n;
        let r = rel(n, &c.r);
        let (sa, sb) = (set(n, &c.a), set(n, &c.b));
        assert_rel(n, &Relation::identity_on(&sa), &ref_identity_on(&c.a));
        assert_rel(n, &Relation::identity(n), &ref_identity_on(&(0..n).collect()));
        assert_rel(n, &Relation::full(n), &all_pairs(n));
        assert_rel(n, &Relation::empty(n), &RefRel::new());
        let prod: RefRel = c.a.iter().flat_map(|&x| c.b.iter().map(move |&y| (x, y))).collect();
        assert_rel(n, &Relation::product(&sa, &sb), &prod);
        assert_set(n, &r.domain(), &c.r.iter().map(|p| p.0).collect());
        assert_set(n, &r.range(), &c.r.iter().map(|p| p.1).collect());
        let rd: RefRel = c.r.iter().filter(|p| c.a.contains(&p.0)).copied().collect();
        let rr: RefRel = c.r.iter().filter(|p| c.a.contains(&p.1)).copied().collect();
        assert_rel(n, &r.restrict_domain(&sa), &rd);
        assert_rel(n, &r.restrict_range(&sa), &rr);
        for e in 0..n {
            assert_set(n, &r.successors(e), &c.r.iter().filter(|p| p.0 == e).map(|p| p.1).collect());
            assert_set(n, &r.predecessors(e), &c.r.iter().filter(|p| p.1 == e).map(|p| p.0).collect());
        }
    }

    #[test]
    fn prop_predicates(c in arb_case()) {
        let n = c.n;
        let r = rel(n, &c.r);
        prop_assert_eq!(r.is_irreflexive(), c.r.iter().all(|&(a, b)| a != b));
        let acyclic = ref_is_acyclic(n, &c.r);
        prop_assert_eq!(r.is_acyclic(), acyclic);
        prop_assert_eq!(r.is_transitive(), ref_compose(&c.r, &c.r).is_subset(&c.r));
        prop_assert_eq!(r.count(), c.r.len());
        prop_assert_eq!(r.is_empty(), c.r.is_empty());
        let imm: RefRel = c
            .r
            .difference(&ref_compose(&c.r, &ref_transitive_closure(n, &c.r)))
            .copied()
            .collect();
        assert_rel(n, &r.immediate(), &imm);
    }

    #[test]
    fn prop_find_cycle(c in arb_case()) {
        let n = c.n;
        let r = rel(n, &c.r);
        let acyclic = ref_is_acyclic(n, &c.r);
        match r.find_cycle() {
            None => prop_assert!(acyclic, "no cycle reported for a cyclic relation"),
            Some(cycle) => {
                prop_assert!(!acyclic, "cycle reported for an acyclic relation");
                prop_assert!(!cycle.is_empty());
                let distinct: RefSet = cycle.iter().copied().collect();
                prop_assert_eq!(distinct.len(), cycle.len(), "cycle repeats an event");
                for i in 0..cycle.len() {
                    let (a, b) = (cycle[i], cycle[(i + 1) % cycle.len()]);
                    prop_assert!(c.r.contains(&(a, b)), "({}, {}) is not an edge", a, b);
                }
                prop_assert_eq!(Some(cycle.len()), ref_shortest_cycle(n, &c.r));
            }
        }
    }

    #[test]
    fn prop_cycle_queue_reference(c in arb_case()) {
        // Cross-check acyclicity with an independent Kahn-free method: repeatedly
        // strip sinks from the reference relation.
        let n = c.n;
        let mut live: RefSet = (0..n).collect();
        let mut queue: VecDeque<usize> = VecDeque::new();
        loop {
            queue.extend(live.iter().copied().filter(|&a| {
                !ref_succ(&c.r, a).any(|y| live.contains(&y))
            }));
            if queue.is_empty() {
                break;
            }
            while let Some(a) = queue.pop_front() {
                live.remove(&a);
            }
        }
        prop_assert_eq!(rel(n, &c.r).is_acyclic(), live.is_empty());
    }
}

/// `insert_range` sets the same bits as one insert per event, across word
/// boundaries (ranges chosen to start and end inside, at and past words).
#[test]
fn insert_range_sets_the_pairs_of_the_range() {
    let n = 200;
    for (lo, hi) in [
        (0, 0),
        (0, 64),
        (3, 61),
        (60, 70),
        (63, 129),
        (64, 128),
        (1, 200),
        (199, 200),
    ] {
        let mut r = Relation::empty(n);
        r.insert_range(7, lo, hi);
        let expected = Relation::from_pairs(n, (lo..hi).map(|b| (7, b)));
        assert!(r == expected, "{lo}..{hi}");
        assert_eq!(r.count(), hi - lo);
    }
}

/// The checked allocation refuses a relation over the bound (1,000 events:
/// 1000 x 16 words = 128,000 bytes, over a 64 KiB bound) and gives the
/// empty relation within it.
#[test]
fn try_empty_refuses_a_relation_over_the_bound() {
    assert_eq!(Relation::bytes_for(1000), 128_000);
    assert!(Relation::try_empty(1000, Some(64 << 10)).is_none());
    let r = Relation::try_empty(1000, Some(1 << 20)).expect("fits under 1 MiB");
    assert!(r == Relation::empty(1000));
    assert!(Relation::try_empty(usize::MAX / 2, None).is_none());
}

/// The operations that ask a `stop` give the plain operation's result
/// when it never says stop (over 64 events and more: the polled loops),
/// ask it every `ROWS_PER_POLL` rows, and give `None` once it says stop.
#[test]
fn long_operations_ask_their_stop_and_end_when_told() {
    for n in [3, 64, 65, 200, 300] {
        // A chain with a few shortcuts and a back edge: closures fill up.
        let mut r = Relation::from_pairs(n, (1..n).map(|i| (i - 1, i)));
        r.insert(n - 1, n / 2);
        r.insert(0, n / 3);
        let s = r.inverse();
        let mut asked = 0;
        let c = r.compose_until(&s, || {
            asked += 1;
            false
        });
        assert_eq!(c, Some(r.compose(&s)));
        let polled = if n > 64 { n / super::ROWS_PER_POLL } else { 0 };
        assert_eq!(asked, polled, "compose over {n} events");
        asked = 0;
        let t = r.transitive_closure_until(|| {
            asked += 1;
            false
        });
        assert_eq!(t, Some(r.transitive_closure()));
        assert_eq!(asked, polled, "closure over {n} events");
        assert_eq!(
            r.reflexive_transitive_closure_until(|| false),
            Some(r.reflexive_transitive_closure())
        );
        if n > 64 {
            asked = 0;
            let stop_at_second = |asked: &mut usize| {
                *asked += 1;
                *asked == 2
            };
            assert_eq!(r.compose_until(&s, || stop_at_second(&mut asked)), None);
            assert_eq!(asked, 2);
            asked = 0;
            assert_eq!(
                r.transitive_closure_until(|| stop_at_second(&mut asked)),
                None
            );
            assert_eq!(asked, 2);
        }
    }
}

/// A relation over `n` events whose rows each relate events of one block
/// of `block` consecutive events (a thread's, a location's), some rows
/// empty: the shape [`Relation::compose_until`]'s row ranges serve.
fn arb_blocked(n: usize, block: usize) -> impl Strategy<Value = Relation> {
    proptest::collection::vec((0usize..4, any::<u64>(), any::<u64>()), n).prop_map(move |rows| {
        let mut r = Relation::empty(n);
        for (a, (kind, x, y)) in rows.into_iter().enumerate() {
            let (lo, hi) = match kind {
                0 => continue,
                // The row's own block.
                1 | 2 => (a / block * block, (a / block * block + block).min(n)),
                // Anywhere.
                _ => (0, n),
            };
            for b in lo..hi {
                let bit = (b - lo) % 128;
                let word = if bit < 64 { x } else { y };
                if word >> (bit % 64) & 1 == 1 {
                    r.insert(a, b);
                }
            }
        }
        r
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// Joining only a row's nonzero words gives what joining whole rows
    /// gives, and stops where it does.
    #[test]
    fn composition_over_row_ranges_is_composition_over_whole_rows(
        (r, s) in (1usize..=300, 1usize..=100)
            .prop_flat_map(|(n, block)| (arb_blocked(n, block), arb_blocked(n, block))),
        stop_at in 0usize..12,
    ) {
        prop_assert_eq!(r.compose(&s), r.compose_whole_rows_until(&s, || false).unwrap());
        prop_assert_eq!(s.compose(&r), s.compose_whole_rows_until(&r, || false).unwrap());
        let (mut asked, mut asked_whole) = (0, 0);
        let new = r.compose_until(&s, || { asked += 1; asked == stop_at });
        let old = r.compose_whole_rows_until(&s, || { asked_whole += 1; asked_whole == stop_at });
        prop_assert_eq!(new, old);
        prop_assert_eq!(asked, asked_whole);
    }
}
