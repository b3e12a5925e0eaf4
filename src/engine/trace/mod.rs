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

use super::limits::{ExecError, LimitKind, Limits};
use super::reduce::PathPlan;
use crate::ir::{Instruction, OpKind, Operand, Program, RmwOp, Stmt, Thread};
use std::collections::{BTreeMap, HashMap, HashSet};

mod budget;
mod counters;
mod domains;
mod executor;
mod own;
pub(in crate::engine) mod path;
mod spin;

pub(crate) use budget::*;
use domains::*;
pub use executor::*;
pub use own::*;
pub use path::*;
pub use spin::*;

/// Keeps the values a path abandoned before its end (cut by the bound, or
/// an await iteration dropped) wrote: see [`ThreadPaths::cut_writes`].
fn keep_prefix_writes(s: &State, program: &Program, t: &Thread, out: &mut ThreadPaths) {
    let mut own: BTreeMap<usize, u32> = BTreeMap::new();
    for e in &s.events {
        let Some(l) = location(program, t, e.stmt).filter(|_| e.write.is_some()) else {
            continue;
        };
        *own.entry(l).or_default() += 1;
        let (Some(v), Some(prov)) = (e.write, &e.write_prov) else {
            continue;
        };
        match out.cut_writes.get_mut(&(l, v)) {
            // Several prefixes wrote it: the least provenance and the most
            // own writes (a looser bound only lets more values in).
            Some((p, o)) => {
                *p = prov_min(p, prov);
                for (&k, &n) in &own {
                    let m = o.entry(k).or_default();
                    *m = (*m).max(n);
                }
            }
            None => {
                out.cut_writes.insert((l, v), (prov.clone(), own.clone()));
            }
        }
    }
}

/// The componentwise minimum of two provenances (an empty vector is all
/// zeros, so the minimum with it is empty).
fn prov_min(a: &Prov, b: &Prov) -> Prov {
    a.iter().zip(b).map(|(x, y)| *x.min(y)).collect()
}

/// Per location: each value a write to it can have, with the provenance of
/// that value (see [`explore`]).
/// After them, per dynamic group-function instance a thread reaches, each
/// result it can get there ([`domains::group_domains`]).
#[derive(Default)]
struct Domains {
    locations: Vec<BTreeMap<i64, Prov>>,
    groups: HashMap<GroupSlot, BTreeMap<i64, Prov>>,
}

impl std::ops::Index<usize> for Domains {
    type Output = BTreeMap<i64, Prov>;
    fn index(&self, l: usize) -> &Self::Output {
        &self.locations[l]
    }
}

impl std::ops::IndexMut<usize> for Domains {
    fn index_mut(&mut self, l: usize) -> &mut Self::Output {
        &mut self.locations[l]
    }
}

fn prov_max(a: &Prov, b: &Prov) -> Prov {
    if a.is_empty() {
        return b.clone();
    }
    if b.is_empty() {
        return a.clone();
    }
    a.iter().zip(b).map(|(x, y)| *x.max(y)).collect()
}

/// Explores every thread of `program`, with loops unrolled so that no
/// statement runs more than `unroll + 1` times on a path per entry into its
/// innermost loop (`loop_ranges`: a loop body runs at most `unroll + 1`
/// times each time the loop is entered), and, with `limits.has(Reduction::SpinReduction)`, the loops
/// [`spin_loops`] finds run as awaits.
///
/// Reads that must be concrete range over a value domain per location,
/// computed as a fixpoint: start from the initial values, add every value a
/// path writes, until nothing changes. Each value carries its provenance, the
/// number of writes to each location its derivation used; a value needing
/// more writes to some location than one execution can perform (the sum over
/// threads of the most writes a path makes there) is unreachable and dropped.
/// This keeps counters such as `rmw.add` chains to the values an execution
/// can really produce.
pub fn explore(program: &Program, limits: &Limits) -> Result<Vec<ThreadPaths>, ExecError> {
    explore_with_domains(program, limits).map(|(paths, _)| paths)
}

/// [`explore`], with the value domain of each location (its possible
/// values, ascending). With [`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores) (and not exploring
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
) -> Result<(Vec<ThreadPaths>, Vec<Vec<i64>>), ExecError> {
    // Locations some instruction writes (`executor::step_op`: a plain read
    // of any other holds its initial value in every execution; a load of
    // one cannot race, `spin_loops`).
    let written = spin::written_locations(program);
    let spins: Vec<Vec<SpinLoop>> = program
        .threads
        .iter()
        .map(|t| {
            if PathPlan::of(limits).awaits {
                spin::spin_loops_with(program, t, !limits.endings, &written)
            } else {
                Vec::new()
            }
        })
        .collect();
    let own = own_sets(program, limits);
    let nloc = program.locations.len();
    // Location domains start with the initial value; group-function
    // domains are empty until a round computes their results.
    // An undefined initial value (`Program::undefined`) may be any value
    // of `undefined::Domain`.
    let undefined = super::undefined::Domain::for_search(program, limits);
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
    let budget = Budget::new(limits);
    // Every thread's paths over the current domains (`derive`: keeping
    // reads symbolic through stores, see above), an increment of a counter
    // reading only what it can (`counters`).
    let explore_all = |domain: &Domains,
                       derive: bool,
                       counters: &counters::Counters|
     -> Result<Vec<ThreadPaths>, ExecError> {
        program
            .threads
            .iter()
            .zip(&spins)
            .zip(&own)
            .map(|((t, spins), own)| {
                explore_thread(
                    program,
                    t,
                    limits,
                    spins,
                    (own, &written, counters),
                    domain,
                    &budget,
                    derive,
                )
            })
            .collect()
    };
    let no_counters = counters::Counters::none(program);
    // Whether a prefix waiting for a group function's result counts as
    // not taking part in the instances it has not reached (once waiting
    // alone settles nothing).
    let mut pending_absent = false;
    // Rounds that only let waiting paths on past a group function's result
    // (one per group function along a path) do not count as rounds of the
    // fixpoint.
    let mut waits = 0usize;
    for round in 0.. {
        if round >= MAX_ROUNDS + waits {
            break;
        }
        let all = explore_all(&domain, false, &no_counters)?;
        budget.check(&|| format!("computing the value domains (round {})", round + 1))?;
        // The most writes one execution makes to each location.
        let mut most = vec![0u32; nloc];
        let mut thread_mosts = Vec::with_capacity(all.len());
        for (t, tp) in program.threads.iter().zip(&all) {
            let mut thread_most = vec![0u32; nloc];
            for p in &tp.paths {
                let mut counts = vec![0u32; nloc];
                for e in &p.events {
                    if let Some(l) = location(program, t, e.stmt)
                        && e.write.is_some()
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
        let mut changed = false;
        // `extra(x)`: writes to `x` allowed beyond `most`.
        let mut add = |l: usize, v: i64, prov: &Prov, extra: &dyn Fn(usize) -> u32| {
            if prov
                .iter()
                .zip(&most)
                .enumerate()
                .any(|(x, (c, m))| *c > m + extra(x))
            {
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
            for (&(l, v), (prov, own)) in &tp.cut_writes {
                let extra = |x: usize| own.get(&x).map_or(0, |&n| n.saturating_sub(thread_most[x]));
                add(l, v, prov, &extra);
            }
        }
        let grew = group_domains(program, &all, &mut domain, pending_absent)?;
        let waiting = all.iter().any(|tp| !tp.pending.is_empty());
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
            let values: Vec<Vec<i64>> = domain
                .locations
                .iter()
                .map(|d| d.keys().copied().collect())
                .collect();
            // The domains are settled: the counters the walk shows, and
            // the paths walked again with them.
            let counters = counters::Counters::of(program, &all);
            // Walked again, the paths are the same ones split less or
            // fewer: the domains hold a result for every group function
            // they reach.
            let settled = |paths: Vec<ThreadPaths>, values| {
                if paths.iter().any(|tp: &ThreadPaths| !tp.pending.is_empty()) {
                    return Err(ExecError::limit(
                        LimitKind::ValueDomains,
                        "the results of a group function could not be computed from what the invocations contribute".to_string(),
                    ));
                }
                Ok((paths, values))
            };
            if PathPlan::of(limits).symbolic_stores {
                return settled(explore_all(&domain, true, &counters)?, values);
            }
            if counters.any() {
                return settled(explore_all(&domain, false, &counters)?, values);
            }
            return Ok((all, values));
        }
    }
    Err(ExecError::limit(
        LimitKind::ValueDomains,
        format!("the value domains did not settle in {MAX_ROUNDS} rounds: lower --unroll"),
    ))
}

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
                    (Term::Const(c), t) => (
                        t,
                        *c,
                        match o {
                            Cmp::Lt => Cmp::Gt,
                            Cmp::Le => Cmp::Ge,
                            Cmp::Gt => Cmp::Lt,
                            Cmp::Ge => Cmp::Le,
                            other => *other,
                        },
                    ),
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

/// Rounds of the value-domain fixpoint before giving up.
const MAX_ROUNDS: usize = 64;

/// The most iterations one path may run, across its loops, without a
/// branch decided by a value from memory before the unrolling bound counts
/// them as it counts the others (`State::free_iterations`). Such a loop
/// (`for (k = 0; k < 4; k++)`, a loop over an invocation's cells) runs the
/// same number of times in every execution: cutting it at the bound would
/// only lose executions, never bound a spin. The cap bounds a loop that
/// never ends without reading memory (`while (true) {}`), which then meets
/// the bound as before.
pub const MAX_FREE_ITERATIONS: u32 = 64;

fn location(program: &Program, t: &Thread, stmt: usize) -> Option<usize> {
    match &t.code[stmt] {
        Stmt::Op(i) => program.location_of(i),
        _ => None,
    }
}

/// The state of one path being explored.
#[derive(Clone)]
struct State {
    pc: usize,
    /// Whether no execution takes this path (an increment left no value it
    /// can read, `counters`): it is dropped.
    dead: bool,
    regs: HashMap<String, RegValue>,
    events: Vec<PathEvent>,
    runs: Vec<usize>,
    /// The statement run last (`usize::MAX` before the first): whether
    /// the path arrives at a loop's head from outside the loop.
    last: usize,
    /// The value the read at `pc` must return (set when a read-modify-write split).
    forced: Option<i64>,
    /// Provenance of the concrete register values that came from reads.
    prov: HashMap<String, Prov>,
    /// The awaits under way, innermost last (an await inside the body of
    /// another, [`spin_loops`]): the spin loop, its first event, its
    /// instance.
    awaiting: Vec<(SpinLoop, usize, usize)>,
    /// The awaits passed.
    awaits: Vec<Await>,
    /// Label statements run, with the number of events before each and
    /// the registers then (to find a loop's iterations and whether they can
    /// repeat; kept only when exploring endings).
    arrivals: Vec<(usize, usize, HashMap<String, RegValue>)>,
    /// The expressions [`RegValue::Expr`] names (see [`Path::exprs`]).
    exprs: Vec<ValueExpr>,
    /// The registers whose value comes from memory: the result of a read or
    /// a group function, or arithmetic on such a register.
    from_memory: HashSet<String>,
    /// The branches on a value from memory the path took whose sides have
    /// not met again yet: where they meet ([`executor::post_dominators`]),
    /// the branch's number on the path ([`State::opened`]) and its
    /// statement. An iteration jumping back with one opened during it went
    /// round again because of memory; where one closes, the registers its
    /// sides assign take the taint of memory.
    control: Vec<(usize, u32, usize)>,
    /// Branches on a value from memory taken so far on the path.
    opened: u32,
    /// Per loop head (statement index), `opened` when the path last
    /// arrived there.
    head_marks: Vec<(usize, u32)>,
    /// Loop iterations the unrolling bound did not count: each jumped back
    /// to its head without a branch decided by memory since the last
    /// arrival there (at most [`MAX_FREE_ITERATIONS`]).
    free_iterations: u32,
    /// Per loop head, the path as it was at its last arrival there: the
    /// number of events, the live registers' values
    /// ([`executor::note_head`]), and the earliest read made
    /// concrete since ([`executor::fix_read`]; an iteration that fixed an
    /// earlier read changed the path before it): to find an iteration that
    /// repeats the one before it ([`executor::repeats`]).
    heads: Vec<(usize, usize, Vec<Option<RegValue>>, usize)>,
    /// Whether the path needs a group function's result no round of the
    /// value domains has computed yet ([`ThreadPaths::pending`]).
    pending: bool,
    /// Whether local arithmetic and stores keep symbolic reads symbolic
    /// ([`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores); never while the value domains are
    /// computed).
    derive: bool,
    /// Whether a read of an own location whose latest own write is derived
    /// takes that write's term ([`Reduction::OwnForwarding`](crate::engine::Reduction::OwnForwarding), with `derive`).
    forward: bool,
    /// The reads that took their latest own write's term (event index,
    /// term): each is made concrete when its term is ([`fix_read`]).
    forwarded: Vec<(usize, RegValue)>,
}
