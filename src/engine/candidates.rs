//! The candidate executions of a skeleton: the depth-first search over the
//! choices its building listed ([`super::choices`]: reads-from, scoped
//! modification orders, SC orders, interlock orders), with pruning of
//! partial reads-from assignments, factored observation reads and slices
//! for the parallel walk.

use super::skeleton::Skeleton;
use crate::cat::Env;
use crate::model::names;
use crate::relation::{EventSet, Relation};
use std::ops::ControlFlow;

/// What a partial environment handed to the pruning callback leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Partial {
    /// Some reads have no reads-from choice yet (`rf`/`RFINIT` grow); every
    /// other dynamic name is final.
    ReadsFrom,
    /// The interlock order `ilo` is a sub-relation of every order below the
    /// node (some pairs of overlapping invocations are not ordered yet), and
    /// only the forced reads have their reads-from choice.
    InterlockOrder,
    /// Every read has its reads-from choice but the observation reads of
    /// the locations other than one (`choices::observation_reads`): the callback
    /// evaluates the model fully and says whether the environment is
    /// consistent (not a pruning question: with a model declaring
    /// `location-local-reads`, the choices of that location's observation
    /// reads are consistent with the rest exactly when it is).
    Location,
}

/// The pruning callback of a search: false abandons the subtree (every
/// completion of the partial environment is inconsistent). The flag says
/// whether the evaluation counts against the limits: a part of a parallel
/// walk asks again, uncounted, about a node another part owns (see
/// `search`, the check under each order), so that the parts together
/// count what the sequential walk counts.
pub type Prune<'a> = &'a mut dyn FnMut(&Env, Partial, bool) -> bool;

/// One candidate execution.
pub struct Candidate {
    /// For each read of the skeleton (same order as `Skeleton::reads`): the
    /// write it reads from, `None` for the initial value.
    pub rf_source: Vec<Option<usize>>,
    /// The dynamic base names ([`names::DYNAMIC_NAMES`]).
    pub env: Env,
    /// The values read and written, when the skeleton has derived stores
    /// ([`super::values`]); else the events' own values hold.
    pub values: Option<super::values::Values>,
    /// A factored candidate ([`Factors`]): this candidate stands for every
    /// combination of the consistent choices of its observation reads, one
    /// list per location; its own choices are the first of each list.
    pub factors: Option<std::sync::Arc<Factors>>,
}

/// The consistent reads-from choices of a candidate's observation reads,
/// location by location ("Factored observation reads" below).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Factors {
    pub groups: Vec<FactorGroup>,
}

/// The observation reads of one location and their consistent choices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FactorGroup {
    pub location: usize,
    /// The reads (indices into `Skeleton::reads`).
    pub reads: Vec<usize>,
    /// Each consistent combination of their choices: per read, the write
    /// it reads from (`None`: the initial value).
    pub choices: Vec<Vec<Option<usize>>>,
}

impl Factors {
    /// How many candidates the factored one stands for (saturating).
    pub fn combinations(&self) -> u64 {
        self.groups
            .iter()
            .fold(1u64, |a, g| a.saturating_mul(g.choices.len() as u64))
    }

    /// Calls `f` with each candidate `rep` (a factored candidate of `sk`)
    /// stands for, until it breaks: its reads-from sources and, with
    /// derived stores, the values its observation reads read, set per
    /// combination. The environment stays `rep`'s: its `rf` and `RFINIT`
    /// are those of the first combination (what a factored visitor may not
    /// read: [`super::driver::Needs::factored`]).
    ///
    /// `over` is the walk's budget ([`super::driver::Visitor::visit_factored`]
    /// hands it in): asked before each combination, since one candidate may
    /// stand for more combinations than the time or memory bound allows
    /// (2^36 for six threads each loading six locations). Once it says yes
    /// the loop breaks, and the walk, whose budget recorded the limit, is
    /// undecided.
    pub fn for_each(
        &self,
        sk: &Skeleton,
        rep: &Candidate,
        over: &dyn Fn() -> bool,
        f: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut cand = Candidate {
            rf_source: rep.rf_source.clone(),
            env: rep.env.clone(),
            values: rep.values.clone(),
            factors: None,
        };
        let mut idx = vec![0usize; self.groups.len()];
        loop {
            if over() {
                return ControlFlow::Break(());
            }
            for (g, &i) in self.groups.iter().zip(&idx) {
                for (&k, &c) in g.reads.iter().zip(&g.choices[i]) {
                    cand.rf_source[k] = c;
                    if let Some(vals) = cand.values.as_mut() {
                        let r = sk.reads[k];
                        vals.read[r] = match c {
                            Some(w) => vals.write[w],
                            None => Some(sk.initial[g.location]),
                        };
                    }
                }
            }
            f(&cand)?;
            let mut d = 0;
            loop {
                if d == idx.len() {
                    return ControlFlow::Continue(());
                }
                idx[d] += 1;
                if idx[d] < self.groups[d].choices.len() {
                    break;
                }
                idx[d] = 0;
                d += 1;
            }
        }
    }
}

/// What a search does with the candidates under one combination of
/// coherence orders.
pub enum OrderChoice {
    /// None of them matter.
    Skip,
    /// All of them.
    All,
    /// Those whose reads read from these choices (per read, a subset of the
    /// skeleton's `rf_choices`).
    Restrict(Vec<Vec<Option<usize>>>),
}

/// Below this many remaining candidates a subtree is enumerated without
/// asking the pruning callback (a model evaluation costs about as much as a
/// leaf).
const PRUNE_MIN_SUBTREE: u128 = 4;

fn env_of(
    n: usize,
    rf: &Relation,
    init: &EventSet,
    (co, asmo): (&Relation, &Relation),
    (sco, ilo): (&Relation, &Relation),
) -> Env {
    let mut env = Env::new(n);
    env.rel(names::ILO, ilo.clone());
    env.rel(names::RF, rf.clone());
    env.rel(names::CO, co.clone());
    env.rel(names::ASMO, asmo.clone());
    env.rel(names::SCO, sco.clone());
    env.set(names::RFINIT, init.clone());
    env
}

struct Dfs<'a> {
    s: &'a Skeleton,
    /// The reads-from choices of each read (the skeleton's, or fewer).
    choices: &'a [Vec<Option<usize>>],
    /// The reads in search order (indices into `s.reads`): forced reads first.
    order: Vec<usize>,
    co: Relation,
    asmo: Relation,
    sco: Relation,
    ilo: Relation,
    rf: Relation,
    init: EventSet,
    source: Vec<Option<usize>>,
    /// `remaining[d]`: product of the choices of reads d.. (saturating)
    remaining: Vec<u128>,
    /// A part of the walk ([`Slices`]): `(blocks, b)` walks only block `b`
    /// of `blocks` consecutive blocks of the choices of the first read (in
    /// search order) with more than one choice.
    split: Option<(usize, usize)>,
    /// The depth of that read in the search order.
    branch: Option<usize>,
    /// Whether the skeleton has derived stores ([`super::values`]).
    derived: bool,
    /// With derived stores: each event's reads-from choice made so far
    /// (`Some(choice)` for a read assigned on the current branch), for the
    /// early value check ([`super::values::partial_write_value`]).
    event_source: Vec<Option<Option<usize>>>,
    /// The reads assigned on the current branch that their paths fixed,
    /// reading a derived store whose value was not known yet when chosen:
    /// `(store, fixed value)`, checked again as later choices give values.
    pending: Vec<(usize, i64)>,
    /// The depth from which the search order holds only observation reads
    /// with several choices, grouped by location, when the search factors
    /// them ([`Dfs::factored`]).
    factor_from: Option<usize>,
}

impl Dfs<'_> {
    fn go(
        &mut self,
        d: usize,
        prune: &mut Option<Prune>,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if d == self.order.len() {
            return self.emit(None, visit);
        }
        // Ask the pruning callback right after a choice was made (a forced
        // read adds nothing a later check would not see too).
        if d > 0
            && self.choices[self.order[d - 1]].len() > 1
            && self.remaining[d] >= PRUNE_MIN_SUBTREE
            && let Some(p) = prune.as_mut()
            && !p(&self.env(), Partial::ReadsFrom, true)
        {
            return ControlFlow::Continue(());
        }
        if self.factor_from == Some(d) {
            return self.factored(d, prune, visit);
        }
        let k = self.order[d];
        let r = self.s.reads[k];
        let all = &self.choices[k];
        let mine = match self.split {
            Some((blocks, b)) if self.branch == Some(d) => {
                all.len() * b / blocks..all.len() * (b + 1) / blocks
            }
            _ => 0..all.len(),
        };
        for &c in &all[mine] {
            // A read its path fixed, choosing a derived store whose value
            // the reads assigned so far already give, and another one:
            // every candidate below would be dropped by `values::resolve`.
            // The value not known yet: checked again after each later
            // choice of a read whose value the path left open.
            let mut pends = false;
            if self.derived
                && let (Some(w), Some(v)) = (c, self.s.events[r].read_value)
                && self.s.events[w].derived.is_some()
            {
                match super::values::partial_write_value(self.s, &self.event_source, w) {
                    Some(x) if x != v => continue,
                    Some(_) => {}
                    None => pends = true,
                }
            }
            if self.derived {
                self.event_source[r] = Some(c);
                if self.s.events[r].read_value.is_none()
                    && self.pending.iter().any(|&(w, v)| {
                        super::values::partial_write_value(self.s, &self.event_source, w)
                            .is_some_and(|x| x != v)
                    })
                {
                    self.event_source[r] = None;
                    continue;
                }
                if pends {
                    let w = c.expect("a derived store");
                    let v = self.s.events[r].read_value.expect("a fixed read");
                    self.pending.push((w, v));
                }
            }
            match c {
                Some(w) => self.rf.insert(w, r),
                None => self.init.insert(r),
            }
            self.source[k] = c;
            let flow = self.go(d + 1, prune, visit);
            if self.derived {
                self.event_source[r] = None;
                if pends {
                    self.pending.pop();
                }
            }
            match c {
                Some(w) => self.rf.remove(w, r),
                None => self.init.remove(r),
            }
            flow?;
        }
        ControlFlow::Continue(())
    }
}

impl Dfs<'_> {
    /// Assigns read `k` (index into `s.reads`) the choice `c`, or clears
    /// it (`None`).
    fn assign(&mut self, k: usize, c: Option<Option<usize>>) {
        let r = self.s.reads[k];
        match (c, self.source[k]) {
            (Some(c), _) => {
                match c {
                    Some(w) => self.rf.insert(w, r),
                    None => self.init.insert(r),
                }
                self.source[k] = c;
            }
            (None, Some(w)) => self.rf.remove(w, r),
            (None, None) => self.init.remove(r),
        }
    }

    /// The candidate of the reads-from choices assigned now (standing for
    /// `factors`' product when given); with derived stores, one per
    /// assignment of the values these choices give (none when a read the
    /// path fixed reads another value).
    fn emit(
        &self,
        factors: Option<std::sync::Arc<Factors>>,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let env = self.env();
        if !self.derived {
            return visit(&Candidate {
                rf_source: self.source.clone(),
                env,
                values: None,
                factors,
            });
        }
        super::values::resolve(self.s, &self.source, &mut |values| {
            visit(&Candidate {
                rf_source: self.source.clone(),
                env: env.clone(),
                values: Some(values),
                factors: factors.clone(),
            })
        })
    }

    fn env(&self) -> Env {
        env_of(
            self.s.universe(),
            &self.rf,
            &self.init,
            (&self.co, &self.asmo),
            (&self.sco, &self.ilo),
        )
    }

    /// The observation reads from depth `d0` on ([`observation_reads`](super::choices::observation_reads)),
    /// every other read assigned (E'): each location's reads searched on
    /// their own, the other locations' left open, with the usual pruning
    /// at inner nodes and a full evaluation at each leaf
    /// ([`Partial::Location`]); then one candidate standing for the
    /// product of the consistent choices ([`Factors`]), with the first
    /// choice of each location. No location with a consistent choice: no
    /// candidate. In a part of a parallel walk whose split read is one of
    /// them, only the first part does this (the others would repeat it).
    fn factored(
        &mut self,
        d0: usize,
        prune: &mut Option<Prune>,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if let Some((_, b)) = self.split
            && self.branch.is_some_and(|br| br >= d0)
            && b != 0
        {
            return ControlFlow::Continue(());
        }
        let Some(p) = prune.as_mut() else {
            return ControlFlow::Continue(());
        };
        // The depths of each location's reads (consecutive in the order).
        let mut spans: Vec<(usize, std::ops::Range<usize>)> = Vec::new();
        for d in d0..self.order.len() {
            let l = self.s.observation[self.order[d]].expect("an observation read");
            match spans.last_mut() {
                Some((m, range)) if *m == l => range.end = d + 1,
                _ => spans.push((l, d..d + 1)),
            }
        }
        // The locations of one read: their choices decided round by round
        // ([`Dfs::rounds`]); the others searched on their own.
        let singles: Vec<usize> = (0..spans.len())
            .filter(|&i| spans[i].1.len() == 1)
            .map(|i| self.order[spans[i].1.start])
            .collect();
        let mut decided = self.rounds(&singles, p).into_iter();
        let mut groups = Vec::with_capacity(spans.len());
        for (location, range) in spans {
            let found = if range.len() == 1 {
                decided.next().expect("a single read's choices")
            } else {
                let mut found = Vec::new();
                self.group(range.clone(), range.start, p, &mut found);
                found
            };
            if found.is_empty() {
                return ControlFlow::Continue(());
            }
            groups.push(FactorGroup {
                location,
                reads: range.map(|d| self.order[d]).collect(),
                choices: found,
            });
        }
        let factors = std::sync::Arc::new(Factors { groups });
        for g in &factors.groups {
            for (&k, &c) in g.reads.iter().zip(&g.choices[0]) {
                self.assign(k, Some(c));
            }
        }
        let flow = self.emit(Some(factors.clone()), visit);
        for g in &factors.groups {
            for &k in &g.reads {
                self.assign(k, None);
            }
        }
        flow
    }

    /// The consistent choices of each of `reads` (observation reads, each
    /// the only one of its location), in choice order, every other
    /// observation read left open: the choices [`Dfs::group`] would find
    /// for each, with fewer evaluations. In round `j` every read with a
    /// `j`-th choice takes it and the model is evaluated once
    /// ([`Partial::Location`]); consistent, each of those choices is
    /// consistent on its own, else each is evaluated alone. Why one
    /// evaluation decides them all: with a model declaring
    /// `location-local-reads`, an observation read's choice changes only
    /// the `rf` edge into it and the from-reads out of it, at its
    /// location, and every relation of the one axiom (vulkan-rules.cat:
    /// "no cycles exist in the union of the following relations:
    /// location-ordered, scoped modification order (over all atomic
    /// writes), reads-from, from-reads") relates events of one location,
    /// so a cycle lies within one location and depends only on the rest
    /// (E') and that location's choices: the combination is consistent
    /// exactly when each of its locations' choices is (the argument of
    /// "Factored observation reads" above, applied to the reads assigned).
    /// With every location's `j`-th choice consistent (a barrier's loads
    /// after it, each reading its one store) the round takes one
    /// evaluation instead of one per location.
    fn rounds(&mut self, reads: &[usize], p: &mut Prune) -> Vec<Vec<Vec<Option<usize>>>> {
        let mut found: Vec<Vec<Vec<Option<usize>>>> = vec![Vec::new(); reads.len()];
        let most = reads
            .iter()
            .map(|&k| self.choices[k].len())
            .max()
            .unwrap_or(0);
        for j in 0..most {
            let here: Vec<usize> = (0..reads.len())
                .filter(|&i| j < self.choices[reads[i]].len())
                .collect();
            let mut each = |dfs: &mut Self, set: &[usize]| {
                for &i in set {
                    let k = reads[i];
                    dfs.assign(k, Some(dfs.choices[k][j]));
                }
                let ok = p(&dfs.env(), Partial::Location, true);
                for &i in set {
                    dfs.assign(reads[i], None);
                }
                ok
            };
            if here.len() > 1 && each(self, &here) {
                for &i in &here {
                    found[i].push(vec![self.choices[reads[i]][j]]);
                }
                continue;
            }
            for &i in &here {
                if each(self, &[i]) {
                    found[i].push(vec![self.choices[reads[i]][j]]);
                }
            }
        }
        found
    }

    /// The choices of the reads at depths `range` (one location's
    /// observation reads), from depth `d` on, consistent with what is
    /// assigned: each pushed to `found` (per read of the range, in order).
    fn group(
        &mut self,
        range: std::ops::Range<usize>,
        d: usize,
        p: &mut Prune,
        found: &mut Vec<Vec<Option<usize>>>,
    ) {
        if d == range.end {
            if p(&self.env(), Partial::Location, true) {
                found.push(range.map(|d| self.source[self.order[d]]).collect());
            }
            return;
        }
        let below: u128 = (d..range.end)
            .map(|e| self.choices[self.order[e]].len() as u128)
            .fold(1, u128::saturating_mul);
        if d > range.start
            && below >= PRUNE_MIN_SUBTREE
            && !p(&self.env(), Partial::ReadsFrom, true)
        {
            return;
        }
        let k = self.order[d];
        for i in 0..self.choices[k].len() {
            let c = self.choices[k][i];
            self.assign(k, Some(c));
            self.group(range.clone(), d + 1, p, found);
            self.assign(k, None);
        }
    }
}

/// Walks the interlock orders of the skeleton, then the reads-from choices
/// under each, from a search state with no reads assigned.
///
/// With one interlock order (the usual case) this is the reads-from search
/// alone. With several, and a pruning callback, the orders are walked as a
/// trie over the overlapping pairs of invocations (each order directs every
/// pair; orders sharing the directions of the first pairs share a node),
/// with the forced reads already assigned: at a node where the orders
/// split, the callback sees the union of the pairs directed so far
/// ([`Partial::InterlockOrder`]), a sub-relation of every order below, and
/// abandons the node when that is already inconsistent. An interlock order
/// is thus refuted once for all the orders that share its refuted part
/// (two pixels with three invocations each: 36 orders, and most pairs of
/// reads-from choices refute most of them after one or two pairs).
fn ilo_search(
    dfs: &mut Dfs,
    prune: &mut Option<Prune>,
    visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let s = dfs.s;
    let all: Vec<usize> = (0..s.ilo_choices.len()).collect();
    if all.len() == 1 || prune.is_none() {
        for ilo in &s.ilo_choices {
            dfs.ilo = ilo.clone();
            dfs.go(0, prune, visit)?;
        }
        return ControlFlow::Continue(());
    }
    // The forced reads come first in the search order: assign them now.
    let forced = dfs
        .order
        .iter()
        .take_while(|&&k| dfs.choices[k].len() == 1)
        .count();
    for d in 0..forced {
        let k = dfs.order[d];
        let r = s.reads[k];
        let c = dfs.choices[k][0];
        match c {
            Some(w) => dfs.rf.insert(w, r),
            None => dfs.init.insert(r),
        }
        dfs.source[k] = c;
        if dfs.derived {
            dfs.event_source[r] = Some(c);
        }
    }
    // The pairs of events' threads the orders relate: one event pair stands
    // for its two threads (an order relates every event of one invocation
    // to every event of the other).
    let pairs = ilo_pairs(s);
    let partial = Relation::empty(s.universe());
    ilo_trie(dfs, &pairs, 0, &all, &partial, forced, prune, visit)
}

/// For each pair of overlapping invocations some interlock order relates:
/// one event of each (the first, in event order).
fn ilo_pairs(s: &Skeleton) -> Vec<(usize, usize)> {
    let n = s.universe();
    let mut first = Vec::new();
    for e in 0..n {
        if !first
            .iter()
            .any(|&f: &usize| s.events[f].thread == s.events[e].thread)
        {
            first.push(e);
        }
    }
    let mut pairs = Vec::new();
    for (i, &a) in first.iter().enumerate() {
        for &b in &first[i + 1..] {
            if s.ilo_choices
                .iter()
                .any(|r| r.contains(a, b) || r.contains(b, a))
            {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

#[allow(clippy::too_many_arguments)]
fn ilo_trie(
    dfs: &mut Dfs,
    pairs: &[(usize, usize)],
    depth: usize,
    group: &[usize],
    partial: &Relation,
    forced: usize,
    prune: &mut Option<Prune>,
    visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let s = dfs.s;
    if group.len() == 1 || depth == pairs.len() {
        for &i in group {
            dfs.ilo = s.ilo_choices[i].clone();
            dfs.go(forced, prune, visit)?;
        }
        return ControlFlow::Continue(());
    }
    let (a, b) = pairs[depth];
    let forward: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&i| s.ilo_choices[i].contains(a, b))
        .collect();
    let backward: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&i| s.ilo_choices[i].contains(b, a))
        .collect();
    let unrelated: Vec<usize> = group
        .iter()
        .copied()
        .filter(|&i| !s.ilo_choices[i].contains(a, b) && !s.ilo_choices[i].contains(b, a))
        .collect();
    let split = [
        !forward.is_empty(),
        !backward.is_empty(),
        !unrelated.is_empty(),
    ]
    .iter()
    .filter(|&&x| x)
    .count()
        > 1;
    let n = s.universe();
    for branch in [forward, backward, unrelated] {
        if branch.is_empty() {
            continue;
        }
        // What every order below relates: the pairs directed so far and
        // those they imply (three invocations with two pairs directed are
        // often in one order already); a sub-relation of each order.
        let mut common = s.ilo_choices[branch[0]].clone();
        for &i in &branch[1..] {
            common = common.inter(&s.ilo_choices[i]);
        }
        // Ask the callback only where the orders split, more than one
        // remains below (a single order is evaluated whole anyway) and the
        // node relates more than its parent.
        let keep = !(split && branch.len() > 1 && common != *partial)
            || match prune.as_mut() {
                Some(p) => {
                    dfs.ilo = common.clone();
                    p(
                        &env_of(
                            n,
                            &dfs.rf,
                            &dfs.init,
                            (&dfs.co, &dfs.asmo),
                            (&dfs.sco, &dfs.ilo),
                        ),
                        Partial::InterlockOrder,
                        true,
                    )
                }
                None => true,
            };
        if keep {
            ilo_trie(
                dfs,
                pairs,
                depth + 1,
                &branch,
                &common,
                forced,
                prune,
                visit,
            )?;
        }
    }
    ControlFlow::Continue(())
}

/// The reads-from choices an RMW keeps under the scoped modification order
/// `asmo` when the model declares `rmw-atomicity` (its profile): among the
/// writes `asmo` relates to the RMW, only its immediate predecessor (the
/// initial value only when it has none); writes `asmo` does not relate to
/// it stay. Every other choice closes a cycle the model forbids: reading a
/// write `asmo`-after the RMW is `rf ; asmo` back to it, and reading one
/// with another write `w` between them in `asmo` is `fr` to `w` (from-reads
/// contains `rf^-1 ; asmo`) then `asmo` back; reading the initial value is
/// `fr` to every write of the location, its predecessor included. Other
/// reads keep their choices.
fn atomic_reads(
    s: &Skeleton,
    asmo: &Relation,
    choices: &[Vec<Option<usize>>],
) -> Vec<Vec<Option<usize>>> {
    s.reads
        .iter()
        .zip(choices)
        .map(|(&e, c)| {
            if !s.events[e].writes {
                return c.clone();
            }
            let n = s.events.len();
            let related = |w: usize| asmo.contains(w, e) || asmo.contains(e, w);
            let any_pred = (0..n).any(|w| asmo.contains(w, e));
            // `w` directly before `e`: no write between them in `asmo`
            let immediate = |w: usize| {
                asmo.contains(w, e) && !(0..n).any(|v| asmo.contains(w, v) && asmo.contains(v, e))
            };
            c.iter()
                .copied()
                .filter(|choice| match *choice {
                    None => !any_pred,
                    Some(w) => !related(w) || immediate(w),
                })
                .collect()
        })
        .collect()
}

/// A part of a skeleton's walk: the slices numbered `range`, of the
/// slices the walk is cut into. The walk meets the combinations of the
/// locations' coherence orders one after the other (the first location's
/// order changing fastest), under each the SC orders, and under each of
/// those the reads-from choices; a slice is one combination of coherence
/// orders, one SC order and one of `blocks` consecutive blocks of the
/// choices of the first read (in search order) with more than one choice
/// (`blocks` is 1 when the skeleton has several interlock orders, whose
/// walk comes before that read's). Slices are numbered in walk order, so
/// the walks of consecutive ranges, one after the other, are the walk of
/// their union: the same candidates in the same order, and the same calls
/// to `prune` (the reads before that first branching read are forced, so
/// no node above it is asked). This is what lets the parallel driver split
/// one skeleton's search into parts. `orders` is asked again about a
/// combination of coherence orders in each part that walks some of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slices {
    pub range: std::ops::Range<usize>,
    pub blocks: usize,
}

/// How many slices ([`Slices`]) a skeleton's walk has with `blocks`
/// blocks per SC order, when the number fits a `usize`.
pub(crate) fn slice_count(s: &Skeleton, blocks: usize) -> Option<usize> {
    let blocks = if s.ilo_choices.len() > 1 {
        1
    } else {
        blocks.max(1)
    };
    s.mo_choices
        .iter()
        .try_fold(1usize, |a, c| a.checked_mul(c.len()))?
        .checked_mul(s.sco_choices.len())?
        .checked_mul(blocks)
}

/// Walks the candidates of `s` (`slices`: of that part only; `None`: all).
pub(crate) fn search(
    s: &Skeleton,
    mut prune: Option<Prune>,
    orders: &mut dyn FnMut(&Relation) -> OrderChoice,
    visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    slices: Option<Slices>,
    factor: bool,
) {
    let n = s.universe();
    // The location of each observation read the search factors (with
    // several choices: one with a single choice is forced), after every
    // other read in the search order ([`Dfs::factored`]).
    let factored = |choices: &[Vec<Option<usize>>], k: usize| {
        if !factor || s.observation.is_empty() || choices[k].len() < 2 {
            return None;
        }
        s.observation[k]
    };
    if s.rf_choices.iter().any(|c| c.is_empty()) || s.mo_choices.iter().any(|c| c.is_empty()) {
        return;
    }
    let blocks = slices.as_ref().map_or(1, |p| p.blocks.max(1));
    let blocks = if s.ilo_choices.len() > 1 { 1 } else { blocks };
    let range = slices.map_or(0..usize::MAX, |p| p.range);
    if range.is_empty() {
        return;
    }
    // Slices per combination of coherence orders; the first combination
    // of the range, in the odometer's digits.
    let per_mo = s.sco_choices.len().saturating_mul(blocks).max(1);
    let mut m = range.start / per_mo;
    let mut idx = vec![0usize; s.mo_choices.len()];
    let mut rest = m;
    for (d, choices) in s.mo_choices.iter().enumerate() {
        idx[d] = rest % choices.len();
        rest /= choices.len();
    }
    if rest > 0 {
        return;
    }
    let nr = s.reads.len();
    // The search order of the reads (forced ones first) and the size of
    // the subtree below each depth, for some choices.
    let plan = |choices: &[Vec<Option<usize>>]| {
        let mut order: Vec<usize> = (0..nr).collect();
        // With derived stores, among the reads with several choices: first
        // those whose value the path fixed (an await's), then the open
        // ones of a location such a read reads (their values flow into
        // that location's derived stores: once they are chosen, the early
        // value check of `Dfs::go` drops a fixed read's choice of a store
        // of another value), then the other open reads (a counter's, whose
        // stores no fixed read reads). On a ticket lock (serving =
        // serving + 1 after an await of serving == ticket) this order with
        // the value check evaluates about a thirtieth of the partial
        // candidates that program order does; open reads first is worse
        // than program order: a plain counter's reads can read anything
        // until the awaits' choices give happens-before.
        let derived = s.derivation.as_deref();
        let location = |k: usize| derived.and_then(|d| d.locations[s.reads[k]]);
        let fixed = |k: usize| s.events[s.reads[k]].read_value.is_some();
        let fixed_locations: Vec<usize> =
            (0..nr).filter(|&k| fixed(k)).filter_map(location).collect();
        let class = |k: usize| match derived {
            None => 0,
            Some(_) if fixed(k) => 0,
            Some(_) if location(k).is_some_and(|l| fixed_locations.contains(&l)) => 1,
            Some(_) => 2,
        };
        order.sort_by_key(|&k| {
            let obs = factored(choices, k);
            (obs.is_some(), obs, choices[k].len() > 1, class(k))
        });
        let mut remaining = vec![1u128; nr + 1];
        for d in (0..nr).rev() {
            remaining[d] = remaining[d + 1].saturating_mul(choices[order[d]].len() as u128);
        }
        (order, remaining)
    };
    let factor_from = |order: &[usize], choices: &[Vec<Option<usize>>]| {
        order.iter().position(|&k| factored(choices, k).is_some())
    };
    let (order, remaining) = plan(&s.rf_choices);
    // With one combination of orders, a check under it is the reads-from
    // search's first check anyway.
    let several_orders = s
        .mo_choices
        .iter()
        .map(Vec::len)
        .chain([s.sco_choices.len()])
        .any(|k| k > 1);
    loop {
        let mut co = Relation::empty(n);
        let mut asmo = Relation::empty(n);
        for (k, choices) in s.mo_choices.iter().enumerate() {
            co.union_with(&choices[idx[k]].0);
            asmo.union_with(&choices[idx[k]].1);
        }
        // The reads-from choices under this order: the visitor's, narrowed
        // by the model's RMW atomicity (`atomic_reads`).
        let narrowed = match orders(&co) {
            OrderChoice::Skip => None,
            OrderChoice::All if !s.rmw_filter => Some(None),
            OrderChoice::All => Some(Some(atomic_reads(s, &asmo, &s.rf_choices))),
            OrderChoice::Restrict(c) if s.rmw_filter => Some(Some(atomic_reads(s, &asmo, &c))),
            OrderChoice::Restrict(c) => Some(Some(c)),
        };
        let restricted;
        let (wanted, choices, order, remaining) = match narrowed {
            None => (false, &s.rf_choices, Vec::new(), Vec::new()),
            Some(None) => (true, &s.rf_choices, order.clone(), remaining.clone()),
            Some(Some(c)) => {
                restricted = c;
                let (o, r) = plan(&restricted);
                let some = restricted.iter().all(|c| !c.is_empty());
                (some, &restricted, o, r)
            }
        };
        if !wanted {
            // nothing under this combination of coherence orders
        } else {
            let branch = order.iter().position(|&k| choices[k].len() > 1);
            let forced = branch.unwrap_or(order.len());
            for (si, sco) in s.sco_choices.iter().enumerate() {
                // Whether this part walks block `b` of these orders: its
                // slice is in the range, and a block past the first has
                // candidates only when some read branches.
                let first = m.saturating_mul(per_mo).saturating_add(si * blocks);
                let mine = |b: usize| {
                    range.contains(&first.saturating_add(b)) && (branch.is_some() || b == 0)
                };
                if !(0..blocks).any(mine) {
                    continue;
                }
                // The orders and the forced reads alone (every other read
                // still open) already fail a check monotone in `rf`: no
                // completion is consistent, and the whole reads-from search
                // under these orders is skipped. This is where a wrong
                // coherence order of a location whose reads are all forced
                // (a lock's release stores, read by awaits of one value
                // each) is refuted once, not once per candidate. Only where
                // the skeleton has several combinations of orders (with one,
                // this is the reads-from search's first check anyway), and
                // with one interlock order (several are walked as a trie
                // with the forced reads assigned, `ilo_search`). The part that
                // holds block 0 counts the evaluation; others ask uncounted.
                if s.order_pruning
                    && several_orders
                    && s.ilo_choices.len() == 1
                    && remaining[forced] >= PRUNE_MIN_SUBTREE
                    && let Some(p) = prune.as_mut()
                {
                    let mut rf = Relation::empty(n);
                    let mut init = EventSet::empty(n);
                    for &k in &order[..forced] {
                        match choices[k][0] {
                            Some(w) => rf.insert(w, s.reads[k]),
                            None => init.insert(s.reads[k]),
                        }
                    }
                    let env = env_of(n, &rf, &init, (&co, &asmo), (sco, &s.ilo_choices[0]));
                    if !p(&env, Partial::ReadsFrom, mine(0)) {
                        continue;
                    }
                }
                for b in (0..blocks).filter(|&b| mine(b)) {
                    let mut dfs = Dfs {
                        s,
                        choices,
                        order: order.clone(),
                        co: co.clone(),
                        asmo: asmo.clone(),
                        sco: sco.clone(),
                        ilo: Relation::empty(n),
                        rf: Relation::empty(n),
                        init: EventSet::empty(n),
                        source: vec![None; nr],
                        remaining: remaining.clone(),
                        split: (blocks > 1).then_some((blocks, b)),
                        branch,
                        derived: s.derivation.is_some(),
                        event_source: if s.derivation.is_some() {
                            vec![None; n]
                        } else {
                            Vec::new()
                        },
                        pending: Vec::new(),
                        factor_from: factor_from(&order, choices),
                    };
                    if ilo_search(&mut dfs, &mut prune, visit).is_break() {
                        return;
                    }
                }
            }
        }
        m += 1;
        if m.saturating_mul(per_mo) >= range.end {
            return;
        }
        let mut d = 0;
        loop {
            if d == idx.len() {
                return;
            }
            idx[d] += 1;
            if idx[d] < s.mo_choices[d].len() {
                break;
            }
            idx[d] = 0;
            d += 1;
        }
    }
}

/// The search over a skeleton's candidates.
impl Skeleton {
    /// Calls `visit` on every candidate execution until it breaks. At inner
    /// nodes of the reads-from search, `prune` (if given) sees the partial
    /// dynamic environment (the reads assigned so far in `rf`/`RFINIT`, the
    /// whole `asmo`) and returns false to abandon the subtree.
    pub fn search(
        &self,
        prune: Option<Prune>,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
    ) {
        search(self, prune, &mut |_| OrderChoice::All, visit, None, false)
    }

    /// [`Skeleton::search`], asking `orders` what to do under each
    /// combination of the locations' orders (as `co`, before any reads-from
    /// choice is made under it): skip it, or narrow the reads-from choices.
    /// With `factor` (a visitor taking factored candidates:
    /// [`driver::Needs::factored`](super::driver::Needs::factored)), the skeleton's observation reads
    /// ([`Skeleton::observation`]) are searched location by location
    /// (this module's doc, "Factored observation reads").
    pub fn search_orders(
        &self,
        prune: Option<Prune>,
        orders: &mut dyn FnMut(&Relation) -> OrderChoice,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
        factor: bool,
    ) {
        search(self, prune, orders, visit, None, factor)
    }

    /// [`Skeleton::search_orders`] over one part of the walk only
    /// ([`Slices`]): consecutive parts walked one after the other walk what
    /// the whole search walks, in the same order (the parallel driver
    /// splits a skeleton this way).
    pub fn search_part(
        &self,
        prune: Option<Prune>,
        orders: &mut dyn FnMut(&Relation) -> OrderChoice,
        visit: &mut dyn FnMut(&Candidate) -> ControlFlow<()>,
        part: Slices,
        factor: bool,
    ) {
        search(self, prune, orders, visit, Some(part), factor)
    }

    /// How many slices ([`Slices`]) the skeleton's walk (orders listed) has
    /// with `blocks` blocks, when the number fits a `usize`.
    pub fn slice_count(&self, blocks: usize) -> Option<usize> {
        slice_count(self, blocks)
    }

    /// Calls `f` on every candidate execution until it breaks (no pruning).
    pub fn for_each(&self, mut f: impl FnMut(&Candidate) -> ControlFlow<()>) {
        self.search(None, &mut f)
    }
}
