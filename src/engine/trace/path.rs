//! What the per-thread walk produces: paths, their events and endings.

use crate::ir::{Instruction, Program, Stmt};
use std::collections::BTreeMap;

/// How each thread's paths are listed: what the active reductions make of
/// the path stage (`crate::engine::reduce::hook`; every field off for the
/// reference enumeration). The walk is handed it and never asks which
/// reductions are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathPlan {
    /// Side-effect-free spin loops run as awaits (only the iteration that
    /// leaves the loop) instead of being unrolled.
    pub awaits: bool,
    /// A read whose value only flows into stores, registers and local
    /// arithmetic stays symbolic (never while endings are listed).
    pub symbolic_stores: bool,
    /// A read of a location only its own thread writes takes only the
    /// thread's latest earlier write there (the model declares
    /// `latest-own-write`; also while endings are listed, see
    /// `reduce/own_write_filter.rs`).
    pub own_write_filter: bool,
    /// With `own_write_filter`: the statements a thread can run (which
    /// writes another thread can run, `reach`) are found tracking only the
    /// registers that decide a branch, not every register.
    pub branch_registers: bool,
    /// Such a read whose latest earlier write is derived takes that write's
    /// term as its value.
    pub own_forwarding: bool,
    /// An increment of a counter reads only the values another chain of
    /// increments can give it, never the counter's last value (`counters`:
    /// the paths are walked again with them once the value domains
    /// settle).
    pub counters: bool,
    /// With `symbolic_stores`: once the rounds that compute the value
    /// domains with every read concrete pass the path limit, the domains
    /// are computed by paths that keep reads symbolic as the final ones
    /// do, each derived store adding its term's values over the domains of
    /// the reads it names.
    pub symbolic_domains: bool,
    /// With `symbolic_domains`: the symbolic rounds from the first round,
    /// without trying the concrete ones (what the differential tests
    /// compare against the concrete rounds).
    pub symbolic_domains_first: bool,
    /// A path the unrolling bound cut whose reads of one location change
    /// value more often than the other threads can write it is dropped,
    /// not counted as cut (the model declares `po-coherence`:
    /// `coherence`).
    pub coherence_cuts: bool,
    /// `Some(k)`: each path ends just before its `k`-th control barrier
    /// ([`is_control_barrier`]), as a prefix waiting there
    /// ([`Ending::Cut`] with `waiting`, in [`ThreadPaths::cut_prefixes`]):
    /// the listing of the walks over barrier prefixes
    /// (`crate::engine::reduce::barrier_prefixes`), whose executions stop
    /// there, so the value domains hold only what is written before.
    pub stop_at_barrier: Option<usize>,
    /// With `symbolic_stores`: an integer atomic RMW of a commuting kind
    /// whose result nothing reads keeps its read symbolic, its write
    /// derived from it (`Code::commuting`; never while endings are
    /// listed).
    pub commuting_rmws: bool,
}

/// Whether statement `stmt` of `t` is a control barrier, group functions
/// (also barrier instructions of the IR) apart: the barriers the walks
/// over barrier prefixes stop at.
pub fn is_control_barrier(t: &crate::ir::Thread, stmt: usize) -> bool {
    matches!(&t.code[stmt], Stmt::Op(i)
        if matches!(i.kind, crate::ir::OpKind::ControlBarrier { .. }) && i.group.is_none())
}

/// How many writes to each location the chain of writes that produced a
/// value needs, at least. Componentwise minima keep it an under-estimate, so
/// discarding values whose provenance exceeds what one execution can write is
/// sound.
///
/// Only the locations with a count are held, as `(location, count)` pairs
/// in increasing order of location, every count positive: a value's chain
/// names a few locations, while a shader declares thousands (an image's
/// texels), and a path holds one provenance per write and register. A
/// vector over every location cost each write event a copy of that many
/// counts, and each split of a path a copy of all of them (FidelityFX SPD:
/// over a gigabyte of them). The empty provenance is all zeros: initial
/// values and constants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prov(Vec<(u32, u32)>);

impl Prov {
    /// All zeros.
    pub(super) fn new() -> Prov {
        Prov(Vec::new())
    }

    /// Whether every count is zero.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The count of location `l`.
    #[cfg(test)]
    fn get(&self, l: usize) -> u32 {
        match self.0.binary_search_by_key(&(l as u32), |&(x, _)| x) {
            Ok(k) => self.0[k].1,
            Err(_) => 0,
        }
    }

    /// Counts one more write to location `l`.
    pub(super) fn count(&mut self, l: usize) {
        match self.0.binary_search_by_key(&(l as u32), |&(x, _)| x) {
            Ok(k) => self.0[k].1 += 1,
            Err(k) => self.0.insert(k, (l as u32, 1)),
        }
    }

    /// Counts one write fewer to location `l` (none below zero).
    pub(super) fn uncount(&mut self, l: usize) {
        if let Ok(k) = self.0.binary_search_by_key(&(l as u32), |&(x, _)| x) {
            if self.0[k].1 > 1 {
                self.0[k].1 -= 1;
            } else {
                self.0.remove(k);
            }
        }
    }

    /// The locations with a count, in increasing order, with their counts.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.0.iter().map(|&(l, n)| (l as usize, n))
    }

    /// The provenance with location `l`'s count moved to `rename(l)` for
    /// every counted `l` (`None` when `rename` has no image for one).
    pub(crate) fn renamed(&self, rename: impl Fn(usize) -> Option<usize>) -> Option<Prov> {
        let mut out = self
            .0
            .iter()
            .map(|&(l, n)| Some((rename(l as usize)? as u32, n)))
            .collect::<Option<Vec<_>>>()?;
        out.sort_unstable();
        Some(Prov(out))
    }
}

/// The componentwise minimum of two provenances (with the empty one, all
/// zeros, it is empty).
pub(super) fn prov_min(a: &Prov, b: &Prov) -> Prov {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.0.len() && j < b.0.len() {
        let ((x, m), (y, n)) = (a.0[i], b.0[j]);
        match x.cmp(&y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push((x, m.min(n)));
                i += 1;
                j += 1;
            }
        }
    }
    Prov(out)
}

/// The componentwise maximum of two provenances (with the empty one, all
/// zeros, it is the other).
pub(super) fn prov_max(a: &Prov, b: &Prov) -> Prov {
    if a.is_empty() {
        return b.clone();
    }
    if b.is_empty() {
        return a.clone();
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.0.len().max(b.0.len()));
    while i < a.0.len() && j < b.0.len() {
        let ((x, m), (y, n)) = (a.0[i], b.0[j]);
        match x.cmp(&y) {
            std::cmp::Ordering::Less => {
                out.push((x, m));
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push((y, n));
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((x, m.max(n)));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a.0[i..]);
    out.extend_from_slice(&b.0[j..]);
    Prov(out)
}

/// The value a read returns on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReadValue {
    /// Fixed on this path: the read must read a write of this value (or the
    /// initial value, if equal).
    Concrete(i64),
    /// Not needed by the path: any write to the location (or the initial value).
    Symbolic,
}

/// One event of a path: an executed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct PathEvent {
    /// Index of the statement in the thread's code.
    pub stmt: usize,
    /// Value read, for reads.
    pub read: Option<ReadValue>,
    /// Value written, for writes (`None`: unknown, only in Alloy `.test` files
    /// where a store names no value, or `derived`).
    pub write: Option<i64>,
    /// A store whose value is a function of symbolic reads
    /// ([`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores)): a [`RegValue::Read`] or
    /// [`RegValue::Expr`] of the path, its value known once a candidate
    /// execution says what those reads read (`write` is `None`).
    pub derived: Option<RegValue>,
    /// Provenance of the value written (value-domain computation only).
    pub write_prov: Option<Prov>,
    /// Whether the event writes: the instruction is a write, and not a
    /// compare-exchange that failed.
    pub writes: bool,
    /// A named control barrier's id and quorum values on this path.
    pub barrier: BarrierValues,
}

impl PathEvent {
    /// The instruction this event of thread `t` executed, when its
    /// statement is one.
    pub fn op<'p>(&self, program: &'p Program, t: usize) -> Option<&'p Instruction> {
        match &program.threads[t].code[self.stmt] {
            Stmt::Op(i) => Some(i),
            _ => None,
        }
    }

    /// The location this event of thread `t` accesses, if any.
    pub fn location(&self, program: &Program, t: usize) -> Option<usize> {
        self.op(program, t).and_then(|i| program.location_of(i))
    }
}

/// The values of a control barrier's id and quorum operands on a path
/// (`None` when the barrier has no such operand), and of a group
/// function's operands ([`crate::ir::Instruction::group`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierValues {
    pub id: Option<i64>,
    pub quorum: Option<i64>,
    /// The value a group function's work-item contributes.
    pub contribution: Option<i64>,
    /// A broadcast's local id.
    pub local_id: Option<i64>,
}

/// A register's final value on a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegValue {
    Const(i64),
    /// The value read by the path's event at this index (a symbolic read).
    Read(usize),
    /// The value of the path's expression at this index
    /// ([`Path::exprs`]): local arithmetic on symbolic reads, computed
    /// once a candidate execution says what they read
    /// ([`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores)).
    Expr(usize),
}

/// Local arithmetic whose operands include a symbolic read
/// ([`RegValue::Expr`]): `a op b`, each operand a constant, a symbolic read
/// or an earlier expression of the same path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueExpr {
    pub op: crate::ir::ArithOp,
    pub a: RegValue,
    pub b: RegValue,
}

/// One path of a thread: complete (it reaches the end of the code), or, when
/// exploring for termination ([`Limits::endings`](crate::engine::Limits::endings)), one that ends stuck in a
/// loop or stops part-way.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub events: Vec<PathEvent>,
    /// Final registers (complete paths only; empty for the others).
    pub registers: Vec<(String, RegValue)>,
    /// The spin loops the path ran as awaits, in program order.
    pub awaits: Vec<Await>,
    /// How the path ends.
    pub ending: Ending,
    /// The expressions [`RegValue::Expr`] names (registers and derived
    /// stores; empty without [`Reduction::SymbolicStores`](crate::engine::Reduction::SymbolicStores)).
    pub exprs: Vec<ValueExpr>,
}

/// How a path ends.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// It runs to the end of the thread's code.
    Finished,
    /// It has just jumped back to a loop's head and ends there: the loop may
    /// go on forever if its last iterations can repeat (see
    /// `analysis::termination`).
    Stuck(Stuck),
    /// It stops after its events, without finishing: a thread the scheduler
    /// no longer runs (no event at all: it never started).
    Stopped,
    /// It waits at a control barrier (the statement `stmt`, its `key`-th
    /// dynamic instance: static instance number and how many times the path
    /// reached it, with its id and quorum `values`) that does not open: too
    /// few invocations of its execution-`scope` instance arrive (see
    /// [`crate::engine::barrier`]).
    Blocked {
        stmt: usize,
        key: (u32, usize),
        scope: crate::ir::Scope,
        values: BarrierValues,
    },
    /// It stops where the unrolling bound cut it: running statement `stmt`
    /// once more would exceed the bound; or (`spinning`) it spins forever
    /// in the await whose head is `stmt`: no value of the domains lets
    /// it leave (every iteration was dropped). Only in
    /// [`ThreadPaths::cut_prefixes`], for races within the bound
    /// ([`crate::engine::Limits::prefix_races`]). With `waiting`, no bound
    /// cut it: it waits at the control barrier `stmt`, where the walk over
    /// barrier prefixes stops it (`crate::engine::reduce::barrier_prefixes`),
    /// or, with `stmt` [`NOT_STARTED`], it has not started (another
    /// workgroup runs alone).
    Cut {
        stmt: usize,
        spinning: bool,
        waiting: bool,
    },
}

/// How many of a path's expressions `exprs` were made before its event
/// `first`: those up to the first that names a read from `first` on
/// (expressions are made in the order the path runs, so the later ones
/// are made after that read too, and the events before `first` name none
/// of them). What a prefix of the path cut before `first` keeps.
pub fn exprs_made_before(exprs: &[ValueExpr], first: usize) -> usize {
    exprs
        .iter()
        .position(|x| {
            [x.a, x.b]
                .iter()
                .any(|t| matches!(t, RegValue::Read(e) if *e >= first))
        })
        .unwrap_or(exprs.len())
}

/// The statement of an [`Ending::Cut`] `waiting` for a thread that has
/// not started.
pub const NOT_STARTED: usize = usize::MAX;

/// A loop a path ends in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stuck {
    /// The loop's head (the label statement the back jump targets).
    pub header: usize,
    /// The jump back.
    pub back: usize,
    /// The loop's iterations on the path since it entered the loop, oldest
    /// first, as ranges of event indices (the last one ends the path).
    pub iterations: Vec<std::ops::Range<usize>>,
    /// A spin loop run as an await: its last iteration alone repeats (it
    /// writes nothing and leaves the registers as it found them).
    pub side_effect_free: bool,
    /// The registers at the start of each iteration, then (last) at the end
    /// of the path, back at the loop's head (loops that are not awaits):
    /// a register's value, or the read (event index) whose value it holds
    /// when nothing on the path made that value concrete (it then depends
    /// on the candidate execution).
    pub registers: Vec<Vec<(String, RegValue)>>,
}

/// The value of each expression given the values `read` knows (`None`
/// where it depends on a read it does not know), in one pass: an
/// expression names only earlier ones.
pub fn expr_values(exprs: &[ValueExpr], read: &dyn Fn(usize) -> Option<i64>) -> Vec<Option<i64>> {
    let mut out: Vec<Option<i64>> = Vec::with_capacity(exprs.len());
    for x in exprs {
        let v = match (term_value(&out, x.a, read), term_value(&out, x.b, read)) {
            (Some(a), Some(b)) => Some(x.op.apply(a, b)),
            _ => None,
        };
        out.push(v);
    }
    out
}

/// The value of a term, given the expressions' values (`values`, from
/// [`expr_values`], possibly only those before the term) and the reads'.
pub fn term_value(
    values: &[Option<i64>],
    v: RegValue,
    read: &dyn Fn(usize) -> Option<i64>,
) -> Option<i64> {
    match v {
        RegValue::Const(c) => Some(c),
        RegValue::Read(e) => read(e),
        RegValue::Expr(k) => values.get(k).copied().flatten(),
    }
}

/// One pass of a path through a spin loop run as an await: its events are
/// those of the iteration that leaves the loop. What would keep the loop
/// spinning is kept for forward-progress questions (an await whose looping
/// values can be read forever may spin forever); nothing uses it yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Await {
    /// The loop's head (the label statement the back jump targets).
    pub header: usize,
    /// The events of the leaving iteration: indices into the path's events.
    pub events: std::ops::Range<usize>,
    /// Paths of the thread with the same `instance` went through the same
    /// entry into the loop (they split on the values read inside it).
    pub instance: usize,
    /// The iterations dropped at this entry because their values make the
    /// loop jump back: for each, the values its reads returned, in order
    /// (a read the branch did not need stays symbolic).
    pub looping: Vec<Vec<ReadValue>>,
}

/// The most cut points [`ThreadPaths::cut_points`] keeps with their
/// registers' values per thread (each costs a walk of the code when the
/// counters are found).
pub const MAX_CUT_STATES: usize = 64;

/// How many times a path passed each unnamed, quorum-free control barrier:
/// `(static instance, execution scope, passes)`, in instance order.
pub type Passes = Vec<(u32, crate::ir::Scope, usize)>;

/// All paths of one thread.
#[derive(Clone, Debug, Default)]
pub struct ThreadPaths {
    pub paths: Vec<Path>,
    /// Paths abandoned because a statement would run more than the bound
    /// allows, or stopped at a control barrier by the walks over barrier
    /// prefixes (`crate::engine::reduce::barrier_prefixes`; those also
    /// counted in `waiting`).
    pub cut: usize,
    /// Of `cut`, the paths stopped at a control barrier.
    pub waiting: usize,
    /// The values the paths abandoned before their end wrote (cut by the
    /// bound, or an await's iteration dropped because every value of the
    /// domain loops), per `(location, value)` with the least provenance:
    /// such a prefix can be the prefix of a path within the bound (the
    /// thread reads its own earlier write, then leaves the loop), so its
    /// writes join the value domains (`explore`).
    /// With each, the prefix's own writes per location up to that write
    /// (sparse), which bound the provenance instead of this thread's
    /// complete paths when they write more.
    pub cut_writes: BTreeMap<(usize, i64), (Prov, BTreeMap<usize, u32>)>,
    /// Spin-loop iterations dropped because they jump back (not cut: the
    /// iteration that leaves the loop stands for them).
    pub dropped_iterations: usize,
    /// With [`crate::engine::Limits::prefix_races`] (and not exploring endings):
    /// the paths the unrolling bound cut, each as the prefix it ran before
    /// the statement that would exceed the bound ([`Ending::Cut`]), with
    /// its registers there. Dat3M's unrolled program ends a thread at its
    /// bound event, so these are the thread's executions that stop at the
    /// bound. Kept apart from `paths`: no final state, condition or
    /// execution count sees them. At most `max_paths` of them (past it the
    /// rest are not kept: fewer races may be found, none is invented).
    pub cut_prefixes: Vec<Path>,
    /// The statements of the write events the walk made, on every path
    /// and on every state it abandoned (cut, dropped).
    pub write_stmts: std::collections::BTreeSet<usize>,
    /// Where the unrolling bound cut a path: the statement, and the
    /// constant values the path held there in the registers that steer the
    /// thread's branches (sorted by name; a register left out is unknown).
    /// A thread running on past the bound goes on from one of them. Past
    /// [`MAX_CUT_STATES`] of them, a cut point is kept with no register
    /// known.
    pub cut_points: std::collections::BTreeSet<(usize, Vec<(String, i64)>)>,
    /// The cut paths by the unnamed control barriers they passed before
    /// the bound cut them ([`Passes`]): how many cut paths passed each
    /// such profile (read by the `lockstep` module).
    pub cut_barriers: BTreeMap<Passes, usize>,
    /// Cut paths that the bound did not cut short of any execution: each
    /// passed a control barrier that a member of its instance never
    /// reaches, where it waits forever (the `lockstep` module). They are
    /// counted here instead of in `cut`.
    pub discharged: usize,
    /// Paths the unrolling bound cut that no execution has: their reads of
    /// one location change value more often than the other threads can
    /// write it ([`crate::engine::trace::PathPlan::coherence_cuts`]). Counted here instead of in
    /// `cut`.
    pub unrealisable: usize,
    /// While the value domains are computed with symbolic reads
    /// ([`PathPlan::symbolic_domains`]): the values the derived writes of
    /// the complete paths can have, per `(location, value)` with the least
    /// provenance (`domains::Reads::derived_values`).
    pub derived_writes: BTreeMap<(usize, i64), Prov>,
    /// Whether some derived write (of a complete path or a prefix the walk
    /// abandoned) names a group function's result no round has computed
    /// yet: its values are not known, so the domains are not settled.
    pub unresolved: bool,
    /// While the value domains are computed: the events of each path
    /// stopped where it needed the result of a group function that no
    /// round has computed for it yet (its contributions up to there are
    /// what the next round computes from). Empty once the domains settle.
    pub pending: Vec<Vec<PathEvent>>,
}

/// One event of an execution: an executed instruction and its values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct EventInfo {
    /// Index into `Program::threads`.
    pub thread: usize,
    /// Index of the statement in that thread's code.
    pub stmt: usize,
    /// The value the path fixed for a read (`None` for symbolic reads and non-reads).
    pub read_value: Option<i64>,
    /// The value written (`None` for non-writes and unknown values).
    pub write_value: Option<i64>,
    /// Whether the event writes (a failed compare-exchange only reads).
    pub writes: bool,
    /// A named control barrier's id and quorum values.
    #[serde(skip)]
    pub barrier: BarrierValues,
    /// A store whose value the candidate execution gives (a read or an
    /// expression of the skeleton: [`crate::engine::Skeleton::exprs`]; see
    /// [`crate::engine::Reduction::SymbolicStores`]); `write_value` is `None`.
    #[serde(skip)]
    pub derived: Option<RegValue>,
}

impl EventInfo {
    /// The instruction of the event.
    pub fn instruction<'p>(&self, program: &'p Program) -> &'p Instruction {
        match &program.threads[self.thread].code[self.stmt] {
            Stmt::Op(i) => i,
            _ => unreachable!("events are instructions"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Prov, prov_max, prov_min};
    use proptest::prelude::*;

    /// The provenance as a vector over every location, the representation
    /// [`Prov`] replaced: the oracle here.
    fn dense(p: &Prov, n: usize) -> Vec<u32> {
        (0..n).map(|l| p.get(l)).collect()
    }

    fn sparse(d: &[u32]) -> Prov {
        let mut p = Prov::new();
        for (l, &c) in d.iter().enumerate() {
            for _ in 0..c {
                p.count(l);
            }
        }
        p
    }

    /// Pairs in increasing order of location, every count positive: one
    /// representation per provenance, so `==` is equality of counts.
    fn canonical(p: &Prov) -> bool {
        p.0.windows(2).all(|w| w[0].0 < w[1].0) && p.0.iter().all(|&(_, c)| c > 0)
    }

    const N: usize = 6;

    proptest! {
        #[test]
        fn the_sparse_operations_are_the_dense_ones(
            a in proptest::collection::vec(0u32..3, N),
            b in proptest::collection::vec(0u32..3, N),
            l in 0usize..N,
        ) {
            let (pa, pb) = (sparse(&a), sparse(&b));
            let min: Vec<u32> = a.iter().zip(&b).map(|(x, y)| *x.min(y)).collect();
            let max: Vec<u32> = a.iter().zip(&b).map(|(x, y)| *x.max(y)).collect();
            let (smin, smax) = (prov_min(&pa, &pb), prov_max(&pa, &pb));
            prop_assert_eq!(dense(&smin, N), min.clone());
            prop_assert_eq!(dense(&smax, N), max);
            prop_assert!(canonical(&smin) && canonical(&smax));
            prop_assert_eq!(pa == pb, a == b);
            prop_assert_eq!(pa.is_empty(), a.iter().all(|&c| c == 0));
            let mut up = pa.clone();
            up.count(l);
            let mut a_up = a.clone();
            a_up[l] += 1;
            prop_assert_eq!(dense(&up, N), a_up);
            let mut down = pa.clone();
            down.uncount(l);
            let mut a_down = a.clone();
            a_down[l] = a_down[l].saturating_sub(1);
            prop_assert_eq!(dense(&down, N), a_down);
            prop_assert!(canonical(&up) && canonical(&down));
            // Renaming by a permutation of the locations moves each count.
            let renamed = pa.renamed(|x| Some(N - 1 - x)).unwrap();
            let reversed: Vec<u32> = a.iter().rev().copied().collect();
            prop_assert_eq!(dense(&renamed, N), reversed);
            prop_assert!(canonical(&renamed));
            prop_assert_eq!(pa.renamed(|x| (x != l).then_some(x)).is_none(), a[l] > 0);
            prop_assert!(pa.iter().all(|(x, c)| a[x] == c && c > 0));
        }
    }
}
