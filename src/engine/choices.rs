//! The choices a skeleton of a combination of paths offers its candidate
//! executions, listed when it is built: each read's reads-from choices
//! (compatible with the values the paths fixed), the scoped modification
//! orders over mutually-ordered atomic writes and the SC orders, with the
//! pairs the model's coherence axioms or the reductions order in advance
//! and the order limit (`--max-writes`). The search over them is
//! [`super::candidates`].

use super::base::Facts;
use super::limits::{ExecError, LimitKind, Limits};
use super::trace::EventInfo;
use crate::ir::Program;
use crate::relation::Relation;
use std::collections::HashSet;

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

/// [`Reduction::CommutingRmws`](super::Reduction::CommutingRmws): for
/// each location whose every access is an RMW of one commuting kind and
/// width with its result unused (`Facts::commuting`), made by two threads
/// or more, every two of them mutually ordered, in a skeleton where
/// nothing synchronises (`Facts::synchronising`), and that no pair of
/// `required` orders across threads: the pairs putting those RMWs thread
/// by thread in program order (one order, found by `only_order`), and the
/// product over such locations of the interleavings of the threads'
/// program orders each candidate stands for (the multinomial of the
/// threads' counts; `reduce/commuting_rmws.rs` has the argument).
pub(crate) fn commuting_orders(
    events: &[EventInfo],
    f: &Facts,
    required: &[(usize, usize)],
) -> (Vec<(usize, usize)>, u64) {
    let mut pairs = Vec::new();
    let mut within = 1u64;
    if f.synchronising {
        return (pairs, within);
    }
    let mut by_location: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let mut refused: HashSet<usize> = HashSet::new();
    for e in 0..events.len() {
        let Some(l) = f.location[e] else { continue };
        by_location.entry(l).or_default().push(e);
        if f.commuting[e].is_none() {
            refused.insert(l);
        }
    }
    for (&l, rmws) in &by_location {
        if refused.contains(&l) {
            continue;
        }
        let kind = f.commuting[rmws[0]];
        let threads: std::collections::BTreeSet<usize> =
            rmws.iter().map(|&e| events[e].thread).collect();
        let ordered_across = required.iter().any(|&(a, b)| {
            f.location[a] == Some(l)
                && f.location[b] == Some(l)
                && (events[a].thread != events[b].thread || a > b)
        });
        if threads.len() < 2
            || ordered_across
            || rmws.iter().any(|&e| f.commuting[e] != kind)
            || !rmws
                .iter()
                .all(|&a| rmws.iter().all(|&b| a == b || mutually_ordered(f, a, b)))
        {
            continue;
        }
        // Events are thread by thread in program order: `rmws` is the order.
        pairs.extend(rmws.windows(2).map(|w| (w[0], w[1])));
        // The interleavings: n! / (n_1! ... n_k!), as a product of binomials.
        let mut placed = 0u128;
        let mut count = 1u128;
        for &t in &threads {
            let k = rmws.iter().filter(|&&e| events[e].thread == t).count() as u128;
            for i in 1..=k {
                count = count.saturating_mul(placed + i) / i;
            }
            placed += k;
        }
        within = within.saturating_mul(u64::try_from(count).unwrap_or(u64::MAX));
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
