//! Sets and relations of formulas: the symbolic counterparts of
//! [`EventSet`] and [`Relation`], entry by entry. Each operation builds
//! the formulas of the concrete one (`(r ; s)[a][b]` is the disjunction
//! over `k` of `r[a][k] & s[k][b]`), so that, under any assignment of the
//! inputs, the symbolic result's value is the concrete result of the
//! operands' values (the property `relation::symbolic::tests` checks).

use super::{Circuit, Lit, Values};
use crate::relation::{EventSet, Relation};

/// A set of events `0..n`, one literal per event (is it in the set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymSet {
    bits: Vec<Lit>,
}

/// A relation over events `0..n`, one literal per pair, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymRel {
    n: usize,
    bits: Vec<Lit>,
}

/// `f` of the literals at each place of two sets or relations of one
/// universe (the operators sets and relations share).
fn pointwise(a: &[Lit], b: &[Lit], mut f: impl FnMut(Lit, Lit) -> Lit) -> Vec<Lit> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}

impl SymSet {
    /// From one literal per event.
    pub fn from_lits(bits: Vec<Lit>) -> SymSet {
        SymSet { bits }
    }

    /// The constant set `s`.
    pub fn constant(s: &EventSet) -> SymSet {
        SymSet {
            bits: (0..s.universe())
                .map(|e| Lit::from_bool(s.contains(e)))
                .collect(),
        }
    }

    /// The empty set over `n` events.
    pub fn empty(n: usize) -> SymSet {
        SymSet {
            bits: vec![Lit::FALSE; n],
        }
    }

    /// Every event.
    pub fn full(n: usize) -> SymSet {
        SymSet {
            bits: vec![Lit::TRUE; n],
        }
    }

    /// Number of events in the universe.
    pub fn universe(&self) -> usize {
        self.bits.len()
    }

    /// Whether `e` is in the set.
    pub fn get(&self, e: usize) -> Lit {
        self.bits[e]
    }

    /// The literals, one per event.
    pub fn lits(&self) -> &[Lit] {
        &self.bits
    }

    fn zip(&self, other: &SymSet, f: impl FnMut(Lit, Lit) -> Lit) -> SymSet {
        SymSet {
            bits: pointwise(&self.bits, &other.bits, f),
        }
    }

    /// `s | t`.
    pub fn union(&self, c: &mut Circuit, t: &SymSet) -> SymSet {
        self.zip(t, |a, b| c.or(a, b))
    }

    /// `s & t`.
    pub fn inter(&self, c: &mut Circuit, t: &SymSet) -> SymSet {
        self.zip(t, |a, b| c.and(a, b))
    }

    /// `s \ t`.
    pub fn diff(&self, c: &mut Circuit, t: &SymSet) -> SymSet {
        self.zip(t, |a, b| c.and(a, !b))
    }

    /// `~s`.
    pub fn complement(&self) -> SymSet {
        SymSet {
            bits: self.bits.iter().map(|&a| !a).collect(),
        }
    }

    /// The set is empty.
    pub fn is_empty(&self, c: &mut Circuit) -> Lit {
        !c.or_all(self.bits.iter().copied())
    }

    /// The set's value under an assignment.
    pub fn value(&self, v: &Values) -> EventSet {
        EventSet::from_iter(
            self.bits.len(),
            (0..self.bits.len()).filter(|&e| v.of(self.bits[e])),
        )
    }

    /// The set's value when every literal is a constant.
    pub fn as_constant(&self) -> Option<EventSet> {
        let mut s = EventSet::empty(self.bits.len());
        for (e, l) in self.bits.iter().enumerate() {
            if l.constant()? {
                s.insert(e);
            }
        }
        Some(s)
    }
}

impl SymRel {
    /// From `n * n` literals, row by row.
    pub fn from_lits(n: usize, bits: Vec<Lit>) -> SymRel {
        assert_eq!(bits.len(), n * n, "a relation needs n * n entries");
        SymRel { n, bits }
    }

    /// The constant relation `r`.
    pub fn constant(r: &Relation) -> SymRel {
        let n = r.universe();
        let mut bits = vec![Lit::FALSE; n * n];
        for (a, b) in r.pairs() {
            bits[a * n + b] = Lit::TRUE;
        }
        SymRel { n, bits }
    }

    /// The empty relation over `n` events.
    pub fn empty(n: usize) -> SymRel {
        SymRel {
            n,
            bits: vec![Lit::FALSE; n * n],
        }
    }

    /// Every pair.
    pub fn full(n: usize) -> SymRel {
        SymRel {
            n,
            bits: vec![Lit::TRUE; n * n],
        }
    }

    /// The identity over all `n` events.
    pub fn identity(n: usize) -> SymRel {
        SymRel::identity_on(&SymSet::full(n))
    }

    /// `[S]`.
    pub fn identity_on(s: &SymSet) -> SymRel {
        let n = s.universe();
        let mut r = SymRel::empty(n);
        for e in 0..n {
            r.bits[e * n + e] = s.get(e);
        }
        r
    }

    /// `S * T`.
    pub fn product(c: &mut Circuit, s: &SymSet, t: &SymSet) -> SymRel {
        let n = s.universe();
        let mut bits = Vec::with_capacity(n * n);
        for a in 0..n {
            for b in 0..n {
                bits.push(c.and(s.get(a), t.get(b)));
            }
        }
        SymRel { n, bits }
    }

    /// Number of events in the universe.
    pub fn universe(&self) -> usize {
        self.n
    }

    /// Whether `(a, b)` is in the relation.
    pub fn get(&self, a: usize, b: usize) -> Lit {
        self.bits[a * self.n + b]
    }

    /// Sets the entry `(a, b)`.
    pub fn set(&mut self, a: usize, b: usize, l: Lit) {
        self.bits[a * self.n + b] = l;
    }

    fn zip(&self, other: &SymRel, f: impl FnMut(Lit, Lit) -> Lit) -> SymRel {
        SymRel {
            n: self.n,
            bits: pointwise(&self.bits, &other.bits, f),
        }
    }

    /// `r | s`.
    pub fn union(&self, c: &mut Circuit, s: &SymRel) -> SymRel {
        self.zip(s, |a, b| c.or(a, b))
    }

    /// `r & s`.
    pub fn inter(&self, c: &mut Circuit, s: &SymRel) -> SymRel {
        self.zip(s, |a, b| c.and(a, b))
    }

    /// `r \ s`.
    pub fn diff(&self, c: &mut Circuit, s: &SymRel) -> SymRel {
        self.zip(s, |a, b| c.and(a, !b))
    }

    /// `~r`.
    pub fn complement(&self) -> SymRel {
        SymRel {
            n: self.n,
            bits: self.bits.iter().map(|&a| !a).collect(),
        }
    }

    /// `r ; s`: the pairs `(a, b)` with some `k`, `(a, k)` in `r` and
    /// `(k, b)` in `s`. Constant-false terms are skipped before any gate
    /// is built.
    pub fn compose(&self, c: &mut Circuit, s: &SymRel) -> SymRel {
        let n = self.n;
        let mut bits = Vec::with_capacity(n * n);
        let mut terms = Vec::new();
        for a in 0..n {
            for b in 0..n {
                terms.clear();
                for k in 0..n {
                    let (x, y) = (self.get(a, k), s.get(k, b));
                    if x != Lit::FALSE && y != Lit::FALSE {
                        terms.push(c.and(x, y));
                    }
                }
                bits.push(c.or_all(terms.iter().copied()));
            }
        }
        SymRel { n, bits }
    }

    /// `r^-1`.
    pub fn inverse(&self) -> SymRel {
        let n = self.n;
        let mut bits = Vec::with_capacity(n * n);
        for a in 0..n {
            for b in 0..n {
                bits.push(self.get(b, a));
            }
        }
        SymRel { n, bits }
    }

    /// `r+`, by Warshall's algorithm: after step `k` the entry `(a, b)`
    /// holds the paths from `a` to `b` whose inner events are among the
    /// first `k + 1`, so after the last step every path. Each step adds
    /// one gate pair per entry that may change (an entry of row or column
    /// `k` keeps its value: a path through `k` to or from `k` is not
    /// needed), about `n^3` gate pairs in all, where squaring builds
    /// `n^3` per squaring and `log2 n` squarings.
    pub fn closure(&self, c: &mut Circuit) -> SymRel {
        let n = self.n;
        let mut r = self.clone();
        for k in 0..n {
            for a in (0..n).filter(|&a| a != k) {
                let ak = r.get(a, k);
                if ak == Lit::FALSE {
                    continue;
                }
                for b in (0..n).filter(|&b| b != k) {
                    let kb = r.get(k, b);
                    if kb == Lit::FALSE {
                        continue;
                    }
                    let via = c.and(ak, kb);
                    let x = r.get(a, b);
                    r.set(a, b, c.or(x, via));
                }
            }
        }
        r
    }

    /// `r+`, by iterated squaring: after step `k` the relation holds the
    /// paths of at most `2^k` edges, and a path between two of `n` events
    /// needs at most `n` edges (fewer when it repeats an event), so
    /// `ceil(log2 n)` steps give the closure. The oracle
    /// [`SymRel::closure`] is tested against.
    pub fn closure_by_squaring(&self, c: &mut Circuit) -> SymRel {
        let mut r = self.clone();
        let mut len = 1usize;
        while len < self.n {
            let sq = r.compose(c, &r);
            r = r.union(c, &sq);
            len *= 2;
        }
        r
    }

    /// `r?`: the relation with the identity.
    pub fn reflexive(&self, c: &mut Circuit) -> SymRel {
        self.union(c, &SymRel::identity(self.n))
    }

    /// `r*`.
    pub fn reflexive_closure(&self, c: &mut Circuit) -> SymRel {
        self.closure(c).reflexive(c)
    }

    /// The events with a successor.
    pub fn domain(&self, c: &mut Circuit) -> SymSet {
        let n = self.n;
        SymSet::from_lits(
            (0..n)
                .map(|a| c.or_all((0..n).map(|b| self.get(a, b))))
                .collect(),
        )
    }

    /// The events with a predecessor.
    pub fn range(&self, c: &mut Circuit) -> SymSet {
        let n = self.n;
        SymSet::from_lits(
            (0..n)
                .map(|b| c.or_all((0..n).map(|a| self.get(a, b))))
                .collect(),
        )
    }

    /// `[S] ; r`.
    pub fn restrict_domain(&self, c: &mut Circuit, s: &SymSet) -> SymRel {
        let n = self.n;
        let mut r = self.clone();
        for a in 0..n {
            for b in 0..n {
                r.bits[a * n + b] = c.and(s.get(a), self.get(a, b));
            }
        }
        r
    }

    /// `r ; [S]`.
    pub fn restrict_range(&self, c: &mut Circuit, s: &SymSet) -> SymRel {
        let n = self.n;
        let mut r = self.clone();
        for a in 0..n {
            for b in 0..n {
                r.bits[a * n + b] = c.and(self.get(a, b), s.get(b));
            }
        }
        r
    }

    /// `irreflexive r`.
    pub fn is_irreflexive(&self, c: &mut Circuit) -> Lit {
        !c.or_all((0..self.n).map(|e| self.get(e, e)))
    }

    /// `acyclic r`: one node of the circuit ([`Circuit::acyclic`]), which
    /// the solver encodes by an order or a cycle as witness.
    pub fn is_acyclic(&self, c: &mut Circuit) -> Lit {
        c.acyclic(self.n, &self.bits)
    }

    /// `acyclic r` as its closure being irreflexive: the oracle
    /// [`SymRel::is_acyclic`] is tested against.
    pub fn is_acyclic_by_closure(&self, c: &mut Circuit) -> Lit {
        self.closure_by_squaring(c).is_irreflexive(c)
    }

    /// `empty r`.
    pub fn is_empty(&self, c: &mut Circuit) -> Lit {
        !c.or_all(self.bits.iter().copied())
    }

    /// Every entry, row by row.
    pub fn lits(&self) -> &[Lit] {
        &self.bits
    }

    /// The relation's value under an assignment.
    pub fn value(&self, v: &Values) -> Relation {
        let n = self.n;
        let mut r = Relation::empty(n);
        for a in 0..n {
            for b in 0..n {
                if v.of(self.get(a, b)) {
                    r.insert(a, b);
                }
            }
        }
        r
    }

    /// The relation's value when every literal is a constant.
    pub fn as_constant(&self) -> Option<Relation> {
        let n = self.n;
        let mut r = Relation::empty(n);
        for a in 0..n {
            for b in 0..n {
                if self.get(a, b).constant()? {
                    r.insert(a, b);
                }
            }
        }
        Some(r)
    }
}
