//! The choices of a candidate execution: reads-from (compatible with the
//! values the paths fixed) and scoped modification orders over
//! mutually-ordered atomic writes; and the depth-first search over them.

use super::Skeleton;
use super::base::Facts;
use super::limits::{ExecError, LimitKind, Limits};
use super::names;
use super::trace::EventInfo;
use crate::cat::Env;
use crate::ir::Program;
use crate::relation::{EventSet, Relation};
use std::collections::HashSet;
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
    /// the locations other than one ([`observation_reads`]): the callback
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
/// [`search`], the check under each order), so that the parts together
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
    /// read: [`super::driver::Visitor::factored`]).
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

/// Factored observation reads.
///
/// With a model declaring `location-local-reads` (vulkan-rules.cat quotes
/// the appendix: every relation of its one axiom is within a location,
/// and the reads-from edge into a non-atomic load reaches neither
/// happens-before nor location order, hence not the data races), the
/// reads-from choice of an observation read changes only the `rf` edge
/// into it and the from-reads out of it, all at its location. Under a
/// choice E' of everything else (paths, orders, the other reads), an
/// execution is then consistent exactly when E' is and, for each
/// location, its observation reads' choices are consistent with E' (the
/// reads of one location kept together: two of them can close a cycle
/// between them); its races are those of any consistent combination.
///
/// An observation read, per skeleton: a plain `Load` (not atomic: no
/// synchronizes-with starts at its choice; not an RMW), whose value the
/// path left symbolic (no branch took it) and that no derived store or
/// register expression reads (its value reaches only a register as read,
/// shown in final states and the condition), not a byte-range,
/// cooperative-matrix, interface or group access. The program has none of
/// what the argument leaves out: host operations or declared
/// system-synchronizes-with, shader stages (their I/O and tessellation
/// rules), fragment invocations (interlock), group functions,
/// out-of-bounds sites; and the walk is not the termination search. `None`
/// for every other read (and an empty list when none may be factored).
pub(crate) fn observation_reads(
    program: &Program,
    events: &[EventInfo],
    reads: &[usize],
    exprs: &[super::trace::ValueExpr],
    limits: &Limits,
) -> Vec<Option<usize>> {
    use super::trace::RegValue;
    if !super::reduce::CandidatePlan::of(program, limits).read_factoring {
        return Vec::new();
    }
    // The reads whose value a derived store or an expression uses.
    let mut used = vec![false; events.len()];
    let mut mark = |v: RegValue| {
        if let RegValue::Read(e) = v
            && e < used.len()
        {
            used[e] = true;
        }
    };
    for e in events {
        if let Some(v) = e.derived {
            mark(v);
        }
    }
    for x in exprs {
        mark(x.a);
        mark(x.b);
    }
    let observation: Vec<Option<usize>> = reads
        .iter()
        .map(|&r| {
            let e = &events[r];
            let i = e.instruction(program);
            let plain = matches!(i.kind, crate::ir::OpKind::Load)
                && !i.atomic
                && !e.writes
                && i.bytes.is_none()
                && i.coop.is_none()
                && i.interface.is_none()
                && i.group.is_none();
            if plain && e.read_value.is_none() && !used[r] {
                program.location_of(i)
            } else {
                None
            }
        })
        .collect();
    if observation.iter().all(Option::is_none) {
        return Vec::new();
    }
    observation
}

/// The reads of a skeleton's events and, for each, the writes it may read
/// from (`None`: the initial value): every write of its location whose
/// value it can read. `own` (per thread, [`super::Reduction::OwnForwarding`]):
/// the locations whose reads read their thread's latest earlier write
/// there, the initial value when there is none, by the model's
/// `latest-own-write` declaration (`super::trace::own_locations`: every
/// other choice closes a coherence cycle); such a read keeps that one
/// choice, when its value fits.
pub(crate) fn rf_choices(
    events: &[EventInfo],
    f: &Facts,
    own: &[std::collections::HashSet<usize>],
) -> (Vec<usize>, Vec<Vec<Option<usize>>>) {
    let n = events.len();
    let reads: Vec<usize> = (0..n).filter(|&e| f.is_read[e]).collect();
    let fits = |r: usize, w: usize| match f.read_value[r] {
        // (A derived store's value is checked per candidate:
        // `values::resolve`.)
        Some(v) => f.write_value[w] == Some(v) || f.derived[w],
        None => true,
    };
    let init_ok = |r: usize| match f.read_value[r] {
        Some(v) => v == f.initial_value[r],
        None => true,
    };
    let choices = reads
        .iter()
        .map(|&r| {
            let t = events[r].thread;
            if let Some(l) = f.location[r]
                && own.get(t).is_some_and(|o| o.contains(&l))
            {
                // Events are thread by thread in program order.
                let latest = (0..r)
                    .rev()
                    .take_while(|&w| events[w].thread == t)
                    .find(|&w| f.is_write[w] && f.location[w] == Some(l));
                return match latest {
                    Some(w) if fits(r, w) => vec![Some(w)],
                    None if init_ok(r) => vec![None],
                    _ => Vec::new(),
                };
            }
            let mut c: Vec<Option<usize>> = Vec::new();
            if init_ok(r) {
                c.push(None);
            }
            for w in 0..n {
                if w != r && f.is_write[w] && f.location[w] == f.location[r] && fits(r, w) {
                    c.push(Some(w));
                }
            }
            c
        })
        .collect();
    (reads, choices)
}

/// The order choices of each location, as `(co, asmo)` pairs.
///
/// Without `total_co`, only atomic writes are ordered: every scoped
/// modification order (transitive, relating exactly the mutually-ordered
/// pairs), and `co` is the same relation. With `total_co`, every write to the
/// location is ordered: each strict total order is a `co`, and its `asmo` is
/// its restriction to the mutually-ordered atomic pairs.
/// The writes the coherence orders of each location relate, location by
/// location: atomic writes, or every write when the model's `co` is total.
fn ordered_writes(n: usize, f: &Facts, limits: &Limits) -> Vec<(usize, Vec<usize>)> {
    let total = limits.profile.total_co;
    let ordered = |e: usize| f.is_write[e] && (total || f.atomic[e]);
    let mut locations: Vec<usize> = (0..n)
        .filter(|&e| ordered(e))
        .filter_map(|e| f.location[e])
        .collect();
    locations.sort_unstable();
    locations.dedup();
    locations
        .into_iter()
        .map(|loc| {
            let writes = (0..n)
                .filter(|&e| ordered(e) && f.location[e] == Some(loc))
                .collect();
            (loc, writes)
        })
        .collect()
}

/// Two atomic writes through the same reference, each in the other's scope
/// instance: the pairs a scoped modification order (`asmo`) relates.
fn mutually_ordered(f: &Facts, a: usize, b: usize) -> bool {
    f.atomic[a] && f.atomic[b] && f.reference[a] == f.reference[b] && f.inscope.contains(a, b)
}

/// The pairs `(w1, w2)` of writes that every consistent execution orders
/// `w1` before `w2` in `asmo`, by the model's declared
/// `read-write-coherence` (model::profile): a read whose only reads-from
/// choice is `w1`, program-ordered before the write `w2` of its location
/// in its thread through its reference, `w1` and `w2` mutually ordered.
/// Vulkan's coherence axiom ("no cycles exist in the union of ...
/// location-ordered, scoped modification order (over all atomic writes),
/// reads-from, from-reads") with location order holding when "AX == AY and
/// RX == RY and X -> Y" (program order is in happens-before): `w2 asmo w1`
/// closes the cycle `w1 rf r locord w2 asmo w1`.
pub(crate) fn coherence_pairs(
    events: &[EventInfo],
    f: &Facts,
    reads: &[usize],
    rf_choices: &[Vec<Option<usize>>],
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for (k, &r) in reads.iter().enumerate() {
        let [Some(w1)] = rf_choices[k][..] else {
            continue;
        };
        let Some(l) = f.location[r] else { continue };
        for w2 in r + 1..events.len() {
            if events[w2].thread != events[r].thread {
                break;
            }
            if w2 != w1
                && f.is_write[w2]
                && f.location[w2] == Some(l)
                && f.reference[w2] == f.reference[r]
                && mutually_ordered(f, w1, w2)
                && !pairs.contains(&(w1, w2))
            {
                pairs.push((w1, w2));
            }
        }
    }
    pairs
}

/// The pairs `(w1, w2)` of writes that every consistent execution orders
/// `w1` before `w2` in `asmo`, by the model's declared
/// `write-write-coherence` (model::profile): `w1` program-ordered before
/// `w2` in one thread, through the same reference to one location, the two
/// mutually ordered. Vulkan's coherence axiom with location order holding
/// when "AX == AY and RX == RY and X -> Y" (program order is in
/// happens-before): `w2 asmo w1` closes the cycle `w1 locord w2 asmo w1`.
/// A thread's events are in program order in the skeleton.
///
/// Listed up to transitivity (each write paired with its nearest such
/// predecessor): within one thread the pairs kept are those of one
/// reference among the writes mutually ordered with themselves (two
/// events of one thread are in each other's scope instance when each is
/// in its own), an equivalence, so the pairs listed imply the others.
pub(crate) fn write_pairs(events: &[EventInfo], f: &Facts) -> Vec<(usize, usize)> {
    own_write_pairs(
        events,
        f,
        &|w1, w2| f.reference[w2] == f.reference[w1] && mutually_ordered(f, w1, w2),
        &|_| true,
    )
}

/// The pairs `(w1, w2)` of writes of one thread to one location, `w1`
/// program-ordered before `w2` (a thread's events are in program order in
/// the skeleton), that `keep` accepts, up to transitivity: for each `w2`
/// the earlier writes are scanned nearest first, and the scan stops after
/// a kept `w1` that `implies` says every earlier kept write is kept with
/// too (`keep(w0, w2)` implies `keep(w0, w1)`: the pair `(w0, w2)`
/// follows from `(w0, w1)` and `(w1, w2)`). A thread of k writes to one
/// location then costs O(k) pairs, not O(k^2) (the orders listed are the
/// same: `mo_choices` reads the pairs as a partial order).
fn own_write_pairs(
    events: &[EventInfo],
    f: &Facts,
    keep: &dyn Fn(usize, usize) -> bool,
    implies: &dyn Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    // The writes so far of each (thread, location), in program order.
    let mut earlier: std::collections::HashMap<(usize, usize), Vec<usize>> =
        std::collections::HashMap::new();
    for (w2, event) in events.iter().enumerate() {
        let Some(l) = f.location[w2].filter(|_| f.is_write[w2]) else {
            continue;
        };
        let list = earlier.entry((event.thread, l)).or_default();
        for &w1 in list.iter().rev() {
            if keep(w1, w2) {
                pairs.push((w1, w2));
                if implies(w1) {
                    break;
                }
            }
        }
        list.push(w2);
    }
    pairs.sort_unstable();
    pairs
}

/// The pairs `(w1, w2)` of writes that every `co` orders `w1` first, by
/// the model's declared `co-write-write-coherence` (model::profile, for
/// the storage classes `classes`): `w1` sequenced before `w2` in one
/// thread, to one location, both in those classes, atomic or not. The
/// OpenCL models: "If an operation A that modifies an atomic object M
/// global-happens-before an operation B that modifies M, then A shall be
/// earlier than B in the modification order of M" (3.6, write-write
/// coherence; opencl-rules.cat states it for every write, `co` being total,
/// as `irreflexive (co | fr) ; rf? ; ghb`), and "A global memory action A
/// global-happens-before a global memory action B if A is sequenced before
/// B" (the same for local): `w2 co w1` closes `w1 ghb w2 co w1`. Two
/// accesses of one C expression may be unsequenced (`sb = po \ unseq`):
/// no pair. A thread's events are in program order in the skeleton.
pub(crate) fn sequenced_write_pairs(
    program: &Program,
    events: &[EventInfo],
    f: &Facts,
    classes: u64,
) -> Vec<(usize, usize)> {
    let in_classes = |e: usize| {
        let i = events[e].instruction(program);
        i.storage_class
            .is_some_and(|c| c.0 < 64 && classes & (1 << c.0) != 0)
    };
    own_write_pairs(
        events,
        f,
        &|w1, w2| {
            in_classes(w1)
                && in_classes(w2)
                && !super::trace::may_be_unsequenced(
                    events[w1].instruction(program),
                    events[w2].instruction(program),
                )
        },
        // A write that is no operand of an expression is sequenced after
        // every earlier write of its thread, and is among the ordered
        // writes of its location whether `co` is total or not.
        &|w1| f.atomic[w1] && events[w1].instruction(program).operand_of.is_empty(),
    )
}

/// Symmetry reduction of the orders ([`super::symmetry`]): for each group
/// of interchangeable threads on one path, a location they all write with
/// writes every listed order relates (their first writes there pairwise
/// mutually ordered, or a total `co`), and the pairs putting those first
/// writes in thread order. Each candidate's orbit under the group's
/// permutations has exactly one member ordering them so (the permutation
/// sorting the first writes is unique), which then stands for `|G|!`
/// candidates. Returns the pairs and the product of `|G|!` over the
/// groups reduced (a group with no such location is walked whole).
pub(crate) fn symmetry_pairs(
    events: &[EventInfo],
    f: &Facts,
    limits: &Limits,
    groups: &[Vec<usize>],
) -> (Vec<(usize, usize)>, u64) {
    let total = limits.profile.total_co;
    let ordered = |e: usize| f.is_write[e] && (total || f.atomic[e]);
    let mut pairs = Vec::new();
    let mut within = 1u64;
    for g in groups {
        // The first ordered write of thread `t` to location `l`.
        let first = |t: usize, l: usize| {
            (0..events.len())
                .find(|&e| events[e].thread == t && ordered(e) && f.location[e] == Some(l))
        };
        let mut tried = Vec::new();
        let found = (0..events.len())
            .filter(|&e| events[e].thread == g[0] && ordered(e))
            .filter_map(|e| f.location[e])
            .find_map(|l| {
                if tried.contains(&l) {
                    return None;
                }
                tried.push(l);
                let writes: Option<Vec<usize>> = g.iter().map(|&t| first(t, l)).collect();
                let writes = writes?;
                let related = total
                    || writes
                        .iter()
                        .all(|&a| writes.iter().all(|&b| a == b || mutually_ordered(f, a, b)));
                related.then_some(writes)
            });
        if let Some(writes) = found {
            pairs.extend(writes.windows(2).map(|w| (w[0], w[1])));
            within = within.saturating_mul((1..=g.len() as u64).product::<u64>());
        }
    }
    (pairs, within)
}

pub(crate) fn mo_choices(
    events: &[EventInfo],
    f: &Facts,
    limits: Limits,
    may_precede: Option<&dyn Fn(usize, usize) -> bool>,
    required: &[(usize, usize)],
) -> Result<Vec<Vec<(Relation, Relation)>>, ExecError> {
    let n = events.len();
    let total = limits.profile.total_co;
    let rmw_filter = super::reduce::OrderPlan::of(&limits).rmw_filter;
    let mut out = Vec::new();
    // The order limit (`--max-writes N`): a location of at most N ordered
    // writes has every order listed, as before; one with more is listed
    // when its listing takes at most as many steps (calls of `follows`) as
    // listing every order of min(N, 8) unconstrained writes
    // (`order_steps`): the constraints below (RMW chains, read-write
    // coherence, the visitor's) can keep its orders few. The cap at 8 keeps
    // `--max-writes 12` from spending e*12! steps on a location over it.
    let most = limits.bounds.max_writes_per_location;
    let budget = order_steps(most.min(MAX_STEP_WRITES));
    // The locations with one order each: their orders are one entry, the
    // union of theirs (a choice of one order is no choice; one relation
    // over the universe per location would hold n^2 bits per location).
    let mut fixed: Option<(Relation, Relation)> = None;
    let mut fix = |co: &Relation, asmo: &Relation| match &mut fixed {
        Some((c, a)) => {
            c.union_with(co);
            a.union_with(asmo);
        }
        None => fixed = Some((co.clone(), asmo.clone())),
    };
    for (loc, writes) in ordered_writes(n, f, &limits) {
        let over_limit = || {
            ExecError::limit(
                LimitKind::MaxWrites,
                format!(
                    "{} {}writes to one location: more than the {most} whose orders vkmm lists (--max-writes), and listing their orders takes more than the {budget} steps every order of {} unconstrained writes takes",
                    writes.len(),
                    if total { "" } else { "atomic " },
                    most.min(MAX_STEP_WRITES)
                ),
            )
        };
        let mutually_ordered = |a: usize, b: usize| mutually_ordered(f, a, b);
        // The pairs of `required` among these writes, as each write's
        // predecessors and successors.
        let mut index = std::collections::HashMap::with_capacity(writes.len());
        for (i, &w) in writes.iter().enumerate() {
            index.insert(w, i);
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); writes.len()];
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); writes.len()];
        for &(a, b) in required {
            if let (Some(&i), Some(&j)) = (index.get(&a), index.get(&b)) {
                preds[j].push(a);
                succs[i].push(b);
            }
        }
        let pos = |e: usize| index[&e];
        // Every write of the location mutually ordered with every other:
        // each permutation is its own scoped modification order (total,
        // transitive, distinct), and with a model declaring rmw-atomicity
        // an RMW must read the write just before it (the initial value
        // when first): permutations placing an RMW after a write of another
        // value than it read are never built (`atomic_reads` would leave
        // them no reads-from choice).
        let all_writes = (0..n)
            .filter(|&e| f.is_write[e] && f.location[e] == Some(loc))
            .count();
        let chain = all_writes == writes.len()
            && writes
                .iter()
                .all(|&a| writes.iter().all(|&b| a == b || mutually_ordered(a, b)));
        let rmw_chain = chain && rmw_filter;
        // A visitor's constraint (`Visitor::may_precede`): no order puts a
        // write before another that it may not precede. Sound for the
        // orders of not mutually ordered writes too, where a permutation
        // stands for the partial order it induces: the visitor promises
        // that it refuses an order relating such a pair, and a partial
        // order relating no such pair has a permutation placing each of
        // them the allowed way round (its constraint is "no suffix write
        // before a prefix write": adding prefix-before-suffix pairs to such
        // an order closes no cycle).
        // The pairs the model's read-write coherence orders
        // (`coherence_pairs`): `e` may not follow a write it must precede.
        // Each pair is mutually ordered, so every scoped modification order
        // relates it, and the permutations kept are the linear extensions
        // of the orders relating it that way round (with the visitor's
        // constraint as above).
        let follows = |placed: &[usize], e: usize| {
            if let Some(ok) = may_precede
                && placed.iter().any(|&p| !ok(p, e))
            {
                return false;
            }
            // (And `e` may not come before a write of its location it
            // must follow: checked as it is placed, not when the other
            // cannot be placed any more, which walks every dead prefix.)
            let k = pos(e);
            if succs[k].iter().any(|b| placed.contains(b))
                || preds[k].iter().any(|a| !placed.contains(a))
            {
                return false;
            }
            if !rmw_chain || !f.is_read[e] {
                return true;
            }
            let Some(read) = f.read_value[e] else {
                return true;
            };
            match placed.last() {
                None => read == f.initial_value[e],
                Some(&p) => f.write_value[p].is_none_or(|w| w == read),
            }
        };
        // Program order (and the other orders `required` holds) ordering
        // every write of the location: one order, whatever their number,
        // found in linear time; writes ordered so do not count against the
        // order limit.
        if let Some(chain) = only_order(&writes, &preds, &succs, &pos) {
            let accepted = (0..chain.len()).all(|i| follows(&chain[..i], chain[i]));
            if !accepted {
                out.push(Vec::new());
                continue;
            }
            let mut co = Relation::empty(n);
            for (i, &a) in chain.iter().enumerate() {
                for &b in &chain[i + 1..] {
                    co.insert(a, b);
                }
            }
            if total {
                let mut asmo = co.clone();
                for (i, &a) in chain.iter().enumerate() {
                    for &b in &chain[i + 1..] {
                        if !mutually_ordered(a, b) {
                            asmo.remove(a, b);
                        }
                    }
                }
                fix(&co, &asmo);
            } else if chain_of_one_order(&chain, &mutually_ordered) {
                fix(&co, &co);
            } else {
                // Not every pair mutually ordered: the order is its
                // restriction, kept when transitive (as below).
                let r = order_of(&chain, n, &mutually_ordered);
                if r.is_transitive() {
                    fix(&r, &r);
                } else {
                    out.push(Vec::new());
                }
            }
            continue;
        }
        if writes.len() > MAX_ORDERED_WRITES {
            return Err(over_limit());
        }
        if writes.len() > most {
            // Unconstrained, the listing takes order_steps(writes) steps,
            // more than the budget: skipped without listing.
            let constrained = may_precede.is_some()
                || rmw_chain
                || required.iter().any(|(a, _)| writes.contains(a));
            if !constrained || listing_steps(&writes, &follows, budget) > budget {
                return Err(over_limit());
            }
        }
        let mut seen = HashSet::new();
        let mut orders = Vec::new();
        let mut perm = writes.clone();
        let complete = permutations(&mut perm, 0, &follows, &mut |p| {
            if total {
                let co = order_of(p, n, &|_, _| true);
                let asmo = order_of(p, n, &mutually_ordered);
                orders.push((co, asmo));
            } else if chain {
                let r = order_of(p, n, &|_, _| true);
                orders.push((r.clone(), r));
            } else {
                let r = order_of(p, n, &mutually_ordered);
                if r.is_transitive() && seen.insert(r.clone()) {
                    orders.push((r.clone(), r));
                }
            }
            within_memory(&limits)
        });
        if !complete {
            return Err(memory_error());
        }
        if let [(co, asmo)] = &orders[..] {
            fix(co, asmo);
        } else {
            out.push(orders);
        }
    }
    out.extend(fixed.map(|o| vec![o]));
    Ok(out)
}

/// The one order of `writes` the pairs given as predecessors and
/// successors (by position in `writes`: `pos`) leave, when they leave one:
/// a topological sort in which one write is ready at every step (O(writes
/// + pairs)). `None` when they leave several orders, or none (a cycle).
fn only_order(
    writes: &[usize],
    preds: &[Vec<usize>],
    succs: &[Vec<usize>],
    pos: &dyn Fn(usize) -> usize,
) -> Option<Vec<usize>> {
    if writes.len() > 1 && preds.iter().all(Vec::is_empty) {
        return None;
    }
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..writes.len()).filter(|&i| waiting[i] == 0).collect();
    let mut chain = Vec::with_capacity(writes.len());
    while let Some(i) = ready.pop() {
        if !ready.is_empty() {
            return None;
        }
        chain.push(writes[i]);
        for &b in &succs[i] {
            let j = pos(b);
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
    }
    (chain.len() == writes.len()).then_some(chain)
}

/// Whether every pair of the chain is mutually ordered (checked pairwise
/// from each write to its successors: O(k^2) for k writes).
fn chain_of_one_order(chain: &[usize], related: &dyn Fn(usize, usize) -> bool) -> bool {
    chain
        .iter()
        .enumerate()
        .all(|(i, &a)| chain[i + 1..].iter().all(|&b| related(a, b)))
}

/// The most writes to one location whose orders are listed at all (the
/// step budget of [`order_steps`] decides before that).
const MAX_ORDERED_WRITES: usize = 64;

/// The step budget of a location over `--max-writes` is that of at most
/// this many unconstrained writes (109,600 steps).
const MAX_STEP_WRITES: usize = 8;

/// The steps (calls of `follows`) [`permutations`] takes to list the orders
/// of `writes`, counted up to one past `budget` (the walk stops there).
fn listing_steps(
    writes: &[usize],
    follows: &dyn Fn(&[usize], usize) -> bool,
    budget: usize,
) -> usize {
    let steps = std::cell::Cell::new(0usize);
    let counted = |placed: &[usize], e: usize| {
        if steps.get() > budget {
            return false;
        }
        steps.set(steps.get() + 1);
        steps.get() <= budget && follows(placed, e)
    };
    let mut perm = writes.to_vec();
    permutations(&mut perm, 0, &counted, &mut |_| steps.get() <= budget);
    steps.get()
}

/// The steps (calls of the `follows` test of [`permutations`]) listing
/// every order of `n` unconstrained writes takes: n!/(n-1)! + n!/(n-2)! +
/// ... + n!/0!, the prefixes of the permutations (109,600 for n = 8).
fn order_steps(n: usize) -> usize {
    let mut prefixes = 1usize;
    let mut total = 0usize;
    for k in 0..n {
        prefixes = prefixes.saturating_mul(n - k);
        total = total.saturating_add(prefixes);
    }
    total
}

/// The possible SC orders: every strict total order of the sequentially
/// consistent events (a single empty order when there are none).
pub(crate) fn sco_choices(
    events: &[EventInfo],
    f: &Facts,
    limits: Limits,
) -> Result<Vec<Relation>, ExecError> {
    let n = events.len();
    if !limits.profile.sc_order {
        return Ok(vec![Relation::empty(n)]);
    }
    let sc: Vec<usize> = (0..n).filter(|&e| f.seq_cst[e]).collect();
    if sc.len() > limits.bounds.max_writes_per_location {
        return Err(ExecError::limit(
            LimitKind::MaxWrites,
            format!(
                "{} sequentially consistent operations: more than the {} whose orders vkmm enumerates (--max-writes)",
                sc.len(),
                limits.bounds.max_writes_per_location
            ),
        ));
    }
    let mut out = Vec::new();
    let mut perm = sc.clone();
    let complete = permutations(&mut perm, 0, &|_: &[usize], _| true, &mut |p| {
        out.push(order_of(p, n, &|_, _| true));
        within_memory(&limits)
    });
    if !complete {
        return Err(memory_error());
    }
    Ok(out)
}

/// The pairs `(p[i], p[j])`, `i < j`, that `related` keeps: the order `p`
/// lists, restricted.
fn order_of(p: &[usize], n: usize, related: &dyn Fn(usize, usize) -> bool) -> Relation {
    let mut r = Relation::empty(n);
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            if related(p[i], p[j]) {
                r.insert(p[i], p[j]);
            }
        }
    }
    r
}

/// Calls `f` on every permutation of `v[k..]` (after `v[..k]`) in which
/// `follows(placed, next)` accepts every element after those placed before
/// it, until `f` returns false; returns false when it stopped.
fn permutations(
    v: &mut Vec<usize>,
    k: usize,
    follows: &dyn Fn(&[usize], usize) -> bool,
    f: &mut impl FnMut(&[usize]) -> bool,
) -> bool {
    if k == v.len() {
        return f(v);
    }
    for i in k..v.len() {
        if !follows(&v[..k], v[i]) {
            continue;
        }
        v.swap(k, i);
        let go_on = permutations(v, k + 1, follows, f);
        v.swap(k, i);
        if !go_on {
            return false;
        }
    }
    true
}

/// Whether the orders listed so far leave the memory bound intact,
/// checked at every order: each is one or two relations over all events
/// (30 KB for 350 events), and one location may list fewer orders than
/// any count between checks while many locations together outgrow the
/// bound (50 locations of 720 orders each: 1 GB).
fn within_memory(limits: &Limits) -> bool {
    !crate::memory::over(limits.bounds.max_memory)
}

fn memory_error() -> ExecError {
    ExecError::limit(
        LimitKind::MaxMemory,
        "the coherence or SC orders exceed the memory bound (--max-memory)",
    )
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
    /// remaining[d]: product of the choices of reads d.. (saturating)
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

    /// The observation reads from depth `d0` on ([`observation_reads`]),
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

#[cfg(test)]
mod step_tests {
    use super::{listing_steps, order_steps};

    /// The budget counts prefixes: n + n(n-1) + ... + n! calls of the test.
    #[test]
    fn order_steps_count_the_prefixes_of_the_permutations() {
        assert_eq!(order_steps(1), 1);
        assert_eq!(order_steps(2), 2 + 2);
        assert_eq!(order_steps(3), 3 + 6 + 6);
        assert_eq!(order_steps(8), 109_600);
    }

    /// Unconstrained, the listing takes exactly `order_steps` steps (what
    /// `mo_choices` assumes when it skips an unconstrained location without
    /// listing it); a chain admitting one order takes n + (n-1) + ... + 1;
    /// the count stops one past the budget.
    #[test]
    fn listing_steps_count_every_test_of_the_walk() {
        let writes: Vec<usize> = (0..5).collect();
        for n in 1..=5 {
            let any = |_: &[usize], _: usize| true;
            assert_eq!(
                listing_steps(&writes[..n], &any, usize::MAX),
                order_steps(n)
            );
        }
        let chain = |placed: &[usize], e: usize| e == placed.len();
        assert_eq!(listing_steps(&writes, &chain, usize::MAX), 15);
        assert_eq!(listing_steps(&writes, &chain, 15), 15);
        assert_eq!(listing_steps(&writes, &chain, 14), 15);
        let any = |_: &[usize], _: usize| true;
        assert_eq!(listing_steps(&writes, &any, 100), 101);
    }
}
