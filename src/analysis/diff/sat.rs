//! The symbolic search of `vkmm diff`: every execution of a bound as one
//! SAT question (Memalloy's approach, Wickerson et al., POPL'17, with the
//! relational bounds of Alloy/Kodkod).
//!
//! For a number of threads and their placement in workgroups and
//! subgroups, the bound's event slots (`threads x events`, thread by
//! thread in program order) each get a presence bit, one instruction of
//! the vocabulary and one location (one-hot variables); a thread's present
//! events come first and the present threads first. The base names the two
//! models read are matrices of formulas over those variables, derived from
//! what `engine::base` computes for a concrete program: a *probe* test
//! (each thread holds every instruction of the vocabulary once, at the
//! placement) is built by the engine, and a set's or relation's entry for
//! slots holding instructions `o` and `o'` is the probe's entry for the
//! events of `o` and `o'` in those threads; what depends on the whole
//! program or on locations is derived here as `base.rs` derives it (`po`,
//! `sloc`, `sref`, `ATOMICLOC`, the dense storage classes `DSCk` and
//! `DSEMSCk`, and `scbarinst`: a control barrier's dynamic instance is its
//! static instance and how many of the thread's earlier barriers have
//! that static instance, counted over the slots). The dynamic names are
//! variables: `rf` (each present read reads one write of its location or
//! the initial value, `RFINIT`), and the modification orders as
//! `engine::choices` lists them: one strict total order over the slots,
//! `co` its restriction to the writes of one location (to the atomic
//! writes unless the model's `co` is total) and `asmo` to the
//! mutually-ordered atomic pairs, kept when transitive.
//!
//! Both models are compiled over the present events (`cat::Model::symbolic`)
//! and the question is: an execution consistent under one model and not
//! the other, or under both with a race under one only, with exactly `k`
//! present events. A model's answer is decoded into the skeleton the
//! enumeration uses, which the caller searches as before (candidates,
//! confirmation by the ordinary check, minimisation); a proposal that does
//! not give a confirmed test is blocked by a clause and the solver asked
//! again. An unsatisfiable question at `k` means no test of `k` events at
//! that placement.

use super::{Kind, Op, Pair, Shape};
use crate::cat::SymValue;
use crate::engine::LimitKind;
use crate::engine::{Limits, Skeleton};
use crate::model::{LoadedModel, names};
use crate::relation::symbolic::{
    Answer, Circuit, Lit, Solver, StopWhen, Substitution, SymRel, SymSet,
};
use crate::relation::{EventSet, Relation};
use std::collections::HashMap;

/// What stopped a question before an answer: the deadline
/// ([`LimitKind::Timeout`]) or the memory bound ([`LimitKind::MaxMemory`]),
/// reached while the formulas were built, encoded or solved.
pub(in crate::analysis) struct Stop(pub(in crate::analysis) LimitKind);

/// Why a question was not asked.
pub(in crate::analysis) enum NotAsked {
    /// What the symbolic search does not take (the caller falls back to
    /// the enumeration).
    Unsupported(String),
    /// A limit stopped the building of the question.
    Stopped(Stop),
}

impl From<String> for NotAsked {
    fn from(why: String) -> NotAsked {
        NotAsked::Unsupported(why)
    }
}

/// The limits one question stops at: the deadline and the memory bound,
/// asked while its formulas are built, encoded and solved; the first that
/// held is kept, so that the answer names it even after the memory the
/// building held is freed.
pub(super) struct Reach {
    deadline: Option<web_time::Instant>,
    max_memory: Option<usize>,
    reached: std::cell::Cell<Option<LimitKind>>,
}

impl Reach {
    /// Whether a limit holds now (or held before).
    fn reached(&self) -> bool {
        if self.reached.get().is_none() {
            if crate::memory::over(self.max_memory) {
                self.reached.set(Some(LimitKind::MaxMemory));
            } else if self.deadline.is_some_and(|d| web_time::Instant::now() >= d) {
                self.reached.set(Some(LimitKind::Timeout));
            }
        }
        self.reached.get().is_some()
    }

    /// The limit that stopped the question.
    fn stop(&self) -> Stop {
        self.reached();
        Stop(self.reached.get().unwrap_or(LimitKind::Timeout))
    }
}

/// One SAT question: a placement of `threads` threads (all present) with up
/// to `events` events each.
pub(in crate::analysis) struct Query {
    /// The limits the question stops at.
    limits: std::rc::Rc<Reach>,
    c: Circuit,
    solver: Solver,
    threads: usize,
    events: usize,
    slots: Slots,
    /// Exactly `k` events present, by `k`.
    sizes: Vec<Lit>,
    place: Vec<(usize, usize)>,
    /// What the tests read back: every base name's formulas, the order
    /// variables and the well-formedness facts.
    #[cfg_attr(not(test), allow(dead_code))]
    encoding: Encoding,
    /// A mapping check's race filter, which learns from the racy source
    /// tests the listings find (`mapping::Learner`); none for `vkmm diff`.
    learner: Option<(mapping::Learner, Skeleton)>,
    /// What every question assumes besides its size (`vkmm diff`: that the
    /// models differ; true for a mapping check).
    asks: Lit,
    /// The pairs of formulas the sweep is still to compare ([`sweep_pairs`]),
    /// emptied when it runs.
    pending: Vec<(Lit, Lit)>,
    /// Whether the models differ on the execution (what `asks` implies;
    /// false for a mapping check).
    differ: Lit,
    /// The clauses of the skeletons blocked so far ([`Query::block`]),
    /// which the sweep's solver takes over.
    blocked: Vec<Vec<Lit>>,
    /// Facts of the question not yet handed to the solver: each is asserted
    /// once an answer breaks it, and the question asked again
    /// ([`Query::next`]).
    lazy: Vec<Lit>,
    /// What the solver did so far (what `VKMM_SAT_STATS` prints).
    pub(in crate::analysis) stats: QueryStats,
}

/// What one question cost: printed per question by a mapping check when
/// the environment variable `VKMM_SAT_STATS` is set (a measuring aid, not
/// part of the report).
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::analysis) struct QueryStats {
    /// The circuit's gates when the question was built.
    pub(in crate::analysis) gates: usize,
    /// The solver's variables and clauses when the question was built.
    pub(in crate::analysis) vars: u32,
    pub(in crate::analysis) clauses: u64,
    /// The solver's calls and how many of them found an assignment.
    pub(in crate::analysis) calls: u64,
    pub(in crate::analysis) answers: u64,
    /// The lazy facts handed to the solver.
    pub(in crate::analysis) lazy: u64,
    /// The lazy facts built with the question.
    pub(in crate::analysis) lazy_built: u64,
    /// Time spent in the solver's calls.
    pub(in crate::analysis) solving: std::time::Duration,
}

/// How many conflicts the solver meets on a question's unsatisfiable
/// sizes before the sweep runs: a pair of models that differs shows it in
/// the first sizes, where the sweep would cost more than the search.
const SWEEP_AFTER: u64 = 5_000;

/// What a sweep found of its pairs: equal by structure once rebuilt, equal
/// by a proof, told apart (by a proof or an earlier answer), undecided.
#[derive(Clone, Copy, Debug, Default)]
#[cfg_attr(not(test), allow(dead_code))]
pub(super) struct Swept {
    structural: usize,
    proved: usize,
    apart: usize,
    undecided: usize,
}

/// How many decisions the sweep gives one comparison before leaving the
/// pair as it is.
const SWEEP_DECISIONS: u64 = 20_000;

/// The formulas of one question that its tests instantiate at concrete
/// executions (module `tests`; kept, not read, outside them).
#[cfg_attr(not(test), allow(dead_code))]
struct Encoding {
    base: HashMap<String, SymValue>,
    /// The strict total order over the slots `co` and `asmo` restrict.
    lt: SymRel,
    /// Every fact but the models' difference and the size.
    facts: Vec<Lit>,
    /// The circuit's nodes when the base names were built (the models'
    /// formulas come after).
    nodes: usize,
}

/// The names the engine computes per candidate execution.
fn dynamic(name: &str) -> bool {
    names::DYNAMIC_NAMES.contains(&name)
}

/// Why a question over a control barrier of another kind than the plain
/// one is not asked.
fn control_barriers() -> NotAsked {
    NotAsked::Unsupported(
        "named control barriers, barriers with a quorum and group functions (which of their arrivals meet is not encoded)".into(),
    )
}

/// How the static instance of a control barrier instruction is numbered in
/// the programs the slots stand for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Instance {
    /// The slot's id ([`Side::ids`]): the number of the thread's earlier
    /// barriers the program numbers (`Shape::render` numbers a thread's
    /// control barriers 0, 1, ... in program order).
    Counted,
    /// The same number wherever it is (a Vulkan-dialect barrier written
    /// with its number).
    Fixed(u32),
    /// The number of the thread's earlier barriers of the same execution
    /// scope (the OpenCL dialect's `barrier` and `sub_group_barrier`, and
    /// PTX's `bar.sync`, carried into it: "the k-th barrier (in program
    /// text) of each thread of a workgroup shares one instance id").
    PerScope,
}

/// The control barriers among a probe's instructions: each one's execution
/// scope and how its static instance is numbered, and which threads share
/// an instance of each such scope. In a straight-line program a barrier
/// event's dynamic instance is its static instance and the number of the
/// thread's earlier barriers with that static instance (`engine::barrier`:
/// the pass count), met by the barriers of the same dynamic instance and
/// execution scope in the threads of one instance of that scope, whether
/// every member of the scope instance reaches it or not (a divergent test
/// is kept, as the enumeration keeps it).
#[derive(Clone)]
pub(super) struct Barriers {
    /// Per probe instruction of a thread: its execution scope and static
    /// instance, for a control barrier.
    forms: Vec<Option<(crate::ir::Scope, Instance)>>,
    /// Per execution scope among `forms`: whether threads `ta` and `tb`
    /// are in one instance of it.
    same: Vec<(crate::ir::Scope, Vec<Vec<bool>>)>,
}

impl Barriers {
    /// The control barriers of `probe` (the probe test `program`, each of
    /// its threads holding `nops` instructions, one event each): `None`
    /// when it has none. `number(o, n)`: how instruction `o`'s static
    /// instance is numbered in the programs the slots stand for (`n`: the
    /// probe's number). Named barriers, barriers with a quorum and group
    /// functions are not encoded.
    pub(super) fn of(
        program: &crate::ir::Program,
        probe: &Skeleton,
        nops: usize,
        number: &dyn Fn(usize, u32) -> Instance,
    ) -> Result<Option<Barriers>, NotAsked> {
        let mut forms = vec![None; nops];
        for (o, form) in forms.iter_mut().enumerate() {
            let Some(ev) = probe.events.get(o) else {
                break;
            };
            let ins = ev.instruction(program);
            if let crate::ir::OpKind::ControlBarrier {
                instance,
                execution_scope,
                id,
                quorum,
            } = &ins.kind
            {
                if id.is_some() || quorum.is_some() || ins.group.is_some() {
                    return Err(control_barriers());
                }
                *form = Some((*execution_scope, number(o, *instance)));
            }
        }
        if forms.iter().all(Option::is_none) {
            return Ok(None);
        }
        let threads = program.threads.len();
        let mut same: Vec<(crate::ir::Scope, Vec<Vec<bool>>)> = Vec::new();
        for &(scope, _) in forms.iter().flatten() {
            if same.iter().any(|(s, _)| *s == scope) {
                continue;
            }
            let table = (0..threads)
                .map(|ta| {
                    (0..threads)
                        .map(|tb| crate::engine::same_instance(program, tb, scope, ta))
                        .collect()
                })
                .collect();
            same.push((scope, table));
        }
        Ok(Some(Barriers { forms, same }))
    }
}

/// Per slot, how many of the earlier slots of its thread are `marked`
/// (one-hot: entry `k` holds when exactly `k` are; `per_thread` entries).
pub(super) fn counts_before(c: &mut Circuit, marked: &[Lit], per_thread: usize) -> Vec<Vec<Lit>> {
    let mut out = Vec::with_capacity(marked.len());
    for (e, _) in marked.iter().enumerate() {
        if e % per_thread == 0 {
            let mut first = vec![Lit::FALSE; per_thread];
            first[0] = Lit::TRUE;
            out.push(first);
            continue;
        }
        let prev: &Vec<Lit> = &out[e - 1];
        let m = marked[e - 1];
        let next: Vec<Lit> = (0..per_thread)
            .map(|k| {
                let stay = prev[k];
                let grow = if k == 0 { Lit::FALSE } else { prev[k - 1] };
                c.ite(m, grow, stay)
            })
            .collect();
        out.push(next);
    }
    out
}

/// The limits of one question and the stop its circuit and solver ask.
pub(super) fn reach(
    deadline: Option<web_time::Instant>,
    max_memory: Option<usize>,
) -> Result<(std::rc::Rc<Reach>, StopWhen), NotAsked> {
    let limits = std::rc::Rc::new(Reach {
        deadline,
        max_memory,
        reached: std::cell::Cell::new(None),
    });
    let stop = StopWhen({
        let l = limits.clone();
        std::rc::Rc::new(move || l.reached())
    });
    if limits.reached() {
        return Err(NotAsked::Stopped(limits.stop()));
    }
    Ok((limits, stop))
}

/// The variables of a skeleton over `threads x events` slots: per slot its
/// presence, one instruction of the vocabulary and one location.
pub(super) struct Slots {
    pub(super) present: Vec<Lit>,
    pub(super) sel: Vec<Vec<Lit>>,
    pub(super) loc: Vec<Vec<Lit>>,
    /// Whether the slot's instruction accesses a location.
    pub(super) has_loc: Vec<Lit>,
}

impl Slots {
    /// Per slot, one-hot ([`counts_before`]), how many of the earlier
    /// slots of its thread are present and hold one of the instructions
    /// `counted` picks (the control barriers, whose number is a
    /// barrier's `{id}`); `per_thread` slots per thread.
    pub(super) fn counts_of(
        &self,
        c: &mut Circuit,
        counted: impl Fn(usize) -> bool,
        per_thread: usize,
    ) -> Vec<Vec<Lit>> {
        let marked: Vec<Lit> = (0..self.present.len())
            .map(|e| {
                let lits: Vec<Lit> = (0..self.sel[e].len())
                    .filter(|&o| counted(o))
                    .map(|o| self.sel[e][o])
                    .collect();
                let any = c.or_all(lits);
                c.and(self.present[e], any)
            })
            .collect();
        counts_before(c, &marked, per_thread)
    }

    /// The side of a program whose slots these are, read through the probe
    /// environment `env` with `nops` instructions per probe thread and
    /// `per_thread` slots per thread.
    pub(super) fn side<'a>(
        &self,
        env: &'a crate::cat::Env,
        nops: usize,
        per_thread: usize,
    ) -> Side<'a> {
        Side {
            env,
            nops,
            per_thread,
            present: self.present.clone(),
            sel: self.sel.clone(),
            loc: self.loc.clone(),
            has_loc: self.has_loc.clone(),
            barriers: None,
            ids: Vec::new(),
        }
    }

    /// The variables and their facts: one instruction and one location per
    /// slot (an absent slot holds the first of each, so that a skeleton is
    /// one assignment), a thread's present events first and every thread
    /// with one, and the location symmetry (the first location used is
    /// `x`, and so on). `access[o]`: whether instruction `o` has a location.
    pub(super) fn new(
        c: &mut Circuit,
        access: &[bool],
        threads: usize,
        events: usize,
        locations: usize,
        facts: &mut Vec<Lit>,
    ) -> Slots {
        Slots::counted(c, access, (threads, events), locations, None, facts)
    }

    /// [`Slots::new`], with thread `t` holding exactly `counts[t]` events
    /// when `counts` is given: each slot's presence is then a constant,
    /// which every formula over the slots folds.
    pub(super) fn counted(
        c: &mut Circuit,
        access: &[bool],
        (threads, events): (usize, usize),
        locations: usize,
        counts: Option<&[usize]>,
        facts: &mut Vec<Lit>,
    ) -> Slots {
        let n = threads * events;
        let present: Vec<Lit> = (0..n)
            .map(|e| match counts {
                Some(k) => Lit::from_bool(e % events < k[e / events]),
                None => c.input(),
            })
            .collect();
        let sel: Vec<Vec<Lit>> = (0..n)
            .map(|_| access.iter().map(|_| c.input()).collect())
            .collect();
        let loc: Vec<Vec<Lit>> = (0..n)
            .map(|_| (0..locations).map(|_| c.input()).collect())
            .collect();
        let has_loc: Vec<Lit> = (0..n)
            .map(|e| {
                let ls: Vec<Lit> = (0..access.len())
                    .filter(|&o| access[o])
                    .map(|o| sel[e][o])
                    .collect();
                c.or_all(ls)
            })
            .collect();
        for e in 0..n {
            facts.push(c.exactly_one(&sel[e]));
            facts.push(c.exactly_one(&loc[e]));
            let first = c.and(sel[e][0], loc[e][0]);
            facts.push(c.implies(!present[e], first));
            facts.push(c.implies(!has_loc[e], loc[e][0]));
            if e % events == 0 {
                facts.push(present[e]);
            } else {
                facts.push(c.implies(present[e], present[e - 1]));
            }
        }
        // Location l is used only if l - 1 is used by an earlier slot.
        for l in 1..locations {
            for e in 0..n {
                let here = c.and(present[e], has_loc[e]);
                let here = c.and(here, loc[e][l]);
                let earlier: Vec<Lit> = (0..e)
                    .map(|f| {
                        let x = c.and(present[f], has_loc[f]);
                        c.and(x, loc[f][l - 1])
                    })
                    .collect();
                let before = c.or_all(earlier);
                facts.push(c.implies(here, before));
            }
        }
        Slots {
            present,
            sel,
            loc,
            has_loc,
        }
    }

    /// Exactly `k` present, by `k` (a counter over the slots).
    pub(super) fn sizes(&self, c: &mut Circuit) -> Vec<Lit> {
        let mut at_least: Vec<Lit> = vec![Lit::TRUE];
        for &p in &self.present {
            let mut next = vec![Lit::TRUE];
            for k in 1..=at_least.len() {
                let keep = at_least.get(k).copied().unwrap_or(Lit::FALSE);
                let grow = c.and(p, at_least[k - 1]);
                next.push(c.or(keep, grow));
            }
            at_least = next;
        }
        (0..=self.present.len())
            .map(|k| {
                let more = at_least.get(k + 1).copied().unwrap_or(Lit::FALSE);
                c.and(at_least[k], !more)
            })
            .collect()
    }

    /// The skeleton of a solver's answer and the literals that describe it
    /// (what [`Query::block`] blocks).
    pub(super) fn decode(
        &self,
        v: &crate::relation::symbolic::Values,
        threads: usize,
        events: usize,
        place: &[(usize, usize)],
    ) -> (Shape, Vec<Lit>) {
        let mut shape_threads = Vec::new();
        let mut chosen = Vec::new();
        for t in 0..threads {
            let mut evs = Vec::new();
            for i in 0..events {
                let e = t * events + i;
                if !v.of(self.present[e]) {
                    chosen.push(!self.present[e]);
                    continue;
                }
                chosen.push(self.present[e]);
                let o = (0..self.sel[e].len())
                    .find(|&o| v.of(self.sel[e][o]))
                    .unwrap_or(0);
                let l = (0..self.loc[e].len())
                    .find(|&l| v.of(self.loc[e][l]))
                    .unwrap_or(0);
                chosen.push(self.sel[e][o]);
                chosen.push(self.loc[e][l]);
                evs.push((o, l));
            }
            shape_threads.push(evs);
        }
        let shape = Shape {
            place: place.to_vec(),
            threads: shape_threads,
        };
        (shape, chosen)
    }
}

/// One strict total order over `n` slots (the order `co` and `asmo`
/// restrict), its transitivity among the facts.
pub(super) fn total_order(c: &mut Circuit, n: usize, facts: &mut Vec<Lit>) -> SymRel {
    let mut lt = SymRel::empty(n);
    for a in 0..n {
        for b in a + 1..n {
            let v = c.input();
            lt.set(a, b, v);
            lt.set(b, a, !v);
        }
    }
    for a in 0..n {
        for b in 0..n {
            for d in 0..n {
                if a != b && b != d && a != d {
                    let ab = c.and(lt.get(a, b), lt.get(b, d));
                    facts.push(c.implies(ab, lt.get(a, d)));
                }
            }
        }
    }
    lt
}

/// One program's events over slots, read through its probe: slot `e` is in
/// thread `e / per_thread` and holds probe instruction `o` when `sel[e][o]`.
pub(super) struct Side<'a> {
    pub(super) env: &'a crate::cat::Env,
    /// Instructions per probe thread (the probe's event of thread `t`'s
    /// instruction `o` is `t * nops + o`).
    pub(super) nops: usize,
    pub(super) per_thread: usize,
    pub(super) present: Vec<Lit>,
    pub(super) sel: Vec<Vec<Lit>>,
    pub(super) loc: Vec<Vec<Lit>>,
    pub(super) has_loc: Vec<Lit>,
    /// The control barriers among the probe's instructions (`scbarinst` is
    /// derived from them; `None`: the probe has none).
    pub(super) barriers: Option<&'a Barriers>,
    /// Per slot, one-hot, the static instance number a barrier of
    /// [`Instance::Counted`] in it has.
    pub(super) ids: Vec<Vec<Lit>>,
}

/// What a side's base names are built from and the caller reads back.
#[derive(Clone)]
pub(super) struct Statics {
    pub(super) write: SymSet,
    pub(super) read: SymSet,
    pub(super) atomic: SymSet,
    pub(super) same_loc: SymRel,
}

/// A side's base names and what the caller reads of them.
pub(super) struct Encoded {
    pub(super) base: HashMap<String, SymValue>,
    pub(super) po: SymRel,
    pub(super) co: SymRel,
    /// The modification orders of the total order are a candidate's
    /// (without a total `co`: their restriction is transitive).
    pub(super) valid: Lit,
}

impl Side<'_> {
    fn n(&self) -> usize {
        self.present.len()
    }

    fn get_set(&self, name: &str) -> Option<EventSet> {
        match self.env.get(name) {
            Some(crate::cat::Value::Set(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// The probe's value of a set for a slot: the disjunction over the
    /// instructions whose probe event is in the set.
    fn set_from(&self, c: &mut Circuit, s: &EventSet) -> SymSet {
        SymSet::from_lits(
            (0..self.n())
                .map(|e| {
                    let t = e / self.per_thread;
                    let lits: Vec<Lit> = (0..self.nops)
                        .filter(|&o| s.contains(t * self.nops + o))
                        .map(|o| self.sel[e][o])
                        .collect();
                    let any = c.or_all(lits);
                    c.and(self.present[e], any)
                })
                .collect(),
        )
    }

    /// The probe's set `name` over the slots (empty when the probe has none).
    fn named_set(&self, c: &mut Circuit, name: &str) -> SymSet {
        match self.get_set(name) {
            Some(s) => self.set_from(c, &s),
            None => SymSet::empty(self.n()),
        }
    }

    fn rel_from(&self, c: &mut Circuit, r: &Relation) -> SymRel {
        let n = self.n();
        let nops = self.nops;
        let pe = |t: usize, o: usize| t * nops + o;
        let mut out = SymRel::empty(n);
        for a in 0..n {
            for b in 0..n {
                let (ta, tb) = (a / self.per_thread, b / self.per_thread);
                // The probe's entries between the two threads' events (the
                // same event on the diagonal).
                let mut lits = Vec::new();
                let mut all = true;
                let mut none = true;
                for oa in 0..nops {
                    for ob in 0..nops {
                        if a == b && oa != ob {
                            continue;
                        }
                        let v = r.contains(pe(ta, oa), pe(tb, ob));
                        all &= v;
                        none &= !v;
                        if v {
                            lits.push((oa, ob));
                        }
                    }
                }
                let both = c.and(self.present[a], self.present[b]);
                let v = if none {
                    Lit::FALSE
                } else if all {
                    both
                } else {
                    let terms: Vec<Lit> = lits
                        .iter()
                        .map(|&(oa, ob)| c.and(self.sel[a][oa], self.sel[b][ob]))
                        .collect();
                    let any = c.or_all(terms);
                    c.and(both, any)
                };
                out.set(a, b, v);
            }
        }
        out
    }

    /// `scbarinst` over the slots: two barrier events of one dynamic
    /// instance (the same static instance, the same number of the thread's
    /// earlier barriers with it) and one execution scope, in threads of one
    /// instance of that scope; every such pair, each event with itself.
    fn scbarinst(&self, c: &mut Circuit, b: &Barriers) -> SymRel {
        let n = self.n();
        let per = self.per_thread;
        // The static instance numbers a slot's barrier may have.
        let fixed = b
            .forms
            .iter()
            .flatten()
            .filter_map(|(_, i)| match i {
                Instance::Fixed(k) => Some(*k as usize + 1),
                Instance::Counted | Instance::PerScope => None,
            })
            .max()
            .unwrap_or(0);
        // Static instances `0 .. numbered`, then one per execution scope
        // for the barriers numbered per scope (their pass counted).
        let numbered = fixed.max(self.ids.first().map_or(0, Vec::len));
        let width = numbered + b.same.len();
        // inst[e][v]: slot `e` holds a barrier of static instance `v`.
        let inst: Vec<Vec<Lit>> = (0..n)
            .map(|e| {
                (0..width)
                    .map(|v| {
                        let lits: Vec<Lit> = (0..self.nops)
                            .filter_map(|o| {
                                let (scope, number) = b.forms.get(o).copied().flatten()?;
                                let at = match number {
                                    Instance::Counted => {
                                        self.ids.get(e).and_then(|x| x.get(v)).copied()?
                                    }
                                    Instance::Fixed(k) if k as usize == v => Lit::TRUE,
                                    Instance::PerScope
                                        if b.same.iter().position(|(s, _)| *s == scope)
                                            == v.checked_sub(numbered) =>
                                    {
                                        Lit::TRUE
                                    }
                                    Instance::Fixed(_) | Instance::PerScope => return None,
                                };
                                Some(c.and(self.sel[e][o], at))
                            })
                            .collect();
                        let any = c.or_all(lits);
                        c.and(self.present[e], any)
                    })
                    .collect()
            })
            .collect();
        // pass[v][e]: how many earlier slots of the thread hold a barrier
        // of static instance `v`.
        let pass: Vec<Vec<Vec<Lit>>> = (0..width)
            .map(|v| {
                let marked: Vec<Lit> = (0..n).map(|e| inst[e][v]).collect();
                counts_before(c, &marked, per)
            })
            .collect();
        let mut out = SymRel::empty(n);
        for a in 0..n {
            for bb in 0..n {
                let (ta, tb) = (a / per, bb / per);
                let mut meet = Vec::new();
                for oa in 0..self.nops {
                    let Some((sa, _)) = b.forms.get(oa).copied().flatten() else {
                        continue;
                    };
                    let together = b
                        .same
                        .iter()
                        .find(|(s, _)| *s == sa)
                        .is_some_and(|(_, t)| t[ta][tb]);
                    if !together {
                        continue;
                    }
                    for ob in 0..self.nops {
                        if a == bb && oa != ob {
                            continue;
                        }
                        if b.forms.get(ob).copied().flatten().map(|(s, _)| s) == Some(sa) {
                            meet.push(c.and(self.sel[a][oa], self.sel[bb][ob]));
                        }
                    }
                }
                if meet.is_empty() {
                    continue;
                }
                let meet = c.or_all(meet);
                let key: Vec<Lit> = (0..width)
                    .map(|v| {
                        let both = c.and(inst[a][v], inst[bb][v]);
                        let passes: Vec<Lit> = (0..per)
                            .map(|p| c.and(pass[v][a][p], pass[v][bb][p]))
                            .collect();
                        let same_pass = c.or_all(passes);
                        c.and(both, same_pass)
                    })
                    .collect();
                let key = c.or_all(key);
                out.set(a, bb, c.and(meet, key));
            }
        }
        out
    }

    /// The access kinds and the same-location relation.
    pub(super) fn statics(&self, c: &mut Circuit) -> Result<Statics, NotAsked> {
        let n = self.n();
        let mut same_loc = SymRel::empty(n);
        for a in 0..n {
            for b in 0..n {
                let eq: Vec<Lit> = (0..self.loc[a].len())
                    .map(|l| c.and(self.loc[a][l], self.loc[b][l]))
                    .collect();
                let eq = c.or_all(eq);
                let both = c.and(self.present[a], self.present[b]);
                let acc = c.and(self.has_loc[a], self.has_loc[b]);
                let x = c.and(both, acc);
                same_loc.set(a, b, c.and(x, eq));
            }
        }
        if self.get_set(names::SEQCST).is_some_and(|s| !s.is_empty()) {
            return Err(NotAsked::Unsupported(
                "sequentially consistent operations (their SC order)".into(),
            ));
        }
        Ok(Statics {
            atomic: self.named_set(c, names::A),
            write: self.named_set(c, names::W),
            read: self.named_set(c, names::R),
            same_loc,
        })
    }

    /// Reads-from as variables: each present read reads one write of its
    /// location (not itself) or the initial value (`RFINIT`).
    pub(super) fn fresh_rf(
        &self,
        c: &mut Circuit,
        s: &Statics,
        facts: &mut Vec<Lit>,
    ) -> (SymRel, SymSet) {
        let n = self.n();
        let mut rf = SymRel::empty(n);
        let mut init = Vec::with_capacity(n);
        for r in 0..n {
            let i = c.input();
            let mut choices = vec![i];
            for w in 0..n {
                if w == r {
                    continue;
                }
                let v = c.input();
                let ok = c.and(s.write.get(w), s.same_loc.get(w, r));
                facts.push(c.implies(v, ok));
                rf.set(w, r, v);
                choices.push(v);
            }
            let one = c.exactly_one(&choices);
            let none = !c.or_all(choices.iter().copied());
            facts.push(c.ite(s.read.get(r), one, none));
            init.push(i);
        }
        (rf, SymSet::from_lits(init))
    }

    /// Every base name `wanted` lists (and those derived here), with `rf`
    /// and `rfinit` the execution's reads-from and `lt` the total order the
    /// modification orders restrict (`total_co`: `co` orders every write of
    /// a location, else its atomic writes).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn encode(
        &self,
        c: &mut Circuit,
        s: &Statics,
        lt: &SymRel,
        rf: SymRel,
        rfinit: SymSet,
        total_co: bool,
        wanted: &[String],
    ) -> Encoded {
        let n = self.n();
        let (write, atomic, same_loc) = (&s.write, &s.atomic, &s.same_loc);
        // Mutually ordered: both atomic writes of one location, each in
        // the other's scope instance (`engine::base`'s `inscope`).
        let instance = |name: &str| match self.env.get(name) {
            Some(crate::cat::Value::Rel(r)) => Some(r.clone()),
            _ => None,
        };
        let scopes = [
            (names::SCOPEINV, names::STHD),
            (names::SCOPESG, names::SSG),
            (names::SCOPEWG, names::SWG),
            (names::SCOPEQF, names::SQF),
            (names::SCOPEDEV, names::SDEV),
        ];
        let mut in_scope = SymRel::empty(n);
        {
            let mut sym_scopes = Vec::new();
            for (set, rel) in scopes {
                let (Some(st), Some(r)) = (self.get_set(set), instance(rel)) else {
                    continue;
                };
                sym_scopes.push((self.set_from(c, &st), self.rel_from(c, &r)));
            }
            for a in 0..n {
                for b in 0..n {
                    let mut ab = Vec::new();
                    let mut ba = Vec::new();
                    for (st, r) in &sym_scopes {
                        ab.push(c.and(st.get(a), r.get(a, b)));
                        ba.push(c.and(st.get(b), r.get(b, a)));
                    }
                    let x = c.or_all(ab);
                    let y = c.or_all(ba);
                    in_scope.set(a, b, c.and(x, y));
                }
            }
        }
        let atomic_writes = atomic.inter(c, write);
        let aw = SymRel::product(c, &atomic_writes, &atomic_writes);
        let mutual = aw.inter(c, same_loc).inter(c, &in_scope);
        let ordered = if total_co {
            write.clone()
        } else {
            atomic_writes.clone()
        };
        let ow = SymRel::product(c, &ordered, &ordered);
        let co = lt.inter(c, &ow).inter(c, same_loc);
        let asmo = co.inter(c, &mutual);
        let mut valid = Lit::TRUE;
        if !total_co {
            // Without a total `co`, the order is the restriction to the
            // mutually-ordered pairs, kept when transitive.
            let sq = asmo.compose(c, &asmo);
            let extra = sq.diff(c, &asmo);
            valid = extra.is_empty(c);
        }
        let (co, asmo) = if total_co {
            (co, asmo)
        } else {
            (asmo.clone(), asmo)
        };
        // `po`: earlier slots of one thread.
        let mut po = SymRel::empty(n);
        for a in 0..n {
            for b in a + 1..n {
                if a / self.per_thread == b / self.per_thread {
                    po.set(a, b, c.and(self.present[a], self.present[b]));
                }
            }
        }
        // ATOMICLOC: accesses of a location some atomic accesses.
        let atomic_loc = {
            let mut bits = Vec::with_capacity(n);
            for e in 0..n {
                let any: Vec<Lit> = (0..n)
                    .map(|f| c.and(atomic.get(f), same_loc.get(e, f)))
                    .collect();
                bits.push(c.or_all(any));
            }
            SymSet::from_lits(bits)
        };
        // The dense storage classes: the k-th class some semantics names.
        let classes = (0..4)
            .filter(|k| self.get_set(&format!("{}{k}", names::SC)).is_some())
            .count();
        let mut sc = Vec::new();
        let mut semsc = Vec::new();
        let mut named = Vec::new();
        for k in 0..classes {
            let st = self.named_set(c, &format!("{}{k}", names::SC));
            let m = self.named_set(c, &format!("{}{k}", names::SEMSC));
            named.push(c.or_all(m.lits().iter().copied()));
            sc.push(st);
            semsc.push(m);
        }
        let mut base: HashMap<String, SymValue> = HashMap::new();
        for k in 0..classes.max(4) {
            let mut dsc = SymSet::empty(n);
            let mut dsemsc = SymSet::empty(n);
            for cl in 0..classes {
                // Class `cl` is the k-th named: named, with k named below.
                let below = exactly(c, &named[..cl], k);
                let rank = c.and(named[cl], below);
                let st = SymSet::from_lits(sc[cl].lits().iter().map(|&x| c.and(rank, x)).collect());
                let m =
                    SymSet::from_lits(semsc[cl].lits().iter().map(|&x| c.and(rank, x)).collect());
                dsc = dsc.union(c, &st);
                dsemsc = dsemsc.union(c, &m);
            }
            base.insert(format!("{}{k}", names::DSC), SymValue::Set(dsc));
            base.insert(format!("{}{k}", names::DSEMSC), SymValue::Set(dsemsc));
        }
        base.insert(names::RF.into(), SymValue::Rel(rf));
        base.insert(names::RFINIT.into(), SymValue::Set(rfinit));
        base.insert(names::CO.into(), SymValue::Rel(co.clone()));
        base.insert(names::ASMO.into(), SymValue::Rel(asmo));
        base.insert(names::SCO.into(), SymValue::Rel(SymRel::empty(n)));
        base.insert(names::ILO.into(), SymValue::Rel(SymRel::empty(n)));
        base.insert(names::PO.into(), SymValue::Rel(po.clone()));
        base.insert(names::SLOC.into(), SymValue::Rel(same_loc.clone()));
        base.insert(names::SREF.into(), SymValue::Rel(same_loc.clone()));
        base.insert(names::ATOMICLOC.into(), SymValue::Set(atomic_loc));
        if let Some(b) = self.barriers {
            let r = self.scbarinst(c, b);
            base.insert(names::SCBARINST.into(), SymValue::Rel(r));
        }
        for name in wanted {
            if base.contains_key(name) || dynamic(name) {
                continue;
            }
            let v = match self.env.get(name) {
                Some(crate::cat::Value::Set(st)) => SymValue::Set(self.set_from(c, st)),
                Some(crate::cat::Value::Rel(r)) => SymValue::Rel(self.rel_from(c, r)),
                _ => continue,
            };
            base.insert(name.clone(), v);
        }
        Encoded {
            base,
            po,
            co,
            valid,
        }
    }
}

/// A model compiled over a side's base names: whether the execution is
/// consistent, whether it has a race, and the evaluation (for the names
/// the caller looks up).
pub(super) fn verdict(
    c: &mut Circuit,
    m: &LoadedModel,
    universe: &SymSet,
    base: &HashMap<String, SymValue>,
    limits: &Reach,
) -> Result<(Lit, Lit, crate::cat::SymEvaluation), NotAsked> {
    let n = universe.universe();
    let eval = match m.cat.symbolic(c, universe, &|name| base.get(name).cloned()) {
        Ok(eval) => eval,
        Err(_) if c.stopped() => return Err(NotAsked::Stopped(limits.stop())),
        Err(e) => return Err(format!("model {}: {e}", m.name).into()),
    };
    let consistent = eval.consistent(c);
    let racy = match m.profile.races.as_deref().and_then(|r| eval.lookup(r)) {
        Some(v) => match v.as_rel(n) {
            Some(r) => !r.is_empty(c),
            None => Lit::FALSE,
        },
        None => Lit::FALSE,
    };
    Ok((consistent, racy, eval))
}

/// The solver holding `facts`, or the limit that stopped their encoding.
pub(super) fn solver_of(
    c: &Circuit,
    facts: Vec<Lit>,
    stop: StopWhen,
    limits: &Reach,
) -> Result<Solver, NotAsked> {
    if c.stopped() {
        return Err(NotAsked::Stopped(limits.stop()));
    }
    let mut solver = Solver::with_stop(Some(stop));
    for f in facts {
        solver.assert(c, f);
    }
    if solver.stopped() {
        return Err(NotAsked::Stopped(limits.stop()));
    }
    Ok(solver)
}

impl Query {
    /// The question for `threads` threads at `place`; `Err` names what the
    /// symbolic search does not take (the caller falls back to the
    /// enumeration) or the limit (`deadline`, the limits' memory bound)
    /// that stopped the building of the question.
    pub(super) fn new(
        pair: &Pair,
        ops: &[Op],
        threads: usize,
        events: usize,
        locations: usize,
        place: &[(usize, usize)],
        deadline: Option<web_time::Instant>,
    ) -> Result<Query, NotAsked> {
        let (limits, stop) = reach(deadline, pair.limits.bounds.max_memory)?;
        let (probe, program) = match probe(pair, ops, threads, place) {
            Ok(p) => p,
            Err(_) if limits.reached() => return Err(NotAsked::Stopped(limits.stop())),
            Err(e) => return Err(NotAsked::Unsupported(e)),
        };
        // `Shape::render` numbers a thread's control barriers in order.
        let barriers = Barriers::of(&program, &probe, ops.len(), &|_, _| Instance::Counted)?;
        let n = threads * events;
        let mut c = Circuit::with_stop(stop.clone());
        let mut facts = Vec::new();
        let access: Vec<bool> = ops.iter().map(Op::has_location).collect();
        let slots = Slots::new(&mut c, &access, threads, events, locations, &mut facts);
        let mut side = slots.side(&probe.static_env, ops.len(), events);
        if let Some(b) = &barriers {
            side.ids = slots.counts_of(&mut c, |o| ops[o].kind == Kind::Cbar, events);
            side.barriers = Some(b);
        }
        let universe = SymSet::from_lits(slots.present.clone());
        let statics = side.statics(&mut c)?;
        let lt = total_order(&mut c, n, &mut facts);
        let (rf, rfinit) = side.fresh_rf(&mut c, &statics, &mut facts);
        let total_co = pair.limits.for_model(pair.a).profile.total_co;
        let mut wanted: Vec<String> = pair.a.cat.free_names();
        wanted.extend(pair.b.cat.free_names());
        let enc = side.encode(&mut c, &statics, &lt, rf, rfinit, total_co, &wanted);
        facts.push(enc.valid);
        let encoding = Encoding {
            base: enc.base.clone(),
            lt: lt.clone(),
            facts: facts.clone(),
            nodes: c.len(),
        };
        let (ca, ra, ea) = verdict(&mut c, pair.a, &universe, &enc.base, &limits)?;
        let (cb, rb, eb) = verdict(&mut c, pair.b, &universe, &enc.base, &limits)?;
        let a_only = c.and(ca, !cb);
        let b_only = c.and(cb, !ca);
        let both = c.and(ca, cb);
        let races = c.iff(ra, rb);
        let race_diff = c.and(both, !races);
        let differ = c.or_all([a_only, b_only, race_diff]);
        // The difference holds under `asks`, which every question assumes
        // and the sweep does not: what the sweep proves follows from the
        // facts alone.
        let asks = c.input();
        let guarded = c.implies(asks, differ);
        facts.push(guarded);
        let solver = solver_of(&c, facts, stop, &limits)?;
        let mut q = Query::assemble(
            limits,
            c,
            solver,
            (threads, events),
            slots,
            place,
            (encoding, None),
        )?;
        q.asks = asks;
        q.differ = differ;
        q.pending = sweep_pairs(&ea, &eb);
        Ok(q)
    }

    /// The question of `facts` over the skeleton's `slots`, its solver
    /// holding them (or the limit that stopped their encoding).
    #[allow(clippy::too_many_arguments)]
    fn assemble(
        limits: std::rc::Rc<Reach>,
        mut c: Circuit,
        solver: Solver,
        (threads, events): (usize, usize),
        slots: Slots,
        place: &[(usize, usize)],
        (encoding, learner): (Encoding, Option<(mapping::Learner, Skeleton)>),
    ) -> Result<Query, NotAsked> {
        let sizes = slots.sizes(&mut c);
        let (vars, clauses) = solver.size();
        let stats = QueryStats {
            gates: c.len(),
            vars,
            clauses,
            ..QueryStats::default()
        };
        Ok(Query {
            stats,
            asks: Lit::TRUE,
            pending: Vec::new(),
            differ: Lit::FALSE,
            blocked: Vec::new(),
            lazy: Vec::new(),
            learner,
            limits,
            c,
            solver,
            threads,
            events,
            slots,
            sizes,
            place: place.to_vec(),
            encoding,
        })
    }

    /// A skeleton of `k` events on which the models may differ, or `None`
    /// when no execution of `k` events at this placement has them differ.
    pub(in crate::analysis) fn next(
        &mut self,
        k: usize,
    ) -> Result<Option<(Shape, Vec<Lit>)>, Stop> {
        let Some(&size) = self.sizes.get(k) else {
            return Ok(None);
        };
        let v = match self.solve(&[size, self.asks]) {
            Answer::Sat(v) => v,
            Answer::Unsat => {
                // Not after the last size: nothing would use what it proves.
                if !self.pending.is_empty()
                    && self.solver.conflicts() >= SWEEP_AFTER
                    && k < self.threads * self.events
                {
                    self.sweep()?;
                }
                return Ok(None);
            }
            Answer::Stopped => return Err(self.limits.stop()),
        };
        let (shape, chosen) = self
            .slots
            .decode(&v, self.threads, self.events, &self.place);
        Ok(Some((shape, chosen)))
    }

    /// The solver's answer under `assume` that also satisfies the lazy
    /// facts: an answer that breaks some asserts them, and the solver is
    /// asked again. The answer is the one the question with every fact
    /// asserted would have: an assignment satisfying every fact, or none
    /// (fewer facts are unsatisfiable only if more are).
    fn solve(&mut self, assume: &[Lit]) -> Answer {
        loop {
            let start = web_time::Instant::now();
            let answer = self.solver.solve(&self.c, assume);
            self.stats.solving += start.elapsed();
            self.stats.calls += 1;
            let Answer::Sat(v) = &answer else {
                return answer;
            };
            self.stats.answers += 1;
            let (kept, broken): (Vec<Lit>, Vec<Lit>) = self.lazy.iter().partition(|&&l| v.of(l));
            if broken.is_empty() {
                return answer;
            }
            self.stats.lazy += broken.len() as u64;
            self.lazy = kept;
            for l in broken {
                self.solver.assert(&self.c, l);
            }
        }
    }

    /// Sweeping (the equivalence checkers' SAT sweeping, with fraiging's
    /// substitution at the grain of the models' names): the pending pairs
    /// of formulas the two models compute for one name and entry, bottom
    /// up, each rebuilt with the equal pairs found so far substituted. A
    /// pair the rebuilding makes one formula is equal by structure; any
    /// other is asked to differ under the facts alone, on a solver holding
    /// only the facts and what the proofs read (a pair an earlier answer
    /// tells apart is not asked, one whose question outruns
    /// [`SWEEP_DECISIONS`] is left as it is). An equal pair's second
    /// formula is replaced by its first in what is rebuilt after, so that a
    /// definition both models write alike over equal operands becomes one
    /// formula without a proof. The difference is then rebuilt the same
    /// way, and the question's solver becomes the sweep's: the facts, the
    /// equalities proven, the rebuilt difference under a fresh assumption
    /// and the blocked skeletons. Each replacement is equivalent to what it
    /// replaces under the facts, so no question's answer changes. (Only
    /// the question of `vkmm diff` has pairs to sweep; a mapping check's
    /// lazy facts are not carried over.)
    fn sweep(&mut self) -> Result<Swept, Stop> {
        let pairs = std::mem::take(&mut self.pending);
        let limits = self.limits.clone();
        let stop = StopWhen(std::rc::Rc::new(move || limits.reached()));
        let mut solver = Solver::with_stop(Some(stop));
        for &f in &self.encoding.facts {
            solver.assert(&self.c, f);
        }
        let mut subst = Substitution::default();
        let mut apart: Vec<crate::relation::symbolic::Values> = Vec::new();
        let mut out = Swept::default();
        for (x, y) in pairs {
            if apart.iter().any(|v| v.of(x) != v.of(y)) {
                out.apart += 1;
                continue;
            }
            let x2 = self.c.rebuild(x, &mut subst);
            let y2 = self.c.rebuild(y, &mut subst);
            if self.c.stopped() {
                return Err(self.limits.stop());
            }
            if x2 == y2 {
                out.structural += 1;
                subst.replace(y, x2);
                continue;
            }
            let differ = !self.c.iff(x2, y2);
            match solver.solve_within(&self.c, &[differ], SWEEP_DECISIONS) {
                Some(Answer::Unsat) => {
                    out.proved += 1;
                    solver.assert(&self.c, !differ);
                    subst.replace(y, x2);
                }
                Some(Answer::Sat(v)) => {
                    out.apart += 1;
                    apart.push(v);
                }
                Some(Answer::Stopped) => return Err(self.limits.stop()),
                None => out.undecided += 1,
            }
        }
        let differ = self.c.rebuild(self.differ, &mut subst);
        let asks = self.c.input();
        let guarded = self.c.implies(asks, differ);
        solver.assert(&self.c, guarded);
        for clause in &self.blocked {
            solver.assert_any(&self.c, clause);
        }
        if self.c.stopped() || solver.stopped() {
            return Err(self.limits.stop());
        }
        self.solver = solver;
        self.asks = asks;
        self.differ = differ;
        Ok(out)
    }

    /// What the question cost so far, in one line (`VKMM_SAT_STATS`): its
    /// size when built, the solver's calls, answers, conflicts and time,
    /// the lazy facts handed over, and its size now.
    pub(in crate::analysis) fn stats_line(&self) -> String {
        let s = &self.stats;
        let (vars, clauses) = self.solver.size();
        format!(
            "gates {} vars {} clauses {} | calls {} answers {} conflicts {} solve {:.2}s | lazy {}/{} | now vars {} clauses {}",
            s.gates,
            s.vars,
            s.clauses,
            s.calls,
            s.answers,
            self.solver.conflicts(),
            s.solving.as_secs_f64(),
            s.lazy,
            s.lazy_built,
            vars,
            clauses
        )
    }

    /// No later answer has the skeleton `threads` (per thread, its
    /// instructions and locations) when the question's placement is
    /// `place` (a skeleton of another placement or size is left alone).
    pub(in crate::analysis) fn block_shape(
        &mut self,
        place: &[(usize, usize)],
        threads: &[Vec<(usize, usize)>],
    ) {
        if let Some(chosen) = self.shape_lits(place, threads) {
            self.block(&chosen);
        }
    }

    /// The literals that describe the skeleton `threads` (per thread, its
    /// instructions and locations; a slot beyond a thread's events absent)
    /// at `place`, or `None` when it is not one of this question's
    /// (another placement or size).
    fn shape_lits(
        &self,
        place: &[(usize, usize)],
        threads: &[Vec<(usize, usize)>],
    ) -> Option<Vec<Lit>> {
        if place != self.place.as_slice() || threads.len() != self.threads {
            return None;
        }
        let s = &self.slots;
        let mut chosen = Vec::new();
        for (t, evs) in threads.iter().enumerate() {
            if evs.len() > self.events {
                return None;
            }
            for i in 0..self.events {
                let e = t * self.events + i;
                match evs.get(i) {
                    None => chosen.push(!s.present[e]),
                    Some(&(o, l)) => {
                        let (Some(&op), Some(&at)) = (s.sel[e].get(o), s.loc[e].get(l)) else {
                            return None;
                        };
                        chosen.extend([s.present[e], op, at]);
                    }
                }
            }
        }
        Some(chosen)
    }

    /// No later answer has the skeleton `chosen` (what [`Query::next`]
    /// returned with it) describes.
    pub(in crate::analysis) fn block(&mut self, chosen: &[Lit]) {
        let clause: Vec<Lit> = chosen.iter().map(|&l| !l).collect();
        self.solver.assert_any(&self.c, &clause);
        self.blocked.push(clause);
    }
}

/// The pairs of formulas the sweep compares: for each name both models
/// bind at the top level to a set or to a relation, the entries where their
/// formulas are not the same literal, in the order of the circuit (the
/// operands of a gate before it, so that what is proven first helps
/// later), each once.
fn sweep_pairs(a: &crate::cat::SymEvaluation, b: &crate::cat::SymEvaluation) -> Vec<(Lit, Lit)> {
    let mut pairs: Vec<(Lit, Lit)> = Vec::new();
    for (name, va) in a.finals() {
        let Some(vb) = b.lookup(name) else {
            continue;
        };
        let (xs, ys): (&[Lit], &[Lit]) = match (va, vb) {
            (SymValue::Set(x), SymValue::Set(y)) => (x.lits(), y.lits()),
            (SymValue::Rel(x), SymValue::Rel(y)) => (x.lits(), y.lits()),
            _ => continue,
        };
        if xs.len() != ys.len() {
            continue;
        }
        for (&x, &y) in xs.iter().zip(ys) {
            if x != y {
                pairs.push((x.min(y), x.max(y)));
            }
        }
    }
    pairs.sort_by_key(|&(x, y)| (y, x));
    pairs.dedup();
    pairs
}

/// Exactly `k` of `lits` hold (few literals: every subset).
fn exactly(c: &mut Circuit, lits: &[Lit], k: usize) -> Lit {
    if k > lits.len() {
        return Lit::FALSE;
    }
    let mut terms = Vec::new();
    for mask in 0u32..(1 << lits.len()) {
        if mask.count_ones() as usize != k {
            continue;
        }
        let parts: Vec<Lit> = lits
            .iter()
            .enumerate()
            .map(|(i, &l)| if mask >> i & 1 == 1 { l } else { !l })
            .collect();
        terms.push(c.and_all(parts));
    }
    c.or_all(terms)
}

/// The probe: each of `threads` threads at `place` holds every instruction
/// of the vocabulary once, in order, at location `x`; the engine's
/// skeleton of it has the static relations of every pair of instructions
/// in every pair of threads.
fn probe(
    pair: &Pair,
    ops: &[Op],
    threads: usize,
    place: &[(usize, usize)],
) -> Result<(Skeleton, crate::ir::Program), String> {
    let shape = Shape {
        place: place.to_vec(),
        threads: vec![(0..ops.len()).map(|o| (o, 0)).collect(); threads],
    };
    let text = shape.render("probe", ops, "", None);
    let program = pair.parse("probe", &text)?;
    let limits: Limits = pair.limits.reference().for_model(pair.a);
    let sk = Skeleton::straight_line_unlisted(&program, limits).map_err(|e| e.to_string())?;
    if sk.universe() != threads * ops.len() {
        return Err(format!(
            "an instruction of the vocabulary is not one event ({} events for {} instructions)",
            sk.universe(),
            threads * ops.len()
        ));
    }
    Ok((sk, program))
}

pub(in crate::analysis) mod mapping;

#[cfg(test)]
mod tests;
