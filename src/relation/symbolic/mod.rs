//! Relations whose entries are boolean formulas: the algebra the models are
//! compiled into for a bounded relational (SAT) search over executions
//! (Memalloy and Alloy/Kodkod do the same).
//!
//! A formula is a node of one [`Circuit`], an and-inverter graph: inputs
//! (free variables) and two-input AND gates, a negation being a bit of the
//! literal ([`Lit`]). Gates are hash-consed and constant-folded as they are
//! built (`x & false` is `false`, `x & x` is `x`, `x & !x` is `false`), so a
//! matrix whose entries are constants costs no gate at all: the parts of an
//! execution the bound fixes (program order, the initial writes) fold away,
//! and only what the search chooses becomes clauses.
//!
//! [`SymSet`] and [`SymRel`] (module `matrix`) are sets and `n x n`
//! relations of literals with the operations of the concrete algebra
//! ([`super::Relation`]); [`Solver`] (module `solve`) turns the gates a
//! question needs into CNF (the Tseitin encoding, each gate in the
//! directions its uses read) and asks a SAT solver.
//!
//! Hand-written: the circuit is small (two node kinds) and has to fold
//! constants the way the relation algebra needs; the crates that build
//! CNF (e.g. `rustsat`'s encodings) bring their own solvers' interfaces
//! and no relation algebra.

mod matrix;
mod solve;

pub use matrix::{SymRel, SymSet};
pub use solve::{Answer, Solver};

use rustc_hash::FxHashMap;

/// A literal: a node of a [`Circuit`], possibly negated. The node 0 is the
/// constant false, so [`Lit::FALSE`] and [`Lit::TRUE`] are its two
/// polarities.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lit(u32);

impl Lit {
    /// The constant false.
    pub const FALSE: Lit = Lit(0);
    /// The constant true.
    pub const TRUE: Lit = Lit(1);

    fn node(self) -> usize {
        (self.0 >> 1) as usize
    }

    fn negated(self) -> bool {
        self.0 & 1 == 1
    }

    /// The constant this literal is, if it is one.
    pub fn constant(self) -> Option<bool> {
        match self {
            Lit::FALSE => Some(false),
            Lit::TRUE => Some(true),
            _ => None,
        }
    }

    /// From a constant.
    pub fn from_bool(b: bool) -> Lit {
        if b { Lit::TRUE } else { Lit::FALSE }
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

#[derive(Clone, Copy, Debug)]
enum Node {
    False,
    Input,
    And(Lit, Lit),
    /// Whether the graph `graphs[i]` of the circuit is acyclic.
    Acyclic(u32),
}

/// A relation whose acyclicity is a node of the circuit: its events
/// numbered `0..size`, each pair that may be related with its literal
/// (never a constant false; no pair of an event with itself).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Graph {
    size: usize,
    edges: Vec<(u32, u32, Lit)>,
}

/// Whether the edges `(a, b)` over events `0..size` have a cycle: Kahn's
/// algorithm (an acyclic graph empties by removing events without a
/// predecessor).
fn has_cycle(size: usize, edges: impl Iterator<Item = (usize, usize)>) -> bool {
    let mut succ = vec![Vec::new(); size];
    let mut preds = vec![0usize; size];
    for (a, b) in edges {
        succ[a].push(b);
        preds[b] += 1;
    }
    let mut ready: Vec<usize> = (0..size).filter(|&e| preds[e] == 0).collect();
    let mut removed = 0;
    while let Some(e) = ready.pop() {
        removed += 1;
        for &b in &succ[e] {
            preds[b] -= 1;
            if preds[b] == 0 {
                ready.push(b);
            }
        }
    }
    removed < size
}

/// An and-inverter graph: every formula of one search lives in one circuit.
/// Nodes are created after their operands, so their order is a
/// topological order.
///
/// A circuit may carry a stop condition ([`Circuit::with_stop`]: the
/// search's deadline, its memory bound), asked every [`STOP_EVERY`] new
/// gates. Once it holds the circuit is [`Circuit::stopped`]: every later
/// gate is the constant false, so that the formulas under construction
/// fold away at once, and what was built is not to be read.
#[derive(Clone, Debug)]
pub struct Circuit {
    nodes: Vec<Node>,
    gates: FxHashMap<(Lit, Lit), Lit>,
    /// The graphs of the [`Node::Acyclic`] nodes, and each graph's node.
    graphs: Vec<Graph>,
    graph_nodes: FxHashMap<Graph, Lit>,
    inputs: usize,
    stop: Option<StopWhen>,
    stopped: bool,
}

/// How many new gates a circuit builds between two askings of its stop
/// condition.
pub const STOP_EVERY: usize = 1 << 12;

/// A stop condition, shared by the circuit and the solver of one search.
#[derive(Clone)]
pub struct StopWhen(pub std::rc::Rc<dyn Fn() -> bool>);

impl std::fmt::Debug for StopWhen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StopWhen")
    }
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit::new()
    }
}

impl Circuit {
    /// A circuit holding only the constants.
    pub fn new() -> Circuit {
        Circuit {
            nodes: vec![Node::False],
            gates: FxHashMap::default(),
            graphs: Vec::new(),
            graph_nodes: FxHashMap::default(),
            inputs: 0,
            stop: None,
            stopped: false,
        }
    }

    /// A circuit holding only the constants, which stops building once
    /// `stop` holds (asked every [`STOP_EVERY`] gates).
    pub fn with_stop(stop: StopWhen) -> Circuit {
        Circuit {
            stop: Some(stop),
            ..Circuit::new()
        }
    }

    /// Whether the stop condition held while the circuit was built: its
    /// formulas since then are not the ones asked for.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// A fresh variable.
    pub fn input(&mut self) -> Lit {
        self.nodes.push(Node::Input);
        self.inputs += 1;
        Lit(((self.nodes.len() - 1) as u32) << 1)
    }

    /// How many nodes (inputs and gates) the circuit has.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the circuit holds only the constants.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// How many AND gates the circuit has.
    pub fn gates(&self) -> usize {
        self.nodes.len() - 1 - self.inputs
    }

    /// `a & b`, folded and shared.
    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        if a == Lit::FALSE || a == !b {
            return Lit::FALSE;
        }
        if a == Lit::TRUE || a == b {
            return b;
        }
        if let Some(&g) = self.gates.get(&(a, b)) {
            return g;
        }
        if self.stopped {
            return Lit::FALSE;
        }
        if self.nodes.len().is_multiple_of(STOP_EVERY)
            && let Some(stop) = &self.stop
            && (stop.0)()
        {
            self.stopped = true;
            return Lit::FALSE;
        }
        self.nodes.push(Node::And(a, b));
        let g = Lit(((self.nodes.len() - 1) as u32) << 1);
        self.gates.insert((a, b), g);
        g
    }

    /// Whether the relation over events `0..n` whose entry `(a, b)` is
    /// `bits[a * n + b]` is acyclic: one node, which the solver encodes by
    /// two witnesses (`solve`), not by a closure. Events that cannot be on
    /// a cycle (no possible predecessor or no possible successor among the
    /// events left) are dropped first, the pairs of an event with itself
    /// are the formula's own conjuncts, and a graph left with no pair is
    /// acyclic, one whose certain pairs alone have a cycle is not: such
    /// relations fold to constants and cost no node.
    pub fn acyclic(&mut self, n: usize, bits: &[Lit]) -> Lit {
        debug_assert_eq!(bits.len(), n * n);
        let looped = self.or_all((0..n).map(|e| bits[e * n + e]));
        let may = |a: usize, b: usize| a != b && bits[a * n + b] != Lit::FALSE;
        let mut alive = vec![true; n];
        loop {
            let mut changed = false;
            for e in 0..n {
                if !alive[e] {
                    continue;
                }
                let out = (0..n).any(|o| alive[o] && may(e, o));
                let inn = (0..n).any(|o| alive[o] && may(o, e));
                if !out || !inn {
                    alive[e] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut number = vec![0u32; n];
        let mut size = 0usize;
        for e in 0..n {
            if alive[e] {
                number[e] = size as u32;
                size += 1;
            }
        }
        let mut edges = Vec::new();
        for a in (0..n).filter(|&a| alive[a]) {
            for b in (0..n).filter(|&b| alive[b] && may(a, b)) {
                edges.push((number[a], number[b], bits[a * n + b]));
            }
        }
        if edges.is_empty() {
            return !looped;
        }
        let certain = edges
            .iter()
            .filter(|e| e.2 == Lit::TRUE)
            .map(|&(a, b, _)| (a as usize, b as usize));
        if has_cycle(size, certain) {
            return Lit::FALSE;
        }
        let graph = Graph { size, edges };
        let g = match self.graph_nodes.get(&graph) {
            Some(&g) => g,
            None => {
                if self.stopped {
                    return Lit::FALSE;
                }
                if let Some(stop) = &self.stop
                    && (stop.0)()
                {
                    self.stopped = true;
                    return Lit::FALSE;
                }
                self.nodes.push(Node::Acyclic(self.graphs.len() as u32));
                let g = Lit(((self.nodes.len() - 1) as u32) << 1);
                self.graphs.push(graph.clone());
                self.graph_nodes.insert(graph, g);
                g
            }
        };
        self.and(!looped, g)
    }

    /// `a | b`.
    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    /// `a -> b`.
    pub fn implies(&mut self, a: Lit, b: Lit) -> Lit {
        self.or(!a, b)
    }

    /// `a <-> b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        let x = self.and(a, b);
        let y = self.and(!a, !b);
        self.or(x, y)
    }

    /// `c ? a : b`.
    pub fn ite(&mut self, c: Lit, a: Lit, b: Lit) -> Lit {
        let x = self.and(c, a);
        let y = self.and(!c, b);
        self.or(x, y)
    }

    /// The conjunction of `lits` (true when there is none), built as a
    /// balanced tree after dropping the constants.
    pub fn and_all(&mut self, lits: impl IntoIterator<Item = Lit>) -> Lit {
        let mut v = Vec::new();
        for l in lits {
            match l.constant() {
                Some(true) => {}
                Some(false) => return Lit::FALSE,
                None => v.push(l),
            }
        }
        self.balanced(v)
    }

    /// The disjunction of `lits` (false when there is none).
    pub fn or_all(&mut self, lits: impl IntoIterator<Item = Lit>) -> Lit {
        let mut v = Vec::new();
        for l in lits {
            match l.constant() {
                Some(false) => {}
                Some(true) => return Lit::TRUE,
                None => v.push(!l),
            }
        }
        !self.balanced(v)
    }

    fn balanced(&mut self, mut v: Vec<Lit>) -> Lit {
        if v.is_empty() {
            return Lit::TRUE;
        }
        while v.len() > 1 {
            let mut next = Vec::with_capacity(v.len().div_ceil(2));
            for pair in v.chunks(2) {
                next.push(match pair {
                    [a, b] => self.and(*a, *b),
                    [a] => *a,
                    _ => Lit::TRUE,
                });
            }
            v = next;
        }
        v[0]
    }

    /// At most one of `lits` holds (pairwise: the sets here are small).
    pub fn at_most_one(&mut self, lits: &[Lit]) -> Lit {
        let mut parts = Vec::new();
        for (i, &a) in lits.iter().enumerate() {
            for &b in &lits[i + 1..] {
                parts.push(!self.and(a, b));
            }
        }
        self.and_all(parts)
    }

    /// Exactly one of `lits` holds.
    pub fn exactly_one(&mut self, lits: &[Lit]) -> Lit {
        let some = self.or_all(lits.iter().copied());
        let most = self.at_most_one(lits);
        self.and(some, most)
    }

    /// The value of every node when each input `l` has the value
    /// `input(l)`.
    pub fn simulate(&self, input: impl Fn(Lit) -> bool) -> Values {
        self.simulate_first(self.nodes.len(), input)
    }

    /// [`Circuit::simulate`] of the first `nodes` nodes only (what was
    /// built before [`Circuit::len`] was `nodes`: nodes come after their
    /// operands); the later nodes are not to be read.
    pub fn simulate_first(&self, nodes: usize, input: impl Fn(Lit) -> bool) -> Values {
        let mut vals = Vec::with_capacity(nodes);
        for (i, node) in self.nodes.iter().take(nodes).enumerate() {
            let v = match *node {
                Node::False => false,
                Node::Input => input(Lit((i as u32) << 1)),
                Node::And(a, b) => lit_value(&vals, a) && lit_value(&vals, b),
                Node::Acyclic(g) => {
                    let g = &self.graphs[g as usize];
                    let edges = g.edges.iter().filter(|e| lit_value(&vals, e.2));
                    !has_cycle(g.size, edges.map(|&(a, b, _)| (a as usize, b as usize)))
                }
            };
            vals.push(v);
        }
        Values(vals)
    }

    /// The formula `l` with the nodes `subst` replaces replaced, rebuilt
    /// bottom-up through the circuit's folding and hash-consing (so that a
    /// gate whose operands become those of an existing gate is that gate);
    /// every node rebuilt is recorded in `subst`, so a later rebuilding
    /// reuses it. Where each replacement is equivalent to the node it
    /// replaces under some facts, so is the result to `l`.
    pub fn rebuild(&mut self, l: Lit, subst: &mut Substitution) -> Lit {
        // Iteratively, operands first: circuits are deep (closures).
        let mut stack = vec![(l.node(), false)];
        while let Some((n, expanded)) = stack.pop() {
            if subst.0.contains_key(&n) {
                continue;
            }
            let at = |subst: &Substitution, x: Lit| {
                subst
                    .0
                    .get(&x.node())
                    .map(|&r| if x.negated() { !r } else { r })
            };
            let rebuilt = match self.nodes[n] {
                Node::False => Lit::FALSE,
                Node::Input => Lit((n as u32) << 1),
                Node::And(a, b) => match (at(subst, a), at(subst, b)) {
                    (Some(a), Some(b)) => self.and(a, b),
                    _ if expanded => Lit::FALSE,
                    _ => {
                        stack.extend([(n, true), (a.node(), false), (b.node(), false)]);
                        continue;
                    }
                },
                Node::Acyclic(i) => {
                    let graph = self.graphs[i as usize].clone();
                    let edges: Option<Vec<Lit>> =
                        graph.edges.iter().map(|e| at(subst, e.2)).collect();
                    match edges {
                        Some(edges) => {
                            let m = graph.size;
                            let mut bits = vec![Lit::FALSE; m * m];
                            for (&(a, b, _), e) in graph.edges.iter().zip(edges) {
                                bits[a as usize * m + b as usize] = e;
                            }
                            self.acyclic(m, &bits)
                        }
                        None if expanded => Lit::FALSE,
                        None => {
                            stack.push((n, true));
                            stack.extend(graph.edges.iter().map(|e| (e.2.node(), false)));
                            continue;
                        }
                    }
                }
            };
            subst.0.insert(n, rebuilt);
        }
        let r = subst.0.get(&l.node()).copied().unwrap_or(Lit::FALSE);
        if l.negated() { !r } else { r }
    }

    /// The number of inputs.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The inputs, in the order they were created.
    pub fn input_lits(&self) -> impl Iterator<Item = Lit> + '_ {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n, Node::Input))
            .map(|(i, _)| Lit((i as u32) << 1))
    }
}

/// The replacements of a [`Circuit::rebuild`]: per node, the literal
/// that stands for it, those given and those rebuilt.
#[derive(Clone, Debug, Default)]
pub struct Substitution(FxHashMap<usize, Lit>);

impl Substitution {
    /// `from` is to be replaced by `to` (and `!from` by `!to`) in what is
    /// rebuilt after.
    pub fn replace(&mut self, from: Lit, to: Lit) {
        let to = if from.negated() { !to } else { to };
        self.0.insert(from.node(), to);
    }
}

fn lit_value(vals: &[bool], l: Lit) -> bool {
    vals[l.node()] != l.negated()
}

/// Every node's value under one assignment ([`Circuit::simulate`]).
#[derive(Clone, Debug)]
pub struct Values(Vec<bool>);

impl Values {
    /// The value of a literal.
    pub fn of(&self, l: Lit) -> bool {
        lit_value(&self.0, l)
    }
}
