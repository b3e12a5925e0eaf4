//! Per-thread paths: each thread's code run on its own, with loops unrolled
//! to a bound, branching wherever the value of a read decides something.
//!
//! A read's value is left *symbolic* (any value a write to its location can
//! have) until something needs it concretely: a branch, a stored value, a
//! read-modify-write operand, local arithmetic. Only then does the path split,
//! once per value of the location's value domain. So a read whose value only
//! ends up in a final register never multiplies the paths; its value is
//! fixed later by the reads-from choice.
//!
//! Side-effect-free spin loops are run as *awaits* ([`spin_loops`]): a path
//! keeps only the iteration that leaves the loop; an iteration whose values
//! send it back to the loop's head is dropped (recorded on the sibling paths
//! as a looping alternative, [`Await::looping`]), so such loops never hit the
//! unrolling bound. In the outcome listing an await's body may branch and
//! hold inner awaits (test-and-test-and-set locks): the awaits under way
//! form a stack, innermost last.
//!
//! This file is the walk's top: the value-domain fixpoint over every
//! thread's paths. The files below it never import it: `path.rs` (what a
//! walk produces), `budget.rs`, `dispatch.rs`, `spin.rs` (which loops run
//! as awaits), `state.rs` (one path under way), `shared.rs` (its registers and
//! statement counts, shared between paths until written), `own.rs` (own locations),
//! `counters.rs`, `domains.rs` (the value domains and group functions'
//! results) and `executor.rs` (one thread's walk).

use super::limits::{ExecError, LimitKind, Limits};
use crate::ir::Program;
use std::collections::{BTreeMap, HashMap};

mod ahead;
mod budget;
pub mod coherence;
mod counters;
mod dispatch;
mod domains;
mod executor;
mod lockstep;
mod own;
pub(in crate::engine) mod path;
mod reach;
mod shared;
mod spin;
mod state;
mod trip;

pub(crate) use budget::*;
use executor::*;
pub use own::*;
pub use path::*;
pub use spin::*;
pub use state::MAX_FREE_ITERATIONS;

use domains::{Domains, GroupSlot, group_domains};
use path::prov_min;
use state::location;

/// Explores every thread of `program`, with loops unrolled so that no
/// statement runs more than `unroll + 1` times on a path per entry into its
/// innermost loop (`loop_ranges`: a loop body runs at most `unroll + 1`
/// times each time the loop is entered), and, where `plan` says so
/// ([`PathPlan::awaits`]), the loops [`spin_loops`] finds run as awaits.
///
/// Reads that must be concrete range over a value domain per location,
/// computed as a fixpoint: start from the initial values, add every value a
/// path writes, until nothing changes. Each value carries its provenance, the
/// number of writes to each location its derivation used; a value needing
/// more writes to some location than one execution can perform (the sum over
/// threads of the most writes a path makes there) is unreachable and dropped.
/// This keeps counters such as `rmw.add` chains to the values an execution
/// can really produce.
pub fn explore(
    program: &Program,
    limits: &Limits,
    plan: PathPlan,
) -> Result<Vec<ThreadPaths>, ExecError> {
    explore_with_domains(program, limits, plan).map(|(paths, _)| paths)
}

/// [`explore`], with the value domain of each location (its possible
/// values, ascending). With [`PathPlan::symbolic_stores`] (and not exploring
/// endings), the domains are computed with every read a store or local
/// arithmetic needs made concrete, as without it, and the paths are then
/// explored once more over those domains keeping such reads symbolic: a
/// read whose value only flows into stores, registers and local
/// arithmetic no longer splits its path per value (a counter's plain
/// `read; add; write` in each thread: one path instead of one per value),
/// and the candidate executions give its value (`engine::values`).
pub fn explore_with_domains(
    program: &Program,
    limits: &Limits,
    plan: PathPlan,
) -> Result<(Vec<ThreadPaths>, Vec<Vec<i64>>), ExecError> {
    explore_in_full(program, limits, plan).map(|e| (e.paths, e.domains))
}

/// What [`explore_in_full`] computes: the paths, the value domains, and the
/// per-thread locations of the latest-own-write filter the paths were
/// walked with ([`own_sets`]), which the combination of the paths reuses
/// rather than computing again.
pub struct Explored {
    pub paths: Vec<ThreadPaths>,
    pub domains: Vec<Vec<i64>>,
    pub own: Vec<std::collections::HashSet<usize>>,
    /// Whether some round of the listing stopped a path at the barrier
    /// [`PathPlan::stop_at_barrier`] names. When none did, the listing
    /// ran as the one without the stop, round by round (value domains,
    /// counters and all): its paths are the program's complete ones.
    pub stopped: bool,
    /// Whether the value domains were computed by the symbolic rounds
    /// (`PathPlan::symbolic_domains`): from the first round, or once the
    /// rounds with every read concrete split past [`SYMBOLIC_ROUNDS_FROM`]
    /// paths of one thread or the path limit.
    pub symbolic_rounds: bool,
}

/// The most paths one thread may have in a round of the value-domain
/// fixpoint with every read concrete before the rounds start again
/// keeping reads symbolic through stores (with
/// `PathPlan::symbolic_domains`; the domains are the same either way).
/// Below it the concrete rounds are the faster: FidelityFX SPD's rounds
/// list at most 7 paths per thread, and its derived terms carry many
/// values. Above it the paths are the product of the values of reads
/// that only reach stores: a linked-list append whose atomic exchange's
/// old value is stored to its allocation splits each path per value of
/// the bucket, and 4 invocations' rounds list 8,100 paths per thread
/// where the symbolic rounds list 81.
pub const SYMBOLIC_ROUNDS_FROM: usize = 1024;

/// [`explore_with_domains`], with the filter's own locations.
pub fn explore_in_full(
    program: &Program,
    limits: &Limits,
    plan: PathPlan,
) -> Result<Explored, ExecError> {
    Listing::of(program, limits, plan).explore(limits, plan.stop_at_barrier, None)
}

/// What the listing reads of the program beside the value domains (the
/// locations written, the spin loops, the own locations, each thread's
/// code analysed), computed once for the listings that differ only in
/// the barrier they stop at ([`PathPlan::stop_at_barrier`]).
pub struct Listing<'p> {
    program: &'p Program,
    plan: PathPlan,
    written: Vec<bool>,
    spins: Vec<Vec<SpinLoop>>,
    own: Vec<std::collections::HashSet<usize>>,
    code: Vec<Code<'p>>,
}

impl<'p> Listing<'p> {
    /// What the listings of `program` under `limits` and `plan` read.
    pub fn of(program: &'p Program, limits: &Limits, plan: PathPlan) -> Listing<'p> {
        // Locations some instruction writes (`executor::step_op`: a plain
        // read of any other holds its initial value in every execution; a
        // load of one cannot race, `spin_loops`).
        let written = spin::written_locations(program);
        let spins: Vec<Vec<SpinLoop>> = program
            .threads
            .iter()
            .map(|t| {
                if plan.awaits {
                    spin::spin_loops_with(program, t, !limits.endings, &written)
                } else {
                    Vec::new()
                }
            })
            .collect();
        let own = own_sets(program, limits, plan);
        let coherence = coherence::bounds(program, &limits.profile, plan.coherence_cuts);
        let code: Vec<Code> = program
            .threads
            .iter()
            .zip(coherence)
            .map(|(t, bounds)| Code::of(program, t, limits, plan, bounds))
            .collect();
        Listing {
            program,
            plan,
            written,
            spins,
            own,
            code,
        }
    }

    /// The program prepared.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The paths listed under `limits` (the bounds may differ from those
    /// prepared with; the reading of the program may not), stopping at
    /// each thread's `stop_at_barrier`-th control barrier when set.
    pub fn explore(
        &self,
        limits: &Limits,
        stop_at_barrier: Option<usize>,
        work: Option<std::sync::Arc<Work>>,
    ) -> Result<Explored, ExecError> {
        explore_prepared(self, limits, stop_at_barrier, work)
    }
}

/// [`Listing::explore`].
fn explore_prepared(
    prepared: &Listing,
    limits: &Limits,
    stop_at_barrier: Option<usize>,
    work: Option<std::sync::Arc<Work>>,
) -> Result<Explored, ExecError> {
    let program = prepared.program;
    let plan = PathPlan {
        stop_at_barrier,
        ..prepared.plan
    };
    let (written, spins, own, code) = (
        &prepared.written,
        &prepared.spins,
        &prepared.own,
        &prepared.code,
    );
    let nloc = program.locations.len();
    // Location domains start with the initial value; group-function
    // domains are empty until a round computes their results.
    // An undefined initial value (`Program::undefined`) may be any value
    // of `undefined::Domain`.
    let undefined = super::undefined::Domain::for_search(program, limits);
    // The domains before the first round.
    let initial = || {
        let mut domain = Domains {
            locations: (0..nloc)
                .map(|l| match &undefined {
                    Some(u) if program.is_undefined(l) => {
                        u.values().map(|v| (v, Prov::new())).collect()
                    }
                    _ => BTreeMap::from([(program.initial_value(l), Prov::new())]),
                })
                .collect(),
            groups: HashMap::new(),
        };
        // Values the final condition names are possible too: a value that only
        // a cycle of reads-from can justify (out of thin air) is never produced
        // by the fixpoint below, yet an axiomatic model may allow it. Seeding the
        // condition's constants lets the search decide whether it does.
        // (Group functions' domains are not seeded: their results are computed
        // exactly from contributions, which the seeded locations feed.)
        for (loc, v) in condition_seeds(program) {
            for (l, d) in domain.locations.iter_mut().enumerate() {
                if loc.is_none_or(|x| x == l) {
                    d.entry(v).or_default();
                }
            }
        }
        domain
    };
    let budget = Budget::new(limits).with_work(work);
    // Every thread's paths over the current domains (`derive`: keeping
    // reads symbolic through stores, see above; `for_domains`: while the
    // domains are computed, see below), an increment of a counter reading
    // only what it can (`counters`).
    // Whether some round stopped a path at the barrier (`Explored::stopped`).
    let stopped = std::cell::Cell::new(false);
    let explore_all = |domain: &Domains,
                       (derive, for_domains, registers): (bool, bool, bool),
                       counters: &counters::Counters|
     -> Result<Vec<ThreadPaths>, ExecError> {
        let all: Vec<ThreadPaths> = program
            .threads
            .iter()
            .zip(spins)
            .zip(own)
            .zip(code)
            .map(|(((t, spins), own), code)| {
                explore_thread(
                    program,
                    t,
                    limits,
                    plan,
                    spins,
                    (own, written, counters),
                    code,
                    domain,
                    &budget,
                    (derive, for_domains, registers),
                )
            })
            .collect::<Result<_, _>>()?;
        if all.iter().flat_map(|tp| &tp.paths).any(waits) {
            stopped.set(true);
        }
        Ok(all)
    };
    // With `plan.symbolic_domains`, once the rounds of the fixpoint with
    // every read concrete pass the path limit or list more than
    // `SYMBOLIC_ROUNDS_FROM` paths of one thread, the rounds are run again
    // keeping reads symbolic through stores as the last walk does: a
    // derived write adds every value its term has over the domains of the
    // reads it names (`ThreadPaths::derived_writes`), which are the values
    // the paths with those reads concrete write there, with the same
    // provenance. The domains are the same either way; the concrete rounds
    // come first because on shaders whose reads split few paths they are
    // the faster (the symbolic ones carry every derived term's values).
    let symbolic = plan.symbolic_stores && plan.symbolic_domains;
    // (`symbolic` is the round's own inside the rounds below.)
    let symbolic_allowed = symbolic;
    // A program with RMWs whose reads stay symbolic (`PathPlan::commuting_rmws`)
    // takes the symbolic rounds from the first: with every read concrete
    // each such RMW splits its path once per value of its location, the
    // cost those RMWs are kept symbolic to avoid.
    let symbolic_rounds = std::cell::Cell::new(
        symbolic && (plan.symbolic_domains_first || code.iter().any(Code::has_commuting)),
    );
    // The value-domain fixpoint with `counters` applied: the last round's
    // paths and the settled domains.
    // `groups`: group-function results to start from.
    let settle = |counters: &counters::Counters,
                  groups: HashMap<GroupSlot, BTreeMap<i64, Prov>>|
     -> Result<(Vec<ThreadPaths>, Domains), ExecError> {
        let mut domain = initial();
        domain.groups = groups;
        // Whether a prefix waiting for a group function's result counts as
        // not taking part in the instances it has not reached (once waiting
        // alone settles nothing).
        let mut pending_absent = false;
        // Rounds that only let waiting paths on past a group function's result
        // (one per group function along a path) do not count as rounds of the
        // fixpoint.
        let mut waits = 0usize;
        // The rounds allowed: each round derives values one write further
        // (a counter incremented by every invocation gains its next value
        // per round), and a provenance counting more writes to a location
        // than one execution makes is refused, so a fixpoint needs about
        // as many rounds as one execution has writes. The cap follows that
        // count (never below `MAX_ROUNDS`); the walk's budget bounds the
        // work of every round.
        let mut cap = MAX_ROUNDS;
        for round in 0.. {
            if round >= cap + waits {
                break;
            }
            let symbolic = symbolic_rounds.get();
            // With `symbolic_stores` a last walk lists the paths, so these
            // need no registers.
            let all = explore_all(
                &domain,
                (symbolic, symbolic, !plan.symbolic_stores),
                counters,
            )?;
            // Past `SYMBOLIC_ROUNDS_FROM` paths of one thread, the concrete
            // rounds stop and the symbolic ones start (the caller below
            // restarts them on a path limit).
            let widest = all.iter().map(|tp| tp.paths.len()).max().unwrap_or(0);
            if symbolic_allowed && !symbolic && widest > SYMBOLIC_ROUNDS_FROM {
                return Err(ExecError::limit(
                    LimitKind::MaxPaths,
                    format!(
                        "a round of the value domains with every read concrete lists {widest} paths of one thread"
                    ),
                ));
            }
            let computing = || format!("computing the value domains (round {})", round + 1);
            budget.check(&computing)?;
            // The most writes one execution makes to each location.
            let mut most = vec![0u32; nloc];
            let mut thread_mosts = Vec::with_capacity(all.len());
            for (t, tp) in program.threads.iter().zip(&all) {
                let mut thread_most = vec![0u32; nloc];
                for p in &tp.paths {
                    budget.step(&computing)?;
                    let mut counts = vec![0u32; nloc];
                    for e in &p.events {
                        if let Some(l) = location(program, t, e.stmt)
                            && (e.write.is_some() || e.writes && e.derived.is_some())
                        {
                            counts[l] += 1;
                        }
                    }
                    for l in 0..nloc {
                        thread_most[l] = thread_most[l].max(counts[l]);
                    }
                }
                for l in 0..nloc {
                    most[l] += thread_most[l];
                }
                thread_mosts.push(thread_most);
            }
            let writes: usize = most.iter().map(|&m| m as usize).sum();
            cap = cap.max(writes.saturating_add(2));
            let mut changed = false;
            // `extra(x)`: writes to `x` allowed beyond `most`.
            let mut add = |l: usize, v: i64, prov: &Prov, extra: &dyn Fn(usize) -> u32| {
                if prov.iter().any(|(x, c)| c > most[x] + extra(x)) {
                    return;
                }
                match domain[l].get_mut(&v) {
                    None => {
                        domain[l].insert(v, prov.clone());
                        changed = true;
                    }
                    Some(old) => {
                        let merged = prov_min(old, prov);
                        if merged != *old {
                            *old = merged;
                            changed = true;
                        }
                    }
                }
            };
            for ((t, tp), thread_most) in program.threads.iter().zip(&all).zip(&thread_mosts) {
                for p in &tp.paths {
                    budget.step(&computing)?;
                    for e in &p.events {
                        if let (Some(v), Some(l), Some(prov)) =
                            (e.write, location(program, t, e.stmt), &e.write_prov)
                        {
                            add(l, v, prov, &|_| 0);
                        }
                    }
                }
                // A value a path writes before the bound cuts it: the path
                // may read it back later and leave its loop within the bound
                // (a thread exchanging 1 into a word until it reads 1 reads its
                // own first write), which no complete path shows until the
                // value is in the domain.
                // Its bound: the other threads' most writes, and this
                // thread's own writes on the prefix where they exceed its
                // complete paths' (a thread whose paths are all cut so far
                // would otherwise count for nothing).
                for (&(l, v), prov) in &tp.derived_writes {
                    add(l, v, prov, &|_| 0);
                }
                for (&(l, v), (prov, own)) in &tp.cut_writes {
                    let extra =
                        |x: usize| own.get(&x).map_or(0, |&n| n.saturating_sub(thread_most[x]));
                    add(l, v, prov, &extra);
                }
            }
            let grew = group_domains(program, &all, &mut domain, pending_absent, &budget)?;
            // (A derived write naming a group function's result not
            // computed yet waits for it as a path needing it does.)
            let waiting = all.iter().any(|tp| !tp.pending.is_empty() || tp.unresolved);
            if grew && waiting && !changed {
                waits += 1;
            }
            changed |= grew;
            if !changed && waiting && !pending_absent {
                pending_absent = true;
                continue;
            }
            if !changed && waiting {
                return Err(ExecError::limit(
                    LimitKind::ValueDomains,
                    "the results of a group function could not be computed from what the invocations contribute".to_string(),
                ));
            }
            if !changed {
                return Ok((all, domain));
            }
        }
        Err(ExecError::limit(
            LimitKind::ValueDomains,
            format!("the value domains did not settle in {cap} rounds: lower --unroll"),
        ))
    };
    // The counters a walk shows hold in every execution, so a walk with
    // them applied still covers every execution, and the counters it
    // shows hold as well: the domains are computed again with the
    // counters applied (a value only a read of a counter's top value
    // leads to drops out of every location's domain, not only out of the
    // counter's reads), until the walk shows no new counter. Without
    // `plan.counters` there are none: the increments read every value of
    // the domain.
    let settle = |counters: &counters::Counters,
                  groups: HashMap<GroupSlot, BTreeMap<i64, Prov>>|
     -> Result<(Vec<ThreadPaths>, Domains), ExecError> {
        if symbolic_rounds.get() || !symbolic {
            return settle(counters, groups);
        }
        match settle(counters, groups.clone()) {
            Err(e) if e.limit == Some(LimitKind::MaxPaths) => {
                symbolic_rounds.set(true);
                settle(counters, groups)
            }
            other => other,
        }
    };
    let mut counters = counters::Counters::none(program);
    let mut settled = settle(&counters, HashMap::new())?;
    let rounds = if plan.counters { MAX_COUNTER_ROUNDS } else { 0 };
    for _ in 0..rounds {
        let found = counters::Counters::of(program, &settled.0, &budget)?;
        if found == counters {
            break;
        }
        counters = found;
        // The group functions' results computed so far stay: a result no
        // execution gets only adds paths the skeletons drop (they compute
        // the results exactly from the contributions), and the rounds that
        // only waited for results are not run again.
        settled = settle(&counters, std::mem::take(&mut settled.1.groups))?;
    }
    let (mut all, domain) = settled;
    lockstep::discharge(program, &mut all, &budget)?;
    let values: Vec<Vec<i64>> = domain
        .locations
        .iter()
        .map(|d| d.keys().copied().collect())
        .collect();
    if !plan.symbolic_stores {
        waiting_apart(&mut all);
        return Ok(Explored {
            paths: all,
            domains: values,
            own: own.clone(),
            stopped: stopped.get(),
            symbolic_rounds: symbolic_rounds.get(),
        });
    }
    // Walked again keeping reads symbolic through stores, the paths are
    // the same ones split less or fewer: the domains hold a result for
    // every group function they reach.
    let mut paths = explore_all(&domain, (true, false, true), &counters)?;
    lockstep::discharge(program, &mut paths, &budget)?;
    if paths.iter().any(|tp| !tp.pending.is_empty()) {
        return Err(ExecError::limit(
            LimitKind::ValueDomains,
            "the results of a group function could not be computed from what the invocations contribute".to_string(),
        ));
    }
    waiting_apart(&mut paths);
    Ok(Explored {
        paths,
        domains: values,
        own: own.clone(),
        stopped: stopped.get(),
        symbolic_rounds: symbolic_rounds.get(),
    })
}

/// Moves the paths that wait at a control barrier
/// ([`PathPlan::stop_at_barrier`]) from each thread's paths to its cut
/// prefixes, counted as cut and as waiting: while the value domains were
/// computed they counted as complete (a thread's run, in the executions
/// that stop there), as what the walks over prefixes take they are
/// prefixes.
fn waiting_apart(all: &mut [ThreadPaths]) {
    for tp in all {
        let (waiting, done): (Vec<Path>, Vec<Path>) =
            std::mem::take(&mut tp.paths).into_iter().partition(waits);
        tp.paths = done;
        tp.cut += waiting.len();
        tp.waiting += waiting.len();
        tp.cut_prefixes.extend(waiting);
    }
}

/// Whether `p` waits at the barrier the listing stops at.
fn waits(p: &Path) -> bool {
    matches!(p.ending, Ending::Cut { waiting: true, .. })
}

/// Times the value domains are computed again with the counters the last
/// walk showed (each time only adds counters or narrows what they read).
const MAX_COUNTER_ROUNDS: usize = 4;

/// The constants the condition (and filter) compares with: `(Some(l), v)` for
/// a location `l` compared with `v`, `(None, v)` for a register compared
/// with `v` (any location may have produced it).
fn condition_seeds(program: &Program) -> Vec<(Option<usize>, i64)> {
    use crate::ir::{CondExpr, Term};
    fn go(e: &CondExpr, out: &mut Vec<(Option<usize>, i64)>) {
        match e {
            CondExpr::True | CondExpr::False => {}
            CondExpr::Eq(a, b) | CondExpr::Ne(a, b) => match (a, b) {
                (Term::Loc(l), Term::Const(v)) | (Term::Const(v), Term::Loc(l)) => {
                    out.push((Some(*l), *v))
                }
                (Term::Reg { .. }, Term::Const(v)) | (Term::Const(v), Term::Reg { .. }) => {
                    out.push((None, *v))
                }
                _ => {}
            },
            // An ordering comparison seeds the constant itself (`<=`,
            // `>=`) or its neighbour on the side that holds (`<`, `>`):
            // the nearest value satisfying it, as `==` seeds its constant.
            CondExpr::Cmp(o, a, b) => {
                use crate::ir::Cmp;
                let (term, c, o) = match (a, b) {
                    (t, Term::Const(c)) => (t, *c, *o),
                    (Term::Const(c), t) => (t, *c, o.mirrored()),
                    _ => return,
                };
                let v = match o {
                    Cmp::Lt => c.saturating_sub(1),
                    Cmp::Gt => c.saturating_add(1),
                    _ => c,
                };
                match term {
                    Term::Loc(l) => out.push((Some(*l), v)),
                    Term::Reg { .. } => out.push((None, v)),
                    _ => {}
                }
            }
            CondExpr::Not(e) => go(e, out),
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                go(a, out);
                go(b, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(c) = &program.condition {
        go(&c.expr, &mut out);
        if let Some(f) = &c.filter {
            go(f, &mut out);
        }
    }
    out
}

/// Rounds of the value-domain fixpoint before giving up, at least (more
/// where one execution makes more writes).
const MAX_ROUNDS: usize = 64;
