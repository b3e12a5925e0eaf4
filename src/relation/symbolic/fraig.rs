//! Fraiging under facts: the circuit's formulas rebuilt with every pair of
//! nodes the solver proves equal merged into one (a functionally reduced
//! and-inverter graph, as the equivalence checkers build them: Mishchenko
//! et al., "FRAIGs", 2005).
//!
//! The nodes are visited in the circuit's order (operands first). A node
//! whose operands, once replaced by their representatives, form a gate the
//! circuit already holds is that gate (structurally, no question asked).
//! Otherwise its value under a set of sample assignments (its signature,
//! one bit per sample) picks the earlier nodes that may equal it or its
//! negation; a candidate that a counterexample found since tells apart is
//! skipped, and the first one left is asked of the solver, both ways
//! (`x & !y`, then `!x & y`). Where neither has a model the node is merged
//! into the candidate and the equality is added as clauses (the later
//! questions reason with it); a model is a counterexample, kept; a
//! question that outruns its decisions leaves the node as it is.
//!
//! The solver holds the facts (the well-formedness of an execution), so
//! "equal" means equal under the facts: the rebuilt formulas have the
//! values of the originals under every assignment satisfying the facts,
//! and not necessarily under the others. They replace the originals in
//! questions that assert those facts; the facts themselves are not
//! rebuilt (rewriting a fact with an equality it implies could weaken
//! it). Samples that satisfy the facts make the signatures exact filters:
//! two nodes whose signatures differ are different under the facts, so no
//! pair that is equal is ever left out by the filter.

use super::{Answer, Circuit, Lit, Node, Solver, Values};
use rustc_hash::FxHashMap;

/// The value of every node of a circuit under up to 64 sample assignments
/// per word, built from the solver's models ([`Signatures::add`]).
#[derive(Clone, Debug)]
pub struct Signatures {
    /// Per word, per node: bit `i` is the node's value in sample `64 *
    /// word + i`.
    words: Vec<Vec<u64>>,
    /// How many samples were added.
    count: usize,
    /// The circuit's nodes when the signatures were started: later nodes
    /// have none.
    nodes: usize,
}

impl Signatures {
    /// No sample yet, for the first `nodes` nodes of a circuit.
    pub fn new(nodes: usize) -> Signatures {
        Signatures {
            words: Vec::new(),
            count: 0,
            nodes,
        }
    }

    /// How many samples were added.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no sample was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds the sample whose node values are `v` (what a solve answered:
    /// [`Answer::Sat`]).
    pub fn add(&mut self, v: &Values) {
        let (w, bit) = (self.count / 64, self.count % 64);
        if bit == 0 {
            self.words.push(vec![0; self.nodes]);
        }
        let col = &mut self.words[w];
        for (n, x) in col.iter_mut().enumerate() {
            if v.0.get(n).copied().unwrap_or(false) {
                *x |= 1 << bit;
            }
        }
        self.count += 1;
    }

    /// The node's signature up to negation, and whether it was negated
    /// (the first sample's bit is 0 in the key).
    fn key(&self, node: usize) -> (Vec<u64>, bool) {
        let flip = self.words.first().is_some_and(|w| w[node] & 1 == 1);
        let last = self.words.len().saturating_sub(1);
        let key = self
            .words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let x = if flip { !w[node] } else { w[node] };
                let used = if i == last && !self.count.is_multiple_of(64) {
                    (1u64 << (self.count % 64)) - 1
                } else {
                    u64::MAX
                };
                x & used
            })
            .collect();
        (key, flip)
    }
}

/// What [`fraig`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FraigStats {
    /// The nodes of the roots' cone it visited.
    pub visited: usize,
    /// Nodes merged because their operands' representatives form a gate
    /// already there.
    pub structural: usize,
    /// Nodes merged after the solver proved them equal to a candidate.
    pub proved: usize,
    /// Candidates the solver told apart (each a counterexample).
    pub disproved: usize,
    /// Questions that outran their decisions.
    pub undecided: usize,
}

/// The solver's or the circuit's stop condition held during [`fraig`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

/// How many candidates one node is asked against at most.
const TRIES: usize = 2;

/// How many nodes of its signature a node looks through for candidates.
const SCAN: usize = 64;

/// Which nodes of the first `len` of `c` are in the cone of `lits`.
fn cone(c: &Circuit, lits: &[Lit], len: usize) -> Vec<bool> {
    let mut inside = vec![false; len];
    let mut stack: Vec<usize> = lits.iter().map(|l| l.node()).collect();
    while let Some(n) = stack.pop() {
        if n >= len || inside[n] {
            continue;
        }
        inside[n] = true;
        if let Node::And(a, b) = c.nodes[n] {
            stack.push(a.node());
            stack.push(b.node());
        }
    }
    inside
}

/// The roots rebuilt with the nodes of their cone from node `from` on
/// (gates, and inputs too) merged where the solver proves them equal
/// under what it holds (each
/// question within `decisions` decisions), candidates picked by `sigs`
/// (built from models of what the solver holds, so that a pair the
/// signatures tell apart is different under it). Nodes before `from` are
/// kept, and may be representatives. `Err(Stopped)` when the solver's or the
/// circuit's stop condition held: nothing is to be read then. The solver
/// keeps the equalities it proved, as clauses.
///
/// With `sides` `(a, b)` (two computations of one thing, `roots` reading
/// both), the nodes both cones hold are kept: they are one node for both
/// sides already, and merging them would not make the sides any closer;
/// only the nodes one side computes apart are compared.
pub fn fraig(
    c: &mut Circuit,
    solver: &mut Solver,
    roots: &[Lit],
    from: usize,
    sigs: &Signatures,
    decisions: u64,
    sides: Option<(&[Lit], &[Lit])>,
) -> Result<(Vec<Lit>, FraigStats), Stopped> {
    let len = c.nodes.len().min(sigs.nodes);
    let mut stats = FraigStats::default();
    let cone = self::cone(c, roots, len);
    // Which nodes may be merged.
    let asked: Vec<bool> = match sides {
        None => vec![true; len],
        Some((a, b)) => {
            let (in_a, in_b) = (self::cone(c, a, len), self::cone(c, b, len));
            (0..len).map(|n| !(in_a[n] && in_b[n])).collect()
        }
    };
    // `rep[n]`: the literal node `n` equals (an earlier node, or itself).
    let mut rep: Vec<Lit> = (0..len).map(|n| Lit((n as u32) << 1)).collect();
    let find = |rep: &[Lit], l: Lit| -> Lit {
        let mut l = l;
        loop {
            let Some(&r) = rep.get(l.node()) else {
                return l;
            };
            if r.node() == l.node() {
                return l;
            }
            l = if l.negated() { !r } else { r };
        }
    };
    let mut classes: FxHashMap<Vec<u64>, Vec<(usize, bool)>> = FxHashMap::default();
    let mut cex: Vec<Values> = Vec::new();
    let zero = sigs.key(0);
    classes.entry(zero.0).or_default().push((0, zero.1));
    for n in 1..len {
        if !cone[n] {
            continue;
        }
        if n < from || !asked[n] {
            let (key, flip) = sigs.key(n);
            classes.entry(key).or_default().push((n, flip));
            continue;
        }
        stats.visited += 1;
        let me = Lit((n as u32) << 1);
        if let Node::And(a, b) = c.nodes[n]
            && let (ra, rb) = (find(&rep, a), find(&rep, b))
            && (ra, rb) != (a, b)
            && let Some(s) = c.find_and(ra, rb)
            && (s.constant().is_some() || (s.node() < n && cone[s.node()]))
        {
            rep[n] = find(&rep, s);
            stats.structural += 1;
            continue;
        }
        let (key, flip) = sigs.key(n);
        let mut merged = false;
        let mut tries = 0;
        if let Some(list) = classes.get(&key) {
            for &(m, mflip) in list.iter().take(SCAN) {
                if tries == TRIES {
                    break;
                }
                let other = Lit((m as u32) << 1);
                let other = if flip != mflip { !other } else { other };
                if cex.iter().any(|v| v.of(me) != v.of(other)) {
                    continue;
                }
                tries += 1;
                match equal(c, solver, me, other, decisions) {
                    Same::Equal => {
                        solver.assert_any(c, &[!me, other]);
                        solver.assert_any(c, &[me, !other]);
                        rep[n] = other;
                        stats.proved += 1;
                        merged = true;
                        break;
                    }
                    Same::Apart(v) => {
                        stats.disproved += 1;
                        cex.push(v);
                    }
                    Same::Unknown => stats.undecided += 1,
                    Same::Stopped => return Err(Stopped),
                }
            }
        }
        if !merged {
            classes.entry(key).or_default().push((n, flip));
        }
    }
    // The rebuilt cone.
    let mut new: Vec<Lit> = vec![Lit::FALSE; len];
    for n in 1..len {
        if !cone[n] {
            continue;
        }
        let l = Lit((n as u32) << 1);
        let r = find(&rep, l);
        new[n] = if n < from {
            l
        } else if r.node() != n {
            let x = new[r.node()];
            if r.negated() { !x } else { x }
        } else if let Node::And(a, b) = c.nodes[n] {
            let x = if a.negated() {
                !new[a.node()]
            } else {
                new[a.node()]
            };
            let y = if b.negated() {
                !new[b.node()]
            } else {
                new[b.node()]
            };
            c.and(x, y)
        } else {
            l
        };
    }
    if c.stopped() {
        return Err(Stopped);
    }
    let out = roots
        .iter()
        .map(|&r| match new.get(r.node()) {
            Some(&x) if r.node() != 0 => {
                if r.negated() {
                    !x
                } else {
                    x
                }
            }
            _ => r,
        })
        .collect();
    Ok((out, stats))
}

/// What the solver says of two literals.
enum Same {
    /// Equal under what it holds.
    Equal,
    /// Different under this assignment.
    Apart(Values),
    /// A question outran its decisions.
    Unknown,
    /// The stop condition held.
    Stopped,
}

/// Whether `x` and `y` are equal under what the solver holds: `x & !y`,
/// then `!x & y`, each within `decisions` decisions.
fn equal(c: &Circuit, solver: &mut Solver, x: Lit, y: Lit, decisions: u64) -> Same {
    for (p, q) in [(x, !y), (!x, y)] {
        match solver.solve_within(c, &[p, q], decisions) {
            Some(Answer::Unsat) => {}
            Some(Answer::Sat(v)) => return Same::Apart(v),
            Some(Answer::Stopped) => return Same::Stopped,
            None => return Same::Unknown,
        }
    }
    Same::Equal
}

#[cfg(test)]
mod tests;
