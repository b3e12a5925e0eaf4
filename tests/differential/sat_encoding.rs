//! The SAT encoding of `vkmm diff` against the concrete evaluation.
//!
//! The relation algebra of formulas (`relation::symbolic`) against the bit
//! matrices (`relation`): random operands whose entries are constants or
//! variables, a random assignment of the variables; every operation's
//! formulas, under the assignment, equal the concrete operation on the
//! operands' values. And the CNF handed to the solver against the circuit:
//! a model the solver returns satisfies the formula, and a formula it calls
//! unsatisfiable has no satisfying assignment (all tried).
//!
//! Each built-in model compiled into formulas (`cat::Model::symbolic`)
//! against the cat interpreter on concrete executions: every base name
//! the model reads is a matrix of fresh variables, the model is compiled
//! once per skeleton, and every candidate execution of the reference
//! enumeration fixes the variables to its own base relations; each check's
//! formula must then have the interpreter's verdict for that check, and
//! the race binding the model's profile names must be empty exactly when
//! the interpreter's is. This is what makes the symbolic search
//! trustworthy: a construct compiled wrongly shows as a check that
//! disagrees on some execution.

use proptest::prelude::*;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;
use vkmm::ir::Program;
use vkmm::model::LoadedModel;
use vkmm::testing::cat::{Env, Evaluation, SymEvaluation, SymValue, Value};
use vkmm::testing::engine::{Candidate, CheckError, Limits, Skeleton, Visitor, explore};
use vkmm::testing::relation::symbolic::{
    Answer, Circuit, Lit, STOP_EVERY, Solver, StopWhen, SymRel, SymSet,
};
use vkmm::testing::relation::{EventSet, Relation};

/// An entry: 0 false, 1 true, 2 a variable.
fn entries(n: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0u8..3, n * n)
}

fn build(c: &mut Circuit, kinds: &[u8]) -> Vec<Lit> {
    kinds
        .iter()
        .map(|k| match k {
            0 => Lit::FALSE,
            1 => Lit::TRUE,
            _ => c.input(),
        })
        .collect()
}

/// The assignment giving the `i`-th input created the `i`-th bit of `bits`.
fn assignment(c: &Circuit, bits: &[bool]) -> impl Fn(Lit) -> bool + use<> {
    let order: std::collections::HashMap<Lit, bool> = c
        .input_lits()
        .enumerate()
        .map(|(i, l)| (l, bits.get(i).copied().unwrap_or(false)))
        .collect();
    move |l| order.get(&l).copied().unwrap_or(false)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn symbolic_operations_match_the_bit_matrices(
        n in 1usize..6,
        seed in any::<u64>(),
        bits in proptest::collection::vec(any::<bool>(), 200),
    ) {
        let mut rng = seed;
        let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; (rng % 3) as u8 };
        let kr: Vec<u8> = (0..n * n).map(|_| next()).collect();
        let ks: Vec<u8> = (0..n * n).map(|_| next()).collect();
        let kset: Vec<u8> = (0..n).map(|_| next()).collect();
        let mut c = Circuit::new();
        let r = SymRel::from_lits(n, build(&mut c, &kr));
        let s = SymRel::from_lits(n, build(&mut c, &ks));
        let t = SymSet::from_lits(build(&mut c, &kset));
        let ops: Vec<(&str, SymRel)> = vec![
            ("union", r.union(&mut c, &s)),
            ("inter", r.inter(&mut c, &s)),
            ("diff", r.diff(&mut c, &s)),
            ("compose", r.compose(&mut c, &s)),
            ("inverse", r.inverse()),
            ("complement", r.complement()),
            ("closure", r.closure(&mut c)),
            ("reflexive closure", r.reflexive_closure(&mut c)),
            ("optional", r.reflexive(&mut c)),
            ("[S]", SymRel::identity_on(&t)),
            ("[S];r", r.restrict_domain(&mut c, &t)),
            ("r;[S]", r.restrict_range(&mut c, &t)),
            ("S*S", SymRel::product(&mut c, &t, &t.complement())),
        ];
        let checks = [
            ("acyclic", r.is_acyclic(&mut c)),
            ("irreflexive", r.is_irreflexive(&mut c)),
            ("empty", r.is_empty(&mut c)),
            ("empty set", t.is_empty(&mut c)),
        ];
        let sets = [("domain", r.domain(&mut c)), ("range", r.range(&mut c))];
        let v = c.simulate(assignment(&c, &bits));
        let (cr, cs, ct) = (r.value(&v), s.value(&v), t.value(&v));
        let expected: Vec<Relation> = vec![
            cr.union(&cs),
            cr.inter(&cs),
            cr.diff(&cs),
            cr.compose(&cs),
            cr.inverse(),
            cr.complement(),
            cr.transitive_closure(),
            cr.reflexive_transitive_closure(),
            cr.reflexive_closure(),
            Relation::identity_on(&ct),
            cr.restrict_domain(&ct),
            cr.restrict_range(&ct),
            Relation::product(&ct, &ct.complement()),
        ];
        for ((name, sym), want) in ops.iter().zip(&expected) {
            prop_assert_eq!(&sym.value(&v), want, "{}", name);
        }
        let want = [cr.is_acyclic(), cr.is_irreflexive(), cr.is_empty(), ct.is_empty()];
        for ((name, l), w) in checks.iter().zip(want) {
            prop_assert_eq!(v.of(*l), w, "{}", name);
        }
        let want: [EventSet; 2] = [cr.domain(), cr.range()];
        for ((name, s), w) in sets.iter().zip(want) {
            prop_assert_eq!(&s.value(&v), &w, "{}", name);
        }
        // A constant operand folds to a constant result: no gate.
        let before = c.gates();
        let k = SymRel::constant(&cr);
        let folded = k.compose(&mut c, &k).closure(&mut c);
        prop_assert_eq!(c.gates(), before);
        prop_assert_eq!(folded.as_constant(), Some(cr.compose(&cr).transitive_closure()));
    }

    #[test]
    fn the_solver_agrees_with_the_circuit(
        n in 1usize..4,
        kinds in entries(3),
        extra in proptest::collection::vec(0u8..3, 9),
    ) {
        // A formula: acyclic(r) and not empty(r & r^-1 restricted) etc.
        let mut c = Circuit::new();
        let mut ks = kinds.clone();
        ks.extend(extra);
        ks.truncate(n * n);
        while ks.len() < n * n { ks.push(2); }
        let r = SymRel::from_lits(n, build(&mut c, &ks));
        let acyclic = r.is_acyclic(&mut c);
        let inv = r.inverse();
        let both = r.inter(&mut c, &inv);
        let symmetric_pair = !both.is_empty(&mut c);
        let f = c.and(acyclic, symmetric_pair);
        let irr = r.is_irreflexive(&mut c);
        let g = c.and(!acyclic, irr);
        for goal in [f, g, acyclic] {
            let mut s = Solver::new();
            s.assert(&c, goal);
            let inputs = c.inputs();
            match s.solve(&c, &[]) {
                Answer::Sat(v) => prop_assert!(v.of(goal)),
                Answer::Unsat => {
                    for m in 0..(1u32 << inputs) {
                        let bits: Vec<bool> = (0..inputs).map(|i| m >> i & 1 == 1).collect();
                        let v = c.simulate(assignment(&c, &bits));
                        prop_assert!(!v.of(goal), "unsat, but {:?} satisfies it", bits);
                    }
                }
                Answer::Stopped => prop_assert!(false, "no stop condition was given"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `acyclic` as one node (an order or a cycle as the solver's witness)
    /// and Warshall's closure against the closure by iterated squaring they
    /// replace, on relations of up to seven events whose entries are
    /// constants or variables (mostly false, so that the events are
    /// pruned in some and not in others): no assignment makes any of their
    /// formulas differ (the solver is complete, so an unsatisfiable
    /// difference is none), and each of `acyclic` and its negation is
    /// satisfiable exactly when the oracle's is, with a model whose
    /// relation has that acyclicity.
    #[test]
    fn acyclicity_and_closure_match_the_squaring_oracle(n in 1usize..8, seed in any::<u64>()) {
        let mut rng = seed | 1;
        let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; rng % 8 };
        let kinds: Vec<u8> = (0..n * n)
            .map(|_| match next() { 0 => 1, 1..=3 => 2, _ => 0 })
            .collect();
        let mut c = Circuit::new();
        let r = SymRel::from_lits(n, build(&mut c, &kinds));
        let acyclic = r.is_acyclic(&mut c);
        let oracle = r.is_acyclic_by_closure(&mut c);
        let warshall = r.closure(&mut c);
        let squared = r.closure_by_squaring(&mut c);
        let mut differ = vec![!c.iff(acyclic, oracle)];
        for a in 0..n {
            for b in 0..n {
                differ.push(!c.iff(warshall.get(a, b), squared.get(a, b)));
            }
        }
        let any = c.or_all(differ);
        prop_assert_eq!(Solver::new().solve(&c, &[any]), Answer::Unsat);
        for (new, old) in [(acyclic, oracle), (!acyclic, !oracle)] {
            let want = matches!(Solver::new().solve(&c, &[old]), Answer::Sat(_));
            match Solver::new().solve(&c, &[new]) {
                Answer::Sat(v) => {
                    prop_assert!(want);
                    prop_assert_eq!(r.value(&v).is_acyclic(), v.of(acyclic));
                }
                other => prop_assert!(!want, "{:?}", other),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The encoding by polarity (a gate gets only the clauses its uses
    /// read) against the plain Tseitin encoding it replaces
    /// (`Solver::full`), on one incremental solver each: formulas over a
    /// random relation of up to five events (acyclicity nodes, and gates
    /// read both ways) asserted one after another, each solve assuming
    /// another formula in either polarity, so that a gate first read one
    /// way is later read the other. Each solve is satisfiable exactly when
    /// the oracle's is, and a model satisfies every assertion and
    /// assumption so far.
    #[test]
    fn the_encoding_by_polarity_matches_the_full_encoding(
        n in 1usize..6,
        seed in any::<u64>(),
        steps in proptest::collection::vec((0usize..6, 0usize..6, any::<bool>()), 1..5),
    ) {
        let mut rng = seed | 1;
        let mut next = move || { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; rng % 8 };
        let kinds: Vec<u8> = (0..n * n)
            .map(|_| match next() { 0 => 1, 1..=4 => 2, _ => 0 })
            .collect();
        let mut c = Circuit::new();
        let r = SymRel::from_lits(n, build(&mut c, &kinds));
        let acyclic = r.is_acyclic(&mut c);
        let closure = r.closure(&mut c);
        let inv = r.inverse();
        let sym = r.inter(&mut c, &inv);
        let some_sym = !sym.is_empty(&mut c);
        let reach_back = closure.inter(&mut c, &inv);
        let loops = !reach_back.is_empty(&mut c);
        let irr = r.is_irreflexive(&mut c);
        let formulas = [
            acyclic,
            some_sym,
            loops,
            c.iff(acyclic, irr),
            c.or(acyclic, some_sym),
            c.and(!acyclic, irr),
        ];
        let mut pg = Solver::new();
        let mut full = Solver::new().full();
        let mut asserted = Vec::new();
        for (a, b, neg) in steps {
            let fact = formulas[a];
            let assume = if neg { !formulas[b] } else { formulas[b] };
            pg.assert(&c, fact);
            full.assert(&c, fact);
            asserted.push(fact);
            let want = full.solve(&c, &[assume]);
            match pg.solve(&c, &[assume]) {
                Answer::Sat(v) => {
                    prop_assert!(matches!(want, Answer::Sat(_)), "{:?}", want);
                    prop_assert!(v.of(assume));
                    for &f in &asserted {
                        prop_assert!(v.of(f));
                    }
                }
                other => prop_assert_eq!(other, want),
            }
        }
    }
}

/// A gate read one way only gets only that direction's clauses: a
/// conjunction chain asserted true costs two clauses per gate where the
/// full encoding gives three, and reading it the other way later adds the
/// rest.
#[test]
fn a_gate_read_one_way_gets_only_that_directions_clauses() {
    let mut c = Circuit::new();
    let xs: Vec<Lit> = (0..10).map(|_| c.input()).collect();
    let mut chain = xs[0];
    for &x in &xs[1..] {
        chain = c.and(chain, x);
    }
    let other = c.input();
    let clause = [chain, other];
    let mut pg = Solver::new();
    let mut full = Solver::new().full();
    pg.assert_any(&c, &clause);
    full.assert_any(&c, &clause);
    let (_, pg_clauses) = pg.size();
    let (_, full_clauses) = full.size();
    // Nine gates: 2 clauses each against 3, and the clause asserted.
    assert_eq!(pg_clauses, 9 * 2 + 1);
    assert_eq!(full_clauses, 9 * 3 + 1);
    // Read negatively too, the chain gets its missing direction.
    pg.assert_any(&c, &[!chain, other]);
    full.assert_any(&c, &[!chain, other]);
    assert_eq!(pg.size().1, full.size().1);
}

/// An acyclicity whose answer the constants decide costs no node: a chain
/// of certain edges is acyclic, a certain cycle is not (with a variable
/// edge besides), and an event no edge can leave is no part of a cycle
/// (its variable edge in is dropped: the relation is acyclic whatever it
/// is); a cycle through a variable edge is one node.
#[test]
fn a_decided_acyclicity_folds_to_a_constant() {
    let mut c = Circuit::new();
    let x = c.input();
    let (f, t) = (Lit::FALSE, Lit::TRUE);
    let before = c.gates();
    let chain = SymRel::from_lits(3, vec![f, t, f, f, f, t, f, f, f]);
    assert_eq!(chain.is_acyclic(&mut c), Lit::TRUE);
    let cycle = SymRel::from_lits(3, vec![f, t, x, f, f, t, t, f, f]);
    assert_eq!(cycle.is_acyclic(&mut c), Lit::FALSE);
    let dead_end = SymRel::from_lits(3, vec![f, t, x, f, f, f, f, f, f]);
    assert_eq!(dead_end.is_acyclic(&mut c), Lit::TRUE);
    assert_eq!(c.gates(), before);
    // A cycle through the variable edge: undecided, one node.
    let open = SymRel::from_lits(3, vec![f, t, f, f, f, t, x, f, f]);
    let l = open.is_acyclic(&mut c);
    assert_eq!(l.constant(), None);
    assert_eq!(c.gates(), before + 1);
}

/// A stop condition that holds from its `after`-th asking on, counting
/// the askings.
fn stop_after(after: usize) -> (StopWhen, std::rc::Rc<std::cell::Cell<usize>>) {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let a = asked.clone();
    (
        StopWhen(std::rc::Rc::new(move || {
            a.set(a.get() + 1);
            a.get() >= after
        })),
        asked,
    )
}

/// The transitive closure of a 26 x 26 relation of variables: tens of
/// thousands of gates, so a stop condition asked every `STOP_EVERY` gates
/// is asked several times.
fn big_closure(c: &mut Circuit) -> SymRel {
    let n = 26;
    let r = SymRel::from_lits(n, (0..n * n).map(|_| c.input()).collect());
    r.closure(c)
}

/// A circuit whose stop condition holds stops building: it was asked once
/// per `STOP_EVERY` gates until it held, says so, and builds no gate after
/// (every new gate is the constant false); without the condition, the same
/// formulas are built whole.
#[test]
fn a_circuit_stops_building_when_its_stop_condition_holds() {
    let mut whole = Circuit::new();
    big_closure(&mut whole);
    assert!(!whole.stopped());
    assert!(whole.gates() > 4 * STOP_EVERY, "{} gates", whole.gates());
    let (stop, asked) = stop_after(3);
    let mut c = Circuit::with_stop(stop);
    big_closure(&mut c);
    assert!(c.stopped());
    assert_eq!(asked.get(), 3);
    assert!(c.gates() < 3 * STOP_EVERY, "{} gates", c.gates());
    let gates = c.gates();
    let (x, y) = (c.input(), c.input());
    assert_eq!(c.and(x, y), Lit::FALSE);
    assert_eq!(c.gates(), gates);
    // A condition that never holds changes nothing.
    let (never, asked) = stop_after(usize::MAX);
    let mut c = Circuit::with_stop(never);
    big_closure(&mut c);
    assert!(!c.stopped());
    assert_eq!(c.gates(), whole.gates());
    assert!(asked.get() >= 4);
}

/// The pigeonhole formula of 9 pigeons and 8 holes (each pigeon in some
/// hole, no hole holding two): unsatisfiable, and not by propagation
/// alone.
fn pigeonhole(c: &mut Circuit) -> Lit {
    let (p, h) = (9, 8);
    let x: Vec<Vec<Lit>> = (0..p)
        .map(|_| (0..h).map(|_| c.input()).collect())
        .collect();
    let mut facts = Vec::new();
    for row in &x {
        facts.push(c.or_all(row.iter().copied()));
    }
    for j in 0..h {
        let col: Vec<Lit> = x.iter().map(|row| row[j]).collect();
        facts.push(c.at_most_one(&col));
    }
    c.and_all(facts)
}

/// A solver whose stop condition holds answers `Stopped`, never Sat nor
/// Unsat: on the pigeonhole formula (9 pigeons, 8 holes: unsatisfiable,
/// and not by propagation alone) when the condition holds at the first
/// asking; and while encoding a circuit of more than `STOP_EVERY` gates,
/// after which every solve answers `Stopped`. The same formulas without
/// the condition: Unsat, and Sat.
#[test]
fn a_solver_stops_when_its_stop_condition_holds() {
    let mut c = Circuit::new();
    let f = pigeonhole(&mut c);
    let mut s = Solver::new();
    s.assert(&c, f);
    assert_eq!(s.solve(&c, &[]), Answer::Unsat);
    let (stop, _) = stop_after(1);
    let mut s = Solver::with_stop(Some(stop));
    s.assert(&c, f);
    assert_eq!(s.solve(&c, &[]), Answer::Stopped);
    // Stopped while encoding: the closure's gates.
    let mut c = Circuit::new();
    let r = big_closure(&mut c);
    let goal = !r.is_empty(&mut c);
    let mut s = Solver::new();
    s.assert(&c, goal);
    assert!(matches!(s.solve(&c, &[]), Answer::Sat(_)));
    let (stop, asked) = stop_after(1);
    let mut s = Solver::with_stop(Some(stop));
    s.assert(&c, goal);
    assert!(s.stopped());
    assert_eq!(asked.get(), 1);
    assert_eq!(s.solve(&c, &[]), Answer::Stopped);
    assert_eq!(s.solve(&c, &[goal]), Answer::Stopped);
}

/// One skeleton's symbolic model: the circuit, each base name's matrix of
/// variables, the compiled model.
struct Compiled {
    circuit: Circuit,
    vars: HashMap<String, SymValue>,
    eval: SymEvaluation,
}

struct Compare<'m> {
    model: &'m LoadedModel,
    compiled: Option<Compiled>,
    candidates: u64,
    /// Candidates consistent under the model (so that a test over none
    /// would show).
    consistent: u64,
    mismatches: Vec<String>,
}

/// The base value `name` has in the candidate: the dynamic names from the
/// candidate, the rest from the skeleton.
fn concrete<'a>(sk: &'a Skeleton, env: &'a Env, name: &str) -> Option<&'a Value> {
    env.get(name).or_else(|| sk.static_env.get(name))
}

impl Visitor for Compare<'_> {
    fn may_prune(&self) -> bool {
        false
    }

    fn skeleton(&mut self, _sk: &Skeleton) {
        self.compiled = None;
    }

    fn visit(
        &mut self,
        sk: &Skeleton,
        cand: &Candidate,
        eval: &Evaluation,
    ) -> Result<ControlFlow<()>, CheckError> {
        let n = sk.universe();
        if self.compiled.is_none() {
            // Every base name a fresh matrix of variables, its kind (set or
            // relation) the one the engine provides.
            let mut circuit = Circuit::new();
            let mut vars = HashMap::new();
            for name in self.model.cat.free_names() {
                let v = match concrete(sk, &cand.env, &name) {
                    Some(Value::Set(_)) => {
                        SymValue::Set(SymSet::from_lits((0..n).map(|_| circuit.input()).collect()))
                    }
                    Some(Value::Rel(_)) => SymValue::Rel(SymRel::from_lits(
                        n,
                        (0..n * n).map(|_| circuit.input()).collect(),
                    )),
                    _ => continue,
                };
                vars.insert(name, v);
            }
            let eval = self
                .model
                .cat
                .symbolic(&mut circuit, &SymSet::full(n), &|name| {
                    vars.get(name).cloned()
                })
                .expect("every built-in model compiles symbolically");
            self.compiled = Some(Compiled {
                circuit,
                vars,
                eval,
            });
        }
        let Some(comp) = &mut self.compiled else {
            return Ok(ControlFlow::Break(()));
        };
        self.candidates += 1;
        // The candidate's values of the variables.
        let mut value: HashMap<Lit, bool> = HashMap::new();
        for (name, v) in &comp.vars {
            match (v, concrete(sk, &cand.env, name)) {
                (SymValue::Set(s), Some(Value::Set(x))) => {
                    for e in 0..n {
                        value.insert(s.get(e), x.contains(e));
                    }
                }
                (SymValue::Rel(r), Some(Value::Rel(x))) => {
                    for a in 0..n {
                        for b in 0..n {
                            value.insert(r.get(a, b), x.contains(a, b));
                        }
                    }
                }
                _ => self.mismatches.push(format!(
                    "{name}: not the kind it had on the first candidate"
                )),
            }
        }
        let vals = comp
            .circuit
            .simulate(|l| value.get(&l).copied().unwrap_or(false));
        if eval.consistent() {
            self.consistent += 1;
        }
        for (sym, conc) in comp.eval.checks.iter().zip(&eval.checks) {
            if vals.of(sym.passed) != conc.passed {
                self.mismatches.push(format!(
                    "check {}: formula {} interpreter {} (rf {:?})",
                    conc.name,
                    vals.of(sym.passed),
                    conc.passed,
                    cand.rf_source
                ));
            }
        }
        let consistent = comp.eval.consistent(&mut comp.circuit);
        let vals = comp
            .circuit
            .simulate(|l| value.get(&l).copied().unwrap_or(false));
        if vals.of(consistent) != eval.consistent() {
            self.mismatches.push("consistency".into());
        }
        if let Some(races) = &self.model.profile.races
            && let (Some(sym), Some(Value::Rel(r))) = (comp.eval.lookup(races), eval.lookup(races))
            && let Some(s) = sym.as_rel(n)
            && s.value(&vals) != *r
        {
            self.mismatches.push(format!("race binding {races}"));
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Compares the model's formulas with the interpreter on every candidate of
/// `program`: (candidates, consistent ones).
fn compare(model: &LoadedModel, program: &Program, file: &str) -> (u64, u64) {
    let mut v = Compare {
        model,
        compiled: None,
        candidates: 0,
        consistent: 0,
        mismatches: Vec::new(),
    };
    let limits = Limits::default().reference().for_model(model);
    explore(program, model, limits, &mut v).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        v.mismatches.is_empty(),
        "{} on {file}: {:?}",
        model.name,
        &v.mismatches[..v.mismatches.len().min(5)]
    );
    (v.candidates, v.consistent)
}

/// The litmus files of a fixture folder, sorted, at most `max`.
fn files(dir: &str, ext: &str, max: usize) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    out.sort();
    out.truncate(max);
    out
}

/// Every built-in model of the Vulkan family and of the OpenCL family on
/// litmus tests of its dialect: each check's formula has the interpreter's
/// verdict on every candidate execution.
#[test]
fn every_builtin_models_formulas_agree_with_the_interpreter() {
    let vulkan: Vec<_> = files("tests/fixtures/litmus", "test", 12)
        .into_iter()
        .chain(files("examples", "test", 2))
        .collect();
    let opencl = files("tests/fixtures/litmus-opencl", "litmus", 10);
    let interlock = files("tests/fixtures/litmus-interlock", "litmus", 10);
    let mut total = 0;
    for (name, _, _) in vkmm::model::BUILTIN {
        let model = vkmm::model::load(name).unwrap();
        // ptx.cat reads OpenCL C programs (the carriers of PTX
        // instructions, docs/mappings.md); the POPS models, fragment
        // shader interlock tests.
        let corpus = if name.starts_with("opencl") || *name == "ptx" {
            &opencl
        } else if name.starts_with("vulkan") {
            &vulkan
        } else if name.starts_with("pops") {
            &interlock
        } else {
            panic!("{name}: no corpus for this built-in model");
        };
        let (mut cands, mut consistent) = (0, 0);
        for f in corpus {
            let Ok(program) = vkmm::frontend::load(f) else {
                continue;
            };
            let (c, k) = compare(&model, &program, &f.display().to_string());
            cands += c;
            consistent += k;
        }
        assert!(
            cands > 20 && consistent > 0,
            "{name}: {cands} candidates, {consistent} consistent"
        );
        total += cands;
    }
    assert!(total > 500, "{total} candidates compared");
}

/// A solve bounded in decisions that runs out answers `None`, and leaves
/// the solver as it was: on the pigeonhole formula (9 pigeons, 8 holes:
/// unsatisfiable, and needing far more than ten decisions) a bound of ten
/// runs out, and the unbounded solve after it still answers Unsat; a
/// satisfiable formula is answered within a generous bound; a stop
/// condition that holds is `Some(Stopped)`, never a bound run out.
#[test]
fn a_solve_bounded_in_decisions_runs_out_without_answering() {
    let mut c = Circuit::new();
    let f = pigeonhole(&mut c);
    let mut s = Solver::new();
    s.assert(&c, f);
    assert_eq!(s.solve_within(&c, &[], 10), None);
    assert_eq!(s.solve(&c, &[]), Answer::Unsat);
    let (a, b) = (c.input(), c.input());
    let g = c.or(a, b);
    let mut s = Solver::new();
    s.assert(&c, g);
    assert!(matches!(
        s.solve_within(&c, &[!a], 1_000),
        Some(Answer::Sat(_))
    ));
    let (stop, _) = stop_after(1);
    let mut s = Solver::with_stop(Some(stop));
    s.assert(&c, f);
    assert_eq!(s.solve_within(&c, &[], 10), Some(Answer::Stopped));
}
