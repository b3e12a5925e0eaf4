//! The symbolic search of `vkmm refines --mapping` (docs/mappings.md): one
//! SAT question per shape (a placement of the threads and the number of
//! source instructions in each) covers every source test of that shape and
//! every execution of its compiled form.
//!
//! The skeleton's variables are the source program's (per slot: presence,
//! one row of the mapping, one location). The compiled program's slots are
//! addressed as (source slot, position in the row's target sequence): a
//! target slot holds the row's instruction at that position, on the
//! source slot's location, and is present when the source slot is and the
//! row's sequence is that long. Each side's base names come from its own
//! probe (every row's source, or every row's target instructions, once per
//! thread) as in `vkmm diff`'s question. The two executions share their
//! choices: one reads-from over the source slots (the compiled read of a
//! row reads the compiled write of the row the source read reads) and one
//! strict total order over the source slots, whose restriction to each
//! side's writes is that side's modification orders (target slots of one
//! row in sequence order).
//!
//! The question: an execution of the compiled program consistent under
//! the implementation model whose source execution (the same choices) the
//! specification does not allow with the same final state: inconsistent,
//! or not a candidate of the source, or consistent and race-free with a
//! final write of some location that is not a possible final write of the
//! source execution. Every violation has such an execution: its outcome
//! comes from an implementation-consistent execution of the compiled test,
//! and the source execution of the same choices reads the same values
//! (each write stores its own value), so were it consistent with that final
//! state the specification would allow the outcome; were it consistent and
//! racy the source would be racy. A proposal is a skeleton, checked the
//! ordinary way (both listings) by the caller, and blocked.

use super::{
    Barriers, Instance, NotAsked, Query, Side, Slots, Stop, solver_of, total_order, verdict,
};
use crate::analysis::diff::Kind;
use crate::analysis::mapping::{Dialect, Mapping, fill, render};
use crate::cat::SymValue;
use crate::engine::{Limits, Skeleton};
use crate::frontend::Options;
use crate::model::{LoadedModel, names};
use crate::relation::symbolic::{Answer, Circuit, Lit, Solver, SymRel, SymSet};

/// A probe: `threads` threads at `place`, each holding `lines` once, on
/// location `x`, every register and value its own; the engine's skeleton
/// of it, with `lines.len()` events per thread.
fn probe(
    d: Dialect,
    lines: &[&str],
    place: &[(usize, usize)],
    options: &Options,
    limits: Limits,
) -> Result<(Skeleton, crate::ir::Program), String> {
    let body: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| fill(l, "x", k as i64 + 1, &format!("r{k}"), 0))
        .collect();
    let threads = vec![body; place.len()];
    let text = render(d, "probe", place, &threads, &["x"]);
    let program = crate::frontend::parse_text("probe.litmus", &text, d.format(), options.clone())
        .map_err(|e| format!("the probe test does not read: {e}\n{text}"))?;
    let sk = Skeleton::straight_line_unlisted(&program, limits).map_err(|e| e.to_string())?;
    if sk.universe() != place.len() * lines.len() {
        return Err(format!(
            "an instruction of the mapping is not one event ({} events for {} instructions)",
            sk.universe(),
            place.len() * lines.len()
        ));
    }
    Ok((sk, program))
}

/// Whether probe event `e` reads and whether it writes.
fn access(sk: &Skeleton, e: usize) -> (bool, bool) {
    let has = |name: &str| match sk.static_env.get(name) {
        Some(crate::cat::Value::Set(s)) => s.contains(e),
        _ => false,
    };
    (has(names::R), has(names::W))
}

/// The models and the mapping a question is about.
pub(in crate::analysis) struct Checked<'a> {
    pub(in crate::analysis) mapping: &'a Mapping,
    pub(in crate::analysis) imp: &'a LoadedModel,
    pub(in crate::analysis) spec: &'a LoadedModel,
    pub(in crate::analysis) options: &'a Options,
    pub(in crate::analysis) limits: Limits,
}

/// The threads `t` at `place` whose exchange with thread `t + 1` keeps the
/// placement: every other thread shares a workgroup, and a subgroup, with
/// `t` exactly when it does with `t + 1`. Exchanging them maps the
/// skeletons of the placement onto themselves, each to one with the same
/// tests up to the order of the threads; bubble sort by such exchanges
/// puts any skeleton's threads of a run of them in any order, so each
/// skeleton has a relabelling whose threads are in the order
/// [`lex_geq`] asks.
pub(super) fn swaps(place: &[(usize, usize)]) -> Vec<usize> {
    (0..place.len().saturating_sub(1))
        .filter(|&t| {
            (0..place.len()).filter(|&u| u != t && u != t + 1).all(|u| {
                (place[u].0 == place[t].0) == (place[u].0 == place[t + 1].0)
                    && (place[u] == place[t]) == (place[u] == place[t + 1])
            })
        })
        .collect()
}

/// The events per thread (each 1 to `events`, `n` in all) of the shapes
/// a check asks at `place`: those whose counts do not increase across an
/// exchange that keeps the placement ([`swaps`]). Sorting a skeleton's
/// threads by such exchanges, by their counts first (then by the order
/// [`lex_geq`] asks of threads of one count), gives a skeleton of one of
/// these shapes with the same tests.
pub(in crate::analysis) fn count_vectors(
    place: &[(usize, usize)],
    events: usize,
    n: usize,
) -> Vec<Vec<usize>> {
    let ex = swaps(place);
    let mut out = Vec::new();
    let mut counts = vec![1; place.len()];
    loop {
        if counts.iter().sum::<usize>() == n && ex.iter().all(|&t| counts[t] >= counts[t + 1]) {
            out.push(counts.clone());
        }
        // The next vector, the last thread's count the fastest.
        let Some(t) = (0..counts.len()).rev().find(|&t| counts[t] < events) else {
            return out;
        };
        counts[t] += 1;
        for c in &mut counts[t + 1..] {
            *c = 1;
        }
    }
}

/// `x` is at least `y` in the lexicographic order of bit vectors of one
/// length (true above false), built from the last bit.
pub(super) fn lex_geq(c: &mut Circuit, x: &[Lit], y: &[Lit]) -> Lit {
    let mut geq = Lit::TRUE;
    for (&a, &b) in x.iter().zip(y).rev() {
        let above = c.and(a, !b);
        let same = c.iff(a, b);
        let rest = c.and(same, geq);
        geq = c.or(above, rest);
    }
    geq
}

/// The maximal writes of each location: a present write no other write of
/// its location follows in `after`.
fn maximal(c: &mut Circuit, write: &SymSet, same_loc: &SymRel, after: &SymRel) -> Vec<Lit> {
    let n = write.universe();
    (0..n)
        .map(|w| {
            let later: Vec<Lit> = (0..n)
                .filter(|&o| o != w)
                .map(|o| {
                    let x = c.and(write.get(o), same_loc.get(w, o));
                    c.and(x, after.get(w, o))
                })
                .collect();
            let any = c.or_all(later);
            c.and(write.get(w), !any)
        })
        .collect()
}

/// `po | co | final-order` of one side: the orders a final write is last in
/// (`litmus::final_memory`).
fn after(
    c: &mut Circuit,
    po: &SymRel,
    co: &SymRel,
    m: &LoadedModel,
    eval: &crate::cat::SymEvaluation,
) -> SymRel {
    let n = po.universe();
    let x = po.union(c, co);
    match m
        .profile
        .final_order
        .as_deref()
        .and_then(|b| eval.lookup(b))
        .and_then(|v: &SymValue| v.as_rel(n))
    {
        Some(f) => x.union(c, &f),
        None => x,
    }
}

/// Slot `e`'s place in the schedule that runs the threads in turns, in
/// `order`, `chunk` of its thread's `events` slots per turn.
fn schedule_position(order: &[usize], (events, chunk): (usize, usize), e: usize) -> usize {
    let rank = order.iter().position(|&t| t == e / events).unwrap_or(0);
    let i = e % events;
    (i / chunk) * order.len() * chunk + rank * chunk + i % chunk
}

/// The execution in which the threads run in turns, in `order`, each
/// running `chunk` events per turn (`chunk` = `events`: one after the
/// other), each read reading the last write of its location before it
/// (the initial value when none), or with `local` the last such write of
/// its own thread: its total order, reads-from and initial reads.
fn sequential(
    c: &mut Circuit,
    s: &super::Statics,
    order: &[usize],
    (events, chunk): (usize, usize),
    local: bool,
) -> (SymRel, SymRel, SymSet) {
    let n = s.write.universe();
    let pos = |e: usize| schedule_position(order, (events, chunk), e);
    let mut lt = SymRel::empty(n);
    for a in 0..n {
        for b in 0..n {
            lt.set(a, b, Lit::from_bool(pos(a) < pos(b)));
        }
    }
    let mut rf = SymRel::empty(n);
    let mut init = Vec::with_capacity(n);
    for r in 0..n {
        let earlier: Vec<usize> = (0..n)
            .filter(|&w| pos(w) < pos(r) && (!local || w / events == r / events))
            .collect();
        let mut any = Vec::new();
        for &w in &earlier {
            let mut x = c.and(s.write.get(w), s.same_loc.get(w, r));
            any.push(x);
            for &v in &earlier {
                if pos(v) > pos(w) {
                    let later = c.and(s.write.get(v), s.same_loc.get(v, r));
                    x = c.and(x, !later);
                }
            }
            rf.set(w, r, c.and(x, s.read.get(r)));
        }
        let any = c.or_all(any);
        init.push(c.and(s.read.get(r), !any));
    }
    (lt, rf, SymSet::from_lits(init))
}

impl Query {
    /// The question of a mapping check for `threads` threads at `place`,
    /// up to `events` source instructions each, or with `counts` exactly
    /// `counts[t]` in thread `t` (the question of one shape: every slot's
    /// presence a constant); `Err` names what the symbolic search does not
    /// take (control barriers, sequentially consistent operations, a row
    /// whose target does not have exactly one access of the source's kind)
    /// or the limit that stopped the building.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::analysis) fn mapping(
        k: &Checked,
        threads: usize,
        events: usize,
        locations: usize,
        place: &[(usize, usize)],
        counts: Option<&[usize]>,
        deadline: Option<web_time::Instant>,
    ) -> Result<Query, NotAsked> {
        let m = k.mapping;
        let (limits, stop) = super::reach(deadline, k.limits.bounds.max_memory)?;
        let stopped_or = |e: String| {
            if limits.reached() {
                NotAsked::Stopped(limits.stop())
            } else {
                NotAsked::Unsupported(e)
            }
        };
        let rows = m.rules.len();
        let sources: Vec<&str> = m.rules.iter().map(|r| r.source.as_str()).collect();
        // The target instructions: (row, position) in row order.
        let tops: Vec<(usize, usize)> = m
            .rules
            .iter()
            .enumerate()
            .flat_map(|(o, r)| (0..r.target.len()).map(move |j| (o, j)))
            .collect();
        let targets: Vec<&str> = tops
            .iter()
            .map(|&(o, j)| m.rules[o].target[j].as_str())
            .collect();
        let [sp, tp] =
            [(m.source, &sources, k.spec), (m.target, &targets, k.imp)].map(|(d, lines, model)| {
                probe(
                    d,
                    lines,
                    place,
                    k.options,
                    k.limits.reference().for_model(model),
                )
            });
        let ((sp, sprog), (tp, tprog)) = (sp.map_err(stopped_or)?, tp.map_err(stopped_or)?);
        // A barrier template's `{id}` is the number of the thread's earlier
        // control-barrier rows (`tests_of`); a Vulkan-dialect number is
        // fixed; OpenCL (and PTX, carried into it) numbers a thread's
        // barriers per execution scope.
        let number = |d: Dialect, t: &str, n: u32| {
            if t.contains("{id}") {
                Instance::Counted
            } else if d == Dialect::Vulkan {
                Instance::Fixed(n)
            } else {
                Instance::PerScope
            }
        };
        let sbar = Barriers::of(&sprog, &sp, rows, &|o, x| {
            number(m.source, &m.rules[o].source, x)
        })?;
        let tbar = Barriers::of(&tprog, &tp, tops.len(), &|t, x| {
            number(m.target, targets[t], x)
        })?;
        // Each row's target has exactly one access, of its source's kind
        // (a row without an access, none): the access the shared
        // reads-from and order address.
        let mut at = vec![None; rows];
        for (o, r) in m.rules.iter().enumerate() {
            let want = access(&sp, o);
            let found: Vec<usize> = (0..tops.len())
                .filter(|&t| tops[t].0 == o && access(&tp, t) != (false, false))
                .collect();
            let ok = match found[..] {
                [] => want == (false, false),
                [t] => access(&tp, t) == want,
                _ => false,
            };
            if !ok {
                return Err(NotAsked::Unsupported(format!(
                    "the row `{}` (line {}): its target does not have exactly one access of the source's kind, which the symbolic search pairs with the source's",
                    r.source, r.at.0
                )));
            }
            at[o] = found.first().map(|&t| tops[t].1);
        }
        let n = threads * events;
        let width = m.rules.iter().map(|r| r.target.len()).max().unwrap_or(1);
        let mut c = Circuit::with_stop(stop.clone());
        let mut facts = Vec::new();
        let has_location: Vec<bool> = m
            .rules
            .iter()
            .map(|r| matches!(r.kind, Kind::Load | Kind::Store | Kind::Rmw))
            .collect();
        let slots = Slots::counted(
            &mut c,
            &has_location,
            (threads, events),
            locations,
            counts,
            &mut facts,
        );
        // The skeleton's own facts (one row and one location per slot, ...),
        // which the race filter's witness solver holds too.
        let slot_facts = facts.clone();
        let mut source = slots.side(&sp.static_env, rows, events);
        // Each slot's `{id}`: its thread's earlier control-barrier rows.
        let ids = slots.counts_of(&mut c, |o| m.rules[o].kind == Kind::Cbar, events);
        if let Some(b) = &sbar {
            source.barriers = Some(b);
            source.ids = ids.clone();
        }
        // Target slot `e * width + j`: position `j` of source slot `e`'s row.
        let nt = n * width;
        let mut tsel = vec![vec![Lit::FALSE; tops.len()]; nt];
        let mut tpresent = Vec::with_capacity(nt);
        let mut thas = Vec::with_capacity(nt);
        let mut tloc = Vec::with_capacity(nt);
        for e in 0..n {
            for j in 0..width {
                let a = e * width + j;
                let mut here = Vec::new();
                let mut acc = Vec::new();
                for (t, &(o, p)) in tops.iter().enumerate() {
                    if p == j {
                        tsel[a][t] = slots.sel[e][o];
                        here.push(slots.sel[e][o]);
                        if at[o] == Some(j) {
                            acc.push(slots.sel[e][o]);
                        }
                    }
                }
                let any = c.or_all(here);
                tpresent.push(c.and(slots.present[e], any));
                let acc = c.or_all(acc);
                thas.push(c.and(slots.present[e], acc));
                tloc.push(slots.loc[e].clone());
            }
        }
        let target = Side {
            env: &tp.static_env,
            nops: tops.len(),
            per_thread: events * width,
            present: tpresent.clone(),
            sel: tsel,
            loc: tloc,
            has_loc: thas.clone(),
            barriers: tbar.as_ref(),
            // A target slot's `{id}` is its source slot's.
            ids: (0..nt).map(|a| ids[a / width].clone()).collect(),
        };
        let lt = total_order(&mut c, n, &mut facts);
        let mut tlt = SymRel::empty(nt);
        for a in 0..nt {
            for b in 0..nt {
                let (ea, eb) = (a / width, b / width);
                let v = if ea != eb {
                    lt.get(ea, eb)
                } else {
                    Lit::from_bool(a < b)
                };
                tlt.set(a, b, v);
            }
        }
        let ss = source.statics(&mut c)?;
        let ts = target.statics(&mut c)?;
        let (rf, rfinit) = source.fresh_rf(&mut c, &ss, &mut facts);
        let mut trf = SymRel::empty(nt);
        for a in 0..nt {
            for b in 0..nt {
                let (ea, eb) = (a / width, b / width);
                if ea == eb {
                    continue;
                }
                let x = c.and(rf.get(ea, eb), thas[a]);
                trf.set(a, b, c.and(x, thas[b]));
            }
        }
        let trfinit = SymSet::from_lits(
            (0..nt)
                .map(|a| c.and(rfinit.get(a / width), thas[a]))
                .collect(),
        );
        let total = |x: &LoadedModel| k.limits.for_model(x).profile.total_co;
        let se = source.encode(
            &mut c,
            &ss,
            &lt,
            rf,
            rfinit,
            total(k.spec),
            &k.spec.cat.free_names(),
        );
        let te = target.encode(
            &mut c,
            &ts,
            &tlt,
            trf,
            trfinit,
            total(k.imp),
            &k.imp.cat.free_names(),
        );
        // What the tests read back: the source side's base names and its
        // facts (a source candidate's compiled execution under the same
        // order need not be a candidate: the question asks for those that
        // are).
        let encoding = super::Encoding {
            base: se.base.clone(),
            lt: lt.clone(),
            facts: facts.clone(),
            nodes: c.len(),
        };
        // The compiled execution is a candidate of the compiled program.
        facts.push(te.valid);
        let su = SymSet::from_lits(slots.present.clone());
        let tu = SymSet::from_lits(tpresent);
        // A racy source is undefined: no violation. The threads run in
        // turns of one event, of two, ... or one after the other, in each
        // order, and the threads each reading only their own writes (or the
        // initial values) give executions the skeleton determines; one
        // consistent and racy under the specification makes the source
        // racy, and the question leaves it out.
        // Lazy facts (`Query::next`): the solver reads a schedule's copy of
        // the specification only once an answer is a skeleton it shows
        // racy, so a question holds the copies that rule something out.
        let mut lazy = Vec::new();
        let orders = crate::analysis::diff::permutations(threads);
        let own = (0..threads).collect::<Vec<_>>();
        let chunks = if threads > 1 {
            1..=events
        } else {
            events..=events
        };
        let runs = orders
            .iter()
            .flat_map(|o| chunks.clone().map(move |k| (o, k, false)))
            .chain(std::iter::once((&own, events, true)));
        // With the threads' event counts fixed, two schedules that run the
        // present slots in one order are one execution: each is asked once.
        let mut seen = std::collections::HashSet::new();
        for (order, chunk, local) in runs {
            if let Some(counts) = counts {
                let mut run: Vec<usize> = (0..n)
                    .filter(|&e| e % events < counts[e / events])
                    .collect();
                run.sort_by_key(|&e| schedule_position(order, (events, chunk), e));
                if !seen.insert((run, local)) {
                    continue;
                }
            }
            let (slt, srf, sinit) = sequential(&mut c, &ss, order, (events, chunk), local);
            let x = source.encode(
                &mut c,
                &ss,
                &slt,
                srf,
                sinit,
                total(k.spec),
                &k.spec.cat.free_names(),
            );
            let (cons, racy, _) = verdict(&mut c, k.spec, &su, &x.base, &limits)?;
            let both = c.and_all([x.valid, cons, racy]);
            lazy.push(!both);
        }
        let learner = Learner {
            statics: ss.clone(),
            slot_facts,
            witness: None,
            copy: None,
            none_before: Lit::TRUE,
            barriers: sbar.clone(),
            ids: ids.clone(),
        };
        let (cs, rs, es) = verdict(&mut c, k.spec, &su, &se.base, &limits)?;
        let (ci, _, ei) = verdict(&mut c, k.imp, &tu, &te.base, &limits)?;
        let after_s = after(&mut c, &se.po, &se.co, k.spec, &es);
        let after_t = after(&mut c, &te.po, &te.co, k.imp, &ei);
        // The order of the source writes the compiled execution leaves
        // free: the total order follows the compiled execution's order of
        // their compiled writes (`po | co | final-order`), which extends
        // its `co`, whenever that order is acyclic. Any compiled execution
        // is one with such a total order, and its source execution is then
        // the one that orders those writes as the compiled program does.
        let mut follow = SymRel::empty(n);
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let pairs: Vec<Lit> = (0..width)
                    .flat_map(|i| (0..width).map(move |j| (i, j)))
                    .map(|(i, j)| after_t.get(a * width + i, b * width + j))
                    .collect();
                let any = c.or_all(pairs);
                let ws = c.and(ss.write.get(a), ss.write.get(b));
                let x = c.and(ws, ss.same_loc.get(a, b));
                follow.set(a, b, c.and(x, any));
            }
        }
        let acyclic = follow.is_acyclic(&mut c);
        let inside = follow.diff(&mut c, &lt).is_empty(&mut c);
        facts.push(c.implies(acyclic, inside));
        let max_s = maximal(&mut c, &ss.write, &ss.same_loc, &after_s);
        let max_t = maximal(&mut c, &ts.write, &ts.same_loc, &after_t);
        // A final write of the compiled execution whose source write is not
        // a possible final write of the source execution.
        let mut differ = Vec::new();
        for e in 0..n {
            let here: Vec<Lit> = (0..width).map(|j| max_t[e * width + j]).collect();
            let t = c.or_all(here);
            differ.push(c.and(t, !max_s[e]));
        }
        let finals = c.or_all(differ);
        let clean = c.and(finals, !rs);
        let allowed_other = c.and(cs, clean);
        let not_allowed = c.or_all([!se.valid, !cs, allowed_other]);
        facts.push(ci);
        facts.push(not_allowed);
        // Thread symmetry: threads whose exchange keeps the placement (the
        // same workgroups and subgroups shared) run in an order of their
        // instructions (`swaps`). Not among the facts the tests read back
        // or the witness solver holds: a relabelling of a test may break
        // it.
        for t in swaps(place) {
            // Threads of different event counts are in the order of their
            // counts, which the caller asks only where it is decreasing
            // (`count_vectors`).
            if counts.is_some_and(|k| k[t] != k[t + 1]) {
                continue;
            }
            let key = |u: usize| -> Vec<Lit> {
                (0..events)
                    .flat_map(|i| {
                        let e = u * events + i;
                        std::iter::once(slots.present[e]).chain(slots.sel[e].iter().copied())
                    })
                    .collect()
            };
            facts.push(lex_geq(&mut c, &key(t), &key(t + 1)));
        }
        let solver = solver_of(&c, facts, stop, &limits)?;
        let mut q = Query::assemble(
            limits,
            c,
            solver,
            (threads, events),
            slots,
            place,
            (encoding, Some((learner, sp))),
        )?;
        q.stats.lazy_built = lazy.len() as u64;
        q.lazy = lazy;
        Ok(q)
    }

    /// A consistent racy execution under the specification of the skeleton
    /// `threads` at `place` (a source test the listings found racy), from
    /// the witness solver, as the pattern it gives the race filter; `None`
    /// when the skeleton is not one of this question's or the solver finds
    /// no such execution. `Err` names the limit that stopped the search.
    pub(in crate::analysis) fn witness(
        &mut self,
        k: &Checked,
        place: &[(usize, usize)],
        threads: &[Vec<(usize, usize)>],
    ) -> Result<Option<Pattern>, Stop> {
        let Some(chosen) = self.shape_lits(place, threads) else {
            return Ok(None);
        };
        let events = self.events;
        let Some((l, probe)) = self.learner.as_mut() else {
            return Ok(None);
        };
        let c = &mut self.c;
        if l.witness.is_none() {
            let side = l.side(&self.slots, probe, k, events);
            l.witness = match Witness::new(c, &side, &l.statics, k, &l.slot_facts, &self.limits) {
                Ok(x) => Some(x),
                Err(NotAsked::Stopped(s)) => return Err(s),
                // The question was built from the same model and side.
                Err(NotAsked::Unsupported(_)) => return Ok(None),
            };
        }
        let Some(x) = l.witness.as_mut() else {
            return Ok(None);
        };
        let v = match x.solver.solve(c, &chosen) {
            Answer::Sat(v) => v,
            Answer::Unsat => return Ok(None),
            Answer::Stopped => return Err(self.limits.stop()),
        };
        let n = x.rf.universe();
        let slot = |e: usize| (e / events, e % events);
        let inside: Vec<usize> = (0..n)
            .filter(|&e| {
                threads
                    .get(e / events)
                    .is_some_and(|t| t.len() > e % events)
            })
            .collect();
        let mut reads = Vec::new();
        for &r in &inside {
            if v.of(x.init.get(r)) {
                reads.push((slot(r), None));
            }
            if let Some(&w) = inside.iter().find(|&&w| w != r && v.of(x.rf.get(w, r))) {
                reads.push((slot(r), Some(slot(w))));
            }
        }
        let mut order = inside.clone();
        order.sort_by_key(|&a| inside.iter().filter(|&&b| v.of(x.lt.get(b, a))).count());
        Ok(Some(Pattern {
            place: place.to_vec(),
            threads: threads.to_vec(),
            reads,
            order: order.into_iter().map(slot).collect(),
        }))
    }

    /// Adds the pattern `p` to this question's race filter when it is one
    /// of its placement and its test fits the question's slots (the
    /// question's skeletons may extend it); whether it was added. `Err`
    /// names the limit that stopped the building.
    pub(in crate::analysis) fn apply(&mut self, k: &Checked, p: &Pattern) -> Result<bool, Stop> {
        if p.place != self.place || p.threads.len() != self.threads {
            return Ok(false);
        }
        let events = self.events;
        if p.threads.iter().any(|t| t.len() > events) {
            return Ok(false);
        }
        // The skeletons that extend the test: its slots as in it, the
        // others free (a thread's events go on after the test's).
        let mut matched = Vec::new();
        for (t, evs) in p.threads.iter().enumerate() {
            for (i, &(o, at)) in evs.iter().enumerate() {
                let e = t * events + i;
                let (Some(&op), Some(&loc)) = (self.slots.sel[e].get(o), self.slots.loc[e].get(at))
                else {
                    return Ok(false);
                };
                matched.extend([self.slots.present[e], op, loc]);
            }
        }
        let m = self.c.and_all(matched);
        if m == Lit::FALSE {
            return Ok(false);
        }
        let Some((l, probe)) = self.learner.as_mut() else {
            return Ok(false);
        };
        let (c, solver) = (&mut self.c, &mut self.solver);
        if l.copy.is_none() {
            let side = l.side(&self.slots, probe, k, events);
            let copy = match PatternCopy::new(c, &side, &l.statics, k, &l.slot_facts, &self.limits)
            {
                Ok(x) => x,
                Err(NotAsked::Stopped(s)) => return Err(s),
                // The question was built from the same model and side.
                Err(NotAsked::Unsupported(_)) => return Ok(false),
            };
            solver.assert(c, copy.not_bad);
            if solver.stopped() {
                return Err(self.limits.stop());
            }
            l.copy = Some(copy);
        }
        let Some(x) = l.copy.as_mut() else {
            return Ok(false);
        };
        let st = &l.statics;
        let n = st.read.universe();
        let at = |(t, i): (usize, usize)| t * events + i;
        // The test's own slots; the others are the extension's.
        let inside: Vec<bool> = (0..n)
            .map(|e| p.threads[e / events].len() > e % events)
            .collect();
        // The schedule: the test's slots in the witness's total order, then
        // the extension's slots thread by thread.
        let own = p.order.len();
        let mut pos: Vec<usize> = (0..n).map(|a| own + a).collect();
        for (r, &s) in p.order.iter().enumerate() {
            pos[at(s)] = r;
        }
        let mut eqs = Vec::new();
        for r in 0..n {
            // Each read of the extension reads the last write of its
            // location before it in the schedule (the initial value when
            // none); the test's reads read as in the witness.
            let write_here =
                |c: &mut Circuit, w: usize| c.and(st.write.get(w), st.same_loc.get(w, r));
            let mut earlier = Vec::new();
            for w in 0..n {
                if w == r {
                    continue;
                }
                let want = if inside[r] {
                    Lit::from_bool(
                        p.reads
                            .iter()
                            .any(|&(a, b)| at(a) == r && b.map(at) == Some(w)),
                    )
                } else if pos[w] < pos[r] {
                    let y = write_here(c, w);
                    earlier.push(y);
                    let later: Vec<Lit> = (0..n)
                        .filter(|&u| u != r && pos[w] < pos[u] && pos[u] < pos[r])
                        .map(|u| write_here(c, u))
                        .collect();
                    let later = c.or_all(later);
                    let y = c.and(y, !later);
                    c.and(y, st.read.get(r))
                } else {
                    Lit::FALSE
                };
                eqs.push(c.iff(x.rf.get(w, r), want));
            }
            let init = if inside[r] {
                Lit::from_bool(p.reads.iter().any(|&(a, b)| at(a) == r && b.is_none()))
            } else {
                let any = c.or_all(earlier);
                c.and(st.read.get(r), !any)
            };
            eqs.push(c.iff(x.init.get(r), init));
            for b in r + 1..n {
                eqs.push(c.iff(x.lt.get(r, b), Lit::from_bool(pos[r] < pos[b])));
            }
        }
        let first = c.and(m, l.none_before);
        l.none_before = c.and(l.none_before, !m);
        let all = c.and_all(eqs);
        let f = c.implies(first, all);
        solver.assert(c, f);
        #[cfg(test)]
        x.filter.assert(c, f);
        Ok(true)
    }

    /// Learns from the skeleton `threads` at `place`, a source test the
    /// listings found racy, when it is one of this question's: its witness
    /// ([`Query::witness`]) becomes a pattern of this question's race
    /// filter. Whether a pattern was added; `Err` names the limit that
    /// stopped the witness's search.
    #[cfg(test)]
    pub(in crate::analysis) fn learn_race(
        &mut self,
        k: &Checked,
        place: &[(usize, usize)],
        threads: &[Vec<(usize, usize)>],
    ) -> Result<bool, Stop> {
        match self.witness(k, place, threads)? {
            Some(p) => self.apply(k, &p),
            None => Ok(false),
        }
    }
}

/// A slot of a test: (thread, index in the thread).
type Slot = (usize, usize);

/// A racy source test and one of its executions, consistent and racy under
/// the specification (the witness solver's): what the race filter forces
/// on the skeletons that extend the test. Slots are (thread, index).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::analysis) struct Pattern {
    place: Vec<(usize, usize)>,
    threads: Vec<Vec<(usize, usize)>>,
    /// Each read of the test and the write it reads (`None`: the initial
    /// value).
    reads: Vec<(Slot, Option<Slot>)>,
    /// The test's slots in the execution's total order.
    order: Vec<(usize, usize)>,
}

impl Pattern {
    /// The pattern under every relabelling of its test (threads permuted,
    /// its execution's slots with them; the locations it uses renamed among
    /// themselves), each test once; `located[o]`: whether instruction `o`
    /// has a location (one without keeps the first).
    pub(in crate::analysis) fn relabelled(&self, located: &[bool]) -> Vec<Pattern> {
        let shape = crate::analysis::diff::Shape {
            place: self.place.clone(),
            threads: self.threads.clone(),
        };
        let used = self
            .threads
            .iter()
            .flatten()
            .map(|e| e.1 + 1)
            .max()
            .unwrap_or(0);
        let mut out: Vec<Pattern> = Vec::new();
        for perm in crate::analysis::diff::permutations(self.threads.len()) {
            // Old thread `perm[j]` is new thread `j`.
            let mut new = vec![0; perm.len()];
            for (j, &t) in perm.iter().enumerate() {
                new[t] = j;
            }
            let moved = |(t, i): (usize, usize)| (new[t], i);
            for lp in crate::analysis::diff::permutations(used) {
                let mut loc: Vec<usize> = (0..crate::analysis::diff::LOCATIONS.len()).collect();
                loc[..used].copy_from_slice(&lp);
                let (place, threads) = shape.key(&perm, &loc);
                if out.iter().any(|p| p.place == place && p.threads == threads) {
                    continue;
                }
                let threads = threads
                    .into_iter()
                    .map(|th| {
                        th.into_iter()
                            .map(|(o, l)| (o, if located[o] { l } else { 0 }))
                            .collect()
                    })
                    .collect();
                out.push(Pattern {
                    place,
                    threads,
                    reads: self
                        .reads
                        .iter()
                        .map(|&(r, w)| (moved(r), w.map(moved)))
                        .collect(),
                    order: self.order.iter().map(|&s| moved(s)).collect(),
                });
            }
        }
        out
    }
}

/// The race filter of a mapping check, which generalises from each racy
/// source test the listings find.
///
/// A *witness solver* (over the question's circuit, its own clauses)
/// holds a second execution of the source skeleton with its own
/// reads-from and total order, consistent and racy under the
/// specification; solved with a racy test's skeleton assumed, it gives one
/// of its consistent racy executions, which with the test is a
/// [`Pattern`] (and, threads permuted, one for each relabelling of it).
///
/// A *pattern copy* of the specification judges a third execution whose
/// reads-from and order are free variables, and the question asserts that
/// it is not valid, consistent and racy. Each pattern added to the
/// question applies to the skeletons that extend its test (its slots as in
/// the test, events appended to its threads) and extend no earlier
/// pattern's test: on them the third execution is forced to the
/// *extension* of the pattern's execution: the test's events read and are
/// ordered as in it, the appended events come after them thread by thread,
/// each appended read reading the last write of its location before it
/// (or the initial value), each appended write last in the order. The
/// forced execution is an execution of the skeleton, so where the
/// specification finds it consistent and racy the skeleton is racy and the
/// question leaves it out; where it does not, the skeleton stays. A
/// skeleton no pattern matches leaves the third execution free: it is left
/// out only if every assignment (every candidate among them) is consistent
/// and racy, which makes it racy too. So the filter only leaves out racy
/// skeletons, whatever the model and whatever execution a pattern holds:
/// the model judges each forced execution. Each copy is built when first
/// needed: a question with no racy proposal carries no witness solver, one
/// no pattern fits no pattern copy.
pub(in crate::analysis) struct Learner {
    /// The source side's access kinds and same-location relation.
    statics: super::Statics,
    /// The skeleton's own facts (the witness solver holds them too).
    slot_facts: Vec<Lit>,
    witness: Option<Witness>,
    pub(super) copy: Option<PatternCopy>,
    /// No pattern added so far matches the skeleton.
    none_before: Lit,
    /// The source side's control barriers and its slots' `{id}`s.
    barriers: Option<super::Barriers>,
    ids: Vec<Vec<Lit>>,
}

impl Learner {
    /// The source side over `slots`, read through `probe`.
    fn side<'a>(
        &'a self,
        slots: &Slots,
        probe: &'a Skeleton,
        k: &Checked,
        events: usize,
    ) -> Side<'a> {
        let mut side = slots.side(&probe.static_env, k.mapping.rules.len(), events);
        if let Some(b) = &self.barriers {
            side.barriers = Some(b);
            side.ids = self.ids.clone();
        }
        side
    }
}

/// A source execution with its own reads-from and total order: its
/// variables and their formulas.
struct Execution {
    rf: SymRel,
    init: SymSet,
    lt: SymRel,
    /// Valid, consistent and racy under the specification.
    bad: Lit,
}

impl Execution {
    /// A fresh execution over the source side `source`, the facts its
    /// variables need added to `facts`.
    fn new(
        c: &mut Circuit,
        source: &Side,
        ss: &super::Statics,
        k: &Checked,
        facts: &mut Vec<Lit>,
        limits: &super::Reach,
    ) -> Result<Execution, NotAsked> {
        let spec = k.spec;
        let total_co = k.limits.for_model(spec).profile.total_co;
        let su = SymSet::from_lits(source.present.clone());
        let lt = total_order(c, su.universe(), facts);
        let (rf, init) = source.fresh_rf(c, ss, facts);
        let x = source.encode(
            c,
            ss,
            &lt,
            rf.clone(),
            init.clone(),
            total_co,
            &spec.cat.free_names(),
        );
        let (cons, racy, _) = verdict(c, spec, &su, &x.base, limits)?;
        let bad = c.and_all([x.valid, cons, racy]);
        Ok(Execution { rf, init, lt, bad })
    }
}

/// The stop of a solver: the question's limits.
fn stop_of(limits: &std::rc::Rc<super::Reach>) -> crate::relation::symbolic::StopWhen {
    let l = limits.clone();
    crate::relation::symbolic::StopWhen(std::rc::Rc::new(move || l.reached()))
}

/// The witness solver: the skeleton's facts and an execution of it,
/// consistent and racy under the specification.
struct Witness {
    solver: Solver,
    rf: SymRel,
    init: SymSet,
    lt: SymRel,
}

impl Witness {
    fn new(
        c: &mut Circuit,
        source: &Side,
        ss: &super::Statics,
        k: &Checked,
        slot_facts: &[Lit],
        limits: &std::rc::Rc<super::Reach>,
    ) -> Result<Witness, NotAsked> {
        let mut facts = slot_facts.to_vec();
        let x = Execution::new(c, source, ss, k, &mut facts, limits)?;
        facts.push(x.bad);
        Ok(Witness {
            solver: solver_of(c, facts, stop_of(limits), limits)?,
            rf: x.rf,
            init: x.init,
            lt: x.lt,
        })
    }
}

/// The pattern copy: an execution whose variables carry no facts
/// (unforced, any assignment may answer) and that the question asserts is
/// not valid, consistent and racy.
pub(super) struct PatternCopy {
    rf: SymRel,
    init: SymSet,
    lt: SymRel,
    not_bad: Lit,
    /// The filter alone: the skeleton's facts, the pattern copy's and the
    /// patterns' (what the tests ask of it).
    #[cfg(test)]
    pub(super) filter: Solver,
}

impl PatternCopy {
    fn new(
        c: &mut Circuit,
        source: &Side,
        ss: &super::Statics,
        k: &Checked,
        slot_facts: &[Lit],
        limits: &std::rc::Rc<super::Reach>,
    ) -> Result<PatternCopy, NotAsked> {
        let mut loose = Vec::new();
        let x = Execution::new(c, source, ss, k, &mut loose, limits)?;
        #[cfg(not(test))]
        let _ = slot_facts;
        Ok(PatternCopy {
            #[cfg(test)]
            filter: {
                let mut only = slot_facts.to_vec();
                only.push(!x.bad);
                solver_of(c, only, stop_of(limits), limits)?
            },
            rf: x.rf,
            init: x.init,
            lt: x.lt,
            not_bad: !x.bad,
        })
    }
}
