//! Bit-matrix relation algebra over the events of one candidate execution.
//!
//! Events are numbered `0..n`. An [`EventSet`] is a bit vector and a
//! [`Relation`] is an `n x n` bit matrix stored row by row, each row a run of
//! machine words. Every operation the cat interpreter needs (union,
//! intersection, difference, composition, inverse, closures, identity on a
//! set, domain/range, acyclicity...) is implemented here on whole words.

mod set;
pub mod symbolic;

pub use set::EventSet;

use std::fmt;

/// How many rows of a long operation over more than 64 events pass
/// between two calls of its `stop` ([`Relation::compose_until`],
/// [`Relation::transitive_closure_until`]): a call costs a counter test
/// per row when it says go on, beside a row's work of up to `n / 64` words
/// per pair.
pub const ROWS_PER_POLL: usize = 32;

/// Number of 64-bit words needed to hold `n` bits.
pub(crate) fn words_for(n: usize) -> usize {
    n.div_ceil(64)
}

/// A binary relation over events `0..n`, as a bit matrix.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Relation {
    n: usize,
    stride: usize,
    bits: Vec<u64>,
}

impl Relation {
    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> Self {
        let stride = words_for(n);
        Relation {
            n,
            stride,
            bits: vec![0; stride * n],
        }
    }

    /// The empty relation over `n` events, or `None` when its bytes do not
    /// fit under the memory bound `bound` ([`Relation::fits`]) or the
    /// allocator refuses them (an address-space limit): the checked path
    /// for relations over a universe whose size the input chooses, so
    /// that a limit reached is an undecided answer, never an abort.
    pub fn try_empty(n: usize, bound: Option<usize>) -> Option<Self> {
        let stride = words_for(n);
        let words = stride.checked_mul(n)?;
        if !Self::fits(words.checked_mul(8)?, bound) {
            return None;
        }
        let mut bits = Vec::new();
        bits.try_reserve_exact(words).ok()?;
        bits.resize(words, 0);
        Some(Relation { n, stride, bits })
    }

    /// The relation relating every pair of events (including each event to itself).
    pub fn full(n: usize) -> Self {
        Self::product(&EventSet::full(n), &EventSet::full(n))
    }

    /// The identity relation over all `n` events.
    pub fn identity(n: usize) -> Self {
        Self::identity_on(&EventSet::full(n))
    }

    /// `[S]`: the identity restricted to the events of `s`.
    pub fn identity_on(s: &EventSet) -> Self {
        let mut r = Self::empty(s.universe());
        for e in s.iter() {
            r.insert(e, e);
        }
        r
    }

    /// `S * T`: every event of `s` related to every event of `t`.
    pub fn product(s: &EventSet, t: &EventSet) -> Self {
        assert_eq!(s.universe(), t.universe(), "sets over different universes");
        let mut r = Self::empty(s.universe());
        for a in s.iter() {
            r.row_words_mut(a).copy_from_slice(t.words());
        }
        r
    }

    /// Builds a relation from a list of pairs.
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Self {
        let mut r = Self::empty(n);
        for (a, b) in pairs {
            r.insert(a, b);
        }
        r
    }

    /// Number of events in the universe.
    pub fn universe(&self) -> usize {
        self.n
    }

    fn row_words(&self, a: usize) -> &[u64] {
        &self.bits[a * self.stride..(a + 1) * self.stride]
    }

    fn row_words_mut(&mut self, a: usize) -> &mut [u64] {
        &mut self.bits[a * self.stride..(a + 1) * self.stride]
    }

    /// Adds the pair `(a, b)`.
    pub fn insert(&mut self, a: usize, b: usize) {
        assert!(a < self.n && b < self.n, "event out of range");
        self.bits[a * self.stride + b / 64] |= 1u64 << (b % 64);
    }

    /// Removes the pair `(a, b)`.
    pub fn remove(&mut self, a: usize, b: usize) {
        assert!(a < self.n && b < self.n, "event out of range");
        self.bits[a * self.stride + b / 64] &= !(1u64 << (b % 64));
    }

    /// Whether `(a, b)` is in the relation.
    pub fn contains(&self, a: usize, b: usize) -> bool {
        a < self.n && b < self.n && self.bits[a * self.stride + b / 64] & (1u64 << (b % 64)) != 0
    }

    /// The events `b` with `(a, b)` in the relation.
    pub fn successors(&self, a: usize) -> EventSet {
        EventSet::from_words(self.n, self.row_words(a).to_vec())
    }

    /// The events `a` with `(a, b)` in the relation.
    pub fn predecessors(&self, b: usize) -> EventSet {
        let mut s = EventSet::empty(self.n);
        for a in 0..self.n {
            if self.contains(a, b) {
                s.insert(a);
            }
        }
        s
    }

    /// Number of pairs.
    pub fn count(&self) -> usize {
        self.bits.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the relation has no pairs.
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|&w| w == 0)
    }

    /// All pairs, in row-major order.
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |a| set::iter_words(self.row_words(a)).map(move |b| (a, b)))
    }

    fn zip_with(&self, other: &Self, f: impl Fn(u64, u64) -> u64) -> Self {
        assert_eq!(self.n, other.n, "relations over different universes");
        Relation {
            n: self.n,
            stride: self.stride,
            bits: self
                .bits
                .iter()
                .zip(&other.bits)
                .map(|(&a, &b)| f(a, b))
                .collect(),
        }
    }

    /// `r | s`
    pub fn union(&self, other: &Self) -> Self {
        self.zip_with(other, |a, b| a | b)
    }

    /// `r & s`
    pub fn inter(&self, other: &Self) -> Self {
        self.zip_with(other, |a, b| a & b)
    }

    /// `r \ s`
    pub fn diff(&self, other: &Self) -> Self {
        self.zip_with(other, |a, b| a & !b)
    }

    /// `~r`: every pair not in `r`.
    pub fn complement(&self) -> Self {
        Self::full(self.n).diff(self)
    }

    /// In-place union.
    pub fn union_with(&mut self, other: &Self) {
        assert_eq!(self.n, other.n, "relations over different universes");
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= *b;
        }
    }

    /// Adds `(a, b)` for every `b` of `s`.
    pub fn insert_row(&mut self, a: usize, s: &EventSet) {
        assert_eq!(self.n, s.universe(), "universes differ");
        for (d, w) in self.row_words_mut(a).iter_mut().zip(s.words()) {
            *d |= *w;
        }
    }

    /// Adds `(a, b)` for every `b` in `lo..hi`, a word at a time.
    pub fn insert_range(&mut self, a: usize, lo: usize, hi: usize) {
        assert!(a < self.n && lo <= hi && hi <= self.n, "event out of range");
        let row = self.row_words_mut(a);
        let mut b = lo;
        while b < hi {
            let (w, bit) = (b / 64, b % 64);
            let take = (64 - bit).min(hi - b);
            let mask = if take == 64 {
                u64::MAX
            } else {
                ((1u64 << take) - 1) << bit
            };
            row[w] |= mask;
            b += take;
        }
    }

    /// The bytes a relation over `n` events holds (n x n bits, each row a
    /// whole number of words).
    pub fn bytes_for(n: usize) -> usize {
        n.saturating_mul(words_for(n)).saturating_mul(8)
    }

    /// Whether `bytes` more fit under the memory bound `bound`
    /// (`--max-memory`, lowered to what the operating system allows the
    /// process: [`crate::memory::effective`]) with what the process holds
    /// now ([`crate::memory::in_use`]; without the counting allocator,
    /// against the bound alone). Callers that build many relations over a
    /// large universe ask first, so that reaching the bound is an
    /// undecided answer, never an allocation failure (an abort).
    pub fn fits(bytes: usize, bound: Option<usize>) -> bool {
        let Some(limit) = crate::memory::effective(bound) else {
            return true;
        };
        let held = crate::memory::in_use().unwrap_or(0);
        held.saturating_add(bytes) <= limit
    }

    /// In-place intersection.
    pub fn inter_with(&mut self, other: &Self) {
        assert_eq!(self.n, other.n, "relations over different universes");
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= *b;
        }
    }

    /// In-place difference: removes the pairs of `other`.
    pub fn diff_with(&mut self, other: &Self) {
        assert_eq!(self.n, other.n, "relations over different universes");
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= !*b;
        }
    }

    /// Whether every pair of `self` is in `other`.
    pub fn is_subset(&self, other: &Self) -> bool {
        self.bits.iter().zip(&other.bits).all(|(a, b)| a & !b == 0)
    }

    /// `r ; s`: `(a, c)` such that `(a, b)` in `r` and `(b, c)` in `s` for some `b`.
    pub fn compose(&self, other: &Self) -> Self {
        match self.compose_until(other, || false) {
            Some(r) => r,
            None => unreachable!("an operation is stopped only when asked"),
        }
    }

    /// [`Relation::compose`], asking `stop` every [`ROWS_PER_POLL`] rows of
    /// a relation over more than 64 events: `None` once it says so. Over
    /// thousands of events one composition takes up to `n^3 / 64` word
    /// operations; a caller bound by a deadline or a memory bound asks
    /// this one.
    ///
    /// Each pair `(a, b)` of `self` joins row `b` of `other` into row `a`,
    /// but only the words between the first and the last nonzero word of
    /// row `b` (found the first time `b` is met, then kept): a candidate's
    /// relations over thousands of events mostly relate events of one
    /// thread or one location, numbered together, so a row's pairs lie in
    /// a few of its words and many rows are empty. The oracle joining
    /// whole rows is [`Relation::compose_whole_rows_until`].
    pub fn compose_until(&self, other: &Self, stop: impl FnMut() -> bool) -> Option<Self> {
        let st = self.stride;
        // Per row of `other`: its nonzero words' range, `UNKNOWN` until
        // the row is first needed.
        const UNKNOWN: (u32, u32) = (u32::MAX, 0);
        let mut spans = vec![UNKNOWN; if st > 1 { self.n } else { 0 }];
        self.compose_rows_until(other, stop, |dst, b| {
            let row = &other.bits[b * st..(b + 1) * st];
            if spans[b] == UNKNOWN {
                spans[b] = match row.iter().position(|&x| x != 0) {
                    Some(lo) => {
                        let hi = row.iter().rposition(|&x| x != 0).unwrap_or(lo);
                        (lo as u32, hi as u32 + 1)
                    }
                    None => (0, 0),
                };
            }
            let (lo, hi) = (spans[b].0 as usize, spans[b].1 as usize);
            for (d, s) in dst[lo..hi].iter_mut().zip(&row[lo..hi]) {
                *d |= *s;
            }
        })
    }

    /// [`Relation::compose_until`] joining whole rows: the oracle the
    /// property tests compare it with.
    #[doc(hidden)]
    pub fn compose_whole_rows_until(
        &self,
        other: &Self,
        stop: impl FnMut() -> bool,
    ) -> Option<Self> {
        let st = self.stride;
        self.compose_rows_until(other, stop, |dst, b| {
            for (d, s) in dst.iter_mut().zip(&other.bits[b * st..(b + 1) * st]) {
                *d |= *s;
            }
        })
    }

    /// `self ; other`, asking `stop` every [`ROWS_PER_POLL`] rows past one
    /// word: `join(dst, b)` joins row `b` of `other` into the row `dst` of
    /// the result for each pair `(a, b)` of `self` (relations of one word a
    /// row are joined here, a word at a time).
    fn compose_rows_until(
        &self,
        other: &Self,
        mut stop: impl FnMut() -> bool,
        mut join: impl FnMut(&mut [u64], usize),
    ) -> Option<Self> {
        assert_eq!(self.n, other.n, "relations over different universes");
        let mut out = Self::empty(self.n);
        let st = self.stride;
        if st == 0 {
            return Some(out);
        }
        if st == 1 {
            for (dst, &row) in out.bits.iter_mut().zip(&self.bits) {
                let mut w = row;
                let mut acc = 0u64;
                while w != 0 {
                    acc |= other.bits[w.trailing_zeros() as usize];
                    w &= w - 1;
                }
                *dst = acc;
            }
            return Some(out);
        }
        for (a, (dst, src_row)) in out
            .bits
            .chunks_exact_mut(st)
            .zip(self.bits.chunks_exact(st))
            .enumerate()
        {
            if a % ROWS_PER_POLL == ROWS_PER_POLL - 1 && stop() {
                return None;
            }
            for (wi, &w) in src_row.iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let b = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    join(dst, b);
                }
            }
        }
        Some(out)
    }

    /// `r^-1`
    pub fn inverse(&self) -> Self {
        let mut out = Self::empty(self.n);
        let st = self.stride;
        // Row by row (not through `pairs`, whose flattened iterator
        // showed in profiles: the model takes inverses per evaluation).
        for a in 0..self.n {
            let (word, bit) = (a / 64, 1u64 << (a % 64));
            for b in set::iter_words(self.row_words(a)) {
                out.bits[b * st + word] |= bit;
            }
        }
        out
    }

    /// `r+`: the transitive closure (Warshall's algorithm on bit rows).
    pub fn transitive_closure(&self) -> Self {
        match self.transitive_closure_until(|| false) {
            Some(r) => r,
            None => unreachable!("an operation is stopped only when asked"),
        }
    }

    /// [`Relation::transitive_closure`], asking `stop` every
    /// [`ROWS_PER_POLL`] pivot rows of a relation over more than 64
    /// events: `None` once it says so (each pivot row passes over every
    /// row: `n^3 / 64` word operations in all).
    pub fn transitive_closure_until(&self, mut stop: impl FnMut() -> bool) -> Option<Self> {
        let mut out = self.clone();
        let st = self.stride;
        if st == 0 {
            return Some(out);
        }
        if st == 1 {
            let rows = &mut out.bits;
            for k in 0..self.n {
                let bit = 1u64 << k;
                let rk = rows[k];
                if rk == 0 {
                    continue;
                }
                for r in rows.iter_mut() {
                    if *r & bit != 0 {
                        *r |= rk;
                    }
                }
            }
            return Some(out);
        }
        let mut row_k = vec![0u64; st];
        for k in 0..self.n {
            if k % ROWS_PER_POLL == ROWS_PER_POLL - 1 && stop() {
                return None;
            }
            let (kw, kb) = (k / 64, 1u64 << (k % 64));
            row_k.copy_from_slice(&out.bits[k * st..(k + 1) * st]);
            if row_k.iter().all(|&w| w == 0) {
                continue;
            }
            for row in out.bits.chunks_exact_mut(st) {
                if row[kw] & kb != 0 {
                    for (dst, src) in row.iter_mut().zip(&row_k) {
                        *dst |= *src;
                    }
                }
            }
        }
        Some(out)
    }

    /// `r?`: `r` together with the identity over all events.
    pub fn reflexive_closure(&self) -> Self {
        self.union(&Self::identity(self.n))
    }

    /// `r*`: the reflexive-transitive closure.
    pub fn reflexive_transitive_closure(&self) -> Self {
        self.transitive_closure().reflexive_closure()
    }

    /// [`Relation::reflexive_transitive_closure`], asking `stop` as
    /// [`Relation::transitive_closure_until`] does.
    pub fn reflexive_transitive_closure_until(&self, stop: impl FnMut() -> bool) -> Option<Self> {
        let mut r = self.transitive_closure_until(stop)?;
        for a in 0..self.n {
            r.insert(a, a);
        }
        Some(r)
    }

    /// The events that relate to something.
    pub fn domain(&self) -> EventSet {
        let mut s = EventSet::empty(self.n);
        for a in 0..self.n {
            if self.row_words(a).iter().any(|&w| w != 0) {
                s.insert(a);
            }
        }
        s
    }

    /// The events something relates to.
    pub fn range(&self) -> EventSet {
        let mut words = vec![0u64; self.stride];
        for a in 0..self.n {
            for (d, s) in words.iter_mut().zip(self.row_words(a)) {
                *d |= *s;
            }
        }
        EventSet::from_words(self.n, words)
    }

    /// Whether no event relates to itself.
    pub fn is_irreflexive(&self) -> bool {
        (0..self.n).all(|a| !self.contains(a, a))
    }

    /// Whether the relation has no cycle (Kahn's topological sort).
    pub fn is_acyclic(&self) -> bool {
        // In-degrees row by row (see `inverse`).
        let mut indegree = vec![0usize; self.n];
        for a in 0..self.n {
            for b in set::iter_words(self.row_words(a)) {
                indegree[b] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..self.n).filter(|&a| indegree[a] == 0).collect();
        let mut seen = 0;
        while let Some(a) = ready.pop() {
            seen += 1;
            for b in set::iter_words(self.row_words(a)) {
                indegree[b] -= 1;
                if indegree[b] == 0 {
                    ready.push(b);
                }
            }
        }
        seen == self.n
    }

    /// Whether `r ; r` is included in `r`.
    pub fn is_transitive(&self) -> bool {
        self.compose(self).is_subset(self)
    }

    /// The immediate part of a relation: `r \ (r ; r+)`.
    pub fn immediate(&self) -> Self {
        self.diff(&self.compose(&self.transitive_closure()))
    }

    /// Pairs whose source is in `s`: `[s] ; r`.
    pub fn restrict_domain(&self, s: &EventSet) -> Self {
        let mut out = Self::empty(self.n);
        for a in s.iter() {
            out.row_words_mut(a).copy_from_slice(self.row_words(a));
        }
        out
    }

    /// Pairs whose target is in `s`: `r ; [s]`.
    pub fn restrict_range(&self, s: &EventSet) -> Self {
        let mut out = self.clone();
        out.restrict_range_in_place(s);
        out
    }

    /// [`Relation::restrict_domain`] in place.
    pub fn restrict_domain_in_place(&mut self, s: &EventSet) {
        assert_eq!(self.n, s.universe(), "universes differ");
        for a in 0..self.n {
            if !s.contains(a) {
                self.row_words_mut(a).fill(0);
            }
        }
    }

    /// [`Relation::restrict_range`] in place.
    pub fn restrict_range_in_place(&mut self, s: &EventSet) {
        assert_eq!(self.n, s.universe(), "universes differ");
        if self.stride == 0 {
            return;
        }
        for row in self.bits.chunks_exact_mut(self.stride) {
            for (d, m) in row.iter_mut().zip(s.words()) {
                *d &= *m;
            }
        }
    }

    /// The events `a` of `s` with `(a, a)` in the relation: `r & [s]` is
    /// the identity on this set.
    pub fn reflexive_on(&self, s: &EventSet) -> EventSet {
        let mut out = EventSet::empty(self.n);
        for a in s.iter() {
            if self.contains(a, a) {
                out.insert(a);
            }
        }
        out
    }

    /// A shortest cycle, if any (as a list of events, the first repeated implicitly).
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        let mut best: Option<Vec<usize>> = None;
        for start in 0..self.n {
            if let Some(path) = self.cycle_through(start)
                && best.as_ref().is_none_or(|b| path.len() < b.len())
            {
                best = Some(path);
            }
        }
        best
    }

    /// A shortest cycle through `start`, if any (a list of events starting
    /// with `start`, which is repeated implicitly).
    pub fn cycle_through(&self, start: usize) -> Option<Vec<usize>> {
        if start >= self.n {
            return None;
        }
        // breadth-first search from start back to start
        let mut parent = vec![usize::MAX; self.n];
        let mut queue = std::collections::VecDeque::new();
        queue.push_back(start);
        while let Some(a) = queue.pop_front() {
            for b in set::iter_words(self.row_words(a)) {
                if b == start {
                    let mut path = vec![a];
                    let mut cur = a;
                    while cur != start {
                        cur = parent[cur];
                        path.push(cur);
                    }
                    path.reverse();
                    return Some(path);
                }
                if parent[b] == usize::MAX {
                    parent[b] = a;
                    queue.push_back(b);
                }
            }
        }
        None
    }
}

impl fmt::Debug for Relation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.pairs()).finish()
    }
}

#[cfg(test)]
mod tests;
