//! Final states, compact (listings of hundreds of thousands of states).
//!
//! A listing shows the same names in every final state of a test: the
//! shown registers (`P0:r1`, in `super::litmus::shown_terms`'s order)
//! then the shown memory. Those names are made once per test, a
//! [`Schema`], and a state is the vector of its values under it: recording
//! a state allocates no name, and its key (the values alone) hashes and
//! compares as a slice of integers (`StateCounts`).
//!
//! [`FinalState`] orders, compares and hashes as the list of its
//! `(name, value)` pairs would (the representation the listing had
//! before), so that states of two tests (two schemas with the same names,
//! or different ones: `refines`, `device`, `compare`) still compare by
//! what they show.

use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The names a test's final states give their values, in order: the
/// shown registers (`P1:r0`) then the shown memory (`x`), made once per
/// test and shared by its states.
pub type Schema = Arc<[String]>;

/// A final state: a value per name of its [`Schema`].
#[derive(Clone)]
pub struct FinalState {
    names: Schema,
    /// Shared: a racing pair lists the states it races in, and many pairs
    /// may list the same hundreds of thousands of states.
    values: Arc<[i64]>,
}

impl FinalState {
    /// The state giving `values[i]` to `names[i]`. The two have the same
    /// length (names past the values' end are not shown: the shorter
    /// decides).
    pub fn new(names: Schema, values: Box<[i64]>) -> FinalState {
        FinalState::shared(names, values.into())
    }

    /// [`FinalState::new`] with values other states may share.
    pub fn shared(names: Schema, values: Arc<[i64]>) -> FinalState {
        debug_assert_eq!(names.len(), values.len());
        FinalState { names, values }
    }

    /// A state from its `(name, value)` pairs, in order (its own schema).
    pub fn from_pairs<S: Into<String>>(pairs: impl IntoIterator<Item = (S, i64)>) -> FinalState {
        let (names, values): (Vec<String>, Vec<i64>) =
            pairs.into_iter().map(|(k, v)| (k.into(), v)).unzip();
        FinalState {
            names: names.into(),
            values: values.into(),
        }
    }

    /// The `(name, value)` pairs, in the schema's order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, i64)> + Clone + '_ {
        self.names
            .iter()
            .zip(self.values.iter())
            .map(|(k, &v)| (k.as_str(), v))
    }

    /// The `(name, value)` pairs as owned strings.
    pub fn to_pairs(&self) -> Vec<(String, i64)> {
        self.iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    pub fn len(&self) -> usize {
        self.values.len().min(self.names.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of `name` (the first, should two share it).
    pub fn get(&self, name: &str) -> Option<i64> {
        self.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// The values, in the schema's order.
    pub fn values(&self) -> &[i64] {
        &self.values[..self.len()]
    }

    /// The names, in order.
    pub fn names(&self) -> &[String] {
        &self.names[..self.len()]
    }

    /// Whether both states show the same names in the same order (then
    /// they compare by their values alone).
    fn same_names(&self, other: &FinalState) -> bool {
        Arc::ptr_eq(&self.names, &other.names) || self.names() == other.names()
    }
}

/// As the list of its pairs: `[("P0:r0", 1), ("x", 2)]`.
impl std::fmt::Debug for FinalState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl PartialEq for FinalState {
    fn eq(&self, other: &FinalState) -> bool {
        self.values() == other.values() && self.same_names(other)
    }
}

impl Eq for FinalState {}

/// The order of the `(name, value)` lists: under one schema, that of the
/// value vectors.
impl Ord for FinalState {
    fn cmp(&self, other: &FinalState) -> Ordering {
        if self.same_names(other) {
            self.values().cmp(other.values())
        } else {
            self.iter().cmp(other.iter())
        }
    }
}

impl PartialOrd for FinalState {
    fn partial_cmp(&self, other: &FinalState) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The values only (equal states have equal values; states of two
/// schemas with equal values are told apart by [`PartialEq`]).
impl Hash for FinalState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.values().hash(h);
    }
}

/// Final states being recorded under one schema, with a count each: a
/// hash map from the value vector (no name in the key; the map compares
/// keys in full, so two states never share a count, whatever their
/// hashes).
#[derive(Clone, Debug, Default)]
pub(crate) struct StateCounts {
    names: Schema,
    /// Keyed by shared values: the racing pairs' state numbers and the
    /// sorted listing hold the same values, not copies.
    counts: FxHashMap<Arc<[i64]>, u64>,
}

impl StateCounts {
    pub(crate) fn new(names: Schema) -> StateCounts {
        StateCounts {
            names,
            counts: FxHashMap::default(),
        }
    }

    /// The names of the states recorded.
    pub(crate) fn names(&self) -> &Schema {
        &self.names
    }

    /// Counts `n` more executions reaching the state of `values` (a copy
    /// of them is kept the first time only).
    pub(crate) fn add(&mut self, values: &[i64], n: u64) {
        match self.counts.get_mut(values) {
            Some(c) => *c += n,
            None => {
                self.counts.insert(values.into(), n);
            }
        }
    }

    /// The values kept for the state of `values`, if it is recorded (to be
    /// shared rather than copied).
    pub(crate) fn kept(&self, values: &[i64]) -> Option<Arc<[i64]>> {
        self.counts.get_key_value(values).map(|(k, _)| k.clone())
    }

    /// Makes room for `n` more states.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.counts.reserve(n);
    }

    /// How many distinct states.
    pub(crate) fn len(&self) -> usize {
        self.counts.len()
    }

    /// Adds another part's counts (recorded under the same names).
    pub(crate) fn merge(&mut self, other: StateCounts) {
        debug_assert!(other.counts.is_empty() || *self.names == *other.names);
        if self.counts.is_empty() {
            self.names = other.names;
            self.counts = other.counts;
            return;
        }
        for (values, n) in other.counts {
            *self.counts.entry(values).or_insert(0) += n;
        }
    }

    /// The states with their counts, in the order of their `(name, value)`
    /// lists (the listing's order).
    pub(crate) fn into_sorted(self) -> Vec<(FinalState, u64)> {
        let rows: Vec<(Arc<[i64]>, u64)> = self.counts.into_iter().collect();
        let order = sorted_order(&rows);
        let mut rows: Vec<Option<(Arc<[i64]>, u64)>> = rows.into_iter().map(Some).collect();
        order
            .into_iter()
            .filter_map(|i| rows[i].take())
            .map(|(values, n)| (FinalState::shared(self.names.clone(), values), n))
            .collect()
    }
}

/// The order of `rows` by their value vectors (as `[i64]` compares them:
/// lexicographically, signed), as indices into `rows`.
///
/// A listing may have hundreds of thousands of long vectors that share
/// long prefixes: each row is encoded once as bytes that compare as the
/// values do (each value's offset from the smallest value, big-endian, in
/// as few bytes as the largest offset needs), and the sort compares those
/// byte strings (one `memcmp` each). [`sorted_order_by_values`] is the
/// plain sort it replaces, kept as the tests' oracle.
fn sorted_order(rows: &[(Arc<[i64]>, u64)]) -> Vec<usize> {
    let len = rows.first().map_or(0, |(v, _)| v.len());
    let all = rows.iter().flat_map(|(v, _)| v.iter().copied());
    let (Some(min), Some(max)) = (all.clone().min(), all.max()) else {
        return (0..rows.len()).collect();
    };
    if rows.iter().any(|(v, _)| v.len() != len) {
        return sorted_order_by_values(rows);
    }
    // The offsets from `min` fit in u64 (two's complement difference).
    let span = max.wrapping_sub(min) as u64;
    let width = match span {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xffff_ffff => 4,
        _ => 8,
    };
    let stride = len * width;
    let mut keys: Vec<u8> = Vec::with_capacity(rows.len() * stride);
    for (values, _) in rows {
        for &v in values.iter() {
            let offset = v.wrapping_sub(min) as u64;
            keys.extend_from_slice(&offset.to_be_bytes()[8 - width..]);
        }
    }
    let key = |i: usize| &keys[i * stride..(i + 1) * stride];
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
    order
}

/// [`sorted_order`] by comparing the value vectors themselves.
fn sorted_order_by_values(rows: &[(Arc<[i64]>, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_unstable_by(|&a, &b| rows[a].0.cmp(&rows[b].0));
    order
}

/// Adds `from`'s counts into the sorted list `to` (the union of two
/// listings, e.g. two attributions' or two parts' undefined states),
/// keeping it sorted.
pub(crate) fn add_sorted(to: &mut Vec<(FinalState, u64)>, from: Vec<(FinalState, u64)>) {
    if from.is_empty() {
        return;
    }
    let mut all: Vec<(FinalState, u64)> = std::mem::take(to);
    all.extend(from);
    all.sort_by(|a, b| a.0.cmp(&b.0));
    for (st, n) in all {
        match to.last_mut() {
            Some((last, m)) if *last == st => *m += n,
            _ => to.push((st, n)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(names: &[&str]) -> Schema {
        names
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .into()
    }

    /// The old representation: the list of `(name, value)` pairs.
    fn pairs(names: &[&str], values: &[i64]) -> Vec<(String, i64)> {
        names
            .iter()
            .zip(values)
            .map(|(k, &v)| (k.to_string(), v))
            .collect()
    }

    #[test]
    fn a_schema_of_several_threads_and_locations_names_each_value() {
        let names = ["P0:r0", "P0:r1", "P1:r0", "P10:r2", "x", "y"];
        let s = FinalState::new(schema(&names), vec![1, 0, 2, -3, 4, 5].into());
        assert_eq!(s.len(), 6);
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [
                ("P0:r0", 1),
                ("P0:r1", 0),
                ("P1:r0", 2),
                ("P10:r2", -3),
                ("x", 4),
                ("y", 5)
            ]
        );
        assert_eq!(s.get("P10:r2"), Some(-3));
        assert_eq!(s.get("z"), None);
        assert_eq!(s.to_pairs(), pairs(&names, &[1, 0, 2, -3, 4, 5]));
        assert_eq!(
            s,
            FinalState::from_pairs(pairs(&names, &[1, 0, 2, -3, 4, 5]))
        );
    }

    /// The recorded states come out in the order the `(name, value)`
    /// lists had (what the listing printed before: a `BTreeMap` of them),
    /// every value position deciding, negative values before positive.
    #[test]
    fn recorded_states_keep_the_order_of_the_pair_lists() {
        let names = ["P0:r0", "P1:r0", "x"];
        let mut counts = StateCounts::new(schema(&names));
        let rows: [[i64; 3]; 7] = [
            [1, 0, 0],
            [0, 1, 0],
            [0, 0, 1],
            [0, 0, -1],
            [1, 0, 0],
            [-2, 5, 5],
            [0, 1, 0],
        ];
        let mut old: std::collections::BTreeMap<Vec<(String, i64)>, u64> = Default::default();
        for r in &rows {
            counts.add(r, 2);
            *old.entry(pairs(&names, r)).or_insert(0) += 2;
        }
        assert_eq!(counts.len(), 5);
        let new: Vec<(Vec<(String, i64)>, u64)> = counts
            .into_sorted()
            .into_iter()
            .map(|(s, n)| (s.to_pairs(), n))
            .collect();
        assert_eq!(new, old.into_iter().collect::<Vec<_>>());
    }

    /// Every value is part of the key: states differing in one position
    /// only (the last location, the first register) are counted apart,
    /// even when their hashes collide (the map compares keys in full).
    #[test]
    fn states_differing_in_one_value_are_counted_apart() {
        let names = ["P0:r0", "P0:r1", "x"];
        let mut counts = StateCounts::new(schema(&names));
        counts.add(&[0, 0, 0], 1);
        counts.add(&[0, 0, 1], 1);
        counts.add(&[1, 0, 0], 1);
        counts.add(&[0, 0, 1], 1);
        let rows = counts.into_sorted();
        let got: Vec<(Vec<i64>, u64)> = rows
            .iter()
            .map(|(s, n)| (s.values().to_vec(), *n))
            .collect();
        assert_eq!(
            got,
            [(vec![0, 0, 0], 1), (vec![0, 0, 1], 2), (vec![1, 0, 0], 1)]
        );
        // A hasher under which every key collides: still three states.
        #[derive(Default)]
        struct Constant;
        impl Hasher for Constant {
            fn finish(&self) -> u64 {
                7
            }
            fn write(&mut self, _: &[u8]) {}
        }
        let mut map: std::collections::HashMap<
            FinalState,
            u64,
            std::hash::BuildHasherDefault<Constant>,
        > = Default::default();
        for (s, n) in rows {
            *map.entry(s).or_insert(0) += n;
        }
        assert_eq!(map.len(), 3);
    }

    /// States of two schemas compare by their pairs: equal names and
    /// values are equal states whatever schema holds them; different
    /// names order as the pair lists do.
    #[test]
    fn states_of_two_schemas_compare_by_their_pairs() {
        let a = FinalState::new(schema(&["P0:r0", "x"]), vec![1, 2].into());
        let b = FinalState::new(schema(&["P0:r0", "x"]), vec![1, 2].into());
        assert_eq!(a, b);
        assert_eq!(a.cmp(&b), Ordering::Equal);
        let c = FinalState::new(schema(&["P0:r0", "y"]), vec![1, 0].into());
        assert_ne!(a, c);
        assert_eq!(
            a.cmp(&c),
            pairs(&["P0:r0", "x"], &[1, 2]).cmp(&pairs(&["P0:r0", "y"], &[1, 0]))
        );
        // Same values, other names: not equal, though they hash alike.
        let d = FinalState::new(schema(&["P0:r0", "y"]), vec![1, 2].into());
        assert_ne!(a, d);
        let mut set = std::collections::HashSet::new();
        set.insert(a.clone());
        set.insert(d);
        set.insert(b);
        assert_eq!(set.len(), 2);
    }

    fn rows(values: &[Vec<i64>]) -> Vec<(Arc<[i64]>, u64)> {
        values.iter().map(|v| (v.clone().into(), 1)).collect()
    }

    /// The byte-key sort orders as the plain one (its oracle), at each key
    /// width, with negative values and the extremes of i64.
    #[test]
    fn the_byte_key_order_is_the_value_order() {
        for vs in [
            vec![vec![1, 0, 1], vec![0, 1, 1], vec![0, 0, 0], vec![1, 1, 0]],
            vec![vec![-1, 3], vec![-2, 300], vec![-1, -200], vec![5, 0]],
            vec![vec![70_000, -1], vec![-70_000, 2], vec![0, 0]],
            vec![vec![1 << 40, 1], vec![-(1 << 40), 0], vec![3, 3]],
            vec![
                vec![i64::MIN, i64::MAX],
                vec![i64::MAX, i64::MIN],
                vec![0, -1],
                vec![-1, 0],
            ],
            vec![vec![]],
        ] {
            let r = rows(&vs);
            let by_values: Vec<&[i64]> = sorted_order_by_values(&r)
                .iter()
                .map(|&i| &*r[i].0)
                .collect();
            let by_keys: Vec<&[i64]> = sorted_order(&r).iter().map(|&i| &*r[i].0).collect();
            assert_eq!(by_keys, by_values, "{vs:?}");
        }
    }

    proptest::proptest! {
        /// The same on generated rows (values around 0, or spread wide).
        #[test]
        fn generated_rows_sort_as_their_values(
            vs in proptest::collection::vec(proptest::collection::vec(-3i64..4, 5), 0..40),
            wide in proptest::collection::vec(proptest::collection::vec(proptest::num::i64::ANY, 3), 0..20),
        ) {
            for v in [vs, wide] {
                let r = rows(&v);
                let a: Vec<&[i64]> = sorted_order_by_values(&r).iter().map(|&i| &*r[i].0).collect();
                let b: Vec<&[i64]> = sorted_order(&r).iter().map(|&i| &*r[i].0).collect();
                proptest::prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn parts_and_listings_add_up() {
        let names = schema(&["r", "x"]);
        let mut a = StateCounts::new(names.clone());
        a.add(&[0, 1], 1);
        let mut b = StateCounts::new(names.clone());
        b.add(&[0, 1], 2);
        b.add(&[1, 1], 1);
        a.merge(b);
        a.merge(StateCounts::new(names.clone()));
        let mut rows = a.into_sorted();
        let got: Vec<(Vec<i64>, u64)> = rows
            .iter()
            .map(|(s, n)| (s.values().to_vec(), *n))
            .collect();
        assert_eq!(got, [(vec![0, 1], 3), (vec![1, 1], 1)]);
        add_sorted(
            &mut rows,
            vec![
                (FinalState::new(names.clone(), vec![0, 0].into()), 4),
                (FinalState::new(names.clone(), vec![1, 1].into()), 1),
            ],
        );
        let got: Vec<(Vec<i64>, u64)> = rows
            .iter()
            .map(|(s, n)| (s.values().to_vec(), *n))
            .collect();
        assert_eq!(got, [(vec![0, 0], 4), (vec![0, 1], 3), (vec![1, 1], 2)]);
    }
}
