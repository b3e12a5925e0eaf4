//! The SAT side: the gates a question reads, in CNF by the Tseitin
//! encoding, handed to `batsat`.
//!
//! `batsat` is a MiniSat-style CDCL solver in pure Rust: incremental
//! (clauses added between solves, so a proposal the check does not confirm
//! is blocked and the search asked again), with assumptions and a stop
//! callback (the search's deadline), and it builds for
//! `wasm32-unknown-unknown` like the rest of the library. Of the other
//! pure-Rust CDCL solvers, `varisat` has had no release since 2020 and
//! `splr` is incremental only behind a feature and is larger.
//!
//! Only the cone of an asserted literal is encoded, and each gate only in
//! the directions its uses read (Plaisted and Greenbaum's refinement of
//! the Tseitin encoding): a gate `g = a & b` read positively (where `g`
//! must hold) gets `!g | a` and `!g | b`, read negatively `g | !a | !b`,
//! the first time a literal asserted or assumed reads it that way.
//! [`Solver::full`] gives every gate all three (the oracle of the tests).

use super::{Circuit, Lit, Node, STOP_EVERY, StopWhen, Values};
use batsat::{BasicCallbacks, BasicSolver, SolverInterface, lbool};

/// What a solve found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// An assignment satisfying every assertion and assumption.
    Sat(Values),
    /// No assignment does.
    Unsat,
    /// The stop condition held before an answer.
    Stopped,
}

/// A SAT solver over the gates of one [`Circuit`].
pub struct Solver {
    sat: BasicSolver,
    /// The solver's variable of each circuit node encoded so far.
    vars: Vec<Option<batsat::Var>>,
    /// Per node, the directions of its definition encoded so far: 1 the
    /// clauses a positive use reads (the node implies its definition), 2
    /// those a negative use reads (its definition implies it).
    done: Vec<u8>,
    /// Whether every gate gets both directions (the plain Tseitin
    /// encoding) whatever its uses.
    full: bool,
    /// Whether an assertion made the clauses unsatisfiable.
    failed: bool,
    /// The stop condition, also asked while gates are encoded.
    stop: Option<StopWhen>,
    /// Whether it held while gates were encoded: the clauses are not the
    /// circuit's, and every solve answers [`Answer::Stopped`].
    stopped: bool,
    /// The decisions the current solve may still make
    /// ([`Solver::solve_within`]; `None`: no bound).
    budget: std::rc::Rc<std::cell::Cell<Option<u64>>>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl PartialEq for Values {
    fn eq(&self, other: &Values) -> bool {
        self.0 == other.0
    }
}

impl Eq for Values {}

impl Solver {
    /// A solver with no clause.
    pub fn new() -> Solver {
        Solver::with_stop(None)
    }

    /// A solver whose solves stop (answering [`Answer::Stopped`]) once
    /// `stop` says so; it is asked regularly during the search (between
    /// the solver's propagations) and every [`STOP_EVERY`] gates encoded.
    pub fn with_stop(stop: Option<StopWhen>) -> Solver {
        let mut cb = BasicCallbacks::new();
        let budget = std::rc::Rc::new(std::cell::Cell::new(None));
        {
            let f = stop.as_ref().map(|f| f.0.clone());
            let left = budget.clone();
            // Asked before each decision: a bounded solve spends one unit
            // of its budget per asking.
            cb.set_stop(move || {
                if let Some(n) = left.get() {
                    if n == 0 {
                        return true;
                    }
                    left.set(Some(n - 1));
                }
                f.as_ref().is_some_and(|f| f())
            });
        }
        Solver {
            sat: BasicSolver::new(Default::default(), cb),
            vars: Vec::new(),
            done: Vec::new(),
            full: false,
            failed: false,
            stop,
            stopped: false,
            budget,
        }
    }

    /// This solver with every gate encoded in both directions (the plain
    /// Tseitin encoding), whatever its uses; before any assertion.
    pub fn full(mut self) -> Solver {
        self.full = true;
        self
    }

    /// Whether the stop condition held while gates were encoded.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The solver literal of `l`, encoding its cone first for a use that
    /// needs `l` true (an assertion, an assumption, a clause's literal).
    fn lit(&mut self, c: &Circuit, l: Lit) -> batsat::Lit {
        let v = self.encode(c, l.node(), !l.negated());
        if self.stopped {
            return batsat::Lit::UNDEF;
        }
        batsat::Lit::new(v, !l.negated())
    }

    /// The solver variable of `node`, with the clauses a use of it with
    /// polarity `positive` needs (its own and its cone's), added once.
    /// Without [`Solver::full`], a gate read only positively gets only the
    /// clauses that make it imply its definition, one read only negatively
    /// only those that make its definition imply it (Plaisted and
    /// Greenbaum's encoding): an assignment of the clauses, read on the
    /// inputs, then gives every asserted and assumed literal its value
    /// (each encoded direction holds where it is read), and an
    /// unsatisfiable set of clauses means no input assignment satisfies the
    /// formulas. A later use with the other polarity adds the missing
    /// direction.
    fn encode(&mut self, c: &Circuit, node: usize, positive: bool) -> batsat::Var {
        if self.vars.len() < c.nodes.len() {
            self.vars.resize(c.nodes.len(), None);
            self.done.resize(c.nodes.len(), 0);
        }
        // Iteratively, children first: circuits are deep (closures).
        let mut stack = vec![(node, positive, false)];
        let mut made = 0usize;
        while let Some((n, pos, expanded)) = stack.pop() {
            let bit = if pos { 1u8 } else { 2u8 };
            let want = if self.full { 3u8 } else { bit };
            if self.done[n] & want == want {
                continue;
            }
            made += 1;
            if made.is_multiple_of(STOP_EVERY)
                && let Some(stop) = &self.stop
                && (stop.0)()
            {
                self.stopped = true;
                return batsat::Var::UNDEF;
            }
            match c.nodes[n] {
                Node::False => {
                    let v = self.sat.new_var_default();
                    self.sat
                        .add_clause_reuse(&mut vec![batsat::Lit::new(v, false)]);
                    self.vars[n] = Some(v);
                    self.done[n] = 3;
                }
                Node::Input => {
                    self.vars[n] = Some(self.sat.new_var_default());
                    self.done[n] = 3;
                }
                Node::And(a, b) => {
                    // The directions still to add, each reading its
                    // operands with its polarity (flipped by a negation).
                    let add = want & !self.done[n];
                    if !expanded {
                        stack.push((n, pos, true));
                        for (d, p) in [(1u8, true), (2u8, false)] {
                            if add & d != 0 {
                                stack.push((a.node(), p != a.negated(), false));
                                stack.push((b.node(), p != b.negated(), false));
                            }
                        }
                        continue;
                    }
                    let g = self.var_of(n);
                    let (la, lb) = (self.known(a), self.known(b));
                    let pg = batsat::Lit::new(g, true);
                    if add & 1 != 0 {
                        self.sat.add_clause_reuse(&mut vec![!pg, la]);
                        self.sat.add_clause_reuse(&mut vec![!pg, lb]);
                    }
                    if add & 2 != 0 {
                        self.sat.add_clause_reuse(&mut vec![pg, !la, !lb]);
                    }
                    self.done[n] |= add;
                }
                Node::Acyclic(i) => {
                    let graph = &c.graphs[i as usize];
                    let add = want & !self.done[n];
                    if !expanded {
                        stack.push((n, pos, true));
                        // Acyclic where it holds reads the edges
                        // negatively (an edge is in the order), cyclic
                        // where it does not positively (an edge leads on).
                        for (d, p) in [(1u8, false), (2u8, true)] {
                            if add & d != 0 {
                                stack.extend(
                                    graph
                                        .edges
                                        .iter()
                                        .map(|e| (e.2.node(), p != e.2.negated(), false)),
                                );
                            }
                        }
                        continue;
                    }
                    let g = batsat::Lit::new(self.var_of(n), true);
                    if add & 1 != 0 {
                        self.acyclic_order(graph, g);
                    }
                    if add & 2 != 0 {
                        self.cyclic_set(graph, g);
                    }
                    self.done[n] |= add;
                }
            }
        }
        self.vars[node].unwrap_or(batsat::Var::UNDEF)
    }

    /// The solver variable of `node`, made when first asked.
    fn var_of(&mut self, node: usize) -> batsat::Var {
        match self.vars[node] {
            Some(v) => v,
            None => {
                let v = self.sat.new_var_default();
                self.vars[node] = Some(v);
                v
            }
        }
    }

    /// The clauses that make `g` hold only where `graph` (its edges
    /// already encoded) is acyclic: where `g` holds, a strict order `o`
    /// over fresh variables (irreflexive and transitive: `!o(a, b) |
    /// !o(b, a)`, `!o(a, b) | !o(b, c) | o(a, c)`) contains every edge,
    /// which no cycle allows; an acyclic graph has one (its transitive
    /// closure). About `size^3` clauses of three literals.
    fn acyclic_order(&mut self, graph: &super::Graph, g: batsat::Lit) {
        let m = graph.size;
        let mut o = vec![batsat::Lit::UNDEF; m * m];
        for a in 0..m {
            for b in 0..m {
                if a != b {
                    o[a * m + b] = batsat::Lit::new(self.sat.new_var_default(), true);
                }
            }
        }
        for a in 0..m {
            for b in 0..m {
                if a == b {
                    continue;
                }
                if a < b {
                    self.sat
                        .add_clause_reuse(&mut vec![!o[a * m + b], !o[b * m + a]]);
                }
                for x in 0..m {
                    if x != a && x != b {
                        self.sat.add_clause_reuse(&mut vec![
                            !o[a * m + b],
                            !o[b * m + x],
                            o[a * m + x],
                        ]);
                    }
                }
            }
        }
        for &(a, b, l) in &graph.edges {
            let (a, b) = (a as usize, b as usize);
            let e = self.known(l);
            self.sat.add_clause_reuse(&mut vec![!g, !e, o[a * m + b]]);
        }
    }

    /// The clauses that make `g` hold where `graph` (its edges already
    /// encoded) is acyclic: where `g` does not hold, a non-empty set `s`
    /// of events over fresh variables each of which has an edge to an
    /// event of `s`, which only a cycle allows (following such edges from
    /// an event of a finite set comes back to an event already met); a
    /// cyclic graph has one (its cycle's events). One clause per event and
    /// two per edge. With [`Solver::acyclic_order`]'s, `g` is the graph's
    /// acyclicity under every assignment of its edges (each witness's
    /// clauses hold with the other witness empty), so it may be asserted,
    /// denied or left to the search.
    fn cyclic_set(&mut self, graph: &super::Graph, g: batsat::Lit) {
        let m = graph.size;
        let set: Vec<batsat::Lit> = (0..m)
            .map(|_| batsat::Lit::new(self.sat.new_var_default(), true))
            .collect();
        let mut onward: Vec<Vec<batsat::Lit>> = set.iter().map(|&s| vec![!s]).collect();
        for &(a, b, l) in &graph.edges {
            let (a, b) = (a as usize, b as usize);
            let e = self.known(l);
            let t = batsat::Lit::new(self.sat.new_var_default(), true);
            self.sat.add_clause_reuse(&mut vec![!t, e]);
            self.sat.add_clause_reuse(&mut vec![!t, set[b]]);
            onward[a].push(t);
        }
        for mut clause in onward {
            self.sat.add_clause_reuse(&mut clause);
        }
        let mut some = set;
        some.push(g);
        self.sat.add_clause_reuse(&mut some);
    }

    /// The solver literal of an already encoded literal.
    fn known(&self, l: Lit) -> batsat::Lit {
        let v = self.vars[l.node()].unwrap_or(batsat::Var::UNDEF);
        batsat::Lit::new(v, !l.negated())
    }

    /// Adds `l` as a fact.
    pub fn assert(&mut self, c: &Circuit, l: Lit) {
        if self.stopped {
            return;
        }
        match l.constant() {
            Some(true) => {}
            Some(false) => self.failed = true,
            None => {
                let x = self.lit(c, l);
                if self.stopped {
                    return;
                }
                if !self.sat.add_clause_reuse(&mut vec![x]) {
                    self.failed = true;
                }
            }
        }
    }

    /// Adds the clause `lits[0] | lits[1] | ...`.
    pub fn assert_any(&mut self, c: &Circuit, lits: &[Lit]) {
        if self.stopped || lits.contains(&Lit::TRUE) {
            return;
        }
        let mut clause: Vec<batsat::Lit> = lits
            .iter()
            .filter(|l| **l != Lit::FALSE)
            .map(|&l| self.lit(c, l))
            .collect();
        if self.stopped {
            return;
        }
        if clause.is_empty() || !self.sat.add_clause_reuse(&mut clause) {
            self.failed = true;
        }
    }

    /// Solves the assertions with `assume` true as well; a model gives
    /// every node of the circuit its value (inputs the clauses do not read
    /// are false).
    pub fn solve(&mut self, c: &Circuit, assume: &[Lit]) -> Answer {
        if self.stopped {
            return Answer::Stopped;
        }
        if self.failed || assume.contains(&Lit::FALSE) {
            return Answer::Unsat;
        }
        let assumps: Vec<batsat::Lit> = assume
            .iter()
            .filter(|l| **l != Lit::TRUE)
            .map(|&l| self.lit(c, l))
            .collect();
        if self.stopped {
            return Answer::Stopped;
        }
        let r = self.sat.solve_limited(&assumps);
        if r == lbool::TRUE {
            let vars = &self.vars;
            let sat = &self.sat;
            Answer::Sat(c.simulate(|input| {
                vars.get(input.node())
                    .copied()
                    .flatten()
                    .is_some_and(|v| sat.value_var(v) == lbool::TRUE)
            }))
        } else if r == lbool::FALSE {
            Answer::Unsat
        } else {
            Answer::Stopped
        }
    }

    /// [`Solver::solve`] within about `decisions` decisions: `None` when
    /// they ran out before an answer (the stop condition holding is
    /// [`Answer::Stopped`] as for `solve`).
    pub fn solve_within(&mut self, c: &Circuit, assume: &[Lit], decisions: u64) -> Option<Answer> {
        self.budget.set(Some(decisions));
        let answer = self.solve(c, assume);
        let out = self.budget.get() == Some(0) && answer == Answer::Stopped;
        self.budget.set(None);
        if out && !self.stop.as_ref().is_some_and(|f| (f.0)()) {
            return None;
        }
        Some(answer)
    }

    /// How many conflicts the solves so far met.
    pub fn conflicts(&self) -> u64 {
        self.sat.num_conflicts()
    }

    /// The solver's variables and clauses.
    pub fn size(&self) -> (u32, u64) {
        (self.sat.num_vars(), self.sat.num_clauses())
    }
}
